"""Shared helpers for the benchmark scripts: data paths, corpus, timing, tables.

Nothing here imports a tokenizer library, so a script can pin thread counts
(RAYON_NUM_THREADS, TOKENIZERS_PARALLELISM) before it imports HF tokenizers.
"""

from __future__ import annotations

import datetime as _dt
import os
import platform
import sys
import sysconfig
import time
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FALLBACK_BYTES = 10_000_000


def shared_data() -> Path:
    """The shared data folder: $TOKINSPECT_SHARED_DATA, else <repo>/../shared/data."""
    env = os.environ.get("TOKINSPECT_SHARED_DATA")
    return Path(env) if env else REPO.parent / "shared" / "data"


def qwen3_tokenizer_json() -> Path | None:
    p = shared_data() / "qwen3" / "tokenizer.json"
    return p if p.exists() else None


# ---- corpus ----------------------------------------------------------------
@dataclass(frozen=True)
class Corpus:
    names: list[str]
    texts: list[str]
    source: str  # human description, says when it is the fallback

    @property
    def n_bytes(self) -> int:
        return sum(len(t.encode("utf-8")) for t in self.texts)


def _read_files(paths: Sequence[Path]) -> tuple[list[str], list[str]]:
    names = [p.name for p in paths]
    texts = [p.read_text(encoding="utf-8") for p in paths]
    return names, texts


def default_corpus_files() -> list[Path]:
    """udhr/txt/*.txt (sorted) + ollama/war-and-peace.txt; empty if absent."""
    root = shared_data()
    files = sorted((root / "udhr" / "txt").glob("*.txt"))
    wap = root / "ollama" / "war-and-peace.txt"
    if wap.exists():
        files.append(wap)
    return files


def corpus_from_path(path: Path) -> Corpus:
    files = sorted(path.rglob("*.txt")) if path.is_dir() else [path]
    if not files:
        raise SystemExit(f"no .txt files under {path}")
    names, texts = _read_files(files)
    return Corpus(names, texts, f"{path} ({len(files)} files)")


def _unicode_text() -> str:
    """Every assigned letter/number/punctuation code point of the BMP, by block of 64."""
    cps = [chr(c) for c in range(0x20, 0x10000) if unicodedata.category(chr(c))[0] in "LNPS"]
    lines = ["".join(cps[i : i + 8]) for i in range(0, len(cps), 8)]
    return unicodedata.normalize("NFC", " ".join(lines))


def fallback_corpus(limit: int = FALLBACK_BYTES) -> Corpus:
    """The stdlib's own .py files (sorted, up to `limit` bytes) plus one text of Unicode characters."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    names, texts, total = ["unicodedata-bmp"], [_unicode_text()], 0
    for p in sorted(stdlib.glob("*.py")) + sorted(stdlib.glob("*/*.py")):
        try:
            text = p.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        names.append(str(p.relative_to(stdlib)))
        texts.append(text)
        total += len(text.encode("utf-8"))
        if total >= limit:
            break
    return Corpus(names, texts, f"FALLBACK (shared data absent): {stdlib} *.py + generated Unicode text")


def load_corpus(path: str | None, quick: int | None = None) -> Corpus:
    """--corpus if given, else the shared udhr + War and Peace corpus, else the fallback."""
    if path:
        corpus = corpus_from_path(Path(path))
    elif files := default_corpus_files():
        names, texts = _read_files(files)
        corpus = Corpus(names, texts, f"{shared_data()}: udhr/txt/*.txt + ollama/war-and-peace.txt")
    else:
        corpus = fallback_corpus()
    if quick:
        tag = f" [--quick: first {quick}]"
        corpus = Corpus(corpus.names[:quick], corpus.texts[:quick], corpus.source + tag)
    return corpus


def not_nfc(corpus: Corpus) -> list[str]:
    """Names of texts that NFC normalization would change."""
    pairs = zip(corpus.names, corpus.texts, strict=True)
    return [n for n, t in pairs if not unicodedata.is_normalized("NFC", t)]


# ---- timing ------------------------------------------------------------------
@dataclass(frozen=True)
class Timing:
    best: float  # wall seconds, best run
    cpu: float  # process CPU seconds, best run (> wall would mean more than one thread ran)
    runs: list[float]  # wall seconds of every run
    cpu_runs: list[float]


def best_of(fn: Callable[[], object], runs: int, min_seconds: float = 0.0, max_runs: int = 100) -> Timing:
    """Runs fn `runs` times, and more (up to max_runs) until the runs add up to min_seconds of wall
    time; keeps the best wall time and the best process CPU time. A pass of a few ms measured three
    times is at the mercy of one descheduling (another process's, a peer's idle thread pool).

    On a loaded machine wall time includes time spent descheduled; the CPU time
    of a single-threaded engine does not, so both are reported."""
    walls: list[float] = []
    cpus: list[float] = []
    while len(walls) < runs or (sum(walls) < min_seconds and len(walls) < max_runs):
        c0, t0 = time.process_time(), time.perf_counter()
        fn()
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    return Timing(min(walls), min(cpus), walls, cpus)


# ---- machine and versions ------------------------------------------------------
def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def load_average() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


def dist_version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def print_header(title: str, dists: Sequence[str]) -> None:
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"# {title}")
    print(f"date      {_dt.datetime.now().astimezone().isoformat(timespec='seconds')}")
    print(f"machine   {cpu_model()}; {os.cpu_count()} logical cores ({usable} usable); {platform.platform()}")
    print(f"load avg  {load_average()} (1/5/15 min, at start)")
    print(f"python    {sys.version.split()[0]}")
    print("versions  " + ", ".join(f"{d} {dist_version(d)}" for d in dists))


# ---- tables --------------------------------------------------------------------
def print_table(headers: Sequence[str], rows: Sequence[Sequence[object]], left: int = 1) -> None:
    """Plain aligned table: the first `left` columns left-aligned, the rest right-aligned."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]

    def fmt(r: Sequence[str]) -> str:
        cols = enumerate(zip(r, widths, strict=True))
        parts = [c.ljust(w) if i < left else c.rjust(w) for i, (c, w) in cols]
        return "  ".join(parts).rstrip()

    print(fmt(cells[0]))
    print("  ".join("-" * w for w in widths))
    for r in cells[1:]:
        print(fmt(r))


def ratio_matrix(names: Sequence[str], speeds: Sequence[float], label: str) -> None:
    """Cell (row, col) = speed of row / speed of col (> 1: row is faster)."""
    print(f"\n{label}: row / column (> 1 means the row engine is faster)")
    headers = [""] + [f"[{i + 1}]" for i in range(len(names))]
    rows = [[f"[{i + 1}] {n}"] + [f"{a / b:.2f}" for b in speeds]
            for i, (n, a) in enumerate(zip(names, speeds, strict=True))]
    print_table(headers, rows)


# ---- named corpora (throughput.py) ------------------------------------------------
CORPORA = ("multilingual", "english", "code")
CODE_DIRS = ("app", "native", "tests", "bench")
CODE_SUFFIXES = (".py", ".c", ".h")


def code_files() -> list[Path]:
    """This repository's own sources: *.py, *.c, *.h under app/, native/, tests/, bench/ (git-tracked
    files when git can list them, else every such file on disk), sorted."""
    import subprocess

    try:
        out = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z", "--", *CODE_DIRS],
                             capture_output=True, check=True).stdout.decode("utf-8").split("\0")
        files = [REPO / f for f in out if f.endswith(CODE_SUFFIXES) and (REPO / f).is_file()]
    except (OSError, subprocess.CalledProcessError):
        files = [p for d in CODE_DIRS for p in (REPO / d).rglob("*") if p.suffix in CODE_SUFFIXES and p.is_file()]
    return sorted(files)


def named_corpus(name: str, quick: int | None = None) -> Corpus:
    """multilingual (all UDHR + War and Peace), english (War and Peace alone), code (code_files()),
    or a path (a .txt file or a folder of them); `quick` keeps the first texts."""
    if name == "multilingual":
        return load_corpus(None, quick)
    if name == "english":
        wap = shared_data() / "ollama" / "war-and-peace.txt"
        if not wap.exists():
            raise SystemExit(f"english corpus: {wap} is absent")
        corpus = Corpus([wap.name], [wap.read_text(encoding="utf-8")], str(wap))
    elif name == "code":
        files = code_files()
        texts = [p.read_text(encoding="utf-8", errors="replace") for p in files]
        corpus = Corpus([str(p.relative_to(REPO)) for p in files], texts,
                        f"this repository's {', '.join(CODE_SUFFIXES)} under {'/, '.join(CODE_DIRS)}/")
    else:
        return load_corpus(name, quick)
    if quick:
        corpus = Corpus(corpus.names[:quick], corpus.texts[:quick], corpus.source + f" [--quick: first {quick}]")
    return corpus
