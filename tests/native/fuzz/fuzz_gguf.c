/* fuzz_gguf.c - GGUF metadata: parse (offsets and reasons on every bad
 * header), load as a handle built as llama.cpp builds it, encode. The first
 * byte picks parse_special. */
#include "fuzz_common.h"
#include "gguf.h"

static const uint8_t TEXT[] = "Hello world! 123 naïve 中文 <|endoftext|> <s>\n\n  tab\t\xff";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    int parse_special = data[0] & 1;
    data++; size--;
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy) return 0;
    memcpy(copy, data, size);
    tc_gguf g;
    tc_error err = {0};
    if (tc_gguf_parse_mem(copy, size, &g, &err) == TC_OK) {
        FUZZ_CHECK(g.meta_end <= size);
        for (uint32_t i = 0; i < g.tokens.n; i++) FUZZ_CHECK(g.tokens.off[i] + g.tokens.len[i] < g.pool.len);
        for (uint32_t i = 0; i < g.merges.n; i++) FUZZ_CHECK(g.merges.off[i] + g.merges.len[i] < g.pool.len);
        tc_gguf_free(&g);
    } else {
        fuzz_check_error(&err);
        FUZZ_CHECK(strncmp(err.msg, "GGUF: at offset ", 16) == 0 || err.code == TC_ERR_NOMEM);
    }
    err = (tc_error){0};
    tc_tokenizer *tok = tc_load_gguf(copy, size, parse_special, &err);
    if (tok) {
        fuzz_exercise(tok, TEXT, sizeof TEXT - 1);
        tc_free(tok);
    } else {
        fuzz_check_error(&err);
    }
    free(copy);
    return 0;
}
