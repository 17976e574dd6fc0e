"""The token string HF gives a Unigram model's unknown: the text it covers.

HF `tokenizers` names every token of a Unigram model by the string the lattice's best path took
(tokenizers 0.23.3, src/models/unigram/model.rs, `Unigram::encode`: `results.push(token)` with the
fused normalized string, and `tokenize` builds `Token::new(id, string, offsets)` from it): a known
piece's string is the piece itself, but an unknown span keeps its own (normalized) text where the
vocabulary would say "<unk>". sentencepiece's `EncodeAsPieces` does the same (the piece of an
unknown is its surface). The engine returns ids only; this module recovers those strings from the
engine's raw trace (each chunk's normalized bytes and the lattice's best path), reading only the
chunks that hold an unknown: a Trace object of a 10 KB text is ~1 M Python objects, and building it
for every `tokens` took 0.3 s a UDHR text.

Does not: encode by itself (the tokenizer's trace does), nor change ids or offsets.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from .trace import lattice_nodes


def unknown_strings(raw: Mapping[str, object], ids: np.ndarray, unk_id: int,
                    token_to_id: Callable[[str], int | None]) -> dict[int, str]:
    """{token index: covered normalized text} for every unk token of a Unigram encode, from the
    engine's raw trace of it (`Handle.trace`) and its ids.

    Per chunk, the best path's nodes in order, consecutive nodes of the unk id fused into one
    string (model.rs: fuse_unk compares ids, so the unk piece met in the text fuses too); each
    string is one token, or (byte_fallback, string not a piece) one token per byte, as the engine
    emits them.
    """
    at = np.flatnonzero(ids == unk_id)
    if at.size == 0:
        return {}
    chunks: list[dict[str, int]] = raw["chunks"]  # type: ignore[assignment]
    firsts = np.fromiter((c["tok_first"] for c in chunks), dtype=np.int64, count=len(chunks))
    lat = lattice_nodes(raw)
    norm = bytes(raw["normalized"])  # type: ignore[arg-type]
    out: dict[int, str] = {}
    # the chunks that hold an unk token: the last chunk starting at or before each one
    for ci in np.unique(np.searchsorted(firsts, at, side="right") - 1).tolist():
        ch = chunks[ci]
        if not ch.get("lat_count", 0) or ch["added_id"] >= 0:
            continue
        nodes = lat[ch["lat_first"]:ch["lat_first"] + ch["lat_count"]]
        best = nodes[nodes["best"] != 0]
        best = best[np.argsort(best["start"], kind="stable")]
        spans: list[tuple[int, int, bool]] = []
        for start, length, nid in zip(best["start"].tolist(), best["len"].tolist(), best["id"].tolist()):
            is_unk = nid == unk_id
            if is_unk and spans and spans[-1][2] and spans[-1][1] == start:
                spans[-1] = (spans[-1][0], start + length, True)
            else:
                spans.append((start, start + length, is_unk))
        k, end = ch["tok_first"], ch["tok_first"] + ch["tok_count"]
        base = ch["norm_start"]
        for a, b, is_unk in spans:
            if k >= end:
                break
            text = norm[base + a:base + b].decode("utf-8", errors="replace")
            if int(ids[k]) == unk_id:
                out[k] = text
                k += 1
            elif is_unk and token_to_id(text) is None:
                k += b - a        # byte fallback: one token per byte
            else:
                k += 1
    return out
