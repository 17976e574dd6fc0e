/* normalize_bert.c - the per-character normalizers: BertNormalizer's
 * clean_text, handle_chinese_chars and strip_accents, StripAccents, Nmt, with HF
 * `tokenizers` 0.23.3 alignments.
 *
 * HF writes them with NormalizedString::filter, ::map and ::transform
 * (tokenizers/src/tokenizer/normalizer.rs); through transform_range their
 * alignment rules reduce to:
 *  - filter(keep): a kept char keeps its alignment, a removed one vanishes
 *    (filter gives the removed chars to the previous kept char as a
 *    negative change, which only moves the cursor past them);
 *  - map(f): the new char takes the old char's alignment;
 *  - handle_chinese_chars: [(' ', 0), (c, 1), (' ', 1)] for an ideograph:
 *    the first space consumes c and takes its alignment, c and the second
 *    space take the alignment of the byte before the cursor, c's last: all
 *    three align to c (checked against tokenizers 0.23.3 in
 *    tests/test_wordpiece.py).
 * Does not: NFD (BertNormalizer's strip_accents runs normalize.c's NFD
 * first), lowercase (normalize.c).
 */
#include "normalize.h"

#include "bert_tables.h"
#include "engine.h"
#include "unicode.h"

static int in_ranges(const tc_cp_range *r, size_t n, uint32_t cp) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (cp < r[mid].lo) hi = mid;
        else if (cp > r[mid].hi) lo = mid + 1;
        else return 1;
    }
    return 0;
}
#define IN(tab, cp) in_ranges(tab, sizeof tab / sizeof *tab, cp)

int tc_bert_is_punct(uint32_t cp) { return cp < TC_CP_INVALID_BASE && IN(TC_BERT_PUNCT, cp); }

/* tokenizers/src/normalizers/bert.rs is_chinese_char (0.23.3) */
static int is_chinese_char(uint32_t c) {
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
           (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
           (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

/* What a step does with one char: 0 keep, 1 remove, 2 replace by ' ',
 * 3 surround with spaces, 4 each byte as its byte-level char. */
static int char_action(tc_norm_kind kind, uint32_t cp) {
    if (cp >= TC_CP_INVALID_BASE) return 0;   /* an invalid byte passes through */
    switch (kind) {
    case TC_NORM_BERT_CLEAN:
        /* bert.rs do_clean_text: filter !(c == 0 || c == 0xFFFD || is_control(c)),
         * then map is_whitespace(c) -> ' '; \t \n \r are whitespace, not control */
        if (cp == '\t' || cp == '\n' || cp == '\r') return 2;
        if (cp == 0 || cp == 0xFFFD || IN(TC_BERT_OTHER, cp)) return 1;
        if (cp != ' ' && tc_unicode_is_space(cp)) return 2;
        return 0;
    case TC_NORM_BERT_CHINESE:
        return is_chinese_char(cp) ? 3 : 0;
    case TC_NORM_BERT_ACCENTS:
        /* bert.rs do_strip_accents: nfd(), then filter !c.is_mark_nonspacing() */
        return IN(TC_BERT_MARK, cp) ? 1 : 0;
    case TC_NORM_STRIP_ACCENTS:
        /* normalizers/strip.rs StripAccents: filter !is_combining_mark(c) */
        return IN(TC_COMBINING_MARK, cp) ? 1 : 0;
    case TC_NORM_NMT:
        /* normalizers/unicode.rs do_nmt: filter the ASCII/C1 controls below,
         * then map these code points to ' ' */
        if ((cp >= 0x01 && cp <= 0x08) || cp == 0x0B || (cp >= 0x0E && cp <= 0x1F) || cp == 0x7F || cp == 0x8F ||
            cp == 0x9F)
            return 1;
        if (cp == 0x09 || cp == 0x0A || cp == 0x0C || cp == 0x0D || cp == 0x1680 || (cp >= 0x200B && cp <= 0x200F) ||
            cp == 0x2028 || cp == 0x2029 || cp == 0x2581 || cp == 0xFEFF || cp == 0xFFFD)
            return 2;
        return 0;
    case TC_NORM_BYTELEVEL:
        return 4;
    default:
        return 0;
    }
}

int tc_norm_char_is_noop(tc_norm_kind kind, const uint8_t *t, size_t len) {
    for (size_t i = 0; i < len;) {
        int ul = 1;
        uint32_t cp = t[i] < 0x80 ? t[i] : tc_utf8_decode(t, len, i, &ul);
        if (char_action(kind, cp) != 0) return 0;
        i += (size_t)ul;
    }
    return 1;
}

static tc_span align_at(const tc_nstr *s, uint32_t base, size_t i, size_t ul) {
    if (s->align) return s->align[i];
    tc_span sp = {base + (uint32_t)i, base + (uint32_t)(i + ul)};
    return sp;
}

int tc_norm_char_apply(tc_norm_kind kind, tc_nstr *s, uint32_t base) {
    const uint8_t *t = s->text.data;
    size_t len = s->text.len, out_len = 0;
    for (size_t i = 0; i < len;) {
        int ul = 1;
        uint32_t cp = t[i] < 0x80 ? t[i] : tc_utf8_decode(t, len, i, &ul);
        int a = char_action(kind, cp);
        if (a == 4) {
            uint8_t tmp[4];
            for (int k = 0; k < ul; k++) out_len += (size_t)tc_utf8_encode(tc_byte_to_cp(t[i + (size_t)k]), tmp);
        } else {
            out_len += a == 0 ? (size_t)ul : a == 1 ? 0 : a == 2 ? 1 : (size_t)ul + 2;
        }
        i += (size_t)ul;
    }
    tc_buf nt = {0, 0, 0};
    if (tc_buf_reserve(&nt, out_len ? out_len : 1) != 0) return -1;
    size_t na_cap = 0;
    void *p = NULL;
    if (tc_grow(&p, &na_cap, out_len ? out_len : 1, sizeof(tc_span)) != 0) { tc_buf_free(&nt); return -1; }
    tc_span *na = p;
    for (size_t i = 0; i < len;) {
        int ul = 1;
        uint32_t cp = t[i] < 0x80 ? t[i] : tc_utf8_decode(t, len, i, &ul);
        int a = char_action(kind, cp);
        tc_span al = align_at(s, base, i, (size_t)ul);
        if (a == 1) { i += (size_t)ul; continue; }
        if (a == 4) {
            /* normalizers/byte_level.rs: (BYTES_CHAR[b], i > 0) per byte of
             * the char: every new char aligns to the old char */
            for (int k = 0; k < ul; k++) {
                int nb = tc_utf8_encode(tc_byte_to_cp(t[i + (size_t)k]), nt.data + nt.len);
                for (int q = 0; q < nb; q++) na[nt.len++] = al;
            }
            i += (size_t)ul;
            continue;
        }
        if (a == 3) { nt.data[nt.len] = ' '; na[nt.len++] = al; }
        if (a == 2) {
            nt.data[nt.len] = ' ';
            na[nt.len++] = al;
        } else {
            for (int k = 0; k < ul; k++) { nt.data[nt.len] = t[i + (size_t)k]; na[nt.len++] = s->align ? s->align[i + (size_t)k] : al; }
        }
        if (a == 3) { nt.data[nt.len] = ' '; na[nt.len++] = al; }
        i += (size_t)ul;
    }
    tc_buf_free(&s->text);
    free(s->align);
    s->text = nt;
    s->align = na;
    s->align_cap = na_cap;
    return 0;
}
