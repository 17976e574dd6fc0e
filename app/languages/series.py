"""A series of the report: one tokenizer with one encoder, as a picklable spec that every worker
(a local process, a `datasets` map worker, a Ray task) loads the same way.

`source` is a tokenizer file or an embedded default ("qwen3", "qwen3.5"); `fingerprint` is the
file's sha256 (the default's rank file's), so a cached result of an older file is never reused.

Does not: count anything (counting.py does).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..core.defaults import qwen_tiktoken_path
from ..core.tokenizer import DEFAULTS, ENCODERS, Tokenizer, file_sha256

GENERIC_NAMES = ("tokenizer.json", "tokenizer.model", "vocab.json", "vocab.bin", "tokenizer.tiktoken")
BYTE_PIECE = re.compile(r"<0x[0-9A-Fa-f]{2}>")   # SentencePiece / HF byte-fallback pieces


@dataclass(frozen=True)
class Series:
    source: str            # a path, or a key of DEFAULTS
    encoder: str = "bpe"
    preset: str | None = None
    fingerprint: str = ""

    @property
    def label(self) -> str:
        """"Qwen3", "phi-3-mini/tokenizer.json" (a generic file name gets its folder's), "Qwen3 [kestrel-v2]"."""
        if self.source in DEFAULTS:
            name = DEFAULTS[self.source][0].split(" (")[0]
        else:
            p = Path(self.source)
            name = f"{p.parent.name}/{p.name}" if p.name in GENERIC_NAMES and p.parent.name else p.name
        return name if self.encoder == "bpe" else f"{name} [{self.encoder}]"


def make_series(source: str, encoder: str = "bpe", preset: str | None = None) -> Series:
    """Checks the source and encoder and fingerprints the file (the tokenizer loads on first use)."""
    if encoder not in ENCODERS:
        raise ValueError(f"unknown encoder {encoder!r}; one of {', '.join(ENCODERS)}")
    if source in DEFAULTS:
        path = Tokenizer.default(source).path
        assert path is not None
        return Series(source, encoder, None, file_sha256(path))
    p = Path(source)
    if not p.is_file():
        raise ValueError(f"{source}: no such tokenizer file (or one of the embedded: {', '.join(DEFAULTS)})")
    for key in DEFAULTS:    # an embedded rank file named by its path is that default (its preset and tokens)
        if preset is None and p.resolve() == qwen_tiktoken_path(key).resolve():
            return make_series(key, encoder)
    return Series(str(p.resolve()), encoder, preset, file_sha256(p))


@functools.lru_cache(maxsize=16)
def load(s: Series) -> Tokenizer:
    """The series' tokenizer, loaded once per process (handles are read-only once loaded)."""
    tok = Tokenizer.default(s.source) if s.source in DEFAULTS else Tokenizer.from_file(s.source, preset=s.preset)
    tok.encode("x", add_special_tokens=False, encoder=s.encoder)   # the encoder's index, built now
    return tok


@functools.lru_cache(maxsize=16)
def masks(s: Series) -> tuple[np.ndarray, np.ndarray]:
    """(is byte fallback, is <unk>) for every id of the series' vocabulary.

    A byte-fallback piece is `<0xXX>` (SentencePiece's byte pieces, HF BPE's byte_fallback); an
    unknown is a SentencePiece piece of type "unknown" or the piece `<unk>`.
    """
    tok = load(s)
    n = tok.vocab_size
    fallback = np.zeros(n + 1, dtype=bool)
    unk = np.zeros(n + 1, dtype=bool)
    for i in range(n):
        piece = tok.id_to_token(i)
        if piece is None:
            continue
        if BYTE_PIECE.fullmatch(piece):
            fallback[i] = True
        info = tok.piece_info(i)
        if piece == "<unk>" or (info is not None and info[1] == "unknown"):
            unk[i] = True
    return fallback, unk
