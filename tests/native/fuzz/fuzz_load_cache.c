/* fuzz_load_cache.c - the load cache's reader (load_cache.c) on any blob, for a
 * tiny Qwen3 tokenizer.json: a blob is refused or gives a handle that encodes
 * and decodes without a fault. Inputs whose first byte is odd are sealed
 * first (their checksum recomputed), so mutated tables reach the checks
 * behind the checksum. The seeds are valid caches of TINY_QWEN_JSON for
 * KEY (make_seeds.py), so mutations start from real tables. */
#include "fuzz_common.h"
#include "load_cache.h"
#include "tiny_tokenizers.h"

static const uint8_t TEXT[] = "Hello world! 123 naïve 中文 <|endoftext|>\n\n  tab\t\xff";
/* the key the seeds were written with (any 32 bytes: the caller computes sha256) */
static const uint8_t KEY[32] = "tokinspect fuzz load cache key!";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    int seal = data[0] & 1;
    data++; size--;
    uint8_t *blob = malloc(size ? size : 1);
    if (!blob) return 0;
    memcpy(blob, data, size);
    if (seal) tc_cache_seal(blob, size);
    const uint8_t *json = (const uint8_t *)TINY_QWEN_JSON;
    size_t jlen = sizeof TINY_QWEN_JSON - 1;
    tc_hf_cache c;
    const char *why = NULL;
    if (tc_cache_read_hf(blob, size, KEY, jlen, &c, &why) == 0) {
        FUZZ_CHECK(why == NULL);
        tc_error err = {0};
        tc_tokenizer *tok = tc_load_hf_json_with_cache(json, jlen, &c, &err);
        tc_hf_cache_free(&c);
        if (tok) {
            fuzz_exercise(tok, TEXT, sizeof TEXT - 1);
            tc_free(tok);
        } else {
            fuzz_check_error(&err);
        }
    } else {
        FUZZ_CHECK(why != NULL && c.vocab_tab.entries == NULL && c.merges_tab.slots == NULL);
    }
    free(blob);
    return 0;
}
