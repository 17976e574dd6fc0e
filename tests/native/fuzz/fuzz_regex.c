/* fuzz_regex.c - the regex compiler and matcher. Input: pattern, a 0 byte, subject. */
#include "fuzz_common.h"
#include "regex.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const uint8_t *z = memchr(data, 0, size);
    size_t plen = z ? (size_t)(z - data) : size;
    size_t soff = z ? plen + 1 : size;
    if (plen > 2000) return 0;
    char *pat = malloc(plen ? plen : 1);
    uint8_t *subj = malloc(size - soff ? size - soff : 1);
    if (!pat || !subj) { free(pat); free(subj); return 0; }
    memcpy(pat, data, plen);
    memcpy(subj, data + soff, size - soff);
    size_t slen = size - soff;
    tc_error err = {0};
    tc_regex *re = tc_regex_compile(pat, plen, &err);
    if (re) {
        size_t *m = NULL, n = 0, cap = 0;
        int r = tc_regex_find_all(re, subj, slen, &m, &n, &cap);
        FUZZ_CHECK(r == 0 || r == -2);
        size_t prev = 0;
        for (size_t i = 0; r == 0 && i < n; i++) {
            FUZZ_CHECK(m[2 * i] <= m[2 * i + 1] && m[2 * i + 1] <= slen);
            FUZZ_CHECK(m[2 * i] >= prev);
            prev = m[2 * i + 1];
        }
        free(m);
        size_t ms, me;
        r = tc_regex_search(re, subj, slen, 0, &ms, &me);
        FUZZ_CHECK(r >= -2 && r <= 1);
        if (r == 1) FUZZ_CHECK(ms <= me && me <= slen);
        tc_buf d = {0};
        tc_regex_describe(re, &d);
        tc_buf_free(&d);
        (void)tc_regex_program_size(re);
        tc_regex_free(re);
    } else {
        FUZZ_CHECK(err.code != TC_OK);
        fuzz_check_error(&err);
    }
    free(pat);
    free(subj);
    return 0;
}
