/* spm_model.h - SentencePiece `.model` files: a protobuf reader of our own
 * for ModelProto, and the SentencePiece encode/decode rules on a handle.
 *
 * Does: read pieces (string, score, type), the trainer spec fields encoding
 * depends on, the normalizer spec (name, precompiled charsmap, dummy
 * prefix, extra whitespace, whitespace escaping); normalize as
 * sentencepiece's Normalizer does (user-defined symbols first, then the
 * charsmap's longest match); encode with the BPE model type (score-ordered
 * merges, unused-piece resegmentation); byte_fallback; decode as
 * SentencePieceProcessor::Decode.
 * Does not: sampling (BPE-dropout, n-best), the WORD and CHAR model types,
 * a denormalizer charsmap (refused at load).
 */
#ifndef TC_SPM_MODEL_H
#define TC_SPM_MODEL_H

#include "engine.h"

/* ModelProto.SentencePiece.Type (sentencepiece_model.proto) */
typedef enum tc_spm_type {
    TC_SPM_NORMAL = 1, TC_SPM_UNKNOWN = 2, TC_SPM_CONTROL = 3,
    TC_SPM_USER_DEFINED = 4, TC_SPM_UNUSED = 5, TC_SPM_BYTE = 6
} tc_spm_type;

/* TrainerSpec.ModelType */
typedef enum tc_spm_model_type { TC_SPM_UNIGRAM = 1, TC_SPM_BPE = 2, TC_SPM_WORD = 3, TC_SPM_CHAR = 4 } tc_spm_model_type;

typedef struct tc_spm_piece {
    uint32_t off, len;     /* into tc_spm_proto.pool */
    float score;
    uint32_t score_at;     /* file offset of the score's field key (errors), 0 when absent */
    uint8_t type;          /* tc_spm_type */
} tc_spm_piece;

typedef struct tc_spm_normspec {
    int present;
    char name[64];                       /* truncated copy, for info */
    uint32_t charsmap_off, charsmap_len; /* into pool */
    uint32_t charsmap_at;                /* file offset of the charsmap's bytes (errors) */
    int add_dummy_prefix, remove_extra_whitespaces, escape_whitespaces;
} tc_spm_normspec;

/* What a ModelProto says, parsed (strings in pool). */
typedef struct tc_spm_proto {
    tc_spm_piece *pieces; uint32_t npieces;
    tc_buf pool;
    int model_type;                      /* tc_spm_model_type */
    int byte_fallback, treat_whitespace_as_suffix, allow_whitespace_only_pieces, split_digits;
    int32_t unk_id, bos_id, eos_id, pad_id, vocab_size;
    uint32_t unk_surface_off, unk_surface_len;
    tc_spm_normspec norm, denorm;
} tc_spm_proto;

/* Parses a serialized ModelProto. Errors name the byte offset and field.
 * Returns TC_OK, or an error code with err filled (proto freed). */
int tc_spm_proto_parse(const uint8_t *data, size_t len, tc_spm_proto *out, tc_error *err);
void tc_spm_proto_free(tc_spm_proto *p);

/* One piece of the model's output: bytes [start, start + len) of the
 * normalized text, its id (the unk id, or -1 for an unknown character of a
 * model without an UNKNOWN piece). */
typedef struct tc_spm_seg { uint32_t start, len; int64_t id; } tc_spm_seg;

/* The Unigram model type (spm_unigram.c): the trie of the NORMAL and
 * USER_DEFINED pieces, and the unknown character's score. */
struct tc_unigram;
typedef struct tc_spm_ugm {
    struct tc_unigram *trie;
    float unk_score;       /* min NORMAL score - kUnkPenalty */
} tc_spm_ugm;

/* Builds it from the parsed model; errors (NaN or infinite scores, no
 * piece to match) name the byte offset or the reason. */
int tc_spm_ugm_init(tc_spm_ugm *m, const tc_spm_proto *p, tc_error *err);
void tc_spm_ugm_free(tc_spm_ugm *m);
/* Viterbi over the normalized text t[0..n): the pieces of the best path in
 * *out (grown as needed). With tr, every lattice node is appended to
 * tr->lattice, the best path's marked. Returns 0, -1 on allocation failure. */
int tc_spm_ugm_encode(const tc_spm_ugm *m, const tc_spm_proto *p, int64_t unk_id, const uint8_t *t, size_t n,
                      tc_spm_seg **out, size_t *nout, size_t *cap, tc_trace *tr);

/* The encode-time state of a loaded .model (owned by the handle). */
struct tc_spm;
void tc_spm_free(struct tc_spm *s);

/* pipeline.c / tokenizer.c hooks for a handle with tok->spm set */
/* ids_only: ids and special alone (TC_ENCODE_IDS_ONLY), no trace */
int tc_spm_encode(const tc_tokenizer *tok, const uint8_t *text, size_t len, int ids_only, tc_encoding *out,
                  tc_trace *trace, tc_error *err);
int tc_spm_decode(const tc_tokenizer *tok, const uint32_t *ids, size_t n, tc_buf *out, tc_error *err);
/* The piece type of id (tc_spm_type), 0 when out of range. */
int tc_spm_piece_type(const tc_tokenizer *tok, uint32_t id);

#endif
