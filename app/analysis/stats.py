"""Counts for the stats pane: characters, bytes, tokens, their ratios, and
the histogram of token lengths in bytes."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.encoding import Encoding

MAX_HIST_BYTES = 32  # longer tokens are counted in the last bin


@dataclass(frozen=True)
class Stats:
    chars: int
    bytes: int
    tokens: int
    specials: int
    length_counts: np.ndarray   # length_counts[k]: tokens of k bytes (last bin: >= MAX_HIST_BYTES)

    @property
    def tokens_per_char(self) -> float:
        return self.tokens / self.chars if self.chars else 0.0

    @property
    def tokens_per_byte(self) -> float:
        return self.tokens / self.bytes if self.bytes else 0.0

    @property
    def bytes_per_token(self) -> float:
        return self.bytes / self.tokens if self.tokens else 0.0

    @property
    def mean_token_bytes(self) -> float:
        n = int(self.length_counts.sum())
        return float((self.length_counts * np.arange(self.length_counts.shape[0])).sum() / n) if n else 0.0


def compute(text: str, nbytes: int, enc: Encoding) -> Stats:
    lengths = (enc.byte_offsets[:, 1].astype(np.int64) - enc.byte_offsets[:, 0]) if len(enc) else np.zeros(0, np.int64)
    counts = np.bincount(np.minimum(lengths, MAX_HIST_BYTES), minlength=MAX_HIST_BYTES + 1)
    return Stats(len(text), nbytes, len(enc), int(enc.special_mask.sum()), counts)
