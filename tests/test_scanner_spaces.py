r"""The hand-written scanners' whitespace runs (fastpat.c ws_match) against the backtracking matcher.

Seeded texts of whitespace runs (ASCII, multi-byte Unicode spaces, \r and \n at every place in a run)
between words, digits, punctuation, invalid UTF-8 bytes and the text's end, and indented lines of
code: for \s*[\r\n]+ (up to the run's last \r or \n), \s+(?!\S) (all but the run's last unit) and
\s+, every pattern's matches equal regex.c's, which tests/test_regex_oracle.py holds against HF's
Oniguruma.
"""

from __future__ import annotations

import random

import pytest

from tokinspect import _tokcore

PATTERNS = {
    "qwen2": r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""",
    "cl100k": r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""",
    "gpt2": r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""",
}

# single-unit whitespace of every width: ASCII, NEL and NBSP (2 bytes), the ideographic space and
# line/paragraph separators (3 bytes), and the bytes of \r and \n
SPACES = [" ", "\t", "\n", "\r", "\x0b", "\x0c", "\u0085", "\u00a0", "\u1680", "\u2009", "\u2028", "\u2029",
          "\u3000", "\u205f"]
OTHERS = [b"x", b"word", b"7", b"123", b".", b"{", b"'s", "\u4e2d".encode(), "\u00e9t\u00e9".encode(), b"\xff",
          b"\x80", b"\xe3\x80", b"\xc2", "\U0001F600".encode(), b"\x00"]


def space_run(rng: random.Random) -> bytes:
    return "".join(rng.choice(SPACES) for _ in range(rng.randint(1, 12))).encode()


def text(rng: random.Random) -> bytes:
    parts = []
    for _ in range(rng.randint(1, 8)):
        parts.append(space_run(rng) if rng.random() < 0.6 else rng.choice(OTHERS))
    return b"".join(parts)


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_space_runs_match_the_backtracking_matcher(name: str) -> None:
    rng = random.Random(20261206)
    pattern = PATTERNS[name]
    for _ in range(4000):
        b = text(rng)
        assert _tokcore.find_all(pattern, b, True) == _tokcore.find_all(pattern, b, False), (name, b)


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_indented_code_matches_the_backtracking_matcher(name: str) -> None:
    """Lines of code: a newline, then indentation of spaces or tabs (a multi-byte space in some) before
    a word, a bracket or the end."""
    rng = random.Random(7)
    pattern = PATTERNS[name]
    for _ in range(500):
        lines = []
        for _ in range(rng.randint(1, 6)):
            indent = rng.choice([" ", "\t", "\u3000"]) * rng.randint(0, 9)
            lines.append(indent + rng.choice(["def f():", "return x", "}", "", "  ", "# \u00e9"]))
        b = rng.choice(["\n", "\r\n", "\n\n"]).join(lines).encode()
        assert _tokcore.find_all(pattern, b, True) == _tokcore.find_all(pattern, b, False), (name, b)
