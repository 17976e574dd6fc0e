/* fuzz_detect.c - format detection and the refusal sentences: tc_detect_format,
 * tc_detect_other, tc_format_name, tc_refuse_file on any bytes; what is
 * detected as a Tekken file or a SentencePiece model (BPE or Unigram) is
 * loaded and encoded. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t *copy = malloc(size ? size : 1);   /* exact size: ASan sees any read past the end */
    if (!copy) return 0;
    memcpy(copy, data, size);
    tc_format f = tc_detect_format(copy, size);
    FUZZ_CHECK(f >= TC_FORMAT_UNKNOWN && f <= TC_FORMAT_GGUF);
    FUZZ_CHECK(tc_format_name(f) != NULL);
    const char *what = tc_detect_other(copy, size);
    FUZZ_CHECK(what == NULL || strlen(what) > 0);
    tc_error err = {0};
    FUZZ_CHECK(tc_refuse_file("f.bin", copy, size, &err) != TC_OK);
    fuzz_check_error(&err);
    FUZZ_CHECK(strncmp(err.msg, "f.bin: ", 7) == 0);
    err = (tc_error){0};
    FUZZ_CHECK(tc_refuse_unsupported("f.bin", f, &err) == TC_ERR_UNSUPPORTED);
    fuzz_check_error(&err);
    if (f == TC_FORMAT_TEKKEN || f == TC_FORMAT_SPM_MODEL) {
        static const uint8_t TEXT[] = "Hello world! 123 na\xc3\xafve <s> [INST]\n\n  tab\t\xff";
        err = (tc_error){0};
        tc_tokenizer *tok = f == TC_FORMAT_TEKKEN ? tc_load_tekken(copy, size, &err) : tc_load_spm_model(copy, size, &err);
        if (tok) {
            fuzz_exercise(tok, TEXT, sizeof TEXT - 1);
            tc_free(tok);
        } else {
            fuzz_check_error(&err);
        }
    }
    free(copy);
    return 0;
}
