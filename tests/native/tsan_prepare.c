/* tsan_prepare.c - the lazy encoder preparation (tc_prepare) from several
 * threads at once, for ThreadSanitizer (tests/test_tsan.py builds it with
 * -fsanitize=thread and fails on any report).
 *
 * Each round takes FRESH handles from the small tokenizers of the fuzz
 * harnesses (tiny_tokenizers.h: a Qwen-style tokenizer.json, and the
 * vocab.bin compiled from it, whose bpe merges are recovered and greedy trie
 * built on first use, and the tokenizer.json again with its tables read
 * from the load cache),
 * then THREADS pthreads released together each run tc_prepare +
 * tc_encode_ex for every encoder, in an order of their own, and compare the
 * ids with a single-threaded reference. Exit 0 when all agree, 1 otherwise
 * (TSan reports go to stderr and set their own exit code).
 *
 * The same threads share the handle's chunk cache (chunk_cache.c): first
 * inserts race, later reads find entries another thread published. Each
 * text is also encoded ids-only (TC_ENCODE_IDS_ONLY), and each thread then
 * runs tc_encode_batch with BATCH_THREADS native threads of its own over
 * the same handle (platform.c's threads), full and ids-only: all must give
 * the reference ids, and cuts one long text of them into pieces for those
 * threads (batch_cut.c), which must join to its own encode. Half the threads start by looking every token up by
 * its string (tc_token_to_id), the others do it after encoding: on a
 * fresh vocab.bin handle the first lookup builds the string index
 * (vocab.c), so the threads race to build it while others encode.
 * Does not: test the encoders themselves (the fuzz harnesses and the parity
 * tests do).
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tokcore.h"
#include "common.h"
#include "vocabbin.h"
#include "load_cache.h"
#include "tiny_tokenizers.h"

#define THREADS 4
#define ROUNDS 6
#define NENC 5
#define BATCH_THREADS 3
#define BATCH_COPIES 4         /* the batch: every text this many times */

static const char *const TEXTS[] = {
    "Hello, world! naïve café 12345",
    "def f(x):\n    return x  # comment\n",
    "人人生而自由 <|endoftext|> tabs\tand  spaces",
    /* words repeated within and across texts: the threads meet in the handle's shared chunk cache,
     * inserting and reading the same chunks at once, under each encoder's own key */
    "the cat and the hat and the bat, the cat and the hat and the bat; Hello world world world",
    "world Hello cat hat bat the and the and 12345 12345 naïve naïve café",
};
#define NTEXTS (sizeof TEXTS / sizeof *TEXTS)

typedef struct ref {           /* ids of each (encoder, text), single-threaded */
    uint32_t *ids[NENC][NTEXTS];
    size_t n[NENC][NTEXTS];
    int ok[NENC];              /* the encoder prepares on this handle */
    int64_t *by_str;           /* tc_token_to_id of each id's token string (-1: no token) */
    uint32_t nvocab;
} ref;

typedef struct job {
    tc_tokenizer *tok;
    const ref *want;
    pthread_barrier_t *start;
    int first;                 /* the encoder this thread starts with */
    int wrong;
} job;

static int encode_ids(const tc_tokenizer *tok, int enc, const char *text, tc_encoding *out) {
    tc_error err = {0};
    return tc_encode_ex(tok, (const uint8_t *)text, strlen(text), 1, (tc_encoder)enc, out, NULL, &err);
}

static int same(const tc_encoding *e, const ref *want, int enc, size_t t) {
    return e->n == want->n[enc][t] && memcmp(e->ids, want->ids[enc][t], e->n * sizeof *e->ids) == 0;
}

/* tc_encode_batch of every text BATCH_COPIES times on BATCH_THREADS threads; wrong results counted. */
static int batch_wrong(const tc_tokenizer *tok, int enc, unsigned flags, const ref *want) {
    enum { N = NTEXTS * BATCH_COPIES };
    const uint8_t *texts[N];
    size_t lens[N];
    tc_encoding outs[N];
    memset(outs, 0, sizeof outs);
    for (size_t i = 0; i < N; i++) {
        texts[i] = (const uint8_t *)TEXTS[i % NTEXTS];
        lens[i] = strlen(TEXTS[i % NTEXTS]);
    }
    tc_error err = {0};
    int wrong = 0;
    if (tc_encode_batch(tok, texts, lens, N, 1, (tc_encoder)enc, flags, BATCH_THREADS, outs, NULL, &err) != TC_OK)
        wrong = N;
    for (size_t i = 0; i < N; i++) {
        if (!wrong && !same(&outs[i], want, enc, i % NTEXTS)) wrong++;
        tc_encoding_free(&outs[i]);
    }
    return wrong;
}

/* One long text (every text, joined by lines that start with letters and 人: anchors) cut into
 * pieces for BATCH_THREADS threads (tc_cut_plan, tc_encode_batch_cut): the pieces and their tails
 * share the handle's cache and are joined; the result must be the text's own encode. */
static int cut_wrong(const tc_tokenizer *tok, int enc, unsigned flags) {
    enum { LINES = 40 };
    size_t cap = 0;
    for (size_t i = 0; i < NTEXTS; i++) cap += strlen(TEXTS[i]) + 8;
    char *text = malloc(cap * LINES);
    if (!text) return 1;
    size_t len = 0;
    for (size_t k = 0; k < LINES * NTEXTS; k++) {
        const char *t = TEXTS[k % NTEXTS];
        memcpy(text + len, t, strlen(t));
        len += strlen(t);
        memcpy(text + len, k % 3 ? "\nThe " : "\n\xE4\xBA\xBA", k % 3 ? 5 : 4);
        len += k % 3 ? 5 : 4;
    }
    const uint8_t *texts[1] = {(const uint8_t *)text};
    size_t lens[1] = {len};
    tc_cut_piece *ps = NULL;
    size_t np = 0;
    tc_encoding out, want;
    memset(&out, 0, sizeof out);
    memset(&want, 0, sizeof want);
    tc_error err = {0};
    int wrong = tc_cut_plan(texts, lens, NULL, 1, BATCH_THREADS, 16, 4, &ps, &np) != 0 || np < 4;
    if (!wrong && (tc_encode_batch_cut(tok, texts, lens, 1, ps, np, 0, (tc_encoder)enc, flags, BATCH_THREADS, &out,
                                       NULL, 0, NULL, &err) != TC_OK ||
                   tc_encode_flags(tok, texts[0], len, 0, (tc_encoder)enc, flags, &want, NULL, &err) != TC_OK ||
                   out.n != want.n || memcmp(out.ids, want.ids, out.n * sizeof *out.ids) != 0))
        wrong = 1;
    tc_encoding_free(&out);
    tc_encoding_free(&want);
    free(ps);
    free(text);
    return wrong;
}

/* Every token looked up by its string; wrong answers counted. */
static int lookups_wrong(const tc_tokenizer *tok, const ref *want) {
    int wrong = 0;
    for (uint32_t id = 0; id < want->nvocab; id++) {
        size_t len;
        const char *s = tc_id_to_token(tok, id, &len);
        if ((s ? tc_token_to_id(tok, s, len) : -1) != want->by_str[id]) wrong++;
    }
    return wrong;
}

static void *worker(void *arg) {
    job *j = arg;
    tc_encoding e, ids;
    memset(&e, 0, sizeof e);
    memset(&ids, 0, sizeof ids);
    pthread_barrier_wait(j->start);
    if (j->first % 2 == 0) j->wrong += lookups_wrong(j->tok, j->want);
    for (int step = 0; step < NENC; step++) {
        int enc = (j->first + step) % NENC;
        tc_error err = {0};
        int ok = tc_prepare(j->tok, (tc_encoder)enc, &err) == TC_OK;
        if (ok != j->want->ok[enc]) { j->wrong++; continue; }
        if (!ok) continue;
        for (size_t t = 0; t < NTEXTS; t++) {
            if (encode_ids(j->tok, enc, TEXTS[t], &e) != TC_OK || !same(&e, j->want, enc, t)) j->wrong++;
            if (tc_encode_flags(j->tok, (const uint8_t *)TEXTS[t], strlen(TEXTS[t]), 1, (tc_encoder)enc,
                                TC_ENCODE_IDS_ONLY, &ids, NULL, &err) != TC_OK || !same(&ids, j->want, enc, t))
                j->wrong++;
        }
        j->wrong += batch_wrong(j->tok, enc, 0, j->want);
        j->wrong += batch_wrong(j->tok, enc, TC_ENCODE_IDS_ONLY, j->want);
        j->wrong += cut_wrong(j->tok, enc, 0);
        j->wrong += cut_wrong(j->tok, enc, TC_ENCODE_IDS_ONLY);
    }
    if (j->first % 2 == 1) j->wrong += lookups_wrong(j->tok, j->want);
    tc_encoding_free(&e);
    tc_encoding_free(&ids);
    return NULL;
}

static int reference(tc_tokenizer *tok, ref *r) {
    memset(r, 0, sizeof *r);
    tc_encoding e;
    memset(&e, 0, sizeof e);
    r->nvocab = tc_vocab_size(tok);
    r->by_str = malloc((r->nvocab ? r->nvocab : 1) * sizeof *r->by_str);
    if (!r->by_str) return -1;
    for (uint32_t id = 0; id < r->nvocab; id++) {
        size_t len;
        const char *s = tc_id_to_token(tok, id, &len);
        r->by_str[id] = s ? tc_token_to_id(tok, s, len) : -1;
    }
    for (int enc = 0; enc < NENC; enc++) {
        tc_error err = {0};
        r->ok[enc] = tc_prepare(tok, (tc_encoder)enc, &err) == TC_OK;
        for (size_t t = 0; r->ok[enc] && t < NTEXTS; t++) {
            if (encode_ids(tok, enc, TEXTS[t], &e) != TC_OK) return -1;
            r->n[enc][t] = e.n;
            r->ids[enc][t] = malloc((e.n ? e.n : 1) * sizeof *e.ids);
            if (!r->ids[enc][t]) return -1;
            memcpy(r->ids[enc][t], e.ids, e.n * sizeof *e.ids);
        }
    }
    tc_encoding_free(&e);
    return 0;
}

static void ref_free(ref *r) {
    free(r->by_str);
    for (int enc = 0; enc < NENC; enc++)
        for (size_t t = 0; t < NTEXTS; t++) free(r->ids[enc][t]);
}

typedef tc_tokenizer *(*loader)(const tc_buf *vbin, tc_error *err);

static tc_tokenizer *load_json(const tc_buf *vbin, tc_error *err) {
    (void)vbin;
    return tc_load_hf_json((const uint8_t *)TINY_QWEN_JSON, sizeof TINY_QWEN_JSON - 1, err);
}

static tc_tokenizer *load_vbin(const tc_buf *vbin, tc_error *err) {
    return tc_load_vocabbin(vbin->data, vbin->len, TC_PRESET_QWEN2, err);
}

/* tokenizer.json with its tables from the load cache (load_cache.c): blob
 * is the cache the first load wrote, for a made-up key. */
static const uint8_t CACHE_KEY[32] = "tsan_prepare load cache key....";

static tc_tokenizer *load_cached(const tc_buf *blob, tc_error *err) {
    tc_hf_cache c;
    const char *why = NULL;
    if (tc_cache_read_hf(blob->data, blob->len, CACHE_KEY, sizeof TINY_QWEN_JSON - 1, &c, &why) != 0) {
        tc_error_set(err, TC_ERR_FORMAT, "the load cache is refused: %s", why);
        return NULL;
    }
    tc_tokenizer *tok = tc_load_hf_json_with_cache((const uint8_t *)TINY_QWEN_JSON, sizeof TINY_QWEN_JSON - 1, &c, err);
    tc_hf_cache_free(&c);
    return tok;
}

/* Returns the number of wrong results over all rounds, -1 on a setup failure. */
static int run(const char *name, loader load, const tc_buf *vbin) {
    tc_error err = {0};
    tc_tokenizer *tok = load(vbin, &err);
    if (!tok) { fprintf(stderr, "%s: %s\n", name, err.msg); return -1; }
    ref want;
    int rc = reference(tok, &want);
    tc_free(tok);
    if (rc != 0) { fprintf(stderr, "%s: reference failed\n", name); ref_free(&want); return -1; }
    int wrong = 0;
    for (int round = 0; round < ROUNDS; round++) {
        tok = load(vbin, &err);
        if (!tok) { fprintf(stderr, "%s: %s\n", name, err.msg); wrong = -1; break; }
        pthread_barrier_t start;
        pthread_barrier_init(&start, NULL, THREADS);
        pthread_t th[THREADS];
        job jobs[THREADS];
        for (int k = 0; k < THREADS; k++) {
            jobs[k] = (job){tok, &want, &start, (k + round) % NENC, 0};
            if (pthread_create(&th[k], NULL, worker, &jobs[k]) != 0) { fprintf(stderr, "pthread_create\n"); exit(2); }
        }
        for (int k = 0; k < THREADS; k++) {
            pthread_join(th[k], NULL);
            wrong += jobs[k].wrong;
        }
        pthread_barrier_destroy(&start);
        tc_free(tok);
    }
    ref_free(&want);
    printf("%s: %d wrong\n", name, wrong);
    return wrong;
}

int main(void) {
    tc_error err = {0};
    tc_tokenizer *src = load_json(NULL, &err);
    tc_buf vbin = {0};
    if (!src || tc_vbin_compile(src, &vbin, NULL, &err) != TC_OK) { fprintf(stderr, "setup: %s\n", err.msg); return 2; }
    tc_free(src);
    int a = run("tokenizer.json", load_json, &vbin);
    int b = run("vocab.bin", load_vbin, &vbin);
    tc_buf_free(&vbin);
    tc_buf blob = {0};
    int hit = 1;
    src = tc_load_hf_json_cached((const uint8_t *)TINY_QWEN_JSON, sizeof TINY_QWEN_JSON - 1, CACHE_KEY, NULL, &hit,
                                 &blob, &err);
    if (!src || hit || !blob.len) { fprintf(stderr, "setup: no load cache written: %s\n", err.msg); return 2; }
    tc_free(src);
    int c = run("tokenizer.json (load cache)", load_cached, &blob);
    tc_buf_free(&blob);
    return a == 0 && b == 0 && c == 0 ? 0 : 1;
}
