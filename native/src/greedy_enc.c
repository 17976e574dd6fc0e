/* greedy_enc.c - the greedy encoder on a loaded handle.
 *
 * Does: builds the longest-match index (greedy.h) from any handle's
 * vocabulary in vocab.bin's stored form (seed 000: what the board
 * matches), every added token counted as special (the board matches its
 * added tokens first), and releases it.
 * Does not: encode (pipeline.c runs the index and computes offsets).
 */
#include "engine.h"
#include "greedy.h"
#include "vocabbin.h"

int tc_greedy_prepare(tc_tokenizer *tok, tc_error *err) {
    if (tok->greedy) return TC_OK;
    uint32_t n = tc_vocab_size(tok);
    uint32_t *ids = malloc((size_t)(n ? n : 1) * sizeof *ids);
    uint32_t *lens = malloc((size_t)(n ? n : 1) * sizeof *lens);
    size_t *offs = malloc((size_t)(n ? n : 1) * sizeof *offs);
    const uint8_t **ptrs = malloc((size_t)(n ? n : 1) * sizeof *ptrs);
    uint8_t *special = malloc(n ? n : 1);
    tc_buf pool = {0};
    int rc = TC_OK;
    if (!ids || !lens || !offs || !ptrs || !special) { rc = tc_error_set(err, TC_ERR_NOMEM, "out of memory"); goto done; }
    size_t k = 0;
    for (uint32_t id = 0; id < n; id++) {
        size_t slen;
        const char *s = tc_id_to_token(tok, id, &slen);
        if (!s || slen == 0) continue;
        size_t before = pool.len;
        int added = tc_is_added(tok, id);
        int r = (added || !tok->byte_level) ? tc_buf_append(&pool, s, slen)
                                            : (tc_vbin_stored_form((const uint8_t *)s, slen, &pool) < 0 ? -1 : 0);
        if (r != 0) { rc = tc_error_set(err, TC_ERR_NOMEM, "out of memory"); goto done; }
        if (pool.len == before) continue;
        ids[k] = id;
        offs[k] = before;
        lens[k] = (uint32_t)(pool.len - before);
        special[k] = (uint8_t)added;
        k++;
    }
    for (size_t i = 0; i < k; i++) ptrs[i] = pool.data + offs[i];   /* the pool no longer moves */
    tok->greedy = tc_greedy_build(k, ids, ptrs, lens, special, err);
    if (!tok->greedy) rc = err->code ? err->code : TC_ERR_NOMEM;
done:
    free(ids); free(lens); free(offs); free(ptrs); free(special);
    tc_buf_free(&pool);
    return rc;
}

void tc_greedy_release(tc_tokenizer *tok) {
    tc_greedy_free(tok->greedy);
    tok->greedy = NULL;
}
