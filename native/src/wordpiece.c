/* wordpiece.c - the WordPiece and WordLevel models (HF `tokenizers` 0.23.3).
 *
 * WordPiece (tokenizers/src/models/wordpiece/mod.rs, WordPiece::tokenize):
 * a word of more than max_input_chars_per_word chars is the unk token;
 * otherwise, from start = 0, the longest substring [start, end) in the
 * vocabulary (with continuing_subword_prefix before it when start > 0) is
 * taken, end stepping back one char at a time from the word's end; if no
 * substring matches at some start the whole word is the unk token, with
 * offsets (0, len).
 * WordLevel (models/wordlevel/mod.rs, WordLevel::tokenize): the word's id,
 * else the unk token's, else an error.
 * Does not: split words (the pre-tokenizers do), or allocate anything that
 * outlives the call's scratch.
 * Performance: end starts at most max_key_len bytes past start (no longer
 * string is in the vocabulary), so a word costs O(chars * longest token)
 * lookups instead of O(chars^2).
 */
#include "wordpiece.h"

static int step_push(tc_trace *tr, uint32_t pos, uint32_t len, uint32_t tried, uint32_t cont, uint32_t id) {
    void *p = tr->steps;
    if (tc_grow(&p, &tr->steps_cap, tr->nsteps + 1, sizeof *tr->steps) != 0) return -1;
    tr->steps = p;
    tc_trace_step *st = &tr->steps[tr->nsteps++];
    st->pos = pos; st->rank = len; st->left = tried; st->right = cont; st->new_id = id;
    return 0;
}

/* The word as the unk token (or -3 without one). */
static int emit_unk(const tc_model *m, tc_bpe_scratch *sc, size_t len, tc_trace *tr, uint32_t pos, uint32_t tried) {
    sc->nout = 0;
    if (m->unk_id < 0) return -3;
    if (tr && step_push(tr, pos, 0, tried, pos > 0, (uint32_t)m->unk_id) != 0) return -1;
    return tc_bpe_out_push(sc, (uint32_t)m->unk_id, 0, (uint32_t)len);
}

/* Start of the char before byte `end` (end > 0); an invalid byte is a char. */
static size_t char_before(const uint8_t *s, size_t len, size_t end) {
    size_t j = end - 1;
    while (j > 0 && end - j < 4 && (s[j] & 0xC0) == 0x80) j--;
    int ul;
    (void)tc_utf8_decode(s, len, j, &ul);
    return j + (size_t)ul == end ? j : end - 1;
}

static size_t count_chars(const uint8_t *s, size_t len) {
    size_t n = 0;
    for (size_t i = 0; i < len; n++) {
        int ul = 1;
        if (s[i] >= 0x80) (void)tc_utf8_decode(s, len, i, &ul);
        i += (size_t)ul;
    }
    return n;
}

int tc_wordpiece_chunk(const tc_tokenizer *tok, tc_bpe_scratch *sc, const uint8_t *chunk, size_t len, tc_trace *tr) {
    const tc_model *m = &tok->model;
    const tc_vocab *v = &m->vocab;
    sc->nout = 0;
    if (len == 0) return 0;
    if (m->kind == TC_MODEL_WORDLEVEL) {
        int64_t id = tc_vocab_find(v, chunk, len);
        if (id >= 0) return tc_bpe_out_push(sc, (uint32_t)id, 0, (uint32_t)len);
        return emit_unk(m, sc, len, NULL, 0, 0);
    }
    if (count_chars(chunk, len) > m->max_input_chars_per_word) return emit_unk(m, sc, len, tr, 0, 0);
    size_t plen = m->cont_prefix_len;
    size_t start = 0;
    while (start < len) {
        size_t room = m->max_key_len > (start ? plen : 0) ? m->max_key_len - (start ? plen : 0) : 0;
        size_t end = len - start > room ? start + room : len;
        /* a cap inside a char: back to that char's start */
        while (end > start && end < len && (chunk[end] & 0xC0) == 0x80) end--;
        int64_t id = -1;
        uint32_t tried = 0;
        while (end > start) {
            if (start == 0) {
                id = tc_vocab_find(v, chunk, end);
            } else {
                sc->tmp.len = 0;
                if (tc_buf_append(&sc->tmp, m->cont_prefix, plen) != 0 ||
                    tc_buf_append(&sc->tmp, chunk + start, end - start) != 0) return -1;
                id = tc_vocab_find(v, sc->tmp.data, sc->tmp.len);
            }
            if (id >= 0) break;
            tried++;
            end = char_before(chunk, len, end);
        }
        if (id < 0) return emit_unk(m, sc, len, tr, (uint32_t)start, tried);
        if (tr && step_push(tr, (uint32_t)start, (uint32_t)(end - start), tried, start > 0, (uint32_t)id) != 0) return -1;
        if (tc_bpe_out_push(sc, (uint32_t)id, (uint32_t)start, (uint32_t)end) != 0) return -1;
        start = end;
    }
    return 0;
}

void tc_wordpiece_set_bytes(tc_model *m) {
    size_t pl = m->cont_prefix_len;
    if (pl == 0) return;
    for (uint32_t id = 0; id < m->vocab.n; id++) {
        tc_entry *e = &m->vocab.entries[id];
        /* subtle: a raw entry's bytes are its string (bytes_off == str_off),
         * so skipping the prefix is a view into the same pool bytes */
        if (!e->present || e->str_len <= pl || e->bytes_off != e->str_off ||
            memcmp(m->vocab.pool.data + e->str_off, m->cont_prefix, pl) != 0) continue;
        e->bytes_off += (uint32_t)pl;
        e->bytes_len -= (uint32_t)pl;
    }
}
