/* kestrel.h - emulation of the real board engine's tokenizer: Kestrel-LLM's
 * qwen_tokenizer_encode (repository m13253246268-ship-it/kestrel-llm, file
 * src/model/vllm_tokenizer_qwen.c), exact to its source in two versions.
 *
 *   v1  commit 63cba68349b94541629abd7eb311ab5d2bc70802 (2026-09-05)
 *   v2  commits fe0b3fe9b2ba53cd1f2127bf57c74f1aa6353f39 and
 *       d91c18df969b2968327d9c7e1d2ac757407a2057 (2026-09-16): the later
 *       one only replaces the linear scan of find_longest_match_qwen with a
 *       hash index that keeps, per length, the lowest id (the same ids: its
 *       own comment says so, and its VLLM_TOK_LINEAR=1 switch keeps the old
 *       scan as the oracle); one emulation serves both.
 *
 * Does: the engine's rules, one by one, over the longest-match index of
 * greedy.h (the vocabulary's vocab.bin stored form; the engine's "equal
 * bytes -> lowest id" is the index's own rule), with per-step traces that
 * say which rule chose each token.
 * Does not: normalize, pre-tokenize or merge (the engine does none of it);
 * load vocab.bin (the caller's handle does); stop at the engine's
 * max_tokens (its callers pass buffers of 64..4096 ids; here the output
 * grows: every token the engine would write before its buffer fills is the
 * same).
 *
 * Thread safety: reads the index only; any number of threads may encode at
 * once, each with its own tc_kestrel_out.
 */
#ifndef TC_KESTREL_H
#define TC_KESTREL_H

#include "common.h"
#include "greedy.h"

#define TC_KESTREL_RETRY_TEXT 509u      /* text bytes after Ġ in the retry buffer (char spaced_buf[512], buf_len <= 511) */
#define TC_KESTREL_NEWLINE_RUN 8u       /* v2: newlines tried as one Ċ run (char nb[16]) */
#define TC_KESTREL_NSPECIAL 15u         /* v2: QWEN_SPECIAL_STR */

/* How a step chose its token (tc_kestrel_step.rule). */
typedef enum tc_kestrel_rule {
    TC_KR_MATCH = 0,      /* longest entry that is a prefix of the raw bytes */
    TC_KR_SPACE_RETRY,    /* after skipped spaces: the longest entry of "Ġ" + text, longer than "Ġ" */
    TC_KR_SPECIAL,        /* v2: one of the 15 special strings, matched first */
    TC_KR_NEWLINE,        /* nothing matched a newline: the "Ċ" entry (v2: the longest run of up to 8) */
    TC_KR_BYTE,           /* nothing matched: the entry of the single byte */
    TC_KR_UNK,            /* nothing matched, no entry for the byte: id 0 */
    TC_KR_TRAILING,       /* spaces at the end of the text: skipped, no token */
    TC_KR_NUL             /* the text ends at a NUL (strlen): the rest is never read, no token */
} tc_kestrel_rule;

/* What the "Ġ" retry did (tc_kestrel_step.retry). */
typedef enum tc_kestrel_retry {
    TC_KRR_NONE = 0,      /* not tried: no space before, or the first token */
    TC_KRR_TAKEN,         /* its match was taken */
    TC_KRR_ONLY_SPACE,    /* the longest match was "Ġ" alone (or none): the space is lost */
    TC_KRR_GUARDED        /* v2: its match would run into the next special: refused, the space is lost */
} tc_kestrel_retry;

typedef struct tc_kestrel_step {
    uint32_t pos;         /* byte offset where the step began (before skipped spaces) */
    uint32_t at;          /* after the skipped spaces */
    uint32_t spaces;      /* spaces skipped (at - pos) */
    uint32_t limit;       /* v2: bytes an ordinary token may take before the next special start; else the rest */
    uint32_t id;          /* the token, or TC_GREEDY_NO_ID (TRAILING, NUL) */
    uint32_t consumed;    /* text bytes after `at` the token covers */
    uint32_t retry_id;    /* the Ġ retry's longest match (TC_GREEDY_NO_ID: none or not tried) */
    uint32_t retry_len;   /* its stored length, "Ġ" (2 bytes) included */
    uint32_t unguarded;   /* v2: the longest plain match's length without the limit (> consumed: the guard cut it) */
    uint8_t rule;         /* tc_kestrel_rule */
    uint8_t retry;        /* tc_kestrel_retry */
    uint8_t pad[2];
} tc_kestrel_step;

typedef struct tc_kestrel_tok {
    uint32_t id;
    uint32_t start, end;  /* original byte offsets; a Ġ-retry token starts at the space before the word */
} tc_kestrel_tok;

/* Zero-initialize before first use; tc_kestrel_encode resets the counts. */
typedef struct tc_kestrel_out {
    tc_kestrel_tok *toks; size_t n, cap;
    tc_kestrel_step *steps; size_t nsteps, steps_cap;
} tc_kestrel_out;

/* Encodes text[0..len) as the engine's version (1 or 2) does; trace != 0
 * fills steps. */
int tc_kestrel_encode(const tc_greedy *g, int version, const uint8_t *text, size_t len, int trace,
                      tc_kestrel_out *out, tc_error *err);
void tc_kestrel_out_free(tc_kestrel_out *o);

/* The 15 special strings of v2, in the engine's order. */
const char *tc_kestrel_special(size_t i, size_t *len);

#endif
