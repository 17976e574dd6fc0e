/* engine.h - internal structures shared by the engine's files.
 * Not part of the public API (tokcore.h). */
#ifndef TC_ENGINE_H
#define TC_ENGINE_H

#include "tokcore.h"
#include "normalize.h"
#include "regex.h"

#if defined(__STDC_NO_ATOMICS__)
#error "tokcore needs C11 atomics (<stdatomic.h>): encoder indexes are built lazily and shared by threads"
#endif
#include <stdatomic.h>

/* ---- string -> id table (open addressing, keys in a pool) -------------- */

typedef struct tc_strmap_slot {
    uint32_t id1;         /* id + 1, 0 = empty */
    uint32_t hash;        /* low 32 bits of the key's hash: skips most compares */
    uint32_t off, len;    /* the key in the vocabulary pool: one cache miss less */
} tc_strmap_slot;

typedef struct tc_strmap {
    tc_strmap_slot *slots;
    size_t cap;           /* power of two */
    size_t used;
} tc_strmap;

/* ---- pair -> merge table --------------------------------------------- */

typedef struct tc_merge {
    uint64_t key;         /* (left << 32) | right, UINT64_MAX = empty */
    uint32_t rank, new_id;
} tc_merge;

typedef struct tc_pairmap {
    tc_merge *slots;
    size_t cap, used;
} tc_pairmap;

/* ---- vocabulary ------------------------------------------------------- */

/* Each id has its stored string (as in the file) and its real bytes. */
typedef struct tc_entry {
    uint32_t str_off, str_len;     /* into vocab.pool */
    uint32_t bytes_off, bytes_len; /* into vocab.pool */
    uint8_t present;
} tc_entry;

typedef struct tc_vocab {
    tc_entry *entries;       /* indexed by id, size n */
    uint32_t n;
    tc_buf pool;
    tc_strmap by_str;        /* stored string -> id */
    /* subtle: a deferred by_str (tc_vocab_defer_index: vocab.bin handles)
     * is built by the first tc_vocab_find, which may run on several
     * threads: TC_IX_ABSENT -> BUILDING -> READY, READY published with a
     * release store and tested with an acquire load, as tc_prepare does.
     * by_str_lazy is 0 for a vocabulary indexed at load (by_str_state
     * unused then). */
    int by_str_lazy;
    atomic_int by_str_state;
} tc_vocab;

/* ---- pre-tokenizers --------------------------------------------------- */

typedef enum tc_split_behavior {
    TC_SPLIT_REMOVED, TC_SPLIT_ISOLATED, TC_SPLIT_MERGED_PREV, TC_SPLIT_MERGED_NEXT, TC_SPLIT_CONTIGUOUS
} tc_split_behavior;

typedef enum tc_pretok_kind {
    TC_PT_SPLIT_REGEX, TC_PT_SPLIT_STRING, TC_PT_BYTELEVEL, TC_PT_DIGITS,
    TC_PT_METASPACE,          /* only as the first pre-tokenizer (its text edit is done by pipeline.c) */
    TC_PT_WHITESPACE_SPLIT,   /* split on char::is_whitespace, removed */
    TC_PT_WHITESPACE,         /* \w+|[^\w\s]+ (Rust regex classes), the rest removed */
    TC_PT_PUNCT,              /* Punctuation (BertPreTokenizer's second half): each char split per behavior */
    TC_PT_FIXED_LENGTH,       /* FixedLength: chunks of `length` chars */
    TC_PT_UNICODE_SCRIPTS     /* runs of one script (HF's table and rules), text before the first dropped */
} tc_pretok_kind;

/* LLAMA: llama.cpp's SPM space prefix, on every fragment even one that
 * already starts with the replacement (tokenize: text = ' ' + fragment) */
typedef enum tc_prepend_scheme { TC_PREPEND_ALWAYS, TC_PREPEND_FIRST, TC_PREPEND_NEVER, TC_PREPEND_LLAMA } tc_prepend_scheme;

/* Hand-written scanners that agree with the generic matcher on one
 * well-known pattern each (see pretok.c). */
typedef enum tc_fastpat {
    TC_FAST_NONE = 0, TC_FAST_QWEN2, TC_FAST_CL100K, TC_FAST_GPT2
} tc_fastpat;

typedef struct tc_pretok {
    tc_pretok_kind kind;
    tc_split_behavior behavior;
    int invert;
    tc_regex *re;            /* SPLIT_REGEX, BYTELEVEL with use_regex */
    tc_fastpat fast;
    char *literal; size_t literal_len;  /* SPLIT_STRING */
    int add_prefix_space, use_regex, trim_offsets;
    int individual_digits;
    uint32_t length;         /* FIXED_LENGTH, > 0 */
    /* METASPACE: the replacement char (UTF-8), prepend scheme, split */
    char replacement[8]; size_t replacement_len;
    tc_prepend_scheme prepend_scheme;
    int ms_split;
} tc_pretok;

#define TC_MAX_PRETOK 16

/* ---- added tokens ----------------------------------------------------- */

typedef struct tc_added {
    tc_added_token_spec spec;     /* content points into added_pool */
} tc_added;

/* A byte trie for leftmost-longest matching of added tokens. */
typedef struct tc_trie_node {
    uint32_t child_first;  /* index into trie edges */
    uint16_t nchild;
    int32_t token;         /* index into tok->added, -1 if none ends here */
} tc_trie_node;

typedef struct tc_trie_edge {
    uint8_t byte;
    uint32_t node;
} tc_trie_edge;

typedef struct tc_trie {
    tc_trie_node *nodes; size_t nnodes;
    tc_trie_edge *edges; size_t nedges;
    uint8_t first_byte[256];   /* 1 if some token starts with this byte */
    int only_first;            /* the byte every token starts with (Qwen's '<'), else -1 */
} tc_trie;

/* ---- post-processors and decoders ---------------------------------- */

typedef enum tc_post_kind { TC_POST_BYTELEVEL, TC_POST_TEMPLATE } tc_post_kind;

typedef struct tc_template_piece {
    int is_sequence;           /* 1: $A (the input), 0: a special token */
    uint32_t ids[8]; uint32_t nids;   /* special token ids */
} tc_template_piece;

typedef struct tc_post {
    tc_post_kind kind;
    int trim_offsets, add_prefix_space;
    tc_template_piece *single; size_t nsingle;
} tc_post;

#define TC_MAX_POST 8

/* The decoder: TC_DEC_BYTELEVEL alone (tok->decoder), or a chain of steps
 * over the token strings (tok->dec, HF decode_chain semantics). */
typedef enum tc_decoder_kind {
    TC_DEC_NONE, TC_DEC_BYTELEVEL, TC_DEC_CHAIN,
    TC_DEC_REPLACE, TC_DEC_BYTEFALLBACK, TC_DEC_FUSE, TC_DEC_STRIP, TC_DEC_METASPACE,
    TC_DEC_WORDPIECE,   /* content = prefix, prepend = cleanup */
    TC_DEC_CTC,         /* pat = pad token, content = word delimiter, prepend = cleanup */
    TC_DEC_BPE          /* content = suffix */
} tc_decoder_kind;

typedef struct tc_dec_step {
    tc_decoder_kind kind;                 /* a step: BYTELEVEL or REPLACE.. METASPACE */
    char *pat; size_t pat_len;            /* REPLACE with a String pattern */
    tc_regex *re;                         /* REPLACE with a Regex pattern */
    char *content; size_t content_len;    /* REPLACE: the content; STRIP, METASPACE: the char */
    uint32_t start, stop;                 /* STRIP */
    int prepend;                          /* METASPACE: prepend_scheme is not never */
} tc_dec_step;

#define TC_MAX_DEC 16

/* How a model entry's real bytes derive from its stored string (decided at
 * load from the decoder): */
typedef enum tc_bytes_rule {
    TC_BYTES_RAW = 0,        /* the string itself */
    TC_BYTES_BYTELEVEL = 1,  /* GPT-2 byte-level mapping undone */
    TC_BYTES_SPM = 2         /* SentencePiece: U+2581 -> ' ', "<0xNN>" -> the byte NN */
} tc_bytes_rule;

/* ---- lazily built indexes ------------------------------------------- */

typedef enum tc_index {
    TC_IX_BYTES,     /* model.by_bytes: rank's lookups, merge recovery */
    TC_IX_MERGES,    /* model.merges: bpe */
    TC_IX_GREEDY,    /* greedy: greedy, kestrel-v1/v2 */
    TC_IX_COUNT
} tc_index;

enum { TC_IX_ABSENT = 0, TC_IX_BUILDING = 1, TC_IX_READY = 2 };

/* ---- model ---------------------------------------------------------- */

typedef enum tc_model_kind {
    TC_MODEL_BPE_MERGES, TC_MODEL_BPE_RANK,
    TC_MODEL_WORDPIECE,   /* wordpiece.c: greedy longest-match-first per word */
    TC_MODEL_WORDLEVEL,   /* wordpiece.c: one vocabulary lookup per word */
    TC_MODEL_SPM_LLAMA,    /* llama.cpp's SPM (GGUF "llama"): score-ordered merges, spm.c */
    TC_MODEL_UNIGRAM,         /* unigram.h: Viterbi over piece scores */
    TC_MODEL_WPM_LLAMA,       /* llama.cpp's WPM (GGUF "bert"): its own split, then longest match, wpm.c */
    TC_MODEL_UGM              /* llama.cpp's UGM (GGUF "t5"): its normalizer and Viterbi per fragment, ugm.c */
} tc_model_kind;

struct tc_unigram;
struct tc_pair8;
struct tc_ugm;

typedef struct tc_model {
    tc_model_kind kind;
    tc_vocab vocab;              /* the model's vocabulary */
    tc_pairmap merges;           /* BPE_MERGES */
    tc_strmap by_bytes;          /* BPE_RANK: real bytes -> id */
    int ignore_merges;
    /* every entry's stored string is the byte-level form of its bytes, which by_bytes indexes (a rank
     * file: build_rank_model): ignore_merges' whole-chunk lookup may take the chunk's bytes as they are */
    int whole_by_bytes;
    int bpe_is_rank;             /* the file's reference encoder is tiktoken: `bpe` runs rank BPE */
    int64_t unk_id;              /* -1 none */
    int fuse_unk;
    char *cont_prefix; size_t cont_prefix_len;
    char *eow_suffix; size_t eow_suffix_len;
    int64_t byte_ids[256];       /* byte-level: id of each single byte, -1 if absent */
    int byte_fallback;
    int64_t fallback_ids[256];   /* id of "<0xNN>", -1 if absent */
    uint32_t max_input_chars_per_word;   /* WORDPIECE: a longer word is the unk token */
    uint32_t max_key_len;        /* WORDPIECE, WORDLEVEL, WPM_LLAMA: the longest vocabulary string (bytes) */
    int wpm_lowercase, wpm_strip_accents;   /* WPM_LLAMA: llama.cpp's normalizer options */
    int newline_runs_whole;      /* BPE_MERGES: a chunk of only '\n' that is a token is that token (gemma4) */
    float *scores;               /* SPM_LLAMA: each id's score (owned), else NULL */
    struct tc_unigram *unigram;  /* UNIGRAM: scores and trie */
    struct tc_ugm *ugm;          /* UGM: tries, scores, charsmap (ugm.h) */
} tc_model;

struct tc_tokenizer {
    tc_model model;
    int byte_level;              /* the model sees byte-level mapped chars */
    tc_normalizer normalizer; int has_normalizer;
    tc_pretok pretok[TC_MAX_PRETOK]; int npretok;
    tc_post post[TC_MAX_POST]; int npost;
    tc_decoder_kind decoder;     /* NONE, BYTELEVEL (alone) or CHAIN (dec[]) */
    tc_dec_step dec[TC_MAX_DEC]; int ndec;
    tc_bytes_rule bytes_rule;    /* the model entries' real bytes (vocab.c) */
    int drop_missing_bytes;      /* a byte without a token is dropped, not refused at load
                                  * (GGUF: llama.cpp's llm_tokenizer_bpe_session::tokenize) */
    /* added tokens */
    tc_added *added; size_t nadded, added_cap;
    tc_buf added_pool;
    tc_trie trie_raw, trie_norm;  /* normalized=false / normalized=true */
    int tries_built;
    uint32_t *added_by_id; size_t added_by_id_n; /* id -> added index + 1, 0 none */
    tc_buf describe;
    struct tc_greedy *greedy;    /* longest-match index (tc_prepare), NULL until built */
    struct tc_spm *spm;          /* a SentencePiece .model (spm_model.c): its own encode and decode */
    /* subtle: the three lazily built indexes (tc_prepare) are shared by
     * threads. Each has a state: one thread moves it ABSENT -> BUILDING,
     * fills the fields, and publishes READY with a release store; readers
     * test READY with an acquire load (tc_is_prepared) before they touch
     * the fields, so nobody sees a half-built table. */
    atomic_int ix_state[TC_IX_COUNT];
    /* chunk -> tokens results shared by all encodes (chunk_cache.c): made on
     * first use and published with a compare-and-swap; its entries are
     * immutable once published, so readers take no lock */
    _Atomic(struct tc_chunk_cache *) chunk_cache;
    /* the backtracking encoder's tables per mode (0 merges, 1 rank), bpe_bt.c: built on the first long
     * chunk and published with a compare-and-swap, immutable after */
    _Atomic(struct tc_bt *) bt[2];
    atomic_size_t bt_heap_bytes;   /* long-chunk bytes the heap encoded while bt was not built (bpe.c) */
    /* the merges in 8-byte slots (pair8.c): built on the first BPE chunk, published as bt */
    _Atomic(struct tc_pair8 *) pair8;
    /* the longest vocabulary string in bytes, + 1 (0: not measured yet): bpe.c skips the whole-chunk
     * lookup of ignore_merges for a longer chunk. Every thread that measures it stores the same value */
    _Atomic uint32_t vocab_longest1;
};

/* vocab.c */
uint64_t tc_hash_bytes(const uint8_t *p, size_t n);
int tc_vocab_init(tc_vocab *v, uint32_t n);
/* rule: a tc_bytes_rule (0 raw, 1 byte-level, 2 SentencePiece) */
int tc_vocab_set(tc_vocab *v, uint32_t id, const uint8_t *s, size_t len, int rule, tc_error *err);
/* Byte-level entries from their real bytes (entry i: id ids[i], bytes
 * bytes[offs[i]..+lens[i]]): the stored string is their GPT-2 mapping, the
 * pool the same as tc_vocab_set(..., TC_BYTES_BYTELEVEL) of that string
 * gives, without decoding it back. On error *bad is the entry's index. */
int tc_vocab_fill_real(tc_vocab *v, size_t n, const uint32_t *ids, const uint8_t *bytes, const uint32_t *offs,
                       const uint32_t *lens, size_t *bad, tc_error *err);
int tc_vocab_build_index(tc_vocab *v, tc_error *err);
/* Leaves by_str to the first tc_vocab_find (see tc_vocab.by_str_lazy). A
 * lookup that cannot build it (out of memory) scans the entries instead:
 * slower, never a different answer. */
void tc_vocab_defer_index(tc_vocab *v);
/* 1 when by_str exists (built at load, or built lazily since). */
int tc_vocab_index_ready(const tc_vocab *v);
/* The lowest id whose stored string is s, by one pass over the entries
 * (what tc_vocab_find answers, without the index), -1 if none. */
int64_t tc_vocab_scan(const tc_vocab *v, const uint8_t *s, size_t len);
int64_t tc_vocab_find(const tc_vocab *v, const uint8_t *s, size_t len);
void tc_vocab_free(tc_vocab *v);
int tc_fallback_byte(const uint8_t *s, size_t len);   /* "<0xNN>" -> NN, else -1 */
int tc_strmap_build(tc_strmap *m, const tc_vocab *v, int by_bytes, tc_error *err);
int64_t tc_strmap_find(const tc_strmap *m, const tc_vocab *v, int by_bytes, const uint8_t *s, size_t len);
int64_t tc_strmap_find_h(const tc_strmap *m, const tc_vocab *v, const uint8_t *s, size_t len, uint64_t h);
static inline void tc_strmap_prefetch(const tc_strmap *m, uint64_t h) {
#if defined(__GNUC__)
    if (m->slots) __builtin_prefetch(&m->slots[(size_t)(h >> 32) & (m->cap - 1)]);
#else
    (void)m; (void)h;
#endif
}
void tc_strmap_free(tc_strmap *m);
int tc_pairmap_init(tc_pairmap *m, size_t expected);
int tc_pairmap_put(tc_pairmap *m, uint32_t a, uint32_t b, uint32_t rank, uint32_t new_id);
static inline size_t tc_pair_hash(uint64_t key) {
    key ^= key >> 33;
    key *= 0xFF51AFD7ED558CCDull;
    key ^= key >> 33;
    return (size_t)key;
}
/* tc_pairmap_get for key (a << 32 | b) whose tc_pair_hash the caller has: h */
static inline const tc_merge *tc_pairmap_get_h(const tc_pairmap *m, uint64_t key, size_t h) {
    if (!m->slots) return NULL;
    size_t mask = m->cap - 1, i = h & mask;
    for (;;) {
        const tc_merge *s = &m->slots[i];
        if (s->key == key) return s;
        if (s->key == UINT64_MAX) return NULL;
        i = (i + 1) & mask;
    }
}
static inline const tc_merge *tc_pairmap_get(const tc_pairmap *m, uint32_t a, uint32_t b) {
    uint64_t key = ((uint64_t)a << 32) | b;
    return tc_pairmap_get_h(m, key, tc_pair_hash(key));
}
static inline void tc_pairmap_prefetch(const tc_pairmap *m, uint32_t a, uint32_t b) {
#if defined(__GNUC__)
    if (m->slots) __builtin_prefetch(&m->slots[tc_pair_hash(((uint64_t)a << 32) | b) & (m->cap - 1)]);
#else
    (void)m; (void)a; (void)b;
#endif
}
void tc_pairmap_free(tc_pairmap *m);
static inline const uint8_t *tc_entry_str(const tc_vocab *v, uint32_t id) { return v->pool.data + v->entries[id].str_off; }
static inline const uint8_t *tc_entry_bytes(const tc_vocab *v, uint32_t id) { return v->pool.data + v->entries[id].bytes_off; }

/* byte-level mapping (GPT-2 bytes_to_unicode) */
uint32_t tc_byte_to_cp(uint8_t b);
int tc_cp_to_byte(uint32_t cp);   /* -1 if cp is not a mapped char */
/* Converts a byte-level string to real bytes; returns 0 if every char is
 * mapped, 1 if not (then out holds the raw UTF-8 copy), -1 on OOM. */
int tc_bytelevel_unmap(const uint8_t *s, size_t len, tc_buf *out);

/* greedy_enc.c: the greedy encoder on a handle */
int tc_greedy_prepare(tc_tokenizer *tok, tc_error *err);
int tc_greedy_run(const tc_tokenizer *tok, const uint8_t *text, size_t len, int ids_only, tc_encoding *out,
                  tc_trace *trace, tc_error *err);
void tc_greedy_release(tc_tokenizer *tok);

/* load_other.c: merges of a rank vocabulary (vocab.bin handles build them on demand) */
int tc_recover_merges(tc_tokenizer *tok, tc_error *err);

/* wordpiece.c: a piece's real bytes are its text in the word: "##ing" is
 * "ing" (the stored string keeps the prefix) */
void tc_wordpiece_set_bytes(tc_model *m);

/* pipeline.c: room for `need` tokens in an encoding (ids, offsets, specials); -1 on OOM */
int tc_encoding_reserve(tc_encoding *e, size_t need);
/* Grows ids and special alone (ids-only encodes); offsets follow on the next tc_encoding_reserve. */
int tc_encoding_reserve_ids(tc_encoding *e, size_t need);

/* batch.c: tc_encode_batch whose text i goes to dsts[i] (dsts NULL: outs + i; outs may then be NULL) */
int tc_batch_into(const tc_tokenizer *tok, const uint8_t *const *texts, const size_t *lens, size_t n,
                  int add_special_tokens, tc_encoder encoder, unsigned flags, unsigned threads,
                  tc_encoding *outs, tc_encoding *const *dsts, size_t *failed, tc_error *err);

/* tokenizer.c */
tc_tokenizer *tc_tokenizer_new(void);
int tc_tokenizer_finish(tc_tokenizer *tok, tc_error *err); /* builds byte ids, indexes */
int tc_model_init_bytes(tc_tokenizer *tok, tc_error *err);

#endif
