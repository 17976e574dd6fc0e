/* chunk_cache.c - chunk -> tokens results shared by every encode of one handle.
 *
 * Does: a fixed table of atomic pointers to immutable entries (key bytes,
 * the encoder mode, the tokens with their offsets in the chunk). A reader
 * loads a slot with acquire and compares; a writer publishes a complete
 * entry with one compare-and-swap from NULL, so readers never wait and
 * never see half an entry. Entries are never replaced or freed while the
 * handle lives (a reader may hold one): the cache is bounded by a byte
 * budget instead, after which it only answers. Freed with the handle.
 * Does not: decide what is cacheable (pipeline.c: chunks of the model's
 * own encoders, not while tracing), nor hash (the caller passes
 * tc_hash_bytes of the key).
 *
 * Why shared and not per call: a window that re-encodes on every
 * keystroke, a batch of short lines and a corpus pass all meet the same
 * words again in other calls; the per-call table helped only texts of
 * 2 KB and more and was rebuilt for each (native/NOTES.md has figures).
 */
#include "chunk_cache.h"

#include <stdlib.h>
#include <string.h>

#define SLOTS_LOG2 20            /* 1,048,576 slots: 8 MiB of pointers, touched as entries spread */
#define PROBES 16                /* linear probes before a lookup gives up (a miss) */

typedef struct centry {
    uint64_t hash;
    uint32_t key_len, ntoks;
    uint8_t mode, pad[7];
    /* tc_ctok toks[ntoks], then the key bytes */
} centry;

struct tc_chunk_cache {
    _Atomic(centry *) *slots;
    size_t mask;
    size_t budget;
    atomic_size_t used;          /* bytes of entries published (and being published) */
};

tc_chunk_cache *tc_chunk_cache_new(size_t budget) {
    tc_chunk_cache *c = malloc(sizeof *c);
    if (!c) return NULL;
    size_t n = (size_t)1 << SLOTS_LOG2;
    c->slots = calloc(n, sizeof *c->slots);
    if (!c->slots) { free(c); return NULL; }
    for (size_t i = 0; i < n; i++) atomic_init(&c->slots[i], NULL);
    c->mask = n - 1;
    c->budget = budget;
    atomic_init(&c->used, 0);
    return c;
}

void tc_chunk_cache_free(tc_chunk_cache *c) {
    if (!c) return;
    for (size_t i = 0; i <= c->mask; i++) free(atomic_load_explicit(&c->slots[i], memory_order_relaxed));
    free(c->slots);
    free(c);
}

size_t tc_chunk_cache_bytes(const tc_chunk_cache *c) {
    return c ? atomic_load_explicit(&c->used, memory_order_relaxed) : 0;
}

static inline const tc_ctok *entry_toks(const centry *e) { return (const tc_ctok *)(const void *)(e + 1); }
static inline const uint8_t *entry_key(const centry *e) { return (const uint8_t *)(entry_toks(e) + e->ntoks); }

static int same_key(const centry *e, uint8_t mode, const uint8_t *k, size_t len, uint64_t h) {
    return e->hash == h && e->key_len == len && e->mode == mode && memcmp(entry_key(e), k, len) == 0;
}

const tc_ctok *tc_chunk_cache_get(const tc_chunk_cache *c, uint8_t mode, const uint8_t *k, size_t len,
                                  uint64_t h, size_t *ntoks) {
    size_t i = (size_t)h & c->mask;
    for (int p = 0; p < PROBES; p++, i = (i + 1) & c->mask) {
        /* acquire: the entry's fields were written before the release CAS that published it */
        centry *e = atomic_load_explicit(&c->slots[i], memory_order_acquire);
        if (!e) return NULL;
        if (same_key(e, mode, k, len, h)) { *ntoks = e->ntoks; return entry_toks(e); }
    }
    return NULL;
}

void tc_chunk_cache_put(tc_chunk_cache *c, uint8_t mode, const uint8_t *k, size_t len, uint64_t h,
                        const tc_ctok *toks, size_t ntoks) {
    if (len > UINT32_MAX || ntoks > UINT32_MAX) return;
    size_t size = sizeof(centry) + ntoks * sizeof *toks + len;
    /* reserve the bytes first: the budget holds even when many threads insert at once */
    size_t before = atomic_fetch_add_explicit(&c->used, size, memory_order_relaxed);
    if (before + size > c->budget) { atomic_fetch_sub_explicit(&c->used, size, memory_order_relaxed); return; }
    centry *e = malloc(size);
    if (!e) { atomic_fetch_sub_explicit(&c->used, size, memory_order_relaxed); return; }
    e->hash = h; e->key_len = (uint32_t)len; e->ntoks = (uint32_t)ntoks; e->mode = mode;
    memset(e->pad, 0, sizeof e->pad);
    if (ntoks) memcpy((void *)(e + 1), toks, ntoks * sizeof *toks);
    memcpy((uint8_t *)(e + 1) + ntoks * sizeof *toks, k, len);
    size_t i = (size_t)h & c->mask;
    for (int p = 0; p < PROBES; p++, i = (i + 1) & c->mask) {
        centry *cur = atomic_load_explicit(&c->slots[i], memory_order_acquire);
        if (!cur) {
            centry *expect = NULL;
            if (atomic_compare_exchange_strong_explicit(&c->slots[i], &expect, e, memory_order_release,
                                                        memory_order_acquire))
                return;
            cur = expect;   /* another thread filled this slot first */
        }
        if (same_key(cur, mode, k, len, h)) break;   /* the same chunk, published by another call */
    }
    /* not published (already there, or no free slot within PROBES): give the bytes back */
    free(e);
    atomic_fetch_sub_explicit(&c->used, size, memory_order_relaxed);
}
