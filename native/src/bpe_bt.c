/* bpe_bt.c - the backtracking BPE encoder for long chunks: linear in the chunk, the same tokens as the heap.
 *
 * The method is the one rust-gems' `bpe` crate describes (github.com/github/rust-gems, crates/bpe,
 * commit 0600265b: README "backtracking", src/byte_pair_encoding.rs is_valid_token_pair and from_dictionary,
 * src/backtrack_encoder.rs BacktrackEncoder::step); this is our own code for our tables.
 *   - BPE's output is the one split of the text into tokens where every adjacent pair is "valid": undoing
 *     the two tokens' merges one at a time (the later-made token first) never meets a pair across the
 *     boundary that BPE would have merged before the tokens were complete (is_valid).
 *   - The encoder takes the longest token at each position; when it does not form a valid pair with the
 *     previous token it tries the next shorter prefix token, and when none is left it steps back one token
 *     and marks the position as a dead end (a bit per position), so each position fails once.
 * Where it applies (checked when the tables are built, else the caller keeps the heap):
 *   - every byte is a symbol with its own token (byte-level, no continuing_subword_prefix or
 *     end_of_word_suffix, no unk or byte fallback involved, no barrier);
 *   - merges (HF `tokenizers` 0.23.3, models/bpe/word.rs Word::merge_all: a heap of (rank, position), an
 *     entry applied when the pair at its position still merges into the entry's new id): each token is made
 *     by one merge at most and no single byte is made by one, so "same new id" means "same pair" and the
 *     heap is plain lowest-rank-leftmost BPE; every merge ranks after the merges that make its two parts
 *     (else BPE's order of merges is not the order of ranks, on which is_valid rests); a token's bytes are
 *     its parts' bytes;
 *   - rank (tiktoken 0.14, src/lib.rs byte_pair_merge: the adjacent pair whose bytes are the token of lowest
 *     rank merges first, leftmost on ties): every token that BPE can make from its own bytes is made from
 *     two tokens of lower rank (the split found here); every pair of such tokens that joins into a token
 *     joins into one of higher rank than both.
 * A token BPE cannot make from its own bytes never appears in BPE's output (the symbols inside an output
 * token's span only ever merge with each other, as they would alone), so the longest-match index holds only
 * the tokens that can be made.
 */
#include "bpe_bt.h"

#define NONE UINT32_MAX

/* One token's entry (one cache line holds three). */
typedef struct tc_bt_tok {
    uint32_t rk;              /* rank: bytes 0..255, merges 256 + merge rank, rank files the id; NONE: never made */
    uint32_t sl, sr;          /* the two tokens of its last merge (itself for a single byte) */
    uint32_t len;             /* bytes */
    uint32_t prefix;          /* the longest made token that is a proper prefix of it, NONE */
    uint32_t vid;             /* its vocabulary id (a run's table numbers its few tokens itself) */
} tc_bt_tok;

typedef struct tc_bt_node {
    uint32_t child, sibling;  /* first child, next sibling: NONE at the end */
    uint32_t tok;             /* the token ending here, NONE */
    uint8_t byte;
} tc_bt_node;

struct tc_bt {
    int ok;                   /* 0: the vocabulary does not qualify; the heap encodes everything */
    uint32_t n;               /* vocabulary size */
    tc_bt_tok *t;             /* id -> its rank, split, length, prefix */
    /* longest-match trie over the made tokens' bytes: the nodes of one and two bytes in direct tables,
     * deeper ones as first-child / next-sibling lists, laid out by the first two bytes (a walk stays in
     * one region of memory) */
    uint32_t l1[256];         /* byte -> node, NONE */
    uint32_t *l2;             /* (byte << 8 | byte) -> node, NONE; 65,536 entries */
    tc_bt_node *nodes; size_t nnodes, nodes_cap;
    /* a run's table (tc_bt_run): is_valid of each pair of its n tokens, 0xFF until asked. A run's tokens
     * are few and its encode asks the same pairs over and over (200,000 'x': 25,000 asks, is_valid 45% of
     * the encode, perf); in merges mode the answer depends on the pair alone. Only the one thread that
     * built the table (for one chunk) uses it. NULL for the vocabulary's tables. */
    uint8_t *memo;
    /* merges mode, the vocabulary's tables: a filter of at least 8 bits a merge, each merge's pair setting the
     * bit its tc_pair_hash's high half names. A clear bit says "no merge" without the pair map: most pairs
     * is_valid asks do not merge, and the map (4 MiB for Qwen3's 151,387 merges) missed the cache on them
     * (45% of is_valid's samples on that load, a 10 MB random-letter word, perf). NULL: ask the map. */
    uint64_t *pf;
    size_t pf_mask;           /* bits - 1 */
};

void tc_bt_free(tc_bt *bt) {
    if (!bt) return;
    free(bt->t);
    free(bt->l2); free(bt->nodes);
    free(bt->memo);
    free(bt->pf);
    free(bt);
}

static uint32_t new_node(tc_bt *bt, uint8_t b, uint32_t sibling) {
    tc_bt_node *x = &bt->nodes[bt->nnodes];   /* room for every byte of every token was reserved */
    x->child = NONE; x->sibling = sibling; x->tok = NONE; x->byte = b;
    return (uint32_t)bt->nnodes++;
}

static inline uint32_t child_of(const tc_bt *bt, uint32_t node, uint8_t b) {
    for (uint32_t c = bt->nodes[node].child; c != NONE; c = bt->nodes[c].sibling)
        if (bt->nodes[c].byte == b) return c;
    return NONE;
}

/* Adds token id (bytes s[0..n), n >= 1) to the trie; tokens come shortest first within their first two
 * bytes, so the longest made proper prefix is already in and is the last token met on the way. */
static void trie_add(tc_bt *bt, const uint8_t *s, uint32_t n, uint32_t id) {
    uint32_t node = bt->l1[s[0]], best = NONE;
    if (node == NONE) node = bt->l1[s[0]] = new_node(bt, s[0], NONE);
    for (uint32_t i = 1; i < n; i++) {
        if (bt->nodes[node].tok != NONE) best = bt->nodes[node].tok;
        uint32_t next;
        if (i == 1) {
            uint32_t k = (uint32_t)s[0] << 8 | s[1];
            next = bt->l2[k];
            if (next == NONE) next = bt->l2[k] = new_node(bt, s[1], NONE);
        } else {
            next = child_of(bt, node, s[i]);
            if (next == NONE) {
                next = new_node(bt, s[i], bt->nodes[node].child);
                bt->nodes[node].child = next;
            }
        }
        node = next;
    }
    bt->nodes[node].tok = id;
    bt->t[id].prefix = best;
}

/* The rank of the pair (a, b) that ends/starts at text position p, NONE if it does not merge. */
static inline uint32_t pair_rank(const tc_tokenizer *tok, const tc_bt *bt, int rank_mode, const uint8_t *text,
                                 size_t p, uint32_t a, uint32_t b) {
    const tc_model *m = &tok->model;
    if (!rank_mode) {
        uint64_t key = (uint64_t)bt->t[a].vid << 32 | bt->t[b].vid;
        size_t h = tc_pair_hash(key);   /* the filter's bit and the map's slot, one hash */
        if (bt->pf) {
            size_t f = (size_t)((uint64_t)h >> 32) & bt->pf_mask;
            if (!(bt->pf[f >> 6] >> (f & 63) & 1)) return NONE;
        }
        const tc_merge *mg = tc_pairmap_get_h(&m->merges, key, h);
        return mg ? 256 + mg->rank : NONE;
    }
    int64_t id = tc_strmap_find(&m->by_bytes, &m->vocab, 1, text + p - bt->t[a].len, (size_t)bt->t[a].len + bt->t[b].len);
    return id >= 0 ? (uint32_t)id : NONE;
}

/* rust-gems byte_pair_encoding.rs is_valid_token_pair: can tokens a (ending at p) and b (starting at p)
 * stand next to each other in BPE's output? limit: only merges of lower rank count (NONE: all). */
static int is_valid(const tc_tokenizer *tok, const tc_bt *bt, int rank_mode, const uint8_t *text, size_t p,
                    uint32_t a, uint32_t b, uint32_t limit) {
    for (;;) {
        uint32_t c = pair_rank(tok, bt, rank_mode, text, p, a, b);
        if (c != NONE && c < limit) return 0;
        /* undo the merge of the token made last; a single byte is its own split */
        if (bt->t[a].rk > bt->t[b].rk) {
            limit = bt->t[a].rk;
            if (bt->t[a].sr != a) { a = bt->t[a].sr; continue; }
            limit = bt->t[b].rk + 1;
            if (bt->t[b].sl == b) return 1;
            b = bt->t[b].sl;
        } else {
            limit = bt->t[b].rk + 1;
            if (bt->t[b].sl != b) { b = bt->t[b].sl; continue; }
            limit = bt->t[a].rk;
            if (bt->t[a].sr == a) return 1;
            a = bt->t[a].sr;
        }
    }
}

static void *alloc_n(size_t n, size_t sz) {
    return n && sz <= SIZE_MAX / n ? malloc(n * sz) : NULL;
}

/* merges: ranks and splits from the merges table. Returns 1 qualifies, 0 not, -1 OOM. */
static int derive_merges(const tc_tokenizer *tok, tc_bt *bt) {
    const tc_model *m = &tok->model;
    const tc_pairmap *pm = &m->merges;
    uint32_t nm = 0;
    for (size_t i = 0; i < pm->cap; i++)
        if (pm->slots[i].key != UINT64_MAX && pm->slots[i].rank + 1 > nm) nm = pm->slots[i].rank + 1;
    if (nm > UINT32_MAX - 512) return 0;
    const tc_merge **by_rank = nm ? calloc(nm, sizeof *by_rank) : NULL;
    if (nm && !by_rank) return -1;
    int ok = 1;
    for (size_t i = 0; i < pm->cap && ok; i++) {
        const tc_merge *mg = &pm->slots[i];
        if (mg->key == UINT64_MAX) continue;
        if (by_rank[mg->rank] || mg->new_id >= bt->n || (uint32_t)(mg->key >> 32) >= bt->n ||
            (uint32_t)mg->key >= bt->n) ok = 0;   /* two merges of one rank, or an id out of range */
        else by_rank[mg->rank] = mg;
    }
    /* made[]: the token has a producer (a byte, or a merge) */
    uint8_t *made = ok ? calloc(bt->n, 1) : NULL;
    if (ok && !made) { free(by_rank); return -1; }
    for (int b = 0; b < 256 && ok; b++) {
        uint32_t id = (uint32_t)m->byte_ids[b];
        const uint8_t *s = tc_entry_bytes(&m->vocab, id);
        if (made[id] || m->vocab.entries[id].bytes_len != 1 || s[0] != (uint8_t)b) { ok = 0; break; }
        made[id] = 1;
        bt->t[id].rk = (uint32_t)b;
        bt->t[id].sl = bt->t[id].sr = id;
    }
    for (uint32_t r = 0; r < nm && ok; r++) {
        const tc_merge *mg = by_rank[r];
        if (!mg) continue;
        uint32_t a = (uint32_t)(mg->key >> 32), b = (uint32_t)mg->key, c = mg->new_id;
        /* HF's stale-entry rule equals plain BPE only when a token has one producer */
        if (made[c]) { ok = 0; break; }
        made[c] = 1;
        if (bt->t[a].rk == NONE || bt->t[b].rk == NONE) continue;   /* checked below: a part is made later or never */
        if (bt->t[c].len != bt->t[a].len + bt->t[b].len ||
            memcmp(tc_entry_bytes(&m->vocab, c), tc_entry_bytes(&m->vocab, a), bt->t[a].len) != 0 ||
            memcmp(tc_entry_bytes(&m->vocab, c) + bt->t[a].len, tc_entry_bytes(&m->vocab, b), bt->t[b].len) != 0) {
            ok = 0;
            break;
        }
        /* BPE on c's own bytes reaches [a, b] (then merges them) unless a pair across a|b merges first */
        if (!is_valid(tok, bt, 0, NULL, 0, a, b, 256 + r)) continue;
        bt->t[c].rk = 256 + r;
        bt->t[c].sl = a;
        bt->t[c].sr = b;
    }
    /* every merge of two made tokens must rank after both (else it fires out of rank order) */
    for (uint32_t r = 0; r < nm && ok; r++) {
        const tc_merge *mg = by_rank[r];
        if (!mg) continue;
        uint32_t a = (uint32_t)(mg->key >> 32), b = (uint32_t)mg->key;
        if (bt->t[a].rk != NONE && bt->t[b].rk != NONE && (bt->t[a].rk >= 256 + r || bt->t[b].rk >= 256 + r)) ok = 0;
    }
    free(made);
    free(by_rank);
    return ok;
}

/* rank: each token's split is the pair of lower-rank tokens BPE ends with on its own bytes. Returns 1
 * qualifies, 0 not, -1 OOM. */
static int derive_rank(const tc_tokenizer *tok, tc_bt *bt) {
    const tc_model *m = &tok->model;
    for (int b = 0; b < 256; b++) {
        uint8_t c = (uint8_t)b;
        int64_t id = tc_strmap_find(&m->by_bytes, &m->vocab, 1, &c, 1);
        if (id < 0 || id != m->byte_ids[b]) return 0;
        bt->t[id].rk = (uint32_t)id;
        bt->t[id].sl = bt->t[id].sr = (uint32_t)id;
    }
    /* pairs with a part of higher id than the token they join into: decided after the pass */
    uint32_t *late = NULL;
    size_t nlate = 0, late_cap = 0;
    /* ids in rank order: a split's parts of lower id are decided first */
    for (uint32_t c = 0; c < bt->n; c++) {
        uint32_t n = bt->t[c].len;
        if (n < 2) continue;
        const uint8_t *s = tc_entry_bytes(&m->vocab, c);
        if (tc_strmap_find(&m->by_bytes, &m->vocab, 1, s, n) != (int64_t)c) continue;   /* a duplicate */
        for (uint32_t k = n - 1; k >= 1; k--) {
            int64_t a = tc_strmap_find(&m->by_bytes, &m->vocab, 1, s, k);
            if (a < 0) continue;
            int64_t b = tc_strmap_find(&m->by_bytes, &m->vocab, 1, s + k, n - k);
            if (b < 0) continue;
            if ((uint32_t)a >= c || (uint32_t)b >= c) {
                if (nlate == late_cap) {
                    void *p = late;
                    if (tc_grow(&p, &late_cap, nlate + 2, sizeof *late) != 0) { free(late); return -1; }
                    late = p;
                }
                late[nlate++] = (uint32_t)a;
                late[nlate++] = (uint32_t)b;
                continue;
            }
            if (bt->t[c].rk == NONE && bt->t[a].rk != NONE && bt->t[b].rk != NONE &&
                is_valid(tok, bt, 1, s, k, (uint32_t)a, (uint32_t)b, c)) {
                bt->t[c].rk = c;
                bt->t[c].sl = (uint32_t)a;
                bt->t[c].sr = (uint32_t)b;
            }
        }
    }
    /* two made tokens that join into a token of lower rank than one of them: BPE's merges would not come
     * in rank order */
    int ok = 1;
    for (size_t i = 0; i < nlate; i += 2)
        if (bt->t[late[i]].rk != NONE && bt->t[late[i + 1]].rk != NONE) { ok = 0; break; }
    free(late);
    return ok;
}

static tc_bt *bt_build(const tc_tokenizer *tok, int rank_mode) {
    const tc_model *m = &tok->model;
    tc_bt *bt = calloc(1, sizeof *bt);
    if (!bt) return NULL;
    if (!tok->byte_level || m->cont_prefix_len || m->eow_suffix_len || m->vocab.n == 0) return bt;   /* ok = 0 */
    if (rank_mode ? !m->by_bytes.slots : !m->merges.slots) return bt;
    for (int b = 0; b < 256; b++)
        if (m->byte_ids[b] < 0 || (uint64_t)m->byte_ids[b] >= m->vocab.n) return bt;
    uint32_t n = m->vocab.n;
    bt->n = n;
    bt->t = alloc_n(n, sizeof *bt->t);
    if (!bt->t) goto oom;
    size_t total = 1;
    for (uint32_t i = 0; i < n; i++) {
        bt->t[i].rk = bt->t[i].sl = bt->t[i].sr = bt->t[i].prefix = NONE;
        bt->t[i].vid = i;
        bt->t[i].len = m->vocab.entries[i].bytes_len;
    }
    int q = rank_mode ? derive_rank(tok, bt) : derive_merges(tok, bt);
    if (q < 0) goto oom;
    if (q == 0) return bt;
    for (uint32_t i = 0; i < n; i++)
        if (bt->t[i].rk != NONE) total += bt->t[i].len;
    bt->nodes_cap = total;
    bt->nodes = alloc_n(total, sizeof *bt->nodes);
    bt->l2 = alloc_n(65536, sizeof *bt->l2);
    uint32_t *order = alloc_n(n, sizeof *order);
    size_t *cnt = calloc(65536 + 1, sizeof *cnt);
    uint32_t maxlen = 0;
    if (!bt->nodes || !bt->l2 || !order || !cnt) { free(order); free(cnt); goto oom; }
    for (int i = 0; i < 256; i++) bt->l1[i] = NONE;
    for (size_t i = 0; i < 65536; i++) bt->l2[i] = NONE;
    /* made tokens by (first two bytes, length): counting sorts, by length then stably by the two bytes */
    for (uint32_t i = 0; i < n; i++)
        if (bt->t[i].rk != NONE && bt->t[i].len > maxlen) maxlen = bt->t[i].len;
    uint32_t *tmp = alloc_n(n, sizeof *tmp);
    size_t *lcnt = calloc((size_t)maxlen + 2, sizeof *lcnt);
    if (!tmp || !lcnt) { free(order); free(cnt); free(tmp); free(lcnt); goto oom; }
    size_t nmade = 0;
    for (uint32_t i = 0; i < n; i++)
        if (bt->t[i].rk != NONE) lcnt[bt->t[i].len + 1]++;
    for (uint32_t l = 1; l <= maxlen + 1; l++) lcnt[l] += lcnt[l - 1];
    for (uint32_t i = 0; i < n; i++)
        if (bt->t[i].rk != NONE) { tmp[lcnt[bt->t[i].len]++] = i; nmade++; }
    for (size_t j = 0; j < nmade; j++) {
        const uint8_t *p = tc_entry_bytes(&m->vocab, tmp[j]);
        size_t key = bt->t[tmp[j]].len >= 2 ? ((size_t)p[0] << 8 | p[1]) : 0;
        cnt[key + 1]++;
    }
    for (size_t k = 1; k <= 65536; k++) cnt[k] += cnt[k - 1];
    for (size_t j = 0; j < nmade; j++) {
        const uint8_t *p = tc_entry_bytes(&m->vocab, tmp[j]);
        size_t key = bt->t[tmp[j]].len >= 2 ? ((size_t)p[0] << 8 | p[1]) : 0;
        order[cnt[key]++] = tmp[j];
    }
    free(tmp); free(lcnt); free(cnt);
    /* the single bytes first (every two-byte token's prefix), then the rest */
    for (int b = 0; b < 256; b++) trie_add(bt, (const uint8_t[]){(uint8_t)b}, 1, (uint32_t)m->byte_ids[b]);
    for (size_t j = 0; j < nmade; j++)
        if (bt->t[order[j]].len >= 2) trie_add(bt, tc_entry_bytes(&m->vocab, order[j]), bt->t[order[j]].len, order[j]);
    free(order);
    if (!rank_mode) {
        /* the merges' filter (pair_rank), built after derive_merges: its is_valid asks the map itself */
        const tc_pairmap *pm = &m->merges;
        size_t bits = 4096;
        while (bits / 8 < pm->used && bits <= SIZE_MAX / 4) bits <<= 1;
        bt->pf = calloc(bits / 64, sizeof *bt->pf);
        if (!bt->pf) goto oom;
        bt->pf_mask = bits - 1;
        for (size_t i = 0; i < pm->cap; i++) {
            if (pm->slots[i].key == UINT64_MAX) continue;
            size_t f = (size_t)((uint64_t)tc_pair_hash(pm->slots[i].key) >> 32) & bt->pf_mask;
            bt->pf[f >> 6] |= (uint64_t)1 << (f & 63);
        }
    }
    bt->ok = 1;
    return bt;
oom:
    tc_bt_free(bt);
    return NULL;
}

const tc_bt *tc_bt_get(const tc_tokenizer *tok, int rank_mode, int build) {
    tc_tokenizer *t = (tc_tokenizer *)tok;   /* the lazily built table is the handle's only mutable part */
    _Atomic(tc_bt *) *slot = &t->bt[rank_mode ? 1 : 0];
    tc_bt *bt = atomic_load_explicit(slot, memory_order_acquire);
    if (bt || !build) return bt;
    tc_bt *mine = bt_build(tok, rank_mode);
    if (!mine) return NULL;   /* out of memory: the heap serves, a later call tries again */
    tc_bt *expect = NULL;
    if (atomic_compare_exchange_strong_explicit(slot, &expect, mine, memory_order_acq_rel, memory_order_acquire))
        return mine;
    tc_bt_free(mine);   /* another thread's table was published first */
    return expect;
}

/* A table for a chunk that repeats one byte (200,000 `x`, a run of spaces) on a handle that has not built
 * the whole one: only the tokens that are runs of that byte can appear, and every merge of two of them
 * makes a third, so the conditions above are checked on those alone (merges files). NULL when out of
 * memory; not usable when the vocabulary does not qualify. */
tc_bt *tc_bt_run(const tc_tokenizer *tok, uint8_t byte) {
    const tc_model *m = &tok->model;
    tc_bt *bt = calloc(1, sizeof *bt);
    if (!bt) return NULL;
    if (!tok->byte_level || m->cont_prefix_len || m->eow_suffix_len || !m->merges.slots ||
        m->byte_ids[byte] < 0 || (uint64_t)m->byte_ids[byte] >= m->vocab.n) return bt;
    uint32_t maxlen = 1;
    for (uint32_t i = 0; i < m->vocab.n; i++)
        if (m->vocab.entries[i].bytes_len > maxlen) maxlen = m->vocab.entries[i].bytes_len;
    /* vid_of[k]: the id of the run of k bytes, NONE; the stored string is the byte's char k times */
    uint8_t u[4];
    int ul = tc_utf8_encode(tc_byte_to_cp(byte), u);
    uint32_t *vid_of = alloc_n((size_t)maxlen + 1, sizeof *vid_of);
    uint8_t *str = alloc_n((size_t)maxlen, 4);
    uint32_t *local = alloc_n((size_t)maxlen + 1, sizeof *local);   /* k -> local number, NONE */
    bt->t = alloc_n((size_t)maxlen + 1, sizeof *bt->t);
    if (!vid_of || !str || !local || !bt->t) goto oom;
    uint32_t n = 0;
    size_t total = 0;
    for (uint32_t k = 1; k <= maxlen; k++) {
        memcpy(str + (size_t)(k - 1) * (size_t)ul, u, (size_t)ul);
        int64_t id = k == 1 ? m->byte_ids[byte] : tc_vocab_find(&m->vocab, str, (size_t)k * (size_t)ul);
        vid_of[k] = NONE;
        local[k] = NONE;
        if (id < 0 || m->vocab.entries[id].bytes_len != k) continue;
        vid_of[k] = (uint32_t)id;
        local[k] = n;
        tc_bt_tok *x = &bt->t[n++];
        x->rk = x->sl = x->sr = x->prefix = NONE;
        x->vid = (uint32_t)id;
        x->len = k;
        total += k;
    }
    bt->n = n;
    if (local[1] != 0) goto done;   /* the byte's token is not the byte (cannot happen on a byte-level file) */
    bt->t[0].rk = byte;
    bt->t[0].sl = bt->t[0].sr = 0;
    /* each longer run's producing merge (one at most), then made or not in rank order */
    uint32_t *rank = alloc_n(n, sizeof *rank), *order = alloc_n(n, sizeof *order);
    uint32_t *pa = alloc_n(n, sizeof *pa), *pb = alloc_n(n, sizeof *pb);
    if (!rank || !order || !pa || !pb) { free(rank); free(order); free(pa); free(pb); goto oom; }
    int ok = 1;
    uint32_t nord = 0;
    for (uint32_t j = 1; j < n && ok; j++) {
        uint32_t k = bt->t[j].len, found = 0;
        rank[j] = NONE;
        for (uint32_t i = 1; i < k; i++) {
            if (local[i] == NONE || local[k - i] == NONE) continue;
            const tc_merge *mg = tc_pairmap_get(&m->merges, vid_of[i], vid_of[k - i]);
            if (!mg) continue;
            if (mg->new_id != bt->t[j].vid || found++) { ok = 0; break; }   /* HF's stale-entry rule */
            rank[j] = mg->rank;
            pa[j] = local[i];
            pb[j] = local[k - i];
        }
        if (found && ok) order[nord++] = j;
    }
    /* by rank (few tokens: insertion sort) */
    for (uint32_t i = 1; i < nord; i++) {
        uint32_t x = order[i], k = i;
        while (k > 0 && rank[order[k - 1]] > rank[x]) { order[k] = order[k - 1]; k--; }
        order[k] = x;
    }
    for (uint32_t i = 0; i < nord && ok; i++) {
        uint32_t c = order[i], a = pa[c], b = pb[c];
        if (bt->t[a].rk == NONE || bt->t[b].rk == NONE) continue;
        if (rank[c] > UINT32_MAX - 512) { ok = 0; break; }
        if (is_valid(tok, bt, 0, NULL, 0, a, b, 256 + rank[c])) {
            bt->t[c].rk = 256 + rank[c];
            bt->t[c].sl = a;
            bt->t[c].sr = b;
        }
    }
    for (uint32_t i = 0; i < nord && ok; i++) {
        uint32_t c = order[i], a = pa[c], b = pb[c];
        if (bt->t[a].rk != NONE && bt->t[b].rk != NONE && (bt->t[a].rk >= 256 + rank[c] || bt->t[b].rk >= 256 + rank[c]))
            ok = 0;
    }
    free(rank); free(order); free(pa); free(pb);
    if (!ok) goto done;
    bt->nodes_cap = total;
    bt->nodes = alloc_n(total, sizeof *bt->nodes);
    bt->l2 = alloc_n(65536, sizeof *bt->l2);
    if (!bt->nodes || !bt->l2) goto oom;
    for (int i = 0; i < 256; i++) bt->l1[i] = NONE;
    for (size_t i = 0; i < 65536; i++) bt->l2[i] = NONE;
    bt->memo = alloc_n(n, n);
    if (!bt->memo) goto oom;
    memset(bt->memo, 0xFF, (size_t)n * n);
    /* shortest first, as trie_add wants */
    for (uint32_t j = 0; j < n; j++)
        if (bt->t[j].rk != NONE) trie_add(bt, tc_entry_bytes(&m->vocab, bt->t[j].vid), bt->t[j].len, j);
    bt->ok = 1;
done:
    free(vid_of); free(str); free(local);
    return bt;
oom:
    free(vid_of); free(str); free(local);
    tc_bt_free(bt);
    return NULL;
}

int tc_bt_usable(const tc_bt *bt) { return bt && bt->ok; }

/* The longest made token at text[p..end), NONE if none (cannot happen: every byte is one). */
static inline uint32_t longest_match(const tc_bt *bt, const uint8_t *text, size_t p, size_t end) {
    uint32_t node = bt->l1[text[p]];
    if (node == NONE) return NONE;
    uint32_t best = bt->nodes[node].tok;
    if (p + 1 >= end) return best;
    node = bt->l2[(uint32_t)text[p] << 8 | text[p + 1]];
    for (size_t i = p + 2;; i++) {
        if (node == NONE) return best;
        if (bt->nodes[node].tok != NONE) best = bt->nodes[node].tok;
        if (i >= end) return best;
        node = child_of(bt, node, text[i]);
    }
}

/* is_valid(a, b) of two tokens side by side at p, from a run's memo when there is one. */
static inline int pair_ok(const tc_tokenizer *tok, const tc_bt *bt, int rank_mode, const uint8_t *chunk, size_t p,
                          uint32_t a, uint32_t b) {
    if (!bt->memo || rank_mode) return is_valid(tok, bt, rank_mode, chunk, p, a, b, NONE);
    uint8_t *v = &bt->memo[(size_t)a * bt->n + b];
    if (*v == 0xFF) *v = (uint8_t)is_valid(tok, bt, rank_mode, chunk, p, a, b, NONE);
    return *v;
}

int tc_bt_chunk(const tc_tokenizer *tok, const tc_bt *bt, tc_bpe_scratch *sc, const uint8_t *chunk, size_t len,
                int rank_mode) {
    sc->nout = 0;
    if (len == 0) return 0;
    if (len >= UINT32_MAX) return -1;
    /* one bit per position: 1 = a valid encoding of the prefix may still end here */
    size_t words = len / 64 + 1;
    sc->tmp.len = 0;
    if (tc_buf_reserve(&sc->tmp, words * sizeof(uint64_t)) != 0) return -1;
    uint64_t *bits = (uint64_t *)(void *)sc->tmp.data;
    for (size_t i = 0; i < words; i++) bits[i] = ~(uint64_t)0;
    /* the tokens so far live in sc->out (id, start, end) */
    size_t pos = 0;
    uint32_t next = longest_match(bt, chunk, 0, len);
    while (pos < len) {
        uint32_t t = next;
        if (t == NONE) return 1;
        const tc_ctok *last = sc->nout ? &sc->out[sc->nout - 1] : NULL;
        for (;;) {
            size_t e = pos + bt->t[t].len;
            if (((bits[e >> 6] >> (e & 63)) & 1) && (!last || pair_ok(tok, bt, rank_mode, chunk, pos, last->id, t))) {
                if (tc_bpe_out_push(sc, t, (uint32_t)pos, (uint32_t)e) != 0) return -1;
                pos = e;
                next = pos < len ? longest_match(bt, chunk, pos, len) : NONE;
                break;
            }
            if (bt->t[t].prefix != NONE) { t = bt->t[t].prefix; continue; }
            /* no token fits here: this position is a dead end, step back one token */
            bits[pos >> 6] &= ~((uint64_t)1 << (pos & 63));
            if (!last) return 1;   /* cannot happen (a single byte always fits the start): the heap decides */
            next = last->id;
            pos = last->start;
            sc->nout--;
            break;
        }
    }
    for (size_t i = 0; i < sc->nout; i++) sc->out[i].id = bt->t[sc->out[i].id].vid;
    return 0;
}
