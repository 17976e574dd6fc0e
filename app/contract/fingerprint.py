"""The behaviour fingerprint: sha256 of the ids of the fixed probe set (samples.probes()).

A file checksum proves "same file"; this proves "same text -> ids" on the probes, so the same
tokenizer gives the same fingerprint as tokenizer.json, .tiktoken or vocab.bin (llama.cpp does the
like for its pre-tokenizers: ggml-org/llama.cpp convert_hf_to_gguf.py, get_vocab_base_pre, at commit
a458664f, hashes the ids of one probe string; ours hashes many and names its probe set's version).

Hashed: for each probe in order, its ids (add_special_tokens off) as little-endian u32, then the
separator 0xFFFFFFFF.
"""

from __future__ import annotations

import hashlib

from ..core.tokenizer import Tokenizer
from .samples import PROBE_SET, probes

SEPARATOR = b"\xff\xff\xff\xff"


def fingerprint(tok: Tokenizer, encoder: str = "bpe") -> dict[str, object]:
    texts = probes()
    h = hashlib.sha256()
    for ids in tok.encode_batch_ids(texts, add_special_tokens=False, encoder=encoder):   # no offsets computed
        h.update(ids.astype("<u4").tobytes())
        h.update(SEPARATOR)
    return {"probe_set": PROBE_SET, "probes": len(texts), "sha256": h.hexdigest()}
