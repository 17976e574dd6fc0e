/* wordpiece.h - the WordPiece and WordLevel models on one pre-token chunk. */
#ifndef TC_WORDPIECE_H
#define TC_WORDPIECE_H

#include "bpe.h"

/* Runs tok's WordPiece or WordLevel model on chunk[0..len) (a word: the
 * pre-tokenizers split the text). Results replace sc->out (ids and byte
 * ranges in the chunk). If tr is not NULL, WordPiece's longest-match steps
 * are appended to tr->steps: one step per piece found, pos = its start
 * byte, rank = its byte length, left = the number of shorter-by-one-char
 * candidates tried before it, right = 1 for a continuing piece ("##..."),
 * new_id = its id; a word that falls back to the unk token ends with a
 * step whose new_id is the unk id, rank = 0 and pos = where no piece was
 * found (0, with left = 0, for a word above max_input_chars_per_word).
 * Returns 0, -1 on allocation failure, -3 when the word needs the unk
 * token and the vocabulary has none (HF: "Missing [UNK] token"). */
int tc_wordpiece_chunk(const tc_tokenizer *tok, tc_bpe_scratch *sc, const uint8_t *chunk, size_t len, tc_trace *tr);

#endif
