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

/* The cache's hash of a chunk. Most chunks are a word of 2-10 bytes: a key up to 16 bytes is
 * read as two overlapping loads (its first and last 8 or 4 bytes; 1-3 bytes: first, middle and
 * last), which with the length name the key exactly, then mixed; no byte loop and no call. A
 * warm encode hashes every chunk: tc_hash_bytes' byte-wise tail was 10% of one (perf, War and
 * Peace, native/NOTES.md). Longer keys take tc_hash_bytes. Only this process sees the values
 * (the cache is never written out), so they may differ between byte orders. */
static inline uint64_t tc_chunk_hash(const uint8_t *k, size_t n) {
    uint64_t a, b;
    if (n > 16) return tc_hash_bytes(k, n);
    if (n >= 8) { a = tc_load_u64(k); b = tc_load_u64(k + n - 8); }
    else if (n >= 4) { a = tc_load_u32(k); b = tc_load_u32(k + n - 4); }
    else if (n > 0) { a = (uint64_t)k[0] << 16 | (uint64_t)k[n >> 1] << 8 | k[n - 1]; b = 0; }
    else { a = 0; b = 0; }
    uint64_t h = (a ^ 0x9E3779B97F4A7C15ull) * 0xBF58476D1CE4E5B9ull;
    h ^= (b ^ ((uint64_t)n << 56)) * 0x94D049BB133111EBull;
    h ^= h >> 32;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
    return h;
}

/* The tokens of chunk k[0..len) under encoder mode `mode` (h = tc_chunk_hash(k, len)), or NULL.
 * The pointer stays valid while the handle lives. Any number of threads may call both at once. */
const tc_ctok *tc_chunk_cache_get(const tc_chunk_cache *c, uint8_t mode, const uint8_t *k, size_t len,
                                  uint64_t h, size_t *ntoks);
/* A hint, no effect on any answer: entry 0 starts loading the slot a lookup of hash h reads
 * first, entry 1 the entry that slot names if its tag is h's (the slot should be loaded by then).
 * A caller walking many chunks issues both some chunks ahead, so the misses overlap. With entry 1,
 * returns 1 if the first slot's tag is h's (a hit is likely), else 0 (a miss is likely). */
int tc_chunk_cache_prefetch(const tc_chunk_cache *c, uint64_t h, int entry);
/* Remembers a chunk's tokens (copied), unless the budget is spent or its probe run is full. */
void tc_chunk_cache_put(tc_chunk_cache *c, uint8_t mode, const uint8_t *k, size_t len, uint64_t h,
                        const tc_ctok *toks, size_t ntoks);

#endif
