"""The main window: Wireshark-style linked panes over one Document.

Inspect tab: the text pane, the token table and the byte pane (left), the
trace and stats (right). Every pane follows `Document.selection`; selecting
in any pane calls `selection.select`, and the window fans the change out.
Other tabs: Compare, Chat, Vocabulary, Sampling, Board, Contract, Languages. Files open by menu, drag and drop,
the command line and the recent list; layout and options persist in
QSettings (organization "tokinspect").
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QByteArray, QFileSystemWatcher, QSettings, Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTabWidget,
    QToolBar,
)

from tokinspect.analysis.encoded import Analysis
from tokinspect.window.audit import AuditModel
from tokinspect.window.compare import CompareModel
from tokinspect.window.document import (
    DEFAULT_MESSAGES,
    EXPORT_FILTERS,
    ChunkListModel,
    Document,
    MessagesModel,
    TokenTableModel,
    VocabModel,
)
from tokinspect.window.i18n import LANGUAGES, SETTING, tr
from tokinspect.window.i18n import message as engine_message
from tokinspect.window.workers import Runner, read_text_file

from . import theme
from .byte_view import ByteView
from .panes import ChatPane, ComparePane, StatsPane, TokenTable, TracePane, VocabPane, copy_text
from .token_text import TokenTextEdit

MAX_RECENT = 10
TOKENIZER_FILTER = "Tokenizers (*.json *.tiktoken *.bin *.model);;All files (*)"   # translated where used


class MainWindow(QMainWindow):
    def __init__(self, settings: QSettings | None = None, lang: str = "en") -> None:
        super().__init__()
        self.settings = settings or QSettings("tokinspect", "tokinspect")
        self.lang = lang   # the language this window was built in (View → Language applies on restart)
        # --screenshot renders with nobody to press OK: an error goes to the status bar and stderr
        # instead of a modal dialog that would wait forever
        self.quiet_errors = False
        self.doc = Document(self)
        self.sel = self.doc.selection
        self.tokenizer_path: Path | None = None
        self._pending_path = ""
        self._pending_char: int | None = None   # Contract tab: select the token here (UTF-16) once encoded
        self.text_source = tr("typed text")
        self._watcher = QFileSystemWatcher(self)
        self._watcher.fileChanged.connect(self._on_file_changed)
        self._reload_asked = False
        self._text_loader = Runner(parent=self)
        self._text_loader.finished.connect(self._on_text_loaded)
        self._text_loader.failed.connect(lambda m: self._error(tr("Could not open the text"), m))
        self._text_loader.busy.connect(lambda _b: self._update_busy())
        self.setWindowTitle(tr("tokinspect"))
        self.setAcceptDrops(True)
        self._build_panes()
        self._build_menus()
        self._build_status()
        self._connect()
        self._restore()

    # ---- construction -------------------------------------------------------------
    def _build_panes(self) -> None:
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.setCentralWidget(self.tabs)
        # Inspect
        self.text = TokenTextEdit()
        self.text.setPlaceholderText(tr("Type or paste text; each token is a colored span."))
        self.text.tooltip_for = self.doc.token_tooltip
        self.table_model = TokenTableModel(self.doc, self)
        self.table = TokenTable(self.table_model)
        self.bytes = ByteView()
        self.bytes.tooltip_for = self.doc.token_tooltip
        self.chunk_model = ChunkListModel(self.doc, self)
        self.trace = TracePane(self.chunk_model)
        self.stats = StatsPane()
        left = QSplitter(Qt.Orientation.Vertical)
        left.addWidget(self.text)
        left.addWidget(self.table)
        left.addWidget(self.bytes)
        left.setSizes([300, 260, 200])
        self.side = QTabWidget()
        self.side.addTab(self.trace, tr("Trace"))
        self.side.addTab(self.stats, tr("Stats"))
        main = QSplitter(Qt.Orientation.Horizontal)
        main.addWidget(left)
        main.addWidget(self.side)
        main.setStretchFactor(0, 3)
        main.setStretchFactor(1, 2)
        self.splitters = {"inspect/main": main, "inspect/left": left, "trace/split": self.trace.splitter}
        self.tabs.addTab(main, tr("Inspect"))
        # Compare
        self.compare_model = CompareModel(self.doc, self)
        self.compare = ComparePane()
        self.compare.set_encoders(self.doc.encoders_available, len(self.doc.encoders_available) > 1)
        self.tabs.addTab(self.compare, tr("Compare"))
        # Chat
        self.messages = MessagesModel(DEFAULT_MESSAGES, self)
        self.chat = ChatPane(self.messages)
        self._chat_text = ""
        self.tabs.addTab(self.chat, tr("Chat"))
        # Vocabulary
        self.vocab_model = VocabModel(self.doc, self)
        self.audit_model = AuditModel(self)
        self.vocab = VocabPane(self.vocab_model, self.audit_model)
        self.splitters["vocab/split"] = self.vocab.splitter
        self.tabs.addTab(self.vocab, tr("Vocabulary"))
        # Sampling and Board (their modules load pyqtgraph and paramiko: imported when the window is built)
        from tokinspect.window.board import BoardModel
        from tokinspect.window.sampling import SamplingModel

        from .board_tab import BoardTab
        from .sampling_tab import SamplingTab

        self.sampling_model = SamplingModel(self)
        self.sampling = SamplingTab(self.sampling_model, self.text.text)
        self.tabs.addTab(self.sampling, tr("Sampling"))
        self.board_model = BoardModel(parent=self)
        self.board = BoardTab(self.board_model, lambda: self.doc.tokenizer)
        self.splitters["board/split"] = self.board.pane.splitter
        self.tabs.addTab(self.board, tr("Board"))
        # Contract (a contract.json against the open tokenizer; the vocabulary diff of Compare's A and B)
        from tokinspect.window.contract import ContractModel, VocabDiffModel

        from .contract_tab import ContractTab

        self.contract_model = ContractModel(self.doc, self)
        self.vocab_diff_model = VocabDiffModel(self)
        self.contract = ContractTab(self.contract_model, self.vocab_diff_model)
        self.splitters["contract/split"] = self.contract.splitter
        self.tabs.addTab(self.contract, tr("Contract"))
        # Languages (a parallel corpus measured per language and script; a click opens a text in Inspect)
        from tokinspect.window.languages import LanguagesModel

        from .languages_tab import LanguagesTab

        self.languages_model = LanguagesModel(self.doc, self)
        self.languages = LanguagesTab(self.languages_model)
        self.splitters["languages/split"] = self.languages.splitter
        self.languages.inspectText.connect(lambda text: self.inspect_sample(text, 0))
        self.languages_model.failed.connect(lambda m: self._error(tr("Languages"), m))
        self.tabs.addTab(self.languages, tr("Languages"))

    def _action(self, menu: object, text: str, slot: object, shortcut: object = None,
                checkable: bool = False) -> QAction:
        act = QAction(text, self)
        if shortcut is not None:
            act.setShortcut(QKeySequence(shortcut))  # type: ignore[arg-type]
        act.setCheckable(checkable)
        act.triggered.connect(slot)  # type: ignore[arg-type]
        menu.addAction(act)  # type: ignore[attr-defined]
        return act

    def _build_menus(self) -> None:
        mb = self.menuBar()
        f = mb.addMenu(tr("&File"))
        self._action(f, tr("&Open Tokenizer…"), self.open_dialog, QKeySequence.StandardKey.Open)
        self.recent_menu = f.addMenu(tr("Open &Recent"))
        self._action(f, tr("Open &Default Tokenizer (Qwen3)"), self.doc.load_default)
        self._action(f, tr("Open &Text…"), self.open_text_dialog, "Ctrl+Shift+O")
        self._action(f, tr("&Reload"), self.reload, QKeySequence.StandardKey.Refresh)
        f.addSeparator()
        self.export_action = self._action(f, tr("&Export Tokens…"), self.export_dialog, "Ctrl+E")
        self._action(f, tr("Copy Token &Ids"), self.copy_ids, "Ctrl+Shift+C")
        f.addSeparator()
        self._action(f, tr("&Quit"), self.close, QKeySequence.StandardKey.Quit)
        v = mb.addMenu(tr("&View"))
        self.ws_action = self._action(v, tr("Show &Whitespace"), self._toggle_ws, "Ctrl+Shift+W", checkable=True)
        self.special_action = self._action(v, tr("Add &Special Tokens (post-processor)"), self._toggle_special,
                                           checkable=True)
        self.special_action.setChecked(True)
        self.dark_action = self._action(v, tr("&Dark Theme"), self._toggle_dark, checkable=True)
        self.language_menu = v.addMenu(tr("&Language (applies on restart)"))
        self.language_actions: dict[str, QAction] = {}
        saved = str(self.settings.value(SETTING, "") or "") or self.lang
        for code, name in LANGUAGES.items():
            act = self._action(self.language_menu, name, lambda _=False, c=code: self.choose_language(c),
                               checkable=True)
            act.setChecked(code == saved)
            self.language_actions[code] = act
        v.addSeparator()
        self._action(v, tr("&Cancel Long Work"), self.doc.cancel, "Esc")
        for k, name in enumerate((tr("Inspect"), tr("Compare"), tr("Chat"), tr("Vocabulary"))):
            self._action(v, name, lambda _=False, k=k: self.tabs.setCurrentIndex(k), f"Ctrl+{k + 1}")
        tb = QToolBar(tr("Main"))
        tb.setObjectName("main-toolbar")
        tb.setMovable(False)
        self.addToolBar(tb)
        tb.addWidget(QLabel(tr(" encoder ")))
        self.encoder_box = QComboBox()
        self.encoder_box.addItems(list(self.doc.encoders_available) if len(self.doc.encoders_available) > 1
                                  else ["bpe"])
        enabled = len(self.doc.encoders_available) > 1
        self.encoder_box.setEnabled(enabled)
        self.encoder_box.setToolTip(tr("bpe: HF-exact merges; rank: tiktoken lowest-rank pair; greedy: the ideal "
                                       "longest-prefix match; kestrel-v1/v2: the real board engine (kestrel-llm)")
                                    if enabled else
                                    tr("This engine build only has the bpe encoder (encode() takes no encoder=)."))
        tb.addWidget(self.encoder_box)
        tb.addSeparator()
        tb.addAction(self.ws_action)

    def _build_status(self) -> None:
        sb = self.statusBar()
        self.status_tok = QLabel(tr(tr("loading…")))
        self.status_count = QLabel()
        self.progress = QProgressBar()
        self.progress.setRange(0, 0)
        self.progress.setMaximumWidth(120)
        self.progress.setTextVisible(False)
        self.cancel_button = QPushButton(tr("Cancel"))
        self.cancel_button.clicked.connect(self.cancel)
        sb.addWidget(self.status_tok, 1)
        sb.addPermanentWidget(self.status_count)
        sb.addPermanentWidget(self.progress)
        sb.addPermanentWidget(self.cancel_button)
        self.progress.hide()
        self.cancel_button.hide()
        self._busy_timer = QTimer(self)
        self._busy_timer.setSingleShot(True)
        self._busy_timer.timeout.connect(self._show_busy)

    def _connect(self) -> None:
        d, s = self.doc, self.sel
        self.text.textChanged.connect(lambda: d.set_text(self.text.text()))
        d.analysisChanged.connect(self._on_analysis)
        d.traceChanged.connect(self._on_trace)
        d.tokenizerChanged.connect(self._on_tokenizer)
        d.busyChanged.connect(lambda _b: self._update_busy())
        d.loadFailed.connect(self._on_load_failed)
        d.encodeFailed.connect(lambda m: self._error(tr("Encoding failed"), m))
        # the shared selection: every pane reports to it, every pane follows it
        self.text.tokenClicked.connect(s.select)
        self.table.rowActivated.connect(s.select)
        self.bytes.tokenClicked.connect(s.select)
        self.trace.chunkActivated.connect(self._on_chunk_activated)
        self.text.tokenHovered.connect(s.set_hover)
        self.bytes.tokenHovered.connect(s.set_hover)
        s.changed.connect(self._follow_selection)
        s.hovered.connect(self._follow_hover)
        self.trace.traceRequested.connect(d.request_trace)
        self.table.copyIdsRequested.connect(self.copy_ids)
        self.encoder_box.currentTextChanged.connect(d.set_encoder)
        self.tabs.currentChanged.connect(self._on_tab)
        self.side.currentChanged.connect(self._on_side_tab)
        # compare
        self.compare.openB.connect(self._open_b)
        self.compare.useSameTokenizer.connect(lambda: self.compare_model.set_tokenizer_b(None))
        self.compare.encoderBChanged.connect(self.compare_model.set_encoder_b)
        self.compare_model.changed.connect(self._on_compare)
        self.compare_model.failed.connect(lambda m: self._error(tr("Compare failed"), m))
        self.contract.inspectSample.connect(self.inspect_sample)
        self.contract.diffRequested.connect(self.vocab_diff)
        self.contract_model.failed.connect(lambda m: self._error(tr("Contract"), m))
        self.vocab_diff_model.failed.connect(lambda m: self._error(tr("Vocabulary diff failed"), m))
        # chat
        self.chat.changed.connect(self._render_chat)
        self.chat.inspectRequested.connect(self._inspect_chat)
        self.chat.boardRequested.connect(self._chat_to_board)
        # vocabulary: the vocab.bin audit
        self.vocab.audit.auditRequested.connect(self.audit_model.run)
        self.audit_model.failed.connect(lambda m: self._error(tr("Audit failed"), m))

    # ---- settings -------------------------------------------------------------------
    def _restore(self) -> None:
        st = self.settings
        geo = st.value("window/geometry")
        if isinstance(geo, QByteArray):
            self.restoreGeometry(geo)
        else:
            self.resize(1280, 800)
        state = st.value("window/state")
        if isinstance(state, QByteArray):
            self.restoreState(state)
        for key, sp in self.splitters.items():
            v = st.value(f"splitter/{key}")
            if isinstance(v, QByteArray):
                sp.restoreState(v)
        ws = st.value("view/whitespace", False, type=bool)
        self.ws_action.setChecked(bool(ws))
        self.text.set_show_whitespace(bool(ws))
        dark = bool(st.value("view/dark", False, type=bool))
        self.dark_action.setChecked(dark)
        self._rebuild_recent()

    def save_settings(self) -> None:
        st = self.settings
        st.setValue("window/geometry", self.saveGeometry())
        st.setValue("window/state", self.saveState())
        for key, sp in self.splitters.items():
            st.setValue(f"splitter/{key}", sp.saveState())
        st.setValue("view/whitespace", self.ws_action.isChecked())
        st.setValue("view/dark", self.dark_action.isChecked())
        st.setValue("view/tab", self.tabs.currentIndex())
        st.sync()

    def closeEvent(self, e: QCloseEvent) -> None:
        self.save_settings()
        self.doc.cancel()
        self.board_model.shutdown()
        super().closeEvent(e)

    def recent_files(self) -> list[str]:
        v = self.settings.value("files/recent", [])
        return [str(x) for x in (v if isinstance(v, list) else [v] if v else [])]

    def _remember(self, path: str) -> None:
        rec = [p for p in self.recent_files() if p != path]
        self.settings.setValue("files/recent", ([path] + rec)[:MAX_RECENT])
        self._rebuild_recent()

    def _rebuild_recent(self) -> None:
        self.recent_menu.clear()
        rec = self.recent_files()
        for p in rec:
            act = self.recent_menu.addAction(p)
            act.triggered.connect(lambda _=False, p=p: self.open_tokenizer(p))
        self.recent_menu.setEnabled(bool(rec))

    # ---- files ------------------------------------------------------------------------
    def open_tokenizer(self, path: str | Path) -> None:
        self._pending_path = str(Path(path).resolve())
        self.status_tok.setText(tr("loading {path}…").format(path=self._pending_path))
        self.doc.load_file(self._pending_path)

    def open_default(self) -> None:
        self._pending_path = ""
        self.doc.load_default()

    def open_dialog(self) -> None:
        start = str(self.tokenizer_path.parent) if self.tokenizer_path else ""
        path, _ = QFileDialog.getOpenFileName(self, tr("Open tokenizer"), start, TOKENIZER_FILTER)
        if path:
            self.open_tokenizer(path)

    def open_text_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, tr("Open text"), "", "Text (*.txt *.md *.json *.jsonl);;All files (*)")
        if path:
            self.open_text(path)

    def open_text(self, path: str | Path) -> None:
        p = Path(path)
        self.text_source = p.name
        self._text_loader.submit(lambda ev, gen: read_text_file(p))

    def _on_text_loaded(self, text: str) -> None:
        self.set_text(text)

    def set_text(self, text: str) -> None:
        """Replaces the text (its encode supersedes one still running; typed edits coalesce instead)."""
        self.text.blockSignals(True)
        self.text.setPlainText(text)
        self.text.blockSignals(False)
        self.doc.set_text(self.text.text(), immediate=True)

    def reload(self) -> None:
        if self.tokenizer_path is not None:
            self.open_tokenizer(self.tokenizer_path)
        else:
            self.open_default()

    def _on_file_changed(self, path: str) -> None:
        # an editor's atomic save replaces the file: the watcher drops it; watch the new one
        if path not in self._watcher.files() and Path(path).exists():
            self._watcher.addPath(path)
        if self._reload_asked:
            return
        self._reload_asked = True
        ans = QMessageBox.question(self, tr("Tokenizer changed on disk"), f"{path} changed on disk. Reload it?")
        self._reload_asked = False
        if ans == QMessageBox.StandardButton.Yes:
            self.open_tokenizer(path)

    def export_dialog(self) -> None:
        a = self.doc.analysis
        if a is None:
            return
        start = str(Path(str(self.settings.value("files/export_dir", ""))) / "tokens.csv")
        path, filt = QFileDialog.getSaveFileName(self, tr("Export tokens"), start, EXPORT_FILTERS)
        if path:
            try:
                out = self.doc.export_tokens(a, path, filt)
            except OSError as exc:
                self._error(tr("Export failed"), str(exc))
                return
            self.settings.setValue("files/export_dir", str(out.parent))
            self.statusBar().showMessage(tr("exported {n} tokens to {path}").format(n=f"{len(a):,}", path=out), 4000)

    def copy_ids(self) -> None:
        a = self.doc.analysis
        if a is None:
            return
        rows = self.table.selected_rows() if self.table.hasFocus() else []
        copy_text(self.doc.ids_text(a, rows if len(rows) > 1 else None))
        msg = tr("copied ids") if len(rows) <= 1 else tr("copied {n} ids").format(n=len(rows))
        self.statusBar().showMessage(msg, 2000)

    def dragEnterEvent(self, e: QDragEnterEvent) -> None:
        if e.mimeData().hasUrls():
            e.acceptProposedAction()

    def dropEvent(self, e: QDropEvent) -> None:
        paths = [u.toLocalFile() for u in e.mimeData().urls() if u.isLocalFile()]
        if paths:
            self.open_paths(paths)
            e.acceptProposedAction()

    def open_paths(self, paths: list[str]) -> None:
        """The first file is the tokenizer; plain text files (.txt/.md) open as text."""
        for p in paths:
            if Path(p).suffix.lower() in (".txt", ".md"):
                self.open_text(p)
            else:
                self.open_tokenizer(p)

    # ---- document events ----------------------------------------------------------
    def _on_tokenizer(self) -> None:
        tok, info = self.doc.tokenizer, self.doc.info
        if tok is None:
            return
        old = self._watcher.files()
        if old:
            self._watcher.removePaths(old)
        self.tokenizer_path = tok.path if self._pending_path else None
        if self.tokenizer_path is not None:
            self._watcher.addPath(str(self.tokenizer_path))
            self._remember(str(self.tokenizer_path))
        sha = str(info.get("sha256", ""))[:12]
        fmt = info.get("format", tok.format)
        tail = tr("  ·  sha256 {sha}").format(sha=sha) if sha else ""
        notes = self.doc.compat_notes
        warn = tr("  · ⚠ HF refuses this file") if notes else ""
        size_notes = self.doc.size_notes
        size_warn = tr("  · ⚠ embedding rows") if any("no embedding row" in n for n in size_notes) else ""
        self.status_tok.setText(tr("{name}  ·  {format}  ·  {sizes}").format(
            name=self.doc.shown_name, format=fmt, sizes=self.doc.sizes_text) + f"{tail}{warn}{size_warn}")
        shown = [engine_message(n) for n in (*size_notes, *notes)]   # the engine's and app/core's words, translated
        self.status_tok.setToolTip("\n".join([str(info.get("path", "")), *shown]).strip("\n"))
        self.setWindowTitle(f"tokinspect — {tok.name}")
        self._render_chat()
        self.audit_model.set_tokenizer(tok)
        self.sampling_model.set_tokenizer(tok)
        if self.tabs.currentWidget() is self.vocab:
            self.vocab_model.ensure_index()
            self.audit_model.auto()

    def _on_load_failed(self, path: str, msg: str) -> None:
        tok = self.doc.tokenizer
        warn = tr("  · ⚠ HF refuses this file") if tok and self.doc.compat_notes else ""
        self.status_tok.setText(tr("{name}  ·  {format}  ·  {sizes}").format(
            name=self.doc.shown_name, format=tok.format, sizes=self.doc.sizes_text) + warn if tok
            else tr("no tokenizer"))
        self._error(tr("Could not open the tokenizer"), f"{path}\n\n{msg}" if path else msg)

    def _on_analysis(self) -> None:
        a = self.doc.analysis
        if a is None:
            return
        self.text.set_spans(a.spans, self._changed_u16(a))
        self.bytes.set_analysis(a)
        n = len(a)
        self.status_count.setText(tr("{n} tokens · {chars} chars · {bytes} bytes").format(
            n=f"{n:,}", chars=f"{len(a.text):,}", bytes=f"{len(a.data):,}"))
        if self.side.currentWidget() is self.stats:
            self._update_stats()
        i = self.sel.index
        if self.text.hasFocus() or i < 0:
            i = a.spans.at(self.text.textCursor().position()) if n else -1
        if self._pending_char is not None:
            i, self._pending_char = (a.spans.at(self._pending_char) if n else -1), None
        self.sel.index = -2  # force a fan-out: the arrays changed under the same index
        self.sel.select(min(i, n - 1))

    def _changed_u16(self, a: Analysis) -> tuple[int, int | None] | None:
        """The UTF-16 range of the text pane whose tokens the last edit changed (None: all of it; end
        None: to the end, when the token count changed and the later tokens' colors moved)."""
        sp = self.doc.splice
        if sp is None:
            return None
        u16 = a.spans.u16
        n = len(a)
        end_text = len(a.text.encode("utf-16-le")) // 2 if sp.first >= n else 0
        start = int(u16[sp.first, 0]) if sp.first < n else end_text
        if sp.new_end != sp.old_end:
            return start, None
        return start, int(u16[sp.new_end - 1, 1]) if sp.new_end > sp.first else start

    def _on_trace(self) -> None:
        note, big = self.doc.trace_note()
        self.trace.set_note(note, big)
        if self.doc.trace is None:
            self.trace.show_steps("", [])
        self._follow_selection(self.sel.index)

    def _update_stats(self) -> None:
        a = self.doc.analysis
        self.stats.show_stats(self.doc.stats(), self.text_source, a.seconds if a is not None else 0.0)

    def _on_chunk_activated(self, k: int) -> None:
        if 0 <= k < len(self.doc.chunks):
            a, b = self.doc.chunks[k].token_range
            if b > a:
                self.sel.select(a)
            else:
                self._show_chunk(k)

    def _follow_selection(self, i: int) -> None:
        self.text.set_selected(i, move_cursor=not self.text.hasFocus())
        self.table.select_row(i)
        self.bytes.set_selected(i)
        k = self.doc.chunk_of_token(i)
        self.trace.select_chunk(k)
        self._show_chunk(k)

    def _show_chunk(self, k: int) -> None:
        v = self.doc.chunk_steps(k)
        self.trace.show_steps(v.title, v.rows, current=v.current, greedy=v.greedy)

    def _follow_hover(self, i: int) -> None:
        self.text.set_hover(i)
        self.bytes.set_hover(i)

    # ---- busy / errors ------------------------------------------------------------------
    def _update_busy(self) -> None:
        busy = self.doc.busy or self._text_loader.running or self.compare_model.busy
        if busy:
            if not self._busy_timer.isActive() and not self.progress.isVisible():
                self._busy_timer.start(150)
        else:
            self._busy_timer.stop()
            self.progress.hide()
            self.cancel_button.hide()

    def _show_busy(self) -> None:
        if self.doc.busy or self._text_loader.running:
            self.progress.show()
            self.cancel_button.show()

    def cancel(self) -> None:
        self.doc.cancel()
        self._text_loader.cancel()
        self.statusBar().showMessage(tr("cancelled"), 3000)
        self._update_busy()

    def _error(self, title: str, msg: str) -> None:
        msg = engine_message(msg)   # the engine's and the loaders' refusals in the window's language
        if self.quiet_errors:
            self.statusBar().showMessage(f"{title}: {msg.splitlines()[0] if msg else ''}")
            print(f"tokinspect: {title}: {msg}", file=sys.stderr)
            return
        QMessageBox.critical(self, title, msg)

    # ---- tabs ------------------------------------------------------------------------------
    def inspect_sample(self, text: str, char: int) -> None:
        """A contract sample in the Inspect panes, its first differing token selected."""
        self._pending_char = len(text[:char].encode("utf-16-le")) // 2
        self.tabs.setCurrentIndex(0)
        self.set_text(text)

    def vocab_diff(self) -> None:
        """The Compare tab's tokenizers: A (the open one) -> B (the same one when none is chosen)."""
        a = self.doc.tokenizer
        if a is not None:
            self.vocab_diff_model.run(a, self.compare_model.tok_b or a)

    def _on_side_tab(self, _k: int) -> None:
        if self.side.currentWidget() is self.stats:
            self._update_stats()
        self._trace_on_screen()

    def _trace_on_screen(self) -> None:
        """Only a trace pane on screen is traced as the text changes; hidden, it is traced when shown."""
        self.doc.show_trace(self.tabs.currentIndex() == 0 and self.side.currentWidget() is self.trace)

    def _on_tab(self, k: int) -> None:
        self._trace_on_screen()
        w = self.tabs.widget(k)
        self.compare_model.set_active(w is self.compare)
        self.sampling.activate(w is self.sampling)
        if w is self.vocab:
            self.vocab_model.ensure_index()
            self.audit_model.auto()

    def _open_b(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, tr("Open tokenizer B"), "", TOKENIZER_FILTER)
        if path:
            self.compare_model.load_b(path)

    def _on_compare(self) -> None:
        r = self.compare_model.result
        if r is None:
            return
        c = r.comparison
        self.compare.label_a.setText(tr("{name}: {n} tokens").format(name=r.label_a, n=f"{c.tokens_a:,}"))
        self.compare.label_b.setText(tr("{name}: {n} tokens").format(name=r.label_b, n=f"{c.tokens_b:,}"))
        if c.same:
            self.compare.summary.setText(tr("Same segmentation: {n} tokens on both sides.").format(n=f"{c.tokens_a:,}"))
        else:
            one = len(c.divergent) == 1
            self.compare.summary.setText((
                tr("{n} divergent span covering {bytes} of {total} bytes; {same} tokens agree. A − B = {diff} tokens.")
                if one else
                tr("{n} divergent spans covering {bytes} of {total} bytes; {same} tokens agree. A − B = {diff} tokens.")
            ).format(n=f"{len(c.divergent):,}", bytes=f"{c.divergent_bytes:,}", total=f"{len(r.a.data):,}",
                     same=f"{c.same_tokens:,}", diff=f"{c.tokens_a - c.tokens_b:+,}"))
        for view, an in ((self.compare.text_a, r.a), (self.compare.text_b, r.b)):
            if view.text() != an.text:
                view.setPlainText(an.text)
            view.set_spans(an.spans)
            view.tooltip_for = None
        from tokinspect.window.compare import DivergenceModel

        rec = r.recipe
        differ = [a for a in rec.aspects if not a.same] if rec is not None else []
        self.compare.recipe.setVisible(rec is not None)
        if rec is not None:
            lines = [tr("llama.cpp reads the GGUF its own way where it differs from the other file:")
                     if differ else tr("llama.cpp's recipe for the GGUF agrees with the other file on every aspect.")]
            lines += [tr("{aspect}: llama.cpp {gguf} · file {json}").format(aspect=a.name, gguf=a.gguf, json=a.json)
                      for a in differ]
            self.compare.recipe.setText("\n".join(lines))
        self.compare.table.setModel(DivergenceModel(r, self.compare))
        self.compare.table.setColumnWidth(0, 90)
        self.compare.table.setColumnWidth(1, 200)
        self.compare.table.setColumnWidth(2, 260)

    def _render_chat(self) -> None:
        source, self._chat_text = self.doc.render_chat(self.messages.messages, self.chat.gen_prompt.isChecked())
        self.chat.source.setText(source)
        self.chat.preview.setPlainText(self._chat_text)

    def _chat_to_board(self) -> None:
        """The rendered prompt becomes the Board tab's one text (line breaks and all)."""
        self.board.use_texts([self._chat_text], "the Chat tab's rendered prompt")
        self.tabs.setCurrentWidget(self.board)

    def _inspect_chat(self) -> None:
        self.text_source = tr("chat")
        self.set_text(self._chat_text)
        self.tabs.setCurrentIndex(0)

    # ---- view options -------------------------------------------------------------------------
    def choose_language(self, code: str) -> None:
        """View → Language: remembered in the settings; the window is built in it at the next start."""
        self.settings.setValue(SETTING, code)
        for c, act in self.language_actions.items():
            act.setChecked(c == code)
        if code != self.lang:
            self.statusBar().showMessage(tr("The language changes when tokinspect starts again."), 8000)

    def _toggle_ws(self, on: bool) -> None:
        self.text.set_show_whitespace(on)

    def _toggle_special(self, on: bool) -> None:
        self.doc.set_add_special_tokens(on)

    def _toggle_dark(self, on: bool) -> None:
        theme.apply(on)
        for w in (self.text, self.bytes, self.compare.text_a, self.compare.text_b, self.chat.preview):
            w.viewport().update()
        self._update_stats()
