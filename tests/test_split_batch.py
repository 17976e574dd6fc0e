"""A batch's long texts cut at anchors for the engine's threads (native/src/batch_cut.c, with
app/core/split_batch.py's arguments) give each
text exactly its own encode: ids, character and byte offsets, special mask; the ids-only path its
encode_ids. The pieces are made small here (SPLIT_MIN_BYTES down, PIECES_PER_THREAD up) so that generated texts of
a few thousand characters are cut at dozens of anchors, including after whitespace runs that end in
"\\n" (the case the lookahead character is there for: GPT-2's `\\s+(?!\\S)` splits "  \\n" from a
following letter, not at the end of a text)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from conftest import cl100k_tiktoken_path, shared
from corpus import CONTRACTIONS, DIGITS, PUNCT, WORDS, random_text
from tokinspect.core import split_batch
from tokinspect.core.tokenizer import Tokenizer


def _text(rng: random.Random, n_chars: int, added: list[str]) -> str:
    """Lines of words, CJK lines and random fragments, many ending in spaces or tabs before "\\n"."""
    lines: list[str] = []
    size = 0
    while size < n_chars:
        r = rng.random()
        if r < 0.55:
            line = " ".join(rng.choice(WORDS) if rng.random() < 0.8 else rng.choice(DIGITS + PUNCT + CONTRACTIONS)
                            for _ in range(rng.randint(1, 12))).capitalize()
        elif r < 0.7:
            line = "".join(chr(rng.randint(0x4E00, 0x9FFF)) for _ in range(rng.randint(1, 12)))
        elif r < 0.8:
            line = ""
        else:
            line = random_text(rng, added, 8)
        if rng.random() < 0.3:
            line += rng.choice((" ", "  ", "\t", " \t ", "\u3000", "\r"))
        lines.append(line)
        size += len(line) + 1
    return "\n".join(lines)


def _same(tok: Tokenizer, texts: list[str | bytes], add_special_tokens: bool) -> None:
    got = tok.encode_batch(texts, add_special_tokens, threads=2)
    got_ids = tok.encode_batch_ids(texts, add_special_tokens, threads=2)
    for t, g, gi in zip(texts, got, got_ids):
        want = tok.encode(t, add_special_tokens)
        assert g.ids.tolist() == want.ids.tolist()
        assert np.array_equal(g.offsets, want.offsets) and np.array_equal(g.byte_offsets, want.byte_offsets)
        assert np.array_equal(g.special_mask, want.special_mask)
        assert gi.tolist() == want.ids.tolist()
        assert not g.ids.flags.writeable and not gi.flags.writeable


@pytest.fixture
def small_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(split_batch, "SPLIT_MIN_BYTES", 64)
    monkeypatch.setattr(split_batch, "PIECES_PER_THREAD", 16)


def _check(tok: Tokenizer, seed: int, n_texts: int = 3) -> None:
    added = [str(t["content"]) for t in tok.added_tokens][:12]
    rng = random.Random(seed)
    for _ in range(6):
        texts: list[str | bytes] = [_text(rng, rng.choice((3_000, 8_000)), added) for _ in range(n_texts)]
        texts.append(texts[0].encode("utf-8"))
        assert split_batch.pieces(tok, texts, "bpe", 2) >= 4 * len(texts), "the texts were not cut"
        for special in (False, True):
            _same(tok, texts, special)


def test_qwen3_default(small_pieces: None) -> None:
    _check(Tokenizer.default(), 31)


def test_cl100k(small_pieces: None) -> None:
    _check(Tokenizer.from_file(cl100k_tiktoken_path(), preset="cl100k"), 32)


def test_gpt2_pattern(small_pieces: None) -> None:
    """GPT-2's own pattern (ByteLevel's regex): without the lookahead character, a piece ending in
    " \\n" would keep it as one chunk where the whole text has two."""
    gpt2 = shared("onnxruntime-extensions", "gpt2")
    _check(Tokenizer.from_file(gpt2 / "gpt2.vocab", merges=gpt2 / "gpt2.merges.txt"), 33)


def test_one_long_text_is_shared_by_the_threads() -> None:
    """At the real sizes: one 1.2 MB text (threads=2) is cut into threads * 2 pieces, and encodes
    to its own encode."""
    tok = Tokenizer.default()
    text = _text(random.Random(34), 1_200_000, [])
    assert split_batch.pieces(tok, [text], "bpe", 2) == 4
    _same(tok, [text], False)
    assert split_batch.pieces(tok, [text], "bpe", 1) == 0


def test_what_is_not_cut(small_pieces: None) -> None:
    """Texts without an anchor, invalid UTF-8, lone surrogates, and pipelines that are not local at
    anchors (Qwen3.5's pattern) are encoded whole, with the same results."""
    tok = Tokenizer.default()
    no_anchor = "word " * 2_000
    bad_utf8 = b"abc\nDef " * 500 + b"\xff\n" + b"ghi\nJkl " * 500
    surrogate = "abc\nDef " * 500 + "\ud800" + "ghi\nJkl " * 500
    assert split_batch.pieces(tok, [no_anchor, bad_utf8], "bpe", 2) == 0
    _same(tok, [no_anchor, bad_utf8], False)
    for call in (tok.encode_batch_ids, tok.encode_batch):   # as encode_ids itself: str has no UTF-8 for it
        with pytest.raises(UnicodeEncodeError):
            call([surrogate], False, threads=2)
    with pytest.raises(UnicodeEncodeError):
        tok.encode_ids(surrogate, False)
    text = _text(random.Random(35), 8_000, [])
    q35 = Tokenizer.default("qwen3.5")
    assert split_batch.pieces(q35, [text], "bpe", 2) == 0
    assert split_batch.pieces(tok, [text], "greedy", 2) == 0
    _same(q35, [text], False)
