/* test_greedy.c - unit tests for native/src/greedy.c: the trie index
 * against a straightforward reference (a linear scan over every entry at
 * every position, same rules) on seeded random vocabularies and texts, and
 * the documented corner cases.
 *
 * Build (from the repository root):
 *   gcc -std=c11 -Wall -Wextra -Werror -O2 -Inative/src \
 *       tests/native/test_greedy.c native/src/greedy.c native/src/common.c -o /tmp/test_greedy
 *   /tmp/test_greedy [path/to/vocab.bin]
 * With a path, the file's entries (ids >= N - 26 taken as specials, the
 * Qwen3 layout) are indexed and the build and encode times printed.
 * Prints "N passed, M failed"; exit status nonzero on any failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "greedy.h"
#include "unit_check.h"


/* ---- a vocabulary under test ------------------------------------------ */

typedef struct vocab {
    size_t n;
    uint32_t *ids, *lens;
    const uint8_t **bytes;
    uint8_t *special;
    uint8_t *pool; size_t pool_len;
} vocab;

static void vocab_init(vocab *v, size_t cap, size_t pool_cap) {
    memset(v, 0, sizeof *v);
    v->ids = xmalloc(cap * sizeof *v->ids);
    v->lens = xmalloc(cap * sizeof *v->lens);
    v->bytes = xmalloc(cap * sizeof *v->bytes);
    v->special = xmalloc(cap);
    v->pool = xmalloc(pool_cap);
}

/* bytes are copied into the pool; pointers are fixed up by vocab_seal */
static void vocab_add(vocab *v, uint32_t id, const void *s, size_t len, int special) {
    v->ids[v->n] = id;
    v->lens[v->n] = (uint32_t)len;
    v->bytes[v->n] = (const uint8_t *)(uintptr_t)v->pool_len;   /* offset until sealed */
    v->special[v->n] = (uint8_t)special;
    memcpy(v->pool + v->pool_len, s, len);
    v->pool_len += len;
    v->n++;
}

static void vocab_seal(vocab *v) {
    for (size_t i = 0; i < v->n; i++) v->bytes[i] = v->pool + (size_t)(uintptr_t)v->bytes[i];
}

static void vocab_free(vocab *v) {
    free(v->ids); free(v->lens); free(v->bytes); free(v->special); free(v->pool);
}

/* ---- the reference ----------------------------------------------------- */

typedef struct ref_out {
    tc_greedy_tok toks[4096]; size_t n;
    uint32_t cands[65536]; size_t ncands;
    uint32_t step_ncand[4096], step_pos[4096], step_len[4096], step_chosen[4096]; size_t nsteps;
    size_t dropped;
} ref_out;

/* candidates sorted by (len, id) */
static const vocab *g_sort_v;   /* test-only: qsort has no context argument */
static int cmp_cand(const void *a, const void *b) {
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    const vocab *v = g_sort_v;
    if (v->lens[x] != v->lens[y]) return v->lens[x] < v->lens[y] ? -1 : 1;
    return v->ids[x] < v->ids[y] ? -1 : (v->ids[x] > v->ids[y]);
}

static void reference(const vocab *v, const uint8_t *text, size_t len, ref_out *o) {
    uint8_t s[8192];
    uint32_t orig[8192];
    uint8_t second[8192];   /* second byte of a marker */
    size_t sl = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] <= 0x20) {
            s[sl] = 0xC4; orig[sl] = (uint32_t)i; second[sl++] = 0;
            s[sl] = (uint8_t)(0x80 + text[i]); orig[sl] = (uint32_t)i; second[sl++] = 1;
        } else {
            s[sl] = text[i]; orig[sl] = (uint32_t)i; second[sl++] = 0;
        }
    }
    o->n = o->ncands = o->nsteps = o->dropped = 0;
    size_t *match = xmalloc(v->n * sizeof *match);
    for (size_t p = 0; p < sl;) {
        size_t best = SIZE_MAX, spec = SIZE_MAX, nm = 0;
        for (size_t i = 0; i < v->n; i++) {
            size_t L = v->lens[i];
            if (L > sl - p || memcmp(v->bytes[i], s + p, L) != 0) continue;
            match[nm++] = i;
            if (best == SIZE_MAX || L > v->lens[best] || (L == v->lens[best] && v->ids[i] < v->ids[best])) best = i;
            if (v->special[i] &&
                (spec == SIZE_MAX || L > v->lens[spec] || (L == v->lens[spec] && v->ids[i] < v->ids[spec]))) spec = i;
        }
        g_sort_v = v;
        qsort(match, nm, sizeof *match, cmp_cand);
        o->step_pos[o->nsteps] = orig[p];
        o->step_ncand[o->nsteps] = (uint32_t)nm;
        for (size_t k = 0; k < nm; k++) o->cands[o->ncands++] = v->ids[match[k]];
        size_t pick = spec != SIZE_MAX ? spec : best, mlen;
        if (pick == SIZE_MAX) {
            mlen = (!second[p] && p + 1 < sl && second[p + 1]) ? 2 : 1;
            o->dropped++;
            o->step_chosen[o->nsteps] = TC_GREEDY_NO_ID;
        } else {
            mlen = v->lens[pick];
            size_t e = p + mlen;
            tc_greedy_tok *t = &o->toks[o->n++];
            t->id = v->ids[pick];
            t->start = orig[p];
            t->end = e >= sl ? (uint32_t)len : (second[e] ? orig[e] + 1 : orig[e]);
            t->special = spec != SIZE_MAX;
            o->step_chosen[o->nsteps] = t->id;
        }
        o->step_len[o->nsteps++] = (uint32_t)mlen;
        p += mlen;
    }
    free(match);
}

static int same_as_reference(const tc_greedy *g, const vocab *v, const uint8_t *text, size_t len, ref_out *r) {
    tc_greedy_out o = {0};
    tc_error err = {0};
    reference(v, text, len, r);
    if (tc_greedy_encode(g, text, len, 1, &o, &err) != TC_OK) {
        fprintf(stderr, "  encode: %s\n", err.msg);
        return 0;
    }
    int ok = o.n == r->n && o.dropped == r->dropped && o.nsteps == r->nsteps && o.ncands == r->ncands;
    for (size_t i = 0; ok && i < o.n; i++)
        ok = o.toks[i].id == r->toks[i].id && o.toks[i].start == r->toks[i].start &&
             o.toks[i].end == r->toks[i].end && o.toks[i].special == r->toks[i].special;
    for (size_t i = 0; ok && i < o.nsteps; i++)
        ok = o.steps[i].pos == r->step_pos[i] && o.steps[i].ncand == r->step_ncand[i] &&
             o.steps[i].chosen == r->step_chosen[i] && o.steps[i].chosen_len == r->step_len[i];
    for (size_t i = 0; ok && i < o.ncands; i++) ok = o.cands[i] == r->cands[i];
    /* without trace: the same tokens */
    tc_greedy_out o2 = {0};
    if (ok && tc_greedy_encode(g, text, len, 0, &o2, &err) == TC_OK) {
        ok = o2.n == o.n && o2.nsteps == 0 && o2.ncands == 0 && o2.dropped == o.dropped;
        for (size_t i = 0; ok && i < o.n; i++)   /* field by field: the struct has padding */
            ok = o2.toks[i].id == o.toks[i].id && o2.toks[i].start == o.toks[i].start &&
                 o2.toks[i].end == o.toks[i].end && o2.toks[i].special == o.toks[i].special;
    }
    if (!ok) {
        fprintf(stderr, "  mismatch on text of %zu bytes: index %zu toks/%zu dropped/%zu steps/%zu cands, reference %zu/%zu/%zu/%zu\n",
                len, o.n, o.dropped, o.nsteps, o.ncands, r->n, r->dropped, r->nsteps, r->ncands);
        for (size_t i = 0; i < o.nsteps && i < r->nsteps; i++)
            if (o.steps[i].pos != r->step_pos[i] || o.steps[i].ncand != r->step_ncand[i] ||
                o.steps[i].chosen != r->step_chosen[i] || o.steps[i].chosen_len != r->step_len[i]) {
                fprintf(stderr, "  first step difference at %zu: pos %u/%u ncand %u/%u chosen %u/%u len %u/%u\n", i,
                        o.steps[i].pos, r->step_pos[i], o.steps[i].ncand, r->step_ncand[i], o.steps[i].chosen,
                        r->step_chosen[i], o.steps[i].chosen_len, r->step_len[i]);
                break;
            }
        for (size_t i = 0; i < o.n && i < r->n; i++)
            if (o.toks[i].id != r->toks[i].id || o.toks[i].start != r->toks[i].start || o.toks[i].end != r->toks[i].end) {
                fprintf(stderr, "  first difference at token %zu: %u[%u,%u) vs %u[%u,%u)\n", i, o.toks[i].id,
                        o.toks[i].start, o.toks[i].end, r->toks[i].id, r->toks[i].start, r->toks[i].end);
                break;
            }
    }
    tc_greedy_out_free(&o);
    tc_greedy_out_free(&o2);
    return ok;
}

/* ---- random vocabularies and texts -------------------------------------- */

static uint64_t rng(uint64_t *x) {
    *x ^= *x << 13; *x ^= *x >> 7; *x ^= *x << 17;
    return *x;
}

/* One random stored unit appended to buf: ASCII, a marker, a raw
 * 0x7F / 0x80..0xA0 / 0xAD / 0xA1..0xFF byte, or multi-byte UTF-8 (some of
 * it the same bytes as markers: U+0100..U+0120 letters). */
static size_t rand_unit(uint64_t *x, uint8_t *o) {
    static const char *const utf8[] = {"\xC3\xA9", "\xE4\xBD\xA0", "\xE5\xA5\xBD", "\xC4\x99", "\xC4\x85",
                                       "\xF0\x9F\x98\x80", "\xC5\x82", "\xD0\xB6"};
    uint64_t r = rng(x) % 100;
    if (r < 45) { o[0] = (uint8_t)("etaoinshrdlu"[rng(x) % 12]); return 1; }
    if (r < 60) { o[0] = 0xC4; o[1] = (uint8_t)(0x80 + rng(x) % 33); return 2; }
    if (r < 63) { o[0] = 0x7F; return 1; }
    if (r < 68) { o[0] = (uint8_t)(0x80 + rng(x) % 33); return 1; }
    if (r < 70) { o[0] = 0xAD; return 1; }
    if (r < 76) { o[0] = (uint8_t)(0xA1 + rng(x) % 93); return 1; }   /* A1..FD */
    if (r < 80) { o[0] = (uint8_t)(0x21 + rng(x) % 94); return 1; }
    const char *u = utf8[rng(x) % 8];
    size_t n = strlen(u);
    memcpy(o, u, n);
    return n;
}

static void build_random_vocab(vocab *v, uint64_t seed, size_t nstrings) {
    uint64_t x = seed;
    vocab_init(v, nstrings + 64, (nstrings + 64) * 40);
    uint32_t id = 0;
    uint8_t s[64];
    /* most single units, but not all: some bytes must drop */
    for (int b = 0; b < 256; b++) {
        if (b >= 0xFE || rng(&x) % 10 == 0) continue;   /* FE, FF: never an entry */
        uint8_t c = (uint8_t)b;
        vocab_add(v, id++, &c, 1, 0);
    }
    for (int c = 0; c <= 0x20; c++) {
        if (rng(&x) % 8 == 0) continue;
        uint8_t m[2] = {0xC4, (uint8_t)(0x80 + c)};
        vocab_add(v, id++, m, 2, 0);
    }
    static const char *const specials[] = {"<|end|>", "<|im_start|>", "<s>", "<|e", "\xC4\xA0<x>"};
    for (int k = 0; k < 5; k++) vocab_add(v, id++, specials[k], strlen(specials[k]), 1);
    vocab_add(v, id++, "<|end|>x", 8, 0);   /* longer than a special: the special still wins */
    while (v->n < nstrings) {
        size_t len = 0, units = 1 + rng(&x) % 6;
        for (size_t u = 0; u < units && len < 40; u++) len += rand_unit(&x, s + len);
        /* some duplicates of earlier bytes under a new (sometimes lower) id */
        if (rng(&x) % 50 == 0 && v->n > 300) {
            size_t j = 300 + rng(&x) % (v->n - 300);
            memcpy(s, v->pool + (size_t)(uintptr_t)v->bytes[j], v->lens[j]);
            len = v->lens[j];
        }
        vocab_add(v, id++, s, len, 0);
    }
    /* shuffle ids so equal bytes meet both orders */
    for (size_t i = v->n; i > 1; i--) {
        size_t j = rng(&x) % i;
        uint32_t t = v->ids[i - 1]; v->ids[i - 1] = v->ids[j]; v->ids[j] = t;
    }
    vocab_seal(v);
}

static size_t rand_text(uint64_t *x, const vocab *v, uint8_t *t, size_t max) {
    size_t n = 0;
    while (n + 48 < max) {
        uint64_t r = rng(x) % 10;
        if (r < 5) {   /* a piece of an entry, with its markers turned back into control bytes */
            size_t j = rng(x) % v->n;
            const uint8_t *b = v->bytes[j];
            for (size_t k = 0; k < v->lens[j]; k++) {
                if (k + 1 < v->lens[j] && b[k] == 0xC4 && b[k + 1] >= 0x80 && b[k + 1] <= 0xA0 && rng(x) % 3) {
                    t[n++] = (uint8_t)(b[k + 1] - 0x80);
                    k++;
                } else {
                    t[n++] = b[k];
                }
            }
        } else if (r < 7) {
            t[n++] = (uint8_t)(rng(x) % 0x21);   /* control byte or space */
        } else if (r < 9) {
            t[n++] = (uint8_t)rng(x);
        } else {
            uint8_t u[8];
            size_t k = rand_unit(x, u);
            memcpy(t + n, u, k);
            n += k;
        }
        if (rng(x) % 40 == 0) break;
    }
    return n;
}

static void test_random(void) {
    static ref_out r;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        vocab v;
        build_random_vocab(&v, 0x1234567ull * seed + 99, 20000 + 3000 * (size_t)seed);
        tc_error err = {0};
        tc_greedy *g = tc_greedy_build(v.n, v.ids, v.bytes, v.lens, v.special, &err);
        CHECK(g != NULL);
        if (!g) { fprintf(stderr, "  build: %s\n", err.msg); vocab_free(&v); continue; }
        uint64_t x = seed * 0x9E3779B97F4A7C15ull;
        int ok = 0, total = 40;
        size_t dropped = 0, specials = 0;
        uint8_t text[1500];
        for (int t = 0; t < total; t++) {
            size_t n = rand_text(&x, &v, text, sizeof text);
            if (same_as_reference(g, &v, text, n, &r)) ok++;
            dropped += r.dropped;
            for (size_t k = 0; k < r.n; k++) specials += r.toks[k].special;
        }
        CHECK(ok == total);
        CHECK(dropped > 0);   /* the vocabulary lacks some units on purpose */
        /* every text with specials spliced in */
        const char *sp = "ab<|end|>x\n<|im_start|>\x01<s> \xFE<|e";
        if (same_as_reference(g, &v, (const uint8_t *)sp, strlen(sp), &r)) ok++;
        for (size_t k = 0; k < r.n; k++) specials += r.toks[k].special;
        CHECK(ok == total + 1);
        CHECK(specials > 0);
        tc_greedy_free(g);
        vocab_free(&v);
    }
}

/* ---- corner cases ------------------------------------------------------ */

static tc_greedy *build_small(const char *const *strs, const uint32_t *ids, const uint8_t *spec, size_t n) {
    const uint8_t *bytes[32];
    uint32_t lens[32];
    for (size_t i = 0; i < n; i++) { bytes[i] = (const uint8_t *)strs[i]; lens[i] = (uint32_t)strlen(strs[i]); }
    tc_error err = {0};
    tc_greedy *g = tc_greedy_build(n, ids, bytes, lens, spec, &err);
    if (!g) fprintf(stderr, "  build: %s\n", err.msg);
    return g;
}

static void test_equal_bytes(void) {
    /* id 10 and id 5 both "ab": the lower id wins, whatever the order given */
    const char *strs[] = {"ab", "a", "b", "ab"};
    uint32_t ids[] = {10, 1, 2, 5};
    tc_greedy *g = build_small(strs, ids, NULL, 4);
    CHECK(g != NULL);
    if (!g) return;
    tc_greedy_out o = {0};
    tc_error err = {0};
    CHECK(tc_greedy_encode(g, (const uint8_t *)"abab", 4, 1, &o, &err) == TC_OK);
    CHECK(o.n == 2 && o.toks[0].id == 5 && o.toks[1].id == 5);
    /* trace: at 0 the candidates are a, ab(5), ab(10): shortest first, equal bytes by id */
    CHECK(o.nsteps == 2 && o.steps[0].ncand == 3 && o.steps[0].cand_first == 0);
    CHECK(o.ncands == 6 && o.cands[0] == 1 && o.cands[1] == 5 && o.cands[2] == 10);
    CHECK(o.steps[0].chosen == 5 && o.steps[0].chosen_len == 2 && o.steps[1].pos == 2);
    tc_greedy_out_free(&o);
    tc_greedy_free(g);

    /* the Qwen3 case: the marker of 0x19 (id 213) and the letter "ę"
     * (id 5156) are both C4 99; text "ę" becomes id 213 */
    const char *q[] = {"\xC4\x99", "\xC4\x99", "\xC4", "\x99"};
    uint32_t qi[] = {5156, 213, 196, 153};
    g = build_small(q, qi, NULL, 4);
    CHECK(g != NULL);
    if (!g) return;
    CHECK(tc_greedy_encode(g, (const uint8_t *)"\xC4\x99\x19", 3, 0, &o, &err) == TC_OK);
    CHECK(o.n == 2 && o.toks[0].id == 213 && o.toks[0].start == 0 && o.toks[0].end == 2);
    CHECK(o.toks[1].id == 213 && o.toks[1].start == 2 && o.toks[1].end == 3);
    tc_greedy_out_free(&o);
    tc_greedy_free(g);
}

static void test_specials_first(void) {
    const char *strs[] = {"<s>", "<s>x", "<", "s", ">", "x", "<s"};
    uint32_t ids[] = {100, 7, 1, 2, 3, 4, 9};
    uint8_t spec[] = {1, 0, 0, 0, 0, 0, 0};
    tc_greedy *g = build_small(strs, ids, spec, 7);
    CHECK(g != NULL);
    if (!g) return;
    tc_greedy_out o = {0};
    tc_error err = {0};
    CHECK(tc_greedy_encode(g, (const uint8_t *)"<s>x<sx", 7, 1, &o, &err) == TC_OK);
    CHECK(o.n == 4);
    CHECK(o.toks[0].id == 100 && o.toks[0].special == 1 && o.toks[0].end == 3);
    CHECK(o.toks[1].id == 4 && o.toks[1].special == 0);
    CHECK(o.toks[2].id == 9 && o.toks[3].id == 4);
    /* candidates at 0: <, <s, <s>, <s>x */
    CHECK(o.steps[0].ncand == 4 && o.cands[0] == 1 && o.cands[1] == 9 && o.cands[2] == 100 && o.cands[3] == 7);
    tc_greedy_out_free(&o);
    tc_greedy_free(g);
}

static void test_dropped(void) {
    const char *strs[] = {"a", "b", "\xC4\xA0"};
    uint32_t ids[] = {0, 1, 2};
    tc_greedy *g = build_small(strs, ids, NULL, 3);
    CHECK(g != NULL);
    if (!g) return;
    tc_greedy_out o = {0};
    tc_error err = {0};
    /* 'z' has no entry; '\n' (C4 8A) has none either: dropped as one unit */
    CHECK(tc_greedy_encode(g, (const uint8_t *)"az\nb a", 6, 1, &o, &err) == TC_OK);
    CHECK(o.dropped == 2);
    CHECK(o.n == 4 && o.toks[0].id == 0 && o.toks[1].id == 1 && o.toks[1].start == 3 && o.toks[1].end == 4);
    CHECK(o.toks[2].id == 2 && o.toks[2].start == 4 && o.toks[2].end == 5 && o.toks[3].start == 5);
    CHECK(o.nsteps == 6 && o.steps[1].chosen == TC_GREEDY_NO_ID && o.steps[1].ncand == 0 && o.steps[1].pos == 1);
    CHECK(o.steps[2].chosen == TC_GREEDY_NO_ID && o.steps[2].chosen_len == 2 && o.steps[2].pos == 2);
    /* reuse of the same out: counts reset */
    CHECK(tc_greedy_encode(g, (const uint8_t *)"", 0, 1, &o, &err) == TC_OK);
    CHECK(o.n == 0 && o.nsteps == 0 && o.ncands == 0 && o.dropped == 0);
    tc_greedy_out_free(&o);
    tc_greedy_free(g);

    /* an empty index drops everything */
    tc_error e2 = {0};
    g = tc_greedy_build(0, NULL, NULL, NULL, NULL, &e2);
    CHECK(g != NULL);
    if (g) {
        CHECK(tc_greedy_encode(g, (const uint8_t *)"a\n", 2, 0, &o, &err) == TC_OK);
        CHECK(o.n == 0 && o.dropped == 2);
        tc_greedy_out_free(&o);
        tc_greedy_free(g);
    }
}

static void test_marker_split(void) {
    /* "x" + raw C4 is an entry: in "x\n" (stored 78 C4 8A) it ends inside
     * the newline's marker; the next token starts on the marker's second
     * byte, and both cover the newline (offset 1) */
    const char *strs[] = {"x\xC4", "\x8A", "x", "\xC4\x8A" "y"};
    uint32_t ids[] = {1, 2, 3, 4};
    tc_greedy *g = build_small(strs, ids, NULL, 4);
    CHECK(g != NULL);
    if (!g) return;
    tc_greedy_out o = {0};
    tc_error err = {0};
    CHECK(tc_greedy_encode(g, (const uint8_t *)"x\n", 2, 1, &o, &err) == TC_OK);
    CHECK(o.n == 2 && o.toks[0].id == 1 && o.toks[0].start == 0 && o.toks[0].end == 2);
    CHECK(o.toks[1].id == 2 && o.toks[1].start == 1 && o.toks[1].end == 2);
    CHECK(o.nsteps == 2 && o.steps[1].pos == 1 && o.steps[1].chosen_len == 1);
    /* a marker at the start of a longer entry */
    CHECK(tc_greedy_encode(g, (const uint8_t *)"\ny", 2, 0, &o, &err) == TC_OK);
    CHECK(o.n == 1 && o.toks[0].id == 4 && o.toks[0].start == 0 && o.toks[0].end == 2);
    tc_greedy_out_free(&o);
    tc_greedy_free(g);
}

static void test_build_errors(void) {
    const uint8_t *bytes[] = {(const uint8_t *)"a", (const uint8_t *)""};
    uint32_t lens[] = {1, 0}, ids[] = {0, 77};
    tc_error err = {0};
    CHECK(tc_greedy_build(2, ids, bytes, lens, NULL, &err) == NULL);
    CHECK(strstr(err.msg, "entry 1 (id 77)") != NULL);
    CHECK(tc_greedy_build(1, NULL, bytes, lens, NULL, &err) == NULL);
    tc_greedy_free(NULL);
    tc_greedy_out_free(NULL);
}

/* A node with more than 8 children (binary search path) and one with 256. */
static void test_wide_nodes(void) {
    vocab v;
    vocab_init(&v, 600, 4096);
    uint32_t id = 0;
    for (int b = 0; b < 256; b++) { uint8_t s[2] = {'q', (uint8_t)b}; vocab_add(&v, id++, s, 2, 0); }
    for (int b = 0; b < 256; b += 7) { uint8_t s[1] = {(uint8_t)b}; vocab_add(&v, id++, s, 1, 0); }
    vocab_seal(&v);
    tc_error err = {0};
    tc_greedy *g = tc_greedy_build(v.n, v.ids, v.bytes, v.lens, v.special, &err);
    CHECK(g != NULL);
    if (g) {
        static ref_out r;
        uint8_t t[512];
        for (int b = 0; b < 256; b++) { t[2 * b] = 'q'; t[2 * b + 1] = (uint8_t)(255 - b); }
        CHECK(same_as_reference(g, &v, t, 512, &r));
        tc_greedy_free(g);
    }
    vocab_free(&v);
}

/* ---- a real vocab.bin ---------------------------------------------------- */

static double now_ms(void) {
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void test_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) { fprintf(stderr, "cannot open %s\n", path); g_fail++; return; }
    static uint8_t buf[1 << 23];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    if (n < 4) { g_fail++; return; }
    uint32_t N = (uint32_t)buf[0] | ((uint32_t)buf[1] << 8) | ((uint32_t)buf[2] << 16) | ((uint32_t)buf[3] << 24);
    uint32_t *ids = xmalloc(N * sizeof *ids), *lens = xmalloc(N * sizeof *lens);
    const uint8_t **bytes = xmalloc(N * sizeof *bytes);
    uint8_t *spec = xmalloc(N);
    size_t off = 4, k = 0;
    while (k < N && off + 6 <= n) {
        ids[k] = (uint32_t)buf[off] | ((uint32_t)buf[off + 1] << 8) | ((uint32_t)buf[off + 2] << 16) | ((uint32_t)buf[off + 3] << 24);
        lens[k] = (uint32_t)(buf[off + 4] | (buf[off + 5] << 8));
        if (off + 6 + lens[k] > n) break;
        bytes[k] = buf + off + 6;
        spec[k] = ids[k] + 26 >= N;
        off += 6 + lens[k];
        k++;
    }
    CHECK(k == N);
    tc_error err = {0};
    double t0 = now_ms();
    tc_greedy *g = tc_greedy_build(k, ids, bytes, lens, spec, &err);
    double t1 = now_ms();
    CHECK(g != NULL);
    if (g) {
        printf("%s: %zu entries, index %zu nodes, longest %u, build %.2f ms\n", path, k, tc_greedy_node_count(g),
               tc_greedy_max_len(g), t1 - t0);
        size_t tl = 1 << 20;
        uint8_t *text = xmalloc(tl);
        const char *chunk = "The quick brown fox, 你好世界! Zażółć gęślą jaźń.\n\tdef f(x):\n    return x  # ok\n<|im_end|>";
        size_t cl = strlen(chunk);
        for (size_t i = 0; i < tl; i++) text[i] = (uint8_t)chunk[i % cl];
        tc_greedy_out o = {0};
        t0 = now_ms();
        CHECK(tc_greedy_encode(g, text, tl, 0, &o, &err) == TC_OK);
        t1 = now_ms();
        printf("encode 1 MiB: %.2f ms, %zu tokens, %zu dropped\n", t1 - t0, o.n, o.dropped);
        tc_greedy_out_free(&o);
        free(text);
        tc_greedy_free(g);
    }
    free(ids); free(lens); free(bytes); free(spec);
}

int main(int argc, char **argv) {
    test_equal_bytes();
    test_specials_first();
    test_dropped();
    test_marker_split();
    test_build_errors();
    test_wide_nodes();
    test_random();
    if (argc > 1) test_file(argv[1]);
    printf("%d passed, %d failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
