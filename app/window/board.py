"""The Board tab's model: profiles, the connection, a run, and what the tables show.

All SSH work runs in workers. A password or key passphrase the connection
needs is asked for through `secretNeeded` (the worker waits for the window's
answer); an unknown host key comes back as `hostKeyUnknown` with its
fingerprint and is trusted only by `accept_host_key`. Cancel stops the
board's batch and keeps the texts it answered; a dropped connection is
reconnected (with the secrets already given) before the next run.

Does not: draw (widgets/board_pane.py).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PySide6.QtCore import QObject, Signal

from ..analysis.encoded import TokenSpans
from ..board import messages
from ..board.causes import Finding
from ..board.diff import KIND_NAMES, Piece, TextDiff, byte_starts, pieces_of
from ..board.identify import Identification
from ..board.printed import printed
from ..board.remote import INPUTS as _INPUTS
from ..board.session import BoardRun, DiffRequest, IdentifyRun, run_diff, run_identify, specials_arrived
from ..board.ssh import BoardConnection, BoardError, HostKeyUnknown, Profile, ProfileStore
from ..core.pieces import visible
from ..core.tokenizer import ENCODERS as _ENCODERS
from ..core.tokenizer import Tokenizer
from .audit import RowsModel
from .i18n import tr
from .workers import Runner

SECRET_WAIT = 300.0     # seconds a worker waits for the user to type a password

# what the Board tab's form, dialogs and run speak: a profile, the host-key question, the request, and how
# the tab asks the window for the host tokenizer (None before one is loaded); the views import them from here
HostTokenizer = Callable[[], Tokenizer | None]
__all__ = ["ENCODERS", "INPUTS", "BoardModel", "DiffRequest", "HostKeyUnknown", "HostTokenizer", "Profile",
           "SideView", "checks_text", "divergence_rows", "identify_text", "kind_rows", "side_view", "summary_text",
           "text_rows"]
ENCODERS = _ENCODERS
INPUTS = _INPUTS


@dataclass(frozen=True)
class SideView:
    text: str
    spans: TokenSpans


def _pieces_text(pieces: tuple[Piece, ...]) -> str:
    return "  ".join(f"{visible(p.shown)}({p.id})" for p in pieces)


def side_view(pieces: list[Piece], marks: list[tuple[int, int]]) -> SideView:
    """The text a side's tokens spell (invalid bytes as U+FFFD) with each token's UTF-16 span.

    marks: byte ranges to highlight. A token boundary inside a character maps to the character's start.
    """
    data = b"".join(p.data or b"" for p in pieces)
    text = data.decode("utf-8", errors="surrogateescape")
    u16 = np.zeros(len(data) + 1, dtype=np.int64)
    b = u = 0
    for ch in text:
        cp = ord(ch)
        nb = 1 if 0xDC80 <= cp <= 0xDCFF else len(ch.encode("utf-8"))
        u16[b:b + nb] = u
        b += nb
        u += 2 if cp > 0xFFFF else 1
    u16[b] = u
    lens = np.fromiter((len(p.data or b"") for p in pieces), dtype=np.int64, count=len(pieces))
    ends = np.cumsum(lens)
    starts = ends - lens
    spans = np.stack([u16[starts], u16[ends]], axis=1) if len(pieces) else np.zeros((0, 2), dtype=np.int64)
    split = np.zeros(len(pieces), dtype=bool)
    if len(pieces):
        split = (u16[starts] == np.roll(u16[starts], 1)) & (np.arange(len(pieces)) > 0) & (lens > 0)
    special = np.fromiter((p.special for p in pieces), dtype=np.uint8, count=len(pieces))
    mk = np.array([[u16[s], u16[max(e, s)]] for s, e in marks], dtype=np.int64).reshape(-1, 2)
    shown = text.encode("utf-8", errors="surrogateescape").decode("utf-8", errors="replace")
    if len(shown) != len(text):     # replacement merged bytes: keep one code unit per byte instead
        shown = "".join("\ufffd" if 0xDC80 <= ord(c) <= 0xDCFF else c for c in text)
    return SideView(shown, TokenSpans(spans, special, split, mk))


def text_rows(diffs: list[TextDiff]) -> list[tuple[str, ...]]:
    rows = []
    for i, d in enumerate(diffs):
        if d.board_ids is None:
            result, first = tr("no board ids"), board_message(d.board_error or "")
        elif d.same:
            result, first = tr("identical"), ""
        else:
            result = tr("{n} divergent").format(n=len(d.divergences))
            v = d.divergences[0]
            first = ", ".join(v.rules) if v.rules else tr(KIND_NAMES[v.kind])
        explained = d.explained_by or ("" if d.board_ids is None else tr("no emulation"))
        rows.append((str(i + 1), result, first, explained, visible(d.text[:200])))
    return rows


def kind_rows(run: BoardRun, top: int = 30) -> list[tuple[str, ...]]:
    s = run.summary
    rows = [(tr("rule {rule}").format(rule=k), f"{c:,}") for k, c in s.per_rule.most_common()]
    rows += [(tr(KIND_NAMES[k]), f"{c:,}") for k, c in s.per_kind.most_common()]
    for v, c in s.most_frequent(top):
        rows.append((f"{visible(v.host_bytes.decode('utf-8', 'replace'))!s}: {_pieces_text(v.host_pieces)} → "
                     f"{_pieces_text(v.board_pieces)}", f"{c:,}"))
    return rows


def finding_text(f: Finding) -> str:
    """A rule's sentence in the window's language."""
    return f.text(tr)


def board_message(text: str) -> str:
    """A board link's failure (a BoardError, a batch error) in the window's language; the values in it
    (hosts, paths, commands, exit codes) and the board's own output lines as they are."""
    return messages.translate(text, tr)


def divergence_rows(d: TextDiff) -> list[tuple[str, ...]]:
    """Per divergent span: where, the rules behind the board's side, both sides, and why in sentences."""
    return [(f"{v.byte_span[0]}–{v.byte_span[1]}", ", ".join(v.rules) or tr(KIND_NAMES[v.kind]),
             _pieces_text(v.host_pieces), _pieces_text(v.board_pieces),
             "; ".join(finding_text(f) for f in v.findings) or v.why.text(tr)) for v in d.divergences]


def board_prints_text(tok: Tokenizer, d: TextDiff | None) -> str:
    """The selected text as typed and as the board prints its ids (the server's way), and the chat
    specials that did not arrive whole."""
    if d is None or d.board_ids is None:
        return ""
    lines = [tr("input:             {text}").format(text=visible(d.text[:300])),
             tr("the board prints:  {text}").format(text=visible(printed(tok, d.board_ids)[:300])),
             tr("explained by:      {engine}").format(engine=d.explained_by or tr("no emulation reproduces every id"))]
    for t, h, b in specials_arrived(tok, list(d.host_ids), list(d.board_ids)):
        if b != h:
            lines.append(tr("✘ {token}: {host} on the host, {board} arrived whole on the board").format(
                token=t, host=h, board=b))
    return "\n".join(lines)


def identify_text(res: IdentifyRun) -> str:
    r: Identification | None = res.result
    if r is None:
        return tr("identify failed: {reason}").format(reason=board_message(res.error or ""))
    agree = ", ".join(f"{k} {n}/{r.probes}" for k, n in r.agree.items())
    if r.engine:
        head = tr("The board runs {engine}: every one of {n} probes reproduced.").format(engine=r.engine, n=r.probes)
    else:
        head = tr("No emulation reproduces every probe; closest: {engine}.").format(engine=r.closest)
        head += "".join("\n  " + tr("{probe}: board {board} | {engine} {host}").format(
            probe=visible(p), board=b, engine=r.closest, host=h) for p, b, h in r.differ[:6])
    return (head + "\n" + tr("agreement: {list}").format(list=agree)
            + (f"\n⚠ {board_message(res.error)}" if res.error else ""))


def summary_text(run: BoardRun) -> str:
    s = run.summary
    parts = [tr("{same} of {n} texts identical").format(same=f"{s.identical:,}", n=f"{s.texts:,}")]
    if s.missing:
        parts.append(tr("{n} without board ids").format(n=f"{s.missing:,}"))
    if s.per_kind:
        parts.append(tr("divergences: {list}").format(
            list=", ".join(f"{tr(KIND_NAMES[k])} {c:,}" for k, c in s.per_kind.most_common())))
    if s.per_rule:
        parts.append(tr("rules: {list}").format(list=", ".join(f"{k} {c:,}" for k, c in s.per_rule.most_common(6))))
    if s.explained:
        parts.append(tr("explained by: {list}").format(
            list=", ".join(f"{k or tr('no emulation')} {c:,}" for k, c in s.explained.most_common())))
    parts.append(tr("board {board} s ({how}), host {host} s").format(
        board=f"{run.board_seconds:.2f}", how=run.request.label + (", " + run.build if run.build else ""),
        host=f"{run.host_seconds:.2f}"))
    text = tr("; ").join(parts) + tr(".")
    if run.error:
        text += "\n⚠ " + tr("{reason} (the results so far are shown)").format(reason=board_message(run.error))
    return text


def checks_text(run: BoardRun) -> str:
    c = run.checks
    lines = []
    if c.facts is not None:
        f = c.facts
        sign = {True: tr("signed"), False: tr("unsigned"), None: tr("unknown")}[f.char_signed]
        target = tr(" (target {target})").format(target=f.compiler_target) if f.compiler_target else ""
        lines.append(tr("board: {machine}, compiler {compiler}{target}, char {sign}").format(
            machine=f.uname_m, compiler=f.compiler_version or tr("not found"), target=target, sign=sign))
    if c.board is not None:
        lines.append(tr("board file {what}: {size} bytes, sha256 {sha256}").format(
            what=board_message(c.board.what), size=f"{c.board.size:,}", sha256=c.board.sha256))
    if c.host is not None:
        lines.append(tr("host file {what}: {size} bytes, sha256 {sha256}").format(
            what=board_message(c.host.what), size=f"{c.host.size:,}", sha256=c.host.sha256))
    if c.same_file is True:
        lines.append(tr("✔ the board's tokenizer file is the host's"))
    elif c.same_file is False:
        lines.append(tr("✘ the board's tokenizer file differs from the host's"))
    if c.vocab is not None:
        d = c.vocab
        shown = ", ".join(tr("id {id}: host {host} / board {board}").format(
            id=e.id, host=e.a.hex(" ") if e.a is not None else "-", board=e.b.hex(" ") if e.b is not None else "-")
            for e in d.differences[:5])
        lines.append(tr("vocab.bin entries: host {host}, board {board}; {n} differ").format(
            host=f"{d.entries_a:,}", board=f"{d.entries_b:,}", n=f"{len(d.differences):,}")
            + (": " + shown if shown else ""))
    lines += [board_message(n) for n in c.notes]
    return "\n".join(lines)


class BoardModel(QObject):
    statusChanged = Signal(str)
    connectedChanged = Signal(bool)
    hostKeyUnknown = Signal(object)     # HostKeyUnknown: ask the user, then accept_host_key()
    secretNeeded = Signal(str, str)     # kind, prompt: answer with provide_secret()
    progress = Signal(str, int, int)    # phase, done, total
    runFinished = Signal(object)        # BoardRun
    identifyFinished = Signal(object)   # IdentifyRun
    profilesChanged = Signal()
    failed = Signal(str)
    busyChanged = Signal(bool)

    def __init__(self, store: ProfileStore | None = None, known_hosts: list[Path] | None = None,
                 app_known_hosts: Path | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store = store or ProfileStore()
        self.known_hosts = known_hosts
        self.app_known_hosts = app_known_hosts
        self.conn: BoardConnection | None = None
        self.run: BoardRun | None = None
        self.texts = RowsModel(("#", "result", "first divergence", "explained by", "text"), self)
        self.kinds = RowsModel(("rule / class / most frequent spans", "count"), self)
        self.divergences = RowsModel(("bytes", "rules", "host", "board", "why"), self)
        self.current: TextDiff | None = None
        self._cancel = threading.Event()
        self._secret_ready = threading.Event()
        self._secret: str | None = None
        self._connector = Runner(parent=self, expected=(BoardError,))
        self._connector.finished.connect(self._on_connected)
        self._connector.failed.connect(self._on_connect_failed)
        self._runner = Runner(parent=self, expected=(BoardError,))
        self._runner.finished.connect(self._on_finished)
        self._runner.failed.connect(
            lambda msg: self.failed.emit(tr("The board run failed: {reason}").format(reason=board_message(msg))))
        for r in (self._connector, self._runner):
            r.busy.connect(lambda _b: self.busyChanged.emit(self.busy))

    @property
    def busy(self) -> bool:
        return self._connector.running or self._runner.running

    @property
    def connected(self) -> bool:
        return self.conn is not None and self.conn.is_alive

    # ---- profiles ----------------------------------------------------------------------------------------
    def profiles(self) -> list[Profile]:
        try:
            return self.store.load()
        except BoardError as exc:
            self.failed.emit(tr("Board profiles: {reason}").format(reason=board_message(str(exc))))
            return []

    def save_profile(self, p: Profile) -> None:
        try:
            self.store.put(p)
        except BoardError as exc:
            self.failed.emit(tr("Board profiles: {reason}").format(reason=board_message(str(exc))))
            return
        self.profilesChanged.emit()

    def delete_profile(self, name: str) -> None:
        try:
            self.store.remove(name)
        except BoardError as exc:
            self.failed.emit(tr("Board profiles: {reason}").format(reason=board_message(str(exc))))
            return
        self.profilesChanged.emit()

    # ---- connection --------------------------------------------------------------------------------------
    def _ask_secret(self, kind: str, prompt: str) -> str | None:
        """Runs in the worker: asks the window and waits for provide_secret()."""
        self._secret_ready.clear()
        self._secret = None
        self.secretNeeded.emit(kind, prompt)
        self._secret_ready.wait(SECRET_WAIT)
        return self._secret

    def provide_secret(self, secret: str | None) -> None:
        self._secret = secret
        self._secret_ready.set()

    def connect_board(self, p: Profile) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None
            self.connectedChanged.emit(False)
        self.statusChanged.emit(tr("connecting to {board}…").format(board=p.label))
        known, app_known = self.known_hosts, self.app_known_hosts

        def work(ev: threading.Event, gen: int) -> BoardConnection | HostKeyUnknown:
            conn = BoardConnection(p, self._ask_secret, known_hosts=known, app_known_hosts=app_known)
            try:
                conn.connect()
            except HostKeyUnknown as exc:
                return exc
            return conn

        self._connector.submit(work)

    def accept_host_key(self, exc: HostKeyUnknown, p: Profile) -> None:
        try:
            exc.accept(self.app_known_hosts)
        except OSError as e:
            self.failed.emit(tr("cannot write {path}: {reason}").format(path=self.app_known_hosts, reason=e))
            return
        self.connect_board(p)

    def shutdown(self) -> None:
        """The window is closing: a running batch is told to stop, a worker waiting for a passphrase gets
        none, and the board's SSH connection is closed (it used to stay open until the process ended). The
        close runs on a thread of its own: a worker reconnecting holds the connection's lock for up to its
        connect timeout, and the window must not wait for that."""
        self._cancel.set()
        self.provide_secret(None)
        conn, self.conn = self.conn, None
        if conn is not None:
            threading.Thread(target=conn.close, name="board-close", daemon=True).start()

    def disconnect_board(self) -> None:
        if self.conn is not None:
            self.conn.close()
        self.conn = None
        self.statusChanged.emit(tr("not connected"))
        self.connectedChanged.emit(False)

    def _on_connected(self, r: BoardConnection | HostKeyUnknown) -> None:
        if isinstance(r, HostKeyUnknown):
            self.statusChanged.emit(tr("host key not known: refused"))
            self.hostKeyUnknown.emit(r)
            return
        self.conn = r
        self.statusChanged.emit(tr("connected to {board}").format(board=r.profile.label))
        self.connectedChanged.emit(True)

    def _on_connect_failed(self, msg: str) -> None:
        self.statusChanged.emit(tr("not connected"))
        self.failed.emit(tr("Cannot connect to the board: {reason}").format(reason=board_message(msg)))

    # ---- a run -------------------------------------------------------------------------------------------
    def start(self, req: DiffRequest, tok: Tokenizer) -> None:
        if self.conn is not None and not req.texts:
            self.failed.emit(tr("No texts: type some (one per line) or open a corpus file."))
            return
        self._submit(lambda conn, cancel: run_diff(conn, req, tok, cancel=cancel, progress=self._progress))

    def identify(self, req: DiffRequest, tok: Tokenizer) -> None:
        """Runs the probe set through the board's tokenizer (the request's way) and compares."""
        self._submit(lambda conn, cancel: run_identify(conn, req, tok, cancel=cancel, progress=self._progress))

    def _progress(self, phase: str, done: int, total: int) -> None:
        self.progress.emit(phase, done, total)

    def _submit(self, job: Callable[[BoardConnection, threading.Event], object]) -> None:
        """Runs job(conn, cancel) in the worker, the connection reopened first if it dropped."""
        conn = self.conn
        if conn is None:
            self.failed.emit(tr("Connect to a board first."))
            return
        self._cancel = cancel = threading.Event()

        def work(ev: threading.Event, gen: int) -> object:
            if not conn.is_alive:
                self.statusChanged.emit(tr("reconnecting…"))
                conn.reconnect()
                self.statusChanged.emit(tr("connected to {board}").format(board=conn.profile.label))
            return job(conn, cancel)

        self._runner.submit(work)

    def _on_finished(self, result: object) -> None:
        if isinstance(result, IdentifyRun):
            self.identifyFinished.emit(result)
        else:
            self._on_run(result)  # type: ignore[arg-type]

    def board_prints(self, tok: Tokenizer) -> str:
        return board_prints_text(tok, self.current)

    def cancel(self) -> None:
        """Stops the board's batch; the texts answered so far are kept (the run still reports)."""
        self._cancel.set()

    def _on_run(self, run: BoardRun) -> None:
        self.run = run
        self.texts.set_rows(text_rows(run.diffs))
        self.kinds.set_rows(kind_rows(run))
        self.select(next((i for i, d in enumerate(run.diffs) if not d.same), 0 if run.diffs else -1))
        if self.conn is not None and not self.conn.is_alive:
            self.statusChanged.emit(tr("connection lost (it is reopened on the next run)"))
            self.connectedChanged.emit(False)
        self.runFinished.emit(run)

    def select(self, i: int) -> None:
        if self.run is None or not 0 <= i < len(self.run.diffs):
            self.current = None
            self.divergences.set_rows([])
            return
        self.current = self.run.diffs[i]
        self.divergences.set_rows(divergence_rows(self.current))

    def views(self, tok: Tokenizer) -> tuple[SideView, SideView] | None:
        """Host and board text of the current text, divergent spans marked."""
        d = self.current
        if d is None:
            return None
        host, board = pieces_of(tok, d.host_ids), pieces_of(tok, d.board_ids or ())
        hs, bs = byte_starts(host), byte_starts(board)
        hmarks = [(int(hs[v.host[0]]), int(hs[v.host[1]])) for v in d.divergences]
        bmarks = [(int(bs[v.board[0]]), int(bs[v.board[1]])) for v in d.divergences]
        return side_view(host, hmarks), side_view(board, bmarks)
