/* pretok.h - pre-tokenizers: split a normalized segment into chunks. */
#ifndef TC_PRETOK_H
#define TC_PRETOK_H

#include "engine.h"

/* A chunk of a segment's normalized text: [start, end) plus whether
 * ByteLevel's add_prefix_space put a virtual ' ' before it. */
typedef struct tc_piece {
    uint32_t start, end;
    uint8_t prefix_space;
} tc_piece;

typedef struct tc_piece_list {
    tc_piece *v; size_t n, cap;
} tc_piece_list;

typedef struct tc_pretok_scratch {
    tc_piece_list a, b;
    size_t *matches; size_t nmatches, matches_cap;
    tc_buf tmp;
} tc_pretok_scratch;

void tc_pretok_scratch_free(tc_pretok_scratch *sc);

/* Runs every pre-tokenizer of tok over text[0..len). The result is in
 * *result (points into sc). Returns 0, -1 allocation failure, -2 regex step
 * limit. */
int tc_pretokenize(const tc_tokenizer *tok, tc_pretok_scratch *sc, const uint8_t *text, size_t len,
                   tc_piece_list **result);

/* Hand-written scanner for a well-known pattern: appends the matches of
 * find_iter as (start, end) pairs. Exposed for the agreement tests. */
int tc_fast_find_all(tc_fastpat p, const uint8_t *s, size_t len, size_t **out, size_t *n, size_t *cap);

/* The same scan from byte `from` (a previous match's end, or 0), stopping
 * after max_matches matches; *next is where the next call resumes (len once
 * the text is done). */
int tc_fast_find_from(tc_fastpat p, const uint8_t *s, size_t len, size_t from, size_t max_matches, size_t **out,
                      size_t *n, size_t *cap, size_t *next);

/* tc_fast_find_from writing tc_piece (prefix_space 0); *n counts pieces. -1 also when len does not fit
 * a piece's 32-bit offsets. */
int tc_fast_find_pieces(tc_fastpat p, const uint8_t *s, size_t len, size_t from, size_t max_matches, tc_piece **out,
                        size_t *n, size_t *cap, size_t *next);

/* 1 when tok's pre-tokenizers can run a segment a block at a time
 * (tc_pretokenize_next): the first splits by a hand-written scanner and
 * keeps every match as a chunk of its own (Split isolated; ByteLevel's
 * regex without a prefix space); the later ones work chunk by chunk. */
int tc_pretok_streams(const tc_tokenizer *tok);

/* The chunks of the next block of text[0..len), from *pos (0 at first) to
 * the end of the first pre-tokenizer's block_matches-th match, as
 * tc_pretokenize gives them for that stretch (offsets from text); *pos is
 * advanced, to len after the last block. Only where tc_pretok_streams. */
int tc_pretokenize_next(const tc_tokenizer *tok, tc_pretok_scratch *sc, const uint8_t *text, size_t len,
                        size_t *pos, size_t block_matches, tc_piece_list **result);

/* Recognizes a well-known pattern string. */
tc_fastpat tc_fast_detect(const char *pattern, size_t len);

#endif
