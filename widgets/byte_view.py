"""The byte pane: UTF-8 bytes in hex rows, the GPT-2 mapped character under
each byte, token boundaries as vertical bars.

Reads `Analysis.data` and `Analysis.byte_token` (token index per byte) and
paints only the visible rows. The selected token's bytes are filled with
the accent color; the hovered token is outlined.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint, QRectF, Qt, Signal
from PySide6.QtGui import QFont, QFontDatabase, QMouseEvent, QPainter, QPaintEvent, QPen, QResizeEvent
from PySide6.QtWidgets import QAbstractScrollArea, QToolTip, QWidget

from tokinspect.analysis.encoded import Analysis
from tokinspect.core.pieces import gpt2_byte_chars

from . import theme

BYTES_PER_ROW = 16


class ByteView(QAbstractScrollArea):
    tokenClicked = Signal(int)
    tokenHovered = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.analysis: Analysis | None = None
        self.selected = -1
        self.hover = -1
        self.tooltip_for = None
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        font.setStyleHint(QFont.StyleHint.Monospace)
        self.setFont(font)
        self._small = QFont(font)
        self._small.setPointSizeF(font.pointSizeF() * 0.85)
        self._chars = gpt2_byte_chars()
        self.viewport().setMouseTracking(True)
        self._metrics()

    def _metrics(self) -> None:
        fm = self.fontMetrics()
        self.cell_w = fm.horizontalAdvance("00") + 10
        self.line_h = fm.height()
        self.row_h = 2 * self.line_h + 6
        self.gutter = fm.horizontalAdvance("00000000") + 14

    def set_analysis(self, a: Analysis | None) -> None:
        self.analysis = a
        self._update_scroll()
        self.viewport().update()

    def set_selected(self, i: int) -> None:
        self.selected = i
        a = self.analysis
        if a is not None and 0 <= i < len(a):
            b0, b1 = (int(x) for x in a.encoding.byte_offsets[i])
            first, last = b0 // BYTES_PER_ROW, max(b0, b1 - 1) // BYTES_PER_ROW
            top = self.verticalScrollBar().value()
            rows = max(1, self.viewport().height() // self.row_h)
            if first < top or last >= top + rows:
                self.verticalScrollBar().setValue(max(0, first - rows // 3))
        self.viewport().update()

    def set_hover(self, i: int) -> None:
        if i != self.hover:
            self.hover = i
            self.viewport().update()

    def rows(self) -> int:
        return 0 if self.analysis is None else (len(self.analysis.data) + BYTES_PER_ROW - 1) // BYTES_PER_ROW

    def _update_scroll(self) -> None:
        visible = max(1, self.viewport().height() // self.row_h)
        self.verticalScrollBar().setRange(0, max(0, self.rows() - visible))
        self.verticalScrollBar().setPageStep(visible)
        full = self.gutter + BYTES_PER_ROW * self.cell_w
        self.horizontalScrollBar().setRange(0, max(0, full - self.viewport().width()))

    def resizeEvent(self, e: QResizeEvent) -> None:
        super().resizeEvent(e)
        self._update_scroll()

    def byte_at(self, pos: QPoint) -> int:
        a = self.analysis
        if a is None:
            return -1
        x = pos.x() + self.horizontalScrollBar().value() - self.gutter
        if x < 0 or x >= BYTES_PER_ROW * self.cell_w:
            return -1
        row = self.verticalScrollBar().value() + pos.y() // self.row_h
        b = row * BYTES_PER_ROW + x // self.cell_w
        return b if 0 <= b < len(a.data) else -1

    def token_at(self, pos: QPoint) -> int:
        b = self.byte_at(pos)
        return -1 if b < 0 or self.analysis is None else int(self.analysis.byte_token[b])

    def mouseMoveEvent(self, e: QMouseEvent) -> None:
        self.tokenHovered.emit(self.token_at(e.position().toPoint()))

    def leaveEvent(self, e: QEvent) -> None:
        self.tokenHovered.emit(-1)

    def mousePressEvent(self, e: QMouseEvent) -> None:
        i = self.token_at(e.position().toPoint())
        if i >= 0:
            self.tokenClicked.emit(i)

    def viewportEvent(self, e: QEvent) -> bool:
        if e.type() == QEvent.Type.ToolTip and self.tooltip_for is not None:
            i = self.token_at(e.pos())  # type: ignore[attr-defined]
            b = self.byte_at(e.pos())  # type: ignore[attr-defined]
            if i >= 0:
                QToolTip.showText(e.globalPos(), f"byte {b}\n" + self.tooltip_for(i), self.viewport())  # type: ignore[attr-defined]
            else:
                QToolTip.hideText()
            return True
        return super().viewportEvent(e)

    def paintEvent(self, e: QPaintEvent) -> None:
        p = QPainter(self.viewport())
        a = self.analysis
        pal = self.palette()
        p.fillRect(self.viewport().rect(), pal.base())
        if a is None or not a.data:
            p.setPen(theme.muted())
            p.drawText(self.viewport().rect(), Qt.AlignmentFlag.AlignCenter, "no bytes")
            p.end()
            return
        colors = theme.token_colors()
        acc = theme.accent()
        text_pen = pal.text().color()
        muted = theme.muted()
        data, btok = a.data, a.byte_token
        special = a.encoding.special_mask
        dx = -self.horizontalScrollBar().value()
        first = self.verticalScrollBar().value()
        nrows = self.viewport().height() // self.row_h + 2
        sel_fill = acc.lighter(150) if not theme.is_dark() else acc.darker(170)
        last = min(self.rows(), first + nrows)
        # one pass per pen and font (switching them per cell was most of the paint's time)
        cells: list[tuple[int, int, float, float]] = []   # (byte, token, x, y)
        for r in range(first, last):
            y = (r - first) * self.row_h
            for c in range(min(BYTES_PER_ROW, len(data) - r * BYTES_PER_ROW)):
                b = r * BYTES_PER_ROW + c
                cells.append((b, int(btok[b]), dx + self.gutter + c * self.cell_w, y))
        p.setPen(muted)
        p.setFont(self.font())
        for r in range(first, last):
            p.drawText(QRectF(dx + 2, (r - first) * self.row_h, self.gutter - 8, self.line_h),
                       Qt.AlignmentFlag.AlignLeft, f"{r * BYTES_PER_ROW:08x}")
        for _b, t, x, y in cells:
            fill = sel_fill if t == self.selected and t >= 0 else colors[t % len(colors)] if t >= 0 else None
            if fill is not None:
                p.fillRect(QRectF(x, y + 1, self.cell_w, self.row_h - 4), fill)
        special_pen, bar_pen, hover_pen = QPen(theme.special_pen(), 1), QPen(text_pen, 1.5), QPen(acc, 1,
                                                                                                 Qt.PenStyle.DashLine)
        for b, t, x, y in cells:
            cell = QRectF(x, y + 1, self.cell_w, self.row_h - 4)
            if special.size and t >= 0 and special[t]:
                p.setPen(special_pen)
                p.drawLine(cell.topLeft(), cell.topRight())
                p.drawLine(cell.bottomLeft(), cell.bottomRight())
            # token boundary: a bar where the token changes
            if b == 0 or int(btok[b - 1]) != t:
                p.setPen(bar_pen)
                p.drawLine(cell.topLeft(), cell.bottomLeft())
            if t == self.hover and t >= 0:
                p.setPen(hover_pen)
                p.drawLine(cell.topLeft(), cell.topRight())
                p.drawLine(cell.bottomLeft(), cell.bottomRight())
        p.setPen(text_pen)
        for b, _t, x, y in cells:
            p.drawText(QRectF(x, y + 2, self.cell_w, self.line_h), Qt.AlignmentFlag.AlignCenter, f"{data[b]:02x}")
        p.setFont(self._small)
        for selected in (False, True):
            p.setPen(text_pen if selected else muted)
            for b, t, x, y in cells:
                if (t == self.selected) == selected:
                    p.drawText(QRectF(x, y + 2 + self.line_h, self.cell_w, self.line_h), Qt.AlignmentFlag.AlignCenter,
                               self._chars[data[b]])
        p.end()
