/* pretok.c - pre-tokenizers with HF `tokenizers` semantics.
 *
 * Does: Split (regex or literal; behaviors removed, isolated,
 * merged_with_previous, merged_with_next, contiguous; invert), ByteLevel
 * (add_prefix_space, use_regex with the GPT-2 pattern), Digits
 * (char::is_numeric, individual or contiguous), applied in sequence; each
 * works on the chunks the previous one produced, and empty chunks are
 * dropped, as PreTokenizedString::split does.
 * Metaspace (its split on the replacement, MergedWithNext; the text edit -
 * spaces replaced, the replacement prepended - is done by pipeline.c before
 * the pre-tokenizers run, which is why it must come first), WhitespaceSplit
 * (char::is_whitespace, removed), Whitespace (\w+|[^\w\s]+ kept, the rest
 * removed, with the Rust regex crate's Unicode classes).
 * Does not: run after ByteLevel (the loader refuses a pre-tokenizer after
 * ByteLevel, since it would see mapped characters).
 */
#include "pretok.h"
#include "unicode.h"

void tc_pretok_scratch_free(tc_pretok_scratch *sc) {
    free(sc->a.v);
    free(sc->b.v);
    free(sc->matches);
    tc_buf_free(&sc->tmp);
    memset(sc, 0, sizeof *sc);
}

static int piece_push(tc_piece_list *l, uint32_t start, uint32_t end, uint8_t prefix) {
    if (end == start && !prefix) return 0;     /* empty chunks are dropped */
    if (l->n == l->cap) {
        void *p = l->v;
        if (tc_grow(&p, &l->cap, l->n + 1, sizeof *l->v) != 0) return -1;
        l->v = p;
    }
    l->v[l->n].start = start;
    l->v[l->n].end = end;
    l->v[l->n].prefix_space = prefix;
    l->n++;
    return 0;
}

static int match_push(tc_pretok_scratch *sc, size_t s, size_t e) {
    if (sc->nmatches + 2 > sc->matches_cap) {
        void *p = sc->matches;
        if (tc_grow(&p, &sc->matches_cap, sc->nmatches + 2, sizeof *sc->matches) != 0) return -1;
        sc->matches = p;
    }
    sc->matches[sc->nmatches++] = s;
    sc->matches[sc->nmatches++] = e;
    return 0;
}

/* Matches of a literal (str::match_indices: non-overlapping, left to right). */
static int literal_find_all(tc_pretok_scratch *sc, const char *lit, size_t llen, const uint8_t *s, size_t len) {
    if (llen == 0) return 0;
    for (size_t i = 0; i + llen <= len;) {
        if (memcmp(s + i, lit, llen) == 0) {
            if (match_push(sc, i, i + llen) != 0) return -1;
            i += llen;
        } else {
            i++;
        }
    }
    return 0;
}

/* Matches of char::is_numeric, one per character. */
static int numeric_find_all(tc_pretok_scratch *sc, const uint8_t *s, size_t len) {
    for (size_t i = 0; i < len;) {
        int n;
        uint32_t cp = tc_utf8_decode(s, len, i, &n);
        if (TC_GCM(tc_unicode_gc(cp)) & TC_GCM_N) {
            if (match_push(sc, i, i + (size_t)n) != 0) return -1;
        }
        i += (size_t)n;
    }
    return 0;
}

/* Turns the match list of one chunk into chunks, per behavior (HF
 * NormalizedString::split). base is the chunk's start in the segment. */
static int apply_behavior(tc_pretok_scratch *sc, tc_piece_list *out, uint32_t base, size_t len,
                          tc_split_behavior beh, int invert) {
    size_t nm = sc->nmatches / 2;
    if ((beh == TC_SPLIT_ISOLATED || beh == TC_SPLIT_REMOVED) && len > 0) {
        /* no fold: each gap and each match is a chunk of its own in order (a
         * removed side is skipped), so the chunks go straight to the list;
         * the general path below built two arrays per call for the same
         * result (malloc'd afresh: page faults on every long text) */
        int keep_match = beh == TC_SPLIT_ISOLATED || invert, keep_gap = beh == TC_SPLIT_ISOLATED || !invert;
        size_t prev = 0;
        for (size_t k = 0; k < nm; k++) {
            size_t ms = sc->matches[2 * k], me = sc->matches[2 * k + 1];
            if (keep_gap && prev != ms && piece_push(out, base + (uint32_t)prev, base + (uint32_t)ms, 0) != 0) return -1;
            if (keep_match && piece_push(out, base + (uint32_t)ms, base + (uint32_t)me, 0) != 0) return -1;
            prev = me;
        }
        if (keep_gap && prev != len && piece_push(out, base + (uint32_t)prev, base + (uint32_t)len, 0) != 0) return -1;
        return 0;
    }
    /* 1. the (range, is_match) sequence covering the chunk */
    /* worst case 2*nm+1 segments; build them in a small local loop */
    typedef struct { size_t s, e; int m; } seg;
    seg *segs = NULL;
    size_t nsegs = 0, cap = 0;
    size_t prev = 0;
    for (size_t k = 0; k <= nm; k++) {
        size_t ms = k < nm ? sc->matches[2 * k] : len;
        size_t me = k < nm ? sc->matches[2 * k + 1] : len;
        void *p = segs;
        if (tc_grow(&p, &cap, nsegs + 2, sizeof *segs) != 0) { free(segs); return -1; }
        segs = p;
        if (prev != ms) segs[nsegs++] = (seg){prev, ms, invert ? 1 : 0};
        if (k < nm) segs[nsegs++] = (seg){ms, me, invert ? 0 : 1};
        prev = me;
    }
    if (len == 0) {
        free(segs);
        return 0; /* an empty chunk yields only an empty split, dropped */
    }
    /* 2. behaviors, folding as HF does; empty ranges take part in the fold
     * and are dropped only at the end */
    typedef struct { size_t s, e; } rng;
    rng *res = malloc((nsegs ? nsegs : 1) * sizeof *res);
    if (!res) { free(segs); return -1; }
    size_t nres = 0;
    int rc = 0;
    if (beh == TC_SPLIT_ISOLATED || beh == TC_SPLIT_REMOVED) {
        for (size_t i = 0; i < nsegs; i++) {
            if (beh == TC_SPLIT_REMOVED && segs[i].m) continue;
            res[nres++] = (rng){segs[i].s, segs[i].e};
        }
    } else if (beh == TC_SPLIT_CONTIGUOUS || beh == TC_SPLIT_MERGED_PREV) {
        int previous_match = 0;
        for (size_t i = 0; i < nsegs; i++) {
            int merge = beh == TC_SPLIT_CONTIGUOUS ? (segs[i].m == previous_match)
                                                   : (segs[i].m && !previous_match);
            if (merge && nres > 0) res[nres - 1].e = segs[i].e;
            else res[nres++] = (rng){segs[i].s, segs[i].e};
            previous_match = segs[i].m;
        }
    } else { /* MERGED_NEXT: fold from the right, then reverse */
        int previous_match = 0;
        for (size_t i = nsegs; i-- > 0;) {
            if (segs[i].m && !previous_match && nres > 0) res[nres - 1].s = segs[i].s;
            else res[nres++] = (rng){segs[i].s, segs[i].e};
            previous_match = segs[i].m;
        }
        for (size_t i = 0, j = nres; i + 1 < j; i++, j--) {
            rng t = res[i]; res[i] = res[j - 1]; res[j - 1] = t;
        }
    }
    for (size_t i = 0; i < nres && rc == 0; i++)
        rc = piece_push(out, base + (uint32_t)res[i].s, base + (uint32_t)res[i].e, 0);
    free(res);
    free(segs);
    return rc;
}

/* Matches of char::is_whitespace, one per character. */
static int space_find_all(tc_pretok_scratch *sc, const uint8_t *s, size_t len) {
    for (size_t i = 0; i < len;) {
        int n;
        uint32_t cp = tc_utf8_decode(s, len, i, &n);
        if (cp < TC_CP_INVALID_BASE && tc_unicode_is_space(cp) && match_push(sc, i, i + (size_t)n) != 0) return -1;
        i += (size_t)n;
    }
    return 0;
}

/* Rust regex's \w: Alphabetic, marks, Nd, Pc, Join_Control. Alphabetic is
 * taken from is_alnum (Alphabetic or Numeric) minus the numeric-only
 * categories Nd and No (Nd is added back just below). */
static int rust_word(uint32_t cp) {
    if (cp >= TC_CP_INVALID_BASE) return 0;
    if (cp < 0x80) return (cp >= '0' && cp <= '9') || (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || cp == '_';
    uint32_t m = TC_GCM(tc_unicode_gc(cp));
    if (m & (TC_GCM(TC_GC_Nd) | TC_GCM(TC_GC_Mn) | TC_GCM(TC_GC_Mc) | TC_GCM(TC_GC_Me) | TC_GCM(TC_GC_Pc))) return 1;
    if (cp == 0x200C || cp == 0x200D) return 1;
    return tc_unicode_is_alnum(cp) && !(m & TC_GCM(TC_GC_No));
}

/* Whitespace: the matches of \w+|[^\w\s]+ (runs of word chars, runs of
 * other non-space chars); an invalid byte counts as a non-space non-word. */
static int wordpunct_find_all(tc_pretok_scratch *sc, const uint8_t *s, size_t len) {
    size_t i = 0;
    while (i < len) {
        int n;
        uint32_t cp = tc_utf8_decode(s, len, i, &n);
        if (cp < TC_CP_INVALID_BASE && tc_unicode_is_space(cp)) { i += (size_t)n; continue; }
        int w = rust_word(cp);
        size_t st = i;
        i += (size_t)n;
        while (i < len) {
            cp = tc_utf8_decode(s, len, i, &n);
            if ((cp < TC_CP_INVALID_BASE && tc_unicode_is_space(cp)) || rust_word(cp) != w) break;
            i += (size_t)n;
        }
        if (match_push(sc, st, i) != 0) return -1;
    }
    return 0;
}

/* Punctuation / BertPreTokenizer: every char with char::is_ascii_punctuation
 * or unicode_categories' is_punctuation (tokenizers/src/pre_tokenizers/
 * punctuation.rs is_punc, bert.rs is_bert_punc; 0.23.3) is a match. */
static int punct_find_all(tc_pretok_scratch *sc, const uint8_t *s, size_t len) {
    for (size_t i = 0; i < len;) {
        int n;
        uint32_t cp = tc_utf8_decode(s, len, i, &n);
        if (tc_bert_is_punct(cp) && match_push(sc, i, i + (size_t)n) != 0) return -1;
        i += (size_t)n;
    }
    return 0;
}

/* UnicodeScripts as HF tokenizers 0.23.3 (pre_tokenizers/unicode_scripts/
 * pre_tokenizer.rs, UnicodeScripts::pre_tokenize): a split point before each
 * character whose script (tc_unicode_script_hf) is not Any and differs from
 * the last non-Any script seen (none at the start, so the first non-Any
 * character always starts one); the pieces are the windows between split
 * points and the end. Any characters (spaces, unlisted code points) join the
 * run they are in; those before the first split point belong to no window,
 * so HF drops them (as it does a text of spaces only): the matches are the
 * windows and the caller removes the rest. */
static int scripts_find_all(tc_pretok_scratch *sc, const uint8_t *s, size_t len) {
    int last = -1; /* no script seen yet */
    size_t seg = 0;
    int open = 0;
    for (size_t i = 0; i < len;) {
        int n;
        uint32_t cp = tc_utf8_decode(s, len, i, &n);
        int sc_id = tc_unicode_script_hf(cp);
        if (sc_id != 0 && sc_id != last) {
            if (open && match_push(sc, seg, i) != 0) return -1;
            seg = i;
            open = 1;
        }
        if (sc_id != 0) last = sc_id;
        i += (size_t)n;
    }
    if (open && match_push(sc, seg, len) != 0) return -1;
    return 0;
}

static int find_all(const tc_pretok *pt, tc_pretok_scratch *sc, const uint8_t *s, size_t len) {
    sc->nmatches = 0;
    switch (pt->kind) {
    case TC_PT_METASPACE:
        return pt->ms_split ? literal_find_all(sc, pt->replacement, pt->replacement_len, s, len) : 0;
    case TC_PT_WHITESPACE_SPLIT:
        return space_find_all(sc, s, len);
    case TC_PT_WHITESPACE:
        return wordpunct_find_all(sc, s, len);
    case TC_PT_PUNCT:
        return punct_find_all(sc, s, len);
    case TC_PT_UNICODE_SCRIPTS:
        return scripts_find_all(sc, s, len);
    case TC_PT_SPLIT_STRING:
        return literal_find_all(sc, pt->literal, pt->literal_len, s, len);
    case TC_PT_DIGITS:
        return numeric_find_all(sc, s, len);
    default:
        if (pt->fast != TC_FAST_NONE) return tc_fast_find_all(pt->fast, s, len, &sc->matches, &sc->nmatches, &sc->matches_cap) == 0 ? 0 : -1;
        {
            size_t n = 0;
            int r = tc_regex_find_all(pt->re, s, len, &sc->matches, &n, &sc->matches_cap);
            sc->nmatches = 2 * n;
            return r;
        }
    }
}

/* ByteLevel: optional prefix space, optional GPT-2 split (on " " + chunk
 * when a prefix was added), then each chunk goes to the model. */
static int bytelevel_step(const tc_pretok *pt, tc_pretok_scratch *sc, const uint8_t *text,
                          const tc_piece_list *in, tc_piece_list *out) {
    for (size_t i = 0; i < in->n; i++) {
        tc_piece pc = in->v[i];
        size_t len = pc.end - pc.start;
        int prefix = pt->add_prefix_space && !(len > 0 && text[pc.start] == ' ');
        if (prefix && len == 0) prefix = 0;    /* HF prepend does nothing on an empty string */
        if (!pt->use_regex) {
            if (piece_push(out, pc.start, pc.end, (uint8_t)prefix) != 0) return -1;
            continue;
        }
        const uint8_t *subj = text + pc.start;
        size_t slen = len;
        if (prefix) {
            sc->tmp.len = 0;
            if (tc_buf_push(&sc->tmp, ' ') != 0 || tc_buf_append(&sc->tmp, subj, len) != 0) return -1;
            subj = sc->tmp.data;
            slen = len + 1;
        }
        int r = find_all(pt, sc, subj, slen);
        if (r != 0) return r;
        size_t before = out->n;
        if (apply_behavior(sc, out, 0, slen, TC_SPLIT_ISOLATED, 0) != 0) return -1;
        for (size_t k = before; k < out->n; k++) {
            tc_piece *p = &out->v[k];
            if (prefix) {
                if (p->start == 0) { p->prefix_space = 1; p->end = p->end - 1; }
                else { p->start -= 1; p->end -= 1; }
            }
            p->start += pc.start;
            p->end += pc.start;
        }
    }
    return 0;
}

/* FixedLength (tokenizers/src/pre_tokenizers/fixed_length.rs, 0.23.3):
 * each piece in chunks of `length` chars, the last one shorter; an empty
 * piece gives none. */
static int fixed_length_step(const tc_pretok *pt, const uint8_t *text, const tc_piece_list *in, tc_piece_list *out) {
    for (size_t i = 0; i < in->n; i++) {
        tc_piece pc = in->v[i];
        uint32_t st = pc.start, k = 0;
        for (uint32_t j = pc.start; j < pc.end;) {
            int ul;
            (void)tc_utf8_decode(text, pc.end, j, &ul);
            j += (uint32_t)ul;
            if (++k == pt->length || j >= pc.end) {
                if (piece_push(out, st, j, 0) != 0) return -1;
                st = j;
                k = 0;
            }
        }
    }
    return 0;
}

/* Stages first.. of tok's pre-tokenizers over the chunks in sc->a. */
static int run_stages(const tc_tokenizer *tok, tc_pretok_scratch *sc, const uint8_t *text, int first,
                      tc_piece_list **result) {
    tc_piece_list *cur = &sc->a, *next = &sc->b;
    for (int s = first; s < tok->npretok; s++) {
        const tc_pretok *pt = &tok->pretok[s];
        /* ByteLevel without its regex or a prefix space (Qwen's, cl100k's second stage) keeps every
         * piece as it is: no copy of the list (every piece in it is non-empty: piece_push) */
        if (pt->kind == TC_PT_BYTELEVEL && !pt->use_regex && !pt->add_prefix_space) continue;
        next->n = 0;
        if (pt->kind == TC_PT_BYTELEVEL) {
            int r = bytelevel_step(pt, sc, text, cur, next);
            if (r != 0) return r;
        } else if (pt->kind == TC_PT_FIXED_LENGTH) {
            if (fixed_length_step(pt, text, cur, next) != 0) return -1;
        } else {
            for (size_t i = 0; i < cur->n; i++) {
                tc_piece pc = cur->v[i];
                int r = find_all(pt, sc, text + pc.start, pc.end - pc.start);
                if (r != 0) return r;
                tc_split_behavior beh;
                int invert = 0;
                switch (pt->kind) {
                case TC_PT_DIGITS: beh = pt->individual_digits ? TC_SPLIT_ISOLATED : TC_SPLIT_CONTIGUOUS; break;
                case TC_PT_METASPACE: beh = TC_SPLIT_MERGED_NEXT; break;
                case TC_PT_WHITESPACE_SPLIT: beh = TC_SPLIT_REMOVED; break;
                case TC_PT_WHITESPACE: beh = TC_SPLIT_REMOVED; invert = 1; break;
                case TC_PT_UNICODE_SCRIPTS: beh = TC_SPLIT_REMOVED; invert = 1; break;
                default: beh = pt->behavior; invert = pt->invert; break;
                }
                if (apply_behavior(sc, next, pc.start, pc.end - pc.start, beh, invert) != 0) return -1;
            }
        }
        tc_piece_list *t = cur; cur = next; next = t;
    }
    *result = cur;
    return 0;
}

int tc_pretokenize(const tc_tokenizer *tok, tc_pretok_scratch *sc, const uint8_t *text, size_t len,
                   tc_piece_list **result) {
    sc->a.n = 0;
    if (piece_push(&sc->a, 0, (uint32_t)len, 0) != 0) return -1;
    return run_stages(tok, sc, text, 0, result);
}

int tc_pretok_streams(const tc_tokenizer *tok) {
    if (tok->npretok < 1) return 0;
    const tc_pretok *pt = &tok->pretok[0];
    if (pt->fast == TC_FAST_NONE) return 0;
    /* Split: isolated keeps gaps and matches alike (the scanner leaves no gaps, invert or not) */
    if (pt->kind == TC_PT_SPLIT_REGEX) return pt->behavior == TC_SPLIT_ISOLATED;
    /* ByteLevel's own regex, when no prefix space is added (that one is per segment) */
    return pt->kind == TC_PT_BYTELEVEL && pt->use_regex && !pt->add_prefix_space;
}

int tc_pretokenize_next(const tc_tokenizer *tok, tc_pretok_scratch *sc, const uint8_t *text, size_t len,
                        size_t *pos, size_t block_matches, tc_piece_list **result) {
    const tc_pretok *pt = &tok->pretok[0];
    size_t next;
    /* the first stage's chunks are its matches, in order (contiguous, non-empty), written as pieces */
    sc->a.n = 0;
    if (tc_fast_find_pieces(pt->fast, text, len, *pos, block_matches, &sc->a.v, &sc->a.n, &sc->a.cap, &next) != 0)
        return -1;
    *pos = next;
    return run_stages(tok, sc, text, 1, result);
}
