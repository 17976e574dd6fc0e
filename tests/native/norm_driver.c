/* norm_driver.c - test driver for tests/test_normalize_oracle.py.
 *
 * Usage: norm_driver SPEC   where SPEC is a comma list of nfc, nfd, nfkc,
 * nfkd, lowercase (a Sequence when several).
 * stdin: records [u32 LE length][bytes]. For each, stdout gets
 * [u32 LE length][normalized bytes][length x (u32 LE start, u32 LE end)]
 * followed by one byte: 1 if tc_normalize_is_noop said "noop", else 0.
 */
#include <stdio.h>

#include "../../native/src/normalize.h"

static int rd32(FILE *f, uint32_t *v) {
    uint8_t b[4];
    if (fread(b, 1, 4, f) != 4) return -1;
    *v = (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) | ((uint32_t)b[3] << 24);
    return 0;
}

static void wr32(FILE *f, uint32_t v) {
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    fwrite(b, 1, 4, f);
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: norm_driver SPEC\n"); return 2; }
    tc_normalizer nz;
    nz.nsteps = 0;
    const char *p = argv[1];
    while (*p) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        tc_norm_kind k;
        if (n == 3 && !strncmp(p, "nfc", 3)) k = TC_NORM_NFC;
        else if (n == 3 && !strncmp(p, "nfd", 3)) k = TC_NORM_NFD;
        else if (n == 4 && !strncmp(p, "nfkc", 4)) k = TC_NORM_NFKC;
        else if (n == 4 && !strncmp(p, "nfkd", 4)) k = TC_NORM_NFKD;
        else if (n == 9 && !strncmp(p, "lowercase", 9)) k = TC_NORM_LOWERCASE;
        else { fprintf(stderr, "bad spec\n"); return 2; }
        if (nz.nsteps == TC_NORM_MAX_STEPS) return 2;
        nz.steps[nz.nsteps++] = k;
        p += n;
        if (*p == ',') p++;
    }
    uint32_t len;
    while (rd32(stdin, &len) == 0) {
        tc_nstr s;
        memset(&s, 0, sizeof s);
        if (len && tc_buf_reserve(&s.text, len) != 0) return 3;
        if (len && fread(s.text.data, 1, len, stdin) != len) return 3;
        s.text.len = len;
        int noop = tc_normalize_is_noop(&nz, s.text.data, s.text.len);
        if (tc_normalize(&nz, &s, 0) != 0) return 3;
        wr32(stdout, (uint32_t)s.text.len);
        if (s.text.len) fwrite(s.text.data, 1, s.text.len, stdout);
        for (size_t i = 0; i < s.text.len;) {
            uint32_t st, en;
            int ul;
            (void)tc_utf8_decode(s.text.data, s.text.len, i, &ul);
            for (int k = 0; k < ul; k++) {
                if (s.align) { st = s.align[i].start; en = s.align[i].end; }
                else { st = (uint32_t)(i - (size_t)k); en = st + (uint32_t)ul; }
                wr32(stdout, st);
                wr32(stdout, en);
                i++;
            }
        }
        fputc(noop ? 1 : 0, stdout);
        tc_nstr_free(&s);
    }
    fflush(stdout);
    return 0;
}
