/* kestrel.c - the board engine's qwen_tokenizer_encode, rule by rule (see
 * kestrel.h for the versions and what is not emulated).
 *
 * Each rule below names the function of src/model/vllm_tokenizer_qwen.c it
 * follows (kestrel-llm, v1 = 63cba683, v2 = fe0b3fe9 / d91c18df). The
 * engine's code is not reproduced; its rules are, in its order:
 *
 *  1. the text ends at the first NUL (qwen_tokenizer_encode: strlen);
 *  2. a run of spaces is skipped, remembering that there was one; spaces
 *     at the end of the text are dropped (the loop ends);
 *  3. v2: the longest of the 15 special strings that starts here, when the
 *     vocabulary has an entry of exactly its bytes (QWEN_SPECIAL_STR,
 *     special_token_id, find_exact_token), is the token;
 *  4. v2: the limit: an ordinary token may not reach the next position
 *     (after this one) where a special string starts (special_start_after);
 *  5. after skipped spaces, unless no token was written yet: the longest
 *     entry that is a prefix of "Ġ" (C4 A0) + at most 509 text bytes; taken
 *     only if longer than "Ġ" and (v2) within the limit; otherwise the
 *     space is simply lost;
 *  6. the longest entry that is a prefix of the raw text (no marker
 *     mapping: a tab or CR matches nothing), within the limit (v2);
 *  7. nothing matched a newline: the entry "Ċ" (v1: one per newline); v2:
 *     the longest entry of up to min(8, run, limit) "Ċ"s
 *     (qwen_tokenizer_encode's fallback branch);
 *  8. nothing matched: the entry of exactly that byte, else id 0 (<unk>);
 *     one byte is consumed.
 * Every lookup keeps the longest entry and, among equal bytes, the lowest
 * id (find_longest_match_qwen's strict `tlen > best_len` over ascending
 * ids; d91c18df's index keeps the first id inserted per string), which is
 * the index's own rule (greedy.h: terms keep their lowest id).
 *
 * Cost: O(text x longest entry) trie steps, plus one pass to find the
 * special starts (v2); the engine's linear scan is O(text x vocabulary).
 */
#include "kestrel.h"

#include <string.h>

#define NO_ID TC_GREEDY_NO_ID

static const char *const SPECIALS[TC_KESTREL_NSPECIAL] = {
    "<|im_start|>", "<|im_end|>", "<|endoftext|>",
    "<|vision_start|>", "<|vision_end|>", "<|image_pad|>", "<|video_pad|>",
    "<|object_ref_start|>", "<|object_ref_end|>",
    "<|box_start|>", "<|box_end|>", "<|quad_start|>", "<|quad_end|>",
    "<think>", "</think>",
};

const char *tc_kestrel_special(size_t i, size_t *len) {
    if (i >= TC_KESTREL_NSPECIAL) return NULL;
    if (len) *len = strlen(SPECIALS[i]);
    return SPECIALS[i];
}

/* The longest stored string that is a prefix of pre[0..npre) followed by
 * s[0..ns), at most max bytes long; its length in *mlen (0: none). */
static uint32_t longest(const tc_greedy *g, const uint8_t *pre, size_t npre, const uint8_t *s, size_t ns,
                        size_t max, size_t *mlen) {
    uint32_t node = TC_GREEDY_ROOT, best = NO_ID;
    size_t total = npre + ns, blen = 0;
    if (total > max) total = max;
    for (size_t i = 0; i < total; i++) {
        node = tc_greedy_walk(g, node, i < npre ? pre[i] : s[i - npre]);
        if (node == TC_GREEDY_NO_NODE) break;
        uint32_t id = tc_greedy_node_id(g, node);
        if (id != NO_ID) { best = id; blen = i + 1; }
    }
    *mlen = blen;
    return best;
}

/* The entry of exactly s[0..n), lowest id; NO_ID if none. */
static uint32_t exact(const tc_greedy *g, const uint8_t *s, size_t n) {
    size_t m;
    uint32_t id = longest(g, NULL, 0, s, n, n, &m);
    return m == n ? id : NO_ID;
}

/* Length of the longest special string at s[0..n) (QWEN_SPECIAL_STR order:
 * the first of equal length), 0 if none; its index in *which. */
static size_t special_at(const uint8_t *s, size_t n, size_t *which) {
    size_t best = 0;
    if (n == 0 || s[0] != '<') return 0;
    for (size_t i = 0; i < TC_KESTREL_NSPECIAL; i++) {
        size_t l = strlen(SPECIALS[i]);
        if (l > n || l <= best) continue;
        if (memcmp(s, SPECIALS[i], l) == 0) { best = l; *which = i; }
    }
    return best;
}

void tc_kestrel_out_free(tc_kestrel_out *o) {
    if (!o) return;
    free(o->toks);
    free(o->steps);
    memset(o, 0, sizeof *o);
}

static int push_tok(tc_kestrel_out *out, uint32_t id, size_t start, size_t end) {
    void *t = out->toks;
    if (tc_grow(&t, &out->cap, out->n + 1, sizeof *out->toks) != 0) return -1;
    out->toks = t;
    out->toks[out->n].id = id;
    out->toks[out->n].start = (uint32_t)start;
    out->toks[out->n].end = (uint32_t)end;
    out->n++;
    return 0;
}

static int push_step(tc_kestrel_out *out, const tc_kestrel_step *st) {
    void *t = out->steps;
    if (tc_grow(&t, &out->steps_cap, out->nsteps + 1, sizeof *out->steps) != 0) return -1;
    out->steps = t;
    out->steps[out->nsteps++] = *st;
    return 0;
}

int tc_kestrel_encode(const tc_greedy *g, int version, const uint8_t *text, size_t len, int trace,
                      tc_kestrel_out *out, tc_error *err) {
    static const uint8_t SPACE_MARK[2] = {0xC4, 0xA0}, NEWLINE_MARK[2] = {0xC4, 0x8A};
    if (!g || !out || (!text && len)) return tc_error_set(err, TC_ERR_ARG, "kestrel: missing argument");
    if (version != 1 && version != 2) return tc_error_set(err, TC_ERR_ARG, "kestrel: unknown version %d", version);
    out->n = out->nsteps = 0;
    if (len > TC_GREEDY_MAX_TEXT_BYTES)
        return tc_error_set(err, TC_ERR_LIMIT, "kestrel: text of %zu bytes above the limit of %u", len, TC_GREEDY_MAX_TEXT_BYTES);
    if (len == 0) return TC_OK;

    /* rule 1: strlen */
    const uint8_t *nul = memchr(text, 0, len);
    size_t n = nul ? (size_t)(nul - text) : len;

    /* rule 4's special starts, in increasing order (v2 only) */
    size_t *starts = NULL, nstarts = 0, si = 0;
    if (version == 2) {
        size_t cap = 0, w;
        for (const uint8_t *p = memchr(text, '<', n); p; p = memchr(p + 1, '<', n - (size_t)(p + 1 - text))) {
            size_t at = (size_t)(p - text);
            if (!special_at(p, n - at, &w)) continue;
            void *t = starts;
            if (tc_grow(&t, &cap, nstarts + 1, sizeof *starts) != 0) {
                free(starts);
                return tc_error_set(err, TC_ERR_NOMEM, "kestrel: out of memory");
            }
            starts = t;
            starts[nstarts++] = at;
            if (at + 1 >= n) break;
        }
    }

    int rc = TC_OK;
    size_t pos = 0;
    while (pos < n) {
        tc_kestrel_step st;
        memset(&st, 0, sizeof st);
        st.pos = (uint32_t)pos;
        st.id = st.retry_id = NO_ID;
        /* rule 2 */
        while (pos < n && text[pos] == ' ') pos++;
        st.at = (uint32_t)pos;
        st.spaces = st.at - st.pos;
        if (pos >= n) {
            st.rule = TC_KR_TRAILING;
            if (trace && push_step(out, &st) != 0) goto oom;
            break;
        }
        const uint8_t *rem = text + pos;
        size_t rem_len = n - pos, lim = rem_len, mlen = 0;
        st.limit = (uint32_t)lim;
        uint32_t id = NO_ID;
        size_t tok_start = pos, consumed = 0;

        if (version == 2) {
            /* rule 3 */
            size_t which = 0, sl = special_at(rem, rem_len, &which);
            if (sl) id = exact(g, (const uint8_t *)SPECIALS[which], sl);
            if (id != NO_ID) {
                st.rule = TC_KR_SPECIAL;
                consumed = sl;
                goto emit;
            }
            /* rule 4 */
            while (si < nstarts && starts[si] <= pos) si++;
            if (si < nstarts) lim = starts[si] - pos;
            st.limit = (uint32_t)lim;
        }

        /* rule 5 */
        if (st.spaces && out->n > 0) {
            size_t body = rem_len < TC_KESTREL_RETRY_TEXT ? rem_len : TC_KESTREL_RETRY_TEXT;
            uint32_t rid = longest(g, SPACE_MARK, 2, rem, body, 2 + body, &mlen);
            st.retry_id = rid;
            st.retry_len = (uint32_t)mlen;
            if (rid != NO_ID && mlen > 2 && (version == 1 || mlen - 2 <= lim)) {
                st.retry = TC_KRR_TAKEN;
                st.rule = TC_KR_SPACE_RETRY;
                id = rid;
                consumed = mlen - 2;
                tok_start = pos - 1;
                goto emit;
            }
            st.retry = (rid != NO_ID && mlen > 2) ? TC_KRR_GUARDED : TC_KRR_ONLY_SPACE;
        }

        /* rule 6 */
        id = longest(g, NULL, 0, rem, rem_len, lim, &mlen);
        if (trace && lim < rem_len) {
            size_t full;
            (void)longest(g, NULL, 0, rem, rem_len, rem_len, &full);
            st.unguarded = (uint32_t)full;
        } else {
            st.unguarded = (uint32_t)mlen;
        }
        if (id != NO_ID) {
            st.rule = TC_KR_MATCH;
            consumed = mlen;
            goto emit;
        }

        /* rule 7 */
        if (rem[0] == '\n') {
            if (version == 1) {
                id = longest(g, NULL, 0, NEWLINE_MARK, 2, 2, &mlen);
                if (id != NO_ID && mlen == 2) {
                    st.rule = TC_KR_NEWLINE;
                    consumed = 1;
                    goto emit;
                }
            } else {
                uint8_t nb[2 * TC_KESTREL_NEWLINE_RUN];
                size_t nl = 0;
                while (nl < rem_len && rem[nl] == '\n') nl++;
                if (nl > TC_KESTREL_NEWLINE_RUN) nl = TC_KESTREL_NEWLINE_RUN;
                if (nl > lim) nl = lim;
                for (size_t i = 0; i < nl; i++) { nb[2 * i] = 0xC4; nb[2 * i + 1] = 0x8A; }
                id = longest(g, NULL, 0, nb, 2 * nl, 2 * nl, &mlen);
                if (id != NO_ID && mlen >= 2 && mlen % 2 == 0) {
                    st.rule = TC_KR_NEWLINE;
                    consumed = mlen / 2;
                    goto emit;
                }
            }
        }

        /* rule 8 */
        id = exact(g, rem, 1);
        st.rule = id != NO_ID ? TC_KR_BYTE : TC_KR_UNK;
        if (id == NO_ID) id = 0;
        consumed = 1;

    emit:
        st.id = id;
        st.consumed = (uint32_t)consumed;
        if (push_tok(out, id, tok_start, pos + consumed) != 0) goto oom;
        if (trace && push_step(out, &st) != 0) goto oom;
        pos += consumed;
    }
    if (nul && trace) {
        tc_kestrel_step st;
        memset(&st, 0, sizeof st);
        st.pos = st.at = (uint32_t)n;
        st.id = st.retry_id = NO_ID;
        st.consumed = (uint32_t)(len - n);
        st.rule = TC_KR_NUL;
        if (push_step(out, &st) != 0) goto oom;
    }
    goto done;
oom:
    rc = tc_error_set(err, TC_ERR_NOMEM, "kestrel: out of memory");
done:
    free(starts);
    return rc;
}
