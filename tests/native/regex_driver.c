/* regex_driver.c - command-line front end of native/src/regex.c for the
 * differential test (tests/test_regex_oracle.py) and for manual checks.
 *
 * Usage:
 *   regex_driver PATTERN SUBJECT...   prints each match as start:end (bytes)
 *                                     and the matched text, one per line
 *   regex_driver --dump PATTERN       prints the compiled program
 *   regex_driver --batch              binary protocol on stdin/stdout:
 *       in : "<n>\n" + n bytes of pattern, then any number of
 *            "<n>\n" + n bytes of subject
 *       out: "OK\n" after compiling (or "COMPILE_ERROR <code> <msg>\n"),
 *            then per subject one line "s:e s:e ..." of byte offsets,
 *            or "ERR <rc>" when find_all fails.
 *   regex_driver --bench PATTERN FILE [REPEAT]  prints MB/s of find_all
 */
#include "../../native/src/regex.h"

#include <stdio.h>
#include <time.h>

static int read_block(FILE *f, uint8_t **buf, size_t *cap, size_t *len) {
    unsigned long n;
    if (fscanf(f, "%lu", &n) != 1) return 0;
    if (fgetc(f) != '\n') return -1;
    if (n + 1 > *cap) {
        uint8_t *p = realloc(*buf, n + 1);
        if (!p) return -1;
        *buf = p;
        *cap = n + 1;
    }
    if (n && fread(*buf, 1, n, f) != n) return -1;
    *len = n;
    return 1;
}

static int batch(void) {
    uint8_t *buf = NULL;
    size_t cap = 0, len = 0;
    if (read_block(stdin, &buf, &cap, &len) != 1) { fprintf(stderr, "no pattern\n"); return 2; }
    tc_error err = {0, {0}};
    tc_regex *re = tc_regex_compile((const char *)buf, len, &err);
    if (!re) {
        printf("COMPILE_ERROR %d %s\n", err.code, err.msg);
        free(buf);
        return 0;
    }
    printf("OK\n");
    size_t *out = NULL, n = 0, ocap = 0;
    int r;
    while ((r = read_block(stdin, &buf, &cap, &len)) == 1) {
        n = 0;
        int rc = tc_regex_find_all(re, buf, len, &out, &n, &ocap);
        if (rc != 0) { printf("ERR %d\n", rc); continue; }
        for (size_t i = 0; i < n; i++) printf(i ? " %zu:%zu" : "%zu:%zu", out[2 * i], out[2 * i + 1]);
        putchar('\n');
    }
    fflush(stdout);
    free(out);
    free(buf);
    tc_regex_free(re);
    return r < 0 ? 2 : 0;
}

static int bench(const char *pat, const char *path, int repeat) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); return 2; }
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *data = malloc((size_t)sz + 1);
    if (!data || fread(data, 1, (size_t)sz, f) != (size_t)sz) { fclose(f); free(data); return 2; }
    fclose(f);
    tc_error err;
    tc_regex *re = tc_regex_compile(pat, strlen(pat), &err);
    if (!re) { fprintf(stderr, "%s\n", err.msg); free(data); return 2; }
    size_t *out = NULL, n = 0, cap = 0;
    clock_t t0 = clock();
    int rc = 0;
    for (int i = 0; i < repeat; i++) {
        n = 0;
        rc = tc_regex_find_all(re, data, (size_t)sz, &out, &n, &cap);
        if (rc) break;
    }
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    printf("rc=%d matches=%zu bytes=%ld time=%.3fs MB/s=%.1f\n", rc, n, sz, secs,
           secs > 0 ? (double)sz * repeat / 1e6 / secs : 0.0);
    free(out);
    free(data);
    tc_regex_free(re);
    return rc ? 1 : 0;
}

int main(int argc, char **argv) {
    if (argc >= 2 && strcmp(argv[1], "--batch") == 0) return batch();
    if (argc >= 4 && strcmp(argv[1], "--bench") == 0) return bench(argv[2], argv[3], argc >= 5 ? atoi(argv[4]) : 1);
    if (argc == 3 && strcmp(argv[1], "--dump") == 0) {
        tc_error err;
        tc_regex *re = tc_regex_compile(argv[2], strlen(argv[2]), &err);
        if (!re) { printf("COMPILE_ERROR %d %s\n", err.code, err.msg); return 1; }
        tc_buf b = {0};
        if (tc_regex_describe(re, &b) == 0) fwrite(b.data, 1, b.len, stdout);
        tc_buf_free(&b);
        tc_regex_free(re);
        return 0;
    }
    if (argc < 3) {
        fprintf(stderr, "usage: regex_driver PATTERN SUBJECT... | --dump PATTERN | --batch | --bench PATTERN FILE [N]\n");
        return 2;
    }
    tc_error err;
    tc_regex *re = tc_regex_compile(argv[1], strlen(argv[1]), &err);
    if (!re) { printf("COMPILE_ERROR %d %s\n", err.code, err.msg); return 1; }
    size_t *out = NULL, n = 0, cap = 0;
    for (int a = 2; a < argc; a++) {
        n = 0;
        int rc = tc_regex_find_all(re, (const uint8_t *)argv[a], strlen(argv[a]), &out, &n, &cap);
        printf("subject %d: rc=%d, %zu matches\n", a - 1, rc, n);
        for (size_t i = 0; i < n; i++)
            printf("  %zu:%zu \"%.*s\"\n", out[2 * i], out[2 * i + 1], (int)(out[2 * i + 1] - out[2 * i]), argv[a] + out[2 * i]);
    }
    free(out);
    tc_regex_free(re);
    return 0;
}
