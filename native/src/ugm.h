/* ugm.h - llama.cpp's UGM tokenizer (GGUF tokenizer.ggml.model "t5"):
 * its own normalizer over tokenizer.ggml.precompiled_charsmap and its port
 * of SentencePiece's Viterbi, as llm_tokenizer_ugm / llm_tokenizer_ugm_session
 * in src/llama-vocab.cpp of the llama.cpp that llama-cpp-python 0.3.36
 * vendors. See ugm.c for the rules and where they differ from
 * sentencepiece (spm_unigram.c).
 */
#ifndef TC_UGM_H
#define TC_UGM_H

#include "bpe.h"
#include "gguf.h"

typedef struct tc_ugm tc_ugm;

/* tokenizer.ggml.model "t5": the whole handle (vocabulary, the special-token
 * partition, BOS/EOS template, description), or NULL with err set. */
tc_tokenizer *tc_gguf_build_ugm(const tc_gguf *g, int parse_special, tc_error *err);

void tc_ugm_free(tc_ugm *u);

/* One text fragment chunk[0..len) (the text between special tokens): the
 * tokens in sc->out, their spans in the fragment's bytes. Returns 0, -1 on
 * allocation failure, -4 when the charsmap points past its end (llama.cpp
 * throws "Index out of array bounds" there). */
int tc_ugm_chunk(const tc_tokenizer *tok, tc_bpe_scratch *sc, const uint8_t *chunk, size_t len);

#endif
