"""One report, start to end: the corpus counted by one engine, folded into figures.

Engines: "local" (this process, or `workers` processes), "datasets" (HF `datasets`, `workers` map
processes, its cache), "ray" (a Ray cluster at `ray_address`, `workers` concurrent tasks). All
three call counting.count_batch on the same rows and metrics on the same records, so their tables
are equal.

Does not: print, or choose output formats (report.py writes them).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .corpus import Source
from .counting import RowCounts
from .local import run_local
from .metrics import LanguageRow, ScriptRow, group, language_rows, script_rows
from .progress import Progress
from .series import Series

ENGINES = ("local", "datasets", "ray")


@dataclass(frozen=True)
class Options:
    reference: str = "eng"
    parity: str = "auto"
    engine: str = "local"
    workers: int = 1
    ray_address: str | None = None
    cache_dir: str | None = None


@dataclass
class Report:
    corpus: str
    kind: str
    options: Options
    series: list[str]
    parity_mode: str
    languages: list[LanguageRow]
    scripts: list[ScriptRow]
    cache_hit: bool | None = None           # the datasets engine: served from its cache
    cache_files: tuple[str, ...] = field(default_factory=tuple)

    def rows_of(self, series: str) -> list[LanguageRow]:
        return [r for r in self.languages if r.series == series]

    def row(self, series: str, lang: str) -> LanguageRow | None:
        return next((r for r in self.languages if r.series == series and r.lang == lang), None)


def count(src: Source, series: Sequence[Series], opts: Options,
          progress: Progress | None = None) -> tuple[list[RowCounts], bool | None, tuple[str, ...]]:
    if opts.engine == "local":
        return run_local(src, series, opts.workers, progress), None, ()
    if opts.engine == "datasets":
        from .hf_datasets import run_datasets

        d = run_datasets(src, series, opts.workers, opts.cache_dir)
        return d.rows, d.cache_hit, d.cache_files
    if opts.engine == "ray":
        from .ray_job import run_ray

        if not opts.ray_address:
            raise ValueError("the ray engine needs a cluster address (--ray ADDRESS)")
        return run_ray(src, series, opts.ray_address, opts.workers), None, ()
    raise ValueError(f"unknown engine {opts.engine!r}; one of {', '.join(ENGINES)}")


def build(src: Source, series: Sequence[Series], opts: Options, progress: Progress | None = None) -> Report:
    if not series:
        raise ValueError("no tokenizer to measure")
    labels = [s.label for s in series]
    if len(set(labels)) != len(labels):
        labels = [f"{lb} #{k + 1}" for k, lb in enumerate(labels)]
    rows, hit, files = count(src, series, opts, progress)
    langs = group(rows, len(series))
    lang_rows, mode = language_rows(langs, labels, opts.reference, opts.parity, src.names)
    return Report(str(src.path), src.kind, opts, labels, mode, lang_rows, script_rows(lang_rows), hit, files)
