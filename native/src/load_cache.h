/* load_cache.h - the binary load cache of a tokenizer.json's BPE tables.
 *
 * Does: writes a BPE model's finished vocabulary (entries, string pool,
 * string -> id table) and merge table as one blob keyed by the file's
 * sha256, with where $.model.vocab and $.model.merges sit in the file; reads
 * such a blob back only after checking everything an encode relies on
 * (header, key, engine, hash functions, sizes, checksum, every offset and
 * id), so a corrupt, truncated or foreign blob is refused, never used.
 * Does not: write files (the caller stores the blob), compute the sha256 (the caller does), or
 * cache anything but BPE merge models (the rest of the file is parsed).
 */
#ifndef TC_LOAD_CACHE_H
#define TC_LOAD_CACHE_H

#include "engine.h"
#include "json.h"

/* Bump when the tables' layout or meaning changes in a way the header's
 * fingerprint (struct sizes, hash functions) does not see. */
#define TC_CACHE_FORMAT 1u
#define TC_CACHE_HEADER 128u

typedef struct tc_hf_cache {
    tc_json_span vocab, merges;   /* $.model.vocab and $.model.merges in the file */
    tc_vocab vocab_tab;           /* entries, pool and by_str, owned until taken */
    tc_pairmap merges_tab;
} tc_hf_cache;

/* Appends the blob for tok (a BPE merges model just loaded from a file of
 * file_len bytes with sha256 key) to out. 0, or -1 (out of memory). */
int tc_cache_write_hf(const tc_tokenizer *tok, const uint8_t key[32], uint64_t file_len, tc_json_span vocab,
                      tc_json_span merges, tc_buf *out);

/* 0 and c filled (owned by c) when blob is a valid cache of the file with
 * this key and length for this engine; else -1 with the reason in *why
 * (a static string) and c empty. */
int tc_cache_read_hf(const uint8_t *blob, size_t len, const uint8_t key[32], uint64_t file_len, tc_hf_cache *c,
                     const char **why);
/* The same, reading the blob from the file at path (each table straight
 * into its allocation); a file that cannot be opened or read is refused. */
int tc_cache_read_hf_file(const char *path, const uint8_t key[32], uint64_t file_len, tc_hf_cache *c,
                          const char **why);
void tc_hf_cache_free(tc_hf_cache *c);

/* Writes the checksum of a blob in memory into its header (the writer's
 * last step; the fuzz harness seals mutated blobs so that their tables,
 * not only the checksum, are what gets checked). No-op when the blob's
 * sections do not fit len. */
void tc_cache_seal(uint8_t *blob, size_t len);

/* The tokenizer.json load with its vocabulary and merge tables taken from c
 * (load_hf.c; NULL when the cached load refuses: the caller then loads
 * the file whole). c's tables are moved into the handle. */
tc_tokenizer *tc_load_hf_json_with_cache(const uint8_t *data, size_t len, tc_hf_cache *c, tc_error *err);

#endif
