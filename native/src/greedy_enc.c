/* greedy_enc.c - the greedy encoder on a loaded handle (placeholder until
 * the longest-match index lands in greedy.c). */
#include "engine.h"

int tc_greedy_prepare(tc_tokenizer *tok, tc_error *err) {
    (void)tok;
    return tc_error_set(err, TC_ERR_UNSUPPORTED, "the greedy encoder is not built into this engine yet");
}

int tc_greedy_run(const tc_tokenizer *tok, const uint8_t *text, size_t len, tc_encoding *out, tc_trace *trace,
                  tc_error *err) {
    (void)tok; (void)text; (void)len; (void)out; (void)trace;
    return tc_error_set(err, TC_ERR_UNSUPPORTED, "the greedy encoder is not built into this engine yet");
}

void tc_greedy_release(tc_tokenizer *tok) { (void)tok; }
