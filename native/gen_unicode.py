#!/usr/bin/env python3
"""gen_unicode.py - generate native/src/unicode_data.h from Python's unicodedata.

Run:  python3 native/gen_unicode.py --scripts SCRIPTS_PY --lower DB_H          (writes unicode_data.h)
      python3 native/gen_unicode.py --scripts SCRIPTS_PY --lower DB_H --check  (exit 1 if stale)

Inputs: Python 3.11's unicodedata (14.0.0), the unicodedata2==16.0.0 package
(regex classes), and SCRIPTS_PY = fontTools/unicodedata/Scripts.py of the
fonttools==3.20.0 wheel (Scripts-10.0.0.txt as Python lists; sha256
34f15778bd64fc34b25c7b3af102954eafdfc623ceee92d91f8c79e350fadaa5), for the
UnicodeScripts pre-tokenizer: `pip download --no-deps fonttools==3.20.0`
and unzip that member; DB_H = unicodedata2/unicodetype_db.h of the
unicodedata2==17.0.0 source archive (sha256 c56eea32475b4b8a...) for the
lowercase mappings (see load_lower), with unicodedata_db.h (ebf61e5a46b5...)
beside it for the categories (load_gc). tests/test_unicode_scripts.py fetches
both through tests/pypi_files.py.

Deterministic: output depends only on unicodedata (its version is recorded in
the header), unicodedata2 (RX_UNIDATA, for the regex classes) and the
hardcoded range lists below.

What is generated (all `static const`, no mutable state):
  * a two-stage table cp -> record index (block of 128 code points), and
    a record table {gc, ccc, flags, fold delta, lower delta};
  * full (recursively expanded, unsorted) canonical and compatibility
    decompositions, sorted by code point, for binary search (Hangul
    syllables are algorithmic and not in the table);
  * canonical composition pairs (primary composites only), sorted by pair;
  * the full lowercase mappings that are longer than one code point.

Property derivations:
  * gc (tc_unicode_gc, the Rust-side classifiers): Unicode 17.0's category
    from DB_H's sibling unicodedata_db.h (load_gc), the version of the Rust
    that built HF tokenizers 0.23.3. The regex classes have their own table.
  * White_Space: the PropList set, hardcoded (str.isspace differs).
  * alnum (Rust char::is_alphanumeric = Alphabetic || Numeric): categories
    L*, Nl, Nd, No, plus Other_Alphabetic. Other_Alphabetic is not exposed
    by unicodedata, so OTHER_ALPHABETIC below is hardcoded (Unicode 14.0,
    derived once from the UCD's DerivedCoreProperties Alphabetic minus
    L*/Nl, via perl's Unicode::UCD 14.0.0).
  * fold (simple case folding): chr(cp).casefold() if one code point, else
    chr(cp).lower() if one code point, else cp.
  * lower (full, context free, Rust char::to_lowercase): Unicode 17.0 from
    DB_H (load_lower); equal to chr(cp).lower() where Python 3.11 knows cp.
  * Normalization data (ccc, decompositions, compositions, quick-check
    bits) is restricted to characters assigned in Unicode <= 9.0, because HF
    tokenizers' crate unicode-normalization-alignments 0.1.12 embeds Unicode
    9.0 tables: a character assigned later has ccc 0, no decomposition and
    composes with nothing there (verified against tokenizers 0.23.3, e.g.
    NFD keeps U+1DF6 U+0316 in order; NFC keeps U+11935 U+11930 apart).
    ASSIGNED_AFTER_9 below lists the code points whose DerivedAge is 10.0 ..
    14.0 (hardcoded, derived once from perl's Unicode::UCD 14.0.0). Decomposition
    mappings and combining classes of assigned characters are stable, so the
    Unicode 9 values are the current values for the rest.
  * Composition exclusions: a pair (a, b) -> c is kept iff c's raw canonical
    decomposition is exactly <a b>, a is a starter (ccc 0) and
    NFC(a b) == c (this removes the CompositionExclusions.txt entries and
    the non-starter decompositions; singletons have 1-char mappings).
  * Flags (TC_UD_F_* in unicode_data.h; unicode.c checks they agree with
    TC_UNF_* of unicode.h) for the normalizer fast paths:
    NFC_NY: NFC quick check is not Yes (No: NFC(c) != c; Maybe: c is the
    second element of a composition pair, including Hangul V and T jamo).
    NFKC_NY: NFC_NY or NFKC(c) != c.
"""
import sys
import unicodedata

# The regex classes' data (gc, Word, simple case folding): Unicode 16.0, the
# version of both references, measured on every code point: HF tokenizers
# 0.23.3's Oniguruma and tiktoken 0.14's regex crate agree with unicodedata2
# 16.0.0 on every \p{..} general category class (tests/test_unicode_classes.py).
# unicodedata2 is a build-time input of this script only (pip install
# unicodedata2==16.0.0); the rest of the header stays on Python's own
# unicodedata 14.0 (the Rust-side classifiers and the normalizers' data).
# Case folding ((?i)) has no data in unicodedata2 and stays at 14.0: a case
# pair added in 15.0/16.0 (e.g. U+A7CB/U+0264) does not fold in (?i) here.
RX_UNIDATA = "16.0.0"
BASE_UNIDATA = "14.0.0"

OUT = "native/src/unicode_data.h"

WHITE_SPACE = [(0x9, 0xD), (0x20, 0x20), (0x85, 0x85), (0xA0, 0xA0),
               (0x1680, 0x1680), (0x2000, 0x200A), (0x2028, 0x2029),
               (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000)]

# DerivedAge 10.0 .. 14.0 (code points assigned after Unicode 9.0).
ASSIGNED_AFTER_9 = """
560 588 5EF 61D 7FD-7FF 860-86A 870-88E 890-891 898-89F 8B5 8BE-8D3 9FC-9FE A76 AFA-AFF B55 C04
C3C C5D C77 C84 CDD D00 D04 D3B-D3C D81 E86 E89 E8C E8E-E93 E98 EA0 EA8-EA9 EAC EBA 170D 1715
171F 180F 1878 1ABF-1ACE 1B4C 1B7D-1B7E 1C90-1CBA 1CBD-1CBF 1CF7 1CFA 1DF6-1DFA 20BF-20C0 23FF
2B97 2BBA-2BBC 2BC9 2BD2-2BEB 2BF0-2BFF 2C2F 2C5F 2E45-2E5D 312E-312F 31BB-31BF 32FF 4DB6-4DBF
9FD6-9FFF A7AF A7B8-A7CA A7D0-A7D1 A7D3 A7D5-A7D9 A7F2-A7F6 A82C A8FE-A8FF AB66-AB6B FBC2
FD40-FD4F FDCF FDFE-FDFF 1019C 1032D-1032F 10570-1057A 1057C-1058A 1058C-10592 10594-10595
10597-105A1 105A3-105B1 105B3-105B9 105BB-105BC 10780-10785 10787-107B0 107B2-107BA 10A34-10A35
10A48 10D00-10D27 10D30-10D39 10E80-10EA9 10EAB-10EAD 10EB0-10EB1 10F00-10F27 10F30-10F59
10F70-10F89 10FB0-10FCB 10FE0-10FF6 11070-11075 110C2 110CD 11144-11147 111CE-111CF 1133B 1145A
1145E-11461 116B8-116B9 1171A 11740-11746 11800-1183B 11900-11906 11909 1190C-11913 11915-11916
11918-11935 11937-11938 1193B-11946 11950-11959 119A0-119A7 119AA-119D7 119DA-119E4 11A00-11A47
11A50-11AA2 11AB0-11ABF 11D00-11D06 11D08-11D09 11D0B-11D36 11D3A 11D3C-11D3D 11D3F-11D47
11D50-11D59 11D60-11D65 11D67-11D68 11D6A-11D8E 11D90-11D91 11D93-11D98 11DA0-11DA9 11EE0-11EF8
11FB0 11FC0-11FF1 11FFF 12F90-12FF2 13430-13438 16A70-16ABE 16AC0-16AC9 16E40-16E9A 16F45-16F4A
16F4F 16F7F-16F87 16FE1-16FE4 16FF0-16FF1 187ED-187F7 18AF3-18CD5 18D00-18D08 1AFF0-1AFF3
1AFF5-1AFFB 1AFFD-1AFFE 1B002-1B122 1B150-1B152 1B164-1B167 1B170-1B2FB 1CF00-1CF2D 1CF30-1CF46
1CF50-1CFC3 1D1E9-1D1EA 1D2E0-1D2F3 1D372-1D378 1DF00-1DF1E 1E100-1E12C 1E130-1E13D 1E140-1E149
1E14E-1E14F 1E290-1E2AE 1E2C0-1E2F9 1E2FF 1E7E0-1E7E6 1E7E8-1E7EB 1E7ED-1E7EE 1E7F0-1E7FE 1E94B
1EC71-1ECB4 1ED01-1ED3D 1F10D-1F10F 1F12F 1F16C-1F16F 1F1AD 1F260-1F265 1F6D3-1F6D7 1F6DD-1F6DF
1F6F7-1F6FC 1F7D5-1F7D8 1F7E0-1F7EB 1F7F0 1F8B0-1F8B1 1F900-1F90F 1F91F 1F928-1F92F 1F931-1F932
1F93F 1F94C-1F94F 1F95F-1F97F 1F992-1F9BF 1F9C1-1FA53 1FA60-1FA6D 1FA70-1FA74 1FA78-1FA7C
1FA80-1FA86 1FA90-1FAAC 1FAB0-1FABA 1FAC0-1FAC5 1FAD0-1FAD9 1FAE0-1FAE7 1FAF0-1FAF6 1FB00-1FB92
1FB94-1FBCA 1FBF0-1FBF9 2A6D7-2A6DF 2B735-2B738 2CEB0-2EBE0 30000-3134A
"""

# Other_Alphabetic, Unicode 14.0 (PropList.txt).
OTHER_ALPHABETIC = """
345 5B0-5BD 5BF 5C1-5C2 5C4-5C5 5C7 610-61A 64B-657 659-65F 670 6D6-6DC 6E1-6E4 6E7-6E8 6ED 711
730-73F 7A6-7B0 816-817 81B-823 825-827 829-82C 8D4-8DF 8E3-8E9 8F0-903 93A-93B 93E-94C 94E-94F
955-957 962-963 981-983 9BE-9C4 9C7-9C8 9CB-9CC 9D7 9E2-9E3 A01-A03 A3E-A42 A47-A48 A4B-A4C A51
A70-A71 A75 A81-A83 ABE-AC5 AC7-AC9 ACB-ACC AE2-AE3 AFA-AFC B01-B03 B3E-B44 B47-B48 B4B-B4C
B56-B57 B62-B63 B82 BBE-BC2 BC6-BC8 BCA-BCC BD7 C00-C03 C3E-C44 C46-C48 C4A-C4C C55-C56 C62-C63
C81-C83 CBE-CC4 CC6-CC8 CCA-CCC CD5-CD6 CE2-CE3 D00-D03 D3E-D44 D46-D48 D4A-D4C D57 D62-D63
D81-D83 DCF-DD4 DD6 DD8-DDF DF2-DF3 E31 E34-E3A E4D EB1 EB4-EB9 EBB-EBC ECD F71-F81 F8D-F97
F99-FBC 102B-1036 1038 103B-103E 1056-1059 105E-1060 1062-1064 1067-106D 1071-1074 1082-108D
108F 109A-109D 1712-1713 1732-1733 1752-1753 1772-1773 17B6-17C8 1885-1886 18A9 1920-192B
1930-1938 1A17-1A1B 1A55-1A5E 1A61-1A74 1ABF-1AC0 1ACC-1ACE 1B00-1B04 1B35-1B43 1B80-1B82
1BA1-1BA9 1BAC-1BAD 1BE7-1BF1 1C24-1C36 1DE7-1DF4 24B6-24E9 2DE0-2DFF A674-A67B A69E-A69F A802
A80B A823-A827 A880-A881 A8B4-A8C3 A8C5 A8FF A926-A92A A947-A952 A980-A983 A9B4-A9BF A9E5
AA29-AA36 AA43 AA4C-AA4D AA7B-AA7D AAB0 AAB2-AAB4 AAB7-AAB8 AABE AAEB-AAEF AAF5 ABE3-ABEA FB1E
10376-1037A 10A01-10A03 10A05-10A06 10A0C-10A0F 10D24-10D27 10EAB-10EAC 11000-11002 11038-11045
11073-11074 11082 110B0-110B8 110C2 11100-11102 11127-11132 11145-11146 11180-11182 111B3-111BF
111CE-111CF 1122C-11234 11237 1123E 112DF-112E8 11300-11303 1133E-11344 11347-11348 1134B-1134C
11357 11362-11363 11435-11441 11443-11445 114B0-114C1 115AF-115B5 115B8-115BE 115DC-115DD
11630-1163E 11640 116AB-116B5 1171D-1172A 1182C-11838 11930-11935 11937-11938 1193B-1193C 11940
11942 119D1-119D7 119DA-119DF 119E4 11A01-11A0A 11A35-11A39 11A3B-11A3E 11A51-11A5B 11A8A-11A97
11C2F-11C36 11C38-11C3E 11C92-11CA7 11CA9-11CB6 11D31-11D36 11D3A 11D3C-11D3D 11D3F-11D41 11D43
11D47 11D8A-11D8E 11D90-11D91 11D93-11D96 11EF3-11EF6 16F4F 16F51-16F87 16F8F-16F92 16FF0-16FF1
1BC9E 1E000-1E006 1E008-1E018 1E01B-1E021 1E023-1E024 1E026-1E02A 1E947 1F130-1F149 1F150-1F169
1F170-1F189
"""

GCS = ["Cn", "Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No",
       "Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "Sm", "Sc", "Sk", "So", "Zs",
       "Zl", "Zp", "Cc", "Cf", "Cs", "Co"]

F_SPACE = 1
F_ALNUM = 2
F_CANON = 4        # has a canonical decomposition (normalizer data)
F_COMPAT = 8       # has a compatibility-or-canonical decomposition
F_NFC_NY = 16
F_NFKC_NY = 32
F_LOWER_MULTI = 64  # lowercase is several code points (see tc_lower_multi)
F_LOWER_CHG = 128   # lowercase differs from the character

SHIFT = 7
NCP = 0x110000

S_BASE, L_BASE, V_BASE, T_BASE = 0xAC00, 0x1100, 0x1161, 0x11A7
L_COUNT, V_COUNT, T_COUNT, S_COUNT = 19, 21, 28, 11172


def parse_ranges(text):
    out = set()
    for tok in text.split():
        if "-" in tok:
            a, b = tok.split("-")
            out.update(range(int(a, 16), int(b, 16) + 1))
        else:
            out.add(int(tok, 16))
    return out


# Values of Scripts-9.0.0.txt that Scripts-10.0.0.txt changed for characters
# already assigned: U+061C ARABIC LETTER MARK went from Common to Arabic. It is
# the only one: with it, every code point gets the script of HF's table
# (tests/test_unicode_scripts.py, all code points against HF).
SCRIPTS_10_CHANGED = {0x061C: "Common"}

SCRIPTS_SHA256 = "34f15778bd64fc34b25c7b3af102954eafdfc623ceee92d91f8c79e350fadaa5"


def script_table(path, in9):
    """cp -> script id for HF's UnicodeScripts pre-tokenizer; 0 = Any.

    HF tokenizers (tokenizers/src/pre_tokenizers/unicode_scripts/scripts.rs,
    get_script) has its own table, generated from Unicode 9.0's Scripts.txt
    (its newest scripts are 9.0's: Adlam, Bhaiksuki, Marchen, Newa, Osage,
    Tangut), with every code point it does not list mapped to Script::Any.
    Scripts-9.0.0.txt is not on PyPI; Scripts-10.0.0.txt is (fontTools
    3.20.0's Scripts.py): its values for the code points assigned by 9.0
    (in9) are 9.0's except SCRIPTS_10_CHANGED, the later ones become Any.
    Only equality of ids matters
    to the pre-tokenizer, so ids are the order of first appearance.
    """
    import ast
    import hashlib
    with open(path, "rb") as f:
        raw = f.read()
    assert hashlib.sha256(raw).hexdigest() == SCRIPTS_SHA256, path + ": not fonttools 3.20.0's Scripts.py"
    tree = ast.parse(raw.decode("utf-8"))
    lists = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            if node.targets[0].id in ("RANGES", "VALUES"):
                lists[node.targets[0].id] = ast.literal_eval(node.value)
    starts, values = lists["RANGES"], lists["VALUES"]
    assert len(starts) == len(values) and starts[0] == 0
    ids = {"Any": 0}
    out = [0] * NCP
    for i, a in enumerate(starts):
        b = starts[i + 1] if i + 1 < len(starts) else NCP
        name = values[i]
        if name == "Unknown":
            continue
        for cp in range(a, b):
            if in9(cp):
                out[cp] = ids.setdefault(SCRIPTS_10_CHANGED.get(cp, name), len(ids))
    assert len(ids) < 256
    return out, ids


LOWER_UNIDATA = "17.0.0"


def load_lower(path):
    """cp -> full lowercase (list of code points) at LOWER_UNIDATA, from the
    CPython-style type database that unicodedata2's source archive ships
    (unicodedata2/unicodetype_db.h; its unicodectype.c _PyUnicode2_ToLowerFull
    reads it as: record = index2[(index1[cp >> SHIFT] << SHIFT) + (cp & mask)],
    and if the record's flags have EXTENDED_CASE_MASK the mapping is
    n = lower >> 24 code points at _PyUnicode_ExtendedCase[lower & 0xFFFF],
    else the one code point cp + lower).

    HF's Lowercase normalizer is Rust's char::to_lowercase, at the Unicode
    version of the Rust that built the tokenizers 0.23.3 wheel: 17.0 (measured:
    it lowercases U+A7CE and U+16EA0, new in 17.0). The mappings of characters
    older than 14.0 equal Python 3.11's (asserted in main).
    """
    import re
    with open(path, encoding="utf-8") as f:
        text = f.read()

    def array(name):
        m = re.search(r"\b" + name + r"\[\] = \{(.*?)\};", text, re.S)
        assert m, name
        return m.group(1)
    recs = [tuple(int(x) for x in r.split(",")) for r in re.findall(r"\{([-0-9, ]+)\}", array("_PyUnicode_TypeRecords"))]
    ext = [int(x) for x in array("_PyUnicode_ExtendedCase").replace("\n", " ").split(",") if x.strip()]
    index1 = [int(x) for x in array("index1").split(",") if x.strip()]
    index2 = [int(x) for x in array("index2").split(",") if x.strip()]
    shift = int(re.search(r"#define SHIFT (\d+)", text).group(1))
    extended = 0x4000

    def lower(cp):
        rec = recs[index2[(index1[cp >> shift] << shift) + (cp & ((1 << shift) - 1))]]
        lo, flags = rec[1], rec[5]
        if flags & extended:
            return ext[(lo & 0xFFFF):(lo & 0xFFFF) + (lo >> 24)]
        return [cp + lo]
    return lower


def load_gc(path):
    """cp -> general category at LOWER_UNIDATA, from the CPython-style
    database of unicodedata2's source archive (unicodedata2/unicodedata_db.h;
    unicodedata.c _getrecord_ex: record = index2[(index1[cp >> SHIFT] << SHIFT)
    + (cp & mask)], its first field indexes _PyUnicode_CategoryNames)."""
    import re
    with open(path, encoding="utf-8") as f:
        text = f.read()
    assert '#define UNIDATA_VERSION "%s"' % LOWER_UNIDATA in text, path

    def array(name):
        m = re.search(r"\b" + name + r"\[\] = \{(.*?)\};", text, re.S)
        assert m, name
        return m.group(1)
    recs = [int(r.split(",")[0]) for r in re.findall(r"\{([-0-9, ]+)\}", array("_PyUnicode_Database_Records"))]
    names = re.findall(r'"(\w*)"', array("_PyUnicode_CategoryNames"))
    index1 = [int(x) for x in array("index1").split(",") if x.strip()]
    index2 = [int(x) for x in array("index2").split(",") if x.strip()]
    shift = int(re.search(r"#define SHIFT (\d+)", text).group(1))

    def gc(cp):
        return names[recs[index2[(index1[cp >> shift] << shift) + (cp & ((1 << shift) - 1))]]]
    return gc


def rx_tables(other_alpha, space):
    """cp -> gc | flags << 5 at RX_UNIDATA for the regex classes.

    Word (\\w) is UTS #18's word = Alphabetic | M | Nd | Pc | Join_Control;
    Alphabetic = L | Nl | Other_Alphabetic, and only the Other_Alphabetic code
    points outside M matter here (circled and squared letters, So), which the
    Unicode 14.0 list above still gives at 16.0 (checked exhaustively against
    both references). The two engines differ on 8 code points:
      * Oniguruma (onigenc_unicode_is_code_ctype in src/unicode.c) answers
        code points below 256 from its EncUNICODE_ISO_8859_1_CtypeTable, where
        U+00B2 U+00B3 U+00B9 U+00BC-U+00BE (No) are Word: RXF_WORD_ONIG;
      * the regex crate (regex-syntax, unicode_tables/perl_word.rs) includes
        Join_Control U+200C U+200D, which Oniguruma does not: RXF_WORD_RUST.
    """
    import unicodedata2 as ud2
    assert ud2.unidata_version == RX_UNIDATA, "pip install unicodedata2==" + RX_UNIDATA
    word_gc = ("Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "Pc")
    onig_latin1 = {0xB2, 0xB3, 0xB9, 0xBC, 0xBD, 0xBE}
    join_control = {0x200C, 0x200D}
    out = []
    for cp in range(NCP):
        ch = chr(cp)
        g = ud2.category(ch)
        flags = 0
        if cp in space:
            flags |= RXF_SPACE
        word = g in word_gc or cp in other_alpha
        if word or cp in onig_latin1:
            flags |= RXF_WORD_ONIG
        if word or cp in join_control:
            flags |= RXF_WORD_RUST
        out.append(GCS.index(g) | flags << 5)
    return out


# Flags above the 5 gc bits of a regex class byte (TC_RX_F_* in unicode_data.h).
RXF_SPACE = 1
RXF_WORD_ONIG = 2
RXF_WORD_RUST = 4


def main():
    check = "--check" in sys.argv[1:]
    if "--scripts" not in sys.argv[1:-1]:
        print("usage: gen_unicode.py --scripts SCRIPTS_PY [--check]", file=sys.stderr)
        return 2
    scripts_py = sys.argv[sys.argv.index("--scripts") + 1]
    if "--lower" not in sys.argv[1:-1]:
        print("usage: gen_unicode.py --scripts SCRIPTS_PY --lower UNICODETYPE_DB_H [--check]", file=sys.stderr)
        return 2
    lower_db = sys.argv[sys.argv.index("--lower") + 1]
    lower_of = load_lower(lower_db)
    gc17 = load_gc(lower_db.replace("unicodetype_db.h", "unicodedata_db.h"))
    assert unicodedata.unidata_version == BASE_UNIDATA, (
        "run with a Python whose unicodedata is " + BASE_UNIDATA + " (3.11)")
    post9 = parse_ranges(ASSIGNED_AFTER_9)
    other_alpha = parse_ranges(OTHER_ALPHABETIC)
    space = set()
    for a, b in WHITE_SPACE:
        space.update(range(a, b + 1))

    def in9(cp):
        return unicodedata.category(chr(cp)) != "Cn" and cp not in post9

    def ccc9(cp):
        return unicodedata.combining(chr(cp)) if in9(cp) else 0

    def raw_decomp(cp):
        if not in9(cp) or S_BASE <= cp < S_BASE + S_COUNT:
            return None, False
        d = unicodedata.decomposition(chr(cp))
        if not d:
            return None, False
        parts = d.split()
        tagged = parts[0].startswith("<")
        if tagged:
            parts = parts[1:]
        return [int(p, 16) for p in parts], tagged

    def full(cp, compat):
        if S_BASE <= cp < S_BASE + S_COUNT:
            s = cp - S_BASE
            r = [L_BASE + s // (V_COUNT * T_COUNT), V_BASE + (s % (V_COUNT * T_COUNT)) // T_COUNT]
            if s % T_COUNT:
                r.append(T_BASE + s % T_COUNT)
            return r
        d, tagged = raw_decomp(cp)
        if d is None or (tagged and not compat):
            return [cp]
        r = []
        for x in d:
            r += full(x, compat)
        return r

    # composition pairs
    pairs = {}
    for cp in range(NCP):
        d, tagged = raw_decomp(cp)
        if d is None or tagged or len(d) != 2:
            continue
        if ccc9(d[0]) != 0 or ccc9(cp) != 0:
            continue
        if unicodedata.normalize("NFC", chr(d[0]) + chr(d[1])) != chr(cp):
            continue
        pairs[(d[0], d[1])] = cp
    seconds = set(b for (_, b) in pairs)
    seconds.update(range(V_BASE, V_BASE + V_COUNT))
    seconds.update(range(T_BASE + 1, T_BASE + T_COUNT))

    records = {}
    rec_list = []
    cp_rec = [0] * NCP
    canon = {}
    compat = {}
    lower_multi = []
    for cp in range(NCP):
        ch = chr(cp)
        # Rust's char classifiers (is_numeric, is_alphanumeric) are at 17.0
        # in HF's build, like its to_lowercase: the categories are 17.0's
        # (later characters gain one; a few older ones moved, e.g. U+0295
        # Ll -> Lo, which leaves Alphabetic as it was).
        gc = GCS.index(gc17(cp))
        flags = 0
        if cp in space:
            flags |= F_SPACE
        if GCS[gc] in ("Lu", "Ll", "Lt", "Lm", "Lo", "Nl", "Nd", "No") or cp in other_alpha:
            flags |= F_ALNUM
        ccc = ccc9(cp)
        fc = full(cp, False)
        fk = full(cp, True)
        if fc != [cp]:
            flags |= F_CANON
            if not (S_BASE <= cp < S_BASE + S_COUNT):
                canon[cp] = fc
        if fk != [cp]:
            flags |= F_COMPAT
            if not (S_BASE <= cp < S_BASE + S_COUNT):
                compat[cp] = fk
        if in9(cp):
            nfc_ny = unicodedata.normalize("NFC", ch) != ch or cp in seconds
            nfkc_ny = nfc_ny or unicodedata.normalize("NFKC", ch) != ch
        else:
            nfc_ny = nfkc_ny = cp in seconds
        if nfc_ny:
            flags |= F_NFC_NY
        if nfkc_ny:
            flags |= F_NFKC_NY
        if 0xD800 <= cp <= 0xDFFF:
            fold = lowd = 0
        else:
            cf = ch.casefold()
            lo = "".join(map(chr, lower_of(cp)))
            # the Rust lowercase data is newer; characters Python 3.11 knows map alike
            assert lo == ch.lower() or unicodedata.category(ch) == "Cn", hex(cp)
            if len(cf) == 1:
                fold = ord(cf) - cp
            elif len(ch.lower()) == 1:
                fold = ord(ch.lower()) - cp
            else:
                fold = 0
            if lo != ch:
                flags |= F_LOWER_CHG
            if len(lo) == 1:
                lowd = ord(lo) - cp
            else:
                assert 2 <= len(lo) <= 3
                flags |= F_LOWER_MULTI
                lowd = 0
                lower_multi.append((cp, [ord(c) for c in lo]))
        key = (gc, ccc, flags, fold, lowd)
        idx = records.get(key)
        if idx is None:
            idx = records[key] = len(rec_list)
            rec_list.append(key)
        cp_rec[cp] = idx

    assert ord("\u017f".casefold()) == ord("s") and ord("\u212a".casefold()) == ord("k")

    # two-stage table
    bsize = 1 << SHIFT
    blocks = {}
    block_list = []
    stage1 = []
    for b in range(NCP >> SHIFT):
        blk = tuple(cp_rec[b * bsize:(b + 1) * bsize])
        i = blocks.get(blk)
        if i is None:
            i = blocks[blk] = len(block_list)
            block_list.append(blk)
        stage1.append(i)
    assert len(rec_list) < 65536 and len(block_list) < 65536

    maxd = max(len(v) for v in list(canon.values()) + list(compat.values()))
    assert maxd <= 18

    L = []
    L.append("/* unicode_data.h - GENERATED by native/gen_unicode.py, do not edit.")
    L.append(" * Sources: Python unicodedata %s (case folding; normalization data restricted" % unicodedata.unidata_version)
    L.append(" * to Unicode <= 9.0, as in HF tokenizers' unicode-normalization-alignments),")
    L.append(" * unicodedata2 %s source database (categories, lowercase: Rust's), unicodedata2 %s" % (LOWER_UNIDATA, RX_UNIDATA))
    L.append(" * (regex classes), Scripts-10.0.0 from fontTools 3.20.0 (UnicodeScripts, as 9.0).")
    L.append(" * Included only by unicode.c. */")
    L.append("#ifndef TC_UNICODE_DATA_H")
    L.append("#define TC_UNICODE_DATA_H")
    L.append("")
    L.append("#include <stdint.h>")
    L.append("")
    L.append('#define TC_UNIDATA_VERSION "%s"' % unicodedata.unidata_version)
    L.append("#define TC_UD_SHIFT %d" % SHIFT)
    L.append("#define TC_UD_DECOMP_MAX %d" % maxd)
    L.append("")
    for name, val in (("SPACE", F_SPACE), ("ALNUM", F_ALNUM), ("CANON", F_CANON),
                      ("COMPAT", F_COMPAT), ("NFC_NY", F_NFC_NY), ("NFKC_NY", F_NFKC_NY),
                      ("LOWER_MULTI", F_LOWER_MULTI), ("LOWER_CHG", F_LOWER_CHG)):
        L.append("#define TC_UD_F_%s 0x%02Xu" % (name, val))
    L.append("")
    L.append("typedef struct tc_ud_rec { uint8_t gc, ccc; uint16_t flags; int32_t fold, lower; } tc_ud_rec;")
    L.append("")

    def arr(ctype, name, vals, per=16, fmt=str):
        L.append("static const %s %s[%d] = {" % (ctype, name, len(vals)))
        for i in range(0, len(vals), per):
            L.append("    " + ",".join(fmt(v) for v in vals[i:i + per]) + ",")
        L.append("};")
        L.append("")

    L.append("static const tc_ud_rec tc_ud_recs[%d] = {" % len(rec_list))
    for r in rec_list:
        L.append("    {%d,%d,%d,%d,%d}," % r)
    L.append("};")
    L.append("")
    arr("uint16_t", "tc_ud_stage1", stage1, 24)
    flat = [v for blk in block_list for v in blk]
    arr("uint16_t", "tc_ud_stage2", flat, 24)

    # decomposition tables: pool of code points, entries (cp, off<<5|len)
    pool = []
    def table(name, m):
        keys = sorted(m)
        ents = []
        for k in keys:
            v = m[k]
            ents.append((k, (len(pool) << 5) | len(v)))
            pool.extend(v)
        arr("uint32_t", name + "_cp", [k for k, _ in ents], 12, lambda v: "0x%X" % v)
        return ents
    # emit pool last
    saved = L
    L = []
    ce = table("tc_ud_canon", canon)
    ke = table("tc_ud_compat", compat)
    body = L
    L = saved
    L.extend(body)
    arr("uint32_t", "tc_ud_canon_ref", [e for _, e in ce], 12)
    arr("uint32_t", "tc_ud_compat_ref", [e for _, e in ke], 12)
    assert len(pool) < (1 << 27)
    arr("uint32_t", "tc_ud_pool", pool, 12, lambda v: "0x%X" % v)
    L.append("#define TC_UD_NCANON %d" % len(ce))
    L.append("#define TC_UD_NCOMPAT %d" % len(ke))
    L.append("")

    pk = sorted(pairs)
    arr("uint32_t", "tc_ud_comp_a", [a for a, _ in pk], 12, lambda v: "0x%X" % v)
    arr("uint32_t", "tc_ud_comp_b", [b for _, b in pk], 12, lambda v: "0x%X" % v)
    arr("uint32_t", "tc_ud_comp_c", [pairs[p] for p in pk], 12, lambda v: "0x%X" % v)
    L.append("#define TC_UD_NCOMP %d" % len(pk))
    L.append("")
    L.append("#define TC_UD_NLOWER_MULTI %d" % len(lower_multi))
    L.append("static const uint32_t tc_ud_lower_multi[%d][4] = {" % max(1, len(lower_multi)))
    for cp, lo in lower_multi:
        lo = lo + [0] * (3 - len(lo))
        L.append("    {0x%X, 0x%X, 0x%X, 0x%X}," % (cp, lo[0], lo[1], lo[2]))
    L.append("};")
    L.append("")
    # regex classes: cp -> gc | flags << 5 (Unicode RX_UNIDATA), two stages
    rx = rx_tables(other_alpha, space)
    rblocks = {}
    rblock_list = []
    rstage1 = []
    for b in range(NCP >> SHIFT):
        blk = tuple(rx[b * bsize:(b + 1) * bsize])
        i = rblocks.get(blk)
        if i is None:
            i = rblocks[blk] = len(rblock_list)
            rblock_list.append(blk)
        rstage1.append(i)
    assert len(rblock_list) < 65536
    L.append("/* Regex classes (\\p{..}, \\s, \\w, \\d) at Unicode %s: gc | TC_RX_F_* << 5. */" % RX_UNIDATA)
    L.append('#define TC_RX_UNIDATA_VERSION "%s"' % RX_UNIDATA)
    L.append("#define TC_RX_F_SPACE 0x%02Xu" % RXF_SPACE)
    L.append("#define TC_RX_F_WORD_ONIG 0x%02Xu" % RXF_WORD_ONIG)
    L.append("#define TC_RX_F_WORD_RUST 0x%02Xu" % RXF_WORD_RUST)
    L.append("")
    arr("uint16_t", "tc_rx_stage1", rstage1, 24)
    arr("uint8_t", "tc_rx_stage2", [v for blk in rblock_list for v in blk], 24)
    # UnicodeScripts: cp -> script id (Unicode 9.0 as in HF), two stages
    scr, scr_ids = script_table(scripts_py, in9)
    sblocks = {}
    sblock_list = []
    sstage1 = []
    for b in range(NCP >> SHIFT):
        blk = tuple(scr[b * bsize:(b + 1) * bsize])
        i = sblocks.get(blk)
        if i is None:
            i = sblocks[blk] = len(sblock_list)
            sblock_list.append(blk)
        sstage1.append(i)
    assert len(sblock_list) < 65536
    L.append("/* Scripts of HF's UnicodeScripts pre-tokenizer (Unicode 9.0), 0 = Any. */")
    L.append("#define TC_SCRIPT_COUNT %d" % len(scr_ids))
    for name in ("Common", "Inherited", "Han", "Hiragana", "Katakana", "Latin"):
        L.append("#define TC_SCRIPT_%s %d" % (name.upper(), scr_ids[name]))
    L.append("static const char *const tc_script_names[%d] = {" % len(scr_ids))
    for name in sorted(scr_ids, key=scr_ids.get):
        L.append('    "%s",' % name)
    L.append("};")
    L.append("")
    arr("uint16_t", "tc_script_stage1", sstage1, 24)
    arr("uint8_t", "tc_script_stage2", [v for blk in sblock_list for v in blk], 24)
    L.append("#endif")
    text = "\n".join(L) + "\n"

    if check:
        try:
            with open(OUT, encoding="utf-8") as f:
                cur = f.read()
        except OSError:
            cur = None
        if cur != text:
            print("unicode_data.h is stale", file=sys.stderr)
            return 1
        return 0
    with open(OUT, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    print("wrote %s: %d records, %d blocks, %d canon, %d compat, %d pairs, %d regex blocks" % (
        OUT, len(rec_list), len(block_list), len(ce), len(ke), len(pk), len(rblock_list)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
