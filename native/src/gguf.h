/* gguf.h - the tokenizer metadata of a GGUF file (llama.cpp's model format).
 *
 * Does: reads the header (magic, version, tensor and key/value counts) and
 * every key/value pair, through bounds-checked reads of a file opened
 * "guarded" (platform.h: pread()s, nothing mapped) or of bytes in memory,
 * and keeps the tokenizer keys (tokenizer.ggml.*, tokenizer.chat_template,
 * general.architecture/name). Every other value is skipped over.
 * Does not: read the tensor infos or the tensor data, so a multi-GB model
 * costs the size of its metadata (a few MB) and opens at once.
 *
 * Format (ggml-org/llama.cpp ggml/src/gguf.cpp, gguf_init_from_file_impl,
 * as vendored in llama-cpp-python 0.3.36): little-endian; "GGUF", u32
 * version (2 or 3; 1 used 32-bit counts and is refused as llama.cpp does),
 * u64 tensor count, u64 kv count, then per kv: string key, u32 type, value.
 * A string is u64 length + bytes; an array is u32 element type + u64 count +
 * elements. Every malformed header is an error naming the file offset and
 * the reason (a count or length past the end, an unknown type, an array of
 * arrays, a wrong type for a tokenizer key, an empty or duplicate key: the
 * checks of gguf_init_from_file_impl).
 */
#ifndef TC_GGUF_H
#define TC_GGUF_H

#include "common.h"
#include "platform.h"

#define TC_GGUF_MAX_KEY 65535u               /* bytes in a key */
#define TC_GGUF_MAX_STRING ((uint64_t)64 << 20)  /* one string value (a chat template) */
#define TC_GGUF_MAX_META ((uint64_t)1 << 30) /* total metadata bytes read */

/* GGUF value types (gguf.h, enum gguf_type). */
enum {
    TC_GGUF_U8 = 0, TC_GGUF_I8, TC_GGUF_U16, TC_GGUF_I16, TC_GGUF_U32, TC_GGUF_I32, TC_GGUF_F32,
    TC_GGUF_BOOL, TC_GGUF_STRING, TC_GGUF_ARRAY, TC_GGUF_U64, TC_GGUF_I64, TC_GGUF_F64, TC_GGUF_NTYPES
};

/* llama.cpp's token types (llama.h, enum llama_token_type). */
enum {
    TC_GGUF_TT_UNDEFINED = 0, TC_GGUF_TT_NORMAL = 1, TC_GGUF_TT_UNKNOWN = 2, TC_GGUF_TT_CONTROL = 3,
    TC_GGUF_TT_USER_DEFINED = 4, TC_GGUF_TT_UNUSED = 5, TC_GGUF_TT_BYTE = 6
};

/* Special ids read from tokenizer.ggml.<name>_token_id (-1 when absent). */
typedef enum tc_gguf_idkey {
    TC_GGUF_BOS, TC_GGUF_EOS, TC_GGUF_EOT, TC_GGUF_EOM, TC_GGUF_UNK, TC_GGUF_SEP, TC_GGUF_PAD,
    TC_GGUF_CLS, TC_GGUF_MASK, TC_GGUF_FIM_PRE, TC_GGUF_FIM_SUF, TC_GGUF_FIM_MID, TC_GGUF_FIM_PAD,
    TC_GGUF_FIM_REP, TC_GGUF_FIM_SEP, TC_GGUF_NIDS
} tc_gguf_idkey;

/* Flags read from tokenizer.ggml.<name> (-1 when absent). */
typedef enum tc_gguf_flagkey {
    TC_GGUF_ADD_BOS, TC_GGUF_ADD_EOS, TC_GGUF_ADD_SEP, TC_GGUF_ADD_SPACE_PREFIX,
    TC_GGUF_REMOVE_EXTRA_WS, TC_GGUF_TREAT_WS_AS_SUFFIX,
    TC_GGUF_NORM_LOWERCASE, TC_GGUF_NORM_STRIP_ACCENTS,   /* tokenizer.ggml.normalizer.* (WPM) */
    TC_GGUF_NFLAGS
} tc_gguf_flagkey;

/* The name of an id key ("bos", "eos", ...) and of a flag ("add_bos_token", ...). */
const char *tc_gguf_id_name(int k);
const char *tc_gguf_flag_name(int k);

typedef struct tc_gguf_strs {       /* an array of strings, in gguf->pool */
    uint32_t n;
    uint64_t *off;
    uint32_t *len;
} tc_gguf_strs;

typedef struct tc_gguf {
    uint32_t version;
    uint64_t n_tensors, n_kv, file_size;
    uint64_t meta_end;              /* offset just past the last kv */
    tc_buf pool;                    /* string bytes (each NUL-terminated) */
    /* single strings: offset into pool + 1, 0 when absent */
    uint64_t model, pre, arch, name, chat_template;
    tc_gguf_strs tokens, merges;
    float *scores; uint32_t n_scores;
    int32_t *types; uint32_t n_types;
    uint8_t *charsmap; size_t charsmap_len;   /* tokenizer.ggml.precompiled_charsmap */
    int64_t ids[TC_GGUF_NIDS];
    int flags[TC_GGUF_NFLAGS];
} tc_gguf;

/* Parses bytes in memory (the fuzz harness, tests). */
int tc_gguf_parse_mem(const uint8_t *data, size_t len, tc_gguf *g, tc_error *err);
/* Parses a file opened with tc_file_open_guarded: only the metadata is read. */
int tc_gguf_parse_file(const tc_file *f, tc_gguf *g, tc_error *err);
void tc_gguf_free(tc_gguf *g);

/* A single string (model, pre, ...) as a C string, or NULL when absent. */
static inline const char *tc_gguf_str(const tc_gguf *g, uint64_t ref) {
    return ref ? (const char *)g->pool.data + (ref - 1) : NULL;
}
static inline const uint8_t *tc_gguf_at(const tc_gguf *g, const tc_gguf_strs *s, uint32_t i, uint32_t *len) {
    *len = s->len[i];
    return g->pool.data + s->off[i];
}

/* 1 when the bytes start with the GGUF magic. */
int tc_gguf_detect(const uint8_t *data, size_t len);

#endif
