"""Each text's characters by Unicode script, and a language's dominant script.

The script of a code point is the engine's table (HF tokenizers' UnicodeScripts pre-tokenizer:
Scripts.txt of Unicode 9.0, see native/src/unicode.h); "Any" is what that table leaves unlisted
(Common and Inherited: spaces, digits, punctuation, combining marks), which never decides a
language's script.

Does not: split a text into runs of one script (the UnicodeScripts pre-tokenizer does that).
"""

from __future__ import annotations

import functools
from collections import Counter

from .. import _tokcore

NO_SCRIPT = "Any"


@functools.lru_cache(maxsize=65536)
def script_of(ch: str) -> str:
    return str(_tokcore.unicode_script(ord(ch)))


def script_counts(text: str) -> dict[str, int]:
    """Characters of each script in `text` ("Any" included)."""
    out: Counter[str] = Counter()
    for ch, n in Counter(text).items():
        out[script_of(ch)] += n
    return dict(out)


def dominant(counts: dict[str, int]) -> str:
    """The script with the most characters, "Any" aside (ties: the name first in order)."""
    scored = [(-n, name) for name, n in counts.items() if name != NO_SCRIPT and n > 0]
    return min(scored)[1] if scored else NO_SCRIPT
