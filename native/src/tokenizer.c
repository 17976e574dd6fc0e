/* tokenizer.c - the handle: creation, finishing after load, queries,
 * added tokens, decode.
 *
 * Does: everything about a loaded tokenizer that is not encode (pipeline.c)
 * or file parsing (load_*.c).
 * Does not: mutate a handle after tc_tokenizer_finish except through
 * tc_add_tokens (which rebuilds the added-token index).
 */
#include "added.h"
#include "unigram.h"
#include "ugm.h"
#include "unicode.h"
#include "spm_model.h"
#include "chunk_cache.h"
#include "bpe_bt.h"
#include "pair8.h"
#include <stdio.h>

tc_tokenizer *tc_tokenizer_new(void) {
    tc_tokenizer *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->model.unk_id = -1;
    for (int i = 0; i < 256; i++) { t->model.byte_ids[i] = -1; t->model.fallback_ids[i] = -1; }
    for (int i = 0; i < TC_IX_COUNT; i++) atomic_init(&t->ix_state[i], TC_IX_ABSENT);
    atomic_init(&t->chunk_cache, NULL);
    for (int i = 0; i < 2; i++) atomic_init(&t->bt[i], NULL);
    atomic_init(&t->bt_heap_bytes, 0);
    atomic_init(&t->pair8, NULL);
    atomic_init(&t->vocab_longest1, 0);
    return t;
}

void tc_free(tc_tokenizer *t) {
    if (!t) return;
    tc_chunk_cache_free(atomic_load_explicit(&t->chunk_cache, memory_order_acquire));
    for (int i = 0; i < 2; i++) tc_bt_free(atomic_load_explicit(&t->bt[i], memory_order_acquire));
    tc_pair8_free(atomic_load_explicit(&t->pair8, memory_order_acquire));
    tc_vocab_free(&t->model.vocab);
    free(t->model.scores);
    tc_pairmap_free(&t->model.merges);
    tc_unigram_free(t->model.unigram);
    tc_ugm_free(t->model.ugm);
    tc_strmap_free(&t->model.by_bytes);
    tc_greedy_release(t);
    tc_spm_free(t->spm);
    free(t->model.cont_prefix);
    free(t->model.eow_suffix);
    for (int i = 0; i < t->npretok; i++) {
        tc_regex_free(t->pretok[i].re);
        free(t->pretok[i].literal);
    }
    for (int i = 0; i < t->npost; i++) free(t->post[i].single);
    tc_normalizer_free(&t->normalizer);
    for (int i = 0; i < t->ndec; i++) {
        free(t->dec[i].pat);
        free(t->dec[i].content);
        tc_regex_free(t->dec[i].re);
    }
    free(t->added);
    tc_buf_free(&t->added_pool);
    tc_trie_free(&t->trie_raw);
    tc_trie_free(&t->trie_norm);
    free(t->added_by_id);
    tc_buf_free(&t->describe);
    free(t);
}

/* byte_ids and fallback_ids of a vocabulary whose string index is not
 * built (vocab.bin: built on the first lookup by string): one pass over the
 * entries instead of 512 lookups that would build it. Ids ascend, so the
 * first match is the lowest id, as the index answers (tc_strmap_build keeps
 * the lower id of equal strings). */
static void scan_byte_ids(tc_tokenizer *tok) {
    tc_model *m = &tok->model;
    const tc_vocab *v = &m->vocab;
    static const char hex[] = "0123456789ABCDEF";
    for (uint32_t id = 0; id < v->n; id++) {
        const tc_entry *e = &v->entries[id];
        if (!e->present) continue;
        const uint8_t *s = tc_entry_str(v, id);
        if (tok->byte_level && m->kind != TC_MODEL_BPE_RANK && (e->str_len == 1 || e->str_len == 2)) {
            int n;
            uint32_t cp = tc_utf8_decode(s, e->str_len, 0, &n);
            int b = (size_t)n == e->str_len && cp < TC_CP_INVALID_BASE ? tc_cp_to_byte(cp) : -1;
            uint8_t u[4];
            if (b >= 0 && m->byte_ids[b] < 0 && (size_t)tc_utf8_encode(tc_byte_to_cp((uint8_t)b), u) == e->str_len &&
                memcmp(u, s, e->str_len) == 0)
                m->byte_ids[b] = id;
        }
        if (e->str_len == 6 && s[0] == '<' && s[1] == '0' && s[2] == 'x' && s[5] == '>') {
            const char *hi = memchr(hex, s[3], 16), *lo = memchr(hex, s[4], 16);
            if (s[3] && s[4] && hi && lo) {
                int b = (int)((hi - hex) * 16 + (lo - hex));
                if (m->fallback_ids[b] < 0) m->fallback_ids[b] = id;
            }
        }
    }
}

/* Single-byte ids (byte-level) and <0xNN> ids (byte_fallback). */
int tc_model_init_bytes(tc_tokenizer *tok, tc_error *err) {
    tc_model *m = &tok->model;
    (void)err;
    if (!tc_vocab_index_ready(&m->vocab)) {
        for (int b = 0; b < 256; b++) {
            m->fallback_ids[b] = -1;
            m->byte_ids[b] = -1;
            if (tok->byte_level && m->kind == TC_MODEL_BPE_RANK) {
                uint8_t c = (uint8_t)b;
                m->byte_ids[b] = tc_strmap_find(&m->by_bytes, &m->vocab, 1, &c, 1);
            }
        }
        scan_byte_ids(tok);
        return TC_OK;
    }
    for (int b = 0; b < 256; b++) {
        m->byte_ids[b] = -1;
        m->fallback_ids[b] = -1;
        if (tok->byte_level) {
            if (m->kind == TC_MODEL_BPE_RANK) {
                uint8_t c = (uint8_t)b;
                m->byte_ids[b] = tc_strmap_find(&m->by_bytes, &m->vocab, 1, &c, 1);
            } else {
                uint8_t u[4];
                int k = tc_utf8_encode(tc_byte_to_cp((uint8_t)b), u);
                m->byte_ids[b] = tc_vocab_find(&m->vocab, u, (size_t)k);
            }
        }
        char fb[8];
        static const char hex[] = "0123456789ABCDEF";
        fb[0] = '<'; fb[1] = '0'; fb[2] = 'x'; fb[3] = hex[b >> 4]; fb[4] = hex[b & 15]; fb[5] = '>';
        m->fallback_ids[b] = tc_vocab_find(&m->vocab, (const uint8_t *)fb, 6);
    }
    return TC_OK;
}

uint32_t tc_vocab_size(const tc_tokenizer *tok) {
    uint32_t n = tok->model.vocab.n;
    for (size_t i = 0; i < tok->nadded; i++)
        if (tok->added[i].spec.id + 1 > n) n = tok->added[i].spec.id + 1;
    return n;
}

static const tc_added_token_spec *added_for_id(const tc_tokenizer *tok, uint32_t id) {
    if (id >= tok->added_by_id_n) return NULL;
    uint32_t k = tok->added_by_id[id];
    return k ? &tok->added[k - 1].spec : NULL;
}

const char *tc_id_to_token(const tc_tokenizer *tok, uint32_t id, size_t *len) {
    const tc_added_token_spec *a = added_for_id(tok, id);
    if (a) { *len = a->content_len; return a->content; }
    const tc_vocab *v = &tok->model.vocab;
    if (id >= v->n || !v->entries[id].present) { *len = 0; return NULL; }
    *len = v->entries[id].str_len;
    return (const char *)tc_entry_str(v, id);
}

const uint8_t *tc_id_to_bytes(const tc_tokenizer *tok, uint32_t id, size_t *len) {
    const tc_added_token_spec *a = added_for_id(tok, id);
    if (a) { *len = a->content_len; return (const uint8_t *)a->content; }
    const tc_vocab *v = &tok->model.vocab;
    if (id >= v->n || !v->entries[id].present) { *len = 0; return NULL; }
    *len = v->entries[id].bytes_len;
    return tc_entry_bytes(v, id);
}

int64_t tc_token_to_id(const tc_tokenizer *tok, const char *s, size_t len) {
    for (size_t i = tok->nadded; i-- > 0;) {
        const tc_added_token_spec *a = &tok->added[i].spec;
        if (a->content_len == len && memcmp(a->content, s, len) == 0) return a->id;
    }
    return tc_vocab_find(&tok->model.vocab, (const uint8_t *)s, len);
}

int tc_is_special(const tc_tokenizer *tok, uint32_t id) {
    const tc_added_token_spec *a = added_for_id(tok, id);
    return a && a->special;
}

int tc_is_added(const tc_tokenizer *tok, uint32_t id) { return added_for_id(tok, id) != NULL; }

size_t tc_added_count(const tc_tokenizer *tok) { return tok->nadded; }

const tc_added_token_spec *tc_added_at(const tc_tokenizer *tok, size_t i) {
    return i < tok->nadded ? &tok->added[i].spec : NULL;
}

const char *tc_describe(const tc_tokenizer *tok) {
    return tok->describe.data ? (const char *)tok->describe.data : "{}";
}

/* Rebuilds the id index and both tries. Normalized tokens are matched by
 * their normalized content, as HF's AddedVocabulary does. */
static int rebuild_added(tc_tokenizer *tok, tc_error *err) {
    /* contents point into added_pool, which may have moved */
    size_t off = 0;
    for (size_t i = 0; i < tok->nadded; i++) {
        tok->added[i].spec.content = (const char *)tok->added_pool.data + off;
        off += tok->added[i].spec.content_len + 1;
    }
    free(tok->added_by_id);
    tok->added_by_id = NULL;
    uint32_t maxid = 0;
    for (size_t i = 0; i < tok->nadded; i++) if (tok->added[i].spec.id + 1 > maxid) maxid = tok->added[i].spec.id + 1;
    tok->added_by_id_n = maxid;
    if (maxid) {
        tok->added_by_id = calloc(maxid, sizeof *tok->added_by_id);
        if (!tok->added_by_id) return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
        for (size_t i = 0; i < tok->nadded; i++) tok->added_by_id[tok->added[i].spec.id] = (uint32_t)i + 1;
    }
    tc_trie_free(&tok->trie_raw);
    tc_trie_free(&tok->trie_norm);
    if (tc_trie_build(&tok->trie_raw, tok, 0, NULL, NULL) != 0) return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    /* normalized contents */
    tc_buf nc = {0};
    uint32_t *noff = calloc(2 * (tok->nadded ? tok->nadded : 1), sizeof *noff);
    if (!noff) return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < tok->nadded; i++) {
        const tc_added_token_spec *a = &tok->added[i].spec;
        if (!a->normalized) continue;
        tc_nstr ns = {0};
        if (tc_buf_append(&ns.text, a->content, a->content_len) != 0) goto oom;
        if (tok->has_normalizer && tc_normalize(&tok->normalizer, &ns, 0) != 0) { tc_nstr_free(&ns); goto oom; }
        noff[2 * i] = (uint32_t)nc.len;
        noff[2 * i + 1] = (uint32_t)ns.text.len;
        int r = tc_buf_append(&nc, ns.text.data, ns.text.len);
        tc_nstr_free(&ns);
        if (r != 0) goto oom;
    }
    if (tc_trie_build(&tok->trie_norm, tok, 1, &nc, noff) != 0) goto oom;
    tc_buf_free(&nc);
    free(noff);
    return TC_OK;
oom:
    tc_buf_free(&nc);
    free(noff);
    return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
}

int tc_add_tokens(tc_tokenizer *tok, const tc_added_token_spec *specs, size_t n, tc_error *err) {
    for (size_t i = 0; i < n; i++) {
        const tc_added_token_spec *s = &specs[i];
        if (s->id >= TC_MAX_VOCAB) return tc_error_set(err, TC_ERR_LIMIT, "added token %zu: id %u above the limit %u", i, s->id, TC_MAX_VOCAB);
        if (s->content_len == 0) return tc_error_set(err, TC_ERR_FORMAT, "added token %zu (id %u): empty content", i, s->id);
        /* same id again replaces the earlier entry's content */
        size_t k = tok->nadded;
        for (size_t j = 0; j < tok->nadded; j++) if (tok->added[j].spec.id == s->id) { k = j; break; }
        if (k != tok->nadded) {
            return tc_error_set(err, TC_ERR_FORMAT, "added token %zu: id %u is already an added token", i, s->id);
        }
        void *p = tok->added;
        if (tc_grow(&p, &tok->added_cap, tok->nadded + 1, sizeof *tok->added) != 0) return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
        tok->added = p;
        if (tc_buf_append(&tok->added_pool, s->content, s->content_len) != 0 || tc_buf_push(&tok->added_pool, 0) != 0)
            return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
        tok->added[tok->nadded].spec = *s;
        tok->nadded++;
    }
    return rebuild_added(tok, err);
}

/* Bytes named in a coverage error before "and N more". */
#define TC_MISSING_BYTES_LISTED 12

/* A byte-level model encodes every text as its bytes' tokens merged, so a
 * byte with no single-byte token would be dropped from the ids without a
 * word (a rank file missing "e" encoded "Hello" as "Hllo"). Refused at
 * load, naming the bytes; byte_fallback models have their own rule. */
static int check_byte_coverage(const tc_tokenizer *tok, tc_error *err) {
    if (!tok->byte_level || tok->model.byte_fallback || tok->drop_missing_bytes) return TC_OK;
    char list[TC_MISSING_BYTES_LISTED * 10 + 32];
    size_t o = 0;
    int missing = 0;
    for (int b = 0; b < 256; b++) {
        if (tok->model.byte_ids[b] >= 0) continue;
        if (missing < TC_MISSING_BYTES_LISTED) {
            int w = b >= 0x21 && b <= 0x7E && b != '\'' ? snprintf(list + o, sizeof list - o, "%s0x%02X '%c'", missing ? ", " : "", b, b)
                                                        : snprintf(list + o, sizeof list - o, "%s0x%02X", missing ? ", " : "", b);
            if (w > 0 && (size_t)w < sizeof list - o) o += (size_t)w;
        }
        missing++;
    }
    if (!missing) return TC_OK;
    if (missing > TC_MISSING_BYTES_LISTED) snprintf(list + o, sizeof list - o, " and %d more", missing - TC_MISSING_BYTES_LISTED);
    return tc_error_set(err, TC_ERR_FORMAT, "the vocabulary has no token for the byte%s %s: text with %s would be lost",
                        missing > 1 ? "s" : "", list, missing > 1 ? "them" : "it");
}

int tc_tokenizer_finish(tc_tokenizer *tok, tc_error *err) {
    int r = tc_model_init_bytes(tok, err);
    if (r != TC_OK) return r;
    if ((r = check_byte_coverage(tok, err)) != TC_OK) return r;
    /* the indexes a loader built are ready (the handle is not shared yet) */
    if (tok->model.by_bytes.slots) atomic_store_explicit(&tok->ix_state[TC_IX_BYTES], TC_IX_READY, memory_order_release);
    /* the WordPiece and WordLevel models need no index for the default encoder */
    if (tok->model.merges.slots || tok->model.kind == TC_MODEL_WORDPIECE || tok->model.kind == TC_MODEL_WORDLEVEL)
        atomic_store_explicit(&tok->ix_state[TC_IX_MERGES], TC_IX_READY, memory_order_release);
    if (tok->greedy) atomic_store_explicit(&tok->ix_state[TC_IX_GREEDY], TC_IX_READY, memory_order_release);
    return rebuild_added(tok, err);
}

/* ---- encoder preparation ---------------------------------------------- */

static const char *const ENCODER_NAMES[] = {"bpe", "rank", "greedy", "kestrel-v1", "kestrel-v2"};

const char *tc_encoder_name(tc_encoder enc) {
    return (unsigned)enc < sizeof ENCODER_NAMES / sizeof *ENCODER_NAMES ? ENCODER_NAMES[enc] : "unknown";
}

int tc_encoder_from_name(const char *name, tc_encoder *enc) {
    for (size_t i = 0; name && i < sizeof ENCODER_NAMES / sizeof *ENCODER_NAMES; i++)
        if (strcmp(name, ENCODER_NAMES[i]) == 0) { *enc = (tc_encoder)i; return 0; }
    return -1;
}

static int index_ready(const tc_tokenizer *tok, tc_index ix) {
    return atomic_load_explicit(&tok->ix_state[ix], memory_order_acquire) == TC_IX_READY;
}

int tc_is_prepared(const tc_tokenizer *tok, tc_encoder enc) {
    switch (enc) {
    case TC_ENC_BPE:
        return tok->model.kind == TC_MODEL_UNIGRAM || tok->model.kind == TC_MODEL_UGM || index_ready(tok, tok->model.bpe_is_rank ? TC_IX_BYTES : TC_IX_MERGES);
    case TC_ENC_RANK: return index_ready(tok, TC_IX_BYTES);
    case TC_ENC_GREEDY:
    case TC_ENC_KESTREL_V1:
    case TC_ENC_KESTREL_V2: return index_ready(tok, TC_IX_GREEDY);
    }
    return 0;
}

/* subtle: rank looks up concatenations of the chunk's text, which is in
 * the model's string space: real bytes for byte-level models (where the
 * chunk is raw bytes), the stored strings otherwise ("▁the", "<0x0A>") */
static int build_bytes_index(tc_tokenizer *tok, tc_error *err) {
    tc_strmap local;
    int r = tc_strmap_build(&local, &tok->model.vocab, tok->byte_level || tok->model.kind == TC_MODEL_BPE_RANK, err);
    if (r != TC_OK) return r;
    tok->model.by_bytes = local;
    return TC_OK;
}

/* Builds index ix once per handle, whatever the number of threads asking:
 * the first one to move the state ABSENT -> BUILDING builds it and
 * publishes READY (release); the others wait for that (a spin on an
 * acquire load: C11 offers no portable sleep, and the Python layer already
 * serializes its own calls with a lock). A failed build goes back to
 * ABSENT, so a later call tries again and gets the error itself. */
static int prepare_index(tc_tokenizer *tok, tc_index ix, int (*build)(tc_tokenizer *, tc_error *), tc_error *err) {
    for (;;) {
        int st = atomic_load_explicit(&tok->ix_state[ix], memory_order_acquire);
        if (st == TC_IX_READY) return TC_OK;
        if (st == TC_IX_BUILDING) continue;
        if (!atomic_compare_exchange_weak_explicit(&tok->ix_state[ix], &st, TC_IX_BUILDING, memory_order_acquire,
                                                   memory_order_relaxed))
            continue;
        int r = build(tok, err);
        atomic_store_explicit(&tok->ix_state[ix], r == TC_OK ? TC_IX_READY : TC_IX_ABSENT, memory_order_release);
        return r;
    }
}

int tc_prepare(tc_tokenizer *tok, tc_encoder enc, tc_error *err) {
    if (tc_is_prepared(tok, enc)) return TC_OK;
    /* subtle: rank, greedy and kestrel are BPE-family encoders over byte
     * strings; a WordPiece or WordLevel model has no ranks or merges and
     * looks words up whole (with "##" pieces), so they would answer for a
     * model this file does not have */
    if (enc != TC_ENC_BPE && (tok->model.kind == TC_MODEL_WORDPIECE || tok->model.kind == TC_MODEL_WORDLEVEL))
        return tc_error_set(err, TC_ERR_UNSUPPORTED, "%s: this is a %s model, which has no merge ranks or byte-level vocabulary for the %s encoder to run on; use the default encoder (bpe), which runs the model's own algorithm",
                            tc_encoder_name(enc), tok->model.kind == TC_MODEL_WORDPIECE ? "WordPiece" : "WordLevel", tc_encoder_name(enc));
    if (tok->spm)
        return tc_error_set(err, TC_ERR_UNSUPPORTED, "%s: a SentencePiece .model encodes with its own algorithm (bpe) only", tc_encoder_name(enc));
    /* subtle: "bpe" names the model's own algorithm (HF-exact): for a
     * Unigram model that is its Viterbi search, which needs nothing more */
    if (tok->model.kind == TC_MODEL_UNIGRAM && enc != TC_ENC_BPE)
        return tc_error_set(err, TC_ERR_UNSUPPORTED, "%s: this is a Unigram model, which picks the best-scoring segmentation of each word; %s",
                            tc_encoder_name(enc), enc == TC_ENC_RANK ? "rank merges pairs of a BPE vocabulary by id, and a Unigram vocabulary has no merges"
                            : "the longest-prefix match runs on vocab.bin's byte-level stored form, and a Unigram vocabulary is not byte-level (its spaces are \"\xE2\x96\x81\" and bytes \"<0xNN>\" tokens)");
    /* a GGUF "llama" vocabulary: "bpe" is llama.cpp's SPM session (spm.c), nothing else applies */
    if (tok->model.kind == TC_MODEL_SPM_LLAMA && enc != TC_ENC_BPE)
        return tc_error_set(err, TC_ERR_UNSUPPORTED, "%s: this is llama.cpp's SPM vocabulary (a GGUF \"llama\" model): its merges come from "
                            "the pieces' scores, and it is not byte-level (spaces are \"\xE2\x96\x81\", bytes \"<0xNN>\" tokens)",
                            tc_encoder_name(enc));
    /* a GGUF "bert" vocabulary: "bpe" is llama.cpp's WPM session (wpm.c), nothing else applies */
    if (tok->model.kind == TC_MODEL_WPM_LLAMA && enc != TC_ENC_BPE)
        return tc_error_set(err, TC_ERR_UNSUPPORTED, "%s: this is llama.cpp's WPM vocabulary (a GGUF \"bert\" model): it matches the "
                            "longest piece of each word and has no merges; it is not byte-level", tc_encoder_name(enc));
    /* a GGUF "t5" vocabulary: "bpe" is llama.cpp's UGM session (ugm.c), nothing else applies */
    if (tok->model.kind == TC_MODEL_UGM && enc != TC_ENC_BPE)
        return tc_error_set(err, TC_ERR_UNSUPPORTED, "%s: this is llama.cpp's UGM vocabulary (a GGUF \"t5\" model): a Unigram "
                            "model that picks the best-scoring segmentation, with no merges, and not byte-level",
                            tc_encoder_name(enc));
    /* bpe on a rank file: merges recovered from the bytes index */
    if (enc == TC_ENC_BPE && tok->model.bpe_is_rank) return prepare_index(tok, TC_IX_BYTES, build_bytes_index, err);
    if (enc == TC_ENC_BPE) {
        int r = prepare_index(tok, TC_IX_BYTES, build_bytes_index, err);
        return r != TC_OK ? r : prepare_index(tok, TC_IX_MERGES, tc_recover_merges, err);
    }
    if (enc == TC_ENC_RANK) return prepare_index(tok, TC_IX_BYTES, build_bytes_index, err);
    /* subtle: greedy matches vocab.bin's stored form (bytes 0x00-0x20 as
     * their GPT-2 markers, so a space in the text is looked up as "Ġ"),
     * which exists only for byte-level vocabularies; a SentencePiece-style
     * vocabulary would be matched with its "▁" entries never reachable
     * and its "<0xNN>" entries as text */
    int longest_match = enc == TC_ENC_GREEDY || enc == TC_ENC_KESTREL_V1 || enc == TC_ENC_KESTREL_V2;
    if (longest_match && !tok->byte_level)
        return tc_error_set(err, TC_ERR_UNSUPPORTED, "%s: the longest-prefix match runs on vocab.bin's byte-level stored form, and this vocabulary is not byte-level (%s)",
                            tc_encoder_name(enc), tok->bytes_rule == TC_BYTES_SPM ? "SentencePiece style: spaces are \"\xE2\x96\x81\" and bytes \"<0xNN>\" tokens, produced by the normalizer/pre-tokenizer that greedy skips" : "its strings are not byte-mapped");
    if (longest_match) return prepare_index(tok, TC_IX_GREEDY, tc_greedy_prepare, err);
    return tc_error_set(err, TC_ERR_ARG, "unknown encoder %d", (int)enc);
}

/* ---- decode ------------------------------------------------------------- */

/* A list of token strings (HF decode_chain works on Vec<String>). */
typedef struct toklist {
    tc_buf pool;
    size_t *off, *len; size_t n, cap;
} toklist;

static void tl_free(toklist *t) {
    tc_buf_free(&t->pool);
    free(t->off); free(t->len);
    memset(t, 0, sizeof *t);
}

/* Starts a new (empty) token; bytes are then appended to t->pool. */
static int tl_begin(toklist *t) {
    if (t->n == t->cap) {
        size_t c1 = t->cap, c2 = t->cap;
        void *p = t->off, *q = t->len;
        if (tc_grow(&p, &c1, t->n + 1, sizeof *t->off) != 0) return -1;
        t->off = p;
        if (tc_grow(&q, &c2, t->n + 1, sizeof *t->len) != 0) return -1;
        t->len = q;
        t->cap = c1 < c2 ? c1 : c2;
    }
    t->off[t->n] = t->pool.len;
    t->len[t->n] = 0;
    t->n++;
    return 0;
}

static inline void tl_end(toklist *t) { t->len[t->n - 1] = t->pool.len - t->off[t->n - 1]; }

/* The list's bytes: never NULL, so a token's start is a valid pointer even
 * when every token so far is empty and the pool was never allocated
 * (pointer arithmetic on NULL is undefined, even with offset 0). */
static inline const uint8_t *tl_bytes(const toklist *t) {
    return t->pool.data ? t->pool.data : (const uint8_t *)"";
}

static int tl_push(toklist *t, const void *s, size_t n) {
    if (tl_begin(t) != 0 || (n && tc_buf_append(&t->pool, s, n) != 0)) return -1;
    tl_end(t);
    return 0;
}

static int utf8_valid(const uint8_t *s, size_t len) {
    for (size_t i = 0; i < len;) {
        int n;
        if (tc_utf8_decode(s, len, i, &n) >= TC_CP_INVALID_BASE) return 0;
        i += (size_t)n;
    }
    return 1;
}

/* Matches of a decoder Replace pattern in s (literal: non-overlapping, left
 * to right; regex: find_iter). */
static int dec_matches(const tc_dec_step *d, const uint8_t *s, size_t len, size_t **m, size_t *nm, size_t *cap) {
    *nm = 0;
    if (d->re) return tc_regex_find_all(d->re, s, len, m, nm, cap);
    if (d->pat_len == 0) return 0;
    for (size_t i = 0; i + d->pat_len <= len;) {
        if (memcmp(s + i, d->pat, d->pat_len) == 0) {
            if (2 * *nm + 2 > *cap) {
                void *p = *m;
                if (tc_grow(&p, cap, 2 * *nm + 2, sizeof **m) != 0) return -1;
                *m = p;
            }
            (*m)[2 * *nm] = i; (*m)[2 * *nm + 1] = i + d->pat_len;
            (*nm)++;
            i += d->pat_len;
        } else {
            i++;
        }
    }
    return 0;
}

static int flush_bytes(toklist *out, tc_buf *bytes) {
    if (bytes->len == 0) return 0;
    int r = 0;
    if (utf8_valid(bytes->data, bytes->len)) r = tl_push(out, bytes->data, bytes->len);
    else for (size_t k = 0; k < bytes->len && r == 0; k++) r = tl_push(out, "\xEF\xBF\xBD", 3);
    bytes->len = 0;
    return r;
}

/* Appends s with every non-overlapping occurrence of pat (left to right)
 * replaced by rep: Rust's str::replace. */
static int replace_all(tc_buf *out, const uint8_t *s, size_t len, const char *pat, const char *rep) {
    size_t pl = strlen(pat), rl = strlen(rep), last = 0;
    for (size_t i = 0; pl && i + pl <= len;) {
        if (memcmp(s + i, pat, pl) == 0) {
            if (tc_buf_append(out, s + last, i - last) != 0 || (rl && tc_buf_append(out, rep, rl) != 0)) return -1;
            i += pl;
            last = i;
        } else {
            i++;
        }
    }
    return tc_buf_append(out, s + last, len - last);
}

/* decoders/wordpiece.rs cleanup (tokenizers 0.23.3), also used by CTC:
 * these replacements, in this order, each over the whole string. */
static int wordpiece_cleanup(tc_buf *s, tc_buf *tmp) {
    static const char *const pairs[][2] = {
        {" .", "."}, {" ?", "?"}, {" !", "!"}, {" ,", ","}, {" ' ", "'"}, {" n't", "n't"},
        {" 'm", "'m"}, {" do not", " don't"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
    for (size_t k = 0; k < sizeof pairs / sizeof *pairs; k++) {
        tmp->len = 0;
        if (replace_all(tmp, s->data, s->len, pairs[k][0], pairs[k][1]) != 0) return -1;
        tc_buf t = *s; *s = *tmp; *tmp = t;
    }
    return 0;
}

/* WordPiece, CTC, BPEDecoder (decoders/wordpiece.rs, ctc.rs, bpe.rs;
 * tokenizers 0.23.3), token by token. */
static int dec_word_step(const tc_dec_step *d, const toklist *in, toklist *out) {
    const uint8_t *P = tl_bytes(in);
    tc_buf cur = {0}, tmp = {0};
    int r = 0;
    for (size_t i = 0; i < in->n && r == 0; i++) {
        const uint8_t *s = P + in->off[i];
        size_t len = in->len[i];
        cur.len = 0;
        if (d->kind == TC_DEC_WORDPIECE) {
            /* i > 0: the prefix removed once, or a space before the token */
            size_t pl = d->content_len;
            if (i > 0 && len >= pl && memcmp(s, d->content, pl) == 0) r = tc_buf_append(&cur, s + pl, len - pl);
            else r = (i > 0 && tc_buf_push(&cur, ' ') != 0) ? -1 : tc_buf_append(&cur, s, len);
            if (r == 0 && d->prepend) r = wordpiece_cleanup(&cur, &tmp);
            if (r == 0) r = tl_push(out, cur.data, cur.len);
        } else if (d->kind == TC_DEC_CTC) {
            /* dedup consecutive equal tokens, pad removed, cleanup then the
             * word delimiter -> ' ', empty results dropped */
            if (i > 0 && in->len[i - 1] == len && memcmp(P + in->off[i - 1], s, len) == 0) continue;
            r = replace_all(&cur, s, len, d->pat, "");
            if (r == 0 && d->prepend) {
                r = wordpiece_cleanup(&cur, &tmp);
                if (r == 0) {
                    tmp.len = 0;
                    r = replace_all(&tmp, cur.data, cur.len, d->content, " ");
                    tc_buf t = cur; cur = tmp; tmp = t;
                }
            }
            if (r == 0 && cur.len) r = tl_push(out, cur.data, cur.len);
        } else {
            /* BPEDecoder: the suffix becomes ' ', or nothing in the last token */
            r = replace_all(&cur, s, len, d->content, i + 1 == in->n ? "" : " ");
            if (r == 0) r = tl_push(out, cur.data, cur.len);
        }
    }
    tc_buf_free(&cur);
    tc_buf_free(&tmp);
    return r;
}

/* One decoder step: in -> out (out is empty). */
static int dec_step(const tc_dec_step *d, const toklist *in, toklist *out) {
    const uint8_t *P = tl_bytes(in);
    int r = 0;
    switch (d->kind) {
    case TC_DEC_REPLACE: {
        size_t *m = NULL, nm = 0, cap = 0;
        for (size_t i = 0; i < in->n && r == 0; i++) {
            const uint8_t *s = P + in->off[i];
            size_t len = in->len[i];
            r = dec_matches(d, s, len, &m, &nm, &cap);
            if (r != 0) break;
            if ((r = tl_begin(out)) != 0) break;
            size_t last = 0;
            for (size_t k = 0; k < nm && r == 0; k++) {
                r = tc_buf_append(&out->pool, s + last, m[2 * k] - last);
                if (r == 0 && d->content_len) r = tc_buf_append(&out->pool, d->content, d->content_len);
                last = m[2 * k + 1];
            }
            if (r == 0) r = tc_buf_append(&out->pool, s + last, len - last);
            tl_end(out);
        }
        free(m);
        return r;
    }
    case TC_DEC_BYTEFALLBACK: {
        tc_buf bytes = {0};
        for (size_t i = 0; i < in->n && r == 0; i++) {
            int b = tc_fallback_byte(P + in->off[i], in->len[i]);
            if (b >= 0) { r = tc_buf_push(&bytes, (uint8_t)b); continue; }
            r = flush_bytes(out, &bytes);
            if (r == 0) r = tl_push(out, P + in->off[i], in->len[i]);
        }
        if (r == 0) r = flush_bytes(out, &bytes);
        tc_buf_free(&bytes);
        return r;
    }
    case TC_DEC_FUSE:
    case TC_DEC_BYTELEVEL:
        if ((r = tl_begin(out)) != 0) return r;
        for (size_t i = 0; i < in->n && r == 0; i++) {
            if (d->kind == TC_DEC_FUSE) r = tc_buf_append(&out->pool, P + in->off[i], in->len[i]);
            else r = tc_bytelevel_unmap(P + in->off[i], in->len[i], &out->pool) < 0 ? -1 : 0;
        }
        tl_end(out);
        return r;
    case TC_DEC_STRIP: {
        const uint8_t *c = (const uint8_t *)d->content;
        size_t cl = d->content_len;
        for (size_t i = 0; i < in->n && r == 0; i++) {
            const uint8_t *s = P + in->off[i];
            size_t a = 0, b = in->len[i];
            for (uint32_t k = 0; k < d->start && a + cl <= b && memcmp(s + a, c, cl) == 0; k++) a += cl;
            for (uint32_t k = 0; k < d->stop && b >= a + cl && memcmp(s + b - cl, c, cl) == 0; k++) b -= cl;
            r = tl_push(out, s + a, b - a);
        }
        return r;
    }
    case TC_DEC_METASPACE: {
        const uint8_t *c = (const uint8_t *)d->content;
        size_t cl = d->content_len;
        for (size_t i = 0; i < in->n && r == 0; i++) {
            const uint8_t *s = P + in->off[i];
            size_t len = in->len[i];
            if ((r = tl_begin(out)) != 0) break;
            for (size_t k = 0; k < len && r == 0;) {
                if (k + cl <= len && memcmp(s + k, c, cl) == 0) {
                    if (!(i == 0 && d->prepend)) r = tc_buf_push(&out->pool, ' ');
                    k += cl;
                } else {
                    r = tc_buf_push(&out->pool, s[k]);
                    k++;
                }
            }
            tl_end(out);
        }
        return r;
    }
    case TC_DEC_WORDPIECE:
    case TC_DEC_CTC:
    case TC_DEC_BPE:
        return dec_word_step(d, in, out);
    default:
        return -1;
    }
}

int tc_decode(const tc_tokenizer *tok, const uint32_t *ids, size_t n, int skip_special_tokens,
              tc_buf *out, tc_error *err) {
    out->len = 0;
    if (tok->spm) return tc_spm_decode(tok, ids, n, out, err);
    if (tok->decoder == TC_DEC_CHAIN) {
        toklist a, b;
        memset(&a, 0, sizeof a);
        memset(&b, 0, sizeof b);
        int r = 0;
        for (size_t i = 0; i < n && r == 0; i++) {
            size_t slen;
            const char *s = tc_id_to_token(tok, ids[i], &slen);
            if (!s) continue;                     /* HF skips unknown ids */
            if (skip_special_tokens && tc_is_special(tok, ids[i])) continue;
            r = tl_push(&a, s, slen);
        }
        for (int k = 0; k < tok->ndec && r == 0; k++) {
            b.n = 0;
            b.pool.len = 0;
            r = dec_step(&tok->dec[k], &a, &b);
            toklist t = a; a = b; b = t;
        }
        for (size_t i = 0; i < a.n && r == 0; i++) r = tc_buf_append(out, tl_bytes(&a) + a.off[i], a.len[i]);
        tl_free(&a);
        tl_free(&b);
        if (r != 0) return tc_error_set(err, r == -2 ? TC_ERR_LIMIT : TC_ERR_NOMEM, r == -2 ? "decode: the Replace regex exceeded its step limit" : "decode: out of memory");
        return TC_OK;
    }
    int first = 1;
    for (size_t i = 0; i < n; i++) {
        size_t slen;
        const char *s = tc_id_to_token(tok, ids[i], &slen);
        if (!s) continue;                     /* HF skips unknown ids */
        if (skip_special_tokens && tc_is_special(tok, ids[i])) continue;
        int r;
        if (tok->decoder == TC_DEC_BYTELEVEL) {
            if (!tc_is_added(tok, ids[i]) && tok->byte_level) {
                size_t bl;
                const uint8_t *b = tc_id_to_bytes(tok, ids[i], &bl);
                r = tc_buf_append(out, b, bl);
            } else {
                r = tc_bytelevel_unmap((const uint8_t *)s, slen, out) < 0 ? -1 : 0;
            }
        } else {
            r = (!first && tc_buf_push(out, ' ') != 0) ? -1 : tc_buf_append(out, s, slen);
        }
        if (r != 0) return tc_error_set(err, TC_ERR_NOMEM, "decode: out of memory");
        first = 0;
    }
    return TC_OK;
}
