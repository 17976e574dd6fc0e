/* fastpat.c - hand-written scanners for the well-known split patterns.
 *
 * Does: find_iter of three patterns without the regex machine, by
 * classifying each unit once (letter, number, \r/\n, other whitespace,
 * other) and replaying what the backtracking matcher would do:
 *   QWEN2   (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}|
 *            ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
 *   CL100K  the same with \p{N}{1,3} (also Llama-3's pattern)
 *   GPT2    's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
 * The alternatives are tried in order at each position, as the regex does.
 * Tests check agreement with regex.c on random and real text.
 * Does not: any other pattern (tc_fast_detect returns TC_FAST_NONE and
 * the generic matcher runs). Performance note: this scanner is what makes
 * pre-tokenization cheap (the generic matcher costs ~3x more per byte).
 */
#include "pretok.h"
#include "unicode.h"

#define PAT_GPT2 "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+"
#define PAT_QWEN2 "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"
#define PAT_CL100K "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"

tc_fastpat tc_fast_detect(const char *pattern, size_t len) {
    if (len == strlen(PAT_QWEN2) && memcmp(pattern, PAT_QWEN2, len) == 0) return TC_FAST_QWEN2;
    if (len == strlen(PAT_CL100K) && memcmp(pattern, PAT_CL100K, len) == 0) return TC_FAST_CL100K;
    if (len == strlen(PAT_GPT2) && memcmp(pattern, PAT_GPT2, len) == 0) return TC_FAST_GPT2;
    return TC_FAST_NONE;
}

enum { C_END = 0, C_L, C_N, C_NL, C_WS, C_P };   /* C_NL is \r or \n (also whitespace) */

typedef struct unit { int cls; int n; uint32_t cp; } unit;

/* The class of each ASCII byte: letters, digits, \r \n, the other
 * whitespace (\t \v \f and space: Unicode White_Space below 0x80), the rest. */
static const uint8_t ascii_cls[128] = {
    C_P, C_P, C_P, C_P, C_P, C_P, C_P, C_P,
    C_P, C_WS, C_NL, C_WS, C_WS, C_NL, C_P, C_P,
    C_P, C_P, C_P, C_P, C_P, C_P, C_P, C_P,
    C_P, C_P, C_P, C_P, C_P, C_P, C_P, C_P,
    C_WS, C_P, C_P, C_P, C_P, C_P, C_P, C_P,
    C_P, C_P, C_P, C_P, C_P, C_P, C_P, C_P,
    C_N, C_N, C_N, C_N, C_N, C_N, C_N, C_N,
    C_N, C_N, C_P, C_P, C_P, C_P, C_P, C_P,
    C_P, C_L, C_L, C_L, C_L, C_L, C_L, C_L,
    C_L, C_L, C_L, C_L, C_L, C_L, C_L, C_L,
    C_L, C_L, C_L, C_L, C_L, C_L, C_L, C_L,
    C_L, C_L, C_L, C_P, C_P, C_P, C_P, C_P,
    C_P, C_L, C_L, C_L, C_L, C_L, C_L, C_L,
    C_L, C_L, C_L, C_L, C_L, C_L, C_L, C_L,
    C_L, C_L, C_L, C_L, C_L, C_L, C_L, C_L,
    C_L, C_L, C_L, C_P, C_P, C_P, C_P, C_P,
};

/* The same classes as bits, for the runs' inner loop: bytes 0x80-0xFF have none, so one
 * lookup both tests "ASCII" and "of the wanted class" (run_end was 15% of a warm encode). */
#define BL (1u << C_L)
#define BN (1u << C_N)
#define BNL (1u << C_NL)
#define BWS (1u << C_WS)
#define BP (1u << C_P)
static const uint8_t ascii_bit[256] = {
    BP, BP, BP, BP, BP, BP, BP, BP, BP, BWS, BNL, BWS, BWS, BNL, BP, BP,
    BP, BP, BP, BP, BP, BP, BP, BP, BP, BP, BP, BP, BP, BP, BP, BP,
    BWS, BP, BP, BP, BP, BP, BP, BP, BP, BP, BP, BP, BP, BP, BP, BP,
    BN, BN, BN, BN, BN, BN, BN, BN, BN, BN, BP, BP, BP, BP, BP, BP,
    BP, BL, BL, BL, BL, BL, BL, BL, BL, BL, BL, BL, BL, BL, BL, BL,
    BL, BL, BL, BL, BL, BL, BL, BL, BL, BL, BL, BP, BP, BP, BP, BP,
    BP, BL, BL, BL, BL, BL, BL, BL, BL, BL, BL, BL, BL, BL, BL, BL,
    BL, BL, BL, BL, BL, BL, BL, BL, BL, BL, BL, BP, BP, BP, BP, BP,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};
#undef BL
#undef BN
#undef BNL
#undef BWS
#undef BP

static inline unit unit_at(const uint8_t *s, size_t len, size_t i) {
    unit u;
    if (i >= len) { u.cls = C_END; u.n = 0; u.cp = 0; return u; }
    uint8_t b = s[i];
    if (b < 0x80) {
        u.n = 1; u.cp = b;
        u.cls = ascii_cls[b];
        return u;
    }
    u.cp = tc_utf8_decode(s, len, i, &u.n);
    uint32_t m = TC_GCM(tc_unicode_rx_gc(u.cp));
    if (m & TC_GCM_L) u.cls = C_L;
    else if (m & TC_GCM_N) u.cls = C_N;
    else if (tc_unicode_rx_space(u.cp)) u.cls = C_WS;
    else u.cls = C_P;
    return u;
}

static inline int is_ws(int c) { return c == C_WS || c == C_NL; }

#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* How many of the eight bytes at p, from the first, are ASCII letters (A-Z, a-z: C_L in
 * ascii_cls), as one word's arithmetic: each byte's high bit says "letter", and the first byte
 * without it ends the run. A byte b < 0x80 with bit 0x20 set is y; y - 'a' < 26 is "y + (0x80 -
 * 'a') has its high bit and y + (0x80 - 'z' - 1) has not", and neither add carries into the next
 * byte (y <= 0x7F). Bytes >= 0x80 (UTF-8) are not counted: the caller decodes those. */
static inline size_t ascii_letters(const uint8_t *p) {
    const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
    uint64_t w;
    memcpy(&w, p, 8);
    uint64_t y = (w | 0x20 * ones) & ~high;
    uint64_t ge_a = y + (0x80 - 'a') * ones;
    uint64_t gt_z = y + (0x80 - 'z' - 1) * ones;
    uint64_t letter = ge_a & ~gt_z & ~w & high;
    uint64_t stop = ~letter & high;
    return stop ? (size_t)__builtin_ctzll(stop) >> 3 : 8;
}
#endif

/* End of the run of units of class `want` (or whitespace when want is
 * C_WS) starting at i. */
static size_t run_end(const uint8_t *s, size_t len, size_t i, int want) {
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (want == C_L) {
        /* ASCII letters eight bytes at a time: a word's end was one mispredicted exit of the
         * byte loop below per chunk (run_end was 18% of a warm encode of War and Peace, perf) */
        while (i + 8 <= len) {
            size_t k = ascii_letters(s + i);
            i += k;
            if (k < 8) break;
        }
    }
#endif
    for (;;) {
        /* ASCII bytes straight from the table (most of English and code) */
        unsigned mask = want == C_WS ? (1u << C_WS | 1u << C_NL) : 1u << want;
        while (i < len && (ascii_bit[s[i]] & mask)) i++;
        if (i < len && s[i] < 0x80) return i;
        if (want != C_NL && i < len) {
            /* non-ASCII units of the class, in one call (unit_at's two calls per unit were a third
             * of a warm encode of the UDHR translations, perf); an invalid byte (a unit of C_P) and
             * the run's end go on below */
            int other;
            size_t j = tc_unicode_rx_run(s, len, i, want == C_L ? TC_RUN_L : want == C_N ? TC_RUN_N :
                                                   want == C_WS ? TC_RUN_SPACE : TC_RUN_OTHER, &other);
            /* a valid unit of another class ends the run: rx_run's classes are unit_at's (C_WS is
             * whitespace that is no letter or digit, C_P none of the three) */
            if (other) return j;
            if (j != i) { i = j; continue; }
        }
        unit u = unit_at(s, len, i);
        if (u.cls == C_END) return i;
        if (want == C_WS ? !is_ws(u.cls) : u.cls != want) return i;
        i += (size_t)u.n;
    }
}

/* run_end(s, len, i, C_L) with the ASCII case inline: most chunks are a word of ASCII letters,
 * and the call was most of what a word cost (run_end 16% of a warm encode, perf). */
static inline size_t letter_run(const uint8_t *s, size_t len, size_t i) {
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    while (i + 8 <= len) {
        size_t k = ascii_letters(s + i);
        i += k;
        if (k < 8) {
            if (s[i] < 0x80) return i;   /* an ASCII byte that is no letter ends the run */
            break;
        }
    }
#endif
    return run_end(s, len, i, C_L);
}

/* Contraction after an apostrophe at i: returns the match end or 0. */
static size_t contraction(const uint8_t *s, size_t len, size_t i, int icase) {
    size_t j = i + 1;
    unit a = unit_at(s, len, j);
    if (a.cls != C_L) return 0;
    uint32_t c1 = icase ? tc_unicode_fold(a.cp) : a.cp;
    if (c1 == 's' || c1 == 't' || c1 == 'm' || c1 == 'd') {
        /* 's 't come before 're 've in the alternation, but cannot both match */
        return j + (size_t)a.n;
    }
    if (c1 == 'r' || c1 == 'v' || c1 == 'l') {
        unit b = unit_at(s, len, j + (size_t)a.n);
        if (b.cls != C_L) return 0;
        uint32_t c2 = icase ? tc_unicode_fold(b.cp) : b.cp;
        if ((c1 == 'r' && c2 == 'e') || (c1 == 'v' && c2 == 'e') || (c1 == 'l' && c2 == 'l'))
            return j + (size_t)a.n + (size_t)b.n;
    }
    return 0;
}

/* Whitespace alternatives shared by all three patterns, at a whitespace
 * unit i whose run ends at j. with_nl: the \s*[\r\n]+ alternative exists. */
static size_t ws_match(const uint8_t *s, size_t len, size_t i, int with_nl) {
    size_t j = run_end(s, len, i, C_WS);
    /* The run holds valid units of whitespace only (an invalid byte is C_P and ends it), so its bytes are
     * read backwards: a \r or \n byte is a unit of its own (no byte of a multi-byte unit is below 0x80),
     * and a unit starts at a byte that is no continuation byte. One pass from the end instead of two
     * decodes of the whole run (a 200,000-space text is one run: its scan was 10% of its encode, perf). */
    if (with_nl) {
        /* \s*[\r\n]+ : up to and including the last \r or \n of the run */
        for (size_t k = j; k > i; k--)
            if (s[k - 1] == '\n' || s[k - 1] == '\r') return k;
    }
    /* \s+(?!\S) : the whole run at the end of the text, else all but its last unit */
    if (j >= len) return j;
    size_t prev = j - 1;
    while (prev > i && (s[prev] & 0xC0) == 0x80) prev--;
    if (prev > i) return prev;
    /* \s+ */
    return j;
}

int tc_fast_find_all(tc_fastpat p, const uint8_t *s, size_t len, size_t **out, size_t *n, size_t *cap) {
    size_t next;
    return tc_fast_find_from(p, s, len, 0, SIZE_MAX, out, n, cap, &next);
}

/* The end of the match that starts at i (< len), unit by unit. */
static size_t match_end(tc_fastpat p, const uint8_t *s, size_t len, size_t i) {
    int gpt2 = p == TC_FAST_GPT2;
    size_t maxn = p == TC_FAST_CL100K ? 3 : 1;
    unit u = unit_at(s, len, i);
    size_t end = 0;
    if (u.cp == '\'' && (end = contraction(s, len, i, !gpt2)) != 0) return end;
    if (gpt2) {
        unit v = u;
        size_t k = i;
        if (u.cp == ' ') { k = i + 1; v = unit_at(s, len, k); }
        /* a run's first unit is known to be of its class: the run goes on after it (its units
         * decoded once) */
        if (v.cls == C_L) return letter_run(s, len, k + (size_t)v.n);
        if (v.cls == C_N) return run_end(s, len, k + (size_t)v.n, C_N);
        if (v.cls == C_P) return run_end(s, len, k + (size_t)v.n, C_P);
        return ws_match(s, len, i, 0);
    }
    if (u.cls == C_L) return letter_run(s, len, i + (size_t)u.n);
    unit v = unit_at(s, len, i + (size_t)u.n);
    if (u.cls != C_NL && u.cls != C_N && v.cls == C_L) return letter_run(s, len, i + (size_t)u.n + (size_t)v.n);
    if (u.cls == C_N) {
        end = i + (size_t)u.n;
        for (size_t c = 1; c < maxn; c++) {
            unit w = unit_at(s, len, end);
            if (w.cls != C_N) break;
            end += (size_t)w.n;
        }
        return end;
    }
    if (u.cls == C_P || (u.cp == ' ' && v.cls == C_P)) {
        end = run_end(s, len, u.cls == C_P ? i + (size_t)u.n : i + 1 + (size_t)v.n, C_P);
        return run_end(s, len, end, C_NL);
    }
    return ws_match(s, len, i, 1);
}

/* ---- 64 bytes at a time (QWEN2, CL100K) ------------------------------------
 *
 * Every match start of a block from bitmaps of its bytes' classes (bit j is
 * byte j of the block), without trying the alternatives at each start. The
 * block begins at a match start b. What decides whether a byte x is a match
 * start, for these two patterns over ASCII (derived from match_end above,
 * which replays the alternatives in order; tests/test_scanner_blocks.py and
 * tests/native/test_fastpat.c hold the two against each other and regex.c):
 *   - a letter run's first letter, unless the byte before it is a prefix
 *     [^\r\n\p{L}\p{N}] that starts a match (other whitespace always does
 *     there; punctuation does when it is a run of one not after a space);
 *   - every digit (QWEN2), every third of a digit run from its first (CL100K);
 *   - a punctuation run's first byte, unless a space before it starts the
 *     match ( ?[^\s\p{L}\p{N}]+); nothing inside the run, and the \r\n run
 *     after it belongs to it;
 *   - in a run of whitespace: its first byte unless it follows punctuation
 *     (then the first byte after the \r\n the punctuation took), the byte
 *     after the run's last \r or \n (\s*[\r\n]+ ends there), and the run's
 *     last byte when at least two bytes without \r\n end the run before a
 *     non-space (\s+(?!\S) leaves the last one);
 *   - after an apostrophe that starts a match: the byte after 's 't 'm 'd
 *     're 've 'll (any case) when a letter follows.
 * What lies after the block can change only the last run of the block (a
 * run of letters, digits, punctuation or whitespace that reaches the
 * block's end: its whitespace may meet a \n later, its letters go on): the
 * starts up to that run's first byte are kept, and the scan resumes at the
 * last of them. Non-ASCII units take part as whole units: a letter's bytes
 * are letters, a unit of [^\s\p{L}\p{N}] (a mark, a symbol, an invalid
 * byte) is punctuation, and the "run of one" above is a run of one unit
 * (its bytes after the first are known: C); a non-ASCII digit or space
 * cuts the block before it (a unit that crosses the block's end needs no
 * cut: it is in the last run), and an apostrophe before a non-ASCII letter
 * (which may fold to s under (?i)) ends the decided part.
 * The approach (a block's classes as 64-bit maps, the starts by word
 * operations) is the one crusoecloud/fastokens describes for its scanner
 * (src/pre_tokenizers/scan_simd.rs, commit 55f3ef3); the rules above are
 * derived here from match_end, not taken from it. */
#if defined(__GNUC__)
#define TC_BLOCKS 1
#if defined(__SSE2__) && !defined(TC_FASTPAT_PORTABLE)
#include <emmintrin.h>
#endif

typedef struct cls64 { uint64_t l, n, nl, ws, sp, ap, na; } cls64;

/* AVX-512BW where the compiler can target it for one function and the CPU may have it (x86 with GCC or
 * Clang; never in the portable build): chosen at run time, per scan (tc_fast_wide) */
#if (defined(__x86_64__) || defined(__i386__)) && !defined(TC_FASTPAT_PORTABLE) && \
    (defined(__clang__) || __GNUC__ >= 8)
#define TC_FASTPAT_AVX512 1
#include <immintrin.h>
#define TC_AVX512 __attribute__((target("avx512f,avx512bw")))
#else
#define TC_FASTPAT_AVX512 0
#endif

static inline void classify64(const uint8_t *s, cls64 *c) {
#if defined(__SSE2__) && !defined(TC_FASTPAT_PORTABLE)
    memset(c, 0, sizeof *c);
    for (unsigned q = 0; q < 4; q++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + 16 * q));
        /* bytes >= 0x80 are negative as signed bytes: no range test below passes for them */
        __m128i low = _mm_or_si128(v, _mm_set1_epi8(0x20));
        __m128i l = _mm_and_si128(_mm_cmpgt_epi8(low, _mm_set1_epi8('a' - 1)), _mm_cmplt_epi8(low, _mm_set1_epi8('z' + 1)));
        __m128i n = _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('0' - 1)), _mm_cmplt_epi8(v, _mm_set1_epi8('9' + 1)));
        __m128i nl = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\n')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\r')));
        __m128i sp = _mm_cmpeq_epi8(v, _mm_set1_epi8(' '));
        /* \t \v \f (9, 11, 12): 8 < b < 14 and not \n \r */
        __m128i ctl = _mm_andnot_si128(nl, _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8(8)), _mm_cmplt_epi8(v, _mm_set1_epi8(14))));
        __m128i ap = _mm_cmpeq_epi8(v, _mm_set1_epi8('\''));
        unsigned sh = 16 * q;
        c->l |= (uint64_t)(unsigned)_mm_movemask_epi8(l) << sh;
        c->n |= (uint64_t)(unsigned)_mm_movemask_epi8(n) << sh;
        c->nl |= (uint64_t)(unsigned)_mm_movemask_epi8(nl) << sh;
        c->ws |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_or_si128(sp, ctl)) << sh;
        c->sp |= (uint64_t)(unsigned)_mm_movemask_epi8(sp) << sh;
        c->ap |= (uint64_t)(unsigned)_mm_movemask_epi8(ap) << sh;
        c->na |= (uint64_t)(unsigned)_mm_movemask_epi8(v) << sh;
    }
#else
    /* one byte at a time through the class table (ascii_cls: C_WS is \t \v \f and space) */
    uint64_t m[8] = {0};
    uint64_t sp = 0, ap = 0;
    for (unsigned j = 0; j < 64; j++) {
        uint8_t b = s[j];
        m[b < 0x80 ? ascii_cls[b] : 7] |= 1ull << j;
        sp |= (uint64_t)(b == ' ') << j;
        ap |= (uint64_t)(b == '\'') << j;
    }
    c->l = m[C_L]; c->n = m[C_N]; c->nl = m[C_NL]; c->ws = m[C_WS]; c->sp = sp; c->ap = ap; c->na = m[7];
#endif
}

/* classify64 with AVX-512BW, for the CPUs that have it (tc_fast_wide decides at each scan): one
 * 64-byte load and a compare straight into a 64-bit mask per class, where the SSE2 path takes four
 * 16-byte quarters, a movemask, a shift and an OR per class and quarter (~200 instructions a
 * block, 30% of the scanner's on code, callgrind). The same classes: a letter is (b | 0x20) - 'a'
 * <= 25 unsigned, a digit b - '0' <= 9, \t \v \f are 9 <= b <= 13 without \n \r; a byte >= 0x80 is
 * none of them. fastokens 0.3.5 classifies its blocks with AVX-512 as well (a perf profile of it
 * names scan_simd::avx512::classify_block_bulk); the compares are written here from the classes above.
 * tests/native/test_fastpat.c compares both classifications on every byte value at every place. */
#if TC_FASTPAT_AVX512
static TC_AVX512 inline void classify64_avx512(const uint8_t *s, cls64 *c) {
    __m512i v = _mm512_loadu_si512((const void *)s);
    __m512i low = _mm512_or_si512(v, _mm512_set1_epi8(0x20));
    c->l = _mm512_cmple_epu8_mask(_mm512_sub_epi8(low, _mm512_set1_epi8('a')), _mm512_set1_epi8(25));
    c->n = _mm512_cmple_epu8_mask(_mm512_sub_epi8(v, _mm512_set1_epi8('0')), _mm512_set1_epi8(9));
    uint64_t nl = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\n')) | _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\r'));
    uint64_t ctl = _mm512_cmple_epu8_mask(_mm512_sub_epi8(v, _mm512_set1_epi8(9)), _mm512_set1_epi8(4)) & ~nl;
    c->nl = nl;
    c->sp = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(' '));
    c->ws = c->sp | ctl;
    c->ap = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\''));
    c->na = _mm512_movepi8_mask(v);
}
#endif

/* b is the ASCII letter x, in either case (b is a letter at the callers). */
static inline int lower_is(uint8_t b, char x) { return (b | 0x20) == x; }

/* The match starts of s[0..64) that are decided by these 64 bytes, s[0] being a match start
 * (bit 0 always set; a bit above 0 is a match start, and the scan may resume at the highest). */
#define TC_FP_INLINE inline __attribute__((always_inline))
static TC_FP_INLINE uint64_t starts_from(cls64 c, const uint8_t *s, size_t len, int cl100k) {
    uint64_t valid = ~0ull, C = 0;
    if (c.na) {
        /* non-ASCII units: a letter's bytes are letters, an other unit's bytes punctuation (P below), its
         * bytes after the first in C; the block ends before a non-ASCII digit or space (those wait for the
         * unit-by-unit scan) */
        uint64_t ul;
        unsigned x = tc_unicode_rx_block(s, len, c.na, &ul, &C);
        if (x < 2) return 1;
        if (x < 64) valid = (1ull << x) - 1;
        c.l |= ul;
    }
    uint64_t L = c.l & valid, N = c.n & valid, NL = c.nl & valid, WS = c.ws & valid, SP = c.sp & valid;
    uint64_t W = WS | NL, P = valid & ~(L | N | W);
    /* the last run: its first byte r is the last that may be kept */
    unsigned top = 63 - (unsigned)__builtin_clzll(valid);
    uint64_t topbit = 1ull << top;
    uint64_t kind = (L & topbit) ? L : (N & topbit) ? N : (P & topbit) ? P : W;
    uint64_t other = ~kind & (topbit - 1);
    if (!other) return 1;
    unsigned r = 64 - (unsigned)__builtin_clzll(other);
    /* punctuation runs whose first byte starts a match (no space before it) */
    uint64_t ps = P & ~(P << 1) & ~(SP << 1);
    /* a punctuation run of one unit: ps's unit ends the run (its bytes: ps and the continuation bytes after it) */
    uint64_t ps1 = ps;
    if (C)   /* only a block with non-ASCII units has continuation bytes (9% of a block's samples, perf) */
        for (unsigned k = 0; k < 3; k++) ps1 |= (ps1 << 1) & C;
    /* letters: a run's first letter, unless other whitespace or such a lone punctuation unit is its prefix */
    uint64_t starts = L & ~(L << 1) & ~(WS << 1) & ~(ps1 << 1);
    /* digits */
    if (!cl100k) {
        starts |= N;
    } else {
        for (uint64_t d = N & ~(N << 1); d; d &= d - 1) {
            unsigned a = (unsigned)__builtin_ctzll(d);
            uint64_t rest = ~(N >> a);
            unsigned e = rest ? a + (unsigned)__builtin_ctzll(rest) : 64;
            for (unsigned k = a; k < e; k += 3) starts |= 1ull << k;
        }
    }
    starts |= ps;
    /* whitespace. \r\n right after punctuation belong to its match: absorbed is each such run */
    uint64_t seeds = NL & (P << 1);
    uint64_t absorbed = NL & ~(NL + seeds);
    starts |= W & ~(W << 1) & ~(P << 1);                  /* a run's first byte, not after punctuation */
    starts |= WS & ((absorbed | P) << 1);                 /* ... after punctuation and the \r\n it took */
    /* nl_ahead: bytes of a whitespace run with a \r or \n at or after them in the run */
    uint64_t g = NL, pr = W;
    for (unsigned k = 1; k < 64; k <<= 1) {
        g |= pr & (g >> k);
        pr &= pr >> k;
    }
    starts |= WS & (NL << 1) & ~g;                        /* after the run's last \r or \n */
    starts |= WS & (WS << 1) & ((valid & ~W) >> 1);       /* the last of two or more before a non-space */
    /* contractions after an apostrophe that starts a match and is followed by a letter */
    for (uint64_t a = c.ap & ps & (L >> 1); a; a &= a - 1) {
        unsigned j = (unsigned)__builtin_ctzll(a);
        if (j >= r) break;
        if (j + 3 > top) { r = j; break; }   /* its letters are not all in the block's decided part */
        uint8_t b1 = s[j + 1], b2 = s[j + 2];
        /* a non-ASCII letter may fold to an ASCII one ('\u017f is 's under (?i)): contraction() decides. No
         * non-ASCII letter folds to e or l (tests/test_scanner_blocks.py tries every letter after 'r 'v 'l) */
        if (b1 >= 0x80) { r = j; break; }
        unsigned after = 0;
        if (lower_is(b1, 's') || lower_is(b1, 't') || lower_is(b1, 'm') || lower_is(b1, 'd')) after = j + 2;
        else if ((L >> (j + 2)) & 1 && ((lower_is(b1, 'r') && lower_is(b2, 'e')) || (lower_is(b1, 'v') && lower_is(b2, 'e')) ||
                                        (lower_is(b1, 'l') && lower_is(b2, 'l')))) after = j + 3;
        if (after && ((L >> after) & 1)) starts |= 1ull << after;
    }
    return (starts | 1) & (r == 63 ? ~0ull : (2ull << r) - 1);
}

static uint64_t block_starts(const uint8_t *s, size_t len, int cl100k) {
    cls64 c;
    classify64(s, &c);
    return starts_from(c, s, len, cl100k);
}

#if TC_FASTPAT_AVX512
/* block_starts over classify64_avx512 (the same starts: only the classification differs) */
static TC_AVX512 uint64_t block_starts_avx512(const uint8_t *s, size_t len, int cl100k) {
    cls64 c;
    classify64_avx512(s, &c);
    return starts_from(c, s, len, cl100k);
}
#endif

#endif

#if TC_FASTPAT_AVX512
/* The pieces of a block with AVX-512 (find_from's scalar loop: a tzcnt, three stores and the loop's
 * own ~13 instructions a piece, 40% of the scanner's instructions on code, callgrind): o[0..) get the
 * pieces (base, base + b0), (base + b0, base + b1), ... for the bits b0 < b1 < ... of starts (bit 0
 * clear), prefix_space 0; returns their number. Sixteen bits at a time: the ends are the bits' lane
 * numbers compressed to the front of a vector (vpcompressd) plus base, the starts the same vector
 * moved up one lane behind the previous end (valignd), and three permutes lay sixteen pieces out as
 * tc_piece's twelve bytes (start, end, then a zero dword: prefix_space and the padding). Each group
 * writes sixteen pieces, those past its own count overwritten by the next: o needs room for 64. */
static TC_AVX512 size_t emit_block_avx512(tc_piece *o, uint64_t starts, uint32_t base) {
    /* dword d of a group's 48: piece d / 3, field d % 3 (0 start: lane p of st, 1 end: lane 16 + p of
     * the ends, 2 zero: masked off) */
    const __m512i i0 = _mm512_setr_epi32(0, 16, 0, 1, 17, 0, 2, 18, 0, 3, 19, 0, 4, 20, 0, 5);
    const __m512i i1 = _mm512_setr_epi32(21, 0, 6, 22, 0, 7, 23, 0, 8, 24, 0, 9, 25, 0, 10, 26);
    const __m512i i2 = _mm512_setr_epi32(0, 11, 27, 0, 12, 28, 0, 13, 29, 0, 14, 30, 0, 15, 31, 0);
    const __m512i lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    uint8_t *dst = (uint8_t *)o;
    uint32_t prev = base;   /* the block starts at a match start */
    size_t q = 0;
    for (unsigned g = 0; g < 4; g++) {
        uint32_t m = (uint32_t)(starts >> (16 * g)) & 0xFFFFu;
        if (!m) continue;
        uint32_t at = base + 16 * g;
        __m512i ends = _mm512_maskz_compress_epi32((__mmask16)m, _mm512_add_epi32(lanes, _mm512_set1_epi32((int)at)));
        __m512i st = _mm512_alignr_epi32(ends, _mm512_set1_epi32((int)prev), 15);
        uint8_t *d = dst + q * sizeof(tc_piece);
        _mm512_storeu_si512((void *)d, _mm512_maskz_permutex2var_epi32((__mmask16)0xb6db, st, i0, ends));
        _mm512_storeu_si512((void *)(d + 64), _mm512_maskz_permutex2var_epi32((__mmask16)0xdb6d, st, i1, ends));
        _mm512_storeu_si512((void *)(d + 128), _mm512_maskz_permutex2var_epi32((__mmask16)0x6db6, st, i2, ends));
        q += (size_t)__builtin_popcount(m);
        prev = at + 31u - (uint32_t)__builtin_clz(m);   /* the group's highest bit */
    }
    return q;
}
/* the layout the three permutes write */
_Static_assert(sizeof(tc_piece) == 12 && offsetof(tc_piece, start) == 0 && offsetof(tc_piece, end) == 4 &&
               offsetof(tc_piece, prefix_space) == 8, "tc_piece is start, end, prefix_space in 12 bytes");
#endif

/* 1 if this CPU (and its OS) runs AVX-512BW: a test of the feature bits the compiler's runtime read
 * at startup, no state of this library */
static inline int tc_fast_wide(void) {
#if defined(TC_BLOCKS) && TC_FASTPAT_AVX512
    return __builtin_cpu_supports("avx512bw") != 0;
#else
    return 0;
#endif
}

/* The scanners keep no state between matches and look at nothing before a
 * match's start (none of the patterns has a lookbehind or an anchor), and
 * every position starts a non-empty match, so the matches are contiguous
 * and a scan restarted at a match's end finds what the whole scan finds
 * from there. QWEN2 and CL100K take 64 bytes at a time where they can
 * (block_starts above: every match start of the block from class bitmaps);
 * the rest goes match by match. */
/* Grows out (items of `size` bytes) to hold `need`. */
static int grow_to(void **out, size_t *cap, size_t need, size_t size) {
    if (need <= *cap) return 0;
    return tc_grow(out, cap, need, size);
}

/* The scan of tc_fast_find_from and tc_fast_find_pieces: the matches from `from` as (start, end) size_t
 * pairs (pieces 0: *n counts size_t entries) or as tc_piece (pieces 1: *n counts pieces). */
static inline int find_from(tc_fastpat p, const uint8_t *s, size_t len, size_t from, size_t max_matches, void **out,
                            size_t *n, size_t *cap, size_t *next, int pieces, int wide) {
    size_t np = pieces ? *n : *n / 2;
    size_t per = pieces ? 1 : 2, size = pieces ? sizeof(tc_piece) : sizeof(size_t);
    size_t stop = max_matches > SIZE_MAX - np ? SIZE_MAX : np + max_matches;
    size_t i = from;
    (void)wide;
#ifdef TC_BLOCKS
    int blocks = p == TC_FAST_QWEN2 || p == TC_FAST_CL100K;
    size_t unit_until = from;
#endif
    while (i < len && np < stop) {
#ifdef TC_BLOCKS
        if (blocks && i >= unit_until && len - i >= 64) {
            /* bit 0 is i itself */
#if TC_FASTPAT_AVX512
            uint64_t starts = (wide ? block_starts_avx512(s + i, len - i, p == TC_FAST_CL100K)
                                    : block_starts(s + i, len - i, p == TC_FAST_CL100K)) & ~1ull;
#else
            uint64_t starts = block_starts(s + i, len - i, p == TC_FAST_CL100K) & ~1ull;
#endif
            if (starts) {
                /* the block's matches: the loops below test nothing but the starts left (the test of the
                 * stop as well was a third of the loop's instructions on code, callgrind); a stop within
                 * the block's matches drops the starts past it */
                if (stop - np < 64) {
                    uint64_t past = starts;
                    for (size_t q = 0; q < stop - np && past; q++) past &= past - 1;
                    starts &= ~past;   /* the first stop - np of them */
                }
                if (grow_to(out, cap, per * (np + 64), size) != 0) return -1;
                size_t base = i;
                size_t q = 0;
                if (pieces) {
                    tc_piece *o = (tc_piece *)*out + np;
#if TC_FASTPAT_AVX512
                    if (wide) {
                        q = emit_block_avx512(o, starts, (uint32_t)base);
                        i = base + 63 - (size_t)__builtin_clzll(starts);
                        np += q;
                        continue;
                    }
#endif
                    do {
                        size_t e = base + (size_t)__builtin_ctzll(starts);
                        o[q].start = (uint32_t)i;
                        o[q].end = (uint32_t)e;
                        o[q].prefix_space = 0;
                        q++;
                        i = e;
                        starts &= starts - 1;
                    } while (starts);
                } else {
                    size_t *o = (size_t *)*out + 2 * np;
                    do {
                        size_t e = base + (size_t)__builtin_ctzll(starts);
                        o[2 * q] = i;
                        o[2 * q + 1] = e;
                        q++;
                        i = e;
                        starts &= starts - 1;
                    } while (starts);
                }
                np += q;
                continue;
            }
            /* no match ends in the block's decided part (a long run, non-ASCII bytes): unit by unit
             * to the block's end before the next try */
            unit_until = i + 64;
        }
#endif
        size_t end = match_end(p, s, len, i);
        if (grow_to(out, cap, per * (np + 1), size) != 0) return -1;
        if (pieces) {
            tc_piece *o = *out;
            o[np].start = (uint32_t)i;
            o[np].end = (uint32_t)end;
            o[np].prefix_space = 0;
        } else {
            size_t *o = *out;
            o[2 * np] = i;
            o[2 * np + 1] = end;
        }
        np++;
        i = end;
    }
    *n = pieces ? np : np * 2;
    *next = i;
    return 0;
}

int tc_fast_find_from(tc_fastpat p, const uint8_t *s, size_t len, size_t from, size_t max_matches, size_t **out,
                      size_t *n, size_t *cap, size_t *next) {
    void *o = *out;
    int r = find_from(p, s, len, from, max_matches, &o, n, cap, next, 0, tc_fast_wide());
    *out = o;
    return r;
}

int tc_fast_find_pieces(tc_fastpat p, const uint8_t *s, size_t len, size_t from, size_t max_matches, tc_piece **out,
                        size_t *n, size_t *cap, size_t *next) {
    if (len > UINT32_MAX) return -1;   /* a piece's offsets are 32 bits (the engine's inputs are below 2 GiB) */
    void *o = *out;
    int r = find_from(p, s, len, from, max_matches, &o, n, cap, next, 1, tc_fast_wide());
    *out = o;
    return r;
}
