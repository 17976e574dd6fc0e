/* unicode.c - Unicode property lookups (see unicode.h) over the generated
 * tables of unicode_data.h (native/gen_unicode.py). No mutable state. */
#include "unicode.h"

#include <stddef.h>

#include "common.h"
#include "unicode_data.h"

#define UF_SPACE TC_UD_F_SPACE
#define UF_ALNUM TC_UD_F_ALNUM
#define UF_LOWER_MULTI TC_UD_F_LOWER_MULTI
#define UF_NORM (TC_UNF_CANON | TC_UNF_COMPAT | TC_UNF_NFC_NY | TC_UNF_NFKC_NY | TC_UNF_LOWER_CHG)

_Static_assert(TC_UNF_CANON == TC_UD_F_CANON && TC_UNF_COMPAT == TC_UD_F_COMPAT &&
               TC_UNF_NFC_NY == TC_UD_F_NFC_NY && TC_UNF_NFKC_NY == TC_UD_F_NFKC_NY &&
               TC_UNF_LOWER_CHG == TC_UD_F_LOWER_CHG,
               "unicode.h flag values disagree with unicode_data.h");

#define S_BASE 0xAC00u
#define L_BASE 0x1100u
#define V_BASE 0x1161u
#define T_BASE 0x11A7u
#define L_COUNT 19u
#define V_COUNT 21u
#define T_COUNT 28u
#define N_COUNT (V_COUNT * T_COUNT)
#define S_COUNT (L_COUNT * N_COUNT)

#if TC_UD_DECOMP_MAX > TC_UNICODE_DECOMP_MAX
#error "unicode_data.h decompositions longer than TC_UNICODE_DECOMP_MAX"
#endif

static const tc_ud_rec *rec(uint32_t cp) {
    if (cp >= 0x110000u) return &tc_ud_recs[0];
    uint32_t blk = tc_ud_stage1[cp >> TC_UD_SHIFT];
    uint32_t idx = tc_ud_stage2[(blk << TC_UD_SHIFT) | (cp & ((1u << TC_UD_SHIFT) - 1))];
    return &tc_ud_recs[idx];
}

tc_gc tc_unicode_gc(uint32_t cp) {
    if (cp >= 0x110000u) return TC_GC_Cn;
    return (tc_gc)rec(cp)->gc;
}

int tc_unicode_is_space(uint32_t cp) {
    if (cp >= 0x110000u) return 0;
    return (rec(cp)->flags & UF_SPACE) != 0;
}

int tc_unicode_is_alnum(uint32_t cp) {
    if (cp >= 0x110000u) return 0;
    return (rec(cp)->flags & UF_ALNUM) != 0;
}

uint32_t tc_unicode_fold(uint32_t cp) {
    if (cp >= 0x110000u) return cp;
    return (uint32_t)((int32_t)cp + rec(cp)->fold);
}

int tc_unicode_lower(uint32_t cp, uint32_t out[3]) {
    if (cp >= 0x110000u) { out[0] = cp; return 1; }
    const tc_ud_rec *r = rec(cp);
    if (r->flags & UF_LOWER_MULTI) {
        for (int i = 0; i < TC_UD_NLOWER_MULTI; i++) {
            if (tc_ud_lower_multi[i][0] == cp) {
                int n = 0;
                while (n < 3 && tc_ud_lower_multi[i][n + 1] != 0) {
                    out[n] = tc_ud_lower_multi[i][n + 1];
                    n++;
                }
                return n;
            }
        }
    }
    out[0] = (uint32_t)((int32_t)cp + r->lower);
    return 1;
}

const char *tc_unicode_version(void) { return TC_UNIDATA_VERSION; }

_Static_assert(TC_RX_F_SPACE == 1u && TC_GC_COUNT <= 32, "regex class byte: 5 gc bits, then flags");

static inline uint32_t rx_byte(uint32_t cp) {
    if (cp >= 0x110000u) return 0; /* Cn, no flags */
    uint32_t blk = tc_rx_stage1[cp >> TC_UD_SHIFT];
    return tc_rx_stage2[(blk << TC_UD_SHIFT) | (cp & ((1u << TC_UD_SHIFT) - 1))];
}

tc_gc tc_unicode_rx_gc(uint32_t cp) { return (tc_gc)(rx_byte(cp) & 31u); }

int tc_unicode_rx_space(uint32_t cp) { return ((rx_byte(cp) >> 5) & TC_RX_F_SPACE) != 0; }

size_t tc_unicode_rx_run(const uint8_t *s, size_t len, size_t i, tc_rx_run_class cls, int *other) {
    *other = 0;
    while (i < len && s[i] >= 0x80) {
        int n;
        uint32_t cp = tc_utf8_decode(s, len, i, &n);
        if (cp >= TC_CP_INVALID_BASE) break;
        uint32_t b = rx_byte(cp), m = TC_GCM(b & 31u);
        int space = ((b >> 5) & TC_RX_F_SPACE) != 0;
        int in;
        switch (cls) {
        case TC_RUN_L: in = (m & TC_GCM_L) != 0; break;
        case TC_RUN_N: in = (m & TC_GCM_N) != 0; break;
        case TC_RUN_SPACE: in = space && !(m & (TC_GCM_L | TC_GCM_N)); break;
        default: in = !(m & (TC_GCM_L | TC_GCM_N)) && !space; break;
        }
        if (!in) { *other = 1; break; }
        i += (size_t)n;
    }
    return i;
}

/* The index of rest's lowest set bit (rest != 0). */
static inline unsigned ctz64(uint64_t rest) {
#if defined(__GNUC__)
    return (unsigned)__builtin_ctzll(rest);
#else
    unsigned k = 0;
    while (!(rest & 1u)) { rest >>= 1; k++; }
    return k;
#endif
}

unsigned tc_unicode_rx_block(const uint8_t *s, size_t len, uint64_t na, uint64_t *letters, uint64_t *cont) {
    uint64_t l = 0, c = 0;
    unsigned stop = 64;
    for (unsigned j = 0; j < 64; ) {
        uint64_t rest = na >> j;
        if (!rest) break;
        j += ctz64(rest);
        int n;
        uint32_t cp;
        uint8_t b0 = s[j], b1 = j + 1 < len ? s[j + 1] : 0, b2 = j + 2 < len ? s[j + 2] : 0;
        /* two- and three-byte units inline (the decoder's call was a third of this function's cost) */
        if (b0 >= 0xC2 && b0 <= 0xDF && (b1 & 0xC0) == 0x80) {
            n = 2;
            cp = ((uint32_t)(b0 & 0x1F) << 6) | (b1 & 0x3Fu);
        } else if ((b0 & 0xF0) == 0xE0 && (b1 & 0xC0) == 0x80 && (b2 & 0xC0) == 0x80 &&
                   (cp = ((uint32_t)(b0 & 0x0F) << 12) | ((uint32_t)(b1 & 0x3F) << 6) | (b2 & 0x3Fu)) >= 0x800 &&
                   (cp < 0xD800 || cp > 0xDFFF)) {
            n = 3;   /* no overlong form, no surrogate: tc_utf8_decode's rule */
        } else {
            cp = tc_utf8_decode(s, len, j, &n);
        }
        /* a unit that crosses the block's end keeps its bytes inside it: it belongs to the block's last
         * run, which block_starts never keeps */
        uint64_t bits = (((uint64_t)1 << n) - 1) << j;
        /* unit_at's classes (fastpat.c): a letter, a digit, a space, else other */
        uint32_t b = rx_byte(cp), m = TC_GCM(b & 31u);
        if (m & TC_GCM_L) l |= bits;
        else if ((m & TC_GCM_N) || ((b >> 5) & TC_RX_F_SPACE)) { stop = j; break; }
        c |= bits & ~((uint64_t)1 << j);
        j += (unsigned)n;
    }
    *letters = l;
    *cont = c;
    return stop;
}

/* Oniguruma (6.9.x, src/unicode.c onigenc_unicode_is_code_ctype) tests a
 * bare \w below 256 in EncUNICODE_ISO_8859_1_CtypeTable (TC_RX_F_WORD_ONIG);
 * a \w in a bracket class adds the Word code ranges instead (regparse.c
 * add_ctype_to_cc), which below 256 are the regex crate's word set (Join_Control
 * lies above). Measured: HF's \w matches U+00B2, [\w\s] does not. */
int tc_unicode_rx_word(uint32_t cp, tc_rx_flavor flavor, int bracket) {
    uint32_t bit = TC_RX_F_WORD_ONIG;
    if (flavor == TC_RX_RUST || (bracket && cp < 0x100u)) bit = TC_RX_F_WORD_RUST;
    return ((rx_byte(cp) >> 5) & bit) != 0;
}

const char *tc_unicode_rx_version(void) { return TC_RX_UNIDATA_VERSION; }

int tc_unicode_script(uint32_t cp) {
    if (cp >= 0x110000u) return 0;
    uint32_t blk = tc_script_stage1[cp >> TC_UD_SHIFT];
    return tc_script_stage2[(blk << TC_UD_SHIFT) | (cp & ((1u << TC_UD_SHIFT) - 1))];
}

/* HF tokenizers 0.23.3, pre_tokenizers/unicode_scripts/pre_tokenizer.rs,
 * fixed_script: 0x30FC -> Han, ' ' -> Any, Hiragana and Katakana -> Han. */
int tc_unicode_script_hf(uint32_t cp) {
    if (cp >= TC_CP_INVALID_BASE) return TC_SCRIPT_COUNT;
    if (cp == 0x30FCu) return TC_SCRIPT_HAN;
    if (cp == 0x20u) return 0;
    int s = tc_unicode_script(cp);
    if (s == TC_SCRIPT_HIRAGANA || s == TC_SCRIPT_KATAKANA) return TC_SCRIPT_HAN;
    return s;
}

int tc_unicode_script_count(void) { return TC_SCRIPT_COUNT; }

const char *tc_unicode_script_name(int id) {
    if (id < 0 || id >= TC_SCRIPT_COUNT) return NULL;
    return tc_script_names[id];
}

int tc_unicode_ccc(uint32_t cp) {
    if (cp >= 0x110000u) return 0;
    return rec(cp)->ccc;
}

uint32_t tc_unicode_norm_info(uint32_t cp) {
    if (cp >= 0x110000u) return 0;
    const tc_ud_rec *r = rec(cp);
    return ((uint32_t)r->ccc << 16) | (r->flags & UF_NORM);
}

size_t tc_unicode_quiet_run(const uint8_t *s, size_t len, size_t i, uint32_t bad, size_t *last) {
    while (i < len && s[i] >= 0x80) {
        int n;
        uint32_t cp = tc_utf8_decode(s, len, i, &n);
        if (cp < 0x110000u) {
            const tc_ud_rec *r = rec(cp);
            if (r->ccc != 0 || (r->flags & UF_NORM & bad)) break;
        }
        *last = i;
        i += (size_t)n;
    }
    return i;
}

/* Binary search of cp in a sorted array; returns index or -1. */
static long find_cp(const uint32_t *arr, long n, uint32_t cp) {
    long lo = 0, hi = n;
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (arr[mid] < cp) lo = mid + 1;
        else hi = mid;
    }
    return (lo < n && arr[lo] == cp) ? lo : -1;
}

int tc_unicode_decompose(uint32_t cp, int compat, uint32_t out[TC_UNICODE_DECOMP_MAX]) {
    if (cp < 0x80u || cp >= 0x110000u) return 0;
    if (cp - S_BASE < S_COUNT) {
        uint32_t s = cp - S_BASE;
        out[0] = L_BASE + s / N_COUNT;
        out[1] = V_BASE + (s % N_COUNT) / T_COUNT;
        if (s % T_COUNT) { out[2] = T_BASE + s % T_COUNT; return 3; }
        return 2;
    }
    uint32_t fl = rec(cp)->flags;
    if (!(fl & (compat ? TC_UNF_COMPAT : TC_UNF_CANON))) return 0;
    uint32_t ref;
    if (compat) {
        long i = find_cp(tc_ud_compat_cp, TC_UD_NCOMPAT, cp);
        if (i < 0) return 0;
        ref = tc_ud_compat_ref[i];
    } else {
        long i = find_cp(tc_ud_canon_cp, TC_UD_NCANON, cp);
        if (i < 0) return 0;
        ref = tc_ud_canon_ref[i];
    }
    int n = (int)(ref & 31u);
    const uint32_t *p = tc_ud_pool + (ref >> 5);
    for (int k = 0; k < n; k++) out[k] = p[k];
    return n;
}

uint32_t tc_unicode_compose(uint32_t a, uint32_t b) {
    if (a - L_BASE < L_COUNT && b - V_BASE < V_COUNT)
        return S_BASE + ((a - L_BASE) * V_COUNT + (b - V_BASE)) * T_COUNT;
    if (a - S_BASE < S_COUNT && (a - S_BASE) % T_COUNT == 0 && b > T_BASE && b - T_BASE < T_COUNT)
        return a + (b - T_BASE);
    if (!(tc_unicode_norm_info(b) & TC_UNF_NFC_NY)) return 0; /* b is never a second */
    long lo = 0, hi = TC_UD_NCOMP;
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (tc_ud_comp_a[mid] < a || (tc_ud_comp_a[mid] == a && tc_ud_comp_b[mid] < b)) lo = mid + 1;
        else hi = mid;
    }
    if (lo < TC_UD_NCOMP && tc_ud_comp_a[lo] == a && tc_ud_comp_b[lo] == b) return tc_ud_comp_c[lo];
    return 0;
}
