"""The Contract tab: a contract.json checked against the open tokenizer, and the vocabulary diff of
the Compare tab's two tokenizers, blockers first.

Activating a sample (double click, Enter) asks the window to open its text in the Inspect panes at
its first difference (`inspectSample(text, char)`, char in code points). Everything shown comes from
window/contract.py's models.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from tokinspect.window.contract import (
    ContractModel,
    DiffTableModel,
    SampleTableModel,
    VocabDiffModel,
    diff_summary,
)
from tokinspect.window.i18n import tr


def _table(model: object) -> QTableView:
    t = QTableView()
    t.setModel(model)  # type: ignore[arg-type]
    t.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
    t.setAlternatingRowColors(True)
    t.verticalHeader().setVisible(False)
    t.horizontalHeader().setStretchLastSection(True)
    t.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    return t


class ContractTab(QWidget):
    inspectSample = Signal(str, int)     # text, character of the first difference
    diffRequested = Signal()             # the window hands the Compare tab's A and B to the diff model

    def __init__(self, model: ContractModel, diff_model: VocabDiffModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model, self.diff_model = model, diff_model
        self.samples = SampleTableModel(self)
        self.rows = DiffTableModel(self)
        # contract
        self.open_button = QPushButton(tr("Open contract…"))
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.facts = QPlainTextEdit()
        self.facts.setReadOnly(True)
        self.facts.setMaximumBlockCount(2_000)
        self.table = _table(self.samples)
        self.table.setColumnWidth(0, 28)
        self.table.setColumnWidth(1, 110)
        self.table.setColumnWidth(2, 150)
        self.table.setColumnWidth(3, 380)
        top = QWidget()
        tl = QVBoxLayout(top)
        bar = QHBoxLayout()
        bar.addWidget(self.open_button)
        bar.addWidget(self.summary, 1)
        tl.addLayout(bar)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.facts)
        split.addWidget(self.table)
        split.setSizes([90, 260])
        tl.addWidget(split, 1)
        # vocabulary diff
        self.diff_button = QPushButton(tr("Vocabulary diff: A → B"))
        self.diff_button.setToolTip(tr("The Compare tab's tokenizers: A (the open one) → B"))
        self.diff_summary = QLabel(tr("Diff the Compare tab's two tokenizers: ids whose piece changed meaning first."))
        self.diff_summary.setWordWrap(True)
        self.diff_table = _table(self.rows)
        self.diff_table.setColumnWidth(0, 110)
        self.diff_table.setColumnWidth(1, 130)
        self.diff_table.setColumnWidth(2, 260)
        bottom = QWidget()
        bl = QVBoxLayout(bottom)
        dbar = QHBoxLayout()
        dbar.addWidget(self.diff_button)
        dbar.addWidget(self.diff_summary, 1)
        bl.addLayout(dbar)
        bl.addWidget(self.diff_table, 1)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.addWidget(top)
        self.splitter.addWidget(bottom)
        self.splitter.setSizes([460, 300])
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.splitter)
        self.open_button.clicked.connect(self.open_dialog)
        self.diff_button.clicked.connect(self.diffRequested)
        self.table.activated.connect(self._activated)
        self.table.doubleClicked.connect(self._activated)
        model.changed.connect(self.show_report)
        diff_model.changed.connect(self.show_diff)
        self.show_report()

    def open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, tr("Open contract"), "", "Contract (*.json);;All files (*)")
        if path:
            self.model.open(path)

    def show_report(self) -> None:
        self.summary.setText(self.model.summary())
        self.facts.setPlainText("\n".join(self.model.facts()))
        self.samples.set_report(self.model.report)

    def show_diff(self) -> None:
        d = self.diff_model.result
        self.diff_summary.setText(tr("diffing…") if d is None and self.diff_model.busy else
                                  diff_summary(d) if d is not None else self.diff_summary.text())
        self.rows.set_diff(d)

    def _activated(self, index: QModelIndex) -> None:
        s = self.samples.sample(index.row())
        if s is None:
            return
        text = s.text.decode("utf-8", "replace") if isinstance(s.text, bytes) else s.text
        self.inspectSample.emit(text, s.char or 0)
