"""Differential test: native/src/regex.c (through tests/native/regex_driver.c)
against Oniguruma as used by HF `tokenizers` (pre_tokenizers.Split).

Run directly for a report:
    python3 tests/test_regex_oracle.py [--n 20000] [--seed 1] [--pattern NAME]
or under pytest (fewer strings per pattern, REGEX_ORACLE_N overrides).

The oracle gives matches and gaps (isolated) and gaps only (removed); the
matches are the isolated pieces that are not gaps. Empty matches are not
visible through the oracle, so empty matches of the engine are dropped
before comparing. Offsets are converted from characters to bytes.
"""
import os
import random
import shutil
import subprocess
import sys
import tempfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "native", "src")
NATIVE_TESTS = os.path.join(ROOT, "tests", "native")

REAL_PATTERNS = {
    "gpt2": r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""",
    "qwen2": r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""",
    "cl100k": r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""",
    "o200k": r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+""",
}

SYNTHETIC_PATTERNS = {
    "digits": r"\d+",
    "ascii_digit": r"[0-9]",
    "space": r" ",
    "spaces": r"\s+",
    "sp_marker": "\u2581",
    "icase_abc": r"(?i)abc",
    "a_or_ab": r"a|ab",
    "alt_groups": r"(a|ab)(c|bcd)",
    "lazy_interval": r"a{2,3}?",
    "icase_class": r"(?i)[a-k]+",
    "icase_kelvin": "(?i)[\u212a]|(?i:S)",
    "word": r"\w+",
    "nonword": r"\W+",
    "lazy_dot": r".+?x|.",
    "nonspace": r"\S+",
    "bol": r"^\s*\p{L}",
    "eol": r"\p{L}+$",
    "eos": r"\p{L}\z|\s\Z",
    "lookahead": r"(?=\p{Lu})\p{L}+|(?!\p{L})\S",
    "star_group": r"(a|b)*c",
    "nested_empty": r"(a*)*b|(?:x?)+y",
    "punct_sym": r"\p{P}+|\p{S}+|\p{Z}|\p{Cc}",
    "neg_punct": r"[^\p{P}\p{Z}]+",
    "open_interval": r"[a-z]{2,}|\p{N}{,2}",
    "upper_lower": r"\p{Lu}\p{Ll}*|\P{L}",
    "marks": r"\p{M}+|\p{Mn}\p{Lo}|[\p{Nl}\p{No}]",
    "hex_esc": r"\x41|\u00e9|\x{1F600}|[\t\n\r\x0b]+",
    "icase_mid": r"a(?i)b|c",
    "icase_prop": r"(?i:[\p{Lu}\d]x?)|(?i:[^\p{Ll}\s])|(?i:\p{Lu})",
    "lazy_star": r"\p{L}*?\p{N}|.*?'",
    "interval_group": r"(?:\p{L}\p{N}){1,3}|(ab){2}",
}

FRAGMENTS = [
    # ASCII words both cases, contractions
    "hello", "World", "THE", "aBc", "abc", "ab", "a", "b", "c", "x", "bcd", "abcd", "Ab", "K", "k", "s", "S", "xx", "aa",
    "'s", "'S", "'ll", "'LL", "'re", "'Re", "'ve", "'VE", "'m", "'M", "'d", "'D", "'t", "'T", "'\u017f", "'", "''",
    "don't", "I'M", "we'Ll",
    # digits of several scripts, numerals
    "0", "7", "123", "4567", "\u0661\u0662\u0663", "\u0967\u0968", "\uff11\uff12", "\u216b", "\u00bd", "\u00b2",
    # CJK, Hangul, Thai, others
    "\u4e2d\u6587", "\u65e5\u672c", "\ud55c\uad6d\uc5b4", "\u0e20\u0e32\u0e29\u0e32\u0e44\u0e17\u0e22",
    "\u0391\u03b2\u03b3", "\u0416\u0438\u0437\u043d\u044c", "\u00c9t\u00e9", "\u01c5", "\u02b0", "\u00df", "\u212a",
    "\u0645\u0631\u062d\u0628\u0627",
    # combining marks
    "e\u0301", "\u0301", "a\u0308\u0323", "\u0915\u093f", "\u20dd",
    # emoji with ZWJ and variation selectors
    "\U0001F600", "\U0001F468\u200d\U0001F469\u200d\U0001F467", "\u2764\ufe0f", "\U0001F44D\U0001F3FD", "\u200b",
    # punctuation, symbols
    ".", ",", "!", "?", "...", "--", "(", ")", "[", "]", "{", "}", "\"", "#", "$", "%", "&", "*", "+", "=", "<", ">",
    "@", "\\", "^", "_", "`", "|", "~", ":", ";", "/", "//", "\u2014", "\u00ab", "\u00bb", "\u201c", "\u2019",
    "\u20ac", "\u00a9", "\u2200", "\u00b4", "\u203f", "\u2581", "\u2581\u2581",
    # whitespace and look-alikes
    " ", " ", " ", "  ", "   ", "    ", "\t", "\t\t", "\n", "\n\n", "\r\n", "\r", " \n", "\n ", "\u00a0", "\u3000",
    "\u2028", "\u2029", "\u0085", "\u000b", "\u000c", "\u001c", "\u001d", "\u001e", "\u001f", "\u2009", "\u1680",
    "\u0000", "\u0007",
]


def random_text(rng):
    k = rng.randint(1, 14)
    parts = []
    for _ in range(k):
        r = rng.random()
        if r < 0.25:
            parts.append(" ")
        elif r < 0.30:
            parts.append(rng.choice("abcxABCsSkK"))
        else:
            parts.append(rng.choice(FRAGMENTS))
    return "".join(parts)


def oracle_matches(pattern, text):
    from tokenizers import Regex, pre_tokenizers

    if not hasattr(oracle_matches, "cache"):
        oracle_matches.cache = {}
    c = oracle_matches.cache.get(pattern)
    if c is None:
        iso = pre_tokenizers.Split(Regex(pattern), behavior="isolated", invert=False)
        rem = pre_tokenizers.Split(Regex(pattern), behavior="removed", invert=False)
        c = oracle_matches.cache[pattern] = (iso, rem)
    iso, rem = c
    gaps = {o for _, o in rem.pre_tokenize_str(text)}
    # char offsets -> byte offsets
    byte_at = [0]
    for ch in text:
        byte_at.append(byte_at[-1] + len(ch.encode("utf-8")))
    return [(byte_at[s], byte_at[e]) for _, (s, e) in iso.pre_tokenize_str(text) if (s, e) not in gaps]


def build_driver(outdir):
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    assert cc, "a C compiler is needed: tests/run.sh installs gcc"
    uni = os.path.join(SRC, "unicode.c")
    if not os.path.exists(uni):
        uni = os.path.join(NATIVE_TESTS, "unicode_stub.c")
    exe = os.path.join(outdir, "regex_driver")
    extra = os.environ.get("REGEX_ORACLE_CFLAGS", "").split()
    cmd = [cc, "-std=c11", "-O2", "-Wall", "-Wextra"] + extra + ["-o", exe,
           os.path.join(NATIVE_TESTS, "regex_driver.c"), os.path.join(SRC, "regex.c"),
           os.path.join(SRC, "common.c"), uni]
    subprocess.run(cmd, check=True)
    return exe, os.path.basename(uni)


def engine_matches(exe, pattern, texts):
    chunks = []
    p = pattern.encode("utf-8")
    chunks.append(b"%d\n" % len(p) + p)
    for t in texts:
        b = t.encode("utf-8")
        chunks.append(b"%d\n" % len(b) + b)
    res = subprocess.run([exe, "--batch"], input=b"".join(chunks), stdout=subprocess.PIPE, check=True)
    lines = res.stdout.decode().split("\n")
    if lines[0] != "OK":
        raise AssertionError("compile failed: %s" % lines[0])
    out = []
    for line in lines[1:1 + len(texts)]:
        if line.startswith("ERR"):
            out.append(line)
            continue
        ms = []
        for item in line.split():
            s, e = item.split(":")
            s, e = int(s), int(e)
            if s != e:
                ms.append((s, e))
        out.append(ms)
    return out


def compare(exe, name, pattern, n, seed):
    rng = random.Random("%s-%d" % (name, seed))
    texts = [random_text(rng) for _ in range(n)]
    got = engine_matches(exe, pattern, texts)
    bad = []
    for t, g in zip(texts, got):
        want = oracle_matches(pattern, t)
        if g != want:
            bad.append((t, want, g))
    return n, bad


ALL_PATTERNS = dict(REAL_PATTERNS, **SYNTHETIC_PATTERNS)

RP_ATOMS = ["a", "b", "c", "x", "s", "'", " ", "A", "S", "\u00e9", "\u4e2d", ".", "\\s", "\\S", "\\d", "\\w", "\\W",
            "\\p{L}", "\\p{N}", "\\p{Lu}", "\\P{L}", "[a-c]", "[^a\\s]", "[\\p{L}\\p{N}]", "[^\\s\\p{L}\\p{N}]",
            "[\\r\\n]", "\\n", "\\t", "[sS']", "\\x41", "[\\p{Ll}\\p{M}]"]
RP_ANCHORS = ["^", "$", "\\A", "\\z", "\\Z"]
RP_QUANTS = ["?", "*", "+", "??", "*?", "+?", "{2}", "{1,3}", "{2,}", "{,2}", "{1,2}?"]
RP_ALPHABET = ["a", "b", "c", "x", "s", "S", "'", " ", "  ", "A", "\u00e9", "\u4e2d", "1", "\u0663", "\n", "\t",
               "\u0301", "!", "\u017f", "\u212a", "\r\n", "\u00a0"]


MULTI_FOLD_RE = __import__("re").compile("[sS\u017f]{2}")


def random_pattern(rng, depth=0):
    """A random pattern from the supported subset (Onig syntax)."""
    n_alt = 1 if rng.random() < 0.6 else rng.randint(2, 3)
    alts = []
    for _ in range(n_alt):
        seq = []
        for _ in range(rng.randint(1, 4)):
            r = rng.random()
            if r < 0.15 and depth < 3:
                kind = rng.choice(["(?:", "(", "(?i:", "(?=", "(?!", "(?i)"])
                if kind == "(?i)":
                    seq.append("(?i)" + random_pattern(rng, depth + 1))
                    break
                atom = kind + random_pattern(rng, depth + 1) + ")"
                if kind in ("(?=", "(?!"):
                    seq.append(atom)
                    continue
            elif r < 0.2:
                seq.append(rng.choice(RP_ANCHORS))
                continue
            else:
                atom = rng.choice(RP_ATOMS)
            if rng.random() < 0.4:
                atom += rng.choice(RP_QUANTS)
            seq.append(atom)
        alts.append("".join(seq))
    return "|".join(alts)


def random_subject(rng):
    return "".join(rng.choice(RP_ALPHABET) for _ in range(rng.randint(0, 12)))


def compare_random_patterns(exe, n_patterns, n_subjects, seed):
    """Returns (patterns compared, patterns skipped, list of mismatches)."""
    from tokenizers import Regex

    rng = random.Random("randpat-%d" % seed)
    done = skipped = 0
    bad = []
    for _ in range(n_patterns):
        pat = random_pattern(rng)
        try:
            Regex(pat)
        except Exception:
            skipped += 1
            continue
        texts = [random_subject(rng) for _ in range(n_subjects)]
        if "(?i" in pat:
            # Known gap: Oniguruma's multi-character case folds let an icase
            # class holding U+00DF match "ss" (any of s S U+017F twice).
            texts = [t for t in texts if not MULTI_FOLD_RE.search(t)]
        try:
            got = engine_matches(exe, pat, texts)
        except AssertionError as e:
            bad.append((pat, None, None, str(e)))
            continue
        done += 1
        for t, g in zip(texts, got):
            want = oracle_matches(pat, t)
            if g != want:
                bad.append((pat, t, want, g))
                break
    return done, skipped, bad


@pytest.fixture(scope="module")
def driver():
    d = tempfile.mkdtemp(prefix="tc_regex_")
    try:
        yield build_driver(d)[0]
    finally:
        shutil.rmtree(d, ignore_errors=True)


@pytest.mark.parametrize("name", sorted(ALL_PATTERNS))
def test_regex_matches_oniguruma(driver, name):
    n = int(os.environ.get("REGEX_ORACLE_N", "2000" if name in REAL_PATTERNS else "500"))
    total, bad = compare(driver, name, ALL_PATTERNS[name], n, 1)
    assert not bad, "%d/%d differ, first: %r" % (len(bad), total, bad[0])


def test_random_patterns_match_oniguruma(driver):
    n = int(os.environ.get("REGEX_ORACLE_RANDPAT", "300"))
    done, skipped, bad = compare_random_patterns(driver, n, 40, 1)
    assert not bad, "%d patterns differ, first: %r" % (len(bad), bad[0])


def main():
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--pattern", action="append")
    ap.add_argument("--random-patterns", type=int, default=1000)
    args = ap.parse_args()
    d = tempfile.mkdtemp(prefix="tc_regex_")
    try:
        exe, uni = build_driver(d)
        print("unicode tables: %s" % uni)
        failed = 0
        for name in args.pattern or list(ALL_PATTERNS):
            pat = ALL_PATTERNS[name]
            n = args.n if name in REAL_PATTERNS else max(1, args.n // 4)
            total, bad = compare(exe, name, pat, n, args.seed)
            print("%-15s %6d strings  agreement %.4f%%" % (name, total, 100.0 * (total - len(bad)) / total))
            for t, want, got in bad[:3]:
                print("   text=%r\n   onig=%r\n   ours=%r" % (t, want, got))
            failed += bool(bad)
        if args.random_patterns:
            done, skipped, bad = compare_random_patterns(exe, args.random_patterns, 40, args.seed)
            print("random patterns: %d compared (x40 subjects), %d rejected by Oniguruma, %d differ"
                  % (done, skipped, len(bad)))
            for b in bad[:10]:
                print("   %r" % (b,))
            failed += bool(bad)
        return 1 if failed else 0
    finally:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
