"""The token string HF gives a Unigram model's unknown: the text it covers.

HF `tokenizers` names every token of a Unigram model by the string the lattice's best path took
(tokenizers 0.23.3, src/models/unigram/model.rs, `Unigram::encode`: `results.push(token)` with the
fused normalized string, and `tokenize` builds `Token::new(id, string, offsets)` from it): a known
piece's string is the piece itself, but an unknown span keeps its own (normalized) text where the
vocabulary would say "<unk>". sentencepiece's `EncodeAsPieces` does the same (the piece of an
unknown is its surface). The engine returns ids only; this module recovers those strings from the
trace, which holds each chunk's normalized bytes and the lattice's best path.

Does not: encode by itself (the tokenizer's trace does), nor change ids or offsets.
"""

from __future__ import annotations

from collections.abc import Callable

from .trace import Trace


def unknown_strings(trace: Trace, unk_id: int, token_to_id: Callable[[str], int | None]) -> dict[int, str]:
    """{token index: covered normalized text} for every unk token of a Unigram encode's trace.

    Per chunk, the best path's nodes in order, consecutive nodes of the unk id fused into one
    string (model.rs: fuse_unk compares ids, so the unk piece met in the text fuses too); each
    string is one token, or (byte_fallback, string not a piece) one token per byte, as the engine
    emits them.
    """
    ids = trace.encoding.ids
    out: dict[int, str] = {}
    for ch in trace.chunks:
        if not ch.lattice or ch.added_id is not None:
            continue
        norm = trace.normalized[ch.norm_span[0]:ch.norm_span[1]]
        best = sorted((n for n in ch.lattice if n.best), key=lambda n: n.start)
        spans: list[tuple[int, int, bool]] = []
        for n in best:
            is_unk = n.id == unk_id
            if is_unk and spans and spans[-1][2] and spans[-1][1] == n.start:
                spans[-1] = (spans[-1][0], n.start + n.len, True)
            else:
                spans.append((n.start, n.start + n.len, is_unk))
        k = ch.token_range[0]
        for a, b, is_unk in spans:
            if k >= ch.token_range[1]:
                break
            text = norm[a:b].decode("utf-8", errors="replace")
            if int(ids[k]) == unk_id:
                out[k] = text
                k += 1
            elif is_unk and token_to_id(text) is None:
                k += b - a        # byte fallback: one token per byte
            else:
                k += 1
    return out
