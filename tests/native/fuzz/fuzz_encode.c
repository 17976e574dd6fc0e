/* fuzz_encode.c - tc_encode_ex with each encoder (bpe, rank, greedy,
 * kestrel-v1/v2) on the tiny tokenizers (tiny.h) with arbitrary input
 * bytes. Byte 0 picks the tokenizer (bits 0-1), the encoder (bits 2-3; 3 is
 * kestrel, bit 6 its version), add_special_tokens (bit 4) and a trace
 * (bit 5). Checks offsets, the trace's spans, that the ids-only encode
 * (TC_ENCODE_IDS_ONLY) gives the same ids, special mask and error (and that
 * its encoding, reused for a full encode, gives the same offsets), and for
 * the lossless tiktoken handle decode(encode(x)) == x. */
#include "tiny.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    tiny_set *s = tiny_get();
    uint8_t sel = data[0];
    int t = sel & 3, k = (sel >> 2) & 3, add = (sel >> 4) & 1, want_trace = (sel >> 5) & 1;
    if (k == 3) k = (sel >> 6) & 1 ? TC_ENC_KESTREL_V2 : TC_ENC_KESTREL_V1;
    if (!s->prepared[t][k]) return 0;
    size_t len = size - 1;
    uint8_t *text = malloc(len ? len : 1);
    if (!text) return 0;
    memcpy(text, data + 1, len);
    tc_encoding enc;
    tc_trace tr;
    memset(&enc, 0, sizeof enc);
    memset(&tr, 0, sizeof tr);
    tc_error err = {0};
    int r = tc_encode_ex(s->tok[t], text, len, add, (tc_encoder)k, &enc, want_trace ? &tr : NULL, &err);
    tc_encoding ids;
    memset(&ids, 0, sizeof ids);
    tc_error ierr = {0};
    int ri = tc_encode_flags(s->tok[t], text, len, add, (tc_encoder)k, TC_ENCODE_IDS_ONLY, &ids, NULL, &ierr);
    FUZZ_CHECK(ri == r);
    if (r == TC_OK) {
        FUZZ_CHECK(ids.n == enc.n);
        FUZZ_CHECK(enc.n == 0 || memcmp(ids.ids, enc.ids, enc.n * sizeof *enc.ids) == 0);
        FUZZ_CHECK(enc.n == 0 || memcmp(ids.special, enc.special, enc.n) == 0);
        /* the same encoding, grown by the ids-only encode alone, reused for a full one: its offset
         * arrays must follow its id capacity (ASan catches a write past them) */
        if (!want_trace && tc_encode_flags(s->tok[t], text, len, add, (tc_encoder)k, 0, &ids, NULL, &ierr) == TC_OK) {
            FUZZ_CHECK(ids.n == enc.n);
            FUZZ_CHECK(enc.n == 0 || memcmp(ids.offsets, enc.offsets, enc.n * 2 * sizeof *enc.offsets) == 0);
            FUZZ_CHECK(enc.n == 0 || memcmp(ids.char_offsets, enc.char_offsets, enc.n * 2 * sizeof *enc.char_offsets) == 0);
        }
    }
    tc_encoding_free(&ids);
    if (r == TC_OK) {
        fuzz_check_encoding(&enc, len);
        for (size_t i = 0; i < enc.n; i++) FUZZ_CHECK(enc.ids[i] < tc_vocab_size(s->tok[t]));
        if (want_trace) {
            for (size_t c = 0; c < tr.nchunks; c++) {
                const tc_trace_chunk *ch = &tr.chunks[c];
                FUZZ_CHECK(ch->orig_start <= ch->orig_end && ch->orig_end <= len);
                FUZZ_CHECK(ch->norm_start <= ch->norm_end && ch->norm_end <= tr.normalized.len);
                FUZZ_CHECK((size_t)ch->tok_first + ch->tok_count <= enc.n);
                FUZZ_CHECK((size_t)ch->sym_first + ch->sym_count <= tr.nsyms);
                FUZZ_CHECK((size_t)ch->step_first + ch->step_count <= tr.nsteps);
            }
            for (size_t g = 0; g < tr.ngsteps; g++)
                FUZZ_CHECK((size_t)tr.gsteps[g].cand_first + tr.gsteps[g].cand_count <= tr.ngcands);
            for (size_t g = 0; g < tr.nksteps; g++) {
                const tc_trace_kestrel_step *ks = &tr.ksteps[g];
                FUZZ_CHECK(ks->pos <= ks->at && ks->at <= len && (size_t)ks->at + ks->consumed <= len);
            }
        }
        tc_buf out = {0};
        tc_error derr = {0};
        FUZZ_CHECK(tc_decode(s->tok[t], enc.ids, enc.n, 0, &out, &derr) == TC_OK);
        if (t == 2 && k < TC_ENC_GREEDY) {
            if (out.len != len || (len && memcmp(out.data, text, len) != 0)) {
                fprintf(stderr, "round trip failed: %zu bytes in, %zu out\n", len, out.len);
                abort();
            }
        }
        tc_buf_free(&out);
    } else {
        fuzz_check_error(&err);
    }
    tc_encoding_free(&enc);
    if (want_trace) tc_trace_free(&tr);
    free(text);
    return 0;
}
