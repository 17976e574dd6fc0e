/* pair8.c - the merges table in 8-byte slots.
 *
 * The heap BPE loop (bpe.c) spends most of a first pass over new text waiting on merge lookups: each
 * merge looks up its two new neighbour pairs, and the next merge depends on their ranks. The 16-byte
 * table (key, rank, new id) of Qwen3's 151,387 merges is 4 MiB; this one drops the rank where the file
 * allows it and packs key and new id in 8 bytes, 2 MiB in one huge page where the OS gives them.
 *
 * A file qualifies when its ids fit 21 bits and its merges' new ids rise strictly with their ranks (each
 * merge makes a new token, later than every earlier merge's: GPT-2's, Qwen's and tiktoken-derived
 * files are built that way). Then comparing new ids orders pairs as comparing ranks does, and HF's
 * check of a popped entry (the pair now at its position still merges into the entry's new id) reads the
 * same value. Other files keep the 16-byte table.
 */
#include "pair8.h"
#include "platform.h"

#define ID_LIMIT ((UINT64_C(1) << TC_PAIR8_ID_BITS) - 1)   /* ids below it: a key is never all ones */

void tc_pair8_free(tc_pair8 *t) {
    if (!t) return;
    tc_table_free(t->slots, t->cap * sizeof *t->slots);
    free(t);
}

/* The table for tok's merges; slots NULL when the file does not qualify; NULL when out of memory.
 *
 * One pass over the 16-byte table both packs it and checks that the file qualifies: slot i gets the
 * 16-byte table's slot i (a pair is placed by the same hash of the same key, pair8.h), and each merge's
 * new id is noted at its rank; then the noted ids must rise with the ranks. The first version placed
 * each pair by a hash of the packed key (151,387 random writes into 2 MiB) after two passes of a
 * separate check: 4.3 ms of Qwen3's first encode after a load (perf, 14.7% of a load + one-word
 * encode loop), now one read of the 4 MiB table and one write of the 2 MiB one. */
static tc_pair8 *build(const tc_tokenizer *tok) {
    const tc_model *m = &tok->model;
    const tc_pairmap *pm = &m->merges;
    tc_pair8 *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    if (m->kind != TC_MODEL_BPE_MERGES || !pm->slots || m->vocab.n >= ID_LIMIT) return t;
    size_t lim = 4 * pm->used + 1025;   /* a rank beyond it: sparse ranks, not worth a table */
    uint32_t *by_rank = calloc(lim, sizeof *by_rank);   /* new id + 1 at its rank, 0 where none */
    uint64_t *slots = tc_table_alloc(pm->cap * sizeof *slots);
    if (!by_rank || !slots) {
        free(by_rank);
        if (slots) tc_table_free(slots, pm->cap * sizeof *slots);
        free(t);
        return NULL;
    }
    int ok = 1;
    size_t max_rank = 0;
    for (size_t i = 0; i < pm->cap; i++) {
        const tc_merge *s = &pm->slots[i];
        if (s->key == UINT64_MAX) { slots[i] = UINT64_MAX; continue; }
        uint64_t a = s->key >> 32, b = s->key & 0xFFFFFFFFu;
        if (a >= ID_LIMIT || b >= ID_LIMIT || s->new_id >= ID_LIMIT || s->rank >= lim || by_rank[s->rank]) {
            ok = 0;
            break;
        }
        by_rank[s->rank] = s->new_id + 1;
        if (s->rank > max_rank) max_rank = s->rank;
        slots[i] = a | b << TC_PAIR8_ID_BITS | (uint64_t)s->new_id << (2 * TC_PAIR8_ID_BITS);
    }
    uint32_t prev = 0;
    for (size_t r = 0; r <= max_rank && ok; r++) {
        if (!by_rank[r]) continue;
        if (by_rank[r] <= prev) ok = 0;
        prev = by_rank[r];
    }
    free(by_rank);
    if (!ok) {
        tc_table_free(slots, pm->cap * sizeof *slots);
        return t;
    }
    t->slots = slots;
    t->cap = pm->cap;
    return t;
}

const tc_pair8 *tc_pair8_get_table(const tc_tokenizer *tok) {
    tc_tokenizer *h = (tc_tokenizer *)tok;   /* a lazily built table, as bt (bpe_bt.c) */
    tc_pair8 *t = atomic_load_explicit(&h->pair8, memory_order_acquire);
    if (t) return t;
    tc_pair8 *mine = build(tok);
    if (!mine) return NULL;
    tc_pair8 *expect = NULL;
    if (atomic_compare_exchange_strong_explicit(&h->pair8, &expect, mine, memory_order_acq_rel, memory_order_acquire))
        return mine;
    tc_pair8_free(mine);   /* another thread's table was published first */
    return expect;
}

int tc_merge_table_slot_bytes(const tc_tokenizer *tok) {
    if (tok->model.kind != TC_MODEL_BPE_MERGES || !tok->model.merges.slots) return 0;
    const tc_pair8 *t = tc_pair8_get_table(tok);
    if (!t) return 0;
    return t->slots ? 8 : 16;
}
