/* gguf_build.h - the pieces the GGUF vocabulary builders share (load_gguf.c:
 * BPE and SPM; gguf_vocab.c: WPM, llama.cpp's token attributes and the
 * SentencePiece-style BPE of gemma4). Internal to the engine. */
#ifndef TC_GGUF_BUILD_H
#define TC_GGUF_BUILD_H

#include "engine.h"
#include "gguf.h"

/* load_gguf.c */
int tc_gguf_add_regex(tc_tokenizer *tok, const char *rx, tc_error *err);
int tc_gguf_set_template(tc_tokenizer *tok, int64_t bos, int64_t eos, tc_error *err);
int tc_gguf_describe(tc_tokenizer *tok, const tc_gguf *g, int add_bos, int add_eos, int parse_special, const int64_t *ids);
int tc_gguf_fill_vocab(const tc_gguf *g, tc_vocab *v, uint32_t n, int rule, tc_error *err);

/* gguf_vocab.c */
/* tokenizer.ggml.model "bert": llama.cpp's WPM vocabulary (wpm.c encodes). */
tc_tokenizer *tc_gguf_build_wpm(const tc_gguf *g, int parse_special, tc_error *err);
/* The special-token partition with llama.cpp's token attributes (types, then
 * the overrides by token text of llama_vocab::impl::load). */
int tc_gguf_add_special(tc_tokenizer *tok, const tc_gguf *g, int parse_special, tc_error *err);
/* A BPE vocabulary on raw UTF-8 (pre type GEMMA4): spaces escaped to U+2581,
 * "<0xNN>" byte fallback, '\n' runs whole, the decoder that undoes it. */
int tc_gguf_spm_style(tc_tokenizer *tok, tc_error *err);

#endif
