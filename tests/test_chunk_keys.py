"""The chunk cache's short keys and the byte -> char shortcuts of encode (pipeline.c, chunk_cache.h).

A chunk up to 16 bytes is hashed and compared as two words: its bytes, zero past its end (two loads
masked by its length where 16 bytes can be read at its start, the bytes copied first near a text's
end: a lone word is the second case, words joined in one text the first); the byte -> char pass skips eight ASCII bytes
at a time between its checkpoints (every 64 bytes) and maps an all-ASCII text byte for byte; a cache
hit whose tokens start and end on ASCII bytes takes its spans from the bytes without run_chunk. Each
test warms one handle's cache first, so the second encode of every text is answered from it.
"""

from __future__ import annotations

import random

from conftest import assert_same, pair


def _variants(length: int) -> list[str]:
    """Words of `length` letters that differ from one base word in one position each (and the
    base): a key rule that ignored any byte would answer one of them with another's tokens."""
    rng = random.Random(length)
    base = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(length))
    out = [base]
    for i in range(length):
        for c in "qZ\u00e9":
            if base[i] != c:
                out.append(base[:i] + c + base[i + 1:])
    return out


def test_short_keys_differing_in_one_byte(qwen3_json, cl100k_json):
    words = [w for n in range(1, 25) for w in _variants(n)]
    texts = words + [" " + w for w in words] + [w + "!" for w in words]
    for path, label in ((qwen3_json, "qwen3"), (cl100k_json, "cl100k")):
        ours, hf = pair(path)
        for _ in range(2):          # the second round is answered from the cache
            assert_same(ours, hf, texts, label=label)
        # every variant in one text: the chunks meet each other's cache entries in one call
        assert_same(ours, hf, [" ".join(words), "\n".join(reversed(words))], label=label + " joined")


def test_one_wide_char_at_every_position(qwen3_json, gpt2_json):
    """ASCII text of 200 bytes (three checkpoints) with one multi-byte char moved through every
    position: the eight-byte skip must stop for it and count it as one char."""
    rng = random.Random(5)
    parts = ["the", " cat", "'s", " 12", "345", "  ", "\n", "...", " (a)", "\t", "don't"]
    base = ""
    while len(base) < 200:
        base += rng.choice(parts)
    base = base[:200]
    texts = [base]
    for wide in ("\u00e9", "\u4e2d", "\U0001f600"):
        texts += [base[:i] + wide + base[i:] for i in range(len(base) + 1)]
        texts += [base[:i] + wide * 9 + base[i:] for i in range(0, len(base) + 1, 7)]
    for path, label in ((qwen3_json, "qwen3"), (gpt2_json, "gpt2 (trim_offsets)")):
        ours, hf = pair(path)
        for _ in range(2):
            assert_same(ours, hf, texts, label=label)
        assert_same(ours, hf, texts[:40], add_special_tokens=True, label=label + " with specials")


def test_token_past_the_end_of_the_text(tmp_path):
    """A byte-fallback word with an end-of-word suffix: the suffix's bytes are symbols past the
    chunk's end, and merged with the last letter a token starts inside the text and ends past it
    (HF: its char end is the start's char + 2). All-ASCII texts take the shortcut, the others the
    cursor; both must give HF's offsets."""
    import json

    from tokenizers import Tokenizer as HF

    from tokinspect import Tokenizer

    vocab = {"[UNK]": 0}
    for b in range(256):
        vocab[f"<0x{b:02X}>"] = len(vocab)
    for piece in ("a", "b", "<0x62><0x3C>", "<0x62><0x3C><0x2F>"):
        vocab[piece] = len(vocab)
    spec = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": [], "normalizer": None,
            "pre_tokenizer": {"type": "WhitespaceSplit"}, "post_processor": None, "decoder": None,
            "model": {"type": "BPE", "dropout": None, "unk_token": "[UNK]", "continuing_subword_prefix": None,
                      "end_of_word_suffix": "</w>", "fuse_unk": False, "byte_fallback": True,
                      "ignore_merges": False, "vocab": vocab,
                      "merges": ["<0x62> <0x3C>", "<0x62><0x3C> <0x2F>"]}}
    path = tmp_path / "suffix_fallback.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    hf, ours = HF.from_file(str(path)), Tokenizer.from_file(path)
    texts = ["ab", "ab ba", "a b", "x" * 70 + "b", "\u00e9b", "a\u00e9 b", "b " * 40]
    encs = hf.encode_batch(texts, add_special_tokens=False)
    # "b</w>" falls back to bytes, "b<" + "/" merge: one token from char 1 past the end of "ab"
    assert (1, 3) in encs[0].offsets, f"the case is not exercised: {encs[0].offsets}"
    for text, ref in zip(texts, encs):
        got = ours.encode(text, add_special_tokens=False)
        assert got.ids.tolist() == ref.ids, text
        assert [tuple(o) for o in got.offsets.tolist()] == ref.offsets, text


def test_cached_spans_at_split_chars(qwen3_json, cl100k_json, gpt2_json):
    """Chunks whose tokens split a multi-byte char (rare CJK, emoji, a combining mark: byte-level tokens
    of part of a char get the char's span) next to chunks of ASCII tokens, cold and from the cache:
    a hit takes its spans from its bytes only when every token starts and ends on an ASCII byte."""
    rng = random.Random(11)
    parts = ["the", " cat", "x", " 42", "(", ")", "  ", "\n", "\U00020000", "\U0001fae0", "a\U0001fae0b",
             " \u9fa5\u9fa5", "e\u0301", "\u00e9t\u00e9", "\u4e2d\u6587", " \U0001f600!", "\u0e20\u0e32\u0e29\u0e32"]
    texts = ["".join(rng.choice(parts) for _ in range(rng.randint(1, 12))) for _ in range(600)]
    for path, label in ((qwen3_json, "qwen3"), (cl100k_json, "cl100k"), (gpt2_json, "gpt2 (trim_offsets)")):
        ours, hf = pair(path)
        for _ in range(2):          # the second round is answered from the cache
            assert_same(ours, hf, texts, label=label)
        assert_same(ours, hf, ["".join(texts)], label=label + " joined")
