/* vbin_driver.c - compiles a byte-level tokenizer.json into vocab.bin and
 * reports what it did: stats, sha256, timings of compile / parse / audit /
 * greedy index build, and the audit JSON.
 *
 * Build (from the repository root):
 *   cc -std=c11 -O2 -Inative/src -Inative/cli tests/native/vbin_driver.c
 *      native/src/ALL.c native/cli/sha256.c  (ALL.c: every engine file) -lm -o /tmp/vbin_driver
 * Run:
 *   /tmp/vbin_driver /work/shared/data/qwen3/tokenizer.json /tmp/vocab.bin
 * Expected for Qwen3: 151669 entries, 57286 changed, 94357 kept, 26 specials,
 * 1950864 bytes, sha256 299e1c15...985637a73. Exit status 0 on success.
 */
#include <stdio.h>
#include <time.h>

#include "greedy.h"
#include "platform.h"
#include "sha256.h"
#include "tokcore.h"
#include "vocabbin.h"

static double now_ms(void) {
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s tokenizer.json out_vocab.bin\n", argv[0]);
        return 2;
    }
    tc_error err = {0};
    tc_file f;
    if (tc_file_read(argv[1], (size_t)1 << 30, &f, &err) != TC_OK) {
        fprintf(stderr, "read: %s\n", err.msg);
        return 1;
    }
    tc_tokenizer *tok = tc_load_hf_json(f.data, f.len, &err);
    tc_file_free(&f);
    if (!tok) {
        fprintf(stderr, "load: %s\n", err.msg);
        return 1;
    }
    tc_buf bin = {0};
    tc_vbin_stats st;
    double t0 = now_ms();
    int rc = tc_vbin_compile(tok, &bin, &st, &err);
    double t1 = now_ms();
    tc_free(tok);
    if (rc != TC_OK) {
        fprintf(stderr, "compile: %s\n", err.msg);
        return 1;
    }
    FILE *o = fopen(argv[2], "wb");
    if (!o || fwrite(bin.data, 1, bin.len, o) != bin.len || fclose(o) != 0) {
        fprintf(stderr, "cannot write %s\n", argv[2]);
        return 1;
    }
    char hex[65];
    sha256_hex(bin.data, bin.len, hex);
    printf("total entries: %u converted: %u kept: %u special copied: %u\n", st.total, st.changed, st.kept, st.specials);
    printf("bytes: %zu sha256: %s\n", bin.len, hex);
    printf("compile: %.2f ms\n", t1 - t0);

    tc_vbin v;
    t0 = now_ms();
    rc = tc_vbin_parse(bin.data, bin.len, &v, &err);
    t1 = now_ms();
    if (rc != TC_OK) {
        fprintf(stderr, "parse: %s\n", err.msg);
        return 1;
    }
    printf("parse: %.2f ms (N = %u, trailing %zu), detect: %d\n", t1 - t0, v.n, v.trailing, tc_vbin_detect(bin.data, bin.len));

    uint32_t *ids = malloc(v.n * sizeof *ids), *lens = malloc(v.n * sizeof *lens);
    const uint8_t **bytes = malloc(v.n * sizeof *bytes);
    uint8_t *spec = calloc(v.n, 1);
    if (!ids || !lens || !bytes || !spec) return 1;
    for (uint32_t id = 0; id < v.n; id++) {
        ids[id] = id;
        bytes[id] = v.data + v.by_id[id].off;
        lens[id] = v.by_id[id].len;
        spec[id] = id >= st.total - st.specials;
    }
    t0 = now_ms();
    tc_greedy *g = tc_greedy_build(v.n, ids, bytes, lens, spec, &err);
    t1 = now_ms();
    if (!g) {
        fprintf(stderr, "greedy: %s\n", err.msg);
        return 1;
    }
    printf("greedy index: %.2f ms (%zu nodes, longest %u)\n", t1 - t0, tc_greedy_node_count(g), tc_greedy_max_len(g));
    const char *sample = "Hello world, 你好! Zażółć gęślą jaźń.\n<|im_start|>user\n  x\t\x01";
    tc_greedy_out go = {0};
    if (tc_greedy_encode(g, (const uint8_t *)sample, strlen(sample), 0, &go, &err) != TC_OK) return 1;
    printf("greedy sample:");
    for (size_t i = 0; i < go.n; i++) printf(" %u[%u,%u)", go.toks[i].id, go.toks[i].start, go.toks[i].end);
    printf(" dropped %zu\n", go.dropped);
    tc_greedy_out_free(&go);

    tc_buf audit = {0};
    t0 = now_ms();
    rc = tc_vbin_audit(&v, &audit);
    t1 = now_ms();
    if (rc != TC_OK || tc_buf_push(&audit, 0) != 0) return 1;
    printf("audit: %.2f ms\n%s\n", t1 - t0, (const char *)audit.data);

    tc_buf_free(&audit);
    tc_greedy_free(g);
    free(ids); free(lens); free(bytes); free(spec);
    tc_vbin_free(&v);
    tc_buf_free(&bin);
    return 0;
}
