/* fuzz_vocabbin.c - vocab.bin: detect, parse, audit, load as a handle and encode. */
#include "fuzz_common.h"
#include "vocabbin.h"

static const uint8_t TEXT[] = "Hello world! 123 naïve 中文 <|endoftext|>\n\n  tab\t\xff";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    tc_preset preset = (tc_preset)(data[0] % 5);
    data++; size--;
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy) return 0;
    memcpy(copy, data, size);
    int looks = tc_vbin_detect(copy, size);
    (void)tc_detect_format(copy, size);
    tc_vbin vb;
    tc_error err = {0};
    if (tc_vbin_parse(copy, size, &vb, &err) == TC_OK) {
        tc_buf audit = {0};
        FUZZ_CHECK(tc_vbin_audit(&vb, &audit) == TC_OK);
        for (uint32_t i = 0; i < vb.n; i++) FUZZ_CHECK(vb.by_id[i].present && vb.by_id[i].off + vb.by_id[i].len <= size);
        tc_buf_free(&audit);
        tc_vbin_free(&vb);
    } else {
        fuzz_check_error(&err);
        /* detect walks the structure but does not look for duplicate ids */
        FUZZ_CHECK(!looks || strstr(err.msg, "duplicate id") != NULL);
    }
    tc_buf real = {0};
    tc_vbin_real_bytes(copy, size, &real);
    tc_buf_free(&real);
    tc_buf stored = {0};
    tc_vbin_stored_form(copy, size, &stored);
    tc_buf_free(&stored);
    err = (tc_error){0};
    tc_tokenizer *tok = tc_load_vocabbin(copy, size, preset, &err);
    if (tok) {
        fuzz_exercise(tok, TEXT, sizeof TEXT - 1);
        tc_free(tok);
    } else {
        fuzz_check_error(&err);
    }
    free(copy);
    return 0;
}
