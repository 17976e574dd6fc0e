/* gguf_vocab.c - llama.cpp's vocabulary rules for GGUF "bert" (WPM) and
 * "gemma4" files: the WPM build, the token attributes that decide the
 * special-token partition, and the SentencePiece-style BPE setup of the
 * GEMMA4 pre type. Every rule cites llama_vocab::impl::load,
 * tokenizer_st_partition or tokenize in src/llama-vocab.cpp of the
 * llama.cpp vendored by llama-cpp-python 0.3.36.
 *
 * Does: special ids (WPM defaults, then the file's keys; an id out of range
 * keeps the default, as load's "bad special token ... using default id"),
 * token attributes from tokenizer.ggml.token_type plus load's overrides by
 * token text (end-of-generation and FIM texts become CONTROL, gpt-oss's
 * always-rendered texts USER_DEFINED, a normal "</s>" beside
 * "<|tool_response>" NORMAL, LSTRIP/RSTRIP by model name), the partition
 * (CONTROL and UNKNOWN tokens only with parse_special, USER_DEFINED always;
 * LSTRIP/RSTRIP strip ASCII whitespace only, as its isspace() on bytes).
 * Refused with the reason: a vocabulary without a usable unk token (WPM
 * would emit the id -1), fewer token types than tokens, two tokens with the
 * same text (load asserts id_to_token.size() == token_to_id.size()).
 * Does not (known approximations): llama.cpp matches special tokens longest
 * first over the whole text, ties in an unspecified order, where the
 * partition here is leftmost-longest; when a vocabulary holds
 * two texts of one FIM kind, llama.cpp marks the first its hash map yields
 * and this the lower id; an empty token is kept empty (llama.cpp renames it
 * "[EMPTY_i]").
 */
#include <stdio.h>

#include "gguf_build.h"

void tc_describe_update(tc_tokenizer *tok, const char *format);

/* llama.h enum llama_token_attr */
enum {
    A_UNKNOWN = 1 << 0, A_UNUSED = 1 << 1, A_NORMAL = 1 << 2, A_CONTROL = 1 << 3, A_USER = 1 << 4,
    A_BYTE = 1 << 5, A_LSTRIP = 1 << 7, A_RSTRIP = 1 << 8
};

static int64_t find_text(const tc_vocab *v, const char *s) { return tc_vocab_find(v, (const uint8_t *)s, strlen(s)); }

static void set_attr(uint32_t *attr, const tc_vocab *v, const char *s, uint32_t bits, int on) {
    int64_t id = find_text(v, s);
    if (id >= 0) attr[id] = on ? attr[id] | bits : attr[id] & ~bits;
}

/* load: "auto-detect special tokens by text", per kind whose id the file did not set */
static const char *const FIM_TEXTS[][9] = {
    /* FIM_PRE */ {"<|fim_prefix|>", "<fim-prefix>", "<fim_prefix>", "<\xef\xbd\x9c" "fim\xe2\x96\x81" "begin\xef\xbd\x9c>",
                   "<PRE>", "\xe2\x96\x81<PRE>", "<|code_prefix|>", "<|prefix|>"},
    /* FIM_SUF */ {"<|fim_suffix|>", "<fim-suffix>", "<fim_suffix>", "<\xef\xbd\x9c" "fim\xe2\x96\x81" "hole\xef\xbd\x9c>",
                   "<SUF>", "\xe2\x96\x81<SUF>", "<|code_suffix|>", "<|suffix|>"},
    /* FIM_MID */ {"<|fim_middle|>", "<fim-middle>", "<fim_middle>", "<\xef\xbd\x9c" "fim\xe2\x96\x81" "end\xef\xbd\x9c>",
                   "<MID>", "\xe2\x96\x81<MID>", "<|code_middle|>", "<|middle|>"},
    /* FIM_PAD */ {"<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]"},
    /* FIM_REP */ {"<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>"},
    /* FIM_SEP */ {"<|file_sep|>"},
};
static const int FIM_KEYS[] = {TC_GGUF_FIM_PRE, TC_GGUF_FIM_SUF, TC_GGUF_FIM_MID, TC_GGUF_FIM_PAD, TC_GGUF_FIM_REP,
                               TC_GGUF_FIM_SEP};

/* load: "maintain a list of tokens that cause end-of-generation": each becomes CONTROL. The EOT and EOM
 * auto-detection lists are parts of it. */
static const char *const EOG_TEXTS[] = {
    "<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>", "<|calls|>", "<end_of_turn>",
    "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>", "_<EOT>", "[EOT]", "[EOS]", "<|end_of_text|>",
    "<end_of_utterance>", "<eos>", "<turn|>", "<|tool_response>",
    "<\xef\xbd\x9c" "end\xe2\x96\x81" "of\xe2\x96\x81" "sentence\xef\xbd\x9c>", "[e~["};

static void lowercase_ascii(const char *s, char *out, size_t cap) {
    size_t i = 0;
    for (; s && s[i] && i + 1 < cap; i++) out[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]);
    out[i] = 0;
}

/* The attribute of every token, as llama_vocab::impl::load leaves it. */
static void token_attrs(const tc_gguf *g, const tc_vocab *v, uint32_t *attr) {
    uint32_t n = v->n;
    for (uint32_t i = 0; i < n; i++) {
        if (!g->types) { attr[i] = A_NORMAL; continue; }
        switch (g->types[i]) {   /* "switch(toktypes[i])": UNDEFINED and unknown values are 0 */
        case TC_GGUF_TT_UNKNOWN: attr[i] = A_UNKNOWN; break;
        case TC_GGUF_TT_UNUSED: attr[i] = A_UNUSED; break;
        case TC_GGUF_TT_NORMAL: attr[i] = A_NORMAL; break;
        case TC_GGUF_TT_CONTROL: attr[i] = A_CONTROL; break;
        case TC_GGUF_TT_USER_DEFINED: attr[i] = A_USER; break;
        case TC_GGUF_TT_BYTE: attr[i] = A_BYTE; break;
        default: attr[i] = 0; break;
        }
    }
    for (size_t k = 0; k < sizeof FIM_KEYS / sizeof FIM_KEYS[0]; k++) {
        int64_t fid = g->ids[FIM_KEYS[k]];
        if (fid >= 0 && fid < (int64_t)n) continue;   /* the file's id: nothing is detected */
        int64_t best = -1;
        for (size_t j = 0; j < 9 && FIM_TEXTS[k][j]; j++) {
            int64_t id = find_text(v, FIM_TEXTS[k][j]);
            if (id >= 0 && (best < 0 || id < best)) best = id;
        }
        if (best >= 0) attr[best] |= A_CONTROL;
    }
    for (size_t k = 0; k < sizeof EOG_TEXTS / sizeof EOG_TEXTS[0]; k++) set_attr(attr, v, EOG_TEXTS[k], A_CONTROL, 1);
    /* "@ngxson : quick hack for gpt-oss, always render these tokens" */
    static const char *const render[] = {"<|channel|>", "<|message|>", "<|start|>", "<|constrain|>"};
    for (size_t k = 0; k < 4; k++) {
        int64_t id = find_text(v, render[k]);
        if (id >= 0) attr[id] = A_USER;
    }
    /* o200k_harmony / solar-open: "<|end|>" is not end-of-generation there, and USER_DEFINED */
    int64_t end = find_text(v, "<|end|>");
    int has_call = find_text(v, "<|call|>") >= 0 || find_text(v, "<|calls|>") >= 0;
    if (end >= 0 && has_call && (find_text(v, "<|return|>") >= 0 || find_text(v, "<|flush|>") >= 0)) attr[end] = A_USER;
    /* "gemma4 and plamo have a normal </s> token" */
    int64_t s_end = find_text(v, "</s>");
    if (s_end >= 0 && (find_text(v, "<|tool_response>") >= 0 || find_text(v, "<|plamo:eos|>") >= 0)) attr[s_end] = A_NORMAL;
    /* "set attributes by model/tokenizer/architecture name" */
    char name[128], pre[128], arch[128];
    lowercase_ascii(tc_gguf_str(g, g->name), name, sizeof name);
    const char *p = tc_gguf_str(g, g->pre), *a = tc_gguf_str(g, g->arch);
    snprintf(pre, sizeof pre, "%s", p ? p : "");
    snprintf(arch, sizeof arch, "%s", a ? a : "");
    if (strstr(pre, "jina-v2-de") || strstr(pre, "jina-v2-es") || strstr(pre, "jina-v2-code") ||
        strstr(arch, "nomic-bert-moe") || strstr(arch, "jina-bert-v3")) {
        set_attr(attr, v, "<mask>", A_LSTRIP, 1);
    } else if (strstr(name, "phi-3") || strstr(name, "phi3")) {
        for (uint32_t i = 0; i < n; i++)
            if (attr[i] & (A_CONTROL | A_USER | A_UNKNOWN)) attr[i] |= A_RSTRIP;
        set_attr(attr, v, "</s>", A_RSTRIP, 1);
        set_attr(attr, v, "<unk>", A_RSTRIP, 0);
        set_attr(attr, v, "<s>", A_RSTRIP, 0);
        set_attr(attr, v, "<|endoftext|>", A_RSTRIP, 0);
    } else if (strstr(name, "modern-bert")) {
        set_attr(attr, v, "[MASK]", A_LSTRIP, 1);
    }
}

int tc_gguf_add_special(tc_tokenizer *tok, const tc_gguf *g, int parse_special, tc_error *err) {
    const tc_vocab *v = &tok->model.vocab;
    uint32_t *attr = calloc(v->n ? v->n : 1, sizeof *attr);
    if (!attr) return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    token_attrs(g, v, attr);
    int rc = TC_OK;
    for (uint32_t i = 0; i < v->n && rc == TC_OK; i++) {
        /* cache_special_tokens: CONTROL, USER_DEFINED and UNKNOWN; tokenizer_st_partition skips
         * CONTROL and UNKNOWN ones when special tokens are not parsed */
        if (!(attr[i] & (A_CONTROL | A_USER | A_UNKNOWN))) continue;
        int special = (attr[i] & (A_CONTROL | A_UNKNOWN)) != 0;
        if (special && !parse_special) continue;
        uint32_t len;
        const uint8_t *s = tc_gguf_at(g, &g->tokens, i, &len);
        if (len == 0) continue;
        tc_added_token_spec sp;
        memset(&sp, 0, sizeof sp);
        sp.content = (const char *)s; sp.content_len = len; sp.id = i; sp.special = special;
        sp.lstrip = (attr[i] & A_LSTRIP) != 0;
        sp.rstrip = (attr[i] & A_RSTRIP) != 0;
        sp.ascii_strip = 1;   /* tokenizer_st_partition: while (isspace(raw_text[...])), on bytes */
        rc = tc_add_tokens(tok, &sp, 1, err);
        if (rc != TC_OK && !err->code) rc = tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    }
    free(attr);
    return rc;
}

/* load asserts id_to_token.size() == token_to_id.size(): every text once. */
static int check_unique(const tc_gguf *g, const tc_vocab *v, tc_error *err) {
    for (uint32_t i = 0; i < v->n; i++) {
        uint32_t len;
        const uint8_t *s = tc_gguf_at(g, &g->tokens, i, &len);
        int64_t id = tc_vocab_find(v, s, len);
        if (id >= 0 && (uint32_t)id != i)
            return tc_error_set(err, TC_ERR_FORMAT, "GGUF: tokenizer.ggml.tokens[%u] repeats tokenizer.ggml.tokens[%lld] "
                                "(llama.cpp refuses a vocabulary with two equal tokens)", i, (long long)id);
    }
    return TC_OK;
}

static int set_decoder(tc_tokenizer *tok, int byte_fallback, int prepend, tc_error *err) {
    int k = 0;
    tok->decoder = TC_DEC_CHAIN;
    if (byte_fallback) tok->dec[k++].kind = TC_DEC_BYTEFALLBACK;
    tc_dec_step *d = &tok->dec[k++];
    d->kind = TC_DEC_METASPACE;   /* llama_unescape_whitespace: U+2581 -> ' ' */
    d->content = malloc(4);
    if (!d->content) return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    memcpy(d->content, "\xe2\x96\x81", 4);
    d->content_len = 3;
    d->prepend = prepend;
    tok->ndec = k;
    return TC_OK;
}

int tc_gguf_spm_style(tc_tokenizer *tok, tc_error *err) {
    tc_model *m = &tok->model;
    tc_normalizer *nz = &tok->normalizer;
    /* tokenize: escape_whitespaces -> llama_escape_whitespace on each text fragment */
    nz->steps[0] = TC_NORM_REPLACE;
    nz->params[0].pat = malloc(2);
    nz->params[0].str = malloc(4);
    if (!nz->params[0].pat || !nz->params[0].str) return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    memcpy(nz->params[0].pat, " ", 2);
    nz->params[0].pat_len = 1;
    memcpy(nz->params[0].str, "\xe2\x96\x81", 4);
    nz->params[0].str_len = 3;
    nz->nsteps = 1;
    tok->has_normalizer = 1;
    /* byte_encode = false: a final symbol that is not a token becomes its bytes' "<0xNN>" tokens */
    m->byte_fallback = 1;
    m->newline_runs_whole = 1;   /* "fix for gemma 4" (llama.cpp PR 21343) */
    tok->bytes_rule = TC_BYTES_SPM;
    return set_decoder(tok, 1, 0, err);
}

/* tokenizer.ggml.model "bert" (load: LLAMA_VOCAB_TYPE_WPM). */
tc_tokenizer *tc_gguf_build_wpm(const tc_gguf *g, int parse_special, tc_error *err) {
    uint32_t n = g->tokens.n;
    if (g->types && g->n_types < n)   /* load: "Index out of array bounds for toktypes" */
        return tc_error_set(err, TC_ERR_FORMAT, "GGUF: tokenizer.ggml.token_type has %u entries for %u tokens", g->n_types, n), NULL;
    /* load: default special tokens of the WPM type, disabled when out of the vocabulary, then the
     * file's keys when in range */
    int64_t ids[TC_GGUF_NIDS];
    for (int i = 0; i < TC_GGUF_NIDS; i++) ids[i] = -1;
    ids[TC_GGUF_BOS] = 101; ids[TC_GGUF_UNK] = 100; ids[TC_GGUF_SEP] = 102; ids[TC_GGUF_PAD] = 0; ids[TC_GGUF_MASK] = 103;
    for (int i = 0; i < TC_GGUF_NIDS; i++) {
        if (ids[i] >= (int64_t)n) ids[i] = -1;
        if (g->ids[i] >= 0 && g->ids[i] < (int64_t)n) ids[i] = g->ids[i];
    }
    if (ids[TC_GGUF_UNK] < 0)
        return tc_error_set(err, TC_ERR_FORMAT, "GGUF: a \"bert\" vocabulary needs its unknown token, and "
                            "tokenizer.ggml.unknown_token_id is %s and the default 100 is past the %u tokens "
                            "(llama.cpp would emit the id -1 for a word it cannot split)",
                            g->ids[TC_GGUF_UNK] < 0 ? "missing" : "out of range", n), NULL;
    tc_tokenizer *tok = tc_tokenizer_new();
    if (!tok) return tc_error_set(err, TC_ERR_NOMEM, "out of memory"), NULL;
    tc_model *m = &tok->model;
    m->kind = TC_MODEL_WPM_LLAMA;
    m->unk_id = ids[TC_GGUF_UNK];
    /* load: normalizer_opts.lowercase (default true), strip_accents = lowercase unless its own key */
    m->wpm_lowercase = g->flags[TC_GGUF_NORM_LOWERCASE] >= 0 ? g->flags[TC_GGUF_NORM_LOWERCASE] : 1;
    m->wpm_strip_accents = g->flags[TC_GGUF_NORM_STRIP_ACCENTS] >= 0 ? g->flags[TC_GGUF_NORM_STRIP_ACCENTS] : m->wpm_lowercase;
    tok->bytes_rule = TC_BYTES_SPM;   /* U+2581 is a space; there are no byte tokens */
    tok->drop_missing_bytes = 1;
    if (tc_gguf_fill_vocab(g, &m->vocab, n, TC_BYTES_SPM, err) != TC_OK) goto fail;
    if (check_unique(g, &m->vocab, err) != TC_OK) goto fail;
    for (uint32_t i = 0; i < n; i++)   /* load: max_token_len, the longest token in bytes */
        if (m->vocab.entries[i].str_len > m->max_key_len) m->max_key_len = m->vocab.entries[i].str_len;
    /* no merges: the empty table tells tc_prepare that "bpe" needs nothing more */
    if (tc_pairmap_init(&m->merges, 1) != 0) { tc_error_set(err, TC_ERR_NOMEM, "out of memory"); goto fail; }
    if (tc_model_init_bytes(tok, err) != TC_OK) goto fail;
    if (set_decoder(tok, 0, 1, err) != TC_OK) goto fail;
    if (tc_gguf_add_special(tok, g, parse_special, err) != TC_OK) goto fail;
    /* tokenize (LLAMA_VOCAB_TYPE_WPM): with add_special, BOS before and SEP after, whatever the
     * add_bos/add_sep flags say (llama.cpp asserts both exist; a missing one is left out here) */
    if (tc_gguf_set_template(tok, ids[TC_GGUF_BOS], ids[TC_GGUF_SEP], err) != TC_OK) goto fail;
    if (tc_tokenizer_finish(tok, err) != TC_OK) goto fail;
    tc_describe_update(tok, "gguf");
    if (tc_gguf_describe(tok, g, ids[TC_GGUF_BOS] >= 0, 0, parse_special, ids) != 0) {
        tc_error_set(err, TC_ERR_NOMEM, "out of memory");
        goto fail;
    }
    return tok;
fail:
    tc_free(tok);
    return NULL;
}
