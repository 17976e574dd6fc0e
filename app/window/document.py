"""The window's one model and its Qt adapters.

`Document` holds the tokenizer, the text and the current `Analysis`;
`Selection` is the one shared selection (a token index, and the hovered
token) that every pane follows, as in Wireshark's packet view. Table models
read the numpy arrays of the analysis on demand: no Python object per token
exists until its cell is painted.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import numpy as np
from PySide6.QtCore import (
    QAbstractListModel,
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    QTimer,
    Signal,
)

from .. import resources
from ..analysis import export, stats
from ..analysis.encoded import Analysis
from ..analysis.incremental import Splice, reanalyze
from ..analysis.text import TRACE_AUTO_LIMIT
from ..analysis.text import trace as trace_text
from ..core.pieces import visible
from ..core.tokenizer import DEFAULTS, ENCODERS, Tokenizer
from ..core.trace import Trace
from ..core.vocab_sizes import sizes_line
from ..formats.chat_template import ROLES, ChatTemplate, ChatTemplateError, find_template, render
from ..formats.vocab_search import VocabIndex
from .i18n import tr
from .trace_rows import (
    ChunkRow,
    StepsView,
    chunk_rows,
    greedy_step_rows,
    kestrel_step_rows,
    lattice_rows,
    row_token_starts,
    step_rows,
)
from .workers import Runner

EMBEDDED_NAMES = frozenset(name for name, _ in DEFAULTS.values())

# the trace waits for the typing to rest: it holds the GIL ~3 ms per 1,000 characters (80 ms at
# 30,000), and requested on the analysis it ran before the keystroke's repaint (a 2,000-character
# keystroke took 30 ms to the text pane's paint instead of 9, a 10,000-character one 58 instead of 12)
TRACE_AFTER_MS = 200
GREEDY_WINDOW = 40   # greedy steps shown before and after the selected one
EXPORT_FILTERS = export.FILTERS   # the export dialog's file types
DEFAULT_MESSAGES: list[dict[str, str]] = json.loads(resources.text("samples/chat.json"))  # Chat: first messages

_Index = QModelIndex | QPersistentModelIndex
_NO_INDEX = QModelIndex()


class Selection(QObject):
    """The selected token (index into the current encoding, -1 for none) and the hovered one."""

    changed = Signal(int)
    hovered = Signal(int)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.index = -1
        self.hover = -1

    def select(self, index: int) -> None:
        if index == self.index:
            return
        self.index = index
        self.changed.emit(index)

    def set_hover(self, index: int) -> None:
        if index == self.hover:
            return
        self.hover = index
        self.hovered.emit(index)


class Document(QObject):
    """Tokenizer + text -> Analysis, recomputed off the UI thread as the text changes."""

    tokenizerChanged = Signal()
    analysisChanged = Signal()
    traceChanged = Signal()
    busyChanged = Signal(bool)
    loadFailed = Signal(str, str)       # path, message
    encodeFailed = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.tokenizer: Tokenizer | None = None
        self.info: dict[str, Any] = {}
        self.text = ""
        self.encoder = "bpe"
        self.add_special_tokens = True
        self.analysis: Analysis | None = None
        self.trace: Trace | None = None
        self.chunks: list[ChunkRow] = []
        self._chunk_starts = np.zeros(0, dtype=np.int64)
        self.selection = Selection(self)
        self._encode = Runner(parent=self)
        self._encode.finished.connect(self._on_analysis)
        self._encode.failed.connect(self.encodeFailed)
        self._encode.busy.connect(self._on_busy)
        self._trace = Runner(parent=self)
        self._trace.finished.connect(self._on_trace)
        self._load = Runner(parent=self)
        self._load.finished.connect(self._on_loaded)
        self._load.busy.connect(self._on_busy)
        self._loading_path = ""
        self._load.failed.connect(lambda msg: self.loadFailed.emit(self._loading_path, msg))
        # typing: one encode at a time; edits made while it runs collapse into one that starts when it
        # lands (re-encoding only the edited region from the analysis it produced)
        self._encode_pending = False
        self.splice: Splice | None = None    # the rows the last analysisChanged changed (None: all)
        self.trace_shown = True              # the trace pane is on screen (the window says when not)
        self._trace_rest = QTimer(self)      # restarted by each analysis; the trace starts when it fires
        self._trace_rest.setSingleShot(True)
        self._trace_rest.setInterval(TRACE_AFTER_MS)
        self._trace_rest.timeout.connect(self._trace_after_rest)

    # ---- state ----------------------------------------------------------
    @property
    def busy(self) -> bool:
        return self._encode.running or self._load.running

    @property
    def encoders_available(self) -> tuple[str, ...]:
        return ENCODERS

    @property
    def compat_notes(self) -> list[str]:
        """What HF tokenizers refuses in the loaded file (describe's hf_compat)."""
        return [str(n) for n in self.info.get("hf_compat", []) or []]

    @property
    def shown_name(self) -> str:
        """The tokenizer as the status bar names it: "folder/file" (many are called tokenizer.json)."""
        tok = self.tokenizer
        if tok is None:
            return ""
        if tok.path is None or not tok.path.parent.name or tok.name in EMBEDDED_NAMES:
            # the embedded defaults: their folder is the package's, not the user's
            return {"Qwen3 (embedded default)": tr("Qwen3 (embedded default)"),
                    "Qwen3.5/3.6 (embedded)": tr("Qwen3.5/3.6 (embedded)")}.get(tok.name, tok.name)
        return f"{tok.path.parent.name}/{tok.name}"

    @property
    def sizes_text(self) -> str:
        """The three vocabulary sizes as one field ("vocab 151,643 + 26 added = 151,669 · embedding ...")."""
        return sizes_line(self.info.get("vocab_sizes"), self.tokenizer.vocab_size if self.tokenizer else 0, tr)

    @property
    def size_notes(self) -> list[str]:
        """What the vocabulary sizes' disagreement means (vocab_sizes.py), for the tooltip."""
        sizes = self.info.get("vocab_sizes") or {}
        return [str(n) for n in sizes.get("notes", [])] if isinstance(sizes, dict) else []

    def stats(self) -> stats.Stats | None:
        a = self.analysis
        return None if a is None else stats.compute(a.text, len(a.data), a.encoding)

    def chat_template(self) -> ChatTemplate:
        return find_template(self.tokenizer.path if self.tokenizer is not None and
                                  self.tokenizer.format != "tiktoken" else None)

    def render_chat(self, messages: list[dict[str, str]], add_generation_prompt: bool) -> tuple[str, str]:
        """The chat pane's template line and the rendered text ("" when the template fails)."""
        try:
            tpl = self.chat_template()
            source = tr("built-in ChatML") if tpl.source == "built-in ChatML" else tpl.source
            return tr("Template: {source}").format(source=source), render(tpl, messages, add_generation_prompt)
        except ChatTemplateError as exc:
            return tr("Template error: {error}").format(error=exc), ""

    def export_tokens(self, a: Analysis, path: str, selected_filter: str) -> Path:
        """Writes a's tokens as CSV or JSON (the suffix, else the chosen filter, decides); returns the
        path written. Raises OSError."""
        out = export.path_for(path, selected_filter)
        export.write(a.encoding, out)
        return out

    @staticmethod
    def ids_text(a: Analysis, rows: list[int] | None = None) -> str:
        """"[9707, 1879]" for copying: the ids of the given rows of a, or all."""
        return export.ids_list(a.encoding, rows)

    def trace_note(self) -> tuple[str, bool]:
        """The trace pane's note, and whether the trace waits for a click (a long text)."""
        a, trc = self.analysis, self.trace
        if trc is None:
            pending = self.trace_pending
            big = a is not None and len(a.text) > 0 and not pending
            note = tr("Long text: the trace is computed on request.") if big else ""
            return (tr("tracing…") if pending else note), big
        if trc.normalized_changed:
            note = tr("Normalization changed the text: {text}").format(text=visible(trc.normalized_text[:300]))
        else:
            note = tr("Normalization left the text unchanged.")
        if trc.greedy_steps:
            dropped = sum(1 for g in trc.greedy_steps if g.chosen is None)
            tail = (tr("{n} greedy steps (longest prefix match at each position, no merges)").format(
                n=f"{len(trc.greedy_steps):,}") + (tr("; {n} bytes dropped").format(n=dropped) if dropped else ""))
        elif trc.kestrel_steps:
            unk = sum(1 for g in trc.kestrel_steps if g.rule == "unk")
            lost = sum(g.spaces for g in trc.kestrel_steps) - sum(1 for g in trc.kestrel_steps if g.retry == "taken")
            tail = (tr("{n} board-engine steps ({encoder}: the real kestrel-llm tokenizer; no normalizer, "
                       "no merges)").format(n=f"{len(trc.kestrel_steps):,}", encoder=self.encoder)
                    + (tr("; {n} spaces lost").format(n=lost) if lost else "")
                    + (tr("; {n} bytes became id 0").format(n=unk) if unk else ""))
        else:
            tail = tr("{n} chunks ({added} added-token matches)").format(
                n=f"{len(trc.chunks):,}", added=sum(1 for c in trc.chunks if c.added_id is not None))
        return f"{note}\n{tail}", False

    def chunk_steps(self, k: int) -> StepsView:
        """The merge steps of chunk k (for the greedy encoder: the steps around step k)."""
        trc, tok = self.trace, self.tokenizer
        if trc is not None and tok is not None and trc.greedy_steps:
            n = len(trc.greedy_steps)
            if not 0 <= k < n:
                return StepsView(tr("select a token to see its longest-match step"), [], greedy=True)
            first, last = max(0, k - GREEDY_WINDOW), min(n, k + GREEDY_WINDOW + 1)
            return StepsView(tr("greedy step {k} of {n}: candidates, shortest first").format(
                k=f"{k + 1:,}", n=f"{n:,}"),
                             greedy_step_rows(tok, trc, first, last), current=k - first, greedy=True)
        if trc is not None and tok is not None and trc.kestrel_steps:
            n = len(trc.kestrel_steps)
            if not 0 <= k < n:
                return StepsView(tr("select a token to see the board engine's step"), [], greedy=True)
            first, last = max(0, k - GREEDY_WINDOW), min(n, k + GREEDY_WINDOW + 1)
            return StepsView(tr("{encoder} step {k} of {n}: what was tried, what was taken, and why").format(
                encoder=self.encoder, k=f"{k + 1:,}", n=f"{n:,}"),
                             kestrel_step_rows(tok, trc, first, last), current=k - first, greedy=True)
        if trc is None or tok is None or not 0 <= k < len(trc.chunks):
            return StepsView(tr("select a token to see its merges"), [])
        ch = trc.chunks[k]
        if ch.lattice:
            return StepsView(tr("chunk {k}: {label}: Unigram lattice, the pieces that start at each byte with their "
                                "scores (best path highlighted)").format(k=k, label=self.chunks[k].label),
                             lattice_rows(tok, trc, ch), greedy=True)
        return StepsView(tr("chunk {k}: {label}").format(k=k, label=self.chunks[k].label), step_rows(tok, ch))

    # ---- requests ---------------------------------------------------------
    def set_text(self, text: str, immediate: bool = False) -> None:
        """A typed edit (coalesced while an encode runs), or with immediate a new text (it supersedes
        the running encode)."""
        self.text = text
        if immediate or not self._encode.running:
            self._start_encode()
        else:
            self._encode_pending = True

    def set_encoder(self, encoder: str) -> None:
        if encoder not in self.encoders_available or encoder == self.encoder:
            return
        self.encoder = encoder
        self._start_encode()

    def set_add_special_tokens(self, on: bool) -> None:
        self.add_special_tokens = on
        self._start_encode()

    def set_tokenizer(self, tok: Tokenizer, info: dict[str, Any] | None = None) -> None:
        self.tokenizer = tok
        self.info = info if info is not None else tok.describe()
        self.tokenizerChanged.emit()
        self._start_encode()

    def load_default(self) -> None:
        self._start_load("", lambda: Tokenizer.default())

    def load_file(self, path: str | Path) -> None:
        p = Path(path)
        self._start_load(str(p), lambda: Tokenizer.from_file(p))

    def request_trace(self) -> None:
        """Traces the current analysis's text in a worker (automatic below
        TRACE_AUTO_LIMIT characters, on request above); the chunk rows are built there too."""
        a, tok = self.analysis, self.tokenizer
        if tok is None or a is None:
            return
        special = self.add_special_tokens

        def work(ev: threading.Event, gen: int) -> tuple[int, Trace, list[ChunkRow], np.ndarray]:
            trc = trace_text(tok, a.text, encoder=a.encoder, add_special_tokens=special)
            rows = chunk_rows(trc)
            return a.generation, trc, rows, row_token_starts(rows)

        self._trace.submit(work)

    def cancel(self) -> None:
        self._encode_pending = False
        self._encode.cancel()
        self._load.cancel()
        self._trace_rest.stop()
        self._trace.cancel()

    def flush(self) -> None:
        """Starts a pending (coalesced) encode now."""
        if self._encode_pending:
            self._start_encode()

    # ---- lookups the panes use ---------------------------------------------
    def chunk_of_token(self, token: int) -> int:
        if self._chunk_starts.size == 0 or token < 0:
            return -1
        k = int(np.searchsorted(self._chunk_starts, token, side="right")) - 1
        if k < 0:
            return -1
        a, b = self.chunks[k].token_range
        return k if a <= token < b else -1

    def token_tooltip(self, i: int) -> str:
        a = self.analysis
        if a is None or not 0 <= i < len(a):
            return ""
        enc, tok = a.encoding, a.encoding._tokenizer
        tid = int(enc.ids[i])
        raw = tok.id_to_bytes(tid) or b""
        c, b = enc.offsets[i].tolist(), enc.byte_offsets[i].tolist()
        lines = [f"token {i}: id {tid}", f"piece {tok.id_to_token(tid)!r}", f"bytes {raw.hex(' ') or '-'}",
                 f"chars {c[0]}–{c[1]}   bytes {b[0]}–{b[1]}"]
        if enc.special_mask[i]:
            lines.append("special token")
        if a.spans.split[i]:
            lines.append("splits a UTF-8 character")
        return "\n".join(lines)

    # ---- workers ----------------------------------------------------------
    def _start_encode(self) -> None:
        tok = self.tokenizer
        if tok is None:
            return
        text, encoder, special, base = self.text, self.encoder, self.add_special_tokens, self.analysis
        self._encode_pending = False
        self._trace_rest.stop()
        self._trace.cancel()
        # the trace is a second job, started once the typing rests (TRACE_AFTER_MS)
        self._encode.submit(lambda ev, gen: (reanalyze(tok, base, text, gen, encoder=encoder,
                                                       add_special_tokens=special, cancel=ev), base))

    def _start_load(self, path: str, make: Any) -> None:
        self._loading_path = path

        def work(ev: threading.Event, gen: int) -> tuple[Tokenizer, dict[str, Any]]:
            tok = make()
            return tok, tok.describe()

        self._load.submit(work)

    def _on_loaded(self, result: tuple[Tokenizer, dict[str, Any]]) -> None:
        self.set_tokenizer(*result)

    def _on_analysis(self, result: tuple[tuple[Analysis, Splice | None], Analysis | None]) -> None:
        (a, splice), base = result
        self.splice = splice if base is self.analysis else None
        self.analysis = a
        if self._encode_pending:
            self._start_encode()   # the edits typed meanwhile, from this analysis
        if len(a.text) <= TRACE_AUTO_LIMIT and self.trace_shown:
            self._trace_rest.start()   # before the panes ask trace_note: "tracing…"
        self._set_trace(None, [], np.zeros(0, dtype=np.int64))
        sel = self.selection.index
        if sel >= len(a):
            self.selection.index = len(a) - 1
        self.analysisChanged.emit()

    def _trace_after_rest(self) -> None:
        a = self.analysis
        if a is not None and self.trace is None and self.trace_shown and not self._encode.running \
                and len(a.text) <= TRACE_AUTO_LIMIT:
            self.request_trace()

    def show_trace(self, on: bool) -> None:
        """Whether the trace pane is on screen: a hidden one is traced when it is shown (a trace holds
        the GIL ~2 ms per 1,000 characters, work nobody sees while typing on another tab)."""
        self.trace_shown = on
        a = self.analysis
        if on and a is not None and self.trace is None and not self._trace.running and len(a.text) <= TRACE_AUTO_LIMIT:
            self._trace_rest.stop()
            self.request_trace()

    def _on_trace(self, result: tuple[int, Trace, list[ChunkRow], np.ndarray]) -> None:
        gen, trc, rows, starts = result
        if self.analysis is None or gen != self.analysis.generation:
            return
        self._set_trace(trc, rows, starts)

    def _set_trace(self, trc: Trace | None, rows: list[ChunkRow], starts: np.ndarray) -> None:
        self.trace = trc
        self.chunks = rows
        self._chunk_starts = starts
        self.traceChanged.emit()

    @property
    def trace_pending(self) -> bool:
        """A trace runs, or waits for the typing to rest."""
        return self._trace.running or self._trace_rest.isActive()

    def _on_busy(self, _: bool) -> None:
        self.busyChanged.emit(self.busy)


def _shown(b: bytes) -> str:
    """A token's text for a table cell: decoded, whitespace and controls visible."""
    s = b.decode("utf-8", errors="replace")
    s = visible(s)
    return "".join(ch if ch.isprintable() else f"\\x{ord(ch):02x}" for ch in s)


_TABLE_ROLES = frozenset(int(r) for r in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole,
                                           Qt.ItemDataRole.TextAlignmentRole, Qt.ItemDataRole.UserRole,
                                           Qt.ItemDataRole.FontRole))


class TokenTableModel(QAbstractTableModel):
    """One row per token of the current analysis; cells built when painted."""

    COLUMNS = ("#", "id", "piece", "text", "hex bytes", "chars", "bytes", "special")

    def __init__(self, doc: Document, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.doc = doc
        self._a: Analysis | None = None
        self._hover = -1
        self._fixed: Any = None    # the hex column's font (a QFont, made on first use)
        doc.analysisChanged.connect(self._reset)
        doc.selection.hovered.connect(self._on_hover)

    def _reset(self) -> None:
        a, sp = self.doc.analysis, self.doc.splice
        old = self._a
        whole = sp is None or old is None or a is None or (sp.first == 0 and sp.old_end == len(old)
                                                           and sp.new_end == len(a))
        if a is None or sp is None or whole:
            self.beginResetModel()
            self._a = a
            self.endResetModel()
            return
        self._splice(a, sp)

    def _splice(self, a: Analysis, sp: Splice) -> None:
        """Rows [first, old_end) became [first, new_end): rows removed or inserted at the end of that
        range, then the rows from `first` on changed (their own cells, or their index and offsets,
        which moved with the edit). The view repaints only what it shows of them."""
        old_n = len(self._a) if self._a is not None else 0
        old_data = self._a.data if self._a is not None else b""
        if sp.new_end > sp.old_end:
            self.beginInsertRows(_NO_INDEX, sp.old_end, sp.new_end - 1)
            self._a = a
            self.endInsertRows()
        elif sp.new_end < sp.old_end:
            self.beginRemoveRows(_NO_INDEX, sp.new_end, sp.old_end - 1)
            self._a = a
            self.endRemoveRows()
        else:
            self._a = a
        # the rows after the edit keep their tokens but moved (index, offsets): one signal for all
        last = len(a) - 1 if (len(a) != old_n or len(a.data) != len(old_data)) else sp.new_end - 1
        if last >= sp.first:
            self.dataChanged.emit(self.index(sp.first, 0), self.index(last, len(self.COLUMNS) - 1))

    def _on_hover(self, i: int) -> None:
        old, self._hover = self._hover, i
        for r in (old, i):
            if 0 <= r < self.rowCount():
                self.dataChanged.emit(self.index(r, 0), self.index(r, len(self.COLUMNS) - 1))

    def rowCount(self, parent: _Index = _NO_INDEX) -> int:
        return 0 if parent.isValid() or self._a is None else len(self._a)

    def columnCount(self, parent: _Index = _NO_INDEX) -> int:
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return tr(self.COLUMNS[section])
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        a = self._a
        # the view asks ~10 roles per visible cell on every repaint: the ones not answered leave first
        if a is None or role not in _TABLE_ROLES or not index.isValid():
            return None
        r, c = index.row(), index.column()
        enc = a.encoding
        if role == Qt.ItemDataRole.DisplayRole:
            return self._cell(a, r, c)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.doc.token_tooltip(r)
        if role == Qt.ItemDataRole.TextAlignmentRole and c in (0, 1):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.UserRole:  # for the delegate/tests: flags
            return {"special": bool(enc.special_mask[r]), "split": bool(a.spans.split[r]), "hover": r == self._hover}
        if role == Qt.ItemDataRole.FontRole and c == 4:
            if self._fixed is None:
                from PySide6.QtGui import QFontDatabase
                self._fixed = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
            return self._fixed
        return None

    def _cell(self, a: Analysis, r: int, c: int) -> str:
        enc = a.encoding
        tok = enc._tokenizer
        if c == 0:
            return str(r)
        tid = int(enc.ids[r])
        if c == 1:
            return str(tid)
        if c == 2:
            return tok.id_to_token(tid) or ""
        if c == 3:
            return _shown(tok.id_to_bytes(tid) or b"")
        if c == 4:
            return (tok.id_to_bytes(tid) or b"").hex(" ")
        if c == 5:
            s, e = enc.offsets[r].tolist()
            return f"{s}–{e}"
        if c == 6:
            s, e = enc.byte_offsets[r].tolist()
            return f"{s}–{e}"
        return "special" if enc.special_mask[r] else ""


class ChunkListModel(QAbstractListModel):
    """The pre-token chunks of the current trace."""

    def __init__(self, doc: Document, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.doc = doc
        doc.traceChanged.connect(self._reset)

    def _reset(self) -> None:
        self.beginResetModel()
        self.endResetModel()

    def rowCount(self, parent: _Index = _NO_INDEX) -> int:
        return 0 if parent.isValid() else len(self.doc.chunks)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row = self.doc.chunks[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            a, b = row.token_range
            if row.kind == "added":
                return f"{row.label}   " + tr("added token")
            if row.kind == "greedy":
                return f"{row.label}   " + tr("longest of {n} candidates").format(n=row.steps)
            if row.kind == "kestrel":
                return row.label
            if row.kind == "word":
                return f"{row.label}   " + tr("{n} pieces, longest match first").format(n=b - a)
            tail = (tr("{steps} merges → 1 token") if b - a == 1 else tr("{steps} merges → {n} tokens")).format(
                steps=row.steps, n=b - a)
            return f"{row.label}   {tail}"
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"bytes {row.orig_span[0]}–{row.orig_span[1]}, tokens {row.token_range[0]}–{row.token_range[1] - 1}"
        if role == Qt.ItemDataRole.UserRole:
            return row.kind
        return None


class VocabModel(QAbstractTableModel):
    """Search results over the vocabulary of the current tokenizer."""

    COLUMNS = ("id", "piece", "text", "hex bytes", "special")
    indexReady = Signal()

    def __init__(self, doc: Document, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.doc = doc
        self.index_: VocabIndex | None = None
        self.ids = np.zeros(0, dtype=np.int64)
        self.query = ""
        self._runner = Runner(parent=self)
        self._runner.finished.connect(self._on_index)
        doc.tokenizerChanged.connect(self._invalidate)

    def _invalidate(self) -> None:
        self.index_ = None
        self.beginResetModel()
        self.ids = np.zeros(0, dtype=np.int64)
        self.endResetModel()

    def ensure_index(self) -> None:
        tok = self.doc.tokenizer
        if self.index_ is not None or tok is None or self._runner.running:
            return
        self._runner.submit(lambda ev, gen: VocabIndex(tok))

    def _on_index(self, idx: VocabIndex) -> None:
        if idx.tok is not self.doc.tokenizer:
            return
        self.index_ = idx
        self.search(self.query)
        self.indexReady.emit()

    def search(self, q: str) -> None:
        self.query = q
        if self.index_ is None:
            self.ensure_index()
            return
        self.beginResetModel()
        self.ids = self.index_.search(q)
        self.endResetModel()

    def rowCount(self, parent: _Index = _NO_INDEX) -> int:
        return 0 if parent.isValid() else int(self.ids.shape[0])

    def columnCount(self, parent: _Index = _NO_INDEX) -> int:
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return tr(self.COLUMNS[section])
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if self.index_ is None or not index.isValid() or role != Qt.ItemDataRole.DisplayRole:
            return None
        tid = int(self.ids[index.row()])
        c = index.column()
        raw = self.index_.bytes[tid]
        if c == 0:
            return str(tid)
        if c == 1:
            return self.index_.pieces[tid]
        if c == 2:
            return _shown(raw)
        if c == 3:
            return raw.hex(" ")
        return "special" if self.index_.tok.is_special(tid) else ""


class MessagesModel(QAbstractTableModel):
    """Chat messages (role, content), editable in place."""

    COLUMNS = ("role", "content")
    ROLES = ROLES   # the roles a message can have

    def __init__(self, messages: list[dict[str, str]] | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.messages: list[dict[str, str]] = [dict(m) for m in (messages or [])]

    def rowCount(self, parent: _Index = _NO_INDEX) -> int:
        return 0 if parent.isValid() else len(self.messages)

    def columnCount(self, parent: _Index = _NO_INDEX) -> int:
        return 0 if parent.isValid() else 2

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return tr(self.COLUMNS[section])
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or role not in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            return None
        return self.messages[index.row()][self.COLUMNS[index.column()]]

    def flags(self, index: _Index) -> Qt.ItemFlag:
        return super().flags(index) | Qt.ItemFlag.ItemIsEditable

    def setData(self, index: _Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if not index.isValid() or role != Qt.ItemDataRole.EditRole:
            return False
        self.messages[index.row()][self.COLUMNS[index.column()]] = str(value)
        self.dataChanged.emit(index, index)
        return True

    def append(self, role: str, content: str) -> None:
        n = len(self.messages)
        self.beginInsertRows(QModelIndex(), n, n)
        self.messages.append({"role": role, "content": content})
        self.endInsertRows()

    def remove(self, row: int) -> None:
        if not 0 <= row < len(self.messages):
            return
        self.beginRemoveRows(QModelIndex(), row, row)
        del self.messages[row]
        self.endRemoveRows()
