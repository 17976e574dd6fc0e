"""A handle keeps its earlier encodes' buffers for the next ones (native/python/pymodule.c take_spare /
give_spare, up to 16 of them: a fresh 22 MB encoding was page-faulted in on every call of War and
Peace, and every text of a batch alike). Nothing of one call may reach the next: every result here,
in an order that mixes long and short texts, single calls and batches (cut at anchors or not, more
texts than there are spares), ids-only and full encodes, every encoder, failures and threads, equals
a fresh handle's for the same call."""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from corpus import random_text
from tokinspect import Tokenizer
from tokinspect.core import split_batch

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
    if what.startswith("batch"):   # batch<texts>:<threads>:<ids>, the texts drawn from the call's text
        k, threads, ids = (int(x) for x in what[5:].split(":"))
        texts = [text[i * len(text) // k:(i + 1) * len(text) // k] for i in range(k)]
        if ids:
            return ("batch ids", [a.tolist() for a in tok.encode_batch_ids(texts, add, enc, threads)])
        return ("batch", [(e.ids.tolist(), e.offsets.tolist(), e.byte_offsets.tolist(), e.special_mask.tolist())
                          for e in tok.encode_batch(texts, add, enc, threads)])
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
    rng = random.Random(8)
    calls += [(f"batch{rng.choice((2, 20))}:{rng.choice((1, 2))}:{rng.randrange(2)}", c[1], c[2], "bpe")
              for c in calls[:30]]
    rng.shuffle(calls)
    want = [_fresh(qwen3_json, c) for c in calls]
    for _ in range(3):
        with ThreadPoolExecutor(4) as pool:
            got = list(pool.map(lambda c: _result(tok, c), calls))
        assert got == want


def test_batches_between_single_calls_equal_fresh_handles(qwen3_json: Path) -> None:
    """Batches take the spares single calls left and leave theirs (a batch of 20 texts leaves 16);
    a long text with threads=2 is cut at anchors into pieces that take spares of their own."""
    tok = Tokenizer.from_file(qwen3_json)
    rng = random.Random(20261204)
    calls = _calls(11, 60)
    mixed: list[tuple[str, str | bytes, bool, str]] = []
    for call in calls:
        mixed.append(call)
        if rng.random() < 0.5:
            k = rng.choice((1, 3, 20))
            mixed.append((f"batch{k}:{rng.choice((1, 2))}:{rng.randrange(2)}", call[1], call[2],
                          rng.choice(("bpe", "rank"))))
    novel = "".join(random_text(rng, max_parts=40) + "\n" + rng.choice(("The", "A", "你")) for _ in range(40_000))
    assert split_batch.pieces(tok, [novel], "bpe", 2) > 2   # cut for two threads
    mixed += [("batch1:2:0", novel, True, "bpe"), ("encode", "a b", True, "bpe"), ("batch1:2:1", novel, True, "bpe"),
              ("batch20:2:0", novel, False, "bpe"), ("encode", novel[:5000], True, "bpe")]
    assert sum(c[0].startswith("batch") for c in mixed) > 20
    for call in mixed:
        assert _result(tok, call) == _fresh(qwen3_json, call), call[0::2]
