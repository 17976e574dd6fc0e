"""The Sampling tab's model: logits, settings, and what the plots show.

Every change of the settings or the step recomputes in a worker (the C
sampler releases the GIL; newer requests supersede older ones), and turns the
sampler's stages into plot-ready rows: the distribution entering each stage
(top N by probability, labelled with the decoded token text), which of them
the stage kept, and a title with kept count, kept mass and entropy. The
presets side by side run the same logits and seed through every engine and
record each top token's fate.

Does not: draw (widgets/sampling_pane.py), or read files on the UI thread.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
from PySide6.QtCore import QObject, QTimer, Signal

from ..core.pieces import visible
from ..core.tokenizer import Tokenizer
from ..sampling.sampler import (
    Draws,
    LogitsSource,
    SampleResult,
    Stage,
    chi_square,
    empirical,
    open_logits,
    run_stages,
    sample,
)
from ..sampling.settings import PRESETS, SamplerSettings
from .engine_text import engine_text
from .i18n import tr
from .workers import Coalescer, Runner

ENGINES = ("ds4", "llama.cpp", "kestrel", "hf")
ENGINES_AFTER_MS = 120


@dataclass(frozen=True)
class StagePlot:
    name: str
    title: str
    labels: list[str]
    ids: np.ndarray
    probs: np.ndarray           # the distribution entering the stage (the result, for "input" and "final")
    kept: np.ndarray            # bool per bar: the stage kept it
    cutoff: str


@dataclass(frozen=True)
class Fate:
    id: int
    label: str
    cells: tuple[str, ...]      # per engine: the final probability, or "cut by <stage>"
    differs: bool               # kept by some engines, cut by others


@dataclass(frozen=True)
class SamplingView:
    result: SampleResult        # a light run: stages above LIGHT_MAX candidates carry their tops only
    plots: list[StagePlot]
    seconds: float


@dataclass(frozen=True)
class EnginesView:
    settings: SamplerSettings
    fates: list[Fate]
    engine_draws: tuple[str, ...]   # per engine: the token its first draw gives for this seed


@dataclass(frozen=True)
class DrawView:
    n: int
    draws: Draws
    label: str                  # the first draw: id, text, probability
    ids: np.ndarray             # the final candidates shown in the histogram (top N)
    labels: list[str]
    expected: np.ndarray        # final probabilities
    observed: np.ndarray        # empirical frequencies
    chi2: float
    dof: int
    p_value: float


def token_label(tok: Tokenizer | None, i: int, width: int = 7) -> str:
    data = tok.id_to_bytes(i) if tok is not None and 0 <= i < tok.vocab_size else None
    if data is None:
        return f"#{i}"
    text = visible(data.decode("utf-8", errors="replace"))
    return text if len(text) <= width else text[: width - 1] + "…"


def _top(ids: np.ndarray, probs: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    if probs.shape[0] > n:
        part = np.argpartition(-probs, n - 1)[:n]
        order = part[np.lexsort((ids[part], -probs[part]))]
    else:
        order = np.lexsort((ids, -probs))
    return ids[order], probs[order]


def _title(st: Stage, name: str | None = None) -> str:
    """'top_k: kept 40 · mass 0.92 · H 2.33 bits' (name: the stage's own unless given)."""
    return tr("{stage}: kept {n} · mass {mass} · H {h} bits").format(
        stage=st.name if name is None else name, n=f"{st.kept:,}", mass=f"{st.kept_mass:.3g}",
        h=f"{st.entropy_bits:.2f}")


def stage_plots(r: SampleResult, tok: Tokenizer | None, top_n: int) -> list[StagePlot]:
    """One plot per stage: the entering distribution's top N, marked kept or cut; then the final one.

    Each stage's top N is computed once (it is the next stage's entering distribution too): by the
    engine when the run asked for it (run_stages(top_n=...), the drag path: no full-vocabulary arrays
    leave the engine), else here from the stage's arrays.
    """
    native = all(st.top_ids is not None and st.top_probs is not None and st.top_ids.shape[0] >= min(top_n, st.kept)
                 for st in r.stages)
    tops = ([(st.top_ids[:top_n], st.top_probs[:top_n]) for st in r.stages] if native  # type: ignore[index]
            else [_top(st.ids, st.probs, top_n) for st in r.stages])
    names: dict[int, str] = {}

    def labels(ids: np.ndarray) -> list[str]:
        return [names.setdefault(i, token_label(tok, i)) for i in ids.tolist()]

    def every(ids: np.ndarray) -> np.ndarray:
        return np.ones(ids.shape[0], dtype=bool)

    first, last = r.stages[0], r.stages[-1]
    out = [StagePlot("input", _title(first), labels(tops[0][0]), *tops[0], every(tops[0][0]),
                     engine_text(first.cutoff))]
    for k, (prev, st) in enumerate(zip(r.stages, r.stages[1:])):
        ids, probs = tops[k]
        if st.kept == prev.kept:                        # a stage never adds candidates: it kept them all
            kept = every(ids)
        elif native and st.kept_of_prev_top is not None and st.kept_of_prev_top.shape[0] >= ids.shape[0]:
            kept = st.kept_of_prev_top[: ids.shape[0]].copy()
        else:                                           # a mask over the ids (np.isin sorts 150k ids: 5 ms)
            mask = np.zeros(int(max(ids.max(initial=0), st.ids.max(initial=0))) + 1, dtype=bool)
            mask[st.ids] = True
            kept = mask[ids]
        out.append(StagePlot(st.name, _title(st), labels(ids), ids, probs, kept, engine_text(st.cutoff)))
    ids, probs = tops[-1]
    out.append(StagePlot("final", _title(last, "final"), labels(ids), ids, probs, every(ids), engine_text(last.cutoff)))
    return out


def _fate(r: SampleResult, i: int) -> tuple[str, bool]:
    """The final probability of id i (kept), or the stage that cut it."""
    final = r.stages[-1]
    hit = np.nonzero(final.ids == i)[0]
    if hit.size:
        return f"{float(final.probs[hit[0]]):.4f}", True
    for st in r.stages[1:]:
        if not np.any(st.ids == i):
            return tr("cut by {stage}").format(stage=st.name), False
    return tr("cut"), False


def compare_engines(row: np.ndarray, s: SamplerSettings, tok: Tokenizer | None,
                    top_n: int) -> tuple[list[Fate], tuple[str, ...]]:
    """The top input tokens' fate under every engine with the same settings and seed, and each engine's draw."""
    runs = [sample(row, replace(s, preset=e, order=None, semantics=None), 1) for e in ENGINES]
    results = [r for r, _ in runs]
    first = results[0].stages[0]
    ids, _ = _top(first.ids, first.probs, top_n)
    fates = []
    for i in ids.tolist():
        fate = [_fate(r, i) for r in results]
        cells = tuple(c for c, _ in fate)
        kept = [k for _, k in fate]
        fates.append(Fate(i, token_label(tok, i, 16), cells, any(kept) and not all(kept)))
    drawn = []
    for e, (_, d) in zip(ENGINES, runs):
        mark = "" if PRESETS[e].reproducible else tr(" (not reproducible)")
        drawn.append(f"{int(d.ids[0])} {token_label(tok, int(d.ids[0]), 16)!r}{mark}")
    return fates, tuple(drawn)


class SamplingModel(QObject):
    changed = Signal()          # a new view
    enginesChanged = Signal()   # a new engines-side-by-side table
    drew = Signal()             # a new draw result
    sourceChanged = Signal()
    failed = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.source: LogitsSource | None = None
        self.tokenizer: Tokenizer | None = None
        self.step = 0
        self.settings = SamplerSettings()
        self.top_n = 16
        self.view: SamplingView | None = None
        self.engines: EnginesView | None = None
        self.draw_view: DrawView | None = None
        self.active = False
        self._runner = Coalescer(parent=self)
        self._runner.finished.connect(self._on_view)
        self._runner.failed.connect(self._on_failed)
        self._engines = Coalescer(parent=self)
        self._engines_job: Callable[[threading.Event, int], EnginesView] | None = None
        # the engines table runs once the plots have rested this long (it would slow a drag down)
        self._rest = QTimer(self)
        self._rest.setSingleShot(True)
        self._rest.setInterval(ENGINES_AFTER_MS)
        self._rest.timeout.connect(self._start_engines)
        self._engines.finished.connect(self._on_engines)
        self._engines.failed.connect(self.failed)
        self._drawer = Runner(parent=self)
        self._drawer.finished.connect(self._on_draw)
        self._drawer.failed.connect(self.failed)
        self._loader = Runner(parent=self)
        self._loader.finished.connect(self.set_source)
        self._loader.failed.connect(self.failed)

    @property
    def busy(self) -> bool:
        return (self._runner.running or self._engines.running or self._engines_job is not None
                or self._drawer.running or self._loader.running)

    # ---- inputs ----------------------------------------------------------------------------------------
    def set_tokenizer(self, tok: Tokenizer | None) -> None:
        self.tokenizer = tok
        self.recompute()

    def load(self, path: str) -> None:
        vocab = self.tokenizer.vocab_size if self.tokenizer is not None else None
        self._loader.submit(lambda ev, gen: open_logits(path, vocab_size=vocab))

    def load_bigram(self, text: str, label: str) -> None:
        tok = self.tokenizer
        if tok is None:
            self.failed.emit(tr("Open a tokenizer first: the bigram demo counts its tokens."))
            return
        from ..sampling.demo import bigram_logits

        def work(ev: threading.Event, gen: int) -> LogitsSource:
            src = bigram_logits(tok, text, translate=tr)
            src.label = tr("{label} (text: {source})").format(label=src.label, source=label)
            return src

        self._loader.submit(work)

    def set_source(self, src: LogitsSource | None) -> None:
        self.source = src
        self.step = 0
        self.draw_view = None
        self.sourceChanged.emit()
        self.recompute()

    def set_step(self, step: int) -> None:
        if self.source is not None and 0 <= step < self.source.steps and step != self.step:
            self.step = step
            self.recompute()

    def set_settings(self, s: SamplerSettings) -> None:
        if s != self.settings:
            self.settings = s
            self.recompute()

    def set_top_n(self, n: int) -> None:
        self.top_n = max(2, n)
        self.recompute()

    def set_active(self, on: bool) -> None:
        self.active = on
        if on and self.view is None:
            self.recompute()

    def row(self) -> np.ndarray | None:
        return None if self.source is None else self.source.row(self.step)

    # ---- work ------------------------------------------------------------------------------------------
    def recompute(self) -> None:
        src, step = self.source, self.step
        if src is None or not self.active:
            return
        s, tok, top_n = self.settings, self.tokenizer, self.top_n
        rows: list[np.ndarray] = []

        def work(ev: threading.Event, gen: int) -> SamplingView:
            t0 = time.perf_counter()
            # the row is read here, off the UI thread: a file that changed since it was opened
            # raises FileChangedError, which the runner reports through failed()
            row = src.row(step)
            rows.append(row)
            r = run_stages(row, s, top_n=top_n, light=True)   # the tops only: no full-vocabulary copies
            return SamplingView(r, stage_plots(r, tok, top_n), time.perf_counter() - t0)

        def engines(ev: threading.Event, gen: int) -> EnginesView:
            row = rows[0] if rows else src.row(step)
            fates, drawn = compare_engines(row, s, tok, min(top_n, 15))
            return EnginesView(s, fates, drawn)

        self._engines_job = engines
        self._runner.request(work)      # the plots first; the engines table (four more runs) when they rest

    def draw(self, n: int) -> None:
        src, step = self.source, self.step
        if src is None:
            return
        s, tok, top_n = self.settings, self.tokenizer, self.top_n

        def work(ev: threading.Event, gen: int) -> DrawView:
            r, d = sample(src.row(step), s, n)        # stages and draws from one sampler pass
            final = r.stages[-1]
            # a draw outside the final candidates is an engine's documented fallback (kestrel's argmax when
            # the sum is NaN: see the notes); it is counted apart instead of failing the histogram
            inside = np.isin(d.ids, final.ids)
            outside = int((~inside).sum())
            counts = empirical(d.ids[inside], final)
            stat, dof, p = chi_square(counts, final.probs)
            first = int(d.ids[0])
            hit = np.nonzero(final.ids == first)[0]
            prob = float(final.probs[hit[0]]) if hit.size else 0.0
            ids, probs = _top(final.ids, final.probs, top_n)
            pos = {int(i): k for k, i in enumerate(final.ids.tolist())}
            observed = np.array([counts[pos[int(i)]] for i in ids], dtype=np.float64) / max(n, 1)
            label = f"{first} {token_label(tok, first, 24)!r} (p = {prob:.4f})"
            if outside:
                why = next((engine_text(x) for x in r.notes if "fallback" in x), tr("an engine fallback"))
                label += tr("; {n} draw(s) outside the final candidates ({why})").format(n=f"{outside:,}", why=why)
            return DrawView(n, d, label, ids, [token_label(tok, int(i)) for i in ids], probs, observed, stat, dof, p)

        self._drawer.submit(work)

    def _on_failed(self, msg: str) -> None:
        self._engines_job = None        # its row could not be read either (or its stages failed): not busy
        self.failed.emit(msg)

    def _on_view(self, v: SamplingView) -> None:
        self.view = v
        self.changed.emit()
        self._rest.start()

    def _start_engines(self) -> None:
        if self._runner.running:        # still dragging: wait for the next rest
            self._rest.start()
            return
        if self._engines_job is not None:
            job, self._engines_job = self._engines_job, None
            self._engines.request(job)

    def _on_engines(self, v: EnginesView) -> None:
        self.engines = v
        self.enginesChanged.emit()

    def _on_draw(self, d: DrawView) -> None:
        self.draw_view = d
        self.drew.emit()
