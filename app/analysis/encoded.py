"""One encoded text as the panes index it: `Analysis` and its `TokenSpans`, plain arrays.

`TokenSpans` holds the token spans in the units the panes need (UTF-16 code units for Qt's text
positions, the special mask, the tokens that split a UTF-8 character); `Analysis` is everything
the views show about one text (its bytes, encoding, spans, byte -> token map, optional trace).
The helpers here derive those arrays from an Encoding with numpy alone.

Does not: encode or trace (analysis/text.py's `analyze` does, in a worker), or call the engine:
the views may hold these records.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..core.encoding import Encoding
from ..core.trace import Trace


@dataclass(frozen=True)
class TokenSpans:
    """Token spans in a text, in the units the panes need.

    u16: (n, 2) spans in UTF-16 code units (Qt text positions).
    special: 1 for special tokens. split: True when the token starts or ends
    inside a UTF-8 character. marks: (m, 2) UTF-16 ranges to highlight
    (compare: divergent spans).
    """

    u16: np.ndarray
    special: np.ndarray
    split: np.ndarray
    marks: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), dtype=np.int64))

    def __len__(self) -> int:
        return int(self.u16.shape[0])

    def visible(self, start: int, end: int) -> tuple[int, int]:
        """Token index range [i0, i1) overlapping UTF-16 positions [start, end)."""
        i0 = int(np.searchsorted(self.u16[:, 1], start, side="right"))
        i1 = int(np.searchsorted(self.u16[:, 0], end, side="left"))
        return i0, max(i0, i1)

    def at(self, pos: int) -> int:
        """The token covering UTF-16 position pos (the one ending there if none starts there); -1 if none."""
        n = len(self)
        if n == 0:
            return -1
        i = int(np.searchsorted(self.u16[:, 0], pos, side="right")) - 1
        if i < 0:
            return 0
        if pos >= int(self.u16[i, 1]) and i + 1 < n:
            return i + 1 if int(self.u16[i + 1, 0]) <= pos else i
        return i


@dataclass(frozen=True)
class Analysis:
    generation: int
    text: str
    data: bytes                 # the UTF-8 bytes that were encoded
    encoding: Encoding
    spans: TokenSpans
    byte_token: np.ndarray      # token index per byte of `data` (-1: no token), by each token's own bytes
    exact_bytes: np.ndarray     # (n, 2) each token's own bytes (byte_offsets give a split character whole)
    encoder: str
    trace: Trace | None
    seconds: float
    add_special_tokens: bool = True

    def __len__(self) -> int:
        return len(self.encoding)


def utf8_bytes(text: str) -> bytes:
    return text.encode("utf-8", errors="surrogatepass")


def utf16_spans(text: str, char_offsets: np.ndarray, data: bytes | None = None) -> np.ndarray:
    """Code point offsets -> UTF-16 offsets (characters above U+FFFF count twice); `data`, text's
    UTF-8 bytes when the caller has them, tells quickly whether any character does."""
    if char_offsets.size == 0:
        return np.zeros((0, 2), dtype=np.int64)
    if text.isascii() or (data is not None and len(data) and int(np.frombuffer(data, dtype=np.uint8).max()) < 0xF0):
        return char_offsets.astype(np.int64)   # no 4-byte UTF-8 sequence: no character counts twice
    cps = np.frombuffer(text.encode("utf-32-le", errors="surrogatepass"), dtype="<u4")
    extra = np.zeros(cps.shape[0] + 1, dtype=np.int64)
    np.cumsum(cps >= 0x10000, out=extra[1:])
    offs = np.minimum(char_offsets.astype(np.int64), cps.shape[0])
    return offs + extra[offs]


def split_char_mask(data: bytes, byte_offsets: np.ndarray) -> np.ndarray:
    """True for tokens that split a UTF-8 character.

    subtle: the engine gives such tokens the whole character's span, so they
    show up as neighbors whose spans overlap, not as spans inside a character.
    """
    del data
    n = byte_offsets.shape[0]
    if n == 0:
        return np.zeros(0, dtype=bool)
    s, e = byte_offsets[:, 0].astype(np.int64), byte_offsets[:, 1].astype(np.int64)
    nonempty = e > s
    out = np.zeros(n, dtype=bool)
    overlap = (s[1:] < e[:-1]) & nonempty[1:] & nonempty[:-1]
    out[1:] |= overlap
    out[:-1] |= overlap
    return out


def byte_token_map(nbytes: int, byte_offsets: np.ndarray) -> np.ndarray:
    """Token index of every byte (the last token covering it); -1 where none does."""
    out = np.full(nbytes, -1, dtype=np.int64)
    if byte_offsets.size == 0:
        return out
    starts = byte_offsets[:, 0].astype(np.int64)
    ends = np.minimum(byte_offsets[:, 1].astype(np.int64), nbytes)
    lengths = np.maximum(ends - starts, 0)
    if int(lengths.sum()) == nbytes:
        nz = lengths > 0
        s_nz, e_nz = starts[nz], ends[nz]
        if s_nz.size and s_nz[0] == 0 and (s_nz[1:] == e_nz[:-1]).all():
            # the tokens tile the bytes in order (the usual case): one repeat
            return np.repeat(np.arange(starts.shape[0], dtype=np.int64), lengths)
    idx = np.repeat(np.arange(starts.shape[0]), lengths)
    # positions: start of each token + 0..len-1
    firsts = np.repeat(starts, lengths)
    within = np.arange(idx.shape[0]) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    out[firsts + within] = idx
    return out


def token_spans(text: str, data: bytes, enc: Encoding) -> TokenSpans:
    return TokenSpans(utf16_spans(text, enc.offsets, data), enc.special_mask,
                      split_char_mask(data, enc.byte_offsets))
