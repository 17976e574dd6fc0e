/* bpe.c - byte-pair encoding of one chunk, HF `tokenizers` semantics.
 *
 * Does: initial symbols (byte-level bytes, or chars with
 * continuing_subword_prefix / end_of_word_suffix, byte_fallback, unk and
 * fuse_unk), `ignore_merges`, then merging with a binary heap ordered by
 * (rank, position), with HF's rule for expired heap entries: an entry is
 * applied when the pair now at its position still merges into the entry's
 * new id. Two models share the loop:
 *   merges - rank and new id from the merges table (tokenizer.json, merges.txt)
 *   rank   - tiktoken: the pair whose concatenated bytes have the lowest
 *            id merges first (rank files)
 * Complexity: O(n log n) in the chunk length, so a 5 MB "word" is fine.
 * Does not: cache (the caller caches whole chunks), dropout (refused at load).
 */
#include "bpe.h"
#include "spm.h"
#include "bpe_bt.h"
#include "pair8.h"

/* Chunks from BT_MIN_LEN bytes on go to the backtracking encoder (bpe_bt.c) when the vocabulary
 * qualifies: it is linear in the chunk, the heap O(n log n) with a larger constant. Shorter chunks (CJK
 * sentences, long words) stay on the heap, which is as fast there, and do not count towards building the
 * tables: those cost about what the heap spends on BT_BUILD_LEN bytes of long chunks (native/NOTES.md),
 * so a handle builds them once its long chunks add up to that much, in one chunk or several. The rank
 * encoder (tiktoken's rule) always uses the heap: its files rank tokens out of the order BPE makes them
 * (cl100k: 43,674 such pairs), which the encoder's check refuses after paying for the tables. */
#define BT_MIN_LEN 4096
#define BT_BUILD_LEN ((size_t)1 << 20)

/* The index of the first byte of p[0..n) that is not c, n if none. */
static size_t memchr_not(const uint8_t *p, size_t n, uint8_t c) {
    size_t i = 0;
    while (i < n && p[i] == c) i++;
    return i;
}

/* The backtracking tables for this chunk's encode, NULL: the heap (not built yet, or not usable). */
static const tc_bt *long_chunk_tables(const tc_tokenizer *tok, int rank_mode, size_t len) {
    const tc_bt *bt = tc_bt_get(tok, rank_mode, 0);
    if (!bt) {
        tc_tokenizer *t = (tc_tokenizer *)tok;   /* a counter, as the handle's other lazy parts */
        size_t seen = atomic_fetch_add_explicit(&t->bt_heap_bytes, len, memory_order_relaxed) + len;
        bt = seen >= BT_BUILD_LEN ? tc_bt_get(tok, rank_mode, 1) : NULL;
    }
    return tc_bt_usable(bt) ? bt : NULL;
}

void tc_bpe_scratch_free(tc_bpe_scratch *sc) {
    free(sc->syms);
    free(sc->heap);
    free(sc->out);
    tc_buf_free(&sc->tmp);
    memset(sc, 0, sizeof *sc);
}

int tc_bpe_out_push(tc_bpe_scratch *sc, uint32_t id, uint32_t s, uint32_t e) {
    if (sc->nout == sc->out_cap) {
        void *p = sc->out;
        if (tc_grow(&p, &sc->out_cap, sc->nout + 1, sizeof *sc->out) != 0) return -1;
        sc->out = p;
    }
    sc->out[sc->nout].id = id;
    sc->out[sc->nout].start = s;
    sc->out[sc->nout].end = e;
    sc->nout++;
    return 0;
}

static inline int heap_less(const tc_heap_item *a, const tc_heap_item *b) {
    return a->rank < b->rank || (a->rank == b->rank && a->pos < b->pos);
}

static int heap_push(tc_bpe_scratch *sc, uint32_t rank, uint32_t pos, uint32_t new_id) {
    if (sc->heap_n == sc->heap_cap) {
        void *p = sc->heap;
        if (tc_grow(&p, &sc->heap_cap, sc->heap_n + 1, sizeof *sc->heap) != 0) return -1;
        sc->heap = p;
    }
    tc_heap_item it = {rank, pos, new_id};
    size_t i = sc->heap_n++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!heap_less(&it, &sc->heap[parent])) break;
        sc->heap[i] = sc->heap[parent];
        i = parent;
    }
    sc->heap[i] = it;
    return 0;
}

static tc_heap_item heap_pop(tc_bpe_scratch *sc) {
    tc_heap_item top = sc->heap[0];
    tc_heap_item last = sc->heap[--sc->heap_n];
    size_t i = 0, n = sc->heap_n;
    for (;;) {
        size_t l = 2 * i + 1;
        if (l >= n) break;
        size_t c = (l + 1 < n && heap_less(&sc->heap[l + 1], &sc->heap[l])) ? l + 1 : l;
        if (!heap_less(&sc->heap[c], &last)) break;
        sc->heap[i] = sc->heap[c];
        i = c;
    }
    if (n > 0) sc->heap[i] = last;
    return top;
}

/* A unit without a token that stays in the word (GGUF, llama.cpp's llm_tokenizer_bpe_session::tokenize:
 * every UTF-8 char is a symbol, merged only by bigrams of adjacent symbols, so a char without a token keeps
 * its neighbours apart; at the end it has no token and emits nothing). HF drops such a unit instead. */
#define BARRIER_ID UINT32_MAX

/* Looks up the merge of two adjacent symbols: p8, when given, in place of the 16-byte table (its rank is the
 * new id, which orders merges as their ranks do: pair8.c). */
static inline int pair_merge(const tc_model *m, const tc_pair8 *p8, int rank_mode, const uint8_t *chunk,
                             const tc_sym *a, const tc_sym *b, uint32_t *rank, uint32_t *new_id) {
    if (a->id == BARRIER_ID || b->id == BARRIER_ID) return 0;
    if (p8) {
        int64_t id = tc_pair8_get(p8, a->id, b->id);
        if (id < 0) return 0;
        *rank = (uint32_t)id;
        *new_id = (uint32_t)id;
        return 1;
    }
    if (!rank_mode) {
        const tc_merge *mg = tc_pairmap_get(&m->merges, a->id, b->id);
        if (!mg) return 0;
        *rank = mg->rank;
        *new_id = mg->new_id;
        return 1;
    }
    int64_t id = tc_strmap_find(&m->by_bytes, &m->vocab, 1, chunk + a->start, (size_t)a->len + b->len);
    if (id < 0) return 0;
    *rank = (uint32_t)id;
    *new_id = (uint32_t)id;
    return 1;
}

static int push_sym(tc_bpe_scratch *sc, size_t *n, uint32_t id, uint32_t start, uint32_t len) {
    if (*n == sc->syms_cap) {
        void *p = sc->syms;
        if (tc_grow(&p, &sc->syms_cap, *n + 1, sizeof *sc->syms) != 0) return -1;
        sc->syms = p;
    }
    tc_sym *s = &sc->syms[*n];
    s->id = id; s->start = start; s->len = len;
    s->prev = (int32_t)*n - 1; s->next = (int32_t)*n + 1;
    (*n)++;
    return 0;
}

/* Looks up the model-space string of one initial unit, with prefix/suffix. */
static int64_t unit_id(const tc_tokenizer *tok, tc_bpe_scratch *sc, const uint8_t *unit, size_t ulen,
                       int first, int last) {
    const tc_model *m = &tok->model;
    if (tok->byte_level && ulen == 1 && !m->cont_prefix_len && !m->eow_suffix_len) return m->byte_ids[unit[0]];
    sc->tmp.len = 0;
    if (!first && m->cont_prefix_len && tc_buf_append(&sc->tmp, m->cont_prefix, m->cont_prefix_len) != 0) return -2;
    if (tok->byte_level) {
        uint8_t u[4];
        int k = tc_utf8_encode(tc_byte_to_cp(unit[0]), u);
        if (tc_buf_append(&sc->tmp, u, (size_t)k) != 0) return -2;
    } else if (tc_buf_append(&sc->tmp, unit, ulen) != 0) return -2;
    if (last && m->eow_suffix_len && tc_buf_append(&sc->tmp, m->eow_suffix, m->eow_suffix_len) != 0) return -2;
    if (m->kind == TC_MODEL_BPE_RANK) return tc_strmap_find(&m->by_bytes, &m->vocab, 1, sc->tmp.data, sc->tmp.len);
    return tc_vocab_find(&m->vocab, sc->tmp.data, sc->tmp.len);
}

static int emit(tc_bpe_scratch *sc, uint32_t id, uint32_t start, uint32_t end) {
    if (sc->nout == sc->out_cap) {
        void *p = sc->out;
        if (tc_grow(&p, &sc->out_cap, sc->nout + 1, sizeof *sc->out) != 0) return -1;
        sc->out = p;
    }
    sc->out[sc->nout].id = id;
    sc->out[sc->nout].start = start;
    sc->out[sc->nout].end = end;
    sc->nout++;
    return 0;
}

static int trace_push_sym(tc_trace *tr, uint32_t id) {
    void *p = tr->syms;
    if (tc_grow(&p, &tr->syms_cap, tr->nsyms + 1, sizeof *tr->syms) != 0) return -1;
    tr->syms = p;
    tr->syms[tr->nsyms++] = id;
    return 0;
}

static int trace_push_step(tc_trace *tr, uint32_t pos, uint32_t rank, uint32_t l, uint32_t r, uint32_t nid) {
    void *p = tr->steps;
    if (tc_grow(&p, &tr->steps_cap, tr->nsteps + 1, sizeof *tr->steps) != 0) return -1;
    tr->steps = p;
    tc_trace_step *s = &tr->steps[tr->nsteps++];
    s->pos = pos; s->rank = rank; s->left = l; s->right = r; s->new_id = nid;
    return 0;
}

/* The index of symbol pos among the trace's initial symbols, which leave barriers out (O(pos): only a chunk
 * with a barrier pays it, when traced). */
static uint32_t trace_pos(const tc_bpe_scratch *sc, uint32_t pos) {
    uint32_t k = 0;
    for (uint32_t i = 0; i < pos; i++) k += sc->syms[i].id != BARRIER_ID;
    return k;
}

void tc_bpe_prefetch(const tc_tokenizer *tok, const uint8_t *chunk, size_t len) {
    const tc_model *m = &tok->model;
    if (m->kind != TC_MODEL_BPE_MERGES || !tok->byte_level || m->cont_prefix_len || m->eow_suffix_len) return;
    /* ignore_merges' whole-chunk lookup comes first and, on English, answers most new chunks: its slot in
     * the 4 MiB bytes index was a cache miss per new chunk (cl100k's first pass over War and Peace: a fifth
     * of its time in tc_strmap_find_h and memcmp, perf); started here, a block of chunks ahead */
    if (m->ignore_merges && m->whole_by_bytes) tc_strmap_prefetch(&m->by_bytes, tc_hash_bytes(chunk, len));
    if (len > 24) len = 24;   /* the pairs a short chunk starts with; a longer one pays its own */
    const tc_pair8 *p8 = atomic_load_explicit(&((tc_tokenizer *)tok)->pair8, memory_order_acquire);
    if (p8 && !p8->slots) p8 = NULL;
    for (size_t i = 0; i + 1 < len; i++) {
        int64_t a = m->byte_ids[chunk[i]], b = m->byte_ids[chunk[i + 1]];
        if (a < 0 || b < 0) continue;
        if (p8) tc_pair8_prefetch(p8, (uint32_t)a, (uint32_t)b);
        else tc_pairmap_prefetch(&m->merges, (uint32_t)a, (uint32_t)b);
    }
}

/* The 8-byte table for an untraced merges-file encode, built on first use; NULL when the file does not qualify,
 * when out of memory, or when traced (the trace shows the file's ranks). */
static const tc_pair8 *merge_table8(const tc_tokenizer *tok, const tc_trace *tr, int rank_mode) {
    if (tr || rank_mode || tok->model.kind != TC_MODEL_BPE_MERGES) return NULL;
    const tc_pair8 *p8 = tc_pair8_get_table(tok);
    return p8 && p8->slots ? p8 : NULL;
}

/* Short chunks without a heap: the lowest (new id = rank, position) pair among the current ones merges, found
 * by a scan of an array of their new ids, until none merges. It is the heap's order: the heap holds every
 * current pair that merges, and skips an entry whose pair changed (HF's check, word.rs merge_all in
 * huggingface/tokenizers: the pair now at the position must still merge into the entry's new id). A
 * position's pair only changes by growing its span, and byte-level strings are their spans, so a changed
 * pair never makes the entry's new id again: the entries HF applies are exactly the current pairs. Per
 * merge this looks up the two new pairs and nothing else (the heap also re-checks each popped entry).
 * Only for plain byte-level symbols (every unit its own symbol) and the 8-byte table's ranks. */
#define SCAN_MAX 48
static int bpe_scan(const tc_pair8 *p8, tc_bpe_scratch *sc, uint32_t *id, uint32_t *st, size_t n, uint32_t end) {
    uint32_t rk[SCAN_MAX];   /* rk[i]: the new id of pair (i, i + 1), or none */
    const uint32_t none = UINT32_MAX;
    for (size_t i = 0; i + 1 < n; i++) tc_pair8_prefetch(p8, id[i], id[i + 1]);
    for (size_t i = 0; i + 1 < n; i++) {
        int64_t v = tc_pair8_get(p8, id[i], id[i + 1]);
        rk[i] = v < 0 ? none : (uint32_t)v;
    }
    size_t m = n;
    while (m > 1) {
        uint32_t best = none;
        size_t b = 0;
        for (size_t i = 0; i + 1 < m; i++)
            if (rk[i] < best) { best = rk[i]; b = i; }
        if (best == none) break;
        /* symbols b and b + 1 become one: b + 1 leaves the arrays, the pairs around b are new */
        id[b] = best;
        size_t tail = m - (b + 2);   /* symbols after b + 1 */
        memmove(&id[b + 1], &id[b + 2], tail * sizeof *id);
        memmove(&st[b + 1], &st[b + 2], tail * sizeof *st);
        if (tail > 1) memmove(&rk[b + 1], &rk[b + 2], (tail - 1) * sizeof *rk);
        m--;
        if (b > 0) {
            int64_t v = tc_pair8_get(p8, id[b - 1], id[b]);
            rk[b - 1] = v < 0 ? none : (uint32_t)v;
        }
        if (b + 1 < m) {
            int64_t v = tc_pair8_get(p8, id[b], id[b + 1]);
            rk[b] = v < 0 ? none : (uint32_t)v;
        }
    }
    for (size_t i = 0; i < m; i++)
        if (emit(sc, id[i], st[i], i + 1 < m ? st[i + 1] : end) != 0) return -1;
    return 0;
}

/* The longest string of the vocabulary, in bytes (its entries never change: measured once per handle). */
static size_t vocab_longest(const tc_tokenizer *tok) {
    tc_tokenizer *t = (tc_tokenizer *)(uintptr_t)tok;   /* the measure is a cache of the handle's own data */
    uint32_t v = atomic_load_explicit(&t->vocab_longest1, memory_order_relaxed);
    if (v) return v - 1;
    const tc_vocab *voc = &tok->model.vocab;
    uint32_t longest = 0;
    for (uint32_t i = 0; i < voc->n; i++)
        if (voc->entries[i].str_len > longest) longest = voc->entries[i].str_len;
    if (longest < UINT32_MAX) atomic_store_explicit(&t->vocab_longest1, longest + 1, memory_order_relaxed);
    return longest;
}

int tc_bpe_chunk(const tc_tokenizer *tok, tc_bpe_scratch *sc, const uint8_t *chunk, size_t len, tc_trace *tr,
                 int rank_mode) {
    const tc_model *m = &tok->model;
    if (m->kind == TC_MODEL_SPM_LLAMA) return tc_spm_chunk(tok, sc, chunk, len);
    sc->nout = 0;
    if (len == 0) return 0;

    /* rank (tiktoken): a chunk that is itself a token is that token */
    if (rank_mode) {
        int64_t id = tc_strmap_find(&m->by_bytes, &m->vocab, 1, chunk, len);
        if (id >= 0) {
            if (tr && trace_push_sym(tr, (uint32_t)id) != 0) return -1;
            return emit(sc, (uint32_t)id, 0, (uint32_t)len);
        }
    }

    /* ignore_merges: a chunk that is itself a vocabulary entry is one token. Its stored form has at least a
     * byte per byte, so a chunk longer than every entry is none: not mapped and hashed (a 200,000-space text
     * on cl100k spent a quarter of its encode there, perf) */
    if (m->ignore_merges && !rank_mode && (len <= 64 || len <= vocab_longest(tok))) {
        int64_t id;
        if (m->whole_by_bytes) {
            /* a rank file's entries are stored as the byte-level form of their bytes, so the bytes index
             * finds what the stored form would: no mapping, and the slot tc_bpe_prefetch started */
            id = tc_strmap_find(&m->by_bytes, &m->vocab, 1, chunk, len);
        } else if (tok->byte_level) {
            /* the chunk's stored form: each byte's GPT-2 char (U+0021-U+0143) in UTF-8, one or two bytes,
             * written into room for two per byte (an append per byte was a third of a 200,000-byte word's
             * encode on cl100k, perf) */
            sc->tmp.len = 0;
            if (len > SIZE_MAX / 2 || tc_buf_reserve(&sc->tmp, 2 * len) != 0) return -1;
            uint8_t *d = sc->tmp.data;
            size_t k = 0;
            for (size_t i = 0; i < len; i++) k += (size_t)tc_utf8_encode(tc_byte_to_cp(chunk[i]), d + k);
            sc->tmp.len = k;
            id = tc_vocab_find(&m->vocab, sc->tmp.data, sc->tmp.len);
        } else {
            id = tc_vocab_find(&m->vocab, chunk, len);
        }
        if (id >= 0) {
            if (tr && trace_push_sym(tr, (uint32_t)id) != 0) return -1;
            return emit(sc, (uint32_t)id, 0, (uint32_t)len);
        }
    }

    /* gemma4 (llm_tokenizer_bpe_session::tokenize, "fix for gemma 4"): a word of only '\n' that is a
     * token is that token */
    if (m->newline_runs_whole && !rank_mode) {
        size_t k = 0;
        while (k < len && chunk[k] == '\n') k++;
        int64_t id = k == len ? tc_vocab_find(&m->vocab, chunk, len) : -1;
        if (id >= 0) {
            if (tr && trace_push_sym(tr, (uint32_t)id) != 0) return -1;
            return emit(sc, (uint32_t)id, 0, (uint32_t)len);
        }
    }

    /* untraced merges files look pairs up in the 8-byte table when it qualifies. It is built on first use, so
     * it is asked for only where a lookup follows: a long chunk the backtracking encoder takes never builds it
     * (on cl100k, whose ignore_merges finds "warm" and " up" whole, a fresh handle's first 200,000 'x' paid
     * the table's 2-3 ms for no lookup) */
    const tc_pair8 *p8 = NULL;

    /* a short chunk of a byte-level file whose bytes all have ids (every byte its own symbol): the scan
     * straight from the bytes; any other chunk takes the symbols and the heap below */
    if (len <= SCAN_MAX && tok->byte_level && !m->cont_prefix_len && !m->eow_suffix_len &&
        (p8 = merge_table8(tok, tr, rank_mode)) != NULL) {
        uint32_t id[SCAN_MAX], st[SCAN_MAX];
        size_t i = 0;
        for (; i < len; i++) {
            int64_t b = m->byte_ids[chunk[i]];
            if (b < 0) break;
            id[i] = (uint32_t)b;
            st[i] = (uint32_t)i;
        }
        if (i == len) return bpe_scan(p8, sc, id, st, len, (uint32_t)len);
    }

    if (!tr && !rank_mode && len >= BT_MIN_LEN && m->kind == TC_MODEL_BPE_MERGES) {
        const tc_bt *bt = long_chunk_tables(tok, rank_mode, len);
        if (bt) {
            int r = tc_bt_chunk(tok, bt, sc, chunk, len, rank_mode);
            if (r <= 0) return r;
            sc->nout = 0;   /* it gave up: the heap decides */
        } else if (memchr_not(chunk, len, chunk[0]) == len) {
            /* one byte repeated: a table of the runs of that byte alone */
            tc_bt *run = tc_bt_run(tok, chunk[0]);
            int r = tc_bt_usable(run) ? tc_bt_chunk(tok, run, sc, chunk, len, rank_mode) : 1;
            tc_bt_free(run);
            if (r <= 0) return r;
            sc->nout = 0;
        }
    }

    /* 1. initial symbols. subtle: as HF's Word::add, a symbol's offsets come
     * from the running sum of the lengths of the symbols before it, so a
     * dropped unit (no id, no unk) shifts the offsets after it left. */
    size_t n = 0;
    uint32_t cursor = 0;
    int64_t unk_pending = -1;
    uint32_t unk_len = 0;
    int barriers = 0;   /* a BARRIER_ID symbol is in the list (not in the trace's initial symbols) */
#define PUSH(id_, len_) do { if (push_sym(sc, &n, (uint32_t)(id_), cursor, (uint32_t)(len_)) != 0) return -1; \
                             cursor += (uint32_t)(len_); } while (0)
    for (size_t i = 0; i < len;) {
        size_t ulen = 1;
        if (!tok->byte_level) {
            int k;
            (void)tc_utf8_decode(chunk, len, i, &k);
            ulen = (size_t)k;
        }
        int first = i == 0, last = i + ulen >= len;
        int64_t id = unit_id(tok, sc, chunk + i, ulen, first, last);
        if (id == -2) return -1;
        if (id >= 0) {
            if (unk_pending >= 0) { PUSH(unk_pending, unk_len); unk_pending = -1; }
            PUSH(id, ulen);
            i += ulen;
            continue;
        }
        if (m->byte_fallback) {
            /* HF falls back on the bytes of the looked-up string, prefix and
             * suffix included, each a symbol of length 1 */
            const uint8_t *fb = sc->tmp.data;
            size_t fl = sc->tmp.len;
            uint8_t mapped[4];
            if (tok->byte_level && !m->cont_prefix_len && !m->eow_suffix_len) {
                /* unit_id took its shortcut: the string is the mapped char */
                fl = (size_t)tc_utf8_encode(tc_byte_to_cp(chunk[i]), mapped);
                fb = mapped;
            }
            size_t ok = 0;
            for (size_t b = 0; b < fl; b++) ok += m->fallback_ids[fb[b]] >= 0;
            if (ok == fl) {
                /* fb may point into sc->tmp; push_sym does not touch it */
                for (size_t b = 0; b < fl; b++) PUSH(m->fallback_ids[fb[b]], 1);
                i += ulen;
                continue;
            }
        }
        if (m->unk_id >= 0) {
            if (unk_pending >= 0 && m->fuse_unk) {
                unk_len += (uint32_t)ulen;
            } else {
                if (unk_pending >= 0) PUSH(unk_pending, unk_len);
                unk_pending = m->unk_id;
                unk_len = (uint32_t)ulen;
            }
        }
        /* else: HF drops a unit that has no id and no unk token; llama.cpp keeps it as a barrier */
        else if (tok->drop_missing_bytes) {
            if (unk_pending >= 0) { PUSH(unk_pending, unk_len); unk_pending = -1; }
            PUSH(BARRIER_ID, ulen);
            barriers = 1;
        }
        i += ulen;
    }
    if (unk_pending >= 0) PUSH(unk_pending, unk_len);
#undef PUSH
    if (n == 0) return 0;
    sc->syms[n - 1].next = -1;
    if (tr) {
        for (size_t i = 0; i < n; i++)
            if (sc->syms[i].id != BARRIER_ID && trace_push_sym(tr, sc->syms[i].id) != 0) return -1;
    }

    /* 2. merge: lowest (rank, position) first */
    if (!p8) p8 = merge_table8(tok, tr, rank_mode);
    sc->heap_n = 0;
    /* the first lookups are independent: start all their cache misses at once */
    if (p8)
        for (size_t i = 0; i + 1 < n; i++) tc_pair8_prefetch(p8, sc->syms[i].id, sc->syms[i + 1].id);
    else if (!rank_mode)
        for (size_t i = 0; i + 1 < n; i++) tc_pairmap_prefetch(&m->merges, sc->syms[i].id, sc->syms[i + 1].id);
    for (size_t i = 0; i + 1 < n; i++) {
        uint32_t rank, nid;
        if (pair_merge(m, p8, rank_mode, chunk, &sc->syms[i], &sc->syms[i + 1], &rank, &nid) &&
            heap_push(sc, rank, (uint32_t)i, nid) != 0) return -1;
    }
    while (sc->heap_n > 0) {
        tc_heap_item top = heap_pop(sc);
        tc_sym *cur = &sc->syms[top.pos];
        if (cur->len == 0 || cur->next < 0) continue;
        tc_sym *right = &sc->syms[cur->next];
        uint32_t rank, nid;
        /* subtle: HF checks only that the pair still yields the same new id */
        if (!pair_merge(m, p8, rank_mode, chunk, cur, right, &rank, &nid) || nid != top.new_id) continue;
        if (tr && trace_push_step(tr, barriers ? trace_pos(sc, top.pos) : top.pos, top.rank, cur->id, right->id,
                                  top.new_id) != 0) return -1;
        cur->id = top.new_id;
        cur->len += right->len;
        cur->next = right->next;
        right->len = 0;
        if (cur->next >= 0) sc->syms[cur->next].prev = (int32_t)top.pos;
        if (cur->prev >= 0) {
            tc_sym *p = &sc->syms[cur->prev];
            if (pair_merge(m, p8, rank_mode, chunk, p, cur, &rank, &nid) && heap_push(sc, rank, (uint32_t)cur->prev, nid) != 0) return -1;
        }
        if (cur->next >= 0) {
            tc_sym *nx = &sc->syms[cur->next];
            if (pair_merge(m, p8, rank_mode, chunk, cur, nx, &rank, &nid) && heap_push(sc, rank, top.pos, nid) != 0) return -1;
        }
    }

    /* 3. emit the surviving symbols in order */
    for (int32_t i = 0; i >= 0; i = sc->syms[i].next) {
        const tc_sym *s = &sc->syms[i];
        if (s->id == BARRIER_ID) continue;
        if (emit(sc, s->id, s->start, s->start + s->len) != 0) return -1;
    }
    return 0;
}
