"""How a token's bytes are written for people: the GPT-2 byte-level characters and visible whitespace.

`gpt2_byte_chars()` is the byte-level mapping byte-level vocabularies store pieces in (the
printable character standing for each byte: "Ġ" for 0x20); `visible()` makes whitespace visible
in a label (space ·, tab →, newline ↵).

Does not: decode or look up pieces (the tokenizer does); plain functions, no imports.
"""

from __future__ import annotations

_BYTE_TO_CHAR: list[str] = []


def gpt2_byte_chars() -> list[str]:
    """The GPT-2 byte-level mapping: the printable character standing for each byte."""
    if _BYTE_TO_CHAR:
        return _BYTE_TO_CHAR
    keep = list(range(0x21, 0x7F)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    table = {b: chr(b) for b in keep}
    n = 0
    for b in range(256):
        if b not in table:
            table[b] = chr(256 + n)
            n += 1
    _BYTE_TO_CHAR.extend(table[b] for b in range(256))
    return _BYTE_TO_CHAR


def visible(s: str) -> str:
    """Whitespace made visible: space ·, tab →, newline ↵."""
    return s.replace(" ", "·").replace("\t", "→").replace("\r", "␍").replace("\n", "↵")
