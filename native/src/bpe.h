/* bpe.h - the BPE model applied to one pre-token chunk. */
#ifndef TC_BPE_H
#define TC_BPE_H

#include "engine.h"

typedef struct tc_sym {
    uint32_t id;
    uint32_t start, len;    /* byte range in the chunk */
    int32_t prev, next;
} tc_sym;

typedef struct tc_heap_item {
    uint32_t rank, pos, new_id;
} tc_heap_item;

/* One token produced for a chunk: id and byte range in the chunk. */
typedef struct tc_ctok {
    uint32_t id, start, end;
} tc_ctok;

/* Per-call scratch memory, reused across chunks (never shared between
 * threads). */
typedef struct tc_bpe_scratch {
    tc_sym *syms; size_t syms_cap;
    tc_heap_item *heap; size_t heap_n, heap_cap;
    tc_ctok *out; size_t nout, out_cap;
    tc_buf tmp;
} tc_bpe_scratch;

void tc_bpe_scratch_free(tc_bpe_scratch *sc);
/* Appends one token (id, chunk span [s, e)) to sc->out; -1 when out of memory. */
int tc_bpe_out_push(tc_bpe_scratch *sc, uint32_t id, uint32_t s, uint32_t e);

/* Runs the model on chunk[0..len) (model space: raw bytes for byte-level
 * models, UTF-8 chars otherwise). Results replace sc->out. If tr is not
 * NULL, the initial symbols and the merge steps are appended to it (the
 * caller records where this chunk's entries start).
 * Returns 0, or -1 on allocation failure. */
/* A hint, no effect on any answer: starts loading the merges of a chunk's first byte pairs
 * (byte-level merge BPE without a prefix or suffix; else nothing), for a caller that expects
 * to encode the chunk soon and can do other work meanwhile. */
void tc_bpe_prefetch(const tc_tokenizer *tok, const uint8_t *chunk, size_t len);
/* rank_mode: the `rank` encoder (tiktoken): a chunk that is a token is
 * that token, else the adjacent pair whose concatenated bytes have the
 * lowest id merges first. Needs tok->model.by_bytes (tc_prepare). */
int tc_bpe_chunk(const tc_tokenizer *tok, tc_bpe_scratch *sc, const uint8_t *chunk, size_t len, tc_trace *tr,
                 int rank_mode);

#endif
