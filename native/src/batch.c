/* batch.c - many texts in one call, on several threads over one handle.
 *
 * Does: tc_encode_batch: the texts of a batch go to workers that each take
 * the next index from one atomic counter and encode it into the caller's
 * outs[i] (tc_encode_flags, the same code as a single encode, so a batch's
 * ids and offsets are exactly each text's own). The threads come from
 * platform.c (pthreads / Win32); the calling thread is one of the workers.
 * Does not: order or split texts (a 10 MB text is one worker's job while
 * the others drain the small ones), hold any lock (a handle is immutable
 * after load; its chunk cache and lazy indexes are lock-free), or prepare
 * encoders (the caller does, before sharing the handle).
 *
 * Why a counter and not fixed slices: slices of equal bytes still leave one
 * thread with a single long document while the other sits idle; taking one
 * text at a time costs one atomic add per text (tens of ns against
 * microseconds of encode), and keeps both cores busy to the last text.
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
    atomic_size_t next;          /* the next index to take */
    atomic_int stop;             /* a worker failed: take no more */
} batch_shared;

typedef struct batch_worker {
    batch_shared *sh;
    int failed;
    size_t fail_index;           /* the first (and only) index this worker failed on */
    tc_error err;
} batch_worker;

/* One worker: texts in the counter's order until none is left or one fails.
 * subtle: a worker finishes the text it took before it looks at `stop`, and
 * indices are taken in increasing order, so every index below a failing one
 * is encoded by someone: the lowest failure reported is the batch's lowest. */
static void batch_work(void *arg) {
    batch_worker *w = arg;
    batch_shared *sh = w->sh;
    for (;;) {
        if (atomic_load_explicit(&sh->stop, memory_order_relaxed)) return;
        size_t i = atomic_fetch_add_explicit(&sh->next, 1, memory_order_relaxed);
        if (i >= sh->n) return;
        const uint8_t *t = sh->texts[i] ? sh->texts[i] : (const uint8_t *)"";
        int r = tc_encode_flags(sh->tok, t, sh->texts[i] ? sh->lens[i] : 0, sh->add_special_tokens, sh->encoder,
                                sh->flags, &sh->outs[i], NULL, &w->err);
        if (r != TC_OK) {
            w->failed = 1;
            w->fail_index = i;
            atomic_store_explicit(&sh->stop, 1, memory_order_relaxed);
            return;
        }
    }
}

int tc_encode_batch(const tc_tokenizer *tok, const uint8_t *const *texts, const size_t *lens, size_t n,
                    int add_special_tokens, tc_encoder encoder, unsigned flags, unsigned threads,
                    tc_encoding *outs, size_t *failed, tc_error *err) {
    if (!tok || (n && (!texts || !lens || !outs))) return tc_error_set(err, TC_ERR_ARG, "encode_batch: null argument");
    if (n == 0) return TC_OK;
    for (size_t i = 0; i < n; i++)
        if (!texts[i] && lens[i]) return tc_error_set(err, TC_ERR_ARG, "encode_batch: text %zu is NULL with %zu bytes", i, lens[i]);
    unsigned nt = threads ? threads : 1;
    if (nt > TC_MAX_THREADS) nt = TC_MAX_THREADS;
    if ((size_t)nt > n) nt = (unsigned)n;
    batch_shared sh;
    sh.tok = tok; sh.texts = texts; sh.lens = lens; sh.n = n;
    sh.add_special_tokens = add_special_tokens; sh.encoder = encoder; sh.flags = flags; sh.outs = outs;
    atomic_init(&sh.next, 0);
    atomic_init(&sh.stop, 0);
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
        for (unsigned k = 0; k < nt; k++) args[k] = &ws[k];
        (void)tc_run_threads(nt, batch_work, args);
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
