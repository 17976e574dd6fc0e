"""The text pane: an editor whose tokens are painted as colored spans.

It paints only the visible blocks (the token range of each block comes from
`TokenSpans.visible`, a binary search), so repaint cost follows the screen,
not the text length. Selected token: accent border; hovered token: dashed
border; special tokens: outlined; tokens that split a UTF-8 character: a red
underline. Whitespace can be shown (· for space, → for tab, ↵ at line ends).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable

from PySide6.QtCore import QEvent, QPoint, QPointF, QRect, QRectF, Qt, Signal
from PySide6.QtGui import (
    QFont,
    QFontDatabase,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPen,
    QRegion,
    QTextCursor,
    QTextOption,
)
from PySide6.QtWidgets import QPlainTextEdit, QToolTip, QWidget

from tokinspect.analysis.encoded import TokenSpans

from . import theme


class TokenTextEdit(QPlainTextEdit):
    tokenClicked = Signal(int)      # the user put the cursor on a token
    tokenHovered = Signal(int)      # -1 when leaving

    def __init__(self, parent: QWidget | None = None, read_only: bool = False) -> None:
        super().__init__(parent)
        self.spans: TokenSpans | None = None
        self.selected = -1
        self.hover = -1
        self.tooltip_for: Callable[[int], str] | None = None
        self._show_ws = False
        self._syncing = False
        self._painted_marks: list[QRect] = []   # where the last paint drew the selected and hovered tokens
        self._painted_since = QRegion()          # what was painted since the spans were last set
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        font.setPointSizeF(max(font.pointSizeF(), 10.5))
        font.setStyleHint(QFont.StyleHint.Monospace)
        self.setFont(font)
        self.setReadOnly(read_only)
        self.setMouseTracking(True)
        self.viewport().setMouseTracking(True)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setWordWrapMode(QTextOption.WrapMode.WrapAnywhere)
        self.cursorPositionChanged.connect(self._on_cursor)

    # ---- what to show --------------------------------------------------------
    def text(self) -> str:
        """The text exactly as tokenized (Qt keeps paragraphs as U+2029)."""
        return self.document().toRawText().replace("\u2029", "\n")

    def set_spans(self, spans: TokenSpans | None, changed: tuple[int, int | None] | None = None) -> None:
        """New spans; `changed` = the UTF-16 range whose tokens changed (end None: to the text's end,
        as when the token count changed and every later token's color moved): only that is repainted."""
        self.spans = spans
        # what was painted since the last spans came may show them over a text edited since
        since, self._painted_since = self._painted_since, QRegion()
        if changed is None:
            self.viewport().update()
        else:
            self._update_range(changed[0], changed[1])
            if not since.isEmpty():
                self.viewport().update(since)

    def _update_range(self, start: int, end: int | None) -> None:
        """Repaints the lines from UTF-16 position start to the end of end's paragraph (end None: down
        to the viewport's bottom)."""
        vp = self.viewport()
        last = max(0, self.document().characterCount() - 1)
        c = QTextCursor(self.document())
        c.setPosition(min(max(start, 0), last))
        top = self.cursorRect(c).top() - 4
        if end is None:
            bottom = vp.height()
        else:
            # to the end of the paragraph: the editor repainted the edited one with the spans before
            block = self.document().findBlock(min(max(end, 0), last))
            c.setPosition(min(max(end, block.position() + block.length() - 1, 0), last))
            bottom = self.cursorRect(c).bottom() + 4
        top, bottom = max(top, 0), min(bottom, vp.height())
        if bottom > top:
            vp.update(QRect(0, top, vp.width(), bottom - top))

    def _update_token(self, i: int) -> None:
        spans = self.spans
        if spans is not None and 0 <= i < len(spans):
            self._update_range(int(spans.u16[i, 0]), int(spans.u16[i, 1]))

    def set_selected(self, i: int, move_cursor: bool = True) -> None:
        old, self.selected = self.selected, i
        shown = self._painted_marks
        if move_cursor and self.spans is not None and 0 <= i < len(self.spans):
            start = int(self.spans.u16[i, 0])
            if self.textCursor().position() != start and self.spans.at(self.textCursor().position()) != i:
                self._syncing = True
                c = self.textCursor()
                c.setPosition(min(start, self.document().characterCount() - 1))
                self.setTextCursor(c)
                self._syncing = False
            self.ensureCursorVisible()
        # the marks where they were painted, and the new one
        for r in shown:
            self.viewport().update(r)
        if old != i or not shown:
            self._update_token(i)

    def set_hover(self, i: int) -> None:
        if i != self.hover:
            for r in self._painted_marks:
                self.viewport().update(r)
            self.hover = i
            self._update_token(i)

    def set_show_whitespace(self, on: bool) -> None:
        self._show_ws = on
        opt = self.document().defaultTextOption()
        flags = opt.flags()
        if on:
            flags |= QTextOption.Flag.ShowTabsAndSpaces
        else:
            flags &= ~QTextOption.Flag.ShowTabsAndSpaces
        opt.setFlags(flags)
        self.document().setDefaultTextOption(opt)
        self.viewport().update()

    # ---- input ---------------------------------------------------------------
    def token_at(self, pos: QPoint) -> int:
        if self.spans is None or len(self.spans) == 0:
            return -1
        c = self.cursorForPosition(pos)
        p = c.position()
        if self.cursorRect(c).left() > pos.x() and p > 0:
            p -= 1
        return self.spans.at(p)

    def _on_cursor(self) -> None:
        if self._syncing or self.spans is None:
            return
        i = self.spans.at(self.textCursor().position())
        if i >= 0:
            self.tokenClicked.emit(i)

    def mouseMoveEvent(self, e: QMouseEvent) -> None:
        super().mouseMoveEvent(e)
        self.tokenHovered.emit(self.token_at(e.position().toPoint()))

    def leaveEvent(self, e: QEvent) -> None:
        super().leaveEvent(e)
        self.tokenHovered.emit(-1)

    def mousePressEvent(self, e: QMouseEvent) -> None:
        super().mousePressEvent(e)
        i = self.token_at(e.position().toPoint())
        if i >= 0:
            self.tokenClicked.emit(i)

    def viewportEvent(self, e: QEvent) -> bool:
        if e.type() == QEvent.Type.ToolTip and self.tooltip_for is not None:
            pos = e.pos()  # type: ignore[attr-defined]
            i = self.token_at(pos)
            text = self.tooltip_for(i) if i >= 0 else ""
            if text:
                QToolTip.showText(e.globalPos(), text, self.viewport())  # type: ignore[attr-defined]
            else:
                QToolTip.hideText()
            return True
        return super().viewportEvent(e)

    # ---- painting --------------------------------------------------------------
    def paintEvent(self, e: QPaintEvent) -> None:
        self._painted_since = self._painted_since.united(e.region())
        if self.spans is not None and len(self.spans):
            p = QPainter(self.viewport())
            try:
                self._paint_tokens(p, e.rect())
            finally:
                p.end()
        super().paintEvent(e)
        if self._show_ws:
            self._paint_line_ends()

    def _block_rects(self, block_geo: QRectF, layout: object, bpos: int, blen: int, s: int, t: int,
                     lines: list[tuple[int, int, object]] | None = None) -> list[QRectF]:
        """Rectangles of UTF-16 range [s, t) inside one block (one per line); the
        block's end (its newline) is a narrow box after the last character.
        `lines`: the block's (start, end, QTextLine) list, when the caller has it (see _lines)."""
        rects = []
        if lines is None:
            lines = _lines(layout)
        text_end = bpos + blen - 1
        a, b = max(s, bpos) - bpos, min(t, text_end) - bpos
        ox, oy = block_geo.left(), block_geo.top()
        # the first line that ends after a: lines are in text order
        k = bisect_right(lines, a, key=lambda ln: ln[1]) if a > 0 else 0
        while k < len(lines):
            ls, le, line = lines[k]
            if ls >= b:
                break
            lo, hi = max(a, ls), min(b, le)
            if lo < hi:
                x1, x2 = line.cursorToX(lo)[0], line.cursorToX(hi)[0]  # type: ignore[attr-defined]
                rects.append(QRectF(ox + x1, oy + line.y(), x2 - x1, line.height()))  # type: ignore[attr-defined]
            k += 1
        if t > text_end and s <= text_end and lines:
            line = lines[-1][2]
            x = line.cursorToX(lines[-1][1])[0]  # type: ignore[attr-defined]
            w = self.fontMetrics().horizontalAdvance("↵")
            rects.append(QRectF(ox + x, oy + line.y(), w, line.height()))  # type: ignore[attr-defined]
        return rects

    def _paint_tokens(self, p: QPainter, dirty: QRect) -> None:
        """Paints the tokens on the lines that cross `dirty` (the region Qt repaints)."""
        top, bottom = dirty.top(), dirty.bottom() + 1
        spans = self.spans
        assert spans is not None
        colors = theme.token_colors()
        acc, spc, spl = theme.accent(), theme.special_pen(), theme.split_mark()
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        block = self.firstVisibleBlock()
        offset = self.contentOffset()
        marks = spans.marks
        painted: list[QRect] = []
        while block.isValid():
            geo = self.blockBoundingGeometry(block).translated(offset)
            if geo.top() > bottom:
                break
            bpos, blen = block.position(), block.length()
            layout = block.layout()
            if geo.bottom() < top:
                block = block.next()
                continue
            lines = _lines(layout)
            lo, hi = _dirty_lines(layout, geo.top(), top, bottom, blen)
            i0, i1 = spans.visible(bpos + lo, bpos + hi)
            for i in range(i0, i1):
                s, t = int(spans.u16[i, 0]), int(spans.u16[i, 1])
                for r in self._block_rects(geo, layout, bpos, blen, s, t, lines):
                    rr = r.adjusted(0.5, 1.5, -0.5, -1.5)
                    p.setPen(Qt.PenStyle.NoPen)
                    p.setBrush(colors[i % len(colors)])
                    p.drawRoundedRect(rr, 2.5, 2.5)
                    if spans.special[i]:
                        p.setPen(QPen(spc, 1.5))
                        p.setBrush(Qt.BrushStyle.NoBrush)
                        p.drawRoundedRect(rr, 2.5, 2.5)
                    if spans.split[i]:
                        p.setPen(QPen(spl, 2, Qt.PenStyle.SolidLine))
                        p.drawLine(QPointF(rr.left() + 1, rr.bottom()), QPointF(rr.right() - 1, rr.bottom()))
                    if i == self.hover and i != self.selected:
                        p.setPen(QPen(acc, 1, Qt.PenStyle.DashLine))
                        p.setBrush(Qt.BrushStyle.NoBrush)
                        p.drawRoundedRect(rr, 2.5, 2.5)
                        painted.append(rr.toAlignedRect().adjusted(-4, -4, 4, 4))
                    if i == self.selected:
                        p.setPen(QPen(acc, 2))
                        p.setBrush(Qt.BrushStyle.NoBrush)
                        p.drawRoundedRect(rr.adjusted(-0.5, -1, 0.5, 1), 3, 3)
                        painted.append(rr.toAlignedRect().adjusted(-4, -4, 4, 4))
            # divergent marks (compare): a red frame over the tokens
            for m in range(marks.shape[0]):
                ms, me = int(marks[m, 0]), int(marks[m, 1])
                if me <= bpos or ms >= bpos + blen:
                    continue
                p.setPen(QPen(theme.split_mark(), 1.5))
                p.setBrush(theme.divergent())
                for r in self._block_rects(geo, layout, bpos, blen, ms, me):
                    p.drawRect(r.adjusted(0, 0.5, 0, -0.5))
            block = block.next()
        self._painted_marks = [r for r in self._painted_marks if not r.intersects(dirty)] + painted

    def _paint_line_ends(self) -> None:
        p = QPainter(self.viewport())
        p.setPen(theme.muted())
        p.setFont(self.font())
        block = self.firstVisibleBlock()
        offset = self.contentOffset()
        h = self.viewport().height()
        while block.isValid() and block.next().isValid():
            geo = self.blockBoundingGeometry(block).translated(offset)
            if geo.top() > h:
                break
            lay = block.layout()
            if lay.lineCount():
                line = lay.lineAt(lay.lineCount() - 1)
                x = line.cursorToX(line.textStart() + line.textLength())[0]
                p.drawText(QPointF(x + geo.left(), geo.top() + line.y() + line.ascent()), "↵")
            block = block.next()
        p.end()


def _dirty_lines(layout: object, y0: float, top: float, bottom: float, blen: int) -> tuple[int, int]:
    """The block-relative UTF-16 range [lo, hi) of a block's lines that cross [top, bottom) (the
    block's top at y0); the whole block when its layout has no lines yet."""
    lay = layout  # QTextLayout
    n = lay.lineCount()  # type: ignore[attr-defined]
    lo, hi = blen, 0
    for k in range(n):
        line = lay.lineAt(k)  # type: ignore[attr-defined]
        y = y0 + line.y()
        if y + line.height() < top or y > bottom:
            continue
        lo = min(lo, line.textStart())
        hi = max(hi, line.textStart() + line.textLength() + (1 if k == n - 1 else 0))
    return (0, blen) if n == 0 else (lo, hi) if hi > lo else (0, 0)


def _lines(layout: object) -> list[tuple[int, int, object]]:
    """A block's lines as (start, end, QTextLine), block-relative UTF-16 positions, in text order."""
    lay = layout  # QTextLayout
    out = []
    for k in range(lay.lineCount()):  # type: ignore[attr-defined]
        line = lay.lineAt(k)  # type: ignore[attr-defined]
        ls = line.textStart()
        out.append((ls, ls + line.textLength(), line))
    return out
