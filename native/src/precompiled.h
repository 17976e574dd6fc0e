/* precompiled.h - SentencePiece's compiled normalization rules
 * ("precompiled_charsmap"), as HF `tokenizers` 0.23.3 applies them.
 *
 * Does: parse and validate the blob (u32 trie size, the darts double-array
 * units, then the replacement strings separated by NUL), the trie's
 * shortest-prefix lookup (spm_precompiled's `transform`), and the extended
 * grapheme clusters HF walks (unicode-segmentation), so normalize.c can
 * build the (char, change) stream of HF's Precompiled::normalize.
 * Does not: base64 (the JSON loader decodes it), allocate anything global.
 */
#ifndef TC_PRECOMPILED_H
#define TC_PRECOMPILED_H

#include "common.h"

typedef struct tc_precompiled {
    uint32_t *units; size_t nunits;     /* the double array */
    uint8_t *norm; size_t norm_len;     /* the replacement strings */
} tc_precompiled;

/* Parses blob[0..len) into *pc (which owns copies). On error fills err with
 * the byte offset in the blob and the reason, and returns its code. */
int tc_precompiled_parse(const uint8_t *blob, size_t len, tc_precompiled *pc, tc_error *err);
void tc_precompiled_free(tc_precompiled *pc);

/* spm_precompiled Precompiled::transform: the replacement of the shortest
 * prefix of s[0..len) that is a key (the search stops at a NUL byte), or
 * NULL. *out_len gets the replacement's length. */
const uint8_t *tc_precompiled_transform(const tc_precompiled *pc, const uint8_t *s, size_t len, size_t *out_len);

/* End of the extended grapheme cluster that starts at byte i of s. */
size_t tc_grapheme_end(const uint8_t *s, size_t len, size_t i);

#endif
