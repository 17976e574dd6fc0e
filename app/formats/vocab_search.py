"""Vocabulary search: by text, by id, or by hex bytes.

A query of digits (or "#123") is an id; "0x..." or space-separated hex
pairs ("e4 bd a0") are bytes; anything else is text, matched as UTF-8
bytes inside each token's real bytes and inside its stored piece. The
byte strings of all tokens are read once per tokenizer (~30 ms for 151k).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..core.tokenizer import Tokenizer

MAX_RESULTS = 5000
_HEX = re.compile(r"^(?:0x)?([0-9a-fA-F]{2}(?:[\s:]?[0-9a-fA-F]{2})*)$")


@dataclass(frozen=True)
class Query:
    kind: str           # "id", "bytes", "text", "all"
    value: object


def parse(q: str) -> Query:
    s = q.strip()
    if not s:
        return Query("all", None)
    if s.startswith("#") and s[1:].isdigit():
        return Query("id", int(s[1:]))
    if s.isdigit():
        return Query("id", int(s))
    m = _HEX.match(s)
    if m and (s.startswith("0x") or " " in s or ":" in s):
        return Query("bytes", bytes.fromhex(re.sub(r"[\s:]", "", m.group(1))))
    return Query("text", s)


class VocabIndex:
    """The token bytes and pieces of one tokenizer, for searching."""

    def __init__(self, tok: Tokenizer) -> None:
        self.tok = tok
        n = tok.vocab_size
        self.bytes: list[bytes] = [tok.id_to_bytes(i) or b"" for i in range(n)]
        self.pieces: list[str] = [tok.id_to_token(i) or "" for i in range(n)]

    def __len__(self) -> int:
        return len(self.bytes)

    def search(self, q: str, limit: int = MAX_RESULTS) -> np.ndarray:
        """Ids matching the query, shortest tokens first for text and bytes."""
        query = parse(q)
        n = len(self.bytes)
        if query.kind == "all":
            return np.arange(min(n, limit), dtype=np.int64)
        if query.kind == "id":
            i = int(query.value)  # type: ignore[call-overload]
            return np.array([i] if 0 <= i < n else [], dtype=np.int64)
        if query.kind == "bytes":
            needle = query.value
            hits = [i for i, b in enumerate(self.bytes) if needle in b]  # type: ignore[operator]
        else:
            text = str(query.value)
            needle_b = text.encode("utf-8")
            hits = [i for i, (b, p) in enumerate(zip(self.bytes, self.pieces)) if needle_b in b or text in p]
        hits.sort(key=lambda i: (len(self.bytes[i]), i))
        return np.array(hits[:limit], dtype=np.int64)
