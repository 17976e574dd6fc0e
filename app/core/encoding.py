"""One encoded text as plain arrays: `Encoding`.

The engine returns four buffers per encode (ids, byte offsets, character
offsets, special mask); `Encoding.from_native` wraps them as read-only numpy
views without copying. An encoding keeps the tokenizer that made it only to
look up pieces (`tokens`, `token_bytes`), through what `Vocabulary`
names.

Does not: load, encode or call the engine (core/tokenizer.py does), nor
import anything above it: the trace data (core/trace.py) builds on this
module alone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Protocol

import numpy as np


class PieceLookup(Protocol):
    """Each id's piece as stored, and its real bytes (None: no such id)."""

    def id_to_token(self, id: int) -> str | None: ...

    def id_to_bytes(self, id: int) -> bytes | None: ...


class Vocabulary(PieceLookup, Protocol):
    """What an Encoding needs of its tokenizer: its piece look-ups, and the native handle's, which
    `tokens` and `token_bytes` call per token (half the time of going through the tokenizer's)."""

    _handle: PieceLookup


def _arrays(raw: tuple[bytes, bytes, bytes, bytes]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    ids, offsets, char_offsets, special = raw
    return (
        np.frombuffer(ids, dtype="<u4"),
        np.frombuffer(offsets, dtype="<u4").reshape(-1, 2),
        np.frombuffer(char_offsets, dtype="<u4").reshape(-1, 2),
        np.frombuffer(special, dtype=np.uint8),
    )


@dataclass(frozen=True)
class Encoding:
    """One encoded text. Arrays are read-only numpy views.

    ids: token ids (uint32). offsets: (n, 2) character offsets into the
    original text (code points, HF semantics). byte_offsets: (n, 2) UTF-8
    byte offsets. special_mask: 1 for a special added token matched in the
    text or added by the post-processor template; never for the model's own
    output, even when its id is also a special token's.
    """

    ids: np.ndarray
    offsets: np.ndarray
    byte_offsets: np.ndarray
    special_mask: np.ndarray
    _tokenizer: Vocabulary = field(repr=False, compare=False)
    # a Unigram model's unknowns: {token index: the text it covers}, computed on first use of `tokens`
    # (given the encoding, not closed over it: no cycle, so refcounting alone frees an encoding)
    _surface: Callable[[Encoding], dict[int, str]] | None = field(default=None, repr=False, compare=False)

    @classmethod
    def from_native(cls, raw: tuple[bytes, bytes, bytes, bytes], tok: Vocabulary,
                    surface: Callable[[Encoding], dict[int, str]] | None = None) -> Encoding:
        """The engine's four buffers (ids, byte offsets, character offsets, special mask) as an Encoding.
        `surface`, given the encoding, names the tokens whose HF string is the text they cover."""
        ids, offs, char_offs, special = _arrays(raw)
        return cls(ids, char_offs, offs, special, tok, surface)

    def __len__(self) -> int:
        return int(self.ids.shape[0])

    @cached_property
    def tokens(self) -> list[str]:
        """The token strings as HF gives them: the vocabulary's (e.g. "Ġapple"), and for a Unigram
        model's unknown the text it covers (HF and sentencepiece do so), not "<unk>"."""
        get = self._tokenizer._handle.id_to_token
        out = [get(int(i)) or "" for i in self.ids]
        if self._surface is not None:
            for k, text in self._surface(self).items():
                out[k] = text
        return out

    @cached_property
    def token_bytes(self) -> list[bytes]:
        """The real bytes of each token (byte-level mapping undone)."""
        get = self._tokenizer._handle.id_to_bytes
        return [get(int(i)) or b"" for i in self.ids]
