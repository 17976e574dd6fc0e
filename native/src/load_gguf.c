/* load_gguf.c - a tokenizer from a GGUF file's metadata, built the way
 * llama.cpp builds its vocabulary (llama_vocab::impl::load and
 * llm_tokenizer_bpe in src/llama-vocab.cpp of the llama.cpp vendored by
 * llama-cpp-python 0.3.36; the rules below cite those functions).
 *
 * Does: tokenizer.ggml.model "gpt2" (llama.cpp's BPE vocabulary): the
 * pre-tokenizer regexes of its `pre` type, applied one after the other
 * (unicode_regex_split keeps matched and unmatched pieces: Split Isolated),
 * GPT-2 byte encoding, merges ranked by their order, ignore_merges per
 * `pre`, special-token partitioning (tokenizer_st_partition: CONTROL and
 * UNKNOWN tokens only when special tokens are parsed, USER_DEFINED always),
 * add-bos/eos from the type's defaults and the file's flags. "llama"
 * (llama.cpp's SPM): the space prefix and escaping of each fragment, then
 * spm.c's score-ordered merges with "<0xNN>" byte fallback. "gemma4" (the BPE
 * type with pre type GEMMA4): raw UTF-8 with spaces escaped to U+2581, one
 * split on '\n' runs, "<0xNN>" byte tokens (gguf_vocab.c). "bert" (WPM) is
 * built by gguf_vocab.c and encoded by wpm.c. "t5" (UGM) is built and
 * encoded by ugm.c.
 * Does not (refused with the reason): the other vocabulary types, and
 * `pre` types outside the table.
 * Known approximations: overlapping special tokens are matched
 * leftmost-longest (llama.cpp takes them longest first over the whole text);
 * a merge whose result is not a token is dropped (llama.cpp merges it and
 * falls back to the bytes); two tokens with the same text keep the lower id
 * (llama.cpp's token_to_id keeps the last).
 */
#include <stdio.h>

#include "engine.h"
#include "gguf.h"
#include "pretok.h"
#include "gguf_build.h"
#include "ugm.h"

void tc_describe_update(tc_tokenizer *tok, const char *format);

/* ---- pre types (llm_tokenizer_bpe::llm_tokenizer_bpe, regex_exprs) ------- */

#define RX_GPT2 "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)"
#define RX_LLAMA3 "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"
#define RX_QWEN2 "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"
#define RX_QWEN35 "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?[\\p{L}\\p{M}]+|\\p{N}| ?[^\\s\\p{L}\\p{M}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"
/* bytes as in the source (an editor that normalizes text would change ranges such as U+1F5F-U+1F7D) */
#define RX_DSLLM_LETTERS \
    "\\s?[A-Za-z\xc2\xb5\xc3\x80-\xc3\x96\xc3\x98-\xc3\xb6\xc3\xb8-\xc6\xba\xc6\xbc-\xc6\xbf\xc7\x84-\xca\x93" \
    "\xca\x95-\xca\xaf\xcd\xb0-\xcd\xb3\xcd\xb6\xcd\xb7\xcd\xbb-\xcd\xbd\xcd\xbf\xce\x86\xce\x88-\xce\x8a\xce" \
    "\x8c\xce\x8e-\xce\xa1\xce\xa3-\xcf\xb5\xcf\xb7-\xd2\x81\xd2\x8a-\xd4\xaf\xd4\xb1-\xd5\x96\xe1\x82\xa0" \
    "-\xe1\x83\x85\xe1\x8e\xa0-\xe1\x8f\xb5\xe1\x8f\xb8-\xe1\x8f\xbd\xe1\xb2\x90-\xe1\xb2\xba\xe1\xb2\xbd-\xe1" \
    "\xb2\xbf\xe1\xb4\x80-\xe1\xb4\xab\xe1\xb5\xab-\xe1\xb5\xb7\xe1\xb5\xb9-\xe1\xb6\x9a\xe1\xb8\x80-\xe1\xbc" \
    "\x95\xe1\xbc\x98-\xe1\xbc\x9d\xe1\xbc\xa0-\xe1\xbd\x85\xe1\xbd\x88-\xe1\xbd\x8d\xe1\xbd\x90-\xe1\xbd\x97" \
    "\xe1\xbd\x99\xe1\xbd\x9b\xe1\xbd\x9d\xe1\xbd\x9f-\xe1\xbd\xbd\xe1\xbe\x80-\xe1\xbe\xb4\xe1\xbe\xb6-\xe1" \
    "\xbe\xbc\xe1\xbe\xbe\xe1\xbf\x82-\xe1\xbf\x84\xe1\xbf\x86-\xe1\xbf\x8c\xe1\xbf\x90-\xe1\xbf\x93\xe1\xbf" \
    "\x96-\xe1\xbf\x9b\xe1\xbf\xa0-\xe1\xbf\xac\xe1\xbf\xb2-\xe1\xbf\xb4\xe1\xbf\xb6-\xe1\xbf\xbc\xe2\x84\x82" \
    "\xe2\x84\x87\xe2\x84\x8a-\xe2\x84\x93\xe2\x84\x95\xe2\x84\x99-\xe2\x84\x9d\xe2\x84\xa4\xe2\x84\xa6\xe2" \
    "\x84\xa8\xe2\x84\xaa-\xe2\x84\xad\xe2\x84\xaf-\xe2\x84\xb4\xe2\x84\xb9\xe2\x84\xbc-\xe2\x84\xbf\xe2\x85" \
    "\x85-\xe2\x85\x89\xe2\x85\x8e\xe2\x86\x83\xe2\x86\x84\xe2\xb0\x80-\xe2\xb1\xbb\xe2\xb1\xbe-\xe2\xb3\xa4" \
    "\xe2\xb3\xab-\xe2\xb3\xae\xe2\xb3\xb2\xe2\xb3\xb3\xea\x99\x80-\xea\x99\xad\xea\x9a\x80-\xea\x9a\x9b\xea" \
    "\x9c\xa2-\xea\x9d\xaf\xea\x9d\xb1-\xea\x9e\x87\xea\x9e\x8b-\xea\x9e\x8e\xea\xad\xb0-\xea\xae\xbf\xef\xac" \
    "\x80-\xef\xac\x86\xef\xac\x93-\xef\xac\x97\xef\xbc\xa1-\xef\xbc\xba\xef\xbd\x81-\xef\xbd\x9a\xf0\x90\x90" \
    "\x80-\xf0\x90\x91\x8f\xf0\x90\x92\xb0-\xf0\x90\x93\x93\xf0\x90\x93\x98-\xf0\x90\x93\xbb\xf0\x90\xb2\x80" \
    "-\xf0\x90\xb2\xb2\xf0\x90\xb3\x80-\xf0\x90\xb3\xb2\xf0\x91\xa2\xa0-\xf0\x91\xa3\x9f\xf0\x9e\xa4\x80-\xf0" \
    "\x9e\xa5\x83]+"

/* "[一-龥ࠀ-一가-퟿]+" as llama.cpp matches it: a regex without \\p{..} runs on std::wregex over the text with
 * every non-ASCII whitespace code point replaced by 0x0B (unicode.cpp, unicode_regex_split: "std::wregex \\s
 * does not mach non-ASCII whitespaces"), so U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F and U+3000
 * never match a literal range: they are left out of U+0800-U+4E00 here */
#define RX_DS_CJK "[\xe4\xb8\x80-\xe9\xbe\xa5\xe0\xa0\x80-\xe1\x99\xbf\xe1\x9a\x81-\xe1\xbf\xbf\xe2\x80\x8b-\xe2\x80\xa7\xe2\x80\xaa-\xe2\x80\xae\xe2\x80\xb0-\xe2\x81\x9e\xe2\x81\xa0-\xe2\xbf\xbf\xe3\x80\x81-\xe4\xb8\x80\xea\xb0\x80-\xed\x9f\xbf]+"
/* "\\s?[!-/:-~！-／：-～‘-‟　-。]+" likewise: U+3000 (whitespace) is left out of U+3000-U+3002 */
#define RX_DSLLM_PUNCT "\\s?[!-/:-~！-／：-～‘-‟、-。]+"

typedef struct pre_rule {
    const char *names[12];        /* the `pre` strings llama.cpp maps to this type */
    const char *regex[6];         /* regex_exprs */
    int ignore_merges, add_bos;   /* llama_vocab::impl::load's per-pre settings */
    /* LLAMA_VOCAB_PRE_TYPE_GEMMA4 (llm_tokenizer_bpe::llm_tokenizer_bpe: byte_encode = false; load:
     * escape_whitespaces = true, add_bos forced on): SentencePiece-style BPE on raw UTF-8, spaces as
     * U+2581, "<0xNN>" byte tokens; llm_tokenizer_bpe_session::tokenize takes a word of only '\n'
     * whole when it is a token */
    int spm_style;
} pre_rule;

static const pre_rule PRE_RULES[] = {
    /* LLAMA_VOCAB_PRE_TYPE_LLAMA3: ignore_merges, add_bos */
    {{"llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2", "jina-v5-nano"},
     {RX_LLAMA3}, 1, 1, 0},
    /* LLAMA_VOCAB_PRE_TYPE_DBRX, SMAUG: same regex as llama3 */
    {{"dbrx", "smaug-bpe"}, {RX_LLAMA3}, 0, 0, 0},
    /* LLAMA_VOCAB_PRE_TYPE_DEEPSEEK_LLM */
    {{"deepseek-llm"},
     {"[\r\n]", RX_DSLLM_LETTERS, RX_DSLLM_PUNCT, "\\s+$", RX_DS_CJK, "\\p{N}+"}, 0, 0, 0},
    /* LLAMA_VOCAB_PRE_TYPE_DEEPSEEK_CODER */
    {{"deepseek-coder"}, {"[\r\n]", "\\s?\\p{L}+", "\\s?\\p{P}+", RX_DS_CJK, "\\p{N}"}, 0, 0, 0},
    /* LLAMA_VOCAB_PRE_TYPE_FALCON */
    {{"falcon"}, {"[\\p{P}\\$\\+<=>\\^~\\|`]+", RX_GPT2, "[0-9][0-9][0-9]"}, 0, 0, 0},
    /* LLAMA_VOCAB_PRE_TYPE_STARCODER, REFACT, COMMAND_R, SMOLLM, CODESHELL, EXAONE, MINERVA, MELLUM2 */
    {{"starcoder", "refact", "command-r", "smollm", "codeshell", "exaone", "minerva-7b", "mellum2"},
     {"\\p{N}", RX_GPT2}, 0, 0, 0},
    /* LLAMA_VOCAB_PRE_TYPE_GPT2, MPT, OLMO, JAIS (and exaone4, roberta-bpe... mapped to GPT2) */
    {{"gpt-2", "phi-2", "jina-es", "jina-de", "gigachat", "jina-v2-es", "jina-v2-de", "a.x-4.0", "mellum",
      "modern-bert", "mpt", "olmo"},
     {RX_GPT2}, 0, 0, 0},
    {{"jais", "exaone4", "jina-v1-en", "jina-v2-code", "roberta-bpe"}, {RX_GPT2}, 0, 0, 0},
    /* LLAMA_VOCAB_PRE_TYPE_STABLELM2, QWEN2, HUNYUAN, SOLAR_OPEN */
    {{"qwen2", "deepseek-r1-qwen", "kormo", "f2llmv2", "stablelm2", "megrez", "hunyuan", "solar-open"},
     {RX_QWEN2}, 0, 0, 0},
    /* LLAMA_VOCAB_PRE_TYPE_QWEN35 */
    {{"qwen35"}, {RX_QWEN35}, 0, 0, 0},
    /* LLAMA_VOCAB_PRE_TYPE_GEMMA4: tokenizer.ggml.model "gemma4" sets pre "gemma4" (load) */
    {{"gemma4", "granite-embed-multi-311m"}, {"[^\\n]+|[\\n]+"}, 0, 1, 1},
    /* LLAMA_VOCAB_PRE_TYPE_DEFAULT ("default", or no `pre` at all) */
    {{"default"}, {"[\\p{P}\\$\\+<=>\\^~\\|]+", RX_GPT2, "\\p{N}+", "[0-9][0-9][0-9]"}, 0, 0, 0},
};

static const pre_rule *find_pre(const char *pre) {
    if (!pre || !*pre) pre = "default";   /* load: missing pre-tokenizer type, using 'default' */
    for (size_t i = 0; i < sizeof PRE_RULES / sizeof PRE_RULES[0]; i++)
        for (size_t j = 0; j < 12 && PRE_RULES[i].names[j]; j++)
            if (strcmp(pre, PRE_RULES[i].names[j]) == 0) return &PRE_RULES[i];
    return NULL;
}

/* ---- building --------------------------------------------------------- */

int tc_gguf_add_regex(tc_tokenizer *tok, const char *rx, tc_error *err) {
    if (tok->npretok >= TC_MAX_PRETOK - 1) return tc_error_set(err, TC_ERR_LIMIT, "GGUF: too many pre-tokenizer regexes");
    tc_pretok *pt = &tok->pretok[tok->npretok++];
    memset(pt, 0, sizeof *pt);
    pt->kind = TC_PT_SPLIT_REGEX;
    pt->behavior = TC_SPLIT_ISOLATED;
    pt->re = tc_regex_compile(rx, strlen(rx), err);
    if (!pt->re) {
        tok->npretok--;
        tc_error_prefix(err, "GGUF pre-tokenizer regex: ");
        return err->code ? err->code : TC_ERR_UNSUPPORTED;
    }
    pt->fast = tc_fast_detect(rx, strlen(rx));
    return TC_OK;
}

int tc_gguf_set_template(tc_tokenizer *tok, int64_t bos, int64_t eos, tc_error *err) {
    if (bos < 0 && eos < 0) return TC_OK;
    tc_post *pp = &tok->post[tok->npost++];
    memset(pp, 0, sizeof *pp);
    pp->kind = TC_POST_TEMPLATE;
    pp->single = calloc(3, sizeof *pp->single);
    if (!pp->single) return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    if (bos >= 0) { pp->single[pp->nsingle].ids[0] = (uint32_t)bos; pp->single[pp->nsingle++].nids = 1; }
    pp->single[pp->nsingle++].is_sequence = 1;
    if (eos >= 0) { pp->single[pp->nsingle].ids[0] = (uint32_t)eos; pp->single[pp->nsingle++].nids = 1; }
    return TC_OK;
}

static int json_str(tc_buf *b, const char *s) {
    int bad = tc_buf_push(b, '"');
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        char esc[8];
        if (c == '"' || c == '\\') { esc[0] = '\\'; esc[1] = (char)c; bad |= tc_buf_append(b, esc, 2); }
        else if (c < 0x20) { snprintf(esc, sizeof esc, "\\u%04x", c); bad |= tc_buf_append(b, esc, 6); }
        else bad |= tc_buf_push(b, c);
    }
    return bad | tc_buf_push(b, '"');
}

/* Appends "gguf": {...} (types, special ids, flags as llama.cpp uses them) to the description. */
int tc_gguf_describe(tc_tokenizer *tok, const tc_gguf *g, int add_bos, int add_eos, int parse_special,
                         const int64_t *ids) {
    tc_buf *d = &tok->describe;
    /* the description ends "}" and its NUL */
    if (d->len < 2 || d->data[d->len - 1] != 0 || d->data[d->len - 2] != '}') return 0;
    d->len -= 2;
    char tmp[160];
    int bad = tc_buf_append(d, ",\"gguf\":{\"version\":", 19);
    snprintf(tmp, sizeof tmp, "%u,\"tensors\":%llu,\"kv\":%llu,\"metadata_bytes\":%llu,\"file_size\":%llu", g->version,
             (unsigned long long)g->n_tensors, (unsigned long long)g->n_kv, (unsigned long long)g->meta_end,
             (unsigned long long)g->file_size);
    bad |= tc_buf_append(d, tmp, strlen(tmp));
    const char *names[] = {"model", "pre", "architecture", "name"};
    uint64_t refs[] = {g->model, g->pre, g->arch, g->name};
    for (int i = 0; i < 4; i++) {
        snprintf(tmp, sizeof tmp, ",\"%s\":", names[i]);
        bad |= tc_buf_append(d, tmp, strlen(tmp));
        if (refs[i]) bad |= json_str(d, tc_gguf_str(g, refs[i]));
        else bad |= tc_buf_append(d, "null", 4);
    }
    bad |= tc_buf_append(d, ",\"special_ids\":{", 16);
    int first = 1;
    for (int i = 0; i < TC_GGUF_NIDS; i++) {
        if (ids[i] < 0) continue;
        snprintf(tmp, sizeof tmp, "%s\"%s\":%lld", first ? "" : ",", tc_gguf_id_name(i), (long long)ids[i]);
        bad |= tc_buf_append(d, tmp, strlen(tmp));
        first = 0;
    }
    snprintf(tmp, sizeof tmp, "},\"add_bos\":%s,\"add_eos\":%s,\"parse_special\":%s,\"has_chat_template\":%s}}",
             add_bos ? "true" : "false", add_eos ? "true" : "false", parse_special ? "true" : "false",
             g->chat_template ? "true" : "false");
    bad |= tc_buf_append(d, tmp, strlen(tmp) + 1);
    return bad;
}


/* tokenizer.ggml.model "llama": llama.cpp's SPM (load: LLAMA_VOCAB_TYPE_SPM; default ids bos 1, eos 2,
 * unk 0; add_space_prefix, add_bos true, add_eos false, then the file's keys). tokenize: each text
 * fragment gets ' ' in front when add_space_prefix (every fragment is first or follows a token), spaces
 * become U+2581 (llama_escape_whitespace), then llm_tokenizer_spm_session (spm.c). */
/* The model's vocabulary from tokenizer.ggml.tokens (n entries), each stored
 * string read back by `rule`, indexed; errors name the token's index. */
int tc_gguf_fill_vocab(const tc_gguf *g, tc_vocab *v, uint32_t n, int rule, tc_error *err) {
    if (tc_vocab_init(v, n) != 0) return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        uint32_t len;
        const uint8_t *s = tc_gguf_at(g, &g->tokens, i, &len);
        if (len > TC_MAX_TOKEN_BYTES)
            return tc_error_set(err, TC_ERR_LIMIT, "GGUF: tokenizer.ggml.tokens[%u]: %u bytes is above the limit %u", i,
                                len, TC_MAX_TOKEN_BYTES);
        if (tc_vocab_set(v, i, s, len, rule, err) != TC_OK) {
            char p[80];
            snprintf(p, sizeof p, "GGUF: tokenizer.ggml.tokens[%u]: ", i);
            tc_error_prefix(err, p);
            return err->code;
        }
    }
    return tc_vocab_build_index(v, err);
}

static tc_tokenizer *build_spm(const tc_gguf *g, int parse_special, tc_error *err) {
    uint32_t n = g->tokens.n;
    if (!g->scores || g->n_scores != n)
        return tc_error_set(err, TC_ERR_FORMAT, "GGUF: a \"llama\" vocabulary needs tokenizer.ggml.scores for its %u tokens (has %u)",
                            n, g->n_scores), NULL;
    if (g->types && g->n_types != n)
        return tc_error_set(err, TC_ERR_FORMAT, "GGUF: tokenizer.ggml.token_type has %u entries for %u tokens", g->n_types, n), NULL;
    tc_tokenizer *tok = tc_tokenizer_new();
    if (!tok) return tc_error_set(err, TC_ERR_NOMEM, "out of memory"), NULL;
    tc_model *m = &tok->model;
    m->kind = TC_MODEL_SPM_LLAMA;
    m->scores = malloc((size_t)n * sizeof *m->scores);
    if (!m->scores) { tc_error_set(err, TC_ERR_NOMEM, "out of memory"); goto fail; }
    memcpy(m->scores, g->scores, (size_t)n * sizeof *m->scores);
    int add_prefix = g->flags[TC_GGUF_ADD_SPACE_PREFIX] >= 0 ? g->flags[TC_GGUF_ADD_SPACE_PREFIX] : 1;
    tc_pretok *pt = &tok->pretok[tok->npretok++];
    memset(pt, 0, sizeof *pt);
    pt->kind = TC_PT_METASPACE;
    memcpy(pt->replacement, "\xe2\x96\x81", 3);
    pt->replacement_len = 3;
    pt->prepend_scheme = add_prefix ? TC_PREPEND_LLAMA : TC_PREPEND_NEVER;
    pt->ms_split = 0;
    tok->bytes_rule = TC_BYTES_SPM;
    tok->drop_missing_bytes = 1;
    /* decode: "<0xNN>" as bytes, U+2581 as a space, the first one dropped when a prefix was added */
    tok->decoder = TC_DEC_CHAIN;
    tok->dec[0].kind = TC_DEC_BYTEFALLBACK;
    tok->dec[1].kind = TC_DEC_METASPACE;
    tok->dec[1].content = malloc(4);
    if (!tok->dec[1].content) { tc_error_set(err, TC_ERR_NOMEM, "out of memory"); goto fail; }
    memcpy(tok->dec[1].content, "\xe2\x96\x81", 4);
    tok->dec[1].content_len = 3;
    tok->dec[1].prepend = add_prefix;
    tok->ndec = 2;
    if (tc_gguf_fill_vocab(g, &m->vocab, n, TC_BYTES_SPM, err) != TC_OK) goto fail;
    if (tc_pairmap_init(&m->merges, 1) != 0) { tc_error_set(err, TC_ERR_NOMEM, "out of memory"); goto fail; }
    if (tc_model_init_bytes(tok, err) != TC_OK) goto fail;
    int64_t ids[TC_GGUF_NIDS];
    for (int i = 0; i < TC_GGUF_NIDS; i++) ids[i] = -1;
    ids[TC_GGUF_BOS] = 1; ids[TC_GGUF_EOS] = 2; ids[TC_GGUF_UNK] = 0;
    for (int i = 0; i < TC_GGUF_NIDS; i++) if (g->ids[i] >= 0) ids[i] = g->ids[i];
    for (int i = 0; i < TC_GGUF_NIDS; i++) if (ids[i] >= (int64_t)n) ids[i] = -1;
    int add_bos = g->flags[TC_GGUF_ADD_BOS] >= 0 ? g->flags[TC_GGUF_ADD_BOS] : 1;
    int add_eos = g->flags[TC_GGUF_ADD_EOS] >= 0 ? g->flags[TC_GGUF_ADD_EOS] : 0;
    if (add_bos && ids[TC_GGUF_BOS] < 0) add_bos = 0;
    if (add_eos && ids[TC_GGUF_EOS] < 0) add_eos = 0;
    if (tc_gguf_add_special(tok, g, parse_special, err) != TC_OK) goto fail;   /* gguf_vocab.c */
    if (tc_gguf_set_template(tok, add_bos ? ids[TC_GGUF_BOS] : -1, add_eos ? ids[TC_GGUF_EOS] : -1, err) != TC_OK) goto fail;
    if (tc_tokenizer_finish(tok, err) != TC_OK) goto fail;
    tc_describe_update(tok, "gguf");
    if (tc_gguf_describe(tok, g, add_bos, add_eos, parse_special, ids) != 0) { tc_error_set(err, TC_ERR_NOMEM, "out of memory"); goto fail; }
    return tok;
fail:
    tc_free(tok);
    return NULL;
}

static tc_tokenizer *build(const tc_gguf *g, int parse_special, tc_error *err) {
    const char *model = tc_gguf_str(g, g->model);
    if (!model)
        return tc_error_set(err, TC_ERR_FORMAT, "GGUF: no tokenizer.ggml.model key (a model without a tokenizer?)"), NULL;
    if (g->tokens.n == 0)
        return tc_error_set(err, TC_ERR_FORMAT, "GGUF: no tokenizer.ggml.tokens (llama.cpp: cannot find tokenizer vocab)"), NULL;
    if (strcmp(model, "llama") == 0) return build_spm(g, parse_special, err);
    if (strcmp(model, "bert") == 0) return tc_gguf_build_wpm(g, parse_special, err);
    if (strcmp(model, "t5") == 0) return tc_gguf_build_ugm(g, parse_special, err);
    int gemma4 = strcmp(model, "gemma4") == 0;
    if (strcmp(model, "gpt2") != 0 && !gemma4)
        return tc_error_set(err, TC_ERR_UNSUPPORTED,
                            "GGUF: tokenizer.ggml.model \"%.60s\" is not supported yet (only \"gpt2\", \"gemma4\", \"llama\", "
                            "\"bert\" and \"t5\", llama.cpp's BPE, SPM, WPM and UGM)", model),
               NULL;
    /* load: "gemma4" is the BPE type with tokenizer_pre = "gemma4", whatever the file's pre says */
    const char *pre = gemma4 ? "gemma4" : tc_gguf_str(g, g->pre);
    if (gemma4 && !g->merges.n)
        return tc_error_set(err, TC_ERR_FORMAT, "GGUF: a \"gemma4\" vocabulary needs tokenizer.ggml.merges "
                            "(llama.cpp: cannot find tokenizer merges in model file)"), NULL;
    const pre_rule *rule = find_pre(pre);
    if (!rule)   /* llama_vocab::impl::load throws "unknown pre-tokenizer type" */
        return tc_error_set(err, TC_ERR_UNSUPPORTED, "GGUF: pre-tokenizer type \"%.60s\" is not supported", pre), NULL;
    if (g->types && g->n_types != g->tokens.n)
        return tc_error_set(err, TC_ERR_FORMAT, "GGUF: tokenizer.ggml.token_type has %u entries for %u tokens",
                            g->n_types, g->tokens.n), NULL;
    tc_tokenizer *tok = tc_tokenizer_new();
    if (!tok) return tc_error_set(err, TC_ERR_NOMEM, "out of memory"), NULL;
    tc_buf tmp = {0};
    tc_model *m = &tok->model;
    m->kind = TC_MODEL_BPE_MERGES;
    for (int i = 0; i < 6 && rule->regex[i]; i++)
        if (tc_gguf_add_regex(tok, rule->regex[i], err) != TC_OK) goto fail;
    /* a byte with no token is skipped (llm_tokenizer_bpe_session::tokenize: token_multibyte == NULL) */
    tok->drop_missing_bytes = 1;
    m->ignore_merges = rule->ignore_merges;
    if (rule->spm_style) {
        if (tc_gguf_spm_style(tok, err) != TC_OK) goto fail;
    } else {
        /* unicode_regex_split(..., byte_encode = true): the pieces are GPT-2 byte-encoded */
        tc_pretok *pt = &tok->pretok[tok->npretok++];
        memset(pt, 0, sizeof *pt);
        pt->kind = TC_PT_BYTELEVEL;
        tok->byte_level = 1;
        tc_post *pp = &tok->post[tok->npost++];
        memset(pp, 0, sizeof *pp);
        pp->kind = TC_POST_BYTELEVEL;
        tok->decoder = TC_DEC_BYTELEVEL;
    }
    uint32_t n = g->tokens.n;
    if (tc_gguf_fill_vocab(g, &m->vocab, n, rule->spm_style ? TC_BYTES_SPM : TC_BYTES_BYTELEVEL, err) != TC_OK) goto fail;
    /* merges: "a b" split at the first space after the first byte (word.find(' ', 1)); rank = index */
    if (tc_pairmap_init(&m->merges, g->merges.n + 1) != 0) { tc_error_set(err, TC_ERR_NOMEM, "out of memory"); goto fail; }
    for (uint32_t i = 0; i < g->merges.n; i++) {
        uint32_t len;
        const uint8_t *s = tc_gguf_at(g, &g->merges, i, &len);
        const uint8_t *sp = len > 1 ? memchr(s + 1, ' ', len - 1) : NULL;
        if (!sp) {
            tc_error_set(err, TC_ERR_FORMAT, "GGUF: tokenizer.ggml.merges[%u]: no space separates the two tokens", i);
            goto fail;
        }
        size_t al = (size_t)(sp - s), bl = len - al - 1;
        int64_t ia = tc_vocab_find(&m->vocab, s, al), ib = tc_vocab_find(&m->vocab, sp + 1, bl);
        tmp.len = 0;
        if (tc_buf_append(&tmp, s, al) != 0 || tc_buf_append(&tmp, sp + 1, bl) != 0) { tc_error_set(err, TC_ERR_NOMEM, "out of memory"); goto fail; }
        int64_t in = tc_vocab_find(&m->vocab, tmp.data, tmp.len);
        if (ia < 0 || ib < 0 || in < 0) continue;   /* see "Known approximations" above */
        if (tc_pairmap_put(&m->merges, (uint32_t)ia, (uint32_t)ib, i, (uint32_t)in) < 0) {
            tc_error_set(err, TC_ERR_NOMEM, "merge table full");
            goto fail;
        }
    }
    if (tc_model_init_bytes(tok, err) != TC_OK) goto fail;
    /* special ids: defaults of the BPE type are none (load: LLAMA_VOCAB_TYPE_BPE), then the file's keys;
     * an id out of range is ignored ("bad special token ... using default id") */
    int64_t ids[TC_GGUF_NIDS];
    for (int i = 0; i < TC_GGUF_NIDS; i++) ids[i] = g->ids[i] >= 0 && g->ids[i] < (int64_t)n ? g->ids[i] : -1;
    /* add_bos: the pre type's default, then tokenizer.ggml.add_bos_token; add_eos likewise (default false) */
    int add_bos = g->flags[TC_GGUF_ADD_BOS] >= 0 ? g->flags[TC_GGUF_ADD_BOS] : rule->add_bos;
    int add_eos = g->flags[TC_GGUF_ADD_EOS] >= 0 ? g->flags[TC_GGUF_ADD_EOS] : 0;
    if (rule->spm_style && !add_bos) add_bos = 1;       /* load: "workaround for Gemma 4" */
    if (rule->spm_style && ids[TC_GGUF_BOS] < 0) {
        tc_error_set(err, TC_ERR_FORMAT, "GGUF: a \"gemma4\" vocabulary always starts with its BOS token, and "
                     "tokenizer.ggml.bos_token_id is %s (llama.cpp asserts when it tokenizes)",
                     g->ids[TC_GGUF_BOS] < 0 ? "missing" : "out of range");
        goto fail;
    }
    if (add_bos && ids[TC_GGUF_BOS] < 0) add_bos = 0;   /* llama.cpp asserts; we add nothing */
    if (add_eos && ids[TC_GGUF_EOS] < 0) add_eos = 0;
    /* the special-token partition with llama.cpp's token attributes (gguf_vocab.c) */
    if (tc_gguf_add_special(tok, g, parse_special, err) != TC_OK) goto fail;
    if (tc_gguf_set_template(tok, add_bos ? ids[TC_GGUF_BOS] : -1, add_eos ? ids[TC_GGUF_EOS] : -1, err) != TC_OK) goto fail;
    if (tc_tokenizer_finish(tok, err) != TC_OK) goto fail;
    tc_buf_free(&tmp);
    tc_describe_update(tok, "gguf");
    if (tc_gguf_describe(tok, g, add_bos, add_eos, parse_special, ids) != 0) { tc_error_set(err, TC_ERR_NOMEM, "out of memory"); tc_free(tok); return NULL; }
    return tok;
fail:
    tc_buf_free(&tmp);
    tc_free(tok);
    return NULL;
}

tc_tokenizer *tc_load_gguf(const uint8_t *data, size_t len, int parse_special, tc_error *err) {
    tc_gguf g;
    if (tc_gguf_parse_mem(data, len, &g, err) != TC_OK) return NULL;
    tc_tokenizer *tok = build(&g, parse_special, err);
    tc_gguf_free(&g);
    return tok;
}

tc_tokenizer *tc_load_gguf_file(const char *path, int parse_special, tc_error *err) {
    tc_file f;
    memset(&f, 0, sizeof f);
    if (tc_file_open_guarded(path, SIZE_MAX, &f, err) != TC_OK) return NULL;
    tc_gguf g;
    int rc = tc_gguf_parse_file(&f, &g, err);
    tc_file_free(&f);
    if (rc != TC_OK) {
        char pre[300];
        snprintf(pre, sizeof pre, "%.260s: ", path);
        tc_error_prefix(err, pre);
        return NULL;
    }
    tc_tokenizer *tok = build(&g, parse_special, err);
    tc_gguf_free(&g);
    if (!tok) {
        char pre[300];
        snprintf(pre, sizeof pre, "%.260s: ", path);
        tc_error_prefix(err, pre);
    }
    return tok;
}
