/* precompiled.c - SentencePiece's precompiled_charsmap, read and searched as
 * huggingface/spm_precompiled (src/lib.rs, 05ba1405; the crate 0.1.x that
 * tokenizers 0.23.3 depends on) does, and the grapheme clusters of
 * unicode-segmentation that HF's Precompiled::normalize walks.
 *
 * Blob layout (lib.rs `parse`): a little-endian u32 trie_size, then
 * trie_size / 4 little-endian u32 units, then the replacement strings (all
 * the remaining bytes, which must be UTF-8; a trie_size that is not a
 * multiple of 4 leaves its last bytes to the strings, as `parse` does).
 * A unit (lib.rs ArrayUnitTrait): has_leaf = bit 8, value = low 31 bits,
 * label = bits 0-7 and 31, offset = (unit >> 10) << ((unit & (1 << 9)) >> 6).
 * Search (DoubleArray::common_prefix_search): pos = a[0].offset; per key
 * byte c (a NUL ends the key): pos ^= c; the unit there must have label c;
 * pos ^= its offset; if it has a leaf, a[pos].value is a result.
 * `transform` takes the first result (the shortest key), and the
 * replacement runs from that index to the next NUL or the end.
 */
#include "precompiled.h"

#include <stdio.h>

#include "unicode.h"

/* Keys deeper than this are not walked by the load-time check (real keys
 * are a few code points); the search checks bounds at every step anyway. */
#define PC_CHECK_DEPTH 48

static inline uint32_t u_has_leaf(uint32_t u) { return (u >> 8) & 1u; }
static inline uint32_t u_value(uint32_t u) { return u & 0x7FFFFFFFu; }
static inline uint32_t u_label(uint32_t u) { return u & (0x80000000u | 0xFFu); }
static inline size_t u_offset(uint32_t u) { return (size_t)(u >> 10) << ((u & (1u << 9)) >> 6); }

static uint32_t rd32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void tc_precompiled_free(tc_precompiled *pc) {
    free(pc->units);
    free(pc->norm);
    memset(pc, 0, sizeof *pc);
}

static int utf8_ok(const uint8_t *s, size_t len, size_t *bad) {
    for (size_t i = 0; i < len;) {
        int ul;
        if (tc_utf8_decode(s, len, i, &ul) >= TC_CP_INVALID_BASE) { *bad = i; return 0; }
        i += (size_t)ul;
    }
    return 1;
}

typedef struct walk { size_t base; uint32_t depth; } walk;

/* Walks the keys up to PC_CHECK_DEPTH bytes (and at most nunits + 65536
 * nodes: darts-clone shares the nodes of common suffixes, so a node may be
 * reached by several keys): each leaf's unit is in the array and its value
 * is in the strings at a character start. */
static int check_trie(const tc_precompiled *pc, size_t units_at, tc_error *err) {
    size_t n = pc->nunits;
    size_t budget = n + 65536;
    walk *st = NULL;
    size_t sn = 0, scap = 0;
    int rc = TC_OK;
    {
        void *p = NULL;
        if (tc_grow(&p, &scap, 64, sizeof *st) != 0) return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
        st = p;
    }
    st[sn++] = (walk){u_offset(pc->units[0]), 0};
    while (sn > 0 && rc == TC_OK && budget > 0) {
        walk w = st[--sn];
        budget--;
        if (w.depth >= PC_CHECK_DEPTH) continue;
        for (uint32_t c = 1; c < 256 && rc == TC_OK; c++) {
            size_t p2 = w.base ^ c;
            if (p2 >= n || u_label(pc->units[p2]) != c) continue;
            size_t base = w.base ^ c ^ u_offset(pc->units[p2]);
            if (u_has_leaf(pc->units[p2])) {
                if (base >= n) {
                    rc = tc_error_set(err, TC_ERR_FORMAT, "trie unit %zu (byte %zu) points at unit %zu, past the end of the %zu units", p2, units_at + 4 * p2, base, n);
                    break;
                }
                uint32_t v = u_value(pc->units[base]);
                if (v > pc->norm_len || (v < pc->norm_len && (pc->norm[v] & 0xC0) == 0x80)) {
                    rc = tc_error_set(err, TC_ERR_FORMAT, "trie unit %zu (byte %zu): replacement index %u is %s the %zu bytes of replacement strings",
                                      base, units_at + 4 * base, v, v > pc->norm_len ? "past the end of" : "inside a character of", pc->norm_len);
                    break;
                }
            }
            if (sn == scap) {
                void *p = st;
                if (tc_grow(&p, &scap, sn + 1, sizeof *st) != 0) { rc = tc_error_set(err, TC_ERR_NOMEM, "out of memory"); break; }
                st = p;
            }
            st[sn++] = (walk){base, w.depth + 1};
        }
    }
    free(st);
    return rc;
}

int tc_precompiled_parse(const uint8_t *blob, size_t len, tc_precompiled *pc, tc_error *err) {
    memset(pc, 0, sizeof *pc);
    if (len < 4) return tc_error_set(err, TC_ERR_FORMAT, "the charsmap is %zu bytes, cut short before its 4-byte trie size", len);
    uint32_t trie_size = rd32(blob);
    size_t nunits = trie_size / 4;
    if (nunits > (len - 4) / 4)
        return tc_error_set(err, TC_ERR_FORMAT, "the trie size at byte 0 says %u bytes, but only %zu follow: the charsmap is cut short", trie_size, len - 4);
    if (nunits == 0) return tc_error_set(err, TC_ERR_FORMAT, "the trie size at byte 0 is %u: the double array has no root unit", trie_size);
    size_t norm_at = 4 + 4 * nunits;
    size_t bad = 0;
    if (!utf8_ok(blob + norm_at, len - norm_at, &bad))
        return tc_error_set(err, TC_ERR_FORMAT, "the replacement strings are not UTF-8 (byte %zu)", norm_at + bad);
    pc->units = malloc(nunits * sizeof *pc->units);
    pc->norm = malloc(len - norm_at + 1);
    if (!pc->units || !pc->norm) { tc_precompiled_free(pc); return tc_error_set(err, TC_ERR_NOMEM, "out of memory"); }
    for (size_t i = 0; i < nunits; i++) pc->units[i] = rd32(blob + 4 + 4 * i);
    pc->nunits = nunits;
    memcpy(pc->norm, blob + norm_at, len - norm_at);
    pc->norm_len = len - norm_at;
    int rc = check_trie(pc, 4, err);
    if (rc != TC_OK) tc_precompiled_free(pc);
    return rc;
}

const uint8_t *tc_precompiled_transform(const tc_precompiled *pc, const uint8_t *s, size_t len, size_t *out_len) {
    const uint32_t *a = pc->units;
    size_t n = pc->nunits, pos = u_offset(a[0]);
    for (size_t i = 0; i < len; i++) {
        uint32_t c = s[i];
        if (c == 0) break;
        pos ^= c;
        if (pos >= n || u_label(a[pos]) != c) return NULL;
        uint32_t unit = a[pos];
        pos ^= u_offset(unit);
        if (!u_has_leaf(unit)) continue;
        /* the first result is the shortest key: Precompiled::transform takes results[0] */
        if (pos >= n) return NULL;
        size_t v = u_value(a[pos]), e = v;
        if (v > pc->norm_len) return NULL;
        while (e < pc->norm_len && pc->norm[e] != 0) e++;   /* normalized_at: up to the NUL */
        *out_len = e - v;
        return pc->norm + v;
    }
    return NULL;
}

/* ---- extended grapheme clusters ------------------------------------------
 * UAX #29 (unicode-segmentation `graphemes(true)`), rules GB3-GB13, with
 * the Grapheme_Cluster_Break classes derived from the engine's general
 * categories plus the property's explicit lists. GB9c (Indic conjuncts)
 * is not applied: it only joins clusters of 3-byte characters into ones of
 * 9 bytes or more, and HF handles clusters of 6 bytes or more char by char,
 * as it does single characters, so the result is the same. */

typedef enum gcb {
    GCB_ANY, GCB_CR, GCB_LF, GCB_CONTROL, GCB_EXTEND, GCB_ZWJ, GCB_RI, GCB_PREPEND, GCB_SPACING,
    GCB_L, GCB_V, GCB_T, GCB_LV, GCB_LVT
} gcb;

typedef struct cp_range { uint32_t lo, hi; } cp_range;

static int in_ranges(const cp_range *r, size_t n, uint32_t cp) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (cp > r[mid].hi) lo = mid + 1;
        else if (cp < r[mid].lo) hi = mid;
        else return 1;
    }
    return 0;
}

/* GraphemeBreakProperty.txt: Prepend */
static const cp_range PREPEND[] = {
    {0x0600, 0x0605}, {0x06DD, 0x06DD}, {0x070F, 0x070F}, {0x0890, 0x0891}, {0x08E2, 0x08E2}, {0x0D4E, 0x0D4E},
    {0x110BD, 0x110BD}, {0x110CD, 0x110CD}, {0x111C2, 0x111C3}, {0x1193F, 0x1193F}, {0x11941, 0x11941},
    {0x11A3A, 0x11A3A}, {0x11A84, 0x11A89}, {0x11D46, 0x11D46}, {0x11F02, 0x11F02},
};
/* Other_Grapheme_Extend and the other Extend members outside Mn/Me */
static const cp_range EXTEND_EXTRA[] = {
    {0x09BE, 0x09BE}, {0x09D7, 0x09D7}, {0x0B3E, 0x0B3E}, {0x0B57, 0x0B57}, {0x0BBE, 0x0BBE}, {0x0BD7, 0x0BD7},
    {0x0CC2, 0x0CC2}, {0x0CD5, 0x0CD6}, {0x0D3E, 0x0D3E}, {0x0D57, 0x0D57}, {0x0DCF, 0x0DCF}, {0x0DDF, 0x0DDF},
    {0x1B35, 0x1B35}, {0x200C, 0x200C}, {0x302E, 0x302F}, {0xFF9E, 0xFF9F}, {0x1133E, 0x1133E}, {0x11357, 0x11357},
    {0x114B0, 0x114B0}, {0x114BD, 0x114BD}, {0x115AF, 0x115AF}, {0x11930, 0x11930}, {0x1D165, 0x1D165},
    {0x1D16E, 0x1D172}, {0x1F3FB, 0x1F3FF}, {0xE0020, 0xE007F},
};
/* Mc characters that are not SpacingMark */
static const cp_range NOT_SPACING[] = {
    {0x102B, 0x102C}, {0x1038, 0x1038}, {0x1062, 0x1064}, {0x1067, 0x106D}, {0x1083, 0x1083}, {0x1087, 0x108C},
    {0x108F, 0x108F}, {0x109A, 0x109C}, {0x1A61, 0x1A61}, {0x1A63, 0x1A64}, {0xAA7B, 0xAA7B}, {0xAA7D, 0xAA7D},
    {0x11720, 0x11721},
};
/* Unassigned default-ignorables that are Control */
static const cp_range CONTROL_CN[] = {
    {0x2065, 0x2065}, {0xFFF0, 0xFFF8}, {0xE0000, 0xE0000}, {0xE0002, 0xE001F}, {0xE0080, 0xE00FF}, {0xE01F0, 0xE0FFF},
};
/* Extended_Pictographic (emoji-data.txt), coarsely: used by GB11 only */
static const cp_range PICTO[] = {
    {0x00A9, 0x00A9}, {0x00AE, 0x00AE}, {0x203C, 0x203C}, {0x2049, 0x2049}, {0x2122, 0x2122}, {0x2139, 0x2139},
    {0x2194, 0x2199}, {0x21A9, 0x21AA}, {0x231A, 0x231B}, {0x2328, 0x2328}, {0x2388, 0x2388}, {0x23CF, 0x23CF},
    {0x23E9, 0x23F3}, {0x23F8, 0x23FA}, {0x24C2, 0x24C2}, {0x25AA, 0x25AB}, {0x25B6, 0x25B6}, {0x25C0, 0x25C0},
    {0x25FB, 0x25FE}, {0x2600, 0x27BF}, {0x2934, 0x2935}, {0x2B05, 0x2B07}, {0x2B1B, 0x2B1C}, {0x2B50, 0x2B50},
    {0x2B55, 0x2B55}, {0x3030, 0x3030}, {0x303D, 0x303D}, {0x3297, 0x3297}, {0x3299, 0x3299}, {0x1F000, 0x1F0FF},
    {0x1F10D, 0x1F10F}, {0x1F12F, 0x1F12F}, {0x1F16C, 0x1F171}, {0x1F17E, 0x1F17F}, {0x1F18E, 0x1F18E},
    {0x1F191, 0x1F19A}, {0x1F1AD, 0x1F1E5}, {0x1F201, 0x1F20F}, {0x1F21A, 0x1F21A}, {0x1F22F, 0x1F22F},
    {0x1F232, 0x1F23A}, {0x1F23C, 0x1F23F}, {0x1F249, 0x1F3FA}, {0x1F400, 0x1F53D}, {0x1F546, 0x1F64F},
    {0x1F680, 0x1F6FF}, {0x1F774, 0x1F77F}, {0x1F7D5, 0x1F7FF}, {0x1F80C, 0x1F80F}, {0x1F848, 0x1F84F},
    {0x1F85A, 0x1F85F}, {0x1F888, 0x1F88F}, {0x1F8AE, 0x1F8FF}, {0x1F90C, 0x1F93A}, {0x1F93C, 0x1F945},
    {0x1F947, 0x1FAFF}, {0x1FC00, 0x1FFFD},
};

#define NR(a) (sizeof a / sizeof *a)

static gcb gcb_of(uint32_t cp) {
    if (cp == 0x0D) return GCB_CR;
    if (cp == 0x0A) return GCB_LF;
    if (cp == 0x200D) return GCB_ZWJ;
    if (cp >= TC_CP_INVALID_BASE) return GCB_ANY;
    if (cp >= 0x1100 && cp <= 0x115F) return GCB_L;
    if (cp >= 0xA960 && cp <= 0xA97C) return GCB_L;
    if (cp >= 0x1160 && cp <= 0x11A7) return GCB_V;
    if (cp >= 0xD7B0 && cp <= 0xD7C6) return GCB_V;
    if (cp >= 0x11A8 && cp <= 0x11FF) return GCB_T;
    if (cp >= 0xD7CB && cp <= 0xD7FB) return GCB_T;
    if (cp >= 0xAC00 && cp <= 0xD7A3) return (cp - 0xAC00) % 28 == 0 ? GCB_LV : GCB_LVT;
    if (cp >= 0x1F1E6 && cp <= 0x1F1FF) return GCB_RI;
    if (in_ranges(PREPEND, NR(PREPEND), cp)) return GCB_PREPEND;
    if (in_ranges(EXTEND_EXTRA, NR(EXTEND_EXTRA), cp)) return GCB_EXTEND;
    if (cp == 0x0E33 || cp == 0x0EB3) return GCB_SPACING;
    tc_gc g = tc_unicode_gc(cp);
    switch (g) {
    case TC_GC_Mn: case TC_GC_Me: return GCB_EXTEND;
    case TC_GC_Mc: return in_ranges(NOT_SPACING, NR(NOT_SPACING), cp) ? GCB_ANY : GCB_SPACING;
    case TC_GC_Cc: case TC_GC_Zl: case TC_GC_Zp: case TC_GC_Cs: return GCB_CONTROL;
    case TC_GC_Cf: return GCB_CONTROL;   /* ZWNJ, ZWJ, Prepend and tags are caught above */
    case TC_GC_Cn: return in_ranges(CONTROL_CN, NR(CONTROL_CN), cp) ? GCB_CONTROL : GCB_ANY;
    default: return GCB_ANY;
    }
}

size_t tc_grapheme_end(const uint8_t *s, size_t len, size_t i) {
    int ul;
    uint32_t cp = tc_utf8_decode(s, len, i, &ul);
    gcb prev = gcb_of(cp);
    int picto_seq = in_ranges(PICTO, NR(PICTO), cp);   /* ExtPict Extend* so far */
    int ri = prev == GCB_RI;
    size_t j = i + (size_t)ul;
    while (j < len) {
        uint32_t c2 = tc_utf8_decode(s, len, j, &ul);
        gcb cur = gcb_of(c2);
        int join;
        if (prev == GCB_CR && cur == GCB_LF) join = 1;                                       /* GB3 */
        else if (prev == GCB_CR || prev == GCB_LF || prev == GCB_CONTROL) join = 0;           /* GB4 */
        else if (cur == GCB_CR || cur == GCB_LF || cur == GCB_CONTROL) join = 0;              /* GB5 */
        else if (prev == GCB_L && (cur == GCB_L || cur == GCB_V || cur == GCB_LV || cur == GCB_LVT)) join = 1; /* GB6 */
        else if ((prev == GCB_LV || prev == GCB_V) && (cur == GCB_V || cur == GCB_T)) join = 1; /* GB7 */
        else if ((prev == GCB_LVT || prev == GCB_T) && cur == GCB_T) join = 1;                /* GB8 */
        else if (cur == GCB_EXTEND || cur == GCB_ZWJ) join = 1;                               /* GB9 */
        else if (cur == GCB_SPACING) join = 1;                                                /* GB9a */
        else if (prev == GCB_PREPEND) join = 1;                                               /* GB9b */
        else if (prev == GCB_ZWJ && picto_seq == 2 && in_ranges(PICTO, NR(PICTO), c2)) join = 1; /* GB11 */
        else if (prev == GCB_RI && cur == GCB_RI && ri % 2 == 1) join = 1;                    /* GB12/13 */
        else join = 0;
        if (!join) break;
        /* GB11 state: 1 = ExtPict Extend*, 2 = ... ZWJ */
        if (in_ranges(PICTO, NR(PICTO), c2)) picto_seq = 1;
        else if (picto_seq == 1 && cur == GCB_EXTEND) picto_seq = 1;
        else if (picto_seq == 1 && cur == GCB_ZWJ) picto_seq = 2;
        else picto_seq = 0;
        ri = cur == GCB_RI ? ri + 1 : 0;
        prev = cur;
        j += (size_t)ul;
    }
    return j;
}
