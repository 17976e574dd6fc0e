/* vocabbin.h - the board's vocab.bin format (seed 000): compile, parse,
 * audit.
 *
 * Layout (little-endian): u32 N, then N entries `u32 id, u16 len, len bytes`.
 * The bytes of a byte-level token are its real bytes, except that bytes
 * 0x00..0x20 stay as their GPT-2 marker characters U+0100..U+0120 in UTF-8
 * (space = C4 A0 "Ġ", newline = C4 8A "Ċ"). Added/special tokens are stored
 * as their UTF-8 content. The compiler writes entries in id order 0..N-1.
 *
 * Does: the stored-form mapping (seed 000 decode_token_str), compiling a
 * loaded byte-level tokenizer, a bounds-checked two-pass parser with one
 * specific error per defect, and a JSON audit (byte classes, identical
 * entries).
 * Does not: encode text (greedy.h does, over the parsed entries), read files
 * (platform.h), or copy the file: a tc_vbin points into the caller's bytes,
 * which must outlive it.
 */
#ifndef TC_VOCABBIN_H
#define TC_VOCABBIN_H

#include "tokcore.h"

#define TC_VBIN_MAX_ENTRIES 4000000u   /* N above this is rejected */
#define TC_VBIN_HEADER_BYTES 4u         /* u32 N */
#define TC_VBIN_ENTRY_HEADER_BYTES 6u   /* u32 id, u16 len */
#define TC_VBIN_MAX_ENTRY_BYTES 65535u  /* u16 length field */
#define TC_VBIN_MAX_TRAILING 64u        /* tc_load_vocabbin accepts this many bytes after the last entry (more: N is too small) */

typedef struct tc_vbin_entry {
    uint32_t off;      /* offset of the entry's bytes in data */
    uint16_t len;
    uint8_t present;   /* always 1 after a successful parse (every id 0..N-1 occurs once) */
} tc_vbin_entry;

typedef struct tc_vbin {
    const uint8_t *data;   /* the caller's file contents (not owned) */
    size_t size;
    uint32_t n;            /* N from the header */
    tc_vbin_entry *by_id;  /* n entries, indexed by id (owned) */
    size_t trailing;       /* bytes after the last entry: a warning, not an error */
} tc_vbin;

/* 1 if d[0..n) looks like a vocab.bin: 1 <= N <= TC_VBIN_MAX_ENTRIES, N
 * well-formed non-empty entries with ids < N, whatever follows them (a
 * file with more entries than N is a vocab.bin that tc_load_vocabbin
 * refuses, with one message for the host and the board). Allocates nothing. */
int tc_vbin_detect(const uint8_t *d, size_t n);

/* Checks the first n_head bytes of a vocab.bin of file_size bytes: the
 * header and every entry that lies wholly in them, with the errors
 * tc_vbin_parse would give (a file refused here need not be read whole). */
int tc_vbin_check_head(const uint8_t *head, size_t n_head, uint64_t file_size, tc_error *err);

/* Parses d[0..n) into *out (which points into d afterwards). Two passes:
 * the first walks the entries and checks their structure and ids < N
 * (allocating nothing, so a lying N costs no memory), the second places
 * them by id and finds duplicates. Never reads outside d[0..n).
 * Errors (TC_ERR_FORMAT / TC_ERR_LIMIT / TC_ERR_NOMEM), each naming the
 * entry index and file offset: empty file; file shorter than the header;
 * N = 0; N above the limit; truncated entry header; truncated entry bytes;
 * zero-length entry; id >= N; fewer entries than N (reported as a
 * truncated entry header at the end of the file); duplicate id (with the
 * entry that had it first). On error *out is left empty. */
int tc_vbin_parse(const uint8_t *d, size_t n, tc_vbin *out, tc_error *err);
void tc_vbin_free(tc_vbin *v);

/* Appends the stored form of a byte-level token string (seed 000
 * decode_token_str): per character U+0143 -> 0xAD, U+0121 -> 0x7F,
 * U+0122..U+0142 -> cp - 0xA2, U+00A1..U+00AC and U+00AE..U+00FF -> that
 * byte; everything else (the markers U+0100..U+0120, ASCII, CJK, ...) keeps
 * its UTF-8. A byte that is not valid UTF-8 is copied as is.
 * Returns 1 if the result differs from the input bytes, 0 if not, -1 OOM. */
int tc_vbin_stored_form(const uint8_t *token_str, size_t len, tc_buf *out);

/* Appends the real bytes of stored bytes: markers C4 80..C4 A0 become
 * 0x00..0x20, every other byte is copied. Returns 1 if something changed,
 * 0 if not, -1 OOM. (subtle: C4 80..C4 A0 is also the UTF-8 of real letters
 * such as "ę"; this function cannot tell them apart, nor can the board.) */
int tc_vbin_real_bytes(const uint8_t *stored, size_t len, tc_buf *out);

typedef struct tc_vbin_stats {
    uint32_t total;     /* entries written (N) */
    uint32_t changed;   /* model tokens whose stored form differs from their UTF-8 */
    uint32_t kept;      /* model tokens stored unchanged */
    uint32_t specials;  /* added tokens (special or not), stored as content */
} tc_vbin_stats;

/* Compiles a loaded byte-level tokenizer into vocab.bin bytes appended to
 * out: for id in 0..tc_vocab_size(tok)-1, an added token -> its content,
 * a model token -> the stored form of tc_id_to_token. Errors: a
 * non-byte-level tokenizer, a hole (no token for an id), an empty or
 * over-long (> 65535 bytes) entry, each naming the id. st may be NULL. */
int tc_vbin_compile(const tc_tokenizer *tok, tc_buf *out, tc_vbin_stats *st, tc_error *err);

#define TC_VBIN_AUDIT_FIRST_IDS 20u   /* ids listed for the invalid-UTF-8 class */

/* Appends a JSON object describing a parsed vocab.bin:
 *   {"n", "file_bytes", "string_bytes", "trailing",
 *    "classes": {entries containing: "markers" (C4 80..C4 A0), "del_7f",
 *                "raw_80_a0", "raw_ad", "raw_a1_ff" (raw = not part of a
 *                valid UTF-8 sequence), "multibyte_utf8" (a valid multi-byte
 *                sequence other than a marker); "ascii" (only bytes < 0x80)},
 *    "invalid_utf8": {"count", "first_ids": [...]},
 *    "longest": {"id", "len"},
 *    "identical": {"groups", "entries", "list": [[id, id, ...], ...]}}
 * Groups list entries with identical stored bytes, ids ascending, groups
 * ordered by their first id. Returns TC_OK or TC_ERR_NOMEM. */
int tc_vbin_audit(const tc_vbin *v, tc_buf *json_out);

#endif
