"""The compare tab's model: the current text under A (the window's tokenizer
and encoder) and B (a second tokenizer, or the same one with another
encoder), aligned by bytes in a worker.

Recomputes only while the tab is active (`set_active`), on every new
analysis of the window's document.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt, Signal

from ..analysis.compare import Comparison, compare
from ..analysis.encoded import Analysis
from ..analysis.recipe import RecipeReport, compare_recipe
from ..analysis.text import analyze
from ..core.pieces import visible
from ..core.tokenizer import Tokenizer
from .document import EMBEDDED_NAMES, Document
from .i18n import tr
from .workers import Runner

_Index = QModelIndex | QPersistentModelIndex
_NO_INDEX = QModelIndex()


@dataclass(frozen=True)
class CompareResult:
    a: Analysis
    b: Analysis
    comparison: Comparison
    label_a: str
    label_b: str
    # when one side is a GGUF and the other is not: where llama.cpp's recipe differs (analysis/recipe.py)
    recipe: RecipeReport | None = None


def _shown(tok: Tokenizer) -> str:
    """A tokenizer's name in the window's language (the embedded defaults' names are words: the catalog
    has them, document.py's shown_name too)."""
    return tr(tok.name) if tok.name in EMBEDDED_NAMES else tok.name


def byte_to_utf16(data: bytes) -> np.ndarray:
    """UTF-16 position of every byte offset 0..len(data) (continuation bytes map to their character)."""
    arr = np.frombuffer(data, dtype=np.uint8)
    lead = (arr & 0xC0) != 0x80
    units = np.where(arr >= 0xF0, 2, 1) * lead
    out = np.zeros(arr.shape[0] + 1, dtype=np.int64)
    np.cumsum(units, out=out[1:])
    return out


def _with_marks(a: Analysis, spans_bytes: list[tuple[int, int]]) -> Analysis:
    if not spans_bytes:
        return a
    conv = byte_to_utf16(a.data)
    marks = np.array([[conv[s], conv[max(e, s)]] for s, e in spans_bytes], dtype=np.int64)
    return replace(a, spans=replace(a.spans, marks=marks))


class CompareModel(QObject):
    changed = Signal()
    failed = Signal(str)

    def __init__(self, doc: Document, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.doc = doc
        self.tok_b: Tokenizer | None = None
        self.encoder_b = "bpe"
        self.result: CompareResult | None = None
        self.active = False
        self._recipe_lock = threading.Lock()
        self._recipe_key: tuple[int, int] | None = None
        self._recipe_report: RecipeReport | None = None
        self._runner = Runner(parent=self)
        self._runner.finished.connect(self._on_done)
        self._runner.failed.connect(self.failed)
        self._load = Runner(parent=self)
        self._load.finished.connect(self.set_tokenizer_b)
        self._load.failed.connect(self.failed)
        doc.analysisChanged.connect(self.recompute)

    @property
    def busy(self) -> bool:
        return self._runner.running or self._load.running

    def set_active(self, on: bool) -> None:
        self.active = on
        if on:
            self.recompute()

    def load_b(self, path: str) -> None:
        self._load.submit(lambda ev, gen: Tokenizer.from_file(path))

    def set_tokenizer_b(self, tok: Tokenizer | None) -> None:
        self.tok_b = tok
        self.recompute()

    def set_encoder_b(self, encoder: str) -> None:
        self.encoder_b = encoder
        self.recompute()

    def recompute(self) -> None:
        a = self.doc.analysis
        tok_a = self.doc.tokenizer
        if not self.active or a is None or tok_a is None:
            return
        tok_b = self.tok_b or tok_a
        enc_b, special = self.encoder_b, self.doc.add_special_tokens
        label_a = f"A: {_shown(tok_a)} [{a.encoder}]"
        label_b = f"B: {_shown(tok_b)} [{enc_b}]"

        def work(ev: object, gen: int) -> CompareResult:
            b = analyze(tok_b, a.text, gen, encoder=enc_b, add_special_tokens=special, with_trace=False)
            cmp_ = compare(a.encoding, b.encoding, a.exact_bytes, b.exact_bytes)
            spans = [s.byte_span for s in cmp_.divergent]
            return CompareResult(_with_marks(a, spans), _with_marks(b, spans), cmp_, label_a, label_b,
                                 self._recipe(tok_a, tok_b))

        self._runner.submit(work)

    def _recipe(self, tok_a: Tokenizer, tok_b: Tokenizer) -> RecipeReport | None:
        """The recipe comparison of a GGUF against the other side's file, once per pair (worker thread)."""
        if (tok_a.format == "gguf") == (tok_b.format == "gguf"):
            return None
        key = (id(tok_a), id(tok_b))
        with self._recipe_lock:
            if self._recipe_key != key:
                gguf, other = (tok_a, tok_b) if tok_a.format == "gguf" else (tok_b, tok_a)
                self._recipe_report = compare_recipe(gguf, other, [], tr)
                self._recipe_key = key
            return self._recipe_report

    def _on_done(self, r: CompareResult) -> None:
        self.result = r
        self.changed.emit()


class DivergenceModel(QAbstractTableModel):
    """The divergent spans of a comparison: bytes, text, A's pieces, B's pieces."""

    COLUMNS = ("bytes", "text", "A", "B")

    def __init__(self, r: CompareResult, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.r = r

    def rowCount(self, parent: _Index = _NO_INDEX) -> int:
        return 0 if parent.isValid() else len(self.r.comparison.divergent)

    def columnCount(self, parent: _Index = _NO_INDEX) -> int:
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return tr(self.COLUMNS[section])
        return None

    def _pieces(self, a: Analysis, rng: tuple[int, int]) -> str:
        tok = a.encoding._tokenizer
        return "  ".join(f"{visible((tok.id_to_bytes(int(t)) or b'').decode('utf-8', 'replace'))}({int(t)})"
                         for t in a.encoding.ids[rng[0]:rng[1]])

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or role != Qt.ItemDataRole.DisplayRole:
            return None
        seg = self.r.comparison.divergent[index.row()]
        c = index.column()
        s, e = seg.byte_span
        if c == 0:
            return f"{s}–{e}"
        if c == 1:
            return visible(self.r.a.data[s:e].decode("utf-8", "replace"))
        return self._pieces(self.r.a if c == 2 else self.r.b, seg.a if c == 2 else seg.b)
