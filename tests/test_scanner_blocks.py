r"""The scanners' 64-byte blocks (native/src/fastpat.c `block_starts`) against the backtracking matcher.

QWEN2 and CL100K find every match start of 64 bytes from class bitmaps, keep the starts up to the
block's last run and resume there. These texts are long enough for many blocks and put every rule's
bytes at every position of a block: letter runs with a prefix of space, tab, \v, \f or one or more
punctuation bytes or non-ASCII units (a block takes letters, marks and symbols of any length as whole units), apostrophes before s/t/m/d/re/ve/ll in both cases (and before other letters, digits,
punctuation and the block's edge), digit runs of 1 to 7 (CL100K's groups of three), whitespace runs with
\r and \n at every place after punctuation, words and digits, non-ASCII characters (letters, digits,
spaces, invalid bytes; runs of them, which the scanners take in one call: unicode.c tc_unicode_rx_run),
non-ASCII digits and spaces that cut a block short, units across a block's end, and runs longer than a block. Every match equals
regex.c's (held against HF's Oniguruma by tests/test_regex_oracle.py), whole and resumed every k
matches (the encoder's streaming pre-tokenizer), and so do the real corpora: this repository's
sources, and War and Peace and the UDHR translations where ../shared/data is present.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from test_stream_blocks import GPT2_PATTERN, QWEN2_PATTERN

from conftest import CL100K_PATTERN
from tokinspect import _tokcore

PATTERNS = {"qwen2": QWEN2_PATTERN, "cl100k": CL100K_PATTERN, "gpt2": GPT2_PATTERN}
REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"

WORDS = ["a", "word", "Qwen", "x", "ll", "re", "ve", "s", "t", "m", "d", "S", "T", "RE", "Ve", "LL", "l", "r", "v",
         "e", "sea", "rex", "llama", "ZZ", "\u00e9t\u00e9", "\u4e2d\u6587", "na\u00efve", "\u017f", "\u017ft",
         "\u0436\u0438\u0437\u043d\u044c", "\U0001d400\U0001d401", "\u0915\u094d\u0937", "a\u0301b", "\u00e9\u0301"]
SPACES = [" ", "  ", "\t", "\x0b", "\x0c", "\n", "\r\n", "\n\n", " \n", "\n ", "\t\n  ", " \r \n \t", "    ",
          "\u3000", "\u00a0", "\u0085", " " * 70]
PUNCT = [".", ",", "'", "''", "\"", "(", ")", "{", "}", "::", "->", "...", "#", "\x00", "\x1f", "\x7f", "'.",
         "\u2019", "\u00bf", "\u0301", "\u00ab\u00bb", "\u2014", ".\u0301", "\U0001f600"]
# Arabic-Indic (Nd), Roman numerals (Nl), superscript two and circled digits (No)
DIGITS = ["1", "12", "123", "1234", "12345", "1234567", "\u0663\u0664", "\u2160\u2161\u00b2\u2460\u0663", "7\u00b2"]
OTHER = [b"\xff", b"\xc3", b"\x80\x80", "\U0001F600".encode(), b"\xe0\x80\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80",
         b"\xc3\xa9\xa9", b"\xe0\xa4", b"\xef\xbf\xbf"]


def piece(rng: random.Random) -> bytes:
    k = rng.random()
    if k < 0.35:
        return rng.choice(WORDS).encode()
    if k < 0.6:
        return rng.choice(SPACES).encode()
    if k < 0.8:
        return rng.choice(PUNCT).encode()
    if k < 0.93:
        return rng.choice(DIGITS).encode()
    if k < 0.97:
        return ("'" + rng.choice(WORDS)).encode()
    return rng.choice(OTHER)


def random_text(rng: random.Random, ascii_only: bool) -> bytes:
    parts = []
    size = rng.randint(64, 700)
    while sum(map(len, parts)) < size:
        p = piece(rng)
        if ascii_only and max(p) >= 0x80:
            continue
        parts.append(p)
    return b"".join(parts)


def check(name: str, b: bytes) -> None:
    pattern = PATTERNS[name]
    want = _tokcore.find_all(pattern, b, False)
    assert _tokcore.find_all(pattern, b, True) == want, (name, b)
    for k in (1, 3, 64):
        assert _tokcore.find_all(pattern, b, True, False, k) == want, (name, k, b)


@pytest.mark.parametrize("name", sorted(PATTERNS))
@pytest.mark.parametrize("ascii_only", [True, False], ids=["ascii", "mixed"])
def test_random_blocks_match_the_backtracking_matcher(name: str, ascii_only: bool) -> None:
    rng = random.Random(64 + ascii_only)
    for _ in range(1500):
        check(name, random_text(rng, ascii_only))


@pytest.mark.parametrize("name", ["qwen2", "cl100k"])
def test_every_rule_at_every_block_position(name: str) -> None:
    """A probe (a contraction, a prefixed word, a whitespace run with \r\n, some with their last \n
    16 to 40 bytes after another, digits) at each offset 0-80 after a filler, so that it meets a block's
    start, middle and edge."""
    probes = [b"x's", b"x'Re", b"x'llama", b"x'r.", b"x'", b"x'1", b" 'sx", b"\t'tx", b".\n\n  y", b". \n y",
              b"a\t.b", b"a .b", b"a..b", b"12345678", b"x\n\t y", b"x   y", b"x \x0b\x0cy", b"(\r\n)", b"'s",
              b"x\n" + b" " * 40 + b"\n y", b"x\n" + b" \t" * 15 + b"\r\n\t y", b"." + b"\n" * 20 + b" " * 30 + b"\n z"]
    # non-ASCII units inside a block: letters of 2-4 bytes, a mark or symbol alone (a run of one unit, a
    # letter's prefix) and in runs, an apostrophe before a letter that folds to s (U+017F) or another
    # non-ASCII letter, digits and spaces that cut the block, invalid and overlong bytes
    probes += [w.encode() for w in ("x\u0301y", " \u0301y", "x\u00ab\u00bby", "\u00bfQu\u00e9", "x\u2014\u2014y", "x.\u0301y",
                                    "x\u0301.y", "x\u0301\r\n y", "x'\u017f", "x'\u017fy", "x'\u017fT", "x'r\u00e9", "x'l\u0142y",
                                    "x'\u00e9t\u00e9", "\u0436\u0438 \u0437\u043d\u044c", "\u4e2d\u6587\u3002\u4e2d",
                                    "\U0001d400 \U0001d401b", "\u0915\u094d\u0937 \u093e", "x\u00a0y", "x \u00a0 y",
                                    "x\u0663y", "x 12\u00b2", "\t\u00e9", "\u00e9\t\u00e9", "x\U0001f600y", " \U0001f600\u0301y")]
    probes += [b"x\xc3y", b"x\xe0\x80\x80y", b"x\xed\xa0\x80y", b"x\x80y", b"\xc3\xa9\xa9y", b"x\xe0\xa4 y", b"x\xf0\x9f\x98y"]
    for probe in probes:
        for off in range(81):
            for fill in (b"a", b" ", b"."):
                check(name, fill * off + probe + b" tail of the text " * 4)
                check(name, fill * off + probe)


def corpus() -> list[Path]:
    files = sorted(p for p in (REPO / "native").rglob("*") if p.suffix in {".c", ".h", ".md"})
    files += sorted((REPO / "app").rglob("*.py"))
    if DATA.is_dir():
        files += [DATA / "ollama" / "war-and-peace.txt", *sorted((DATA / "udhr" / "txt").glob("*.txt"))]
    return files


@pytest.mark.parametrize("name", ["qwen2", "cl100k"])
def test_real_text_matches_the_backtracking_matcher(name: str) -> None:
    pattern = PATTERNS[name]
    files = corpus()
    assert len(files) > 50
    for f in files:
        b = f.read_bytes()
        assert _tokcore.find_all(pattern, b, True) == _tokcore.find_all(pattern, b, False), f


@pytest.mark.parametrize("name", ["qwen2", "cl100k"])
@pytest.mark.parametrize("after", ["", "r", "v", "l"])
def test_every_code_point_after_an_apostrophe(name: str, after: str) -> None:
    """'s 't 'm 'd 're 've 'll match case-insensitively, and a non-ASCII letter may fold to one of those
    letters (U+017F folds to s): every code point below U+30000 after an apostrophe, and after 'r 'v 'l,
    in a text of many blocks."""
    chars = (chr(c) for c in range(0x80, 0x30000) if not 0xD800 <= c <= 0xDFFF)
    b = " ".join(f"x'{after}{c}y" for c in chars).encode()
    check(name, b)
