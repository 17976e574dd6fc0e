"""GGUF "t5" (llama.cpp's UGM, native/src/ugm.c) against llama.cpp itself.

nomic-bert-moe, the sdist's only "t5" vocabulary, ships no test-tokenizer-0 vectors, so the oracle is
`llama-tokenize` built from the same llama-cpp-python 0.3.36 sdist (tests/llamacpp_build.py, fixture
llama_tokenize): the vector inputs every other file shares, 5,600 seeded random strings with the file's own
special and UNUSED token texts glued in, every UDHR text and War and Peace (paragraphs and whole), BOS/EOS, and
four variants of the real file (normalizer flags, no charsmap, USER_DEFINED/UNUSED tokens) loaded by both.
"""

from __future__ import annotations

import json
import random
import struct
import subprocess
from pathlib import Path

import pytest
from test_gguf import gguf_file, kv_bool, kv_i32s, vectors

from tokinspect import Tokenizer

UGM = "nomic-bert-moe"
UGM_SEP = "</s>"   # a CONTROL token: with special parsing on, it splits the fragments llama.cpp encodes one by one


def ugm_tool(exe: Path, texts: list[str], parse_special: bool = True, bos: bool = False) -> list[list[int]]:
    """llama-tokenize's ids of each text (tools/tokenize: --stdin takes the bytes as they are, --no-escape keeps
    backslashes, --no-bos: add_special false). Texts go 500 to a process, joined by UGM_SEP (parsed as the control
    token it is, so the ids split back per text) when special tokens are parsed, one process each otherwise."""
    path = gguf_file(UGM)
    sep_id = Tokenizer.from_file(path).token_to_id(UGM_SEP)
    assert sep_id is not None and not any(UGM_SEP in t for t in texts)

    def run(text: str) -> list[int]:
        cmd = [str(exe), "-m", str(path), "--stdin", "--ids", "--log-disable", "--no-escape"]
        cmd += [] if bos else ["--no-bos"]
        cmd += [] if parse_special else ["--no-parse-special"]
        r = subprocess.run(cmd, input=text.encode("utf-8"), capture_output=True, timeout=900)
        assert r.returncode == 0, r.stderr.decode("utf-8", "replace")[-2000:]
        lines = [x for x in r.stdout.decode("utf-8").splitlines() if x.strip()]
        assert len(lines) == 1 and lines[0].startswith("["), r.stdout[:300]
        return json.loads(lines[0])

    if not parse_special or bos:
        return [run(t) for t in texts]
    out: list[list[int]] = []
    for k in range(0, len(texts), 500):
        chunk = texts[k:k + 500]
        parts: list[list[int]] = [[]]
        for i in run(UGM_SEP.join(chunk)):
            if i == sep_id:
                parts.append([])
            else:
                parts[-1].append(i)
        assert len(parts) == len(chunk)
        out += parts
    return out


def ugm_compare(exe: Path, texts: list[str], parse_special: bool = True) -> int:
    tok = Tokenizer.from_file(gguf_file(UGM), parse_special=parse_special)
    want = ugm_tool(exe, texts, parse_special)
    got = [e.ids.tolist() for e in tok.encode_batch(texts, add_special_tokens=False)]
    bad = [(t, g, w) for t, g, w in zip(texts, got, want) if g != w]
    assert not bad, f"{len(bad)}/{len(texts)} differ from llama-tokenize; first {bad[0][0][:100]!r}:\n ours {bad[0][1][:40]}" \
                    f"\n llama {bad[0][2][:40]}"
    return len(texts)


def test_ugm_vector_inputs_equal_llama_tokenize(llama_tokenize):
    """The inputs of test-tokenizer-0 (every file's .inp but gemma-4's and qwen35's is this one): no vectors ship
    for nomic-bert-moe, so llama.cpp's own tool gives the ids (add_special and parse_special false, as
    test-tokenizer-0 runs), one process per input."""
    texts = [t for t, _ in vectors("llama-bpe")]
    assert len(texts) >= 40
    assert ugm_compare(llama_tokenize, texts, parse_special=False) == len(texts)


def test_ugm_random_strings_equal_llama_tokenize(llama_tokenize):
    """5,000 seeded random strings (scripts, emoji, marks, whitespace runs, the newest Unicode), some with the
    file's own special and UNUSED token texts glued in (<mask> strips spaces to its left, UNUSED tokens are matched
    as pieces), plus control characters; special tokens parsed."""
    from corpus import random_texts  # noqa: PLC0415
    tok = Tokenizer.from_file(gguf_file(UGM))
    glued = ["<mask>", "<s>", "<unk>", "<pad>", "[PAD250044]", tok.id_to_token(250010) or "x", "▁", "\u2581\u2581"]
    texts = random_texts(1616, 5000, added=glued)
    rng = random.Random(5)
    texts += ["".join(rng.choice([" ", "  ", "\t", "\n", "\x00", "\x7f", "\x1b", "a", "é", "中", "\u3000", "\u00a0",
                                  "\ufeff", "<mask>", " <mask>", "ﬁ", "①"]) for _ in range(rng.randint(0, 14)))
              for _ in range(600)]
    assert ugm_compare(llama_tokenize, texts) >= 5600


def test_ugm_corpus_equals_llama_tokenize(llama_tokenize):
    """Every UDHR text and War and Peace (by paragraph, and whole as one fragment)."""
    from conftest import shared  # noqa: PLC0415
    texts = [f.read_text(encoding="utf-8") for f in sorted(shared("udhr", "txt").glob("*.txt"))]
    wp = shared("ollama", "war-and-peace.txt").read_text(encoding="utf-8")
    texts += wp.split("\n\n") + [wp]
    assert ugm_compare(llama_tokenize, texts) == len(texts) > 5000


def test_ugm_bos_eos_equal_llama_tokenize(llama_tokenize):
    """add_special: the file's add_bos and add_eos, <s> first and </s> last (impl::tokenize, UGM)."""
    tok = Tokenizer.from_file(gguf_file(UGM))
    texts = ["Hello world", "  <mask> x", ""]
    want = ugm_tool(llama_tokenize, texts, bos=True)
    assert [tok.encode(t, add_special_tokens=True).ids.tolist() for t in texts] == want


GGUF_SIZES = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}


def gguf_kvs(data: bytes) -> list[tuple[str, bytes]]:
    """The key/value records of a GGUF file without tensors, each as its raw bytes."""
    n_tensors, n_kv = struct.unpack_from("<QQ", data, 8)
    assert n_tensors == 0

    def skip(o: int, t: int) -> int:
        if t == 8:
            return o + 8 + struct.unpack_from("<Q", data, o)[0]
        if t == 9:
            et, n = struct.unpack_from("<IQ", data, o)
            o += 12
            if et in GGUF_SIZES:
                return o + n * GGUF_SIZES[et]
            for _ in range(n):
                o = skip(o, et)
            return o
        return o + GGUF_SIZES[t]

    o, out = 24, []
    for _ in range(n_kv):
        start = o
        kl = struct.unpack_from("<Q", data, o)[0]
        key = data[o + 8:o + 8 + kl].decode()
        o = skip(o + 8 + kl + 4, struct.unpack_from("<I", data, o + 8 + kl)[0])
        out.append((key, data[start:o]))
    return out


def ugm_variant(tmp_path: Path, name: str) -> Path:
    """nomic-bert-moe's file with one thing changed, for both engines to load: the normalizer flags, no charsmap,
    or some ordinary tokens made USER_DEFINED (matched first, score 0) and UNUSED (still matched by UGM)."""
    data = gguf_file(UGM).read_bytes()
    kvs = gguf_kvs(data)
    tok = Tokenizer.from_file(gguf_file(UGM))
    raw_types = dict(kvs)["tokenizer.ggml.token_type"]
    kl = struct.unpack_from("<Q", raw_types, 0)[0]
    n = struct.unpack_from("<Q", raw_types, 8 + kl + 8)[0]
    types = list(struct.unpack_from(f"<{n}i", raw_types, 8 + kl + 16))
    for t in ["\u2581the", "ing", "中", "\u2581Hello", "ab"]:
        types[tok.token_to_id(t)] = 4
    for t in ["\u2581and", "s", "\u2581"]:
        types[tok.token_to_id(t)] = 5
    change = {
        "plain_spaces": {"tokenizer.ggml.add_space_prefix": kv_bool("tokenizer.ggml.add_space_prefix", False),
                         "tokenizer.ggml.remove_extra_whitespaces": kv_bool("tokenizer.ggml.remove_extra_whitespaces", False)},
        "prefix_keep_spaces": {"tokenizer.ggml.remove_extra_whitespaces":
                               kv_bool("tokenizer.ggml.remove_extra_whitespaces", False)},
        "no_charsmap": {"tokenizer.ggml.precompiled_charsmap": b""},
        "user_defined_unused": {"tokenizer.ggml.token_type": kv_i32s("tokenizer.ggml.token_type", types)},
    }[name]
    out = [change.get(k, raw) for k, raw in kvs]
    out = [r for r in out if r]
    p = tmp_path / f"nomic-{name}.gguf"
    p.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 0, len(out)) + b"".join(out))
    return p


@pytest.mark.parametrize("name", ["plain_spaces", "prefix_keep_spaces", "no_charsmap", "user_defined_unused"])
def test_ugm_variants_equal_llama_tokenize(name, tmp_path, llama_tokenize):
    """2,000 seeded random strings on each variant of the real file: ids equal llama-tokenize's on the same file."""
    from corpus import random_texts  # noqa: PLC0415
    path = ugm_variant(tmp_path, name)
    tok = Tokenizer.from_file(path)
    texts = [t for t in random_texts(1617, 2000, added=["<mask>", "ab", "the", "ing", "[PAD250044]"]) if UGM_SEP not in t]
    sep_id = tok.token_to_id(UGM_SEP)
    cmd = [str(llama_tokenize), "-m", str(path), "--stdin", "--ids", "--log-disable", "--no-escape", "--no-bos"]
    r = subprocess.run(cmd, input=UGM_SEP.join(texts).encode("utf-8"), capture_output=True, timeout=900)
    assert r.returncode == 0, r.stderr.decode("utf-8", "replace")[-2000:]
    want: list[list[int]] = [[]]
    for i in json.loads([x for x in r.stdout.decode("utf-8").splitlines() if x.strip()][0]):
        if i == sep_id:
            want.append([])
        else:
            want[-1].append(i)
    got = [e.ids.tolist() for e in tok.encode_batch(texts, add_special_tokens=False)]
    bad = [(t, g, w) for t, g, w in zip(texts, got, want) if g != w]
    assert len(want) == len(texts) and not bad, (name, len(bad), bad[:1])
