"""What the trace pane shows, as labels: chunk rows and merge-step rows.

The pane displays these; it does not look up pieces or replay merges
itself. Pieces are shown as stored (byte-level: "Ġ" is the byte 0x20).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .tokenizer import Tokenizer
from .trace import Trace, TraceChunk

_BYTE_TO_CHAR: list[str] = []


def gpt2_byte_chars() -> list[str]:
    """The GPT-2 byte-level mapping: the printable character standing for each byte."""
    if _BYTE_TO_CHAR:
        return _BYTE_TO_CHAR
    keep = list(range(0x21, 0x7F)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    table = {b: chr(b) for b in keep}
    n = 0
    for b in range(256):
        if b not in table:
            table[b] = chr(256 + n)
            n += 1
    _BYTE_TO_CHAR.extend(table[b] for b in range(256))
    return _BYTE_TO_CHAR


@dataclass(frozen=True)
class ChunkRow:
    label: str          # the chunk's text (repr-like, whitespace visible)
    kind: str           # "chunk" or "added"
    orig_span: tuple[int, int]
    token_range: tuple[int, int]
    steps: int


@dataclass(frozen=True)
class StepRow:
    symbols: list[str]
    merged: int | None      # index of the left symbol of the merged pair; None for the final row
    rank: int | None
    result: str             # the merged piece, or "= ids" on the final row


def visible(s: str) -> str:
    """Whitespace made visible: space ·, tab →, newline ↵."""
    return s.replace(" ", "·").replace("\t", "→").replace("\r", "␍").replace("\n", "↵")


def chunk_rows(tr: Trace) -> list[ChunkRow]:
    out = []
    for ch in tr.chunks:
        a, b = ch.norm_span
        text = tr.normalized[a:b].decode("utf-8", errors="replace")
        if ch.prefix_space:
            text = " " + text
        kind = "added" if ch.added_id is not None else "chunk"
        out.append(ChunkRow(visible(text), kind, ch.orig_span, ch.token_range, int(ch.raw_steps.shape[0])))
    return out


def chunk_of_token(tr: Trace, token: int) -> int:
    """Index of the chunk that produced `token`; -1 if none (e.g. a template token)."""
    for k, ch in enumerate(tr.chunks):
        a, b = ch.token_range
        if a <= token < b:
            return k
    return -1


def chunk_token_starts(tr: Trace) -> np.ndarray:
    return np.array([c.token_range[0] for c in tr.chunks], dtype=np.int64)


def step_rows(tok: Tokenizer, ch: TraceChunk) -> list[StepRow]:
    """One row per merge (symbols before it, the merged pair, its rank), then the final symbols."""
    name = tok.id_to_token
    if ch.added_id is not None:
        return [StepRow([name(ch.added_id) or "?"], None, None, f"= {ch.added_id} (added token)")]
    rows = []
    for st in ch.steps():
        rows.append(StepRow([name(s) or "?" for s in st.symbols], st.index, st.rank, name(st.new_id) or "?"))
    final = ch.final()
    rows.append(StepRow([name(s) or "?" for s in final], None, None, "= " + " ".join(str(t) for t in final)))
    return rows
