/* ugm.c - llama.cpp's UGM tokenizer, for GGUF tokenizer.ggml.model "t5"
 * (T5, XLM-R and nomic-bert-moe style vocabularies), as the llama.cpp that
 * llama-cpp-python 0.3.36 vendors runs it: src/llama-vocab.cpp,
 * llm_tokenizer_ugm (the tables), llm_tokenizer_ugm_session (normalize,
 * normalize_prefix, tokenize), llama_vocab::impl::load (defaults) and
 * impl::tokenize (BOS/EOS). It ports SentencePiece's Unigram, with its own
 * differences from sentencepiece (spm_unigram.c), each followed here:
 *
 *  - the tables (llm_tokenizer_ugm::llm_tokenizer_ugm): min_score over
 *    NORMAL tokens (float), the unknown score min_score - 10; token_matcher
 *    holds NORMAL, USER_DEFINED and UNUSED tokens (UNUSED ones are matched,
 *    sentencepiece skips them), a text given twice keeps its last id
 *    (naive_trie::insert overwrites); user_defined_token_matcher holds the
 *    USER_DEFINED ones.
 *  - normalize_prefix: at each position, the longest prefix of the text
 *    that is a path in user_defined_token_matcher (naive_trie::
 *    get_longest_prefix: a path, not necessarily a whole token) is passed
 *    through as is; else the longest match of the charsmap's XOR-compressed
 *    double array (walk stops at a NUL byte) gives its replacement; else one
 *    UTF-8 character as is (unicode_cpt_from_utf8: lead byte and
 *    continuation bits only), or U+FFFD for one invalid byte.
 *  - normalize: escape_whitespaces (always true for this type) writes
 *    spaces as U+2581; with remove_extra_whitespaces (the GGUF key, default
 *    false) runs of spaces are dropped and one U+2581 goes before every run
 *    of non-spaces (so leading and trailing spaces vanish); without it each
 *    space is one U+2581 and add_space_prefix (the GGUF key, default false)
 *    puts one before the first non-space; treat_whitespace_as_suffix is
 *    never set from a GGUF, so no suffix space.
 *  - tokenize: Viterbi in double (token scores are floats promoted; a
 *    USER_DEFINED token scores 0.0), every entry starts at -DBL_MAX with
 *    the unknown id and offset 0, a candidate wins only when strictly
 *    greater; a position without a token of exactly its character's length
 *    (unicode_len_utf8 of the lead byte, capped at the end) gets the
 *    unknown token over that character; backtracking keeps one token of a
 *    run of unknown ids (by id: a token whose id is the unknown id counts).
 *  - load: special ids default to eos 1, unk 2, pad 0 (an out-of-range
 *    default is disabled; a file id out of range keeps the default);
 *    add_bos false, add_eos true, then the file's flags; impl::tokenize puts
 *    BOS first and EOS last when special tokens are added.
 * Offsets are ours (llama.cpp has none): each normalized byte keeps the
 * input span of the unit that produced it (an inserted U+2581: the unit
 * that made normalize insert it); a token spans the input from the start of
 * its first byte's unit to the end of its last byte's.
 * Does not: a trace lattice (the Viterbi runs on its own normalized text).
 */
#include "ugm.h"

#include <float.h>
#include <stdio.h>

#include "engine.h"
#include "gguf_build.h"
#include "unigram.h"

void tc_describe_update(tc_tokenizer *tok, const char *format);   /* load_hf.c */

#define UNK_PENALTY 10.0f   /* llm_tokenizer_ugm::unknown_token_score_penalty */

static const uint8_t SPACE_SYMBOL[3] = {0xE2, 0x96, 0x81};   /* escaped_space, U+2581 */

struct tc_ugm {
    tc_unigram *tokens;         /* token_matcher */
    tc_unigram *user;           /* user_defined_token_matcher */
    float *scores;              /* token_data.score per id */
    uint8_t *user_defined;      /* per id: USER_DEFINED */
    uint32_t n;
    float unk_score;
    int64_t unk_id;             /* vocab.token_unk(), -1 none */
    uint8_t *charsmap; size_t charsmap_len;   /* owned copy */
    const uint8_t *xcda; size_t xcda_units;   /* into charsmap */
    const uint8_t *repl; size_t repl_len;
    int add_space_prefix, remove_extra_whitespaces;
};

void tc_ugm_free(tc_ugm *u) {
    if (!u) return;
    tc_unigram_free(u->tokens);
    tc_unigram_free(u->user);
    free(u->scores);
    free(u->user_defined);
    free(u->charsmap);
    free(u);
}

/* ---- normalize ------------------------------------------------------------- */

static uint32_t xcda_node(const tc_ugm *u, size_t i) {
    const uint8_t *p = u->xcda + 4 * i;
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* xcda_array_view: BASE in bits 10-30 (shifted by 8 when bit 9), LCHECK in
 * bits 0-7 and 31, LEAF in bit 8, VALUE in bits 0-30 */
static uint32_t xcda_base(uint32_t v) { return (v >> 10) << ((v & (1u << 9)) >> 6); }
static uint32_t xcda_lcheck(uint32_t v) { return v & ((1u << 31) | 0xFFu); }

/* llama.cpp's UTF-8 check (unicode_cpt_from_utf8): the length of a valid
 * character at s[0..n), 0 when it throws */
static size_t utf8_len_llama(const uint8_t *s, size_t n) {
    if (!(s[0] & 0x80)) return 1;
    if (!(s[0] & 0x40)) return 0;
    size_t k = !(s[0] & 0x20) ? 2 : !(s[0] & 0x10) ? 3 : !(s[0] & 0x08) ? 4 : 0;
    if (k == 0 || k > n) return 0;
    for (size_t i = 1; i < k; i++)
        if ((s[i] & 0xC0) != 0x80) return 0;
    return k;
}

/* normalize_prefix: the normalized form of the start of s[0..n) and the
 * bytes it consumes. Returns -4 when the charsmap points past its end. */
static int normalize_prefix(const tc_ugm *u, const uint8_t *s, size_t n, const uint8_t **out, size_t *out_len,
                            size_t *consumed) {
    /* the longest path of user_defined_token_matcher */
    uint32_t node = 0;
    size_t ud = 0;
    while (ud < n && (node = tc_unigram_trie_step(u->user, node, s[ud])) != 0) ud++;
    if (ud > 0) { *out = s; *out_len = ud; *consumed = ud; return 0; }
    size_t best_len = 0, best_off = 0;
    if (u->xcda_units > 0) {
        size_t idx = 0;
        idx = xcda_base(xcda_node(u, idx));
        for (size_t i = 0; i < n; i++) {
            uint8_t c = s[i];
            if (c == 0) break;
            idx ^= c;
            if (idx >= u->xcda_units) return -4;
            uint32_t v = xcda_node(u, idx);
            if (xcda_lcheck(v) != c) break;
            int leaf = (v >> 8) & 1;
            idx ^= xcda_base(v);
            if (leaf) {
                if (idx >= u->xcda_units) return -4;
                best_len = i + 1;
                best_off = xcda_node(u, idx) & ((1u << 31) - 1);
            }
        }
    }
    if (best_len > 0) {
        if (best_off >= u->repl_len) return -4;   /* "Index out of array bounds in precompiled charsmap!" */
        const uint8_t *r = u->repl + best_off;
        const uint8_t *z = memchr(r, 0, u->repl_len - best_off);
        if (!z) return -4;                        /* "Unterminated string in precompiled charsmap!" */
        *out = r; *out_len = (size_t)(z - r); *consumed = best_len;
        return 0;
    }
    size_t k = utf8_len_llama(s, n);
    if (k) { *out = s; *out_len = k; *consumed = k; return 0; }
    *out = (const uint8_t *)"\xEF\xBF\xBD"; *out_len = 3; *consumed = 1;
    return 0;
}

/* The normalized text, each byte with the input span of the unit that
 * produced it (an inserted U+2581: the unit that made normalize insert it). */
typedef struct ugm_norm {
    tc_buf text;
    tc_span *span; size_t n, cap;
} ugm_norm;

static int norm_push(ugm_norm *m, const uint8_t *b, size_t k, size_t start, size_t end) {
    if (tc_buf_append(&m->text, b, k) != 0) return -1;
    if (tc_grow((void **)&m->span, &m->cap, m->n + k, sizeof *m->span) != 0) return -1;
    for (size_t i = 0; i < k; i++) {
        m->span[m->n].start = (uint32_t)start;
        m->span[m->n++].end = (uint32_t)end;
    }
    return 0;
}

/* llm_tokenizer_ugm_session::normalize */
static int normalize(const tc_ugm *u, const uint8_t *s, size_t n, ugm_norm *m) {
    const int prepend = u->add_space_prefix;   /* !treat_whitespace_as_suffix && add_space_prefix */
    const int merge = u->remove_extra_whitespaces;
    int space_prepended = 0, in_word = 0;
    for (size_t off = 0; off < n;) {
        const uint8_t *o; size_t ol, used;
        int r = normalize_prefix(u, s + off, n - off, &o, &ol, &used);
        if (r) return r;
        for (size_t i = 0; i < ol; i++) {
            if (o[i] != ' ') {
                if (!in_word) {
                    in_word = 1;
                    if ((prepend && !space_prepended) || merge) {
                        if (norm_push(m, SPACE_SYMBOL, 3, off, off + used) != 0) return -1;
                        space_prepended = 1;
                    }
                }
                if (norm_push(m, o + i, 1, off, off + used) != 0) return -1;
            } else {
                in_word = 0;
                if (!merge && norm_push(m, SPACE_SYMBOL, 3, off, off + used) != 0) return -1;
            }
        }
        off += used;
    }
    return 0;
}

/* ---- Viterbi (llm_tokenizer_ugm_session::tokenize) -------------------------- */

typedef struct best_tok {
    int64_t id;
    size_t start;
    double score;
} best_tok;

/* the input span of normalized bytes [a, b) (b > a): from the start of a's
 * unit to the end of b - 1's */
static void span_of(const ugm_norm *m, size_t a, size_t b, uint32_t *s, uint32_t *e) {
    *s = m->span[a].start;
    *e = m->span[b - 1].end > *s ? m->span[b - 1].end : *s;
}

int tc_ugm_chunk(const tc_tokenizer *tok, tc_bpe_scratch *sc, const uint8_t *chunk, size_t len) {
    const tc_ugm *u = tok->model.ugm;
    sc->nout = 0;
    ugm_norm m;
    memset(&m, 0, sizeof m);
    int rc = normalize(u, chunk, len, &m);
    best_tok *res = NULL;
    size_t n = m.text.len;
    if (rc != 0 || n == 0) goto done;
    if (n >= UINT32_MAX) { rc = -1; goto done; }
    res = malloc((n + 1) * sizeof *res);
    if (!res) { rc = -1; goto done; }
    for (size_t i = 0; i <= n; i++) { res[i].id = u->unk_id; res[i].start = 0; res[i].score = -DBL_MAX; }
    res[0].score = 0.0;
    static const uint8_t len_utf8[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4};   /* unicode_len_utf8 */
    const uint8_t *t = m.text.data;
    for (size_t off = 0; off < n;) {
        size_t nu = len_utf8[t[off] >> 4];
        if (nu > n - off) nu = n - off;
        int single = 0;
        const double till = res[off].score;
        uint32_t node = tc_unigram_trie_step(u->tokens, 0, t[off]);
        for (size_t p = off + 1; node != 0; p++) {
            int32_t id = tc_unigram_trie_id(u->tokens, node);
            if (id >= 0) {
                if (p - off == nu) single = 1;
                /* user-defined tokens score 0 so that they are taken */
                const double ts = u->user_defined[id] ? 0.0 : (double)u->scores[id];
                const double cand = till + ts;
                if (cand > res[p].score) { res[p].id = id; res[p].start = off; res[p].score = cand; }
            }
            if (p == n) break;
            node = tc_unigram_trie_step(u->tokens, node, t[p]);
        }
        if (!single) {
            const double cand = till + (double)u->unk_score;
            best_tok *b = &res[off + nu];
            if (cand > b->score) { b->id = u->unk_id; b->start = off; b->score = cand; }
        }
        off += nu;
    }
    /* backtrack from the end, one token per run of unknown ids */
    int prev_unk = 0;
    size_t end = n;
    for (;;) {
        const best_tok *b = &res[end];
        int is_unk = b->id == u->unk_id;
        uint32_t s, e;
        span_of(&m, b->start, end, &s, &e);
        if (prev_unk && is_unk) {
            sc->out[sc->nout - 1].start = s;
        } else {
            if (b->id < 0) { rc = -3; break; }   /* the unknown token is needed and the vocabulary has none */
            if (tc_bpe_out_push(sc, (uint32_t)b->id, s, e) != 0) { rc = -1; break; }
        }
        if (b->start == 0) break;
        prev_unk = is_unk;
        end = b->start;
    }
    if (rc == 0)
        for (size_t a = 0, z = sc->nout; a + 1 < z; a++, z--) {
            tc_ctok x = sc->out[a]; sc->out[a] = sc->out[z - 1]; sc->out[z - 1] = x;
        }
done:
    free(res);
    tc_buf_free(&m.text);
    free(m.span);
    if (rc != 0) sc->nout = 0;
    return rc;
}

/* ---- building ---------------------------------------------------------------- */

/* llama_vocab::impl::load: the charsmap must hold its 4-byte size and more than that many bytes */
static int set_charsmap(tc_ugm *u, const tc_gguf *g, tc_error *err) {
    if (!g->charsmap || g->charsmap_len == 0) return TC_OK;
    size_t n = g->charsmap_len;
    if (n < 4)
        return tc_error_set(err, TC_ERR_FORMAT, "GGUF: tokenizer.ggml.precompiled_charsmap: %zu bytes, too small for its "
                            "4-byte size header (llama.cpp: \"precompiled_charsmap too small for xcda_blob_size header!\")", n);
    uint32_t t = (uint32_t)g->charsmap[0] | (uint32_t)g->charsmap[1] << 8 | (uint32_t)g->charsmap[2] << 16 |
                 (uint32_t)g->charsmap[3] << 24;
    if ((uint64_t)t + 4 >= n)
        return tc_error_set(err, TC_ERR_FORMAT, "GGUF: tokenizer.ggml.precompiled_charsmap: its double array of %u bytes "
                            "runs past the charsmap's %zu bytes (cut short?; llama.cpp: \"Index out of array bounds in "
                            "precompiled charsmap!\")", t, n);
    u->charsmap = malloc(n);
    if (!u->charsmap) return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    memcpy(u->charsmap, g->charsmap, n);
    u->charsmap_len = n;
    u->xcda = u->charsmap + 4;
    u->xcda_units = t / 4;
    u->repl = u->charsmap + 4 + t;
    u->repl_len = n - 4 - t;
    return TC_OK;
}

static int build_tables(tc_ugm *u, const tc_gguf *g, tc_error *err) {
    uint32_t n = g->tokens.n;
    u->n = n;
    u->scores = calloc(n ? n : 1, sizeof *u->scores);
    u->user_defined = calloc(n ? n : 1, 1);
    const uint8_t **strs = malloc((n ? n : 1) * sizeof *strs);
    size_t *lens = malloc((n ? n : 1) * sizeof *lens), *ulens = malloc((n ? n : 1) * sizeof *ulens);
    int rc = TC_OK;
    if (!u->scores || !u->user_defined || !strs || !lens || !ulens) { rc = tc_error_set(err, TC_ERR_NOMEM, "out of memory"); goto out; }
    float min_score = FLT_MAX;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t len;
        strs[i] = tc_gguf_at(g, &g->tokens, i, &len);
        /* token_data.attr from the type (no token_type array: all NORMAL; an unknown type: UNDEFINED) */
        int32_t ty = g->types ? g->types[i] : TC_GGUF_TT_NORMAL;
        u->scores[i] = g->scores ? g->scores[i] : 0.0f;
        if (ty == TC_GGUF_TT_NORMAL && u->scores[i] < min_score) min_score = u->scores[i];
        int matched = ty == TC_GGUF_TT_NORMAL || ty == TC_GGUF_TT_USER_DEFINED || ty == TC_GGUF_TT_UNUSED;
        u->user_defined[i] = ty == TC_GGUF_TT_USER_DEFINED;
        lens[i] = matched ? len : 0;
        ulens[i] = ty == TC_GGUF_TT_USER_DEFINED ? len : 0;
    }
    u->unk_score = min_score - UNK_PENALTY;
    if (!(u->tokens = tc_unigram_trie_new(strs, lens, n, err)) || !(u->user = tc_unigram_trie_new(strs, ulens, n, err)))
        rc = err->code ? err->code : TC_ERR_NOMEM;
out:
    free(strs);
    free(lens);
    free(ulens);
    return rc;
}

tc_tokenizer *tc_gguf_build_ugm(const tc_gguf *g, int parse_special, tc_error *err) {
    uint32_t n = g->tokens.n;
    if (g->scores && g->n_scores < n)
        return tc_error_set(err, TC_ERR_FORMAT, "GGUF: tokenizer.ggml.scores has %u entries for %u tokens (llama.cpp: "
                            "\"Index out of array bounds for scores\")", g->n_scores, n), NULL;
    if (g->types && g->n_types < n)
        return tc_error_set(err, TC_ERR_FORMAT, "GGUF: tokenizer.ggml.token_type has %u entries for %u tokens (llama.cpp: "
                            "\"Index out of array bounds for toktypes\")", g->n_types, n), NULL;
    tc_tokenizer *tok = tc_tokenizer_new();
    tc_ugm *u = calloc(1, sizeof *u);
    if (!tok || !u) {
        tc_free(tok);
        free(u);
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory"), NULL;
    }
    tc_model *m = &tok->model;
    m->kind = TC_MODEL_UGM;
    m->ugm = u;
    tok->bytes_rule = TC_BYTES_SPM;
    /* special ids: the type's defaults (disabled when out of range), then the file's ids in range */
    int64_t ids[TC_GGUF_NIDS];
    for (int i = 0; i < TC_GGUF_NIDS; i++) ids[i] = -1;
    ids[TC_GGUF_EOS] = 1; ids[TC_GGUF_UNK] = 2; ids[TC_GGUF_PAD] = 0;
    for (int i = 0; i < TC_GGUF_NIDS; i++) {
        if (ids[i] >= (int64_t)n) ids[i] = -1;
        if (g->ids[i] >= 0 && g->ids[i] < (int64_t)n) ids[i] = g->ids[i];
    }
    u->unk_id = ids[TC_GGUF_UNK];
    m->unk_id = u->unk_id;
    u->add_space_prefix = g->flags[TC_GGUF_ADD_SPACE_PREFIX] > 0;
    u->remove_extra_whitespaces = g->flags[TC_GGUF_REMOVE_EXTRA_WS] > 0;
    int add_bos = g->flags[TC_GGUF_ADD_BOS] >= 0 ? g->flags[TC_GGUF_ADD_BOS] : 0;
    int add_eos = g->flags[TC_GGUF_ADD_EOS] >= 0 ? g->flags[TC_GGUF_ADD_EOS] : 1;
    if (add_bos && ids[TC_GGUF_BOS] < 0) add_bos = 0;   /* llama.cpp asserts; we add nothing */
    if (add_eos && ids[TC_GGUF_EOS] < 0) add_eos = 0;
    /* decode: U+2581 as a space (llama_unescape_whitespace), the first one dropped with the space prefix */
    tok->decoder = TC_DEC_CHAIN;
    tok->dec[0].kind = TC_DEC_METASPACE;
    tok->dec[0].content = malloc(4);
    if (!tok->dec[0].content) { tc_error_set(err, TC_ERR_NOMEM, "out of memory"); goto fail; }
    memcpy(tok->dec[0].content, SPACE_SYMBOL, 3);
    tok->dec[0].content[3] = 0;
    tok->dec[0].content_len = 3;
    tok->dec[0].prepend = u->add_space_prefix || u->remove_extra_whitespaces;
    tok->ndec = 1;
    if (tc_gguf_fill_vocab(g, &m->vocab, n, TC_BYTES_SPM, err) != TC_OK || tc_model_init_bytes(tok, err) != TC_OK) goto fail;
    if (set_charsmap(u, g, err) != TC_OK || build_tables(u, g, err) != TC_OK) goto fail;
    if (tc_gguf_add_special(tok, g, parse_special, err) != TC_OK) goto fail;
    if (tc_gguf_set_template(tok, add_bos ? ids[TC_GGUF_BOS] : -1, add_eos ? ids[TC_GGUF_EOS] : -1, err) != TC_OK) goto fail;
    if (tc_tokenizer_finish(tok, err) != TC_OK) goto fail;
    tc_describe_update(tok, "gguf");
    if (tc_gguf_describe(tok, g, add_bos, add_eos, parse_special, ids) != 0) {
        tc_error_set(err, TC_ERR_NOMEM, "out of memory");
        goto fail;
    }
    return tok;
fail:
    tc_free(tok);   /* frees model.ugm */
    return NULL;
}
