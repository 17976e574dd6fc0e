/* added.h - added tokens: trie building and HF find_matches. */
#ifndef TC_ADDED_H
#define TC_ADDED_H

#include "engine.h"

/* A segment of a string: either plain text or an added-token match. */
typedef struct tc_seg {
    uint32_t start, end;
    int32_t added;      /* index into tok->added, -1 for plain text */
} tc_seg;

typedef struct tc_seg_list {
    tc_seg *v; size_t n, cap;
} tc_seg_list;

int tc_trie_build(tc_trie *t, const tc_tokenizer *tok, int normalized, const tc_buf *norm_contents,
                  const uint32_t *norm_offsets);
void tc_trie_free(tc_trie *t);

/* HF AddedVocabulary::find_matches over s[0..len): appends segments
 * (offsets relative to s) covering s in order. Returns 0 or -1 (OOM). */
int tc_added_split(const tc_tokenizer *tok, const tc_trie *t, const uint8_t *s, size_t len, tc_seg_list *out);

#endif
