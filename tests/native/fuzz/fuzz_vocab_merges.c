/* fuzz_vocab_merges.c - vocab.json + merges.txt (tc_load_vocab_merges).
 * Input: byte 0 picks the preset, then vocab.json, "\n#MERGES\n", merges.txt. */
#include "fuzz_common.h"

static const uint8_t TEXT[] = "Hello world! 123 naïve 中文\n\n  tab\t\xff";
static const char SEP[] = "\n#MERGES\n";

static const uint8_t *find(const uint8_t *h, size_t n, const char *needle, size_t m) {
    for (size_t i = 0; i + m <= n; i++)
        if (memcmp(h + i, needle, m) == 0) return h + i;
    return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    tc_preset preset = (tc_preset)(data[0] % 5);
    data++; size--;
    const uint8_t *sep = find(data, size, SEP, sizeof SEP - 1);
    size_t vlen = sep ? (size_t)(sep - data) : size;
    size_t moff = sep ? vlen + sizeof SEP - 1 : size;
    uint8_t *v = malloc(vlen ? vlen : 1), *m = malloc(size - moff ? size - moff : 1);
    if (!v || !m) { free(v); free(m); return 0; }
    memcpy(v, data, vlen);
    memcpy(m, data + moff, size - moff);
    (void)tc_detect_format(v, vlen);
    (void)tc_detect_format(m, size - moff);
    tc_error err = {0};
    tc_tokenizer *tok = tc_load_vocab_merges(v, vlen, m, size - moff, preset, &err);
    free(v); free(m);
    if (!tok) { fuzz_check_error(&err); return 0; }
    fuzz_exercise(tok, TEXT, sizeof TEXT - 1);
    tc_free(tok);
    return 0;
}
