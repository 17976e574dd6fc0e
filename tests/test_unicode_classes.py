"""The regex classes on every code point, against both references.

Every code point 0..0x10FFFF except the surrogates, for each class that real
split patterns use and their negations: our matcher (tokcore's regex.c) with
Oniguruma's flavour against HF tokenizers 0.23.3 (a Split pre-tokenizer whose
regex is the class), and with the regex crate's flavour against tiktoken
(a rank file's path: an Encoding whose pattern is `ab(?=CLASS)|[\\s\\S]`, so
that the token for "ab" marks each code point the class holds). All code
points go through each engine in one string, so a class costs about a
second per engine. Also: the version the classes are generated at is the
one both references use (unicodedata2's categories equal theirs); the header
is checked against the generator in tests/test_unicode_scripts.py.
"""
from __future__ import annotations

import numpy as np
import pytest
import tiktoken
import unicodedata2
from tokenizers import Regex, pre_tokenizers

from tokinspect import _tokcore

CPS = np.array([c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF], dtype=np.int64)
TEXT = "".join(map(chr, CPS.tolist()))
UTF8 = TEXT.encode("utf-8")
# byte offset of each code point's first byte in UTF8
_LENS = np.where(CPS < 0x80, 1, np.where(CPS < 0x800, 2, np.where(CPS < 0x10000, 3, 4)))
STARTS = np.concatenate([[0], np.cumsum(_LENS)[:-1]])

CLASSES = [
    r"\p{L}", r"\p{N}", r"\p{Lu}", r"\p{Ll}", r"\p{Lt}", r"\p{Lm}", r"\p{Lo}", r"\p{M}",
    r"\p{P}", r"\p{S}", r"\p{Z}", r"\p{Nd}", r"\p{C}", r"\s", r"\w", r"\d",
    r"\P{L}", r"\P{N}", r"[^\p{L}]", r"\S", r"\W", r"\D",
    # as the patterns combine them
    r"[\p{L}\p{N}]", r"[^\s\p{L}\p{N}]", r"[^\r\n\p{L}\p{N}]", r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]",
    r"[^\p{L}\p{P}]", r"[\w\s]", r"[^\w\s]",
]


def ours(cls: str, rust: bool) -> np.ndarray:
    spans = _tokcore.find_all(cls, UTF8, False, rust)
    hit = np.zeros(len(CPS), bool)
    starts = np.array([a for a, _ in spans], dtype=np.int64)
    idx = np.searchsorted(STARTS, starts)
    assert np.array_equal(STARTS[idx], starts), "a match starts inside a character"
    assert all(b - a == _LENS[i] for (a, b), i in zip(spans, idx.tolist())), "a match is not one character"
    hit[idx] = True
    return hit


def hf(cls: str) -> np.ndarray:
    """HF: what a Split(cls, removed) drops is what the class matches."""
    pieces = pre_tokenizers.Split(Regex(cls), behavior="removed").pre_tokenize_str(TEXT)
    kept = np.zeros(len(CPS), bool)
    for _, (a, b) in pieces:
        kept[a:b] = True
    return ~kept


_RANKS = {bytes([i]): i for i in range(256)}
_RANKS[b"ab"] = 256


def tiktoken_set(cls: str) -> np.ndarray:
    enc = tiktoken.Encoding("classes", pat_str=r"ab(?=" + cls + r")|[\s\S]", mergeable_ranks=_RANKS,
                            special_tokens={})
    toks = enc.encode_ordinary("".join("ab" + chr(c) for c in CPS.tolist()))
    hit = np.zeros(len(CPS), bool)
    i = 0
    for k, n in enumerate(_LENS.tolist()):
        if toks[i] == 256:
            hit[k] = True
            i += 1
        else:
            assert toks[i:i + 2] == [97, 98], f"unexpected tokens at U+{CPS[k]:04X}: {toks[i:i + 3]}"
            i += 2
        i += n  # the character's bytes, one token each
    assert i == len(toks)
    return hit


def describe(a: np.ndarray, b: np.ndarray) -> str:
    d = np.nonzero(a != b)[0]
    return f"{len(d)} code points differ, first: " + ", ".join(
        f"U+{CPS[i]:04X} (ours {bool(a[i])})" for i in d[:8])


@pytest.mark.parametrize("cls", CLASSES)
def test_class_equals_oniguruma(cls: str) -> None:
    mine, ref = ours(cls, rust=False), hf(cls)
    assert ref.any() and not ref.all()
    assert np.array_equal(mine, ref), describe(mine, ref)


@pytest.mark.parametrize("cls", CLASSES)
def test_class_equals_tiktoken(cls: str) -> None:
    mine, ref = ours(cls, rust=True), tiktoken_set(cls)
    assert ref.any() and not ref.all()
    assert np.array_equal(mine, ref), describe(mine, ref)


def test_fast_scanner_uses_the_same_classes() -> None:
    """The hand-written scanners classify with the same tables: on a text of
    every code point, separated so that each becomes its own pieces."""
    for pat in (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
                r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"):
        assert _tokcore.find_all(pat, UTF8, True) == _tokcore.find_all(pat, UTF8, False)


def test_generated_version_is_the_references() -> None:
    """unicodedata2's general categories (the generator's input) equal HF's
    Oniguruma and tiktoken's on every code point, so the version is right."""
    gc = np.array([unicodedata2.category(chr(c)) for c in CPS.tolist()])
    for cat in ("L", "N", "M", "P", "S", "Z"):
        want = np.char.startswith(gc, cat)
        cls = r"\p{" + cat + "}"
        assert np.array_equal(hf(cls), want), cat
        assert np.array_equal(tiktoken_set(cls), want), cat


O200K = (r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
         r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
         r"|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+")
# the tail of DeepSeek's split patterns (V3's tokenizer.json): \p{P}, \p{S}, \p{M}
DEEPSEEK = (r"[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")


def our_pieces(pattern: str, text: str) -> list[tuple[int, int]]:
    """Matches and the gaps between them, as a Split with "isolated" yields."""
    data = text.encode()
    out, at = [], 0
    for a, b in _tokcore.find_all(pattern, data, False):
        if a > at:
            out.append((at, a))
        if b > a:
            out.append((a, b))
        at = b
    if at < len(data):
        out.append((at, len(data)))
    return out


def hf_spans(pattern: str, text: str) -> list[tuple[int, int]]:
    pieces = pre_tokenizers.Split(Regex(pattern), behavior="isolated").pre_tokenize_str(text)
    return [(len(text[:a].encode()), len(text[:b].encode())) for _, (a, b) in pieces]


@pytest.mark.parametrize("pattern", [O200K, DEEPSEEK], ids=["o200k", "deepseek"])
def test_new_characters_split_as_hf(pattern: str) -> None:
    """The issue's strings (U+134D7 and U+136B0 are new in Unicode 15/16) and
    seeded strings of the newest characters among spaces, letters and marks."""
    import random

    from corpus import NEWEST
    rng = random.Random(15)
    texts = ["\U000134d7\n \n", " \U000136b0", "a\U000136b0b \U000134d7"]
    for _ in range(2000):
        texts.append("".join(rng.choice(NEWEST) if rng.random() < 0.5 else rng.choice(" \n\ta.,'s1\u0301Z")
                             for _ in range(rng.randint(1, 12))))
    bad = [t for t in texts if our_pieces(pattern, t) != hf_spans(pattern, t)]
    assert not bad, f"{len(bad)} texts split differently, first {bad[:3]!r}"


@pytest.mark.parametrize("kind", ["Whitespace", "Digits"])
def test_rust_classifiers_on_new_characters(kind: str, tmp_path) -> None:
    """HF's Whitespace and Digits pre-tokenizers classify with Rust's char
    methods (Unicode 17.0 in its build), not with Oniguruma: their pieces on
    strings of the newest characters among letters, digits and spaces."""
    import random

    from tokenizers import Tokenizer, models

    from corpus import NEWEST
    from tokinspect import Tokenizer as Ours
    hf_tok = Tokenizer(models.BPE({"a": 0}, [], unk_token=None))
    hf_tok.pre_tokenizer = pre_tokenizers.Whitespace() if kind == "Whitespace" else pre_tokenizers.Digits()
    hf_tok.save(str(tmp_path / "t.json"))
    ours = Ours.from_file(tmp_path / "t.json")
    rng = random.Random(17)
    texts = ["".join(rng.choice(NEWEST) if rng.random() < 0.5 else rng.choice(" a1.\u0301")
                     for _ in range(rng.randint(1, 10))) for _ in range(2000)]
    bad = []
    for t in texts:
        mine = [tuple(c.orig_span) for c in ours.trace(t, add_special_tokens=False).chunks]
        ref = [(len(t[:a].encode()), len(t[:b].encode())) for _, (a, b) in hf_tok.pre_tokenizer.pre_tokenize_str(t)]
        if mine != ref:
            bad.append(t)
    assert not bad, f"{len(bad)} texts split differently, first {bad[:3]!r}"
