/* unigram.c - the Unigram model, as HF `tokenizers` 0.23.3 runs it.
 *
 * Rules (huggingface/tokenizers, tokenizers/src/models/unigram/, read at
 * v0.23.1 = 7f1623b9 and 3ba8ad00; unchanged between them):
 *  - model.rs Unigram::from: ids are vocabulary positions; token_to_ids is
 *    filled in id order, so a piece given twice maps to its last id (and
 *    the trie leaf's score is that id's); min_score is the minimum score;
 *    unk_id >= len is refused ("The `unk_id` is larger than vocabulary
 *    size"), as is an empty vocab with an unk_id.
 *  - trie.rs common_prefix_search: every piece that is a byte prefix of the
 *    text at a position, shortest first; the empty piece is never found.
 *  - model.rs encode_optimized (what `encode` runs: is_optimized is always
 *    true, alpha None): positions are char starts; a candidate replaces the
 *    best path ending at key_pos only when that node is unset or its score
 *    is strictly greater (score + best_path_score_till_here); a position
 *    with no piece of exactly one char gets an unknown candidate of one char
 *    with score min_score - K_UNK_PENALTY (10.0), and raises MissingUnkId
 *    only when that candidate wins and unk_id is None.
 *  - backtracking with fuse_unk (always true): consecutive unknown nodes are
 *    one string.
 *  - model.rs tokenize: each string is looked up in token_to_ids (so fused
 *    unknowns that spell a piece get its id); a string not found becomes,
 *    with byte_fallback, one "<0xNN>" token per byte, all spanning the whole
 *    string, if every such token exists, else unk_id (MissingUnkId if none).
 */
#include "unigram.h"

#include <math.h>
#include <stdio.h>

#define UNK_PENALTY 10.0   /* model.rs K_UNK_PENALTY */

/* Trie node: its children are the nodes [first, first + nchild), sorted by
 * the byte that leads to them (label[]). */
typedef struct ug_node {
    uint32_t first, nchild;
    int32_t id;        /* the piece ending here (last id of that string), -1 none */
} ug_node;

struct tc_unigram {
    double *scores; uint32_t n;
    double min_score;
    int64_t unk_id;
    int byte_fallback;
    ug_node *nodes; uint8_t *label; size_t nnodes;
    int64_t fallback_ids[256];   /* "<0xNN>" ids (token_to_ids), -1 absent */
};

void tc_unigram_free(tc_unigram *u) {
    if (!u) return;
    free(u->scores);
    free(u->nodes);
    free(u->label);
    free(u);
}

double tc_unigram_score(const tc_unigram *u, uint32_t id) { return id < u->n ? u->scores[id] : NAN; }
double tc_unigram_unk_score(const tc_unigram *u) { return u->min_score - UNK_PENALTY; }

static int utf8_valid(const uint8_t *s, size_t len) {
    for (size_t i = 0; i < len;) {
        int ul;
        if (tc_utf8_decode(s, len, i, &ul) >= TC_CP_INVALID_BASE) return 0;
        i += (size_t)ul;
    }
    return 1;
}

/* ---- trie construction ---------------------------------------------------- */

typedef struct sort_ctx { const uint8_t *const *p; const size_t *l; } sort_ctx;

/* Sorts ids by piece bytes (ties: ascending id) with a merge sort: no
 * qsort context pointer in C11. */
static int piece_less(const sort_ctx *c, uint32_t a, uint32_t b) {
    size_t la = c->l[a], lb = c->l[b], m = la < lb ? la : lb;
    int r = m ? memcmp(c->p[a], c->p[b], m) : 0;
    if (r) return r < 0;
    if (la != lb) return la < lb;
    return a < b;
}

static void sort_ids(const sort_ctx *c, uint32_t *v, uint32_t *tmp, size_t n) {
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t x = lo, y = mid, k = lo;
            while (x < mid && y < hi) tmp[k++] = piece_less(c, v[y], v[x]) ? v[y++] : v[x++];
            while (x < mid) tmp[k++] = v[x++];
            while (y < hi) tmp[k++] = v[y++];
        }
        memcpy(v, tmp, n * sizeof *v);
    }
}

typedef struct build_item { uint32_t lo, hi, depth, node; } build_item;

/* Breadth-first: the strings sorted[lo, hi) share their first `depth`
 * bytes and end at or below `node`. */
static int build_trie(tc_unigram *u, const sort_ctx *c, const uint32_t *sorted, uint32_t n) {
    size_t cap = 1, qcap = 0, qh = 0, qn = 0;
    build_item *q = NULL;
    u->nodes = malloc(sizeof *u->nodes);
    u->label = malloc(1);
    if (!u->nodes || !u->label) return -1;
    u->nodes[0].first = 0; u->nodes[0].nchild = 0; u->nodes[0].id = -1;
    u->label[0] = 0;
    u->nnodes = 1;
    {
        void *p = q;
        if (tc_grow(&p, &qcap, 1, sizeof *q) != 0) return -1;
        q = p;
    }
    q[qn++] = (build_item){0, n, 0, 0};
    int rc = 0;
    while (qh < qn && rc == 0) {
        build_item it = q[qh++];
        uint32_t lo = it.lo;
        /* strings that end here: the last id wins (token_to_ids insert order) */
        while (lo < it.hi && c->l[sorted[lo]] == it.depth) {
            u->nodes[it.node].id = (int32_t)sorted[lo];
            lo++;
        }
        /* count the distinct next bytes */
        uint32_t groups = 0;
        for (uint32_t i = lo; i < it.hi;) {
            uint8_t b = c->p[sorted[i]][it.depth];
            uint32_t j = i + 1;
            while (j < it.hi && c->p[sorted[j]][it.depth] == b) j++;
            groups++;
            i = j;
        }
        if (groups == 0) continue;
        size_t first = u->nnodes;
        if (first + groups > cap) {
            size_t c1 = cap, c2 = cap;
            void *p = u->nodes, *pl = u->label;
            if (tc_grow(&p, &c1, first + groups, sizeof *u->nodes) != 0) { rc = -1; break; }
            u->nodes = p;
            if (tc_grow(&pl, &c2, first + groups, 1) != 0) { rc = -1; break; }
            u->label = pl;
            cap = c1 < c2 ? c1 : c2;
        }
        if (qn + groups > qcap) {
            void *p = q;
            if (tc_grow(&p, &qcap, qn + groups, sizeof *q) != 0) { rc = -1; break; }
            q = p;
        }
        u->nodes[it.node].first = (uint32_t)first;
        u->nodes[it.node].nchild = groups;
        size_t k = first;
        for (uint32_t i = lo; i < it.hi;) {
            uint8_t b = c->p[sorted[i]][it.depth];
            uint32_t j = i + 1;
            while (j < it.hi && c->p[sorted[j]][it.depth] == b) j++;
            u->nodes[k].first = 0; u->nodes[k].nchild = 0; u->nodes[k].id = -1;
            u->label[k] = b;
            q[qn++] = (build_item){i, j, it.depth + 1, (uint32_t)k};
            k++;
            i = j;
        }
        u->nnodes = k;
    }
    free(q);
    return rc;
}

/* The child of node reached by byte b, or 0 (the root is never a child). */
static inline uint32_t child(const tc_unigram *u, uint32_t node, uint8_t b) {
    uint32_t lo = u->nodes[node].first, hi = lo + u->nodes[node].nchild;
    if (hi - lo <= 8) {
        for (uint32_t i = lo; i < hi; i++) if (u->label[i] == b) return i;
        return 0;
    }
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (u->label[mid] < b) lo = mid + 1;
        else hi = mid;
    }
    return lo < u->nodes[node].first + u->nodes[node].nchild && u->label[lo] == b ? lo : 0;
}

/* token_to_ids: the id of exactly this string, -1 if none. */
static int64_t lookup(const tc_unigram *u, const uint8_t *s, size_t len) {
    uint32_t node = 0;
    for (size_t i = 0; i < len; i++) {
        node = child(u, node, s[i]);
        if (!node) return -1;
    }
    return len ? u->nodes[node].id : -1;   /* "" is never in the trie's search */
}

/* ---- the trie alone (SentencePiece .model and GGUF UGM run their own Viterbi over it) ---- */

tc_unigram *tc_unigram_trie_new(const uint8_t *const *pieces, const size_t *lens, uint32_t n, tc_error *err) {
    tc_unigram *u = calloc(1, sizeof *u);
    uint32_t *sorted = malloc((n ? n : 1) * sizeof *sorted), *tmp = malloc((n ? n : 1) * sizeof *tmp);
    if (!u || !sorted || !tmp) {
        free(u); free(sorted); free(tmp);
        tc_error_set(err, TC_ERR_NOMEM, "out of memory");
        return NULL;
    }
    u->n = n; u->unk_id = -1;
    /* only the pieces in the trie are sorted: a GGUF's user-defined matcher holds a handful of 250k */
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++)
        if (lens[i]) sorted[m++] = i;
    sort_ctx c = {pieces, lens};
    sort_ids(&c, sorted, tmp, m);
    int rc = build_trie(u, &c, sorted, m);
    free(sorted);
    free(tmp);
    if (rc != 0) {
        tc_unigram_free(u);
        tc_error_set(err, TC_ERR_NOMEM, "out of memory");
        return NULL;
    }
    return u;
}

uint32_t tc_unigram_trie_step(const tc_unigram *u, uint32_t node, uint8_t b) { return child(u, node, b); }

int32_t tc_unigram_trie_id(const tc_unigram *u, uint32_t node) { return u->nodes[node].id; }

int tc_model_set_unigram(tc_tokenizer *tok, const uint8_t *const *pieces, const size_t *lens, const double *scores,
                         uint32_t n, int64_t unk_id, int byte_fallback, tc_error *err) {
    tc_model *m = &tok->model;
    /* model.rs Unigram::from */
    if (unk_id >= 0 && n == 0) return tc_error_set(err, TC_ERR_FORMAT, "the vocabulary is empty but an unk_id is given (HF: \"The vocabulary is empty but at least <unk> is needed\")");
    if (unk_id >= 0 && (uint64_t)unk_id >= n)
        return tc_error_set(err, TC_ERR_FORMAT, "unk_id %lld is out of range: the vocabulary has %u pieces (HF: \"The `unk_id` is larger than vocabulary size\")", (long long)unk_id, n);
    if (n > TC_MAX_VOCAB) return tc_error_set(err, TC_ERR_LIMIT, "%u pieces, above the limit of %u", n, (unsigned)TC_MAX_VOCAB);
    tc_unigram *u = calloc(1, sizeof *u);
    if (!u) return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    u->n = n; u->unk_id = unk_id; u->byte_fallback = byte_fallback;
    u->min_score = INFINITY;
    u->scores = malloc((n ? n : 1) * sizeof *u->scores);
    uint32_t *sorted = malloc((n ? n : 1) * sizeof *sorted), *tmp = malloc((n ? n : 1) * sizeof *tmp);
    int rc = TC_OK;
    if (!u->scores || !sorted || !tmp) { rc = tc_error_set(err, TC_ERR_NOMEM, "out of memory"); goto out; }
    for (uint32_t i = 0; i < n; i++) {
        if (!isfinite(scores[i])) { rc = tc_error_set(err, TC_ERR_FORMAT, "piece %u: the score is not a finite number", i); goto out; }
        if (!utf8_valid(pieces[i], lens[i])) { rc = tc_error_set(err, TC_ERR_FORMAT, "piece %u is not valid UTF-8", i); goto out; }
        u->scores[i] = scores[i];
        if (scores[i] < u->min_score) u->min_score = scores[i];
        sorted[i] = i;
    }
    sort_ctx c = {pieces, lens};
    sort_ids(&c, sorted, tmp, n);
    if (build_trie(u, &c, sorted, n) != 0) { rc = tc_error_set(err, TC_ERR_NOMEM, "out of memory"); goto out; }
    for (int b = 0; b < 256; b++) {
        char name[8];
        snprintf(name, sizeof name, "<0x%02X>", (unsigned)b);
        u->fallback_ids[b] = lookup(u, (const uint8_t *)name, 6);
    }
    /* the vocabulary the rest of the engine reads (strings, real bytes) */
    if (tc_vocab_init(&m->vocab, n) != 0) { rc = tc_error_set(err, TC_ERR_NOMEM, "out of memory"); goto out; }
    for (uint32_t i = 0; i < n && rc == TC_OK; i++) {
        /* a piece given twice: each id keeps its string (id_to_token), lookups give the last id */
        rc = tc_vocab_set(&m->vocab, i, pieces[i], lens[i], (int)tok->bytes_rule, err);
    }
    if (rc == TC_OK) rc = tc_vocab_build_index(&m->vocab, err);
out:
    free(sorted);
    free(tmp);
    if (rc != TC_OK) { tc_unigram_free(u); return rc; }
    tc_unigram_free(m->unigram);
    m->unigram = u;
    m->kind = TC_MODEL_UNIGRAM;
    m->unk_id = unk_id;
    m->byte_fallback = byte_fallback;
    m->fuse_unk = 1;
    return TC_OK;
}

/* ---- encode ------------------------------------------------------------------ */

typedef struct best_node {
    double score;
    uint32_t start;   /* UINT32_MAX: unset */
    int64_t id;       /* the piece, or unk_id for an unknown char */
    int unk;          /* an unknown char (trace) */
} best_node;

static int push_lattice(tc_trace *tr, uint32_t start, uint32_t len, int64_t id, double score, double best) {
    void *p = tr->lattice;
    if (tc_grow(&p, &tr->lattice_cap, tr->nlattice + 1, sizeof *tr->lattice) != 0) return -1;
    tr->lattice = p;
    tc_trace_lattice_node *l = &tr->lattice[tr->nlattice++];
    l->start = start; l->len = len;
    l->id = id >= 0 ? (uint32_t)id : UINT32_MAX;
    l->score = score; l->path_score = best;
    l->unk = id < 0; l->best = 0; l->pad[0] = l->pad[1] = 0;
    return 0;
}

/* One string of the best path (a piece, or fused unknowns) -> tokens. */
static int emit(const tc_unigram *u, tc_bpe_scratch *sc, const uint8_t *s, uint32_t a, uint32_t b) {
    int64_t id = lookup(u, s + a, b - a);
    if (id >= 0) return tc_bpe_out_push(sc, (uint32_t)id, a, b);
    if (u->byte_fallback) {
        int all = 1;
        for (uint32_t i = a; i < b && all; i++) all = u->fallback_ids[s[i]] >= 0;
        if (all) {
            for (uint32_t i = a; i < b; i++)
                if (tc_bpe_out_push(sc, (uint32_t)u->fallback_ids[s[i]], a, b) != 0) return -1;
            return 0;
        }
    }
    if (u->unk_id < 0) return -3;
    return tc_bpe_out_push(sc, (uint32_t)u->unk_id, a, b);
}

int tc_unigram_chunk(const tc_tokenizer *tok, tc_bpe_scratch *sc, const uint8_t *s, size_t len, tc_trace *tr) {
    const tc_unigram *u = tok->model.unigram;
    sc->nout = 0;
    if (len == 0) return 0;
    if (len >= UINT32_MAX) return -1;
    size_t lat_first = tr ? tr->nlattice : 0;
    best_node *bn = malloc((len + 1) * sizeof *bn);
    if (!bn) return -1;
    for (size_t i = 0; i <= len; i++) { bn[i].score = 0.0; bn[i].start = UINT32_MAX; bn[i].id = -1; bn[i].unk = 0; }
    double unk_score = u->min_score - UNK_PENALTY;
    int rc = 0;
    for (size_t at = 0; at < len && rc == 0;) {
        double till = bn[at].score;
        int ul;
        (void)tc_utf8_decode(s, len, at, &ul);
        size_t mblen = (size_t)ul;
        int single = 0;
        uint32_t node = 0;
        for (size_t k = at; k < len; k++) {
            node = child(u, node, s[k]);
            if (!node) break;
            int32_t id = u->nodes[node].id;
            if (id < 0) continue;
            size_t key = k + 1;
            double cand = u->scores[id] + till;
            best_node *t = &bn[key];
            if (t->start == UINT32_MAX || cand > t->score) { t->score = cand; t->start = (uint32_t)at; t->id = id; t->unk = 0; }
            if (key - at == mblen) single = 1;
            if (tr && push_lattice(tr, (uint32_t)at, (uint32_t)(key - at), id, u->scores[id], cand) != 0) rc = -1;
        }
        if (!single && rc == 0) {
            best_node *t = &bn[at + mblen];
            double cand = unk_score + till;
            if (t->start == UINT32_MAX || cand > t->score) {
                if (u->unk_id < 0) rc = -3;   /* model.rs: ok_or(MissingUnkId)? */
                t->score = cand; t->start = (uint32_t)at; t->id = u->unk_id; t->unk = 1;
            }
            if (tr && rc == 0 && push_lattice(tr, (uint32_t)at, (uint32_t)mblen, u->unk_id >= 0 ? u->unk_id : -1, unk_score, cand) != 0) rc = -1;
            if (tr && rc == 0) tr->lattice[tr->nlattice - 1].unk = 1;
        }
        at += mblen;
    }
    if (rc != 0) { free(bn); return rc; }
    /* backtrack: spans [start, end) from the end, unknowns fused */
    size_t nsp = 0;
    uint32_t *sp = malloc(2 * (len + 1) * sizeof *sp);
    if (!sp) { free(bn); return -1; }
    uint32_t end = (uint32_t)len, fuse_end = UINT32_MAX;
    while (end > 0) {
        const best_node *b = &bn[end];
        uint32_t st = b->start;
        if (st == UINT32_MAX || st >= end) { rc = -1; break; }   /* unreachable: every char start is reached */
        if (tr) {
            /* mark the node of the best path in this position's candidates */
            for (size_t k = lat_first; k < tr->nlattice; k++) {
                tc_trace_lattice_node *l = &tr->lattice[k];
                if (l->start == st && l->start + l->len == end && (b->unk ? l->unk : (!l->unk && l->id == (uint32_t)b->id))) { l->best = 1; break; }
            }
        }
        /* model.rs: `self.fuse_unk && Some(node.id) == self.unk_id`: by id, so
         * the unk piece itself found in the text fuses too */
        if (u->unk_id >= 0 && b->id == u->unk_id) {
            if (fuse_end == UINT32_MAX) fuse_end = end;
        } else {
            if (fuse_end != UINT32_MAX) { sp[2 * nsp] = end; sp[2 * nsp + 1] = fuse_end; nsp++; fuse_end = UINT32_MAX; }
            sp[2 * nsp] = st; sp[2 * nsp + 1] = end; nsp++;
        }
        end = st;
    }
    if (rc == 0 && fuse_end != UINT32_MAX) { sp[2 * nsp] = 0; sp[2 * nsp + 1] = fuse_end; nsp++; }
    for (size_t k = nsp; rc == 0 && k-- > 0;) rc = emit(u, sc, s, sp[2 * k], sp[2 * k + 1]);
    free(sp);
    free(bn);
    return rc;
}
