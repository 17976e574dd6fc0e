"""A batch whose long texts are cut at anchors, so that the engine's threads share one long text.

The engine hands whole texts to its threads (native/src/batch.c): a batch of one 3.2 MB novel ran on
one thread whatever `threads` said (2 threads / 1 on War and Peace: 0.93x). `plan()` cuts each text
long enough to unbalance the threads at anchors (anchors.py: where each side encodes alone to the
text's own tokens) into pieces of about `target` bytes; `join_ids` / `join_encodings` put each text's
pieces back together, dropping each piece's lookahead character's tokens and shifting the offsets.
A piece whose tail is not what the rule says (never seen; the check is cheap) makes that text's
result come from a whole encode instead.

Does not: encode (the Tokenizer passes the pieces to the engine), or cut a text the pipeline is not
local for (anchors.local_at_anchors).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .anchors import Tokenizer, cut_points, local_at_anchors, stable_at
from .encoding import Encoding

SPLIT_MIN_BYTES = 1 << 18   # no piece is made smaller than this: a thread's start costs more
PIECES_PER_THREAD = 2       # pieces of total / (threads * 2): longest-first hand-out evens the rest


@dataclass
class Plan:
    """pieces: what the engine encodes; ranges[i]: text i's pieces; per piece: its byte start in
    its text (shift), the bytes it keeps (keep: up to the next cut) and its lookahead character."""
    pieces: list[str | bytes] = field(default_factory=list)
    ranges: list[tuple[int, int]] = field(default_factory=list)
    shift: list[int] = field(default_factory=list)
    keep: list[int] = field(default_factory=list)
    tail: list[bytes] = field(default_factory=list)


def _utf8(text: str | bytes) -> bytes | None:
    """text's UTF-8 bytes, or None (lone surrogates, invalid UTF-8: such a text is not cut)."""
    try:
        if isinstance(text, str):
            return text.encode("utf-8")
        text.decode("utf-8")
        return bytes(text)
    except UnicodeError:
        return None


def plan(tok: Tokenizer, texts: list[str | bytes], encoder: str, threads: int) -> Plan | None:
    """The pieces for `threads` threads, or None when no text is worth cutting."""
    if threads < 2 or not texts:
        return None
    total = sum(len(t) for t in texts)
    target = max(SPLIT_MIN_BYTES, total // (threads * PIECES_PER_THREAD) + 1)
    if max(len(t) for t in texts) < 2 * target or not local_at_anchors(tok, encoder):
        return None
    p = Plan()
    cut_any = False
    for text in texts:
        lo = len(p.pieces)
        data = _utf8(text) if len(text) >= 2 * target else None
        # len(text) is the measure of total and target (characters of a str): a text the size of the
        # batch gets threads * PIECES_PER_THREAD pieces, not one more for a rounding
        cuts = cut_points(data, max(2, round(len(text) / target))) if data is not None else []
        if data is None or not cuts:
            p.pieces.append(text)
            p.shift.append(0)
            p.keep.append(-1)
            p.tail.append(b"")
        else:
            cut_any = True
            bounds = [0, *cuts, len(data)]
            for s, e in zip(bounds, bounds[1:]):
                n = stable_at(data, e) if e < len(data) else 0
                p.pieces.append(data[s:e + n])
                p.shift.append(s)
                p.keep.append(e - s)
                p.tail.append(data[e:e + n])
        p.ranges.append((lo, len(p.pieces)))
    return p if cut_any else None


def _tail_ids(tok: Tokenizer, tails: list[bytes], add_special_tokens: bool, encoder: str) -> dict[bytes, np.ndarray]:
    """Each lookahead character's own ids (it is the whole of its piece's last chunk)."""
    return {t: tok.encode_ids(t, add_special_tokens, encoder) for t in set(tails) if t}


def _frozen(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


def join_ids(tok: Tokenizer, p: Plan, arrs: list[np.ndarray], texts: list[str | bytes], add_special_tokens: bool,
             encoder: str) -> list[np.ndarray]:
    """Each text's ids from its pieces' ids."""
    tails = _tail_ids(tok, p.tail, add_special_tokens, encoder)
    out: list[np.ndarray] = []
    for i, (lo, hi) in enumerate(p.ranges):
        if hi - lo == 1 and p.keep[lo] < 0:
            out.append(arrs[lo])
            continue
        parts, ok = [], True
        for j in range(lo, hi):
            a = arrs[j]
            if p.tail[j]:
                t = tails[p.tail[j]]
                ok = ok and len(a) >= len(t) and bool((a[len(a) - len(t):] == t).all())
                a = a[:len(a) - len(t)]
            parts.append(a)
        out.append(_frozen(np.concatenate(parts)) if ok else tok.encode_ids(texts[i], add_special_tokens, encoder))
    return out


def join_encodings(tok: Tokenizer, p: Plan, encs: list[Encoding], texts: list[str | bytes],
                   add_special_tokens: bool, encoder: str) -> list[Encoding]:
    """Each text's Encoding from its pieces' Encodings (byte and character offsets shifted), written
    once into arrays of the text's size (a shifted copy then a concatenation moved War and Peace's
    16 MB of arrays twice: 16 ms of a 2-thread batch whose engine part took 26)."""
    tails = _tail_ids(tok, p.tail, add_special_tokens, encoder)
    out: list[Encoding] = []
    for i, (lo, hi) in enumerate(p.ranges):
        if hi - lo == 1 and p.keep[lo] < 0:
            out.append(encs[lo])
            continue
        kept: list[int] = []
        for j in range(lo, hi):
            e = encs[j]
            n = len(e) - (len(tails[p.tail[j]]) if p.tail[j] else 0)
            # the kept tokens end exactly at the cut and the dropped ones start there
            if not (n >= 0 and (n == 0 or int(e.byte_offsets[n - 1, 1]) == p.keep[j]) and (
                    n == len(e) or int(e.byte_offsets[n, 0]) == p.keep[j])):
                break
            kept.append(n)
        if len(kept) < hi - lo:
            out.append(tok.encode(texts[i], add_special_tokens, encoder))
            continue
        total = sum(kept)
        ids = np.empty(total, dtype="<u4")
        offs = np.empty((total, 2), dtype="<u4")
        chars = np.empty((total, 2), dtype="<u4")
        special = np.empty(total, dtype=np.uint8)
        at, char_shift = 0, 0
        for j, n in zip(range(lo, hi), kept):
            e, end = encs[j], at + n
            ids[at:end] = e.ids[:n]
            np.add(e.byte_offsets[:n], np.uint32(p.shift[j]), out=offs[at:end])
            np.add(e.offsets[:n], np.uint32(char_shift), out=chars[at:end])
            special[at:end] = e.special_mask[:n]
            if n:   # its last kept token ends at the cut: its character end is the kept bytes' count
                char_shift += int(e.offsets[n - 1, 1])
            else:
                piece = p.pieces[j]   # a cut text's pieces are UTF-8 bytes (plan)
                assert isinstance(piece, bytes)
                char_shift += len(piece[:p.keep[j]].decode("utf-8"))
            at = end
        out.append(Encoding(_frozen(ids), _frozen(chars), _frozen(offs), _frozen(special), tok))
    return out
