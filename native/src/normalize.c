/* normalize.c - HF `tokenizers` normalizers with exact alignments.
 *
 * Each step turns the current text into a stream of (code point, change)
 * items, the same stream HF gets from unicode-normalization-alignments
 * (NFx) or from char::to_lowercase (Lowercase), then applies HF's
 * NormalizedString::transform_range alignment rule to it.
 *
 * The stream rules (written from the behaviour of the crate, and verified
 * against tokenizers 0.23.3 by tests/test_normalize_oracle.py):
 *  - Decomposition: every input char expands to its full decomposition
 *    (itself if none); the first code point gets change 0, the others +1.
 *    The expansion is cut into segments, each starting right before a
 *    code point of combining class 0 (the first segment may start with
 *    non-starters), and each segment is stable-sorted by combining class.
 *  - Recomposition (NFC/NFKC) walks that stream with a "composee" (the last
 *    starter) and the class of the last code point kept after it:
 *      no composee: a non-starter is emitted as is; a starter becomes the
 *        composee.
 *      nothing kept since the composee: try compose(composee, c) (even when
 *        c is a starter); on success the composee becomes the composite
 *        with change composee.change + c.change - 1. Otherwise a starter
 *        becomes the new composee, a non-starter is kept.
 *      something kept, with class last: if last >= class(c), c is blocked:
 *        a starter becomes the new composee, a non-starter is kept. Else
 *        try compose as above; on failure keep c.
 *    The output order is: composee, then the code points kept after it.
 *  - Lowercase: each char maps to 1..3 code points, changes 0, +1, +1.
 *  - transform_range: a cursor walks the old text. An item with change > 0
 *    takes the alignment of the old byte before the cursor ((0,0) at the
 *    very start, here (base,base)) and consumes nothing; otherwise it takes
 *    the alignment at the cursor and consumes one old char, plus -change
 *    more when change < 0. All bytes of the new char share that alignment.
 * Invalid UTF-8 bytes are units of their own: class 0, no mapping, never
 * composed, re-encoded as the same byte.
 *
 * Edits (HF NormalizedString, tokenizers 0.23.3), written directly on the
 * alignments since the transform_range rule reduces to:
 *  - replace(pattern, content): per match [s, e) (regex find_iter, or the
 *    non-overlapping occurrences of a literal), transform_range(s..e,
 *    content chars each with change 1, initial_offset = chars of the match):
 *    the match is removed and every byte of content aligns to the old byte
 *    e - 1 ((0, 0) of the segment, i.e. (base, base), when e == 0).
 *  - prepend(p) on a non-empty string with first char c: transform_range(
 *    0..len(c), [(p0, 0), (p1, 1).., (c, 1)], 0): p0 takes c's alignment
 *    (byte 0), the other chars of p and c itself take byte len(c) - 1's
 *    (with an empty p, c takes (base, base)).
 *  - Strip (lrstrip): leading and trailing chars with Rust's
 *    char::is_whitespace are removed, the kept ones keep their alignments
 *    (the -N change HF gives the last kept char only moves a cursor that is
 *    not read again).
 *  - Precompiled (tokenizers/src/normalizers/precompiled.rs, v0.23.1 =
 *    7f1623b9, Precompiled::normalize and `replace`): for each extended
 *    grapheme cluster g of the text: if g is under 6 bytes and
 *    transform(g) (the replacement of g's shortest prefix key) exists, all
 *    of g is replaced by it; otherwise each char c of g is replaced by
 *    transform(c) or kept. A replacement of k old chars by m new ones
 *    pushes the m chars with change 0, then sets the last m - k items to 1
 *    when m > k, or adds m - k to the last item of the whole stream
 *    (possibly an earlier cluster's) when m < k. The stream goes through
 *    transform_range only if some replacement happened.
 */
#include "normalize.h"

#include "precompiled.h"
#include "regex.h"
#include "unicode.h"

typedef struct nitem {
    uint32_t cp;
    int32_t change;
    uint32_t ccc;
} nitem;

typedef struct nstream {
    nitem *v;
    size_t n, cap;
    nitem *tmp; /* merge-sort scratch */
    size_t tmp_cap;
} nstream;

static int ns_push(nstream *s, uint32_t cp, int32_t change, uint32_t ccc) {
    if (s->n == s->cap) {
        void *p = s->v;
        if (tc_grow(&p, &s->cap, s->n + 1, sizeof(nitem)) != 0) return -1;
        s->v = p;
    }
    s->v[s->n].cp = cp;
    s->v[s->n].change = change;
    s->v[s->n].ccc = ccc;
    s->n++;
    return 0;
}

static void ns_free(nstream *s) {
    free(s->v);
    free(s->tmp);
    s->v = s->tmp = NULL;
    s->n = s->cap = s->tmp_cap = 0;
}

/* Stable sort of s->v[a, b) by ccc. */
static int ns_sort(nstream *s, size_t a, size_t b) {
    size_t n = b - a;
    if (n < 2) return 0;
    nitem *v = s->v + a;
    size_t i;
    for (i = 1; i < n && v[i - 1].ccc <= v[i].ccc; i++) {}
    if (i == n) return 0; /* already ordered: the usual case */
    if (n <= 32) {
        for (i = 1; i < n; i++) {
            nitem x = v[i];
            size_t j = i;
            while (j > 0 && v[j - 1].ccc > x.ccc) { v[j] = v[j - 1]; j--; }
            v[j] = x;
        }
        return 0;
    }
    /* Long run of marks: bottom-up merge sort. */
    if (n > s->tmp_cap) {
        void *p = s->tmp;
        if (tc_grow(&p, &s->tmp_cap, n, sizeof(nitem)) != 0) return -1;
        s->tmp = p;
    }
    nitem *src = v, *dst = s->tmp;
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n;
            size_t hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t x = lo, y = mid, k = lo;
            while (x < mid && y < hi) dst[k++] = (src[y].ccc < src[x].ccc) ? src[y++] : src[x++];
            while (x < mid) dst[k++] = src[x++];
            while (y < hi) dst[k++] = src[y++];
        }
        nitem *t = src; src = dst; dst = t;
    }
    if (src != v) memcpy(v, src, n * sizeof(nitem));
    return 0;
}

/* Decomposition stream of text into s (canonical, or compatibility). */
static int build_decomposed(const uint8_t *t, size_t len, int compat, nstream *s) {
    size_t seg = s->n;   /* appends: nfx_regions builds one region after another */
    uint32_t d[TC_UNICODE_DECOMP_MAX];
    uint32_t dflag = compat ? TC_UNF_COMPAT : TC_UNF_CANON;
    for (size_t i = 0; i < len;) {
        if (t[i] < 0x80) { /* ASCII: a starter that maps to itself */
            if (ns_sort(s, seg, s->n) != 0) return -1;
            seg = s->n;
            if (ns_push(s, t[i], 0, 0) != 0) return -1;
            i++;
            continue;
        }
        int ul;
        uint32_t cp = tc_utf8_decode(t, len, i, &ul);
        i += (size_t)ul;
        uint32_t info = tc_unicode_norm_info(cp);
        if (!(info & dflag)) {
            uint32_t ccc = info >> 16;
            if (ccc == 0) {
                if (ns_sort(s, seg, s->n) != 0) return -1;
                seg = s->n;
            }
            if (ns_push(s, cp, 0, ccc) != 0) return -1;
            continue;
        }
        int nd = tc_unicode_decompose(cp, compat, d);
        if (nd == 0) { d[0] = cp; nd = 1; }
        for (int k = 0; k < nd; k++) {
            uint32_t ccc = (uint32_t)tc_unicode_ccc(d[k]);
            if (ccc == 0) {
                if (ns_sort(s, seg, s->n) != 0) return -1;
                seg = s->n;
            }
            if (ns_push(s, d[k], k == 0 ? 0 : 1, ccc) != 0) return -1;
        }
    }
    return ns_sort(s, seg, s->n);
}

/* Canonical recomposition of the decomposed stream's items from `from` on, in place. */
static void recompose(nstream *s, size_t from) {
    size_t w = from, kpos = from;
    int have_k = 0;
    int last = -1; /* class of the last kept code point after the composee */
    for (size_t r = from; r < s->n; r++) {
        nitem it = s->v[r];
        int cls = (int)it.ccc;
        if (!have_k) {
            if (cls == 0) { have_k = 1; kpos = w; last = -1; }
            s->v[w++] = it;
            continue;
        }
        if (last >= 0 && last >= cls) {
            /* blocked */
            if (cls == 0) { kpos = w; last = -1; }
            else last = cls;
            s->v[w++] = it;
            continue;
        }
        uint32_t c = tc_unicode_compose(s->v[kpos].cp, it.cp);
        if (c != 0) {
            s->v[kpos].cp = c;
            s->v[kpos].change += it.change - 1;
            continue;
        }
        if (last < 0 && cls == 0) kpos = w;
        else last = cls;
        s->v[w++] = it;
    }
    s->n = w;
}

static int build_lower(const uint8_t *t, size_t len, nstream *s) {
    uint32_t lo[3];
    for (size_t i = 0; i < len;) {
        if (t[i] < 0x80) {
            uint32_t c = t[i++];
            if (ns_push(s, (c >= 'A' && c <= 'Z') ? c + 32 : c, 0, 0) != 0) return -1;
            continue;
        }
        int ul;
        uint32_t cp = tc_utf8_decode(t, len, i, &ul);
        i += (size_t)ul;
        int n = tc_unicode_lower(cp, lo);
        for (int k = 0; k < n; k++)
            if (ns_push(s, lo[k], k == 0 ? 0 : 1, 0) != 0) return -1;
    }
    return 0;
}

static inline uint64_t ascii_word(const uint8_t *p) { uint64_t w; memcpy(&w, p, 8); return w; }

/* The norm_info bits of a code point that form `kind` (NFD, NFKD, NFC, NFKC) may change. */
static uint32_t nfx_bad(tc_norm_kind kind) {
    switch (kind) {
    case TC_NORM_NFD: return TC_UNF_CANON;
    case TC_NORM_NFKD: return TC_UNF_COMPAT;
    case TC_NORM_NFC: return TC_UNF_NFC_NY;
    default: return TC_UNF_NFKC_NY;
    }
}

/* 1 if one step provably leaves text unchanged. */
static int step_is_noop(tc_norm_kind kind, const uint8_t *t, size_t len) {
    size_t i = 0;
    if (kind == TC_NORM_LOWERCASE) {
        while (i < len) {
            uint8_t c = t[i];
            if (c < 0x80) {
                if (c >= 'A' && c <= 'Z') return 0;
                i++;
                continue;
            }
            int ul;
            uint32_t cp = tc_utf8_decode(t, len, i, &ul);
            i += (size_t)ul;
            if (tc_unicode_norm_info(cp) & TC_UNF_LOWER_CHG) return 0;
        }
        return 1;
    }
    uint32_t bad = nfx_bad(kind);
    uint32_t last = 0;
    while (i < len) {
        /* 32, then eight ASCII bytes at a time: most text is mostly ASCII, and every encode of a
         * tokenizer with a normalizer runs this over the whole text (eight at a time was 3% of a warm
         * ids-only encode of the code corpus, callgrind) */
        if (len - i >= 32 && !((ascii_word(t + i) | ascii_word(t + i + 8) | ascii_word(t + i + 16) |
                                ascii_word(t + i + 24)) & 0x8080808080808080ull)) {
            last = 0;
            i += 32;
            continue;
        }
        if (len - i >= 8 && !(ascii_word(t + i) & 0x8080808080808080ull)) { last = 0; i += 8; continue; }
        if (t[i] < 0x80) { last = 0; i++; continue; }
        /* units with neither a `bad` bit nor a ccc pass and reset the order, a run of them in one call */
        size_t unused, j = tc_unicode_quiet_run(t, len, i, bad, &unused);
        if (j != i) { last = 0; i = j; continue; }
        int ul;
        uint32_t cp = tc_utf8_decode(t, len, i, &ul);
        i += (size_t)ul;
        uint32_t info = tc_unicode_norm_info(cp);
        if (info & bad) return 0;
        uint32_t ccc = info >> 16;
        if (ccc != 0 && last > ccc) return 0;
        last = ccc;
    }
    return 1;
}

static int is_ws_at(const uint8_t *t, size_t len, size_t i, int *ul) {
    uint32_t cp = tc_utf8_decode(t, len, i, ul);
    return cp < TC_CP_INVALID_BASE && tc_unicode_is_space(cp);
}

/* Start of the unit that ends at byte `end` (end > 0). */
static size_t unit_before(const uint8_t *t, size_t len, size_t end) {
    size_t j = end - 1;
    while (j > 0 && end - j < 4 && (t[j] & 0xC0) == 0x80) j--;
    int ul;
    (void)tc_utf8_decode(t, len, j, &ul);
    return j + (size_t)ul == end ? j : end - 1;
}

static int edit_is_noop(tc_norm_kind kind, const tc_norm_param *p, const uint8_t *t, size_t len) {
    int ul;
    switch (kind) {
    case TC_NORM_PREPEND: return len == 0;
    case TC_NORM_REPLACE:
        if (len == 0) return 1;
        if (p->re) return 0;
        if (p->pat_len == 0) return 1;
        for (size_t i = 0; i + p->pat_len <= len; i++)
            if (t[i] == (uint8_t)p->pat[0] && memcmp(t + i, p->pat, p->pat_len) == 0) return 0;
        return 1;
    case TC_NORM_STRIP:
        if (len == 0) return 1;
        if (p->left && is_ws_at(t, len, 0, &ul)) return 0;
        if (p->right && is_ws_at(t, len, unit_before(t, len, len), &ul)) return 0;
        return 1;
    case TC_NORM_BERT_CLEAN: case TC_NORM_BERT_CHINESE: case TC_NORM_BERT_ACCENTS: case TC_NORM_STRIP_ACCENTS: case TC_NORM_NMT:
    case TC_NORM_BYTELEVEL:
        return tc_norm_char_is_noop(kind, t, len);
    default: return 0;
    }
}

int tc_normalize_is_noop(const tc_normalizer *n, const uint8_t *text, size_t len) {
    for (int k = 0; k < n->nsteps; k++) {
        tc_norm_kind kd = n->steps[k];
        if (kd >= TC_NORM_PREPEND ? !edit_is_noop(kd, &n->params[k], text, len) : !step_is_noop(kd, text, len)) return 0;
    }
    return 1;
}

static int enc_item(uint32_t cp, uint8_t out[4]) {
    if (cp >= TC_CP_INVALID_BASE) { out[0] = (uint8_t)(cp - TC_CP_INVALID_BASE); return 1; }
    return tc_utf8_encode(cp, out);
}

/* 1 if the stream's items from `from` on reproduce text t[0..len) exactly with all changes 0. */
static int stream_is_identity(const nstream *s, size_t from, const uint8_t *t, size_t len) {
    size_t i = 0, k = from;
    while (i < len) {
        if (k >= s->n) return 0;
        int ul;
        uint32_t cp = tc_utf8_decode(t, len, i, &ul);
        i += (size_t)ul;
        if (s->v[k].cp != cp || s->v[k].change != 0) return 0;
        k++;
    }
    return k == s->n;
}

static int materialize_align(tc_nstr *s, uint32_t base) {
    size_t len = s->text.len;
    void *p = s->align;
    if (tc_grow(&p, &s->align_cap, len ? len : 1, sizeof(tc_span)) != 0) return -1;
    s->align = p;
    for (size_t i = 0; i < len;) {
        int ul;
        (void)tc_utf8_decode(s->text.data, len, i, &ul);
        tc_span sp = {base + (uint32_t)i, base + (uint32_t)(i + (size_t)ul)};
        for (int k = 0; k < ul; k++) s->align[i + (size_t)k] = sp;
        i += (size_t)ul;
    }
    return 0;
}

static size_t unit_len(const uint8_t *t, size_t len, size_t i) {
    int ul;
    (void)tc_utf8_decode(t, len, i, &ul);
    return (size_t)ul;
}

/* Room for n bytes of new text and their alignment. Returns 0 or -1 (OOM,
 * nothing left allocated). */
static int out_alloc(size_t n, tc_buf *nt, tc_span **na, size_t *na_cap) {
    if (tc_buf_reserve(nt, n ? n : 1) != 0) return -1;
    void *p = NULL;
    if (tc_grow(&p, na_cap, n ? n : 1, sizeof(tc_span)) != 0) { tc_buf_free(nt); return -1; }
    *na = p;
    return 0;
}

/* Replaces s with the text/alignment built in nt/na. */
static void nstr_take(tc_nstr *s, tc_buf *nt, tc_span *na, size_t na_cap) {
    tc_buf_free(&s->text);
    free(s->align);
    s->text = *nt;
    s->align = na;
    s->align_cap = na_cap;
}

/* transform_range over items [ia, ib) of the stream, the old text's cursor at off (s's align
 * materialized): appends the new bytes and their alignments to nt / na. */
static void transform_items(const tc_nstr *s, const nstream *st, size_t ia, size_t ib, size_t off, uint32_t base,
                            tc_buf *nt, tc_span *na) {
    const uint8_t *t = s->text.data;
    size_t len = s->text.len;
    tc_span zero = {base, base};
    for (size_t k = ia; k < ib; k++) {
        const nitem *it = &st->v[k];
        tc_span al;
        if (it->change > 0) {
            al = off > 0 ? s->align[off - 1] : zero;
        } else {
            al = off < len ? s->align[off] : (off > 0 ? s->align[off - 1] : zero);
            if (off < len) off += unit_len(t, len, off);
            for (int32_t r = it->change; r < 0 && off < len; r++) off += unit_len(t, len, off);
        }
        int nb = enc_item(it->cp, nt->data + nt->len);
        for (int b = 0; b < nb; b++) na[nt->len + (size_t)b] = al;
        nt->len += (size_t)nb;
    }
}

/* Apply the stream to s (align already materialized). */
static int apply_transform(tc_nstr *s, const nstream *st, uint32_t base) {
    size_t out_len = 0;
    uint8_t tmp[4];
    for (size_t k = 0; k < st->n; k++) out_len += (size_t)enc_item(st->v[k].cp, tmp);
    tc_buf nt = {0, 0, 0};
    tc_span *na = NULL;
    size_t na_cap = 0;
    if (out_alloc(out_len, &nt, &na, &na_cap) != 0) return -1;
    transform_items(s, st, 0, st->n, 0, base, &nt, na);
    nstr_take(s, &nt, na, na_cap);
    return 0;
}

/* ---- NFD / NFKD / NFC / NFKC by regions --------------------------------------
 * A unit is quiet for a form when it is a starter (class 0) that the form leaves as it is and that
 * nothing before it combines with: ASCII, an invalid byte, or a code point whose quick check (NFC,
 * NFKC) is Yes, or that has no decomposition (NFD, NFKD), with combining class 0. The stream of the
 * whole text then cuts at every quiet unit: a decomposition segment starts there, the recomposition
 * takes it as a new composee (it is never a second of a composition), and nothing after it moves
 * before it. So each run of other units is normalized with the quiet unit before it (which may
 * compose with them) up to the next quiet unit, alone, and every quiet unit elsewhere is copied with
 * its alignment: the same stream as the whole text's, built only where the text may change (the
 * UDHR texts that are not NFC hold 1-20% such units; the stream of their every code point was 28%
 * of a later pass over the UDHR corpus with Qwen3, callgrind). A region whose stream reproduces it
 * is dropped; with none left the text is unchanged. */
typedef struct nregion { size_t a, b, ia, ib; } nregion;

static inline int unit_quiet(uint32_t info, uint32_t bad) { return !(info & bad) && (info >> 16) == 0; }

static int nfx_regions(tc_nstr *s, tc_norm_kind kind, nstream *st, uint32_t base) {
    const uint8_t *t = s->text.data;
    size_t len = s->text.len;
    int compat = kind == TC_NORM_NFKD || kind == TC_NORM_NFKC, compose = kind == TC_NORM_NFC || kind == TC_NORM_NFKC;
    uint32_t bad = nfx_bad(kind);
    uint32_t dflag = compat ? TC_UNF_COMPAT : TC_UNF_CANON;   /* what build_decomposed expands */
    nregion *rg = NULL;
    size_t nrg = 0, rcap = 0, quiet = 0, out_len = len;
    int rc = 0;
    st->n = 0;
    for (size_t i = 0; i < len;) {
        if (len - i >= 8 && !(ascii_word(t + i) & 0x8080808080808080ull)) { quiet = i + 7; i += 8; continue; }
        if (t[i] < 0x80) { quiet = i++; continue; }
        /* a run of quiet units in one call (quiet: the start of its last) */
        size_t j0 = tc_unicode_quiet_run(t, len, i, bad, &quiet);
        if (j0 != i) { i = j0; continue; }
        int ul;
        uint32_t cp = tc_utf8_decode(t, len, i, &ul), info = tc_unicode_norm_info(cp);
        /* from the quiet unit before it (0 at the text's start) to the next quiet unit */
        size_t a = quiet, j = i + (size_t)ul;
        while (j < len && t[j] >= 0x80) {
            int ul2;
            uint32_t c2 = tc_utf8_decode(t, len, j, &ul2);
            if (unit_quiet(tc_unicode_norm_info(c2), bad)) break;
            j += (size_t)ul2;
        }
        if (j == i + (size_t)ul && a < i && !(info & dflag)) {   /* one unit */
            /* the most common region (a vowel sign or a mark after its letter): one unit that the form
             * does not decompose, after a quiet unit (which may have a canonical decomposition under
             * NFC and NFKC). Under NFD and NFKD nothing moves (one unit cannot be reordered); under NFC
             * and NFKC a quiet unit without a decomposition and this one come back unchanged unless
             * they compose */
            int qn;
            uint32_t q = tc_utf8_decode(t, len, a, &qn);
            if (!compose || (!(tc_unicode_norm_info(q) & dflag) && tc_unicode_compose(q, cp) == 0)) {
                quiet = j;
                i = j;
                continue;
            }
        }
        size_t ia = st->n;
        if (build_decomposed(t + a, j - a, compat, st) != 0) { rc = -1; goto out; }
        if (compose) recompose(st, ia);
        if (stream_is_identity(st, ia, t + a, j - a)) {
            st->n = ia;
        } else {
            if (nrg == rcap) {
                void *p = rg;
                if (tc_grow(&p, &rcap, nrg + 1, sizeof *rg) != 0) { rc = -1; goto out; }
                rg = p;
            }
            uint8_t tmp[4];
            out_len -= j - a;
            for (size_t k = ia; k < st->n; k++) out_len += (size_t)enc_item(st->v[k].cp, tmp);
            rg[nrg++] = (nregion){a, j, ia, st->n};
        }
        quiet = j;   /* a quiet unit, or the end */
        i = j;
    }
    if (nrg) {
        if (!s->align && materialize_align(s, base) != 0) { rc = -1; goto out; }
        tc_buf nt = {0, 0, 0};
        tc_span *na = NULL;
        size_t na_cap = 0;
        if (out_alloc(out_len, &nt, &na, &na_cap) != 0) { rc = -1; goto out; }
        size_t pos = 0;
        for (size_t r = 0; r <= nrg; r++) {
            size_t upto = r < nrg ? rg[r].a : len;   /* the quiet units before region r: as they are */
            memcpy(nt.data + nt.len, t + pos, upto - pos);
            memcpy(na + nt.len, s->align + pos, (upto - pos) * sizeof *na);
            nt.len += upto - pos;
            if (r == nrg) break;
            transform_items(s, st, rg[r].ia, rg[r].ib, rg[r].a, base, &nt, na);
            pos = rg[r].b;
        }
        nstr_take(s, &nt, na, na_cap);
    }
out:
    free(rg);
    return rc;
}

/* Every match [m[2k], m[2k+1]) (in order, non-overlapping) becomes content. */
static int apply_matches(tc_nstr *s, const size_t *m, size_t nm, const char *content, size_t clen, uint32_t base) {
    if (nm == 0) return 0;
    if (!s->align && materialize_align(s, base) != 0) return -1;
    const uint8_t *t = s->text.data;
    size_t len = s->text.len, out_len = len + nm * clen;
    tc_buf nt = {0, 0, 0};
    tc_span *na = NULL;
    size_t na_cap = 0;
    if (out_alloc(out_len, &nt, &na, &na_cap) != 0) return -1;
    size_t last = 0;
    tc_span zero = {base, base};
    for (size_t k = 0; k < nm; k++) {
        size_t ms = m[2 * k], me = m[2 * k + 1];
        memcpy(nt.data + nt.len, t + last, ms - last);
        memcpy(na + nt.len, s->align + last, (ms - last) * sizeof *na);
        nt.len += ms - last;
        tc_span al = me > 0 ? s->align[me - 1] : zero;
        memcpy(nt.data + nt.len, content, clen);
        for (size_t b = 0; b < clen; b++) na[nt.len + b] = al;
        nt.len += clen;
        last = me;
    }
    memcpy(nt.data + nt.len, t + last, len - last);
    memcpy(na + nt.len, s->align + last, (len - last) * sizeof *na);
    nt.len += len - last;
    nstr_take(s, &nt, na, na_cap);
    return 0;
}

int tc_nstr_replace_literal(tc_nstr *s, const char *pat, size_t pat_len, const char *content,
                            size_t content_len, uint32_t base) {
    if (pat_len == 0) return 0;   /* HF: an empty pattern matches nothing */
    const uint8_t *t = s->text.data;
    size_t len = s->text.len, nm = 0, cap = 0;
    size_t *m = NULL;
    for (size_t i = 0; i + pat_len <= len;) {
        if (t[i] == (uint8_t)pat[0] && memcmp(t + i, pat, pat_len) == 0) {
            if (2 * nm + 2 > cap) {
                void *p = m;
                if (tc_grow(&p, &cap, 2 * nm + 2, sizeof *m) != 0) { free(m); return -1; }
                m = p;
            }
            m[2 * nm] = i; m[2 * nm + 1] = i + pat_len;
            nm++;
            i += pat_len;
        } else {
            i++;
        }
    }
    int r = apply_matches(s, m, nm, content, content_len, base);
    free(m);
    return r;
}

static int replace_regex(tc_nstr *s, const struct tc_regex *re, const char *content, size_t clen, uint32_t base) {
    size_t *m = NULL, n = 0, cap = 0;
    int r = tc_regex_find_all(re, s->text.data, s->text.len, &m, &n, &cap);
    if (r == 0) r = apply_matches(s, m, n, content, clen, base);
    free(m);
    return r;
}

int tc_nstr_prepend(tc_nstr *s, const char *pre, size_t plen, uint32_t base) {
    size_t len = s->text.len;
    if (len == 0) return 0;
    if (!s->align && materialize_align(s, base) != 0) return -1;
    size_t nl = unit_len(s->text.data, len, 0);
    tc_buf nt = {0, 0, 0};
    tc_span *na = NULL;
    size_t na_cap = 0, out_len = plen + len;
    if (tc_buf_reserve(&nt, out_len) != 0) return -1;
    {
        void *p = NULL;
        if (tc_grow(&p, &na_cap, out_len, sizeof(tc_span)) != 0) { tc_buf_free(&nt); return -1; }
        na = p;
    }
    memcpy(nt.data, pre, plen);
    memcpy(nt.data + plen, s->text.data, len);
    nt.len = out_len;
    size_t first = plen ? unit_len((const uint8_t *)pre, plen, 0) : 0;
    tc_span lastb = plen ? s->align[nl - 1] : (tc_span){base, base};
    for (size_t b = 0; b < plen + nl; b++) na[b] = b < first ? s->align[0] : lastb;
    memcpy(na + plen + nl, s->align + nl, (len - nl) * sizeof *na);
    nstr_take(s, &nt, na, na_cap);
    return 0;
}

static int nstr_strip(tc_nstr *s, int left, int right, uint32_t base) {
    const uint8_t *t = s->text.data;
    size_t len = s->text.len, a = 0, b = len;
    int ul;
    if (left) while (a < len && is_ws_at(t, len, a, &ul)) a += (size_t)ul;
    if (right) while (b > a) {
        size_t j = unit_before(t, len, b);
        if (!is_ws_at(t, len, j, &ul)) break;
        b = j;
    }
    if (a == 0 && b == len) return 0;
    if (!s->align && materialize_align(s, base) != 0) return -1;
    memmove(s->text.data, t + a, b - a);
    memmove(s->align, s->align + a, (b - a) * sizeof *s->align);
    s->text.len = b - a;
    return 0;
}

/* precompiled.rs `replace`: old_chars chars become r[0..rlen). */
static int pc_replace(nstream *st, size_t old_chars, const uint8_t *r, size_t rlen) {
    size_t new_chars = 0;
    for (size_t i = 0; i < rlen;) {
        int ul;
        uint32_t cp = tc_utf8_decode(r, rlen, i, &ul);
        i += (size_t)ul;
        if (ns_push(st, cp, 0, 0) != 0) return -1;
        new_chars++;
    }
    if (new_chars > old_chars) {
        for (size_t k = 0; k < new_chars - old_chars; k++) st->v[st->n - 1 - k].change = 1;
    } else if (new_chars < old_chars && st->n > 0) {
        st->v[st->n - 1].change -= (int32_t)(old_chars - new_chars);
    }
    return 0;
}

static size_t count_chars(const uint8_t *t, size_t len) {
    size_t n = 0;
    for (size_t i = 0; i < len; n++) i += unit_len(t, len, i);
    return n;
}

static int apply_precompiled(const struct tc_precompiled *pc, tc_nstr *s, uint32_t base) {
    const uint8_t *t = s->text.data;
    size_t len = s->text.len, rlen;
    nstream st = {NULL, 0, 0, NULL, 0};
    int modified = 0, rc = 0;
    for (size_t i = 0; i < len && rc == 0;) {
        size_t ge = tc_grapheme_end(t, len, i);
        const uint8_t *r;
        if (ge - i < 6 && (r = tc_precompiled_transform(pc, t + i, ge - i, &rlen)) != NULL) {
            modified = 1;
            rc = pc_replace(&st, count_chars(t + i, ge - i), r, rlen);
            i = ge;
            continue;
        }
        while (i < ge && rc == 0) {
            int ul;
            uint32_t cp = tc_utf8_decode(t, len, i, &ul);
            if ((r = tc_precompiled_transform(pc, t + i, (size_t)ul, &rlen)) != NULL) {
                modified = 1;
                rc = pc_replace(&st, 1, r, rlen);
            } else {
                rc = ns_push(&st, cp, 0, 0);
            }
            i += (size_t)ul;
        }
    }
    if (rc == 0 && modified && !stream_is_identity(&st, 0, t, len)) {
        if (!s->align && materialize_align(s, base) != 0) rc = -1;
        else rc = apply_transform(s, &st, base);
    }
    ns_free(&st);
    return rc;
}

static int apply_edit(tc_norm_kind kind, const tc_norm_param *p, tc_nstr *s, uint32_t base) {
    switch (kind) {
    case TC_NORM_PREPEND: return tc_nstr_prepend(s, p->str, p->str_len, base);
    case TC_NORM_REPLACE:
        return p->re ? replace_regex(s, p->re, p->str, p->str_len, base)
                     : tc_nstr_replace_literal(s, p->pat, p->pat_len, p->str, p->str_len, base);
    case TC_NORM_STRIP: return nstr_strip(s, p->left, p->right, base);
    case TC_NORM_BERT_CLEAN: case TC_NORM_BERT_CHINESE: case TC_NORM_BERT_ACCENTS: case TC_NORM_STRIP_ACCENTS: case TC_NORM_NMT:
    case TC_NORM_BYTELEVEL:
        return tc_norm_char_apply(kind, s, base);
    case TC_NORM_PRECOMPILED: return apply_precompiled(p->pc, s, base);
    default: return -1;
    }
}

void tc_normalizer_free(tc_normalizer *n) {
    for (int k = 0; k < TC_NORM_MAX_STEPS; k++) {
        tc_norm_param *p = &n->params[k];
        free(p->str);
        free(p->pat);
        tc_regex_free(p->re);
        if (p->pc) { tc_precompiled_free(p->pc); free(p->pc); }
        memset(p, 0, sizeof *p);
    }
    n->nsteps = 0;
}

int tc_normalizer_add_precompiled(tc_normalizer *n, const uint8_t *blob, size_t len, tc_error *err) {
    if (n->nsteps >= TC_NORM_MAX_STEPS) return tc_error_set(err, TC_ERR_LIMIT, "more than 16 normalizers");
    tc_precompiled *pc = calloc(1, sizeof *pc);
    if (!pc) return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    int r = tc_precompiled_parse(blob, len, pc, err);
    if (r != TC_OK) { free(pc); return r; }
    n->params[n->nsteps].pc = pc;
    n->steps[n->nsteps++] = TC_NORM_PRECOMPILED;
    return TC_OK;
}

int tc_normalize(const tc_normalizer *n, tc_nstr *s, uint32_t base) {
    nstream st = {NULL, 0, 0, NULL, 0};
    int rc = 0;
    for (int k = 0; k < n->nsteps && rc == 0; k++) {
        tc_norm_kind kind = n->steps[k];
        const uint8_t *t = s->text.data;
        size_t len = s->text.len;
        if (len == 0) break;
        if (kind >= TC_NORM_PREPEND) {
            if (!edit_is_noop(kind, &n->params[k], t, len)) rc = apply_edit(kind, &n->params[k], s, base);
            continue;
        }
        if (kind == TC_NORM_NFD || kind == TC_NORM_NFKD || kind == TC_NORM_NFC || kind == TC_NORM_NFKC) {
            rc = nfx_regions(s, kind, &st, base);
            continue;
        }
        if (step_is_noop(kind, t, len)) continue;
        st.n = 0;
        if (st.cap < len) { /* one item per byte covers most texts */
            void *p = st.v;
            if (tc_grow(&p, &st.cap, len, sizeof(nitem)) != 0) { rc = -1; break; }
            st.v = p;
        }
        if (kind == TC_NORM_LOWERCASE) rc = build_lower(t, len, &st);
        else rc = -1;
        if (rc != 0) break;
        if (stream_is_identity(&st, 0, t, len)) continue;
        if (!s->align && materialize_align(s, base) != 0) { rc = -1; break; }
        rc = apply_transform(s, &st, base);
    }
    ns_free(&st);
    return rc;
}

void tc_nstr_free(tc_nstr *s) {
    tc_buf_free(&s->text);
    free(s->align);
    s->align = NULL;
    s->align_cap = 0;
}
