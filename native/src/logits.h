/* logits.h - logits files: .npy (v1/v2/v3, 1-D [vocab] or 2-D [steps, vocab],
 * little-endian float16/float32/float64, C order), raw little-endian
 * float32/float16/bfloat16 rows of a known vocabulary size, and text (one
 * value per line, nan/inf accepted).
 *
 * Does: parse a buffer (or a guarded file: see platform.h) without
 * copying the values, except text, which is parsed into floats; convert one
 * row to float32 on request.
 * Does not: open files, guess a vocabulary size for raw data, accept
 * big-endian or Fortran-order arrays (errors say so).
 */
#ifndef TC_LOGITS_H
#define TC_LOGITS_H

#include "common.h"

typedef enum {
    TC_LOGITS_AUTO = 0,   /* npy by its magic, text when the head is text, else raw float32 with a vocab */
    TC_LOGITS_NPY,
    TC_LOGITS_F32,
    TC_LOGITS_F16,
    TC_LOGITS_BF16,
    TC_LOGITS_TEXT
} tc_logits_format;

typedef enum {
    TC_DT_F32 = 0,
    TC_DT_F16,
    TC_DT_BF16,
    TC_DT_F64
} tc_logits_dtype;

typedef struct tc_logits {
    tc_logits_format format;
    tc_logits_dtype dtype;
    size_t offset;          /* byte offset of the first value in the buffer (not for text) */
    const uint8_t *data;    /* buffer + offset (not for text) */
    uint32_t steps, vocab;
    float *text_values;     /* text: steps * vocab parsed values (owned) */
} tc_logits;

int tc_logits_format_from_name(const char *name, tc_logits_format *out);
const char *tc_logits_format_name(tc_logits_format f);
const char *tc_logits_dtype_name(tc_logits_dtype d);
size_t tc_logits_dtype_size(tc_logits_dtype d);

/* Parses buf[0..len). vocab: 0 = unknown (required for raw formats; for
 * npy and text, when given, it must agree / divide). Errors name the byte
 * offset and the reason, or both sizes. *out must be freed with
 * tc_logits_free, also after an error. */
int tc_logits_parse(const uint8_t *buf, size_t len, tc_logits_format fmt, uint32_t vocab, tc_logits *out,
                    tc_error *err);
/* Row `step` as float32 into out[0..vocab). Returns TC_OK or TC_ERR_ARG. */
int tc_logits_row(const tc_logits *l, uint32_t step, float *out);
void tc_logits_free(tc_logits *l);

/* A file from tc_file_open_guarded (platform.h) or tc_file_read: parses the
 * header from its first MiB (text is read whole); .data stays NULL, so rows
 * come from tc_logits_read_row, which pread()s the row after checking that
 * the file did not change (size, mtime, inode): a file shrunk in place is an
 * error naming it, never a SIGBUS. */
struct tc_file;
int tc_logits_open_file(const struct tc_file *f, tc_logits_format fmt, uint32_t vocab, tc_logits *out, tc_error *err);
int tc_logits_read_row(const tc_logits *l, const struct tc_file *f, uint32_t step, float *out, tc_error *err);

/* IEEE half / bfloat16 bits to float. */
float tc_f16_to_f32(uint16_t h);
float tc_bf16_to_f32(uint16_t h);

#endif
