/* load_wordpiece.c - a plain WordPiece vocab.txt as HF's
 * BertWordPieceTokenizer builds it (tokenizers 0.23.3).
 *
 * Does: the vocabulary as WordPiece::read_file reads it
 * (tokenizers/src/models/wordpiece/mod.rs: one token per line, the line's
 * trailing whitespace trimmed (str::trim_end), id = line index, a later
 * duplicate line wins), then the pipeline of
 * bindings/python/py_src/tokenizers/implementations/bert_wordpiece.py:
 * BertNormalizer(clean_text, handle_chinese_chars, strip_accents = None,
 * lowercase), BertPreTokenizer, WordPiece(unk "[UNK]", prefix "##", 100
 * chars per word), the specials [UNK] [SEP] [CLS] [PAD] [MASK] added as
 * special tokens when the vocabulary has them, BertProcessing ([CLS] $A
 * [SEP]; HF raises without [SEP] or [CLS]), decoder WordPiece("##").
 * Does not: detect the format (load_other.c's tc_detect_format).
 */
#include <stdio.h>

#include "engine.h"
#include "unicode.h"

void tc_describe_update(tc_tokenizer *tok, const char *format);

static const char *const BERT_SPECIALS[] = {"[UNK]", "[SEP]", "[CLS]", "[PAD]", "[MASK]"};

/* Length of line [s, e) after Rust's trim_end (Unicode White_Space). */
static size_t trim_end(const uint8_t *s, size_t n) {
    while (n > 0) {
        size_t j = n - 1;
        while (j > 0 && n - j < 4 && (s[j] & 0xC0) == 0x80) j--;
        int ul;
        uint32_t cp = tc_utf8_decode(s, n, j, &ul);
        if (j + (size_t)ul != n || cp >= TC_CP_INVALID_BASE || !tc_unicode_is_space(cp)) break;
        n = j;
    }
    return n;
}

/* Lines of the file: [start, length] pairs; the last line needs no '\n'. */
static int split_lines(const uint8_t *d, size_t len, uint32_t **out, uint32_t *n, tc_error *err) {
    uint32_t count = 0;
    for (size_t i = 0; i < len; i++) count += d[i] == '\n';
    if (len && d[len - 1] != '\n') count++;
    if (count >= TC_MAX_VOCAB) return tc_error_set(err, TC_ERR_LIMIT, "vocab.txt: %u lines, above the limit of %u tokens", count, TC_MAX_VOCAB);
    uint32_t *v = malloc(((size_t)count + 1) * 2 * sizeof *v);
    if (!v) return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    uint32_t k = 0;
    size_t st = 0;
    for (size_t i = 0; i <= len && k < count; i++) {
        if (i < len && d[i] != '\n') continue;
        size_t e = i;
        if (e > st && d[e - 1] == '\r') e--;   /* BufRead::lines strips "\n" or "\r\n" */
        size_t l = trim_end(d + st, e - st);
        for (size_t j = st; j < st + l;) {
            int ul;
            if (tc_utf8_decode(d, st + l, j, &ul) >= TC_CP_INVALID_BASE) {
                free(v);
                return tc_error_set(err, TC_ERR_FORMAT, "vocab.txt: line %u (byte %zu) is not valid UTF-8 (HF: \"stream did not contain valid UTF-8\")", k + 1, j);
            }
            j += (size_t)ul;
        }
        if (l > TC_MAX_TOKEN_BYTES) { free(v); return tc_error_set(err, TC_ERR_LIMIT, "vocab.txt: line %u is %zu bytes long, above the limit of %u", k + 1, l, TC_MAX_TOKEN_BYTES); }
        v[2 * k] = (uint32_t)st;
        v[2 * k + 1] = (uint32_t)l;
        k++;
        st = i + 1;
    }
    *out = v;
    *n = k;
    return TC_OK;
}

/* A later line with the same token wins (HashMap::insert); the earlier id
 * then has no token, as in HF's vocab_r. */
static int drop_earlier_duplicates(tc_vocab *v, tc_error *err) {
    for (;;) {
        int changed = 0;
        for (uint32_t id = 0; id < v->n; id++) {
            if (!v->entries[id].present) continue;
            int64_t j = tc_vocab_find(v, tc_entry_str(v, id), v->entries[id].str_len);
            if (j >= 0 && (uint32_t)j < id) { v->entries[j].present = 0; changed = 1; }
        }
        if (!changed) return TC_OK;
        tc_strmap_free(&v->by_str);
        if (tc_vocab_build_index(v, err) != TC_OK) return err->code;
    }
}

static int setup_pipeline(tc_tokenizer *tok, int lowercase, tc_error *err) {
    tc_model *m = &tok->model;
    /* BertNormalizer: strip_accents None follows lowercase */
    tc_normalizer *n = &tok->normalizer;
    n->steps[n->nsteps++] = TC_NORM_BERT_CLEAN;
    n->steps[n->nsteps++] = TC_NORM_BERT_CHINESE;
    if (lowercase) {
        n->steps[n->nsteps++] = TC_NORM_NFD;
        n->steps[n->nsteps++] = TC_NORM_BERT_ACCENTS;
        n->steps[n->nsteps++] = TC_NORM_LOWERCASE;
    }
    tok->has_normalizer = 1;
    /* BertPreTokenizer: whitespace (removed), then punctuation (isolated) */
    tc_pretok *pt = &tok->pretok[tok->npretok++];
    memset(pt, 0, sizeof *pt);
    pt->kind = TC_PT_WHITESPACE_SPLIT;
    pt = &tok->pretok[tok->npretok++];
    memset(pt, 0, sizeof *pt);
    pt->kind = TC_PT_PUNCT;
    pt->behavior = TC_SPLIT_ISOLATED;
    /* BertProcessing */
    int64_t sep = tc_vocab_find(&m->vocab, (const uint8_t *)"[SEP]", 5);
    int64_t cls = tc_vocab_find(&m->vocab, (const uint8_t *)"[CLS]", 5);
    if (sep < 0 || cls < 0)
        return tc_error_set(err, TC_ERR_FORMAT, "vocab.txt: no line is \"%s\", which the [CLS] $A [SEP] template needs (HF: \"%s not found in the vocabulary\")",
                            sep < 0 ? "[SEP]" : "[CLS]", sep < 0 ? "sep_token" : "cls_token");
    tc_post *pp = &tok->post[tok->npost++];
    memset(pp, 0, sizeof *pp);
    pp->kind = TC_POST_TEMPLATE;
    pp->single = calloc(3, sizeof *pp->single);
    if (!pp->single) return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    pp->nsingle = 3;
    pp->single[0].ids[0] = (uint32_t)cls; pp->single[0].nids = 1;
    pp->single[1].is_sequence = 1;
    pp->single[2].ids[0] = (uint32_t)sep; pp->single[2].nids = 1;
    /* decoder WordPiece("##", cleanup = true) */
    tok->decoder = TC_DEC_CHAIN;
    tc_dec_step *d = &tok->dec[tok->ndec++];
    memset(d, 0, sizeof *d);
    d->kind = TC_DEC_WORDPIECE;
    d->content = malloc(3);
    if (!d->content) return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    memcpy(d->content, "##", 3);
    d->content_len = 2;
    d->prepend = 1;
    return TC_OK;
}

tc_tokenizer *tc_load_wordpiece_vocab(const uint8_t *data, size_t len, tc_preset preset, tc_error *err) {
    if (preset != TC_PRESET_BERT_UNCASED && preset != TC_PRESET_BERT_CASED) {
        tc_error_set(err, TC_ERR_ARG, "vocab.txt: a WordPiece vocabulary takes the preset bert-uncased or bert-cased");
        return NULL;
    }
    uint32_t *lines = NULL, nl = 0;
    if (split_lines(data, len, &lines, &nl, err) != TC_OK) return NULL;
    tc_tokenizer *tok = tc_tokenizer_new();
    if (!tok) { free(lines); tc_error_set(err, TC_ERR_NOMEM, "out of memory"); return NULL; }
    tc_model *m = &tok->model;
    m->kind = TC_MODEL_WORDPIECE;
    m->max_input_chars_per_word = 100;
    m->cont_prefix = malloc(3);
    if (!m->cont_prefix) { tc_error_set(err, TC_ERR_NOMEM, "out of memory"); goto fail; }
    memcpy(m->cont_prefix, "##", 3);
    m->cont_prefix_len = 2;
    if (tc_vocab_init(&m->vocab, nl) != 0) { tc_error_set(err, TC_ERR_NOMEM, "out of memory"); goto fail; }
    for (uint32_t i = 0; i < nl; i++) {
        if (tc_vocab_set(&m->vocab, i, data + lines[2 * i], lines[2 * i + 1], TC_BYTES_RAW, err) != TC_OK) goto fail;
        if (lines[2 * i + 1] > m->max_key_len) m->max_key_len = lines[2 * i + 1];
    }
    free(lines);
    lines = NULL;
    if (tc_vocab_build_index(&m->vocab, err) != TC_OK || drop_earlier_duplicates(&m->vocab, err) != TC_OK) goto fail;
    tc_wordpiece_set_bytes(m);
    m->unk_id = tc_vocab_find(&m->vocab, (const uint8_t *)"[UNK]", 5);
    if (m->unk_id < 0) {
        tc_error_set(err, TC_ERR_FORMAT, "vocab.txt: no line is \"[UNK]\", the WordPiece unk token (a word that does not split into pieces would have no id; HF: \"Missing [UNK] token from the vocabulary\")");
        goto fail;
    }
    if (setup_pipeline(tok, preset == TC_PRESET_BERT_UNCASED, err) != TC_OK) goto fail;
    if (tc_model_init_bytes(tok, err) != TC_OK) goto fail;
    for (size_t k = 0; k < sizeof BERT_SPECIALS / sizeof *BERT_SPECIALS; k++) {
        const char *s = BERT_SPECIALS[k];
        int64_t id = tc_vocab_find(&m->vocab, (const uint8_t *)s, strlen(s));
        if (id < 0) continue;
        tc_added_token_spec sp;
        memset(&sp, 0, sizeof sp);
        sp.content = s; sp.content_len = strlen(s); sp.id = (uint32_t)id; sp.special = 1;
        if (tc_add_tokens(tok, &sp, 1, err) != TC_OK) goto fail;
    }
    if (tc_tokenizer_finish(tok, err) != TC_OK) goto fail;
    tc_describe_update(tok, preset == TC_PRESET_BERT_UNCASED ? "vocab.txt (bert-uncased)" : "vocab.txt (bert-cased)");
    return tok;
fail:
    free(lines);
    tc_free(tok);
    return NULL;
}
