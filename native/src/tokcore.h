/* tokcore.h - public API of the tokcore engine.
 *
 * One handle per loaded tokenizer (no global state). A handle is immutable
 * after loading, so any number of threads may encode/decode with it at once.
 * Loading takes file contents from memory; reading files is the caller's
 * job (platform.h has a helper).
 *
 * Offsets: every span is a byte range into the ORIGINAL input, with HF
 * `tokenizers` semantics (normalization, added-token stripping, ByteLevel
 * trim_offsets); char offsets are the same spans in code points (an invalid
 * UTF-8 byte counts as one character), converted as the HF Python binding
 * does.
 */
#ifndef TOKCORE_H
#define TOKCORE_H

#include "common.h"

#define TC_VERSION "0.1.0"

/* Limits, named and enforced. */
#define TC_MAX_INPUT_BYTES 0x7fffffffu    /* one text */
#define TC_MAX_VOCAB 16000000u            /* ids must be below this */
#define TC_MAX_TOKEN_BYTES 65536u         /* one vocabulary entry */

typedef struct tc_tokenizer tc_tokenizer;

typedef enum tc_format {
    TC_FORMAT_UNKNOWN = 0,
    TC_FORMAT_HF_JSON,      /* tokenizer.json */
    TC_FORMAT_VOCAB_JSON,   /* GPT-2 vocab.json (needs merges.txt) */
    TC_FORMAT_MERGES_TXT,   /* GPT-2 merges.txt */
    TC_FORMAT_TIKTOKEN,     /* base64 rank file */
    TC_FORMAT_VOCAB_BIN,    /* the board's vocab.bin */
    TC_FORMAT_SPM_MODEL,    /* SentencePiece ModelProto (protobuf) */
    TC_FORMAT_TEKKEN,       /* Mistral tekken.json (config / vocab / special_tokens) */
    TC_FORMAT_WORDPIECE_TXT,/* BERT vocab.txt, one token per line */
    TC_FORMAT_GGUF          /* GGUF model file (magic "GGUF") */
} tc_format;

/* The format of a file from its contents (detect.c): at most the first
 * 256 KiB are looked at (plus the structural walk of a vocab.bin). */
tc_format tc_detect_format(const uint8_t *data, size_t len);
/* "a tokenizer.json", "a SentencePiece model", ... */
const char *tc_format_name(tc_format f);
/* What a file that is no tokenizer is, from its magic number or shape
 * ("a PNG image", "an empty file", "a model config.json"), or NULL. */
const char *tc_detect_other(const uint8_t *data, size_t len);
/* Sets err to the sentence for a file of no format the engine loads:
 * "<path>: a PNG image, not a tokenizer", or what it is not (a binary
 * file: what its reading as a vocab.bin says). Returns the error code. */
int tc_refuse_file(const char *path, const uint8_t *data, size_t len, tc_error *err);
/* "<path>: a SentencePiece model: not supported yet". */
int tc_refuse_unsupported(const char *path, tc_format f, tc_error *err);

/* ---- loading ---------------------------------------------------------- */

/* Before a file is read whole: a file above 64 MiB whose first MiB is none
 * of the formats (nor a plausible vocab.bin) is refused from that MiB, with
 * the reason; TC_OK otherwise (small files are judged by their loader). */
int tc_precheck_file(const char *path, size_t max_bytes, tc_error *err);

tc_tokenizer *tc_load_hf_json(const uint8_t *data, size_t len, tc_error *err);
/* tc_load_hf_json with a load cache of a BPE model's vocabulary and merge
 * tables (load_cache.h): key is the sha256 of data (the caller's). The
 * cache file at cache_path (may be NULL; a missing or unreadable file is
 * a miss) is used only when it is valid for this file and engine;
 * *hit says whether it was. On a miss with a BPE model, the cache to store
 * is appended to new_cache (may be NULL). Ids, tokens, offsets and
 * describe() are the same either way. */
tc_tokenizer *tc_load_hf_json_cached(const uint8_t *data, size_t len, const uint8_t key[32], const char *cache_path,
                                     int *hit, tc_buf *new_cache, tc_error *err);

/* The cache hit alone, reading the file at path (file_len bytes, sha256
 * key: the caller hashed it) only around the two cached values. NULL with
 * err->code TC_OK on anything short of a hit (no valid cache, the file
 * changed or cannot be read, the cached load refuses): the caller then
 * reads the file and calls tc_load_hf_json_cached. */
tc_tokenizer *tc_load_hf_json_file_hit(const char *path, uint64_t file_len, const uint8_t key[32],
                                       const char *cache_path, tc_error *err);

/* GPT-2 style vocab.json + merges.txt (with or without "#version" line),
 * built as HF does for GPT-2: ByteLevel pre-tokenizer (GPT-2 regex), BPE,
 * ByteLevel decoder. */
tc_tokenizer *tc_load_gpt2(const uint8_t *vocab, size_t vocab_len,
                           const uint8_t *merges, size_t merges_len, tc_error *err);

/* Pattern presets for rank files. */
typedef enum tc_preset {
    TC_PRESET_QWEN2 = 0, /* Qwen2/2.5/3 pattern, NFC (as Qwen's own tokenizer) */
    TC_PRESET_CL100K,
    TC_PRESET_O200K,
    TC_PRESET_LLAMA3,
    TC_PRESET_GPT2,
    TC_PRESET_QWEN35,       /* Qwen3.5/3.6: the pattern with \p{M}, NFC, 33 added tokens from 248044 */
    TC_PRESET_O200K_HARMONY, /* o200k_base ranks with gpt-oss's harmony special tokens */
    TC_PRESET_BERT_UNCASED, /* a BERT vocab.txt: BertWordPieceTokenizer(vocab, lowercase=True) */
    TC_PRESET_BERT_CASED    /* ... lowercase=False; both refused for rank and vocab.json files */
} tc_preset;

int tc_preset_from_name(const char *name, tc_preset *out);
/* The preset's canonical name ("qwen2", "qwen3.5", ...). */
const char *tc_preset_name(tc_preset p);

/* vocab.json + merges.txt with the pipeline of a preset (GPT-2: ByteLevel
 * with its regex; others: Split with the preset's pattern, then ByteLevel). */
tc_tokenizer *tc_load_vocab_merges(const uint8_t *vocab, size_t vocab_len, const uint8_t *merges,
                                   size_t merges_len, tc_preset preset, tc_error *err);

/* A plain WordPiece vocab.txt (one token per line, id = line number), with
 * the pipeline of HF's BertWordPieceTokenizer(vocab, lowercase=...)
 * (tokenizers 0.23.3, bindings/python/py_src/tokenizers/implementations/
 * bert_wordpiece.py): BertNormalizer, BertPreTokenizer, WordPiece ("[UNK]",
 * "##", 100 chars), [CLS] $A [SEP], WordPiece decoder; [UNK] [SEP] [CLS]
 * [PAD] [MASK] special when in the vocabulary. preset: TC_PRESET_BERT_UNCASED
 * or TC_PRESET_BERT_CASED. Refused with the line and reason: invalid UTF-8,
 * no [UNK], [SEP] or [CLS]. */
tc_tokenizer *tc_load_wordpiece_vocab(const uint8_t *data, size_t len, tc_preset preset, tc_error *err);

/* tiktoken rank file ("base64 rank" per line). A preset made for another
 * file is refused with both numbers: one whose added tokens would take ids
 * that are ordinary ranks of the file, or whose vocabulary has another size
 * than the file's ranks (gpt2 has no fixed size). */
tc_tokenizer *tc_load_tiktoken(const uint8_t *data, size_t len, tc_preset preset, tc_error *err);

/* Mistral Tekken tokenizer JSON, as mistral-common 1.13.1's Tekkenizer
 * (mistral_common/tokens/tokenizers/tekken.py): the first
 * default_vocab_size - default_num_special_tokens entries of "vocab" are
 * tiktoken ranks (base64 bytes), shifted up by the number of special tokens;
 * ids 0..default_num_special_tokens-1 are the special tokens (the file's
 * "special_tokens", or the deprecated list for files up to v7, then
 * "<SPECIAL_n>" fillers), never matched in text; "config.pattern" splits;
 * add_special_tokens prepends <s>. Errors name the JSON path. */
tc_tokenizer *tc_load_tekken(const uint8_t *data, size_t len, tc_error *err);

/* The board's vocab.bin (see vocabbin.h). The entries at the highest ids
 * that look like "<...>" become added tokens (special per the preset's list,
 * else special); the others form a rank model (id = rank), with the
 * preset's pre-tokenizer for `bpe`/`rank`; the greedy index is built. */
tc_tokenizer *tc_load_vocabbin(const uint8_t *data, size_t len, tc_preset preset, tc_error *err);

/* A SentencePiece .model (serialized ModelProto), encoded and decoded as
 * the sentencepiece package does (spm_model.h says what is supported). */
tc_tokenizer *tc_load_spm_model(const uint8_t *data, size_t len, tc_error *err);
/* A SentencePiece piece's score and type name ("normal", "unknown",
 * "control", "user_defined", "unused", "byte"); NULL when the handle is not
 * a .model or id is not a piece. */
const char *tc_spm_piece_info(const tc_tokenizer *tok, uint32_t id, float *score);

/* The tokenizer of a GGUF file (tokenizer.ggml.* metadata), encoding as
 * llama.cpp does (load_gguf.c says which vocabulary and pre types).
 * parse_special: llama.cpp's parse_special (CONTROL tokens in the text are
 * matched as themselves; USER_DEFINED tokens always are). The _file form
 * reads only the header, through guarded reads (a multi-GB model opens at
 * once); errors name the file offset and the reason. */
tc_tokenizer *tc_load_gguf(const uint8_t *data, size_t len, int parse_special, tc_error *err);
tc_tokenizer *tc_load_gguf_file(const char *path, int parse_special, tc_error *err);

/* Adds an added token (as HF add_tokens/add_special_tokens with an explicit
 * id). Only before the first encode. Returns TC_OK or an error code. */
typedef struct tc_added_token_spec {
    const char *content; size_t content_len;
    uint32_t id;
    int special, lstrip, rstrip, single_word, normalized;
    int not_in_text;   /* 1: never matched in input text (Tekken's special tokens: mistral-common
                        * encodes text with tiktoken given no special tokens); ids and decode only */
    int ascii_strip;   /* 1: lstrip/rstrip remove ASCII whitespace only (llama.cpp's tokenizer_st_partition
                        * tests isspace() on bytes), not every Unicode space as HF does */
} tc_added_token_spec;
int tc_add_tokens(tc_tokenizer *tok, const tc_added_token_spec *specs, size_t n, tc_error *err);

void tc_free(tc_tokenizer *tok);

/* ---- queries ---------------------------------------------------------- */

uint32_t tc_vocab_size(const tc_tokenizer *tok);   /* max id + 1 over model and added */
/* Token string as stored (e.g. "Ġapple"); NULL for an unknown id. */
const char *tc_id_to_token(const tc_tokenizer *tok, uint32_t id, size_t *len);
/* The token's real bytes (byte-level mapping undone); NULL for unknown id. */
const uint8_t *tc_id_to_bytes(const tc_tokenizer *tok, uint32_t id, size_t *len);
/* -1 when absent. Added tokens first, then the model vocabulary. */
int64_t tc_token_to_id(const tc_tokenizer *tok, const char *s, size_t len);
int tc_is_special(const tc_tokenizer *tok, uint32_t id);
int tc_is_added(const tc_tokenizer *tok, uint32_t id);
size_t tc_added_count(const tc_tokenizer *tok);
const tc_added_token_spec *tc_added_at(const tc_tokenizer *tok, size_t i);
/* A JSON object describing the pipeline components (for `info`). Owned by
 * the handle. */
const char *tc_describe(const tc_tokenizer *tok);

/* ---- encoding --------------------------------------------------------- */

typedef struct tc_encoding {
    size_t n, cap;
    uint32_t *ids;
    uint32_t *offsets;       /* 2n: original byte offsets [start, end) */
    uint32_t *char_offsets;  /* 2n: the same in code points */
    uint8_t *special;        /* 1 for a special added token matched in the text, or one the
                              * template added; tokens of the model are never special */
    size_t off_cap;          /* entries allocated in offsets and char_offsets (an ids-only encode
                              * grows ids and special alone) */
} tc_encoding;

/* Trace of one encode: normalized text, chunks, merge steps. */
typedef struct tc_trace_chunk {
    uint32_t norm_start, norm_end;   /* range in trace->normalized */
    uint32_t orig_start, orig_end;   /* original byte span */
    int64_t added_id;                /* >= 0: this chunk is an added token match */
    uint32_t sym_first, sym_count;   /* initial symbols in trace->syms */
    uint32_t step_first, step_count; /* merge steps in trace->steps */
    uint32_t tok_first, tok_count;   /* resulting tokens in the encoding */
    uint8_t prefix_space;            /* ByteLevel add_prefix_space added one */
    uint32_t lat_first, lat_count;   /* Unigram: this chunk's lattice nodes in trace->lattice */
} tc_trace_chunk;

/* One node of a Unigram lattice: a piece (or an unknown char) that starts
 * at byte `start` of the chunk, its score, the score of the best path that
 * ends with it, and whether the best path took it. */
typedef struct tc_trace_lattice_node {
    uint32_t start, len;
    uint32_t id;          /* piece id; for an unknown char the unk id (0xFFFFFFFF: none) */
    double score, path_score;
    uint8_t unk, best, pad[2];
} tc_trace_lattice_node;

typedef struct tc_trace_step {
    uint32_t pos;      /* index of the left symbol of the pair in the current list */
    uint32_t rank;     /* merge rank (rank model: the new token's rank) */
    uint32_t left, right, new_id;
} tc_trace_step;

/* One step of the greedy encoder: where it stood, what it chose (id, or
 * 0xFFFFFFFF for a dropped byte), and the candidates it considered (every
 * entry that was a prefix there, shortest first). */
typedef struct tc_trace_greedy_step {
    uint32_t pos, chosen, chosen_len, cand_first, cand_count;
} tc_trace_greedy_step;

/* One step of a kestrel encoder (the layout of kestrel.h's tc_kestrel_step:
 * where it began, the spaces it skipped, the special limit, the token and
 * the rule that chose it, what the "Ġ" retry did). */
typedef struct tc_trace_kestrel_step {
    uint32_t pos, at, spaces, limit, id, consumed, retry_id, retry_len, unguarded;
    uint8_t rule, retry, pad[2];
} tc_trace_kestrel_step;

typedef struct tc_trace {
    tc_trace_greedy_step *gsteps; size_t ngsteps;   /* greedy encoder only */
    tc_trace_kestrel_step *ksteps; size_t nksteps;  /* kestrel encoders only */
    uint32_t *gcands; size_t ngcands;
    tc_buf normalized;          /* concatenated normalized text of all segments */
    tc_span *norm_align; size_t norm_align_cap;  /* one original span per normalized byte */
    tc_trace_chunk *chunks; size_t nchunks, chunks_cap;
    uint32_t *syms; size_t nsyms, syms_cap;       /* initial symbol ids per chunk */
    tc_trace_step *steps; size_t nsteps, steps_cap;
    int normalized_changed;     /* normalization changed the text somewhere */
    tc_trace_lattice_node *lattice; size_t nlattice, lattice_cap;   /* Unigram models */
} tc_trace;

/* Encoders. bpe: HF-exact BPE with merge ranks. rank: tiktoken's BPE (the
 * pair whose concatenated bytes have the lowest id merges first; a chunk
 * that is a token is that token), in the same pre-tokenizer chunks. greedy:
 * the ideal longest-prefix match over the vocab.bin representation,
 * specials first, no normalizer, no pre-tokenizer, no post-processor.
 * kestrel-v1, kestrel-v2: the real board engine's encoder (kestrel.h), over
 * the same index; add_special_tokens has no effect on greedy and kestrel. */
typedef enum tc_encoder { TC_ENC_BPE = 0, TC_ENC_RANK, TC_ENC_GREEDY, TC_ENC_KESTREL_V1, TC_ENC_KESTREL_V2 } tc_encoder;

/* The encoder's name ("bpe", "rank", "greedy", "kestrel-v1", "kestrel-v2"),
 * and back (-1: unknown). */
const char *tc_encoder_name(tc_encoder enc);
int tc_encoder_from_name(const char *name, tc_encoder *enc);

/* Builds what an encoder needs beyond loading (bpe on a vocab.bin: the
 * recovered merges; rank: a bytes -> id index; greedy: the longest-match
 * index). Idempotent. Not thread-safe: call it
 * before sharing the handle between threads. */
int tc_prepare(tc_tokenizer *tok, tc_encoder enc, tc_error *err);
int tc_is_prepared(const tc_tokenizer *tok, tc_encoder enc);
/* The bytes per slot of the merges table an untraced merges-file encode reads: 8 (the packed table,
 * pair8.c: built here if not yet), 16 (the file's ranks: it does not qualify), 0 (no merges table, or
 * out of memory). For tests and describe-style reports; the ids never depend on it. */
int tc_merge_table_slot_bytes(const tc_tokenizer *tok);

/* Encodes text[0..len) (UTF-8; invalid bytes are accepted as single units
 * by the byte-level path). out is reset and filled; trace may be NULL.
 * Returns TC_OK or an error code with err filled. */
int tc_encode(const tc_tokenizer *tok, const uint8_t *text, size_t len, int add_special_tokens,
              tc_encoding *out, tc_trace *trace, tc_error *err);

int tc_encode_ex(const tc_tokenizer *tok, const uint8_t *text, size_t len, int add_special_tokens,
                 tc_encoder encoder, tc_encoding *out, tc_trace *trace, tc_error *err);

/* Flags of tc_encode_flags / tc_encode_batch. */
#define TC_ENCODE_IDS_ONLY 1u   /* ids and special mask only: no per-token byte or char offsets are
                                 * computed, and out->offsets / out->char_offsets are neither grown
                                 * nor written (they may stay NULL); the ids equal a full encode's */

/* tc_encode_ex with flags (0: the full encode). TC_ENCODE_IDS_ONLY with a
 * trace is refused (a trace is made of offsets). */
int tc_encode_flags(const tc_tokenizer *tok, const uint8_t *text, size_t len, int add_special_tokens,
                    tc_encoder encoder, unsigned flags, tc_encoding *out, tc_trace *trace, tc_error *err);

/* Encodes texts[i] (lens[i] bytes; texts[i] may be NULL when lens[i] is 0)
 * into outs[i] for every i < n, on `threads` threads over this one handle
 * (0 or 1: the calling thread alone; at most TC_MAX_THREADS and n). outs is
 * the caller's array of n tc_encoding (zeroed, or reused from an earlier
 * call), freed by the caller with tc_encoding_free. Workers take the next
 * text from a shared counter, so a batch mixing huge and tiny texts keeps
 * every thread busy. The encoder must be prepared (tc_prepare) first. On an
 * error, err is the one of the lowest failing index, written to *failed
 * (when not NULL), and the outs of other texts are unspecified. */
int tc_encode_batch(const tc_tokenizer *tok, const uint8_t *const *texts, const size_t *lens, size_t n,
                    int add_special_tokens, tc_encoder encoder, unsigned flags, unsigned threads,
                    tc_encoding *outs, size_t *failed, tc_error *err);

/* ---- long texts shared by the threads (batch_cut.c) ---------------------

   An anchor is a byte position p of a text where text[p-1] is '\n' and the
   character at p is stable: an ASCII letter or U+4E00-U+9FFF. For pipelines
   local at anchors (the caller checks: tokinspect.core.anchors), a text cut
   at anchors encodes piece by piece to its own tokens when each piece also
   carries the stable character after its cut (its "tail"), whose own tokens
   are dropped again. */
typedef struct tc_cut_piece {
    size_t text;     /* the caller's index of the text */
    size_t start;    /* the piece's first byte in its text */
    size_t keep;     /* bytes kept: up to the next cut (or the text's end) */
    size_t tail;     /* bytes of the stable character after the cut (0: the text's last piece) */
} tc_cut_piece;

/* The pieces of a batch for `threads` threads: each text of at least twice
 * target = max(min_piece, total bytes / (threads * per_thread) + 1) bytes,
 * at most TC_MAX_INPUT_BYTES (a longer one stays whole, for its own encode
 * to refuse), that is valid UTF-8 (utf8_ok[i] nonzero: known to be, e.g. a Python str;
 * utf8_ok NULL: every text is checked) is cut at anchors near every target
 * bytes; the others are one piece each. *out (malloc'd, the caller frees) and
 * *npieces are set; *out is NULL and *npieces 0 when no text is cut, or when
 * threads < 2 or min_piece is 0. Returns -1 on OOM (*out NULL). */
int tc_cut_plan(const uint8_t *const *texts, const size_t *lens, const uint8_t *utf8_ok, size_t n, unsigned threads,
                size_t min_piece, size_t per_thread, tc_cut_piece **out, size_t *npieces);

/* The encodings tc_encode_batch_cut needs besides outs for these pieces: one
 * per piece that is not its text's first, one per tail. */
size_t tc_cut_scratch(const tc_cut_piece *ps, size_t np);

/* tc_encode_batch over the pieces of tc_cut_plan (ps NULL: the texts whole),
 * shared by the threads; outs[i] is still text i's whole encoding, equal to
 * its own encode (each join is checked: a piece whose tail tokens are not the
 * tail's own, or whose kept tokens do not end at the cut, makes that text be
 * encoded whole). The pipeline must be local at anchors (the caller's check).
 * scratch: nscratch caller-owned encodings (zeroed or reused, as outs) for
 * the pieces after each text's first and the tails; fewer than
 * tc_cut_scratch's count (or NULL): the call makes and frees its own. A
 * failed piece makes the whole batch run again uncut, so the error is
 * tc_encode_batch's, naming the caller's index. */
int tc_encode_batch_cut(const tc_tokenizer *tok, const uint8_t *const *texts, const size_t *lens, size_t n,
                        const tc_cut_piece *ps, size_t np, int add_special_tokens, tc_encoder encoder, unsigned flags,
                        unsigned threads, tc_encoding *outs, tc_encoding *scratch, size_t nscratch, size_t *failed,
                        tc_error *err);

void tc_encoding_free(tc_encoding *enc);
void tc_trace_free(tc_trace *tr);

/* Decodes ids into bytes (HF semantics: unknown ids skipped; the caller
 * turns bytes into text with U+FFFD for invalid sequences). */
int tc_decode(const tc_tokenizer *tok, const uint32_t *ids, size_t n, int skip_special_tokens,
              tc_buf *out, tc_error *err);

/* ---- sampler workspace (sampler.h has the parameters and the result) ---------

   A workspace holds every array a sampler run needs (stage records, draw plan,
   scratch), so that a caller running the sampler again and again (a slider
   being dragged) allocates nothing per run: create one per thread, pass it to
   every tc_sampler_run_ws call. Sized for n_vocab logits at creation; a run
   that needs more grows it once (the next run folds the growth into one block).
   The result of a run points into the workspace: it stays valid until the next
   run on the same workspace or tc_sampler_ws_free; tc_sresult_free on it only
   clears it. Not thread-safe: one workspace, one run at a time. */
typedef struct tc_sampler_ws tc_sampler_ws;
struct tc_sampler_params;
struct tc_sresult;
tc_sampler_ws *tc_sampler_ws_new(uint32_t n_vocab);   /* NULL when out of memory */
void tc_sampler_ws_free(tc_sampler_ws *ws);
size_t tc_sampler_ws_bytes(const tc_sampler_ws *ws);  /* memory it holds */
int tc_sampler_run_ws(tc_sampler_ws *ws, const float *logits, uint32_t n, const struct tc_sampler_params *p,
                      struct tc_sresult *out, tc_error *err);

#endif
