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

/* A key of up to TC_CC_SHORT bytes is kept and compared as two words: its bytes, zero past its
 * end. avail is how many bytes may be read at k (>= n): with 16 or more the words are two loads
 * masked by the length, with no branch on it (a word's length changes from chunk to chunk, so
 * the former 1-3 / 4-7 / 8-16 byte cases were a mispredicted branch in the hash and another in
 * the compare of most chunks: native/NOTES.md). Near a buffer's end the bytes are copied first. */
#define TC_CC_SHORT 16
static inline void tc_chunk_words(const uint8_t *k, size_t n, size_t avail, uint64_t *a, uint64_t *b) {
    /* bytes 16 - n .. 31 - n of this: 0xff for a key's byte i < n, 0 past it (any byte order) */
    static const uint8_t ones[32] = {255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255};
    if (avail >= 16) {
        *a = tc_load_u64(k) & tc_load_u64(ones + 16 - n);
        *b = tc_load_u64(k + 8) & tc_load_u64(ones + 24 - n);
    } else {
        uint8_t t[16] = {0};
        memcpy(t, k, n);
        *a = tc_load_u64(t);
        *b = tc_load_u64(t + 8);
    }
}

/* The hash of a short key from its words. Where the compiler has a 64 x 64 -> 128-bit multiply, one
 * such multiply of the two words (each offset by a constant; the length folded into the second) with
 * its halves XORed: the high half mixes every bit of both words into the index's low bits (the
 * folded multiply of wyhash, github.com/wangyi-fudan/wyhash, wyhash.h `_wymum`/`_wymix`; written
 * here from that description). It replaced three multiplies and two shift-XORs, ~8 instructions of
 * the ~58 a warm chunk spent being keyed (callgrind, native/NOTES.md). Elsewhere the older mix. */
static inline uint64_t tc_chunk_mix(uint64_t a, uint64_t b, size_t n) {
#if defined(__SIZEOF_INT128__)
    __extension__ typedef unsigned __int128 tc_u128;
    tc_u128 m = (tc_u128)(a ^ 0x9E3779B97F4A7C15ull) * (tc_u128)(b ^ 0xBF58476D1CE4E5B9ull ^ (uint64_t)n);
    return (uint64_t)m ^ (uint64_t)(m >> 64);
#else
    uint64_t h = (a ^ 0x9E3779B97F4A7C15ull) * 0xBF58476D1CE4E5B9ull;
    h ^= (b ^ ((uint64_t)n << 56)) * 0x94D049BB133111EBull;
    h ^= h >> 32;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
    return h;
#endif
}

/* The cache's hash of chunk k[0..n) (avail as above). Most chunks are a word of 2-10 bytes: a key
 * up to 16 bytes is hashed from its two words, no byte loop and no call; a warm encode hashes
 * every chunk (tc_hash_bytes' byte-wise tail was 10% of one, perf, War and Peace). Longer keys
 * take tc_hash_bytes. Only this process sees the values (the cache is never written out), so
 * they may differ between byte orders. */
static inline uint64_t tc_chunk_hash_at(const uint8_t *k, size_t n, size_t avail) {
    uint64_t a, b;
    if (n > TC_CC_SHORT) return tc_hash_bytes(k, n);
    tc_chunk_words(k, n, avail, &a, &b);
    return tc_chunk_mix(a, b, n);
}

static inline uint64_t tc_chunk_hash(const uint8_t *k, size_t n) { return tc_chunk_hash_at(k, n, n); }

/* The table's layout is here, not in chunk_cache.c, so that the chunk loop inlines the read
 * side (a lookup per chunk: the call and its spills were part of the 15% tc_chunk_cache_get
 * took of a warm encode, perf). Only chunk_cache.c writes. */
#define TC_CC_SLOTS_LOG2 20            /* 1,048,576 slots: 8 MiB, touched as entries spread */
#define TC_CC_PROBES 16                /* linear probes before a lookup gives up (a miss) */
#define TC_CC_ALIGN 8                  /* entries start on 8 bytes; a slot stores offset / TC_CC_ALIGN + 1 */

typedef struct tc_centry {
    uint64_t w0, w1;             /* a key of up to TC_CC_SHORT bytes (tc_chunk_words); 0 for a longer one */
    uint32_t lenmode;            /* tc_cc_lenmode: the key's length and the encoder mode */
    uint32_t ntoks;
    /* tc_ctok toks[max(ntoks, 2)] (a second, zeroed one after a lone token: a hit copies two
     * without a branch), then a key longer than TC_CC_SHORT bytes */
} tc_centry;

struct tc_chunk_cache {
    _Atomic uint64_t *slots;     /* tag << 32 | (entry offset / TC_CC_ALIGN + 1); 0: empty */
    size_t mask;
    uint8_t *arena;              /* budget bytes */
    size_t budget;
    atomic_size_t used;          /* bytes of the arena handed out */
};

/* keys are at most 65,535 bytes (the pipeline caches up to 128) */
static inline uint32_t tc_cc_lenmode(size_t len, uint8_t mode) { return (uint32_t)len | (uint32_t)mode << 16; }
static inline size_t tc_cc_entry_slots(size_t ntoks) { return ntoks < 2 ? 2 : ntoks; }

/* The tag a slot word keeps of its key's hash: the hash's high 32 bits with bit 0 set. A filled
 * slot's tag is odd and an empty slot's 0, so TC_CC_NO_TAG (even, not 0) matches no slot at all: the
 * tag of a key tc_cc_key_ahead must not answer. */
#define TC_CC_NO_TAG 2u
static inline uint32_t tc_cc_tag(uint64_t h) { return (uint32_t)(h >> 32) | 1u; }

static inline const tc_ctok *tc_cc_entry_toks(const tc_centry *e) { return (const tc_ctok *)(const void *)(e + 1); }
static inline const uint8_t *tc_cc_entry_key(const tc_centry *e) {
    return (const uint8_t *)(tc_cc_entry_toks(e) + tc_cc_entry_slots(e->ntoks));
}

/* The entry a nonzero slot word names, in an arena. */
static inline const tc_centry *tc_cc_entry_at(const uint8_t *arena, uint64_t w) {
    return (const tc_centry *)(const void *)(arena + ((size_t)(uint32_t)w - 1) * TC_CC_ALIGN);
}

static inline const tc_centry *tc_cc_slot_entry(const tc_chunk_cache *c, uint64_t w) { return tc_cc_entry_at(c->arena, w); }

#if defined(__GNUC__)
#define TC_CC_INLINE inline __attribute__((always_inline))
#else
#define TC_CC_INLINE inline
#endif

/* Entry e holds chunk k[0..len) (avail bytes readable at k) under encoder mode `mode`: a short
 * key is one compare of three words, no branch on its length. */
static TC_CC_INLINE int tc_cc_same_key(const tc_centry *e, uint8_t mode, const uint8_t *k, size_t len, size_t avail) {
    uint32_t lm = tc_cc_lenmode(len, mode);
    if (len <= TC_CC_SHORT) {
        uint64_t a, b;
        tc_chunk_words(k, len, avail, &a, &b);
        return ((e->w0 ^ a) | (e->w1 ^ b) | (uint64_t)(e->lenmode ^ lm)) == 0;
    }
    return e->lenmode == lm && memcmp(tc_cc_entry_key(e), k, len) == 0;
}

/* The tokens of chunk k[0..len) under encoder mode `mode` (h = tc_chunk_hash_at(k, len, avail)),
 * or NULL; a non-NULL answer has room for two tokens even when *ntoks is 1 (the second zeroed).
 * The pointer stays valid while the handle lives. Any number of threads may call both at once. */
static TC_CC_INLINE const tc_ctok *tc_chunk_cache_get(const tc_chunk_cache *c, uint8_t mode, const uint8_t *k, size_t len,
                                                      size_t avail, uint64_t h, size_t *ntoks) {
    size_t i = (size_t)h & c->mask;
    uint32_t tag = tc_cc_tag(h);
    for (int p = 0; p < TC_CC_PROBES; p++, i = (i + 1) & c->mask) {
        /* acquire: the entry was written before the release CAS that published it */
        uint64_t w = atomic_load_explicit(&c->slots[i], memory_order_acquire);
        if (!w) return NULL;
        if ((uint32_t)(w >> 32) != tag) continue;
        const tc_centry *e = tc_cc_slot_entry(c, w);
        if (tc_cc_same_key(e, mode, k, len, avail)) { *ntoks = e->ntoks; return tc_cc_entry_toks(e); }
    }
    return NULL;
}

/* A chunk the chunk loop has keyed ahead of its lookup (pipeline.c run_pieces): the words, length
 * and hash of a short key computed once, and the first slot's word once it has been read. */
typedef struct tc_cc_key {
    uint64_t a, b, h;
    uint64_t slot;               /* the first slot's word as read ahead when its tag is h's, else 0 */
    uint32_t lm;                 /* tc_cc_lenmode of the key: a key of up to TC_CC_SHORT bytes is looked
                                  * up from its words */
    uint32_t tag;                /* tc_cc_tag(h) for a short key; TC_CC_NO_TAG for a long one */
} tc_cc_key;

/* Keys chunk k[0..n) for mode, with avail (>= n) bytes readable at k: with TC_CC_SHORT or more (the
 * chunk loop's common case, tc_cc_key_make), a short key's words are two masked loads with no branch
 * on the room left; a long key keeps only its hash. The slot word is tc_cc_key_ahead's to set. */
static TC_CC_INLINE void tc_cc_key_make_near(tc_cc_key *q, uint8_t mode, const uint8_t *k, size_t n, size_t avail) {
    q->lm = tc_cc_lenmode(n, mode);
    if (n <= TC_CC_SHORT) {
        tc_chunk_words(k, n, avail, &q->a, &q->b);
        q->h = tc_chunk_mix(q->a, q->b, n);
        q->tag = tc_cc_tag(q->h);
    } else {
        q->a = q->b = 0;
        q->h = tc_hash_bytes(k, n);
        q->tag = TC_CC_NO_TAG;
    }
}

/* tc_cc_key_make_near with at least TC_CC_SHORT bytes readable at k whatever n is. */
static TC_CC_INLINE void tc_cc_key_make(tc_cc_key *q, uint8_t mode, const uint8_t *k, size_t n) {
    tc_cc_key_make_near(q, mode, k, n, TC_CC_SHORT);
}

/* The table's three fields as values, for a loop over many keys to hold in registers: read through
 * the cache in each call, they were loaded again for every chunk (a store to a key may alias them). */
typedef struct tc_cc_view {
    _Atomic uint64_t *slots;
    size_t mask;
    const uint8_t *arena;
} tc_cc_view;

static inline tc_cc_view tc_cc_view_of(const tc_chunk_cache *c) {
    tc_cc_view v = {c->slots, c->mask, c->arena};
    return v;
}

/* Reads the first slot of short key q ahead of its lookup (the slot should be arriving: see
 * tc_chunk_cache_prefetch), keeps its word in q, and starts loading the entry it names when its tag
 * is q's. Returns 1 if so (a hit is likely), else 0 with q->slot 0 (a long key is always 0: its
 * lookup takes the probes). One compare decides: a short key's tag is odd, so it matches a filled
 * slot only, and a long key's (TC_CC_NO_TAG) matches none (read_slots: 10 of its ~24 instructions a
 * chunk were the three tests this replaces, callgrind). Acquire: tc_cc_key_get may then read the
 * entry the word names without loading the slot again. */
static TC_CC_INLINE int tc_cc_key_ahead(tc_cc_view v, tc_cc_key *q) {
    uint64_t w = atomic_load_explicit(&v.slots[(size_t)q->h & v.mask], memory_order_acquire);
    if ((uint32_t)(w >> 32) != q->tag) {
        q->slot = 0;
        return 0;
    }
    q->slot = w;   /* nonzero: its tag is odd */
#if defined(__GNUC__)
    __builtin_prefetch(tc_cc_entry_at(v.arena, w));
#endif
    return 1;
}

/* The entry key q's slot word (read ahead by tc_cc_key_ahead, nonzero) names, if it is q's: one
 * compare of three words. A slot only ever goes from 0 to its final word, so a word read ahead is
 * still the slot's word. */
static TC_CC_INLINE const tc_centry *tc_cc_key_entry(tc_cc_view v, const tc_cc_key *q) {
    const tc_centry *e = tc_cc_entry_at(v.arena, q->slot);
    return ((e->w0 ^ q->a) | (e->w1 ^ q->b) | (uint64_t)(e->lenmode ^ q->lm)) == 0 ? e : NULL;
}

/* tc_chunk_cache_get for a key made by tc_cc_key_make (k, len, avail as there; v is c's view): a
 * short key whose first slot was read ahead and names it is answered from that word; anything else
 * takes the probes. */
static TC_CC_INLINE const tc_ctok *tc_cc_key_get(const tc_chunk_cache *c, tc_cc_view v, const tc_cc_key *q,
                                                 uint8_t mode, const uint8_t *k, size_t len, size_t avail,
                                                 size_t *ntoks) {
    if (q->slot) {
        const tc_centry *e = tc_cc_key_entry(v, q);
        if (e) {
            *ntoks = e->ntoks;
            return tc_cc_entry_toks(e);
        }
    }
    return tc_chunk_cache_get(c, mode, k, len, avail, q->h, ntoks);
}

/* A hint, no effect on any answer: starts loading the slot a lookup of hash h reads first. A caller
 * walking many chunks issues it ahead of tc_cc_key_ahead, so the misses of several chunks overlap. */
static inline void tc_chunk_cache_prefetch(const tc_chunk_cache *c, uint64_t h) {
#if defined(__GNUC__)
    __builtin_prefetch(&c->slots[(size_t)h & c->mask]);
#else
    (void)c; (void)h;
#endif
}

/* Remembers a chunk's tokens (copied), unless the budget is spent or its probe run is full. */
void tc_chunk_cache_put(tc_chunk_cache *c, uint8_t mode, const uint8_t *k, size_t len, uint64_t h,
                        const tc_ctok *toks, size_t ntoks);

#endif
