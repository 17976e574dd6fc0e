"""Where two segmentations of the same text diverge, over a corpus.

One tokenizer with two encoders (e.g. `bpe` against the board's `greedy`),
or two tokenizers: each line is encoded by both sides, aligned by bytes
(compare.py), and the divergent spans are counted by their text and both
segmentations.

Does not: classify the cause (the board diff does that).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from ..core.encoding import Encoding
from ..core.tokenizer import Tokenizer
from .compare import compare
from .encoded import split_char_mask
from .text import exact_byte_spans


@dataclass(frozen=True)
class Side:
    tokenizer: Tokenizer
    encoder: str = "bpe"

    def encode(self, text: str) -> Encoding:
        return self.tokenizer.encode(text, add_special_tokens=False, encoder=self.encoder)


def _spans(side: Side, enc: Encoding, raw: bytes) -> np.ndarray:
    """Each token's own bytes (a token that splits a character gets its part)."""
    return exact_byte_spans(side.tokenizer, enc, split_char_mask(raw, enc.byte_offsets))


def _pieces(spans: np.ndarray, lo: int, hi: int, raw: bytes) -> tuple[str, ...]:
    out = []
    for k in range(lo, hi):
        s, e = spans[k].tolist()
        out.append(raw[s:e].decode("utf-8", errors="backslashreplace"))
    return tuple(out)


@dataclass
class Report:
    lines: int = 0
    agree: int = 0
    tokens_a: int = 0
    tokens_b: int = 0
    spans: Counter[tuple[str, tuple[str, ...], tuple[str, ...]]] = field(default_factory=Counter)

    @property
    def agree_share(self) -> float:
        return self.agree / self.lines if self.lines else 1.0

    def most_common(self, n: int = 20) -> list[tuple[tuple[str, tuple[str, ...], tuple[str, ...]], int]]:
        return self.spans.most_common(n)


def divergence(a: Side, b: Side, lines: Iterable[str]) -> Report:
    rep = Report()
    for line in lines:
        if not line:
            continue
        ea, eb = a.encode(line), b.encode(line)
        rep.lines += 1
        rep.tokens_a += len(ea)
        rep.tokens_b += len(eb)
        raw = line.encode("utf-8")
        sa, sb = _spans(a, ea, raw), _spans(b, eb, raw)
        cmp = compare(ea, eb, sa, sb)
        if cmp.same:
            rep.agree += 1
            continue
        for seg in cmp.divergent:
            s, e = seg.byte_span
            text = raw[s:e].decode("utf-8", errors="backslashreplace")
            rep.spans[(text, _pieces(sa, *seg.a, raw), _pieces(sb, *seg.b, raw))] += 1
    return rep
