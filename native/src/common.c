/* common.c - error formatting and growable buffers (see common.h). */
#include "common.h"

#include <stdio.h>

int tc_error_set(tc_error *e, int code, const char *fmt, ...) {
    if (!e) return code;
    e->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return code;
}

void tc_error_prefix(tc_error *e, const char *prefix) {
    if (!e) return;
    char tmp[TC_ERRMSG_MAX];
    size_t pl = strlen(prefix), ml = strlen(e->msg);
    if (pl > sizeof tmp - 1) pl = sizeof tmp - 1;
    if (pl + ml > sizeof tmp - 1) ml = sizeof tmp - 1 - pl;
    memcpy(tmp, prefix, pl);
    memcpy(tmp + pl, e->msg, ml);
    tmp[pl + ml] = 0;
    memcpy(e->msg, tmp, pl + ml + 1);
}

int tc_grow(void **arr, size_t *cap, size_t need, size_t item_size) {
    if (need <= *cap) return 0;
    size_t ncap = *cap ? *cap : 16;
    while (ncap < need) {
        if (ncap > (SIZE_MAX / 2) / item_size) return -1;
        ncap *= 2;
    }
    void *p = realloc(*arr, ncap * item_size);
    if (!p) return -1;
    *arr = p;
    *cap = ncap;
    return 0;
}

int tc_buf_reserve(tc_buf *b, size_t extra) {
    if (extra > SIZE_MAX - b->len) return -1;
    void *d = b->data;
    int r = tc_grow(&d, &b->cap, b->len + extra, 1);
    b->data = d;
    return r;
}

int tc_buf_append(tc_buf *b, const void *p, size_t n) {
    if (n == 0) return 0;
    if (tc_buf_reserve(b, n) != 0) return -1;
    memcpy(b->data + b->len, p, n);
    b->len += n;
    return 0;
}

void tc_buf_free(tc_buf *b) {
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}
