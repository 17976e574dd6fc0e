"""The handle's shared chunk cache and encode_batch's threads: a cached answer is the computed one.

Every encode of a handle shares one cache of chunk results (native/src/chunk_cache.c: lock-free,
bounded). A wrong key (a chunk answered with another's tokens, or one encoder's answer given to
another encoder of the same handle) or a torn entry read by another thread would change ids or
offsets; these tests compare a handle that has seen everything before (warm, many threads at once)
with fresh handles that have seen nothing, and check the bound on the cache's memory. Core: the
embedded default and tokenizers built here; no shared data.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from corpus import random_texts
from tokinspect import Tokenizer
from tokinspect.core.tokenizer import plan_threads


def _answers(encs) -> list[tuple[list[int], list[list[int]]]]:
    return [(e.ids.tolist(), e.offsets.tolist()) for e in encs]


def _texts() -> list[str]:
    rng = random.Random(44)
    base = random_texts(2024, 600, ["<|im_start|>", "<|endoftext|>"])
    # long texts (many chunks repeat inside one call) and short ones (repeat only across calls)
    return base + [" ".join(rng.sample(base, 40)) for _ in range(20)] + [t[:9] for t in base[:200]]


@pytest.mark.parametrize("encoder", ["bpe", "rank"])
def test_warm_answers_equal_fresh_handles(encoder: str) -> None:
    texts = _texts()
    warm = Tokenizer.default()
    first = _answers(warm.encode_batch(texts, encoder=encoder, threads=1))
    again = _answers(warm.encode_batch(texts, encoder=encoder, threads=1))
    backwards = [a for a in reversed(_answers(warm.encode_batch(texts[::-1], encoder=encoder, threads=1)))]
    fresh = [_answers([Tokenizer.default().encode(t, encoder=encoder)])[0] for t in texts[::25]]
    assert first == again == backwards
    assert fresh == first[::25]


def _rank_differs_json(tmp_path: Path) -> Path:
    """A byte-level BPE whose merge order is not its id order: HF's bpe merges "a b" first (rank 0),
    tiktoken's rank rule takes the lowest-id pair, "b c" (id 4 < 5), so "abc" splits two ways."""
    from tokenizers import Tokenizer as HF
    from tokenizers import decoders, models, pre_tokenizers

    alphabet = pre_tokenizers.ByteLevel.alphabet()
    vocab = {ch: i for i, ch in enumerate(sorted(alphabet))}
    vocab["bc"] = len(vocab)
    vocab["ab"] = len(vocab)
    hf = HF(models.BPE(vocab, [("a", "b"), ("b", "c")]))
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    hf.decoder = decoders.ByteLevel()
    p = tmp_path / "order.json"
    hf.save(str(p))
    return p


def test_each_encoder_gets_its_own_answer_for_the_same_chunk(tmp_path: Path) -> None:
    from tokenizers import Tokenizer as HF

    p = _rank_differs_json(tmp_path)
    hf = HF.from_file(str(p))
    tok = Tokenizer.from_file(p)
    bpe_fresh = Tokenizer.from_file(p).encode("abc").ids.tolist()
    rank_fresh = Tokenizer.from_file(p).encode("abc", encoder="rank").ids.tolist()
    assert bpe_fresh == hf.encode("abc").ids and rank_fresh != bpe_fresh   # the two rules differ here
    for _ in range(3):   # alternate on one handle: each answer is cached under its own encoder
        assert tok.encode("abc").ids.tolist() == bpe_fresh
        assert tok.encode("abc", encoder="rank").ids.tolist() == rank_fresh


@pytest.mark.parametrize("threads", [2, 3, 8])
def test_threads_give_the_one_thread_answer(threads: int) -> None:
    texts = _texts()
    tok = Tokenizer.default()
    want = _answers(Tokenizer.default().encode_batch(texts, threads=1))
    for encoder in ("bpe", "rank", "bpe"):
        got = _answers(tok.encode_batch(texts, encoder=encoder, threads=threads))
        if encoder == "bpe":
            assert got == want
        else:
            assert got == _answers(Tokenizer.default().encode_batch(texts, encoder="rank", threads=1))


def test_thread_counts_are_checked() -> None:
    for bad in (0, -1, True, 1.5, "2"):
        with pytest.raises(ValueError, match="threads must be a positive integer"):
            plan_threads(["a"], bad)  # type: ignore[arg-type]
    assert plan_threads(["a", "b"], 8) == 2 and plan_threads([], 4) == 1 and plan_threads(["a"], None) == 1


MEMORY_CHILD = r"""
import json, random, sys
from pathlib import Path
from tokinspect import Tokenizer

def rss():
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024.0

tok = Tokenizer.default()
tok.encode("warm up")
rng = random.Random(3)
letters = "abcdefghijklmnopqrstuvwxyz"
start = rss()
words = 0
for _ in range(160):   # 160 texts of 12,000 distinct random words: ~1.9 M chunks, ~19 MB of text
    text = " ".join("".join(rng.choice(letters) for _ in range(8)) for _ in range(12000))
    words += len(tok.encode(text).ids)
print(json.dumps({"start": start, "end": rss(), "tokens": words}))
"""


def test_the_cache_is_bounded() -> None:
    """1.9 million distinct chunks would take ~130 MB of entries; the cache stops at its budget
    (24 MiB of entries + 8 MiB of slots), so the process grows by far less."""
    r = subprocess.run([sys.executable, "-c", MEMORY_CHILD], capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr
    m = json.loads(r.stdout)
    assert m["tokens"] > 1_900_000
    assert m["end"] - m["start"] < 56, m
