/* spm.h - llama.cpp's SPM tokenizer of one fragment (spm.c). */
#ifndef TC_SPM_H
#define TC_SPM_H

#include "bpe.h"

/* Tokens of text[0..len) into sc->out (byte ranges in text). 0, or -1 on
 * allocation failure. Needs tok->model.scores (GGUF tokenizer.ggml.scores). */
int tc_spm_chunk(const tc_tokenizer *tok, tc_bpe_scratch *sc, const uint8_t *text, size_t len);

#endif
