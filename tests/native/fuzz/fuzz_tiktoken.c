/* fuzz_tiktoken.c - .tiktoken rank files (tc_load_tiktoken). Byte 0 picks the preset. */
#include "fuzz_common.h"

static const uint8_t TEXT[] = "Hello world! 123 naïve 中文 <|endoftext|>\n\n  tab\t\xff";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    tc_preset preset = (tc_preset)(data[0] % 5);
    data++; size--;
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy) return 0;
    memcpy(copy, data, size);
    (void)tc_detect_format(copy, size);
    tc_error err = {0};
    tc_tokenizer *tok = tc_load_tiktoken(copy, size, preset, &err);
    free(copy);
    if (!tok) { fuzz_check_error(&err); return 0; }
    fuzz_exercise(tok, TEXT, sizeof TEXT - 1);
    tc_free(tok);
    return 0;
}
