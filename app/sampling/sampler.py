"""The sampler of the native engine (native/src/sampler.c), stage by stage.

Presets reproduce engines bit for bit on the same logits and seed (ds4,
llama.cpp, kestrel); `hf` follows transformers' order and rules but its draw
(torch.multinomial) is not reproducible; `custom` lets the user order the
stages and pick each stage's rule. Logits files (.npy, raw float32/float16/
bfloat16, text) open at once however large: `open_logits` parses the header in C
and each `row(i)` reads that row alone with os.pread, after checking that the
file is still the one opened (size, mtime, inode). Nothing is memory-mapped: a
map of a file that an editor or a training script saves smaller in place raises
SIGBUS (the process dies) on the next read; here it is a FileChangedError.

Does not: define the presets or the settings (settings.py, plain data).
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .. import _tokcore
from .settings import PRESETS, SEMANTICS, STAGES, SamplerSettings

LOGITS_FORMATS: tuple[str, ...] = ("npy", "f32", "f16", "bf16", "text")


@dataclass
class Stage:
    name: str
    ids: np.ndarray          # int32, in the engine's order (empty for a large stage of a light run)
    probs: np.ndarray        # float64, same order, renormalized over the kept set (likewise)
    kept: int
    kept_mass: float         # mass of the kept set in the previous stage's distribution
    entropy_bits: float
    cutoff: str
    # with top_n: the top_n candidates by probability (descending, lower id first among equals), and
    # for each of the previous stage's top ids whether this stage kept it (None without top_n)
    top_ids: np.ndarray | None = None
    top_probs: np.ndarray | None = None
    kept_of_prev_top: np.ndarray | None = None

    @property
    def complete(self) -> bool:
        """ids and probs hold every kept candidate (a light run leaves them out of large stages)."""
        return self.ids.shape[0] == self.kept


@dataclass
class SampleResult:
    preset: str
    stages: list[Stage]      # stages[0] is "input"; stages[-1] is the final distribution
    greedy: bool
    notes: list[str] = field(default_factory=list)


@dataclass
class Draws:
    ids: np.ndarray          # int32
    rng_before: str
    rng_after: str


def _check(s: SamplerSettings) -> None:
    if s.preset not in PRESETS:
        raise ValueError(f"unknown preset {s.preset!r} (one of {', '.join(PRESETS)})")
    if not 0 <= s.seed < 2**64:
        raise ValueError(f"seed {s.seed} outside 0..2^64-1")
    if s.preset in ("llama.cpp", "kestrel") and s.seed >= 2**32:
        raise ValueError(f"{s.preset} seeds a 32-bit RNG: seed {s.seed} outside 0..2^32-1")
    if not -(2**31) <= s.top_k < 2**31:
        raise ValueError(f"top_k {s.top_k} outside the int32 range")
    for st in s.order or ():
        if st not in STAGES:
            raise ValueError(f"unknown stage {st!r} (one of {', '.join(STAGES)})")
    for st, sem in (s.semantics or {}).items():
        if st not in STAGES or sem not in SEMANTICS:
            raise ValueError(f"bad semantics {st}={sem} (stages {STAGES}, engines {SEMANTICS})")


def _row(logits_row: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(logits_row, dtype=np.float32)
    if a.ndim != 1 or a.size == 0:
        raise ValueError(f"need one non-empty row of logits, got shape {a.shape}")
    return a


# Native workspaces reused across runs (no allocation per run: a dragged slider runs the sampler at
# every step). The workers are pool threads whose Python thread state need not outlive a job, so a
# thread-local one would be made afresh per job: a run takes one from this small free list and puts
# it back. The native side also refuses to share one between two runs at once (the second run takes
# a workspace of its own), so a mistake here costs speed, never a wrong result.
_ws_lock = threading.Lock()
_ws_free: list[tuple[int, object]] = []   # (vocab it was made for, workspace)
WS_KEEP = 3
LIGHT_MAX = 4096   # a light run leaves out the ids and probs of stages larger than this (not the last)


@contextmanager
def _workspace(vocab: int) -> Iterator[object]:
    with _ws_lock:
        k = next((i for i, (n, _) in enumerate(_ws_free) if n >= vocab), None)
        got = _ws_free.pop(k) if k is not None else None
    if got is None:
        got = (vocab, _tokcore.sampler_workspace(vocab))
    try:
        yield got[1]
    finally:
        with _ws_lock:
            if len(_ws_free) < WS_KEEP:
                _ws_free.append(got)


def _call(logits_row: np.ndarray, s: SamplerSettings, n: int, top_n: int = 0, light: bool = False) -> dict:
    _check(s)
    order = ",".join(s.order if s.order is not None else STAGES) if s.preset == "custom" else ""
    sem = ",".join(f"{k}={v}" for k, v in (s.semantics or {}).items()) if s.preset == "custom" else ""
    row = _row(logits_row)
    with _workspace(row.size) as ws:
        return _tokcore.sampler_run(row, s.preset, float(s.temperature), int(s.top_k), float(s.top_p),
                                    float(s.min_p), int(s.seed), order, sem, int(n), 0, None, ws,
                                    int(top_n), LIGHT_MAX if light else -1)


def run_stages(logits_row: np.ndarray, s: SamplerSettings, top_n: int = 0, light: bool = False) -> SampleResult:
    """Every stage of the preset's chain on one row of logits.

    top_n > 0 fills each stage's top_ids / top_probs / kept_of_prev_top; light (with top_n) leaves the
    ids and probs out of the stages larger than LIGHT_MAX candidates except the last (see Stage.complete)."""
    if light and top_n <= 0:
        raise ValueError("a light run needs top_n > 0 (its large stages are known by their tops only)")
    return _result(_call(logits_row, s, 0, top_n, light))


def sample(logits_row: np.ndarray, s: SamplerSettings, n: int = 1) -> tuple[SampleResult, Draws]:
    """run_stages and draw(n) in one pass of the sampler."""
    if n < 0:
        raise ValueError("n must be >= 0")
    raw = _call(logits_row, s, n)
    return _result(raw), _draws(raw)


def _draws(raw: dict) -> Draws:
    return Draws(np.frombuffer(raw["draws"], dtype=np.int32).copy(), raw["rng_before"], raw["rng_after"])


def _stage(t: tuple) -> Stage:
    name, ids, probs, mass, h, kept, cut = t[:7]
    st = Stage(name, np.frombuffer(ids, dtype=np.int32), np.frombuffer(probs, dtype=np.float64), int(kept),
               float(mass), float(h), cut)
    if len(t) > 7:
        st.top_ids = np.frombuffer(t[7], dtype=np.int32)
        st.top_probs = np.frombuffer(t[8], dtype=np.float64)
        st.kept_of_prev_top = np.frombuffer(t[9], dtype=np.bool_)
    return st


def _result(raw: dict) -> SampleResult:
    stages = [_stage(t) for t in raw["stages"]]
    notes = [x for x in raw["notes"].split("\n") if x]
    return SampleResult(raw["preset"], stages, bool(raw["greedy"]), notes)


DRAW_CHUNK = 1 << 20   # draws per piece when streaming (4 MiB of ids)


@dataclass
class DrawCounts:
    """n draws counted without holding them: ids (ascending) drawn at least once and their counts."""

    n: int
    ids: np.ndarray          # int64, ascending
    counts: np.ndarray       # int64, same order
    first: np.ndarray        # int32: the first `keep` draws in order
    rng_before: str
    rng_after: str


def sample_counts(logits_row: np.ndarray, s: SamplerSettings, n: int,
                  on_chunk: Callable[[np.ndarray], None] | None = None, keep: int = 0,
                  chunk: int = DRAW_CHUNK) -> tuple[SampleResult, DrawCounts]:
    """run_stages and n draws (the same as sample's) streamed from the engine `chunk` at a time: each
    piece goes to on_chunk (in order) and into a histogram, so memory stays flat for any n (< 2^32)."""
    if n < 0:
        raise ValueError("n must be >= 0")
    row = _row(logits_row)
    hist = np.zeros(row.size, dtype=np.int64)
    first: list[np.ndarray] = []
    kept = 0

    def take(piece: bytes) -> None:
        nonlocal hist, kept
        ids = np.frombuffer(piece, dtype=np.int32)
        if ids.size and int(ids.max()) >= hist.size:
            hist = np.concatenate([hist, np.zeros(int(ids.max()) + 1 - hist.size, dtype=np.int64)])
        hist += np.bincount(ids, minlength=hist.size)
        if kept < keep:
            first.append(ids[: keep - kept].copy())
            kept += len(first[-1])
        if on_chunk is not None:
            on_chunk(ids)

    _check(s)
    order = ",".join(s.order if s.order is not None else STAGES) if s.preset == "custom" else ""
    sem = ",".join(f"{k}={v}" for k, v in (s.semantics or {}).items()) if s.preset == "custom" else ""
    with _workspace(row.size) as ws:
        raw = _tokcore.sampler_run(row, s.preset, float(s.temperature), int(s.top_k), float(s.top_p),
                                   float(s.min_p), int(s.seed), order, sem, int(n), int(chunk), take, ws)
    nz = np.flatnonzero(hist)
    firsts = np.concatenate(first) if first else np.zeros(0, dtype=np.int32)
    return _result(raw), DrawCounts(n, nz.astype(np.int64), hist[nz], firsts, raw["rng_before"], raw["rng_after"])


def draw(logits_row: np.ndarray, s: SamplerSettings, n: int = 1) -> Draws:
    """n draws in a row from one RNG seeded once with s.seed (as the engine over n steps with these logits)."""
    if n < 0:
        raise ValueError("n must be >= 0")
    return _draws(_call(logits_row, s, n))


def empirical(draws_ids: np.ndarray, final: Stage) -> np.ndarray:
    """Counts of each final candidate (in final.ids order) among the draws; a draw outside them raises."""
    ids = np.asarray(draws_ids, dtype=np.int64)
    order = np.argsort(final.ids, kind="stable")
    sorted_ids = final.ids[order].astype(np.int64)
    pos = np.searchsorted(sorted_ids, ids)
    ok = (pos < len(sorted_ids)) & (sorted_ids[np.minimum(pos, len(sorted_ids) - 1)] == ids)
    if not ok.all():
        bad = ids[~ok][0]
        raise ValueError(f"draw {bad} is not a final candidate")
    counts = np.zeros(len(final.ids), dtype=np.int64)
    np.add.at(counts, order[pos], 1)
    return counts


def _gammaincc(a: float, x: float) -> float:
    """Regularized upper incomplete gamma Q(a, x) (series below a+1, continued fraction above)."""
    if x <= 0:
        return 1.0
    lg = math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        ap = a
        for _ in range(10000):
            ap += 1
            term *= x / ap
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(-x + a * math.log(x) - lg))
    b = x + 1 - a
    c = 1e300
    d = 1 / b
    h = d
    for i in range(1, 10000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = 1e-300 if abs(d) < 1e-300 else d
        c = b + an / c
        c = 1e-300 if abs(c) < 1e-300 else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return min(1.0, math.exp(-x + a * math.log(x) - lg) * h)


def chi_square(counts: np.ndarray, probs: np.ndarray) -> tuple[float, int, float]:
    """Pearson's chi-square of counts against probs: (statistic, degrees of freedom, p-value).

    Categories with zero probability are left out (a count there makes the statistic inf, p 0)."""
    c = np.asarray(counts, dtype=np.float64)
    p = np.asarray(probs, dtype=np.float64)
    total = c.sum()
    zero = p <= 0
    if (c[zero] > 0).any():
        return math.inf, int((~zero).sum()) - 1, 0.0
    c, p = c[~zero], p[~zero] / p[~zero].sum()
    dof = len(c) - 1
    if dof <= 0 or total == 0:
        return 0.0, max(dof, 0), 1.0
    expected = total * p
    stat = float(((c - expected) ** 2 / expected).sum())
    return stat, dof, _gammaincc(dof / 2.0, stat / 2.0)


# ---- logits sources -----------------------------------------------------------------

_DTYPES = {"float32": "<f4", "float16": "<f2", "float64": "<f8", "bfloat16": "<u2"}


class FileChangedError(ValueError):
    """A logits file changed (shrank, was rewritten or replaced) after it was opened."""


def _signature(st: os.stat_result) -> tuple[int, int, int, int]:
    return (st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev)


@dataclass
class LogitsSource:
    """Rows of logits: .steps rows of .vocab values; .row(i) is float32.

    A source opened from a file reads each row from the file when asked (see the module's note);
    one made from an array (from_array, the demo) holds its values."""

    steps: int
    vocab: int
    label: str
    path: Path | None
    _data: np.ndarray | None  # [steps, vocab] float32 in memory (arrays, text files); None: read from path
    _dtype: str = "float32"
    _offset: int = 0
    _sig: tuple[int, int, int, int] | None = None

    def _changed(self, what: str) -> FileChangedError:
        return FileChangedError(f"{self.path}: the file changed while open ({what}); open it again")

    def _read(self, i: int) -> np.ndarray:
        assert self.path is not None and self._sig is not None
        dt = np.dtype(_DTYPES[self._dtype])
        n = self.vocab * dt.itemsize
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except OSError as exc:
            raise self._changed(f"cannot open it: {exc.strerror}") from exc
        try:
            sig = _signature(os.fstat(fd))
            if sig != self._sig:
                what = (f"now {sig[0]} bytes, {self._sig[0]} when opened" if sig[0] != self._sig[0]
                        else "modified since it was opened" if sig[1] != self._sig[1] else "replaced by another file")
                raise self._changed(what)
            buf = os.pread(fd, n, self._offset + i * n)
        finally:
            os.close(fd)
        if len(buf) != n:
            raise self._changed("it is shorter than when opened")
        return np.frombuffer(buf, dtype=dt)

    def row(self, i: int) -> np.ndarray:
        if not 0 <= i < self.steps:
            raise IndexError(f"step {i} outside 0..{self.steps - 1}")
        r = self._data[i] if self._data is not None else self._read(i)
        if self._dtype == "bfloat16":
            return (r.astype(np.uint32) << 16).view(np.float32)
        if r.dtype != np.float32:
            with np.errstate(over="ignore"):
                return r.astype(np.float32)
        return r

    @classmethod
    def from_array(cls, values: np.ndarray, label: str) -> LogitsSource:
        a = np.ascontiguousarray(values, dtype=np.float32)
        if a.ndim == 1:
            a = a.reshape(1, -1)
        if a.ndim != 2 or a.shape[1] == 0 or a.shape[0] == 0:
            raise ValueError(f"need [vocab] or [steps, vocab] logits, got shape {a.shape}")
        return cls(a.shape[0], a.shape[1], label, None, a)


def open_logits(path: str | Path, vocab_size: int | None = None, fmt: str | None = None) -> LogitsSource:
    """A logits file: .npy (1-D or 2-D), raw f32/f16/bf16 (needs vocab_size), or text (one value per line).

    fmt: None detects (.npy magic, text, else by extension .f32/.f16/.bf16/.bin as float32)."""
    p = Path(path)
    if fmt is None:
        ext = p.suffix.lower().lstrip(".")
        fmt = {"f32": "f32", "bin": "f32", "raw": "f32", "f16": "f16", "bf16": "bf16", "txt": "text"}.get(ext, "auto")
    elif fmt not in LOGITS_FORMATS:
        raise ValueError(f"unknown logits format {fmt!r} (one of {', '.join(LOGITS_FORMATS)})")
    try:
        sig = _signature(os.stat(p))
    except OSError as exc:
        raise ValueError(f"{p}: cannot open: {exc.strerror}") from exc
    kind, dtype, offset, steps, vocab, text = _tokcore.logits_open(str(p), fmt, int(vocab_size or 0))
    label = f"{p.name} ({kind}, {dtype}, {steps} x {vocab})"
    if text is not None:
        return LogitsSource(steps, vocab, label, p, np.frombuffer(text, dtype=np.float32).reshape(steps, vocab))
    return LogitsSource(steps, vocab, label, p, None, dtype, offset, sig)
