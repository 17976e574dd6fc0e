/* fuzz_logits.c - logits files (npy / raw f32 f16 bf16 / text): parse, read
 * every row, and run one preset's sampler on the first row.
 * Input: byte 0 picks the format (and the preset), bytes 1-2 a vocabulary
 * size (0 = unknown), the rest is the file. */
#include "fuzz_common.h"
#include "logits.h"
#include "sampler.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 3) return 0;
    tc_logits_format fmt = (tc_logits_format)(data[0] % 6);
    tc_sampler_preset preset = (tc_sampler_preset)((data[0] / 6) % 5);
    uint32_t vocab = ((uint32_t)data[1] | ((uint32_t)data[2] << 8)) % 4096;
    data += 3;
    size -= 3;
    uint8_t *copy = malloc(size ? size : 1);   /* exact-size buffer: ASan sees overreads */
    if (!copy) return 0;
    memcpy(copy, data, size);
    tc_logits l;
    tc_error err = {0};
    if (tc_logits_parse(copy, size, fmt, vocab, &l, &err) == TC_OK) {
        FUZZ_CHECK(l.vocab > 0 && l.steps > 0);
        FUZZ_CHECK(!vocab || l.vocab == vocab);
        if (l.format != TC_LOGITS_TEXT) {
            FUZZ_CHECK(l.offset <= size);
            FUZZ_CHECK((uint64_t)l.steps * l.vocab * tc_logits_dtype_size(l.dtype) == size - l.offset);
        }
        float *row = malloc((size_t)l.vocab * sizeof *row);
        if (row) {
            for (uint32_t s = 0; s < l.steps; s++) FUZZ_CHECK(tc_logits_row(&l, s, row) == TC_OK);
            FUZZ_CHECK(tc_logits_row(&l, l.steps, row) == TC_ERR_ARG);
            tc_logits_row(&l, 0, row);
            tc_sampler_params p;
            memset(&p, 0, sizeof p);
            p.preset = preset;
            p.temperature = 0.8f; p.top_k = 40; p.top_p = 0.9f; p.min_p = 0.05f; p.seed = size;
            p.n_order = 4;
            for (int i = 0; i < 4; i++) { p.order[i] = (tc_stage_kind)i; p.semantics[i] = (tc_semantics)((size + (size_t)i) % 4); }
            tc_sresult r;
            tc_error serr = {0};
            if (tc_sampler_run(row, l.vocab, &p, &r, &serr) == TC_OK) {
                int32_t d[4];
                tc_draw_state st;
                FUZZ_CHECK(tc_sampler_draw(&r, &p, 4, d, &st, &serr) == TC_OK);
                for (int i = 0; i < 4; i++) FUZZ_CHECK(d[i] >= 0 && (uint32_t)d[i] < l.vocab);
            } else {
                fuzz_check_error(&serr);
            }
            tc_sresult_free(&r);
            free(row);
        }
    } else {
        fuzz_check_error(&err);
    }
    tc_logits_free(&l);
    free(copy);
    return 0;
}
