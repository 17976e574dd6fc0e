/* logits.c - logits file formats (see logits.h). */
#include "logits.h"

#include "platform.h"

#include <float.h>
#include <math.h>
#include <stdio.h>

static const char *const FORMAT_NAMES[] = {"auto", "npy", "f32", "f16", "bf16", "text"};
static const char *const DTYPE_NAMES[] = {"float32", "float16", "bfloat16", "float64"};

int tc_logits_format_from_name(const char *name, tc_logits_format *out) {
    for (int i = 0; i < 6; i++)
        if (strcmp(FORMAT_NAMES[i], name) == 0) { *out = (tc_logits_format)i; return 0; }
    if (strcmp(name, "float32") == 0) { *out = TC_LOGITS_F32; return 0; }
    if (strcmp(name, "float16") == 0) { *out = TC_LOGITS_F16; return 0; }
    if (strcmp(name, "bfloat16") == 0) { *out = TC_LOGITS_BF16; return 0; }
    if (strcmp(name, "txt") == 0) { *out = TC_LOGITS_TEXT; return 0; }
    return -1;
}

const char *tc_logits_format_name(tc_logits_format f) { return (unsigned)f < 6 ? FORMAT_NAMES[f] : "?"; }
const char *tc_logits_dtype_name(tc_logits_dtype d) { return (unsigned)d < 4 ? DTYPE_NAMES[d] : "?"; }

size_t tc_logits_dtype_size(tc_logits_dtype d) {
    switch (d) {
    case TC_DT_F32: return 4;
    case TC_DT_F64: return 8;
    default: return 2;
    }
}

float tc_f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 0x1f, m = h & 0x3ffu, bits;
    if (e == 0x1f) bits = sign | 0x7f800000u | (m << 13);          /* inf / nan */
    else if (e != 0) bits = sign | ((e + 112) << 23) | (m << 13);  /* normal: bias 15 -> 127 */
    else if (m == 0) bits = sign;                                  /* zero */
    else {                                                         /* subnormal: normalize */
        int shift = 0;
        while (!(m & 0x400u)) { m <<= 1; shift++; }
        m &= 0x3ffu;
        bits = sign | ((uint32_t)(113 - shift) << 23) | (m << 13);
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

float tc_bf16_to_f32(uint16_t h) {
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

void tc_logits_free(tc_logits *l) {
    free(l->text_values);
    memset(l, 0, sizeof *l);
}

/* ---- npy --------------------------------------------------------------------- */

static const char *skip_ws(const char *p, const char *end) {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
    return p;
}

/* Finds 'key' (quoted with ' or ") in the header dict; returns a pointer
 * after its ':' or NULL. */
static const char *npy_key(const char *h, const char *end, const char *key) {
    size_t kl = strlen(key);
    for (const char *p = h; p + kl + 2 <= end; p++) {
        if ((*p == '\'' || *p == '"') && (size_t)(end - p) > kl + 1 && memcmp(p + 1, key, kl) == 0 && p[kl + 1] == *p) {
            const char *q = skip_ws(p + kl + 2, end);
            if (q < end && *q == ':') return skip_ws(q + 1, end);
        }
    }
    return NULL;
}

/* buf[0..avail) holds the start of a file of len bytes (avail <= len): the
 * header must lie in it; the values are not read. */
static int parse_npy(const uint8_t *buf, size_t avail, size_t len, uint32_t vocab, tc_logits *out, tc_error *err) {
    if (avail < 10 || memcmp(buf, "\x93NUMPY", 6) != 0)
        return tc_error_set(err, TC_ERR_FORMAT, "npy: offset 0: missing the \\x93NUMPY magic");
    unsigned major = buf[6];
    size_t hlen, hstart;
    if (major == 1) { hlen = (size_t)buf[8] | ((size_t)buf[9] << 8); hstart = 10; }
    else if (major == 2 || major == 3) {
        if (avail < 12) return tc_error_set(err, TC_ERR_FORMAT, "npy: offset 8: header length cut off");
        hlen = (size_t)buf[8] | ((size_t)buf[9] << 8) | ((size_t)buf[10] << 16) | ((size_t)buf[11] << 24);
        hstart = 12;
    } else return tc_error_set(err, TC_ERR_UNSUPPORTED, "npy: offset 6: format version %u is not 1, 2 or 3", major);
    if (hlen > len - hstart)
        return tc_error_set(err, TC_ERR_FORMAT, "npy: offset %zu: header of %zu bytes runs past the end (%zu bytes)", hstart,
                            hlen, len);
    if (hlen > avail - hstart)
        return tc_error_set(err, TC_ERR_LIMIT, "npy: offset %zu: header of %zu bytes, more than the %zu read for it", hstart,
                            hlen, avail - hstart);
    const char *h = (const char *)buf + hstart, *end = h + hlen;
    const char *d = npy_key(h, end, "descr");
    if (!d || d >= end || (*d != '\'' && *d != '"'))
        return tc_error_set(err, TC_ERR_FORMAT, "npy: offset %zu: header has no 'descr' string", hstart);
    char q = *d++;
    const char *de = d;
    while (de < end && *de != q) de++;
    if (de >= end) return tc_error_set(err, TC_ERR_FORMAT, "npy: offset %zu: unterminated 'descr'", (size_t)(d - (const char *)buf));
    size_t dl = (size_t)(de - d);
    char descr[16] = {0};
    memcpy(descr, d, dl < sizeof descr - 1 ? dl : sizeof descr - 1);
    if (strcmp(descr, "<f4") == 0) out->dtype = TC_DT_F32;
    else if (strcmp(descr, "<f2") == 0) out->dtype = TC_DT_F16;
    else if (strcmp(descr, "<f8") == 0) out->dtype = TC_DT_F64;
    else if (descr[0] == '>' && descr[1] == 'f')
        return tc_error_set(err, TC_ERR_UNSUPPORTED, "npy: dtype '%s' is big-endian; save it little-endian (astype('<f4'))", descr);
    else
        return tc_error_set(err, TC_ERR_UNSUPPORTED, "npy: dtype '%s' is not a float type (<f2, <f4, <f8)", descr);
    const char *fo = npy_key(h, end, "fortran_order");
    if (!fo) return tc_error_set(err, TC_ERR_FORMAT, "npy: offset %zu: header has no 'fortran_order'", hstart);
    if ((size_t)(end - fo) >= 4 && memcmp(fo, "True", 4) == 0)
        return tc_error_set(err, TC_ERR_UNSUPPORTED, "npy: fortran_order is True; save a C-order array");
    if ((size_t)(end - fo) < 5 || memcmp(fo, "False", 5) != 0)
        return tc_error_set(err, TC_ERR_FORMAT, "npy: offset %zu: fortran_order is neither True nor False",
                            (size_t)(fo - (const char *)buf));
    const char *s = npy_key(h, end, "shape");
    if (!s || s >= end || *s != '(') return tc_error_set(err, TC_ERR_FORMAT, "npy: offset %zu: header has no 'shape' tuple", hstart);
    s++;
    uint64_t dims[3];
    int nd = 0;
    for (;;) {
        s = skip_ws(s, end);
        if (s < end && *s == ')') break;
        if (s >= end || *s < '0' || *s > '9')
            return tc_error_set(err, TC_ERR_FORMAT, "npy: offset %zu: bad 'shape'", (size_t)(s - (const char *)buf));
        uint64_t v = 0;
        while (s < end && *s >= '0' && *s <= '9') {
            if (v > (UINT64_MAX - 9) / 10) return tc_error_set(err, TC_ERR_FORMAT, "npy: shape dimension too large");
            v = v * 10 + (uint64_t)(*s++ - '0');
        }
        if (s < end && *s == 'L') s++;
        if (nd == 3) return tc_error_set(err, TC_ERR_UNSUPPORTED, "npy: more than 2 dimensions (need [vocab] or [steps, vocab])");
        dims[nd++] = v;
        s = skip_ws(s, end);
        if (s < end && *s == ',') s++;
    }
    if (nd == 0) return tc_error_set(err, TC_ERR_UNSUPPORTED, "npy: a scalar array (need [vocab] or [steps, vocab])");
    if (nd == 3) return tc_error_set(err, TC_ERR_UNSUPPORTED, "npy: 3 dimensions (need [vocab] or [steps, vocab])");
    uint64_t steps = nd == 2 ? dims[0] : 1, nv = nd == 2 ? dims[1] : dims[0];
    if (nv == 0 || steps == 0) return tc_error_set(err, TC_ERR_FORMAT, "npy: empty array (shape has a 0)");
    if (nv > (uint64_t)INT32_MAX || steps > UINT32_MAX)
        return tc_error_set(err, TC_ERR_LIMIT, "npy: shape too large (%llu x %llu)", (unsigned long long)steps, (unsigned long long)nv);
    if (vocab && nv != vocab)
        return tc_error_set(err, TC_ERR_ARG, "npy: rows of %llu values, but the vocabulary size is %u",
                            (unsigned long long)nv, vocab);
    size_t off = hstart + hlen, isz = tc_logits_dtype_size(out->dtype);
    uint64_t need = steps * nv;
    if (need > (uint64_t)SIZE_MAX / isz)
        return tc_error_set(err, TC_ERR_LIMIT, "npy: shape too large");
    need *= isz;
    if (need != (uint64_t)(len - off))
        return tc_error_set(err, TC_ERR_FORMAT, "npy: offset %zu: %zu data bytes, the shape needs %llu", off, len - off,
                            (unsigned long long)need);
    out->format = TC_LOGITS_NPY;
    out->offset = off;
    out->data = avail == len ? buf + off : NULL;
    out->steps = (uint32_t)steps;
    out->vocab = (uint32_t)nv;
    return TC_OK;
}

/* ---- raw ----------------------------------------------------------------------- */

static int parse_raw(const uint8_t *buf, size_t len, tc_logits_format fmt, uint32_t vocab, tc_logits *out, tc_error *err) {
    out->dtype = fmt == TC_LOGITS_F16 ? TC_DT_F16 : fmt == TC_LOGITS_BF16 ? TC_DT_BF16 : TC_DT_F32;
    size_t isz = tc_logits_dtype_size(out->dtype);
    if (vocab == 0)
        return tc_error_set(err, TC_ERR_ARG, "raw %s logits need the vocabulary size (--vocab N or a tokenizer)",
                            tc_logits_dtype_name(out->dtype));
    if (vocab > (uint32_t)INT32_MAX) return tc_error_set(err, TC_ERR_LIMIT, "vocabulary size %u too large", vocab);
    size_t row = (size_t)vocab * isz;
    if (len == 0 || len % row != 0)
        return tc_error_set(err, TC_ERR_FORMAT,
                            "raw %s file of %zu bytes does not fit rows of the vocabulary size %u (%zu bytes each; %zu values in the file)",
                            tc_logits_dtype_name(out->dtype), len, vocab, row, len / isz);
    if (len / row > UINT32_MAX) return tc_error_set(err, TC_ERR_LIMIT, "too many rows");
    out->format = fmt;
    out->offset = 0;
    out->data = buf;
    out->steps = (uint32_t)(len / row);
    out->vocab = vocab;
    return TC_OK;
}

/* ---- text ------------------------------------------------------------------------ */

static int parse_text(const uint8_t *buf, size_t len, uint32_t vocab, tc_logits *out, tc_error *err) {
    size_t cap = 0, n = 0, line = 0;
    float *vals = NULL;
    for (size_t i = 0; i < len;) {
        size_t j = i;
        while (j < len && buf[j] != '\n') j++;
        line++;
        size_t a = i, b = j;
        while (a < b && (buf[a] == ' ' || buf[a] == '\t' || buf[a] == '\r')) a++;
        while (b > a && (buf[b - 1] == ' ' || buf[b - 1] == '\t' || buf[b - 1] == '\r')) b--;
        if (b > a) {
            char tmp[64];
            if (b - a >= sizeof tmp) {
                free(vals);
                return tc_error_set(err, TC_ERR_FORMAT, "text: line %zu (offset %zu): value longer than 63 characters", line, a);
            }
            memcpy(tmp, buf + a, b - a);
            tmp[b - a] = 0;
            char *endp = NULL;
            float v = strtof(tmp, &endp);
            if (endp != tmp + (b - a) || endp == tmp) {
                free(vals);
                return tc_error_set(err, TC_ERR_FORMAT, "text: line %zu (offset %zu): not a number: \"%.40s\"", line, a, tmp);
            }
            if (n == cap) {
                void *p = vals;
                if (n >= (size_t)INT32_MAX || tc_grow(&p, &cap, n + 1, sizeof *vals) != 0) {
                    free(vals);
                    return tc_error_set(err, n >= (size_t)INT32_MAX ? TC_ERR_LIMIT : TC_ERR_NOMEM, "text: too many values");
                }
                vals = p;
            }
            vals[n++] = v;
        }
        i = j + 1;
    }
    if (n == 0) return tc_error_set(err, TC_ERR_FORMAT, "text: no values (one number per line expected)");
    if (vocab && n % vocab != 0) {
        free(vals);
        return tc_error_set(err, TC_ERR_FORMAT, "text: %zu values do not fit rows of the vocabulary size %u", n, vocab);
    }
    out->format = TC_LOGITS_TEXT;
    out->dtype = TC_DT_F32;
    out->text_values = vals;
    out->vocab = vocab ? vocab : (uint32_t)n;
    out->steps = (uint32_t)(n / out->vocab);
    return TC_OK;
}

static int looks_text(const uint8_t *buf, size_t len) {
    size_t n = len < 4096 ? len : 4096;
    if (n == 0) return 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t c = buf[i];
        if (!(c == '\n' || c == '\r' || c == '\t' || (c >= 0x20 && c < 0x7f))) return 0;
    }
    return 1;
}

int tc_logits_parse(const uint8_t *buf, size_t len, tc_logits_format fmt, uint32_t vocab, tc_logits *out, tc_error *err) {
    memset(out, 0, sizeof *out);
    if (fmt == TC_LOGITS_AUTO) {
        if (len >= 6 && memcmp(buf, "\x93NUMPY", 6) == 0) fmt = TC_LOGITS_NPY;
        else if (looks_text(buf, len)) fmt = TC_LOGITS_TEXT;
        else if (vocab) fmt = TC_LOGITS_F32;
        else return tc_error_set(err, TC_ERR_ARG, "logits: not .npy nor text; give the format (f32, f16, bf16) and the vocabulary size");
    }
    switch (fmt) {
    case TC_LOGITS_NPY: return parse_npy(buf, len, len, vocab, out, err);
    case TC_LOGITS_TEXT: return parse_text(buf, len, vocab, out, err);
    case TC_LOGITS_F32:
    case TC_LOGITS_F16:
    case TC_LOGITS_BF16: return parse_raw(buf, len, fmt, vocab, out, err);
    default: return tc_error_set(err, TC_ERR_ARG, "logits: unknown format %d", (int)fmt);
    }
}

/* nv values of dtype d at p (little-endian) to float32. */
static void convert_row(tc_logits_dtype d, const uint8_t *p, size_t nv, float *out) {
    const size_t isz = tc_logits_dtype_size(d);
    for (size_t i = 0; i < nv; i++, p += isz) {
        switch (d) {
        case TC_DT_F32: {
            uint32_t b = (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
            memcpy(&out[i], &b, 4);
            break;
        }
        case TC_DT_F16: out[i] = tc_f16_to_f32((uint16_t)(p[0] | (p[1] << 8))); break;
        case TC_DT_BF16: out[i] = tc_bf16_to_f32((uint16_t)(p[0] | (p[1] << 8))); break;
        case TC_DT_F64: {
            uint64_t b = 0;
            for (int k = 7; k >= 0; k--) b = (b << 8) | p[k];
            double v;
            memcpy(&v, &b, 8);
            /* out-of-range finite doubles become +-inf explicitly (no UB conversion) */
            if (isnan(v)) out[i] = NAN;
            else if (v > FLT_MAX) out[i] = INFINITY;
            else if (v < -FLT_MAX) out[i] = -INFINITY;
            else out[i] = (float)v;
            break;
        }
        }
    }
}

int tc_logits_row(const tc_logits *l, uint32_t step, float *out) {
    if (step >= l->steps) return TC_ERR_ARG;
    const size_t nv = l->vocab;
    if (l->format == TC_LOGITS_TEXT) {
        memcpy(out, l->text_values + (size_t)step * nv, nv * sizeof *out);
        return TC_OK;
    }
    if (!l->data) return TC_ERR_ARG;  /* opened from a guarded file: tc_logits_read_row */
    convert_row(l->dtype, l->data + (size_t)step * nv * tc_logits_dtype_size(l->dtype), nv, out);
    return TC_OK;
}

/* ---- guarded files ----------------------------------------------------------------- */

#define HEAD_BYTES ((size_t)1 << 20)

int tc_logits_open_file(const tc_file *f, tc_logits_format fmt, uint32_t vocab, tc_logits *out, tc_error *err) {
    memset(out, 0, sizeof *out);
    if (f->data || f->len == 0) return tc_logits_parse(f->data, f->len, fmt, vocab, out, err);
    size_t avail = f->len < HEAD_BYTES ? f->len : HEAD_BYTES;
    uint8_t *head = malloc(avail);
    if (!head) return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    int r = tc_file_pread(f, 0, head, avail, err);
    if (r != TC_OK) { free(head); return r; }
    if (fmt == TC_LOGITS_AUTO) {
        if (avail >= 6 && memcmp(head, "\x93NUMPY", 6) == 0) fmt = TC_LOGITS_NPY;
        else if (looks_text(head, avail)) fmt = TC_LOGITS_TEXT;
        else if (vocab) fmt = TC_LOGITS_F32;
    }
    if (fmt == TC_LOGITS_NPY) r = parse_npy(head, avail, f->len, vocab, out, err);
    else if (fmt == TC_LOGITS_F32 || fmt == TC_LOGITS_F16 || fmt == TC_LOGITS_BF16) {
        r = parse_raw(head, f->len, fmt, vocab, out, err);
        out->data = NULL;
    } else if (fmt == TC_LOGITS_TEXT) {
        /* text is parsed into floats anyway: read it whole */
        uint8_t *all = avail == f->len ? head : malloc(f->len);
        if (!all) { free(head); return tc_error_set(err, TC_ERR_NOMEM, "out of memory"); }
        r = all == head ? TC_OK : tc_file_pread(f, 0, all, f->len, err);
        if (r == TC_OK) r = parse_text(all, f->len, vocab, out, err);
        if (all != head) free(all);
    } else r = tc_logits_parse(head, 0, fmt, vocab, out, err);  /* the error for an unknown format */
    free(head);
    if (r == TC_OK && out->format != TC_LOGITS_TEXT) out->data = NULL;
    return r;
}

int tc_logits_read_row(const tc_logits *l, const tc_file *f, uint32_t step, float *out, tc_error *err) {
    if (step >= l->steps) return tc_error_set(err, TC_ERR_ARG, "step %u: the file has %u steps", step, l->steps);
    if (l->format == TC_LOGITS_TEXT || l->data) return tc_logits_row(l, step, out);
    const size_t nv = l->vocab, isz = tc_logits_dtype_size(l->dtype), bytes = nv * isz;
    uint8_t *buf = malloc(bytes);
    if (!buf) return tc_error_set(err, TC_ERR_NOMEM, "out of memory (%zu bytes for a row)", bytes);
    int r = tc_file_pread(f, (uint64_t)l->offset + (uint64_t)step * bytes, buf, bytes, err);
    if (r == TC_OK) convert_row(l->dtype, buf, nv, out);
    free(buf);
    return r;
}
