/* spm.c - llama.cpp's SentencePiece-style tokenizer of one fragment
 * (llm_tokenizer_spm_session::tokenize in src/llama-vocab.cpp of the
 * llama.cpp vendored by llama-cpp-python 0.3.36), for GGUF "llama" models.
 *
 * Does: split the (already escaped, "▁"-prefixed) text into UTF-8 units
 * (unicode_len_utf8: the length the first byte announces, cut at the end),
 * push every adjacent pair whose concatenation is a token, then merge the
 * pair of the highest score first (ties: the leftmost, llm_bigram_spm's
 * comparator), skipping stale pairs (either side merged, or the sizes no
 * longer add up), and emit each final symbol: its token, or the tokens of
 * the two symbols it was last merged from (resegment via rev_merge), or its
 * bytes as "<0xNN>" tokens (byte_to_token).
 * Does not: the escaping and the space prefix (pipeline.c's Metaspace step
 * with TC_PREPEND_LLAMA does them), special tokens (added.c).
 * Cost: O(n log n) per fragment in the number of UTF-8 units.
 */
#include "bpe.h"
#include "spm.h"

typedef struct spm_sym { int32_t prev, next; uint32_t start, n; } spm_sym;
typedef struct spm_pair { float score; int32_t left, right; uint32_t size; } spm_pair;

/* the pair that pops first: higher score, then lower left index */
static int pair_before(const spm_pair *a, const spm_pair *b) {
    return a->score > b->score || (a->score == b->score && a->left < b->left);
}

typedef struct spm_heap { spm_pair *v; size_t n, cap; } spm_heap;

static int heap_push(spm_heap *h, spm_pair p) {
    if (h->n == h->cap) {
        void *q = h->v;
        if (tc_grow(&q, &h->cap, h->n + 1, sizeof *h->v) != 0) return -1;
        h->v = q;
    }
    size_t i = h->n++;
    while (i > 0) {
        size_t up = (i - 1) / 2;
        if (!pair_before(&p, &h->v[up])) break;
        h->v[i] = h->v[up];
        i = up;
    }
    h->v[i] = p;
    return 0;
}

static spm_pair heap_pop(spm_heap *h) {
    spm_pair top = h->v[0], last = h->v[--h->n];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        const spm_pair *best = &last;
        if (l < h->n && pair_before(&h->v[l], best)) { m = l; best = &h->v[l]; }
        if (r < h->n && pair_before(&h->v[r], best)) m = r;
        if (m == i) break;
        h->v[i] = h->v[m];
        i = m;
    }
    if (h->n) h->v[i] = last;
    return top;
}

/* unicode_len_utf8: by the first byte's high nibble */
static uint32_t utf8_len(uint8_t c) {
    static const uint8_t lookup[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4};
    return lookup[c >> 4];
}

typedef struct spm_run {
    const tc_tokenizer *tok;
    const uint8_t *text;
    spm_sym *syms;
    spm_heap heap;
    /* rev_merge: for a merged symbol (by its left index) the two it was made of
     * when its text was last pushed; a text's last push is what resegment finds */
    int32_t *rev_l, *rev_r;
    tc_bpe_scratch *sc;
} spm_run;

static int try_add(spm_run *r, int32_t left, int32_t right) {
    if (left < 0 || right < 0) return 0;
    const tc_model *m = &r->tok->model;
    uint32_t size = r->syms[left].n + r->syms[right].n;
    int64_t id = tc_vocab_find(&m->vocab, r->text + r->syms[left].start, size);
    if (id < 0) return 0;
    spm_pair p = {m->scores ? m->scores[id] : 0.0f, left, right, size};
    return heap_push(&r->heap, p);
}

static int emit(tc_bpe_scratch *sc, uint32_t id, uint32_t s, uint32_t e) {
    if (sc->nout == sc->out_cap) {
        void *p = sc->out;
        if (tc_grow(&p, &sc->out_cap, sc->nout + 1, sizeof *sc->out) != 0) return -1;
        sc->out = p;
    }
    sc->out[sc->nout].id = id; sc->out[sc->nout].start = s; sc->out[sc->nout].end = e;
    sc->nout++;
    return 0;
}

/* resegment: the symbol's text as a token, else its parts, else its bytes */
static int resegment(spm_run *r, uint32_t start, uint32_t n, int32_t at, int depth) {
    const tc_model *m = &r->tok->model;
    int64_t id = tc_vocab_find(&m->vocab, r->text + start, n);
    if (id >= 0) return emit(r->sc, (uint32_t)id, start, start + n);
    if (at >= 0 && r->rev_l[at] >= 0 && depth < 64) {
        int32_t a = r->rev_l[at], b = r->rev_r[at];
        uint32_t an = r->syms[b].start - r->syms[a].start;
        if (resegment(r, start, an, -1, depth + 1) != 0) return -1;
        return resegment(r, start + an, n - an, -1, depth + 1);
    }
    for (uint32_t j = 0; j < n; j++) {   /* byte_to_token: "<0xNN>"; a byte without one is dropped */
        int64_t b = m->fallback_ids[r->text[start + j]];
        if (b >= 0 && emit(r->sc, (uint32_t)b, start + j, start + j + 1) != 0) return -1;
    }
    return 0;
}

int tc_spm_chunk(const tc_tokenizer *tok, tc_bpe_scratch *sc, const uint8_t *text, size_t len) {
    sc->nout = 0;
    if (len == 0) return 0;
    spm_run r;
    memset(&r, 0, sizeof r);
    r.tok = tok; r.text = text; r.sc = sc;
    int rc = -1;
    r.syms = malloc(len * sizeof *r.syms);
    r.rev_l = malloc(len * sizeof *r.rev_l);
    r.rev_r = malloc(len * sizeof *r.rev_r);
    if (!r.syms || !r.rev_l || !r.rev_r) goto out;
    int32_t n = 0;
    for (size_t off = 0; off < len; n++) {
        uint32_t l = utf8_len(text[off]);
        if (l > len - off) l = (uint32_t)(len - off);
        r.syms[n].start = (uint32_t)off; r.syms[n].n = l;
        r.syms[n].prev = n - 1;
        off += l;
        r.syms[n].next = off == len ? -1 : n + 1;
        r.rev_l[n] = r.rev_r[n] = -1;
    }
    for (int32_t i = 1; i < n; i++)
        if (try_add(&r, i - 1, i) != 0) goto out;
    while (r.heap.n) {
        spm_pair p = heap_pop(&r.heap);
        spm_sym *L = &r.syms[p.left], *R = &r.syms[p.right];
        if (L->n == 0 || R->n == 0 || L->n + R->n != p.size) continue;   /* stale */
        r.rev_l[p.left] = p.left; r.rev_r[p.left] = p.right;
        L->n += R->n;
        R->n = 0;
        L->next = R->next;
        if (R->next >= 0) r.syms[R->next].prev = p.left;
        if (try_add(&r, L->prev, p.left) != 0 || try_add(&r, p.left, L->next) != 0) goto out;
    }
    for (int32_t i = 0; i != -1; i = r.syms[i].next)
        if (resegment(&r, r.syms[i].start, r.syms[i].n, i, 0) != 0) goto out;
    rc = 0;
out:
    free(r.syms); free(r.rev_l); free(r.rev_r); free(r.heap.v);
    return rc;
}
