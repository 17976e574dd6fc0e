/* greedy.h - the ideal board encoder of seed 000: longest-prefix match over the
 * vocabulary's stored byte strings, specials first, no merges.
 *
 * Does: an immutable byte trie over the stored strings of vocab.bin (or
 * any id -> bytes list), and encoding with per-step traces.
 * Does not: normalize, pre-tokenize or merge; read vocab.bin (vocabbin.h
 * parses it; the caller passes the entries here).
 *
 * Thread safety: a tc_greedy is immutable after tc_greedy_build; any number
 * of threads may call tc_greedy_encode on it at once (each with its own
 * tc_greedy_out).
 */
#ifndef TC_GREEDY_H
#define TC_GREEDY_H

#include "common.h"

#define TC_GREEDY_MAX_ENTRY_BYTES 65536u     /* one stored string */
#define TC_GREEDY_MAX_TEXT_BYTES 0x7fffffffu /* stored form (<= 2x) fits in 32 bits */
#define TC_GREEDY_NO_ID 0xFFFFFFFFu          /* tc_greedy_step.chosen of a dropped byte */

typedef struct tc_greedy tc_greedy;

/* Builds the index. For each i < n: ids[i] and its stored bytes
 * (bytes[i], lens[i], 1..TC_GREEDY_MAX_ENTRY_BYTES); special[i] = 1 for a
 * special token (special may be NULL: none). Entries with equal stored
 * bytes may coexist: the LOWER id wins (the board's choice); a special
 * entry wins over a normal one only through the specials-first rule.
 * Returns NULL with err filled (an empty entry names its index and id). */
tc_greedy *tc_greedy_build(size_t n, const uint32_t *ids, const uint8_t *const *bytes, const uint32_t *lens,
                           const uint8_t *special, tc_error *err);
void tc_greedy_free(tc_greedy *g);

/* Walking the index byte by byte, for encoders built on it (kestrel.c).
 * Start with TC_GREEDY_ROOT; tc_greedy_walk returns the node reached by
 * byte b, or TC_GREEDY_NO_NODE when no stored string continues with b;
 * tc_greedy_node_id is the lowest id whose stored bytes end at that node
 * (special or not), or TC_GREEDY_NO_ID. */
#define TC_GREEDY_ROOT 0xFFFFFFFEu
#define TC_GREEDY_NO_NODE 0xFFFFFFFFu
uint32_t tc_greedy_walk(const tc_greedy *g, uint32_t node, uint8_t b);
uint32_t tc_greedy_node_id(const tc_greedy *g, uint32_t node);

/* Number of trie nodes and longest entry (for reports). */
size_t tc_greedy_node_count(const tc_greedy *g);
uint32_t tc_greedy_max_len(const tc_greedy *g);

typedef struct tc_greedy_tok {
    uint32_t id;
    uint32_t start, end;   /* byte offsets into the ORIGINAL text */
    uint8_t special;
} tc_greedy_tok;

typedef struct tc_greedy_step {
    uint32_t pos;          /* original byte offset where the step starts */
    uint32_t chosen;       /* id, or TC_GREEDY_NO_ID when the byte was dropped */
    uint32_t chosen_len;   /* stored bytes consumed */
    uint32_t ncand;        /* candidates considered */
    uint32_t cand_first;   /* into cands */
} tc_greedy_step;

/* Zero-initialize before first use; tc_greedy_encode resets the counts and
 * reuses the capacity. */
typedef struct tc_greedy_out {
    tc_greedy_tok *toks; size_t n, cap;
    tc_greedy_step *steps; size_t nsteps, steps_cap;
    uint32_t *cands; size_t ncands, cands_cap;  /* per step: every entry whose stored bytes are a
                                                 * prefix there, shortest first, equal bytes by id */
    size_t dropped;        /* steps where no entry matched (one stored unit skipped each) */
} tc_greedy_out;

/* Encodes text[0..len):
 *  1. stored representation: bytes 0x00..0x20 become the 2-byte markers
 *     C4 80..C4 A0, every other byte is kept;
 *  2. at each position: the longest special entry that matches; else the
 *     longest entry that is a prefix (equal bytes: lower id); else the
 *     entry of the single stored unit (subtle: that entry would itself be a
 *     prefix, so this rule never adds a match beyond rule 2 and is not a
 *     separate step here); else one stored unit (a whole marker, or one
 *     byte) is dropped and counted in out->dropped.
 * Offsets map back to the original bytes: a match ending inside a marker's
 * two bytes ends after that original byte, and the next token starts at
 * it, so both cover the byte. trace != 0 fills steps and cands.
 * Cost: O(stored length x longest match). */
int tc_greedy_encode(const tc_greedy *g, const uint8_t *text, size_t len, int trace, tc_greedy_out *out,
                     tc_error *err);
void tc_greedy_out_free(tc_greedy_out *o);

#endif
