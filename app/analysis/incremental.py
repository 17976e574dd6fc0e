"""Re-encoding an edited text by its edited region only, with the same result as a full encode.

`reanalyze(tok, prev, text, ...)` returns the `Analysis` of `text` from the `Analysis` of the text
before the edit: the tokens before the edit's region and after it are the old ones (shifted), the
region between is encoded anew. `splice_range` says which token rows changed.

The rule (exact, not a heuristic). An *anchor* is a byte position p of a text where text[p-1] is
"\\n" and the character at p is *stable*: an ASCII letter or a CJK unified ideograph
(U+4E00–U+9FFF). For the pipelines `eligible()` accepts, every stage is local at an anchor:

- Pre-tokenizer: `Split` with one of the three patterns the engine's fast path recognizes (Qwen2,
  Llama-3/cl100k-style, GPT-2; native/src/fastpat.c spells them), then `ByteLevel` (no prefix
  space); or `ByteLevel` alone with its own regex (the GPT-2 pattern, on the fast path too). In
  each, the only alternatives that can consume a letter are a letter run whose optional one-character
  prefix excludes "\\r\\n" (`[^\\r\\n\\p{L}\\p{N}]?\\p{L}+`), or a letter run after an
  optional space (` ?\\p{L}+`), or a contraction that starts with "'"; the other alternatives consume
  no letter. So no match contains "\\n" followed by a letter: a chunk boundary is at every anchor.
  A match attempt that starts before p reads at most the character at p (greedy `\\s*`/`\\s+` stop
  there; `\\s+(?!\\S)` looks at it; nothing else reaches it), and none of the patterns has a
  look-behind or `^`, so the chunks before p depend on text[:p + 1 char] and the chunks from p on
  depend on text[p:] alone, as if p were the text's start (regex find_iter restarts where the
  previous match ended; HF tokenizers `Split` `Isolated`, tokenizers 0.23.3
  `pre_tokenizers/split.rs`).
- Normalizer: none, or NFC. "\\n" composes with nothing and the stable characters have canonical
  combining class 0 and never combine with what precedes them (UAX #15, "stable code points"), so
  NFC(text) = NFC(text[:p]) + NFC(text[p:]).
- Added tokens: matched before the normalizer, leftmost-longest (HF `AddedVocabulary`); none
  contains "\\r" or "\\n" and none strips or checks its neighbours (`lstrip`, `rstrip`,
  `single_word`), so none spans an anchor and each one's match depends on the text it covers.
- Model: BPE (merges, `bpe`, or ranks, `rank`) works chunk by chunk; the post-processor adds no
  token (`ByteLevel`, checked by encoding "A" with and without `add_special_tokens`), and ByteLevel's
  prefix space (the one rule that looks at the text's start) is off (the same check: "A" encodes to
  the bytes "A"), and so is its `trim_offsets` (checked: the tokens' byte spans tile a probe text).

Then for an edit that changes bytes [pre, end) of the new text: with p the last anchor whose
character lies before `pre` (else 0), q the first anchor of the new text with q - 1 >= end (the
"\\n" and the character at q unchanged), and q2 the next anchor after q (else the text's end), the
tokens of text[p:q2] encoded alone, cut at q, are the text's tokens between p and q; those before p
and from q on are the old ones. Anything else (Unigram, WordPiece, SentencePiece-style BPE over the
whole text, Metaspace's prepend, TemplateProcessing, other split patterns or normalizers, the
greedy and board encoders, texts with lone surrogates) takes a full encode. tests/test_incremental.py
checks the result against a full encode after thousands of random edits.

Does not: call Qt; keep state (the caller passes the previous Analysis).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import numpy as np

from ..core.anchors import LOCAL_ENCODERS, anchor_before, anchor_from, local_at_anchors
from ..core.encoding import Encoding
from ..core.tokenizer import Tokenizer
from .encoded import Analysis, byte_token_map, token_spans, utf8_bytes
from .text import Cancelled, encode, exact_byte_spans

INCREMENTAL_ENCODERS = LOCAL_ENCODERS
MIN_INCREMENTAL = 4_096   # bytes: below this a full encode is as quick


def eligible(tok: Tokenizer, encoder: str) -> bool:
    """Whether edits re-encode by region for this tokenizer and encoder (else: a full encode)."""
    return local_at_anchors(tok, encoder)


def _cut(byte_offsets: np.ndarray, p: int) -> int:
    """How many tokens start before byte p; -1 when one of them ends after p (p is no boundary)."""
    k = int(np.searchsorted(byte_offsets[:, 0], p, side="left"))
    return -1 if k and int(byte_offsets[k - 1, 1]) > p else k


def _chars(data: bytes, p: int) -> int:
    """Code points in data[:p] (p on a character boundary)."""
    if p == 0:
        return 0
    arr = np.frombuffer(data, dtype=np.uint8, count=p)
    return int(np.count_nonzero((arr & 0xC0) != 0x80))


@dataclass(frozen=True)
class Splice:
    """Token rows [first, old_end) of the previous analysis became rows [first, new_end); `encoded`:
    the bytes the engine encoded for it (the region, or the whole text)."""

    first: int
    old_end: int
    new_end: int
    encoded: int = -1


def edit_bytes(old: bytes, new: bytes) -> tuple[int, int, int]:
    """(pre, old_end, new_end): the bytes [pre, old_end) of old became [pre, new_end) of new."""
    n = min(len(old), len(new))
    a = np.frombuffer(old, dtype=np.uint8)
    b = np.frombuffer(new, dtype=np.uint8)
    diff = np.flatnonzero(a[:n] != b[:n])
    pre = int(diff[0]) if diff.size else n
    m = n - pre
    diff = np.flatnonzero(a[len(old) - m:][::-1] != b[len(new) - m:][::-1]) if m else diff[:0]
    suf = int(diff[0]) if diff.size else m
    return pre, len(old) - suf, len(new) - suf


def splice_range(old: Encoding, new: Encoding, delta_chars: int, delta_bytes: int) -> Splice:
    """The rows that differ between two encodings of texts that differ by one edit: the common head
    (same id and offsets) and the common tail (same id, offsets shifted by the edit) are excluded."""
    return _narrow(old, new, Splice(0, len(old), len(new)), delta_chars, delta_bytes)


def _u32(a: np.ndarray) -> np.ndarray:
    return a.astype("<u4", copy=False)


def splice_encoding(tok: Tokenizer, prev: Encoding, prev_data: bytes, prev_chars: int, text: str, data: bytes, *,
                    encoder: str, add_special_tokens: bool) -> tuple[Encoding, Splice] | None:
    """The encoding of `text` from `prev` (the encoding of prev_data, prev_chars code points) by
    re-encoding the edited region;
    None when the rule cannot place the cut (the caller then encodes in full)."""
    pre, old_end, new_end = edit_bytes(prev_data, data)
    delta_b = len(data) - len(prev_data)
    p = anchor_before(data, pre)
    q = anchor_from(data, max(new_end, p + 1))
    q2 = anchor_from(data, q) if q < len(data) else len(data)
    q_old = q - delta_b
    # tokens in order; each lies inside its chunk, in the original text's bytes (the normalizer's
    # alignment maps a chunk boundary at an anchor to the anchor itself)
    left = _cut(prev.byte_offsets, p)
    right = _cut(prev.byte_offsets, q_old)
    if left < 0 or right < 0:
        return None
    window = data[p:q2].decode("utf-8")
    w = encode(tok, window, encoder=encoder, add_special_tokens=add_special_tokens)
    keep = _cut(w.byte_offsets, q - p)
    if keep < 0:
        return None
    p_chars = _chars(data, p)
    delta_c = len(text) - prev_chars     # every character after the edit moves by this much
    shift_w = np.array([p_chars, p_chars], dtype=np.int64)
    ids = np.concatenate([prev.ids[:left], w.ids[:keep], prev.ids[right:]])
    offsets = np.concatenate([prev.offsets[:left].astype(np.int64), w.offsets[:keep].astype(np.int64) + shift_w,
                              prev.offsets[right:].astype(np.int64) + delta_c])
    byte_offsets = np.concatenate([prev.byte_offsets[:left].astype(np.int64),
                                   w.byte_offsets[:keep].astype(np.int64) + p,
                                   prev.byte_offsets[right:].astype(np.int64) + delta_b])
    special = np.concatenate([prev.special_mask[:left], w.special_mask[:keep], prev.special_mask[right:]])
    enc = Encoding(_u32(ids), _u32(offsets.reshape(-1, 2)), _u32(byte_offsets.reshape(-1, 2)),
                   special.astype(np.uint8, copy=False), tok)
    # the rows outside [left, right) / [left, left + keep) are the old ones; narrow to those that differ
    sp = _narrow(prev, enc, Splice(left, right, left + keep), delta_c, delta_b)
    return enc, Splice(sp.first, sp.old_end, sp.new_end, q2 - p)


def _narrow(old: Encoding, new: Encoding, sp: Splice, delta_chars: int, delta_bytes: int) -> Splice:
    """sp without its leading rows that are equal and its trailing rows that are equal once shifted."""
    a, b = sp.first, min(sp.old_end, sp.new_end)
    k = a
    if b > a:
        same = ((old.ids[a:b] == new.ids[a:b]) & (old.offsets[a:b] == new.offsets[a:b]).all(axis=1)
                & (old.byte_offsets[a:b] == new.byte_offsets[a:b]).all(axis=1))
        bad = np.flatnonzero(~same)
        k = a + (int(bad[0]) if bad.size else b - a)
    m = min(sp.old_end, sp.new_end) - k
    t = 0
    if m > 0:
        oi = slice(sp.old_end - m, sp.old_end)
        ni = slice(sp.new_end - m, sp.new_end)
        same = ((old.ids[oi] == new.ids[ni])
                & (old.offsets[oi].astype(np.int64) + delta_chars == new.offsets[ni]).all(axis=1)
                & (old.byte_offsets[oi].astype(np.int64) + delta_bytes == new.byte_offsets[ni]).all(axis=1))[::-1]
        bad = np.flatnonzero(~same)
        t = int(bad[0]) if bad.size else m
    return Splice(k, sp.old_end - t, sp.new_end - t)


def reanalyze(tok: Tokenizer, prev: Analysis | None, text: str, generation: int, *, encoder: str = "bpe",
              add_special_tokens: bool = True, cancel: threading.Event | None = None) -> tuple[Analysis, Splice | None]:
    """The Analysis of `text`, by region from `prev` when the pipeline allows it, else in full; and
    the token rows that changed from `prev` (None: no previous analysis of the same kind)."""
    t0 = time.perf_counter()
    same_kind = (prev is not None and prev.encoder == encoder and prev.encoding._tokenizer is tok
                 and prev.add_special_tokens == add_special_tokens)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:   # lone surrogates: a full encode (it handles them)
        data = utf8_bytes(text)
        same_kind = False
    got = None
    if same_kind and prev is not None and len(data) >= MIN_INCREMENTAL and eligible(tok, encoder):
        got = splice_encoding(tok, prev.encoding, prev.data, len(prev.text), text, data, encoder=encoder,
                              add_special_tokens=add_special_tokens)
    if got is not None:
        enc, splice = got
    else:
        enc = encode(tok, text, encoder=encoder, add_special_tokens=add_special_tokens)
        if same_kind and prev is not None:
            sp = splice_range(prev.encoding, enc, len(text) - len(prev.text), len(data) - len(prev.data))
            splice = Splice(sp.first, sp.old_end, sp.new_end, len(data))
        else:
            splice = None
    if cancel is not None and cancel.is_set():
        raise Cancelled()
    spans = token_spans(text, data, enc)
    exact = exact_byte_spans(tok, enc, spans.split)
    btok = byte_token_map(len(data), exact)
    a = Analysis(generation, text, data, enc, spans, btok, exact, encoder, None, time.perf_counter() - t0,
                 add_special_tokens=add_special_tokens)
    return a, splice
