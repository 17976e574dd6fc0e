/* test_unicode.c - unit tests for unicode.c lookups and normalize.c basics.
 * Build: cc -std=c11 -Inative/src tests/native/test_unicode.c
 *        native/src/unicode.c native/src/normalize.c native/src/common.c
 * Prints "N passed, M failed"; exit status nonzero on any failure. */
#include <stdio.h>

#include "../../native/src/normalize.h"
#include "../../native/src/unicode.h"

static int g_pass, g_fail;

#define CHECK(cond) do { \
        if (cond) g_pass++; \
        else { g_fail++; fprintf(stderr, "%s:%d: FAILED: %s\n", __FILE__, __LINE__, #cond); } \
    } while (0)

static void test_lookups(void) {
    CHECK(tc_unicode_gc('A') == TC_GC_Lu);
    CHECK(tc_unicode_gc('a') == TC_GC_Ll);
    CHECK(tc_unicode_gc('0') == TC_GC_Nd);
    CHECK(tc_unicode_gc(' ') == TC_GC_Zs);
    CHECK(tc_unicode_gc('\n') == TC_GC_Cc);
    CHECK(tc_unicode_gc(0x0301) == TC_GC_Mn);
    CHECK(tc_unicode_gc(0x4E00) == TC_GC_Lo);
    CHECK(tc_unicode_gc(0x01C5) == TC_GC_Lt);
    CHECK(tc_unicode_gc(0x2028) == TC_GC_Zl);
    CHECK(tc_unicode_gc(0x2029) == TC_GC_Zp);
    CHECK(tc_unicode_gc(0xD800) == TC_GC_Cs);
    CHECK(tc_unicode_gc(0xE000) == TC_GC_Co);
    CHECK(tc_unicode_gc(0x0378) == TC_GC_Cn);
    CHECK(tc_unicode_gc(0x10FFFF) == TC_GC_Cn);
    CHECK(tc_unicode_gc(0x1F600) == TC_GC_So);
    CHECK(tc_unicode_gc(0x00BD) == TC_GC_No);
    CHECK(tc_unicode_gc(0x2160) == TC_GC_Nl);
    CHECK(tc_unicode_gc(0x200D) == TC_GC_Cf);
    CHECK(tc_unicode_gc(TC_CP_INVALID_BASE + 0xFF) == TC_GC_Cn);
    CHECK((TC_GCM(tc_unicode_gc(0x00E9)) & TC_GCM_L) != 0);

    static const uint32_t spaces[] = {0x9, 0xA, 0xB, 0xC, 0xD, 0x20, 0x85, 0xA0, 0x1680,
                                      0x2000, 0x2005, 0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000};
    for (size_t i = 0; i < sizeof spaces / sizeof spaces[0]; i++) CHECK(tc_unicode_is_space(spaces[i]));
    CHECK(!tc_unicode_is_space(0x200B));
    CHECK(!tc_unicode_is_space(0x180E));
    CHECK(!tc_unicode_is_space(0x1C));
    CHECK(!tc_unicode_is_space('a'));
    CHECK(!tc_unicode_is_space(TC_CP_INVALID_BASE + 0x20));

    CHECK(tc_unicode_is_alnum('a'));
    CHECK(tc_unicode_is_alnum('7'));
    CHECK(tc_unicode_is_alnum(0x00BD));  /* No */
    CHECK(tc_unicode_is_alnum(0x2160));  /* Nl */
    CHECK(tc_unicode_is_alnum(0x0345));  /* Other_Alphabetic */
    CHECK(tc_unicode_is_alnum(0x093E));  /* Other_Alphabetic (Mc) */
    CHECK(tc_unicode_is_alnum(0x24B6));  /* circled A: So but Other_Alphabetic */
    CHECK(!tc_unicode_is_alnum(0x0301));
    CHECK(!tc_unicode_is_alnum('_'));
    CHECK(!tc_unicode_is_alnum(' '));

    CHECK(tc_unicode_fold('A') == 'a');
    CHECK(tc_unicode_fold('a') == 'a');
    CHECK(tc_unicode_fold(0x017F) == 's');
    CHECK(tc_unicode_fold(0x212A) == 'k');
    CHECK(tc_unicode_fold(0x2126) == 0x03C9);
    CHECK(tc_unicode_fold(0x03C2) == 0x03C3);
    CHECK(tc_unicode_fold(0x03A3) == 0x03C3);
    CHECK(tc_unicode_fold(0x1E9E) == 0x00DF);
    CHECK(tc_unicode_fold(0x00DF) == 0x00DF);
    CHECK(tc_unicode_fold(0x0130) == 0x0130);
    CHECK(tc_unicode_fold(0x13F8) == 0x13F0);
    CHECK(tc_unicode_fold(0x10400) == 0x10428);
    CHECK(tc_unicode_fold(TC_CP_INVALID_BASE + 0x41) == TC_CP_INVALID_BASE + 0x41);

    uint32_t lo[3];
    CHECK(tc_unicode_lower('A', lo) == 1 && lo[0] == 'a');
    CHECK(tc_unicode_lower('z', lo) == 1 && lo[0] == 'z');
    CHECK(tc_unicode_lower(0x0130, lo) == 2 && lo[0] == 'i' && lo[1] == 0x0307);
    CHECK(tc_unicode_lower(0x03A3, lo) == 1 && lo[0] == 0x03C3);
    CHECK(tc_unicode_lower(0x1E9E, lo) == 1 && lo[0] == 0x00DF);
    CHECK(tc_unicode_lower(0x212A, lo) == 1 && lo[0] == 'k');
    CHECK(tc_unicode_lower(0x1F88, lo) == 1 && lo[0] == 0x1F80);
    CHECK(tc_unicode_lower(0x0049, lo) == 1 && lo[0] == 'i');
    CHECK(tc_unicode_lower(TC_CP_INVALID_BASE + 0x41, lo) == 1 && lo[0] == TC_CP_INVALID_BASE + 0x41);

    CHECK(strcmp(tc_unicode_version(), "14.0.0") == 0 || strlen(tc_unicode_version()) > 0);
}

static void test_norm_data(void) {
    uint32_t d[TC_UNICODE_DECOMP_MAX];
    CHECK(tc_unicode_ccc('a') == 0);
    CHECK(tc_unicode_ccc(0x0301) == 230);
    CHECK(tc_unicode_ccc(0x0316) == 220);
    CHECK(tc_unicode_ccc(0x093C) == 7);
    CHECK(tc_unicode_ccc(0x1DF6) == 0);  /* Unicode 10: not in the crate's tables */
    CHECK(tc_unicode_decompose('a', 0, d) == 0);
    CHECK(tc_unicode_decompose(0x00E9, 0, d) == 2 && d[0] == 'e' && d[1] == 0x0301);
    CHECK(tc_unicode_decompose(0x1E08, 0, d) == 3 && d[0] == 'C' && d[1] == 0x0327 && d[2] == 0x0301);
    CHECK(tc_unicode_decompose(0xFB01, 0, d) == 0);
    CHECK(tc_unicode_decompose(0xFB01, 1, d) == 2 && d[0] == 'f' && d[1] == 'i');
    CHECK(tc_unicode_decompose(0x212B, 0, d) == 2 && d[0] == 'A' && d[1] == 0x030A);
    CHECK(tc_unicode_decompose(0xAC00, 0, d) == 2 && d[0] == 0x1100 && d[1] == 0x1161);
    CHECK(tc_unicode_decompose(0xAC01, 1, d) == 3 && d[2] == 0x11A8);
    CHECK(tc_unicode_decompose(0xFDFA, 1, d) == 18);
    CHECK(tc_unicode_decompose(0x11938, 0, d) == 0);  /* Unicode 13 */
    CHECK(tc_unicode_compose('e', 0x0301) == 0x00E9);
    CHECK(tc_unicode_compose(0x00C7, 0x0301) == 0x1E08);
    CHECK(tc_unicode_compose(0x0915, 0x093C) == 0);  /* U+0958 is excluded */
    CHECK(tc_unicode_compose(0x0928, 0x093C) == 0x0929);
    CHECK(tc_unicode_compose(0x0308, 0x0301) == 0);  /* non-starter decomposition */
    CHECK(tc_unicode_compose(0x1100, 0x1161) == 0xAC00);
    CHECK(tc_unicode_compose(0xAC00, 0x11A8) == 0xAC01);
    CHECK(tc_unicode_compose(0xAC00, 0x11A7) == 0);
    CHECK(tc_unicode_compose(0xAC01, 0x11A8) == 0);
    CHECK(tc_unicode_compose('a', 'b') == 0);
    CHECK(tc_unicode_compose(TC_CP_INVALID_BASE + 0x65, 0x0301) == 0);
    CHECK((tc_unicode_norm_info(0x0301) >> 16) == 230);
    CHECK(tc_unicode_norm_info(0x0301) & TC_UNF_NFC_NY);     /* Maybe */
    CHECK(tc_unicode_norm_info(0x0958) & TC_UNF_NFC_NY);     /* No */
    CHECK(!(tc_unicode_norm_info(0x00E9) & TC_UNF_NFC_NY));
    CHECK(tc_unicode_norm_info(0xFB01) & TC_UNF_NFKC_NY);
    CHECK(!(tc_unicode_norm_info(0xFB01) & TC_UNF_NFC_NY));
    CHECK(!(tc_unicode_norm_info(0x4E00) & (TC_UNF_NFKC_NY | TC_UNF_COMPAT)));
}

/* Runs normalizer steps on text (identity alignment, base 0) and compares
 * with the expected bytes and the expected spans (pairs start,end per byte). */
static int norm_eq(const tc_norm_kind *steps, int nsteps, const char *in, size_t inlen,
                   const char *exp, size_t explen, const uint32_t *spans) {
    tc_normalizer n;
    n.nsteps = nsteps;
    for (int i = 0; i < nsteps; i++) n.steps[i] = steps[i];
    tc_nstr s;
    memset(&s, 0, sizeof s);
    if (tc_buf_append(&s.text, in, inlen) != 0) return 0;
    int ok = tc_normalize(&n, &s, 0) == 0;
    ok = ok && s.text.len == explen && (explen == 0 || memcmp(s.text.data, exp, explen) == 0);
    if (ok && spans) {
        for (size_t i = 0; i < explen; i++) {
            uint32_t a, b;
            if (s.align) { a = s.align[i].start; b = s.align[i].end; }
            else { a = b = UINT32_MAX; }
            if (a != spans[2 * i] || b != spans[2 * i + 1]) { ok = 0; break; }
        }
    }
    tc_nstr_free(&s);
    return ok;
}

#define NORM1(kind, in, exp, spans) \
    norm_eq((const tc_norm_kind[]){kind}, 1, in, sizeof(in) - 1, exp, sizeof(exp) - 1, spans)

/* A normalizer of one step (the struct also holds per-step data). */
static tc_normalizer one_step(tc_norm_kind k) {
    tc_normalizer n;
    memset(&n, 0, sizeof n);
    n.nsteps = 1;
    n.steps[0] = k;
    return n;
}

static void test_normalize(void) {
    /* NFD of e-acute: both bytes of e and of U+0301 align to the 2-byte source */
    CHECK(NORM1(TC_NORM_NFD, "\xC3\xA9", "e\xCC\x81", ((const uint32_t[]){0, 2, 0, 2, 0, 2})));
    /* NFC of e + U+0301: the composite takes the span of 'e' only (change -1) */
    CHECK(NORM1(TC_NORM_NFC, "e\xCC\x81x", "\xC3\xA9x", ((const uint32_t[]){0, 1, 0, 1, 3, 4})));
    /* NFC: U+0316 (220) sorts before U+0301 (230), which then composes with a:
     * a-acute gets change -1 (consumes a and U+0301), U+0316 keeps its span */
    CHECK(NORM1(TC_NORM_NFC, "a\xCC\x81\xCC\x96", "\xC3\xA1\xCC\x96",
                ((const uint32_t[]){0, 1, 0, 1, 3, 5, 3, 5})));
    /* NFKC ligature: f takes the span, i is inserted with the same span */
    CHECK(NORM1(TC_NORM_NFKC, "\xEF\xAC\x81", "fi", ((const uint32_t[]){0, 3, 0, 3})));
    /* Hangul: NFD then NFC round trip */
    CHECK(NORM1(TC_NORM_NFD, "\xEA\xB0\x81", "\xE1\x84\x80\xE1\x85\xA1\xE1\x86\xA8", NULL));
    CHECK(NORM1(TC_NORM_NFC, "\xE1\x84\x80\xE1\x85\xA1\xE1\x86\xA8", "\xEA\xB0\x81",
                ((const uint32_t[]){0, 3, 0, 3, 0, 3})));
    /* Lowercase: I-dot expands to i + U+0307 */
    CHECK(NORM1(TC_NORM_LOWERCASE, "A\xC4\xB0", "ai\xCC\x87", ((const uint32_t[]){0, 1, 1, 3, 1, 3, 1, 3})));
    /* Unchanged text keeps the identity alignment (align stays NULL) */
    CHECK(NORM1(TC_NORM_NFC, "abc \xE4\xB8\x80", "abc \xE4\xB8\x80",
                ((const uint32_t[]){UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX,
                                    UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX,
                                    UINT32_MAX, UINT32_MAX})));
    /* Invalid bytes pass through and block composition */
    CHECK(NORM1(TC_NORM_NFC, "e\xFF\xCC\x81", "e\xFF\xCC\x81", NULL));
    CHECK(NORM1(TC_NORM_NFD, "\xC3\xA9\xC3", "e\xCC\x81\xC3", ((const uint32_t[]){0, 2, 0, 2, 0, 2, 2, 3})));
    CHECK(NORM1(TC_NORM_LOWERCASE, "A\x80Z", "a\x80z", ((const uint32_t[]){0, 1, 1, 2, 2, 3})));
    /* Sequence NFD + Lowercase */
    CHECK(norm_eq((const tc_norm_kind[]){TC_NORM_NFD, TC_NORM_LOWERCASE}, 2, "\xC3\x89", 2, "e\xCC\x81", 3,
                  (const uint32_t[]){0, 2, 0, 2, 0, 2}));
    /* Empty string */
    CHECK(NORM1(TC_NORM_NFKC, "", "", NULL));

    /* base offset is added when the alignment is materialized */
    {
        tc_normalizer n = one_step(TC_NORM_NFD);
        tc_nstr s;
        memset(&s, 0, sizeof s);
        CHECK(tc_buf_append(&s.text, "x\xC3\xA9", 3) == 0);
        CHECK(tc_normalize(&n, &s, 10) == 0);
        CHECK(s.text.len == 4 && s.align && s.align[0].start == 10 && s.align[0].end == 11 &&
              s.align[1].start == 11 && s.align[3].end == 13);
        tc_nstr_free(&s);
    }

    /* is_noop */
    {
        tc_normalizer nfc = one_step(TC_NORM_NFC), low = one_step(TC_NORM_LOWERCASE);
        tc_normalizer nfkd = one_step(TC_NORM_NFKD), seq = one_step(TC_NORM_NFC);
        seq.steps[seq.nsteps++] = TC_NORM_LOWERCASE;
        CHECK(tc_normalize_is_noop(&nfc, (const uint8_t *)"Hello world", 11));
        CHECK(tc_normalize_is_noop(&nfc, (const uint8_t *)"\xC3\xA9\xE4\xB8\x80", 5));
        CHECK(!tc_normalize_is_noop(&nfc, (const uint8_t *)"e\xCC\x81", 3));
        CHECK(!tc_normalize_is_noop(&nfkd, (const uint8_t *)"\xC3\xA9", 2));
        CHECK(!tc_normalize_is_noop(&low, (const uint8_t *)"Hello", 5));
        CHECK(tc_normalize_is_noop(&low, (const uint8_t *)"hello \xC3\xA9", 8));
        CHECK(!tc_normalize_is_noop(&low, (const uint8_t *)"\xC3\x89", 2));
        CHECK(!tc_normalize_is_noop(&seq, (const uint8_t *)"Hello", 5));
        CHECK(tc_normalize_is_noop(&seq, (const uint8_t *)"hello", 5));
        /* out-of-order marks are not a noop even if each is Yes-ish */
        CHECK(!tc_normalize_is_noop(&nfkd, (const uint8_t *)"a\xCC\x81\xCC\x96", 5));
        CHECK(tc_normalize_is_noop(&nfkd, (const uint8_t *)"a\xCC\x96\xCC\x81", 5));
        CHECK(tc_normalize_is_noop(&nfc, (const uint8_t *)"\xFF\xFE", 2));
    }
}

int main(void) {
    test_lookups();
    test_norm_data();
    test_normalize();
    printf("%d passed, %d failed\n", g_pass, g_fail);
    return g_fail != 0;
}
