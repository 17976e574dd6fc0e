/* batch.c - many texts in one call, on several threads over one handle.
 *
 * Does: tc_encode_batch: the texts of a batch go to workers that each take
 * the next index from one atomic counter and encode it into the caller's
 * outs[i] (tc_encode_flags, the same code as a single encode, so a batch's
 * ids and offsets are exactly each text's own). The threads come from
 * platform.c (pthreads / Win32); the calling thread is one of the workers.
 * Does not: split a text (a 10 MB text is one worker's job while the
 * others drain the rest; batch_cut.c cuts long texts at anchors and hands
 * their pieces to tc_batch_into), hold any lock (a handle is immutable after load;
 * its chunk cache and lazy indexes are lock-free), or prepare encoders (the
 * caller does, before sharing the handle).
 *
 * Why a counter and not fixed slices: slices of equal bytes still leave one
 * thread with a single long document while the other sits idle; taking one
 * text at a time costs one atomic add per text (tens of ns against
 * microseconds of encode), and keeps both cores busy to the last text.
 * Why longest first: in the counter's plain order a long text met last runs
 * alone at the end (the 10.28 MB multilingual corpus ends with a 3.2 MB
 * novel: two threads gave 1.25x one). Handing texts out by decreasing
 * length (the classic longest-processing-time rule) leaves at most one
 * short text's time of imbalance when no text outweighs the rest. Results
 * still land in outs[i] by the caller's index.
 */
#include "engine.h"
#include "platform.h"

typedef struct batch_shared {
    const tc_tokenizer *tok;
    const uint8_t *const *texts;
    const size_t *lens;
    size_t n;
    int add_special_tokens;
    tc_encoder encoder;
    unsigned flags;
    tc_encoding *outs;
    tc_encoding *const *dsts;    /* dsts[i]: where text i goes (NULL: outs + i; batch_cut.c's pieces) */
    const size_t *order;         /* order[k]: the k-th index to hand out (NULL: 0, 1, 2 ...) */
    atomic_size_t next;          /* the next position in `order` to take */
    atomic_size_t min_fail;      /* the lowest index that failed so far (SIZE_MAX: none) */
} batch_shared;

typedef struct batch_worker {
    batch_shared *sh;
    int failed;
    size_t fail_index;           /* the lowest index this worker failed on */
    tc_error err;                /* and its error */
} batch_worker;

/* Lowers sh->min_fail to i unless a lower failure is already recorded. */
static void note_failure(batch_shared *sh, size_t i) {
    size_t cur = atomic_load_explicit(&sh->min_fail, memory_order_relaxed);
    while (i < cur && !atomic_compare_exchange_weak_explicit(&sh->min_fail, &cur, i, memory_order_relaxed,
                                                             memory_order_relaxed)) {
    }
}

/* One worker: texts in `order` until none is left. After a failure at index f
 * the indices above f are skipped (their work is wasted: the batch fails) and
 * those below it are still encoded.
 * subtle: every index is either taken and encoded or skipped because a lower
 * index had already failed, so the lowest failure any worker records is the
 * batch's lowest, whatever order the texts are handed out in. */
static void batch_work(void *arg) {
    batch_worker *w = arg;
    batch_shared *sh = w->sh;
    for (;;) {
        size_t k = atomic_fetch_add_explicit(&sh->next, 1, memory_order_relaxed);
        if (k >= sh->n) return;
        size_t i = sh->order ? sh->order[k] : k;
        if (i > atomic_load_explicit(&sh->min_fail, memory_order_relaxed)) continue;
        const uint8_t *t = sh->texts[i] ? sh->texts[i] : (const uint8_t *)"";
        tc_error e = {0};
        int r = tc_encode_flags(sh->tok, t, sh->texts[i] ? sh->lens[i] : 0, sh->add_special_tokens, sh->encoder,
                                sh->flags, sh->dsts ? sh->dsts[i] : &sh->outs[i], NULL, &e);
        if (r != TC_OK) {
            if (!w->failed || i < w->fail_index) {
                w->failed = 1;
                w->fail_index = i;
                w->err = e;
                if (!w->err.code) w->err.code = r;
            }
            note_failure(sh, i);
        }
    }
}

typedef struct batch_len { size_t len, idx; } batch_len;

/* Decreasing length; equal lengths by increasing index (a fixed order). */
static int longest_first(const void *a, const void *b) {
    const batch_len *x = a, *y = b;
    if (x->len != y->len) return x->len > y->len ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The hand-out order for n texts, longest first; NULL (plain order) when
 * there is no memory for it: the order only balances threads. */
static size_t *hand_out_order(const size_t *lens, size_t n) {
    batch_len *bl = malloc(n * sizeof *bl);
    size_t *order = malloc(n * sizeof *order);
    if (!bl || !order) {
        free(bl);
        free(order);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) { bl[i].len = lens[i]; bl[i].idx = i; }
    qsort(bl, n, sizeof *bl, longest_first);
    for (size_t k = 0; k < n; k++) order[k] = bl[k].idx;
    free(bl);
    return order;
}

int tc_encode_batch(const tc_tokenizer *tok, const uint8_t *const *texts, const size_t *lens, size_t n,
                    int add_special_tokens, tc_encoder encoder, unsigned flags, unsigned threads,
                    tc_encoding *outs, size_t *failed, tc_error *err) {
    if (!tok || (n && (!texts || !lens || !outs))) return tc_error_set(err, TC_ERR_ARG, "encode_batch: null argument");
    return tc_batch_into(tok, texts, lens, n, add_special_tokens, encoder, flags, threads, outs, NULL, failed, err);
}

int tc_batch_into(const tc_tokenizer *tok, const uint8_t *const *texts, const size_t *lens, size_t n,
                  int add_special_tokens, tc_encoder encoder, unsigned flags, unsigned threads,
                  tc_encoding *outs, tc_encoding *const *dsts, size_t *failed, tc_error *err) {
    if (n == 0) return TC_OK;
    for (size_t i = 0; i < n; i++)
        if (!texts[i] && lens[i]) return tc_error_set(err, TC_ERR_ARG, "encode_batch: text %zu is NULL with %zu bytes", i, lens[i]);
    unsigned nt = threads ? threads : 1;
    if (nt > TC_MAX_THREADS) nt = TC_MAX_THREADS;
    if ((size_t)nt > n) nt = (unsigned)n;
    batch_shared sh;
    sh.tok = tok; sh.texts = texts; sh.lens = lens; sh.n = n;
    sh.add_special_tokens = add_special_tokens; sh.encoder = encoder; sh.flags = flags; sh.outs = outs;
    sh.dsts = dsts;
    sh.order = NULL;
    atomic_init(&sh.next, 0);
    atomic_init(&sh.min_fail, SIZE_MAX);
    batch_worker one;
    batch_worker *ws = nt > 1 ? calloc(nt, sizeof *ws) : &one;
    void **args = nt > 1 ? calloc(nt, sizeof *args) : NULL;
    if (nt > 1 && (!ws || !args)) {   /* no memory for the workers' records: the caller alone */
        free(ws);
        free(args);
        ws = &one; args = NULL; nt = 1;
    }
    memset(ws, 0, nt * sizeof *ws);
    for (unsigned k = 0; k < nt; k++) ws[k].sh = &sh;
    if (nt == 1) {
        batch_work(&ws[0]);
    } else {
        size_t *order = hand_out_order(lens, n);
        sh.order = order;
        for (unsigned k = 0; k < nt; k++) args[k] = &ws[k];
        (void)tc_run_threads(nt, batch_work, args);
        free(order);
    }
    const batch_worker *first = NULL;
    for (unsigned k = 0; k < nt; k++)
        if (ws[k].failed && (!first || ws[k].fail_index < first->fail_index)) first = &ws[k];
    int rc = TC_OK;
    if (first) {
        if (err) *err = first->err;
        if (failed) *failed = first->fail_index;
        rc = first->err.code ? first->err.code : TC_ERR_NOMEM;
    }
    if (ws != &one) free(ws);
    free(args);
    return rc;
}
