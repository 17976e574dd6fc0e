"""`contract freeze`: a bundle's manifest (seed 003's "冻结的是可执行 bundle"), as a dict that
schema.dump writes.

Per golden sample it keeps what the engine gives: the normalized text (the trace's, all segments),
the pieces as stored and as bytes, the ids, the character offsets and the decode. docs/contract.md
lists the fields.

Does not: write the file (the CLI does), or check anything (verify.py).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from importlib.metadata import version
from typing import Any

from .. import _tokcore
from ..core.tokenizer import Tokenizer
from .bundle import Bundle
from .fingerprint import fingerprint
from .samples import Sample, golden
from .schema import KIND, VERSION

# describe() keys that are not the pipeline: where the file is, what HF would refuse in it, and the sizes
# summary (its counts are vocab_size/model_vocab already; its embedding rows come from a config.json beside the
# file, which the contract records as the bundle's own layer)
NOT_PIPELINE = ("name", "path", "size", "sha256", "specials", "hf_compat", "vocab_sizes")
ENGINE_NOTE = re.compile(r"\s*\[[^\]]*\]$")


def _plain(v: Any) -> Any:
    """A describe() value without the engine's own notes ("Split(regex) [fast path]" -> "Split(regex)"):
    how this engine runs a component is not part of the contract."""
    if isinstance(v, str):
        return ENGINE_NOTE.sub("", v)
    if isinstance(v, list):
        return [_plain(x) for x in v]
    return v


def pipeline(tok: Tokenizer) -> dict[str, Any]:
    """The pipeline as the engine loaded it: model, its parameters, normalizer ... decoder."""
    return {k: _plain(v) for k, v in tok.describe().items() if k not in NOT_PIPELINE}


def text_of(sample: dict[str, Any]) -> str | bytes:
    return bytes.fromhex(sample["bytes_hex"]) if "bytes_hex" in sample else sample["text"]


def record(tok: Tokenizer, s: Sample, encoder: str = "bpe") -> dict[str, Any]:
    """One golden sample as the tokenizer encodes it now."""
    tr = tok.trace(s.text, s.add_special_tokens, encoder)
    enc = tr.encoding
    out: dict[str, Any] = {"category": s.category}
    if isinstance(s.text, bytes):
        out["bytes_hex"] = s.text.hex()
    else:
        out["text"] = s.text
    out["add_special_tokens"] = s.add_special_tokens
    out["normalized"] = tr.normalized.decode("utf-8", errors="backslashreplace")
    out["pieces"] = list(enc.tokens)
    out["piece_bytes"] = [b.hex() for b in enc.token_bytes]
    out["ids"] = [int(i) for i in enc.ids]
    out["offsets"] = [[int(a), int(b)] for a, b in enc.offsets]
    out["decode"] = tok.decode(enc.ids)
    return out


def added_tokens(tok: Tokenizer) -> list[dict[str, Any]]:
    keys = ("id", "content", "special", "lstrip", "rstrip", "single_word", "normalized")
    return [{k: a[k] for k in keys} for a in sorted(tok.added_tokens, key=lambda a: int(a["id"]))]  # type: ignore[call-overload]


def freeze(bundle: Bundle, extra: Sequence[Sample] = (), encoder: str = "bpe") -> dict[str, Any]:
    tok = bundle.tokenizer
    pipe = pipeline(tok)
    added = added_tokens(tok)
    samples = golden(bool(pipe.get("byte_level")), [a["content"] for a in added]) + list(extra)
    return {
        "kind": KIND,
        "version": VERSION,
        "engine": {"tokinspect": version("tokinspect"), "tokcore": str(getattr(_tokcore, "VERSION", "")),
                   "encoder": encoder},
        "files": bundle.files,
        "pipeline": pipe,
        "sizes": {"model_vocab": pipe.get("model_vocab"), "tokenizer": tok.vocab_size,
                  "embedding_rows": bundle.embedding_rows},
        "added_tokens": added,
        "chat_template": bundle.chat_template,
        "fingerprint": fingerprint(tok, encoder),
        "samples": [record(tok, s, encoder) for s in samples],
        "notes": bundle.notes,
    }
