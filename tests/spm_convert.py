"""SentencePiece Unigram .model -> tokenizer.json, the way HF's converter does it (for tests and bench).

read_spm is a small reader of the ModelProto fields the conversion needs: 1 pieces {1 piece, 2 score,
3 type}, 2 trainer_spec {3 model_type, 40 unk_id, 35 byte_fallback}, 3 normalizer_spec
{2 precompiled_charsmap}. build_hf follows transformers' SpmConverter: normalizers Precompiled +
Strip(right) + Replace(" {2,}", "▁"), pre-tokenizer and decoder Metaspace (prepend always), Unigram
over the pieces with their scores, the unknown and control pieces as special tokens, and the
TemplateProcessing "$A </s>".
"""

from __future__ import annotations

import struct
from pathlib import Path


def _varint(b: bytes, i: int) -> tuple[int, int]:
    r = s = 0
    while True:
        c = b[i]
        i += 1
        r |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return r, i


def _fields(b: bytes):
    i = 0
    while i < len(b):
        key, i = _varint(b, i)
        f, wt = key >> 3, key & 7
        if wt == 0:
            v, i = _varint(b, i)
        elif wt == 1:
            v, i = b[i:i + 8], i + 8
        elif wt == 2:
            n, i = _varint(b, i)
            v, i = b[i:i + n], i + n
        elif wt == 5:
            v, i = b[i:i + 4], i + 4
        else:
            raise ValueError(f"protobuf wire type {wt} at byte {i}")
        yield f, v


def read_spm(path: Path) -> dict:
    pieces, trainer, norm = [], {}, {}
    for f, v in _fields(path.read_bytes()):
        if f == 1:
            d = {1: b"", 2: 0.0, 3: 1}
            for f2, v2 in _fields(v):
                d[f2] = struct.unpack("<f", v2)[0] if f2 == 2 else v2
            pieces.append((d[1].decode("utf-8"), d[2], d[3]))
        elif f == 2:
            trainer.update(dict(_fields(v)))
        elif f == 3:
            norm.update(dict(_fields(v)))
    assert trainer.get(3, 1) == 1, "not a Unigram model"
    return {"pieces": pieces, "unk_id": trainer.get(40, 0), "byte_fallback": bool(trainer.get(35, 0)),
            "charsmap": norm.get(2, b"")}


def build_hf(spm: dict, out: Path) -> Path:
    """HF's conversion of a SentencePiece Unigram model (transformers SpmConverter), saved as tokenizer.json."""
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers
    from tokenizers.processors import TemplateProcessing

    tok = Tokenizer(models.Unigram([(p, s) for p, s, _ in spm["pieces"]], unk_id=spm["unk_id"],
                                   byte_fallback=spm["byte_fallback"]))
    tok.normalizer = normalizers.Sequence([normalizers.Precompiled(spm["charsmap"]),
                                           normalizers.Strip(left=False, right=True),
                                           normalizers.Replace(Regex(" {2,}"), "▁")])
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
    # types 2 (unknown) and 3 (control) are the special tokens
    tok.add_special_tokens([AddedToken(p, special=True, normalized=False) for p, _, t in spm["pieces"] if t in (2, 3)])
    eos = next(i for i, (p, _, _) in enumerate(spm["pieces"]) if p == "</s>")
    tok.post_processor = TemplateProcessing(single="$A </s>", pair="$A </s> $B </s>", special_tokens=[("</s>", eos)])
    tok.save(str(out))
    return out
