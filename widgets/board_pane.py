"""The Board tab: a connection profile, how to encode on the board, the texts,
then the corpus summary and one text side by side (host above, board below)
with its divergent spans.

Shows what app/window/board.py gives it and forwards the user's actions as
signals; it runs nothing itself.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QRadioButton,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from tokinspect.window.audit import RowsModel
from tokinspect.window.board import ENCODERS, INPUTS
from tokinspect.window.i18n import tr

from .panes import rows_table
from .token_text import TokenTextEdit

PARSERS = ("jsonl", "ints", "regex")


def _table(model: RowsModel, widths: tuple[int, ...]) -> QTableView:
    t = rows_table(model, widths)
    t.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    return t


def _labelled(label: QLabel, w: QWidget) -> QWidget:
    box = QWidget()
    v = QVBoxLayout(box)
    v.setContentsMargins(0, 0, 0, 0)
    v.addWidget(label)
    v.addWidget(w, 1)
    return box


class ProfileForm(QGroupBox):
    """Name, host, port, user, key or agent, and the board's compiler and run prefix."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(tr("Board"), parent)
        form = QFormLayout(self)
        self.profiles = QComboBox()
        self.profiles.setToolTip(tr("Saved profiles (passwords and passphrases are never saved)"))
        self.save = QPushButton(tr("Save"))
        self.delete = QPushButton(tr("Delete"))
        row = QHBoxLayout()
        row.addWidget(self.profiles, 1)
        row.addWidget(self.save)
        row.addWidget(self.delete)
        form.addRow(tr("Profile"), row)
        self.name = QLineEdit()
        self.host = QLineEdit()
        self.host.setPlaceholderText(tr("192.168.1.50"))
        self.port = QSpinBox()
        self.port.setRange(1, 65535)
        self.port.setValue(22)
        self.user = QLineEdit()
        self.key_file = QLineEdit()
        self.key_file.setPlaceholderText(tr("~/.ssh/id_ed25519 (empty: agent or password)"))
        self.use_agent = QCheckBox(tr("use ssh-agent"))
        self.compiler = QLineEdit("cc")
        self.compiler.setToolTip(tr("The board's C compiler command (used to build the deployed engine)"))
        self.run_prefix = QLineEdit()
        self.run_prefix.setPlaceholderText(tr("(none)  e.g. qemu-aarch64-static"))
        for label, w in (("Name", self.name), ("Host", self.host), ("Port", self.port), ("User", self.user),
                         ("Key file", self.key_file), ("", self.use_agent), ("Compiler", self.compiler),
                         ("Run prefix", self.run_prefix)):
            form.addRow(tr(label) if label else "", w)
        self.connect_button = QPushButton(tr("Connect"))
        self.status = QLabel(tr("not connected"))
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        form.addRow(self.connect_button, self.status)


class EncodeForm(QGroupBox):
    """Deploy our engine, run the board's own tokenizer command, or ask the board's llama.cpp (its
    llama-tokenize binary, or a llama-server on the board's 127.0.0.1) with the model's GGUF beside the
    host tokenizer as llama.cpp's recipe."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(tr("Encode on the board"), parent)
        form = QFormLayout(self)
        self.deploy = QRadioButton(tr("deploy tokcore"))
        self.deploy.setToolTip(tr("Upload the engine's C sources, build them with the board's compiler "
                               "(reused while the sources are unchanged), run tokcore encode --jsonl"))
        self.command_mode = QRadioButton(tr("board's own command"))
        self.llama_tokenize_mode = QRadioButton(tr("llama.cpp: llama-tokenize"))
        self.llama_tokenize_mode.setToolTip(tr("The board's llama-tokenize binary with the board tokenizer as "
                                               "its GGUF (-m); texts on stdin, several per process"))
        self.llama_server_mode = QRadioButton(tr("llama.cpp: llama-server"))
        self.llama_server_mode.setToolTip(tr("A llama-server running on the board: POST /tokenize to its "
                                             "127.0.0.1:PORT through the SSH connection (no port is opened)"))
        self.mode = QButtonGroup(self)
        for b in (self.deploy, self.command_mode, self.llama_tokenize_mode, self.llama_server_mode):
            self.mode.addButton(b)
        self.deploy.setChecked(True)
        for pair in ((self.deploy, self.command_mode), (self.llama_tokenize_mode, self.llama_server_mode)):
            row = QHBoxLayout()
            for b in pair:
                row.addWidget(b)
            row.addStretch(1)
            form.addRow(row)
        self.remote_tokenizer = QLineEdit()
        self.remote_tokenizer.setPlaceholderText(tr("/path/on/board/vocab.bin or tokenizer.json"))
        form.addRow(tr("Board tokenizer"), self.remote_tokenizer)
        self.encoder = QComboBox()
        self.encoder.addItems(list(ENCODERS))
        self.encoder.setToolTip(tr("The deployed engine's encoder: bpe HF-exact; greedy the ideal longest match; "
                                "kestrel-v1/v2 the real board engine"))
        form.addRow(tr("Encoder"), self.encoder)
        self.host_encoder = QComboBox()
        self.host_encoder.addItems(list(ENCODERS))
        self.host_encoder.setToolTip(tr("What the board's ids are compared with on the host"))
        form.addRow(tr("Host encoder"), self.host_encoder)
        self.command = QLineEdit()
        self.command.setPlaceholderText(tr("./probe --vocab {tokenizer} {input}"))
        self.command.setToolTip(tr("Run on the board. {tokenizer}: the board tokenizer path; {input}: an uploaded "
                                "file with one text per line (without {input} the texts go to stdin). "
                                "Paths are quoted; texts never enter the command line."))
        form.addRow(tr("Command"), self.command)
        self.parser = QComboBox()
        self.parser.addItems(list(PARSERS))
        self.parser.setToolTip(tr("jsonl: one JSON object with \"ids\" (or an array) per text; ints: integers "
                               "separated by spaces or commas, one line per text; regex: one group per id"))
        self.regex = QLineEdit()
        self.regex.setPlaceholderText(tr(r"id=(\d+)"))
        row = QHBoxLayout()
        row.addWidget(self.parser)
        row.addWidget(self.regex, 1)
        form.addRow(tr("Output"), row)
        self.input_format = QComboBox()
        self.input_format.addItems(list(INPUTS))
        self.input_format.setToolTip(tr("lines: one text per line (a text with a line break goes by itself); "
                                     "jsonl: one JSON string per line; per-text: one exec per text"))
        form.addRow(tr("Input"), self.input_format)
        self.llama_binary = QLineEdit()
        self.llama_binary.setPlaceholderText(tr("/path/on/board/llama-tokenize"))
        form.addRow(tr("llama-tokenize"), self.llama_binary)
        self.llama_port = QSpinBox()
        self.llama_port.setRange(1, 65535)
        self.llama_port.setValue(8080)
        self.llama_port.setToolTip(tr("llama-server's port on the board's 127.0.0.1"))
        form.addRow(tr("llama-server port"), self.llama_port)
        self.gguf = QLineEdit()
        self.gguf.setPlaceholderText(tr("the model's GGUF on the host (optional)"))
        self.gguf.setToolTip(tr("Beside a host tokenizer of another format (a tokenizer.json): the model's GGUF "
                                "as llama.cpp reads it, so divergences that llama.cpp's recipe explains are "
                                "tagged llamacpp-recipe"))
        self.gguf_button = QPushButton(tr("GGUF…"))
        row = QHBoxLayout()
        row.addWidget(self.gguf, 1)
        row.addWidget(self.gguf_button)
        form.addRow(tr("Host GGUF"), row)
        self.special = QCheckBox(tr("add special tokens"))
        form.addRow(tr(""), self.special)
        self.mode.buttonToggled.connect(lambda *_: self._sync())
        self.parser.currentTextChanged.connect(lambda *_: self._sync())
        self._sync()

    def mode_name(self) -> str:
        """The request's mode (session.DiffRequest.mode) for the chosen button."""
        return ("command" if self.command_mode.isChecked() else "llama-tokenize" if self.llama_tokenize_mode.isChecked()
                else "llama-server" if self.llama_server_mode.isChecked() else "deploy")

    def _sync(self) -> None:
        mode = self.mode_name()
        llama = mode.startswith("llama")
        self.encoder.setEnabled(mode == "deploy")
        for w in (self.command, self.parser, self.input_format):
            w.setEnabled(mode == "command")
        self.regex.setEnabled(mode == "command" and self.parser.currentText() == "regex")
        self.llama_binary.setEnabled(mode == "llama-tokenize")
        self.llama_port.setEnabled(mode == "llama-server")
        for w in (self.gguf, self.gguf_button):
            w.setEnabled(llama)


class BoardPane(QWidget):
    connectRequested = Signal()
    runRequested = Signal()
    identifyRequested = Signal()
    cancelRequested = Signal()
    saveProfile = Signal()
    deleteProfile = Signal()
    profileChosen = Signal(str)
    openCorpus = Signal()
    textChosen = Signal(int)
    divergenceChosen = Signal(int)

    def __init__(self, texts: RowsModel, kinds: RowsModel, divergences: RowsModel,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        outer = QHBoxLayout(self)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        outer.addWidget(self.splitter)
        # left: what to run
        left = QWidget()
        lv = QVBoxLayout(left)
        lv.setContentsMargins(0, 0, 0, 0)
        self.profile = ProfileForm()
        self.encode = EncodeForm()
        # the two forms scroll: their rows (four engines' fields) would otherwise set the window's minimum height
        forms = QWidget()
        fv = QVBoxLayout(forms)
        fv.setContentsMargins(0, 0, 0, 0)
        fv.addWidget(self.profile)
        fv.addWidget(self.encode)
        self.forms = QScrollArea()
        self.forms.setWidget(forms)
        self.forms.setWidgetResizable(True)
        self.forms.setFrameShape(QFrame.Shape.NoFrame)
        self.forms.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.forms.setMinimumWidth(forms.sizeHint().width())
        self.forms.setMaximumHeight(forms.sizeHint().height())   # never taller than the forms: the rest is input's
        lv.addWidget(self.forms, 3)
        bar = QHBoxLayout()
        self.corpus_button = QPushButton(tr("Open corpus…"))
        self.corpus_label = QLabel(tr("texts below, one per line"))
        bar.addWidget(self.corpus_button)
        bar.addWidget(self.corpus_label, 1)
        lv.addLayout(bar)
        self.input = QPlainTextEdit()
        self.input.setPlaceholderText(tr("One text per line (or open a corpus file)"))
        lv.addWidget(self.input, 1)
        run = QHBoxLayout()
        self.run_button = QPushButton(tr("Encode on board and diff"))
        self.identify_button = QPushButton(tr("Identify engine"))
        self.identify_button.setToolTip(tr("Run a fixed probe set through the board's tokenizer and name the engine "
                                        "(kestrel-v1, kestrel-v2, greedy, bpe) that reproduces every probe"))
        self.cancel_button = QPushButton(tr("Cancel"))
        self.cancel_button.setEnabled(False)
        self.progress = QProgressBar()
        self.progress.setFormat("%v / %m")
        self.progress.hide()    # shown while a run goes: idle, it was an empty unlabeled box beside Cancel
        run.addWidget(self.run_button)
        run.addWidget(self.identify_button)
        run.addWidget(self.cancel_button)
        run.addWidget(self.progress, 1)
        lv.addLayout(run)
        self.splitter.addWidget(left)
        # right: what came back
        right = QWidget()
        rv = QVBoxLayout(right)
        rv.setContentsMargins(0, 0, 0, 0)
        self.checks = QLabel(tr("Connect, then encode: the checks (tokenizer file sha256, uname -m, compiler, "
                             "char signedness) show here."))
        self.checks.setWordWrap(True)
        self.checks.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        rv.addWidget(self.checks)
        rv.addWidget(self.summary)
        vsplit = QSplitter(Qt.Orientation.Vertical)
        top = QSplitter(Qt.Orientation.Horizontal)
        self.texts = _table(texts, (50, 110, 120))
        self.kinds = _table(kinds, (200, 60))
        top.addWidget(_labelled(QLabel(tr("Texts")), self.texts))
        top.addWidget(_labelled(QLabel(tr("Divergences by class / most frequent spans")), self.kinds))
        top.setSizes([520, 380])
        vsplit.addWidget(top)
        self.label_host, self.label_board = QLabel(tr("host")), QLabel(tr("board"))
        self.text_host, self.text_board = TokenTextEdit(read_only=True), TokenTextEdit(read_only=True)
        vsplit.addWidget(_labelled(self.label_host, self.text_host))
        vsplit.addWidget(_labelled(self.label_board, self.text_board))
        self.prints = QLabel()
        self.prints.setTextFormat(Qt.TextFormat.PlainText)
        self.prints.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.prints.setStyleSheet("font-family: monospace;")
        self.prints.setToolTip(tr("What the board prints for its ids (the engine's server maps Ġ and Ċ back and drops "
                               "other control markers)"))
        rv.addWidget(self.prints)
        self.divergences = _table(divergences, (80, 150, 180, 180))
        vsplit.addWidget(_labelled(QLabel(tr("Divergent spans of this text")), self.divergences))
        vsplit.setSizes([220, 110, 110, 180])
        rv.addWidget(vsplit, 1)
        self.splitter.addWidget(right)
        self.splitter.setSizes([380, 820])
        # forward
        self.profile.connect_button.clicked.connect(self.connectRequested)
        self.profile.save.clicked.connect(self.saveProfile)
        self.profile.delete.clicked.connect(self.deleteProfile)
        self.profile.profiles.activated.connect(lambda _i: self.profileChosen.emit(self.profile.profiles.currentText()))
        self.corpus_button.clicked.connect(self.openCorpus)
        self.run_button.clicked.connect(self.runRequested)
        self.identify_button.clicked.connect(self.identifyRequested)
        self.cancel_button.clicked.connect(self.cancelRequested)
        self.texts.selectionModel().currentRowChanged.connect(lambda cur, _prev: self.textChosen.emit(cur.row()))
        self.divergences.selectionModel().currentRowChanged.connect(
            lambda cur, _prev: self.divergenceChosen.emit(cur.row()))

    def set_running(self, running: bool) -> None:
        self.run_button.setEnabled(not running)
        self.identify_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        self.progress.setVisible(running)
        self.profile.connect_button.setEnabled(not running)

    def set_progress(self, done: int, total: int) -> None:
        self.progress.setMaximum(max(total, 1))
        self.progress.setValue(done)
