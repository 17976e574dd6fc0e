#!/usr/bin/env python3
"""gen_llama_unicode.py - generate native/src/llama_unicode_data.h: the Unicode tables llama.cpp's WPM
tokenizer (llm_tokenizer_wpm_session::preprocess) classifies code points with.

Run:  python3 native/gen_llama_unicode.py DB_DIR          (writes native/src/llama_unicode_data.h)
      python3 native/gen_llama_unicode.py DB_DIR --check  (exit 1 if stale)

DB_DIR holds unicodedata_db.h and unicodetype_db.h of the unicodedata2==15.1.0 source archive
(sha256 5309a7c6fd207ffd08d13485bd715646b2107f1503a8e405ec949aa73544bbd8 and
e863395fbcccf6d34bf3b7a9da4fc29b7147a3d6c06e9530b9b7ae01fe32f07a; tests/pypi_files.py fetches them:
pypi_file("unicodedata2", "15.1.0", "unicodedata2/unicodedata_db.h", sdist=True)).

What llama.cpp does (scripts/gen-unicode-data.py and src/unicode.cpp of the llama.cpp vendored by
llama-cpp-python 0.3.36), and how this file gets the same tables without copying its generated output:
  * flags: one category class per code point from UnicodeData.txt's general category (Cn undefined;
    Cc Cf Co Cs control; L* letter; M* mark; N* number; P* punctuation; S* symbol; Z* separator).
    The vendored table is at Unicode 15.1 (U+31EF and U+2EBF0 are assigned, 16.0's U+0897 is not):
    here from unicodedata2 15.1.0's database.
  * lowercase: UnicodeData.txt's simple lowercase mapping (the vendored table maps U+0130 to U+0069):
    the first code point of unicodedata2 15.1.0's lowercase record.
  * nfd: the FIRST code point of the canonical decomposition (unicodedata.normalize('NFD', c)[0]) of
    the Python that generated the vendored table; it equals Python 3.11's unicodedata (14.0): 16.0's
    decompositions (U+105C9 ...) are absent. Here from this interpreter's unicodedata, whose version
    is asserted.
  * whitespace: PropList White_Space, hardcoded in gen-unicode-data.py (not generated).
tests/test_gguf_wpm.py compares every code point of these tables with the vendored unicode-data.cpp.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from collections.abc import Callable
from pathlib import Path

OUT = Path(__file__).parent / "src" / "llama_unicode_data.h"
NFD_UNIDATA = "14.0.0"
DB_UNIDATA = "15.1.0"

# unicode.h's unicode_cpt_flags bits (the category part)
F_UNDEFINED, F_NUMBER, F_LETTER, F_SEPARATOR, F_MARK, F_PUNCT, F_SYMBOL, F_CONTROL = 1, 2, 4, 8, 16, 32, 64, 128
CLASS = {"L": F_LETTER, "M": F_MARK, "N": F_NUMBER, "P": F_PUNCT, "S": F_SYMBOL, "Z": F_SEPARATOR, "C": F_CONTROL}
WHITESPACE = sorted(list(range(0x09, 0x0E)) + list(range(0x2000, 0x200B))
                    + [0x20, 0x85, 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000])


def _arrays(path: Path, version: str) -> tuple[Callable[[str], str], Callable[[int], int]]:
    text = path.read_text(encoding="utf-8")
    assert f'#define UNIDATA_VERSION "{version}"' in text or version in text, path

    def array(name: str) -> str:
        m = re.search(r"\b" + name + r"\[\] = \{(.*?)\};", text, re.S)
        assert m, name
        return m.group(1)
    shift = int(re.search(r"#define SHIFT (\d+)", text).group(1))
    index1 = [int(x) for x in array("index1").split(",") if x.strip()]
    index2 = [int(x) for x in array("index2").split(",") if x.strip()]

    def rec_index(cp: int) -> int:
        return index2[(index1[cp >> shift] << shift) + (cp & ((1 << shift) - 1))]
    return array, rec_index


def load_gc(db_dir: Path) -> Callable[[int], str]:
    """cp -> general category (CPython unicodedata.c _getrecord_ex over unicodedata_db.h)."""
    array, rec_index = _arrays(db_dir / "unicodedata_db.h", DB_UNIDATA)
    recs = [int(r.split(",")[0]) for r in re.findall(r"\{([-0-9, ]+)\}", array("_PyUnicode_Database_Records"))]
    names = re.findall(r'"(\w*)"', array("_PyUnicode_CategoryNames"))
    return lambda cp: names[recs[rec_index(cp)]]


def load_lower(db_dir: Path) -> Callable[[int], int]:
    """cp -> simple lowercase (CPython unicodectype.c _PyUnicode_ToLowercase over unicodetype_db.h: an
    extended-case record gives the first code point of its mapping, else cp + delta)."""
    array, rec_index = _arrays(db_dir / "unicodetype_db.h", "")
    records = re.findall(r"\{([-0-9, ]+)\}", array("_PyUnicode_TypeRecords"))
    recs = [tuple(int(x) for x in r.split(",")) for r in records]
    ext = [int(x) for x in array("_PyUnicode_ExtendedCase").replace("\n", " ").split(",") if x.strip()]

    def lower(cp: int) -> int:
        rec = recs[rec_index(cp)]
        lo, flags = rec[1], rec[5]
        return ext[lo & 0xFFFF] if flags & 0x4000 else cp + lo
    return lower


def generate(db_dir: Path) -> str:
    assert unicodedata.unidata_version == NFD_UNIDATA, unicodedata.unidata_version
    gc, lower = load_gc(db_dir), load_lower(db_dir)
    flags = []
    for cp in range(0x110000):
        c = gc(cp)
        flags.append(F_UNDEFINED if c == "Cn" else CLASS[c[0]])
    ranges = [(0, flags[0])]
    for cp in range(1, 0x110000):
        if flags[cp] != ranges[-1][1]:
            ranges.append((cp, flags[cp]))
    lows = [(cp, lower(cp)) for cp in range(0x110000) if not 0xD800 <= cp < 0xE000 and lower(cp) != cp]
    nfd = []   # (first, last, nfd) runs of consecutive code points with the same first code point
    for cp in range(0x110000):
        if 0xD800 <= cp < 0xE000:
            continue
        n = ord(unicodedata.normalize("NFD", chr(cp))[0])
        if n == cp:
            continue
        if nfd and nfd[-1][1] == cp - 1 and nfd[-1][2] == n:
            nfd[-1] = (nfd[-1][0], cp, n)
        else:
            nfd.append((cp, cp, n))

    def rows(items: list[tuple[int, ...]], fmt: str, per: int) -> str:
        cells = [fmt % t for t in items]
        return "\n".join("    " + " ".join(cells[i:i + per]) for i in range(0, len(cells), per))
    return f"""/* llama_unicode_data.h - generated by native/gen_llama_unicode.py; do not edit.
 * The code point classes of llama.cpp's own Unicode tables (src/unicode-data.cpp of the llama.cpp
 * vendored by llama-cpp-python 0.3.36): categories and simple lowercase at Unicode {DB_UNIDATA}
 * (unicodedata2 {DB_UNIDATA}), first code point of NFD at Unicode {NFD_UNIDATA} (Python's unicodedata),
 * PropList White_Space. */
#ifndef TC_LLAMA_UNICODE_DATA_H
#define TC_LLAMA_UNICODE_DATA_H

#include <stdint.h>

enum {{ TC_LU_UNDEFINED = 1, TC_LU_NUMBER = 2, TC_LU_LETTER = 4, TC_LU_SEPARATOR = 8, TC_LU_MARK = 16,
       TC_LU_PUNCT = 32, TC_LU_SYMBOL = 64, TC_LU_CONTROL = 128 }};

/* {{first code point, class}}: the class holds up to the next entry's first code point */
static const uint32_t TC_LU_RANGES[{len(ranges)}][2] = {{
{rows(ranges, "{0x%X, %d},", 8)}
}};

/* {{code point, simple lowercase}}, sorted */
static const uint32_t TC_LU_LOWER[{len(lows)}][2] = {{
{rows(lows, "{0x%X, 0x%X},", 6)}
}};

/* {{first, last, first code point of NFD}}, sorted */
static const uint32_t TC_LU_NFD[{len(nfd)}][3] = {{
{rows(nfd, "{0x%X, 0x%X, 0x%X},", 4)}
}};

static const uint32_t TC_LU_WHITESPACE[{len(WHITESPACE)}] = {{
{rows([(w,) for w in WHITESPACE], "0x%X,", 10)}
}};

#endif
"""


def main() -> int:
    db_dir = Path(sys.argv[1])
    text = generate(db_dir)
    if "--check" in sys.argv:
        return 0 if OUT.read_text(encoding="utf-8") == text else 1
    OUT.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
