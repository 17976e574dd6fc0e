"""Colors: the light and dark palettes and the soft token colors.

Token colors cycle through five soft tints (the same in every pane, so a
token is the same color in the text, the byte pane and the compare view).
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

_LIGHT_TOKENS = ("#cfe8ff", "#ffe0b8", "#d5f5d0", "#f4d4f4", "#fff3b0")
_DARK_TOKENS = ("#1f4566", "#5c3f1c", "#284f2a", "#553355", "#55501e")


def is_dark(pal: QPalette | None = None) -> bool:
    pal = pal or QApplication.palette()
    return pal.color(QPalette.ColorRole.Window).lightness() < 128


def token_colors() -> list[QColor]:
    return [QColor(c) for c in (_DARK_TOKENS if is_dark() else _LIGHT_TOKENS)]


def accent() -> QColor:
    return QColor("#ff9f1c") if is_dark() else QColor("#d9480f")


def special_pen() -> QColor:
    return QColor("#c77dff") if is_dark() else QColor("#7b2cbf")


def split_mark() -> QColor:
    return QColor("#ff6b6b") if is_dark() else QColor("#e03131")


def divergent() -> QColor:
    return QColor(255, 80, 80, 90) if is_dark() else QColor(255, 60, 60, 70)


def muted() -> QColor:
    c = QApplication.palette().color(QPalette.ColorRole.Text)
    c.setAlpha(110)
    return c


def dark_palette() -> QPalette:
    p = QPalette()
    roles = {
        QPalette.ColorRole.Window: "#2b2d30", QPalette.ColorRole.WindowText: "#dfe1e5",
        QPalette.ColorRole.Base: "#1e1f22", QPalette.ColorRole.AlternateBase: "#26282b",
        QPalette.ColorRole.ToolTipBase: "#3c3f41", QPalette.ColorRole.ToolTipText: "#dfe1e5",
        QPalette.ColorRole.Text: "#dfe1e5", QPalette.ColorRole.Button: "#3c3f41",
        QPalette.ColorRole.ButtonText: "#dfe1e5", QPalette.ColorRole.BrightText: "#ff6b6b",
        QPalette.ColorRole.Highlight: "#2f65ca", QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.Link: "#6ea8fe", QPalette.ColorRole.PlaceholderText: "#8c8f94",
        QPalette.ColorRole.Mid: "#45484c", QPalette.ColorRole.Dark: "#1a1b1d", QPalette.ColorRole.Light: "#505357",
    }
    for role, color in roles.items():
        p.setColor(role, QColor(color))
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.WindowText, QPalette.ColorRole.ButtonText):
        p.setColor(QPalette.ColorGroup.Disabled, role, QColor("#6f7277"))
    return p


def apply(dark: bool) -> None:
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        return
    app.setStyle("Fusion")
    app.setPalette(dark_palette() if dark else app.style().standardPalette())
