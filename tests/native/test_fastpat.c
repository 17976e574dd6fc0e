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

int main(void) {
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
