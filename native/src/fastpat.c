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

static int push(size_t **out, size_t *n, size_t *cap, size_t a, size_t b) {
    if (*n * 2 + 2 > *cap) {
        void *p = *out;
        if (tc_grow(&p, cap, *n * 2 + 2, sizeof **out) != 0) return -1;
        *out = p;
    }
    (*out)[2 * *n] = a;
    (*out)[2 * *n + 1] = b;
    (*n)++;
    return 0;
}

/* Whitespace alternatives shared by all three patterns, at a whitespace
 * unit i whose run ends at j. with_nl: the \s*[\r\n]+ alternative exists. */
static size_t ws_match(const uint8_t *s, size_t len, size_t i, int with_nl) {
    size_t j = run_end(s, len, i, C_WS);
    if (with_nl) {
        /* \s*[\r\n]+ : up to and including the last \r or \n of the run */
        size_t last_nl = 0;
        int found = 0;
        for (size_t k = i; k < j;) {
            unit u = unit_at(s, len, k);
            if (u.cls == C_NL) { last_nl = k + (size_t)u.n; found = 1; }
            k += (size_t)u.n;
        }
        if (found) return last_nl;
    }
    /* \s+(?!\S) : the whole run at the end of the text, else all but its last unit */
    if (j >= len) return j;
    size_t prev = i, k = i;
    while (k < j) { prev = k; k += (size_t)unit_at(s, len, k).n; }
    if (prev > i) return prev;
    /* \s+ */
    return j;
}

int tc_fast_find_all(tc_fastpat p, const uint8_t *s, size_t len, size_t **out, size_t *n, size_t *cap) {
    size_t next;
    return tc_fast_find_from(p, s, len, 0, SIZE_MAX, out, n, cap, &next);
}

/* The scanners keep no state between matches and look at nothing before a
 * match's start (none of the patterns has a lookbehind or an anchor), and
 * every position starts a non-empty match, so the matches are contiguous
 * and a scan restarted at a match's end finds what the whole scan finds
 * from there. */
int tc_fast_find_from(tc_fastpat p, const uint8_t *s, size_t len, size_t from, size_t max_matches, size_t **out,
                      size_t *n, size_t *cap, size_t *next) {
    size_t np = *n / 2;     /* *n counts size_t entries in pretok's convention */
    size_t stop = max_matches > SIZE_MAX - np ? SIZE_MAX : np + max_matches;
    int gpt2 = p == TC_FAST_GPT2;
    size_t maxn = p == TC_FAST_CL100K ? 3 : 1;
    size_t i = from;
    for (; i < len && np < stop;) {
        unit u = unit_at(s, len, i);
        size_t end = 0;
        if (u.cp == '\'' && (end = contraction(s, len, i, !gpt2)) != 0) {
            /* contraction */
        } else if (gpt2) {
            unit v = u;
            size_t k = i;
            if (u.cp == ' ') { k = i + 1; v = unit_at(s, len, k); }
            if (v.cls == C_L) end = letter_run(s, len, k);
            else if (v.cls == C_N) end = run_end(s, len, k, C_N);
            else if (v.cls == C_P) end = run_end(s, len, k, C_P);
            else end = ws_match(s, len, i, 0);
        } else if (u.cls == C_L) {
            end = letter_run(s, len, i);
        } else {
            unit v = unit_at(s, len, i + (size_t)u.n);
            if (u.cls != C_NL && u.cls != C_N && v.cls == C_L) {
                end = letter_run(s, len, i + (size_t)u.n);
            } else if (u.cls == C_N) {
                end = i + (size_t)u.n;
                for (size_t c = 1; c < maxn; c++) {
                    unit w = unit_at(s, len, end);
                    if (w.cls != C_N) break;
                    end += (size_t)w.n;
                }
            } else if (u.cls == C_P || (u.cp == ' ' && v.cls == C_P)) {
                size_t k = u.cls == C_P ? i : i + 1;
                end = run_end(s, len, k, C_P);
                end = run_end(s, len, end, C_NL);
            } else {
                end = ws_match(s, len, i, 1);
            }
        }
        if (push(out, &np, cap, i, end) != 0) return -1;
        i = end;
    }
    *n = np * 2;
    *next = i;
    return 0;
}
