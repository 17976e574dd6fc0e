/* batch_cut.c - long texts of a batch cut at anchors, so that the threads share one long text.
 *
 * Does: tc_cut_plan (where each long text is cut: anchors near every target
 * bytes, tokcore.h has the rule) and tc_encode_batch_cut (the pieces and
 * their tails encoded on the threads by tc_batch_into, then joined into each
 * text's own encoding: the tail's tokens dropped, offsets shifted by the
 * piece's start in bytes and in characters). A text's first piece is encoded
 * straight into its caller's encoding and the others are appended to it.
 * Why here and not in Python: the Python plan and join cost War and Peace
 * (3.2 MB, Qwen3, ids only) 1.2 ms of an 8.4 ms two-thread batch whose
 * engine part took 7.1: a UTF-8 copy of the text, a copy of each piece, the
 * pieces' ids copied out and copied again into one array; here the pieces
 * point into the caller's text and the ids are copied once.
 * Does not: decide that a pipeline is local at anchors (the caller does,
 * from the pipeline's description: tokinspect.core.anchors), or cut a text
 * that is not valid UTF-8 (its pieces could decode differently).
 */
#include "engine.h"
#include "platform.h"

/* The byte length of the stable character at p < len: 1 for an ASCII letter,
 * 3 for U+4E00-U+9FFF (well-formed), else 0. */
static size_t stable_len(const uint8_t *s, size_t len, size_t p) {
    uint8_t b = s[p];
    if (b < 0x80) return ((b | 0x20) >= 'a' && (b | 0x20) <= 'z') ? 1 : 0;
    if (b >= 0xE4 && b <= 0xE9 && p + 2 < len && (s[p + 1] & 0xC0) == 0x80 && (s[p + 2] & 0xC0) == 0x80) {
        uint32_t cp = ((uint32_t)(b & 0x0F) << 12) | ((uint32_t)(s[p + 1] & 0x3F) << 6) | (s[p + 2] & 0x3F);
        if (cp >= 0x4E00 && cp <= 0x9FFF) return 3;
    }
    return 0;
}

/* The first anchor p with its '\n' at or after `from`; len when there is none. */
static size_t anchor_from(const uint8_t *s, size_t len, size_t from) {
    while (from < len) {
        const uint8_t *nl = memchr(s + from, '\n', len - from);
        if (!nl) return len;
        size_t p = (size_t)(nl - s) + 1;
        if (p >= len) return len;
        if (stable_len(s, len, p)) return p;
        from = p;
    }
    return len;
}

/* Whether s is well-formed UTF-8 (tc_utf8_decode's rules), ASCII eight bytes at a time. */
static int utf8_valid(const uint8_t *s, size_t len) {
    size_t i = 0;
    while (i < len) {
        if (i + 8 <= len) {
            uint64_t w;
            memcpy(&w, s + i, 8);
            if (!(w & 0x8080808080808080ull)) { i += 8; continue; }
        }
        int n;
        if (tc_utf8_decode(s, len, i, &n) >= TC_CP_INVALID_BASE) return 0;
        i += (size_t)n;
    }
    return 1;
}

/* Appends text i's pieces (cuts near every `target` bytes) to *out; returns 1 when it was cut, 0 when it has
 * no anchor there (the caller drops the one piece appended), -1 on OOM. */
static int cut_text(const uint8_t *s, size_t len, size_t i, size_t target, tc_cut_piece **out, size_t *n,
                    size_t *cap) {
    size_t parts = (len + target / 2) / target;
    if (parts < 2) parts = 2;
    size_t start = 0, made = 0;
    for (size_t k = 1; k <= parts; k++) {
        size_t c = len;
        if (k < parts) {
            size_t want = len / parts * k + len % parts * k / parts;   /* k * len / parts without overflow */
            c = anchor_from(s, len, want > start ? want : start);
            if (c >= len) c = len;
        }
        if (c <= start && c < len) continue;
        if (*n == *cap) {
            void *p = *out;
            if (tc_grow(&p, cap, *n + 1, sizeof **out) != 0) return -1;
            *out = p;
        }
        tc_cut_piece *pc = &(*out)[(*n)++];
        pc->text = i;
        pc->start = start;
        pc->keep = c - start;
        pc->tail = c < len ? stable_len(s, len, c) : 0;
        made++;
        start = c;
        if (c == len) break;
    }
    return (int)(made > 1);
}

int tc_cut_plan(const uint8_t *const *texts, const size_t *lens, const uint8_t *utf8_ok, size_t n, unsigned threads,
                size_t min_piece, size_t per_thread, tc_cut_piece **out, size_t *npieces) {
    *out = NULL;
    *npieces = 0;
    if (threads < 2 || min_piece == 0 || n == 0) return 0;
    size_t total = 0, longest = 0;
    for (size_t i = 0; i < n; i++) {
        total += lens[i];
        if (lens[i] > longest) longest = lens[i];
    }
    size_t per = (size_t)threads * (per_thread ? per_thread : 1);
    size_t target = total / per + 1;
    if (target < min_piece) target = min_piece;
    if (longest / 2 < target) return 0;
    tc_cut_piece *ps = NULL;
    size_t np = 0, cap = 0;
    int any = 0;
    for (size_t i = 0; i < n; i++) {
        int cut = 0;
        /* a text above the engine's limit stays whole, so that its own encode refuses it as with one thread */
        if (lens[i] / 2 >= target && lens[i] <= TC_MAX_INPUT_BYTES && texts[i] &&
            ((utf8_ok && utf8_ok[i]) || utf8_valid(texts[i], lens[i]))) {
            size_t before = np;
            cut = cut_text(texts[i], lens[i], i, target, &ps, &np, &cap);
            if (cut < 0) { free(ps); return -1; }
            if (!cut) np = before;   /* no anchor: the text stays whole */
        }
        if (!cut) {
            if (np == cap) {
                void *p = ps;
                if (tc_grow(&p, &cap, np + 1, sizeof *ps) != 0) { free(ps); return -1; }
                ps = p;
            }
            ps[np].text = i; ps[np].start = 0; ps[np].keep = lens[i]; ps[np].tail = 0;
            np++;
        }
        any |= cut;
    }
    if (!any) { free(ps); return 0; }
    *out = ps;
    *npieces = np;
    return 0;
}

/* Piece j's tokens kept (all but its tail's), or SIZE_MAX when the join
 * does not hold: the dropped tokens are not the tail's own ids, or (with
 * offsets) the kept tokens do not end exactly at the cut. */
static size_t kept_tokens(const tc_encoding *e, const tc_encoding *tail, size_t keep, int ids_only) {
    size_t t = tail ? tail->n : 0;
    if (e->n < t) return SIZE_MAX;
    size_t m = e->n - t;
    if (t && memcmp(e->ids + m, tail->ids, t * sizeof *e->ids) != 0) return SIZE_MAX;
    if (!ids_only && ((m && e->offsets[2 * m - 1] != keep) || (m < e->n && e->offsets[2 * m] != keep)))
        return SIZE_MAX;
    return m;
}

/* The characters of well-formed UTF-8 s[0:len]: its bytes that are not continuation bytes. */
static size_t utf8_chars(const uint8_t *s, size_t len) {
    size_t c = 0;
    for (size_t i = 0; i < len; i++) c += (s[i] & 0xC0) != 0x80;
    return c;
}

/* One piece's kept tokens copied into its text's encoding at `at`, offsets shifted. */
typedef struct copy_job {
    tc_encoding *o;
    const tc_encoding *e;
    size_t at, m;
    uint32_t shift, chars;   /* the piece's start in its text, in bytes and in characters */
} copy_job;

typedef struct copy_shared {
    copy_job *jobs;
    size_t n;
    int ids_only;
    atomic_size_t next;
} copy_shared;

static void copy_piece(const copy_job *c, int ids_only) {
    memcpy(c->o->ids + c->at, c->e->ids, c->m * sizeof *c->o->ids);
    memcpy(c->o->special + c->at, c->e->special, c->m);
    if (ids_only) return;
    uint32_t *restrict off = c->o->offsets + 2 * c->at, *restrict co = c->o->char_offsets + 2 * c->at;
    const uint32_t *restrict eo = c->e->offsets, *restrict ec = c->e->char_offsets;
    for (size_t k = 0; k < 2 * c->m; k++) {
        off[k] = eo[k] + c->shift;
        co[k] = ec[k] + c->chars;
    }
}

static void copy_work(void *arg) {
    copy_shared *sh = arg;
    for (;;) {
        size_t k = atomic_fetch_add_explicit(&sh->next, 1, memory_order_relaxed);
        if (k >= sh->n) return;
        copy_piece(&sh->jobs[k], sh->ids_only);
    }
}

/* Plans the join of text i's pieces ps[lo..hi) (encoded into encs[lo..hi), encs[lo] being outs[i]):
 * checks each, truncates outs[i] to its first piece's kept tokens, makes room for the text's tokens
 * and appends a copy job per later piece to jobs[*nj]. Returns 1 when a join does not hold (the
 * caller encodes the text whole), -1 on OOM, 0 when planned. */
static int plan_join(const uint8_t *s, const tc_cut_piece *ps, size_t lo, size_t hi, tc_encoding *const *encs,
                     tc_encoding *const *tails, int ids_only, copy_job *jobs, size_t *nj) {
    size_t total = 0, first = *nj;
    uint32_t chars = 0;
    for (size_t j = lo; j < hi; j++) {
        const tc_encoding *e = encs[j];
        size_t m = kept_tokens(e, tails[j], ps[j].keep, ids_only);
        if (m == SIZE_MAX) { *nj = first; return 1; }
        if (j > lo) {
            copy_job *c = &jobs[(*nj)++];
            c->o = encs[lo]; c->e = e; c->at = total; c->m = m;
            c->shift = (uint32_t)ps[j].start; c->chars = chars;
        } else {
            encs[lo]->n = m;
        }
        total += m;
        /* a piece's character offsets start at 0: each later piece's are shifted by the characters before it */
        if (!ids_only && j + 1 < hi)
            chars += m ? e->char_offsets[2 * m - 1] : (uint32_t)utf8_chars(s + ps[j].start, ps[j].keep);
    }
    tc_encoding *o = encs[lo];
    if ((ids_only ? tc_encoding_reserve_ids(o, total) : tc_encoding_reserve(o, total)) != 0) return -1;
    o->n = total;
    return 0;
}

size_t tc_cut_scratch(const tc_cut_piece *ps, size_t np) {
    size_t k = 0;
    for (size_t j = 0; j < np; j++) k += (j > 0 && ps[j - 1].text == ps[j].text) + (ps[j].tail != 0);
    return k;
}

int tc_encode_batch_cut(const tc_tokenizer *tok, const uint8_t *const *texts, const size_t *lens, size_t n,
                        const tc_cut_piece *ps, size_t np, int add_special_tokens, tc_encoder encoder, unsigned flags,
                        unsigned threads, tc_encoding *outs, tc_encoding *scratch, size_t nscratch, size_t *failed,
                        tc_error *err) {
    if (!ps || !np) return tc_encode_batch(tok, texts, lens, n, add_special_tokens, encoder, flags, threads, outs, failed, err);
    if (!tok || !texts || !lens || !outs) return tc_error_set(err, TC_ERR_ARG, "encode_batch: null argument");
    /* the pieces tile each text in order, every text has one at least (tc_cut_plan's shape) */
    for (size_t j = 0; j < np; j++) {
        const tc_cut_piece *p = &ps[j];
        int first = j == 0 || ps[j - 1].text != p->text;
        size_t at = first ? 0 : ps[j - 1].start + ps[j - 1].keep;
        int last = j + 1 == np || ps[j + 1].text != p->text;
        if (p->text != (first ? (j ? ps[j - 1].text + 1 : 0) : ps[j - 1].text) || p->text >= n || p->start != at ||
            p->keep > lens[p->text] - at || (last ? p->tail != 0 || at + p->keep != lens[p->text]
                                                 : p->tail > lens[p->text] - at - p->keep))
            return tc_error_set(err, TC_ERR_ARG, "encode_batch: piece %zu does not fit its text", j);
        /* a text above the engine's limit is never cut (tc_cut_plan leaves it whole; its own encode refuses it) */
        if (!first && (!texts[p->text] || lens[p->text] > TC_MAX_INPUT_BYTES))
            return tc_error_set(err, TC_ERR_ARG, "encode_batch: text %zu cannot be cut", p->text);
    }
    if (ps[np - 1].text + 1 != n) return tc_error_set(err, TC_ERR_ARG, "encode_batch: the pieces miss a text");
    size_t ntail = 0;
    for (size_t j = 0; j < np; j++) ntail += ps[j].tail != 0;
    size_t nj = np + ntail;
    size_t need = tc_cut_scratch(ps, np);
    const uint8_t **jt = calloc(nj, sizeof *jt);
    size_t *jl = calloc(nj, sizeof *jl);
    tc_encoding **dst = calloc(nj, sizeof *dst);
    tc_encoding **tails = calloc(np, sizeof *tails);
    tc_encoding *own = NULL;   /* the pieces after a text's first, and the tails, when the caller has no room */
    if (!scratch || nscratch < need) {
        own = calloc(need ? need : 1, sizeof *own);
        scratch = own;
    }
    int rc = TC_OK;
    if (!jt || !jl || !dst || !tails || !scratch) {
        rc = tc_error_set(err, TC_ERR_NOMEM, "encode_batch: out of memory");
        goto out;
    }
    int ids_only = (flags & TC_ENCODE_IDS_ONLY) != 0;
    size_t nt = 0, k = np;
    for (size_t j = 0; j < np; j++) {
        const tc_cut_piece *p = &ps[j];
        jt[j] = texts[p->text] ? texts[p->text] + p->start : NULL;
        jl[j] = p->keep + p->tail;
        int first = j == 0 || ps[j - 1].text != p->text;
        dst[j] = first ? &outs[p->text] : &scratch[nt++];
        /* A cut text's first piece is encoded where the whole text's tokens will be: room for the
         * estimate a whole encode reserves (pipeline.c: len / 3 + 16), so that the join appends the
         * later pieces in place. Sized for its piece, the join's reserve moved the piece's arrays: a
         * serial copy with page faults while the other thread waited (War and Peace, ids only, two
         * threads: 150-330 us of a 4.4 ms call). Only a hint: without the memory the join grows it. */
        if (first && j + 1 < np && ps[j + 1].text == p->text) {
            size_t want = lens[p->text] / 3 + 16;
            (void)(ids_only ? tc_encoding_reserve_ids(dst[j], want) : tc_encoding_reserve(dst[j], want));
        }
        if (p->tail) {
            jt[k] = texts[p->text] + p->start + p->keep;
            jl[k] = p->tail;
            dst[k] = tails[j] = &scratch[nt++];
            k++;
        }
    }
    size_t bad = 0;
    tc_error e = {0};
    if (tc_batch_into(tok, jt, jl, nj, add_special_tokens, encoder, flags, threads, NULL, dst, &bad, &e) != TC_OK) {
        /* the whole texts again: their error names the caller's index */
        rc = tc_encode_batch(tok, texts, lens, n, add_special_tokens, encoder, flags, threads, outs, failed, err);
        goto out;
    }
    copy_shared cs;
    cs.jobs = calloc(np, sizeof *cs.jobs);
    cs.n = 0;
    cs.ids_only = ids_only;
    atomic_init(&cs.next, 0);
    if (!cs.jobs) {
        rc = tc_error_set(err, TC_ERR_NOMEM, "encode_batch: out of memory");
        goto out;
    }
    for (size_t lo = 0, hi; lo < np && rc == TC_OK; lo = hi) {
        for (hi = lo + 1; hi < np && ps[hi].text == ps[lo].text;) hi++;
        if (hi - lo == 1) continue;
        size_t i = ps[lo].text;
        int j = plan_join(texts[i], ps, lo, hi, dst, tails, ids_only, cs.jobs, &cs.n);
        if (j > 0) {   /* not seen with a local pipeline: the text's own encode then */
            j = tc_encode_flags(tok, texts[i], lens[i], add_special_tokens, encoder, flags, &outs[i], NULL, &e);
            if (j != TC_OK) {
                if (err) *err = e;
                if (failed) *failed = i;
                rc = j;
            }
        } else if (j < 0) {
            rc = tc_error_set(err, TC_ERR_NOMEM, "encode_batch: out of memory");
        }
    }
    /* the copies on the threads too: War and Peace's offsets copied by one thread were a tenth of a
     * two-thread batch with offsets */
    if (rc == TC_OK && cs.n) {
        unsigned nt = threads ? threads : 1;
        if (nt > TC_MAX_THREADS) nt = TC_MAX_THREADS;
        if ((size_t)nt > cs.n) nt = (unsigned)cs.n;
        void *args[TC_MAX_THREADS];
        for (unsigned t = 0; t < nt; t++) args[t] = &cs;
        (void)tc_run_threads(nt, copy_work, args);
    }
    free(cs.jobs);
out:
    if (own) for (size_t j = 0; j < need; j++) tc_encoding_free(&own[j]);
    free(own);
    free(tails);
    free(dst);
    free(jl);
    free(jt);
    return rc;
}
