/* tiny.h - the small valid tokenizers of the encode/decode/jsonl harnesses,
 * loaded once from the strings of tiny_tokenizers.h (no files at run time):
 *   0 TINY_QWEN_JSON   tokenizer.json, Qwen3's pipeline (NFC, Qwen split, ByteLevel)
 *   1 TINY_OTHER_JSON  tokenizer.json, NFKD+Lowercase, Digits, generic regex Split,
 *                      String Split (Removed), ByteLevel with prefix space, template
 *   2 TINY_TIKTOKEN    .tiktoken with the cl100k preset (lossless: no normalizer)
 *   3 vocab.bin        compiled from 0 (tc_vbin_compile) and loaded back (qwen2 preset)
 * Every encoder is prepared on every handle that supports it. */
#ifndef FUZZ_TINY_H
#define FUZZ_TINY_H

#include "fuzz_common.h"
#include "tiny_tokenizers.h"
#include "vocabbin.h"

#define TINY_N 4

typedef struct tiny_set {
    tc_tokenizer *tok[TINY_N];
    int prepared[TINY_N][5];   /* per tc_encoder: bpe, rank, greedy, kestrel-v1, kestrel-v2 */
    tc_buf vbin;   /* the vocab.bin bytes handle 3 points into */
} tiny_set;

static void tiny_die(const char *what, const tc_error *e) {
    fprintf(stderr, "tiny tokenizer %s: %s\n", what, e->msg);
    abort();
}

static tiny_set *tiny_get(void) {
    static tiny_set s;
    static int done;
    if (done) return &s;
    tc_error err = {0};
    s.tok[0] = tc_load_hf_json((const uint8_t *)TINY_QWEN_JSON, sizeof TINY_QWEN_JSON - 1, &err);
    if (!s.tok[0]) tiny_die("qwen json", &err);
    s.tok[1] = tc_load_hf_json((const uint8_t *)TINY_OTHER_JSON, sizeof TINY_OTHER_JSON - 1, &err);
    if (!s.tok[1]) tiny_die("other json", &err);
    s.tok[2] = tc_load_tiktoken((const uint8_t *)TINY_TIKTOKEN, sizeof TINY_TIKTOKEN - 1, TC_PRESET_GPT2, &err);  /* gpt2: no fixed size (cl100k now refuses a 700-rank file) */
    if (!s.tok[2]) tiny_die("tiktoken", &err);
    if (tc_vbin_compile(s.tok[0], &s.vbin, NULL, &err) != TC_OK) tiny_die("vbin compile", &err);
    s.tok[3] = tc_load_vocabbin(s.vbin.data, s.vbin.len, TC_PRESET_QWEN2, &err);
    if (!s.tok[3]) tiny_die("vocab.bin", &err);
    for (int t = 0; t < TINY_N; t++)
        for (int k = 0; k < 5; k++) {
            err = (tc_error){0};
            s.prepared[t][k] = tc_prepare(s.tok[t], (tc_encoder)k, &err) == TC_OK;
        }
    done = 1;
    return &s;
}

#endif
