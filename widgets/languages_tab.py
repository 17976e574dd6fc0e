"""The Languages tab: what the tokenizer costs each language of a parallel corpus.

A bar chart of parity per language (log axis, the reference at 1, one color per series), above
the table of languages, sortable by any column. Clicking a bar, or activating a row (double
click, Enter), asks the window to open that language's text in the Inspect tab
(`inspectText(text)`). Open corpus / Add tokenizer / Run / Cancel, and a progress bar with the
rate and the time left. Everything shown comes from window/languages.py's models.
"""

from __future__ import annotations

from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QModelIndex, QSortFilterProxyModel, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from tokinspect.window import ENCODERS
from tokinspect.window.i18n import tr
from tokinspect.window.languages import (
    PARITY_COLUMN,
    SORT_ROLE,
    ChartData,
    LanguagesModel,
    LanguageTable,
    chart_data,
)

from . import theme

SERIES_COLORS = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1")
LABELLED = 24           # at most this many language codes under the bars (every k-th beyond)


class ParityChart(pg.PlotWidget):
    """Parity per language as bars on a log axis (heights are log10(parity): 1 sits on the axis)."""

    langClicked = Signal(str)

    def __init__(self) -> None:
        super().__init__()
        self.setBackground(None)
        self.showGrid(y=True, alpha=0.25)
        self.setMouseEnabled(x=True, y=False)
        self.getPlotItem().setLabel("left", tr("parity (log scale)"))
        self.getPlotItem().hideButtons()
        self.legend = self.getPlotItem().addLegend(offset=(-10, 10))
        self._bars: list[pg.BarGraphItem] = []
        self._data = ChartData([], [], [], [])
        self.reference = pg.InfiniteLine(pos=0, angle=0, pen=pg.mkPen(theme.accent(), width=1.5))
        self.addItem(self.reference)
        self.scene().sigMouseClicked.connect(self._clicked)

    def show_data(self, d: ChartData) -> None:
        for b in self._bars:
            self.removeItem(b)
        self.legend.clear()
        self._bars, self._data = [], d
        n = max(1, len(d.series))
        width = 0.8 / n
        for k, (name, values) in enumerate(zip(d.series, d.log_parity)):
            xs = [i - 0.4 + width * (k + 0.5) for i in range(len(values))]
            bar = pg.BarGraphItem(x=xs, height=values, width=width, brush=SERIES_COLORS[k % len(SERIES_COLORS)],
                                  pen=pg.mkPen(None))
            self.addItem(bar)
            self.legend.addItem(bar, name)
            self._bars.append(bar)
        step = max(1, len(d.langs) // LABELLED)
        self.getAxis("bottom").setTicks([[(i, lang) for i, lang in enumerate(d.langs) if i % step == 0], []])
        self.getAxis("left").setTicks([d.ticks, []])
        if d.langs:
            self.setXRange(-0.6, len(d.langs) - 0.4, padding=0)
            lo = min([0.0] + [v for vs in d.log_parity for v in vs])
            hi = max([0.0] + [v for vs in d.log_parity for v in vs])
            self.setYRange(lo - 0.05, hi + 0.05, padding=0)

    def _clicked(self, ev: Any) -> None:
        if not self._data.langs:
            return
        p = self.getPlotItem().vb.mapSceneToView(ev.scenePos())
        i = int(round(p.x()))
        if 0 <= i < len(self._data.langs):
            self.langClicked.emit(self._data.langs[i])


class LanguagesTab(QWidget):
    inspectText = Signal(str)

    def __init__(self, model: LanguagesModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self._shown: object = None
        self.rows = LanguageTable(self)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.rows)
        self.proxy.setSortRole(SORT_ROLE)
        self.open_button = QPushButton(tr("Open corpus…"))
        self.open_button.setToolTip(tr("A folder of <language>.txt files (UDHR's udhr/txt), or .jsonl/.parquet/.arrow"))
        self.add_button = QPushButton(tr("Add tokenizer…"))
        self.add_button.setToolTip(tr("Measure another tokenizer beside the window's: one more series"))
        self.reference = QLineEdit(model.reference)
        self.reference.setMaximumWidth(90)
        self.reference.setToolTip(tr("The reference language: its parity is 1"))
        self.encoder = QComboBox()
        self.encoder.addItems(list(ENCODERS))
        self.run_button = QPushButton(tr("Run"))
        self.cancel_button = QPushButton(tr("Cancel"))
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setMaximumWidth(160)
        keep = self.progress.sizePolicy()
        keep.setRetainSizeWhenHidden(True)   # shown while a run goes and after it: idle, an empty box beside Cancel
        self.progress.setSizePolicy(keep)
        self.progress.setVisible(False)
        self.rate = QLabel()
        bar = QHBoxLayout()
        for w in (self.open_button, self.add_button, QLabel(tr("Reference:")), self.reference, QLabel(tr("Encoder:")),
                  self.encoder, self.run_button, self.cancel_button, self.progress):
            bar.addWidget(w)
        bar.addWidget(self.rate, 1)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.chart = ParityChart()
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.addWidget(self.chart)
        self.splitter.addWidget(self.table)
        self.splitter.setSizes([330, 400])
        lay = QVBoxLayout(self)
        lay.addLayout(bar)
        lay.addWidget(self.summary)
        lay.addWidget(self.splitter, 1)
        self.open_button.clicked.connect(self.open_dialog)
        self.add_button.clicked.connect(self.add_dialog)
        self.run_button.clicked.connect(self.run)
        self.cancel_button.clicked.connect(model.cancel)
        self.table.activated.connect(self._activated)
        self.table.doubleClicked.connect(self._activated)
        self.chart.langClicked.connect(self._inspect)
        model.changed.connect(self.show_result)
        model.progressed.connect(self._progress)
        self.show_result()

    def open_dialog(self) -> None:
        path = QFileDialog.getExistingDirectory(self, tr("Open a corpus folder (<language>.txt files)"))
        if path:
            self.run(path)

    def add_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, tr("Add a tokenizer"), "",
                                              "Tokenizers (*.json *.tiktoken *.bin *.model *.gguf);;All files (*)")
        if path:
            self.model.add_tokenizer(path)

    def run(self, corpus: str | None = None) -> None:
        self.model.reference = self.reference.text().strip() or "eng"
        self.model.encoder = self.encoder.currentText()
        self.model.run(corpus or None)

    def _progress(self, fraction: float, line: str) -> None:
        self.progress.setValue(int(fraction * 1000))
        self.rate.setText(line)

    def show_result(self) -> None:
        busy = self.model.busy
        self.run_button.setEnabled(not busy and self.model.corpus is not None)
        self.cancel_button.setEnabled(busy)
        self.progress.setVisible(busy or self.model.result is not None)
        self.summary.setText(self.model.summary())
        rep = None if self.model.result is None else self.model.result.report
        if rep is not None and rep is not self._shown:     # a new report: the table and the chart follow
            self._shown = rep
            self.rows.set_report(rep)
            self.chart.show_data(chart_data(rep))
            self.table.resizeColumnsToContents()
            self.table.sortByColumn(PARITY_COLUMN, Qt.SortOrder.DescendingOrder)   # the costliest first
            self.progress.setValue(1000)

    def _activated(self, index: QModelIndex) -> None:
        lang = self.rows.lang_at(self.proxy.mapToSource(index).row())
        if lang is not None:
            self._inspect(lang)

    def _inspect(self, lang: str) -> None:
        text = self.model.text_of(lang)
        if text is not None:
            self.inspectText.emit(text)
