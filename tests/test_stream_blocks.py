"""The streaming pre-tokenizer: a segment split a block of chunks at a time.

Where the first pre-tokenizer is a hand-written scanner that keeps every
match (Split isolated; ByteLevel's regex without a prefix space), the
encoder scans 512 matches, encodes them, and resumes the scan at the last
match's end (native/src/pretok.c tc_pretokenize_next). These check that a
resumed scan is the whole scan, and that texts spanning many blocks, with
every kind of chunk at the seams, encode as HF `tokenizers` does.
"""

from __future__ import annotations

import random

import pytest

from conftest import CL100K_PATTERN, assert_same, pair
from corpus import random_text, random_texts

QWEN2_PATTERN = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
                 r"|\s*[\r\n]+|\s+(?!\S)|\s+")
GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
BLOCK = 512  # native/src/pipeline.c STREAM_BLOCK


@pytest.mark.parametrize("pattern", [QWEN2_PATTERN, CL100K_PATTERN, GPT2_PATTERN], ids=["qwen2", "cl100k", "gpt2"])
def test_resumed_scan_is_the_whole_scan(pattern: str) -> None:
    from tokinspect import _tokcore

    rng = random.Random(20261202)
    texts = ["".join(random_text(rng, max_parts=40) for _ in range(rng.randint(1, 6))) for _ in range(1500)]
    texts += [" " * 9 + "x", "a  \n\n  b", "  ", "'s'S 's", "\r\n\r\n ", "x" + " " * 3]
    for t in texts:
        b = t.encode("utf-8", "surrogatepass")
        whole = _tokcore.find_all(pattern, b, True)
        assert whole == _tokcore.find_all(pattern, b, False), t  # the scanner is the matcher
        for block in (1, 2, 3, 17):
            assert _tokcore.find_all(pattern, b, True, False, block) == whole, (block, t)


def test_block_needs_the_scanner() -> None:
    from tokinspect import _tokcore

    with pytest.raises(ValueError):
        _tokcore.find_all(QWEN2_PATTERN, b"a b", False, False, 2)
    with pytest.raises(ValueError):
        _tokcore.find_all(QWEN2_PATTERN, b"a b", True, False, -1)


def long_texts(seed: int, n: int, added: list[str] | None = None) -> list[str]:
    """Texts of 600 to 6,000 chunks: several blocks each, the seams falling on
    whatever the random parts put there (runs of spaces before a word, lone
    trailing spaces, contractions, CJK, digits, added tokens)."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        parts = random_texts(seed=rng.randrange(1 << 30), n=rng.randint(120, 1200), added=added)
        out.append("".join(parts))
    return out


def test_qwen3_across_blocks(qwen3_json) -> None:
    ours, hf = pair(qwen3_json)
    texts = long_texts(1, 40)
    assert sum(len(hf.encode(t, add_special_tokens=False).ids) > 4 * BLOCK for t in texts) > 20
    assert_same(ours, hf, texts, label="qwen3, cold cache")
    assert_same(ours, hf, texts, label="qwen3, warm cache")
    for t in texts[:10]:
        assert ours.encode_ids(t, False).tolist() == hf.encode(t, add_special_tokens=False).ids
    # added tokens cut a text into segments, each streamed on its own
    added = [a["content"] for a in ours.added_tokens]
    rng = random.Random(4)
    texts = [rng.choice(added).join(long_texts(rng.randrange(1 << 20), 3)) for _ in range(6)]
    assert_same(ours, hf, texts, add_special_tokens=True, label="qwen3 with added tokens")


def test_cl100k_across_blocks(cl100k_json) -> None:
    ours, hf = pair(cl100k_json)
    assert_same(ours, hf, long_texts(2, 30), label="cl100k")


def test_gpt2_bytelevel_regex_across_blocks(gpt2_json) -> None:
    """GPT-2's ByteLevel splits with its own regex (the first stage streams too)."""
    ours, hf = pair(gpt2_json)
    assert_same(ours, hf, long_texts(3, 30), label="gpt2")


def test_seams_at_every_offset(qwen3_json) -> None:
    """A run of spaces before a word (\\s+(?!\\S) leaves the last space to the word)
    and a contraction, moved across the first block's seam one chunk at a time."""
    ours, hf = pair(qwen3_json)
    texts = []
    for k in range(BLOCK - 8, BLOCK + 2):
        lead = " a" * k          # k chunks, then the tail's chunks around match 512
        for tail in ("     word", "'s and 'LL", "  \n\n  x", "中文 123 ", "\t\tend  ", "   "):
            texts.append(lead + tail + " z" * 20)
            texts.append(lead + tail)
    assert len(hf.encode(texts[0], add_special_tokens=False).ids) > BLOCK
    assert_same(ours, hf, texts, label="seams")
