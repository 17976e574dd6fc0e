"""The fixed texts a contract is made of: golden samples in seed 003's categories, and the probe set
of the behaviour fingerprint.

Golden samples ("用黄金样本锁住编码契约"): Chinese, English, emoji, combining marks, compatibility
characters (NFKC-sensitive), numbers and decimals, URLs, code indentation, an over-long string, every
added token, and malformed UTF-8 bytes (only where the model is byte-level: an API that takes only
Unicode strings has no such inputs). Users add their own (`user_samples`: one JSON string per line).

The probe set is fixed text only (no added tokens, no template): its ids depend on the vocabulary,
the merges and the pre-tokenizer, never on the file format.

Does not: encode anything (freeze.py and fingerprint.py do).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

# bump when PROBES or how they are hashed changes: a contract names the probe set it was hashed with
PROBE_SET = 1
LONG_REPEAT = 160           # the over-long sample: 160 x 26 letters, no space
SPECIALS_PER_SAMPLE = 32    # added tokens per "special" sample (a vocabulary may have thousands)


@dataclass(frozen=True)
class Sample:
    category: str
    text: str | bytes          # bytes: raw input, possibly invalid UTF-8
    add_special_tokens: bool = True


GOLDEN: tuple[tuple[str, str], ...] = (
    ("chinese", "低碳模型与低碳数据：Tokenizer 不是切词小工具，而是模型的输入坐标系。"),
    ("english", "The tokenizer is a frozen text-to-id contract; don't let it drift. Arthropoda"),
    ("emoji", "👍🏽 👨\u200d👩\u200d👧\u200d👦 🇨🇳 ❤️ 🦙"),
    ("combining", "e\u0301 cafe\u0301 n\u0303 A\u030a\u0323 \u1e9b\u0323 한\u1100\u1161"),
    ("compatibility", "Ⅳ ﬃ ① ｆｕｌｌ－ｗｉｄｔｈ ㎏ ½ ﹏ ℌ"),
    ("numbers", "3.14159 1,234,567.89 -0.001 2026-12-01 1e-10 0x1F 007 12345678901234567890"),
    ("url", "https://example.com/path/to?q=%E4%BD%8E&lang=zh-CN#frag mailto:a.b@c.io"),
    ("code", "def f(x):\n    if x:\n\treturn x  # tab\n        pass\n\n\n}\r\n"),
    ("long", "abcdefghijklmnopqrstuvwxyz" * LONG_REPEAT),
)
MALFORMED = b"\xff\xfe valid \xc3\x28 \xe2\x82 \xf0\x9f\x98 \xed\xa0\x80 end\x80"

PROBES: tuple[str, ...] = (
    "Hello, world! It's a test: I'm, you're, we've, they'll, he'd.",
    "  leading spaces, trailing spaces   ",
    "tabs\tand\nnewlines\r\n\n\nand   runs    of     spaces",
    "1 12 123 1234 12345 3.14 1,000,000 ٣٤٥ ๓๔",
    "低碳模型 低碳数据 数据库 人工智能 Transformer 的输入坐标系",
    "日本語のテキストとカタカナ、ひらがな。",
    "한국어 텍스트입니다.",
    "Русский текст, Ελληνικά, עברית, العربية, हिन्दी, ไทย",
    "👍🏽👨\u200d👩\u200d👧 ❤️",
    "def main():\n    return {'a': [1, 2, 3]}  // code\n",
    "https://example.com/a/b?c=d&e=f",
    "CamelCaseWords and snake_case_words and SCREAMING_CASE",
    "e\u0301 \u00e9 \u212b \u00c5",
    "!!!??? ... --- ___ *** ### $$$ %%% &&&",
)


def golden(byte_level: bool, added: Sequence[str]) -> list[Sample]:
    """The built-in samples; `added` is the content of every added token, in id order."""
    out = [Sample(cat, text) for cat, text in GOLDEN]
    for k in range(0, len(added), SPECIALS_PER_SAMPLE):
        # spaces around each token: lstrip/rstrip decide whether they stay, so a flipped flag shows
        out.append(Sample("special", "x " + " ".join(added[k:k + SPECIALS_PER_SAMPLE]) + " y"))
    if byte_level:
        out.append(Sample("malformed", MALFORMED))
    return out


def user_samples(path: str | Path) -> list[Sample]:
    """One JSON string per line (blank lines skipped); anything else is an error naming the line."""
    out = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError as exc:
            raise ValueError(f"{path}:{n}: not JSON: {exc}") from exc
        if not isinstance(value, str):
            raise ValueError(f"{path}:{n}: expected a JSON string, got {type(value).__name__}")
        out.append(Sample("user", value))
    return out


def _lcg(seed: int) -> list[int]:
    """A fixed pseudo-random sequence (Knuth's MMIX constants), the same on every Python version."""
    x, out = seed, []
    for _ in range(64):
        x = (x * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        out.append(x >> 33)
    return out


ALPHABET = "aeiou bcdfg 低碳数据 é\u0301 12.3 \n\t'sé😀ß_-"


def probes() -> list[str]:
    """PROBES plus 16 fixed strings drawn from ALPHABET."""
    rnd = ["".join(ALPHABET[v % len(ALPHABET)] for v in _lcg(seed)) for seed in range(16)]
    return [*PROBES, *rnd]
