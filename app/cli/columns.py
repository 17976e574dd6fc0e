"""Text laid out in terminal columns: East Asian wide characters take two columns, combining marks
none (tables line up after CJK text; Chinese help wraps at the terminal's width).

Does not: measure emoji sequences or tabs (the tables hold neither in their padded columns).
"""

from __future__ import annotations

import re
import unicodedata


def display_width(s: str) -> int:
    """Terminal columns of s: East Asian wide and fullwidth characters take two, combining marks none."""
    return sum(0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in s)


def ljust_display(s: str, width: int) -> str:
    """s padded with spaces to `width` terminal columns (so columns line up after CJK text)."""
    return s + " " * max(0, width - display_width(s))


def rjust_display(s: str, width: int) -> str:
    """s right-aligned in `width` terminal columns."""
    return " " * max(0, width - display_width(s)) + s


def wrap_columns(text: str, width: int) -> list[str]:
    """`text` in lines of at most `width` terminal columns (CJK characters two), broken at spaces,
    or between two wide characters (Chinese has no spaces between words)."""
    lines: list[str] = []
    line = ""
    for piece in re.findall(r"[\u2e80-\uffef]|[^\s\u2e80-\uffef]+|\s+", text):
        if piece.isspace():
            piece = " "
            if not line:
                continue
        if line and display_width(line + piece) > width:
            lines.append(line.rstrip())
            line = "" if piece == " " else piece
            continue
        line += piece
    if line.strip():
        lines.append(line.rstrip())
    return lines or [""]
