"""The Contract tab's models: a contract.json checked against the window's tokenizer, and the
vocabulary diff of the Compare tab's two tokenizers.

ContractModel loads a contract (schema.load) and verifies the open tokenizer against it in a worker,
again whenever the tokenizer changes; SampleTableModel lists the samples, failed first, each with
the layers it failed and where its first difference is (the view opens it in the Inspect panes
there). VocabDiffModel diffs tokenizer A -> B in a worker; DiffTableModel lists the rows, blockers
first.

Does not: paint (widgets/contract_tab.py) or judge anything itself (contract/, analysis/vocab_diff.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt, Signal

from ..analysis.vocab_diff import VocabDiff, VocabTable, diff
from ..contract import schema
from ..contract.bundle import open_bundle
from ..contract.freeze import freeze
from ..contract.verify import Report, SampleResult, verify
from ..core.pieces import visible
from ..core.tokenizer import Tokenizer
from .document import Document
from .i18n import tr
from .workers import Runner

_Index = QModelIndex | QPersistentModelIndex
_NO_INDEX = QModelIndex()
DIFF_ROWS = 2_000       # rows of each kind shown (the counts above say how many there are)


def _shown(text: str | bytes, n: int = 80) -> str:
    s = text.decode("utf-8", "backslashreplace") if isinstance(text, bytes) else text
    return visible(s[:n]) + ("…" if len(s) > n else "")


class ContractModel(QObject):
    changed = Signal()
    failed = Signal(str)

    def __init__(self, doc: Document, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.doc = doc
        self.path: Path | None = None
        self.contract: dict[str, Any] | None = None
        self.report: Report | None = None
        self._runner = Runner(parent=self)
        self._runner.finished.connect(self._on_done)
        self._runner.failed.connect(self.failed)
        doc.tokenizerChanged.connect(self.recheck)

    @property
    def busy(self) -> bool:
        return self._runner.running

    def open(self, path: str | Path) -> None:
        """Reads the contract now (a malformed one is a failed() message naming path and reason)."""
        try:
            self.contract = schema.load(path)
        except (schema.ContractError, OSError) as exc:
            self.failed.emit(str(exc))
            return
        self.path = Path(path)
        self.recheck()

    def freeze_open(self, path: str | Path) -> None:
        """Freezes the open tokenizer to `path` and opens that contract (blocks: the screenshot uses it)."""
        tok = self.doc.tokenizer
        if tok is None or tok.path is None:
            return
        Path(path).write_text(schema.dump(freeze(open_bundle(tok.path))), encoding="utf-8")
        self.open(path)

    def recheck(self) -> None:
        tok, c = self.doc.tokenizer, self.contract
        if tok is None or c is None:
            return
        self.report = None
        self.changed.emit()
        path = tok.path
        # a fresh load of the same file (and the config beside it): the window's tokenizer is never changed
        self._runner.submit(lambda ev, gen: verify(c, open_bundle(path)))

    def _on_done(self, rep: Report) -> None:
        self.report = rep
        self.changed.emit()

    def summary(self) -> str:
        if self.contract is None:
            return tr("Open a contract.json (tokinspect contract freeze) to check the open tokenizer against it.")
        if self.report is None:
            return tr("{path}: checking…").format(path=self.path)
        rep = self.report
        failed = sum(not s.ok for s in rep.samples)
        head = tr("holds") if rep.ok else tr("changed: {layers}").format(layers=", ".join(rep.layers))
        return tr("{name}: {verdict}  ·  {passed} of {n} samples pass").format(
            name=self.path.name if self.path else "", verdict=head, passed=len(rep.samples) - failed,
            n=len(rep.samples))

    def facts(self) -> list[str]:
        """The findings that are not about one sample (files, pipeline, specials, template, fingerprint)."""
        if self.report is None:
            return []
        return [f"{f.layer}: {f.what}" for f in self.report.findings if f.sample is None] + \
               [f"note: {n}" for n in self.report.notes]


class _RowsTable(QAbstractTableModel):
    """A table of `rows` under the header `COLUMNS` (the two tables of this tab)."""

    COLUMNS: tuple[str, ...] = ()
    rows: list[Any]

    def rowCount(self, parent: _Index = _NO_INDEX) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: _Index = _NO_INDEX) -> int:
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return tr(self.COLUMNS[section])
        return None


class SampleTableModel(_RowsTable):
    """The samples of a report, failed ones first: status, category, layers, first difference, text."""

    COLUMNS = ("", "category", "layers", "first difference", "text")

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.rows: list[SampleResult] = []
        self.details: dict[int, str] = {}

    def set_report(self, rep: Report | None) -> None:
        self.beginResetModel()
        self.rows = sorted(rep.samples, key=lambda s: (s.ok, s.index)) if rep else []
        self.details = {}
        if rep is not None:
            for f in rep.findings:
                if f.sample is not None and f.sample not in self.details:
                    self.details[f.sample] = f.what.split(": ", 1)[-1]
        self.endResetModel()

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        s = self.rows[index.row()]
        c = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if c == 0:
                return "✓" if s.ok else "✗"
            if c == 1:
                return s.category
            if c == 2:
                return ", ".join(dict.fromkeys(s.layers))
            if c == 3:
                return self.details.get(s.index, "")
            return _shown(s.text)
        if role == Qt.ItemDataRole.ForegroundRole and c == 0:
            from PySide6.QtGui import QColor

            return QColor("#2e7d32") if s.ok else QColor("#c62828")
        if role == Qt.ItemDataRole.ToolTipRole and c in (3, 4):
            return self.details.get(s.index, "") if c == 3 else _shown(s.text, 2_000)
        return None

    def sample(self, row: int) -> SampleResult | None:
        return self.rows[row] if 0 <= row < len(self.rows) else None


@dataclass(frozen=True)
class DiffRow:
    kind: str           # blocker | special moved | moved | removed | appended
    id: str
    old: str
    new: str


def diff_rows(d: VocabDiff, limit: int = DIFF_ROWS) -> list[DiffRow]:
    """Blockers first, then specials moved, pieces moved, removed, appended."""
    def p(b: bytes) -> str:
        return visible(b.decode("utf-8", "backslashreplace"))

    rows = [DiffRow("blocker", str(i), p(a), p(b)) for i, a, b in d.changed[:limit]]
    rows += [DiffRow("special moved", f"{i} → {'gone' if j is None else j}", c, "" if j is None else c)
             for c, i, j in d.specials_moved]
    rows += [DiffRow("moved", f"{i} → {j}", p(b), p(b)) for i, j, b in d.moved[:limit]]
    rows += [DiffRow("removed", str(i), p(b), "") for i, b in d.removed[:limit]]
    rows += [DiffRow("appended", str(i), "", p(b)) for i, b in d.appended[:limit]]
    return rows


def diff_summary(d: VocabDiff) -> str:
    verdict = "append-only: every old id keeps its piece" if d.compatible else f"{len(d.changed):,} blockers"
    return (f"{d.old} ({d.old_size:,}) → {d.new} ({d.new_size:,}): {verdict}  ·  kept {len(d.kept):,}  ·  "
            f"moved {len(d.moved):,}  ·  removed {len(d.removed):,}  ·  appended {len(d.appended):,}  ·  "
            f"specials moved {len(d.specials_moved)}")


class VocabDiffModel(QObject):
    changed = Signal()
    failed = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.result: VocabDiff | None = None
        self._runner = Runner(parent=self)
        self._runner.finished.connect(self._on_done)
        self._runner.failed.connect(self.failed)

    @property
    def busy(self) -> bool:
        return self._runner.running

    def run(self, a: Tokenizer, b: Tokenizer) -> None:
        self.result = None
        self.changed.emit()
        self._runner.submit(lambda ev, gen: diff(VocabTable.from_tokenizer(a), VocabTable.from_tokenizer(b)))

    def _on_done(self, d: VocabDiff) -> None:
        self.result = d
        self.changed.emit()


class DiffTableModel(_RowsTable):
    COLUMNS = ("kind", "id", "old piece", "new piece")

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.rows: list[DiffRow] = []

    def set_diff(self, d: VocabDiff | None) -> None:
        self.beginResetModel()
        self.rows = diff_rows(d) if d is not None else []
        self.endResetModel()

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        r = self.rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return (r.kind, r.id, r.old, r.new)[index.column()]
        if role == Qt.ItemDataRole.ForegroundRole and r.kind in ("blocker", "special moved", "removed"):
            from PySide6.QtGui import QColor

            return QColor("#c62828")
        return None
