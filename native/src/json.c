/* json.c - strict RFC 8259 JSON reader (see json.h).
 *
 * Design:
 *  - One iterative state machine with an explicit frame stack (one frame per
 *    open array/object, at most TC_JSON_MAX_DEPTH), so nesting never uses
 *    the C stack.
 *  - Children of open containers accumulate in one growable scratch array;
 *    when a container closes its children are copied into the arena as one
 *    contiguous block and popped from the scratch array.
 *    Containers of DONATE_MIN (4096)+ children are not copied: the
 *    whole scratch block joins the doc and parsing continues in a new one.
 *  - All strings are copied (unescaped) into the arena: the finished tree
 *    does not point into the source buffer.
 *  - Duplicate keys: objects up to DUP_LINEAR members are checked linearly
 *    as keys arrive. Beyond that each key's (hash, index) is appended to a
 *    per-frame list; when the object closes the list is radix-sorted and
 *    equal hashes are compared (sequential memory access: a hash table over
 *    150k keys was dominated by cache misses). If a later error stops the
 *    parse first, the open objects' lists are checked too, so the error
 *    reported is always the first one in document order.
 *  - Allocation goes through TC_JSON_MALLOC/REALLOC/FREE so a test can
 *    inject failures (defaults: malloc/realloc/free).
 */
#include "json.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>

#ifndef TC_JSON_MALLOC
#define TC_JSON_MALLOC(n) malloc(n)
#define TC_JSON_REALLOC(p, n) realloc((p), (n))
#define TC_JSON_FREE(p) free(p)
#endif

#define DUP_LINEAR 16     /* objects with more members use hash sorting */
#define PATH_BUDGET 240   /* max chars of a path in an error message */
#define KEY_SHOW_MAX 40   /* max key bytes shown per path component */

/* ---- arena ------------------------------------------------------------- */

typedef struct chunk {
    struct chunk *next;
    size_t cap;
    size_t pad_[2]; /* keep data 16-byte aligned on common ABIs */
} chunk;

struct tc_json_doc {
    tc_json root;
    chunk *chunks;
    unsigned char *cur, *end; /* free space in the current chunk */
    size_t next_size;
};

static void *arena_alloc(tc_json_doc *d, size_t size, size_t align) {
    uintptr_t p = ((uintptr_t)d->cur + (align - 1)) & ~(uintptr_t)(align - 1);
    if (d->cur && p <= (uintptr_t)d->end && size <= (size_t)((uintptr_t)d->end - p)) {
        d->cur = (unsigned char *)(p + size);
        return (void *)p;
    }
    if (size > SIZE_MAX - sizeof(chunk) - 16) return NULL;
    int dedicated = size > d->next_size / 2;
    size_t csize = dedicated ? size : d->next_size;
    chunk *c = TC_JSON_MALLOC(sizeof(chunk) + csize);
    if (!c) return NULL;
    c->cap = csize;
    c->next = d->chunks;
    d->chunks = c;
    unsigned char *data = (unsigned char *)(c + 1);
    if (dedicated) return data; /* keep the current chunk for small items */
    d->cur = data + size;
    d->end = data + csize;
    if (d->next_size < ((size_t)1 << 28)) d->next_size *= 2;
    return data;
}

/* ---- parser state ------------------------------------------------------ */

enum { F_ARR = 0, F_OBJ = 1 };

typedef struct frame {
    int type;
    int in_value;     /* a child value is being parsed (path shows it) */
    uint32_t offset;  /* of the '[' or '{' */
    size_t base;      /* first scratch slot of this container */
    uint64_t *hk;     /* (hash << 32 | member index) per key once hashed;
                         owned, reused by later frames at this depth */
    size_t hk_n, hk_cap;
    int hashed;
} frame;

typedef struct bytes {
    unsigned char *p;
    size_t len, cap;
} bytes;

typedef struct parser {
    const unsigned char *s;
    size_t len;
    size_t pos;
    tc_json_doc *doc;
    chunk *sblock;    /* scratch storage: chunk header + slots, so a big
                         finished container can be handed to the doc */
    tc_json_member *scratch; /* = (tc_json_member *)(sblock + 1) */
    uint32_t *koff;   /* per scratch slot: byte offset of the member's key */
    size_t sn, scap;
    uint64_t *sortbuf; /* radix sort temporary */
    size_t sortcap;
    size_t err_off;   /* offset of the reported format error */
    frame *frames;    /* TC_JSON_MAX_DEPTH entries */
    size_t depth;
    bytes tmp;        /* escape decoding, number text */
    tc_error *err;
    const tc_json_span *skip;  /* values not to read (tc_json_parse_skipping) */
    size_t nskip;
} parser;

static int bytes_reserve(bytes *b, size_t extra) {
    if (extra > SIZE_MAX / 2 - b->len) return -1;
    size_t need = b->len + extra;
    if (need <= b->cap) return 0;
    size_t ncap = b->cap ? b->cap : 256;
    while (ncap < need) ncap *= 2;
    unsigned char *np = TC_JSON_REALLOC(b->p, ncap);
    if (!np) return -1;
    b->p = np;
    b->cap = ncap;
    return 0;
}

/* ---- error formatting -------------------------------------------------- */

static int is_ident_key(const char *k, size_t n) {
    if (n == 0) return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)k[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
                 (i > 0 && c >= '0' && c <= '9');
        if (!ok) return 0;
    }
    return 1;
}

/* Writes a key as a quoted, escaped, possibly shortened string into out
 * (cap >= 8*KEY_SHOW_MAX). Returns the length. */
static size_t quote_key(const char *k, size_t n, char *out, size_t cap) {
    size_t o = 0, show = n;
    int cut = 0;
    if (show > KEY_SHOW_MAX) {
        show = KEY_SHOW_MAX;
        while (show > 0 && ((unsigned char)k[show] & 0xC0) == 0x80) show--;
        cut = 1;
    }
    out[o++] = '"';
    for (size_t i = 0; i < show && o + 8 < cap; i++) {
        unsigned char c = (unsigned char)k[i];
        if (c == '"' || c == '\\') { out[o++] = '\\'; out[o++] = (char)c; }
        else if (c < 0x20 || c == 0x7f) o += (size_t)snprintf(out + o, cap - o, "\\u%04x", c);
        else out[o++] = (char)c;
    }
    if (cut && o + 4 < cap) { memcpy(out + o, "...", 3); o += 3; }
    out[o++] = '"';
    out[o] = 0;
    return o;
}

/* One path component for a key or an index into comp. Returns length. */
static size_t path_comp(char *comp, size_t cap, const char *key, size_t klen, int is_key, size_t index) {
    if (!is_key) return (size_t)snprintf(comp, cap, "[%zu]", index);
    if (is_ident_key(key, klen) && klen <= KEY_SHOW_MAX) {
        comp[0] = '.';
        memcpy(comp + 1, key, klen);
        comp[klen + 1] = 0;
        return klen + 1;
    }
    comp[0] = '[';
    size_t n = quote_key(key, klen, comp + 1, cap - 3);
    comp[n + 1] = ']';
    comp[n + 2] = 0;
    return n + 2;
}

/* Path of the value being parsed, built innermost-first into the tail of
 * buf; returns a pointer to its start. Long paths keep the innermost part
 * and show "$..." for the omitted outer part. */
static const char *parser_path(const parser *P, char *buf, size_t cap) {
    size_t start = cap - 1;
    buf[start] = 0;
    char comp[8 * KEY_SHOW_MAX + 16];
    int cut = 0;
    for (size_t i = P->depth; i-- > 0;) {
        const frame *f = &P->frames[i];
        if (!f->in_value) continue; /* only the top frame can be "between" values */
        size_t end = (i + 1 < P->depth) ? P->frames[i + 1].base : P->sn;
        size_t n;
        if (f->type == F_OBJ) {
            const tc_json_member *m = &P->scratch[end - 1];
            n = path_comp(comp, sizeof comp, m->key, m->key_len, 1, 0);
        } else {
            n = path_comp(comp, sizeof comp, NULL, 0, 0, end - f->base);
        }
        if (n + 4 > start || cap - 1 - start + n > PATH_BUDGET) { cut = 1; break; }
        start -= n;
        memcpy(buf + start, comp, n);
    }
    if (cut) { start -= 3; memcpy(buf + start, "...", 3); }
    buf[--start] = '$';
    return buf + start;
}

void tc_json_line_col(const char *src, size_t len, size_t offset, int *line, int *col) {
    if (offset > len) offset = len;
    size_t l = 1, last = 0; /* last = offset just after the last '\n' */
    const char *p = src, *e = src + offset;
    while (p < e) {
        const char *nl = memchr(p, '\n', (size_t)(e - p));
        if (!nl) break;
        l++;
        last = (size_t)(nl - src) + 1;
        p = nl + 1;
    }
    size_t c = offset - last + 1;
    if (line) *line = l > INT32_MAX ? INT32_MAX : (int)l;
    if (col) *col = c > INT32_MAX ? INT32_MAX : (int)c;
}

#if defined(__GNUC__)
TC_PRINTF(4, 5)
#endif
static int fail(parser *P, int code, size_t off, const char *fmt, ...) {
    char reason[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    char pbuf[PATH_BUDGET + 8 * KEY_SHOW_MAX + 32];
    const char *path = parser_path(P, pbuf, sizeof pbuf);
    int line, col;
    P->err_off = off;
    tc_json_line_col((const char *)P->s, P->len, off, &line, &col);
    tc_error_set(P->err, code, "JSON error at byte %zu (line %d, column %d) in %s: %s", off, line, col, path,
                 reason);
    return -1;
}

static int nomem(parser *P) {
    tc_error_set(P->err, TC_ERR_NOMEM, "JSON: out of memory while parsing (at byte %zu)", P->pos);
    return -1;
}

/* ---- lexing helpers ---------------------------------------------------- */

static inline size_t skip_ws(const unsigned char *s, size_t p, size_t len) {
    for (;;) {
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        /* pretty-printed files: runs of indentation spaces, 8 at a time */
        if (p + 8 <= len) {
            uint64_t w;
            memcpy(&w, s + p, 8);
            w ^= 0x2020202020202020ull;
            if (w == 0) { p += 8; continue; }
            p += (size_t)__builtin_ctzll(w) >> 3;
        }
#endif
        if (p >= len) return p;
        unsigned char c = s[p];
        if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return p;
        p++;
    }
}

/* 0: plain ASCII in a string; 1: '"'; 2: '\\'; 3: control; 4: >= 0x80 */
static const unsigned char str_class[256] = {
    3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3, 3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,
    0,0,1,0,0,0,0,0,0,0,0,0,0,0,0,0, 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
    0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0, 0,0,0,0,0,0,0,0,0,0,0,0,2,0,0,0,
    0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0, 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
    4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4, 4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,
    4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4, 4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,
    4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4, 4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,
    4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4, 4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,
};

static const char *eof_string = "unterminated string: unexpected end of input while reading a string (started at byte %zu)";

/* Validates the UTF-8 sequence at s[p] (s[p] >= 0x80). Returns its length,
 * or 0 after reporting an error. qstart: offset of the string's quote. */
static size_t utf8_check(parser *P, size_t p, size_t qstart) {
    const unsigned char *s = P->s;
    unsigned char c = s[p];
    size_t n;
    unsigned char lo = 0x80, hi = 0xBF; /* allowed range of the 2nd byte */
    if (c >= 0xC2 && c <= 0xDF) n = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0) lo = 0xA0;
        else if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0) lo = 0x90;
        else if (c == 0xF4) hi = 0x8F;
    } else {
        fail(P, TC_ERR_FORMAT, p, "invalid UTF-8 byte 0x%02x", c);
        return 0;
    }
    for (size_t k = 1; k < n; k++) {
        if (p + k >= P->len) { fail(P, TC_ERR_FORMAT, P->len, eof_string, qstart); return 0; }
        unsigned char b = s[p + k];
        unsigned char l = k == 1 ? lo : 0x80, h = k == 1 ? hi : 0xBF;
        if (b < l || b > h) {
            fail(P, TC_ERR_FORMAT, p + k, "invalid UTF-8 byte 0x%02x after lead byte 0x%02x%s", b, c,
                 (b >= 0x80 && b <= 0xBF) ? " (overlong, surrogate or > U+10FFFF)" : "");
            return 0;
        }
    }
    return n;
}

static int hexval(unsigned char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Reads 4 hex digits of a \u escape whose backslash is at bs. Returns the
 * value, -1 after reporting an error. */
static long read_u4(parser *P, size_t bs, size_t qstart) {
    const unsigned char *s = P->s;
    long v = 0;
    for (size_t k = 0; k < 4; k++) {
        size_t q = bs + 2 + k;
        if (q >= P->len) { fail(P, TC_ERR_FORMAT, P->len, eof_string, qstart); return -1; }
        int h = hexval(s[q]);
        if (h < 0) {
            fail(P, TC_ERR_FORMAT, bs, "invalid \\u escape: expected 4 hex digits, got '%.*s'",
                 (int)(q + 1 - bs), (const char *)s + bs);
            return -1;
        }
        v = v * 16 + h;
    }
    return v;
}

/* Parses the string whose opening quote is at P->pos; copies the unescaped
 * text into the arena. On success P->pos is after the closing quote. */
static int parse_string(parser *P, const char **out, uint32_t *out_len) {
    const unsigned char *s = P->s;
    const size_t len = P->len, qstart = P->pos, start = P->pos + 1;
    size_t p = start;
    for (;;) {
        while (p < len && str_class[s[p]] == 0) p++;
        if (p >= len) return fail(P, TC_ERR_FORMAT, len, eof_string, qstart);
        unsigned char cl = str_class[s[p]];
        if (cl == 1) {
            size_t n = p - start;
            char *d = arena_alloc(P->doc, n + 1, 1);
            if (!d) return nomem(P);
            memcpy(d, s + start, n);
            d[n] = 0;
            *out = d;
            *out_len = (uint32_t)n;
            P->pos = p + 1;
            return 0;
        }
        if (cl == 2) break;
        if (cl == 3) return fail(P, TC_ERR_FORMAT, p, "control character 0x%02x in string (must be escaped)", s[p]);
        size_t n = utf8_check(P, p, qstart);
        if (!n) return -1;
        p += n;
    }
    /* slow path: escapes; decode into P->tmp */
    bytes *t = &P->tmp;
    t->len = 0;
    if (bytes_reserve(t, p - start + 16) != 0) return nomem(P);
    memcpy(t->p, s + start, p - start);
    t->len = p - start;
    for (;;) {
        size_t run = p;
        while (p < len && str_class[s[p]] == 0) p++;
        if (p > run) {
            if (bytes_reserve(t, p - run) != 0) return nomem(P);
            memcpy(t->p + t->len, s + run, p - run);
            t->len += p - run;
        }
        if (p >= len) return fail(P, TC_ERR_FORMAT, len, eof_string, qstart);
        unsigned char c = s[p];
        unsigned char cl = str_class[c];
        if (cl == 1) break;
        if (bytes_reserve(t, 4) != 0) return nomem(P);
        if (cl == 3) return fail(P, TC_ERR_FORMAT, p, "control character 0x%02x in string (must be escaped)", c);
        if (cl == 4) {
            size_t n = utf8_check(P, p, qstart);
            if (!n) return -1;
            memcpy(t->p + t->len, s + p, n);
            t->len += n;
            p += n;
            continue;
        }
        /* backslash */
        if (p + 1 >= len) return fail(P, TC_ERR_FORMAT, len, eof_string, qstart);
        unsigned char e = s[p + 1], o;
        switch (e) {
        case '"': o = '"'; break;
        case '\\': o = '\\'; break;
        case '/': o = '/'; break;
        case 'b': o = '\b'; break;
        case 'f': o = '\f'; break;
        case 'n': o = '\n'; break;
        case 'r': o = '\r'; break;
        case 't': o = '\t'; break;
        case 'u': {
            long v = read_u4(P, p, qstart);
            if (v < 0) return -1;
            uint32_t cp = (uint32_t)v;
            size_t adv = 6;
            if (cp >= 0xDC00 && cp <= 0xDFFF)
                return fail(P, TC_ERR_FORMAT, p, "lone surrogate \\u%04x (low surrogate without a high one)", cp);
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                size_t q = p + 6;
                if (q + 1 < len && s[q] == '\\' && s[q + 1] == 'u') {
                    long lo = read_u4(P, q, qstart);
                    if (lo < 0) return -1;
                    if (lo < 0xDC00 || lo > 0xDFFF)
                        return fail(P, TC_ERR_FORMAT, p, "lone surrogate \\u%04x (followed by \\u%04lx, not a low surrogate)",
                                    cp, lo);
                    cp = 0x10000 + ((cp - 0xD800) << 10) + ((uint32_t)lo - 0xDC00);
                    adv = 12;
                } else if (q >= len || (q + 1 >= len && s[q] == '\\')) {
                    return fail(P, TC_ERR_FORMAT, len, eof_string, qstart);
                } else {
                    return fail(P, TC_ERR_FORMAT, p, "lone surrogate \\u%04x (not followed by a low surrogate escape)", cp);
                }
            }
            t->len += (size_t)tc_utf8_encode(cp, t->p + t->len);
            p += adv;
            continue;
        }
        default:
            if (e > 0x20 && e < 0x7f) return fail(P, TC_ERR_FORMAT, p, "invalid escape \\%c", e);
            return fail(P, TC_ERR_FORMAT, p, "invalid escape: byte 0x%02x after backslash", e);
        }
        t->p[t->len++] = o;
        p += 2;
    }
    char *d = arena_alloc(P->doc, t->len + 1, 1);
    if (!d) return nomem(P);
    memcpy(d, t->p, t->len);
    d[t->len] = 0;
    *out = d;
    *out_len = (uint32_t)t->len;
    P->pos = p + 1;
    return 0;
}

static inline int is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

static int parse_number(parser *P, tc_json *v) {
    const unsigned char *s = P->s;
    const size_t len = P->len, start = P->pos;
    const char *eof_num = "unexpected end of input while reading a number";
    size_t p = start;
    int neg = 0, integral = 1;
    if (s[p] == '-') {
        neg = 1;
        p++;
        if (p >= len) return fail(P, TC_ERR_FORMAT, len, "%s", eof_num);
        if (!is_digit(s[p])) return fail(P, TC_ERR_FORMAT, p, "expected a digit after '-'");
    }
    size_t dstart = p;
    if (s[p] == '0') {
        p++;
        if (p < len && is_digit(s[p])) return fail(P, TC_ERR_FORMAT, dstart, "leading zero in number");
    } else {
        while (p < len && is_digit(s[p])) p++;
    }
    size_t dend = p;
    if (p < len && s[p] == '.') {
        integral = 0;
        p++;
        if (p >= len) return fail(P, TC_ERR_FORMAT, len, "%s", eof_num);
        if (!is_digit(s[p])) return fail(P, TC_ERR_FORMAT, p, "expected a digit after '.' in number");
        while (p < len && is_digit(s[p])) p++;
    }
    if (p < len && (s[p] == 'e' || s[p] == 'E')) {
        integral = 0;
        p++;
        if (p < len && (s[p] == '+' || s[p] == '-')) p++;
        if (p >= len) return fail(P, TC_ERR_FORMAT, len, "%s", eof_num);
        if (!is_digit(s[p])) return fail(P, TC_ERR_FORMAT, p, "expected a digit in the exponent of number");
        while (p < len && is_digit(s[p])) p++;
    }
    v->type = TC_JSON_NUMBER;
    v->offset = (uint32_t)start;
    if (integral && dend - dstart <= 19) {
        uint64_t u = 0;
        for (size_t k = dstart; k < dend; k++) u = u * 10 + (uint64_t)(s[k] - '0');
        uint64_t lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
        if (u <= lim) {
            int64_t i = neg ? (u == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)u) : (int64_t)u;
            v->u.num.is_int = 1;
            v->u.num.i = i;
            v->u.num.d = (neg && u == 0) ? -0.0 : (double)i;
            P->pos = p;
            return 0;
        }
    }
    /* general case: strtod on a NUL-terminated copy, '.' mapped to the
     * locale's decimal point so a program's setlocale cannot break it */
    size_t n = p - start;
    const char *dp = localeconv()->decimal_point;
    size_t dpl = (dp && *dp) ? strlen(dp) : 1;
    bytes *t = &P->tmp;
    t->len = 0;
    if (bytes_reserve(t, n + dpl + 1) != 0) return nomem(P);
    for (size_t k = start; k < p; k++) {
        if (s[k] == '.' && dp && *dp) { memcpy(t->p + t->len, dp, dpl); t->len += dpl; }
        else t->p[t->len++] = s[k];
    }
    t->p[t->len] = 0;
    char *endp = NULL;
    double d = strtod((const char *)t->p, &endp);
    if (endp != (char *)t->p + t->len) return fail(P, TC_ERR_FORMAT, start, "unparsable number");
    if (isinf(d)) return fail(P, TC_ERR_FORMAT, start, "number out of range (%.*s)", n > 40 ? 40 : (int)n, (const char *)s + start);
    v->u.num.is_int = 0;
    v->u.num.i = 0;
    v->u.num.d = d;
    P->pos = p;
    return 0;
}

/* ---- duplicate keys ---------------------------------------------------- */

static inline uint32_t key_hash(const char *k, size_t n) {
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) { h ^= (unsigned char)k[i]; h *= 16777619u; }
    h ^= h >> 16; /* murmur3 finalizer: spread into the low bits */
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    return h;
}

/* Sorts v[0..n) by the high 32 bits (stable LSD radix, 4 byte passes),
 * so entries end ordered by (hash, index). tmp has room for n. */
static void radix_sort_hi32(uint64_t *v, uint64_t *tmp, size_t n) {
    for (int shift = 32; shift < 64; shift += 8) {
        size_t cnt[256] = {0};
        for (size_t i = 0; i < n; i++) cnt[(v[i] >> shift) & 0xFF]++;
        if (cnt[(v[0] >> shift) & 0xFF] == n) continue; /* one bucket: nothing to do */
        size_t sum = 0;
        for (int b = 0; b < 256; b++) { size_t c = cnt[b]; cnt[b] = sum; sum += c; }
        for (size_t i = 0; i < n; i++) tmp[cnt[(v[i] >> shift) & 0xFF]++] = v[i];
        memcpy(v, tmp, n * sizeof *v);
    }
}

/* Orders members a, b (indices from base) by key bytes, then index. */
static int key_less(const tc_json_member *m, uint32_t a, uint32_t b) {
    uint32_t la = m[a].key_len, lb = m[b].key_len;
    int c = memcmp(m[a].key, m[b].key, la < lb ? la : lb);
    if (c != 0) return c < 0;
    if (la != lb) return la < lb;
    return a < b;
}

/* In-place heap sort of member indices g[0..n) by key_less (no recursion;
 * only used within a group of equal hashes, normally of size 2). */
static void heap_sort_idx(const tc_json_member *m, uint32_t *g, size_t n) {
    for (size_t end = n; end > 1; end--) {
        if (end == n) { /* heapify */
            for (size_t st = n / 2; st-- > 0;) {
                size_t r = st;
                for (;;) {
                    size_t c = 2 * r + 1;
                    if (c >= n) break;
                    if (c + 1 < n && key_less(m, g[c], g[c + 1])) c++;
                    if (!key_less(m, g[r], g[c])) break;
                    uint32_t t = g[r]; g[r] = g[c]; g[c] = t;
                    r = c;
                }
            }
        }
        uint32_t t = g[0]; g[0] = g[end - 1]; g[end - 1] = t;
        size_t r = 0, lim = end - 1;
        for (;;) {
            size_t c = 2 * r + 1;
            if (c >= lim) break;
            if (c + 1 < lim && key_less(m, g[c], g[c + 1])) c++;
            if (!key_less(m, g[r], g[c])) break;
            uint32_t t2 = g[r]; g[r] = g[c]; g[c] = t2;
            r = c;
        }
    }
}

/* Finds, among the hashed keys of frame f, the first (lowest index) key
 * that repeats an earlier one. Returns its member index, -1 if none, -2 on
 * allocation failure. Sorts f->hk in place. */
static long find_dup(parser *P, frame *f) {
    size_t n = f->hk_n;
    if (n < 2) return -1;
    if (n > P->sortcap) {
        uint64_t *nb = TC_JSON_REALLOC(P->sortbuf, n * sizeof(uint64_t));
        if (!nb) return -2;
        P->sortbuf = nb;
        P->sortcap = n;
    }
    uint64_t *v = f->hk;
    radix_sort_hi32(v, P->sortbuf, n);
    const tc_json_member *m = P->scratch + f->base;
    long best = -1;
    for (size_t i = 0; i + 1 < n;) {
        size_t j = i + 1;
        while (j < n && (v[j] >> 32) == (v[i] >> 32)) j++;
        if (j - i == 2) { /* the common collision case */
            uint32_t a = (uint32_t)v[i], b = (uint32_t)v[i + 1]; /* a < b */
            if (m[a].key_len == m[b].key_len && memcmp(m[a].key, m[b].key, m[a].key_len) == 0 &&
                (best < 0 || (long)b < best))
                best = (long)b;
        } else if (j - i > 2) {
            /* reuse the low halves of the tmp buffer for the index group */
            uint32_t *g = (uint32_t *)P->sortbuf;
            size_t gn = j - i;
            for (size_t k = 0; k < gn; k++) g[k] = (uint32_t)v[i + k];
            heap_sort_idx(m, g, gn);
            for (size_t k = 1; k < gn; k++) {
                uint32_t a = g[k - 1], b = g[k];
                int same = m[a].key_len == m[b].key_len && memcmp(m[a].key, m[b].key, m[a].key_len) == 0;
                /* in a run of equal keys (sorted by index) the 2nd is the duplicate */
                int run_start = k < 2 || !(m[g[k - 2]].key_len == m[a].key_len &&
                                           memcmp(m[g[k - 2]].key, m[a].key, m[a].key_len) == 0);
                if (same && run_start && (best < 0 || (long)b < best)) best = (long)b;
            }
        }
        i = j;
    }
    return best;
}

/* Appends (hash, index) to the frame's key list. 0 or -1 (no memory). */
static int hk_push(frame *f, uint32_t h, size_t idx) {
    if (f->hk_n == f->hk_cap) {
        size_t nc = f->hk_cap ? f->hk_cap * 2 : 64;
        uint64_t *nh = TC_JSON_REALLOC(f->hk, nc * sizeof(uint64_t));
        if (!nh) return -1;
        f->hk = nh;
        f->hk_cap = nc;
    }
    f->hk[f->hk_n++] = ((uint64_t)h << 32) | (uint32_t)idx;
    return 0;
}

/* Checks/records the key about to become member n = sn - base of object
 * f. Returns 0, 1 if it duplicates an earlier key (small objects only; big
 * ones are checked by find_dup), -1 on allocation failure. */
static int check_dup(parser *P, frame *f, const char *key, uint32_t klen) {
    size_t n = P->sn - f->base;
    if (n == 0) return 0;   /* first member: scratch may still be NULL (no NULL + 0) */
    if (n < DUP_LINEAR) {
        const tc_json_member *m = P->scratch + f->base;
        for (size_t k = 0; k < n; k++)
            if (m[k].key_len == klen && memcmp(m[k].key, key, klen) == 0) return 1;
        return 0;
    }
    if (!f->hashed) {
        f->hk_n = 0;
        for (size_t k = 0; k < n; k++) {
            const tc_json_member *m = &P->scratch[f->base + k];
            if (hk_push(f, key_hash(m->key, m->key_len), k) != 0) return -1;
        }
        f->hashed = 1;
    }
    return hk_push(f, key_hash(key, klen), n);
}

/* Reports a duplicate key of frame index fi at member idx (path: the
 * object itself). */
static int fail_dup(parser *P, size_t fi, size_t idx) {
    frame *f = &P->frames[fi];
    const tc_json_member *m = &P->scratch[f->base + idx];
    char q[8 * KEY_SHOW_MAX + 8];
    quote_key(m->key, m->key_len, q, sizeof q);
    size_t depth = P->depth;
    int inv = f->in_value;
    P->depth = fi + 1; /* path of the object, not of a child */
    f->in_value = 0;
    fail(P, TC_ERR_FORMAT, P->koff[f->base + idx], "duplicate key %s", q);
    P->depth = depth;
    f->in_value = inv;
    return -1;
}

/* After a format error: a duplicate key in a still-open big object that
 * comes before the reported error wins (document order). */
static void earlier_dups(parser *P) {
    size_t best_off = P->err_off, best_f = 0, best_i = 0;
    int found = 0;
    for (size_t fi = 0; fi < P->depth; fi++) {
        frame *f = &P->frames[fi];
        if (f->type != F_OBJ || !f->hashed) continue;
        long d = find_dup(P, f);
        if (d < 0) continue;
        size_t off = P->koff[f->base + (size_t)d];
        if (off < best_off) { best_off = off; best_f = fi; best_i = (size_t)d; found = 1; }
    }
    if (found) fail_dup(P, best_f, best_i);
}

/* ---- main loop --------------------------------------------------------- */

static int scratch_push(parser *P) {
    if (P->sn == P->scap) {
        size_t nc = P->scap ? P->scap * 2 : 256;
        if (nc > SIZE_MAX / sizeof(tc_json_member)) return -1;
        if (nc > (SIZE_MAX - sizeof(chunk)) / sizeof(tc_json_member)) return -1;
        chunk *nb = TC_JSON_REALLOC(P->sblock, sizeof(chunk) + nc * sizeof(tc_json_member));
        if (!nb) return -1;
        P->sblock = nb;
        P->scratch = (tc_json_member *)(nb + 1);
        uint32_t *nk = TC_JSON_REALLOC(P->koff, nc * sizeof(uint32_t));
        if (!nk) return -1; /* scratch is bigger than scap: harmless */
        P->koff = nk;
        P->scap = nc;
    }
    P->sn++;
    return 0;
}

/* Big containers are not copied out of the scratch block: the block (with
 * the container's children at [base, base+n)) joins the doc's chunk list
 * and the parser continues in a new block holding only the ancestors'
 * slots. Saves copying and touching fresh memory for vocab/merges. */
#define DONATE_MIN 4096 /* members */

static int donate_scratch(parser *P, size_t base) {
    size_t cap = 256;
    while (cap < base + 1) cap *= 2;
    chunk *nb = TC_JSON_MALLOC(sizeof(chunk) + cap * sizeof(tc_json_member));
    if (!nb) return -1;
    memcpy(nb + 1, P->scratch, base * sizeof(tc_json_member));
    chunk *old = P->sblock;
    old->cap = 0;
    old->next = P->doc->chunks;
    P->doc->chunks = old;
    P->sblock = nb;
    P->scratch = (tc_json_member *)(nb + 1);
    P->scap = cap;
    return 0;
}

static int bad_value_start(parser *P, size_t p) {
    unsigned char c = P->s[p];
    switch (c) {
    case '/': return fail(P, TC_ERR_FORMAT, p, "comments are not allowed in JSON");
    case '\'': return fail(P, TC_ERR_FORMAT, p, "single-quoted strings are not allowed in JSON");
    case 'N': case 'I': return fail(P, TC_ERR_FORMAT, p, "NaN and Infinity are not allowed in JSON");
    case '+': return fail(P, TC_ERR_FORMAT, p, "a number must not start with '+'");
    case '.': return fail(P, TC_ERR_FORMAT, p, "a number must start with a digit ('.5' is not JSON)");
    default: break;
    }
    if (p == 0 && c == 0xEF && P->len >= 3 && P->s[1] == 0xBB && P->s[2] == 0xBF)
        return fail(P, TC_ERR_FORMAT, p, "byte order mark (BOM) at start of input is not allowed");
    if (c > 0x20 && c < 0x7f) return fail(P, TC_ERR_FORMAT, p, "unexpected character '%c', expected a value", c);
    return fail(P, TC_ERR_FORMAT, p, "unexpected byte 0x%02x, expected a value", c);
}

static int parse_literal(parser *P, tc_json *v) {
    static const char *const words[3] = {"true", "false", "null"};
    static const tc_json_type types[3] = {TC_JSON_TRUE, TC_JSON_FALSE, TC_JSON_NULL};
    const unsigned char *s = P->s;
    size_t p = P->pos;
    int w = s[p] == 't' ? 0 : s[p] == 'f' ? 1 : 2;
    size_t wl = strlen(words[w]);
    for (size_t k = 1; k < wl; k++) {
        if (p + k >= P->len) return fail(P, TC_ERR_FORMAT, P->len, "unexpected end of input while reading '%s'", words[w]);
        if (s[p + k] != (unsigned char)words[w][k])
            return fail(P, TC_ERR_FORMAT, p, "invalid literal (expected '%s')", words[w]);
    }
    v->type = types[w];
    v->offset = (uint32_t)p;
    P->pos = p + wl;
    return 0;
}

static int run(parser *P) {
    const unsigned char *s = P->s;
    const size_t len = P->len;
    tc_json val;
    size_t p = skip_ws(s, 0, len);
    if (p >= len) return fail(P, TC_ERR_FORMAT, p, len ? "empty input (only whitespace)" : "empty input");

value:
    p = skip_ws(s, p, len);
    if (p >= len) return fail(P, TC_ERR_FORMAT, len, "unexpected end of input, expected a value");
    switch (s[p]) {
    case '{':
    case '[': {
        int is_obj = s[p] == '{';
        for (size_t k = 0; k < P->nskip; k++) {
            const tc_json_span *sp = &P->skip[k];
            if (sp->start != p) continue;
            if (sp->end <= p + 1 || sp->end > len || s[sp->end - 1] != (is_obj ? '}' : ']'))
                return fail(P, TC_ERR_FORMAT, p, "the value to skip here does not end with its bracket at byte %u", sp->end);
            memset(&val, 0, sizeof val);
            val.offset = (uint32_t)p;
            val.type = is_obj ? TC_JSON_OBJECT : TC_JSON_ARRAY;
            if (is_obj) val.u.obj.end = sp->end;
            else val.u.arr.end = sp->end;
            p = sp->end;
            goto have_value;
        }
        if (P->depth >= TC_JSON_MAX_DEPTH)
            return fail(P, TC_ERR_LIMIT, p, "nesting deeper than %d", TC_JSON_MAX_DEPTH);
        frame *f = &P->frames[P->depth++];
        f->type = is_obj ? F_OBJ : F_ARR;
        f->in_value = 0;
        f->offset = (uint32_t)p;
        f->base = P->sn;
        f->hashed = 0;
        p = skip_ws(s, p + 1, len);
        if (p >= len)
            return fail(P, TC_ERR_FORMAT, len, "unexpected end of input while reading an %s", is_obj ? "object" : "array");
        if (s[p] == (is_obj ? '}' : ']')) {
            p++;
            goto close;
        }
        if (is_obj) {
            if (s[p] == '"') goto key;
            return fail(P, TC_ERR_FORMAT, p, "expected a string key or '}'");
        }
        f->in_value = 1;
        goto value;
    }
    case '"':
        val.type = TC_JSON_STRING;
        val.offset = (uint32_t)p;
        P->pos = p;
        if (parse_string(P, &val.u.str.s, &val.u.str.len) != 0) return -1;
        p = P->pos;
        goto have_value;
    case '-': case '0': case '1': case '2': case '3': case '4':
    case '5': case '6': case '7': case '8': case '9':
        P->pos = p;
        if (parse_number(P, &val) != 0) return -1;
        p = P->pos;
        goto have_value;
    case 't': case 'f': case 'n':
        P->pos = p;
        if (parse_literal(P, &val) != 0) return -1;
        p = P->pos;
        goto have_value;
    default:
        return bad_value_start(P, p);
    }

key: { /* s[p] == '"', top frame is an object, not in a value */
    frame *f = &P->frames[P->depth - 1];
    const char *k;
    uint32_t kl;
    size_t kpos = p;
    P->pos = p;
    if (parse_string(P, &k, &kl) != 0) return -1;
    p = P->pos;
    int d = check_dup(P, f, k, kl);
    if (d < 0) { P->pos = kpos; return nomem(P); }
    if (d > 0) {
        char q[8 * KEY_SHOW_MAX + 8];
        quote_key(k, kl, q, sizeof q);
        return fail(P, TC_ERR_FORMAT, kpos, "duplicate key %s", q);
    }
    if (scratch_push(P) != 0) { P->pos = p; return nomem(P); }
    tc_json_member *m = &P->scratch[P->sn - 1];
    m->key = k;
    m->key_len = kl;
    P->koff[P->sn - 1] = (uint32_t)kpos;
    p = skip_ws(s, p, len);
    if (p >= len) return fail(P, TC_ERR_FORMAT, len, "unexpected end of input while reading an object");
    if (s[p] != ':') return fail(P, TC_ERR_FORMAT, p, "expected ':' after object key");
    f->in_value = 1;
    p++;
    goto value;
}

have_value:
    if (P->depth == 0) {
        P->doc->root = val;
        p = skip_ws(s, p, len);
        if (p < len) return fail(P, TC_ERR_FORMAT, p, "trailing data after the document");
        return 0;
    }
    {
        frame *f = &P->frames[P->depth - 1];
        f->in_value = 0;
        if (f->type == F_ARR) {
            if (scratch_push(P) != 0) { P->pos = p; return nomem(P); }
        }
        P->scratch[P->sn - 1].value = val;
        p = skip_ws(s, p, len);
        int is_obj = f->type == F_OBJ;
        if (p >= len)
            return fail(P, TC_ERR_FORMAT, len, "unexpected end of input while reading an %s", is_obj ? "object" : "array");
        unsigned char c = s[p];
        if (c == ',') {
            size_t comma = p;
            p = skip_ws(s, p + 1, len);
            if (p >= len)
                return fail(P, TC_ERR_FORMAT, len, "unexpected end of input while reading an %s", is_obj ? "object" : "array");
            if (s[p] == (is_obj ? '}' : ']')) return fail(P, TC_ERR_FORMAT, comma, "trailing comma");
            if (is_obj) {
                if (s[p] == '"') goto key;
                return fail(P, TC_ERR_FORMAT, p, "expected a string key after ','");
            }
            f->in_value = 1;
            goto value;
        }
        if (c == (is_obj ? '}' : ']')) {
            p++;
            goto close;
        }
        return fail(P, TC_ERR_FORMAT, p, is_obj ? "expected ',' or '}'" : "expected ',' or ']'");
    }

close: { /* top frame complete; p is after its closing bracket */
    frame *f = &P->frames[P->depth - 1];
    size_t n = P->sn - f->base;
    val.offset = f->offset;
    if (f->type == F_OBJ) {
        if (f->hashed) {
            long dup = find_dup(P, f);
            f->hashed = 0;
            if (dup == -2) { P->pos = p; return nomem(P); }
            if (dup >= 0) { f->hashed = 1; return fail_dup(P, P->depth - 1, (size_t)dup); }
        }
        tc_json_member *m = NULL;
        if (n >= DONATE_MIN && f->base <= n / 4) {
            m = P->scratch + f->base;
            if (donate_scratch(P, f->base) != 0) { P->pos = p; return nomem(P); }
        } else if (n) {
            m = arena_alloc(P->doc, n * sizeof *m, _Alignof(tc_json_member));
            if (!m) { P->pos = p; return nomem(P); }
            memcpy(m, P->scratch + f->base, n * sizeof *m);
        }
        val.type = TC_JSON_OBJECT;
        val.u.obj.members = m;
        val.u.obj.n = (uint32_t)n;
        val.u.obj.end = (uint32_t)p;
    } else {
        tc_json *it = NULL;
        if (n >= DONATE_MIN && f->base <= n / 4) {
            /* compact in place: item k moves down from slot base+k */
            tc_json_member *src = P->scratch + f->base;
            it = (tc_json *)(void *)src;
            for (size_t k = 0; k < n; k++) memmove(&it[k], &src[k].value, sizeof(tc_json));
            if (donate_scratch(P, f->base) != 0) { P->pos = p; return nomem(P); }
        } else if (n) {
            it = arena_alloc(P->doc, n * sizeof *it, _Alignof(tc_json));
            if (!it) { P->pos = p; return nomem(P); }
            const tc_json_member *src = P->scratch + f->base;
            for (size_t k = 0; k < n; k++) it[k] = src[k].value;
        }
        val.type = TC_JSON_ARRAY;
        val.u.arr.items = it;
        val.u.arr.n = (uint32_t)n;
        val.u.arr.end = (uint32_t)p;
    }
    P->sn = f->base;
    P->depth--;
    goto have_value;
}
}

void tc_json_free(tc_json_doc *doc) {
    if (!doc) return;
    chunk *c = doc->chunks;
    while (c) {
        chunk *nx = c->next;
        TC_JSON_FREE(c);
        c = nx;
    }
    TC_JSON_FREE(doc);
}

tc_json_doc *tc_json_parse(const char *src, size_t len, tc_error *err) {
    return tc_json_parse_skipping(src, len, NULL, 0, err);
}

tc_json_doc *tc_json_parse_skipping(const char *src, size_t len, const tc_json_span *skip, size_t nskip,
                                    tc_error *err) {
    if (err) { err->code = TC_OK; err->msg[0] = 0; }
    if (!src && len) { tc_error_set(err, TC_ERR_ARG, "JSON: NULL input"); return NULL; }
    if (len > UINT32_MAX) {
        tc_error_set(err, TC_ERR_LIMIT, "JSON: input of %zu bytes is larger than the 4 GiB limit", len);
        return NULL;
    }
    parser P;
    memset(&P, 0, sizeof P);
    P.s = (const unsigned char *)(src ? src : "");
    P.len = len;
    P.err = err;
    P.skip = skip;
    P.nskip = skip ? nskip : 0;
    tc_json_doc *doc = TC_JSON_MALLOC(sizeof *doc);
    if (!doc) { nomem(&P); return NULL; }
    memset(doc, 0, sizeof *doc);
    /* the tree is usually ~2x the text; start near that, then double */
    size_t read_len = len;   /* the bytes that will be read: skipped spans are not */
    for (size_t k = 0; k < P.nskip; k++)
        if (skip[k].start < skip[k].end && skip[k].end - skip[k].start <= read_len) read_len -= skip[k].end - skip[k].start;
    doc->next_size = read_len < 2048 ? 4096 : read_len + read_len / 2;
    P.doc = doc;
    int rc;
    P.frames = TC_JSON_MALLOC(TC_JSON_MAX_DEPTH * sizeof(frame));
    if (!P.frames) rc = nomem(&P);
    else {
        memset(P.frames, 0, TC_JSON_MAX_DEPTH * sizeof(frame));
        rc = run(&P);
        if (rc != 0 && err && err->code != TC_ERR_NOMEM) earlier_dups(&P);
    }
    if (P.frames)
        for (size_t i = 0; i < TC_JSON_MAX_DEPTH; i++) TC_JSON_FREE(P.frames[i].hk);
    TC_JSON_FREE(P.frames);
    TC_JSON_FREE(P.sblock);
    TC_JSON_FREE(P.koff);
    TC_JSON_FREE(P.sortbuf);
    TC_JSON_FREE(P.tmp.p);
    if (rc != 0) {
        tc_json_free(doc);
        return NULL;
    }
    return doc;
}

const tc_json *tc_json_root(const tc_json_doc *doc) { return doc ? &doc->root : NULL; }

const tc_json *tc_json_get(const tc_json *obj, const char *key) {
    if (!obj || obj->type != TC_JSON_OBJECT || !key) return NULL;
    size_t kl = strlen(key);
    const tc_json_member *m = obj->u.obj.members;
    for (uint32_t i = 0; i < obj->u.obj.n; i++)
        if (m[i].key_len == kl && memcmp(m[i].key, key, kl) == 0) return &m[i].value;
    return NULL;
}

/* ---- path of a value --------------------------------------------------- */

int tc_json_path(const tc_json_doc *doc, const tc_json *v, char *out, size_t cap) {
    if (!out || cap == 0) return -1;
    size_t o = 0;
    int found = 0;
#define PUT(str, n)                                                   \
    do {                                                              \
        size_t n_ = (n);                                              \
        if (o + n_ >= cap) n_ = cap - 1 - o;                          \
        memcpy(out + o, (str), n_);                                   \
        o += n_;                                                      \
    } while (0)
    PUT("$", 1);
    const tc_json *cur = doc && v ? &doc->root : NULL;
    char comp[8 * KEY_SHOW_MAX + 16];
    while (cur) {
        if (cur == v) { found = 1; break; }
        uint32_t n;
        if (cur->type == TC_JSON_ARRAY) n = cur->u.arr.n;
        else if (cur->type == TC_JSON_OBJECT) n = cur->u.obj.n;
        else break;
        /* last child whose offset <= v->offset (children are in file order) */
        uint32_t lo = 0, hi = n; /* answer in [lo, hi) as first child with offset > target, minus 1 */
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            uint32_t off = cur->type == TC_JSON_ARRAY ? cur->u.arr.items[mid].offset
                                                      : cur->u.obj.members[mid].value.offset;
            if (off <= v->offset) lo = mid + 1;
            else hi = mid;
        }
        if (lo == 0) break;
        uint32_t i = lo - 1;
        size_t cn;
        if (cur->type == TC_JSON_ARRAY) {
            cn = path_comp(comp, sizeof comp, NULL, 0, 0, i);
            cur = &cur->u.arr.items[i];
        } else {
            const tc_json_member *m = &cur->u.obj.members[i];
            cn = path_comp(comp, sizeof comp, m->key, m->key_len, 1, 0);
            cur = &m->value;
        }
        PUT(comp, cn);
    }
#undef PUT
    out[o] = 0;
    return found ? 0 : -1;
}
