"""A handle keeps its last encode's buffers for the next one (native/python/pymodule.c take_encoding /
give_encoding: a fresh 22 MB encoding was page-faulted in on every call of War and Peace). Nothing of
one call may reach the next: every result here, in an order that mixes long and short texts, ids-only
and full encodes, every encoder, failures and threads, equals a fresh handle's for the same call."""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from corpus import random_text
from tokinspect import Tokenizer

ENCODERS = ("bpe", "rank", "greedy", "kestrel-v1", "kestrel-v2")


def _calls(seed: int, n: int) -> list[tuple[str, str | bytes, bool, str]]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        r = rng.random()
        if r < 0.1:
            text: str | bytes = "".join(random_text(rng, max_parts=40) for _ in range(1500))   # long
        elif r < 0.2:
            text = bytes(rng.randrange(256) for _ in range(rng.randint(0, 300)))           # invalid UTF-8
        elif r < 0.25:
            text = ""
        else:
            text = random_text(rng, max_parts=30)
        out.append((rng.choice(("encode", "encode_ids")), text, rng.random() < 0.5, rng.choice(ENCODERS)))
    return out


def _result(tok: Tokenizer, call: tuple[str, str | bytes, bool, str]) -> tuple:
    what, text, add, enc = call
    if what == "encode_ids":
        return ("ids", tok.encode_ids(text, add, enc).tolist())
    e = tok.encode(text, add, enc)
    return (e.ids.tolist(), e.offsets.tolist(), e.special_mask.tolist())


def _fresh(path: Path, call: tuple[str, str | bytes, bool, str]) -> tuple:
    return _result(Tokenizer.from_file(path), call)


def test_one_handle_in_turn_equals_fresh_handles(qwen3_json: Path) -> None:
    tok = Tokenizer.from_file(qwen3_json)
    calls = _calls(20261203, 160)
    assert any(len(c[1]) > 50_000 for c in calls) and any(c[0] == "encode_ids" for c in calls)
    for call in calls:
        assert _result(tok, call) == _fresh(qwen3_json, call), call[0::2]


def test_a_failed_encode_leaves_nothing_behind(qwen3_json: Path) -> None:
    tok = Tokenizer.from_file(qwen3_json)
    long_text = "word " * 20_000
    want = tok.encode(long_text, False).ids.tolist()
    short = tok.encode("a b", False)
    try:
        tok.encode(long_text, False, "no-such-encoder")
    except ValueError:
        pass
    assert tok.encode("a b", False).ids.tolist() == short.ids.tolist()
    assert tok.encode(long_text, False).ids.tolist() == want
    assert tok.encode("a b", False).offsets.tolist() == short.offsets.tolist()


def test_threads_on_one_handle_equal_fresh_handles(qwen3_json: Path) -> None:
    tok = Tokenizer.from_file(qwen3_json)
    for enc in ENCODERS:
        tok.encode("x", False, enc)   # every encoder prepared before the threads share the handle
    calls = _calls(7, 120)
    want = [_fresh(qwen3_json, c) for c in calls]
    for _ in range(3):
        with ThreadPoolExecutor(4) as pool:
            got = list(pool.map(lambda c: _result(tok, c), calls))
        assert got == want
