"""Anchors: the byte positions where a text can be cut and each side encoded alone, exactly.

An *anchor* is a byte position p of a text where text[p-1] is "\\n" and the character at p is
*stable*: an ASCII letter or a CJK unified ideograph (U+4E00-U+9FFF). For the pipelines
`local_at_anchors()` accepts, every stage is local at an anchor (the proof, stage by stage, is in
tokinspect.analysis.incremental's docstring, whose region re-encode rests on it):

- a chunk boundary is at every anchor, the chunks before p depend on text[:p + 1 char] and the
  chunks from p on on text[p:] alone, as if p were the text's start;
- NFC(text) = NFC(text[:p]) + NFC(text[p:]); no added token spans an anchor; BPE works chunk by
  chunk; the post-processor adds no token and ByteLevel neither adds a prefix space nor trims.

So a long text cut at anchors c_1 < ... < c_m encodes, piece by piece, to its own tokens: piece i is
text[c_i:c_{i+1}] plus the stable character at c_{i+1} (the one character a match before c_{i+1}
may look at), whose own tokens (that character encoded alone: from c_{i+1} on it is the whole
remaining text of the piece) are dropped again. `Tokenizer.encode_batch` and `encode_batch_ids`
let the engine cut a text that would otherwise keep one thread busy while the others idle (War and
Peace alone: 3.2 MB, one text) into pieces that its threads share (split_batch.py; the engine's
native/src/batch_cut.c follows this module's rule, stable_at and anchor_from); tests/test_split_batch.py
compares every result with the text's own encode.

Does not: encode (tokenizer.py does), or call Qt.
"""

from __future__ import annotations

import json
import threading
import weakref
from typing import Any, Protocol

import numpy as np

from .encoding import Encoding, Vocabulary


class Tokenizer(Vocabulary, Protocol):
    """What this module and split_batch.py need of a tokenizer.Tokenizer (named by a protocol:
    tokenizer.py imports them)."""

    _handle: Any

    @property
    def added_tokens(self) -> list[dict[str, object]]: ...

    def encode(self, text: str | bytes, add_special_tokens: bool = True, encoder: str = "bpe") -> Encoding: ...

    def encode_ids(self, text: str | bytes, add_special_tokens: bool = True, encoder: str = "bpe") -> np.ndarray: ...

LOCAL_ENCODERS = ("bpe", "rank")
FAST_SPLIT = "Split(regex) [fast path]"   # describe(): one of fastpat.c's three patterns
FAST_BYTELEVEL = "ByteLevel [fast path]"   # ByteLevel with its own regex: fastpat.c's GPT-2 pattern
NORMALIZERS_OK = ((), ("NFC",))

_LOCAL: weakref.WeakKeyDictionary[Tokenizer, bool] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def _pipeline_local(tok: Tokenizer) -> bool:
    d = json.loads(tok._handle.describe())
    if d.get("model") != "BPE" or tuple(d.get("normalizer") or ()) not in NORMALIZERS_OK:
        return False
    if list(d.get("pre_tokenizer") or []) not in ([FAST_SPLIT, "ByteLevel"], [FAST_BYTELEVEL]):
        return False
    if list(d.get("post_processor") or []) not in ([], ["ByteLevel"]):
        return False
    for t in tok.added_tokens:
        content = str(t.get("content", ""))
        if "\n" in content or "\r" in content or t.get("lstrip") or t.get("rstrip") or t.get("single_word"):
            return False
    # no prefix space, no token added by the post-processor
    for special in (False, True):
        enc = tok.encode("A", special, "bpe")
        if b"".join(tok.id_to_bytes(int(i)) or b"" for i in enc.ids) != b"A":
            return False
    # offsets not trimmed (ByteLevel's trim_offsets): the tokens' byte spans tile the text
    probe = " A  b\n\n c "
    spans = tok.encode(probe, True, "bpe").byte_offsets.astype(np.int64)
    return bool(spans.size) and spans[0, 0] == 0 and spans[-1, 1] == len(probe) and bool(
        (spans[1:, 0] == spans[:-1, 1]).all())


def local_at_anchors(tok: Tokenizer, encoder: str) -> bool:
    """Whether tok's pipeline, with this encoder, is local at every anchor (checked once per handle)."""
    if encoder not in LOCAL_ENCODERS:
        return False
    with _LOCK:
        local = _LOCAL.get(tok)
    if local is None:
        local = _pipeline_local(tok)
        with _LOCK:
            _LOCAL[tok] = local
    return local


def stable_at(data: bytes, p: int) -> int:
    """The byte length of the stable character at p (an ASCII letter or U+4E00-U+9FFF), else 0."""
    b = data[p]
    if b < 0x80:
        return 1 if (0x41 <= b <= 0x5A or 0x61 <= b <= 0x7A) else 0
    if 0xE4 <= b <= 0xE9 and p + 2 < len(data):
        cp = ((b & 0x0F) << 12) | ((data[p + 1] & 0x3F) << 6) | (data[p + 2] & 0x3F)
        if 0x4E00 <= cp <= 0x9FFF and (data[p + 1] & 0xC0) == 0x80 and (data[p + 2] & 0xC0) == 0x80:
            return 3
    return 0


def anchor_before(data: bytes, limit: int) -> int:
    """The last anchor p whose stable character ends at or before `limit`; 0 when there is none."""
    i = limit
    while True:
        nl = data.rfind(b"\n", 0, i)
        if nl < 0:
            return 0
        p = nl + 1
        if p < len(data):
            n = stable_at(data, p)
            if n and p + n <= limit:
                return p
        i = nl


def anchor_from(data: bytes, start: int) -> int:
    """The first anchor p with p - 1 >= start (its "\\n" at or after start); len(data) when none."""
    i = start
    while True:
        nl = data.find(b"\n", i)
        if nl < 0 or nl + 1 >= len(data):
            return len(data)
        if stable_at(data, nl + 1):
            return nl + 1
        i = nl + 1
