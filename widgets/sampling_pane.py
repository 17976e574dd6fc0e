"""The Sampling tab: controls, one bar plot per sampler stage, the draws, and
the engines side by side.

Each stage plot shows the distribution entering the stage (top N bars,
labelled with the decoded token text): bars the stage kept in color, bars it
cut in grey, a dashed line at the cut. The final plot is what the engine
draws from. Displays app/window/sampling.py's views; computes nothing.
"""

from __future__ import annotations

import html
import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QPushButton,
    QSizePolicy,
    QSlider,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from tokinspect.sampling.settings import PRESETS, STAGES, SamplerSettings
from tokinspect.window.engine_text import engine_text
from tokinspect.window.i18n import tr
from tokinspect.window.sampling import ENGINES, DrawView, EnginesView, SamplingView, StagePlot

from . import theme

LOG_FLOOR = -8.0     # log10 p below this is drawn at the floor
TICK_GAP = 8         # pixels kept free between two tick labels


def _bars(probs: np.ndarray, log: bool) -> tuple[np.ndarray, float]:
    if not log:
        return probs.astype(np.float64), 0.0
    with np.errstate(divide="ignore"):
        lp = np.maximum(np.log10(np.maximum(probs, 1e-300)), LOG_FLOOR)
    return lp - LOG_FLOOR, LOG_FLOOR


class StagePlotWidget(pg.PlotWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setMenuEnabled(False)
        self.setMouseEnabled(x=False, y=False)
        self.hideButtons()
        self.setMinimumHeight(150)
        self.bars = pg.BarGraphItem(x=[], height=[], width=0.8)
        self.addItem(self.bars)
        self.cut = pg.InfiniteLine(angle=90, pen=pg.mkPen(theme.accent(), width=2, style=Qt.PenStyle.DashLine))
        self.addItem(self.cut)
        self.getAxis("bottom").setStyle(tickFont=self.font())
        self._labels: list[str] = []
        self._shown: dict[str, object] = {}     # what the axes show now
        self.title = QLabel()
        self.title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        # a new title (every drag step: kept, mass, entropy) must not move the grid: a label sized by its
        # text widened its column, which resized and repainted every plot with new axes
        self.title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.title.setMinimumWidth(1)

    def _ticks(self, labels: list[str]) -> list[tuple[float, str]]:
        """Labels that fit under the bars: every k-th bar (k as small as leaves room for 4 characters), each
        elided to the pixels between two labels (measured in the tick font: CJK and "<|…|>" are wide)."""
        n = max(len(labels), 1)
        room = max(self.width() - 60, 50) / n           # pixels per bar (the left axis takes ~60)
        fm = self.fontMetrics()
        four = fm.horizontalAdvance("MMMM")
        step = 1
        while step < n and room * step - TICK_GAP < four:
            step += 1
        width = max(int(room * step) - TICK_GAP, 1)
        return [(i, fm.elidedText(lab, Qt.TextElideMode.ElideRight, width)) for i, lab in enumerate(labels)
                if i % step == 0]

    def resizeEvent(self, e: object) -> None:
        super().resizeEvent(e)  # type: ignore[arg-type]
        if getattr(self, "_labels", None):  # Qt resizes it once inside __init__, before _labels exists
            self.getAxis("bottom").setTicks([self._ticks(self._labels)])

    def show_plot(self, p: StagePlot, log: bool) -> None:
        """Redraws the bars; axes, ticks and title only when they change (an axis relayout is most of a
        repaint: 27 ms for six plots when every update reset them, bench/sampling_gui.py). A plot whose
        bars, marks and title are the ones shown is left alone: a temperature drag in llama.cpp's
        order (temperature last) changes two plots of six, and an unchanged plot is not repainted."""
        same = (p.title, p.cutoff, log, p.ids.tobytes(), p.probs.tobytes(), p.kept.tobytes(), tuple(p.labels))
        if same == self._shown.get("same"):
            return
        self._shown["same"] = same
        heights, base = _bars(p.probs, log)
        kept = theme.token_colors()[0]
        grey = QColor(150, 150, 150, 120)
        brushes = [QBrush(kept if k else grey) for k in p.kept.tolist()]
        n = heights.shape[0]
        self.bars.setOpts(x=np.arange(n), height=heights, y0=np.zeros(n), width=0.8, brushes=brushes,
                          pens=[pg.mkPen(None)] * n)
        if p.title != self.title.text():
            self.title.setText(p.title)     # a QLabel: a plot title would relayout the axes on every change
        if p.labels != self._labels:
            self._labels = p.labels
            self.getAxis("bottom").setTicks([self._ticks(p.labels)])
        if log != self._shown.get("log"):
            ticks = [(float(v - base), f"1e{v}") for v in range(int(base), 1, 2)]
            self.getAxis("left").setTicks([ticks] if log else None)
        cut = np.nonzero(~p.kept)[0]
        self.cut.setVisible(bool(cut.size))
        if cut.size:
            self.cut.setPos(float(cut[0]) - 0.5)
        if n != self._shown.get("n"):
            self.setXRange(-0.6, max(n, 1) - 0.4, padding=0)
        top = float(heights.max()) if n else 1.0
        top = top if top > 0 else 1.0
        ymax = self._shown.get("ymax")
        # the y axis follows the bars in steps: a drag that moves them a little keeps its axis
        if ymax is None or log != self._shown.get("log") or top > ymax or top < 0.6 * ymax:
            self._shown["ymax"] = ymax = top * 1.15
            self.setYRange(0, ymax, padding=0)
        self._shown.update(log=log, n=n)
        self.setToolTip(p.cutoff)


class SamplingPane(QWidget):
    settingsChanged = Signal(object)    # SamplerSettings
    stepChanged = Signal(int)
    topNChanged = Signal(int)
    openLogits = Signal()
    bigramFromInspector = Signal()
    bigramFromFile = Signal()
    drawRequested = Signal(int)         # how many draws
    logToggled = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.log = False
        self._plots: list[StagePlotWidget] = []
        self._boxes: list[QWidget] = []
        self._last: SamplingView | None = None
        outer = QVBoxLayout(self)
        # source
        src = QHBoxLayout()
        self.open_button = QPushButton(tr("Open logits…"))
        self.open_button.setToolTip(tr(".npy ([vocab] or [steps, vocab]), raw float32/float16/bfloat16, or text "
                                    "(one value per line)"))
        self.bigram_button = QPushButton(tr("Bigram demo: inspector text"))
        self.bigram_button.setToolTip(tr("Demo logits: next-token counts of a bigram model built with the current "
                                      "tokenizer from the Inspect tab's text (not a real model)"))
        self.bigram_file = QPushButton(tr("…from a file"))
        self.source_label = QLabel(tr("no logits"))
        self.source_label.setWordWrap(True)
        self.step = QSlider(Qt.Orientation.Horizontal)
        self.step.setEnabled(False)
        self.step_label = QLabel(tr("step –"))
        for w in (self.open_button, self.bigram_button, self.bigram_file):
            src.addWidget(w)
        src.addWidget(self.step_label)
        src.addWidget(self.step, 1)
        outer.addLayout(src)
        outer.addWidget(self.source_label)     # its own row: a long description wrapped into the step label
        # controls
        ctl = QHBoxLayout()
        self.preset = QComboBox()
        self.preset.addItems(list(PRESETS))
        self.temperature = self._dspin(0.0, 5.0, 0.05, 0.8, 3)
        self.top_k = QSpinBox()
        self.top_k.setRange(-1, 1_000_000)
        self.top_k.setValue(40)
        self.top_p = self._dspin(0.0, 1.0, 0.01, 0.95, 3)
        self.min_p = self._dspin(0.0, 1.0, 0.01, 0.05, 3)
        self.seed = QSpinBox()
        self.seed.setRange(0, 2_147_483_647)
        self.seed.setValue(42)
        self.t_slider = QSlider(Qt.Orientation.Horizontal)
        self.t_slider.setRange(0, 300)
        self.t_slider.setValue(80)
        self.t_slider.setToolTip(tr("temperature × 100"))
        self.log_box = QCheckBox(tr("log scale"))
        self.top_n = QSpinBox()
        self.top_n.setRange(5, 60)
        self.top_n.setValue(16)
        for label, w in (("preset", self.preset), ("T", self.temperature), ("", self.t_slider), ("top-k", self.top_k),
                         ("top-p", self.top_p), ("min-p", self.min_p), ("seed", self.seed), ("bars", self.top_n)):
            if label:
                ctl.addWidget(QLabel(tr(label)))
            ctl.addWidget(w, 2 if w is self.t_slider else 0)
        ctl.addWidget(self.log_box)
        outer.addLayout(ctl)
        self.preset_note = QLabel()
        self.preset_note.setWordWrap(True)
        outer.addWidget(self.preset_note)
        # custom order and semantics
        self.custom = QGroupBox(tr("custom: stage order (drag) and each stage's rule"))
        cg = QHBoxLayout(self.custom)
        self.order = QListWidget()
        self.order.setDragDropMode(QAbstractItemView.DragDropMode.InternalMove)
        self.order.setFlow(QListWidget.Flow.LeftToRight)
        self.order.setMaximumHeight(44)
        self.order.addItems(list(STAGES))
        cg.addWidget(self.order, 2)
        sem = QFormLayout()
        self.semantics: dict[str, QComboBox] = {}
        for st in STAGES:
            box = QComboBox()
            box.addItems(list(ENGINES))
            box.setCurrentText("llama.cpp")
            self.semantics[st] = box
            sem.addRow(st, box)
        cg.addLayout(sem, 1)
        outer.addWidget(self.custom)
        # plots, draws, engines
        split = QSplitter(Qt.Orientation.Vertical)
        self.grid_host = QWidget()
        self.grid = QGridLayout(self.grid_host)
        self.grid.setContentsMargins(0, 0, 0, 0)
        split.addWidget(self.grid_host)
        bottom = QSplitter(Qt.Orientation.Horizontal)
        drawbox = QWidget()
        dv = QVBoxLayout(drawbox)
        dv.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        self.draw_button = QPushButton(tr("Draw"))
        self.draw_n = QSpinBox()
        self.draw_n.setRange(2, 10_000_000)
        self.draw_n.setValue(100_000)
        self.draw_n_button = QPushButton(tr("Draw N"))
        row.addWidget(self.draw_button)
        row.addWidget(self.draw_n_button)
        row.addWidget(self.draw_n)
        row.addStretch(1)
        dv.addLayout(row)
        self.draw_label = QLabel(tr("Draw: the engine's next token for this seed, and its RNG state."))
        self.draw_label.setWordWrap(True)
        self.draw_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        dv.addWidget(self.draw_label)
        self.hist = pg.PlotWidget()
        self.hist.hide()        # until the first draw (before it: an empty plot with its top label cut)
        self.draw_label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.hist.setMenuEnabled(False)
        self.hist.hideButtons()
        self.hist.addLegend(offset=(-10, 10))
        self.expected = pg.BarGraphItem(x=[], height=[], width=0.4, brush=theme.token_colors()[0], name=tr("final p"))
        self.observed = pg.BarGraphItem(x=[], height=[], width=0.4, brush=theme.accent(), name=tr("drawn share"))
        self.hist.addItem(self.expected)
        self.hist.addItem(self.observed)
        dv.addWidget(self.hist, 1)
        bottom.addWidget(drawbox)
        self.engines = QTableWidget(len(ENGINES), 1)
        self.engines.setVerticalHeaderLabels(list(ENGINES))
        self.engines.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        eng = QWidget()
        ev = QVBoxLayout(eng)
        ev.setContentsMargins(0, 0, 0, 0)
        ev.addWidget(QLabel(tr("Same logits, settings and seed: one row per engine, a column per top token "
                            "(its final probability or the stage that cut it; red: fates differ), after the draw")))
        ev.addWidget(self.engines, 1)
        bottom.addWidget(eng)
        bottom.setSizes([500, 600])
        split.addWidget(bottom)
        split.setSizes([520, 300])
        outer.addWidget(split, 1)
        # signals
        for w in (self.temperature, self.top_p, self.min_p):
            w.valueChanged.connect(self._emit_settings)
        for w2 in (self.top_k, self.seed):
            w2.valueChanged.connect(self._emit_settings)
        self.preset.currentTextChanged.connect(self._emit_settings)
        for box in self.semantics.values():
            box.currentTextChanged.connect(self._emit_settings)
        self.order.model().rowsMoved.connect(self._emit_settings)
        self.t_slider.valueChanged.connect(lambda v: self.temperature.setValue(v / 100))
        self.temperature.valueChanged.connect(self._sync_slider)
        self.top_n.valueChanged.connect(self.topNChanged)
        self.log_box.toggled.connect(self._toggle_log)
        self.step.valueChanged.connect(self.stepChanged)
        self.step.valueChanged.connect(lambda v: self.step_label.setText(tr("step {k}").format(k=v)))
        self.open_button.clicked.connect(self.openLogits)
        self.bigram_button.clicked.connect(self.bigramFromInspector)
        self.bigram_file.clicked.connect(self.bigramFromFile)
        self.draw_button.clicked.connect(lambda: self.drawRequested.emit(1))
        self.draw_n_button.clicked.connect(lambda: self.drawRequested.emit(self.draw_n.value()))
        self._update_preset_note()

    @staticmethod
    def _dspin(lo: float, hi: float, step: float, value: float, decimals: int) -> QDoubleSpinBox:
        w = QDoubleSpinBox()
        w.setRange(lo, hi)
        w.setSingleStep(step)
        w.setDecimals(decimals)
        w.setValue(value)
        return w

    # ---- settings ----------------------------------------------------------------------------------------
    def settings(self) -> SamplerSettings:
        preset = self.preset.currentText()
        custom = preset == "custom"
        order = tuple(self.order.item(i).text() for i in range(self.order.count())) if custom else None
        sem = {k: b.currentText() for k, b in self.semantics.items()} if custom else None
        return SamplerSettings(preset=preset, temperature=float(self.temperature.value()),
                               top_k=int(self.top_k.value()), top_p=float(self.top_p.value()),
                               min_p=float(self.min_p.value()), seed=int(self.seed.value()), order=order, semantics=sem)

    def _emit_settings(self, *_: object) -> None:
        self._update_preset_note()
        self.settingsChanged.emit(self.settings())

    def _sync_slider(self, v: float) -> None:
        self.t_slider.blockSignals(True)
        self.t_slider.setValue(round(v * 100))
        self.t_slider.blockSignals(False)

    def _update_preset_note(self) -> None:
        info = PRESETS[self.preset.currentText()]
        order = " → ".join(info.order) if info.order else tr("your order")
        repro = "" if info.reproducible else tr("  ⚠ its draw is not reproducible (shown with a generic RNG).")
        # the summaries are data (tokinspect.sampling.settings PRESETS), each its own catalog entry
        self.preset_note.setText(f"<b>{html.escape(info.name)}</b>: {html.escape(order)}. "
                                 f"{html.escape(tr(info.summary))}{html.escape(repro)}")
        self.custom.setVisible(info.name == "custom")

    def _toggle_log(self, on: bool) -> None:
        self.log = on
        if self._last is not None:
            self.show_view(self._last)
        self.logToggled.emit(on)

    # ---- showing -----------------------------------------------------------------------------------------
    def set_source(self, label: str, steps: int) -> None:
        self.source_label.setText(label)
        self.step.blockSignals(True)
        self.step.setRange(0, max(steps - 1, 0))
        self.step.setValue(0)
        self.step.blockSignals(False)
        self.step.setEnabled(steps > 1)
        self.step_label.setText(tr("step 0 of {n}").format(n=steps) if steps > 1 else tr("1 step"))

    def _ensure_plots(self, n: int) -> None:
        while len(self._plots) < n:
            w = StagePlotWidget()
            box = QWidget()
            v = QVBoxLayout(box)
            v.setContentsMargins(0, 0, 0, 0)
            v.setSpacing(0)
            v.addWidget(w.title)
            v.addWidget(w, 1)
            self._plots.append(w)
            self._boxes.append(box)
        for k, box in enumerate(self._boxes):
            if k < n:
                self.grid.addWidget(box, k // 3, k % 3)
                box.show()
            else:
                box.hide()

    def show_view(self, v: SamplingView) -> None:
        self._last = v
        self._ensure_plots(len(v.plots))
        for w, p in zip(self._plots, v.plots):
            w.show_plot(p, self.log)
        notes = "  ".join(engine_text(x) for x in v.result.notes)
        mode = tr("greedy (argmax)") if v.result.greedy else tr("sampling")
        self.preset_note.setToolTip(notes)
        self.draw_label.setToolTip(notes)
        self.source_label.setToolTip(tr("{mode}; stages in {ms} ms").format(mode=mode, ms=f"{v.seconds * 1000:.1f}"))

    def show_engines(self, v: EnginesView) -> None:
        """Fills the table in place: the items of a table of the same shape get new texts and colours
        (no new items, no reset); the columns are resized only when a text changed."""
        t = self.engines
        t.setUpdatesEnabled(False)
        if t.columnCount() != len(v.fates) + 1:
            t.setColumnCount(len(v.fates) + 1)
        t.setHorizontalHeaderLabels([tr("draw (seed {seed})").format(seed=v.settings.seed)]
                                    + [f"{f.id} {f.label}" for f in v.fates])
        bad, plain = QBrush(QColor(255, 80, 80, 70)), QBrush()
        changed = False

        def put(r: int, c: int, text: str, brush: QBrush) -> None:
            nonlocal changed
            item = t.item(r, c)
            if item is None:
                t.setItem(r, c, QTableWidgetItem(text))
                item = t.item(r, c)
                changed = True
            elif item.text() != text:
                item.setText(text)
                changed = True
            if item.background() != brush:
                item.setBackground(brush)

        for c, f in enumerate(v.fates):
            for r, text in enumerate(f.cells):
                put(r, c + 1, text, bad if f.differs else plain)
        for r, text in enumerate(v.engine_draws):
            put(r, 0, text, plain)
        if changed:
            t.resizeColumnsToContents()
        t.setUpdatesEnabled(True)

    def show_draw(self, d: DrawView) -> None:
        rng = tr("RNG before: {before}; after: {after}").format(before=engine_text(d.draws.rng_before),
                                                                after=engine_text(d.draws.rng_after))
        if d.n == 1:
            self.draw_label.setText(tr("Drew {token}.  {rng}").format(token=d.label, rng=rng))
        else:
            verdict = (tr("{n} draws from one seeded RNG; first {first}. χ² = {chi2} on {dof} dof, p = {p}: "
                          "consistent with the final probabilities.  {rng}") if d.p_value >= 0.001 else
                       tr("{n} draws from one seeded RNG; first {first}. χ² = {chi2} on {dof} dof, p = {p}: "
                          "NOT consistent with the final probabilities.  {rng}"))
            self.draw_label.setText(verdict.format(n=f"{d.n:,}", first=d.label, chi2=f"{d.chi2:.1f}", dof=d.dof,
                                                   p=f"{d.p_value:.3g}", rng=rng))
        n = d.ids.shape[0]
        self.hist.show()
        x = np.arange(n, dtype=np.float64)
        self.expected.setOpts(x=x - 0.2, height=d.expected, width=0.4)
        self.observed.setOpts(x=x + 0.2, height=d.observed, width=0.4)
        self.hist.getAxis("bottom").setTicks([[(i, lab) for i, lab in enumerate(d.labels)]])
        top = max(float(d.expected.max()) if n else 0.0, float(d.observed.max()) if n else 0.0)
        self.hist.setYRange(0, top * 1.1 if top > 0 and math.isfinite(top) else 1.0, padding=0)
