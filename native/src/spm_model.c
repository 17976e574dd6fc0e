/* spm_model.c - a SentencePiece `.model` as a handle: load, normalize,
 * encode (BPE model type here, Unigram in spm_unigram.c), decode, each rule
 * as the sentencepiece package (google/sentencepiece, the sources of the
 * sentencepiece 0.2.3 sdist) runs it.
 *
 * Does: what spm_model.h lists. The pieces become the handle's vocabulary
 * (SentencePiece bytes rule), so queries and `info` work as for any handle.
 * The trace has the normalized text with its alignment, and for a Unigram
 * model one chunk with the lattice.
 * A denormalizer_spec with a charsmap (sentencepiece_processor.cc Load makes
 * it a second Normalizer, without the user-defined matcher and with
 * treat_whitespace_as_suffix false) is applied to the decoded text, as
 * Decode does.
 * Does not: WORD and CHAR model types, sampling.
 */
#include "spm_model.h"
#include <stdio.h>

#define SPM_MAX_PIECE_BYTES 8000      /* model_interface.cc InitializePieces: kMaxPieceSize */
#define SPM_MAX_RESEGMENT_DEPTH 100   /* bpe_model.cc: kMaxBpeResegmentDepth */
#define SPM_MAX_TRIE_RESULTS 32       /* normalizer.h: kMaxTrieResultsSize */

static const uint8_t SPACE_SYMBOL[3] = {0xE2, 0x96, 0x81};   /* U+2581 */

/* a precompiled charsmap: darts-clone double array + the NUL-separated replacements */
typedef struct spm_cmap {
    const uint8_t *trie; size_t trie_units;
    const uint8_t *repl; size_t repl_len;
} spm_cmap;

struct tc_spm {
    tc_spm_proto p;
    int64_t unk_id;                   /* the UNKNOWN piece, -1 none (allowed with byte_fallback) */
    int64_t byte_ids[256];            /* "<0xNN>" pieces */
    /* user-defined symbols: the first bytes they start with, their lengths */
    uint8_t ud_first[256];
    uint32_t *ud_lens; size_t n_ud_lens;   /* distinct lengths, longest first */
    spm_cmap cm, dcm;                 /* the normalizer's and the denormalizer's charsmaps */
    tc_spm_ugm ugm;                   /* model type UNIGRAM */
};

void tc_spm_free(struct tc_spm *s) {
    if (!s) return;
    tc_spm_ugm_free(&s->ugm);
    tc_spm_proto_free(&s->p);
    free(s->ud_lens);
    free(s);
}

static const uint8_t *piece_str(const struct tc_spm *s, uint32_t id) { return s->p.pool.data + s->p.pieces[id].off; }

int tc_spm_piece_type(const tc_tokenizer *tok, uint32_t id) {
    return tok->spm && id < tok->spm->p.npieces ? tok->spm->p.pieces[id].type : 0;
}

const char *tc_spm_piece_info(const tc_tokenizer *tok, uint32_t id, float *score) {
    static const char *const names[] = {"?", "normal", "unknown", "control", "user_defined", "unused", "byte"};
    int t = tc_spm_piece_type(tok, id);
    if (!t) return NULL;
    *score = tok->spm->p.pieces[id].score;
    return names[t];
}

/* PieceToId: the id of a piece, -1 when absent. model_interface.cc
 * InitializePieces skips the UNUSED piece "\0" (kNullPiece), so it is never found. */
static int64_t find_piece(const tc_tokenizer *tok, const uint8_t *s, size_t n) {
    return tc_vocab_find(&tok->model.vocab, s, n);
}

/* ---- load ------------------------------------------------------------- */

static int spm_err(tc_error *err, int code, const char *fmt, ...) TC_PRINTF(3, 4);
static int spm_err(tc_error *err, int code, const char *fmt, ...) {
    char m[TC_ERRMSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    return tc_error_set(err, code, "SentencePiece model: %s", m);
}

/* model_interface.cc ModelInterface::InitializePieces: the checks and the
 * unk / byte / user-defined tables. */
static int init_pieces(tc_tokenizer *tok, struct tc_spm *s, tc_error *err) {
    const tc_spm_proto *p = &s->p;
    int rc;
    if ((rc = tc_vocab_init(&tok->model.vocab, p->npieces)) != TC_OK)
        return spm_err(err, rc, "cannot hold %u pieces", p->npieces);
    int byte_found[256] = {0};
    s->unk_id = -1;
    for (int b = 0; b < 256; b++) s->byte_ids[b] = -1;
    for (uint32_t i = 0; i < p->npieces; i++) {
        const tc_spm_piece *pc = &p->pieces[i];
        const uint8_t *str = piece_str(s, i);
        if (pc->len >= SPM_MAX_PIECE_BYTES) return spm_err(err, TC_ERR_FORMAT, "pieces[%u] is %u bytes long (the limit is %d)", i, pc->len, SPM_MAX_PIECE_BYTES - 1);
        if (pc->len == 0) return spm_err(err, TC_ERR_FORMAT, "pieces[%u] is empty", i);
        /* sentencepiece_processor.cc Load: with byte_fallback, a "\0" piece
         * (kNullPiece) of any type is made UNUSED (issue #1308's workaround) */
        if (pc->len == 1 && str[0] == 0 && p->byte_fallback) s->p.pieces[i].type = TC_SPM_UNUSED;
        if (pc->len == 1 && str[0] == 0 && pc->type == TC_SPM_UNUSED) continue;   /* kNullPiece */
        if (memchr(str, 0, pc->len)) return spm_err(err, TC_ERR_FORMAT, "pieces[%u] contains a NUL byte", i);
        if ((rc = tc_vocab_set(&tok->model.vocab, i, str, pc->len, TC_BYTES_SPM, err)) != TC_OK) return rc;
        if (pc->type == TC_SPM_UNKNOWN) {
            if (s->unk_id >= 0) return spm_err(err, TC_ERR_FORMAT, "pieces[%u] is a second UNKNOWN piece (the first is %lld)", i, (long long)s->unk_id);
            s->unk_id = i;
        }
        if (pc->type == TC_SPM_BYTE) {
            if (!p->byte_fallback) return spm_err(err, TC_ERR_FORMAT, "pieces[%u] is a BYTE piece but trainer_spec.byte_fallback is false", i);
            int b = tc_fallback_byte(str, pc->len);
            if (b < 0) return spm_err(err, TC_ERR_FORMAT, "pieces[%u] is a BYTE piece that is not <0xNN>", i);
            byte_found[b] = 1;
            s->byte_ids[b] = i;
        }
        if (pc->type == TC_SPM_USER_DEFINED) {
            s->ud_first[str[0]] = 1;
            size_t k = 0;
            while (k < s->n_ud_lens && s->ud_lens[k] != pc->len) k++;
            if (k == s->n_ud_lens) {
                uint32_t *nl = realloc(s->ud_lens, (s->n_ud_lens + 1) * sizeof *nl);
                if (!nl) return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
                s->ud_lens = nl;
                s->ud_lens[s->n_ud_lens++] = pc->len;
            }
        }
    }
    if ((rc = tc_vocab_build_index(&tok->model.vocab, err)) != TC_OK) return rc;
    for (uint32_t i = 0; i < p->npieces; i++) {
        if (!tok->model.vocab.entries[i].present) continue;
        int64_t j = find_piece(tok, piece_str(s, i), p->pieces[i].len);
        if (j != (int64_t)i) return spm_err(err, TC_ERR_FORMAT, "pieces[%u] is already defined (pieces[%lld])", i, (long long)(j < i ? j : (int64_t)i));
    }
    if (s->unk_id < 0 && !p->byte_fallback) return spm_err(err, TC_ERR_FORMAT, "no UNKNOWN piece, and byte_fallback is false");
    if (p->byte_fallback)
        for (int b = 0; b < 256; b++)
            if (!byte_found[b]) return spm_err(err, TC_ERR_FORMAT, "byte_fallback is true but there is no BYTE piece <0x%02X>", b);
    /* longest user-defined symbols first (PrefixMatcher keeps the longest match) */
    for (size_t a = 1; a < s->n_ud_lens; a++)
        for (size_t b = a; b > 0 && s->ud_lens[b - 1] < s->ud_lens[b]; b--) {
            uint32_t t = s->ud_lens[b]; s->ud_lens[b] = s->ud_lens[b - 1]; s->ud_lens[b - 1] = t;
        }
    return TC_OK;
}

/* normalizer.cc Normalizer::DecodePrecompiledCharsMap: <u32 trie size><trie><replacements> */
static int init_charsmap(struct tc_spm *s, const tc_spm_normspec *ns, const char *what, spm_cmap *cm, tc_error *err) {
    if (!ns->charsmap_len) return TC_OK;
    const uint8_t *b = s->p.pool.data + ns->charsmap_off;
    size_t n = ns->charsmap_len;
    unsigned at = ns->charsmap_at;
    if (n <= 4) return spm_err(err, TC_ERR_FORMAT, "at byte offset %u (%s.precompiled_charsmap): %zu bytes, too short for its header", at, what, n);
    uint32_t t = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    if (t >= n - 4) return spm_err(err, TC_ERR_FORMAT, "at byte offset %u (%s.precompiled_charsmap): trie size %u runs past the charsmap's %zu bytes (cut short?)", at, what, t, n);
    if (t < 1024 || (t & 0x3FF) != 0) return spm_err(err, TC_ERR_FORMAT, "at byte offset %u (%s.precompiled_charsmap): trie size %u is not a positive multiple of 1024", at, what, t);
    cm->trie = b + 4;
    cm->trie_units = t / 4;
    cm->repl = b + 4 + t;
    cm->repl_len = n - 4 - t;
    return TC_OK;
}

static void describe(tc_tokenizer *tok, const struct tc_spm *s) {
    const tc_spm_proto *p = &s->p;
    char buf[1024];
    static const char *const types[] = {"?", "Unigram", "BPE", "Word", "Char"};
    int ut = 0, ct = 0, bt = 0, nt = 0;
    for (uint32_t i = 0; i < p->npieces; i++) {
        ut += p->pieces[i].type == TC_SPM_USER_DEFINED;
        ct += p->pieces[i].type == TC_SPM_CONTROL;
        bt += p->pieces[i].type == TC_SPM_BYTE;
        nt += p->pieces[i].type == TC_SPM_UNUSED;
    }
    char name[sizeof p->norm.name * 6 + 1];
    size_t o = 0;
    for (const char *c = p->norm.name; *c && o + 7 < sizeof name; c++) {
        unsigned char ch = (unsigned char)*c;
        if (ch < 0x20 || ch == '"' || ch == '\\' || ch >= 0x7F) o += (size_t)snprintf(name + o, sizeof name - o, "\\u%04x", ch);
        else name[o++] = (char)ch;
    }
    name[o] = 0;
    int w = snprintf(buf, sizeof buf,
                     "{\"format\":\"sentencepiece.model\",\"model\":\"%s\",\"vocab_size\":%u,"
                     "\"normalizer\":{\"name\":\"%s\",\"precompiled_charsmap_bytes\":%u,\"add_dummy_prefix\":%s,"
                     "\"remove_extra_whitespaces\":%s,\"escape_whitespaces\":%s},"
                     "\"byte_fallback\":%s,\"treat_whitespace_as_suffix\":%s,\"unk_id\":%d,\"bos_id\":%d,\"eos_id\":%d,"
                     "\"pad_id\":%d,\"pieces\":{\"user_defined\":%d,\"control\":%d,\"byte\":%d,\"unused\":%d}}",
                     types[p->model_type >= 1 && p->model_type <= 4 ? p->model_type : 0], p->npieces, name,
                     p->norm.charsmap_len, p->norm.add_dummy_prefix ? "true" : "false",
                     p->norm.remove_extra_whitespaces ? "true" : "false", p->norm.escape_whitespaces ? "true" : "false",
                     p->byte_fallback ? "true" : "false", p->treat_whitespace_as_suffix ? "true" : "false", p->unk_id,
                     p->bos_id, p->eos_id, p->pad_id, ut, ct, bt, nt);
    tok->describe.len = 0;
    if (w > 0 && (size_t)w < sizeof buf && tc_buf_append(&tok->describe, buf, (size_t)w) == 0) tc_buf_push(&tok->describe, 0);
}

tc_tokenizer *tc_load_spm_model(const uint8_t *data, size_t len, tc_error *err) {
    struct tc_spm *s = calloc(1, sizeof *s);
    tc_tokenizer *tok = tc_tokenizer_new();
    if (!s || !tok) {
        free(s);
        tc_free(tok);
        tc_error_set(err, TC_ERR_NOMEM, "out of memory");
        return NULL;
    }
    int rc = tc_spm_proto_parse(data, len, &s->p, err);
    if (rc) { free(s); tc_free(tok); return NULL; }
    tok->spm = s;
    const tc_spm_proto *p = &s->p;
    /* model_factory.cc ModelFactory::Create: UNIGRAM, BPE, WORD, CHAR */
    if (p->model_type != TC_SPM_BPE && p->model_type != TC_SPM_UNIGRAM) {
        if (p->model_type >= TC_SPM_UNIGRAM && p->model_type <= TC_SPM_CHAR)
            spm_err(err, TC_ERR_UNSUPPORTED, "trainer_spec.model_type %s is not supported (UNIGRAM and BPE are)",
                    p->model_type == TC_SPM_WORD ? "WORD" : "CHAR");
        else
            spm_err(err, TC_ERR_FORMAT, "trainer_spec.model_type %d is none of UNIGRAM, BPE, WORD, CHAR (1..4)", p->model_type);
        goto fail;
    }
    if ((rc = init_pieces(tok, s, err)) != TC_OK || (rc = init_charsmap(s, &s->p.norm, "normalizer_spec", &s->cm, err)) != TC_OK ||
        (rc = init_charsmap(s, &s->p.denorm, "denormalizer_spec", &s->dcm, err)) != TC_OK)
        goto fail;
    if (p->model_type == TC_SPM_UNIGRAM && (rc = tc_spm_ugm_init(&s->ugm, &s->p, err)) != TC_OK) goto fail;
    tok->bytes_rule = TC_BYTES_SPM;
    tok->model.unk_id = s->unk_id;
    tok->model.byte_fallback = p->byte_fallback;
    if ((rc = tc_tokenizer_finish(tok, err)) != TC_OK) goto fail;
    /* the model needs no index beyond its vocabulary: bpe is ready */
    atomic_store_explicit(&tok->ix_state[TC_IX_MERGES], TC_IX_READY, memory_order_release);
    describe(tok, s);
    return tok;
fail:
    tc_free(tok);   /* frees tok->spm */
    return NULL;
}

/* ---- normalize -------------------------------------------------------- */

/* User-defined symbols: the longest one that is a prefix of w
 * (normalizer.cc PrefixMatcher::PrefixMatch), 0 when none. */
static size_t ud_match(const tc_tokenizer *tok, const uint8_t *w, size_t n) {
    const struct tc_spm *s = tok->spm;
    if (!n || !s->ud_first[w[0]]) return 0;
    for (size_t k = 0; k < s->n_ud_lens; k++) {
        size_t l = s->ud_lens[k];
        if (l > n) continue;
        int64_t id = find_piece(tok, w, l);
        if (id >= 0 && s->p.pieces[id].type == TC_SPM_USER_DEFINED) return l;
    }
    return 0;
}

static uint32_t unit_at(const spm_cmap *s, size_t i) {
    const uint8_t *u = s->trie + 4 * i;
    return (uint32_t)u[0] | (uint32_t)u[1] << 8 | (uint32_t)u[2] << 16 | (uint32_t)u[3] << 24;
}

/* darts-clone DoubleArrayImpl::commonPrefixSearch (third_party/darts_clone/darts.h
 * of the sentencepiece sdist) keeping the longest of the first
 * kMaxTrieResultsSize results, as normalizer.cc NormalizePrefix does. A unit
 * outside the array ends the search (the file is not trusted). */
static size_t charsmap_longest(const spm_cmap *s, const uint8_t *w, size_t n, size_t *value) {
    size_t pos = 0, best = 0, nres = 0;
    if (!s->trie_units) return 0;
    uint32_t unit = unit_at(s, 0);
#define DA_OFFSET(u) (((u) >> 10) << (((u) & (1u << 9)) >> 6))
    pos ^= DA_OFFSET(unit);
    for (size_t i = 0; i < n; i++) {
        pos ^= w[i];
        if (pos >= s->trie_units) return best;
        unit = unit_at(s, pos);
        if ((unit & ((1u << 31) | 0xFFu)) != w[i]) return best;
        pos ^= DA_OFFSET(unit);
        if ((unit >> 8) & 1) {
            if (pos >= s->trie_units) return best;
            if (nres < SPM_MAX_TRIE_RESULTS && (best == 0 || i + 1 > best)) {
                best = i + 1;
                *value = unit_at(s, pos) & ((1u << 31) - 1);
            }
            nres++;
        }
    }
#undef DA_OFFSET
    return best;
}

/* normalizer.cc Normalizer::NormalizePrefix: the normalized form of the
 * longest rule at the start of w, and the bytes it consumes. */
static size_t normalize_prefix(const tc_tokenizer *tok, const spm_cmap *s, int ud, const uint8_t *w, size_t n,
                               const uint8_t **out, size_t *out_len) {
    size_t l = ud ? ud_match(tok, w, n) : 0;
    if (l) { *out = w; *out_len = l; return l; }
    size_t value = 0;
    l = charsmap_longest(s, w, n, &value);
    if (l == 0 || value >= s->repl_len) {
        int k;
        uint32_t cp = tc_utf8_decode(w, n, 0, &k);
        if (cp >= TC_CP_INVALID_BASE) {   /* malformed UTF-8: U+FFFD for one byte */
            *out = (const uint8_t *)"\xEF\xBF\xBD"; *out_len = 3;
            return 1;
        }
        *out = w; *out_len = (size_t)k;
        return (size_t)k;
    }
    /* the replacement ends at its NUL (the blob's end bounds it here) */
    const uint8_t *r = s->repl + value;
    const uint8_t *z = memchr(r, 0, s->repl_len - value);
    *out = r;
    *out_len = z ? (size_t)(z - r) : s->repl_len - value;
    return l;
}

typedef struct spm_norm {
    tc_buf text;                     /* normalized */
    uint32_t *to_orig; size_t n, cap;   /* norm_to_orig: one per normalized byte, + 1 */
} spm_norm;

static int map_push(spm_norm *m, uint32_t v, size_t count) {
    if (tc_grow((void **)&m->to_orig, &m->cap, m->n + count, sizeof *m->to_orig) != 0) return -1;
    for (size_t i = 0; i < count; i++) m->to_orig[m->n++] = v;
    return 0;
}

/* normalizer.cc Normalizer::Normalize, with its norm_to_orig alignment:
 * the normalizer (denorm 0: its spec, charsmap, the user-defined matcher,
 * treat_whitespace_as_suffix) or the denormalizer (denorm 1: none of the
 * last two). */
static int spm_normalize(const tc_tokenizer *tok, int denorm, const uint8_t *in, size_t len, spm_norm *m) {
    const tc_spm_normspec *ns = denorm ? &tok->spm->p.denorm : &tok->spm->p.norm;
    const spm_cmap *cm = denorm ? &tok->spm->dcm : &tok->spm->cm;
    const int suffix = !denorm && tok->spm->p.treat_whitespace_as_suffix;
    size_t consumed = 0;
    m->text.len = 0;
    m->n = 0;
    if (len == 0) return map_push(m, 0, 1);
    const uint8_t *o; size_t ol;
    /* ignores heading spaces */
    if (ns->remove_extra_whitespaces) {
        while (consumed < len) {
            size_t c = normalize_prefix(tok, cm, !denorm, in + consumed, len - consumed, &o, &ol);
            if (!(ol == 1 && o[0] == ' ')) break;
            consumed += c;
        }
    }
    if (consumed == len) return map_push(m, (uint32_t)consumed, 1);   /* all whitespace: empty */
    const uint8_t *ws = ns->escape_whitespaces ? SPACE_SYMBOL : (const uint8_t *)" ";
    size_t wsl = ns->escape_whitespaces ? 3 : 1;
#define ADD_WS() do { if (tc_buf_append(&m->text, ws, wsl) != 0 || map_push(m, (uint32_t)consumed, wsl) != 0) return -1; } while (0)
    if (!suffix && ns->add_dummy_prefix) ADD_WS();
    int prev_space = ns->remove_extra_whitespaces;
    while (consumed < len) {
        size_t c = normalize_prefix(tok, cm, !denorm, in + consumed, len - consumed, &o, &ol);
        /* removes heading spaces of a piece when the previous one ended with a space */
        while (prev_space && ol && o[0] == ' ') { o++; ol--; }
        if (ol) {
            for (size_t k = 0; k < ol; k++) {
                if (o[k] == ' ') {
                    ADD_WS();
                } else if (tc_buf_push(&m->text, o[k]) != 0 || map_push(m, (uint32_t)consumed, 1) != 0) {
                    return -1;
                }
            }
            prev_space = o[ol - 1] == ' ';
        }
        consumed += c;
        if (!ns->remove_extra_whitespaces) prev_space = 0;
    }
    /* ignores trailing spaces */
    if (ns->remove_extra_whitespaces) {
        while (m->text.len >= wsl && memcmp(m->text.data + m->text.len - wsl, ws, wsl) == 0) {
            size_t l = m->text.len - wsl;
            m->text.len = l;
            consumed = m->to_orig[l];
            m->n = l;
        }
    }
    if (suffix && ns->add_dummy_prefix) ADD_WS();
#undef ADD_WS
    return map_push(m, (uint32_t)consumed, 1);
}

/* ---- BPE (bpe_model.cc Model::SampleEncode with alpha = 0) ------------ */

typedef struct spm_sym { int32_t prev, next; uint32_t start, len; uint8_t freeze; } spm_sym;
typedef struct spm_pair { uint64_t key; uint32_t right, size; } spm_pair;   /* key: pair_key() */
typedef struct spm_rev { uint32_t off, len, left_len; } spm_rev;   /* rev_merge: piece -> its two halves */
typedef tc_spm_seg spm_out;

typedef struct bpe_ctx {
    const tc_tokenizer *tok;
    const uint8_t *t;
    spm_sym *sym; size_t nsym, sym_cap;
    spm_pair *heap; size_t nheap, heap_cap;
    spm_rev *rev; size_t nrev, rev_cap;
    spm_out *out; size_t nout, out_cap;
} bpe_ctx;

/* SymbolPairComparator (the priority_queue pops its largest pair): the
 * higher score first, scores compared through their bits as bpe_model.cc
 * does ((i1 & i2) < 0: both negative, the larger int is the smaller float;
 * signs differ: the negative one is smaller; else int order), then the lower
 * left index. That order is one 64-bit key: the score's bits made monotone
 * (negative ints reversed below the non-negative ones) above ~left. */
static uint64_t pair_key(float score, uint32_t left) {
    int32_t i;
    memcpy(&i, &score, 4);
    uint32_t k = i < 0 ? ~(uint32_t)i : (uint32_t)i + 0x80000000u;
    return (uint64_t)k << 32 | (uint32_t)~left;
}

static uint32_t pair_left(const spm_pair *p) { return ~(uint32_t)p->key; }

static int heap_push(bpe_ctx *c, const spm_pair *p) {
    if (tc_grow((void **)&c->heap, &c->heap_cap, c->nheap + 1, sizeof *c->heap) != 0) return -1;
    size_t i = c->nheap++;
    c->heap[i] = *p;
    while (i > 0) {
        size_t up = (i - 1) / 2;
        if (c->heap[up].key >= c->heap[i].key) break;
        spm_pair t = c->heap[up]; c->heap[up] = c->heap[i]; c->heap[i] = t;
        i = up;
    }
    return 0;
}

static void sift_down(bpe_ctx *c, size_t i) {
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < c->nheap && c->heap[m].key < c->heap[l].key) m = l;
        if (r < c->nheap && c->heap[m].key < c->heap[r].key) m = r;
        if (m == i) break;
        spm_pair t = c->heap[m]; c->heap[m] = c->heap[i]; c->heap[i] = t;
        i = m;
    }
}

static void heap_pop(bpe_ctx *c) {
    c->heap[0] = c->heap[--c->nheap];
    sift_down(c, 0);
}

/* PieceToIdNoReserved + IsReservedId: a mergeable piece (NORMAL,
 * USER_DEFINED, UNUSED), or -1 */
static int64_t mergeable_id(const bpe_ctx *c, uint32_t start, uint32_t len) {
    int64_t id = find_piece(c->tok, c->t + start, len);
    if (id < 0) return -1;
    int ty = c->tok->spm->p.pieces[id].type;
    return ty == TC_SPM_NORMAL || ty == TC_SPM_USER_DEFINED || ty == TC_SPM_UNUSED ? id : -1;
}

/* MaybeAddNewSymbolPair (and the first bigram pass) */
static int add_pair(bpe_ctx *c, int32_t left, int32_t right, int sift) {
    if (left < 0 || right < 0) return 0;
    const spm_sym *l = &c->sym[left], *r = &c->sym[right];
    if (l->freeze || r->freeze) return 0;
    int64_t id = mergeable_id(c, l->start, l->len + r->len);
    if (id < 0) return 0;
    spm_pair h;
    h.key = pair_key(c->tok->spm->p.pieces[id].score, (uint32_t)left);
    h.right = (uint32_t)right;
    h.size = l->len + r->len;
    if (sift) {
        if (heap_push(c, &h) != 0) return -1;
    } else {
        if (tc_grow((void **)&c->heap, &c->heap_cap, c->nheap + 1, sizeof *c->heap) != 0) return -1;
        c->heap[c->nheap++] = h;
    }
    if (c->tok->spm->p.pieces[id].type == TC_SPM_UNUSED) {
        if (tc_grow((void **)&c->rev, &c->rev_cap, c->nrev + 1, sizeof *c->rev) != 0) return -1;
        c->rev[c->nrev++] = (spm_rev){l->start, l->len + r->len, l->len};
    }
    return 0;
}

static int out_push(bpe_ctx *c, uint32_t start, uint32_t len, int64_t id) {
    if (tc_grow((void **)&c->out, &c->out_cap, c->nout + 1, sizeof *c->out) != 0) return -1;
    c->out[c->nout++] = (spm_out){start, len, id};
    return 0;
}

/* the resegment lambda: an UNUSED piece is split back into the pair that
 * made it (the last one recorded for that string: rev_merge[piece] = ...) */
static int resegment(bpe_ctx *c, uint32_t start, uint32_t len, int depth) {
    int64_t unk = c->tok->spm->unk_id;
    int64_t id = find_piece(c->tok, c->t + start, len);
    if (depth > SPM_MAX_RESEGMENT_DEPTH) return out_push(c, start, len, id < 0 ? unk : id);
    if (id < 0 || mergeable_id(c, start, len) < 0) return out_push(c, start, len, unk);
    if (c->tok->spm->p.pieces[id].type != TC_SPM_UNUSED) return out_push(c, start, len, id);
    for (size_t k = c->nrev; k-- > 0;) {
        const spm_rev *r = &c->rev[k];
        if (r->len == len && memcmp(c->t + r->off, c->t + start, len) == 0) {
            uint32_t ll = r->left_len;
            if (resegment(c, start, ll, depth + 1) != 0) return -1;
            return resegment(c, start + ll, len - ll, depth + 1);
        }
    }
    return out_push(c, start, len, unk);
}

static int bpe_run(bpe_ctx *c, size_t n) {
    /* symbols: the longest user-defined symbol (frozen), else one character
     * by its lead byte (util.h OneCharLen) */
    size_t i = 0;
    while (i < n) {
        size_t l = ud_match(c->tok, c->t + i, n - i);
        uint8_t fz = l != 0;
        if (!l) {
            static const uint8_t one_char_len[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4};
            l = one_char_len[c->t[i] >> 4];
            if (l > n - i) l = n - i;
        }
        if (tc_grow((void **)&c->sym, &c->sym_cap, c->nsym + 1, sizeof *c->sym) != 0) return -1;
        c->sym[c->nsym++] = (spm_sym){0, 0, (uint32_t)i, (uint32_t)l, fz};
        i += l;
    }
    size_t ns = c->nsym;
    for (size_t k = 0; k < ns; k++) {
        c->sym[k].prev = (int32_t)k - 1;
        c->sym[k].next = k + 1 < ns ? (int32_t)k + 1 : -1;
    }
    /* the first bigrams, then one heapify (the agenda's constructor makes a heap of them) */
    for (size_t k = 1; k < ns; k++)
        if (add_pair(c, (int32_t)k - 1, (int32_t)k, 0) != 0) return -1;
    for (size_t k = c->nheap / 2; k-- > 0;) sift_down(c, k);
    while (c->nheap) {
        spm_pair top = c->heap[0];
        uint32_t tl = pair_left(&top);
        spm_sym *l = &c->sym[tl], *r = &c->sym[top.right];
        heap_pop(c);
        if (l->len == 0 || r->len == 0 || l->len + r->len != top.size) continue;   /* stale */
        l->len += r->len;
        l->next = r->next;
        if (r->next >= 0) c->sym[r->next].prev = (int32_t)tl;
        r->len = 0;
        if (add_pair(c, l->prev, (int32_t)tl, 1) != 0 || add_pair(c, (int32_t)tl, l->next, 1) != 0) return -1;
    }
    for (int32_t k = ns ? 0 : -1; k != -1; k = c->sym[k].next)
        if (resegment(c, c->sym[k].start, c->sym[k].len, 0) != 0) return -1;
    return 0;
}

/* ---- encode ----------------------------------------------------------- */

static int emit(tc_encoding *e, int ids_only, int64_t id, uint32_t b, uint32_t en) {
    if (ids_only) {
        if (tc_encoding_reserve_ids(e, e->n + 1) != 0) return -1;
    } else {
        if (tc_encoding_reserve(e, e->n + 1) != 0) return -1;
        e->offsets[2 * e->n] = b;
        e->offsets[2 * e->n + 1] = en;
    }
    e->ids[e->n] = (uint32_t)id;
    e->special[e->n] = 0;
    e->n++;
    return 0;
}

/* sentencepiece_processor.cc PopulateSentencePieceText: spans in the input;
 * an unknown piece becomes its bytes with byte_fallback (the last byte
 * carries the span, the others are empty at its start), else a run of
 * unknown pieces is one unknown token. */
static int populate(const tc_tokenizer *tok, const bpe_ctx *c, const spm_norm *m, int ids_only, tc_encoding *e) {
    const struct tc_spm *s = tok->spm;
    size_t consumed = 0;
    int prev_unk = 0;
    for (size_t k = 0; k < c->nout; k++) {
        const spm_out *o = &c->out[k];
        int is_unk = o->id == s->unk_id;   /* IsUnknownId (-1 when the model has no unk) */
        uint32_t ob = m->to_orig[consumed], oe = m->to_orig[consumed + o->len];
        if (is_unk && s->p.byte_fallback) {
            for (uint32_t i = 0; i < o->len; i++) {
                uint8_t b = c->t[o->start + i];
                if (emit(e, ids_only, s->byte_ids[b], ob, i + 1 == o->len ? oe : ob) != 0) return -1;
            }
        } else if (prev_unk && is_unk) {
            if (!ids_only) e->offsets[2 * (e->n - 1) + 1] = oe;   /* the run is one token: its span grows */
        } else if (emit(e, ids_only, o->id, ob, oe) != 0) {
            return -1;
        }
        consumed += o->len;
        prev_unk = is_unk;
    }
    return 0;
}

/* byte offsets -> code point offsets (an invalid byte is one character) */
static int char_offsets(const uint8_t *text, size_t len, tc_encoding *e) {
    uint32_t *cp = malloc((len + 1) * sizeof *cp);
    if (!cp) return -1;
    uint32_t nc = 0;
    size_t i = 0;
    while (i < len) {
        int k;
        tc_utf8_decode(text, len, i, &k);
        for (int j = 0; j < k; j++) cp[i + (size_t)j] = nc;
        i += (size_t)k;
        nc++;
    }
    cp[len] = nc;
    for (size_t t = 0; t < 2 * e->n; t++) {
        uint32_t b = e->offsets[t];
        /* an end inside a character counts the whole character */
        uint32_t v = cp[b];
        if ((t & 1) && b > 0 && b < len && cp[b - 1] == cp[b]) v = cp[b] + 1;
        e->char_offsets[t] = v;
    }
    free(cp);
    return 0;
}

/* The trace: the normalized text, each of its bytes aligned to the span of
 * the input that produced it (the run of bytes norm_to_orig maps to the
 * same input offset, up to the next offset), and one chunk over all of it
 * (its lattice, for a Unigram model, appended by tc_spm_ugm_encode). */
static int trace_fill(const spm_norm *m, size_t len, const tc_encoding *e, tc_trace *tr) {
    size_t n = m->text.len;
    if (tc_buf_append(&tr->normalized, m->text.data, n) != 0) return -1;
    void *q = tr->norm_align;
    if (tc_grow(&q, &tr->norm_align_cap, n ? n : 1, sizeof *tr->norm_align) != 0) return -1;
    tr->norm_align = q;
    uint32_t end = m->to_orig[n];
    for (size_t i = n; i-- > 0;) {
        if (i + 1 < n && m->to_orig[i + 1] != m->to_orig[i]) end = m->to_orig[i + 1];
        tr->norm_align[i].start = m->to_orig[i];
        tr->norm_align[i].end = end > m->to_orig[i] ? end : m->to_orig[i];
    }
    /* did normalization change the text? */
    tr->normalized_changed = 0;
    for (size_t i = 0; i < n && !tr->normalized_changed; i++)
        tr->normalized_changed = tr->norm_align[i].start != i || tr->norm_align[i].end != i + 1;
    tr->normalized_changed |= n != len;
    q = tr->chunks;
    if (tc_grow(&q, &tr->chunks_cap, tr->nchunks + 1, sizeof *tr->chunks) != 0) return -1;
    tr->chunks = q;
    tc_trace_chunk *ch = &tr->chunks[tr->nchunks++];
    memset(ch, 0, sizeof *ch);
    ch->norm_start = 0; ch->norm_end = (uint32_t)n;
    ch->orig_start = 0; ch->orig_end = (uint32_t)len;
    ch->added_id = -1;
    ch->tok_first = 0; ch->tok_count = (uint32_t)e->n;
    ch->lat_first = 0; ch->lat_count = (uint32_t)tr->nlattice;
    return 0;
}

int tc_spm_encode(const tc_tokenizer *tok, const uint8_t *text, size_t len, int ids_only, tc_encoding *out,
                  tc_trace *trace, tc_error *err) {
    if (trace) tc_trace_free(trace);
    out->n = 0;
    spm_norm m;
    memset(&m, 0, sizeof m);
    bpe_ctx c;
    memset(&c, 0, sizeof c);
    c.tok = tok;
    int rc = TC_OK;
    if (spm_normalize(tok, 0, text ? text : (const uint8_t *)"", len, &m) != 0) goto oom;
    if (m.text.len > UINT32_MAX / 2) { rc = tc_error_set(err, TC_ERR_LIMIT, "encode: the normalized text is above 2 GiB"); goto done; }
    c.t = m.text.data;
    if (tok->spm->p.model_type == TC_SPM_UNIGRAM) {
        if (tc_spm_ugm_encode(&tok->spm->ugm, &tok->spm->p, tok->spm->unk_id, m.text.data, m.text.len, &c.out, &c.nout,
                              &c.out_cap, trace) != 0)
            goto oom;
    } else if (m.text.len && bpe_run(&c, m.text.len) != 0) {
        goto oom;
    }
    if (populate(tok, &c, &m, ids_only, out) != 0 || (!ids_only && char_offsets(text, len, out) != 0)) goto oom;
    if (trace && trace_fill(&m, len, out, trace) != 0) goto oom;
    goto done;
oom:
    rc = tc_error_set(err, TC_ERR_NOMEM, "encode: out of memory");
done:
    tc_buf_free(&m.text);
    free(m.to_orig);
    free(c.sym);
    free(c.heap);
    free(c.rev);
    free(c.out);
    return rc;
}

/* ---- decode (sentencepiece_processor.cc DecodeOptimized) --------------- */

/* ProcessByteQueue: valid UTF-8 as is, U+FFFD per invalid byte */
static int flush_bytes(tc_buf *q, tc_buf *out) {
    size_t i = 0;
    int r = 0;
    while (i < q->len && r == 0) {
        int k;
        uint32_t cp = tc_utf8_decode(q->data, q->len, i, &k);
        if (cp >= TC_CP_INVALID_BASE) r = tc_buf_append(out, "\xEF\xBF\xBD", 3);
        else r = tc_buf_append(out, q->data + i, (size_t)k);
        i += (size_t)k;
    }
    q->len = 0;
    return r;
}

int tc_spm_decode(const tc_tokenizer *tok, const uint32_t *ids, size_t n, tc_buf *out, tc_error *err) {
    const struct tc_spm *s = tok->spm;
    const tc_spm_normspec *ns = &s->p.norm;
    tc_buf q = {0};
    int r = 0, bos_ws = 1;
    out->len = 0;
    for (size_t i = 0; i < n && r == 0; i++) {
        uint32_t id = ids[i];
        /* ids past the pieces are skipped, as HF; the "\0" piece (kNullPiece, not in the vocabulary's
         * index) is still text: Decode takes IdToPiece, the proto's string */
        if (id >= s->p.npieces) continue;
        const tc_spm_piece *pc = &s->p.pieces[id];
        const uint8_t *p = piece_str(s, id);
        size_t pl = pc->len;
        if (pc->type == TC_SPM_BYTE) {
            r = tc_buf_push(&q, (uint8_t)tc_fallback_byte(p, pl));
            continue;
        }
        if ((r = flush_bytes(&q, out)) != 0) break;
        if (out->len) bos_ws = 0;
        if (pc->type == TC_SPM_CONTROL) continue;
        int has_bos_ws = 0;
        if (bos_ws && (ns->add_dummy_prefix || ns->remove_extra_whitespaces)) {
            if (pl >= 3 && memcmp(p, SPACE_SYMBOL, 3) == 0) { p += 3; pl -= 3; has_bos_ws = 1; }
            if (ns->remove_extra_whitespaces) has_bos_ws = 0;
        }
        if (pc->type == TC_SPM_UNKNOWN) {
            r = tc_buf_append(out, s->p.pool.data + s->p.unk_surface_off, s->p.unk_surface_len);
        } else {
            for (size_t k = 0; k < pl && r == 0;) {
                if (pl - k >= 3 && memcmp(p + k, SPACE_SYMBOL, 3) == 0) { r = tc_buf_push(out, ' '); k += 3; }
                else r = tc_buf_push(out, p[k++]);
            }
        }
        if (has_bos_ws || out->len) bos_ws = 0;
    }
    if (r == 0) r = flush_bytes(&q, out);
    tc_buf_free(&q);
    /* Decode: `if (denormalizer_) *text = denormalizer_->Normalize(*text)` (a non-empty charsmap only) */
    if (r == 0 && s->p.denorm.charsmap_len) {
        spm_norm m;
        memset(&m, 0, sizeof m);
        r = spm_normalize(tok, 1, out->data ? out->data : (const uint8_t *)"", out->len, &m);
        if (r == 0) {
            out->len = 0;
            r = tc_buf_append(out, m.text.data, m.text.len);
        }
        tc_buf_free(&m.text);
        free(m.to_orig);
    }
    return r ? tc_error_set(err, TC_ERR_NOMEM, "decode: out of memory") : TC_OK;
}
