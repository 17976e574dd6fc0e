/* added.c - added tokens (special and not): matching them in text.
 *
 * Does: a byte trie per kind (normalized=false tokens are matched in the
 * original text, normalized=true ones in the normalized text, with their
 * content normalized), leftmost-longest non-overlapping matching as HF's
 * aho-corasick MatchKind::LeftmostLongest, then single_word, lstrip and
 * rstrip exactly as AddedVocabulary::find_matches.
 * Does not: Aho-Corasick failure links: from each position the trie walk
 * is bounded by the longest token (a few dozen bytes), and positions whose
 * byte starts no token are skipped by a 256-entry table.
 */
#include "added.h"
#include "unicode.h"

void tc_trie_free(tc_trie *t) {
    free(t->nodes);
    free(t->edges);
    memset(t, 0, sizeof *t);
}

/* Build: insert every token into a simple node array with per-node sorted
 * child lists (kept in a temporary dense 256-way form, then packed). */
typedef struct tnode { int32_t child[256]; int32_t token; } tnode;

int tc_trie_build(tc_trie *t, const tc_tokenizer *tok, int normalized, const tc_buf *norm_contents,
                  const uint32_t *norm_offsets) {
    memset(t, 0, sizeof *t);
    tnode *tmp = NULL;
    size_t n = 0, cap = 0;
    void *p = tmp;
    if (tc_grow(&p, &cap, 1, sizeof *tmp) != 0) return -1;
    tmp = p;
    memset(&tmp[0], 0xFF, sizeof tmp[0]);
    n = 1;
    for (size_t k = 0; k < tok->nadded; k++) {
        const tc_added_token_spec *sp = &tok->added[k].spec;
        if (!sp->normalized != !normalized || sp->not_in_text) continue;
        const uint8_t *c = (const uint8_t *)sp->content;
        size_t clen = sp->content_len;
        if (normalized && norm_contents) {
            c = norm_contents->data + norm_offsets[2 * k];
            clen = norm_offsets[2 * k + 1];
        }
        if (clen == 0) continue;
        size_t cur = 0;
        for (size_t i = 0; i < clen; i++) {
            int32_t ch = tmp[cur].child[c[i]];
            if (ch < 0) {
                p = tmp;
                if (tc_grow(&p, &cap, n + 1, sizeof *tmp) != 0) { free(tmp); return -1; }
                tmp = p;
                memset(&tmp[n], 0xFF, sizeof tmp[n]);
                ch = (int32_t)n++;
                tmp[cur].child[c[i]] = ch;
            }
            cur = (size_t)ch;
        }
        /* HF keeps the last added token for a duplicate content */
        tmp[cur].token = (int32_t)k;
        t->first_byte[c[0]] = 1;
    }
    /* pack */
    size_t nedges = 0;
    for (size_t i = 0; i < n; i++)
        for (int b = 0; b < 256; b++) if (tmp[i].child[b] >= 0) nedges++;
    t->nodes = calloc(n, sizeof *t->nodes);
    t->edges = calloc(nedges ? nedges : 1, sizeof *t->edges);
    if (!t->nodes || !t->edges) { free(tmp); tc_trie_free(t); return -1; }
    size_t e = 0;
    for (size_t i = 0; i < n; i++) {
        t->nodes[i].child_first = (uint32_t)e;
        t->nodes[i].token = tmp[i].token;
        for (int b = 0; b < 256; b++) {
            if (tmp[i].child[b] >= 0) {
                t->edges[e].byte = (uint8_t)b;
                t->edges[e].node = (uint32_t)tmp[i].child[b];
                e++;
            }
        }
        t->nodes[i].nchild = (uint16_t)(e - t->nodes[i].child_first);
    }
    t->nnodes = n;
    t->nedges = nedges;
    t->only_first = -1;
    int firsts = 0;
    for (int b = 0; b < 256; b++)
        if (t->first_byte[b]) { firsts++; t->only_first = b; }
    if (firsts != 1) t->only_first = -1;
    free(tmp);
    return 0;
}

static int32_t trie_child(const tc_trie *t, uint32_t node, uint8_t b) {
    const tc_trie_node *nd = &t->nodes[node];
    const tc_trie_edge *e = t->edges + nd->child_first;
    size_t lo = 0, hi = nd->nchild;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (e[mid].byte == b) return (int32_t)e[mid].node;
        if (e[mid].byte < b) lo = mid + 1; else hi = mid;
    }
    return -1;
}

/* Longest token starting at s[i]; returns its added index or -1. */
static int32_t longest_at(const tc_trie *t, const uint8_t *s, size_t len, size_t i, size_t *end) {
    uint32_t node = 0;
    int32_t best = -1;
    for (size_t j = i; j < len; j++) {
        int32_t ch = trie_child(t, node, s[j]);
        if (ch < 0) break;
        node = (uint32_t)ch;
        if (t->nodes[node].token >= 0) { best = t->nodes[node].token; *end = j + 1; }
    }
    return best;
}

/* Rust regex's Unicode \w, which HF's single_word check uses (\w$, ^\w):
 * Alphabetic, marks, decimal digits, connector punctuation, Join_Control. */
static int is_word_char(uint32_t cp) {
    if (cp == 0x200C || cp == 0x200D) return 1;
    uint32_t m = TC_GCM(tc_unicode_gc(cp));
    if (m & (TC_GCM_L | TC_GCM_M | TC_GCM(TC_GC_Nd) | TC_GCM(TC_GC_Nl) | TC_GCM(TC_GC_Pc))) return 1;
    /* Other_Alphabetic outside those categories (e.g. circled letters) */
    return !(m & TC_GCM_N) && tc_unicode_is_alnum(cp);
}

/* The code point ending at byte `end` (end > 0): the valid sequence of 2-4
 * bytes ending there, else the single byte (ASCII or an invalid unit). */
/* C's isspace() in the "C" locale: space, \t, \n, \v, \f, \r */
static int is_ascii_space(uint32_t cp) {
    return cp == ' ' || (cp >= 0x09 && cp <= 0x0D);
}

static uint32_t cp_before(const uint8_t *s, size_t end, size_t *start) {
    for (size_t back = 2; back <= 4 && back <= end; back++) {
        size_t j = end - back;
        int n;
        uint32_t cp = tc_utf8_decode(s, end, j, &n);
        if (cp < TC_CP_INVALID_BASE && j + (size_t)n == end) { *start = j; return cp; }
    }
    *start = end - 1;
    return s[end - 1] < 0x80 ? s[end - 1] : TC_CP_INVALID_BASE + s[end - 1];
}

static int seg_push(tc_seg_list *l, uint32_t s, uint32_t e, int32_t a) {
    if (l->n == l->cap) {
        void *p = l->v;
        if (tc_grow(&p, &l->cap, l->n + 1, sizeof *l->v) != 0) return -1;
        l->v = p;
    }
    l->v[l->n].start = s; l->v[l->n].end = e; l->v[l->n].added = a;
    l->n++;
    return 0;
}

int tc_added_split(const tc_tokenizer *tok, const tc_trie *t, const uint8_t *s, size_t len, tc_seg_list *out) {
    size_t start_offset = 0;
    if (t->nnodes > 1) {
        for (size_t i = 0; i < len;) {
            if (t->only_first >= 0) {
                /* one first byte: memchr skips to it (the byte loop was 4% of a warm encode, perf) */
                const uint8_t *f = memchr(s + i, t->only_first, len - i);
                if (!f) break;
                i = (size_t)(f - s);
            } else if (!t->first_byte[s[i]]) { i++; continue; }
            size_t stop = 0;
            int32_t k = longest_at(t, s, len, i, &stop);
            if (k < 0) { i++; continue; }
            size_t start = i;
            const tc_added_token_spec *sp = &tok->added[k].spec;
            /* the next search starts after this match even when it is rejected */
            i = stop;
            if (sp->single_word) {
                int start_space = 1, stop_space = 1;
                if (start > 0) { size_t ps; start_space = !is_word_char(cp_before(s, start, &ps)); }
                if (stop < len) { int n; stop_space = !is_word_char(tc_utf8_decode(s, len, stop, &n)); }
                if (!start_space || !stop_space) continue;
            }
            if (sp->lstrip) {
                size_t ns = start;
                while (ns > 0) {
                    size_t ps;
                    uint32_t cp = cp_before(s, ns, &ps);
                    if (!(sp->ascii_strip ? is_ascii_space(cp) : tc_unicode_is_space(cp))) break;
                    ns = ps;
                }
                start = ns > start_offset ? ns : start_offset;
            }
            if (sp->rstrip) {
                while (stop < len) {
                    int n;
                    uint32_t cp = tc_utf8_decode(s, len, stop, &n);
                    if (!(sp->ascii_strip ? is_ascii_space(cp) : tc_unicode_is_space(cp))) break;
                    stop += (size_t)n;
                }
            }
            if (start > start_offset && seg_push(out, (uint32_t)start_offset, (uint32_t)start, -1) != 0) return -1;
            if (seg_push(out, (uint32_t)start, (uint32_t)stop, k) != 0) return -1;
            start_offset = stop;
        }
    }
    if (start_offset != len || len == 0) {
        if (seg_push(out, (uint32_t)start_offset, (uint32_t)len, -1) != 0) return -1;
    }
    return 0;
}
