/* greedy.c - the ideal longest-prefix encoder (seed 000's board design) over a byte trie
 * (see greedy.h for the rules).
 *
 * Does: build an immutable trie whose nodes are laid out breadth-first so
 * the children of a node are contiguous and sorted by byte (12 bytes per
 * node, a 256-entry table for the root); match at each position by one walk
 * down the trie, remembering the deepest special and the deepest entry.
 * Does not: merge, normalize, or allocate per match (one stored-form buffer
 * and one offset map per call).
 *
 * Build: every node owns the range of the entries that share its prefix;
 * a node orders its range by the next byte (counting sort, insertion sort
 * for small ranges: an MSD radix sort done node by node) and its children
 * are the runs of equal byte, created contiguously in breadth-first order.
 * O(total bytes). Performance notes (x86-64, -O2, 2 busy cores, Qwen3:
 * 151,669 entries, 1.04 MB, 335,931 nodes): qsort with a memcmp comparator
 * followed by the same pass took 61-100 ms, 70% of it in qsort; the radix
 * build takes ~30 ms. Encoding 1 MiB of mixed text: ~25-35 ms.
 * Matching: O(stored length x longest match); children are scanned
 * linearly up to 8, by binary search above.
 */
#include "greedy.h"

#define NONE 0xFFFFFFFFu
#define LINEAR_CHILDREN 8

typedef struct g_node {
    uint32_t first_child;   /* index of the first child node */
    uint32_t term;          /* index into terms, NONE if no entry ends here */
    uint16_t nchild;        /* 0..256 */
    uint8_t byte;           /* the edge byte leading here */
} g_node;

typedef struct g_term {
    uint32_t best;          /* lowest id with these bytes */
    uint32_t best_special;  /* lowest special id with these bytes, NONE if none */
    uint32_t ids_first;     /* all ids with these bytes, ascending, in g->ids */
    uint32_t ids_count;
} g_term;

struct tc_greedy {
    g_node *nodes; size_t nnodes;
    uint32_t root[256];     /* child of the root per byte, NONE if none */
    g_term *terms; size_t nterms;
    uint32_t *ids;          /* n ids grouped by term */
    uint32_t max_len;
};

typedef struct g_rec {
    const uint8_t *p;
    uint32_t len, id;
    uint8_t special;
} g_rec;

#define COUNTING_SORT_MIN 32   /* below this many entries a node sorts by insertion (16: 32 ms, 32: ~30 ms, 48: 45 ms, 96: 40 ms) */

/* The byte of r at depth d, or -1 when r ends there (ends sort first). */
static int key_at(const g_rec *r, uint32_t d) { return r->len == d ? -1 : r->p[d]; }

/* Orders recs[lo, hi) by their byte at depth d (entries ending at d first):
 * one MSD radix step, so the whole build is a radix sort done node by
 * node. tmp has room for hi - lo records. */
static void sort_by_key(g_rec *recs, g_rec *tmp, uint32_t lo, uint32_t hi, uint32_t d) {
    if (hi - lo < COUNTING_SORT_MIN) {
        for (uint32_t i = lo + 1; i < hi; i++) {
            g_rec r = recs[i];
            int k = key_at(&r, d);
            uint32_t j = i;
            while (j > lo && key_at(&recs[j - 1], d) > k) { recs[j] = recs[j - 1]; j--; }
            recs[j] = r;
        }
        return;
    }
    uint32_t count[258] = {0};
    for (uint32_t i = lo; i < hi; i++) count[key_at(&recs[i], d) + 2]++;
    for (int b = 1; b < 258; b++) count[b] += count[b - 1];
    for (uint32_t i = lo; i < hi; i++) tmp[count[key_at(&recs[i], d) + 1]++] = recs[i];
    memcpy(recs + lo, tmp, (size_t)(hi - lo) * sizeof *recs);
}

/* Entries with equal bytes: ascending ids (lists are tiny). */
static void sort_by_id(g_rec *recs, uint32_t lo, uint32_t hi) {
    for (uint32_t i = lo + 1; i < hi; i++) {
        g_rec r = recs[i];
        uint32_t j = i;
        while (j > lo && recs[j - 1].id > r.id) { recs[j] = recs[j - 1]; j--; }
        recs[j] = r;
    }
}

size_t tc_greedy_node_count(const tc_greedy *g) { return g ? g->nnodes : 0; }
uint32_t tc_greedy_max_len(const tc_greedy *g) { return g ? g->max_len : 0; }

void tc_greedy_free(tc_greedy *g) {
    if (!g) return;
    free(g->nodes);
    free(g->terms);
    free(g->ids);
    free(g);
}

tc_greedy *tc_greedy_build(size_t n, const uint32_t *ids, const uint8_t *const *bytes, const uint32_t *lens,
                           const uint8_t *special, tc_error *err) {
    if (n > 0 && (!ids || !bytes || !lens)) {
        tc_error_set(err, TC_ERR_ARG, "greedy: missing entry arrays");
        return NULL;
    }
    if (n >= NONE) {
        tc_error_set(err, TC_ERR_LIMIT, "greedy: %zu entries, above the limit", n);
        return NULL;
    }
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        if (lens[i] == 0 || lens[i] > TC_GREEDY_MAX_ENTRY_BYTES || !bytes[i]) {
            tc_error_set(err, TC_ERR_FORMAT, "greedy: entry %zu (id %u) has %u stored bytes (must be 1..%u)", i, ids[i],
                         lens[i], TC_GREEDY_MAX_ENTRY_BYTES);
            return NULL;
        }
        if (ids[i] == NONE) {
            tc_error_set(err, TC_ERR_LIMIT, "greedy: entry %zu has id %u, reserved", i, ids[i]);
            return NULL;
        }
        total += lens[i];
    }
    if (total >= NONE - 1) {
        tc_error_set(err, TC_ERR_LIMIT, "greedy: %zu stored bytes, above the 4 GB limit", total);
        return NULL;
    }
    tc_greedy *g = calloc(1, sizeof *g);
    g_rec *recs = malloc((n ? n : 1) * sizeof *recs), *tmp = malloc((n ? n : 1) * sizeof *tmp);
    size_t cap = total + 1;                       /* a trie has at most one node per byte, plus the root */
    uint32_t *lo = malloc(cap * sizeof *lo), *hi = malloc(cap * sizeof *hi), *depth = malloc(cap * sizeof *depth);
    if (g) {
        g->nodes = malloc(cap * sizeof *g->nodes);
        g->terms = malloc((n ? n : 1) * sizeof *g->terms);
        g->ids = malloc((n ? n : 1) * sizeof *g->ids);
    }
    if (!g || !recs || !tmp || !lo || !hi || !depth || !g->nodes || !g->terms || !g->ids) {
        tc_error_set(err, TC_ERR_NOMEM, "greedy: out of memory for %zu entries", n);
        goto fail;
    }
    for (size_t i = 0; i < n; i++) {
        recs[i].p = bytes[i];
        recs[i].len = lens[i];
        recs[i].id = ids[i];
        recs[i].special = special ? (special[i] != 0) : 0;
        if (lens[i] > g->max_len) g->max_len = lens[i];
    }
    for (int b = 0; b < 256; b++) g->root[b] = NONE;

    /* breadth-first: node i covers recs[lo[i], hi[i]), all sharing their
     * first depth[i] bytes; nodes are appended in the order they are
     * created, so processing i = 0, 1, ... visits them breadth-first */
    g->nnodes = 1;
    g->nodes[0] = (g_node){0, NONE, 0, 0};
    lo[0] = 0; hi[0] = (uint32_t)n; depth[0] = 0;
    size_t nids = 0;
    for (size_t i = 0; i < g->nnodes; i++) {
        uint32_t k = lo[i], end = hi[i], d = depth[i];
        sort_by_key(recs, tmp, k, end, d);
        /* entries ending exactly here sort first in the range */
        if (k < end && recs[k].len == d) {
            uint32_t t_end = k;
            while (t_end < end && recs[t_end].len == d) t_end++;
            sort_by_id(recs, k, t_end);
            g_term *t = &g->terms[g->nterms];
            t->best = recs[k].id;
            t->best_special = NONE;
            t->ids_first = (uint32_t)nids;
            while (k < end && recs[k].len == d) {
                if (recs[k].special && t->best_special == NONE) t->best_special = recs[k].id;
                g->ids[nids] = recs[k].id;
                nids++;
                k++;
            }
            t->ids_count = (uint32_t)nids - t->ids_first;
            g->nodes[i].term = (uint32_t)g->nterms++;
        }
        /* children: runs of equal byte at position d */
        g->nodes[i].first_child = (uint32_t)g->nnodes;
        while (k < end) {
            uint8_t b = recs[k].p[d];
            uint32_t run = k;
            while (k < end && recs[k].p[d] == b) k++;
            size_t c = g->nnodes++;
            g->nodes[c] = (g_node){0, NONE, 0, b};
            lo[c] = run; hi[c] = k; depth[c] = d + 1;
            g->nodes[i].nchild++;
            if (i == 0) g->root[b] = (uint32_t)c;
        }
    }
    free(recs);
    free(tmp);
    free(lo);
    free(hi);
    free(depth);
    /* give back the unused part of the upper bound (never fails to shrink
     * in practice; keep the old block if it does) */
    g_node *shrunk = realloc(g->nodes, g->nnodes * sizeof *g->nodes);
    if (shrunk) g->nodes = shrunk;
    return g;
fail:
    free(recs);
    free(tmp);
    free(lo);
    free(hi);
    free(depth);
    tc_greedy_free(g);
    return NULL;
}

static uint32_t child_of(const tc_greedy *g, const g_node *nd, uint8_t b) {
    uint32_t a = nd->first_child, z = a + nd->nchild;
    if (nd->nchild <= LINEAR_CHILDREN) {
        for (; a < z; a++)
            if (g->nodes[a].byte == b) return a;
        return NONE;
    }
    while (a < z) {
        uint32_t m = a + (z - a) / 2;
        uint8_t mb = g->nodes[m].byte;
        if (mb == b) return m;
        if (mb < b) a = m + 1;
        else z = m;
    }
    return NONE;
}

uint32_t tc_greedy_walk(const tc_greedy *g, uint32_t node, uint8_t b) {
    if (node == TC_GREEDY_ROOT) return g->root[b];
    if (node >= g->nnodes || g->nodes[node].nchild == 0) return NONE;
    return child_of(g, &g->nodes[node], b);
}

uint32_t tc_greedy_node_id(const tc_greedy *g, uint32_t node) {
    if (node >= g->nnodes || g->nodes[node].term == NONE) return TC_GREEDY_NO_ID;
    return g->terms[g->nodes[node].term].best;
}

void tc_greedy_out_free(tc_greedy_out *o) {
    if (!o) return;
    free(o->toks);
    free(o->steps);
    free(o->cands);
    memset(o, 0, sizeof *o);
}

/* Original end offset of a match ending before stored byte e: inside a
 * marker (its second byte has the same original offset as its first) the
 * end rounds up past that original byte. */
static uint32_t orig_end(const uint32_t *orig, size_t slen, size_t e, size_t len) {
    if (e >= slen) return (uint32_t)len;
    if (e > 0 && orig[e] == orig[e - 1]) return orig[e] + 1;
    return orig[e];
}

int tc_greedy_encode(const tc_greedy *g, const uint8_t *text, size_t len, int trace, tc_greedy_out *out,
                     tc_error *err) {
    if (!g || !out || (!text && len)) return tc_error_set(err, TC_ERR_ARG, "greedy: missing argument");
    out->n = out->nsteps = out->ncands = out->dropped = 0;
    if (len > TC_GREEDY_MAX_TEXT_BYTES)
        return tc_error_set(err, TC_ERR_LIMIT, "greedy: text of %zu bytes above the limit of %u", len, TC_GREEDY_MAX_TEXT_BYTES);
    if (len == 0) return TC_OK;

    /* 1. stored representation and, per stored byte, its original offset */
    size_t slen = len;
    for (size_t i = 0; i < len; i++) slen += text[i] <= 0x20;
    uint8_t *s = malloc(slen);
    uint32_t *orig = malloc(slen * sizeof *orig);
    if (!s || !orig) {
        free(s);
        free(orig);
        return tc_error_set(err, TC_ERR_NOMEM, "greedy: out of memory for a %zu-byte text", len);
    }
    for (size_t i = 0, k = 0; i < len; i++) {
        uint8_t c = text[i];
        if (c <= 0x20) {
            s[k] = 0xC4; orig[k++] = (uint32_t)i;
            s[k] = (uint8_t)(0x80 + c); orig[k++] = (uint32_t)i;
        } else {
            s[k] = c; orig[k++] = (uint32_t)i;
        }
    }

    /* 2. one trie walk per position */
    int rc = TC_OK;
    for (size_t p = 0; p < slen;) {
        size_t best_len = 0, spec_len = 0;
        uint32_t best_id = NONE, spec_id = NONE;
        size_t cand_first = out->ncands;
        uint32_t node = g->root[s[p]];
        size_t q = p + 1;
        while (node != NONE) {
            const g_node *nd = &g->nodes[node];
            if (nd->term != NONE) {
                const g_term *t = &g->terms[nd->term];
                best_len = q - p; best_id = t->best;
                if (t->best_special != NONE) { spec_len = q - p; spec_id = t->best_special; }
                if (trace) {
                    if (out->ncands + t->ids_count >= NONE) {
                        rc = tc_error_set(err, TC_ERR_LIMIT, "greedy: trace above 2^32 candidates");
                        goto done;
                    }
                    void *c = out->cands;
                    if (tc_grow(&c, &out->cands_cap, out->ncands + t->ids_count, sizeof *out->cands) != 0) goto oom;
                    out->cands = c;
                    memcpy(out->cands + out->ncands, g->ids + t->ids_first, t->ids_count * sizeof *out->cands);
                    out->ncands += t->ids_count;
                }
            }
            if (q >= slen || nd->nchild == 0) break;
            node = child_of(g, nd, s[q]);
            q++;
        }
        uint32_t id = NONE;
        size_t mlen;
        uint8_t is_special = 0;
        if (spec_len) { id = spec_id; mlen = spec_len; is_special = 1; }
        else if (best_len) { id = best_id; mlen = best_len; }
        else {
            /* no entry: drop one stored unit (a whole marker when p starts one) */
            mlen = (p + 1 < slen && orig[p + 1] == orig[p] && (p == 0 || orig[p - 1] != orig[p])) ? 2 : 1;
            out->dropped++;
        }
        if (id != NONE) {
            void *t = out->toks;
            if (tc_grow(&t, &out->cap, out->n + 1, sizeof *out->toks) != 0) goto oom;
            out->toks = t;
            tc_greedy_tok *tk = &out->toks[out->n++];
            tk->id = id;
            tk->start = orig[p];
            tk->end = orig_end(orig, slen, p + mlen, len);
            tk->special = is_special;
        }
        if (trace) {
            void *t = out->steps;
            if (tc_grow(&t, &out->steps_cap, out->nsteps + 1, sizeof *out->steps) != 0) goto oom;
            out->steps = t;
            tc_greedy_step *st = &out->steps[out->nsteps++];
            st->pos = orig[p];
            st->chosen = id;
            st->chosen_len = (uint32_t)mlen;
            st->ncand = (uint32_t)(out->ncands - cand_first);
            st->cand_first = (uint32_t)cand_first;
        }
        p += mlen;
    }
    goto done;
oom:
    rc = tc_error_set(err, TC_ERR_NOMEM, "greedy: out of memory");
done:
    free(s);
    free(orig);
    return rc;
}
