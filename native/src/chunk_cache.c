/* chunk_cache.c - chunk -> tokens results shared by every encode of one handle.
 *
 * Does: a fixed table of atomic 64-bit slots, each 0 (empty) or a tag (32
 * bits of the key's hash) and the offset of an immutable entry (the key,
 * the encoder mode, the tokens with their offsets in the chunk) in one
 * arena. Entries are carved from the arena with one atomic add, densely, in
 * the order chunks are first met (so the common words' entries share cache
 * lines), and the slots' tags let a probe skip other keys without touching
 * their entries. A reader loads a slot with acquire and compares; a writer
 * fills its entry, then publishes it with one compare-and-swap from 0, so
 * nobody waits and nobody sees half an entry. Entries are never replaced
 * or freed while the handle lives (a reader may hold one): the arena's size
 * is the cache's bound, after which it only answers. Slots and arena are
 * tc_table_alloc memory (platform.c: huge pages where the OS has them,
 * pages touched as they fill). Freed with the handle.
 * Does not: decide what is cacheable (pipeline.c: chunks of the model's
 * own encoders, not while tracing), nor hash (the caller passes
 * tc_chunk_hash of the key).
 *
 * Why shared and not per call: a window that re-encodes on every
 * keystroke, a batch of short lines and a corpus pass all meet the same
 * words again in other calls; the per-call table helped only texts of
 * 2 KB and more and was rebuilt for each (native/NOTES.md has figures).
 */
#include "chunk_cache.h"
#include "platform.h"

#include <stdlib.h>
#include <string.h>

tc_chunk_cache *tc_chunk_cache_new(size_t budget) {
    if (budget / TC_CC_ALIGN >= UINT32_MAX) return NULL;   /* offsets must fit a slot's low half */
    tc_chunk_cache *c = malloc(sizeof *c);
    if (!c) return NULL;
    size_t n = (size_t)1 << TC_CC_SLOTS_LOG2;
    /* zeroed pages: an all-zero slot is an empty atomic on every target we build for,
     * and initialising each would touch all 8 MiB at once */
    c->slots = tc_table_alloc(n * sizeof *c->slots);
    c->arena = tc_table_alloc(budget);
    if (!c->slots || !c->arena) {
        tc_table_free(c->slots, n * sizeof *c->slots);
        tc_table_free(c->arena, budget);
        free(c);
        return NULL;
    }
    c->mask = n - 1;
    c->budget = budget;
    atomic_init(&c->used, 0);
    return c;
}

void tc_chunk_cache_free(tc_chunk_cache *c) {
    if (!c) return;
    tc_table_free(c->slots, (c->mask + 1) * sizeof *c->slots);
    tc_table_free(c->arena, c->budget);
    free(c);
}

size_t tc_chunk_cache_bytes(const tc_chunk_cache *c) {
    if (!c) return 0;
    size_t u = atomic_load_explicit(&c->used, memory_order_relaxed);
    return u < c->budget ? u : c->budget;
}

void tc_chunk_cache_put(tc_chunk_cache *c, uint8_t mode, const uint8_t *k, size_t len, uint64_t h,
                        const tc_ctok *toks, size_t ntoks) {
    if (len > 0xFFFF || ntoks > UINT32_MAX || len > c->budget || ntoks > c->budget / sizeof *toks) return;
    size_t slots = tc_cc_entry_slots(ntoks), klen = len > TC_CC_SHORT ? len : 0;
    size_t size = (sizeof(tc_centry) + slots * sizeof *toks + klen + TC_CC_ALIGN - 1) / TC_CC_ALIGN * TC_CC_ALIGN;
    if (atomic_load_explicit(&c->used, memory_order_relaxed) + size > c->budget) return;   /* full: only answers */
    uint32_t tag = tc_cc_tag(h);
    size_t i = (size_t)h & c->mask;
    uint64_t mine = 0;           /* this chunk's slot word, once its entry is written */
    for (int p = 0; p < TC_CC_PROBES; p++, i = (i + 1) & c->mask) {
        uint64_t w = atomic_load_explicit(&c->slots[i], memory_order_acquire);
        if (w) {
            if ((uint32_t)(w >> 32) == tag && tc_cc_same_key(tc_cc_slot_entry(c, w), mode, k, len, len)) return;   /* there already */
            continue;
        }
        if (!mine) {
            /* the entry's bytes, carved only once a free slot is in sight */
            size_t off = atomic_fetch_add_explicit(&c->used, size, memory_order_relaxed);
            if (off + size > c->budget) return;   /* the last bytes went to another thread */
            tc_centry *e = (tc_centry *)(void *)(c->arena + off);
            tc_ctok *et = (tc_ctok *)(void *)(e + 1);
            if (len <= TC_CC_SHORT) tc_chunk_words(k, len, len, &e->w0, &e->w1);
            else { e->w0 = 0; e->w1 = 0; memcpy(et + slots, k, len); }
            e->lenmode = tc_cc_lenmode(len, mode); e->ntoks = (uint32_t)ntoks;
            memset(et, 0, slots * sizeof *et);
            if (ntoks) memcpy(et, toks, ntoks * sizeof *toks);
            mine = (uint64_t)tag << 32 | (uint64_t)(off / TC_CC_ALIGN + 1);
        }
        uint64_t expect = 0;
        /* release: the entry above is visible to whoever loads this slot */
        if (atomic_compare_exchange_strong_explicit(&c->slots[i], &expect, mine, memory_order_release,
                                                    memory_order_acquire))
            return;
        /* another thread filled this slot first: maybe with this very chunk */
        if ((uint32_t)(expect >> 32) == tag && tc_cc_same_key(tc_cc_slot_entry(c, expect), mode, k, len, len)) return;
    }
    /* no free slot within TC_CC_PROBES: the entry's bytes (if carved) stay unused; the arena bounds them */
}
