/* test_batch_cut.c - unit tests for native/src/batch_cut.c: where tc_cut_plan
 * cuts (anchors only, pieces tiling each text, nothing cut without an anchor,
 * in invalid UTF-8, on one thread or with min_piece 0), that
 * tc_encode_batch_cut joins the pieces into each text's own encode (ids only
 * and full, a text of the batch left whole beside a cut one), that a join
 * which does not hold gives the text's own encode all the same (a merge of
 * "\n" with the tail character, which the check must catch), and that a
 * plan which does not tile its texts is refused.
 *
 * Build (from the repository root; loads a small tokenizer.json, so every
 * engine file is linked):
 *   gcc -std=c11 -Wall -Wextra -Werror -O2 -Inative/src \
 *       tests/native/test_batch_cut.c native/src/ALL.c -lm -o /tmp/test_batch_cut
 * Prints "N passed, M failed"; exit status nonzero on any failure.
 */
#define _DEFAULT_SOURCE   /* MAP_ANONYMOUS, MAP_NORESERVE */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "tokcore.h"
#include "unit_check.h"

/* Characters as tokens; with_merge adds "\n" + "T" -> "\nT", a token across an anchor. */
static tc_tokenizer *load(int with_merge) {
    char json[1024];
    snprintf(json, sizeof json,
             "{\"version\":\"1.0\",\"truncation\":null,\"padding\":null,\"added_tokens\":[],\"normalizer\":null,"
             "\"pre_tokenizer\":null,\"post_processor\":null,\"decoder\":null,\"model\":{\"type\":\"BPE\","
             "\"dropout\":null,\"unk_token\":\"[UNK]\",\"continuing_subword_prefix\":null,\"end_of_word_suffix\":null,"
             "\"fuse_unk\":false,\"byte_fallback\":false,\"ignore_merges\":false,\"vocab\":{\"[UNK]\":0,\"x\":1,"
             "\"\\n\":2,\"T\":3,\"\\nT\":4,\"y\":5,\"\\u4e2d\":6,\" \":7},\"merges\":[%s]}}",
             with_merge ? "\"\\n T\"" : "");
    tc_error err = {0};
    tc_tokenizer *tok = tc_load_hf_json((const uint8_t *)json, strlen(json), &err);
    if (!tok) { fprintf(stderr, "load: %s\n", err.msg); exit(2); }
    if (tc_prepare(tok, TC_ENC_BPE, &err) != TC_OK) { fprintf(stderr, "prepare: %s\n", err.msg); exit(2); }
    return tok;
}

/* Lines "xy", "T...", "中x", " x", "" in a fixed pseudo-random order: anchors before the letters and 中. */
static char *lines(size_t bytes, unsigned seed, size_t *len) {
    static const char *const parts[] = {"xy", "Tx", "T", "\xE4\xB8\xADx", " x", "", "yyT"};
    char *s = xmalloc(bytes + 16);
    size_t n = 0;
    while (n < bytes) {
        seed = seed * 1103515245u + 12345u;
        const char *p = parts[(seed >> 16) % 7];
        memcpy(s + n, p, strlen(p));
        n += strlen(p);
        s[n++] = '\n';
    }
    *len = n;
    return s;
}

static int same(const tc_encoding *a, const tc_encoding *b, int ids_only) {
    if (a->n != b->n || memcmp(a->ids, b->ids, a->n * 4) != 0 || memcmp(a->special, b->special, a->n) != 0) return 0;
    return ids_only || (memcmp(a->offsets, b->offsets, a->n * 8) == 0 &&
                        memcmp(a->char_offsets, b->char_offsets, a->n * 8) == 0);
}

static void test_plan(void) {
    size_t la, lb;
    char *a = lines(4000, 1, &la), *b = lines(300, 2, &lb);
    const uint8_t *texts[2] = {(const uint8_t *)a, (const uint8_t *)b};
    size_t lens[2] = {la, lb};
    tc_cut_piece *ps = NULL;
    size_t np = 0;
    CHECK(tc_cut_plan(texts, lens, NULL, 2, 2, 64, 8, &ps, &np) == 0 && ps && np > 3);
    /* the long text is cut at anchors into pieces tiling it; the short one (under 2 * target) stays whole */
    size_t at = 0, cuts = 0;
    int ok = 1;
    for (size_t j = 0; ps && j < np; j++) {
        if (ps[j].text == 0) {
            ok &= ps[j].start == at;
            at += ps[j].keep;
            if (ps[j].tail) {
                cuts++;
                const uint8_t *c = texts[0] + at;
                ok &= c[-1] == '\n' && ((ps[j].tail == 1 && ((c[0] | 0x20) >= 'a' && (c[0] | 0x20) <= 'z')) ||
                                          (ps[j].tail == 3 && c[0] == 0xE4));
            }
        } else {
            ok &= ps[j].text == 1 && ps[j].start == 0 && ps[j].keep == lb && ps[j].tail == 0 && j + 1 == np;
        }
    }
    CHECK(ok && at == la && cuts + 2 == np);
    CHECK(tc_cut_scratch(ps, np) == 2 * cuts);
    free(ps);
    /* nothing cut: one thread, min_piece 0, no anchor, invalid UTF-8 (unless said to be valid: utf8_ok) */
    CHECK(tc_cut_plan(texts, lens, NULL, 2, 1, 64, 8, &ps, &np) == 0 && !ps && np == 0);
    CHECK(tc_cut_plan(texts, lens, NULL, 2, 2, 0, 8, &ps, &np) == 0 && !ps && np == 0);
    char *flat = xmalloc(4000);
    memset(flat, 'x', 4000);
    for (size_t k = 10; k < 4000; k += 10) flat[k] = '\n';   /* "\nx": 'x' is a letter, so anchors... */
    flat[3999] = '\n';
    const uint8_t *t1[1] = {(const uint8_t *)flat};
    size_t l1[1] = {4000};
    CHECK(tc_cut_plan(t1, l1, NULL, 1, 2, 64, 8, &ps, &np) == 0 && ps && np > 1);
    free(ps);
    for (size_t k = 0; k < 4000; k++) flat[k] = (k % 10 == 0) ? '\n' : '1';   /* ...digits are not */
    CHECK(tc_cut_plan(t1, l1, NULL, 1, 2, 64, 8, &ps, &np) == 0 && !ps && np == 0);
    a[la / 3] = (char)0xFF;
    const uint8_t *t2[1] = {(const uint8_t *)a};
    size_t l2[1] = {la};
    CHECK(tc_cut_plan(t2, l2, NULL, 1, 2, 64, 8, &ps, &np) == 0 && !ps && np == 0);
    const uint8_t ok1[1] = {1};
    CHECK(tc_cut_plan(t2, l2, ok1, 1, 2, 64, 8, &ps, &np) == 0 && ps && np > 1);
    free(ps);
    free(flat);
    free(a);
    free(b);
}

/* A text above TC_MAX_INPUT_BYTES is not cut (its own encode refuses it: cut, its pieces would pass, and
 * two threads would accept what one refuses). Untouched pages of an anonymous mapping read as zeros; the
 * plan must not read the text at all, so only the anchors' two pages are ever touched. */
static void test_plan_limit(void) {
    size_t len = (size_t)TC_MAX_INPUT_BYTES + 2;
    uint8_t *big = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    CHECK(big != MAP_FAILED);
    if (big == MAP_FAILED) return;
    for (size_t at = len / 4; at < len; at += len / 4) { big[at] = '\n'; big[at + 1] = 'A'; }
    const uint8_t *texts[1] = {big};
    size_t lens[1] = {len};
    const uint8_t ok1[1] = {1};
    tc_cut_piece *ps = NULL;
    size_t np = 0;
    CHECK(tc_cut_plan(texts, lens, ok1, 1, 2, 64, 2, &ps, &np) == 0 && !ps && np == 0);
    lens[0] = TC_MAX_INPUT_BYTES;   /* at the limit: cut */
    CHECK(tc_cut_plan(texts, lens, ok1, 1, 2, 64, 2, &ps, &np) == 0 && ps && np > 1);
    free(ps);
    munmap(big, len);
}

/* The batch (one cut text, one whole) through tc_encode_batch_cut, against each text's own encode. */
static void check_batch(tc_tokenizer *tok, unsigned flags) {
    size_t la, lb;
    char *a = lines(6000, 3, &la), *b = lines(200, 4, &lb);
    const uint8_t *texts[2] = {(const uint8_t *)a, (const uint8_t *)b};
    size_t lens[2] = {la, lb};
    tc_cut_piece *ps = NULL;
    size_t np = 0;
    CHECK(tc_cut_plan(texts, lens, NULL, 2, 2, 64, 8, &ps, &np) == 0 && np > 4);
    size_t ns = tc_cut_scratch(ps, np);
    tc_encoding outs[2], want[2];
    tc_encoding *scratch = calloc(ns ? ns : 1, sizeof *scratch);
    if (!scratch) exit(2);
    memset(outs, 0, sizeof outs);
    memset(want, 0, sizeof want);
    tc_error err = {0};
    int ids_only = (flags & TC_ENCODE_IDS_ONLY) != 0;
    for (int round = 0; round < 2; round++) {   /* the caller's scratch, then none (the call's own) */
        CHECK(tc_encode_batch_cut(tok, texts, lens, 2, ps, np, 0, TC_ENC_BPE, flags, 2, outs,
                                  round ? NULL : scratch, round ? 0 : ns, NULL, &err) == TC_OK);
        for (int i = 0; i < 2; i++) {
            CHECK(tc_encode_flags(tok, texts[i], lens[i], 0, TC_ENC_BPE, flags, &want[i], NULL, &err) == TC_OK);
            CHECK(same(&outs[i], &want[i], ids_only));
        }
    }
    /* plans that do not tile their texts are refused */
    tc_cut_piece bad[3] = {{0, 0, la, 0}, {1, 0, lb - 1, 0}, {0, 0, 0, 0}};
    CHECK(tc_encode_batch_cut(tok, texts, lens, 2, bad, 2, 0, TC_ENC_BPE, flags, 2, outs, NULL, 0, NULL, &err)
          == TC_ERR_ARG);
    CHECK(tc_encode_batch_cut(tok, texts, lens, 2, bad, 1, 0, TC_ENC_BPE, flags, 2, outs, NULL, 0, NULL, &err)
          == TC_ERR_ARG);   /* text 1 has no piece */
    tc_cut_piece gap[3] = {{0, 0, 10, 0}, {0, 11, la - 11, 0}, {1, 0, lb, 0}};
    CHECK(tc_encode_batch_cut(tok, texts, lens, 2, gap, 3, 0, TC_ENC_BPE, flags, 2, outs, NULL, 0, NULL, &err)
          == TC_ERR_ARG);
    tc_cut_piece past[2] = {{0, 0, la, 0}, {2, 0, 0, 0}};
    CHECK(tc_encode_batch_cut(tok, texts, lens, 2, past, 2, 0, TC_ENC_BPE, flags, 2, outs, NULL, 0, NULL, &err)
          == TC_ERR_ARG);
    for (size_t k = 0; k < ns; k++) tc_encoding_free(&scratch[k]);
    free(scratch);
    for (int i = 0; i < 2; i++) { tc_encoding_free(&outs[i]); tc_encoding_free(&want[i]); }
    free(ps);
    free(a);
    free(b);
}

int main(void) {
    test_plan();
    test_plan_limit();
    for (int merge = 0; merge < 2; merge++) {
        tc_tokenizer *tok = load(merge);
        check_batch(tok, 0);
        check_batch(tok, TC_ENCODE_IDS_ONLY);
        tc_free(tok);
    }
    printf("%d passed, %d failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
