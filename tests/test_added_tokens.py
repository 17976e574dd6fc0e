"""Added tokens on the Qwen3 tokenizer, differential against HF `tokenizers`:
special / non-special, lstrip, rstrip, single_word, normalized (with a
normalizer), overlapping tokens, spaces and non-ASCII in tokens, a token that
is already in the vocab; lookups (token_to_id / id_to_token / is_special) and
`special_mask`.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from conftest import assert_same, pair
from corpus import random_texts

N = 2000


def _tokens():
    from tokenizers import AddedToken as A

    return [
        A("<a>", special=False, normalized=False),
        A("<a><b>", special=False, normalized=False),  # overlaps "<a>": leftmost-longest
        A("<b>", special=True, normalized=False),
        A("[MASK]", special=True, lstrip=True, rstrip=True, normalized=False),
        A("<L>", special=False, lstrip=True, normalized=False),
        A("<R>", special=False, rstrip=True, normalized=False),
        A("<LR>", special=True, lstrip=True, rstrip=True, single_word=True, normalized=False),
        A("word", special=False, single_word=True, normalized=False),
        A("tok", special=True, single_word=True, normalized=False),
        A("hello world", special=False, normalized=False),  # contains a space
        A(" lead", special=False, normalized=False),  # starts with a space
        A("naïve 中文", special=False, normalized=False),  # non-ASCII
        A("🦙🦙", special=True, normalized=False),
        A("hello", special=False, normalized=False),  # already in the vocab
        A("<|im_start|>x", special=False, normalized=False),  # extends an existing special
    ]


def _normalized_tokens():
    from tokenizers import AddedToken as A

    return [
        A("HELLO", special=False, normalized=True),  # matches the normalized text ("ＨＥＬＬＯ" -> "hello")
        A("Straße", special=False, normalized=True),
        A("ﬁne", special=True, normalized=True),  # NFKC -> "fine"
        A("ＡＢＣ", special=False, normalized=False),  # raw match only
        A("Word", special=False, normalized=True, single_word=True),
        A("<X>", special=True, normalized=True, lstrip=True, rstrip=True),
        A("Zz", special=False, normalized=True, rstrip=True),
    ]


GLUE = ["", " ", "  ", "\n", "x", "é", "中", ".", "\t "]


def _texts(seed: int, contents: list[str]) -> list[str]:
    rng = random.Random(seed)
    crafted = ["", " ", "<a>", "<a><b>", "<a><b", "<a><a><b>", "<a> <b>", "x<a><b>y", "[MASK]", " [MASK] ",
               "a [MASK]b", "  <L>  ", " <R> ", "x <LR> y", "x<LR>y", " <LR>", "<LR> ", "word", "words", "a word",
               "sword", "word.", "tok tok", "tokenizer", "hello world", "hello  world", "hello", " hello",
               "ahello", "hellohello", " lead", "  lead", "lead", "naïve 中文", "naïve 中文naïve 中文", "🦙🦙🦙",
               "<|im_start|>x", "<|im_start|>", "<|im_start|>y", "ＨＥＬＬＯ", "HeLLo", "hello", "STRASSE", "straße",
               "ﬁne", "fine", "ＡＢＣ", "ABC", "Word", "WORD", "wordy", " <X> ", "<x>", "zz", "ZZ ", "Zz  z"]
    glued = []
    for _ in range(N // 2):
        parts = []
        for _ in range(rng.randint(1, 6)):
            parts.append(rng.choice(GLUE))
            parts.append(rng.choice(contents))
        parts.append(rng.choice(GLUE))
        glued.append("".join(parts))
    return crafted + glued + random_texts(seed, N, added=contents)


def _build(qwen3_json: Path, tmp_path: Path, tokens, normalizer=None, post=None) -> Path:
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(qwen3_json))
    if normalizer is not None:
        tok.normalizer = normalizer
    if post is not None:
        tok.post_processor = post
    for t in tokens:
        (tok.add_special_tokens if t.special else tok.add_tokens)([t])
    p = tmp_path / "added.json"
    tok.save(str(p))
    return p


def _check_lookups_and_mask(ours, hf, contents, texts):
    specials = {i for i, a in hf.get_added_tokens_decoder().items() if a.special}
    for c in contents:
        i = hf.token_to_id(c)
        assert ours.token_to_id(c) == i, c
        assert ours.id_to_token(i) == hf.id_to_token(i), c
        assert ours.is_special(i) == (i in specials), c
    for i, a in hf.get_added_tokens_decoder().items():
        assert ours.token_to_id(a.content) == i and ours.id_to_token(i) == a.content
        assert ours.is_special(i) == a.special, a
    assert ours.vocab_size == hf.get_vocab_size(with_added_tokens=True)
    for add in (False, True):
        encs = ours.encode_batch(texts, add)
        refs = hf.encode_batch(texts, add_special_tokens=add)
        # an id that is both a special added token and a model entry (here
        # "tok") is special only where it was matched as the added token,
        # which HF's mask does not tell: those positions are not compared
        model_ids = set(hf.get_vocab(with_added_tokens=False).values())
        for t, e, h in zip(texts, encs, refs):
            want = [int(m or i in specials) for i, m in zip(h.ids, h.special_tokens_mask)]
            got = e.special_mask.tolist()
            keep = [k for k, i in enumerate(h.ids) if not (i in specials and i in model_ids)]
            assert [got[k] for k in keep] == [want[k] for k in keep], (t, add, h.ids)


def _contents(tokens) -> list[str]:
    return [t.content for t in tokens]


def test_added_tokens_qwen3(qwen3_json, tmp_path):
    toks = _tokens()
    ours, hf = pair(_build(qwen3_json, tmp_path, toks))
    contents = _contents(toks) + ["<|im_end|>", "<|endoftext|>"]
    texts = _texts(1, contents)
    _check_lookups_and_mask(ours, hf, contents, texts[:500])
    assert_same(ours, hf, texts, add_special_tokens=False, label="added")
    assert_same(ours, hf, texts, add_special_tokens=True, label="added +specials")


def test_added_tokens_existing_vocab_entry(qwen3_json, tmp_path):
    """An added token equal to a vocab entry keeps the vocab id in both."""
    toks = _tokens()
    ours, hf = pair(_build(qwen3_json, tmp_path, toks))
    vid = json.loads(Path(qwen3_json).read_text(encoding="utf-8"))["model"]["vocab"]["hello"]
    assert hf.token_to_id("hello") == vid
    assert ours.token_to_id("hello") == vid


def test_added_tokens_normalized(qwen3_json, tmp_path):
    from tokenizers import normalizers

    toks = _normalized_tokens()
    norm = normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase()])
    ours, hf = pair(_build(qwen3_json, tmp_path, toks, normalizer=norm))
    contents = _contents(toks) + ["ＨＥＬＬＯ", "hello", "STRASSE", "fine", "ABC", "WORD", "<x>", "ＺＺ"]
    texts = _texts(2, contents)
    assert_same(ours, hf, texts, add_special_tokens=False, label="normalized")
    assert_same(ours, hf, texts, add_special_tokens=True, label="normalized +specials")
    assert ours.encode("ＨＥＬＬＯ", False).ids.tolist() == hf.encode("ＨＥＬＬＯ", add_special_tokens=False).ids


def test_added_tokens_with_template_and_trim(qwen3_json, tmp_path):
    """Template-added specials count in special_mask; trim_offsets also
    trims added tokens that begin or end with whitespace."""
    from tokenizers import processors

    toks = _tokens()
    start, end = 151644, 151645
    post = processors.Sequence([
        processors.ByteLevel(trim_offsets=True, add_prefix_space=False),
        processors.TemplateProcessing(single="<|im_start|> $A <|im_end|>",
                                      special_tokens=[("<|im_start|>", start), ("<|im_end|>", end)]),
    ])
    ours, hf = pair(_build(qwen3_json, tmp_path, toks, post=post))
    contents = _contents(toks) + ["<|im_end|>"]
    texts = _texts(3, contents)
    _check_lookups_and_mask(ours, hf, contents, texts[:500])
    assert_same(ours, hf, texts, add_special_tokens=False, label="template+trim")
    assert_same(ours, hf, texts, add_special_tokens=True, label="template+trim +specials")


@pytest.mark.parametrize("text", ["", " ", "\n"])
def test_empty_and_blank(qwen3_json, tmp_path, text):
    from tokenizers import processors

    post = processors.TemplateProcessing(single="<|im_start|> $A <|im_end|>",
                                         special_tokens=[("<|im_start|>", 151644), ("<|im_end|>", 151645)])
    ours, hf = pair(_build(qwen3_json, tmp_path, _tokens(), post=post))
    for add in (False, True):
        e, h = ours.encode(text, add), hf.encode(text, add_special_tokens=add)
        assert e.ids.tolist() == h.ids and e.offsets.tolist() == [list(o) for o in h.offsets]
        assert e.special_mask.tolist() == h.special_tokens_mask


def test_added_token_ids_follow_vocab(qwen3_json, tmp_path):
    """HF numbers added tokens from the model's vocab size on, whatever ids the
    JSON gives (it only warns). Here the vocab is cut to 1000 entries and the
    added tokens keep Qwen's ids 151643..: HF makes them 1000, 1001, ..."""
    d = json.loads(Path(qwen3_json).read_text(encoding="utf-8"))
    m = d["model"]
    vocab = {k: v for k, v in m["vocab"].items() if v < 1000}
    merges = [mg for mg in m["merges"] if mg[0] in vocab and mg[1] in vocab and mg[0] + mg[1] in vocab]
    d["model"] = dict(m, vocab=vocab, merges=merges)
    d["added_tokens"] = d["added_tokens"][:3]
    p = tmp_path / "ids.json"
    p.write_text(json.dumps(d), encoding="utf-8")
    ours, hf = pair(p)
    for a in d["added_tokens"]:
        assert ours.token_to_id(a["content"]) == hf.token_to_id(a["content"]), (a, hf.token_to_id(a["content"]))
    assert_same(ours, hf, ["hi<|im_end|>"], label="ids")


@pytest.mark.parametrize("text", ["étok", "中tok", "中<LR>"])
def test_single_word_after_non_ascii_letter(qwen3_json, tmp_path, text):
    """Minimal: a single_word token right after a non-ASCII letter is not a
    match in HF (the letter is alphanumeric: no word boundary)."""
    ours, hf = pair(_build(qwen3_json, tmp_path, _tokens()))
    assert_same(ours, hf, [text], label="single_word")
    e = ours.encode(text, False)
    assert e.special_mask.tolist() == [0] * len(e), e.special_mask


def test_one_first_byte_skips_to_it(qwen3_json):
    """Every added token of Qwen3's own file starts with '<': the split jumps from one '<' to the
    next (native/src/added.c, memchr), so '<' that start no token, tokens back to back, at the
    text's ends and after a rejected match must still split as HF's do."""
    ours, hf = pair(qwen3_json)
    starts = {a.content[0] for a in hf.get_added_tokens_decoder().values()}
    assert starts == {"<"}
    names = [a.content for a in hf.get_added_tokens_decoder().values()]
    parts = ["<", "<|", "<|im", "|>", ">", "a", " ", "\n", "中", "<<", "< |im_start|>", "<think", "</"] + names
    rng = random.Random(20261203)
    texts = ["".join(rng.choice(parts) for _ in range(rng.randint(1, 24))) for _ in range(N)]
    texts += [names[0] * 3, "<" * 50 + names[1], names[2] + "<", "x" * 40 + "<"]
    assert_same(ours, hf, texts, add_special_tokens=False, label="one first byte")
    assert [ours.encode_ids(t, False).tolist() for t in texts[:300]] == [hf.encode(t, add_special_tokens=False).ids
                                                                       for t in texts[:300]]
