/* chunk_cache.h - a handle's cache of chunk results, shared by threads
 * without locks (chunk_cache.c says how). */
#ifndef TC_CHUNK_CACHE_H
#define TC_CHUNK_CACHE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <string.h>

#include "bpe.h"

typedef struct tc_chunk_cache tc_chunk_cache;

/* A cache that stops taking entries once they hold `budget` bytes (one arena of that size,
 * touched as it fills); NULL if out of memory. */
tc_chunk_cache *tc_chunk_cache_new(size_t budget);
void tc_chunk_cache_free(tc_chunk_cache *c);
/* Bytes of entries held. */
size_t tc_chunk_cache_bytes(const tc_chunk_cache *c);

static inline uint64_t tc_load_u64(const uint8_t *p) { uint64_t w; memcpy(&w, p, 8); return w; }
static inline uint32_t tc_load_u32(const uint8_t *p) { uint32_t w; memcpy(&w, p, 4); return w; }

/* The two words a key of 1-16 bytes is read as (tc_chunk_hash below): with the length they name
 * the key exactly, so two keys of one length are equal iff their words are. */
static inline void tc_chunk_words(const uint8_t *k, size_t n, uint64_t *a, uint64_t *b) {
    if (n >= 8) { *a = tc_load_u64(k); *b = tc_load_u64(k + n - 8); }
    else if (n >= 4) { *a = tc_load_u32(k); *b = tc_load_u32(k + n - 4); }
    else if (n > 0) { *a = (uint64_t)k[0] << 16 | (uint64_t)k[n >> 1] << 8 | k[n - 1]; *b = 0; }
    else { *a = 0; *b = 0; }
}

/* The hash of a short key from its words. */
static inline uint64_t tc_chunk_mix(uint64_t a, uint64_t b, size_t n) {
    uint64_t h = (a ^ 0x9E3779B97F4A7C15ull) * 0xBF58476D1CE4E5B9ull;
    h ^= (b ^ ((uint64_t)n << 56)) * 0x94D049BB133111EBull;
    h ^= h >> 32;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
    return h;
}

/* The cache's hash of a chunk. Most chunks are a word of 2-10 bytes: a key up to 16 bytes is
 * read as two overlapping loads (its first and last 8 or 4 bytes; 1-3 bytes: first, middle and
 * last), which with the length name the key exactly, then mixed; no byte loop and no call. A
 * warm encode hashes every chunk: tc_hash_bytes' byte-wise tail was 10% of one (perf, War and
 * Peace, native/NOTES.md). Longer keys take tc_hash_bytes. Only this process sees the values
 * (the cache is never written out), so they may differ between byte orders. */
static inline uint64_t tc_chunk_hash(const uint8_t *k, size_t n) {
    uint64_t a, b;
    if (n > 16) return tc_hash_bytes(k, n);
    tc_chunk_words(k, n, &a, &b);
    return tc_chunk_mix(a, b, n);
}

/* The table's layout is here, not in chunk_cache.c, so that the chunk loop inlines the read
 * side (a lookup per chunk: the call and its spills were part of the 15% tc_chunk_cache_get
 * took of a warm encode, perf). Only chunk_cache.c writes. */
#define TC_CC_SLOTS_LOG2 20            /* 1,048,576 slots: 8 MiB, touched as entries spread */
#define TC_CC_PROBES 16                /* linear probes before a lookup gives up (a miss) */
#define TC_CC_ALIGN 8                  /* entries start on 8 bytes; a slot stores offset / TC_CC_ALIGN + 1 */

typedef struct tc_centry {
    uint32_t key_len, ntoks;
    uint8_t mode, pad[3];
    /* tc_ctok toks[ntoks], then the key bytes */
} tc_centry;

struct tc_chunk_cache {
    _Atomic uint64_t *slots;     /* tag << 32 | (entry offset / TC_CC_ALIGN + 1); 0: empty */
    size_t mask;
    uint8_t *arena;              /* budget bytes */
    size_t budget;
    atomic_size_t used;          /* bytes of the arena handed out */
};

static inline const tc_ctok *tc_cc_entry_toks(const tc_centry *e) { return (const tc_ctok *)(const void *)(e + 1); }
static inline const uint8_t *tc_cc_entry_key(const tc_centry *e) { return (const uint8_t *)(tc_cc_entry_toks(e) + e->ntoks); }

static inline const tc_centry *tc_cc_slot_entry(const tc_chunk_cache *c, uint64_t w) {
    return (const tc_centry *)(const void *)(c->arena + ((size_t)(uint32_t)w - 1) * TC_CC_ALIGN);
}

/* x[0..n) == y[0..n); short keys (most chunks) by overlapping loads, as tc_chunk_hash reads
 * them: memcmp through the PLT was 12% of a warm encode of War and Peace (perf). */
static inline int tc_cc_key_eq(const uint8_t *x, const uint8_t *y, size_t n) {
    if (n >= 8 && n <= 16) return tc_load_u64(x) == tc_load_u64(y) && tc_load_u64(x + n - 8) == tc_load_u64(y + n - 8);
    if (n >= 4 && n < 8) return tc_load_u32(x) == tc_load_u32(y) && tc_load_u32(x + n - 4) == tc_load_u32(y + n - 4);
    if (n < 4) {
        for (size_t i = 0; i < n; i++)
            if (x[i] != y[i]) return 0;
        return 1;
    }
    return memcmp(x, y, n) == 0;
}

static inline int tc_cc_same_key(const tc_centry *e, uint8_t mode, const uint8_t *k, size_t len) {
    return e->key_len == len && e->mode == mode && tc_cc_key_eq(tc_cc_entry_key(e), k, len);
}

#if defined(__GNUC__)
#define TC_CC_INLINE inline __attribute__((always_inline))
#else
#define TC_CC_INLINE inline
#endif

/* The tokens of chunk k[0..len) under encoder mode `mode` (h = tc_chunk_hash(k, len)), or NULL.
 * The pointer stays valid while the handle lives. Any number of threads may call both at once. */
static TC_CC_INLINE const tc_ctok *tc_chunk_cache_get(const tc_chunk_cache *c, uint8_t mode, const uint8_t *k, size_t len,
                                                      uint64_t h, size_t *ntoks) {
    size_t i = (size_t)h & c->mask;
    uint32_t tag = (uint32_t)(h >> 32);
    for (int p = 0; p < TC_CC_PROBES; p++, i = (i + 1) & c->mask) {
        /* acquire: the entry was written before the release CAS that published it */
        uint64_t w = atomic_load_explicit(&c->slots[i], memory_order_acquire);
        if (!w) return NULL;
        if ((uint32_t)(w >> 32) != tag) continue;
        const tc_centry *e = tc_cc_slot_entry(c, w);
        if (tc_cc_same_key(e, mode, k, len)) { *ntoks = e->ntoks; return tc_cc_entry_toks(e); }
    }
    return NULL;
}

/* A hint, no effect on any answer: entry 0 starts loading the slot a lookup of hash h reads
 * first, entry 1 the entry that slot names if its tag is h's (the slot should be loaded by then).
 * A caller walking many chunks issues both some chunks ahead, so the misses overlap. With entry 1,
 * returns 1 if the first slot's tag is h's (a hit is likely), else 0 (a miss is likely). */
static inline int tc_chunk_cache_prefetch(const tc_chunk_cache *c, uint64_t h, int entry) {
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
    __builtin_prefetch(tc_cc_slot_entry(c, w));
#endif
    return 1;
}

/* Remembers a chunk's tokens (copied), unless the budget is spent or its probe run is full. */
void tc_chunk_cache_put(tc_chunk_cache *c, uint8_t mode, const uint8_t *k, size_t len, uint64_t h,
                        const tc_ctok *toks, size_t ntoks);

#endif
