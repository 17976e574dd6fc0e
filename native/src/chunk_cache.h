/* chunk_cache.h - a handle's cache of chunk results, shared by threads
 * without locks (chunk_cache.c says how). */
#ifndef TC_CHUNK_CACHE_H
#define TC_CHUNK_CACHE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "bpe.h"

typedef struct tc_chunk_cache tc_chunk_cache;

/* A cache that stops taking entries once they hold `budget` bytes (one arena of that size,
 * touched as it fills); NULL if out of memory. */
tc_chunk_cache *tc_chunk_cache_new(size_t budget);
void tc_chunk_cache_free(tc_chunk_cache *c);
/* Bytes of entries held. */
size_t tc_chunk_cache_bytes(const tc_chunk_cache *c);

/* The tokens of chunk k[0..len) under encoder mode `mode` (h = tc_hash_bytes(k, len)), or NULL.
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
