/* pipeline.c - encode: added tokens -> normalizer -> pre-tokenizers ->
 * model -> post-processors, with HF `tokenizers` offsets.
 *
 * Does: the whole encode of one text, the optional trace, chunk results
 * through the handle's shared cache (chunk_cache.c: lock-free, so a handle
 * stays safe to share between threads), and the byte -> char offset
 * conversion of the HF Python binding.
 * Does not: truncation or padding (HF's are off in the files we load).
 */
#include "added.h"
#include "greedy.h"
#include "kestrel.h"
#include "bpe.h"
#include "wordpiece.h"
#include "unigram.h"
#include "wpm.h"
#include "ugm.h"
#include "pretok.h"
#include "unicode.h"
#include "spm_model.h"
#include "chunk_cache.h"
#include "platform.h"

/* ---- the handle's chunk cache (chunk_cache.c) ---------------------------
 * Keys are chunk bytes (prefix space included) and the encoder mode; values
 * are token runs. Chunks up to CACHE_MAX_KEY bytes; entries up to
 * CACHE_BUDGET bytes in all, per handle. */
#define CACHE_MAX_KEY 128
#define CACHE_BUDGET ((size_t)24 << 20)

/* The handle's cache, made on first use (NULL: out of memory, encode without one). */
static tc_chunk_cache *shared_cache(const tc_tokenizer *tok) {
    tc_tokenizer *t = (tc_tokenizer *)(uintptr_t)tok;   /* the cache is the one mutable part of a handle */
    tc_chunk_cache *c = atomic_load_explicit(&t->chunk_cache, memory_order_acquire);
    if (c) return c;
    tc_chunk_cache *mine = tc_chunk_cache_new(CACHE_BUDGET);
    if (!mine) return NULL;
    tc_chunk_cache *expect = NULL;
    if (atomic_compare_exchange_strong_explicit(&t->chunk_cache, &expect, mine, memory_order_acq_rel,
                                                memory_order_acquire))
        return mine;
    tc_chunk_cache_free(mine);   /* another thread's cache was published first */
    return expect;
}

/* ---- encode context ---------------------------------------------------- */

typedef struct enc_ctx {
    const tc_tokenizer *tok;
    const uint8_t *text; size_t len;
    tc_encoding *out;
    tc_trace *tr;
    tc_bpe_scratch bpe;
    tc_pretok_scratch pt;
    tc_buf chunk;
    tc_chunk_cache *cache;       /* NULL: no cache (tracing, or out of memory) */
    tc_seg_list segs_raw, segs_norm;
    tc_nstr ns;
    /* the current segment's bytes as the pre-tokenizers and the chunk loop read them: ns.text's, or the
     * caller's own where nothing rewrites them (run_segment); never written through */
    const uint8_t *seg;
    size_t seg_len;
    int rank_mode;
    int ids_only;                /* TC_ENCODE_IDS_ONLY: no offset of any token is computed or stored */
} enc_ctx;

/* realloc, or, when nothing in the block is kept (keep 0), free and malloc: realloc copies the
 * old block whole whatever its content (a reused spare grown for a batch's text copied megabytes of
 * stale ids). */
static void *regrow(void *p, size_t n, int keep) {
    if (keep) return realloc(p, n);
    void *q = malloc(n);
    if (q) free(p);
    return q;
}

/* Room for `need` ids and special flags (an ids-only encode grows these alone). */
int tc_encoding_reserve_ids(tc_encoding *e, size_t need) {
    if (need <= e->cap) return 0;
    size_t cap = e->cap ? e->cap : 64;
    while (cap < need) cap *= 2;
    uint32_t *ids = regrow(e->ids, cap * sizeof *ids, e->n != 0);
    if (!ids) return -1;
    e->ids = ids;
    uint8_t *sp = regrow(e->special, cap, e->n != 0);
    if (!sp) return -1;
    e->special = sp;
    e->cap = cap;
    tc_hint_large(ids, cap * sizeof *ids);
    return 0;
}

/* Room for `need` tokens with their offsets. subtle: the offset arrays
 * always follow ids to e->cap (not just to need), since pushes test n
 * against cap alone; an encoding reused after an ids-only encode has a cap
 * larger than its offsets. */
int tc_encoding_reserve(tc_encoding *e, size_t need) {
    if (tc_encoding_reserve_ids(e, need) != 0) return -1;
    if (e->off_cap >= e->cap) return 0;
    uint32_t *off = regrow(e->offsets, e->cap * 2 * sizeof *off, e->n != 0);
    if (!off) return -1;
    e->offsets = off;
    uint32_t *co = regrow(e->char_offsets, e->cap * 2 * sizeof *co, e->n != 0);
    if (!co) return -1;
    e->char_offsets = co;
    e->off_cap = e->cap;
    tc_hint_large(off, e->cap * 2 * sizeof *off);
    tc_hint_large(co, e->cap * 2 * sizeof *co);
    return 0;
}

static inline int enc_push(enc_ctx *c, uint32_t id, uint32_t s, uint32_t e, uint8_t special) {
    tc_encoding *o = c->out;
    if (c->ids_only) {
        if (o->n == o->cap && tc_encoding_reserve_ids(o, o->n + 1) != 0) return -1;
    } else {
        if (o->n == o->cap && tc_encoding_reserve(o, o->n + 1) != 0) return -1;
        o->offsets[2 * o->n] = s;
        o->offsets[2 * o->n + 1] = e;
    }
    o->ids[o->n] = id;
    o->special[o->n] = special;
    o->n++;
    return 0;
}

/* The ids of a chunk's tokens, nothing else (ids-only encodes). */
static inline int push_chunk_ids(enc_ctx *c, const tc_ctok *toks, size_t ntoks) {
    tc_encoding *o = c->out;
    if (o->n + ntoks > o->cap && tc_encoding_reserve_ids(o, o->n + ntoks) != 0) return -1;
    for (size_t k = 0; k < ntoks; k++) {
        o->ids[o->n + k] = toks[k].id;
        o->special[o->n + k] = 0;   /* model output is never special */
    }
    o->n += ntoks;
    return 0;
}

/* The original span of byte i of the current normalized segment. */
static inline tc_span seg_align(const enc_ctx *c, uint32_t base, size_t i) {
    const tc_nstr *ns = &c->ns;
    if (ns->align) return ns->align[i];
    /* identity: the UTF-8 unit containing byte i */
    const uint8_t *s = c->seg;
    size_t len = c->seg_len;
    if (i < len && s[i] < 0x80) {
        /* an ASCII byte is a unit of its own: no sequence before it reaches over it (its bytes
         * would be continuation bytes), and it decodes alone */
        tc_span sp = {base + (uint32_t)i, base + (uint32_t)i + 1};
        return sp;
    }
    size_t lo = i >= 3 ? i - 3 : 0;
    for (size_t j = lo; j < i; j++) {
        if ((s[j] & 0xC0) == 0x80 || s[j] < 0x80) continue;
        int n;
        uint32_t cp = tc_utf8_decode(s, len, j, &n);
        if (cp < TC_CP_INVALID_BASE && j + (size_t)n > i) {
            tc_span sp = {base + (uint32_t)j, base + (uint32_t)(j + (size_t)n)};
            return sp;
        }
    }
    int n;
    (void)tc_utf8_decode(s, len, i, &n);
    tc_span sp = {base + (uint32_t)i, base + (uint32_t)(i + (size_t)n)};
    return sp;
}

/* Original span of normalized range [a, b) (b > a): HF convert_offsets
 * takes the first byte's start and the last byte's end. */
static inline tc_span range_align(const enc_ctx *c, uint32_t base, size_t a, size_t b) {
    tc_span s = {seg_align(c, base, a).start, seg_align(c, base, b - 1).end};
    return s;
}


/* ---- trace helpers ----------------------------------------------------- */

static int trace_chunk(enc_ctx *c, uint32_t ns, uint32_t ne, tc_span orig, int64_t added,
                       uint32_t sym_first, uint32_t step_first, uint32_t tok_first, uint8_t prefix, uint32_t lat_first) {
    tc_trace *tr = c->tr;
    void *p = tr->chunks;
    if (tc_grow(&p, &tr->chunks_cap, tr->nchunks + 1, sizeof *tr->chunks) != 0) return -1;
    tr->chunks = p;
    tc_trace_chunk *ch = &tr->chunks[tr->nchunks++];
    ch->norm_start = ns; ch->norm_end = ne;
    ch->orig_start = orig.start; ch->orig_end = orig.end;
    ch->added_id = added;
    ch->sym_first = sym_first; ch->sym_count = (uint32_t)(tr->nsyms - sym_first);
    ch->step_first = step_first; ch->step_count = (uint32_t)(tr->nsteps - step_first);
    ch->tok_first = tok_first; ch->tok_count = (uint32_t)(c->out->n - tok_first);
    ch->prefix_space = prefix;
    ch->lat_first = lat_first; ch->lat_count = (uint32_t)(tr->nlattice - lat_first);
    return 0;
}

/* Appends the current segment's normalized text and alignment to the trace. */
static int trace_segment(enc_ctx *c, uint32_t base, uint32_t *norm_base) {
    tc_trace *tr = c->tr;
    *norm_base = (uint32_t)tr->normalized.len;
    size_t n = c->seg_len;
    if (tc_buf_append(&tr->normalized, c->seg, n) != 0) return -1;
    void *p = tr->norm_align;
    if (tc_grow(&p, &tr->norm_align_cap, *norm_base + n, sizeof *tr->norm_align) != 0) return -1;
    tr->norm_align = p;
    for (size_t i = 0; i < n; i++) tr->norm_align[*norm_base + i] = seg_align(c, base, i);
    return 0;
}

/* ---- model on one chunk -------------------------------------------------- */

/* hint: the cache key's hash when the caller computed it (a chunk without a prefix space), else NULL;
 * with a hint, the caller has looked the chunk up too: hit is what the cache answered (NULL: a miss) */
static int run_chunk(enc_ctx *c, uint32_t base, const tc_piece *pc, uint32_t norm_base, const uint64_t *hint,
                     const tc_ctok *hit, size_t nhit) {
    const tc_tokenizer *tok = c->tok;
    const uint8_t *data = c->seg + pc->start;
    size_t plen = pc->end - pc->start;
    const uint8_t *chunk = data;
    size_t clen = plen;
    if (pc->prefix_space) {
        c->chunk.len = 0;
        if (tc_buf_push(&c->chunk, ' ') != 0 || tc_buf_append(&c->chunk, data, plen) != 0) return -1;
        chunk = c->chunk.data;
        clen = plen + 1;
    }
    const tc_ctok *toks;
    size_t ntoks;
    uint32_t sym_first = 0, step_first = 0, lat_first = 0, tok_first = (uint32_t)c->out->n;
    uint64_t h = 0;
    int cacheable = c->cache && clen <= CACHE_MAX_KEY;
    uint8_t mode = (uint8_t)c->rank_mode;
    if (cacheable) {
        if (hint && !pc->prefix_space) {
            h = *hint;
            toks = hit;
            ntoks = nhit;
        } else {
            h = tc_chunk_hash(chunk, clen);
            toks = tc_chunk_cache_get(c->cache, mode, chunk, clen, clen, h, &ntoks);
        }
        if (toks) goto have_tokens;
    }
    if (c->tr) { sym_first = (uint32_t)c->tr->nsyms; step_first = (uint32_t)c->tr->nsteps; lat_first = (uint32_t)c->tr->nlattice; }
    if (tok->model.kind == TC_MODEL_WORDPIECE || tok->model.kind == TC_MODEL_WORDLEVEL) {
        int r = tc_wordpiece_chunk(tok, &c->bpe, chunk, clen, c->tr);
        if (r != 0) return r;
    } else if (tok->model.kind == TC_MODEL_UNIGRAM) {
        int r = tc_unigram_chunk(tok, &c->bpe, chunk, clen, c->tr);
        if (r != 0) return r;
    } else if (tok->model.kind == TC_MODEL_WPM_LLAMA) {
        if (tc_wpm_chunk(tok, &c->bpe, chunk, clen) != 0) return -1;
    } else if (tok->model.kind == TC_MODEL_UGM) {
        int r = tc_ugm_chunk(tok, &c->bpe, chunk, clen);
        if (r != 0) return r;
    } else if (tc_bpe_chunk(tok, &c->bpe, chunk, clen, c->tr, c->rank_mode) != 0) {
        return -1;
    }
    toks = c->bpe.out;
    ntoks = c->bpe.nout;
    if (cacheable) tc_chunk_cache_put(c->cache, mode, chunk, clen, h, toks, ntoks);
have_tokens:;
    if (c->ids_only) return push_chunk_ids(c, toks, ntoks);   /* no trace in this mode */
    size_t pre = pc->prefix_space ? 1 : 0;
    for (size_t k = 0; k < ntoks; k++) {
        size_t a = toks[k].start, b = toks[k].end;
        tc_span sp;
        if (b > clen) {
            /* subtle: a symbol past the chunk's end (byte fallback on a
             * suffixed string) has no alignment; HF keeps its raw offsets */
            if (enc_push(c, toks[k].id, (uint32_t)a, (uint32_t)b, 0 /* model output is never special */) != 0) return -1;
            continue;
        }
        /* subtle: the virtual prefix space aligns to the chunk's first char */
        sp.start = seg_align(c, base, pc->start + (a > pre ? a - pre : 0)).start;
        sp.end = seg_align(c, base, pc->start + (b > pre ? b - pre - 1 : 0)).end;
        if (plen == 0) sp = seg_align(c, base, pc->start);   /* only the prefix space: its chunk's first char */
        if (enc_push(c, toks[k].id, sp.start, sp.end, 0 /* model output is never special */) != 0) return -1;
    }
    if (c->tr) {
        tc_span orig = plen ? range_align(c, base, pc->start, pc->end) : seg_align(c, base, pc->start);
        if (trace_chunk(c, norm_base + pc->start, norm_base + pc->end, orig, -1, sym_first, step_first,
                        tok_first, pc->prefix_space, lat_first) != 0) return -1;
    }
    return 0;
}

/* ---- the chunks of one pre-tokenized run -------------------------------- */

#define STREAM_BLOCK 512    /* first-stage matches per block where the pre-tokenizers stream */

/* The chunk loop works on blocks of KEY_BLOCK pieces in three passes, each a short loop of its own:
 * (1) key every piece (its key words and hash, made once) and start loading its cache slot; (2) read
 * each slot (by then arriving) and start loading the entry it names; (3) look each piece up and push
 * its ids, or encode it. The passes of two blocks interleave: while block b is looked up, block b + 1
 * has been keyed, so a slot's miss overlaps a block's work and an entry's miss the slot pass after it.
 * A warm encode is a lookup per chunk; the lookups of several chunks overlap. */
#define KEY_BLOCK 64

#if defined(__GNUC__)
#define TC_NOINLINE __attribute__((noinline))
#else
#define TC_NOINLINE
#endif

typedef struct key_block {
    tc_cc_key k[KEY_BLOCK];
    uint8_t ok[KEY_BLOCK];       /* 1: cacheable (no prefix space, at most CACHE_MAX_KEY bytes), keyed */
} key_block;

/* Pass 1 over pieces v[0..m) (bytes at text, avail of them readable); the table through its view
 * (tc_cc_view). A key is read as 16 bytes from its chunk's start, whatever its length; with `near`, a
 * chunk with fewer left after its start (the segment's last few) is keyed from a copy of its bytes
 * (tc_cc_key_make_near). Inlined twice (key_pieces): the test costs a block, not a chunk. */
static TC_CC_INLINE void key_range(const enc_ctx *c, const tc_piece *v, size_t m, const uint8_t *text, size_t avail,
                                   key_block *kb, int near) {
    uint8_t mode = (uint8_t)c->rank_mode;
    tc_cc_view cv = tc_cc_view_of(c->cache);
    for (size_t k = 0; k < m; k++) {
        size_t len = v[k].end - v[k].start;
        uint8_t ok = !v[k].prefix_space && len <= CACHE_MAX_KEY;
        kb->ok[k] = ok;
        if (!ok) continue;
        if (!near || v[k].start + TC_CC_SHORT <= avail) tc_cc_key_make(&kb->k[k], mode, text + v[k].start, len);
        else tc_cc_key_make_near(&kb->k[k], mode, text + v[k].start, len, avail - v[k].start);
#if defined(__GNUC__)
        __builtin_prefetch(&cv.slots[(size_t)kb->k[k].h & cv.mask]);   /* tc_chunk_cache_prefetch */
#else
        (void)cv;
#endif
    }
}

/* key_range over a block: its pieces start in order, so the last one's room decides for all of them. */
static void key_pieces(const enc_ctx *c, const tc_piece *v, size_t m, const uint8_t *text, size_t avail,
                       key_block *kb) {
    if (m && v[m - 1].start + TC_CC_SHORT <= avail) key_range(c, v, m, text, avail, kb, 0);
    else key_range(c, v, m, text, avail, kb, 1);
}

/* Pass 2: slots read, entries started; a likely miss also starts its first merge lookups. */
static void read_slots(const enc_ctx *c, const tc_piece *v, size_t m, const uint8_t *text, key_block *kb) {
    tc_cc_view cv = tc_cc_view_of(c->cache);
    int bpe_ahead = !c->rank_mode;
    for (size_t k = 0; k < m; k++) {
        if (!kb->ok[k]) kb->k[k].slot = 0;   /* lookup_ids' one test */
        else if (!tc_cc_key_ahead(cv, &kb->k[k]) && bpe_ahead)
            tc_bpe_prefetch(c->tok, text + v[k].start, v[k].end - v[k].start);
    }
}

/* A cache hit's tokens (chunk s[0..len)) all lie inside the chunk and start and end on ASCII bytes: an
 * ASCII byte is a UTF-8 unit of its own, so seg_align gives each token its own bytes (a token that
 * splits a character gets the character's span there: such a hit goes to run_chunk). */
static inline int hit_spans(const uint8_t *s, size_t len, const tc_ctok *toks, size_t n) {
    for (size_t t = 0; t < n; t++) {
        uint32_t a = toks[t].start, b = toks[t].end;
        if (a >= b || b > len || (s[a] | s[b - 1]) >= 0x80) return 0;
    }
    return 1;
}

/* Pass 3 of an encode with offsets: each piece's tokens, from the cache or its encoder (an ids-only
 * encode takes lookup_ids). A hit whose tokens start and end on ASCII bytes is pushed here with the
 * output's fields in locals; everything else goes to run_chunk with the key's hash. */
static int lookup_pieces(enc_ctx *c, uint32_t base, const tc_piece *v, size_t m, const uint8_t *text,
                         size_t avail, uint32_t off, uint32_t norm_base, const key_block *kb) {
    uint8_t mode = (uint8_t)c->rank_mode;
    const tc_chunk_cache *cache = c->cache;
    tc_cc_view cv = tc_cc_view_of(cache);
    /* spans are byte positions shifted by base + off: no alignment (identity) and no trace */
    int plain = !c->ns.align && !c->tr;
    tc_encoding *o = c->out;
    size_t on = o->n, cap = o->cap;
    uint32_t *ids = o->ids;
    uint8_t *sp = o->special;
    for (size_t k = 0; k < m; k++) {
        const tc_ctok *hit = NULL;
        size_t nhit = 0;
        if (kb->ok[k]) {
            hit = tc_cc_key_get(cache, cv, &kb->k[k], mode, text + v[k].start, v[k].end - v[k].start,
                                avail - v[k].start, &nhit);
            if (hit && plain && hit_spans(text + v[k].start, v[k].end - v[k].start, hit, nhit)) {
                /* a hit whose tokens start and end on ASCII bytes of a segment without alignment: each
                 * span is its bytes, shifted to the original text (run_chunk's seg_align, without the
                 * call and the per-token tests) */
                if (on + nhit > cap) {
                    o->n = on;
                    if (tc_encoding_reserve(o, on + nhit) != 0) return -1;
                    cap = o->cap; ids = o->ids; sp = o->special;
                }
                uint32_t at = base + off + v[k].start;
                uint32_t *offs = o->offsets + 2 * on;
                for (size_t t = 0; t < nhit; t++) {
                    ids[on + t] = hit[t].id;
                    sp[on + t] = 0;   /* model output is never special */
                    offs[2 * t] = at + hit[t].start;
                    offs[2 * t + 1] = at + hit[t].end;
                }
                on += nhit;
                continue;
            }
        }
        o->n = on;
        tc_piece pc = v[k];
        pc.start += off;
        pc.end += off;
        int rr = run_chunk(c, base, &pc, norm_base, kb->ok[k] ? &kb->k[k].h : NULL, hit, nhit);
        if (rr != 0) return rr;
        on = o->n; cap = o->cap; ids = o->ids; sp = o->special;
    }
    o->n = on;
    return 0;
}

/* lookup_ids' way for one piece it could not answer from its slot word: the probes, then the encoder
 * (run_chunk); out of line, so that the answered pieces' loop keeps its state in registers. */
static TC_NOINLINE int lookup_ids_slow(enc_ctx *c, uint32_t base, const tc_piece *piece, const uint8_t *text,
                                       size_t avail, uint32_t off, uint32_t norm_base, const tc_cc_key *q, int ok) {
    size_t len = piece->end - piece->start, nhit = 0;
    const tc_ctok *hit = NULL;
    if (ok) {
        hit = tc_chunk_cache_get(c->cache, (uint8_t)c->rank_mode, text + piece->start, len, avail - piece->start,
                                 q->h, &nhit);
        if (hit) return push_chunk_ids(c, hit, nhit);
    }
    tc_piece pc = *piece;
    pc.start += off;
    pc.end += off;
    return run_chunk(c, base, &pc, norm_base, ok ? &q->h : NULL, NULL, 0);
}

/* Pass 3 of an ids-only encode (lookup_pieces' ids-only hits, alone): a piece whose slot word was read
 * ahead (read_slots: 0 for every other piece) and names its entry copies the entry's ids, two without a
 * branch on their count; any other piece goes to lookup_ids_slow. The loop's only state is the output's
 * ids, count and room, kept in locals. The special flags of the block's tokens are zeroed at its end
 * (model output is never special). */
static int lookup_ids(enc_ctx *c, uint32_t base, const tc_piece *v, size_t m, const uint8_t *text, size_t avail,
                      uint32_t off, uint32_t norm_base, const key_block *kb) {
    tc_cc_view cv = tc_cc_view_of(c->cache);
    tc_encoding *o = c->out;
    size_t on0 = o->n;
    /* room for two ids a piece, kept from piece to piece (cap - on >= 2 * (m - k) at the loop's top), so
     * that an entry of one or two tokens is copied without a test of the room (that test was 4 of the
     * loop's ~36 instructions a chunk, callgrind) */
    if (tc_encoding_reserve_ids(o, on0 + 2 * m) != 0) return -1;
    size_t on = on0, cap = o->cap;
    uint32_t *ids = o->ids;
    for (size_t k = 0; k < m; k++) {
        const tc_cc_key *q = &kb->k[k];
        if (q->slot) {
            const tc_centry *e = tc_cc_key_entry(cv, q);
            if (e) {
                /* an entry has room for two tokens (tc_chunk_cache_get) */
                const tc_ctok *t = tc_cc_entry_toks(e);
                size_t nh = e->ntoks;
                ids[on] = t[0].id;
                ids[on + 1] = t[1].id;
                if (nh <= 2) {
                    on += nh;
                    continue;
                }
                if (on + nh + 2 * (m - k - 1) <= cap) {
                    for (size_t j = 2; j < nh; j++) ids[on + j] = t[j].id;
                    on += nh;
                    continue;
                }
            }
        }
        o->n = on;
        int rr = lookup_ids_slow(c, base, v + k, text, avail, off, norm_base, q, kb->ok[k]);
        if (rr != 0) return rr;   /* -1 out of memory, or the encoder's own refusal */
        if (tc_encoding_reserve_ids(o, o->n + 2 * (m - k - 1)) != 0) return -1;
        on = o->n; cap = o->cap; ids = o->ids;
    }
    o->n = on;
    if (on > on0) memset(o->special + on0, 0, on - on0);
    return 0;
}

/* Runs pieces pl[0..n) (their bytes at c->seg + off + start); the
 * pieces' positions are shifted by off before run_chunk sees them. */
static int run_pieces(enc_ctx *c, uint32_t base, const tc_piece_list *pl, uint32_t off, uint32_t norm_base) {
    size_t n = pl->n;
    const tc_piece *v = pl->v;
    if (!c->cache) {
        for (size_t i = 0; i < n; i++) {
            tc_piece pc = v[i];
            pc.start += off;
            pc.end += off;
            int rr = run_chunk(c, base, &pc, norm_base, NULL, NULL, 0);
            if (rr != 0) return rr;
        }
        return 0;
    }
    const uint8_t *text = c->seg + off;
    size_t avail = c->seg_len - off;   /* bytes readable at text (a chunk near the end is keyed from a copy) */
    key_block kb[2];
    size_t m = n < KEY_BLOCK ? n : KEY_BLOCK;
    key_pieces(c, v, m, text, avail, &kb[0]);
    read_slots(c, v, m, text, &kb[0]);
    for (size_t b0 = 0, cur = 0; b0 < n; b0 += m, cur ^= 1) {
        m = n - b0 < KEY_BLOCK ? n - b0 : KEY_BLOCK;
        size_t b1 = b0 + m, m1 = n - b1 < KEY_BLOCK ? n - b1 : KEY_BLOCK;
        if (m1) key_pieces(c, v + b1, m1, text, avail, &kb[cur ^ 1]);
        int rr = c->ids_only ? lookup_ids(c, base, v + b0, m, text, avail, off, norm_base, &kb[cur])
                             : lookup_pieces(c, base, v + b0, m, text, avail, off, norm_base, &kb[cur]);
        if (rr != 0) return rr;
        if (m1) read_slots(c, v + b1, m1, text, &kb[cur ^ 1]);
    }
    return 0;
}

/* ---- one plain segment of the original text ------------------------------ */

static int emit_added(enc_ctx *c, int32_t k, tc_span orig, uint32_t ns, uint32_t ne) {
    if (c->ids_only) return enc_push(c, c->tok->added[k].spec.id, 0, 0, (uint8_t)(c->tok->added[k].spec.special != 0));
    const tc_added_token_spec *sp = &c->tok->added[k].spec;
    uint32_t tok_first = (uint32_t)c->out->n;
    if (enc_push(c, sp->id, orig.start, orig.end, (uint8_t)(sp->special != 0)) != 0) return -1;
    if (c->tr) {
        size_t sf = c->tr->nsyms, stf = c->tr->nsteps;
        if (trace_chunk(c, ns, ne, orig, sp->id, (uint32_t)sf, (uint32_t)stf, tok_first, 0, (uint32_t)c->tr->nlattice) != 0) return -1;
    }
    return 0;
}

/* Appends bytes [a, b) of the current normalized segment to the trace. */
static int trace_append(enc_ctx *c, uint32_t base, size_t a, size_t b, uint32_t *nb) {
    tc_trace *tr = c->tr;
    *nb = (uint32_t)tr->normalized.len;
    if (tc_buf_append(&tr->normalized, c->seg + a, b - a) != 0) return -1;
    void *p = tr->norm_align;
    if (tc_grow(&p, &tr->norm_align_cap, *nb + (b - a), sizeof *tr->norm_align) != 0) return -1;
    tr->norm_align = p;
    for (size_t i = a; i < b; i++) tr->norm_align[*nb + (i - a)] = seg_align(c, base, i);
    return 0;
}

/* Metaspace (first pre-tokenizer) on bytes [a, b) of the normalized
 * segment, as HF's pre_tokenize on that split: spaces become the
 * replacement (NormalizedString::replace), the replacement is prepended per
 * prepend_scheme ("first": only on the split whose original start is 0),
 * then the pre-tokenizers split the rewritten text and each piece goes to
 * the model. The rewritten text takes c->ns's place meanwhile. */
static int run_metaspace(enc_ctx *c, uint32_t base, size_t a, size_t b) {
    const tc_tokenizer *tok = c->tok;
    const tc_pretok *ms = &tok->pretok[0];
    tc_nstr w;
    memset(&w, 0, sizeof w);
    int rc = -1;
    if (tc_buf_append(&w.text, c->seg + a, b - a) != 0) goto out;
    {
        void *p = NULL;
        if (tc_grow(&p, &w.align_cap, b - a, sizeof *w.align) != 0) goto out;
        w.align = p;
        for (size_t i = a; i < b; i++) w.align[i - a] = seg_align(c, base, i);
    }
    if (tc_nstr_replace_literal(&w, " ", 1, ms->replacement, ms->replacement_len, base) != 0) goto out;
    int starts = w.text.len >= ms->replacement_len && memcmp(w.text.data, ms->replacement, ms->replacement_len) == 0;
    if (ms->prepend_scheme == TC_PREPEND_LLAMA) starts = 0;
    int prepend = ms->prepend_scheme == TC_PREPEND_ALWAYS || ms->prepend_scheme == TC_PREPEND_LLAMA ||
                  (ms->prepend_scheme == TC_PREPEND_FIRST && w.align[0].start == 0);
    if (prepend && !starts && tc_nstr_prepend(&w, ms->replacement, ms->replacement_len, base) != 0) goto out;
    {
        tc_nstr saved = c->ns;
        const uint8_t *saved_seg = c->seg;
        size_t saved_len = c->seg_len;
        c->ns = w;
        c->seg = w.text.data;
        c->seg_len = w.text.len;
        uint32_t nb = 0;
        tc_piece_list *pieces;
        rc = 0;
        if (c->tr && trace_append(c, base, 0, c->seg_len, &nb) != 0) rc = -1;
        if (rc == 0) rc = tc_pretokenize(tok, &c->pt, c->seg, c->seg_len, &pieces);
        if (rc == 0) rc = run_pieces(c, base, pieces, 0, nb);
        w = c->ns;
        c->ns = saved;
        c->seg = saved_seg;
        c->seg_len = saved_len;
    }
out:
    tc_nstr_free(&w);
    return rc;
}

static int run_segment(enc_ctx *c, uint32_t start, uint32_t end) {
    const tc_tokenizer *tok = c->tok;
    tc_nstr *ns = &c->ns;
    ns->text.len = 0;
    free(ns->align);
    ns->align = NULL;
    ns->align_cap = 0;
    /* A segment that no normalizer rewrites is read where the caller has it: a copy was the largest
     * memmove of a long text's encode (3.2 MB and its fresh pages for War and Peace, 6% of an ids-only
     * pass, perf). The chunk loop keys chunks near its end from a copy (key_pieces). */
    c->seg = c->text + start;
    c->seg_len = end - start;
    if (tok->has_normalizer && !tc_normalize_is_noop(&tok->normalizer, c->seg, c->seg_len)) {
        if (tc_buf_append(&ns->text, c->text + start, end - start) != 0) return -1;
        int nr = tc_normalize(&tok->normalizer, ns, start);
        if (nr != 0) return nr;
        if (c->tr && ns->align) {
            /* did it really change? compare text */
            if (ns->text.len != (size_t)(end - start) || memcmp(ns->text.data, c->text + start, end - start) != 0)
                c->tr->normalized_changed = 1;
        }
        c->seg = ns->text.data;
        c->seg_len = ns->text.len;
    }
    uint32_t norm_base = 0;
    int metaspace = tok->npretok > 0 && tok->pretok[0].kind == TC_PT_METASPACE;
    /* with Metaspace the trace records each piece's text as the model sees it (below) */
    if (c->tr && !metaspace && trace_segment(c, start, &norm_base) != 0) return -1;

    /* normalized added tokens */
    c->segs_norm.n = 0;
    if (tc_added_split(tok, &tok->trie_norm, c->seg, c->seg_len, &c->segs_norm) != 0) return -1;
    for (size_t si = 0; si < c->segs_norm.n; si++) {
        tc_seg sg = c->segs_norm.v[si];
        if (sg.added >= 0) {
            tc_span orig = {0, 0};
            if (!c->ids_only) orig = range_align(c, start, sg.start, sg.end);
            if (metaspace && c->tr) {
                uint32_t nb;
                if (trace_append(c, start, sg.start, sg.end, &nb) != 0) return -1;
                if (emit_added(c, sg.added, orig, nb, nb + (sg.end - sg.start)) != 0) return -1;
                continue;
            }
            if (emit_added(c, sg.added, orig, norm_base + sg.start, norm_base + sg.end) != 0) return -1;
            continue;
        }
        if (sg.end == sg.start) continue;
        if (metaspace) {
            int r = run_metaspace(c, start, sg.start, sg.end);
            if (r != 0) return r;
            continue;
        }
        tc_piece_list *pieces;
        if (tc_pretok_streams(tok)) {
            /* a block of chunks at a time: the chunk lists stay small and in cache, and a long
             * text no longer allocates (and page-faults) lists the size of its chunks on every call */
            for (size_t pos = 0; pos < sg.end - sg.start;) {
                int r = tc_pretokenize_next(tok, &c->pt, c->seg + sg.start, sg.end - sg.start, &pos,
                                            STREAM_BLOCK, &pieces);
                if (r == 0) r = run_pieces(c, start, pieces, sg.start, norm_base);
                if (r != 0) return r;
            }
            continue;
        }
        int r = tc_pretokenize(tok, &c->pt, c->seg + sg.start, sg.end - sg.start, &pieces);
        if (r != 0) return r;
        r = run_pieces(c, start, pieces, sg.start, norm_base);
        if (r != 0) return r;
    }
    return 0;
}

/* ---- post-processing ----------------------------------------------------- */

/* Leading (or trailing) characters of a token string that are 'Ġ' (the
 * mapped space) or whitespace: their count, and the bytes they stand for in
 * the text ('Ġ' is one byte, a whitespace character its UTF-8 length). */
static size_t count_space_chars(const uint8_t *s, size_t len, int from_end, size_t *nbytes) {
    size_t count = 0;
    *nbytes = 0;
    if (!from_end) {
        for (size_t i = 0; i < len;) {
            int n;
            uint32_t cp = tc_utf8_decode(s, len, i, &n);
            if (cp != 0x120 && !tc_unicode_is_space(cp)) break;
            count++;
            *nbytes += cp == 0x120 ? 1 : (size_t)n;
            i += (size_t)n;
        }
    } else {
        size_t end = len;
        while (end > 0) {
            size_t j = end - 1;
            while (j > 0 && (s[j] & 0xC0) == 0x80 && end - j < 4) j--;
            int n;
            uint32_t cp = tc_utf8_decode(s, len, j, &n);
            if (j + (size_t)n != end) { cp = TC_CP_INVALID_BASE + s[end - 1]; j = end - 1; n = 1; }
            if (cp != 0x120 && !tc_unicode_is_space(cp)) break;
            count++;
            *nbytes += cp == 0x120 ? 1 : (size_t)n;
            end = j;
        }
    }
    return count;
}

static void trim_pair(uint32_t *o, size_t lead, size_t trail, int is_first, int add_prefix_space) {
    if (lead > 0) {
        if (is_first && add_prefix_space && lead == 1) lead = 0;
        uint64_t ns = (uint64_t)o[0] + lead;
        o[0] = (uint32_t)(ns < o[1] ? ns : o[1]);
    }
    if (trail > 0 && o[1] >= trail) {
        uint32_t ne = o[1] - (uint32_t)trail;
        o[1] = ne > o[0] ? ne : o[0];
    }
}

/* ByteLevel post-processor with trim_offsets (HF process_offsets). HF runs
 * it on the offsets after their conversion to characters, so the counts are
 * characters there; the byte offsets get the matching byte counts. */
static void trim_offsets(const tc_tokenizer *tok, const uint8_t *text, tc_encoding *e, int add_prefix_space) {
    for (size_t i = 0; i < e->n; i++) {
        size_t slen;
        const char *s = tc_id_to_token(tok, e->ids[i], &slen);
        if (!s) continue;
        /* subtle: an added token matched in the text carries the matched
         * slice as its string in HF, lstrip/rstrip whitespace included */
        if (tc_is_added(tok, e->ids[i]) && e->offsets[2 * i + 1] > e->offsets[2 * i]) {
            s = (const char *)text + e->offsets[2 * i];
            slen = e->offsets[2 * i + 1] - e->offsets[2 * i];
        }
        size_t lb, tb;
        size_t lead = count_space_chars((const uint8_t *)s, slen, 0, &lb);
        size_t trail = count_space_chars((const uint8_t *)s, slen, 1, &tb);
        if (lead == 0 && trail == 0) continue;
        uint32_t *co = &e->char_offsets[2 * i], *bo = &e->offsets[2 * i];
        trim_pair(co, lead, trail, i == 0 || co[0] == 0, add_prefix_space);
        trim_pair(bo, lb, tb, i == 0 || bo[0] == 0, add_prefix_space);
    }
}

/* TemplateProcessing's single template on ids alone: the sequence's ids
 * moved to their place, the template's own ids (special) around them. */
static int template_ids(tc_encoding *e, const tc_post *pp, size_t extra) {
    size_t n = e->n, nseq = 0;
    for (size_t i = 0; i < pp->nsingle; i++) nseq += pp->single[i].is_sequence != 0;
    if (tc_encoding_reserve_ids(e, n * (nseq ? nseq : 1) + extra) != 0) return -1;
    size_t before = 0;   /* template ids ahead of the sequence */
    size_t i = 0;
    for (; i < pp->nsingle && !pp->single[i].is_sequence; i++) before += pp->single[i].nids;
    memmove(e->ids + before, e->ids, n * sizeof *e->ids);
    memmove(e->special + before, e->special, n);
    size_t at = 0;
    int seen = 0;
    for (i = 0; i < pp->nsingle; i++) {
        const tc_template_piece *p = &pp->single[i];
        if (p->is_sequence) {
            /* subtle: a template naming $A twice copies the sequence twice, as the full path does */
            if (seen) {
                memcpy(e->ids + at, e->ids + before, n * sizeof *e->ids);
                memcpy(e->special + at, e->special + before, n);
            }
            seen = 1;
            at += n;
            continue;
        }
        for (uint32_t k = 0; k < p->nids; k++) {
            e->ids[at] = p->ids[k];
            e->special[at] = 1;
            at++;
        }
    }
    e->n = at;
    return 0;
}

static int apply_template(enc_ctx *c, const tc_post *pp) {
    tc_encoding *e = c->out;
    size_t extra = 0;
    for (size_t i = 0; i < pp->nsingle; i++) if (!pp->single[i].is_sequence) extra += pp->single[i].nids;
    if (extra == 0) return 0;
    if (c->ids_only) return template_ids(e, pp, extra);
    size_t n = e->n, nseq = 0;
    for (size_t i = 0; i < pp->nsingle; i++) nseq += pp->single[i].is_sequence != 0;
    /* a template may name $A more than once: room for each copy */
    if (tc_encoding_reserve(e, n * nseq + extra) != 0) return -1;
    /* rebuild in place from the end */
    tc_encoding old = *e;
    uint32_t *ids = malloc((n ? n : 1) * sizeof *ids);
    uint32_t *off = malloc((n ? n : 1) * 2 * sizeof *off);
    uint32_t *co = malloc((n ? n : 1) * 2 * sizeof *co);
    uint8_t *sp = malloc(n ? n : 1);
    if (!ids || !off || !co || !sp) { free(ids); free(off); free(co); free(sp); return -1; }
    memcpy(ids, old.ids, n * sizeof *ids);
    memcpy(off, old.offsets, n * 2 * sizeof *off);
    memcpy(co, old.char_offsets, n * 2 * sizeof *co);
    memcpy(sp, old.special, n);
    e->n = 0;
    for (size_t i = 0; i < pp->nsingle; i++) {
        const tc_template_piece *p = &pp->single[i];
        if (p->is_sequence) {
            memcpy(e->ids + e->n, ids, n * sizeof *ids);
            memcpy(e->offsets + 2 * e->n, off, n * 2 * sizeof *off);
            memcpy(e->char_offsets + 2 * e->n, co, n * 2 * sizeof *co);
            memcpy(e->special + e->n, sp, n);
            e->n += n;
        } else {
            for (uint32_t k = 0; k < p->nids; k++) {
                e->ids[e->n] = p->ids[k];
                e->offsets[2 * e->n] = 0;
                e->offsets[2 * e->n + 1] = 0;
                e->char_offsets[2 * e->n] = 0;
                e->char_offsets[2 * e->n + 1] = 0;
                e->special[e->n] = 1;
                e->n++;
            }
        }
    }
    free(ids); free(off); free(co); free(sp);
    return 0;
}

/* ---- byte -> char offsets (HF BytesToCharOffsetConverter) ---------------- */

#define CP_STRIDE 64

/* Byte -> char index lookups, mostly in increasing order: a cursor that
 * walks forward, and checkpoints every CP_STRIDE bytes for jumps back. */
typedef struct char_index {
    const uint8_t *s; size_t len;
    uint32_t *ck_byte, *ck_char; size_t nck;
    size_t pos, ci;            /* cursor: a unit boundary and its char index */
} char_index;

static inline int unit_len(const uint8_t *s, size_t len, size_t i) {
    if (s[i] < 0x80) return 1;
    int n;
    (void)tc_utf8_decode(s, len, i, &n);
    return n;
}

/* A jump back (p before the cursor): restart from the last checkpoint at or before p. */
static void rewind_to(char_index *x, size_t p) {
    if (p >= x->pos) return;
    size_t k = p / CP_STRIDE;
    while (k > 0 && x->ck_byte[k] > p) k--;
    x->pos = x->ck_byte[k];
    x->ci = x->ck_char[k];
}

/* Char index of the unit containing byte p (p < len). */
static size_t char_at(char_index *x, size_t p) {
    rewind_to(x, p);
    for (;;) {
        int n = unit_len(x->s, x->len, x->pos);
        if (p < x->pos + (size_t)n) return x->ci;
        x->pos += (size_t)n;
        x->ci++;
    }
}

/* The same for text that is valid UTF-8 throughout: every unit is one
 * lead byte and its continuation bytes, so the char of byte p is the count
 * of lead bytes in [0, p] minus one, counted without decoding. The cursor
 * rests at p (a token's end is the next one's start), possibly inside a
 * unit: ci counts the lead bytes before pos. */
static inline size_t char_at_valid(char_index *x, size_t p) {
    if (p < x->pos) rewind_to(x, p);
    size_t ci = x->ci, i = x->pos;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* the lead bytes of a word's bytes counted at once (a token is ~4 bytes: the byte loop's
     * exit was a mispredicted branch per token); b is a lead byte unless it is 10xxxxxx */
    while (i + 8 <= x->len && i < p) {
        uint64_t w;
        memcpy(&w, x->s + i, 8);
        const uint64_t high = 0x8080808080808080ull;
        uint64_t lead = ~(w & ~(w << 1)) & high;   /* bit 7 of each byte: not a continuation byte */
        size_t d = p - i;
        if (d < 8) lead &= ((uint64_t)1 << (8 * d)) - 1;   /* the first d bytes: bits 0 .. 8d-1 */
        ci += (size_t)(((lead >> 7) * 0x0101010101010101ull) >> 56);
        i += d < 8 ? d : 8;
    }
#endif
    for (; i < p; i++) ci += (x->s[i] & 0xC0) != 0x80;
    x->pos = p;
    x->ci = ci;
    return ci + ((x->s[p] & 0xC0) != 0x80) - 1;
}

static int char_offsets(const uint8_t *s, size_t len, tc_encoding *e) {
    char_index x;
    memset(&x, 0, sizeof x);
    x.s = s; x.len = len;
    x.nck = len / CP_STRIDE + 1;
    x.ck_byte = malloc(x.nck * sizeof *x.ck_byte);
    x.ck_char = malloc(x.nck * sizeof *x.ck_char);
    if (!x.ck_byte || !x.ck_char) { free(x.ck_byte); free(x.ck_char); return -1; }
    size_t next_ck = 0, chars = 0, i = 0;
    int valid = 1;
    while (i < len) {
        if (next_ck * CP_STRIDE <= i) {
            while (next_ck < x.nck && next_ck * CP_STRIDE <= i) {
                x.ck_byte[next_ck] = (uint32_t)i; x.ck_char[next_ck] = (uint32_t)chars; next_ck++;
            }
        }
        /* eight ASCII bytes at a time (eight chars), where no checkpoint falls inside them */
        if (len - i >= 8 && i + 8 <= next_ck * CP_STRIDE) {
            uint64_t w;
            memcpy(&w, s + i, 8);
            if (!(w & 0x8080808080808080ull)) { i += 8; chars += 8; continue; }
        }
        if (s[i] < 0x80) {
            i++;
        } else {
            int n;
            if (tc_utf8_decode(s, len, i, &n) >= TC_CP_INVALID_BASE) valid = 0;
            i += (size_t)n;
        }
        chars++;
    }
    while (next_ck < x.nck) { x.ck_byte[next_ck] = (uint32_t)len; x.ck_char[next_ck] = (uint32_t)chars; next_ck++; }
    if (valid && chars == len) {
        /* all ASCII: a byte is its char, so the rules below reduce to these (no cursor) */
        for (size_t t = 0; t < e->n; t++) {
            uint32_t bs = e->offsets[2 * t], be = e->offsets[2 * t + 1];
            uint32_t *co = &e->char_offsets[2 * t];
            co[0] = bs;
            co[1] = bs >= len || be <= len ? be : bs + 2;
        }
        free(x.ck_byte); free(x.ck_char);
        return 0;
    }
    /* a token's start is mostly the previous token's end: its char is known then */
    size_t last_b = SIZE_MAX, last_c = 0;
    for (size_t t = 0; valid && t < e->n; t++) {
        uint32_t bs = e->offsets[2 * t], be = e->offsets[2 * t + 1];
        uint32_t *co = &e->char_offsets[2 * t];
        if (bs >= len) { co[0] = bs; co[1] = be; continue; }   /* the rules of the loop below */
        size_t cs = bs == last_b ? last_c : char_at_valid(&x, bs);
        co[0] = (uint32_t)cs;
        if (be < len) {
            last_b = be;
            last_c = char_at_valid(&x, be);
            co[1] = (uint32_t)last_c;
        } else {
            co[1] = (uint32_t)(be - 1 < len ? char_at_valid(&x, be - 1) + 1 : cs + 2);
        }
    }
    for (size_t t = 0; !valid && t < e->n; t++) {
        uint32_t bs = e->offsets[2 * t], be = e->offsets[2 * t + 1];
        uint32_t *co = &e->char_offsets[2 * t];
        if (bs >= len) { co[0] = bs; co[1] = be; continue; }   /* start not in the map: unchanged */
        size_t cs = char_at(&x, bs);
        if (be < len) {
            co[0] = (uint32_t)cs; co[1] = (uint32_t)char_at(&x, be);
        } else {
            /* end not in the map: the char of end - 1, plus one */
            co[0] = (uint32_t)cs;
            co[1] = (uint32_t)((be >= 1 && be - 1 < len) ? char_at(&x, be - 1) + 1 : cs + 2);   /* HF: unwrap_or(start + 1) + 1 */
        }
    }
    free(x.ck_byte); free(x.ck_char);
    return 0;
}

/* ---- greedy ----------------------------------------------------------------- */

/* The trace's normalized text of an encoder without a normalizer: the text
 * itself, every byte aligned to its own UTF-8 unit. */
static int identity_alignment(tc_trace *trace, const uint8_t *text, size_t len) {
    void *pa = trace->norm_align;
    if (tc_buf_append(&trace->normalized, text, len) != 0 ||
        tc_grow(&pa, &trace->norm_align_cap, len ? len : 1, sizeof *trace->norm_align) != 0) {
        trace->norm_align = pa;
        return -1;
    }
    trace->norm_align = pa;
    for (size_t i = 0; i < len;) {
        int n;
        (void)tc_utf8_decode(text, len, i, &n);
        for (int k = 0; k < n; k++) {
            trace->norm_align[i + (size_t)k].start = (uint32_t)i;
            trace->norm_align[i + (size_t)k].end = (uint32_t)(i + (size_t)n);
        }
        i += (size_t)n;
    }
    return 0;
}

/* The ideal longest-prefix encoder over the whole text: no normalizer,
 * pre-tokenizer or post-processor. */
int tc_greedy_run(const tc_tokenizer *tok, const uint8_t *text, size_t len, int ids_only, tc_encoding *out,
                  tc_trace *trace, tc_error *err) {
    tc_greedy_out g;
    memset(&g, 0, sizeof g);
    if (trace) tc_trace_free(trace);
    out->n = 0;
    int rc = tc_greedy_encode(tok->greedy, text, len, trace != NULL, &g, err);
    if (rc != TC_OK) { tc_greedy_out_free(&g); return rc; }
    if ((ids_only ? tc_encoding_reserve_ids(out, g.n + 1) : tc_encoding_reserve(out, g.n + 1)) != 0) {
        tc_greedy_out_free(&g);
        return tc_error_set(err, TC_ERR_NOMEM, "encode: out of memory");
    }
    for (size_t i = 0; i < g.n; i++) {
        out->ids[i] = g.toks[i].id;
        out->special[i] = g.toks[i].special;
    }
    if (!ids_only)
        for (size_t i = 0; i < g.n; i++) {
            out->offsets[2 * i] = g.toks[i].start;
            out->offsets[2 * i + 1] = g.toks[i].end;
        }
    out->n = g.n;
    if (!ids_only && char_offsets(text, len, out) != 0) rc = tc_error_set(err, TC_ERR_NOMEM, "encode: out of memory");
    if (rc == TC_OK && trace) {
        trace->gsteps = malloc((g.nsteps ? g.nsteps : 1) * sizeof *trace->gsteps);
        trace->gcands = malloc((g.ncands ? g.ncands : 1) * sizeof *trace->gcands);
        if (!trace->gsteps || !trace->gcands || identity_alignment(trace, text, len) != 0) {
            rc = tc_error_set(err, TC_ERR_NOMEM, "encode: out of memory");
        } else {
            for (size_t i = 0; i < g.nsteps; i++) {
                tc_trace_greedy_step *t = &trace->gsteps[i];
                t->pos = g.steps[i].pos; t->chosen = g.steps[i].chosen; t->chosen_len = g.steps[i].chosen_len;
                t->cand_first = g.steps[i].cand_first; t->cand_count = g.steps[i].ncand;
            }
            trace->ngsteps = g.nsteps;
            if (g.ncands) memcpy(trace->gcands, g.cands, g.ncands * sizeof *g.cands);
            trace->ngcands = g.ncands;
        }
    }
    tc_greedy_out_free(&g);
    if (rc != TC_OK) out->n = 0;
    return rc;
}

/* ---- kestrel ---------------------------------------------------------------- */

/* The real board engine's encoder over the whole text (kestrel.h); a token
 * is marked special when its id is a special added token. */
static int kestrel_run(const tc_tokenizer *tok, int version, const uint8_t *text, size_t len, int ids_only,
                       tc_encoding *out, tc_trace *trace, tc_error *err) {
    tc_kestrel_out k;
    memset(&k, 0, sizeof k);
    if (trace) tc_trace_free(trace);
    out->n = 0;
    int rc = tc_kestrel_encode(tok->greedy, version, text, len, trace != NULL, &k, err);
    if (rc != TC_OK) { tc_kestrel_out_free(&k); return rc; }
    if ((ids_only ? tc_encoding_reserve_ids(out, k.n + 1) : tc_encoding_reserve(out, k.n + 1)) != 0) {
        tc_kestrel_out_free(&k);
        return tc_error_set(err, TC_ERR_NOMEM, "encode: out of memory");
    }
    for (size_t i = 0; i < k.n; i++) {
        out->ids[i] = k.toks[i].id;
        out->special[i] = (uint8_t)(tc_is_special(tok, k.toks[i].id) != 0);
    }
    if (!ids_only)
        for (size_t i = 0; i < k.n; i++) {
            out->offsets[2 * i] = k.toks[i].start;
            out->offsets[2 * i + 1] = k.toks[i].end;
        }
    out->n = k.n;
    if (!ids_only && char_offsets(text, len, out) != 0) rc = tc_error_set(err, TC_ERR_NOMEM, "encode: out of memory");
    if (rc == TC_OK && trace) {
        trace->ksteps = malloc((k.nsteps ? k.nsteps : 1) * sizeof *trace->ksteps);
        if (!trace->ksteps || identity_alignment(trace, text, len) != 0) {
            rc = tc_error_set(err, TC_ERR_NOMEM, "encode: out of memory");
        } else {
            for (size_t i = 0; i < k.nsteps; i++) {
                const tc_kestrel_step *s = &k.steps[i];
                tc_trace_kestrel_step *t = &trace->ksteps[i];
                t->pos = s->pos; t->at = s->at; t->spaces = s->spaces; t->limit = s->limit; t->id = s->id;
                t->consumed = s->consumed; t->retry_id = s->retry_id; t->retry_len = s->retry_len;
                t->unguarded = s->unguarded; t->rule = s->rule; t->retry = s->retry;
                t->pad[0] = t->pad[1] = 0;
            }
            trace->nksteps = k.nsteps;
        }
    }
    tc_kestrel_out_free(&k);
    if (rc != TC_OK) out->n = 0;
    return rc;
}

/* ---- entry point ---------------------------------------------------------- */

int tc_encode(const tc_tokenizer *tok, const uint8_t *text, size_t len, int add_special_tokens,
              tc_encoding *out, tc_trace *trace, tc_error *err) {
    return tc_encode_ex(tok, text, len, add_special_tokens, TC_ENC_BPE, out, trace, err);
}

int tc_encode_ex(const tc_tokenizer *tok, const uint8_t *text, size_t len, int add_special_tokens,
                 tc_encoder encoder, tc_encoding *out, tc_trace *trace, tc_error *err) {
    return tc_encode_flags(tok, text, len, add_special_tokens, encoder, 0, out, trace, err);
}

int tc_encode_flags(const tc_tokenizer *tok, const uint8_t *text, size_t len, int add_special_tokens,
                    tc_encoder encoder, unsigned flags, tc_encoding *out, tc_trace *trace, tc_error *err) {
    if (!tok || !out || (!text && len)) return tc_error_set(err, TC_ERR_ARG, "encode: null argument");
    int ids_only = (flags & TC_ENCODE_IDS_ONLY) != 0;
    if (flags & ~TC_ENCODE_IDS_ONLY) return tc_error_set(err, TC_ERR_ARG, "encode: unknown flags 0x%x", flags);
    if (ids_only && trace) return tc_error_set(err, TC_ERR_ARG, "encode: an ids-only encode has no trace");
    if (!tc_is_prepared(tok, encoder))
        return tc_error_set(err, TC_ERR_ARG, "encode: the %s encoder is not prepared (call tc_prepare first)",
                            tc_encoder_name(encoder));
    if (encoder == TC_ENC_GREEDY) return tc_greedy_run(tok, text, len, ids_only, out, trace, err);
    if (tok->spm) {
        if (len > TC_MAX_INPUT_BYTES) return tc_error_set(err, TC_ERR_LIMIT, "encode: text of %zu bytes is above the limit of %u", len, TC_MAX_INPUT_BYTES);
        (void)add_special_tokens;   /* sentencepiece's encode adds no BOS/EOS unless asked */
        return tc_spm_encode(tok, text, len, ids_only, out, trace, err);
    }
    if (encoder == TC_ENC_KESTREL_V1 || encoder == TC_ENC_KESTREL_V2)
        return kestrel_run(tok, encoder == TC_ENC_KESTREL_V1 ? 1 : 2, text, len, ids_only, out, trace, err);
    if (len > TC_MAX_INPUT_BYTES) return tc_error_set(err, TC_ERR_LIMIT, "encode: text of %zu bytes is above the limit of %u", len, TC_MAX_INPUT_BYTES);
    out->n = 0;
    enc_ctx c;
    memset(&c, 0, sizeof c);
    c.tok = tok; c.text = text ? text : (const uint8_t *)""; c.len = len; c.out = out; c.tr = trace;
    c.rank_mode = encoder == TC_ENC_RANK || (encoder == TC_ENC_BPE && tok->model.bpe_is_rank);
    c.ids_only = ids_only;
    if (trace) {
        tc_trace_free(trace);
    }
    int rc = TC_OK;
    if ((ids_only ? tc_encoding_reserve_ids(out, len / 3 + 16) : tc_encoding_reserve(out, len / 3 + 16)) != 0) { rc = tc_error_set(err, TC_ERR_NOMEM, "encode: out of memory"); goto done; }
    if (!trace) c.cache = shared_cache(tok);
    if (tc_added_split(tok, &tok->trie_raw, c.text, len, &c.segs_raw) != 0) { rc = tc_error_set(err, TC_ERR_NOMEM, "encode: out of memory"); goto done; }
    for (size_t si = 0; si < c.segs_raw.n; si++) {
        tc_seg sg = c.segs_raw.v[si];
        if (sg.added >= 0) {
            tc_span orig = {sg.start, sg.end};
            uint32_t nb = 0;
            if (trace) {
                nb = (uint32_t)trace->normalized.len;
                if (tc_buf_append(&trace->normalized, c.text + sg.start, sg.end - sg.start) != 0) { rc = tc_error_set(err, TC_ERR_NOMEM, "encode: out of memory"); goto done; }
                void *p = trace->norm_align;
                if (tc_grow(&p, &trace->norm_align_cap, trace->normalized.len, sizeof *trace->norm_align) != 0) { rc = tc_error_set(err, TC_ERR_NOMEM, "encode: out of memory"); goto done; }
                trace->norm_align = p;
                for (uint32_t b = 0; b < sg.end - sg.start; b++) trace->norm_align[nb + b] = orig;
            }
            if (emit_added(&c, sg.added, orig, nb, nb + (sg.end - sg.start)) != 0) { rc = tc_error_set(err, TC_ERR_NOMEM, "encode: out of memory"); goto done; }
            continue;
        }
        if (sg.end == sg.start) continue;
        int r = run_segment(&c, sg.start, sg.end);
        if (r == -2) { rc = tc_error_set(err, TC_ERR_LIMIT, "encode: a normalizer or pre-tokenizer regex exceeded its step limit on this text"); goto done; }
        if (r == -4) { rc = tc_error_set(err, TC_ERR_FORMAT, "encode: the precompiled charsmap points past its end on this text (llama.cpp: \"Index out of array bounds in precompiled charsmap!\")"); goto done; }
        if (r == -3 && tok->model.kind == TC_MODEL_UGM) { rc = tc_error_set(err, TC_ERR_FORMAT, "encode: the text has a character that no token covers, and the vocabulary has no unknown token"); goto done; }
        if (r == -3 && tok->model.kind != TC_MODEL_UNIGRAM) { rc = tc_error_set(err, TC_ERR_FORMAT, "encode: a word is not in the vocabulary and the model's unk token is not either (HF: \"Missing [UNK] token from the vocabulary\")"); goto done; }
        if (r == -3) { rc = tc_error_set(err, TC_ERR_FORMAT, "encode: the text has a character that no piece covers, and the Unigram model has no unk_id (HF: \"Encountered an unknown token but `unk_id` is missing\")"); goto done; }
        if (r != 0) { rc = tc_error_set(err, TC_ERR_NOMEM, "encode: out of memory"); goto done; }
    }
    /* HF converts offsets to characters per split, before post-processing */
    if (!ids_only && char_offsets(c.text, len, out) != 0) { rc = tc_error_set(err, TC_ERR_NOMEM, "encode: out of memory"); goto done; }
    for (int i = 0; i < tok->npost; i++) {
        const tc_post *pp = &tok->post[i];
        if (pp->kind == TC_POST_BYTELEVEL) {
            if (pp->trim_offsets && !ids_only) trim_offsets(tok, c.text, out, pp->add_prefix_space);
        } else if (pp->kind == TC_POST_TEMPLATE && add_special_tokens) {
            if (apply_template(&c, pp) != 0) { rc = tc_error_set(err, TC_ERR_NOMEM, "encode: out of memory"); goto done; }
        }
    }
done:
    if (rc != TC_OK) out->n = 0;
    tc_bpe_scratch_free(&c.bpe);
    tc_pretok_scratch_free(&c.pt);
    tc_buf_free(&c.chunk);
    free(c.segs_raw.v);
    free(c.segs_norm.v);
    tc_nstr_free(&c.ns);
    return rc;
}

void tc_encoding_free(tc_encoding *e) {
    free(e->ids); free(e->offsets); free(e->char_offsets); free(e->special);
    memset(e, 0, sizeof *e);
}

void tc_trace_free(tc_trace *tr) {
    free(tr->gsteps);
    free(tr->ksteps);
    free(tr->gcands);
    tc_buf_free(&tr->normalized);
    free(tr->norm_align); free(tr->chunks); free(tr->syms); free(tr->steps); free(tr->lattice);
    memset(tr, 0, sizeof *tr);
}
