"""A demo logits source for a first run: next-token counts of a bigram model
built with the current tokenizer from a text the user picks.

The logits are log(count + smoothing) over the whole vocabulary, where count
is how often each token follows the context token in the text. They are not
a language model's logits; the label says so.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..core.tokenizer import Tokenizer
from .sampler import LogitsSource

SMOOTHING = 0.01
# the label's English template; the window passes its translator (the CLI none)
LABEL = ("bigram demo (not a model): next-token counts after {token} (id {id}) in your text of {n} tokens, "
         "{followers} followers, logits = log(count + {smoothing})")


def _same(s: str) -> str:
    return s


def bigram_counts(ids: np.ndarray, context_id: int, vocab: int) -> np.ndarray:
    """How often each id follows context_id in ids (int64, length vocab)."""
    ids = np.asarray(ids, dtype=np.int64)
    if len(ids) < 2:
        return np.zeros(vocab, dtype=np.int64)
    nxt = ids[1:][ids[:-1] == context_id]
    return np.bincount(nxt[nxt < vocab], minlength=vocab).astype(np.int64)


def bigram_logits(tokenizer: Tokenizer, text: str, context_id: int | None = None,
                  smoothing: float = SMOOTHING, translate: Callable[[str], str] = _same) -> LogitsSource:
    """One row of demo logits: log(count + smoothing) of the tokens that follow context_id in
    `text`, encoded without special tokens. Default context: the token with the most followers
    (the text's most frequent token, not counting its last; the lower id on a tie), so the demo
    shows a spread-out distribution rather than one with no counts at all. `translate` maps the
    label's English template (LABEL) to the interface's language."""
    if smoothing <= 0:
        raise ValueError("smoothing must be > 0 (log of 0 counts)")
    ids = np.asarray(tokenizer.encode(text, add_special_tokens=False).ids, dtype=np.int64)
    if len(ids) == 0:
        raise ValueError("the text encodes to no tokens: pick a longer text")
    vocab = int(tokenizer.vocab_size)
    if context_id is None:
        ctx = int(np.argmax(np.bincount(ids[:-1]))) if len(ids) > 1 else int(ids[0])
    else:
        ctx = int(context_id)
    if not 0 <= ctx < vocab:
        raise ValueError(f"context id {ctx} outside the vocabulary (0..{vocab - 1})")
    counts = bigram_counts(ids, ctx, vocab)
    logits = np.log(counts.astype(np.float64) + smoothing).astype(np.float32)
    tok = (tokenizer.id_to_bytes(ctx) or b"").decode("utf-8", errors="replace")
    label = translate(LABEL).format(token=repr(tok), id=ctx, n=len(ids), followers=int(counts.sum()),
                                    smoothing=f"{smoothing:g}")
    return LogitsSource.from_array(logits, label)
