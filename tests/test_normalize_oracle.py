#!/usr/bin/env python3
"""test_normalize_oracle.py - compare the C normalizer with HF tokenizers.

For each normalizer (NFC, NFD, NFKC, NFKD, Lowercase and a few Sequences)
it normalizes seeded random strings with both HF `tokenizers` and
tests/native/norm_driver.c, and compares the normalized text and the
alignment of every normalized byte. HF alignments are observed through a
tokenizer whose tokens are single bytes (ByteLevel alphabet, BPE without
merges), so token i's offsets are the (char) alignment of normalized byte i.

Usage: python3 tests/test_normalize_oracle.py [--n 20000] [--seed 1] [--all-chars]
                                              [--driver PATH] [--cc gcc]
Without --driver, the driver is compiled into a temporary directory.
Exit status 0 iff everything agrees. Prints agreement per normalizer.
"""
import argparse
import os
import random
import struct
import subprocess
import sys
import tempfile
import unicodedata

from tokenizers import Tokenizer, models, normalizers, pre_tokenizers
from tokenizers.pre_tokenizers import ByteLevel

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def ok_char(cp):
    return unicodedata.category(chr(cp)) not in ("Cn", "Cs")


def rng_pool(*ranges):
    out = []
    for a, b in ranges:
        out.extend(cp for cp in range(a, b + 1) if ok_char(cp))
    return out


POOLS = {
    "ascii": rng_pool((0x20, 0x7E)),
    "upper": rng_pool((0x41, 0x5A), (0xC0, 0xDE), (0x391, 0x3A9), (0x400, 0x42F),
                      (0x10A0, 0x10C5), (0x13A0, 0x13F5), (0x24B6, 0x24CF),
                      (0x1E9E, 0x1E9E), (0x2126, 0x2126), (0x212A, 0x212B),
                      (0x130, 0x131), (0x1F88, 0x1FAF), (0x100, 0x17F)),
    "latin_pre": rng_pool((0xC0, 0x24F), (0x1E00, 0x1EFF)),
    "marks": rng_pool((0x300, 0x36F)),
    "other_marks": rng_pool((0x591, 0x5C7), (0x610, 0x61A), (0x64B, 0x65F),
                            (0x93C, 0x94D), (0x9BC, 0x9D7), (0xB3C, 0xB57),
                            (0xBBE, 0xBD7), (0xCBC, 0xCD6), (0xD3E, 0xD57),
                            (0xDCA, 0xDDF), (0xF71, 0xF84), (0x102E, 0x1039),
                            (0x1B34, 0x1B44), (0x302A, 0x302F), (0x3099, 0x309A),
                            (0x1DC0, 0x1DFF), (0x20D0, 0x20F0), (0xFE20, 0xFE2F),
                            (0x1D165, 0x1D172)),
    "devanagari": rng_pool((0x900, 0x97F), (0x980, 0x9FF), (0xB00, 0xB7F),
                           (0xB80, 0xBFF), (0xC80, 0xCFF), (0xD00, 0xD7F),
                           (0xD80, 0xDFF), (0x1000, 0x103F), (0x1B00, 0x1B4B)),
    "hangul": rng_pool((0xAC00, 0xD7A3)),
    "jamo": rng_pool((0x1100, 0x1112), (0x1161, 0x1175), (0x11A7, 0x11C2),
                     (0x1113, 0x11FF), (0x3131, 0x318E)),
    "compat": rng_pool((0xFB00, 0xFB06), (0xFF01, 0xFF5E), (0xFF61, 0xFF9F),
                       (0x2070, 0x209C), (0x3380, 0x33FF), (0x2160, 0x2188),
                       (0xBC, 0xBE), (0x2150, 0x215F), (0x2460, 0x24FF),
                       (0xFDFA, 0xFDFB), (0x1D400, 0x1D7FF), (0x3300, 0x3357),
                       (0x132, 0x133), (0x1C4, 0x1CC), (0xA8, 0xB8), (0x2000, 0x200A),
                       (0x2024, 0x2026), (0xFE30, 0xFE6B), (0x1F100, 0x1F1FF),
                       (0x3200, 0x32FF), (0xFE70, 0xFEFC)),
    "greek": rng_pool((0x370, 0x3FF), (0x1F00, 0x1FFF)),
    "special": [0x130, 0x131, 0xDF, 0x1E9E, 0x3A3, 0x3C2, 0x3C3, 0x17F, 0x212A,
                0x2126, 0x212B, 0x344, 0x340, 0x341, 0x343, 0x374, 0x37E, 0x387,
                0xF73, 0xF75, 0xF81, 0x958, 0x929, 0x928, 0x93C, 0x1E08, 0xC7,
                0x301, 0x327, 0x1DF6, 0x1DF7, 0x1DF8, 0x1DF9, 0x11935, 0x11930,
                0x11938, 0x8D3, 0x8E2, 0x10D24, 0x16FF0, 0x1E08F, 0xA69E,
                0x11A7, 0x11A8, 0xFF9E, 0xFF9F, 0x3099, 0x309A, 0x304B, 0x30AB,
                0xFB1D, 0xFB1F, 0xFB2A, 0x5D9, 0x5B4, 0x5BF, 0x5C1, 0x5C2, 0x5BC],
    "cjk": rng_pool((0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1D),
                    (0x3040, 0x30FF)),
    "emoji": rng_pool((0x1F300, 0x1F6FF), (0x1F900, 0x1F9FF)) + [0xFE0F, 0x200D,
                                                                  0x1F3FB, 0x1F3FF],
}
ANY = [cp for cp in range(0x110000) if ok_char(cp) and unicodedata.category(chr(cp)) != "Co"]

WEIGHTS = [("ascii", 6), ("upper", 4), ("latin_pre", 4), ("marks", 8),
           ("other_marks", 4), ("devanagari", 3), ("hangul", 3), ("jamo", 4),
           ("compat", 5), ("greek", 4), ("special", 5), ("cjk", 2), ("emoji", 2)]


def rand_string(r):
    x = r.random()
    if x < 0.04:  # a long run of marks (exercises the long-run sort path)
        base = [r.choice(POOLS["latin_pre"] + POOLS["hangul"] + POOLS["ascii"])]
        marks = [r.choice(POOLS["marks"] + POOLS["other_marks"]) for _ in range(r.randint(30, 90))]
        return "".join(chr(c) for c in base + marks + [r.choice(POOLS["ascii"])])
    if x < 0.14:  # any assigned characters
        return "".join(chr(r.choice(ANY)) for _ in range(r.randint(1, 16)))
    n = r.randint(1, 24)
    out = []
    names = [w[0] for w in WEIGHTS]
    weights = [w[1] for w in WEIGHTS]
    while len(out) < n:
        if r.random() < 0.03:
            out.append(r.choice(ANY))
            continue
        pool = r.choices(names, weights)[0]
        out.append(r.choice(POOLS[pool]))
        if pool in ("latin_pre", "ascii", "greek", "upper") and r.random() < 0.3:
            for _ in range(r.randint(1, 4)):  # a base followed by marks
                out.append(r.choice(POOLS["marks"] if r.random() < 0.8 else POOLS["other_marks"]))
    return "".join(chr(c) for c in out)


def region_string(r):
    """A longer text of quiet units (ASCII runs long enough for the 8-byte skip, precomposed letters,
    CJK, Hangul syllables) and clusters that a form may change (marks, jamo, compatibility and special
    characters), so that normalize.c's nfx_regions cuts it into several regions, next to each other or
    apart, at the text's start and end."""
    quiet = ("latin_pre", "cjk", "hangul", "greek")   # a pool first, so that precomposed letters are common
    loud = ("marks", "other_marks", "jamo", "compat", "special")
    out = []
    for _ in range(r.randint(1, 12)):
        x = r.random()
        if x < 0.4:
            out.extend(r.choice(POOLS["ascii"]) for _ in range(r.randint(0, 20)))
        elif x < 0.6:
            out.extend(r.choice(POOLS[r.choice(quiet)]) for _ in range(r.randint(1, 4)))
        else:
            out.extend(r.choice(POOLS[r.choice(loud)]) for _ in range(r.randint(1, 4)))
    return "".join(chr(c) for c in out)


NORMALIZERS = {
    "nfc": lambda: normalizers.NFC(),
    "nfd": lambda: normalizers.NFD(),
    "nfkc": lambda: normalizers.NFKC(),
    "nfkd": lambda: normalizers.NFKD(),
    "lowercase": lambda: normalizers.Lowercase(),
    "nfd,lowercase": lambda: normalizers.Sequence([normalizers.NFD(), normalizers.Lowercase()]),
    "nfkc,lowercase": lambda: normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase()]),
    "lowercase,nfc": lambda: normalizers.Sequence([normalizers.Lowercase(), normalizers.NFC()]),
}


def byte_tokenizer(norm):
    alphabet = ByteLevel.alphabet()
    vocab = {c: i for i, c in enumerate(sorted(alphabet))}
    tok = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    tok.normalizer = norm
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    return tok


def build_driver(cc):
    d = tempfile.mkdtemp(prefix="tc_norm_")
    exe = os.path.join(d, "norm_driver")
    src = os.path.join(ROOT, "native", "src")
    # the whole engine: normalize.c reaches the BERT, Precompiled and byte-level steps
    engine = sorted(os.path.join(src, f) for f in os.listdir(src) if f.endswith(".c"))
    cmd = [cc, "-std=c11", "-O2", "-I", src, os.path.join(ROOT, "tests", "native", "norm_driver.c"), *engine,
           "-o", exe, "-lm"]
    subprocess.run(cmd, check=True)
    return exe


def run_driver(exe, spec, texts):
    inp = bytearray()
    for t in texts:
        b = t.encode("utf-8")
        inp += struct.pack("<I", len(b)) + b
    out = subprocess.run([exe, spec], input=bytes(inp), stdout=subprocess.PIPE, check=True).stdout
    res = []
    i = 0
    for _ in texts:
        (n,) = struct.unpack_from("<I", out, i)
        i += 4
        nb = out[i:i + n]
        i += n
        spans = [struct.unpack_from("<II", out, i + 8 * k) for k in range(n)]
        i += 8 * n
        noop = out[i]
        i += 1
        res.append((nb, spans, noop))
    assert i == len(out)
    return res


def byte_to_char(text):
    m = []
    for ci, ch in enumerate(text):
        m.extend([ci] * len(ch.encode("utf-8")))
    m.append(len(text))
    return m


def test_normalizer_regions_match_hf(monkeypatch, capsys):
    """NFC, NFD, NFKC and NFKD normalize only the regions around the units they may change and copy
    the rest (normalize.c nfx_regions): texts of many such regions, apart and adjacent, and every
    precomposed Latin letter followed by one mark (the one-unit region nfx_regions keeps without a
    stream when the two do not compose: a letter with a decomposition must go through the stream),
    equal HF's text and alignments."""
    monkeypatch.setattr(sys, "argv", ["test_normalize_oracle.py", "--regions", "--n", "3000"])
    assert main() == 0, capsys.readouterr().out


def test_normalizers_match_hf(monkeypatch, capsys):
    """Normalized text, per-byte alignments and the no-op fast path equal HF's
    on seeded random strings for every normalizer (the full run: --n 20000)."""
    monkeypatch.setattr(sys, "argv", ["test_normalize_oracle.py", "--n", os.environ.get("NORM_ORACLE_N", "3000")])
    assert main() == 0, capsys.readouterr().out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--driver")
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("--only")
    ap.add_argument("--regions", action="store_true", help="longer texts of quiet runs and changing clusters")
    ap.add_argument("--all-chars", action="store_true",
                    help="instead of random strings: every assigned code point, alone and "
                         "between 'A' and two combining marks")
    a = ap.parse_args()
    exe = a.driver or build_driver(a.cc)
    total_bad = 0
    for spec, mk in NORMALIZERS.items():
        if a.only and spec != a.only:
            continue
        if a.all_chars:
            texts = [chr(c) for c in ANY] + ["A" + chr(c) + "\u0316\u0301" for c in ANY]
        else:
            r = random.Random("%d:%s" % (a.seed, spec))
            texts = [(region_string if a.regions else rand_string)(r) for _ in range(a.n)]
            if a.regions:   # a region of a precomposed letter and one mark that reorders under or composes with it
                texts += ["a" + chr(q) + chr(m) + "b" for q in POOLS["latin_pre"] for m in (0x301, 0x308, 0x316, 0x31B, 0x323)]
        n = len(texts)
        norm = mk()
        tok = byte_tokenizer(mk())
        encs = tok.encode_batch(texts, add_special_tokens=False)
        mine = run_driver(exe, spec, texts)
        bad = 0
        shown = 0
        for t, enc, (nb, spans, noop) in zip(texts, encs, mine):
            hf = norm.normalize_str(t)
            err = None
            if nb != hf.encode("utf-8"):
                err = "text: hf=%r c=%r" % (hf, nb.decode("utf-8", "replace"))
            elif len(enc.offsets) != len(nb):
                err = "token count %d != %d bytes" % (len(enc.offsets), len(nb))
            else:
                b2c = byte_to_char(t)
                got = [(b2c[s], b2c[e]) for s, e in spans]
                exp = [tuple(o) for o in enc.offsets]
                if got != exp:
                    k = next(i for i in range(len(got)) if got[i] != exp[i])
                    err = "align at byte %d: hf=%s c=%s" % (k, exp[k], got[k])
            if err is None and noop and hf != t:
                err = "is_noop said noop but text changes"
            if err:
                bad += 1
                if shown < 5:
                    shown += 1
                    print("  %s MISMATCH %s: %s" % (spec, [hex(ord(c)) for c in t], err))
        total_bad += bad
        print("%-15s %d/%d agree (%.4f%%)" % (spec, n - bad, n, 100.0 * (n - bad) / n))
    return 1 if total_bad else 0


if __name__ == "__main__":
    sys.exit(main())
