/* pair8.h - the merges table in 8-byte slots (pair8.c), the BPE loop's lookups when the file allows it. */
#ifndef TC_PAIR8_H
#define TC_PAIR8_H

#include "engine.h"

/* A slot packs left id (bits 0-20), right id (21-41) and new id (42-62); UINT64_MAX is empty. Slot i
 * holds what slot i of the 16-byte table (tc_pairmap) holds: a pair is placed by the same hash of the
 * same key, so the same probe sequence finds it and the build is one pass in order (pair8.c). */
#define TC_PAIR8_ID_BITS 21
#define TC_PAIR8_KEY_MASK ((UINT64_C(1) << (2 * TC_PAIR8_ID_BITS)) - 1)

typedef struct tc_pair8 {
    uint64_t *slots;   /* NULL: the file does not qualify, the 16-byte table serves */
    size_t cap;        /* power of two */
} tc_pair8;

/* The handle's table, built on first use and published with a compare-and-swap (immutable after); NULL
 * when out of memory (the 16-byte table serves, a later call tries again). */
const tc_pair8 *tc_pair8_get_table(const tc_tokenizer *tok);
void tc_pair8_free(tc_pair8 *t);

/* The new id of pair (a, b), -1 when the pair does not merge. Its rank's order is the new id's (the build
 * checked it), so the new id is the heap's rank. */
static inline int64_t tc_pair8_get(const tc_pair8 *t, uint32_t a, uint32_t b) {
    uint64_t key = (uint64_t)a | ((uint64_t)b << TC_PAIR8_ID_BITS);
    size_t mask = t->cap - 1, i = tc_pair_hash((uint64_t)a << 32 | b) & mask;   /* the 16-byte table's slot */
    for (;;) {
        uint64_t s = t->slots[i];
        if ((s & TC_PAIR8_KEY_MASK) == key) return (int64_t)(s >> (2 * TC_PAIR8_ID_BITS));
        if (s == UINT64_MAX) return -1;
        i = (i + 1) & mask;
    }
}

static inline void tc_pair8_prefetch(const tc_pair8 *t, uint32_t a, uint32_t b) {
#if defined(__GNUC__)
    __builtin_prefetch(&t->slots[tc_pair_hash((uint64_t)a << 32 | b) & (t->cap - 1)]);
#else
    (void)t; (void)a; (void)b;
#endif
}

#endif
