"""Merge steps of one chunk as rows of symbol boxes.

Row k shows the symbols before merge k; the merged pair is filled with the
accent color and the rank is printed at the left. Greedy-step rows use the
same boxes: the candidates at one position, the chosen one filled, the
position at the left. The rows come ready-made
from `tokinspect.trace_rows.step_rows`; `current` limits how many are shown
(the slider), and the current row is emphasized.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QFont, QFontDatabase, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QWidget

from tokinspect.window.i18n import tr
from tokinspect.window.trace_rows import StepRow

from . import theme

PAD = 6
GAP = 4


class MergeStepsView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows: list[StepRow] = []
        self.current = 0
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        font.setStyleHint(QFont.StyleHint.Monospace)
        self.setFont(font)
        self._label_w = self.fontMetrics().horizontalAdvance("rank 999999") + 12

    def set_rows(self, rows: list[StepRow], current: int) -> None:
        self.rows = rows
        self.current = current
        self.updateGeometry()
        self.adjustSize()
        self.update()

    def set_current(self, k: int) -> None:
        self.current = k
        self.update()

    def _row_h(self) -> int:
        return self.fontMetrics().height() + 12

    def _box_w(self, s: str) -> int:
        return self.fontMetrics().horizontalAdvance(s) + 2 * PAD

    def row_bottom(self, k: int) -> int:
        """The y just below row k (to scroll it into view)."""
        return 4 + (k + 1) * (self._row_h() + GAP)

    def sizeHint(self) -> QSize:
        w = 0
        for r in self.rows:
            w = max(w, sum(self._box_w(s) + GAP for s in r.symbols) + self.fontMetrics().horizontalAdvance(r.result))
        return QSize(self._label_w + w + 40, len(self.rows) * (self._row_h() + GAP) + 8)

    def minimumSizeHint(self) -> QSize:
        return self.sizeHint()

    def paintEvent(self, e: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        pal = self.palette()
        acc = theme.accent()
        colors = theme.token_colors()
        fm = self.fontMetrics()
        h = self._row_h()
        for k, row in enumerate(self.rows[: self.current + 1]):
            y = 4 + k * (h + GAP)
            is_cur = k == self.current
            if is_cur:
                hl = pal.highlight().color()
                hl.setAlpha(40)
                p.fillRect(QRectF(0, y - 2, self.width(), h + 4), hl)
            p.setPen(pal.text().color() if is_cur else theme.muted())
            label = row.label or (tr("rank {rank}").format(rank=row.rank) if row.rank is not None else tr("final"))
            p.drawText(QRectF(4, y, self._label_w, h), Qt.AlignmentFlag.AlignVCenter, label)
            x = self._label_w
            for j, s in enumerate(row.symbols):
                w = self._box_w(s)
                box = QRectF(x, y, w, h)
                merged = row.merged is not None and row.merged <= j < row.merged + row.span
                p.setPen(QPen(acc if merged else pal.mid().color(), 2 if merged else 1))
                fill = acc.lighter(160) if merged and not theme.is_dark() else acc.darker(200) if merged else (
                    colors[j % len(colors)] if row.merged is None and row.span else pal.base().color())
                p.setBrush(fill)
                p.drawRoundedRect(box.adjusted(0.5, 0.5, -0.5, -0.5), 4, 4)
                p.setPen(pal.text().color())
                p.drawText(box, Qt.AlignmentFlag.AlignCenter, s)
                x += w + GAP
            p.setPen(pal.text().color() if is_cur else theme.muted())
            result = f"→ {row.result}" if row.merged is not None else row.result
            p.drawText(QRectF(x + 8, y, fm.horizontalAdvance(result) + 10, h), Qt.AlignmentFlag.AlignVCenter, result)
        p.end()
