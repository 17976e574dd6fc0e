/* wpm.h - llama.cpp's WPM tokenizer (GGUF tokenizer.ggml.model "bert") on one text fragment. */
#ifndef TC_WPM_H
#define TC_WPM_H

#include "bpe.h"

/* Runs tok's WPM model on chunk[0..len) (a whole text fragment between
 * special tokens: WPM splits it itself). Results replace sc->out (ids and
 * byte ranges in the chunk). Returns 0, or -1 on allocation failure. */
int tc_wpm_chunk(const tc_tokenizer *tok, tc_bpe_scratch *sc, const uint8_t *chunk, size_t len);

/* llama.cpp's own code point tables (llama_unicode_data.h), for the tests:
 * the category flag (TC_LU_*) with 0x100 added for White_Space, the simple
 * lowercase, and the first code point of the canonical decomposition. */
uint32_t tc_llama_cpt_flags(uint32_t cp);
uint32_t tc_llama_tolower(uint32_t cp);
uint32_t tc_llama_nfd(uint32_t cp);

#endif
