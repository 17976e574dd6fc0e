/* normalize.h - HF `tokenizers` normalizers with exact alignments.
 *
 * Does: NFC, NFD, NFKC, NFKD, Lowercase, Prepend, Replace (literal or
 * regex pattern), Strip, Precompiled on a UTF-8 string that carries an
 * alignment for each of its bytes (the original byte span of the character
 * it came from), reproducing HF NormalizedString::transform semantics: the
 * (char, change) stream of `unicode-normalization-alignments` / per-char
 * lowercase, then the alignment rule of transform_range.
 * Prepend, Replace and Strip follow NormalizedString::prepend / replace /
 * lrstrip (see normalize.c).
 * Precompiled follows HF's Precompiled::normalize over extended grapheme
 * clusters (see normalize.c).
 * Does not: parse JSON (the loader builds tc_normalizer), or allocate
 * anything global.
 */
#ifndef TC_NORMALIZE_H
#define TC_NORMALIZE_H

#include "common.h"

typedef enum tc_norm_kind {
    TC_NORM_NFC, TC_NORM_NFD, TC_NORM_NFKC, TC_NORM_NFKD, TC_NORM_LOWERCASE,
    TC_NORM_PREPEND, TC_NORM_REPLACE, TC_NORM_STRIP,
    /* normalize_bert.c */
    TC_NORM_BERT_CLEAN,      /* BertNormalizer clean_text: controls removed, whitespace -> ' ' */
    TC_NORM_BERT_CHINESE,    /* BertNormalizer handle_chinese_chars: ' ' around each CJK ideograph */
    TC_NORM_BERT_ACCENTS,    /* BertNormalizer strip_accents (after NFD): non-spacing marks removed */
    TC_NORM_STRIP_ACCENTS,   /* StripAccents: combining marks removed */
    TC_NORM_NMT,             /* Nmt: some controls removed, some spaces -> ' ' */
    TC_NORM_BYTELEVEL,       /* ByteLevel: each byte as its GPT-2 byte-level char */
    TC_NORM_PRECOMPILED       /* SentencePiece's compiled charsmap (precompiled.h) */
} tc_norm_kind;

struct tc_regex;
struct tc_precompiled;

/* Data of the steps that have some (Prepend, Replace, Strip); owned by the
 * normalizer, freed by tc_normalizer_free. */
typedef struct tc_norm_param {
    char *str; size_t str_len;      /* Prepend: the prefix; Replace: the content */
    char *pat; size_t pat_len;      /* Replace with a String pattern (non-empty) */
    struct tc_regex *re;            /* Replace with a Regex pattern */
    int left, right;                /* Strip */
    struct tc_precompiled *pc;      /* Precompiled */
} tc_norm_param;

/* A normalizer is a sequence of steps (a single normalizer = 1 step). */
#define TC_NORM_MAX_STEPS 16
typedef struct tc_normalizer {
    int nsteps;
    tc_norm_kind steps[TC_NORM_MAX_STEPS];
    tc_norm_param params[TC_NORM_MAX_STEPS];   /* zero for steps without data */
} tc_normalizer;

void tc_normalizer_free(tc_normalizer *n);

/* Appends a Precompiled step built from a SentencePiece precompiled_charsmap
 * blob (precompiled.h checks it; the error names the blob offset and the
 * reason). For loaders of SentencePiece .model files and tokenizer.json. */
int tc_normalizer_add_precompiled(tc_normalizer *n, const uint8_t *blob, size_t len, tc_error *err);

/* A string being normalized. `align` has one span per byte of `text`
 * (HF's `alignments`): the original span of the character that byte came
 * from. align == NULL means "identity": text is the original, and each
 * byte aligns to the span of the UTF-8 unit containing it (an invalid byte
 * is a unit of its own). */
typedef struct tc_nstr {
    tc_buf text;
    tc_span *align;     /* NULL or text.len entries */
    size_t align_cap;
} tc_nstr;

/* Returns 1 if applying n to text can be skipped because it provably
 * changes nothing (fast path, e.g. ASCII or NFC quick-check Yes for NFC). */
int tc_normalize_is_noop(const tc_normalizer *n, const uint8_t *text, size_t len);

/* Normalizes s in place. `base` is the original-text offset of s's first
 * byte, used only when s->align is NULL (identity) and an alignment must be
 * materialized. Returns 0, or -1 on allocation failure. Invalid UTF-8
 * bytes pass through every step unchanged with their alignment. */
int tc_normalize(const tc_normalizer *n, tc_nstr *s, uint32_t base);

/* The same for one Prepend step (used by the Metaspace pre-tokenizer). */
int tc_nstr_prepend(tc_nstr *s, const char *pre, size_t pre_len, uint32_t base);
/* Replaces every non-overlapping occurrence of a literal (Metaspace). */
int tc_nstr_replace_literal(tc_nstr *s, const char *pat, size_t pat_len, const char *content,
                            size_t content_len, uint32_t base);

void tc_nstr_free(tc_nstr *s);

/* normalize_bert.c: the per-character filters and maps of BertNormalizer,
 * StripAccents and Nmt (kind is one of TC_NORM_BERT_CLEAN..TC_NORM_NMT). */
int tc_norm_char_is_noop(tc_norm_kind kind, const uint8_t *t, size_t len);
int tc_norm_char_apply(tc_norm_kind kind, tc_nstr *s, uint32_t base);
/* The classes HF takes from unicode_categories 0.1.1 (bert_tables.h). */
int tc_bert_is_punct(uint32_t cp);

#endif
