/* fuzz_hf_json.c - tokenizer.json loading (tc_load_hf_json); a loaded handle is
 * encoded with bpe/rank/greedy and decoded. */
#include "fuzz_common.h"

static const uint8_t TEXT[] = "Hello world! 123 naïve 中文 <|im_start|>x\n\n  tab\t\xff\xfe";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    tc_error err = {0};
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy) return 0;
    memcpy(copy, data, size);
    (void)tc_detect_format(copy, size);
    tc_tokenizer *tok = tc_load_hf_json(copy, size, &err);
    free(copy);   /* the handle must not point into the file */
    if (!tok) { fuzz_check_error(&err); return 0; }
    fuzz_exercise(tok, TEXT, sizeof TEXT - 1);
    tc_free(tok);
    return 0;
}
