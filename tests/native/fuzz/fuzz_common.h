/* fuzz_common.h - shared helpers of the libFuzzer harnesses (tests/native/fuzz).
 * Built by tests/test_fuzz.py / run_long.sh with
 *   clang -fsanitize=fuzzer,address,undefined -I native/src HARNESS.c native/src/ALL.c [native/cli/request.c] -lm
 * A harness aborts (a crash for libFuzzer) when an invariant of the API fails. */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tokcore.h"

#define FUZZ_CHECK(cond)                                                                  \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            fprintf(stderr, "fuzz invariant failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
            abort();                                                                      \
        }                                                                                 \
    } while (0)

/* Error objects must always hold a NUL-terminated message within their buffer. */
static inline void fuzz_check_error(const tc_error *e) {
    FUZZ_CHECK(memchr(e->msg, 0, sizeof e->msg) != NULL);
}

/* Encoding invariants: offsets inside the text, start <= end, char offsets
 * consistent. */
static inline void fuzz_check_encoding(const tc_encoding *e, size_t len) {
    for (size_t i = 0; i < e->n; i++) {
        FUZZ_CHECK(e->offsets[2 * i] <= e->offsets[2 * i + 1]);
        FUZZ_CHECK(e->offsets[2 * i + 1] <= len);
        FUZZ_CHECK(e->char_offsets[2 * i] <= e->char_offsets[2 * i + 1]);
        FUZZ_CHECK(e->char_offsets[2 * i + 1] <= len);
    }
}

/* Encodes text with every encoder the handle can prepare, decodes the result. */
static inline void fuzz_exercise(tc_tokenizer *tok, const uint8_t *text, size_t len) {
    for (int k = 0; k < 3; k++) {
        tc_error err = {0};
        tc_encoding enc;
        memset(&enc, 0, sizeof enc);
        if (tc_prepare(tok, (tc_encoder)k, &err) != TC_OK) { fuzz_check_error(&err); continue; }
        if (tc_encode_ex(tok, text, len, 1, (tc_encoder)k, &enc, NULL, &err) == TC_OK) {
            fuzz_check_encoding(&enc, len);
            tc_buf out = {0};
            tc_error derr = {0};
            tc_decode(tok, enc.ids, enc.n, 0, &out, &derr);
            tc_buf_free(&out);
        } else {
            fuzz_check_error(&err);
        }
        tc_encoding_free(&enc);
    }
    uint32_t n = tc_vocab_size(tok);
    for (uint32_t id = 0; id < n && id < 64; id++) {
        size_t l;
        tc_id_to_token(tok, id, &l);
        tc_id_to_bytes(tok, id, &l);
        tc_is_special(tok, id);
    }
    (void)tc_describe(tok);
}

#endif
