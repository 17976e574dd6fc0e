"""What the trace pane shows, as labels: chunk rows and merge-step rows (a Unigram chunk: its
lattice, one row per position).

The pane displays these; it does not look up pieces or replay merges
itself. Pieces are shown as stored (byte-level: "Ġ" is the byte 0x20).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..core.pieces import visible
from ..core.tokenizer import Tokenizer
from ..core.trace import LatticeNode, Trace, TraceChunk


@dataclass(frozen=True)
class ChunkRow:
    label: str          # the chunk's text (repr-like, whitespace visible)
    kind: str           # "chunk", "word" (a WordPiece word), "added", "greedy" (one longest-match step) or
    #                     "kestrel" (one board-engine step)
    orig_span: tuple[int, int]
    token_range: tuple[int, int]
    steps: int          # merges; for "greedy": candidates considered


@dataclass(frozen=True)
class StepRow:
    symbols: list[str]
    merged: int | None      # index of the left symbol of the merged pair; None for the final row
    rank: int | None
    result: str             # the merged piece, or "= ids" on the final row
    label: str = ""         # the row's left label; "" shows the rank ("rank 308") or "final"
    span: int = 2           # boxes highlighted from `merged` (a merge: the pair; a greedy step: the chosen one)


@dataclass(frozen=True)
class StepsView:
    """What the merge-steps view shows: a title, the rows, the row to highlight, greedy or merge rows."""

    title: str
    rows: list[StepRow]
    current: int | None = None
    greedy: bool = False


def chunk_rows(tr: Trace) -> list[ChunkRow]:
    """One row per pre-token chunk; for the greedy encoder (no chunks, no merges), one row per
    longest-match step."""
    if tr.greedy_steps:
        return greedy_rows(tr)
    if tr.kestrel_steps:
        return kestrel_rows(tr)
    out = []
    for ch in tr.chunks:
        a, b = ch.norm_span
        text = tr.normalized[a:b].decode("utf-8", errors="replace")
        if ch.prefix_space:
            text = " " + text
        kind = "added" if ch.added_id is not None else "word" if ch.model == "WordPiece" else "chunk"
        steps = len(ch.lattice) if ch.lattice else int(ch.raw_steps.shape[0])
        out.append(ChunkRow(visible(text), kind, ch.orig_span, ch.token_range, steps))
    return out


def chunk_of_token(tr: Trace, token: int) -> int:
    """Index of the chunk that produced `token`; -1 if none (e.g. a template token)."""
    for k, ch in enumerate(tr.chunks):
        a, b = ch.token_range
        if a <= token < b:
            return k
    return -1


def chunk_token_starts(tr: Trace) -> np.ndarray:
    if tr.greedy_steps:
        return row_token_starts(greedy_rows(tr))
    if tr.kestrel_steps:
        return row_token_starts(kestrel_rows(tr))
    return np.array([c.token_range[0] for c in tr.chunks], dtype=np.int64)


def row_token_starts(rows: list[ChunkRow]) -> np.ndarray:
    """The first token of each row (non-decreasing), for searchsorted."""
    return np.array([r.token_range[0] for r in rows], dtype=np.int64)


def step_rows(tok: Tokenizer, ch: TraceChunk) -> list[StepRow]:
    """One row per merge (symbols before it, the merged pair, its rank), then the final symbols."""
    name = tok.id_to_token
    if ch.added_id is not None:
        return [StepRow([name(ch.added_id) or "?"], None, None, f"= {ch.added_id} (added token)")]
    if ch.model == "WordPiece":
        return wordpiece_step_rows(tok, ch)
    rows = []
    for st in ch.steps():
        rows.append(StepRow([name(s) or "?" for s in st.symbols], st.index, st.rank, name(st.new_id) or "?"))
    final = ch.final()
    rows.append(StepRow([name(s) or "?" for s in final], None, None, "= " + " ".join(str(t) for t in final)))
    return rows


def wordpiece_step_rows(tok: Tokenizer, ch: TraceChunk) -> list[StepRow]:
    """WordPiece's longest matches in one word: per step the pieces so far with the new one
    highlighted, how many longer candidates were tried first; then the final ids."""
    name = tok.id_to_token
    rows: list[StepRow] = []
    pieces: list[str] = []
    for st in ch.wordpiece_steps():
        if st.unk:
            why = f"no piece at byte {st.pos}" if st.tried else "longer than max_input_chars_per_word"
            unk = name(st.id) or "?"
            rows.append(StepRow([unk], 0, None, f"{unk} = {st.id}: the whole word ({why})", "unk", 1))
            break
        pieces.append(name(st.id) or "?")
        tried = f", {st.tried} longer not in the vocabulary" if st.tried else ""
        rows.append(StepRow(list(pieces), len(pieces) - 1, None,
                            f"{pieces[-1]} = {st.id} ({st.length} B{tried})", f"@{st.pos}", 1))
    final = ch.final()
    rows.append(StepRow([name(s) or "?" for s in final], None, None, "= " + " ".join(str(t) for t in final)))
    return rows


def lattice_rows(tok: Tokenizer, tr: Trace, ch: TraceChunk) -> list[StepRow]:
    """A Unigram chunk's lattice: one row per position where pieces start (every candidate with its
    score, the one on the best path highlighted), then the best path."""
    name = tok.id_to_token
    a = ch.norm_span[0]
    by_pos: dict[int, list[LatticeNode]] = {}
    for n in ch.lattice:
        by_pos.setdefault(n.start, []).append(n)
    rows = []
    for pos in sorted(by_pos):
        nodes = by_pos[pos]
        cands = [f"{_lattice_piece(tr, a, n, name)} {n.score:.3g}" for n in nodes]
        k = next((i for i, n in enumerate(nodes) if n.best), None)
        if k is None:
            result = "not on the best path"
        else:
            b = nodes[k]
            result = f"{_lattice_piece(tr, a, b, name)}: path score {b.path_score:.4g}"
        rows.append(StepRow(cands, k, None, result, f"@{pos}", 1))
    best = [n for n in ch.lattice if n.best]
    ids = tr.encoding.ids.tolist()
    rows.append(StepRow([_lattice_piece(tr, a, n, name) for n in best], None, None,
                        "= " + " ".join(str(t) for t in ids[ch.token_range[0]:ch.token_range[1]]), "best path"))
    return rows


def _lattice_piece(tr: Trace, norm_start: int, n: LatticeNode, name: Callable[[int], str | None]) -> str:
    if n.unk:
        text = tr.normalized[norm_start + n.start:norm_start + n.start + n.len].decode("utf-8", errors="replace")
        return f"unk({visible(text)})"
    return visible(name(n.id) or "?") if n.id is not None else "?"


def greedy_token_of_steps(tr: Trace) -> list[int]:
    """The token index each greedy step produced, matched in order; a dropped byte gives
    -1 - k, k being the index of the next token (so rows stay ordered by token)."""
    ids = tr.encoding.ids.tolist()
    out, cursor = [], 0
    for st in tr.greedy_steps:
        if st.chosen is None:
            out.append(-1 - cursor)  # dropped: -1 - (the next token's index)
            continue
        j = cursor
        while j < len(ids) and ids[j] != st.chosen:
            j += 1
        if j < len(ids):
            out.append(j)
            cursor = j + 1
        else:
            out.append(-1 - cursor)
    return out


def greedy_rows(tr: Trace) -> list[ChunkRow]:
    """The greedy encoder's steps as list rows: the bytes taken at each position."""
    tok = tr.encoding._tokenizer
    out = []
    for st, t in zip(tr.greedy_steps, greedy_token_of_steps(tr)):
        if st.chosen is None:
            label = f"@{st.pos}  dropped byte"
            span = (st.pos, st.pos + 1)
        else:
            raw = tok.id_to_bytes(st.chosen) or b""
            label = f"@{st.pos}  {visible(raw.decode('utf-8', errors='replace'))}"
            span = (st.pos, st.pos + max(1, st.chosen_len))
        out.append(ChunkRow(label, "greedy", span, (t, t + 1) if t >= 0 else (-1 - t, -1 - t), len(st.candidates)))
    return out


def greedy_step_rows(tok: Tokenizer, tr: Trace, first: int, last: int) -> list[StepRow]:
    """Rows for greedy steps first..last-1: the candidates (every entry that was a prefix at the
    position, shortest first) with the chosen one highlighted."""
    name = tok.id_to_token
    rows = []
    for st in tr.greedy_steps[first:last]:
        cands = [name(c) or "?" for c in st.candidates]
        if st.chosen is None:
            rows.append(StepRow(cands, None, None, "dropped: no entry starts with this byte", f"@{st.pos}", 0))
            continue
        k = st.candidates.index(st.chosen) if st.chosen in st.candidates else None
        result = f"{name(st.chosen) or '?'} = {st.chosen} ({st.chosen_len} B)"
        rows.append(StepRow(cands, k, None, result, f"@{st.pos}", 1))
    return rows


# what each kestrel rule did, as the trace pane's words
KESTREL_WHAT = {
    "match": "longest entry",
    "space-retry": "Ġ + word",
    "special": "special first",
    "newline": "newline fallback (Ċ)",
    "byte": "single-byte entry",
    "unk": "no entry: id 0",
    "trailing": "trailing spaces dropped",
    "nul": "NUL: the text ends here",
}


def kestrel_rows(tr: Trace) -> list[ChunkRow]:
    """A kestrel encoder's steps as list rows: where, the token, and the rule that chose it. Steps
    with a token are the encoding's tokens in order; trailing spaces and a NUL have none."""
    tok = tr.encoding._tokenizer
    out, k = [], 0
    for st in tr.kestrel_steps:
        lost = f"  ({st.spaces} space{'s' if st.spaces > 1 else ''} skipped)" if st.spaces else ""
        if st.id is None:
            out.append(ChunkRow(f"@{st.pos}  {KESTREL_WHAT[st.rule]}{lost}", "kestrel", (st.pos, st.at + st.consumed),
                                (k, k), 0))
            continue
        raw = tok.id_to_bytes(st.id) or b""
        label = f"@{st.at}  {visible(raw.decode('utf-8', errors='replace'))}  {KESTREL_WHAT[st.rule]}{lost}"
        out.append(ChunkRow(label, "kestrel", (st.pos, st.at + st.consumed), (k, k + 1), 1))
        k += 1
    return out


def kestrel_step_rows(tok: Tokenizer, tr: Trace, first: int, last: int) -> list[StepRow]:
    """Rows for kestrel steps first..last-1: what was tried at the position (the Ġ retry's match, the
    longest entry without the special guard) and what was taken, with the rule in words."""
    name = tok.id_to_token
    rows = []
    for st in tr.kestrel_steps[first:last]:
        tried: list[str] = []
        if st.retry not in ("none", "taken"):
            tried.append(name(st.retry_id) or "?" if st.retry_id is not None else "Ġ (no longer entry)")
        if st.id is not None:
            tried.append(name(st.id) or "?")
        parts = [KESTREL_WHAT[st.rule]]
        if st.spaces:
            parts.append(f"{st.spaces} space(s) skipped")
        parts.append({"none": "", "taken": "Ġ retry taken", "only-space": "Ġ retry failed: the space is lost",
                      "guarded": "Ġ retry refused: it runs into a special"}[st.retry])
        if st.rule == "match" and st.unguarded > st.consumed:
            parts.append(f"cut to {st.consumed} B before a special (longest {st.unguarded} B)")
        result = "; ".join(p for p in parts if p)
        if st.id is not None:
            result = f"{name(st.id) or '?'} = {st.id}: {result}"
        rows.append(StepRow(tried or ["(nothing)"], len(tried) - 1 if st.id is not None else None, None, result,
                            f"@{st.at}", 1))
    return rows
