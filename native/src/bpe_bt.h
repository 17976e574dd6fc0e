/* bpe_bt.h - the backtracking BPE encoder (bpe_bt.c): long chunks in linear time, the heap's tokens. */
#ifndef TC_BPE_BT_H
#define TC_BPE_BT_H

#include "bpe.h"

typedef struct tc_bt tc_bt;

/* The handle's tables for one encoder mode (0 merges, 1 rank), built when first asked with build != 0
 * and published with a compare-and-swap; NULL when not built yet (build == 0) or out of memory. */
const tc_bt *tc_bt_get(const tc_tokenizer *tok, int rank_mode, int build);
/* 1 when the vocabulary qualifies (bpe_bt.c says when), else 0: the heap encodes. */
int tc_bt_usable(const tc_bt *bt);
/* Encodes chunk[0..len) (raw bytes) into sc->out. Returns 0, -1 on allocation failure, 1 when it gave up
 * (the caller runs the heap). */
int tc_bt_chunk(const tc_tokenizer *tok, const tc_bt *bt, tc_bpe_scratch *sc, const uint8_t *chunk, size_t len,
                int rank_mode);
/* A table of its own for a chunk that repeats one byte, on a handle without the whole one (the caller
 * frees it); NULL when out of memory. */
tc_bt *tc_bt_run(const tc_tokenizer *tok, uint8_t byte);
void tc_bt_free(tc_bt *bt);

#endif
