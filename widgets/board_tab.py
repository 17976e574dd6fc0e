"""The Board tab wired to its model: form <-> profile, dialogs (host key,
password), the run's results into the pane.

The window gives it the host tokenizer (`host_tokenizer`); everything that
talks to the board runs in app/window/board.py's workers.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QInputDialog, QLineEdit, QMessageBox, QVBoxLayout, QWidget

from tokinspect.window.board import (
    BoardModel,
    DiffRequest,
    HostKeyUnknown,
    HostTokenizer,
    Profile,
    checks_text,
    identify_text,
    summary_text,
)
from tokinspect.window.i18n import tr
from tokinspect.window.workers import read_text_file

from .board_pane import BoardPane

MAX_CORPUS_LINES = 100_000


class BoardTab(QWidget):
    def __init__(self, model: BoardModel, host_tokenizer: HostTokenizer,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.host_tokenizer = host_tokenizer
        self.corpus: list[str] | None = None
        self._deploy_root: str | None = None
        self._profile: Profile | None = None
        self.pane = BoardPane(model.texts, model.kinds, model.divergences)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.pane)
        p, m = self.pane, model
        p.connectRequested.connect(self.connect_board)
        p.runRequested.connect(self.run)
        p.identifyRequested.connect(self.identify)
        p.cancelRequested.connect(m.cancel)
        p.saveProfile.connect(self.save_profile)
        p.deleteProfile.connect(lambda: m.delete_profile(p.profile.profiles.currentText()))
        p.profileChosen.connect(self.show_profile)
        p.openCorpus.connect(self.open_corpus)
        p.textChosen.connect(self.show_text)
        m.statusChanged.connect(p.profile.status.setText)
        m.hostKeyUnknown.connect(self._ask_host_key)
        m.secretNeeded.connect(self._ask_secret)
        m.progress.connect(self._on_progress)
        m.runFinished.connect(self._on_run)
        m.identifyFinished.connect(lambda res: self.pane.summary.setText(identify_text(res)))
        m.profilesChanged.connect(self.reload_profiles)
        m.failed.connect(lambda msg: QMessageBox.critical(self, tr("Board"), msg))
        m.busyChanged.connect(lambda busy: p.set_running(busy))
        self.reload_profiles()

    # ---- profiles ----------------------------------------------------------------------------------------
    def reload_profiles(self) -> None:
        box = self.pane.profile.profiles
        current = box.currentText()
        box.clear()
        names = [pr.name for pr in self.model.profiles()]
        box.addItems(names)
        if current in names:
            box.setCurrentText(current)
        elif names:
            self.show_profile(names[0])

    def show_profile(self, name: str) -> None:
        pr = next((x for x in self.model.profiles() if x.name == name), None)
        if pr is None:
            return
        f = self.pane.profile
        f.name.setText(pr.name)
        f.host.setText(pr.host)
        f.port.setValue(pr.port)
        f.user.setText(pr.user)
        f.key_file.setText(pr.key_file or "")
        f.use_agent.setChecked(pr.use_agent)
        f.compiler.setText(pr.compiler)
        f.run_prefix.setText(pr.run_prefix)
        self._deploy_root = pr.deploy_root

    def form_profile(self) -> Profile:
        f = self.pane.profile
        pr = Profile(name=f.name.text().strip() or f.host.text().strip(), host=f.host.text().strip(),
                     port=f.port.value(), user=f.user.text().strip(), key_file=f.key_file.text().strip() or None,
                     use_agent=f.use_agent.isChecked(), compiler=f.compiler.text().strip() or "cc",
                     run_prefix=f.run_prefix.text().strip())
        if self._deploy_root:
            pr.deploy_root = self._deploy_root
        return pr

    def save_profile(self) -> None:
        self.model.save_profile(self.form_profile())
        self.pane.profile.profiles.setCurrentText(self.form_profile().name)

    # ---- connection ----------------------------------------------------------------------------------------
    def connect_board(self) -> None:
        try:
            pr = self.form_profile()
            pr.validate()
        except Exception as exc:  # a BoardError naming the field
            QMessageBox.critical(self, tr("Board"), tr("The board profile is incomplete: {reason}").format(reason=exc))
            return
        self._profile = pr
        self.model.connect_board(pr)

    def _ask_host_key(self, exc: HostKeyUnknown) -> None:
        answer = QMessageBox.question(
            self, tr("Unknown host key"),
            tr("{host} offers a host key that is in no known_hosts file:\n\n{key_type} {fingerprint}\n\nTrust it "
               "only if it is the board's own key (on the board: ssh-keygen -lf "
               "/etc/ssh/ssh_host_ed25519_key.pub). Trust and connect?").format(
                host=exc.host_entry, key_type=exc.key_type, fingerprint=exc.fingerprint_sha256))
        if answer == QMessageBox.StandardButton.Yes and self._profile is not None:
            self.model.accept_host_key(exc, self._profile)

    def _ask_secret(self, kind: str, prompt: str) -> None:
        text, ok = QInputDialog.getText(self, tr("Board {kind}").format(kind=kind), prompt, QLineEdit.EchoMode.Password)
        self.model.provide_secret(text if ok else None)

    # ---- texts and runs ------------------------------------------------------------------------------------
    def open_corpus(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, tr("Open a corpus (one text per line)"), "",
                                              "Text (*.txt *.tsv *.jsonl);;All files (*)")
        if path:
            self.load_corpus(path)

    def load_corpus(self, path: str) -> None:
        try:
            lines = [ln for ln in read_text_file(Path(path)).splitlines() if ln]
        except OSError as exc:
            QMessageBox.critical(self, tr("Board"), tr("cannot read {path}: {reason}").format(path=path, reason=exc))
            return
        self.corpus = lines[:MAX_CORPUS_LINES]
        more = tr(" (first {n} of {total})").format(n=f"{MAX_CORPUS_LINES:,}", total=f"{len(lines):,}") \
            if len(lines) > MAX_CORPUS_LINES else ""
        self.pane.corpus_label.setText(
            tr("{name}: {n} lines").format(name=Path(path).name, n=f"{len(self.corpus):,}") + more)
        self.pane.input.setPlainText("\n".join(self.corpus[:200]) + ("\n…" if len(self.corpus) > 200 else ""))
        self.pane.input.setReadOnly(True)

    def use_texts(self, texts: list[str], what: str) -> None:
        """Texts that may hold line breaks (a chat prompt), kept whole; the input shows them read-only."""
        self.corpus = list(texts)
        fmt = tr("{what}: {n} texts") if len(texts) != 1 else tr("{what}: 1 text")
        self.pane.corpus_label.setText(fmt.format(what=what, n=f"{len(texts):,}"))
        self.pane.input.setPlainText("\n\n".join(t[:2000] for t in texts[:20]))
        self.pane.input.setReadOnly(True)

    def texts(self) -> list[str]:
        if self.corpus is not None:
            return self.corpus
        return [ln for ln in self.pane.input.toPlainText().split("\n") if ln]

    def request(self) -> DiffRequest:
        e = self.pane.encode
        return DiffRequest(tuple(self.texts()), e.remote_tokenizer.text().strip(),
                           mode="deploy" if e.deploy.isChecked() else "command", encoder=e.encoder.currentText(),
                           host_encoder=e.host_encoder.currentText(), add_special_tokens=e.special.isChecked(),
                           command=e.command.text().strip(), parser=e.parser.currentText(),
                           regex=e.regex.text() or None, input=e.input_format.currentText())

    def identify(self) -> None:
        tok = self.host_tokenizer()
        req = self.request()
        if tok is None or not req.remote_tokenizer:
            QMessageBox.critical(self, tr("Board"), tr("Load a host tokenizer and give the board's tokenizer path."))
            return
        self.pane.summary.setText(tr("identifying the board's engine…"))
        self.model.identify(req, tok)

    def run(self) -> None:
        tok = self.host_tokenizer()
        req = self.request()
        if tok is None:
            QMessageBox.critical(self, tr("Board"), tr("No host tokenizer is loaded yet."))
            return
        if not req.remote_tokenizer:
            QMessageBox.critical(self, tr("Board"), tr("Give the tokenizer file's path on the board."))
            return
        self.pane.set_progress(0, len(req.texts))
        self.model.start(req, tok)

    def _on_progress(self, phase: str, done: int, total: int) -> None:
        self.pane.set_progress(done, total)
        self.pane.progress.setFormat(f"{phase}: %v / %m")

    def _on_run(self, _run: object) -> None:
        run = self.model.run
        if run is None:
            return
        self.pane.checks.setText(checks_text(run))
        self.pane.summary.setText(summary_text(run))
        self.pane.progress.setFormat("%v / %m")
        self.pane.set_progress(run.summary.texts - run.summary.missing, len(run.request.texts))
        first = next((i for i, d in enumerate(run.diffs) if not d.same), 0 if run.diffs else -1)
        if first >= 0:
            self.pane.texts.selectRow(first)
            self.show_text(first)

    def show_text(self, i: int) -> None:
        self.model.select(i)
        tok = self.host_tokenizer()
        views = self.model.views(tok) if tok is not None else None
        d = self.model.current
        if views is None or d is None:
            return
        host, board = views
        for edit, v in ((self.pane.text_host, host), (self.pane.text_board, board)):
            edit.setPlainText(v.text)
            edit.set_spans(v.spans)
        self.pane.label_host.setText(tr("host: {n} tokens").format(n=f"{len(d.host_ids):,}"))
        n = tr("no ids") if d.board_ids is None else tr("{n} tokens").format(n=f"{len(d.board_ids):,}")
        self.pane.label_board.setText(tr("board: {n}").format(n=n) + (f" — {d.board_error}" if d.board_error else ""))
        self.pane.prints.setText(self.model.board_prints(tok) if tok is not None else "")
        first = d.first
        if first is not None:
            self.pane.divergences.selectRow(0)
            k = first.host[0]
            if k < len(host.spans):
                self.pane.text_host.set_selected(k)
            kb = first.board[0]
            if kb < len(board.spans):
                self.pane.text_board.set_selected(kb)
