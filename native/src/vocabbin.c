/* vocabbin.c - vocab.bin (seed 000's board format): stored-form mapping,
 * compiler, parser, audit. See vocabbin.h for the layout and the contract.
 *
 * Does: byte-exact reproduction of build_vocab_bin.py (Qwen3: 151,669
 * entries, 1,950,864 bytes, sha256 299e1c15...), a parser that validates
 * every length against the file size before reading, an audit in JSON.
 * Does not: keep a copy of the file, or decide what a caller does with
 * trailing bytes (reported, not rejected).
 *
 * Performance notes (x86-64, -O2, the 1.95 MB Qwen3 file): parsing is two
 * linear walks and one calloc of N * 8 bytes, ~1-2 ms; the audit sorts
 * (hash, id) pairs to find identical entries instead of comparing bytes
 * pairwise, ~10 ms.
 */
#include "vocabbin.h"

#include <stdio.h>

#include "engine.h"

static uint32_t rd_u32(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static uint16_t rd_u16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }

static int put_u32(tc_buf *b, uint32_t v) {
    uint8_t t[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    return tc_buf_append(b, t, 4);
}

/* ---- the byte mapping -------------------------------------------------- */

/* The single byte a mapped character is stored as, or -1 when the
 * character keeps its UTF-8 (markers U+0100..U+0120, ASCII, all others). */
static int stored_byte_of(uint32_t cp) {
    if (cp == 0x0143) return 0xAD;
    if (cp == 0x0121) return 0x7F;
    if (cp >= 0x0122 && cp <= 0x0142) return (int)(cp - 0xA2);
    if ((cp >= 0x00A1 && cp <= 0x00AC) || (cp >= 0x00AE && cp <= 0x00FF)) return (int)cp;
    return -1;
}

int tc_vbin_stored_form(const uint8_t *s, size_t len, tc_buf *out) {
    int changed = 0;
    if (tc_buf_reserve(out, len) != 0) return -1;   /* the stored form is never longer */
    for (size_t i = 0; i < len;) {
        int n;
        uint32_t cp = tc_utf8_decode(s, len, i, &n);
        int b = cp < TC_CP_INVALID_BASE ? stored_byte_of(cp) : -1;
        if (b >= 0) {
            out->data[out->len++] = (uint8_t)b;
            changed = 1;   /* every such char is 2 bytes of UTF-8, now 1 */
        } else {
            memcpy(out->data + out->len, s + i, (size_t)n);
            out->len += (size_t)n;
        }
        i += (size_t)n;
    }
    return changed;
}

static int is_marker_at(const uint8_t *s, size_t len, size_t i) {
    return i + 1 < len && s[i] == 0xC4 && s[i + 1] >= 0x80 && s[i + 1] <= 0xA0;
}

int tc_vbin_real_bytes(const uint8_t *s, size_t len, tc_buf *out) {
    int changed = 0;
    if (tc_buf_reserve(out, len) != 0) return -1;
    for (size_t i = 0; i < len; i++) {
        if (is_marker_at(s, len, i)) {
            out->data[out->len++] = (uint8_t)(s[i + 1] - 0x80);
            i++;
            changed = 1;
        } else {
            out->data[out->len++] = s[i];
        }
    }
    return changed;
}

/* ---- compiler ---------------------------------------------------------- */

int tc_vbin_compile(const tc_tokenizer *tok, tc_buf *out, tc_vbin_stats *st, tc_error *err) {
    tc_vbin_stats local;
    if (!st) st = &local;
    memset(st, 0, sizeof *st);
    if (!tok) return tc_error_set(err, TC_ERR_ARG, "vocab.bin: no tokenizer");
    if (tok->model.kind == TC_MODEL_UNIGRAM)
        return tc_error_set(err, TC_ERR_UNSUPPORTED, "vocab.bin: this is a Unigram model: vocab.bin stores a byte-level vocabulary for the board's longest-match encoders, and a Unigram vocabulary is scored pieces (spaces as \"\xE2\x96\x81\", bytes as \"<0xNN>\") chosen by the best-scoring segmentation, which a longest match does not reproduce");
    if (!tok->byte_level)
        return tc_error_set(err, TC_ERR_UNSUPPORTED, "vocab.bin: the tokenizer is not byte-level (id 0 has no byte-level string to decode)");
    uint32_t n = tc_vocab_size(tok);
    if (n == 0) return tc_error_set(err, TC_ERR_FORMAT, "vocab.bin: the tokenizer has no tokens");
    if (n > TC_VBIN_MAX_ENTRIES)
        return tc_error_set(err, TC_ERR_LIMIT, "vocab.bin: %u ids, above the limit of %u entries", n, TC_VBIN_MAX_ENTRIES);
    size_t start = out->len;
    if (put_u32(out, n) != 0) goto oom;
    for (uint32_t id = 0; id < n; id++) {
        size_t slen;
        const char *s = tc_id_to_token(tok, id, &slen);
        if (!s) {
            out->len = start;
            return tc_error_set(err, TC_ERR_FORMAT, "vocab.bin: id %u has no token (a hole in 0..%u)", id, n - 1);
        }
        size_t hdr = out->len;
        /* header with a placeholder length, bytes, then the real length */
        if (put_u32(out, id) != 0 || tc_buf_append(out, "\0\0", 2) != 0) goto oom;
        int added = tc_is_added(tok, id), r = 0;
        if (added) r = tc_buf_append(out, s, slen);
        else r = tc_vbin_stored_form((const uint8_t *)s, slen, out);
        if (r < 0) goto oom;
        size_t blen = out->len - hdr - TC_VBIN_ENTRY_HEADER_BYTES;
        if (blen == 0 || blen > TC_VBIN_MAX_ENTRY_BYTES) {
            out->len = start;
            return tc_error_set(err, TC_ERR_LIMIT, "vocab.bin: id %u stores %zu bytes (must be 1..%u)", id, blen, TC_VBIN_MAX_ENTRY_BYTES);
        }
        out->data[hdr + 4] = (uint8_t)blen;
        out->data[hdr + 5] = (uint8_t)(blen >> 8);
        if (added) st->specials++;
        else if (r == 1) st->changed++;
        else st->kept++;
    }
    st->total = n;
    return TC_OK;
oom:
    out->len = start;
    return tc_error_set(err, TC_ERR_NOMEM, "vocab.bin: out of memory");
}

/* ---- parser ------------------------------------------------------------ */

/* Pass 1: walks N entries from offset 4 and checks each against the bytes
 * left. Allocates nothing. On success *end is the offset after the last
 * entry. err may be NULL (detection). */
static int walk_entries_to(const uint8_t *d, size_t size, uint32_t n, int head, size_t *end, tc_error *err) {
    size_t off = TC_VBIN_HEADER_BYTES;
    for (uint32_t i = 0; i < n; i++) {
        size_t left = size - off;
        /* head: d is the file's first bytes; an entry past them is unchecked */
        if (head && (left < TC_VBIN_ENTRY_HEADER_BYTES || left - TC_VBIN_ENTRY_HEADER_BYTES < rd_u16(d + off + 4))) break;
        if (left == 0)
            return tc_error_set(err, TC_ERR_FORMAT,
                                "vocab.bin: truncated entry header at entry %u, offset %zu: the file ends after %u of N = %u entries (fewer entries than N)",
                                i, off, i, n);
        if (left < TC_VBIN_ENTRY_HEADER_BYTES)
            return tc_error_set(err, TC_ERR_FORMAT,
                                "vocab.bin: truncated entry header (id/len) at entry %u, offset %zu: %zu of 6 bytes left",
                                i, off, left);
        uint32_t id = rd_u32(d + off);
        uint16_t len = rd_u16(d + off + 4);
        if (len == 0)
            return tc_error_set(err, TC_ERR_FORMAT, "vocab.bin: zero-length entry at entry %u, offset %zu (id %u)", i, off, id);
        if (left - TC_VBIN_ENTRY_HEADER_BYTES < len)
            return tc_error_set(err, TC_ERR_FORMAT,
                                "vocab.bin: truncated entry bytes at entry %u, offset %zu: length %u but only %zu bytes left (id %u)",
                                i, off, (unsigned)len, left - TC_VBIN_ENTRY_HEADER_BYTES, id);
        if (id >= n)
            return tc_error_set(err, TC_ERR_FORMAT, "vocab.bin: id %u >= N = %u at entry %u, offset %zu", id, n, i, off);
        off += TC_VBIN_ENTRY_HEADER_BYTES + len;
    }
    *end = off;
    return TC_OK;
}

static int walk_entries(const uint8_t *d, size_t size, uint32_t n, size_t *end, tc_error *err) {
    return walk_entries_to(d, size, n, 0, end, err);
}

static int check_header(const uint8_t *d, size_t size, uint32_t *n, tc_error *err) {
    if (!d || size == 0) return tc_error_set(err, TC_ERR_FORMAT, "vocab.bin: empty file (0 bytes)");
    if (size < TC_VBIN_HEADER_BYTES)
        return tc_error_set(err, TC_ERR_FORMAT, "vocab.bin: file of %zu bytes is shorter than the 4-byte header (entry count N at offset 0)", size);
    if ((uint64_t)size > 0xFFFFFFFFull)
        return tc_error_set(err, TC_ERR_LIMIT, "vocab.bin: file of %zu bytes is above the 4 GB limit (offsets are 32-bit)", size);
    *n = rd_u32(d);
    if (*n == 0) return tc_error_set(err, TC_ERR_FORMAT, "vocab.bin: N = 0 at offset 0: the file declares no entries");
    if (*n > TC_VBIN_MAX_ENTRIES)
        return tc_error_set(err, TC_ERR_LIMIT, "vocab.bin: N = %u at offset 0 is above the limit of %u entries", *n, TC_VBIN_MAX_ENTRIES);
    return TC_OK;
}

int tc_vbin_detect(const uint8_t *d, size_t size) {
    uint32_t n = 0;
    size_t end = 0;
    if (check_header(d, size, &n, NULL) != TC_OK) return 0;
    if ((size - TC_VBIN_HEADER_BYTES) / (TC_VBIN_ENTRY_HEADER_BYTES + 1) < n) return 0;   /* cannot hold N entries */
    return walk_entries(d, size, n, &end, NULL) == TC_OK;
}

int tc_vbin_check_head(const uint8_t *head, size_t n_head, uint64_t file_size, tc_error *err) {
    uint32_t n = 0;
    size_t end = 0;
    if (file_size > 0xFFFFFFFFull)
        return tc_error_set(err, TC_ERR_LIMIT, "vocab.bin: file of %llu bytes is above the 4 GB limit (offsets are 32-bit)",
                            (unsigned long long)file_size);
    if (n_head > file_size) n_head = (size_t)file_size;
    int rc = check_header(head, n_head, &n, err);
    if (rc != TC_OK) return rc;
    return walk_entries_to(head, n_head, n, 1, &end, err);
}

/* Index and offset of the entry starting at file offset `target` (error
 * path only: one more walk). */
static uint32_t entry_index_at(const uint8_t *d, size_t target) {
    size_t off = TC_VBIN_HEADER_BYTES;
    uint32_t i = 0;
    while (off < target) {
        off += TC_VBIN_ENTRY_HEADER_BYTES + rd_u16(d + off + 4);
        i++;
    }
    return i;
}

int tc_vbin_parse(const uint8_t *d, size_t size, tc_vbin *out, tc_error *err) {
    memset(out, 0, sizeof *out);
    uint32_t n = 0;
    size_t end = 0;
    int rc = check_header(d, size, &n, err);
    if (rc != TC_OK) return rc;
    rc = walk_entries(d, size, n, &end, err);
    if (rc != TC_OK) return rc;
    /* pass 2: N is now backed by at least 7 * N bytes of file */
    tc_vbin_entry *by_id = calloc(n, sizeof *by_id);
    if (!by_id) return tc_error_set(err, TC_ERR_NOMEM, "vocab.bin: out of memory for %u entries", n);
    size_t off = TC_VBIN_HEADER_BYTES;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t id = rd_u32(d + off);
        uint16_t len = rd_u16(d + off + 4);
        tc_vbin_entry *e = &by_id[id];
        if (e->present) {
            size_t first_off = e->off - TC_VBIN_ENTRY_HEADER_BYTES;
            uint32_t first = entry_index_at(d, first_off);
            free(by_id);
            return tc_error_set(err, TC_ERR_FORMAT,
                                "vocab.bin: duplicate id %u at entry %u, offset %zu (first at entry %u, offset %zu)",
                                id, i, off, first, first_off);
        }
        e->off = (uint32_t)(off + TC_VBIN_ENTRY_HEADER_BYTES);
        e->len = len;
        e->present = 1;
        off += TC_VBIN_ENTRY_HEADER_BYTES + len;
    }
    /* N entries, ids < N, no duplicates: every id 0..N-1 is present */
    out->data = d;
    out->size = size;
    out->n = n;
    out->by_id = by_id;
    out->trailing = size - end;
    return TC_OK;
}

void tc_vbin_free(tc_vbin *v) {
    if (!v) return;
    free(v->by_id);
    memset(v, 0, sizeof *v);
}

/* ---- audit ------------------------------------------------------------- */

enum {
    CL_MARKER = 1, CL_DEL = 2, CL_RAW_80_A0 = 4, CL_RAW_AD = 8, CL_RAW_A1_FF = 16,
    CL_MULTI = 32, CL_INVALID = 64
};

static unsigned classify(const uint8_t *s, size_t len) {
    unsigned f = 0;
    for (size_t i = 0; i < len;) {
        int n;
        uint32_t cp = tc_utf8_decode(s, len, i, &n);
        if (cp >= TC_CP_INVALID_BASE) {
            uint8_t b = s[i];
            f |= CL_INVALID;
            if (b <= 0xA0) f |= CL_RAW_80_A0;   /* invalid bytes are >= 0x80 */
            else if (b == 0xAD) f |= CL_RAW_AD;
            else f |= CL_RAW_A1_FF;
        } else if (n == 1) {
            if (cp == 0x7F) f |= CL_DEL;
        } else if (n == 2 && is_marker_at(s, len, i)) {
            f |= CL_MARKER;
        } else {
            f |= CL_MULTI;
        }
        i += (size_t)n;
    }
    return f;
}

typedef struct hash_id { uint64_t h; uint32_t id; } hash_id;

static int cmp_hash_id(const void *a, const void *b) {
    const hash_id *x = a, *y = b;
    if (x->h != y->h) return x->h < y->h ? -1 : 1;
    return x->id < y->id ? -1 : (x->id > y->id);
}

static uint64_t fnv1a(const uint8_t *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) { h ^= p[i]; h *= 0x100000001b3ull; }
    return h;
}

typedef struct group { uint32_t first, count; } group;   /* into the member list */

typedef struct group_sort { uint32_t first_id, g; } group_sort;

static int cmp_group_sort(const void *a, const void *b) {
    const group_sort *x = a, *y = b;
    return x->first_id < y->first_id ? -1 : (x->first_id > y->first_id);
}

static int appendf(tc_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    TC_PRINTF(2, 3)
#endif
    ;
static int appendf(tc_buf *b, const char *fmt, ...) {
    char tmp[256];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (k < 0 || (size_t)k >= sizeof tmp) return -1;
    return tc_buf_append(b, tmp, (size_t)k);
}

/* Identical stored bytes: sort (hash, id), then group equal bytes inside
 * each run of equal hashes (runs are tiny; a collision only costs a
 * compare). Fills members (ids) and groups, ordered by first id. */
static int find_identical(const tc_vbin *v, uint32_t **members_out, group **groups_out, size_t *ngroups_out) {
    int rc = -1;
    hash_id *hs = malloc((size_t)v->n * sizeof *hs);
    uint8_t *used = calloc(v->n, 1);
    uint32_t *members = NULL;
    group *groups = NULL;
    group_sort *order = NULL;
    size_t nm = 0, ng = 0, mcap = 0, gcap = 0;
    if (!hs || !used) goto done;
    for (uint32_t id = 0; id < v->n; id++) {
        hs[id].h = fnv1a(v->data + v->by_id[id].off, v->by_id[id].len);
        hs[id].id = id;
    }
    qsort(hs, v->n, sizeof *hs, cmp_hash_id);
    for (size_t i = 0; i < v->n;) {
        size_t j = i + 1;
        while (j < v->n && hs[j].h == hs[i].h) j++;
        for (size_t a = i; a + 1 < j; a++) {
            const tc_vbin_entry *ea = &v->by_id[hs[a].id];
            if (used[hs[a].id]) continue;
            size_t start = nm, cnt = 0;
            for (size_t b = a + 1; b < j; b++) {
                const tc_vbin_entry *eb = &v->by_id[hs[b].id];
                if (used[hs[b].id] || eb->len != ea->len || memcmp(v->data + ea->off, v->data + eb->off, ea->len) != 0) continue;
                if (cnt == 0) {
                    void *m = members;
                    if (tc_grow(&m, &mcap, nm + 1, sizeof *members) != 0) goto done;
                    members = m;
                    members[nm++] = hs[a].id;
                    cnt = 1;
                }
                void *m = members;
                if (tc_grow(&m, &mcap, nm + 1, sizeof *members) != 0) goto done;
                members = m;
                members[nm++] = hs[b].id;
                used[hs[b].id] = 1;
                cnt++;
            }
            if (cnt) {
                void *g = groups;
                if (tc_grow(&g, &gcap, ng + 1, sizeof *groups) != 0) goto done;
                groups = g;
                groups[ng].first = (uint32_t)start;
                groups[ng].count = (uint32_t)cnt;
                ng++;
            }
        }
        i = j;
    }
    /* order groups by their first (lowest) id */
    if (ng) {
        order = malloc(ng * sizeof *order);
        group *sorted = malloc(ng * sizeof *sorted);
        if (!order || !sorted) { free(sorted); goto done; }
        for (size_t g = 0; g < ng; g++) { order[g].first_id = members[groups[g].first]; order[g].g = (uint32_t)g; }
        qsort(order, ng, sizeof *order, cmp_group_sort);
        for (size_t g = 0; g < ng; g++) sorted[g] = groups[order[g].g];
        free(groups);
        groups = sorted;
    }
    *members_out = members;
    *groups_out = groups;
    *ngroups_out = ng;
    members = NULL;
    groups = NULL;
    rc = 0;
done:
    free(hs);
    free(used);
    free(members);
    free(groups);
    free(order);
    return rc;
}

int tc_vbin_audit(const tc_vbin *v, tc_buf *out) {
    size_t start = out->len;
    uint32_t c_marker = 0, c_del = 0, c_r80 = 0, c_rad = 0, c_ra1 = 0, c_ascii = 0, c_multi = 0, c_invalid = 0;
    uint32_t first_invalid[TC_VBIN_AUDIT_FIRST_IDS];
    uint32_t longest_id = 0, longest_len = 0;
    uint64_t string_bytes = 0;
    for (uint32_t id = 0; id < v->n; id++) {
        const tc_vbin_entry *e = &v->by_id[id];
        const uint8_t *s = v->data + e->off;
        unsigned f = classify(s, e->len);
        string_bytes += e->len;
        if (e->len > longest_len) { longest_len = e->len; longest_id = id; }
        if (f & CL_MARKER) c_marker++;
        if (f & CL_DEL) c_del++;
        if (f & CL_RAW_80_A0) c_r80++;
        if (f & CL_RAW_AD) c_rad++;
        if (f & CL_RAW_A1_FF) c_ra1++;
        if (f & CL_MULTI) c_multi++;
        if ((f & (CL_MARKER | CL_MULTI | CL_INVALID)) == 0) c_ascii++;
        if (f & CL_INVALID) {
            if (c_invalid < TC_VBIN_AUDIT_FIRST_IDS) first_invalid[c_invalid] = id;
            c_invalid++;
        }
    }
    uint32_t *members = NULL;
    group *groups = NULL;
    size_t ng = 0;
    if (find_identical(v, &members, &groups, &ng) != 0) return TC_ERR_NOMEM;
    size_t in_groups = 0;
    for (size_t g = 0; g < ng; g++) in_groups += groups[g].count;
    int r = appendf(out, "{\"n\":%u,\"file_bytes\":%zu,\"string_bytes\":%llu,\"trailing\":%zu,", v->n, v->size,
                    (unsigned long long)string_bytes, v->trailing);
    r |= appendf(out, "\"classes\":{\"markers\":%u,\"del_7f\":%u,\"raw_80_a0\":%u,\"raw_ad\":%u,\"raw_a1_ff\":%u,"
                      "\"ascii\":%u,\"multibyte_utf8\":%u},",
                 c_marker, c_del, c_r80, c_rad, c_ra1, c_ascii, c_multi);
    r |= appendf(out, "\"invalid_utf8\":{\"count\":%u,\"first_ids\":[", c_invalid);
    for (uint32_t i = 0; i < c_invalid && i < TC_VBIN_AUDIT_FIRST_IDS; i++)
        r |= appendf(out, "%s%u", i ? "," : "", first_invalid[i]);
    r |= appendf(out, "]},\"longest\":{\"id\":%u,\"len\":%u},", longest_id, longest_len);
    r |= appendf(out, "\"identical\":{\"groups\":%zu,\"entries\":%zu,\"list\":[", ng, in_groups);
    for (size_t g = 0; g < ng; g++) {
        r |= appendf(out, "%s[", g ? "," : "");
        for (uint32_t k = 0; k < groups[g].count; k++)
            r |= appendf(out, "%s%u", k ? "," : "", members[groups[g].first + k]);
        r |= appendf(out, "]");
    }
    r |= appendf(out, "]}}");
    free(members);
    free(groups);
    if (r != 0) {
        out->len = start;
        return TC_ERR_NOMEM;
    }
    return TC_OK;
}
