/* vocab.c - the vocabulary: id -> stored string and real bytes, string ->
 * id hash tables, the (left, right) -> merge table, and the GPT-2
 * byte-level character mapping.
 *
 * Does: open-addressing tables sized at build time (load factor <= 1/2),
 * linear probing; keys live in one pool so the tables hold only ids.
 * Does not: parse any file format (loaders do), or grow tables after the
 * handle is built (handles are immutable while encoding).
 */
#include "engine.h"

/* A 64-bit hash reading 8 bytes at a time; good enough for token strings
 * and much faster than byte-wise FNV on long keys. */
uint64_t tc_hash_bytes(const uint8_t *p, size_t n) {
    uint64_t h = 0x9E3779B97F4A7C15ull ^ (n * 0xFF51AFD7ED558CCDull);
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
        h ^= h >> 31;
        p += 8; n -= 8;
    }
    uint64_t w = 0;
    for (size_t i = 0; i < n; i++) w |= (uint64_t)p[i] << (8 * i);
    h = (h ^ w) * 0x94D049BB133111EBull;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 32;
    return h;
}

/* ---- byte-level mapping ------------------------------------------------ */

/* GPT-2's bytes_to_unicode: printable bytes '!'..'~', 0xA1..0xAC and
 * 0xAE..0xFF map to themselves; the other 68 bytes map, in byte order, to
 * U+0100, U+0101, ... */
uint32_t tc_byte_to_cp(uint8_t b) {
    if ((b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE) return b;
    /* rank of b among the non-printable bytes */
    uint32_t r;
    if (b <= 0x20) r = b;                          /* 0x00..0x20 -> 0..32 */
    else if (b <= 0xA0) r = 33 + (uint32_t)(b - 0x7F); /* 0x7F..0xA0 -> 33..66 */
    else r = 67;                                   /* 0xAD */
    return 0x100 + r;
}

int tc_cp_to_byte(uint32_t cp) {
    if ((cp >= 0x21 && cp <= 0x7E) || (cp >= 0xA1 && cp <= 0xAC) || (cp >= 0xAE && cp <= 0xFF)) return (int)cp;
    if (cp < 0x100 || cp > 0x143) return -1;
    uint32_t r = cp - 0x100;
    if (r <= 32) return (int)r;
    if (r <= 66) return (int)(0x7F + (r - 33));
    return 0xAD;
}

int tc_bytelevel_unmap(const uint8_t *s, size_t len, tc_buf *out) {
    size_t start = out->len;
    for (size_t i = 0; i < len;) {
        int n;
        uint32_t cp = tc_utf8_decode(s, len, i, &n);
        int b = tc_cp_to_byte(cp);
        if (b < 0) {
            out->len = start;
            return tc_buf_append(out, s, len) == 0 ? 1 : -1;
        }
        if (tc_buf_push(out, (uint8_t)b) != 0) return -1;
        i += (size_t)n;
    }
    return 0;
}

/* ---- vocabulary -------------------------------------------------------- */

int tc_vocab_init(tc_vocab *v, uint32_t n) {
    memset(v, 0, sizeof *v);
    v->entries = calloc(n ? n : 1, sizeof *v->entries);
    if (!v->entries) return -1;
    v->n = n;
    return 0;
}

/* HF ByteFallback's test: exactly "<0x" + two chars + ">", the two chars
 * parsed by u8::from_str_radix(_, 16) (which also takes "+F"). -1 if not. */
int tc_fallback_byte(const uint8_t *s, size_t len) {
    if (len != 6 || s[0] != '<' || s[1] != '0' || s[2] != 'x' || s[5] != '>') return -1;
    int v = 0;
    for (int i = 3; i < 5; i++) {
        int c = s[i], d;
        if (c >= '0' && c <= '9') d = c - '0';
        else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
        else if (c == '+' && i == 3) continue;
        else return -1;
        v = v * 16 + d;
    }
    return v;
}

/* SentencePiece real bytes: "<0xNN>" is the byte NN, otherwise U+2581
 * (E2 96 81) becomes ' ' (what the Metaspace / Replace decoders print). */
static int spm_unmap(const uint8_t *s, size_t len, tc_buf *out) {
    int b = tc_fallback_byte(s, len);
    if (b >= 0) return tc_buf_push(out, (uint8_t)b);
    for (size_t i = 0; i < len;) {
        if (i + 3 <= len && s[i] == 0xE2 && s[i + 1] == 0x96 && s[i + 2] == 0x81) {
            if (tc_buf_push(out, ' ') != 0) return -1;
            i += 3;
        } else {
            if (tc_buf_push(out, s[i]) != 0) return -1;
            i++;
        }
    }
    return 0;
}

int tc_vocab_set(tc_vocab *v, uint32_t id, const uint8_t *s, size_t len, int rule, tc_error *err) {
    int byte_level = rule == TC_BYTES_BYTELEVEL;
    if (id >= v->n) return tc_error_set(err, TC_ERR_FORMAT, "id %u out of range (vocabulary size %u)", id, v->n);
    if (len > TC_MAX_TOKEN_BYTES) return tc_error_set(err, TC_ERR_LIMIT, "token %u is %zu bytes long, above the limit of %u", id, len, TC_MAX_TOKEN_BYTES);
    if (v->entries[id].present) return tc_error_set(err, TC_ERR_FORMAT, "id %u is assigned to two tokens", id);
    if (v->pool.len + 2 * len + 2 > 0xFFFFFFF0u) return tc_error_set(err, TC_ERR_LIMIT, "vocabulary strings exceed 4 GB");
    tc_entry *e = &v->entries[id];
    e->str_off = (uint32_t)v->pool.len;
    e->str_len = (uint32_t)len;
    if (tc_buf_append(&v->pool, s, len) != 0 || tc_buf_push(&v->pool, 0) != 0) return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    if (byte_level) {
        /* s is the caller's buffer, never the pool, so unmapping straight
         * into the pool is safe even when the pool moves */
        size_t before = v->pool.len;
        int r = tc_bytelevel_unmap(s, len, &v->pool);
        if (r < 0) return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
        e->bytes_off = (uint32_t)before;
        e->bytes_len = (uint32_t)(v->pool.len - before);
        if (tc_buf_push(&v->pool, 0) != 0) return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    } else if (rule == TC_BYTES_SPM) {
        size_t before = v->pool.len;
        if (spm_unmap(s, len, &v->pool) != 0 || tc_buf_push(&v->pool, 0) != 0) return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
        e->bytes_off = (uint32_t)before;
        e->bytes_len = (uint32_t)(v->pool.len - before - 1);
    } else {
        e->bytes_off = e->str_off;
        e->bytes_len = e->str_len;
    }
    e->present = 1;
    return TC_OK;
}

/* UTF-8 of each byte's GPT-2 character (1 or 2 bytes): a table, so a
 * vocabulary from real bytes is mapped without decoding. */
typedef struct byte_utf8 { uint8_t n, u[2]; } byte_utf8;

static void byte_utf8_table(byte_utf8 t[256]) {
    for (int b = 0; b < 256; b++) {
        uint8_t u[4] = {0};
        t[b].n = (uint8_t)tc_utf8_encode(tc_byte_to_cp((uint8_t)b), u);
        t[b].u[0] = u[0];
        t[b].u[1] = u[1];
    }
}

static int set_real(tc_vocab *v, const byte_utf8 t[256], uint32_t id, const uint8_t *b, size_t blen, tc_error *err) {
    size_t slen = 0;
    for (size_t i = 0; i < blen; i++) slen += t[b[i]].n;
    if (id >= v->n) return tc_error_set(err, TC_ERR_FORMAT, "id %u out of range (vocabulary size %u)", id, v->n);
    if (slen > TC_MAX_TOKEN_BYTES) return tc_error_set(err, TC_ERR_LIMIT, "token %u is %zu bytes long, above the limit of %u", id, slen, TC_MAX_TOKEN_BYTES);
    if (v->entries[id].present) return tc_error_set(err, TC_ERR_FORMAT, "id %u is assigned to two tokens", id);
    if (v->pool.len + slen + blen + 2 > 0xFFFFFFF0u) return tc_error_set(err, TC_ERR_LIMIT, "vocabulary strings exceed 4 GB");
    if (tc_buf_reserve(&v->pool, slen + blen + 2) != 0) return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    tc_entry *e = &v->entries[id];
    uint8_t *o = v->pool.data + v->pool.len;
    e->str_off = (uint32_t)v->pool.len;
    e->str_len = (uint32_t)slen;
    for (size_t i = 0; i < blen; i++) {
        const byte_utf8 *c = &t[b[i]];
        *o++ = c->u[0];
        if (c->n == 2) *o++ = c->u[1];
    }
    *o++ = 0;
    e->bytes_off = (uint32_t)(v->pool.len + slen + 1);
    e->bytes_len = (uint32_t)blen;
    if (blen) memcpy(o, b, blen);
    o[blen] = 0;
    v->pool.len += slen + blen + 2;
    e->present = 1;
    return TC_OK;
}

int tc_vocab_fill_real(tc_vocab *v, size_t n, const uint32_t *ids, const uint8_t *bytes, const uint32_t *offs,
                       const uint32_t *lens, size_t *bad, tc_error *err) {
    byte_utf8 t[256];
    byte_utf8_table(t);
    size_t total = 0;
    for (size_t i = 0; i < n; i++) total += 3 * (size_t)lens[i] + 2;
    if (total <= 0xFFFFFFF0u && tc_buf_reserve(&v->pool, total) != 0) return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        int r = set_real(v, t, ids[i], bytes + offs[i], lens[i], err);
        if (r != TC_OK) { *bad = i; return r; }
    }
    return TC_OK;
}

static size_t pow2_at_least(size_t n) {
    size_t c = 16;
    while (c < n) c <<= 1;
    return c;
}

#define STRMAP_AHEAD 16   /* inserts hashed (and their slots prefetched) ahead of use */

int tc_strmap_build(tc_strmap *m, const tc_vocab *v, int by_bytes, tc_error *err) {
    memset(m, 0, sizeof *m);
    m->cap = pow2_at_least((size_t)v->n * 2 + 16);
    m->slots = calloc(m->cap, sizeof *m->slots);
    if (!m->slots) return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    size_t mask = m->cap - 1;
    /* the table is 8 MB for 151k entries: each insert is a cache miss, so
     * the hash of entry id + STRMAP_AHEAD is taken and its slot prefetched
     * while entry id is inserted (inserts stay in id order: equal keys keep
     * the lower id) */
    uint64_t ring[STRMAP_AHEAD];
    for (uint32_t id = 0; id < v->n && id < STRMAP_AHEAD; id++) {
        const tc_entry *e = &v->entries[id];
        ring[id] = tc_hash_bytes(v->pool.data + (by_bytes ? e->bytes_off : e->str_off), by_bytes ? e->bytes_len : e->str_len);
        __builtin_prefetch(&m->slots[(size_t)(ring[id] >> 32) & mask], 1);
    }
    for (uint32_t id = 0; id < v->n; id++) {
        const tc_entry *e = &v->entries[id];
        uint64_t h = ring[id % STRMAP_AHEAD];
        if ((uint64_t)id + STRMAP_AHEAD < v->n) {
            const tc_entry *f = &v->entries[id + STRMAP_AHEAD];
            uint64_t hf = tc_hash_bytes(v->pool.data + (by_bytes ? f->bytes_off : f->str_off), by_bytes ? f->bytes_len : f->str_len);
            ring[id % STRMAP_AHEAD] = hf;
            __builtin_prefetch(&m->slots[(size_t)(hf >> 32) & mask], 1);
        }
        if (!e->present) continue;
        const uint8_t *s = v->pool.data + (by_bytes ? e->bytes_off : e->str_off);
        uint32_t len = by_bytes ? e->bytes_len : e->str_len;
        size_t i = (size_t)(h >> 32) & mask;
        for (;;) {
            tc_strmap_slot *sl = &m->slots[i];
            if (sl->id1 == 0) {
                sl->id1 = id + 1; sl->hash = (uint32_t)h;
                sl->off = by_bytes ? e->bytes_off : e->str_off; sl->len = len;
                m->used++;
                break;
            }
            if (sl->hash == (uint32_t)h && sl->len == len && memcmp(v->pool.data + sl->off, s, len) == 0)
                break;   /* equal keys (a vocab.bin's marker/letter pairs): the lower id wins */
            i = (i + 1) & mask;
        }
    }
    return TC_OK;
}

int64_t tc_strmap_find_h(const tc_strmap *m, const tc_vocab *v, const uint8_t *s, size_t len, uint64_t h) {
    if (!m->slots) return -1;
    size_t mask = m->cap - 1;
    size_t i = (size_t)(h >> 32) & mask;
    for (;;) {
        const tc_strmap_slot *sl = &m->slots[i];
        if (sl->id1 == 0) return -1;
        if (sl->hash == (uint32_t)h && sl->len == len && memcmp(v->pool.data + sl->off, s, len) == 0)
            return (int64_t)(sl->id1 - 1);
        i = (i + 1) & mask;
    }
}

int64_t tc_strmap_find(const tc_strmap *m, const tc_vocab *v, int by_bytes, const uint8_t *s, size_t len) {
    (void)by_bytes;   /* the slot knows where its key lives */
    return tc_strmap_find_h(m, v, s, len, tc_hash_bytes(s, len));
}

void tc_strmap_free(tc_strmap *m) {
    free(m->slots);
    memset(m, 0, sizeof *m);
}

int tc_vocab_build_index(tc_vocab *v, tc_error *err) {
    v->by_str_lazy = 0;
    return tc_strmap_build(&v->by_str, v, 0, err);
}

void tc_vocab_defer_index(tc_vocab *v) {
    tc_strmap_free(&v->by_str);
    atomic_store_explicit(&v->by_str_state, TC_IX_ABSENT, memory_order_relaxed);
    v->by_str_lazy = 1;
}

int tc_vocab_index_ready(const tc_vocab *v) {
    return !v->by_str_lazy || atomic_load_explicit(&v->by_str_state, memory_order_acquire) == TC_IX_READY;
}

int64_t tc_vocab_scan(const tc_vocab *v, const uint8_t *s, size_t len) {
    for (uint32_t id = 0; id < v->n; id++) {
        const tc_entry *e = &v->entries[id];
        if (e->present && e->str_len == len && memcmp(v->pool.data + e->str_off, s, len) == 0) return (int64_t)id;
    }
    return -1;
}

/* Builds a deferred by_str once, whatever the number of threads looking
 * up at the same time: the first to move ABSENT -> BUILDING builds it into
 * a local table and publishes READY (release); the others wait for that
 * (tc_prepare's pattern: a spin on an acquire load). A failed build (out
 * of memory) goes back to ABSENT; returns 0 when the index is usable.
 * subtle: the vocabulary is const to its readers, and by_str is the one
 * field a lookup may fill; nothing reads it before READY is seen. */
static int lazy_index(const tc_vocab *cv) {
    tc_vocab *v = (tc_vocab *)cv;   /* every tc_vocab lives in a handle's heap memory, never in a const object */
    for (;;) {
        int st = atomic_load_explicit(&v->by_str_state, memory_order_acquire);
        if (st == TC_IX_READY) return 0;
        if (st == TC_IX_BUILDING) continue;
        if (!atomic_compare_exchange_weak_explicit(&v->by_str_state, &st, TC_IX_BUILDING, memory_order_acquire,
                                                   memory_order_relaxed))
            continue;
        tc_strmap local;
        tc_error e = {0};
        int r = tc_strmap_build(&local, v, 0, &e);
        if (r == TC_OK) v->by_str = local;
        atomic_store_explicit(&v->by_str_state, r == TC_OK ? TC_IX_READY : TC_IX_ABSENT, memory_order_release);
        return r == TC_OK ? 0 : -1;
    }
}

int64_t tc_vocab_find(const tc_vocab *v, const uint8_t *s, size_t len) {
    if (v->by_str_lazy && atomic_load_explicit(&v->by_str_state, memory_order_acquire) != TC_IX_READY &&
        lazy_index(v) != 0)
        return tc_vocab_scan(v, s, len);
    return tc_strmap_find(&v->by_str, v, 0, s, len);
}

void tc_vocab_free(tc_vocab *v) {
    free(v->entries);
    tc_buf_free(&v->pool);
    tc_strmap_free(&v->by_str);
    memset(v, 0, sizeof *v);
}

/* ---- merges ------------------------------------------------------------ */

int tc_pairmap_init(tc_pairmap *m, size_t expected) {
    memset(m, 0, sizeof *m);
    /* load factor 0.29..0.58: a smaller table misses the cache less */
    m->cap = pow2_at_least(expected + expected / 2 + 16);
    m->slots = malloc(m->cap * sizeof *m->slots);
    if (!m->slots) return -1;
    /* empty slots are fully written: the load cache stores the table's bytes */
    for (size_t i = 0; i < m->cap; i++) { m->slots[i].key = UINT64_MAX; m->slots[i].rank = 0; m->slots[i].new_id = 0; }
    return 0;
}

/* Returns 0 inserted, 1 replaced an existing pair (HF collects merges into
 * a hash map, so a later duplicate overrides the earlier rank), -1 full. */
int tc_pairmap_put(tc_pairmap *m, uint32_t a, uint32_t b, uint32_t rank, uint32_t new_id) {
    if (m->used + m->used / 4 >= m->cap) return -1;   /* keep probes short: at most 80% full */
    uint64_t key = ((uint64_t)a << 32) | b;
    size_t mask = m->cap - 1, i = tc_pair_hash(key) & mask;
    while (m->slots[i].key != UINT64_MAX) {
        if (m->slots[i].key == key) {
            m->slots[i].rank = rank;
            m->slots[i].new_id = new_id;
            return 1;
        }
        i = (i + 1) & mask;
    }
    m->slots[i].key = key;
    m->slots[i].rank = rank;
    m->slots[i].new_id = new_id;
    m->used++;
    return 0;
}

void tc_pairmap_free(tc_pairmap *m) {
    free(m->slots);
    memset(m, 0, sizeof *m);
}
