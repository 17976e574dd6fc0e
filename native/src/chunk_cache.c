/* chunk_cache.c - chunk -> tokens results shared by every encode of one handle.
 *
 * Does: a fixed table of atomic 64-bit slots, each 0 (empty) or a tag (32
 * bits of the key's hash) and the offset of an immutable entry (key bytes,
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

#define SLOTS_LOG2 20            /* 1,048,576 slots: 8 MiB, touched as entries spread */
#define PROBES 16                /* linear probes before a lookup gives up (a miss) */
#define ALIGN 8                  /* entries start on 8 bytes; a slot stores offset / ALIGN + 1 */

typedef struct centry {
    uint32_t key_len, ntoks;
    uint8_t mode, pad[3];
    /* tc_ctok toks[ntoks], then the key bytes */
} centry;

struct tc_chunk_cache {
    _Atomic uint64_t *slots;     /* tag << 32 | (entry offset / ALIGN + 1); 0: empty */
    size_t mask;
    uint8_t *arena;              /* budget bytes */
    size_t budget;
    atomic_size_t used;          /* bytes of the arena handed out */
};

tc_chunk_cache *tc_chunk_cache_new(size_t budget) {
    if (budget / ALIGN >= UINT32_MAX) return NULL;   /* offsets must fit a slot's low half */
    tc_chunk_cache *c = malloc(sizeof *c);
    if (!c) return NULL;
    size_t n = (size_t)1 << SLOTS_LOG2;
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

static inline const tc_ctok *entry_toks(const centry *e) { return (const tc_ctok *)(const void *)(e + 1); }
static inline const uint8_t *entry_key(const centry *e) { return (const uint8_t *)(entry_toks(e) + e->ntoks); }

static inline const centry *slot_entry(const tc_chunk_cache *c, uint64_t w) {
    return (const centry *)(const void *)(c->arena + ((size_t)(uint32_t)w - 1) * ALIGN);
}

/* x[0..n) == y[0..n); short keys (most chunks) by overlapping loads, as tc_chunk_hash reads
 * them: memcmp through the PLT was 12% of a warm encode of War and Peace (perf). */
static inline int key_eq(const uint8_t *x, const uint8_t *y, size_t n) {
    if (n >= 8 && n <= 16) return tc_load_u64(x) == tc_load_u64(y) && tc_load_u64(x + n - 8) == tc_load_u64(y + n - 8);
    if (n >= 4 && n < 8) return tc_load_u32(x) == tc_load_u32(y) && tc_load_u32(x + n - 4) == tc_load_u32(y + n - 4);
    if (n < 4) {
        for (size_t i = 0; i < n; i++)
            if (x[i] != y[i]) return 0;
        return 1;
    }
    return memcmp(x, y, n) == 0;
}

static inline int same_key(const centry *e, uint8_t mode, const uint8_t *k, size_t len) {
    return e->key_len == len && e->mode == mode && key_eq(entry_key(e), k, len);
}

const tc_ctok *tc_chunk_cache_get(const tc_chunk_cache *c, uint8_t mode, const uint8_t *k, size_t len,
                                  uint64_t h, size_t *ntoks) {
    size_t i = (size_t)h & c->mask;
    uint32_t tag = (uint32_t)(h >> 32);
    for (int p = 0; p < PROBES; p++, i = (i + 1) & c->mask) {
        /* acquire: the entry was written before the release CAS that published it */
        uint64_t w = atomic_load_explicit(&c->slots[i], memory_order_acquire);
        if (!w) return NULL;
        if ((uint32_t)(w >> 32) != tag) continue;
        const centry *e = slot_entry(c, w);
        if (same_key(e, mode, k, len)) { *ntoks = e->ntoks; return entry_toks(e); }
    }
    return NULL;
}

int tc_chunk_cache_prefetch(const tc_chunk_cache *c, uint64_t h, int entry) {
    size_t i = (size_t)h & c->mask;
    if (!entry) {
#if defined(__GNUC__)
        __builtin_prefetch(&c->slots[i]);
#endif
        return 0;
    }
    /* relaxed: the word only names a line to fetch; the lookup itself loads it with acquire */
    uint64_t w = atomic_load_explicit(&c->slots[i], memory_order_relaxed);
    if (!w || (uint32_t)(w >> 32) != (uint32_t)(h >> 32)) return 0;
#if defined(__GNUC__)
    __builtin_prefetch(slot_entry(c, w));
#endif
    return 1;
}

void tc_chunk_cache_put(tc_chunk_cache *c, uint8_t mode, const uint8_t *k, size_t len, uint64_t h,
                        const tc_ctok *toks, size_t ntoks) {
    if (len > UINT32_MAX || ntoks > UINT32_MAX || len > c->budget || ntoks > c->budget / sizeof *toks) return;
    size_t size = (sizeof(centry) + ntoks * sizeof *toks + len + ALIGN - 1) / ALIGN * ALIGN;
    if (atomic_load_explicit(&c->used, memory_order_relaxed) + size > c->budget) return;   /* full: only answers */
    uint32_t tag = (uint32_t)(h >> 32);
    size_t i = (size_t)h & c->mask;
    uint64_t mine = 0;           /* this chunk's slot word, once its entry is written */
    for (int p = 0; p < PROBES; p++, i = (i + 1) & c->mask) {
        uint64_t w = atomic_load_explicit(&c->slots[i], memory_order_acquire);
        if (w) {
            if ((uint32_t)(w >> 32) == tag && same_key(slot_entry(c, w), mode, k, len)) return;   /* there already */
            continue;
        }
        if (!mine) {
            /* the entry's bytes, carved only once a free slot is in sight */
            size_t off = atomic_fetch_add_explicit(&c->used, size, memory_order_relaxed);
            if (off + size > c->budget) return;   /* the last bytes went to another thread */
            centry *e = (centry *)(void *)(c->arena + off);
            e->key_len = (uint32_t)len; e->ntoks = (uint32_t)ntoks; e->mode = mode;
            memset(e->pad, 0, sizeof e->pad);
            if (ntoks) memcpy((void *)(e + 1), toks, ntoks * sizeof *toks);
            memcpy((uint8_t *)(e + 1) + ntoks * sizeof *toks, k, len);
            mine = (uint64_t)tag << 32 | (uint64_t)(off / ALIGN + 1);
        }
        uint64_t expect = 0;
        /* release: the entry above is visible to whoever loads this slot */
        if (atomic_compare_exchange_strong_explicit(&c->slots[i], &expect, mine, memory_order_release,
                                                    memory_order_acquire))
            return;
        /* another thread filled this slot first: maybe with this very chunk */
        if ((uint32_t)(expect >> 32) == tag && same_key(slot_entry(c, expect), mode, k, len)) return;
    }
    /* no free slot within PROBES: the entry's bytes (if carved) stay unused; the arena bounds them */
}
