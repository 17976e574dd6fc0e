"""Seeded random strings for differential tests against HF `tokenizers`.

Mixes scripts, combining marks, emoji with ZWJ and variation selectors,
digits of several scripts, runs of spaces/tabs/newlines, contractions in any
case, and (optionally) added tokens glued to words. Lone surrogates are
excluded (a Python str with one cannot be UTF-8).
"""

from __future__ import annotations

import random
import unicodedata

import unicodedata2

WORDS = ["hello", "World", "tokenizer", "naïve", "Führer", "straße", "İstanbul", "ıi", "ĲSSEL", "ﬁne",
         "Привет", "мир", "Ελληνικά", "ΣΊΣΥΦΟΣ", "שלום", "مرحبا", "नमस्ते", "क़िला", "ภาษาไทย", "中文",
         "日本語", "한국어", "한", "각", "Việt", "Ångström", "e\u0301", "a\u0308\u0301", "o\u0323\u0302",
         "cafe\u0301", "Ａｂｃ", "ｶﾀｶﾅ", "㍿", "①②", "x²", "Ⅻ", "½", "µ", "ſ", "K", "Å", "ǅ", "ß"]
EMOJI = ["🦙", "😀", "👍🏽", "👨\u200d👩\u200d👧", "❤\ufe0f", "🏳\ufe0f\u200d🌈", "🇫🇷", "✈", "☕"]
DIGITS = ["0", "7", "42", "123456", "3.14", "1,000", "٣٤٥", "१२३", "１２３", "๓", "Ⅻ", "⅔"]
PUNCT = [".", ",", "!", "?", ";", ":", "...", "—", "–", "-", "/", "\\", "(", ")", "[", "]", "{", "}", "\"",
         "'", "`", "«", "»", "“", "”", "、", "。", "！", "@", "#", "$", "%", "^", "&", "*", "_", "+", "=",
         "<", ">", "|", "~", "€", "¥", "©", "®", "°", "•", "\u00ad"]
SPACES = [" ", "  ", "   ", "\t", "\t\t", "\n", "\n\n", "\r\n", " \n", "\n ", "  \n\n  ", "\u00a0", "\u3000",
          "\u2028", "\u0085", "\u000b", "\u000c", "\u001c", "\u200b", "\u2009"]
CONTRACTIONS = ["'s", "'S", "'t", "'T", "'re", "'RE", "'Re", "'ve", "'VE", "'m", "'M", "'ll", "'LL", "'Ll",
                "'d", "'D", "'ſ", "’s", "'x", "''"]
MARKS = ["\u0300", "\u0301", "\u0302", "\u0308", "\u0323", "\u0327", "\u0316", "\u093c", "\u05b7", "\u0e31",
         "\u20dd", "\u1ab0", "\ufe0f", "\u200d"]


def _newest() -> list[str]:
    """Characters assigned after Unicode 14.0 up to the regex classes' version
    (unicodedata2 16.0.0: e.g. U+136B0, U+134D7), where stale tables differ."""
    return [chr(c) for c in range(0x110000)
            if unicodedata.category(chr(c)) == "Cn" and unicodedata2.category(chr(c)) != "Cn"]


NEWEST = _newest()


def random_text(rng: random.Random, added: list[str] | None = None, max_parts: int = 12) -> str:
    parts = []
    for _ in range(rng.randint(0, max_parts)):
        r = rng.random()
        if r < 0.30:
            w = rng.choice(WORDS)
            parts.append(w.upper() if rng.random() < 0.1 else w)
        elif r < 0.40:
            parts.append(rng.choice(SPACES))
        elif r < 0.50:
            parts.append(rng.choice(DIGITS))
        elif r < 0.60:
            parts.append(rng.choice(PUNCT))
        elif r < 0.68:
            parts.append(rng.choice(CONTRACTIONS))
        elif r < 0.74:
            parts.append(rng.choice(EMOJI))
        elif r < 0.80:
            parts.append(rng.choice(MARKS))
        elif r < 0.86 and added:
            parts.append(rng.choice(added))
        elif r < 0.93:
            # a random code point from the BMP planes in use (no surrogates, no private use)
            cp = rng.choice([rng.randint(0x20, 0x2FF), rng.randint(0x370, 0x1FFF), rng.randint(0x2000, 0x2BFF),
                             rng.randint(0x3000, 0x9FFF), rng.randint(0xAC00, 0xD7A3), rng.randint(0xF900, 0xFFEF),
                             rng.randint(0x1F300, 0x1FAFF)])
            parts.append(chr(cp) if rng.random() < 0.75 else rng.choice(NEWEST))
        else:
            parts.append(" " + rng.choice(WORDS))
    return "".join(parts)


def random_texts(seed: int, n: int, added: list[str] | None = None) -> list[str]:
    rng = random.Random(seed)
    return [random_text(rng, added) for _ in range(n)]
