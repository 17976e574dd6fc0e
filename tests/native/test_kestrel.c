/* test_kestrel.c - unit tests for native/src/kestrel.c: the emulation over
 * the trie index against a straightforward reference that follows the
 * engine's structure literally (a linear scan over every entry in id order
 * for each lookup, the "Ġ" retry through a 511-byte buffer, the special
 * limit found by scanning for '<' from the next byte on), on seeded random
 * vocabularies and texts full of spaces, newlines, tabs, NULs, '<' and
 * special strings; and the documented corner cases.
 *
 * Build (from the repository root):
 *   gcc -std=c11 -Wall -Wextra -Werror -O2 -Inative/src tests/native/test_kestrel.c \
 *       native/src/kestrel.c native/src/greedy.c native/src/common.c -o /tmp/test_kestrel
 * Prints "N passed, M failed"; exit status nonzero on any failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kestrel.h"
#include "unit_check.h"


/* ---- a vocabulary: entry i has id i (the engine indexes strings by id) -- */

#define MAXV 600

typedef struct vocab {
    size_t n;
    uint8_t *s[MAXV];
    uint32_t len[MAXV];
} vocab;

static void add(vocab *v, const char *s, size_t n) {
    if (v->n >= MAXV) return;
    v->s[v->n] = xmalloc(n);
    memcpy(v->s[v->n], s, n);
    v->len[v->n] = (uint32_t)n;
    v->n++;
}

static void vocab_free(vocab *v) {
    for (size_t i = 0; i < v->n; i++) free(v->s[i]);
    v->n = 0;
}

static tc_greedy *index_of(const vocab *v) {
    uint32_t ids[MAXV];
    const uint8_t *ptrs[MAXV];
    for (size_t i = 0; i < v->n; i++) { ids[i] = (uint32_t)i; ptrs[i] = v->s[i]; }
    tc_error err = {0};
    tc_greedy *g = tc_greedy_build(v->n, ids, ptrs, v->len, NULL, &err);
    if (!g) { fprintf(stderr, "build: %s\n", err.msg); exit(2); }
    return g;
}

/* ---- the reference ------------------------------------------------------- */

static int ref_longest(const vocab *v, const uint8_t *t, int tlen, int max, int *mlen) {
    int best = -1, bl = 0;
    if (max > tlen) max = tlen;
    for (size_t i = 0; i < v->n; i++) {
        int l = (int)v->len[i];
        if (l == 0 || l > max) continue;
        if (memcmp(v->s[i], t, (size_t)l) == 0 && l > bl) { best = (int)i; bl = l; }
    }
    *mlen = bl;
    return best;
}

static int ref_exact(const vocab *v, const char *s, int n) {
    for (size_t i = 0; i < v->n; i++)
        if ((int)v->len[i] == n && memcmp(v->s[i], s, (size_t)n) == 0) return (int)i;
    return -1;
}

static int ref_limit(const uint8_t *rem, int rem_len) {
    for (int k = 1; k < rem_len; k++) {
        if (rem[k] != '<') continue;
        for (size_t i = 0; i < TC_KESTREL_NSPECIAL; i++) {
            size_t l;
            const char *sp = tc_kestrel_special(i, &l);
            if ((int)l <= rem_len - k && memcmp(rem + k, sp, l) == 0) return k;
        }
    }
    return rem_len;
}

static int ref_encode(const vocab *v, int version, const uint8_t *text, size_t len, uint32_t *ids) {
    int n = 0;
    while ((size_t)n < len && text[n]) n++;   /* strlen */
    int pos = 0, num = 0;
    while (pos < n) {
        int had = 0;
        while (pos < n && text[pos] == ' ') { pos++; had = 1; }
        if (pos >= n) break;
        const uint8_t *rem = text + pos;
        int rem_len = n - pos, ml = 0, id, lim = rem_len;
        if (version == 2) {
            int hit = -1, hl = 0;
            for (size_t i = 0; i < TC_KESTREL_NSPECIAL; i++) {
                size_t l;
                const char *sp = tc_kestrel_special(i, &l);
                if ((int)l > rem_len || (int)l <= hl) continue;
                if (memcmp(rem, sp, l) == 0) { hit = (int)i; hl = (int)l; }
            }
            if (hit >= 0) {
                size_t l;
                const char *sp = tc_kestrel_special((size_t)hit, &l);
                int sid = ref_exact(v, sp, (int)l);
                if (sid >= 0) { ids[num++] = (uint32_t)sid; pos += hl; continue; }
            }
            lim = ref_limit(rem, rem_len);
        }
        if (had && num > 0) {
            uint8_t buf[512];
            int bl = rem_len + 2;
            if (bl > 511) bl = 511;
            buf[0] = 0xC4; buf[1] = 0xA0;
            memcpy(buf + 2, rem, (size_t)(bl - 2));
            id = ref_longest(v, buf, bl, bl, &ml);
            if (id >= 0 && ml > 2 && (version == 1 || ml - 2 <= lim)) { ids[num++] = (uint32_t)id; pos += ml - 2; continue; }
        }
        id = ref_longest(v, rem, rem_len, lim, &ml);
        if (id >= 0) { ids[num++] = (uint32_t)id; pos += ml; continue; }
        if (rem[0] == '\n') {
            if (version == 1) {
                id = ref_longest(v, (const uint8_t *)"\xC4\x8A", 2, 2, &ml);
                if (id >= 0 && ml == 2) { ids[num++] = (uint32_t)id; pos++; continue; }
            } else {
                int nl = 0;
                while (nl < rem_len && rem[nl] == '\n') nl++;
                if (nl > 8) nl = 8;
                if (nl > lim) nl = lim;
                uint8_t nb[16];
                for (int i = 0; i < nl; i++) { nb[2 * i] = 0xC4; nb[2 * i + 1] = 0x8A; }
                id = ref_longest(v, nb, 2 * nl, 2 * nl, &ml);
                if (id >= 0 && ml >= 2 && ml % 2 == 0) { ids[num++] = (uint32_t)id; pos += ml / 2; continue; }
            }
        }
        id = ref_longest(v, rem, 1, 1, &ml);
        ids[num++] = id >= 0 ? (uint32_t)id : 0;
        pos++;
    }
    return num;
}

/* ---- helpers ------------------------------------------------------------ */

static int enc(const tc_greedy *g, int version, const char *text, size_t len, tc_kestrel_out *o) {
    tc_error err = {0};
    return tc_kestrel_encode(g, version, (const uint8_t *)text, len, 1, o, &err);
}

/* ids of o equal the list (terminated by -1) */
static int ids_are(const tc_kestrel_out *o, const int *want) {
    size_t i = 0;
    for (; want[i] >= 0; i++)
        if (i >= o->n || o->toks[i].id != (uint32_t)want[i]) return 0;
    return i == o->n;
}

/* ---- cases ---------------------------------------------------------------- */

/* A small Qwen-like vocabulary: byte entries, Ġ-words, Ċ runs, specials. */
static void small_vocab(vocab *v) {
    add(v, "!", 1);                    /* 0: what id 0 is in Qwen */
    add(v, "a", 1);                    /* 1 */
    add(v, "b", 1);                    /* 2 */
    add(v, "\xC4\xA0", 2);             /* 3: Ġ */
    add(v, "\xC4\xA0" "b", 3);         /* 4: Ġb */
    add(v, "\xC4\x8A", 2);             /* 5: Ċ */
    add(v, "\xC4\x8A\xC4\x8A", 4);     /* 6: ĊĊ */
    add(v, ".", 1);                    /* 7 */
    add(v, ".<", 2);                   /* 8 */
    add(v, "<", 1);                    /* 9 */
    add(v, "<|im_end|>", 10);          /* 10 */
    add(v, "1", 1);                    /* 11 */
    add(v, "\xC4\x99", 2);             /* 12: ę as the marker of 0x19 */
    add(v, "\xC4\x99", 2);             /* 13: ę, the letter (equal bytes) */
    add(v, "ab", 2);                   /* 14 */
    add(v, "\xC4\xA0" "<", 3);         /* 15: Ġ< */
    add(v, "<think>", 7);              /* 16 */
    add(v, "\t", 1);                   /* 17: a raw tab entry (not in Qwen; here to test rule 8) */
    add(v, "\xC4\xA0" "a<", 4);         /* 18: Ġa< */
}

static void test_cases(void) {
    vocab v = {0};
    small_vocab(&v);
    tc_greedy *g = index_of(&v);
    tc_kestrel_out o = {0};

    /* spaces: skipped; re-added as Ġ only for a Ġ entry longer than Ġ and not first */
    CHECK(enc(g, 1, "a   b", 5, &o) == TC_OK && ids_are(&o, (int[]){1, 4, -1}));
    CHECK(o.steps[1].spaces == 3 && o.steps[1].rule == TC_KR_SPACE_RETRY && o.toks[1].start == 3);
    CHECK(enc(g, 1, "a 1", 3, &o) == TC_OK && ids_are(&o, (int[]){1, 11, -1}));   /* no Ġ1: the space is lost */
    CHECK(o.steps[1].retry == TC_KRR_ONLY_SPACE);
    CHECK(enc(g, 1, " b", 2, &o) == TC_OK && ids_are(&o, (int[]){2, -1}));        /* first token: no retry */
    CHECK(o.steps[0].retry == TC_KRR_NONE && o.steps[0].spaces == 1);
    CHECK(enc(g, 1, "a  ", 3, &o) == TC_OK && ids_are(&o, (int[]){1, -1}));       /* trailing spaces dropped */
    CHECK(o.nsteps == 2 && o.steps[1].rule == TC_KR_TRAILING && o.steps[1].spaces == 2);
    /* raw bytes: a CR finds nothing -> 0; the tab entry exists -> rule 8 takes it */
    CHECK(enc(g, 1, "a\rb", 3, &o) == TC_OK && ids_are(&o, (int[]){1, 0, 2, -1}) && o.steps[1].rule == TC_KR_UNK);
    CHECK(enc(g, 1, "a\tb", 3, &o) == TC_OK && ids_are(&o, (int[]){1, 17, 2, -1}));
    /* NUL ends the text */
    CHECK(enc(g, 2, "ab\0ab", 5, &o) == TC_OK && ids_are(&o, (int[]){14, -1}) && o.steps[o.nsteps - 1].rule == TC_KR_NUL);
    /* newlines: v1 one Ċ each, v2 the longest run */
    CHECK(enc(g, 1, "a\n\n\nb", 5, &o) == TC_OK && ids_are(&o, (int[]){1, 5, 5, 5, 2, -1}));
    CHECK(enc(g, 2, "a\n\n\nb", 5, &o) == TC_OK && ids_are(&o, (int[]){1, 6, 5, 2, -1}) && o.steps[1].rule == TC_KR_NEWLINE);
    /* specials: v1 runs ".<" into <|im_end|>; v2 stops before it and matches it first */
    CHECK(enc(g, 1, "a.<|im_end|>", 12, &o) == TC_OK && o.n >= 2 && o.toks[1].id == 8);
    CHECK(enc(g, 2, "a.<|im_end|>", 12, &o) == TC_OK && ids_are(&o, (int[]){1, 7, 10, -1}));
    CHECK(o.steps[1].limit == 1 && o.steps[1].unguarded == 2 && o.steps[2].rule == TC_KR_SPECIAL);
    /* v2: a space before a special is lost (special first, no retry); v1 takes Ġ< */
    CHECK(enc(g, 2, "a <|im_end|>", 12, &o) == TC_OK && ids_are(&o, (int[]){1, 10, -1}));
    CHECK(enc(g, 1, "a <|im_end|>", 12, &o) == TC_OK && o.toks[1].id == 15);
    /* v2 guard refuses a Ġ match that runs into the special: the space is lost */
    CHECK(enc(g, 2, "a a<think>", 10, &o) == TC_OK && ids_are(&o, (int[]){1, 1, 16, -1}));
    CHECK(o.steps[1].retry == TC_KRR_GUARDED && o.steps[1].retry_id == 18 && o.steps[1].limit == 1);
    CHECK(enc(g, 1, "a a<think>", 10, &o) == TC_OK && o.n >= 2 && o.toks[1].id == 18);
    /* within the limit the retry is taken */
    CHECK(enc(g, 2, "a <<think>", 10, &o) == TC_OK && ids_are(&o, (int[]){1, 15, 16, -1}));
    /* equal stored bytes: the lower id */
    CHECK(enc(g, 1, "\xC4\x99", 2, &o) == TC_OK && ids_are(&o, (int[]){12, -1}));
    /* offsets: a retry token covers the space before it */
    CHECK(enc(g, 2, "a  b", 4, &o) == TC_OK && o.n == 2 && o.toks[1].start == 2 && o.toks[1].end == 4);
    /* empty and all-space texts */
    CHECK(enc(g, 2, "", 0, &o) == TC_OK && o.n == 0);
    CHECK(enc(g, 2, "   ", 3, &o) == TC_OK && o.n == 0);
    /* the retry buffer holds 509 text bytes after Ġ: an entry of Ġ + 509 a's fits, Ġ + 510 does not */
    {
        vocab w = {0};
        small_vocab(&w);
        char e[600], t[700];
        memcpy(e, "\xC4\xA0", 2);
        memset(e + 2, 'a', 510);
        add(&w, e, 512);   /* 19: Ġ + 510 a */
        add(&w, e, 511);   /* 20: Ġ + 509 a */
        tc_greedy *g2 = index_of(&w);
        t[0] = 'b'; t[1] = ' ';
        memset(t + 2, 'a', 600);
        CHECK(enc(g2, 2, t, 602, &o) == TC_OK && o.n >= 2 && o.toks[1].id == 20 && o.steps[1].consumed == 509);
        int nref;
        uint32_t ref[700];
        nref = ref_encode(&w, 2, (const uint8_t *)t, 602, ref);
        CHECK(nref >= 2 && ref[1] == 20);
        tc_greedy_free(g2);
        vocab_free(&w);
    }
    /* bad version */
    tc_error err = {0};
    CHECK(tc_kestrel_encode(g, 3, (const uint8_t *)"a", 1, 0, &o, &err) != TC_OK);

    tc_kestrel_out_free(&o);
    tc_greedy_free(g);
    vocab_free(&v);
}

/* ---- random vocabularies and texts against the reference ----------------- */

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(uint32_t n) {
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

static const char *const ALPHABET[] = {"a", "b", "c", " ", "\n", "\t", "\r", "<", ".", "|", "\xC4\xA0", "\xC4\x8A",
                                       "\xC4", "\x99", "\xE4\xBD\xA0", "<|im_end|>", "<think>", "</think>", "<|im_start|>",
                                       "<|endoftext|>", "\0"};
#define NALPHA (sizeof ALPHABET / sizeof *ALPHABET)

static size_t piece(char *dst, size_t i) {
    size_t l = i == NALPHA - 1 ? 1 : strlen(ALPHABET[i]);
    memcpy(dst, ALPHABET[i], l);
    return l;
}

static void test_random(void) {
    char buf[4096];
    uint32_t ref[4096];
    int mismatches = 0;
    for (int round = 0; round < 60; round++) {
        vocab v = {0};
        size_t nv = 20 + rnd(400);
        for (size_t i = 0; i < nv; i++) {
            size_t l = 0, parts = 1 + rnd(4);
            for (size_t k = 0; k < parts; k++) {
                size_t a = rnd(NALPHA - 1);   /* no NUL inside entries */
                if (i % 3 == 0 && k == 0) { memcpy(buf + l, "\xC4\xA0", 2); l += 2; continue; }
                l += piece(buf + l, a);
            }
            add(&v, buf, l);
        }
        tc_greedy *g = index_of(&v);
        tc_kestrel_out o = {0};
        for (int t = 0; t < 200; t++) {
            size_t len = 0, parts = rnd(60);
            for (size_t k = 0; k < parts; k++) {
                size_t a = rnd(NALPHA);
                if (a == NALPHA - 1 && rnd(4)) a = 3;   /* NULs rarer than spaces */
                len += piece(buf + len, a);
            }
            if (t == 0) {   /* one long text: past the 509-byte retry buffer */
                len = 0;
                buf[len++] = 'a';
                buf[len++] = ' ';
                while (len < 1200) len += piece(buf + len, rnd(3));
            }
            for (int version = 1; version <= 2; version++) {
                int nref = ref_encode(&v, version, (const uint8_t *)buf, len, ref);
                tc_error err = {0};
                int rc = tc_kestrel_encode(g, version, (const uint8_t *)buf, len, (t & 1), &o, &err);
                int same = rc == TC_OK && o.n == (size_t)nref;
                for (size_t i = 0; same && i < o.n; i++) same = o.toks[i].id == ref[i];
                for (size_t i = 0; same && i < o.n; i++) same = o.toks[i].start < o.toks[i].end && o.toks[i].end <= len;
                if (!same && mismatches++ < 5)
                    fprintf(stderr, "round %d text %d v%d: %zu ids, reference %d\n", round, t, version, o.n, nref);
                CHECK(same);
            }
        }
        tc_kestrel_out_free(&o);
        tc_greedy_free(g);
        vocab_free(&v);
    }
}

int main(void) {
    test_cases();
    test_random();
    printf("%d passed, %d failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
