"""The Languages tab's models: a corpus measured with the window's tokenizer (and any added), in a
worker, with progress (rate, time left) and cancel; the table of languages; the chart's data.

LanguagesModel runs languages.run.build in a Runner job: the corpus is read and counted in the
job's thread (the engine releases the GIL), `progressed` reports each row, Cancel stops it
between rows. LanguageTable lists the report's languages, one column group per series, sortable
by any column (SORT_ROLE holds the number). `chart_data` gives the chart its bars: parity per
language and series, on a log10 scale, the reference at 0 (= 1).

Does not: paint (widgets/languages_tab.py) or compute a figure (tokinspect.languages does).
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt, Signal

from ..core.tokenizer import DEFAULTS, Tokenizer
from ..languages import optional
from ..languages.corpus import Source, open_source, read_rows
from ..languages.progress import Progress
from ..languages.run import Options, Report, build
from ..languages.series import Series, load, make_series
from .document import Document
from .workers import Runner

_Index = QModelIndex | QPersistentModelIndex
_NO_INDEX = QModelIndex()
SORT_ROLE = int(Qt.ItemDataRole.UserRole) + 1
BASE_COLUMNS = ("Language", "Name", "Script", "Lines", "Characters")
SERIES_COLUMNS = ("Tokens", "Tok/char", "p95", "Parity", "Attention")
PARITY_COLUMN = len(BASE_COLUMNS) + SERIES_COLUMNS.index("Parity")     # the first series' parity


def series_of(tok: Tokenizer, encoder: str = "bpe") -> Series:
    """The series of a loaded tokenizer: an embedded default by its key, a file by its path."""
    for key, (name, _preset) in DEFAULTS.items():
        if tok.name == name:
            return make_series(key, encoder)
    if tok.path is None:
        raise ValueError(f"{tok.name}: a tokenizer without a file cannot be measured in workers")
    return make_series(str(tok.path), encoder)


@dataclass(frozen=True)
class Result:
    report: Report
    texts: dict[str, str]        # each language's text, as read (the Inspect tab opens it)


def measure(src: Source, series: list[Series], reference: str, progress: Progress) -> Result:
    rows = list(read_rows(src))
    texts: dict[str, str] = {}
    for r in rows:
        texts[r.lang] = texts[r.lang] + "\n" + r.text if r.lang in texts else r.text
    rep = build(src, series, Options(reference=reference), progress)
    return Result(rep, texts)


class LanguagesModel(QObject):
    changed = Signal()
    progressed = Signal(float, str)      # fraction done, "3.2 of 7.9 MB · 1.6 MB/s · 3 s left"
    failed = Signal(str)

    def __init__(self, doc: Document, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.doc = doc
        self.corpus: Path | None = None
        self.reference = "eng"
        self.encoder = "bpe"
        self.others: list[Series] = []     # tokenizers added beside the window's
        self.result: Result | None = None
        self._runner = Runner(parent=self)
        self._runner.finished.connect(self._on_done)
        self._runner.failed.connect(self.failed)
        self._runner.busy.connect(lambda _b: self.changed.emit())

    @property
    def busy(self) -> bool:
        return self._runner.running

    def series(self) -> list[Series]:
        tok = self.doc.tokenizer
        mine = [series_of(tok, self.encoder)] if tok is not None else []
        return mine + [Series(s.source, self.encoder, s.preset, s.fingerprint) for s in self.others]

    def add_tokenizer(self, path: str | Path) -> None:
        try:
            s = make_series(str(path), self.encoder)
            load(s)     # refused now, naming the file, rather than in the worker
            self.others.append(s)
        except (ValueError, OSError) as exc:   # TokenizerError is a ValueError
            self.failed.emit(str(exc))
            return
        self.changed.emit()

    def run(self, corpus: str | Path | None = None) -> None:
        """Measures the corpus (the last one when None) in a worker; a newer run cancels an older one."""
        if corpus is not None:
            self.corpus = Path(corpus)
        if self.corpus is None:
            return
        try:
            src = open_source(self.corpus)
            series = self.series()
        except (ValueError, OSError) as exc:
            self.failed.emit(str(exc))
            return
        if not series:
            self.failed.emit("open a tokenizer first")
            return
        ref = self.reference

        def job(cancel: threading.Event, gen: int) -> Result:
            return measure(src, series, ref, Progress(0, lambda p: self.progressed.emit(p.fraction, p.line()), cancel))

        self.progressed.emit(0.0, "reading the corpus…")
        self._runner.submit(job)

    def cancel(self) -> None:
        self._runner.cancel()
        self.progressed.emit(0.0, "cancelled")

    def _on_done(self, result: Result) -> None:
        self.result = result
        self.changed.emit()

    def text_of(self, lang: str) -> str | None:
        return None if self.result is None else self.result.texts.get(lang)

    def summary(self) -> str:
        if self.result is None:
            if self.corpus is None:
                return " ".join(x for x in ("Open a corpus: a folder of <language>.txt files (e.g. UDHR's), .jsonl, "
                                            ".parquet or .arrow.", optional.hint()) if x)
            return f"{self.corpus}: measuring…" if self.busy else f"{self.corpus}"
        rep = self.result.report
        n = len(rep.rows_of(rep.series[0]))
        mode = "whole documents" if rep.parity_mode == "document" else "aligned lines"
        return f"{rep.corpus}: {n} languages · reference {rep.options.reference} · parity over {mode}" \
               f" · attention cost = parity² · {', '.join(rep.series)}"


class LanguageTable(QAbstractTableModel):
    """One row per language; Language, Name, Script, Lines, Characters, then per series Tokens,
    Tok/char, p95, Parity, Attention."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.langs: list[str] = []
        self.series: list[str] = []
        self.cells: list[list[Any]] = []

    def set_report(self, rep: Report | None) -> None:
        self.beginResetModel()
        self.langs, self.series, self.cells = [], [], []
        if rep is not None:
            self.series = list(rep.series)
            by = {(r.series, r.lang): r for r in rep.languages}
            self.langs = [r.lang for r in rep.rows_of(rep.series[0])]
            for lang in self.langs:
                first = by[(rep.series[0], lang)]
                row: list[Any] = [lang, first.name, first.script, first.lines, first.chars]
                for s in self.series:
                    r = by[(s, lang)]
                    row += [r.tokens, r.tokens_per_char, r.p95, r.parity, r.attention_cost]
                self.cells.append(row)
        self.endResetModel()

    def rowCount(self, parent: _Index = _NO_INDEX) -> int:
        return 0 if parent.isValid() else len(self.cells)

    def columnCount(self, parent: _Index = _NO_INDEX) -> int:
        return 0 if parent.isValid() else len(BASE_COLUMNS) + len(SERIES_COLUMNS) * len(self.series)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal or role not in (Qt.ItemDataRole.DisplayRole,
                                                                     Qt.ItemDataRole.ToolTipRole):
            return None
        if section < len(BASE_COLUMNS):
            return BASE_COLUMNS[section]
        k, c = divmod(section - len(BASE_COLUMNS), len(SERIES_COLUMNS))
        if k >= len(self.series):
            return None
        return SERIES_COLUMNS[c] if len(self.series) == 1 else f"{SERIES_COLUMNS[c]} · {self.series[k]}"

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.row() >= len(self.cells):
            return None
        v = self.cells[index.row()][index.column()]
        if role == SORT_ROLE:
            return v
        if role == Qt.ItemDataRole.DisplayRole:
            return f"{v:.3f}" if isinstance(v, float) else str(v)
        if role == Qt.ItemDataRole.TextAlignmentRole and not isinstance(v, str):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def lang_at(self, row: int) -> str | None:
        return self.langs[row] if 0 <= row < len(self.langs) else None


@dataclass(frozen=True)
class ChartData:
    langs: list[str]                   # by parity of the first series, highest first
    series: list[str]
    log_parity: list[list[float]]      # [series][language]: log10(parity); 0 is the reference
    ticks: list[tuple[float, str]]     # (log10 value, label) for the log axis


def chart_data(rep: Report | None) -> ChartData:
    if rep is None:
        return ChartData([], [], [], [])
    by = {(r.series, r.lang): r.parity for r in rep.languages}
    langs = [r.lang for r in sorted(rep.rows_of(rep.series[0]), key=lambda r: (-r.parity, r.lang))]
    logs = [[math.log10(by[(s, lang)]) if by[(s, lang)] > 0 else 0.0 for lang in langs] for s in rep.series]
    flat = [v for vs in logs for v in vs] + [0.0]
    lo, hi = math.floor(min(flat) / math.log10(2)), math.ceil(max(flat) / math.log10(2))
    ticks = [(k * math.log10(2), f"{2.0 ** k:g}") for k in range(lo, hi + 1)]   # powers of two: 0.5, 1, 2, 4...
    return ChartData(langs, list(rep.series), logs, ticks)
