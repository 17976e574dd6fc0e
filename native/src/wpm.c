/* wpm.c - llama.cpp's WPM tokenizer, the one GGUF "bert" vocabularies get
 * (llm_tokenizer_wpm_session in src/llama-vocab.cpp of the llama.cpp
 * vendored by llama-cpp-python 0.3.36; each rule below cites it).
 *
 * Does: preprocess (its own split, not HF's BertNormalizer/BertPreTokenizer):
 * the fragment's code points as unicode_cpts_from_utf8 decodes them (a bad
 * byte is U+FFFD, overlong forms and surrogates decode as they come); with
 * strip_accents each code point becomes the first code point of its NFD
 * (unicode_cpts_normalize_nfd: one code point in, one out); White_Space ends
 * a word; U+0000, U+FFFD and controls (Cc Cf Co Cs) are dropped; with
 * strip_accents marks (M*) are dropped; punctuation (P*), ASCII symbols and
 * CJK ideographs (is_chinese_char) are words of one char; the kept code
 * point is lowercased (simple mapping) when lowercase is on. Classes come
 * from llama.cpp's tables, not the engine's (llama_unicode_data.h).
 * Then tokenize: each word gets U+2581 in front ("phantom space") and is
 * matched longest first, byte by byte: at byte i the lengths from
 * max_token_len + 1 down to 1; a position where nothing matches discards
 * the word's tokens, and a word without tokens is the unk token.
 * Offsets: a token spans the original chars its bytes came from; the
 * U+2581 prefix belongs to the word's first char.
 * Does not: trace (no step records), or anything for text between special
 * tokens (the pipeline partitions it first). Differences kept on purpose: a
 * code point above U+10FFFF (from a 4-byte form past the range) is dropped,
 * where llama.cpp's unicode_cpt_to_utf8 throws; a vocabulary without an unk
 * token drops an unknown word, where llama.cpp emits the id -1.
 */
#include "wpm.h"
#include "llama_unicode_data.h"

#define WPM_PREFIX "\xe2\x96\x81"   /* U+2581, "prepend phantom space" */
#define WPM_PREFIX_LEN 3u
#define WPM_WS 0x100u

uint32_t tc_llama_cpt_flags(uint32_t cp) {
    if (cp >= 0x110000) return TC_LU_UNDEFINED;   /* unicode_cpt_flags_from_cpt: undef past the table */
    size_t lo = 0, hi = sizeof TC_LU_RANGES / sizeof TC_LU_RANGES[0];
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (TC_LU_RANGES[mid][0] <= cp) lo = mid; else hi = mid;
    }
    uint32_t f = TC_LU_RANGES[lo][1];
    for (size_t i = 0; i < sizeof TC_LU_WHITESPACE / sizeof TC_LU_WHITESPACE[0]; i++)
        if (TC_LU_WHITESPACE[i] == cp) return f | WPM_WS;
    return f;
}

/* unicode_tolower: the pair's mapping, else the code point itself */
uint32_t tc_llama_tolower(uint32_t cp) {
    size_t lo = 0, hi = sizeof TC_LU_LOWER / sizeof TC_LU_LOWER[0];
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (TC_LU_LOWER[mid][0] < cp) lo = mid + 1; else hi = mid;
    }
    return lo < sizeof TC_LU_LOWER / sizeof TC_LU_LOWER[0] && TC_LU_LOWER[lo][0] == cp ? TC_LU_LOWER[lo][1] : cp;
}

/* unicode_cpts_normalize_nfd: the range holding cp gives its replacement */
uint32_t tc_llama_nfd(uint32_t cp) {
    size_t n = sizeof TC_LU_NFD / sizeof TC_LU_NFD[0], lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (TC_LU_NFD[mid][0] <= cp) lo = mid + 1; else hi = mid;
    }
    return lo > 0 && cp <= TC_LU_NFD[lo - 1][1] ? TC_LU_NFD[lo - 1][2] : cp;
}

/* llm_tokenizer_wpm_session::is_chinese_char (0x2B920: "in hf rust code it is 0x2B920") */
static int is_chinese_char(uint32_t c) {
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
           (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
           (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

/* unicode_cpt_from_utf8 as unicode_cpts_from_utf8 calls it: the lead byte's
 * high bits give the length, continuation bytes are checked, nothing else
 * (no overlong or surrogate check); a failure is U+FFFD for one byte. */
static uint32_t llama_decode(const uint8_t *s, size_t len, size_t i, size_t *k) {
    uint8_t b = s[i];
    *k = 1;
    if (!(b & 0x80)) return b;
    if (!(b & 0x40)) return 0xFFFD;
    size_t need = !(b & 0x20) ? 2 : !(b & 0x10) ? 3 : !(b & 0x08) ? 4 : 0;
    if (need == 0 || i + need - 1 >= len) return 0xFFFD;
    uint32_t cp = b & (0x7Fu >> need);
    for (size_t j = 1; j < need; j++) {
        if ((s[i + j] & 0xC0) != 0x80) return 0xFFFD;
        cp = (cp << 6) | (s[i + j] & 0x3Fu);
    }
    *k = need;
    return cp;
}

/* The current word: its bytes ("\u2581" + chars) in sc->tmp; per char, in
 * sc->syms: id = the char's offset in sc->tmp, start/len = its bytes in the
 * chunk. */
static int word_push(tc_bpe_scratch *sc, size_t *n, uint32_t cp, size_t at, size_t k) {
    if (*n == sc->syms_cap) {
        void *p = sc->syms;
        if (tc_grow(&p, &sc->syms_cap, *n + 1, sizeof *sc->syms) != 0) return -1;
        sc->syms = p;
    }
    tc_sym *s = &sc->syms[(*n)++];
    s->id = (uint32_t)sc->tmp.len; s->start = (uint32_t)at; s->len = (uint32_t)k;
    uint8_t u[4];
    int ul = tc_utf8_encode(cp, u);
    return tc_buf_append(&sc->tmp, u, (size_t)ul);
}

/* The char holding word byte b (the prefix belongs to char 0), from *cur on. */
static size_t char_at(const tc_bpe_scratch *sc, size_t nchars, size_t *cur, size_t b) {
    while (*cur + 1 < nchars && sc->syms[*cur + 1].id <= b) (*cur)++;
    return *cur;
}

/* llm_tokenizer_wpm_session::tokenize for one word: longest match from each byte. */
static int word_tokens(const tc_model *m, tc_bpe_scratch *sc, size_t nchars) {
    const uint8_t *w = sc->tmp.data;
    size_t n = sc->tmp.len, first = sc->nout, cur = 0;
    for (size_t i = 0; i < n; i++) {
        size_t hi = i + m->max_key_len + 1 < n ? i + m->max_key_len + 1 : n, j = hi;
        int64_t id = -1;
        for (; j > i; j--)
            if ((id = tc_vocab_find(&m->vocab, w + i, j - i)) >= 0) break;
        if (id < 0) {                 /* "discard all": the word is the unk token */
            sc->nout = first;
            break;
        }
        const tc_sym *a = &sc->syms[char_at(sc, nchars, &cur, i)];
        size_t c2 = cur;
        const tc_sym *z = &sc->syms[char_at(sc, nchars, &c2, j - 1)];
        uint32_t s = a->start, e = j - 1 < WPM_PREFIX_LEN ? a->start : z->start + z->len;
        if (tc_bpe_out_push(sc, (uint32_t)id, s, e) != 0) return -1;
        i = j - 1;
    }
    if (sc->nout == first && m->unk_id >= 0) {
        const tc_sym *z = &sc->syms[nchars - 1];
        if (tc_bpe_out_push(sc, (uint32_t)m->unk_id, sc->syms[0].start, z->start + z->len) != 0) return -1;
    }
    return 0;
}

/* Ends the current word (if any) and starts the next. */
static int word_end(const tc_model *m, tc_bpe_scratch *sc, size_t *nchars) {
    int rc = *nchars ? word_tokens(m, sc, *nchars) : 0;
    *nchars = 0;
    sc->tmp.len = 0;
    return rc | tc_buf_append(&sc->tmp, WPM_PREFIX, WPM_PREFIX_LEN);
}

/* llm_tokenizer_wpm_session::preprocess, each word tokenized as it ends. */
int tc_wpm_chunk(const tc_tokenizer *tok, tc_bpe_scratch *sc, const uint8_t *chunk, size_t len) {
    const tc_model *m = &tok->model;
    size_t nchars = 0;
    sc->nout = 0;
    sc->tmp.len = 0;
    if (tc_buf_append(&sc->tmp, WPM_PREFIX, WPM_PREFIX_LEN) != 0) return -1;
    for (size_t i = 0; i < len;) {
        size_t k, at = i;
        uint32_t cp = llama_decode(chunk, len, i, &k);
        i += k;
        if (m->wpm_strip_accents) cp = tc_llama_nfd(cp);
        uint32_t f = tc_llama_cpt_flags(cp);
        if (f & WPM_WS) {
            if (word_end(m, sc, &nchars) != 0) return -1;
            continue;
        }
        if (cp == 0 || cp == 0xFFFD || (f & TC_LU_CONTROL)) continue;
        if (m->wpm_strip_accents && (f & TC_LU_MARK)) continue;
        uint32_t out = m->wpm_lowercase ? tc_llama_tolower(cp) : cp;
        if (out > 0x10FFFF) continue;   /* see "Differences kept on purpose" */
        int single = (f & TC_LU_PUNCT) || (cp < 0x7F && (f & TC_LU_SYMBOL)) || is_chinese_char(cp);
        if (single && nchars && word_end(m, sc, &nchars) != 0) return -1;
        if (word_push(sc, &nchars, out, at, k) != 0) return -1;
        if (single && word_end(m, sc, &nchars) != 0) return -1;
    }
    return word_end(m, sc, &nchars);
}
