/* test_fastpat.c - the scanners' 64-byte blocks (fastpat.c block_starts)
 * against the backtracking matcher (regex.c) and against the same scan
 * match by match (match_end), on seeded random texts that put every rule's
 * bytes at every place of a block, non-ASCII units among them. Includes fastpat.c itself, so it sees
 * the static block_starts; test_fastpat_portable.c builds the same tests
 * over the portable byte-at-a-time classification (TC_FASTPAT_PORTABLE), so
 * both the SSE2 path and the one the board builds are held here. */
#include "../../native/src/fastpat.c"
#include "../../native/src/regex.h"
#include "../../native/src/pretok.h"
#include "unit_check.h"

#define PQ "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"
#define PC "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"

static const char *const PIECES[] = {
    "a", "word", "s", "t", "m", "d", "re", "ve", "ll", "S", "RE", "Ll", "r", "v", "l", "e", "x", "'", "''", "'s",
    "'Re", "'l", "'v", "'r", " ", "  ", "\t", "\x0b", "\x0c", "\n", "\r\n", " \n", "\n ", "\t\n  ", "     ", ".",
    ",", "(", ")", "...", "->", "\x00", "\x1f", "\x7f", "1", "12", "123", "1234", "1234567", "\xc3\xa9",
    "\xe4\xb8\xad", "\xe3\x80\x80", "\xc2\xa0", "\xc2\x85", "\xff", "\x80", "\xf0\x9f\x98\x80",
    /* U+0301 (a mark), U+017F (folds to s), 'U+017F, U+1D400 (a letter of four bytes), U+0915 U+094D (a
     * Devanagari letter and its virama, a mark), U+00AB, an overlong and a surrogate's bytes */
    "\xcc\x81", "\xc5\xbf", "'\xc5\xbf", "\xf0\x9d\x90\x80", "\xe0\xa4\x95", "\xe0\xa5\x8d", "\xc2\xab",
    "\xe0\x80\x80", "\xed\xa0\x80",
};

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static unsigned next_rand(unsigned n) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (unsigned)(rng_state % n);
}

static size_t make_text(uint8_t *buf, size_t cap, int ascii_only) {
    size_t n = 0, want = 64 + next_rand((unsigned)(cap - 80));
    size_t npieces = sizeof PIECES / sizeof *PIECES;
    while (n < want) {
        const char *p = PIECES[next_rand((unsigned)npieces)];
        size_t l = p[0] == 0 ? 1 : strlen(p);   /* "\x00" is one NUL byte */
        if (ascii_only && (uint8_t)p[0] >= 0x80) continue;
        if (n + l > cap) break;
        memcpy(buf + n, p, l);
        n += l;
    }
    return n;
}

/* the scan match by match, as before the blocks */
static size_t by_match(tc_fastpat p, const uint8_t *s, size_t len, size_t *out) {
    size_t n = 0;
    for (size_t i = 0; i < len; n++) {
        size_t e = match_end(p, s, len, i);
        out[2 * n] = i;
        out[2 * n + 1] = e;
        i = e;
    }
    return n;
}

static void against(tc_fastpat p, const tc_regex *re, const uint8_t *s, size_t len, size_t *ref) {
    size_t *want = NULL, nw = 0, cw = 0, *got = NULL, ng = 0, cg = 0;
    CHECK(tc_regex_find_all(re, s, len, &want, &nw, &cw) == 0);
    CHECK(tc_fast_find_all(p, s, len, &got, &ng, &cg) == 0);
    size_t nr = by_match(p, s, len, ref);
    int same = ng == 2 * nw && nr == nw && (nw == 0 || (memcmp(got, want, ng * sizeof *got) == 0 &&
                                                      memcmp(ref, want, ng * sizeof *got) == 0));
    /* as pieces (the encoder's streaming pre-tokenizer), resumed every 7 */
    tc_piece *pcs = NULL;
    size_t npc = 0, cpc = 0;
    for (size_t pos = 0; pos < len;) CHECK(tc_fast_find_pieces(p, s, len, pos, 7, &pcs, &npc, &cpc, &pos) == 0);
    int same_pieces = npc == nw;
    for (size_t k = 0; same_pieces && k < npc; k++)
        same_pieces = pcs[k].start == want[2 * k] && pcs[k].end == want[2 * k + 1] && pcs[k].prefix_space == 0;
    CHECK(same_pieces);
    /* the same through each block path this build has: the SSE2 (or portable) classification with the
     * scalar piece loop, and AVX-512's classification and piece stores where the CPU has them; whole,
     * and resumed every 5 */
    for (int wide = 0; wide <= tc_fast_wide(); wide++) {
        for (int whole = 0; whole <= 1; whole++) {
            size_t step = whole ? SIZE_MAX : 5;
            void *o = pcs;
            npc = 0;
            for (size_t pos = 0; pos < len;) CHECK(find_from(p, s, len, pos, step, &o, &npc, &cpc, &pos, 1, wide) == 0);
            pcs = o;
            int same_w = npc == nw;
            for (size_t k = 0; same_w && k < npc; k++)
                same_w = pcs[k].start == want[2 * k] && pcs[k].end == want[2 * k + 1] && pcs[k].prefix_space == 0;
            CHECK(same_w);
            same_pieces = same_pieces && same_w;
        }
    }
    free(pcs);
    same = same && same_pieces;
    CHECK(same);
    if (!same) {
        fprintf(stderr, "text (%zu bytes):", len);
        for (size_t i = 0; i < len; i++) fprintf(stderr, " %02x", s[i]);
        fprintf(stderr, "\n");
    }
    free(want);
    free(got);
}

#if TC_FASTPAT_AVX512
/* classify64_avx512 gives classify64's seven maps for every byte value at every place of a block */
static void classify_agree(void) {
    uint8_t b[64];
    int same = 1;
    for (unsigned t = 0; t < 20000; t++) {
        for (unsigned j = 0; j < 64; j++) b[j] = t < 256 ? (uint8_t)(t + j) : (uint8_t)next_rand(256);
        cls64 x, y;
        classify64(b, &x);
        classify64_avx512(b, &y);
        same = same && x.l == y.l && x.n == y.n && x.nl == y.nl && x.ws == y.ws && x.sp == y.sp && x.ap == y.ap &&
               x.na == y.na;
    }
    CHECK(same);
}

/* emit_block_avx512 writes the scalar loop's pieces for masks with starts in every 16-bit group, in
 * none, at bit 1 and bit 63, all 63, and random ones; the bytes after its count are not read */
static void emit_agree(void) {
    tc_piece *got = xmalloc(80 * sizeof *got), want[64];
    int same = 1;
    for (unsigned t = 0; t < 20000; t++) {
        uint64_t m;
        if (t == 0) m = ~1ull;
        else if (t == 1) m = 2;
        else if (t == 2) m = 1ull << 63;
        else if (t < 67) m = (1ull << (t - 3)) & ~1ull;
        else m = ((uint64_t)next_rand(1u << 30) << 34 ^ (uint64_t)next_rand(1u << 30) << 4 ^ next_rand(16)) &
                 (t % 3 ? ~1ull : 0xFFFF00000000FFFEull);
        if (!m) m = 1ull << 40;
        uint32_t base = next_rand(1u << 30);
        size_t nw = 0;
        for (uint64_t r = m, at = base; r; r &= r - 1) {
            uint32_t e = base + (uint32_t)__builtin_ctzll(r);
            want[nw].start = (uint32_t)at;
            want[nw].end = e;
            nw++;
            at = e;
        }
        memset(got, 0xAB, 80 * sizeof *got);
        size_t ng = emit_block_avx512(got, m, base);
        same = same && ng == nw;
        for (size_t k = 0; same && k < ng; k++)
            same = got[k].start == want[k].start && got[k].end == want[k].end && got[k].prefix_space == 0;
    }
    CHECK(same);
    free(got);
}
#endif

int main(void) {
#if TC_FASTPAT_AVX512
    if (tc_fast_wide()) {
        classify_agree();
        emit_agree();
    } else {
        printf("this CPU has no AVX-512BW: its block path is not tried here\n");
    }
#endif
    uint8_t *buf = xmalloc(1024);
    size_t *ref = xmalloc((2 * 1024 + 2) * sizeof *ref);
    const char *pats[2] = {PQ, PC};
    int blocks_seen = 0, wide_seen = 0;
    for (int k = 0; k < 2; k++) {
        tc_error err = {0};
        tc_regex *re = tc_regex_compile(pats[k], strlen(pats[k]), &err);
        CHECK(re != NULL);
        if (!re) continue;
        tc_fastpat p = tc_fast_detect(pats[k], strlen(pats[k]));
        CHECK(p == (k == 0 ? TC_FAST_QWEN2 : TC_FAST_CL100K));
        for (int t = 0; t < 3000; t++) {
            size_t len = make_text(buf, 1024, t % 2);
            if (len >= 64 && (block_starts(buf, len, k) & ~1ull)) {
                blocks_seen++;
                for (size_t j = 0; j < 64; j++) wide_seen += buf[j] >= 0x80;
            }
            against(p, re, buf, len, ref);
        }
        tc_regex_free(re);
    }
    /* the texts reach the block path, not only the match-by-match one */
    CHECK(blocks_seen > 1000);
    /* and blocks that hold non-ASCII units */
    CHECK(wide_seen > 1000);
    free(buf);
    free(ref);
    printf("%d passed, %d failed\n", g_pass, g_fail);
    return g_fail != 0;
}
