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

/* 1 when new ids rise strictly with ranks over every merge and every id fits, else 0; -1 out of memory. */
static int qualifies(const tc_model *m) {
    const tc_pairmap *pm = &m->merges;
    if (m->vocab.n >= ID_LIMIT) return 0;
    uint64_t max_rank = 0;
    for (size_t i = 0; i < pm->cap; i++)
        if (pm->slots[i].key != UINT64_MAX && pm->slots[i].rank > max_rank) max_rank = pm->slots[i].rank;
    if (max_rank > 4 * (uint64_t)pm->used + 1024) return 0;   /* sparse ranks: not worth a table */
    uint32_t *by_rank = malloc(((size_t)max_rank + 1) * sizeof *by_rank);
    if (!by_rank) return -1;
    for (uint64_t r = 0; r <= max_rank; r++) by_rank[r] = UINT32_MAX;
    int ok = 1;
    for (size_t i = 0; i < pm->cap && ok; i++) {
        const tc_merge *s = &pm->slots[i];
        if (s->key == UINT64_MAX) continue;
        uint64_t a = s->key >> 32, b = s->key & 0xFFFFFFFFu;
        if (a >= ID_LIMIT || b >= ID_LIMIT || s->new_id >= ID_LIMIT || by_rank[s->rank] != UINT32_MAX) ok = 0;
        else by_rank[s->rank] = s->new_id;
    }
    int64_t prev = -1;
    for (uint64_t r = 0; r <= max_rank && ok; r++) {
        if (by_rank[r] == UINT32_MAX) continue;
        if ((int64_t)by_rank[r] <= prev) ok = 0;
        prev = by_rank[r];
    }
    free(by_rank);
    return ok;
}

/* The table for tok's merges; slots NULL when the file does not qualify; NULL when out of memory. */
static tc_pair8 *build(const tc_tokenizer *tok) {
    const tc_model *m = &tok->model;
    tc_pair8 *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    if (m->kind != TC_MODEL_BPE_MERGES || !m->merges.slots) return t;
    int q = qualifies(m);
    if (q < 0) { free(t); return NULL; }
    if (!q) return t;
    size_t cap = m->merges.cap;   /* the same load as the 16-byte table (at most 80% full) */
    uint64_t *slots = tc_table_alloc(cap * sizeof *slots);
    if (!slots) { free(t); return NULL; }
    for (size_t i = 0; i < cap; i++) slots[i] = UINT64_MAX;
    for (size_t i = 0; i < m->merges.cap; i++) {
        const tc_merge *s = &m->merges.slots[i];
        if (s->key == UINT64_MAX) continue;
        uint64_t key = (s->key >> 32) | ((s->key & 0xFFFFFFFFu) << TC_PAIR8_ID_BITS);
        size_t j = tc_pair_hash(key) & (cap - 1);
        while (slots[j] != UINT64_MAX) j = (j + 1) & (cap - 1);
        slots[j] = key | ((uint64_t)s->new_id << (2 * TC_PAIR8_ID_BITS));
    }
    t->slots = slots;
    t->cap = cap;
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
