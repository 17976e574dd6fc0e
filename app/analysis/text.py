"""Everything the views show about one encoded text, computed once: `analyze()`.

`analyze()` runs in a worker thread: it encodes the text and derives the
arrays the panes look things up in (UTF-16 spans for Qt's text positions,
tokens that split a UTF-8 character, the byte -> token map), as the plain
`Analysis` record of analysis/encoded.py. Views only index these arrays;
they never re-derive them.

Does not handle: tracing very long texts automatically (a trace builds one
Python object per chunk, ~2 ms per 1,000 characters); callers pass
`with_trace=False` and trace in a second job (automatically up to
`TRACE_AUTO_LIMIT` characters, on request above).
"""

from __future__ import annotations

import threading

import numpy as np

from ..core.encoding import Encoding
from ..core.tokenizer import Tokenizer
from ..core.trace import Trace
from .encoded import Analysis, byte_token_map, token_spans, utf8_bytes

# characters; above this the trace waits for a click. A trace costs ~2 ms per 1,000 characters
# (one Python object per chunk) and holds the GIL while it builds them: at 100,000 characters an
# automatic trace per keystroke tripled keystroke-to-repaint (242 ms vs ~80 ms, bench/gui_latency.py).
TRACE_AUTO_LIMIT = 30_000


class Cancelled(Exception):
    """Raised inside a worker when its job was cancelled between phases."""


def exact_byte_spans(tok: Tokenizer, enc: Encoding, split: np.ndarray) -> np.ndarray:
    """Byte spans with each character-splitting token narrowed to its own bytes
    (run by run: a run of overlapping tokens shares one span, cut by the tokens' byte lengths)."""
    spans = enc.byte_offsets.astype(np.int64)
    if not split.any():
        return spans
    spans = spans.copy()
    cursor = -1
    for i in np.nonzero(split)[0].tolist():
        start = int(spans[i, 0])
        if i == 0 or not split[i - 1] or start >= cursor:
            cursor = start
        size = len(tok.id_to_bytes(int(enc.ids[i])) or b"")
        spans[i] = (cursor, min(cursor + size, int(enc.byte_offsets[i, 1])))
        cursor += size
    return spans


def encode(tok: Tokenizer, text: str, *, encoder: str = "bpe", add_special_tokens: bool = True) -> Encoding:
    """Encodes text (str; lone surrogates go through as their bytes)."""
    try:
        return tok.encode(text, add_special_tokens, encoder)
    except UnicodeEncodeError:
        return tok.encode(text.encode("utf-8", errors="surrogateescape"), add_special_tokens, encoder)


def trace(tok: Tokenizer, text: str, *, encoder: str = "bpe", add_special_tokens: bool = True) -> Trace:
    return tok.trace(text, add_special_tokens, encoder)


def analyze(tok: Tokenizer, text: str, generation: int, *, encoder: str = "bpe", add_special_tokens: bool = True,
            with_trace: bool | None = None, cancel: threading.Event | None = None) -> Analysis:
    """Encodes `text` and derives the lookup arrays; checks `cancel` between phases."""
    import time

    def check() -> None:
        if cancel is not None and cancel.is_set():
            raise Cancelled()

    t0 = time.perf_counter()
    data = utf8_bytes(text)
    enc = encode(tok, text, encoder=encoder, add_special_tokens=add_special_tokens)
    check()
    spans = token_spans(text, data, enc)
    check()
    exact = exact_byte_spans(tok, enc, spans.split)
    btok = byte_token_map(len(data), exact)
    check()
    if with_trace is None:
        with_trace = len(text) <= TRACE_AUTO_LIMIT
    tr = trace(tok, text, encoder=encoder, add_special_tokens=add_special_tokens) if with_trace else None
    check()
    return Analysis(generation, text, data, enc, spans, btok, exact, encoder, tr, time.perf_counter() - t0,
                    add_special_tokens)
