/* spm_proto.c - a protobuf wire-format reader for SentencePiece's ModelProto.
 *
 * Does: the wire format (varints, 64-bit, length-delimited, 32-bit fields;
 * unknown fields skipped) for the messages of sentencepiece_model.proto
 * (google/sentencepiece, as shipped in the sentencepiece 0.2.3 sdist):
 * ModelProto.pieces (piece, score, type), trainer_spec (the fields encode
 * and decode depend on) and normalizer_spec / denormalizer_spec. Every
 * error names the byte offset, the field and the reason.
 * Does not: groups (wire types 3/4, absent from proto2 files written by
 * sentencepiece), packed repeated fields (ModelProto has none), validation
 * of the pieces (spm_model.c does that).
 */
#include "spm_model.h"
#include <stdio.h>

/* A message being read: bytes [pos, end) of the file. */
typedef struct pb_reader {
    const uint8_t *d;
    size_t pos, end;
    const char *where;     /* the message's path, for errors */
} pb_reader;

enum { PB_VARINT = 0, PB_I64 = 1, PB_LEN = 2, PB_SGROUP = 3, PB_EGROUP = 4, PB_I32 = 5 };

static int pb_fail(const pb_reader *r, size_t at, tc_error *err, const char *field, const char *reason) {
    return tc_error_set(err, TC_ERR_FORMAT, "SentencePiece model: at byte offset %zu (%s%s%s): %s", at, r->where,
                        field ? "." : "", field ? field : "", reason);
}

/* Base-128 varint, at most 10 bytes (protobuf's encoding of a 64-bit value). */
static int pb_varint(pb_reader *r, uint64_t *v, tc_error *err, const char *field) {
    size_t at = r->pos;
    uint64_t x = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        if (r->pos >= r->end) return pb_fail(r, at, err, field, "truncated varint (the message ends inside it)");
        uint8_t b = r->d[r->pos++];
        if (shift == 63 && (b & 0x7E)) return pb_fail(r, at, err, field, "varint overflows 64 bits");
        x |= (uint64_t)(b & 0x7F) << shift;
        if (!(b & 0x80)) { *v = x; return TC_OK; }
    }
    return pb_fail(r, at, err, field, "varint longer than 10 bytes");
}

static int pb_key(pb_reader *r, uint32_t *field, int *wt, size_t *at, tc_error *err) {
    uint64_t k;
    *at = r->pos;
    int rc = pb_varint(r, &k, err, NULL);
    if (rc) return rc;
    *wt = (int)(k & 7);
    if ((k >> 3) == 0 || (k >> 3) > 0x1FFFFFFF) return pb_fail(r, *at, err, NULL, "field number 0 or above 2^29-1 in a field key");
    *field = (uint32_t)(k >> 3);
    if (*wt == PB_SGROUP || *wt == PB_EGROUP) return pb_fail(r, *at, err, NULL, "group wire type (3/4), which ModelProto never uses");
    if (*wt > PB_I32) {
        char m[64];
        snprintf(m, sizeof m, "invalid wire type %d in a field key", *wt);
        return pb_fail(r, *at, err, NULL, m);
    }
    return TC_OK;
}

/* A length-delimited payload: [*s, *s + *n) inside the message. */
static int pb_bytes(pb_reader *r, const uint8_t **s, size_t *n, tc_error *err, const char *field) {
    size_t at = r->pos;
    uint64_t l;
    int rc = pb_varint(r, &l, err, field);
    if (rc) return rc;
    if (l > r->end - r->pos) {
        char m[160];
        snprintf(m, sizeof m, "length %llu runs past the end of the message (%zu bytes left)", (unsigned long long)l,
                 r->end - r->pos);
        return pb_fail(r, at, err, field, m);
    }
    *s = r->d + r->pos;
    *n = (size_t)l;
    r->pos += (size_t)l;
    return TC_OK;
}

static int pb_skip(pb_reader *r, int wt, tc_error *err) {
    uint64_t v;
    const uint8_t *s;
    size_t n;
    size_t need = wt == PB_I64 ? 8 : 4;
    switch (wt) {
    case PB_VARINT: return pb_varint(r, &v, err, NULL);
    case PB_LEN: return pb_bytes(r, &s, &n, err, NULL);
    default:
        if (r->end - r->pos < need) return pb_fail(r, r->pos, err, NULL, "truncated fixed-size field");
        r->pos += need;
        return TC_OK;
    }
}

static int pb_want(const pb_reader *r, size_t at, int wt, int want, const char *field, tc_error *err) {
    if (wt == want) return TC_OK;
    static const char *const names[] = {"varint", "64-bit", "length-delimited", "start group", "end group", "32-bit"};
    char m[120];
    snprintf(m, sizeof m, "wire type %d (%s), expected %d (%s)", wt, names[wt], want, names[want]);
    return pb_fail(r, at, err, field, m);
}

static int pb_f32(pb_reader *r, float *f, tc_error *err, const char *field) {
    if (r->end - r->pos < 4) return pb_fail(r, r->pos, err, field, "truncated 32-bit field");
    const uint8_t *p = r->d + r->pos;
    uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    memcpy(f, &u, 4);
    r->pos += 4;
    return TC_OK;
}

/* Stores a string in the pool (NUL-terminated there). */
static int pool_put(tc_buf *pool, const uint8_t *s, size_t n, uint32_t *off, uint32_t *len, tc_error *err) {
    if (pool->len > UINT32_MAX - n - 1) return tc_error_set(err, TC_ERR_LIMIT, "SentencePiece model: strings above 4 GiB");
    *off = (uint32_t)pool->len;
    *len = (uint32_t)n;
    if (tc_buf_append(pool, s, n) != 0 || tc_buf_push(pool, 0) != 0) return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    return TC_OK;
}

/* ModelProto.SentencePiece: piece = 1, score = 2, type = 3 */
static int parse_piece(tc_spm_proto *p, const uint8_t *d, size_t start, size_t end, uint32_t idx, tc_error *err) {
    char where[64];
    snprintf(where, sizeof where, "ModelProto.pieces[%u]", idx);
    pb_reader r = {d, start, end, where};
    tc_spm_piece *pc = &p->pieces[idx];
    pc->type = TC_SPM_NORMAL;
    pc->score = 0.0f;
    int have_piece = 0;
    while (r.pos < r.end) {
        uint32_t f; int wt; size_t at;
        int rc = pb_key(&r, &f, &wt, &at, err);
        if (rc) return rc;
        if (f == 1) {
            const uint8_t *s; size_t n;
            if ((rc = pb_want(&r, at, wt, PB_LEN, "piece", err)) || (rc = pb_bytes(&r, &s, &n, err, "piece"))) return rc;
            if ((rc = pool_put(&p->pool, s, n, &pc->off, &pc->len, err))) return rc;
            have_piece = 1;
        } else if (f == 2) {
            if ((rc = pb_want(&r, at, wt, PB_I32, "score", err)) || (rc = pb_f32(&r, &pc->score, err, "score"))) return rc;
            pc->score_at = (uint32_t)at;
        } else if (f == 3) {
            uint64_t v;
            if ((rc = pb_want(&r, at, wt, PB_VARINT, "type", err)) || (rc = pb_varint(&r, &v, err, "type"))) return rc;
            if (v < TC_SPM_NORMAL || v > TC_SPM_BYTE) {
                char m[80];
                snprintf(m, sizeof m, "piece type %llu is none of NORMAL..BYTE (1..6)", (unsigned long long)v);
                return pb_fail(&r, at, err, "type", m);
            }
            pc->type = (uint8_t)v;
        } else if ((rc = pb_skip(&r, wt, err))) {
            return rc;
        }
    }
    if (!have_piece) pc->off = pc->len = 0;   /* an absent piece is empty: refused by the loader */
    return TC_OK;
}

/* TrainerSpec: model_type = 3, vocab_size = 4, treat_whitespace_as_suffix = 24, split_digits = 25,
 * allow_whitespace_only_pieces = 26, byte_fallback = 35, unk_id = 40, bos_id = 41, eos_id = 42,
 * pad_id = 43, unk_surface = 44 */
static int parse_trainer(tc_spm_proto *p, const uint8_t *d, size_t start, size_t end, tc_error *err) {
    pb_reader r = {d, start, end, "ModelProto.trainer_spec"};
    while (r.pos < r.end) {
        uint32_t f; int wt; size_t at;
        int rc = pb_key(&r, &f, &wt, &at, err);
        if (rc) return rc;
        if (f == 44) {
            const uint8_t *s; size_t n;
            if ((rc = pb_want(&r, at, wt, PB_LEN, "unk_surface", err)) || (rc = pb_bytes(&r, &s, &n, err, "unk_surface")) ||
                (rc = pool_put(&p->pool, s, n, &p->unk_surface_off, &p->unk_surface_len, err)))
                return rc;
            continue;
        }
        const char *name = NULL;
        switch (f) {
        case 3: name = "model_type"; break;
        case 4: name = "vocab_size"; break;
        case 24: name = "treat_whitespace_as_suffix"; break;
        case 25: name = "split_digits"; break;
        case 26: name = "allow_whitespace_only_pieces"; break;
        case 35: name = "byte_fallback"; break;
        case 40: name = "unk_id"; break;
        case 41: name = "bos_id"; break;
        case 42: name = "eos_id"; break;
        case 43: name = "pad_id"; break;
        default: break;
        }
        if (!name) {
            if ((rc = pb_skip(&r, wt, err))) return rc;
            continue;
        }
        uint64_t v;
        if ((rc = pb_want(&r, at, wt, PB_VARINT, name, err)) || (rc = pb_varint(&r, &v, err, name))) return rc;
        /* int32 and enum values are sign-extended to 64 bits on the wire; bools are 0/1 */
        int32_t iv = (int32_t)(uint32_t)v;
        switch (f) {
        case 3: p->model_type = iv; break;
        case 4: p->vocab_size = iv; break;
        case 24: p->treat_whitespace_as_suffix = v != 0; break;
        case 25: p->split_digits = v != 0; break;
        case 26: p->allow_whitespace_only_pieces = v != 0; break;
        case 35: p->byte_fallback = v != 0; break;
        case 40: p->unk_id = iv; break;
        case 41: p->bos_id = iv; break;
        case 42: p->eos_id = iv; break;
        default: p->pad_id = iv; break;
        }
    }
    return TC_OK;
}

/* NormalizerSpec: name = 1, precompiled_charsmap = 2, add_dummy_prefix = 3,
 * remove_extra_whitespaces = 4, escape_whitespaces = 5 (defaults true) */
static int parse_normspec(tc_spm_proto *p, tc_spm_normspec *ns, const char *where, const uint8_t *d, size_t start,
                          size_t end, tc_error *err) {
    pb_reader r = {d, start, end, where};
    ns->present = 1;
    while (r.pos < r.end) {
        uint32_t f; int wt; size_t at;
        int rc = pb_key(&r, &f, &wt, &at, err);
        if (rc) return rc;
        if (f == 1 || f == 2) {
            const char *name = f == 1 ? "name" : "precompiled_charsmap";
            const uint8_t *s; size_t n;
            if ((rc = pb_want(&r, at, wt, PB_LEN, name, err)) || (rc = pb_bytes(&r, &s, &n, err, name))) return rc;
            if (f == 1) {
                size_t k = n < sizeof ns->name - 1 ? n : sizeof ns->name - 1;
                memcpy(ns->name, s, k);
                ns->name[k] = 0;
            } else if ((rc = pool_put(&p->pool, s, n, &ns->charsmap_off, &ns->charsmap_len, err))) {
                return rc;
            } else {
                ns->charsmap_at = (uint32_t)(s - d);
            }
        } else if (f >= 3 && f <= 5) {
            const char *name = f == 3 ? "add_dummy_prefix" : f == 4 ? "remove_extra_whitespaces" : "escape_whitespaces";
            uint64_t v;
            if ((rc = pb_want(&r, at, wt, PB_VARINT, name, err)) || (rc = pb_varint(&r, &v, err, name))) return rc;
            if (f == 3) ns->add_dummy_prefix = v != 0;
            else if (f == 4) ns->remove_extra_whitespaces = v != 0;
            else ns->escape_whitespaces = v != 0;
        } else if ((rc = pb_skip(&r, wt, err))) {
            return rc;
        }
    }
    return TC_OK;
}

static void normspec_defaults(tc_spm_normspec *ns) {
    memset(ns, 0, sizeof *ns);
    ns->add_dummy_prefix = ns->remove_extra_whitespaces = ns->escape_whitespaces = 1;
}

void tc_spm_proto_free(tc_spm_proto *p) {
    free(p->pieces);
    tc_buf_free(&p->pool);
    memset(p, 0, sizeof *p);
}

/* Two passes over the top level: count the pieces, then read everything. */
int tc_spm_proto_parse(const uint8_t *data, size_t len, tc_spm_proto *p, tc_error *err) {
    memset(p, 0, sizeof *p);
    /* the proto's defaults (sentencepiece_model.proto) */
    p->model_type = TC_SPM_UNIGRAM;
    p->vocab_size = 8000;
    p->unk_id = 0; p->bos_id = 1; p->eos_id = 2; p->pad_id = -1;
    normspec_defaults(&p->norm);
    normspec_defaults(&p->denorm);
    int rc;
    if (pool_put(&p->pool, (const uint8_t *)" \xE2\x81\x87 ", 5, &p->unk_surface_off, &p->unk_surface_len, err)) goto fail;
    pb_reader r = {data, 0, len, "ModelProto"};
    size_t count = 0;
    while (r.pos < r.end) {
        uint32_t f; int wt; size_t at;
        if ((rc = pb_key(&r, &f, &wt, &at, err))) goto fail;
        if (f == 1) {
            const uint8_t *s; size_t n;
            if ((rc = pb_want(&r, at, wt, PB_LEN, "pieces", err)) || (rc = pb_bytes(&r, &s, &n, err, "pieces"))) goto fail;
            if (++count > TC_MAX_VOCAB) {
                rc = tc_error_set(err, TC_ERR_LIMIT, "SentencePiece model: more than %u pieces", TC_MAX_VOCAB);
                goto fail;
            }
        } else if ((rc = pb_skip(&r, wt, err))) {
            goto fail;
        }
    }
    if (count == 0) {
        rc = tc_error_set(err, TC_ERR_FORMAT, "SentencePiece model: no pieces (ModelProto.pieces is empty)");
        goto fail;
    }
    p->pieces = calloc(count, sizeof *p->pieces);
    if (!p->pieces) { rc = tc_error_set(err, TC_ERR_NOMEM, "out of memory"); goto fail; }
    r.pos = 0;
    while (r.pos < r.end) {
        uint32_t f; int wt; size_t at;
        if ((rc = pb_key(&r, &f, &wt, &at, err))) goto fail;
        if (f == 1 || f == 2 || f == 3 || f == 5) {
            const uint8_t *s; size_t n;
            const char *name = f == 1 ? "pieces" : f == 2 ? "trainer_spec" : f == 3 ? "normalizer_spec" : "denormalizer_spec";
            if ((rc = pb_want(&r, at, wt, PB_LEN, name, err)) || (rc = pb_bytes(&r, &s, &n, err, name)))
                goto fail;
            size_t st = (size_t)(s - data), en = st + n;
            if (f == 1) rc = parse_piece(p, data, st, en, p->npieces++, err);
            else if (f == 2) rc = parse_trainer(p, data, st, en, err);
            else if (f == 3) rc = parse_normspec(p, &p->norm, "ModelProto.normalizer_spec", data, st, en, err);
            else rc = parse_normspec(p, &p->denorm, "ModelProto.denormalizer_spec", data, st, en, err);
            if (rc) goto fail;
        } else if ((rc = pb_skip(&r, wt, err))) {
            goto fail;
        }
    }
    return TC_OK;
fail:
    tc_spm_proto_free(p);
    return err->code ? err->code : TC_ERR_NOMEM;
}
