"""What lets the engine cut a batch's long texts at anchors, so that its threads share one long text.

The engine hands whole texts to its threads (native/src/batch.c): a batch of one 3.2 MB novel ran on
one thread whatever `threads` said (2 threads / 1 on War and Peace: 0.93x). With `cut_args()`'s
arguments the engine (native/src/batch_cut.c) cuts each text long enough to unbalance the threads at
anchors (anchors.py: where each side encodes alone to the text's own tokens) into pieces of about
total / (threads * PIECES_PER_THREAD) bytes, never under SPLIT_MIN_BYTES, and joins the pieces' tokens
into each text's own encoding (each join checked; a text whose join does not hold is encoded whole).
The cutting and joining moved there from this module: in Python they copied War and Peace's bytes
twice and its ids twice, 1.2 ms of an 8.4 ms two-thread batch.

Does not: encode, or decide what a cut is (the engine does); it says only whether this pipeline may be
cut (anchors.local_at_anchors) and how finely.
"""

from __future__ import annotations

from collections.abc import Sequence

from .. import _tokcore
from .anchors import Tokenizer, local_at_anchors

SPLIT_MIN_BYTES = 1 << 18   # no piece is made smaller than this: a thread's start costs more
PIECES_PER_THREAD = 2       # pieces of total / (threads * 2): longest-first hand-out evens the rest


def cut_args(tok: Tokenizer, encoder: str, threads: int) -> tuple[int, int]:
    """The engine's (cut_min, cut_per_thread) for this batch: cut_min 0 (nothing cut) for one thread
    or a pipeline that is not local at anchors."""
    if threads < 2 or not local_at_anchors(tok, encoder):
        return 0, PIECES_PER_THREAD
    return SPLIT_MIN_BYTES, PIECES_PER_THREAD


def pieces(tok: Tokenizer, texts: Sequence[str | bytes], encoder: str, threads: int) -> int:
    """How many pieces encode_batch(texts, threads=threads) makes of the texts (0: none is cut)."""
    cut_min, per_thread = cut_args(tok, encoder, threads)
    return int(_tokcore.cut_pieces(list(texts), threads, cut_min, per_thread)) if cut_min else 0
