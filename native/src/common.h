/* common.h - shared basics of the tokcore engine: errors, growable buffers,
 * checked allocation, strict UTF-8 decoding.
 *
 * Does: small inline helpers every engine file uses.
 * Does not: own any global state (there is none anywhere in the engine).
 */
#ifndef TC_COMMON_H
#define TC_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- errors ------------------------------------------------------------ */

enum {
    TC_OK = 0,
    TC_ERR_NOMEM = 1,     /* an allocation failed */
    TC_ERR_IO = 2,        /* file could not be read */
    TC_ERR_FORMAT = 3,    /* malformed input file (offset/path say where) */
    TC_ERR_UNSUPPORTED = 4, /* valid file using something the engine refuses */
    TC_ERR_LIMIT = 5,     /* an explicit limit was exceeded */
    TC_ERR_ARG = 6        /* bad argument from the caller */
};

#define TC_ERRMSG_MAX 600

typedef struct tc_error {
    int code;                 /* TC_OK when no error */
    char msg[TC_ERRMSG_MAX];  /* human readable, names offset/path and reason */
} tc_error;

/* Sets code and a printf-style message (truncated to fit). Returns code. */
/* printf-style format checking (mingw's "printf" checks msvcrt's formats, which lack %zu: gnu_printf there) */
#if defined(__MINGW32__)
#define TC_PRINTF(fmt, args) __attribute__((format(gnu_printf, fmt, args)))
#elif defined(__GNUC__)
#define TC_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define TC_PRINTF(fmt, args)
#endif

int tc_error_set(tc_error *e, int code, const char *fmt, ...) TC_PRINTF(3, 4);

/* Prepends prefix to e->msg (truncating the end if needed). */
void tc_error_prefix(tc_error *e, const char *prefix);

/* ---- growable byte buffer ---------------------------------------------- */

typedef struct tc_buf {
    uint8_t *data;
    size_t len;
    size_t cap;
} tc_buf;

/* Ensure room for `extra` more bytes. Returns 0, or -1 on allocation failure. */
int tc_buf_reserve(tc_buf *b, size_t extra);
int tc_buf_append(tc_buf *b, const void *p, size_t n);
static inline int tc_buf_push(tc_buf *b, uint8_t c) {
    if (b->len == b->cap && tc_buf_reserve(b, 1) != 0) return -1;
    b->data[b->len++] = c;
    return 0;
}
void tc_buf_free(tc_buf *b);

/* Generic growable array of fixed-size items: ensure capacity for `need`
 * items. *arr and *cap are updated. Returns 0 or -1 (allocation failure,
 * *arr untouched). */
int tc_grow(void **arr, size_t *cap, size_t need, size_t item_size);

/* ---- UTF-8 ------------------------------------------------------------- */

/* An invalid byte is decoded as one unit whose code point is
 * TC_CP_INVALID_BASE + byte. Such code points are outside Unicode, have
 * general category Cn in every lookup, and are never whitespace. */
#define TC_CP_INVALID_BASE 0x110000u

/* Strict decoder (no overlongs, no surrogates, <= U+10FFFF). Decodes the
 * unit at s[i] (i < len), stores its length in bytes in *n (1..4). */
static inline uint32_t tc_utf8_decode(const uint8_t *s, size_t len, size_t i, int *n) {
    uint8_t c = s[i];
    if (c < 0x80) { *n = 1; return c; }
    if (c >= 0xC2 && c <= 0xDF) {
        if (i + 1 < len && (s[i + 1] & 0xC0) == 0x80) {
            *n = 2;
            return ((uint32_t)(c & 0x1F) << 6) | (s[i + 1] & 0x3F);
        }
    } else if (c >= 0xE0 && c <= 0xEF) {
        if (i + 2 < len && (s[i + 1] & 0xC0) == 0x80 && (s[i + 2] & 0xC0) == 0x80) {
            uint32_t cp = ((uint32_t)(c & 0x0F) << 12) | ((uint32_t)(s[i + 1] & 0x3F) << 6) | (s[i + 2] & 0x3F);
            if (cp >= 0x800 && (cp < 0xD800 || cp > 0xDFFF)) { *n = 3; return cp; }
        }
    } else if (c >= 0xF0 && c <= 0xF4) {
        if (i + 3 < len && (s[i + 1] & 0xC0) == 0x80 && (s[i + 2] & 0xC0) == 0x80 && (s[i + 3] & 0xC0) == 0x80) {
            uint32_t cp = ((uint32_t)(c & 0x07) << 18) | ((uint32_t)(s[i + 1] & 0x3F) << 12) |
                          ((uint32_t)(s[i + 2] & 0x3F) << 6) | (s[i + 3] & 0x3F);
            if (cp >= 0x10000 && cp <= 0x10FFFF) { *n = 4; return cp; }
        }
    }
    *n = 1;
    return TC_CP_INVALID_BASE + c;
}

/* Encodes cp (<= 0x10FFFF) into out (4 bytes room). Returns the length. */
static inline int tc_utf8_encode(uint32_t cp, uint8_t *out) {
    if (cp < 0x80) { out[0] = (uint8_t)cp; return 1; }
    if (cp < 0x800) { out[0] = (uint8_t)(0xC0 | (cp >> 6)); out[1] = (uint8_t)(0x80 | (cp & 0x3F)); return 2; }
    if (cp < 0x10000) {
        out[0] = (uint8_t)(0xE0 | (cp >> 12)); out[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (uint8_t)(0x80 | (cp & 0x3F)); return 3;
    }
    out[0] = (uint8_t)(0xF0 | (cp >> 18)); out[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F)); out[3] = (uint8_t)(0x80 | (cp & 0x3F)); return 4;
}

/* ---- spans ------------------------------------------------------------- */

/* A half-open byte range [start, end) into the ORIGINAL input text. */
typedef struct tc_span {
    uint32_t start, end;
} tc_span;

#endif
