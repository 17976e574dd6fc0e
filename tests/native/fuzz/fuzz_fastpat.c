/* fuzz_fastpat.c - the hand-written scanners (fastpat.c) against the
 * backtracking matcher (regex.c) on the same subject: every match of QWEN2,
 * CL100K and GPT2, whole and resumed every k matches, must be regex.c's.
 * Input: the subject. Long subjects reach the 64-byte blocks of QWEN2 and
 * CL100K (block_starts). */
#include "fuzz_common.h"
#include "pretok.h"
#include "regex.h"

static const char *const PATS[] = {
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t *s = malloc(size ? size : 1);   /* an allocation of its own: reads past it are caught */
    if (!s) return 0;
    memcpy(s, data, size);
    for (size_t k = 0; k < sizeof PATS / sizeof *PATS; k++) {
        tc_fastpat fp = tc_fast_detect(PATS[k], strlen(PATS[k]));
        FUZZ_CHECK(fp != TC_FAST_NONE);
        tc_error err = {0};
        tc_regex *re = tc_regex_compile(PATS[k], strlen(PATS[k]), &err);
        FUZZ_CHECK(re != NULL);
        size_t *want = NULL, nw = 0, cw = 0;
        int r = tc_regex_find_all(re, s, size, &want, &nw, &cw);
        tc_regex_free(re);
        if (r == 0) {
            size_t *got = NULL, ng = 0, cg = 0;
            FUZZ_CHECK(tc_fast_find_all(fp, s, size, &got, &ng, &cg) == 0);
            FUZZ_CHECK(ng == 2 * nw && (nw == 0 || memcmp(got, want, ng * sizeof *got) == 0));
            for (size_t block = 1; block <= 5; block += 4) {
                ng = 0;
                for (size_t pos = 0; pos < size;)
                    FUZZ_CHECK(tc_fast_find_from(fp, s, size, pos, block, &got, &ng, &cg, &pos) == 0);
                FUZZ_CHECK(ng == 2 * nw && (nw == 0 || memcmp(got, want, ng * sizeof *got) == 0));
            }
            free(got);
        }
        free(want);
    }
    free(s);
    return 0;
}
