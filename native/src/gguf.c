/* gguf.c - GGUF header and key/value reader (see gguf.h).
 *
 * Does: one pass over the key/value pairs through a reader that never goes
 * past the bytes present (memory) or the file's size (guarded file, read
 * in windows of TC_GGUF_WINDOW bytes), keeping the tokenizer keys.
 * Does not: read tensor infos or data; interpret the tokenizer (load_gguf.c).
 */
#include <stdio.h>

#include "engine.h"
#include "gguf.h"

#define TC_GGUF_WINDOW ((size_t)1 << 20)   /* bytes per pread of a file */

/* ---- bounded reader ------------------------------------------------------ */

typedef struct rd {
    const uint8_t *mem;        /* memory source, or NULL */
    const tc_file *file;       /* guarded file source */
    uint64_t size, pos;
    uint8_t *win; uint64_t win_off; size_t win_len;
    tc_error *err;
} rd;

static int rd_fail(rd *r, uint64_t at, const char *what, uint64_t need) {
    return tc_error_set(r->err, TC_ERR_FORMAT,
                        "GGUF: at offset %llu: %s needs %llu bytes but the file ends at %llu",
                        (unsigned long long)at, what, (unsigned long long)need, (unsigned long long)r->size);
}

/* Copies n bytes at the current position into out (or skips them when out
 * is NULL) and advances. */
static int rd_bytes(rd *r, void *out, uint64_t n, const char *what) {
    if (n > r->size - r->pos) return rd_fail(r, r->pos, what, n);
    if (r->mem) {
        if (out) memcpy(out, r->mem + r->pos, (size_t)n);
        r->pos += n;
        return TC_OK;
    }
    uint8_t *o = out;
    while (n > 0) {
        if (r->pos < r->win_off || r->pos >= r->win_off + r->win_len) {
            uint64_t left = r->size - r->pos;
            size_t want = left < TC_GGUF_WINDOW ? (size_t)left : TC_GGUF_WINDOW;
            int rc = tc_file_pread(r->file, r->pos, r->win, want, r->err);
            if (rc != TC_OK) return rc;
            r->win_off = r->pos;
            r->win_len = want;
        }
        size_t at = (size_t)(r->pos - r->win_off), avail = r->win_len - at;
        size_t take = n < avail ? (size_t)n : avail;
        if (o) { memcpy(o, r->win + at, take); o += take; }
        r->pos += take;
        n -= take;
    }
    return TC_OK;
}

static int rd_u32(rd *r, uint32_t *v, const char *what) {
    uint8_t b[4];
    int rc = rd_bytes(r, b, 4, what);
    if (rc) return rc;
    *v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    return TC_OK;
}

static int rd_u64(rd *r, uint64_t *v, const char *what) {
    uint8_t b[8];
    int rc = rd_bytes(r, b, 8, what);
    if (rc) return rc;
    *v = 0;
    for (int i = 7; i >= 0; i--) *v = *v << 8 | b[i];
    return TC_OK;
}

/* ---- names ------------------------------------------------------------- */

static const char *const ID_KEYS[TC_GGUF_NIDS] = {
    "bos", "eos", "eot", "eom", "unknown", "seperator", "padding", "cls", "mask",
    "fim_pre", "fim_suf", "fim_mid", "fim_pad", "fim_rep", "fim_sep"};
/* llama.cpp's key names (src/llama-arch.cpp LLM_KV_NAMES): "seperator" is its spelling */
static const char *const FLAG_KEYS[TC_GGUF_NFLAGS] = {
    "add_bos_token", "add_eos_token", "add_sep_token", "add_space_prefix", "remove_extra_whitespaces",
    "treat_whitespace_as_suffix", "normalizer.lowercase", "normalizer.strip_accents"};
static const char *const TYPE_NAMES[TC_GGUF_NTYPES] = {
    "u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool", "string", "array", "u64", "i64", "f64"};
static const uint8_t TYPE_SIZE[TC_GGUF_NTYPES] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};

const char *tc_gguf_id_name(int k) { return k >= 0 && k < TC_GGUF_NIDS ? ID_KEYS[k] : "?"; }
const char *tc_gguf_flag_name(int k) { return k >= 0 && k < TC_GGUF_NFLAGS ? FLAG_KEYS[k] : "?"; }

int tc_gguf_detect(const uint8_t *data, size_t len) { return len >= 4 && memcmp(data, "GGUF", 4) == 0; }

/* ---- key set (duplicates are refused, as gguf_init_from_file_impl does) -- */

typedef struct keyset {
    uint64_t *slots;      /* hash | 1, 0 = empty */
    uint64_t *offs;       /* key offset into keys */
    uint32_t *lens;
    size_t cap;
    tc_buf keys;
} keyset;

static void keyset_free(keyset *k) {
    free(k->slots); free(k->offs); free(k->lens); tc_buf_free(&k->keys);
}

/* 1 when added, 0 when already there, -1 out of memory. */
static int keyset_add(keyset *k, const uint8_t *s, size_t n, uint64_t h) {
    h |= 1;
    size_t mask = k->cap - 1, i = (size_t)h & mask;
    while (k->slots[i]) {
        if (k->slots[i] == h && k->lens[i] == n && memcmp(k->keys.data + k->offs[i], s, n) == 0) return 0;
        i = (i + 1) & mask;
    }
    k->slots[i] = h;
    k->offs[i] = k->keys.len;
    k->lens[i] = (uint32_t)n;
    return tc_buf_append(&k->keys, s, n) == 0 ? 1 : -1;
}

/* ---- values ------------------------------------------------------------ */

typedef struct parse {
    rd r;
    tc_gguf *g;
    tc_error *err;
    tc_buf key;           /* current key, NUL-terminated */
    uint64_t key_at;      /* its offset */
} parse;

static int nomem(parse *p) { return tc_error_set(p->err, TC_ERR_NOMEM, "out of memory reading the GGUF metadata"); }

/* Reads a string's length and checks it against the file and the limit. */
static int read_strlen(parse *p, uint64_t *n, const char *what) {
    uint64_t at = p->r.pos;
    int rc = rd_u64(&p->r, n, what);
    if (rc) return rc;
    if (*n > p->r.size - p->r.pos)
        return tc_error_set(p->err, TC_ERR_FORMAT,
                            "GGUF: at offset %llu: %s: string length %llu runs past the end of the file (%llu bytes)",
                            (unsigned long long)at, what, (unsigned long long)*n, (unsigned long long)p->r.size);
    if (*n > TC_GGUF_MAX_STRING)
        return tc_error_set(p->err, TC_ERR_LIMIT, "GGUF: at offset %llu: %s: string length %llu is above the limit %llu",
                            (unsigned long long)at, what, (unsigned long long)*n, (unsigned long long)TC_GGUF_MAX_STRING);
    return TC_OK;
}

/* Reads a string into the pool (NUL-terminated); *off is where it starts. */
static int read_string_to_pool(parse *p, uint64_t *off, uint32_t *len) {
    uint64_t n;
    int rc = read_strlen(p, &n, (const char *)p->key.data);
    if (rc) return rc;
    if (p->g->pool.len + n + 1 > TC_GGUF_MAX_META)
        return tc_error_set(p->err, TC_ERR_LIMIT, "GGUF: at offset %llu: key \"%s\": the metadata exceeds %llu bytes",
                            (unsigned long long)p->r.pos, (const char *)p->key.data,
                            (unsigned long long)TC_GGUF_MAX_META);
    if (tc_buf_reserve(&p->g->pool, (size_t)n + 1) != 0) return nomem(p);
    *off = p->g->pool.len;
    rc = rd_bytes(&p->r, p->g->pool.data + p->g->pool.len, n, "a string");
    if (rc) return rc;
    p->g->pool.len += (size_t)n;
    p->g->pool.data[p->g->pool.len++] = 0;
    *len = (uint32_t)n;
    return TC_OK;
}

static int type_error(parse *p, uint64_t at, const char *want, uint32_t type, int is_array) {
    return tc_error_set(p->err, TC_ERR_FORMAT, "GGUF: at offset %llu: key \"%s\" must be %s, not %s%s",
                        (unsigned long long)at, (const char *)p->key.data, want, is_array ? "an array of " : "",
                        type < TC_GGUF_NTYPES ? TYPE_NAMES[type] : "?");
}

/* Skips one value of a scalar type or a string. */
static int skip_value(parse *p, uint32_t type, uint64_t count) {
    if (type == TC_GGUF_STRING) {
        for (uint64_t i = 0; i < count; i++) {
            uint64_t n;
            int rc = read_strlen(p, &n, (const char *)p->key.data);
            if (rc) return rc;
            rc = rd_bytes(&p->r, NULL, n, "a string");
            if (rc) return rc;
        }
        return TC_OK;
    }
    return rd_bytes(&p->r, NULL, count * TYPE_SIZE[type], "an array");   /* count was checked against the size */
}

/* An integer of any integer type, for the *_token_id keys. */
static int read_int(parse *p, uint32_t type, int64_t *v) {
    uint8_t b[8] = {0};
    int rc = rd_bytes(&p->r, b, TYPE_SIZE[type], "an integer");
    if (rc) return rc;
    uint64_t u = 0;
    for (int i = TYPE_SIZE[type] - 1; i >= 0; i--) u = u << 8 | b[i];
    switch (type) {
    case TC_GGUF_I8: *v = (int8_t)u; break;
    case TC_GGUF_I16: *v = (int16_t)u; break;
    case TC_GGUF_I32: *v = (int32_t)u; break;
    case TC_GGUF_I64: *v = (int64_t)u; break;
    default: *v = u > INT64_MAX ? -1 : (int64_t)u; break;
    }
    return TC_OK;
}

static int is_int_type(uint32_t t) {
    return t <= TC_GGUF_I32 || t == TC_GGUF_U64 || t == TC_GGUF_I64;
}

/* "GGUF: at offset N: reason" -> "GGUF: at offset N: key[i]: reason" */
static void name_entry(tc_error *e, const char *key, uint64_t i) {
    char *colon = strncmp(e->msg, "GGUF: at offset ", 16) == 0 ? strchr(e->msg + 16, ':') : NULL;
    if (!colon) return;
    char rest[TC_ERRMSG_MAX];
    snprintf(rest, sizeof rest, "%s", colon + 2);
    size_t head = (size_t)(colon + 2 - e->msg);
    snprintf(colon + 2, sizeof e->msg - head, "%.200s[%llu]: %s", key, (unsigned long long)i, rest);
}

static int read_strs(parse *p, uint64_t at, uint32_t et, uint64_t n, tc_gguf_strs *s) {
    if (et != TC_GGUF_STRING) return type_error(p, at, "an array of strings", et, 1);
    if (s->off) return tc_error_set(p->err, TC_ERR_FORMAT, "GGUF: at offset %llu: duplicate key \"%s\"",
                                    (unsigned long long)at, (const char *)p->key.data);
    if (n > TC_MAX_VOCAB)
        return tc_error_set(p->err, TC_ERR_LIMIT, "GGUF: at offset %llu: key \"%s\": %llu entries is above the limit %u",
                            (unsigned long long)at, (const char *)p->key.data, (unsigned long long)n, TC_MAX_VOCAB);
    s->off = malloc(sizeof *s->off * (size_t)(n ? n : 1));
    s->len = malloc(sizeof *s->len * (size_t)(n ? n : 1));
    if (!s->off || !s->len) return nomem(p);
    for (uint64_t i = 0; i < n; i++) {
        int rc = read_string_to_pool(p, &s->off[i], &s->len[i]);
        if (rc) return name_entry(p->err, (const char *)p->key.data, i), rc;
        s->n = (uint32_t)i + 1;
    }
    return TC_OK;
}

static int key_is(const parse *p, const char *name) { return strcmp((const char *)p->key.data, name) == 0; }

/* One value of the current key: kept when it is a tokenizer key, else skipped. */
static int read_value(parse *p, uint64_t at, uint32_t type) {
    tc_gguf *g = p->g;
    const char *k = (const char *)p->key.data;
    if (type >= TC_GGUF_NTYPES)
        return tc_error_set(p->err, TC_ERR_FORMAT, "GGUF: at offset %llu: key \"%s\" has the unknown value type %u",
                            (unsigned long long)at, k, type);
    if (type == TC_GGUF_ARRAY) {
        uint32_t et;
        uint64_t n;
        uint64_t at_n = p->r.pos;
        int rc = rd_u32(&p->r, &et, "an array's element type");
        if (!rc) rc = rd_u64(&p->r, &n, "an array's count");
        if (rc) return rc;
        if (et >= TC_GGUF_NTYPES)
            return tc_error_set(p->err, TC_ERR_FORMAT, "GGUF: at offset %llu: key \"%s\": unknown array element type %u",
                                (unsigned long long)at_n, k, et);
        if (et == TC_GGUF_ARRAY)   /* gguf_init_from_file_impl: invalid GGUF type */
            return tc_error_set(p->err, TC_ERR_FORMAT, "GGUF: at offset %llu: key \"%s\" is an array of arrays",
                                (unsigned long long)at_n, k);
        /* every element takes at least one byte (a string at least 8) */
        uint64_t min = et == TC_GGUF_STRING ? 8 : TYPE_SIZE[et];
        uint64_t left = p->r.size - p->r.pos;
        if (n > left / min)
            return tc_error_set(p->err, TC_ERR_FORMAT,
                                "GGUF: at offset %llu: key \"%s\": %llu elements of %s run past the end of the file (%llu bytes)",
                                (unsigned long long)at_n, k, (unsigned long long)n, TYPE_NAMES[et],
                                (unsigned long long)p->r.size);
        if (key_is(p, "tokenizer.ggml.tokens")) return read_strs(p, at, et, n, &g->tokens);
        if (key_is(p, "tokenizer.ggml.merges")) return read_strs(p, at, et, n, &g->merges);
        if (key_is(p, "tokenizer.ggml.scores") || key_is(p, "tokenizer.ggml.token_type")) {
            int scores = key_is(p, "tokenizer.ggml.scores");
            uint32_t want = scores ? TC_GGUF_F32 : TC_GGUF_I32;
            if (et != want) return type_error(p, at, scores ? "an array of f32" : "an array of i32", et, 1);
            if (n > TC_MAX_VOCAB)
                return tc_error_set(p->err, TC_ERR_LIMIT, "GGUF: at offset %llu: key \"%s\": %llu entries is above the limit %u",
                                    (unsigned long long)at, k, (unsigned long long)n, TC_MAX_VOCAB);
            if (scores ? g->scores != NULL : g->types != NULL)
                return tc_error_set(p->err, TC_ERR_FORMAT, "GGUF: at offset %llu: duplicate key \"%s\"", (unsigned long long)at, k);
            uint8_t *raw = malloc((size_t)n * 4 + 1);
            void *arr = malloc((size_t)n * 4 + 4);
            if (!raw || !arr) { free(raw); free(arr); return nomem(p); }
            rc = rd_bytes(&p->r, raw, n * 4, "an array");
            if (rc) { free(raw); free(arr); return rc; }
            for (uint64_t i = 0; i < n; i++) {   /* little-endian words, copied into their own type */
                const uint8_t *b = raw + 4 * i;
                uint32_t w = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
                if (scores) { float f; memcpy(&f, &w, 4); ((float *)arr)[i] = f; }
                else { int32_t v; memcpy(&v, &w, 4); ((int32_t *)arr)[i] = v; }
            }
            free(raw);
            if (scores) { g->scores = arr; g->n_scores = (uint32_t)n; }
            else { g->types = arr; g->n_types = (uint32_t)n; }
            return TC_OK;
        }
        if (key_is(p, "tokenizer.ggml.precompiled_charsmap")) {
            if (et != TC_GGUF_U8 && et != TC_GGUF_I8) return type_error(p, at, "an array of u8", et, 1);
            if (g->charsmap) return tc_error_set(p->err, TC_ERR_FORMAT, "GGUF: at offset %llu: duplicate key \"%s\"", (unsigned long long)at, k);
            g->charsmap = malloc((size_t)n + 1);
            if (!g->charsmap) return nomem(p);
            g->charsmap_len = (size_t)n;
            return rd_bytes(&p->r, g->charsmap, n, "an array");
        }
        return skip_value(p, et, n);
    }
    if (strncmp(k, "tokenizer.ggml.", 15) == 0) {
        const char *name = k + 15;
        size_t nl = strlen(name);
        if (nl > 9 && strcmp(name + nl - 9, "_token_id") == 0) {
            for (int i = 0; i < TC_GGUF_NIDS; i++)
                if (nl - 9 == strlen(ID_KEYS[i]) && memcmp(name, ID_KEYS[i], nl - 9) == 0) {
                    if (!is_int_type(type)) return type_error(p, at, "an integer", type, 0);
                    return read_int(p, type, &g->ids[i]);
                }
        }
        for (int i = 0; i < TC_GGUF_NFLAGS; i++)
            if (strcmp(name, FLAG_KEYS[i]) == 0) {
                if (type != TC_GGUF_BOOL) return type_error(p, at, "a bool", type, 0);
                uint8_t b;
                int rc = rd_bytes(&p->r, &b, 1, "a bool");
                if (rc) return rc;
                g->flags[i] = b != 0;
                return TC_OK;
            }
    }
    uint64_t *single = key_is(p, "tokenizer.ggml.model") ? &g->model
                     : key_is(p, "tokenizer.ggml.pre") ? &g->pre
                     : key_is(p, "tokenizer.chat_template") ? &g->chat_template
                     : key_is(p, "general.architecture") ? &g->arch
                     : key_is(p, "general.name") ? &g->name : NULL;
    if (single) {
        if (type != TC_GGUF_STRING) return type_error(p, at, "a string", type, 0);
        uint64_t off;
        uint32_t len;
        int rc = read_string_to_pool(p, &off, &len);
        if (rc) return rc;
        *single = off + 1;
        return TC_OK;
    }
    return skip_value(p, type, 1);
}

/* ---- header -------------------------------------------------------------- */

static int parse_all(parse *p) {
    tc_gguf *g = p->g;
    rd *r = &p->r;
    uint8_t magic[4];
    int rc = rd_bytes(r, magic, 4, "the magic");
    if (rc) return rc;
    if (memcmp(magic, "GGUF", 4) != 0)
        return tc_error_set(p->err, TC_ERR_FORMAT, "GGUF: at offset 0: the magic is not \"GGUF\"");
    rc = rd_u32(r, &g->version, "the version");
    if (rc) return rc;
    /* gguf_init_from_file_impl: 0 is bad, 1 no longer supported, > GGUF_VERSION (3) unknown */
    if (g->version == 1)
        return tc_error_set(p->err, TC_ERR_UNSUPPORTED, "GGUF: at offset 4: version 1 (32-bit counts) is no longer supported by llama.cpp");
    if (g->version == 0 || g->version > 3)
        return tc_error_set(p->err, TC_ERR_UNSUPPORTED, "GGUF: at offset 4: unknown version %u (supported: 2 and 3)%s",
                            g->version, (g->version & 0xFFFF) == 0 ? "; a big-endian file?" : "");
    rc = rd_u64(r, &g->n_tensors, "the tensor count");
    if (!rc) rc = rd_u64(r, &g->n_kv, "the key/value count");
    if (rc) return rc;
    /* a key/value pair takes at least 8 (key length) + 1 (key) + 4 (type) + 1 bytes */
    if (g->n_kv > (r->size - r->pos) / 14)
        return tc_error_set(p->err, TC_ERR_FORMAT, "GGUF: at offset 16: %llu key/value pairs cannot fit in the %llu bytes of the file",
                            (unsigned long long)g->n_kv, (unsigned long long)r->size);
    keyset ks = {0};
    ks.cap = 16;
    while (ks.cap < g->n_kv * 2) ks.cap <<= 1;
    ks.slots = calloc(ks.cap, sizeof *ks.slots);
    ks.offs = malloc(ks.cap * sizeof *ks.offs);
    ks.lens = malloc(ks.cap * sizeof *ks.lens);
    if (!ks.slots || !ks.offs || !ks.lens) { keyset_free(&ks); return nomem(p); }
    for (uint64_t i = 0; i < g->n_kv && !rc; i++) {
        p->key_at = r->pos;
        uint64_t n;
        rc = rd_u64(r, &n, "a key's length");
        if (rc) break;
        if (n == 0) { rc = tc_error_set(p->err, TC_ERR_FORMAT, "GGUF: at offset %llu: key %llu is empty", (unsigned long long)p->key_at, (unsigned long long)i); break; }
        if (n > TC_GGUF_MAX_KEY || n > r->size - r->pos) {
            rc = tc_error_set(p->err, TC_ERR_FORMAT, "GGUF: at offset %llu: key %llu: length %llu %s", (unsigned long long)p->key_at,
                              (unsigned long long)i, (unsigned long long)n,
                              n > r->size - r->pos ? "runs past the end of the file" : "is above the limit of 65535 bytes");
            break;
        }
        p->key.len = 0;
        if (tc_buf_reserve(&p->key, (size_t)n + 1) != 0) { rc = nomem(p); break; }
        rc = rd_bytes(r, p->key.data, n, "a key");
        if (rc) break;
        p->key.len = (size_t)n;
        p->key.data[n] = 0;
        /* a key with a NUL inside would compare short: name it as it is */
        int add = keyset_add(&ks, p->key.data, (size_t)n, tc_hash_bytes(p->key.data, (size_t)n));
        if (add < 0) { rc = nomem(p); break; }
        if (add == 0) {
            rc = tc_error_set(p->err, TC_ERR_FORMAT, "GGUF: at offset %llu: duplicate key \"%s\"", (unsigned long long)p->key_at,
                              (const char *)p->key.data);
            break;
        }
        uint64_t at_type = r->pos;
        uint32_t type;
        rc = rd_u32(r, &type, "a value type");
        if (!rc) rc = read_value(p, at_type, type);
    }
    keyset_free(&ks);
    if (rc) return rc;
    g->meta_end = r->pos;
    return TC_OK;
}

static void init(tc_gguf *g) {
    memset(g, 0, sizeof *g);
    for (int i = 0; i < TC_GGUF_NIDS; i++) g->ids[i] = -1;
    for (int i = 0; i < TC_GGUF_NFLAGS; i++) g->flags[i] = -1;
}

static int run(parse *p) {
    int rc = parse_all(p);
    tc_buf_free(&p->key);
    free(p->r.win);
    if (rc) tc_gguf_free(p->g);
    return rc;
}

int tc_gguf_parse_mem(const uint8_t *data, size_t len, tc_gguf *g, tc_error *err) {
    init(g);
    parse p;
    memset(&p, 0, sizeof p);
    p.g = g; p.err = err;
    p.r.mem = data ? data : (const uint8_t *)"";
    p.r.size = len;
    p.r.err = err;
    g->file_size = len;
    return run(&p);
}

int tc_gguf_parse_file(const tc_file *f, tc_gguf *g, tc_error *err) {
    init(g);
    parse p;
    memset(&p, 0, sizeof p);
    p.g = g; p.err = err;
    p.r.file = f;
    p.r.size = f->len;
    p.r.err = err;
    p.r.win = malloc(TC_GGUF_WINDOW);
    g->file_size = f->len;
    if (!p.r.win) return tc_error_set(err, TC_ERR_NOMEM, "out of memory reading the GGUF metadata");
    return run(&p);
}

void tc_gguf_free(tc_gguf *g) {
    tc_buf_free(&g->pool);
    free(g->tokens.off); free(g->tokens.len);
    free(g->merges.off); free(g->merges.len);
    free(g->scores); free(g->types); free(g->charsmap);
    init(g);
}
