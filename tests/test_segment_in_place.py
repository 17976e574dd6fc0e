"""A segment that no normalizer rewrites is read where the caller has it (pipeline.c run_segment).

The chunk loop reads a chunk's key as 16 bytes from its start whatever the chunk's length; the text
used to be copied into a buffer with 16 zero bytes after it, and is now the caller's own (a Python
str's or bytes' buffer, one NUL after its end), so the chunks of a text's last 16 bytes are keyed
from a copy (key_pieces, tc_cc_key_make_near). Texts here are longer than 512 bytes, so that Python
takes their buffers from malloc, where the ASan build of this file (tests/test_sanitized.py) reports
any byte read past them; their last chunk is every length from 1 to 20 bytes, after a prefix that
puts the same words in the cache with other bytes following them. Each text is encoded twice (the
second time answered from the cache), as str and as bytes, ids only and with offsets, against HF.
"""

from __future__ import annotations

import random

import numpy as np

from conftest import pair

# a prefix of 600+ bytes that holds every tail word below followed by other bytes, so the cache has
# their entries (keyed with those bytes still readable past them) before a text ends with one
_WORDS = ["x", "ab", "the", "tion", "which", "return", "printf", "function", "interface", "transformer",
          "\u00e9t\u00e9", "\u4e2d\u6587", "\u0645\u0631\u062d\u0628\u0627", "\U0001f600", "12", "3"]


def _tails(rng: random.Random) -> list[str]:
    """Last chunks of 1 to 20 bytes: words, numbers, punctuation runs, spaces, newlines."""
    tails = list(_WORDS)
    for n in range(1, 21):
        tails.append("".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(n)))
        tails.append(" " + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(n - 1)))
        tails.append("".join(rng.choice("!#%&*+-./:;<=>?@^|~") for _ in range(n)))
        tails.append(" " * n)
        tails.append("\n" * n)
    return tails


def _texts() -> list[str]:
    rng = random.Random(20261207)
    prefix = " ".join(w + rng.choice(["s", "ed", "!", "\n", " z", "1"]) for w in _WORDS * 6)
    assert len(prefix.encode("utf-8")) > 600
    return [prefix + sep + tail for tail in _tails(rng) for sep in (" ", "\n", "")]


def test_texts_end_in_every_short_chunk(qwen3_json):
    ours, hf = pair(qwen3_json)
    texts = _texts()
    refs = [hf.encode(t, add_special_tokens=False) for t in texts]
    for rnd in range(2):   # the second round is answered from the cache
        for text, ref in zip(texts, refs):
            raw = text.encode("utf-8")
            for arg in (text, raw):
                ids = ours.encode_ids(arg, add_special_tokens=False)
                assert ids.tolist() == ref.ids, (rnd, text[-30:])
                enc = ours.encode(arg, add_special_tokens=False)
                assert enc.ids.tolist() == ref.ids, (rnd, text[-30:])
            enc = ours.encode(text, add_special_tokens=False)
            assert enc.offsets.tolist() == [list(o) for o in ref.offsets], (rnd, text[-30:])
            assert raw == text.encode("utf-8")   # nothing was written into the caller's buffer


def test_batch_of_texts_ending_in_short_chunks(qwen3_json):
    ours, hf = pair(qwen3_json)
    texts = _texts()
    refs = hf.encode_batch(texts, add_special_tokens=False)
    for threads in (1, 2):
        got = ours.encode_batch_ids(texts, add_special_tokens=False, threads=threads)
        assert [g.tolist() for g in got] == [r.ids for r in refs]


def test_rewritten_segment_still_copied(qwen3_json):
    """A segment that the NFC normalizer rewrites (decomposed letters) is normalized in a copy:
    the caller's bytes stay as they were and the ids are HF's, at every tail length."""
    ours, hf = pair(qwen3_json)
    rng = random.Random(7)
    base = " ".join("cafe\u0301 re\u0301sume\u0301" for _ in range(60))
    for tail in _tails(rng):
        text = base + " " + tail
        raw = text.encode("utf-8")
        for arg in (text, raw):
            ids = ours.encode_ids(arg, add_special_tokens=False)
            assert ids.tolist() == hf.encode(text, add_special_tokens=False).ids, tail
        assert raw == text.encode("utf-8")
        assert np.array_equal(ours.encode(raw, add_special_tokens=False).ids,
                              ours.encode_ids(text, add_special_tokens=False))
