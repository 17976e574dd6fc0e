"""The Vocabulary tab's vocab.bin audit: computed in a worker, shown as three tables.

`AuditModel` runs `vocab_audit.audit_tokenizer` off the UI thread: on its
own when the loaded tokenizer is a vocab.bin (`auto`), on request ("Audit as
vocab.bin") for other formats. Results for a tokenizer that is no longer
loaded are dropped.
"""

from __future__ import annotations

import threading
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt, Signal

from ..core.tokenizer import Tokenizer
from ..formats.vocab_audit import AuditRows, audit_tokenizer
from .i18n import tr
from .workers import Runner

_Index = QModelIndex | QPersistentModelIndex
_NO_INDEX = QModelIndex()


class RowsModel(QAbstractTableModel):
    """A read-only table of ready-made strings."""

    def __init__(self, columns: tuple[str, ...], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.columns = columns
        self.rows: list[tuple[str, ...]] = []

    def set_rows(self, rows: list[tuple[str, ...]]) -> None:
        self.beginResetModel()
        self.rows = rows
        self.endResetModel()

    def rowCount(self, parent: _Index = _NO_INDEX) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: _Index = _NO_INDEX) -> int:
        return 0 if parent.isValid() else len(self.columns)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return tr(self.columns[section])
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or role not in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return None
        return self.rows[index.row()][index.column()]


def group_rows(a: AuditRows) -> list[tuple[str, ...]]:
    """One row per identical-bytes group: the ids side by side, the shared bytes, each id's text."""
    out = []
    for k, g in enumerate(a.groups):
        ids = " = ".join(str(m.id) for m in g)
        hexes = {m.stored_hex for m in g}
        out.append((str(k + 1), ids, " | ".join(sorted(hexes)), "  ".join(f"{m.id}: {m.shown!r}" for m in g)))
    return out


def probe_rows(a: AuditRows) -> list[tuple[str, ...]]:
    return [(str(p.id), p.stored_hex, p.real_hex, p.mapped) for p in a.probes]


def class_rows(a: AuditRows) -> list[tuple[str, ...]]:
    total = max(1, a.entries)
    return [(name, f"{n:,}", f"{100 * n / total:.1f} %") for name, n in a.classes]


class AuditModel(QObject):
    """The audit of the current tokenizer's vocab.bin (its own, or a compiled copy)."""

    changed = Signal()
    failed = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.tokenizer: Tokenizer | None = None
        self.result: AuditRows | None = None
        self.classes = RowsModel(("class", "entries", "share"), self)
        self.groups = RowsModel(("group", "ids", "stored bytes", "as text"), self)
        self.probes = RowsModel(("id", "stored", "real bytes", "GPT-2 char"), self)
        self._runner = Runner(parent=self)
        self._runner.finished.connect(self._on_done)
        self._runner.failed.connect(self._on_failed)

    @property
    def busy(self) -> bool:
        return self._runner.running

    @property
    def is_vocab_bin(self) -> bool:
        return self.tokenizer is not None and self.tokenizer.format == "vocab_bin"

    def set_tokenizer(self, tok: Tokenizer | None) -> None:
        self._runner.cancel()
        self.tokenizer = tok
        self._show(None)

    def auto(self) -> None:
        """Audits a vocab.bin tokenizer without being asked (it is cheap: ~50 ms)."""
        if self.is_vocab_bin and self.result is None and not self.busy:
            self.run()

    def run(self) -> None:
        tok = self.tokenizer
        if tok is None:
            return

        def work(ev: threading.Event, gen: int) -> tuple[Tokenizer, AuditRows]:
            return tok, audit_tokenizer(tok)

        self._runner.submit(work)
        self.changed.emit()

    def _on_done(self, result: tuple[Tokenizer, AuditRows]) -> None:
        tok, rows = result
        if tok is self.tokenizer:
            self._show(rows)

    def _on_failed(self, msg: str) -> None:
        self.changed.emit()
        self.failed.emit(msg)

    def _show(self, a: AuditRows | None) -> None:
        self.result = a
        self.classes.set_rows(class_rows(a) if a else [])
        self.groups.set_rows(group_rows(a) if a else [])
        self.probes.set_rows(probe_rows(a) if a else [])
        self.changed.emit()
