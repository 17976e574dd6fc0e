"""The side panes: trace, stats, compare, chat, vocabulary, and the token table.

Each shows what its model gives it and forwards user actions as signals;
none of them computes what it shows.
"""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QFont, QFontMetrics, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListView,
    QPushButton,
    QScrollArea,
    QSlider,
    QSplitter,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from tokinspect.analysis.stats import Stats
from tokinspect.window.audit import AuditModel, RowsModel
from tokinspect.window.document import ChunkListModel, MessagesModel, TokenTableModel, VocabModel
from tokinspect.window.i18n import tr
from tokinspect.window.trace_rows import StepRow

from .merge_view import MergeStepsView
from .token_text import TokenTextEdit

FIT_COLUMNS = (2, 3, 4)   # piece, text, hex bytes (TokenTableModel.COLUMNS)
FIT_ROWS = 2000           # the rows measured (a long text's first screenfuls)
FIT_MAX = 480             # pixels: a longer cell is elided
FIT_PAD = 16              # the cell's margins


class TokenTable(QTableView):
    """The token table; Ctrl+C copies the selected rows' ids as a list."""

    rowActivated = Signal(int)
    copyIdsRequested = Signal()

    def __init__(self, model: TokenTableModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setModel(model)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setAlternatingRowColors(True)
        self.setWordWrap(False)
        self.verticalHeader().setVisible(False)
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        h = self.horizontalHeader()
        h.setStretchLastSection(True)
        for col, w in enumerate((52, 70, 130, 110, 150, 80, 80, 60)):
            self.setColumnWidth(col, w)
        self.setMouseTracking(True)
        self.selectionModel().currentRowChanged.connect(lambda cur, _prev: self.rowActivated.emit(cur.row()))
        model.modelReset.connect(self.fit_columns)

    def fit_columns(self) -> None:
        """The piece, text and hex columns as wide as their widest cell among the first FIT_ROWS rows
        (the fixed 150 px cut the hex of a 12-byte token like <|im_start|>), at most FIT_MAX pixels."""
        m = self.model()
        rows = min(m.rowCount(), FIT_ROWS)
        for col in FIT_COLUMNS:
            font = m.index(0, col).data(Qt.ItemDataRole.FontRole) if rows else None
            fm = QFontMetrics(font) if isinstance(font, QFont) else self.fontMetrics()   # hex: a fixed font
            cells = [str(m.index(r, col).data() or "") for r in range(rows)]
            header = self.horizontalHeader().fontMetrics().horizontalAdvance(str(m.headerData(
                col, Qt.Orientation.Horizontal))) + FIT_PAD
            widest = max((fm.horizontalAdvance(c) for c in cells), default=0) + FIT_PAD
            self.setColumnWidth(col, min(max(widest, header, self.columnWidth(col)), FIT_MAX))

    def select_row(self, row: int) -> None:
        if row < 0 or row >= self.model().rowCount():
            self.clearSelection()
            return
        if self.currentIndex().row() == row:
            return
        idx = self.model().index(row, 0)
        self.selectionModel().blockSignals(True)
        self.selectionModel().setCurrentIndex(idx, QItemSelectionModel.SelectionFlag.ClearAndSelect
                                              | QItemSelectionModel.SelectionFlag.Rows)
        self.selectionModel().blockSignals(False)
        self.viewport().update()
        self.scrollTo(idx, QAbstractItemView.ScrollHint.EnsureVisible)

    def selected_rows(self) -> list[int]:
        return sorted({i.row() for i in self.selectionModel().selectedRows()})

    def keyPressEvent(self, e: object) -> None:
        if e.matches(QKeySequence.StandardKey.Copy):  # type: ignore[attr-defined]
            self.copyIdsRequested.emit()
            return
        super().keyPressEvent(e)  # type: ignore[arg-type]


class TracePane(QWidget):
    """Normalized text, chunks, and the merge steps of the selected chunk; for the greedy
    encoder, its longest-match steps (the list) and the candidates at each (the rows)."""

    chunkActivated = Signal(int)
    stepChanged = Signal(int)
    traceRequested = Signal()

    def __init__(self, chunks: ChunkListModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        self.norm_note = QLabel()
        self.norm_note.setWordWrap(True)
        self.norm_note.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lay.addWidget(self.norm_note)
        self.trace_button = QPushButton(tr("Trace this text"))
        self.trace_button.clicked.connect(self.traceRequested)
        self.trace_button.hide()
        lay.addWidget(self.trace_button)
        split = QSplitter(Qt.Orientation.Vertical)
        self.chunk_list = QListView()
        self.chunk_list.setModel(chunks)
        self.chunk_list.setUniformItemSizes(True)
        self.chunk_list.selectionModel().currentRowChanged.connect(lambda cur, _p: self.chunkActivated.emit(cur.row()))
        split.addWidget(self.chunk_list)
        steps_box = QWidget()
        sl = QVBoxLayout(steps_box)
        sl.setContentsMargins(0, 0, 0, 0)
        bar = QHBoxLayout()
        self.chunk_title = QLabel(tr("select a token"))
        self.back = QToolButton(text="◀")
        self.fwd = QToolButton(text="▶")
        self.back.setToolTip(tr("Previous merge step (Alt+Left)"))
        self.fwd.setToolTip(tr("Next merge step (Alt+Right)"))
        self.back.setShortcut(QKeySequence("Alt+Left"))
        self.fwd.setShortcut(QKeySequence("Alt+Right"))
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.step_label = QLabel()
        self.step_label.setMinimumWidth(90)
        bar.addWidget(self.chunk_title, 1)
        bar.addWidget(self.back)
        bar.addWidget(self.slider, 2)
        bar.addWidget(self.fwd)
        bar.addWidget(self.step_label)
        sl.addLayout(bar)
        self.steps = MergeStepsView()
        scroll = QScrollArea()
        scroll.setWidget(self.steps)
        scroll.setWidgetResizable(False)
        self.scroll = scroll
        sl.addWidget(scroll, 1)
        split.addWidget(steps_box)
        split.setSizes([180, 400])
        self.splitter = split
        lay.addWidget(split, 1)
        self.back.clicked.connect(lambda: self.slider.setValue(self.slider.value() - 1))
        self.fwd.clicked.connect(lambda: self.slider.setValue(self.slider.value() + 1))
        self.slider.valueChanged.connect(self._on_slider)
        self.greedy = False

    def set_note(self, text: str, offer_trace: bool) -> None:
        self.norm_note.setText(text)
        self.trace_button.setVisible(offer_trace)

    def select_chunk(self, k: int) -> None:
        if k == self.chunk_list.currentIndex().row():
            return
        sm = self.chunk_list.selectionModel()
        sm.blockSignals(True)
        if k < 0:
            sm.clearCurrentIndex()
            sm.clearSelection()
        else:
            idx = self.chunk_list.model().index(k, 0)
            sm.setCurrentIndex(idx, QItemSelectionModel.SelectionFlag.ClearAndSelect)
            self.chunk_list.scrollTo(idx)
        sm.blockSignals(False)
        self.chunk_list.viewport().update()

    def show_steps(self, title: str, rows: list[StepRow], current: int | None = None, greedy: bool = False) -> None:
        """Merge rows (the last one is the final symbols), or greedy-step rows (one per position)."""
        self.greedy = greedy
        self.back.setToolTip(tr("Previous greedy step (Alt+Left)") if greedy else tr("Previous merge step (Alt+Left)"))
        self.fwd.setToolTip(tr("Next greedy step (Alt+Right)") if greedy else tr("Next merge step (Alt+Right)"))
        self.chunk_title.setText(title)
        last = max(0, len(rows) - 1)
        cur = last if current is None else max(0, min(current, last))
        self.slider.blockSignals(True)
        self.slider.setRange(0, last)
        self.slider.setValue(cur)
        self.slider.blockSignals(False)
        self.steps.set_rows(rows, cur)
        self._update_label()
        self.scroll.ensureVisible(0, self.steps.row_bottom(cur))

    def _on_slider(self, v: int) -> None:
        self.steps.set_current(v)
        self._update_label()
        self.stepChanged.emit(v)

    def _update_label(self) -> None:
        n = max(0, len(self.steps.rows) - 1)
        v = self.slider.value()
        if self.greedy:
            self.step_label.setText(tr("row {k}/{n}").format(k=v + 1, n=n + 1) if self.steps.rows else "")
        else:
            self.step_label.setText(tr("step {k}/{n}").format(k=v, n=n) if v < n
                                    else tr("final ({n} merges)").format(n=n))
        self.back.setEnabled(v > 0)
        self.fwd.setEnabled(v < n)


COUNT = "count"                 # the disambiguation of a row that counts (tr(text, COUNT))
COUNTED = ("special tokens",)   # the rows whose English reads two ways: "special tokens" is an aspect elsewhere


class StatsPane(QWidget):
    """Counts and the histogram of token lengths in bytes (pyqtgraph, created on first use)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        lay = QVBoxLayout(self)
        form = QFormLayout()
        self.labels: dict[str, QLabel] = {}
        for key in ("source", "characters", "bytes", "tokens", "special tokens", "tokens / char", "tokens / byte",
                    "bytes / token", "encode time"):
            lab = QLabel(tr("–"))
            lab.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self.labels[key] = lab
            form.addRow(tr(key, COUNT) if key in COUNTED else tr(key), lab)
        lay.addLayout(form)
        self.hist_title = QLabel(tr("Token length (bytes)"))
        lay.addWidget(self.hist_title)
        self._plot = None
        self._plot_box = QVBoxLayout()
        lay.addLayout(self._plot_box, 1)

    def show_stats(self, s: Stats | None, source: str, seconds: float) -> None:
        if s is None:
            return
        vals = {"source": source, "characters": f"{s.chars:,}", "bytes": f"{s.bytes:,}", "tokens": f"{s.tokens:,}",
                "special tokens": f"{s.specials:,}", "tokens / char": f"{s.tokens_per_char:.4f}",
                "tokens / byte": f"{s.tokens_per_byte:.4f}", "bytes / token": f"{s.bytes_per_token:.3f}",
                "encode time": f"{seconds * 1000:.1f} ms"}
        for k, v in vals.items():
            self.labels[k].setText(v)
        self._show_hist(s)

    def _show_hist(self, s: Stats) -> None:
        try:
            import pyqtgraph as pg
        except ImportError:  # pragma: no cover - optional at runtime
            self.hist_title.setText(tr("Token length histogram needs pyqtgraph"))
            return
        from . import theme

        if self._plot is None:
            self._plot = pg.PlotWidget()
            self._plot.setMenuEnabled(False)
            self._plot.setMouseEnabled(x=False, y=False)
            self._plot.getPlotItem().hideButtons()
            self._plot.setLabel("bottom", tr("bytes per token"))
            self._plot.setLabel("left", tr("tokens"))
            self._plot_box.addWidget(self._plot)
        pal = self.palette()
        self._plot.setBackground(pal.base().color())
        for ax in ("left", "bottom"):
            self._plot.getAxis(ax).setTextPen(pal.text().color())
            self._plot.getAxis(ax).setPen(pal.mid().color())
        self._plot.clear()
        counts = s.length_counts
        last = max(1, int(counts.nonzero()[0].max()) if counts.any() else 1)
        xs = list(range(last + 1))
        bars = pg.BarGraphItem(x=xs, height=counts[: last + 1].tolist(), width=0.8, brush=theme.token_colors()[0],
                               pen=theme.accent())
        self._plot.addItem(bars)
        self._plot.setXRange(-0.5, last + 0.5, padding=0)


class ComparePane(QWidget):
    """Two segmentations of the same text, divergent spans highlighted."""

    openB = Signal()
    encoderBChanged = Signal(str)
    useSameTokenizer = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        lay = QVBoxLayout(self)
        bar = QHBoxLayout()
        self.open_b = QPushButton(tr("Open tokenizer B…"))
        self.open_b.clicked.connect(self.openB)
        self.same_b = QPushButton(tr("B = A's tokenizer"))
        self.same_b.clicked.connect(self.useSameTokenizer)
        self.encoder_b = QComboBox()
        self.encoder_b.setToolTip(tr("B's encoder"))
        self.encoder_b.currentTextChanged.connect(self.encoderBChanged)
        bar.addWidget(self.open_b)
        bar.addWidget(self.same_b)
        bar.addWidget(QLabel(tr("encoder B:")))
        bar.addWidget(self.encoder_b)
        bar.addStretch(1)
        lay.addLayout(bar)
        self.summary = QLabel(tr("Open a second tokenizer, or pick another encoder for B."))
        self.summary.setWordWrap(True)
        lay.addWidget(self.summary)
        # a GGUF against a tokenizer.json: where llama.cpp's recipe differs (shown only then)
        self.recipe = QLabel()
        self.recipe.setWordWrap(True)
        self.recipe.setTextFormat(Qt.TextFormat.PlainText)
        self.recipe.setVisible(False)
        lay.addWidget(self.recipe)
        split = QSplitter(Qt.Orientation.Vertical)
        self.label_a, self.label_b = QLabel(tr("A")), QLabel(tr("B"))
        self.text_a, self.text_b = TokenTextEdit(read_only=True), TokenTextEdit(read_only=True)
        for lab, txt in ((self.label_a, self.text_a), (self.label_b, self.text_b)):
            w = QWidget()
            v = QVBoxLayout(w)
            v.setContentsMargins(0, 0, 0, 0)
            v.addWidget(lab)
            v.addWidget(txt)
            split.addWidget(w)
        self.table = QTableView()
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        split.addWidget(self.table)
        lay.addWidget(split, 1)

    def set_encoders(self, names: tuple[str, ...], enabled: bool) -> None:
        self.encoder_b.blockSignals(True)
        self.encoder_b.clear()
        self.encoder_b.addItems(list(names))
        self.encoder_b.blockSignals(False)
        self.encoder_b.setEnabled(enabled)
        if not enabled:
            self.encoder_b.setToolTip(tr("this engine build has only the bpe encoder"))


class ChatPane(QWidget):
    """Messages (role, content) rendered through the tokenizer's chat template."""

    changed = Signal()
    inspectRequested = Signal()
    boardRequested = Signal()

    def __init__(self, model: MessagesModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        lay = QVBoxLayout(self)
        self.source = QLabel()
        self.source.setWordWrap(True)
        lay.addWidget(self.source)
        split = QSplitter(Qt.Orientation.Vertical)
        top = QWidget()
        tl = QVBoxLayout(top)
        tl.setContentsMargins(0, 0, 0, 0)
        self.table = QTableView()
        self.table.setModel(model)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setColumnWidth(0, 110)
        self.table.setWordWrap(True)
        tl.addWidget(self.table, 1)
        bar = QHBoxLayout()
        self.role = QComboBox()
        self.role.addItems(list(MessagesModel.ROLES))
        self.role.setCurrentText("user")
        self.content = QLineEdit()
        self.content.setPlaceholderText(tr("message content; Enter adds it"))
        self.add = QPushButton(tr("Add"))
        self.remove = QPushButton(tr("Remove selected"))
        self.gen_prompt = QCheckBox(tr("add_generation_prompt"))
        self.gen_prompt.setChecked(True)
        self.inspect = QPushButton(tr("Inspect rendered text"))
        self.to_board = QPushButton(tr("Diff on the board"))
        self.to_board.setToolTip(tr("Send the rendered prompt to the Board tab as one text: the report says whether "
                                 "every special token arrived whole"))
        for w in (self.role, self.content, self.add, self.remove, self.gen_prompt, self.inspect, self.to_board):
            bar.addWidget(w, 1 if w is self.content else 0)
        tl.addLayout(bar)
        split.addWidget(top)
        self.preview = TokenTextEdit(read_only=True)
        split.addWidget(self.preview)
        lay.addWidget(split, 1)
        self.add.clicked.connect(self._add)
        self.content.returnPressed.connect(self._add)
        self.remove.clicked.connect(self._remove)
        self.gen_prompt.toggled.connect(self.changed)
        self.inspect.clicked.connect(self.inspectRequested)
        self.to_board.clicked.connect(self.boardRequested)
        model.dataChanged.connect(self.changed)
        model.rowsInserted.connect(self.changed)
        model.rowsRemoved.connect(self.changed)

    def _add(self) -> None:
        if self.content.text():
            self.model.append(self.role.currentText(), self.content.text())
            self.content.clear()

    def _remove(self) -> None:
        rows = sorted({i.row() for i in self.table.selectionModel().selectedIndexes()}, reverse=True)
        for r in rows:
            self.model.remove(r)


def rows_table(model: RowsModel, widths: tuple[int, ...]) -> QTableView:
    """A read-only table of whole rows, compact, with the given column widths."""
    t = QTableView()
    t.setModel(model)
    t.verticalHeader().setVisible(False)
    t.horizontalHeader().setStretchLastSection(True)
    t.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    t.setWordWrap(False)
    t.verticalHeader().setDefaultSectionSize(t.fontMetrics().height() + 6)
    for col, w in enumerate(widths):
        t.setColumnWidth(col, w)
    return t


class AuditPane(QWidget):
    """The vocab.bin audit: classes, identical-bytes groups, the probe table."""

    auditRequested = Signal()

    def __init__(self, model: AuditModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        bar = QHBoxLayout()
        title = QLabel(tr("<b>vocab.bin audit</b>"))
        self.run_button = QPushButton(tr("Audit as vocab.bin"))
        self.run_button.setToolTip(tr("Compile this tokenizer to vocab.bin (in a temporary file) and audit that"))
        self.run_button.clicked.connect(self.auditRequested)
        bar.addWidget(title, 1)
        bar.addWidget(self.run_button)
        lay.addLayout(bar)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lay.addWidget(self.summary)
        split = QSplitter(Qt.Orientation.Vertical)
        self.classes = rows_table(model.classes, (250, 90))
        self.groups = rows_table(model.groups, (50, 120, 90))
        self.probes = rows_table(model.probes, (60, 80, 80))
        self.groups_label = QLabel(tr("Identical stored bytes"))
        for lab, table in ((QLabel(tr("Byte classes")), self.classes), (self.groups_label, self.groups),
                           (QLabel(tr("Probes (space, newline, 0xAD, 0x7F)")), self.probes)):
            w = QWidget()
            v = QVBoxLayout(w)
            v.setContentsMargins(0, 0, 0, 0)
            v.addWidget(lab)
            v.addWidget(table, 1)
            split.addWidget(w)
        split.setSizes([190, 300, 140])
        lay.addWidget(split, 1)
        model.changed.connect(self._update)
        self._update()

    def _update(self) -> None:
        m = self.model
        a = m.result
        self.run_button.setVisible(not m.is_vocab_bin and m.tokenizer is not None)
        self.run_button.setEnabled(not m.busy)
        if m.busy:
            self.summary.setText(tr("auditing…"))
        elif a is not None:
            warn = "".join(f"\n⚠ {w}" for w in a.warnings)
            self.summary.setText(a.summary + warn)
        elif m.tokenizer is None:
            self.summary.setText(tr(""))
        else:
            self.summary.setText(tr("This tokenizer is not a vocab.bin. \u201cAudit as vocab.bin\u201d compiles it "
                                 "(as the board would get it) and audits the result."))
        self.groups_label.setText(tr("Identical stored bytes: {n} groups").format(n=len(a.groups)) if a is not None
                                  else tr("Identical stored bytes"))


class VocabPane(QWidget):
    """Search the vocabulary by text, id (123 or #123) or hex bytes (e4 bd a0, 0x20); beside it the vocab.bin audit."""

    def __init__(self, model: VocabModel, audit: AuditModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        outer = QHBoxLayout(self)
        outer.setContentsMargins(4, 4, 4, 4)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        outer.addWidget(self.splitter)
        left = QWidget()
        lay = QVBoxLayout(left)
        lay.setContentsMargins(0, 0, 0, 0)
        self.splitter.addWidget(left)
        self.audit = AuditPane(audit)
        self.splitter.addWidget(self.audit)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.query = QLineEdit()
        self.query.setPlaceholderText(tr("search: text, id (123 or #123), or hex bytes (e4 bd a0 / 0x20)"))
        self.query.setClearButtonEnabled(True)
        lay.addWidget(self.query)
        self.count = QLabel()
        lay.addWidget(self.count)
        self.table = QTableView()
        self.table.setModel(model)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        for col, w in enumerate((70, 150, 150, 200)):
            self.table.setColumnWidth(col, w)
        lay.addWidget(self.table, 1)
        self.query.textChanged.connect(model.search)
        model.modelReset.connect(self._count)

    def _count(self) -> None:
        idx = self.model.index_
        if idx is None:
            self.count.setText(tr("reading the vocabulary…"))
            return
        n = self.model.rowCount(QModelIndex())
        q = self.model.query.strip()
        self.count.setText(tr("{n} of {total} tokens").format(n=f"{n:,}", total=f"{len(idx):,}")
                           + (tr(" match {q}").format(q=repr(q)) if q else ""))


def copy_text(text: str) -> None:
    QGuiApplication.clipboard().setText(text)
