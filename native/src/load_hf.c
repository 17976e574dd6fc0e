/* load_hf.c - HF `tokenizer.json` loader.
 *
 * Does: reads every component the engine supports into a handle, checking
 * types strictly; anything else is refused with the JSON path of the
 * component, its type and its byte offset.
 * Supported: normalizer NFC/NFD/NFKC/NFKD/Lowercase/Prepend/Replace/Strip/
 * Precompiled/Sequence; pre_tokenizer Split/ByteLevel/Digits/
 * Metaspace (first only)/WhitespaceSplit/Whitespace/Sequence; model BPE,
 * Unigram;
 * post_processor ByteLevel/TemplateProcessing/Sequence; decoder ByteLevel/
 * Replace/ByteFallback/Fuse/Strip/Metaspace/Sequence.
 * Does not: truncation, padding, dropout (refused), other models.
 */
#include <math.h>
#include <stdio.h>

#include "engine.h"
#include "json.h"
#include "load_cache.h"
#include "platform.h"
#include "pretok.h"
#include "unigram.h"

#define GPT2_PATTERN "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+"

typedef struct ld {
    tc_tokenizer *tok;
    tc_error *err;
    const char *src; size_t srclen;
    uint32_t ndup; int64_t dup_id;   /* vocabulary keys that occur twice (a damaged file), one example */
    uint32_t nspace; int64_t space_id; /* tokens with an ASCII space inside ("a b" merges cannot name them) */
    tc_buf notes;      /* compatibility notes: JSON strings joined by commas */
    uint32_t nnotes;   /* notes written to `notes` */
    uint32_t nmore;    /* further places not written (over TC_HF_NOTES_MAX) */
    tc_hf_cache *cache;  /* the vocabulary and merge tables, read from a load cache (else NULL) */
    tc_json_span vocab_span, merges_span;   /* where $.model.vocab and .merges are (a BPE model) */
    int spans;           /* 1: both spans are set */
} ld;

/* ---- compatibility notes -------------------------------------------------
 * What this loader accepts but HF tokenizers 0.23.3 refuses (tested against
 * it in tests/test_hf_compat.py): the file loads, and describe's "hf_compat"
 * says where and why, so nobody ships a file the runtime will reject. */

#define TC_HF_NOTES_MAX 16

/* s as a JSON string; invalid UTF-8 (a key cut by %.60s) becomes U+FFFD so
 * the describe JSON stays valid. */
static int json_str_append(tc_buf *b, const char *s) {
    const uint8_t *u = (const uint8_t *)s;
    size_t n = strlen(s);
    int bad = tc_buf_append(b, "\"", 1);
    for (size_t i = 0; i < n && !bad;) {
        int ul = 1;
        uint32_t cp = tc_utf8_decode(u, n, i, &ul);
        char esc[8];
        if (cp >= TC_CP_INVALID_BASE) bad |= tc_buf_append(b, "\xEF\xBF\xBD", 3);
        else if (cp == '"' || cp == '\\') { esc[0] = '\\'; esc[1] = (char)cp; bad |= tc_buf_append(b, esc, 2); }
        else if (cp < 0x20) { snprintf(esc, sizeof esc, "\\u%04x", (unsigned)cp); bad |= tc_buf_append(b, esc, 6); }
        else bad |= tc_buf_append(b, u + i, (size_t)ul);
        i += (size_t)ul;
    }
    return bad | tc_buf_append(b, "\"", 1);
}

static int note(ld *L, const tc_json *v, const char *path, const char *why) {
    if (L->nnotes >= TC_HF_NOTES_MAX) { L->nmore++; return 0; }
    char text[TC_ERRMSG_MAX];
    snprintf(text, sizeof text, "HF tokenizers refuses this file: %s at byte %u: %s", path, v ? v->offset : 0, why);
    if ((L->nnotes && tc_buf_append(&L->notes, ",", 1)) || json_str_append(&L->notes, text))
        return tc_error_set(L->err, TC_ERR_NOMEM, "out of memory");
    L->nnotes++;
    return 0;
}

/* An integer written -0: serde reads it as the float -0.0 and HF refuses it
 * where it wants an integer (ids, Strip start/stop); 1.0 and 1e0 are refused
 * here already. */
static int note_neg_zero(ld *L, const tc_json *v, const char *path) {
    if (v && v->type == TC_JSON_NUMBER && v->u.num.is_int && v->u.num.i == 0 && signbit(v->u.num.d))
        return note(L, v, path, "the integer is written -0, which HF reads as the float -0.0 (\"invalid type: floating point `-0.0`, expected u32\"); write 0");
    return 0;
}

/* A Python-style named group (?P<name>...) outside a class: HF's Oniguruma
 * refuses it ("undefined group option"); (?<name>...) it accepts. */
static int note_regex(ld *L, const tc_json *v, const char *path) {
    const char *s = v->u.str.s;
    size_t n = v->u.str.len;
    int in_class = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\') { i++; continue; }
        if (in_class) { if (s[i] == ']') in_class = 0; continue; }
        if (s[i] == '[') { in_class = 1; if (i + 1 < n && s[i + 1] == ']') i++; continue; }
        if (s[i] == '(' && i + 3 < n && s[i + 1] == '?' && s[i + 2] == 'P' && s[i + 3] == '<') {
            char why[200];
            snprintf(why, sizeof why, "the regex has a named group (?P<name>...) at byte %zu of the pattern, which HF's Oniguruma refuses (\"undefined group option\"); write (?<name>...)", i);
            return note(L, v, path, why);
        }
    }
    return 0;
}

static int fail(ld *L, int code, const tc_json *v, const char *path, const char *fmt, const char *a) {
    char what[TC_ERRMSG_MAX];
    snprintf(what, sizeof what, fmt, a ? a : "");
    int line = 0, col = 0;
    if (v) tc_json_line_col(L->src, L->srclen, v->offset, &line, &col);
    return tc_error_set(L->err, code, "tokenizer.json: %s: %s (byte %u, line %d, column %d)", path, what,
                        v ? v->offset : 0, line, col);
}

static const tc_json *member(const tc_json *obj, const char *key) { return tc_json_get(obj, key); }

/* Optional bool member: absent or null gives def. */
static int get_bool(ld *L, const tc_json *obj, const char *key, const char *path, int def, int *out) {
    const tc_json *v = member(obj, key);
    if (!v || v->type == TC_JSON_NULL) { *out = def; return 0; }
    if (v->type != TC_JSON_TRUE && v->type != TC_JSON_FALSE) {
        char p[300];
        snprintf(p, sizeof p, "%.200s.%.80s", path, key);
        return fail(L, TC_ERR_FORMAT, v, p, "expected true or false%s", NULL);
    }
    *out = v->type == TC_JSON_TRUE;
    return 0;
}

/* Optional string member (absent/null -> NULL). */
static int get_str(ld *L, const tc_json *obj, const char *key, const char *path, const tc_json **out) {
    const tc_json *v = member(obj, key);
    *out = NULL;
    if (!v || v->type == TC_JSON_NULL) return 0;
    if (v->type != TC_JSON_STRING) {
        char p[300];
        snprintf(p, sizeof p, "%.200s.%.80s", path, key);
        return fail(L, TC_ERR_FORMAT, v, p, "expected a string%s", NULL);
    }
    *out = v;
    return 0;
}

static int get_type(ld *L, const tc_json *obj, const char *path, const char **type) {
    if (obj->type != TC_JSON_OBJECT) return fail(L, TC_ERR_FORMAT, obj, path, "expected an object%s", NULL);
    const tc_json *t = member(obj, "type");
    if (!t || t->type != TC_JSON_STRING) return fail(L, TC_ERR_FORMAT, obj, path, "missing string member \"type\"%s", NULL);
    *type = t->u.str.s;
    return 0;
}

/* ---- normalizer ----------------------------------------------------------- */

static int dup_str(ld *L, const tc_json *s, char **out, size_t *len);

/* Prepend / Replace / Strip: steps with data. */
static int load_norm_edit(ld *L, const tc_json *v, const char *path, const char *type) {
    tc_normalizer *n = &L->tok->normalizer;
    if (n->nsteps >= TC_NORM_MAX_STEPS) return fail(L, TC_ERR_LIMIT, v, path, "more than 16 normalizers%s", NULL);
    tc_norm_param *p = &n->params[n->nsteps];
    memset(p, 0, sizeof *p);
    tc_norm_kind k;
    if (strcmp(type, "Prepend") == 0) {
        const tc_json *pre = member(v, "prepend");
        if (!pre || pre->type != TC_JSON_STRING) return fail(L, TC_ERR_FORMAT, v, path, "Prepend needs a string \"prepend\"%s", NULL);
        if (dup_str(L, pre, &p->str, &p->str_len)) return L->err->code;
        k = TC_NORM_PREPEND;
    } else if (strcmp(type, "Replace") == 0) {
        const tc_json *pat = member(v, "pattern"), *content = member(v, "content");
        if (!content || content->type != TC_JSON_STRING) return fail(L, TC_ERR_FORMAT, v, path, "Replace needs a string \"content\"%s", NULL);
        if (!pat || pat->type != TC_JSON_OBJECT || pat->u.obj.n != 1 || pat->u.obj.members[0].value.type != TC_JSON_STRING)
            return fail(L, TC_ERR_FORMAT, v, path, "Replace needs \"pattern\": {\"String\": ...} or {\"Regex\": ...}%s", NULL);
        const tc_json_member *pm = &pat->u.obj.members[0];
        if (dup_str(L, content, &p->str, &p->str_len)) return L->err->code;
        if (strcmp(pm->key, "String") == 0) {
            if (dup_str(L, &pm->value, &p->pat, &p->pat_len)) return L->err->code;
        } else if (strcmp(pm->key, "Regex") == 0) {
            tc_error e = {0};
            char pp[300];
            snprintf(pp, sizeof pp, "%.200s.pattern.Regex", path);
            p->re = tc_regex_compile(pm->value.u.str.s, pm->value.u.str.len, &e);
            if (!p->re) return fail(L, e.code ? e.code : TC_ERR_FORMAT, &pm->value, pp, "%s", e.msg);
            if (note_regex(L, &pm->value, pp)) return L->err->code;
        } else {
            return fail(L, TC_ERR_UNSUPPORTED, pat, path, "Replace pattern kind \"%s\" is not supported", pm->key);
        }
        k = TC_NORM_REPLACE;
    } else {
        if (get_bool(L, v, "strip_left", path, 1, &p->left) || get_bool(L, v, "strip_right", path, 1, &p->right)) return L->err->code;
        k = TC_NORM_STRIP;
    }
    n->steps[n->nsteps++] = k;
    L->tok->has_normalizer = 1;
    return 0;
}

/* BertNormalizer (tokenizers/src/normalizers/bert.rs, 0.23.3): clean_text,
 * handle_chinese_chars, strip_accents (NFD, then marks removed; null =
 * follow lowercase, normalizers/bert.rs BertNormalizer::new via the
 * Python default), lowercase, in that order; each defaults to true. */
static int load_bert_normalizer(ld *L, const tc_json *v, const char *path) {
    tc_normalizer *n = &L->tok->normalizer;
    int clean, chinese, lower, strip;
    if (get_bool(L, v, "clean_text", path, 1, &clean) || get_bool(L, v, "handle_chinese_chars", path, 1, &chinese) ||
        get_bool(L, v, "lowercase", path, 1, &lower)) return L->err->code;
    if (get_bool(L, v, "strip_accents", path, lower, &strip)) return L->err->code;
    tc_norm_kind ks[6];
    int nk = 0;
    if (clean) ks[nk++] = TC_NORM_BERT_CLEAN;
    if (chinese) ks[nk++] = TC_NORM_BERT_CHINESE;
    if (strip) { ks[nk++] = TC_NORM_NFD; ks[nk++] = TC_NORM_BERT_ACCENTS; }
    if (lower) ks[nk++] = TC_NORM_LOWERCASE;
    if (n->nsteps + nk > TC_NORM_MAX_STEPS) return fail(L, TC_ERR_LIMIT, v, path, "more than 16 normalizer steps%s", NULL);
    for (int i = 0; i < nk; i++) {
        memset(&n->params[n->nsteps], 0, sizeof n->params[n->nsteps]);
        n->steps[n->nsteps++] = ks[i];
    }
    L->tok->has_normalizer = 1;
    return 0;
}

/* Standard base64 with canonical padding, as the base64 crate's
 * BASE64_STANDARD decodes it (spm_precompiled from_base64): length a
 * multiple of 4, '=' only at the end, unused bits zero. Returns the byte
 * length, or -1 with *bad = the offending character's index. */
static int64_t b64_decode(const char *s, size_t n, uint8_t *out, size_t *bad) {
    static const char *A = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    if (n % 4 != 0) { *bad = n; return -1; }
    size_t o = 0;
    for (size_t i = 0; i < n; i += 4) {
        uint32_t v[4];
        int pad = 0;
        for (int k = 0; k < 4; k++) {
            char c = s[i + (size_t)k];
            if (c == '=' && i + 4 == n && k >= 2) { pad++; v[k] = 0; continue; }
            const char *q = c ? strchr(A, c) : NULL;
            if (!q || pad) { *bad = i + (size_t)k; return -1; }
            v[k] = (uint32_t)(q - A);
        }
        if (pad == 1 && s[i + 3] != '=') { *bad = i + 2; return -1; }
        uint32_t w = v[0] << 18 | v[1] << 12 | v[2] << 6 | v[3];
        if ((pad == 2 && (w & 0xFFFF)) || (pad == 1 && (w & 0xFF))) { *bad = i + 3 - (size_t)pad; return -1; }
        out[o++] = (uint8_t)(w >> 16);
        if (pad < 2) out[o++] = (uint8_t)(w >> 8);
        if (pad < 1) out[o++] = (uint8_t)w;
    }
    return (int64_t)o;
}

static int load_precompiled(ld *L, const tc_json *v, const char *path) {
    tc_normalizer *n = &L->tok->normalizer;
    if (n->nsteps >= TC_NORM_MAX_STEPS) return fail(L, TC_ERR_LIMIT, v, path, "more than 16 normalizers%s", NULL);
    const tc_json *cm = member(v, "precompiled_charsmap");
    char p[300];
    snprintf(p, sizeof p, "%.200s.precompiled_charsmap", path);
    if (!cm || cm->type != TC_JSON_STRING) return fail(L, TC_ERR_FORMAT, cm ? cm : v, cm ? p : path, "Precompiled needs a base64 string \"precompiled_charsmap\"%s", NULL);
    uint8_t *blob = malloc(cm->u.str.len / 4 * 3 + 3);
    if (!blob) return tc_error_set(L->err, TC_ERR_NOMEM, "out of memory");
    size_t bad = 0;
    int64_t bl = b64_decode(cm->u.str.s, cm->u.str.len, blob, &bad);
    if (bl < 0) {
        char why[200];
        snprintf(why, sizeof why, "not canonical standard base64 (at character %zu of %zu)", bad, (size_t)cm->u.str.len);
        free(blob);
        return fail(L, TC_ERR_FORMAT, cm, p, "%s", why);
    }
    tc_error e = {0};
    int r = tc_normalizer_add_precompiled(n, blob, (size_t)bl, &e);
    free(blob);
    if (r != TC_OK) return fail(L, e.code, cm, p, "%s", e.msg);
    L->tok->has_normalizer = 1;
    return 0;
}

static int load_normalizer(ld *L, const tc_json *v, const char *path) {
    const char *type = NULL;
    if (get_type(L, v, path, &type)) return L->err->code;
    tc_normalizer *n = &L->tok->normalizer;
    if (strcmp(type, "Sequence") == 0) {
        const tc_json *arr = member(v, "normalizers");
        if (!arr || arr->type != TC_JSON_ARRAY) return fail(L, TC_ERR_FORMAT, v, path, "Sequence needs an array \"normalizers\"%s", NULL);
        for (uint32_t i = 0; i < arr->u.arr.n; i++) {
            char p[300];
            snprintf(p, sizeof p, "%.200s.normalizers[%u]", path, i);
            int r = load_normalizer(L, &arr->u.arr.items[i], p);
            if (r) return r;
        }
        return 0;
    }
    tc_norm_kind k;
    if (strcmp(type, "Prepend") == 0 || strcmp(type, "Replace") == 0 || strcmp(type, "Strip") == 0)
        return load_norm_edit(L, v, path, type);
    if (strcmp(type, "BertNormalizer") == 0) return load_bert_normalizer(L, v, path);
    if (strcmp(type, "Precompiled") == 0) return load_precompiled(L, v, path);
    if (strcmp(type, "NFC") == 0) k = TC_NORM_NFC;
    else if (strcmp(type, "NFD") == 0) k = TC_NORM_NFD;
    else if (strcmp(type, "NFKC") == 0) k = TC_NORM_NFKC;
    else if (strcmp(type, "NFKD") == 0) k = TC_NORM_NFKD;
    else if (strcmp(type, "Lowercase") == 0) k = TC_NORM_LOWERCASE;
    else if (strcmp(type, "StripAccents") == 0) k = TC_NORM_STRIP_ACCENTS;
    else if (strcmp(type, "Nmt") == 0) k = TC_NORM_NMT;
    else if (strcmp(type, "ByteLevel") == 0) k = TC_NORM_BYTELEVEL;
    else return fail(L, TC_ERR_UNSUPPORTED, v, path, "normalizer type \"%s\" is not supported", type);
    if (n->nsteps >= TC_NORM_MAX_STEPS) return fail(L, TC_ERR_LIMIT, v, path, "more than 16 normalizers%s", NULL);
    n->steps[n->nsteps++] = k;
    L->tok->has_normalizer = 1;
    return 0;
}

/* ---- pre-tokenizer -------------------------------------------------------- */

static int add_pretok(ld *L, const tc_json *v, const char *path, tc_pretok **out) {
    if (L->tok->npretok >= TC_MAX_PRETOK) return fail(L, TC_ERR_LIMIT, v, path, "more than 16 pre-tokenizers%s", NULL);
    if (L->tok->byte_level) return fail(L, TC_ERR_UNSUPPORTED, v, path, "a pre-tokenizer after ByteLevel is not supported (it would see byte-mapped characters)%s", NULL);
    *out = &L->tok->pretok[L->tok->npretok++];
    memset(*out, 0, sizeof **out);
    return 0;
}

static int compile_regex(ld *L, tc_pretok *pt, const char *pat, size_t len, const tc_json *v, const char *path) {
    tc_error e = {0};
    pt->re = tc_regex_compile(pat, len, &e);
    if (!pt->re) {
        char p[300];
        snprintf(p, sizeof p, "%.200s.pattern", path);
        return fail(L, e.code ? e.code : TC_ERR_FORMAT, v, p, "%s", e.msg);
    }
    pt->fast = tc_fast_detect(pat, len);
    return 0;
}

static int load_metaspace_opts(ld *L, const tc_json *v, const char *path, char *rep, size_t *rep_len,
                               tc_prepend_scheme *scheme);

/* A SplitDelimiterBehavior (tokenizers/src/tokenizer/normalizer.rs). */
static int load_behavior(ld *L, const tc_json *b, const char *path, tc_split_behavior *out) {
    if (b->type != TC_JSON_STRING) return fail(L, TC_ERR_FORMAT, b, path, "\"behavior\" must be a string%s", NULL);
    const char *bs = b->u.str.s;
    if (strcmp(bs, "Removed") == 0) *out = TC_SPLIT_REMOVED;
    else if (strcmp(bs, "Isolated") == 0) *out = TC_SPLIT_ISOLATED;
    else if (strcmp(bs, "MergedWithPrevious") == 0) *out = TC_SPLIT_MERGED_PREV;
    else if (strcmp(bs, "MergedWithNext") == 0) *out = TC_SPLIT_MERGED_NEXT;
    else if (strcmp(bs, "Contiguous") == 0) *out = TC_SPLIT_CONTIGUOUS;
    else return fail(L, TC_ERR_FORMAT, b, path, "unknown split behavior \"%s\"", bs);
    return 0;
}

static int load_pretok(ld *L, const tc_json *v, const char *path) {
    const char *type = NULL;
    if (get_type(L, v, path, &type)) return L->err->code;
    if (strcmp(type, "Sequence") == 0) {
        const tc_json *arr = member(v, "pretokenizers");
        if (!arr || arr->type != TC_JSON_ARRAY) return fail(L, TC_ERR_FORMAT, v, path, "Sequence needs an array \"pretokenizers\"%s", NULL);
        for (uint32_t i = 0; i < arr->u.arr.n; i++) {
            char p[300];
            snprintf(p, sizeof p, "%.200s.pretokenizers[%u]", path, i);
            int r = load_pretok(L, &arr->u.arr.items[i], p);
            if (r) return r;
        }
        return 0;
    }
    tc_pretok *pt = NULL;
    if (strcmp(type, "Split") == 0) {
        if (add_pretok(L, v, path, &pt)) return L->err->code;
        const tc_json *pat = member(v, "pattern");
        if (!pat || pat->type != TC_JSON_OBJECT || pat->u.obj.n != 1) return fail(L, TC_ERR_FORMAT, v, path, "Split needs \"pattern\": {\"Regex\": ...} or {\"String\": ...}%s", NULL);
        const tc_json_member *pm = &pat->u.obj.members[0];
        if (pm->value.type != TC_JSON_STRING) return fail(L, TC_ERR_FORMAT, &pm->value, path, "pattern must be a string%s", NULL);
        if (strcmp(pm->key, "Regex") == 0) {
            pt->kind = TC_PT_SPLIT_REGEX;
            if (compile_regex(L, pt, pm->value.u.str.s, pm->value.u.str.len, &pm->value, path)) return L->err->code;
            char pp[300];
            snprintf(pp, sizeof pp, "%.200s.pattern.Regex", path);
            if (note_regex(L, &pm->value, pp)) return L->err->code;
        } else if (strcmp(pm->key, "String") == 0) {
            pt->kind = TC_PT_SPLIT_STRING;
            pt->literal = malloc(pm->value.u.str.len + 1);
            if (!pt->literal) return tc_error_set(L->err, TC_ERR_NOMEM, "out of memory");
            memcpy(pt->literal, pm->value.u.str.s, pm->value.u.str.len + 1);
            pt->literal_len = pm->value.u.str.len;
        } else {
            return fail(L, TC_ERR_UNSUPPORTED, pat, path, "pattern kind \"%s\" is not supported", pm->key);
        }
        const tc_json *b = member(v, "behavior");
        if (!b || b->type != TC_JSON_STRING) return fail(L, TC_ERR_FORMAT, v, path, "Split needs a string \"behavior\"%s", NULL);
        if (load_behavior(L, b, path, &pt->behavior)) return L->err->code;
        return get_bool(L, v, "invert", path, 0, &pt->invert) ? L->err->code : 0;
    }
    if (strcmp(type, "ByteLevel") == 0) {
        if (add_pretok(L, v, path, &pt)) return L->err->code;
        pt->kind = TC_PT_BYTELEVEL;
        if (get_bool(L, v, "add_prefix_space", path, 1, &pt->add_prefix_space) ||
            get_bool(L, v, "trim_offsets", path, 1, &pt->trim_offsets) ||
            get_bool(L, v, "use_regex", path, 1, &pt->use_regex)) return L->err->code;
        if (pt->use_regex && compile_regex(L, pt, GPT2_PATTERN, strlen(GPT2_PATTERN), v, path)) return L->err->code;
        L->tok->byte_level = 1;
        return 0;
    }
    if (strcmp(type, "Metaspace") == 0) {
        if (L->tok->npretok > 0)
            return fail(L, TC_ERR_UNSUPPORTED, v, path, "Metaspace is supported only as the first pre-tokenizer (it rewrites the text it is given)%s", NULL);
        if (add_pretok(L, v, path, &pt)) return L->err->code;
        pt->kind = TC_PT_METASPACE;
        if (load_metaspace_opts(L, v, path, pt->replacement, &pt->replacement_len, &pt->prepend_scheme) ||
            get_bool(L, v, "split", path, 1, &pt->ms_split)) return L->err->code;
        return 0;
    }
    if (strcmp(type, "WhitespaceSplit") == 0) {
        if (add_pretok(L, v, path, &pt)) return L->err->code;
        pt->kind = TC_PT_WHITESPACE_SPLIT;
        return 0;
    }
    if (strcmp(type, "Whitespace") == 0) {
        if (add_pretok(L, v, path, &pt)) return L->err->code;
        pt->kind = TC_PT_WHITESPACE;
        return 0;
    }
    if (strcmp(type, "BertPreTokenizer") == 0) {
        /* pre_tokenizers/bert.rs: split on char::is_whitespace (removed),
         * then on punctuation (isolated) */
        if (add_pretok(L, v, path, &pt)) return L->err->code;
        pt->kind = TC_PT_WHITESPACE_SPLIT;
        if (add_pretok(L, v, path, &pt)) return L->err->code;
        pt->kind = TC_PT_PUNCT;
        pt->behavior = TC_SPLIT_ISOLATED;
        return 0;
    }
    if (strcmp(type, "Punctuation") == 0) {
        /* pre_tokenizers/punctuation.rs: behavior defaults to Isolated */
        if (add_pretok(L, v, path, &pt)) return L->err->code;
        pt->kind = TC_PT_PUNCT;
        pt->behavior = TC_SPLIT_ISOLATED;
        const tc_json *b = member(v, "behavior");
        if (b && b->type != TC_JSON_NULL) return load_behavior(L, b, path, &pt->behavior);
        return 0;
    }
    if (strcmp(type, "FixedLength") == 0) {
        /* pre_tokenizers/fixed_length.rs: length defaults to 5; HF errors
         * on 0 when it encodes, refused here */
        if (add_pretok(L, v, path, &pt)) return L->err->code;
        pt->kind = TC_PT_FIXED_LENGTH;
        pt->length = 5;
        const tc_json *ln = member(v, "length");
        if (ln && ln->type != TC_JSON_NULL) {
            if (ln->type != TC_JSON_NUMBER || !ln->u.num.is_int || ln->u.num.i <= 0 || ln->u.num.i > 0x7fffffff) {
                char p[300];
                snprintf(p, sizeof p, "%.200s.length", path);
                return fail(L, TC_ERR_FORMAT, ln, p, "FixedLength length must be an integer above 0%s", NULL);
            }
            pt->length = (uint32_t)ln->u.num.i;
        }
        return 0;
    }
    if (strcmp(type, "CharDelimiterSplit") == 0) {
        /* pre_tokenizers/delimiter.rs: split on the char, removed */
        if (add_pretok(L, v, path, &pt)) return L->err->code;
        const tc_json *d = member(v, "delimiter");
        int ul = 0;
        if (!d || d->type != TC_JSON_STRING || d->u.str.len == 0 ||
            (tc_utf8_decode((const uint8_t *)d->u.str.s, d->u.str.len, 0, &ul), (size_t)ul != d->u.str.len))
            return fail(L, TC_ERR_FORMAT, v, path, "CharDelimiterSplit needs a one-character string \"delimiter\"%s", NULL);
        pt->kind = TC_PT_SPLIT_STRING;
        pt->behavior = TC_SPLIT_REMOVED;
        pt->literal = malloc(d->u.str.len + 1);
        if (!pt->literal) return tc_error_set(L->err, TC_ERR_NOMEM, "out of memory");
        memcpy(pt->literal, d->u.str.s, d->u.str.len + 1);
        pt->literal_len = d->u.str.len;
        return 0;
    }
    if (strcmp(type, "UnicodeScripts") == 0) {
        if (add_pretok(L, v, path, &pt)) return L->err->code;
        pt->kind = TC_PT_UNICODE_SCRIPTS;
        return 0;
    }
    if (strcmp(type, "Digits") == 0) {
        if (add_pretok(L, v, path, &pt)) return L->err->code;
        pt->kind = TC_PT_DIGITS;
        return get_bool(L, v, "individual_digits", path, 0, &pt->individual_digits) ? L->err->code : 0;
    }
    return fail(L, TC_ERR_UNSUPPORTED, v, path, "pre-tokenizer type \"%s\" is not supported", type);
}

/* ---- Metaspace options (pre-tokenizer and decoder) ------------------------ */

static int load_metaspace_opts(ld *L, const tc_json *v, const char *path, char *rep, size_t *rep_len,
                               tc_prepend_scheme *scheme) {
    const tc_json *r;
    if (get_str(L, v, "replacement", path, &r)) return L->err->code;
    if (!r) { memcpy(rep, "\xE2\x96\x81", 3); *rep_len = 3; }
    else {
        int ul;
        if (r->u.str.len == 0 || r->u.str.len > 4 ||
            (tc_utf8_decode((const uint8_t *)r->u.str.s, r->u.str.len, 0, &ul), (size_t)ul != r->u.str.len))
            return fail(L, TC_ERR_FORMAT, r, path, "Metaspace \"replacement\" must be one character%s", NULL);
        memcpy(rep, r->u.str.s, r->u.str.len);
        *rep_len = r->u.str.len;
    }
    const tc_json *ps = member(v, "prepend_scheme");
    *scheme = TC_PREPEND_ALWAYS;
    if (ps && ps->type != TC_JSON_NULL) {
        if (ps->type != TC_JSON_STRING) return fail(L, TC_ERR_FORMAT, ps, path, "\"prepend_scheme\" must be a string%s", NULL);
        if (strcmp(ps->u.str.s, "always") == 0) *scheme = TC_PREPEND_ALWAYS;
        else if (strcmp(ps->u.str.s, "first") == 0) *scheme = TC_PREPEND_FIRST;
        else if (strcmp(ps->u.str.s, "never") == 0) *scheme = TC_PREPEND_NEVER;
        else return fail(L, TC_ERR_FORMAT, ps, path, "unknown prepend_scheme \"%s\"", ps->u.str.s);
    } else {
        /* the legacy spelling: HF 0.23.3 reads add_prefix_space true (or
         * absent) as always, and refuses false without a prepend_scheme */
        int aps;
        if (get_bool(L, v, "add_prefix_space", path, 1, &aps)) return L->err->code;
        if (!aps) return fail(L, TC_ERR_FORMAT, v, path, "add_prefix_space does not match declared prepend_scheme (false needs \"prepend_scheme\": \"never\"; HF refuses it too)%s", NULL);
    }
    return 0;
}

/* ---- decoder ---------------------------------------------------------------- */

/* A string member with a default, copied into *out. */
static int get_str_def(ld *L, const tc_json *v, const char *key, const char *path, const char *def, char **out,
                       size_t *len) {
    const tc_json *s;
    if (get_str(L, v, key, path, &s)) return L->err->code;
    const char *src = s ? s->u.str.s : def;
    size_t n = s ? s->u.str.len : strlen(def);
    *out = malloc(n + 1);
    if (!*out) return tc_error_set(L->err, TC_ERR_NOMEM, "out of memory");
    memcpy(*out, src, n);
    (*out)[n] = 0;
    *len = n;
    return 0;
}

/* WordPiece (decoders/wordpiece.rs: prefix "##", cleanup true), CTC
 * (decoders/ctc.rs: pad_token "<pad>", word_delimiter_token "|", cleanup
 * true), BPEDecoder (decoders/bpe.rs: suffix "</w>"); tokenizers 0.23.3. */
static int load_word_decoder(ld *L, const tc_json *v, const char *path, const char *type, tc_dec_step *d) {
    if (strcmp(type, "WordPiece") == 0) {
        d->kind = TC_DEC_WORDPIECE;
        if (get_str_def(L, v, "prefix", path, "##", &d->content, &d->content_len)) return L->err->code;
        return get_bool(L, v, "cleanup", path, 1, &d->prepend) ? L->err->code : 0;
    }
    if (strcmp(type, "CTC") == 0) {
        d->kind = TC_DEC_CTC;
        if (get_str_def(L, v, "pad_token", path, "<pad>", &d->pat, &d->pat_len) ||
            get_str_def(L, v, "word_delimiter_token", path, "|", &d->content, &d->content_len)) return L->err->code;
        return get_bool(L, v, "cleanup", path, 1, &d->prepend) ? L->err->code : 0;
    }
    d->kind = TC_DEC_BPE;
    return get_str_def(L, v, "suffix", path, "</w>", &d->content, &d->content_len) ? L->err->code : 0;
}

static int load_decoder(ld *L, const tc_json *v, const char *path, int top) {
    const char *type = NULL;
    if (get_type(L, v, path, &type)) return L->err->code;
    tc_tokenizer *tok = L->tok;
    if (strcmp(type, "Sequence") == 0) {
        const tc_json *arr = member(v, "decoders");
        if (!arr || arr->type != TC_JSON_ARRAY) return fail(L, TC_ERR_FORMAT, v, path, "Sequence needs an array \"decoders\"%s", NULL);
        tok->decoder = TC_DEC_CHAIN;
        for (uint32_t i = 0; i < arr->u.arr.n; i++) {
            char p[300];
            snprintf(p, sizeof p, "%.200s.decoders[%u]", path, i);
            int r = load_decoder(L, &arr->u.arr.items[i], p, 0);
            if (r) return r;
        }
        return 0;
    }
    if (top && strcmp(type, "ByteLevel") == 0) { tok->decoder = TC_DEC_BYTELEVEL; return 0; }
    tok->decoder = TC_DEC_CHAIN;
    if (tok->ndec >= TC_MAX_DEC) return fail(L, TC_ERR_LIMIT, v, path, "more than 16 decoders%s", NULL);
    tc_dec_step *d = &tok->dec[tok->ndec++];
    memset(d, 0, sizeof *d);
    if (strcmp(type, "ByteLevel") == 0) { d->kind = TC_DEC_BYTELEVEL; return 0; }
    if (strcmp(type, "ByteFallback") == 0) { d->kind = TC_DEC_BYTEFALLBACK; return 0; }
    if (strcmp(type, "Fuse") == 0) { d->kind = TC_DEC_FUSE; return 0; }
    if (strcmp(type, "Replace") == 0) {
        d->kind = TC_DEC_REPLACE;
        const tc_json *pat = member(v, "pattern"), *content = member(v, "content");
        if (!content || content->type != TC_JSON_STRING) return fail(L, TC_ERR_FORMAT, v, path, "Replace needs a string \"content\"%s", NULL);
        if (!pat || pat->type != TC_JSON_OBJECT || pat->u.obj.n != 1 || pat->u.obj.members[0].value.type != TC_JSON_STRING)
            return fail(L, TC_ERR_FORMAT, v, path, "Replace needs \"pattern\": {\"String\": ...} or {\"Regex\": ...}%s", NULL);
        const tc_json_member *pm = &pat->u.obj.members[0];
        if (dup_str(L, content, &d->content, &d->content_len)) return L->err->code;
        if (strcmp(pm->key, "String") == 0) {
            if (dup_str(L, &pm->value, &d->pat, &d->pat_len)) return L->err->code;
        } else if (strcmp(pm->key, "Regex") == 0) {
            tc_error e = {0};
            char pp[300];
            snprintf(pp, sizeof pp, "%.200s.pattern.Regex", path);
            d->re = tc_regex_compile(pm->value.u.str.s, pm->value.u.str.len, &e);
            if (!d->re) return fail(L, e.code ? e.code : TC_ERR_FORMAT, &pm->value, pp, "%s", e.msg);
            if (note_regex(L, &pm->value, pp)) return L->err->code;
        } else {
            return fail(L, TC_ERR_UNSUPPORTED, pat, path, "Replace pattern kind \"%s\" is not supported", pm->key);
        }
        return 0;
    }
    if (strcmp(type, "Strip") == 0) {
        d->kind = TC_DEC_STRIP;
        const tc_json *c = member(v, "content"), *st = member(v, "start"), *sp = member(v, "stop");
        int ul = 0;
        if (!c || c->type != TC_JSON_STRING || c->u.str.len == 0 ||
            (tc_utf8_decode((const uint8_t *)c->u.str.s, c->u.str.len, 0, &ul), (size_t)ul != c->u.str.len))
            return fail(L, TC_ERR_FORMAT, v, path, "Strip needs a one-character string \"content\"%s", NULL);
        if (!st || st->type != TC_JSON_NUMBER || !st->u.num.is_int || st->u.num.i < 0 || st->u.num.i > 0x7fffffff ||
            !sp || sp->type != TC_JSON_NUMBER || !sp->u.num.is_int || sp->u.num.i < 0 || sp->u.num.i > 0x7fffffff)
            return fail(L, TC_ERR_FORMAT, v, path, "Strip needs non-negative integers \"start\" and \"stop\"%s", NULL);
        char pp[300];
        snprintf(pp, sizeof pp, "%.200s.start", path);
        if (note_neg_zero(L, st, pp)) return L->err->code;
        snprintf(pp, sizeof pp, "%.200s.stop", path);
        if (note_neg_zero(L, sp, pp)) return L->err->code;
        d->start = (uint32_t)st->u.num.i;
        d->stop = (uint32_t)sp->u.num.i;
        return dup_str(L, c, &d->content, &d->content_len) ? L->err->code : 0;
    }
    if (strcmp(type, "Metaspace") == 0) {
        d->kind = TC_DEC_METASPACE;
        char rep[8]; size_t rl = 0;
        tc_prepend_scheme sc;
        if (load_metaspace_opts(L, v, path, rep, &rl, &sc)) return L->err->code;
        d->content = malloc(rl + 1);
        if (!d->content) return tc_error_set(L->err, TC_ERR_NOMEM, "out of memory");
        memcpy(d->content, rep, rl);
        d->content[rl] = 0;
        d->content_len = rl;
        d->prepend = sc != TC_PREPEND_NEVER;
        return 0;
    }
    if (strcmp(type, "WordPiece") == 0 || strcmp(type, "CTC") == 0 || strcmp(type, "BPEDecoder") == 0)
        return load_word_decoder(L, v, path, type, d);
    tok->ndec--;
    return fail(L, TC_ERR_UNSUPPORTED, v, path, "decoder type \"%s\" is not supported", type);
}

/* The rule for the model entries' real bytes: SentencePiece style when the
 * model is not byte-level and the decoder turns U+2581 into a space. */
static tc_bytes_rule bytes_rule_of(const tc_tokenizer *tok) {
    if (tok->byte_level) return TC_BYTES_BYTELEVEL;
    for (int i = 0; i < tok->ndec; i++) {
        const tc_dec_step *d = &tok->dec[i];
        if (d->kind == TC_DEC_METASPACE && d->content_len == 3 && memcmp(d->content, "\xE2\x96\x81", 3) == 0) return TC_BYTES_SPM;
        if (d->kind == TC_DEC_REPLACE && d->pat_len == 3 && memcmp(d->pat, "\xE2\x96\x81", 3) == 0 &&
            d->content_len == 1 && d->content[0] == ' ') return TC_BYTES_SPM;
    }
    return TC_BYTES_RAW;
}

/* ---- post-processor ------------------------------------------------------- */

static int load_template(ld *L, const tc_json *v, const char *path, tc_post *pp) {
    const tc_json *single = member(v, "single");
    const tc_json *specials = member(v, "special_tokens");
    if (!single || single->type != TC_JSON_ARRAY) return fail(L, TC_ERR_FORMAT, v, path, "TemplateProcessing needs an array \"single\"%s", NULL);
    if (specials && specials->type != TC_JSON_OBJECT) return fail(L, TC_ERR_FORMAT, specials, path, "\"special_tokens\" must be an object%s", NULL);
    pp->single = calloc(single->u.arr.n ? single->u.arr.n : 1, sizeof *pp->single);
    if (!pp->single) return tc_error_set(L->err, TC_ERR_NOMEM, "out of memory");
    int seen_a = 0;
    for (uint32_t i = 0; i < single->u.arr.n; i++) {
        char p[300];
        snprintf(p, sizeof p, "%.200s.single[%u]", path, i);
        const tc_json *it = &single->u.arr.items[i];
        if (it->type != TC_JSON_OBJECT || it->u.obj.n != 1) return fail(L, TC_ERR_FORMAT, it, p, "expected {\"Sequence\": ...} or {\"SpecialToken\": ...}%s", NULL);
        const tc_json_member *m = &it->u.obj.members[0];
        const tc_json *idv = member(&m->value, "id");
        if (!idv || idv->type != TC_JSON_STRING) return fail(L, TC_ERR_FORMAT, it, p, "missing string \"id\"%s", NULL);
        tc_template_piece *tp = &pp->single[pp->nsingle++];
        if (strcmp(m->key, "Sequence") == 0) {
            if (strcmp(idv->u.str.s, "A") != 0) return fail(L, TC_ERR_UNSUPPORTED, idv, p, "sequence \"%s\" in a single template", idv->u.str.s);
            tp->is_sequence = 1;
            seen_a = 1;
        } else if (strcmp(m->key, "SpecialToken") == 0) {
            const tc_json *st = specials ? member(specials, idv->u.str.s) : NULL;
            if (!st) return fail(L, TC_ERR_FORMAT, idv, p, "special token \"%s\" is not in special_tokens", idv->u.str.s);
            const tc_json *ids = member(st, "ids");
            if (!ids || ids->type != TC_JSON_ARRAY) return fail(L, TC_ERR_FORMAT, st, p, "special token \"%s\" needs an array \"ids\"", idv->u.str.s);
            if (ids->u.arr.n > 8) return fail(L, TC_ERR_LIMIT, st, p, "more than 8 ids in special token \"%s\"", idv->u.str.s);
            for (uint32_t k = 0; k < ids->u.arr.n; k++) {
                const tc_json *x = &ids->u.arr.items[k];
                if (x->type != TC_JSON_NUMBER || !x->u.num.is_int || x->u.num.i < 0 || x->u.num.i >= TC_MAX_VOCAB)
                    return fail(L, TC_ERR_FORMAT, x, p, "special token ids must be integers in range%s", NULL);
                char xp[340];
                snprintf(xp, sizeof xp, "%.200s.special_tokens[\"%.60s\"].ids[%u]", path, idv->u.str.s, k);
                if (note_neg_zero(L, x, xp)) return L->err->code;
                tp->ids[tp->nids++] = (uint32_t)x->u.num.i;
            }
        } else {
            return fail(L, TC_ERR_FORMAT, it, p, "unknown template piece \"%s\"", m->key);
        }
    }
    if (!seen_a) return fail(L, TC_ERR_FORMAT, single, path, "the single template has no $A%s", NULL);
    return 0;
}

/* ["[CLS]", 101]: a (token, id) pair of BertProcessing / RobertaProcessing. */
static int load_token_pair(ld *L, const tc_json *v, const char *key, const char *path, uint32_t *id) {
    const tc_json *p = member(v, key);
    char pp[300];
    snprintf(pp, sizeof pp, "%.200s.%s", path, key);
    if (!p || p->type != TC_JSON_ARRAY || p->u.arr.n != 2 || p->u.arr.items[0].type != TC_JSON_STRING)
        return fail(L, TC_ERR_FORMAT, p ? p : v, pp, "expected [\"token\", id]%s", NULL);
    const tc_json *x = &p->u.arr.items[1];
    if (x->type != TC_JSON_NUMBER || !x->u.num.is_int || x->u.num.i < 0 || x->u.num.i >= TC_MAX_VOCAB)
        return fail(L, TC_ERR_FORMAT, x, pp, "the id must be an integer in [0, 16000000)%s", NULL);
    *id = (uint32_t)x->u.num.i;
    return 0;
}

/* BertProcessing (processors/bert.rs) and RobertaProcessing
 * (processors/roberta.rs, tokenizers 0.23.3): single = cls $A sep, the
 * specials at offsets (0, 0); Roberta first trims the offsets as the
 * ByteLevel processor does when trim_offsets (default true;
 * add_prefix_space default true). */
static int load_cls_sep(ld *L, const tc_json *v, const char *path, const char *type, tc_post *pp) {
    uint32_t sep, cls;
    if (load_token_pair(L, v, "sep", path, &sep) || load_token_pair(L, v, "cls", path, &cls)) return L->err->code;
    if (strcmp(type, "RobertaProcessing") == 0) {
        pp->kind = TC_POST_BYTELEVEL;
        if (get_bool(L, v, "trim_offsets", path, 1, &pp->trim_offsets) ||
            get_bool(L, v, "add_prefix_space", path, 1, &pp->add_prefix_space)) return L->err->code;
        if (L->tok->npost >= TC_MAX_POST) return fail(L, TC_ERR_LIMIT, v, path, "more than 8 post-processors%s", NULL);
        pp = &L->tok->post[L->tok->npost++];
        memset(pp, 0, sizeof *pp);
    }
    pp->kind = TC_POST_TEMPLATE;
    pp->single = calloc(3, sizeof *pp->single);
    if (!pp->single) return tc_error_set(L->err, TC_ERR_NOMEM, "out of memory");
    pp->nsingle = 3;
    pp->single[0].ids[0] = cls; pp->single[0].nids = 1;
    pp->single[1].is_sequence = 1;
    pp->single[2].ids[0] = sep; pp->single[2].nids = 1;
    return 0;
}

static int load_post(ld *L, const tc_json *v, const char *path) {
    const char *type = NULL;
    if (get_type(L, v, path, &type)) return L->err->code;
    if (strcmp(type, "Sequence") == 0) {
        const tc_json *arr = member(v, "processors");
        if (!arr || arr->type != TC_JSON_ARRAY) return fail(L, TC_ERR_FORMAT, v, path, "Sequence needs an array \"processors\"%s", NULL);
        for (uint32_t i = 0; i < arr->u.arr.n; i++) {
            char p[300];
            snprintf(p, sizeof p, "%.200s.processors[%u]", path, i);
            int r = load_post(L, &arr->u.arr.items[i], p);
            if (r) return r;
        }
        return 0;
    }
    if (L->tok->npost >= TC_MAX_POST) return fail(L, TC_ERR_LIMIT, v, path, "more than 8 post-processors%s", NULL);
    tc_post *pp = &L->tok->post[L->tok->npost++];
    memset(pp, 0, sizeof *pp);
    if (strcmp(type, "ByteLevel") == 0) {
        pp->kind = TC_POST_BYTELEVEL;
        if (get_bool(L, v, "trim_offsets", path, 1, &pp->trim_offsets) ||
            get_bool(L, v, "add_prefix_space", path, 1, &pp->add_prefix_space)) return L->err->code;
        return 0;
    }
    if (strcmp(type, "TemplateProcessing") == 0) {
        pp->kind = TC_POST_TEMPLATE;
        return load_template(L, v, path, pp);
    }
    if (strcmp(type, "BertProcessing") == 0 || strcmp(type, "RobertaProcessing") == 0)
        return load_cls_sep(L, v, path, type, pp);
    return fail(L, TC_ERR_UNSUPPORTED, v, path, "post-processor type \"%s\" is not supported", type);
}

/* ---- model ------------------------------------------------------------------ */

static int dup_str(ld *L, const tc_json *s, char **out, size_t *len) {
    *out = NULL; *len = 0;
    if (!s || s->u.str.len == 0) return 0;
    *out = malloc(s->u.str.len + 1);
    if (!*out) return tc_error_set(L->err, TC_ERR_NOMEM, "out of memory");
    memcpy(*out, s->u.str.s, s->u.str.len + 1);
    *len = s->u.str.len;
    return 0;
}

/* The model's "vocab" object: token -> id, ids unique, size = max id + 1. */
static int load_vocab(ld *L, const tc_json *vocab) {
    tc_model *m = &L->tok->model;
    /* vocabulary: ids must be unique; size = max id + 1 */
    uint32_t n = 0;
    for (uint32_t i = 0; i < vocab->u.obj.n; i++) {
        const tc_json *idv = &vocab->u.obj.members[i].value;
        if (idv->type != TC_JSON_NUMBER || !idv->u.num.is_int || idv->u.num.i < 0 || idv->u.num.i >= TC_MAX_VOCAB) {
            char p[300];
            snprintf(p, sizeof p, "$.model.vocab[\"%.60s\"]", vocab->u.obj.members[i].key);
            return fail(L, TC_ERR_FORMAT, idv, p, "token id must be an integer in [0, 16000000)%s", NULL);
        }
        if (idv->u.num.i == 0 && signbit(idv->u.num.d)) {
            char p[300];
            snprintf(p, sizeof p, "$.model.vocab[\"%.60s\"]", vocab->u.obj.members[i].key);
            if (note_neg_zero(L, idv, p)) return L->err->code;
        }
        if ((uint32_t)idv->u.num.i + 1 > n) n = (uint32_t)idv->u.num.i + 1;
    }
    if (tc_vocab_init(&m->vocab, n) != 0) return tc_error_set(L->err, TC_ERR_NOMEM, "out of memory");
    if (tc_buf_reserve(&m->vocab.pool, (size_t)vocab->u.obj.n * 16) != 0) return tc_error_set(L->err, TC_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; i < vocab->u.obj.n; i++) {
        const tc_json_member *mm = &vocab->u.obj.members[i];
        tc_error e = {0};
        if (tc_vocab_set(&m->vocab, (uint32_t)mm->value.u.num.i, (const uint8_t *)mm->key, mm->key_len, (int)L->tok->bytes_rule, &e) != TC_OK) {
            char p[300];
            snprintf(p, sizeof p, "$.model.vocab[\"%.60s\"]", mm->key);
            return fail(L, e.code, &mm->value, p, "%s", e.msg);
        }
    }
    tc_error e = {0};
    if (tc_vocab_build_index(&m->vocab, &e) != TC_OK) return fail(L, e.code, vocab, "$.model.vocab", "%s", e.msg);
    return 0;
}

/* What may explain a merge that does not parse (only then: one lookup per
 * entry, ~10 ms for 151k entries, was 10% of every load): tokens with an
 * ASCII space inside, and keys given twice (the JSON reader keeps both
 * members; HF keeps one of them). */
static void vocab_damage(ld *L) {
    const tc_vocab *v = &L->tok->model.vocab;
    L->ndup = 0; L->dup_id = -1; L->nspace = 0; L->space_id = -1;
    for (uint32_t id = 0; id < v->n; id++) {
        if (!v->entries[id].present) continue;
        if (memchr(tc_entry_str(v, id), ' ', v->entries[id].str_len)) {
            if (L->space_id < 0) L->space_id = id;
            L->nspace++;
        }
        if (tc_vocab_find(v, tc_entry_str(v, id), v->entries[id].str_len) != (int64_t)id) {
            if (L->dup_id < 0) L->dup_id = id;
            L->ndup++;
        }
    }
}

static int load_merges(ld *L, const tc_json *merges);

/* A Unigram model: "vocab" is [[piece, score], ...] (id = position),
 * "unk_id" an index or null, "byte_fallback" a bool (HF
 * models/unigram/serialization.rs UnigramVisitor; other keys are ignored
 * there too). */
static int load_unigram(ld *L, const tc_json *v) {
    const char *path = "$.model";
    const tc_json *vocab = member(v, "vocab");
    if (!vocab || vocab->type != TC_JSON_ARRAY) return fail(L, TC_ERR_FORMAT, vocab ? vocab : v, vocab ? "$.model.vocab" : path, "a Unigram model needs an array \"vocab\" of [piece, score] pairs%s", NULL);
    int byte_fallback = 0;
    if (get_bool(L, v, "byte_fallback", path, 0, &byte_fallback)) return L->err->code;
    int64_t unk_id = -1;
    const tc_json *u = member(v, "unk_id");
    if (u && u->type != TC_JSON_NULL) {
        if (u->type != TC_JSON_NUMBER || !u->u.num.is_int || u->u.num.i < 0)
            return fail(L, TC_ERR_FORMAT, u, "$.model.unk_id", "expected a non-negative integer or null%s", NULL);
        if (note_neg_zero(L, u, "$.model.unk_id")) return L->err->code;
        unk_id = u->u.num.i;
    }
    uint32_t n = vocab->u.arr.n;
    if (n > TC_MAX_VOCAB) return fail(L, TC_ERR_LIMIT, vocab, "$.model.vocab", "more than 16000000 pieces%s", NULL);
    const uint8_t **pieces = malloc((n ? n : 1) * sizeof *pieces);
    size_t *lens = malloc((n ? n : 1) * sizeof *lens);
    double *scores = malloc((n ? n : 1) * sizeof *scores);
    int r = 0;
    if (!pieces || !lens || !scores) { r = tc_error_set(L->err, TC_ERR_NOMEM, "out of memory"); goto out; }
    for (uint32_t i = 0; i < n; i++) {
        const tc_json *it = &vocab->u.arr.items[i];
        char p[100];
        snprintf(p, sizeof p, "$.model.vocab[%u]", i);
        if (it->type != TC_JSON_ARRAY || it->u.arr.n != 2 || it->u.arr.items[0].type != TC_JSON_STRING) {
            r = fail(L, TC_ERR_FORMAT, it, p, "expected a pair [piece, score]%s", NULL);
            goto out;
        }
        const tc_json *sc = &it->u.arr.items[1];
        snprintf(p, sizeof p, "$.model.vocab[%u][1]", i);
        if (sc->type != TC_JSON_NUMBER) { r = fail(L, TC_ERR_FORMAT, sc, p, "the score is not a number (NaN and infinities cannot be scores)%s", NULL); goto out; }
        if (!isfinite(sc->u.num.d)) { r = fail(L, TC_ERR_FORMAT, sc, p, "the score is out of range of a double%s", NULL); goto out; }
        pieces[i] = (const uint8_t *)it->u.arr.items[0].u.str.s;
        lens[i] = it->u.arr.items[0].u.str.len;
        scores[i] = sc->u.num.d;
    }
    {
        tc_error e = {0};
        if (tc_model_set_unigram(L->tok, pieces, lens, scores, n, unk_id, byte_fallback, &e) != TC_OK)
            r = fail(L, e.code, unk_id >= 0 && (uint64_t)unk_id >= n ? u : vocab, unk_id >= 0 && (uint64_t)unk_id >= n ? "$.model.unk_id" : "$.model.vocab", "%s", e.msg);
    }
out:
    free(pieces); free(lens); free(scores);
    return r;
}

static int load_vocab(ld *L, const tc_json *vocab);

/* WordPiece (models/wordpiece/serialization.rs: unk_token "[UNK]",
 * continuing_subword_prefix "##", max_input_chars_per_word 100) and
 * WordLevel (models/wordlevel/serialization.rs: unk_token "<unk>"),
 * tokenizers 0.23.3. Refused here, where HF fails only at encode: a
 * WordPiece unk token that is not in the vocabulary (any word that does not
 * split into pieces would need it). */
static int load_word_model(ld *L, const tc_json *v, const tc_json *vocab) {
    tc_model *m = &L->tok->model;
    const char *path = "$.model";
    int wp = m->kind == TC_MODEL_WORDPIECE;
    char *unk = NULL;
    size_t unk_len = 0;
    if (get_str_def(L, v, "unk_token", path, wp ? "[UNK]" : "<unk>", &unk, &unk_len)) return L->err->code;
    if (wp) {
        if (get_str_def(L, v, "continuing_subword_prefix", path, "##", &m->cont_prefix, &m->cont_prefix_len)) { free(unk); return L->err->code; }
        const tc_json *mx = member(v, "max_input_chars_per_word");
        m->max_input_chars_per_word = 100;
        if (mx && mx->type != TC_JSON_NULL) {
            if (mx->type != TC_JSON_NUMBER || !mx->u.num.is_int || mx->u.num.i < 0) { free(unk); return fail(L, TC_ERR_FORMAT, mx, "$.model.max_input_chars_per_word", "expected a non-negative integer%s", NULL); }
            m->max_input_chars_per_word = mx->u.num.i > 0xffffffffLL ? 0xffffffffu : (uint32_t)mx->u.num.i;
        }
    }
    int r = load_vocab(L, vocab);
    if (r) { free(unk); return r; }
    m->unk_id = tc_vocab_find(&m->vocab, (const uint8_t *)unk, unk_len);
    for (uint32_t id = 0; id < m->vocab.n; id++)
        if (m->vocab.entries[id].present && m->vocab.entries[id].str_len > m->max_key_len) m->max_key_len = m->vocab.entries[id].str_len;
    if (wp) tc_wordpiece_set_bytes(m);
    if (wp && m->unk_id < 0) {
        const tc_json *uv = member(v, "unk_token");
        r = fail(L, TC_ERR_FORMAT, uv ? uv : vocab, uv ? "$.model.unk_token" : "$.model.vocab",
                 "the WordPiece unk token \"%.80s\" is not in the vocabulary (a word that does not split into pieces would have no id; HF: \"Missing [UNK] token from the vocabulary\")", unk);
    }
    free(unk);
    return r;
}

static int load_model(ld *L, const tc_json *v) {
    const char *path = "$.model";
    if (!v || v->type != TC_JSON_OBJECT) return fail(L, TC_ERR_FORMAT, v, path, "expected an object (is this a vocab.json? then give merges.txt too)%s", NULL);
    const tc_json *t = member(v, "type");
    tc_model *m = &L->tok->model;
    m->kind = TC_MODEL_BPE_MERGES;
    if (t && t->type == TC_JSON_STRING && strcmp(t->u.str.s, "WordPiece") == 0) m->kind = TC_MODEL_WORDPIECE;
    else if (t && t->type == TC_JSON_STRING && strcmp(t->u.str.s, "WordLevel") == 0) m->kind = TC_MODEL_WORDLEVEL;
    else if (t && t->type == TC_JSON_STRING && strcmp(t->u.str.s, "Unigram") == 0) return load_unigram(L, v);
    else if (t && (t->type != TC_JSON_STRING || strcmp(t->u.str.s, "BPE") != 0))
        return fail(L, TC_ERR_UNSUPPORTED, t, "$.model.type", "model type \"%s\" is not supported (BPE, WordPiece, WordLevel and Unigram are)", t->type == TC_JSON_STRING ? t->u.str.s : "?");
    const tc_json *vocab = member(v, "vocab");
    const tc_json *merges = member(v, "merges");
    if (!vocab || vocab->type != TC_JSON_OBJECT) return fail(L, TC_ERR_FORMAT, v, path, "missing object \"vocab\"%s", NULL);
    if (m->kind == TC_MODEL_BPE_MERGES && (!merges || merges->type != TC_JSON_ARRAY)) return fail(L, TC_ERR_FORMAT, v, path, "missing array \"merges\" (a BPE model needs one)%s", NULL);
    const tc_json *dropout = member(v, "dropout");
    if (dropout && dropout->type != TC_JSON_NULL) return fail(L, TC_ERR_UNSUPPORTED, dropout, "$.model.dropout", "BPE dropout is random and not supported%s", NULL);
    const tc_json *unk, *pre, *suf;
    if (m->kind != TC_MODEL_BPE_MERGES) return load_word_model(L, v, vocab);
    if (get_str(L, v, "unk_token", path, &unk) || get_str(L, v, "continuing_subword_prefix", path, &pre) ||
        get_str(L, v, "end_of_word_suffix", path, &suf) || get_bool(L, v, "fuse_unk", path, 0, &m->fuse_unk) ||
        get_bool(L, v, "byte_fallback", path, 0, &m->byte_fallback) ||
        get_bool(L, v, "ignore_merges", path, 0, &m->ignore_merges)) return L->err->code;
    if (dup_str(L, pre, &m->cont_prefix, &m->cont_prefix_len) || dup_str(L, suf, &m->eow_suffix, &m->eow_suffix_len)) return L->err->code;

    L->vocab_span.start = vocab->offset; L->vocab_span.end = vocab->u.obj.end;
    L->merges_span.start = merges->offset; L->merges_span.end = merges->u.arr.end;
    L->spans = 1;
    if (L->cache) {
        /* the tables come from the load cache; the parse skipped these two values */
        if (L->cache->vocab.start != vocab->offset || L->cache->merges.start != merges->offset)
            return tc_error_set(L->err, TC_ERR_FORMAT, "the load cache does not fit this file");
        m->vocab = L->cache->vocab_tab;
        m->merges = L->cache->merges_tab;
        memset(&L->cache->vocab_tab, 0, sizeof L->cache->vocab_tab);
        memset(&L->cache->merges_tab, 0, sizeof L->cache->merges_tab);
        if (unk) m->unk_id = tc_vocab_find(&m->vocab, (const uint8_t *)unk->u.str.s, unk->u.str.len);
        return 0;
    }
    {
        int vr = load_vocab(L, vocab);
        if (vr) return vr;
    }
    if (unk) {
        m->unk_id = tc_vocab_find(&m->vocab, (const uint8_t *)unk->u.str.s, unk->u.str.len);
        /* HF fails only when the unk token is needed and missing; -1 keeps that */
    }

    /* merges: "a b" strings or ["a", "b"] pairs; rank = position */
    if (tc_pairmap_init(&m->merges, merges->u.arr.n) != 0) return tc_error_set(L->err, TC_ERR_NOMEM, "out of memory");
    return load_merges(L, merges);
}

/* One merge, split and hashed ahead of use so its table slots can be
 * prefetched: loading is bound by cache misses in the 151k-entry table. */
typedef struct merge_job {
    const char *a, *b;
    size_t al, bl;
    uint64_t ha, hb, hab;
    int ok;             /* 0: malformed, reported when its turn comes */
    uint8_t cat[128];   /* a + b (minus prefix) when short enough */
    size_t catlen;
} merge_job;

#define MERGE_AHEAD 8

static void merge_prepare(const tc_model *m, const tc_json *it, merge_job *j) {
    j->ok = 0;
    if (it->type == TC_JSON_STRING) {
        const char *s = it->u.str.s;
        const char *sp = memchr(s, ' ', it->u.str.len);
        if (!sp || memchr(sp + 1, ' ', it->u.str.len - (size_t)(sp + 1 - s))) return;
        j->a = s; j->al = (size_t)(sp - s); j->b = sp + 1; j->bl = it->u.str.len - j->al - 1;
    } else if (it->type == TC_JSON_ARRAY && it->u.arr.n == 2 && it->u.arr.items[0].type == TC_JSON_STRING &&
               it->u.arr.items[1].type == TC_JSON_STRING) {
        j->a = it->u.arr.items[0].u.str.s; j->al = it->u.arr.items[0].u.str.len;
        j->b = it->u.arr.items[1].u.str.s; j->bl = it->u.arr.items[1].u.str.len;
    } else {
        return;
    }
    j->ok = 1;
    j->ha = tc_hash_bytes((const uint8_t *)j->a, j->al);
    j->hb = tc_hash_bytes((const uint8_t *)j->b, j->bl);
    j->catlen = SIZE_MAX;
    if (j->bl >= m->cont_prefix_len && j->al + j->bl - m->cont_prefix_len <= sizeof j->cat) {
        memcpy(j->cat, j->a, j->al);
        memcpy(j->cat + j->al, j->b + m->cont_prefix_len, j->bl - m->cont_prefix_len);
        j->catlen = j->al + j->bl - m->cont_prefix_len;
        j->hab = tc_hash_bytes(j->cat, j->catlen);
        tc_strmap_prefetch(&m->vocab.by_str, j->hab);
    }
    tc_strmap_prefetch(&m->vocab.by_str, j->ha);
    tc_strmap_prefetch(&m->vocab.by_str, j->hb);
}

static int load_merges(ld *L, const tc_json *merges) {
    tc_model *m = &L->tok->model;
    const tc_vocab *v = &m->vocab;
    uint32_t n = merges->u.arr.n;
    merge_job ring[MERGE_AHEAD];
    typedef struct { uint32_t a, b, rank, new_id; } pending_put;
    pending_put pend[MERGE_AHEAD];
    tc_buf tmp = {0};
    /* HF reads the list as all "a b" strings or all pairs, not a mix */
    for (uint32_t r = 1; r < n; r++) {
        const tc_json *it = &merges->u.arr.items[r];
        if ((it->type == TC_JSON_STRING) != (merges->u.arr.items[0].type == TC_JSON_STRING)) {
            char p[64], why[240];
            snprintf(p, sizeof p, "$.model.merges[%u]", r);
            snprintf(why, sizeof why, "the merges list mixes \"a b\" strings and [\"a\", \"b\"] pairs (this one is %s, merges[0] is %s); HF requires one form for the whole list (\"data did not match any variant of untagged enum MergeType\")",
                     it->type == TC_JSON_STRING ? "a string" : "a pair", it->type == TC_JSON_STRING ? "a pair" : "a string");
            if (note(L, it, p, why)) return L->err->code;
            break;
        }
    }
    for (uint32_t r = 0; r < n && r < MERGE_AHEAD; r++) merge_prepare(m, &merges->u.arr.items[r], &ring[r]);
    for (uint32_t r = 0; r < n; r++) {
        merge_job *j = &ring[r % MERGE_AHEAD];
        const tc_json *it = &merges->u.arr.items[r];
        char p[64];
#define MPATH (snprintf(p, sizeof p, "$.model.merges[%u]", r), p)
        if (!j->ok) {
            tc_buf_free(&tmp);
            char what[TC_ERRMSG_MAX - 100];
            if (it->type == TC_JSON_STRING) {
                vocab_damage(L);
                int k = snprintf(what, sizeof what, "the merge \"%.60s\" does not split into two tokens at one space (HF: \"Merges text file invalid at line %u\")",
                                 it->u.str.s, r + 1);
                if (L->nspace && k > 0 && (size_t)k < sizeof what) {
                    uint32_t sid = (uint32_t)L->space_id;
                    k += snprintf(what + k, sizeof what - (size_t)k, "; %u vocabulary token%s contain%s an ASCII space (first: \"%.40s\", id %u), which an \"a b\" merge cannot name: damaged (U+00A0 turned into U+0020?)",
                                  L->nspace, L->nspace == 1 ? "" : "s", L->nspace == 1 ? "s" : "", (const char *)tc_entry_str(v, sid), sid);
                }
                if (L->ndup && k > 0 && (size_t)k < sizeof what) {
                    uint32_t did = (uint32_t)L->dup_id;
                    snprintf(what + k, sizeof what - (size_t)k, "; the vocabulary has %u duplicate key%s (first: \"%.40s\", id %u)",
                             L->ndup, L->ndup == 1 ? "" : "s", (const char *)tc_entry_str(v, did), did);
                }
            } else {
                snprintf(what, sizeof what, "a merge must be \"a b\" or [\"a\", \"b\"] (two tokens, one space)");
            }
            return fail(L, TC_ERR_FORMAT, it, MPATH, "%s", what);
        }
        int64_t ia = tc_strmap_find_h(&v->by_str, v, (const uint8_t *)j->a, j->al, j->ha);
        int64_t ib = tc_strmap_find_h(&v->by_str, v, (const uint8_t *)j->b, j->bl, j->hb);
        if (ia < 0 || ib < 0) {
            tc_buf_free(&tmp);
            char what[200];
            snprintf(what, sizeof what, "%.*s", (int)((ia < 0 ? j->al : j->bl) > 80 ? 80 : (ia < 0 ? j->al : j->bl)), ia < 0 ? j->a : j->b);
            return fail(L, TC_ERR_FORMAT, it, MPATH, "merge names a token that is not in the vocabulary: \"%s\"", what);
        }
        if (j->bl < m->cont_prefix_len) { tc_buf_free(&tmp); return fail(L, TC_ERR_FORMAT, it, MPATH, "merge token shorter than continuing_subword_prefix%s", NULL); }
        int64_t in;
        const uint8_t *cat;
        size_t catlen;
        if (j->catlen != SIZE_MAX) {
            cat = j->cat; catlen = j->catlen;
            in = tc_strmap_find_h(&v->by_str, v, cat, catlen, j->hab);
        } else {
            tmp.len = 0;
            if (tc_buf_append(&tmp, j->a, j->al) != 0 || tc_buf_append(&tmp, j->b + m->cont_prefix_len, j->bl - m->cont_prefix_len) != 0) { tc_buf_free(&tmp); return tc_error_set(L->err, TC_ERR_NOMEM, "out of memory"); }
            cat = tmp.data; catlen = tmp.len;
            in = tc_vocab_find(v, cat, catlen);
        }
        if (in < 0) {
            char what[200];
            snprintf(what, sizeof what, "%.*s", (int)(catlen > 80 ? 80 : catlen), (const char *)cat);
            tc_buf_free(&tmp);
            return fail(L, TC_ERR_FORMAT, it, MPATH, "the merged token \"%s\" is not in the vocabulary", what);
        }
#undef MPATH
        /* the insert waits MERGE_AHEAD merges so its slot can be prefetched;
         * inserts stay in file order (a later duplicate pair overrides) */
        tc_pairmap_prefetch(&m->merges, (uint32_t)ia, (uint32_t)ib);
        pending_put *pp = &pend[r % MERGE_AHEAD];
        if (r >= MERGE_AHEAD && tc_pairmap_put(&m->merges, pp->a, pp->b, pp->rank, pp->new_id) < 0) {
            tc_buf_free(&tmp);
            return tc_error_set(L->err, TC_ERR_NOMEM, "merge table full");
        }
        pp->a = (uint32_t)ia; pp->b = (uint32_t)ib; pp->rank = r; pp->new_id = (uint32_t)in;
        if (r + MERGE_AHEAD < n) merge_prepare(m, &merges->u.arr.items[r + MERGE_AHEAD], j);
    }
    for (uint32_t r = n > MERGE_AHEAD ? n - MERGE_AHEAD : 0; r < n; r++) {
        const pending_put *pp = &pend[r % MERGE_AHEAD];
        if (tc_pairmap_put(&m->merges, pp->a, pp->b, pp->rank, pp->new_id) < 0) {
            tc_buf_free(&tmp);
            return tc_error_set(L->err, TC_ERR_NOMEM, "merge table full");
        }
    }
    tc_buf_free(&tmp);
    return 0;
}

/* ---- added tokens ----------------------------------------------------------- */

static int load_added(ld *L, const tc_json *arr) {
    if (!arr || arr->type == TC_JSON_NULL) return 0;
    if (arr->type != TC_JSON_ARRAY) return fail(L, TC_ERR_FORMAT, arr, "$.added_tokens", "expected an array%s", NULL);
    tc_added_token_spec *specs = calloc(arr->u.arr.n ? arr->u.arr.n : 1, sizeof *specs);
    if (!specs) return tc_error_set(L->err, TC_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; i < arr->u.arr.n; i++) {
        const tc_json *it = &arr->u.arr.items[i];
        char p[300];
        snprintf(p, sizeof p, "$.added_tokens[%u]", i);
        const tc_json *id = member(it, "id"), *content = member(it, "content");
        if (it->type != TC_JSON_OBJECT || !id || id->type != TC_JSON_NUMBER || !id->u.num.is_int || id->u.num.i < 0 ||
            id->u.num.i >= TC_MAX_VOCAB || !content || content->type != TC_JSON_STRING) {
            free(specs);
            return fail(L, TC_ERR_FORMAT, it, p, "an added token needs an integer \"id\" and a string \"content\"%s", NULL);
        }
        /* HF's AddedToken has no serde defaults: every field must be there */
        static const char *const req[] = {"single_word", "lstrip", "rstrip", "normalized", "special"};
        for (size_t f = 0; f < sizeof req / sizeof *req; f++) {
            const tc_json *fv = member(it, req[f]);
            if (fv && fv->type != TC_JSON_NULL) continue;
            char why[200];
            if (fv) snprintf(why, sizeof why, "the added token's \"%s\" is null (HF: \"invalid type: null, expected a boolean\"); write true or false", req[f]);
            else snprintf(why, sizeof why, "the added token has no \"%s\" (HF: \"missing field `%s`\"; it requires id, content, single_word, lstrip, rstrip, normalized and special)", req[f], req[f]);
            if (note(L, it, p, why)) { free(specs); return L->err->code; }
        }
        char idp[320];
        snprintf(idp, sizeof idp, "%s.id", p);
        if (note_neg_zero(L, id, idp)) { free(specs); return L->err->code; }
        tc_added_token_spec *s = &specs[i];
        s->id = (uint32_t)id->u.num.i;   /* what the file says; HF's own numbering below */
        s->content = content->u.str.s;
        s->content_len = content->u.str.len;
        if (get_bool(L, it, "special", p, 0, &s->special) || get_bool(L, it, "lstrip", p, 0, &s->lstrip) ||
            get_bool(L, it, "rstrip", p, 0, &s->rstrip) || get_bool(L, it, "single_word", p, 0, &s->single_word) ||
            get_bool(L, it, "normalized", p, !s->special, &s->normalized)) { free(specs); return L->err->code; }
    }
    /* subtle: HF does not take the ids from the file. It adds the tokens in
     * order: a content already added or in the model keeps that id, a new one
     * gets the next id after the model's entry count (or after the highest
     * added id when that is already past it). Files written by HF agree with
     * this; a file that does not is encoded as HF would encode it. */
    uint32_t model_count = 0;
    for (uint32_t k = 0; k < L->tok->model.vocab.n; k++) model_count += L->tok->model.vocab.entries[k].present;
    uint32_t nspec = 0;
    int64_t max_added = -1;
    for (uint32_t i = 0; i < arr->u.arr.n; i++) {
        tc_added_token_spec *s = &specs[i];
        int dup = 0;
        for (uint32_t k = 0; k < nspec; k++)
            if (specs[k].content_len == s->content_len && memcmp(specs[k].content, s->content, s->content_len) == 0) dup = 1;
        if (dup) continue;   /* the first of equal contents wins */
        int64_t mid = tc_vocab_find(&L->tok->model.vocab, (const uint8_t *)s->content, s->content_len);
        if (mid >= 0) s->id = (uint32_t)mid;
        else if (max_added < 0) s->id = model_count;
        else s->id = ((uint32_t)max_added >= model_count || model_count == 0) ? (uint32_t)max_added + 1 : model_count;
        if ((int64_t)s->id > max_added) max_added = s->id;
        specs[nspec++] = *s;
    }
    tc_error e = {0};
    int r = tc_add_tokens(L->tok, specs, nspec, &e);
    free(specs);
    if (r != TC_OK) return fail(L, e.code, arr, "$.added_tokens", "%s", e.msg);
    return 0;
}

/* ---- describe ------------------------------------------------------------- */

static void describe(tc_tokenizer *tok, const char *format, const ld *L) {
    char tmp[512];
    tc_buf *d = &tok->describe;
    d->len = 0;
    int bad = 0;
    snprintf(tmp, sizeof tmp, "{\"format\":\"%s\",\"model\":\"%s\",\"vocab_size\":%u,\"model_vocab\":%u,\"merges\":%zu,\"added_tokens\":%zu,\"byte_level\":%s,\"ignore_merges\":%s,\"byte_fallback\":%s,",
             format, tok->model.kind == TC_MODEL_BPE_RANK || tok->model.bpe_is_rank ? "BPE (rank)"
                     : tok->model.kind == TC_MODEL_UNIGRAM ? "Unigram"
                     : tok->model.kind == TC_MODEL_WORDPIECE ? "WordPiece"
                     : tok->model.kind == TC_MODEL_WORDLEVEL ? "WordLevel"
                     : tok->model.kind == TC_MODEL_SPM_LLAMA ? "SPM (llama.cpp)"
                     : tok->model.kind == TC_MODEL_WPM_LLAMA ? "WPM (llama.cpp)"
                     : tok->model.kind == TC_MODEL_UGM ? "UGM (llama.cpp)" : "BPE",
             tc_vocab_size(tok), tok->model.vocab.n,
             tok->model.merges.used, tok->nadded, tok->byte_level ? "true" : "false",
             tok->model.ignore_merges ? "true" : "false", tok->model.byte_fallback ? "true" : "false");
    bad |= tc_buf_append(d, tmp, strlen(tmp));
    if (tok->model.unk_id >= 0) snprintf(tmp, sizeof tmp, "\"unk_id\":%lld,", (long long)tok->model.unk_id);
    else snprintf(tmp, sizeof tmp, "\"unk_id\":null,");
    bad |= tc_buf_append(d, tmp, strlen(tmp));
    bad |= tc_buf_append(d, "\"normalizer\":[", 14);
    static const char *nn[] = {"NFC", "NFD", "NFKC", "NFKD", "Lowercase", "Prepend", "Replace", "Strip",
                                "BertNormalizer.clean_text", "BertNormalizer.handle_chinese_chars", "BertNormalizer.strip_accents",
                                "StripAccents", "Nmt", "ByteLevel", "Precompiled"};
    for (int i = 0; i < tok->normalizer.nsteps; i++) {
        snprintf(tmp, sizeof tmp, "%s\"%s\"", i ? "," : "", nn[tok->normalizer.steps[i]]);
        bad |= tc_buf_append(d, tmp, strlen(tmp));
    }
    bad |= tc_buf_append(d, "],\"pre_tokenizer\":[", 19);
    static const char *pk[] = {"Split(regex)", "Split(string)", "ByteLevel", "Digits", "Metaspace", "WhitespaceSplit", "Whitespace", "Punctuation", "FixedLength", "UnicodeScripts"};
    for (int i = 0; i < tok->npretok; i++) {
        const tc_pretok *p = &tok->pretok[i];
        snprintf(tmp, sizeof tmp, "%s\"%s%s\"", i ? "," : "", pk[p->kind], p->fast ? " [fast path]" : "");
        bad |= tc_buf_append(d, tmp, strlen(tmp));
    }
    bad |= tc_buf_append(d, "],\"post_processor\":[", 20);
    for (int i = 0; i < tok->npost; i++) {
        snprintf(tmp, sizeof tmp, "%s\"%s\"", i ? "," : "", tok->post[i].kind == TC_POST_BYTELEVEL ? "ByteLevel" : "TemplateProcessing");
        bad |= tc_buf_append(d, tmp, strlen(tmp));
    }
    if (tok->decoder == TC_DEC_CHAIN) {
        static const char *dn[] = {"none", "ByteLevel", "Sequence", "Replace", "ByteFallback", "Fuse", "Strip", "Metaspace", "WordPiece", "CTC", "BPEDecoder"};
        bad |= tc_buf_append(d, "],\"decoder\":[", 13);
        for (int i = 0; i < tok->ndec; i++) {
            snprintf(tmp, sizeof tmp, "%s\"%s\"", i ? "," : "", dn[tok->dec[i].kind]);
            bad |= tc_buf_append(d, tmp, strlen(tmp));
        }
        snprintf(tmp, sizeof tmp, "],\"bytes_rule\":\"%s\"", tok->bytes_rule == TC_BYTES_SPM ? "sentencepiece" : "raw");
    } else {
        snprintf(tmp, sizeof tmp, "],\"decoder\":\"%s\"", tok->decoder == TC_DEC_BYTELEVEL ? "ByteLevel" : "none");
    }
    bad |= tc_buf_append(d, tmp, strlen(tmp));
    /* what HF tokenizers refuses in the file (see note()) */
    bad |= tc_buf_append(d, ",\"hf_compat\":[", 14);
    if (L && L->nnotes) bad |= tc_buf_append(d, L->notes.data, L->notes.len);
    if (L && L->nmore) {
        snprintf(tmp, sizeof tmp, "HF tokenizers refuses this file: and at %u more places like these", L->nmore);
        bad |= tc_buf_append(d, ",", 1) | json_str_append(d, tmp);
    }
    bad |= tc_buf_append(d, "]}", 3);
    if (bad) tc_buf_free(d);   /* tc_describe() then answers "{}" */
}

void tc_describe_update(tc_tokenizer *tok, const char *format);
void tc_describe_update(tc_tokenizer *tok, const char *format) { describe(tok, format, NULL); }

/* ---- entry ------------------------------------------------------------------ */

static int check_keys(ld *L, const tc_json *root) {
    static const char *known[] = {"version", "truncation", "padding", "added_tokens", "normalizer",
                                  "pre_tokenizer", "model", "post_processor", "decoder", NULL};
    for (uint32_t i = 0; i < root->u.obj.n; i++) {
        const char *k = root->u.obj.members[i].key;
        int ok = 0;
        for (int j = 0; known[j]; j++) if (strcmp(k, known[j]) == 0) ok = 1;
        if (!ok) {
            char p[200];
            snprintf(p, sizeof p, "$.%.100s", k);
            return fail(L, TC_ERR_UNSUPPORTED, &root->u.obj.members[i].value, p, "unknown top-level member%s", NULL);
        }
    }
    return 0;
}

/* The whole load; with cache, the vocabulary and merges come from it and the
 * parse skips them. spans (may be NULL) receives where they are in the file
 * ([0] vocab, [1] merges) when the model is BPE, else stays zero. */
static tc_tokenizer *load_json(const uint8_t *data, size_t len, tc_hf_cache *cache, tc_json_span *spans,
                               tc_error *err) {
    tc_json_span skip[2];
    if (cache) { skip[0] = cache->vocab; skip[1] = cache->merges; }
    tc_json_doc *doc = tc_json_parse_skipping((const char *)data, len, cache ? skip : NULL, cache ? 2 : 0, err);
    if (!doc) {
        tc_error_prefix(err, "tokenizer.json: ");
        return NULL;
    }
    const tc_json *root = tc_json_root(doc);
    tc_tokenizer *tok = tc_tokenizer_new();
    if (!tok) { tc_json_free(doc); tc_error_set(err, TC_ERR_NOMEM, "out of memory"); return NULL; }
    ld L = {tok, err, (const char *)data, len, 0, -1, 0, -1, {0}, 0, 0, cache, {0, 0}, {0, 0}, 0};
    int r = 0;
    if (root->type != TC_JSON_OBJECT) { r = fail(&L, TC_ERR_FORMAT, root, "$", "expected an object%s", NULL); goto out; }
    if ((r = check_keys(&L, root))) goto out;
    const tc_json *v;
    if ((v = member(root, "truncation")) && v->type != TC_JSON_NULL) { r = fail(&L, TC_ERR_UNSUPPORTED, v, "$.truncation", "truncation is not supported (set it to null)%s", NULL); goto out; }
    if ((v = member(root, "padding")) && v->type != TC_JSON_NULL) { r = fail(&L, TC_ERR_UNSUPPORTED, v, "$.padding", "padding is not supported (set it to null)%s", NULL); goto out; }
    if ((v = member(root, "normalizer")) && v->type != TC_JSON_NULL && (r = load_normalizer(&L, v, "$.normalizer"))) goto out;
    if ((v = member(root, "pre_tokenizer")) && v->type != TC_JSON_NULL && (r = load_pretok(&L, v, "$.pre_tokenizer"))) goto out;
    /* the decoder first: it decides the rule for the entries' real bytes */
    if ((v = member(root, "decoder")) && v->type != TC_JSON_NULL && (r = load_decoder(&L, v, "$.decoder", 1))) goto out;
    tok->bytes_rule = bytes_rule_of(tok);
    if ((r = load_model(&L, member(root, "model")))) goto out;
    if ((v = member(root, "post_processor")) && v->type != TC_JSON_NULL && (r = load_post(&L, v, "$.post_processor"))) goto out;
    if ((r = tc_model_init_bytes(tok, err))) goto out;
    if ((r = load_added(&L, member(root, "added_tokens")))) goto out;
    if ((r = tc_tokenizer_finish(tok, err))) goto out;
    describe(tok, "tokenizer.json", &L);
    /* a file with compatibility notes is not cached: some of them come from
     * inside the vocabulary or merges, which a cached load does not read */
    if (spans && L.spans && tok->model.kind == TC_MODEL_BPE_MERGES && !L.nnotes && !L.nmore) { spans[0] = L.vocab_span; spans[1] = L.merges_span; }
out:
    tc_buf_free(&L.notes);
    tc_json_free(doc);
    if (r) { tc_free(tok); return NULL; }
    return tok;
}

tc_tokenizer *tc_load_hf_json(const uint8_t *data, size_t len, tc_error *err) {
    return load_json(data, len, NULL, NULL, err);
}

tc_tokenizer *tc_load_hf_json_with_cache(const uint8_t *data, size_t len, tc_hf_cache *c, tc_error *err) {
    return load_json(data, len, c, NULL, err);
}

/* A cache hit read from the file itself: only the bytes outside the two
 * cached values (~10 KB of Qwen3's 11 MB) are read, into a zero-filled
 * mapping of the file's length whose pages inside the values are never
 * touched (the parser reads each skipped value's two brackets only:
 * json.c's run()). The caller hashed the file as it streamed by and never
 * held it whole: Qwen3's 11 MB read into fresh memory was 7 ms of a
 * 41 ms cache-hit load, the pages' first touch most of it. The file is
 * opened guarded (platform.h): one that changes while it is read is a miss;
 * the caller checks that it is still the file it hashed. */
tc_tokenizer *tc_load_hf_json_file_hit(const char *path, uint64_t file_len, const uint8_t key[32],
                                       const char *cache_path, tc_error *err) {
    if (err) { err->code = TC_OK; err->msg[0] = 0; }
    if (!path || !cache_path || file_len < 2 || file_len > UINT32_MAX) return NULL;
    tc_hf_cache c;
    const char *why = NULL;
    if (tc_cache_read_hf_file(cache_path, key, file_len, &c, &why) != 0) return NULL;
    tc_file f;
    tc_error e = {0};
    tc_tokenizer *tok = NULL;
    uint8_t *buf = NULL;
    size_t len = (size_t)file_len;
    if (tc_file_open_guarded(path, len, &f, &e) != TC_OK) { tc_hf_cache_free(&c); return NULL; }
    if (f.len != file_len || !(buf = tc_table_alloc(len))) goto out;
    /* the spans do not overlap and end inside the file (read_cache checked); read around them,
     * each value's first and last byte included */
    tc_json_span a = c.vocab.start < c.merges.start ? c.vocab : c.merges;
    tc_json_span b = c.vocab.start < c.merges.start ? c.merges : c.vocab;
    size_t from[3] = {0, (size_t)a.end - 1, (size_t)b.end - 1};
    size_t to[3] = {(size_t)a.start + 1, (size_t)b.start + 1, len};
    for (int k = 0; k < 3; k++)
        if (tc_file_pread(&f, from[k], buf + from[k], to[k] - from[k], &e) != TC_OK) goto out;
    if (tc_file_check(&f, &e) != TC_OK) goto out;
    tok = tc_load_hf_json_with_cache(buf, len, &c, &e);
out:
    if (buf) tc_table_free(buf, len);
    tc_file_free(&f);
    tc_hf_cache_free(&c);
    return tok;
}

/* A cache that is not valid for this file and engine, or a file the cached
 * load refuses, is a miss: the file is loaded whole, exactly as without it. */
tc_tokenizer *tc_load_hf_json_cached(const uint8_t *data, size_t len, const uint8_t key[32], const char *cache_path,
                                     int *hit, tc_buf *new_cache, tc_error *err) {
    *hit = 0;
    if (cache_path) {
        tc_hf_cache c;
        const char *why = NULL;
        if (tc_cache_read_hf_file(cache_path, key, len, &c, &why) == 0) {
            tc_error e = {0};
            tc_tokenizer *tok = tc_load_hf_json_with_cache(data, len, &c, &e);
            tc_hf_cache_free(&c);
            if (tok) { *hit = 1; return tok; }
        }
    }
    tc_json_span spans[2] = {{0, 0}, {0, 0}};
    tc_tokenizer *tok = load_json(data, len, NULL, new_cache ? spans : NULL, err);
    if (tok && new_cache && spans[0].end && spans[1].end &&
        tc_cache_write_hf(tok, key, len, spans[0], spans[1], new_cache) != 0)
        new_cache->len = 0;   /* out of memory: no cache this time, the handle is fine */
    return tok;
}
