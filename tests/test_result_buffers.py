"""An encode's arrays reach Python without a copy (native/python/pymodule.c OwnedBuf): each is a
read-only buffer that owns the engine's block and frees it when its last view goes. What a user's
arrays hold must not change when the encode's own objects are dropped and the engine reuses memory,
and nothing may be written through them."""

from __future__ import annotations

import gc

import numpy as np
import pytest

from tokinspect import Tokenizer

TEXT = "Hello world, 世界! Don't panic.\n\tdef f(x): return x + 1\n" * 50


@pytest.fixture(scope="module")
def tok() -> Tokenizer:
    return Tokenizer.default()


def test_arrays_outlive_the_raw_results(tok: Tokenizer) -> None:
    want = tok.encode(TEXT, False)
    ids, offs = want.ids.copy(), want.offsets.copy()
    got = [tok.encode(TEXT, False) for _ in range(3)]
    only = [tok.encode_ids(TEXT, False) for _ in range(3)]
    batch = tok.encode_batch([TEXT, TEXT[:100], ""], False, threads=2)
    del want
    gc.collect()
    # the engine's freed blocks are what these calls allocate next: a view on a freed block would change
    for _ in range(20):
        tok.encode(TEXT[::-1], False)
        tok.encode_ids(TEXT.upper(), False)
        tok.encode_batch([TEXT[::2], TEXT[1::2]], False, threads=2)
    for e in got:
        assert e.ids.tolist() == ids.tolist() and e.offsets.tolist() == offs.tolist()
    for a in only:
        assert a.tolist() == ids.tolist()
    assert batch[0].ids.tolist() == ids.tolist()
    assert batch[1].ids.tolist() == tok.encode(TEXT[:100], False).ids.tolist()
    assert batch[2].ids.tolist() == []


def test_raw_buffers_are_read_only_bytes(tok: Tokenizer) -> None:
    h = tok._handle
    for raw in (h.encode(TEXT, False, "bpe"), h.encode("", False, "bpe"),
                *h.encode_batch([TEXT, ""], False, "bpe", 2, False, 0, 2)):
        ids, offsets, char_offsets, special = raw
        n = len(ids) // 4
        assert len(offsets) == len(char_offsets) == 8 * n and len(special) == n
        for b in raw:
            m = memoryview(b)
            assert m.readonly and m.nbytes == len(b) and bytes(b) == m.tobytes()
            with pytest.raises(TypeError):
                m[:1] = b"x"
    # a memoryview keeps its buffer alive by itself (numpy keeps the object it was given)
    views = [memoryview(h.encode_ids(TEXT, False, "bpe")) for _ in range(3)]
    gc.collect()
    for _ in range(20):
        h.encode_ids(TEXT[::-1], False, "bpe")
    want = np.asarray(tok.encode(TEXT, False).ids, dtype=np.uint32).tobytes()
    assert all(v.tobytes() == want for v in views)
    only = h.encode_ids(TEXT, False, "bpe")
    assert np.frombuffer(only, dtype=np.uint32).tolist() == tok.encode(TEXT, False).ids.tolist()
    arr = np.frombuffer(only, dtype=np.uint32)
    with pytest.raises(ValueError):
        arr[0] = 1


def test_batch_ids_hand_their_blocks_over(tok: Tokenizer) -> None:
    """encode_batch_ids returns each text's ids in the engine's own block (no copy), a text cut for two
    threads or not: the values stay while the engine reuses memory, and nothing writes through them."""
    long_text = TEXT * 250   # above the cut threshold: two threads share it
    want = {t: tok.encode_ids(t, False).tolist() for t in (TEXT, long_text, "")}
    got = [(t, tok.encode_batch_ids([t], False, threads=th)[0]) for t in want for th in (1, 2)]
    raw = tok._handle.encode_batch([long_text, TEXT, ""], False, "bpe", 2, True, 1 << 18, 2)
    gc.collect()
    for _ in range(10):
        tok.encode_batch_ids([long_text[::-1]], False, threads=2)
        tok.encode_ids(TEXT.upper(), False)
    for t, arr in got:
        assert arr.tolist() == want[t]
        with pytest.raises(ValueError):
            arr[:1] = 1
    assert [np.frombuffer(b, dtype=np.uint32).tolist() for b in raw] == [want[long_text], want[TEXT], []]
    for b in raw:
        m = memoryview(b)
        assert m.readonly and m.nbytes == len(b)
        with pytest.raises(TypeError):
            m[:1] = b"x"
