/* fuzz_decode.c - tc_decode with arbitrary ids on the tiny tokenizers (tiny.h),
 * plus the id queries. Byte 0: tokenizer (bits 0-1), skip_special (bit 2);
 * then little-endian u32 ids, each folded into 0..vocab+16 unless bit 7 of
 * its last byte is set (then the raw value). */
#include "tiny.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    tiny_set *s = tiny_get();
    int t = data[0] & 3, skip = (data[0] >> 2) & 1;
    const tc_tokenizer *tok = s->tok[t];
    uint32_t vs = tc_vocab_size(tok);
    size_t n = (size - 1) / 4;
    uint32_t *ids = malloc((n ? n : 1) * sizeof *ids);
    if (!ids) return 0;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *p = data + 1 + 4 * i;
        uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
        ids[i] = (p[3] & 0x80) ? v : v % (vs + 16);
        size_t l = 0;
        const char *str = tc_id_to_token(tok, ids[i], &l);
        const uint8_t *b = tc_id_to_bytes(tok, ids[i], &l);
        if (ids[i] >= vs) FUZZ_CHECK(!str && !b);
        if (str) FUZZ_CHECK(tc_token_to_id(tok, str, strlen(str)) >= -1);
        (void)tc_is_special(tok, ids[i]);
        (void)tc_is_added(tok, ids[i]);
    }
    tc_buf out = {0};
    tc_error err = {0};
    FUZZ_CHECK(tc_decode(tok, ids, n, skip, &out, &err) == TC_OK);
    tc_buf_free(&out);
    free(ids);
    return 0;
}
