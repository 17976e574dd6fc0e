/* load_cache.c - the binary load cache of a tokenizer.json's BPE tables (see
 * load_cache.h).
 *
 * Why: building Qwen3's tables (151,643 entries, their string index and
 * 151,387 merges, each "a b" resolved by three lookups) is bound by cache
 * misses and costs ~60 ms; reading them back is a few sequential copies.
 * The rest of the file (normalizer, pre-tokenizer, decoder, added tokens:
 * ~10 KB) is still parsed, with the two big values skipped by offset.
 *
 * Blob layout, native byte order (the header says which):
 *   header, TC_CACHE_HEADER bytes:
 *     0 "TOKCACHE", 8 format u32, 12 byte-order mark u32 0x01020304,
 *     16 engine version (16 bytes, NUL padded), 32 sha256 of the file,
 *     64 file length u64, 72 payload length u64, 80 payload checksum u64,
 *     88 fingerprint u64 (hash functions and struct sizes),
 *     96 spans u32 x4 (vocab start, end, merges start, end), 112 kind u32
 *     (1: a tokenizer.json BPE model), 116 zero
 *   payload: u64 x6 (vocab n, pool length, string table cap and used,
 *     merge table cap and used), entries, pool, string table slots, merge
 *     table slots; each section padded to 8 bytes.
 * Validation before use, in order: header fields, fingerprint, sizes add
 * up, checksum over the header (its checksum field as zero) and every
 * section (a bit flip anywhere is caught: every step of the sum is a
 * bijection of one lane; padding must be zero), then every entry's offsets inside the pool with
 * its NUL, every string slot naming its own entry, every merge slot's ids
 * in range, the used counts, and a sample of lookups through both tables.
 */
#include "load_cache.h"
#include "platform.h"

static const uint8_t MAGIC[8] = {'T', 'O', 'K', 'C', 'A', 'C', 'H', 'E'};
#define ORDER_MARK 0x01020304u
#define KIND_HF_BPE 1u
#define SAMPLE_LOOKUPS 64u
#define READ_PIECE ((size_t)256 << 10)   /* a multiple of 32: sum_blocks' step */

static uint64_t mix64(uint64_t h) {
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
    return h;
}

/* A 64-bit checksum, four independent lanes (the loop runs at memory speed).
 * Taken in steps (sum_init, sum_blocks over whole 32-byte blocks, sum_end
 * over the rest) so that a table is summed piece by piece right after each
 * piece is read, while it is still in the CPU's cache; blob_sum is the
 * three in one call, the same value. */
typedef struct blob_sum_state { uint64_t l[4]; } blob_sum_state;

static void sum_init(blob_sum_state *s) {
    s->l[0] = 0x9E3779B97F4A7C15ull; s->l[1] = 0xC2B2AE3D27D4EB4Full;
    s->l[2] = 0x165667B19E3779F9ull; s->l[3] = 0x27D4EB2F165667C5ull;
}

/* n: a multiple of 32 */
static void sum_blocks(blob_sum_state *s, const uint8_t *p, size_t n) {
    uint64_t l0 = s->l[0], l1 = s->l[1], l2 = s->l[2], l3 = s->l[3];
    for (size_t i = 0; i + 32 <= n; i += 32) {
        uint64_t w[4];
        memcpy(w, p + i, 32);
        l0 ^= w[0]; l0 = (l0 << 27 | l0 >> 37) * 0x9FB21C651E98DF25ull;
        l1 ^= w[1]; l1 = (l1 << 27 | l1 >> 37) * 0x9FB21C651E98DF25ull;
        l2 ^= w[2]; l2 = (l2 << 27 | l2 >> 37) * 0x9FB21C651E98DF25ull;
        l3 ^= w[3]; l3 = (l3 << 27 | l3 >> 37) * 0x9FB21C651E98DF25ull;
    }
    s->l[0] = l0; s->l[1] = l1; s->l[2] = l2; s->l[3] = l3;
}

/* p, r: the last n % 32 bytes of a run of n bytes */
static uint64_t sum_end(const blob_sum_state *s, const uint8_t *p, size_t r, size_t n) {
    uint64_t tail = 0;
    for (size_t k = 0; k < r; k++) tail |= (uint64_t)p[k] << (8 * (k & 7));
    uint64_t h = mix64(s->l[0] ^ (uint64_t)n ^ tail);
    for (int k = 1; k < 4; k++) h = mix64(h ^ s->l[k]);
    return h;
}

static uint64_t blob_sum(const uint8_t *p, size_t n) {
    blob_sum_state s;
    sum_init(&s);
    size_t whole = n - n % 32;
    sum_blocks(&s, p, whole);
    return sum_end(&s, p + whole, n - whole, n);
}

/* The payload's checksum: each section's sum folded into the previous. */
#define NSECTIONS 5
static uint64_t chain_sum(uint64_t h, const void *p, size_t n) { return mix64(h ^ blob_sum(p, n)); }

/* What the tables' meaning depends on besides their bytes: the hash of
 * strings and of pairs (slots are placed by them) and the struct layouts. */
static uint64_t fingerprint(void) {
    static const uint8_t probe[] = "tokinspect load cache: \xC4\xA0the";
    uint64_t h = tc_hash_bytes(probe, sizeof probe - 1);
    h = mix64(h ^ (uint64_t)tc_pair_hash(0x0123456789ABCDEFull));
    h = mix64(h ^ ((uint64_t)sizeof(tc_entry) << 32 | (uint64_t)sizeof(tc_strmap_slot) << 16 | sizeof(tc_merge)));
    return mix64(h ^ TC_CACHE_FORMAT);
}

/* TC_VERSION in 16 bytes, NUL padded */
static void engine_id(char out[16]) {
    size_t k = strlen(TC_VERSION);
    memset(out, 0, 16);
    memcpy(out, TC_VERSION, k > 15 ? 15 : k);
}

static int is_pow2(uint64_t x) { return x >= 16 && (x & (x - 1)) == 0; }

static size_t pad8(size_t n) { return (n + 7) & ~(size_t)7; }

static int put(tc_buf *b, const void *p, size_t n) {
    if (tc_buf_append(b, p, n) != 0) return -1;
    static const uint8_t zero[8] = {0};
    return tc_buf_append(b, zero, pad8(n) - n);
}

static void put32(uint8_t *h, size_t at, uint32_t v) { memcpy(h + at, &v, 4); }
static void put64(uint8_t *h, size_t at, uint64_t v) { memcpy(h + at, &v, 8); }
static uint32_t get32(const uint8_t *h, size_t at) { uint32_t v; memcpy(&v, h + at, 4); return v; }
static uint64_t get64(const uint8_t *h, size_t at) { uint64_t v; memcpy(&v, h + at, 8); return v; }

int tc_cache_write_hf(const tc_tokenizer *tok, const uint8_t key[32], uint64_t file_len, tc_json_span vocab,
                      tc_json_span merges, tc_buf *out) {
    const tc_model *m = &tok->model;
    const tc_vocab *v = &m->vocab;
    size_t start = out->len;
    uint8_t h[TC_CACHE_HEADER];
    memset(h, 0, sizeof h);
    memcpy(h, MAGIC, 8);
    put32(h, 8, TC_CACHE_FORMAT);
    put32(h, 12, ORDER_MARK);
    engine_id((char *)h + 16);
    memcpy(h + 32, key, 32);
    put64(h, 64, file_len);
    put64(h, 88, fingerprint());
    put32(h, 96, vocab.start); put32(h, 100, vocab.end);
    put32(h, 104, merges.start); put32(h, 108, merges.end);
    put32(h, 112, KIND_HF_BPE);
    uint64_t counts[6] = {v->n, v->pool.len, v->by_str.cap, v->by_str.used, m->merges.cap, m->merges.used};
    const void *sec[NSECTIONS] = {counts, v->entries, v->pool.data, v->by_str.slots, m->merges.slots};
    size_t len[NSECTIONS] = {sizeof counts, (size_t)v->n * sizeof *v->entries, v->pool.len,
                             v->by_str.cap * sizeof *v->by_str.slots, m->merges.cap * sizeof *m->merges.slots};
    size_t total = sizeof h;
    for (int k = 0; k < NSECTIONS; k++) total += pad8(len[k]);
    put64(h, 72, total - sizeof h);
    if (tc_buf_reserve(out, total) != 0 || put(out, h, sizeof h) != 0) return -1;
    for (int k = 0; k < NSECTIONS; k++)
        if (put(out, sec[k], len[k]) != 0) { out->len = start; return -1; }
    tc_cache_seal(out->data + start, total);
    return 0;
}

/* The section lengths a blob's counts give; 0 if the counts are out of range. */
static int section_lengths(const uint8_t *counts, size_t len[NSECTIONS]) {
    uint64_t n = get64(counts, 0), pool = get64(counts, 8), scap = get64(counts, 16), mcap = get64(counts, 32);
    if (n == 0 || n > TC_MAX_VOCAB || pool == 0 || pool > 0xFFFFFFF0u || !is_pow2(scap) || !is_pow2(mcap) ||
        scap > ((uint64_t)1 << 26) || mcap > ((uint64_t)1 << 26))
        return 0;
    len[0] = 48; len[1] = (size_t)n * sizeof(tc_entry); len[2] = (size_t)pool;
    len[3] = (size_t)scap * sizeof(tc_strmap_slot); len[4] = (size_t)mcap * sizeof(tc_merge);
    return 1;
}

/* The checksum of a blob held in memory (header with its checksum field as
 * zero, then each section); 0 when its sections do not fit len. */
static int blob_checksum(const uint8_t *blob, size_t len, uint64_t *sum) {
    size_t sec[NSECTIONS];
    if (len < TC_CACHE_HEADER + 48 || !section_lengths(blob + TC_CACHE_HEADER, sec)) return 0;
    uint64_t total = TC_CACHE_HEADER;
    for (int k = 0; k < NSECTIONS; k++) total += pad8(sec[k]);
    if (total != len) return 0;
    uint8_t h0[TC_CACHE_HEADER];
    memcpy(h0, blob, sizeof h0);
    put64(h0, 80, 0);
    uint64_t h = chain_sum(0, h0, sizeof h0);
    size_t at = TC_CACHE_HEADER;
    for (int k = 0; k < NSECTIONS; k++) { h = chain_sum(h, blob + at, sec[k]); at += pad8(sec[k]); }
    *sum = h;
    return 1;
}

void tc_cache_seal(uint8_t *blob, size_t len) {
    uint64_t sum;
    if (blob_checksum(blob, len, &sum)) put64(blob, 80, sum);
}

void tc_hf_cache_free(tc_hf_cache *c) {
    tc_vocab_free(&c->vocab_tab);
    tc_pairmap_free(&c->merges_tab);
    memset(c, 0, sizeof *c);
}


/* Every entry inside the pool with its NUL; every slot naming its entry. */
static const char *check_tables(const tc_vocab *v, const tc_pairmap *mg) {
    size_t pool = v->pool.len;
    for (uint32_t id = 0; id < v->n; id++) {
        const tc_entry *e = &v->entries[id];
        if (e->present > 1) return "an entry's flag is not 0 or 1";
        if (!e->present) continue;
        if (e->str_len > TC_MAX_TOKEN_BYTES || e->str_off >= pool || pool - e->str_off <= e->str_len ||
            v->pool.data[e->str_off + e->str_len] != 0)
            return "an entry's string is outside the pool";
        if (e->bytes_len > TC_MAX_TOKEN_BYTES || e->bytes_off >= pool || pool - e->bytes_off <= e->bytes_len)
            return "an entry's bytes are outside the pool";
    }
    size_t used = 0;
    for (size_t i = 0; i < v->by_str.cap; i++) {
        const tc_strmap_slot *s = &v->by_str.slots[i];
        if (s->id1 == 0) continue;
        const tc_entry *e = s->id1 - 1 < v->n ? &v->entries[s->id1 - 1] : NULL;
        if (!e || !e->present || s->off != e->str_off || s->len != e->str_len) return "a string slot does not name its entry";
        used++;
    }
    if (used != v->by_str.used || used >= v->by_str.cap) return "the string table's count is wrong";
    used = 0;
    for (size_t i = 0; i < mg->cap; i++) {
        const tc_merge *s = &mg->slots[i];
        if (s->key == UINT64_MAX) continue;
        if ((s->key >> 32) >= v->n || (s->key & 0xFFFFFFFFu) >= v->n || s->new_id >= v->n)
            return "a merge names an id outside the vocabulary";
        used++;
    }
    if (used != mg->used || used >= mg->cap) return "the merge table's count is wrong";
    /* a sample of lookups: the probe order is the one this build uses */
    for (uint32_t k = 0; k < SAMPLE_LOOKUPS && v->n; k++) {
        uint32_t id = (uint32_t)(((uint64_t)k * v->n) / SAMPLE_LOOKUPS);
        const tc_entry *e = &v->entries[id];
        if (!e->present) continue;
        int64_t got = tc_vocab_find(v, v->pool.data + e->str_off, e->str_len);
        if (got < 0 || v->entries[got].str_len != e->str_len ||
            memcmp(v->pool.data + v->entries[got].str_off, v->pool.data + e->str_off, e->str_len) != 0)
            return "a vocabulary lookup fails";
    }
    for (size_t i = 0, seen = 0; i < mg->cap && seen < SAMPLE_LOOKUPS; i += 1 + mg->cap / (4 * SAMPLE_LOOKUPS)) {
        const tc_merge *s = &mg->slots[i];
        if (s->key == UINT64_MAX) continue;
        seen++;
        if (tc_pairmap_get(mg, (uint32_t)(s->key >> 32), (uint32_t)s->key) != s) return "a merge lookup fails";
    }
    return NULL;
}

/* Where a blob is read from: memory, or a file read piece by piece (each
 * table straight into its own allocation: no second copy of 18 MB). */
typedef struct source {
    const uint8_t *blob;
    const tc_file *file;
    uint64_t len;
} source;

static int source_read(const source *s, uint64_t off, void *buf, size_t n) {
    if (off > s->len || n > s->len - off) return -1;
    if (s->file) {
        tc_error e = {0};
        return tc_file_pread(s->file, off, buf, n, &e) == TC_OK ? 0 : -1;
    }
    if (n) memcpy(buf, s->blob + off, n);
    return 0;
}

static int read_cache(const source *src, const uint8_t key[32], uint64_t file_len, tc_hf_cache *c, const char **why) {
    memset(c, 0, sizeof *c);
    const char *bad = NULL;
    char engine[16];
    engine_id(engine);
    uint8_t blob[TC_CACHE_HEADER + 48];
    if (src->len < sizeof blob || source_read(src, 0, blob, sizeof blob) != 0) bad = "shorter than a header";
    else if (memcmp(blob, MAGIC, 8) != 0) bad = "not a tokinspect cache";
    else if (get32(blob, 8) != TC_CACHE_FORMAT || get32(blob, 12) != ORDER_MARK) bad = "another format version or byte order";
    else if (memcmp(blob + 16, engine, 16) != 0) bad = "written by another engine version";
    else if (get64(blob, 88) != fingerprint()) bad = "written by a build with other tables";
    else if (memcmp(blob + 32, key, 32) != 0 || get64(blob, 64) != file_len) bad = "the cache of another file";
    else if (get32(blob, 112) != KIND_HF_BPE) bad = "another kind of cache";
    else if (memcmp(blob + 116, "\0\0\0\0\0\0\0\0\0\0\0\0", 12) != 0) bad = "reserved header bytes are not zero";
    else if (get64(blob, 72) != src->len - TC_CACHE_HEADER) bad = "truncated or extended";
    if (bad) { *why = bad; return -1; }
    c->vocab.start = get32(blob, 96); c->vocab.end = get32(blob, 100);
    c->merges.start = get32(blob, 104); c->merges.end = get32(blob, 108);
    if (c->vocab.start >= c->vocab.end || c->vocab.end > file_len || c->merges.start >= c->merges.end ||
        c->merges.end > file_len || (c->vocab.start < c->merges.end && c->merges.start < c->vocab.end)) {
        *why = "the spans do not fit the file";
        return -1;
    }
    const uint8_t *p = blob + TC_CACHE_HEADER;
    uint64_t n = get64(p, 0), pool = get64(p, 8), scap = get64(p, 16), sused = get64(p, 24), mcap = get64(p, 32),
             mused = get64(p, 40);
    size_t len[NSECTIONS];
    if (!section_lengths(p, len)) {
        *why = "table sizes out of range";
        return -1;
    }
    uint64_t total = TC_CACHE_HEADER;
    for (int k = 0; k < NSECTIONS; k++) total += pad8(len[k]);
    if (src->len != total) { *why = "the sections do not add up"; return -1; }
    tc_vocab *v = &c->vocab_tab;
    v->n = (uint32_t)n;
    v->entries = tc_alloc_filled(len[1]);
    v->pool.data = tc_alloc_filled(len[2]);
    v->by_str.slots = tc_alloc_filled(len[3]);
    c->merges_tab.slots = tc_alloc_filled(len[4]);
    v->pool.len = v->pool.cap = (size_t)pool;
    v->by_str.cap = (size_t)scap; v->by_str.used = (size_t)sused;
    c->merges_tab.cap = (size_t)mcap; c->merges_tab.used = (size_t)mused;
    void *dst[NSECTIONS] = {NULL, v->entries, v->pool.data, v->by_str.slots, c->merges_tab.slots};
    if (!v->entries || !v->pool.data || !v->by_str.slots || !c->merges_tab.slots) bad = "out of memory";
    uint8_t h0[TC_CACHE_HEADER];
    memcpy(h0, blob, sizeof h0);
    put64(h0, 80, 0);
    uint64_t sum = chain_sum(chain_sum(0, h0, sizeof h0), p, len[0]), at = TC_CACHE_HEADER + pad8(len[0]);
    for (int k = 1; k < NSECTIONS && !bad; k++) {
        uint8_t pad[8] = {0};
        size_t np = pad8(len[k]) - len[k];
        /* read and summed a piece at a time: each piece is summed while the CPU's cache still holds it
         * (summed after the whole 18 MB was read, every byte came from memory twice) */
        blob_sum_state bs;
        sum_init(&bs);
        uint8_t *d = dst[k];
        size_t whole = len[k] - len[k] % 32;
        for (size_t o = 0; o < len[k] && !bad; o += READ_PIECE) {
            size_t n = len[k] - o < READ_PIECE ? len[k] - o : READ_PIECE;
            if (source_read(src, at + o, d + o, n) != 0) bad = "cannot be read";
            else if (o < whole) sum_blocks(&bs, d + o, (o + n <= whole ? n : whole - o));
        }
        if (bad) break;
        if (source_read(src, at + len[k], pad, np) != 0) bad = "cannot be read";
        else if (memcmp(pad, "\0\0\0\0\0\0\0\0", 8) != 0) bad = "padding is not zero";
        else sum = mix64(sum ^ sum_end(&bs, d + whole, len[k] - whole, len[k]));
        at += pad8(len[k]);
    }
    if (!bad && sum != get64(blob, 80)) bad = "checksum mismatch";
    if (!bad) bad = check_tables(v, &c->merges_tab);
    if (bad) {
        tc_json_span vs = c->vocab, ms = c->merges;
        tc_hf_cache_free(c);
        c->vocab = vs; c->merges = ms;
        *why = bad;
        return -1;
    }
    *why = NULL;
    return 0;
}

int tc_cache_read_hf(const uint8_t *blob, size_t len, const uint8_t key[32], uint64_t file_len, tc_hf_cache *c,
                     const char **why) {
    source s = {blob, NULL, blob ? len : 0};
    return read_cache(&s, key, file_len, c, why);
}

int tc_cache_read_hf_file(const char *path, const uint8_t key[32], uint64_t file_len, tc_hf_cache *c,
                          const char **why) {
    memset(c, 0, sizeof *c);
    tc_file f;
    tc_error e = {0};
    if (tc_file_open_guarded(path, (size_t)1 << 30, &f, &e) != TC_OK) { *why = "cannot be opened"; return -1; }
    source s = {NULL, &f, f.len};
    int r = read_cache(&s, key, file_len, c, why);
    tc_file_free(&f);
    return r;
}
