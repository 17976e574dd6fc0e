"""The corpus through HF `datasets` (the `corpus` extra): memory-mapped Arrow tables, a batched
`map` over `num_proc` processes, and its fingerprint cache.

The corpus becomes an Arrow dataset in the cache folder: Parquet, JSON Lines and Arrow files
through `load_dataset` (the file's packaged builder), a folder of text files through
`Dataset.from_generator` (one row per file, keyed by the files' paths, sizes and mtimes, so an
edited file is read again). `map(count_columns, batched=True, num_proc=N)` writes the counted
rows beside it; datasets names that file by the fingerprint of the input and of the function
with its arguments (the series carry their files' sha256, `code_fingerprint` the engine's and
this package's), so a second run of the same report over the same data loads it instead of
counting (datasets 5.2: `Dataset._map_single` and `_get_cache_file_path`, huggingface/datasets
`src/datasets/arrow_dataset.py`). `cache_hit` says whether it did: every cache file of the
result was there before the run.

Does not: run without `datasets` (optional.py says how to get it), or keep the text in memory.
"""

from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import _tokcore
from .corpus import CorpusError, Source, decode, read_table
from .counting import RowCounts, count_batch, from_columns, to_columns
from .optional import need
from .series import Series

LOADERS = {"json": "json", "parquet": "parquet", "arrow": "arrow"}


@dataclass(frozen=True)
class DatasetsRun:
    rows: list[RowCounts]
    cache_files: tuple[str, ...]   # the Arrow files holding the counted rows
    cache_hit: bool                # all of them were there before this run: nothing was counted


def text_rows(files: list[str], stamps: list[tuple[int, int]]) -> Iterator[dict[str, str]]:
    """One row per text file (stamps: (size, mtime_ns) of each, part of the dataset's fingerprint)."""
    del stamps
    for f in files:
        p = Path(f)
        yield {"lang": p.stem, "text": decode(p.read_bytes(), p)}


@functools.lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """sha256 of what decides the counts: the engine's binary and this package's sources.

    subtle: datasets hashes a map function of an importable module by its name only (dill pickles
    it by reference), so a new tokinspect would be served the old version's counts; this string,
    one of the function's arguments, is part of the fingerprint instead.
    """
    h = hashlib.sha256()
    for f in [Path(_tokcore.__file__), *sorted(Path(__file__).parent.glob("*.py"))]:
        h.update(f.name.encode() + b"\0" + f.read_bytes())
    return h.hexdigest()


def count_columns(batch: dict[str, list[Any]], series: list[Series], lang_column: str,
                  text_column: str, code: str = "") -> dict[str, list[object]]:
    """The map function: a batch of (language, text) rows -> their counts as columns (`code`: only
    for the fingerprint)."""
    del code
    rows = count_batch(batch[lang_column], batch[text_column], series)
    return to_columns(rows, len(series))


def load_source(src: Source, cache_dir: str | None) -> Any:
    datasets = need("datasets", "--engine datasets")
    if src.kind == "text":
        files = [str(f.resolve()) for f in src.files]
        stamps = [(os.stat(f).st_size, os.stat(f).st_mtime_ns) for f in files]
        features = datasets.Features({"lang": datasets.Value("string"), "text": datasets.Value("string")})
        return datasets.Dataset.from_generator(text_rows, features=features, cache_dir=cache_dir,
                                               gen_kwargs={"files": files, "stamps": stamps})
    if src.kind in ("parquet", "arrow"):
        for f in src.files:    # refused here, naming the file, before datasets logs its own trace
            read_table(f, src.kind, schema_only=True)
    try:
        ds = datasets.load_dataset(LOADERS[src.kind], data_files=[str(f.resolve()) for f in src.files],
                                   split="train", cache_dir=cache_dir)
    except Exception as exc:  # noqa: BLE001 - datasets' own errors (DatasetGenerationError ...): one sentence
        cause = exc.__cause__ or exc
        raise CorpusError(f"{src.files[0]}: datasets could not read it "
                          f"({str(cause).splitlines()[0] if str(cause) else type(cause).__name__})") from None
    missing = [c for c in (src.lang_column, src.text_column) if c not in ds.column_names]
    if missing:
        raise CorpusError(f"{src.files[0]}: no column {missing[0]!r} (columns: {', '.join(ds.column_names)})")
    for c in (src.lang_column, src.text_column):
        dtype = getattr(ds.features[c], "dtype", None)
        if dtype not in ("string", "large_string"):
            raise CorpusError(f"{src.files[0]}: column {c!r} is {dtype or ds.features[c]}, not a string")
    return ds


def _existing(ds: Any) -> set[str]:
    folders = {os.path.dirname(c["filename"]) for c in ds.cache_files}
    return {os.path.join(d, n) for d in folders for n in os.listdir(d)}


def run_datasets(src: Source, series: Sequence[Series], workers: int = 1, cache_dir: str | None = None,
                 batch_size: int = 16) -> DatasetsRun:
    ds = load_source(src, cache_dir)
    lang_col, text_col = ("lang", "text") if src.kind == "text" else (src.lang_column, src.text_column)
    before = _existing(ds)
    mapped = ds.map(count_columns, batched=True, batch_size=batch_size, num_proc=workers if workers > 1 else None,
                    fn_kwargs={"series": list(series), "lang_column": lang_col, "text_column": text_col,
                               "code": code_fingerprint()},
                    remove_columns=ds.column_names, desc="tokinspect languages")
    files = tuple(c["filename"] for c in mapped.cache_files)
    rows = from_columns(mapped.to_dict(), len(series))
    return DatasetsRun(rows, files, bool(files) and all(f in before for f in files))
