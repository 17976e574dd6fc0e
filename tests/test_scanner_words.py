"""The scanners' word runs: ASCII letters read eight bytes at a time.

native/src/fastpat.c `ascii_letters` counts the letters among eight bytes with one word's
arithmetic (each byte's high bit says "letter"); a word run stops at the first byte that is not
one. These put every byte value and a few multi-byte characters at every position of long words,
at every alignment to the end of the text, and check the scanner's matches against the
backtracking matcher's (regex.c, itself checked against Oniguruma by test_regex_oracle.py), and a
sample of them against HF `tokenizers`' pre-tokenizer.
"""

from __future__ import annotations

import pytest
from test_stream_blocks import GPT2_PATTERN, QWEN2_PATTERN

from conftest import CL100K_PATTERN

PATTERNS = {"qwen2": QWEN2_PATTERN, "cl100k": CL100K_PATTERN, "gpt2": GPT2_PATTERN}
# every ASCII byte, then characters that are letters (é, ß, Greek, CJK), a digit and a space outside ASCII
PROBES = [chr(b) for b in range(128)] + ["\u00e9", "\u00df", "\u03a9", "\u4e2d", "\u0663", "\u00a0", "\u2019"]
WORD = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _texts() -> list[str]:
    out = []
    for probe in PROBES:
        for length in (7, 8, 9, 15, 16, 17, 24):
            w = (WORD * 2)[:length]
            for p in range(length + 1):
                t = w[:p] + probe + w[p:]
                out += [t, " " + t, t + " tail", "x" * (p % 9) + " " + t]
    return out


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_word_runs_match_the_backtracking_matcher(name: str) -> None:
    from tokinspect import _tokcore

    pattern = PATTERNS[name]
    texts = _texts()
    assert len(texts) > 10_000
    for t in texts:
        b = t.encode("utf-8")
        assert _tokcore.find_all(pattern, b, True) == _tokcore.find_all(pattern, b, False), (name, t)


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_word_runs_match_hf(name: str) -> None:
    from tokenizers import Regex, pre_tokenizers

    from tokinspect import _tokcore

    iso = pre_tokenizers.Split(Regex(PATTERNS[name]), behavior="isolated", invert=False)
    for t in _texts()[::7]:
        b = t.encode("utf-8")
        byte_at = [0]
        for ch in t:
            byte_at.append(byte_at[-1] + len(ch.encode("utf-8")))
        want = [(byte_at[s], byte_at[e]) for _, (s, e) in iso.pre_tokenize_str(t)]
        assert _tokcore.find_all(PATTERNS[name], b, True) == want, (name, t)
