/* unigram.h - the Unigram model (SentencePiece's unigram language model)
 * with HF `tokenizers` 0.23.3 semantics.
 *
 * Does: a byte trie over the pieces, the Viterbi best path over piece
 * scores of one chunk (unknown characters scored min_score - 10), HF's
 * fusing of consecutive unknowns, byte_fallback, and for the trace the
 * lattice of the chunk (every piece that starts at each position, with its
 * score and whether it is on the best path).
 * Does not: sampling (alpha / nbest: HF's files never set them), parse any
 * file (load_hf.c builds it from the JSON; a SentencePiece .model loader
 * calls tc_model_set_unigram the same way).
 */
#ifndef TC_UNIGRAM_H
#define TC_UNIGRAM_H

#include "bpe.h"

typedef struct tc_unigram tc_unigram;

/* Makes tok's model a Unigram model of the n pieces (UTF-8 strings
 * pieces[i][0..lens[i]) with scores[i]; id = index), unknown id unk_id (-1:
 * none) and byte_fallback. Fills tok->model.vocab (with tok->bytes_rule, so
 * set the decoder first) and the model's trie. HF's rules
 * (models/unigram/model.rs Unigram::from): unk_id must be < n, and a vocab
 * with an unk_id cannot be empty; a piece given twice is looked up as its
 * last id. Scores must be finite. Errors name the piece index. */
int tc_model_set_unigram(tc_tokenizer *tok, const uint8_t *const *pieces, const size_t *lens, const double *scores,
                         uint32_t n, int64_t unk_id, int byte_fallback, tc_error *err);

void tc_unigram_free(tc_unigram *u);

/* The byte trie of n pieces alone (no scores, no handle), for the engines
 * that run their own Viterbi over it (spm_unigram.c, ugm.c). A piece of
 * length 0 is never found (that is how a caller leaves a piece out); a
 * string given twice ends at its last id. Walk it from node 0 (the root):
 * tc_unigram_trie_step gives the node after byte b, 0 when there is none;
 * tc_unigram_trie_id the piece that ends at a node, -1 when none. */
tc_unigram *tc_unigram_trie_new(const uint8_t *const *pieces, const size_t *lens, uint32_t n, tc_error *err);
uint32_t tc_unigram_trie_step(const tc_unigram *u, uint32_t node, uint8_t b);
int32_t tc_unigram_trie_id(const tc_unigram *u, uint32_t node);

/* The score of a piece (id < n), and min_score - 10 for unknowns. */
double tc_unigram_score(const tc_unigram *u, uint32_t id);
double tc_unigram_unk_score(const tc_unigram *u);

/* Encodes chunk[0..len) into sc->out (ids and byte ranges in the chunk).
 * With tr, the lattice is appended to tr->lattice. Returns 0, -1 on
 * allocation failure, -3 when an unknown character meets a model without
 * unk_id (HF: "Encountered an unknown token but `unk_id` is missing"). */
int tc_unigram_chunk(const tc_tokenizer *tok, tc_bpe_scratch *sc, const uint8_t *chunk, size_t len, tc_trace *tr);

#endif
