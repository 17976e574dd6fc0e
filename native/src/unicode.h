/* unicode.h - Unicode property lookups for the engine.
 *
 * Does: general category, White_Space, simple case folding equivalence,
 * per-character lowercase (full mapping, no context), and the data the
 * normalizer needs. Tables are generated from Python's `unicodedata` by
 * native/gen_unicode.py into unicode_data.h (committed, so a board builds
 * with one cc line). Code points >= TC_CP_INVALID_BASE (invalid UTF-8 bytes)
 * are Cn, not whitespace, fold to themselves.
 * Does not: normalize (normalize.c), or know about any regex syntax.
 */
#ifndef TC_UNICODE_H
#define TC_UNICODE_H

#include <stddef.h>
#include <stdint.h>

/* General categories, one value each. */
typedef enum tc_gc {
    TC_GC_Cn = 0, TC_GC_Lu, TC_GC_Ll, TC_GC_Lt, TC_GC_Lm, TC_GC_Lo,
    TC_GC_Mn, TC_GC_Mc, TC_GC_Me, TC_GC_Nd, TC_GC_Nl, TC_GC_No,
    TC_GC_Pc, TC_GC_Pd, TC_GC_Ps, TC_GC_Pe, TC_GC_Pi, TC_GC_Pf, TC_GC_Po,
    TC_GC_Sm, TC_GC_Sc, TC_GC_Sk, TC_GC_So, TC_GC_Zs, TC_GC_Zl, TC_GC_Zp,
    TC_GC_Cc, TC_GC_Cf, TC_GC_Cs, TC_GC_Co,
    TC_GC_COUNT
} tc_gc;

/* Bit masks over categories, for classes like \p{L}: (1u << gc) */
#define TC_GCM(gc) (1u << (gc))
#define TC_GCM_L (TC_GCM(TC_GC_Lu) | TC_GCM(TC_GC_Ll) | TC_GCM(TC_GC_Lt) | TC_GCM(TC_GC_Lm) | TC_GCM(TC_GC_Lo))
#define TC_GCM_M (TC_GCM(TC_GC_Mn) | TC_GCM(TC_GC_Mc) | TC_GCM(TC_GC_Me))
#define TC_GCM_N (TC_GCM(TC_GC_Nd) | TC_GCM(TC_GC_Nl) | TC_GCM(TC_GC_No))
#define TC_GCM_P (TC_GCM(TC_GC_Pc) | TC_GCM(TC_GC_Pd) | TC_GCM(TC_GC_Ps) | TC_GCM(TC_GC_Pe) | TC_GCM(TC_GC_Pi) | TC_GCM(TC_GC_Pf) | TC_GCM(TC_GC_Po))
#define TC_GCM_S (TC_GCM(TC_GC_Sm) | TC_GCM(TC_GC_Sc) | TC_GCM(TC_GC_Sk) | TC_GCM(TC_GC_So))
#define TC_GCM_Z (TC_GCM(TC_GC_Zs) | TC_GCM(TC_GC_Zl) | TC_GCM(TC_GC_Zp))
#define TC_GCM_C (TC_GCM(TC_GC_Cn) | TC_GCM(TC_GC_Cc) | TC_GCM(TC_GC_Cf) | TC_GCM(TC_GC_Cs) | TC_GCM(TC_GC_Co))

tc_gc tc_unicode_gc(uint32_t cp);

/* Unicode White_Space property (what \s matches, and Rust's char::is_whitespace). */
int tc_unicode_is_space(uint32_t cp);

/* Alphabetic or numeric as Rust's char::is_alphanumeric (Alphabetic || Numeric). */
int tc_unicode_is_alnum(uint32_t cp);

/* Simple case folding (CaseFolding.txt status C+S). Two code points match
 * case-insensitively iff their folds are equal. */
uint32_t tc_unicode_fold(uint32_t cp);

/* Full lowercase mapping of one character, without context (Rust's
 * char::to_lowercase). Writes up to 3 code points to out, returns count. */
int tc_unicode_lower(uint32_t cp, uint32_t out[3]);

/* Unicode version the tables were generated from, e.g. "14.0.0". */
const char *tc_unicode_version(void);

/* ---- regex classes -------------------------------------------------------
 * The regex engine's \p{..}, \s, \w and \d follow their own table, at the
 * Unicode version of the references' regex engines (16.0 for both HF
 * tokenizers 0.23.3's Oniguruma and tiktoken 0.14's regex crate, measured on
 * every code point), not at the version of the lookups above, which serve
 * the Rust-side classifiers and normalizers of HF. Code points >=
 * TC_CP_INVALID_BASE are Cn, not space, not word. */

/* Which reference's \w: Oniguruma (a tokenizer.json) or Rust's regex crate
 * (tiktoken: a rank file). They differ on 8 code points, see gen_unicode.py. */
typedef enum tc_rx_flavor { TC_RX_ONIG = 0, TC_RX_RUST = 1 } tc_rx_flavor;

/* General category at the regex version. */
tc_gc tc_unicode_rx_gc(uint32_t cp);

/* White_Space (\s); the same set in both flavors. */
int tc_unicode_rx_space(uint32_t cp);

/* The classes of tc_unicode_rx_run. */
typedef enum tc_rx_run_class {
    TC_RUN_L,       /* \p{L} */
    TC_RUN_N,       /* \p{N} */
    TC_RUN_SPACE,   /* \s */
    TC_RUN_OTHER    /* [^\s\p{L}\p{N}] */
} tc_rx_run_class;

/* The end of the run of valid non-ASCII UTF-8 units of class `cls` from s[i]: stops at an ASCII byte,
 * an invalid sequence or a unit of another class (i itself when s[i] is none of the run's). One call
 * per run where the hand-written scanners (fastpat.c) made one per unit. *other is set to 1 when the
 * run stopped at a valid non-ASCII unit of another class (the caller need not decode it again), else 0. */
size_t tc_unicode_rx_run(const uint8_t *s, size_t len, size_t i, tc_rx_run_class cls, int *other);

/* The non-ASCII units of the 64 bytes at s (len bytes from s on, len >= 64) for the scanner's blocks
 * (fastpat.c block_starts): na has a bit for each byte >= 0x80. Units are decoded from the lowest such
 * byte on; a letter's bytes go into *letters, the bytes after a unit's first into *cont, and a unit of
 * [^\s\p{L}\p{N}] (or an invalid byte, one unit of its own) stays "other". Returns the first byte
 * that is not decided here (a digit or a space), 64 if none. */
unsigned tc_unicode_rx_block(const uint8_t *s, size_t len, uint64_t na, uint64_t *letters, uint64_t *cont);

/* \w of the flavor (UTS #18 word with each engine's exceptions); bracket:
 * the \w is inside [...] (Oniguruma answers a bare \w below U+0100 from its
 * Latin-1 table, a bracketed one from the Word code ranges). */
int tc_unicode_rx_word(uint32_t cp, tc_rx_flavor flavor, int bracket);

/* Unicode version of the regex classes, e.g. "16.0.0". */
const char *tc_unicode_rx_version(void);

/* ---- scripts (HF's UnicodeScripts pre-tokenizer) ---------------------------
 * HF tokenizers carries its own script table (Unicode 9.0's Scripts.txt, see
 * gen_unicode.py); a code point it does not list is "Any". */

/* Script id of cp in that table: 0 = Any (unlisted), else 1..count-1. */
int tc_unicode_script(uint32_t cp);

/* The script as the pre-tokenizer sees it (HF's fixed_script): U+30FC and
 * Hiragana and Katakana are Han, U+0020 is Any. An invalid byte
 * (>= TC_CP_INVALID_BASE, which HF never sees) gets a script of its own. */
int tc_unicode_script_hf(uint32_t cp);

/* Number of script ids, and the name of one ("Any", "Latin", ...; NULL if out of range). */
int tc_unicode_script_count(void);
const char *tc_unicode_script_name(int id);

/* ---- normalization data (used by normalize.c) ---------------------------
 * These follow HF tokenizers' crate unicode-normalization-alignments 0.1.12,
 * whose tables are Unicode 9.0: characters assigned later have combining
 * class 0, no decomposition, and compose with nothing. Hangul syllables are
 * handled algorithmically. Code points >= TC_CP_INVALID_BASE: class 0, no
 * mappings, all quick checks Yes. */

/* Longest full decomposition (U+FDFA has 18 code points under NFKD). */
#define TC_UNICODE_DECOMP_MAX 18

/* Canonical combining class (0 = starter). */
int tc_unicode_ccc(uint32_t cp);

/* Full (recursively expanded, not yet reordered) canonical decomposition,
 * or compatibility decomposition when compat != 0. Writes the mapping to out
 * and returns its length, or returns 0 when cp maps to itself. */
int tc_unicode_decompose(uint32_t cp, int compat, uint32_t out[TC_UNICODE_DECOMP_MAX]);

/* Primary composite of the pair <a, b> (Hangul LV / LVT included), or 0. */
uint32_t tc_unicode_compose(uint32_t a, uint32_t b);

/* Per-character normalization bits, see tc_unicode_norm_info. */
#define TC_UNF_CANON     0x04u  /* has a canonical decomposition */
#define TC_UNF_COMPAT    0x08u  /* has a compatibility (or canonical) decomposition */
#define TC_UNF_NFC_NY    0x10u  /* NFC quick check is No or Maybe */
#define TC_UNF_NFKC_NY   0x20u  /* NFKC quick check is No or Maybe */
#define TC_UNF_LOWER_CHG 0x80u  /* lowercase mapping differs from cp */

/* One lookup for the fast paths: returns (ccc << 16) | TC_UNF_* bits. */
uint32_t tc_unicode_norm_info(uint32_t cp);

/* The units from byte i (i < len, s[i] >= 0x80) that a normalization form leaves alone on their own:
 * tc_utf8_decode's units, each non-ASCII, whose tc_unicode_norm_info has none of `bad` and ccc 0 (an
 * invalid byte is such a unit: its info is 0). Returns the offset of the first byte that is not in
 * such a unit (an ASCII byte, a unit with a `bad` bit or a ccc, or len); *last is the start of the
 * run's last unit, left as it was when the run is empty. One call per run of non-ASCII text instead of
 * a decode and a lookup call per unit (those were 17% of a warm ids-only pass over the multilingual
 * corpus with Qwen3's NFC, perf). */
size_t tc_unicode_quiet_run(const uint8_t *s, size_t len, size_t i, uint32_t bad, size_t *last);

#endif
