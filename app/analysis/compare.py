"""Two segmentations of the same bytes, aligned.

Both encodings cover the same UTF-8 text. A boundary both put a token edge
at is a common boundary; between two consecutive common boundaries the two
sides either agree (one token each, the same bytes) or diverge. Ids are not
compared: two tokenizers number the same piece differently.

Does not handle: encodings of different texts (e.g. different
normalizations that change the bytes); spans are in original bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.encoding import Encoding


@dataclass(frozen=True)
class Segment:
    byte_span: tuple[int, int]
    a: tuple[int, int]          # token index range in A
    b: tuple[int, int]          # token index range in B


@dataclass(frozen=True)
class Comparison:
    tokens_a: int
    tokens_b: int
    divergent: list[Segment]
    divergent_bytes: int
    same_tokens: int            # tokens with identical byte spans on both sides

    @property
    def same(self) -> bool:
        return not self.divergent


def compare(a: Encoding, b: Encoding, spans_a: np.ndarray | None = None,
            spans_b: np.ndarray | None = None) -> Comparison:
    """Aligns A and B by bytes and lists their divergent spans.

    spans_a/spans_b: each token's own bytes (Analysis.exact_bytes); by default
    the encodings' byte_offsets, which give a character split by tokens whole
    to every piece of it (such pieces then count as divergent).
    """
    ba = (a.byte_offsets if spans_a is None else spans_a).astype(np.int64)
    bb = (b.byte_offsets if spans_b is None else spans_b).astype(np.int64)
    if len(a) == 0 or len(b) == 0:
        segs = [] if len(a) == len(b) else [Segment((0, 0), (0, len(a)), (0, len(b)))]
        return Comparison(len(a), len(b), segs, 0, 0)
    common = np.intersect1d(np.unique(ba.reshape(-1)), np.unique(bb.reshape(-1)))
    sa, sb = ba[:, 0], bb[:, 0]
    ia = np.searchsorted(sa, common, side="left")
    ib = np.searchsorted(sb, common, side="left")
    # tokens per segment on each side; a segment agrees when both have exactly one token
    na, nb = np.diff(ia), np.diff(ib)
    # the last common boundary closes the text: tokens from there on (zero-width tails) count too
    agree = (na == 1) & (nb == 1)
    same_tokens = int(agree.sum())
    bad = np.nonzero(~agree & ((na > 0) | (nb > 0)))[0]
    # subtle: tokens that carry only part of a character can have empty exact spans, so several tokens
    # sit between two common boundaries; the same spans and the same bytes on both sides are the same split
    same = [k for k in bad if na[k] == nb[k] and np.array_equal(ba[ia[k]:ia[k + 1]], bb[ib[k]:ib[k + 1]])
            and a.token_bytes[ia[k]:ia[k + 1]] == b.token_bytes[ib[k]:ib[k + 1]]]
    if same:
        same_tokens += int(na[same].sum())
        bad = np.setdiff1d(bad, same)
    segs = [Segment((int(common[k]), int(common[k + 1])), (int(ia[k]), int(ia[k + 1])), (int(ib[k]), int(ib[k + 1])))
            for k in bad]
    tail_a, tail_b = len(a) - int(ia[-1]), len(b) - int(ib[-1])
    if tail_a != tail_b:
        end = int(common[-1])
        segs.append(Segment((end, end), (int(ia[-1]), len(a)), (int(ib[-1]), len(b))))
    div_bytes = sum(s.byte_span[1] - s.byte_span[0] for s in segs)
    return Comparison(len(a), len(b), segs, div_bytes, same_tokens)
