/* spm_unigram.c - the Unigram model type of a SentencePiece `.model`, as
 * the sentencepiece package runs it (google/sentencepiece, the sources of
 * the sentencepiece 0.2.3 sdist, src/unigram_model.cc). HF's Unigram
 * (unigram.c) differs from it in the details below, so this is its own
 * Viterbi over unigram.c's byte trie.
 *
 * Rules, each from unigram_model.cc unless named otherwise:
 *  - Model::Model: InitializePieces(use_reserved_id_map = true): only
 *    NORMAL, USER_DEFINED and UNUSED pieces go into the trie (CONTROL,
 *    UNKNOWN and BYTE pieces are never matched in the text); a NaN or
 *    infinite score anywhere refuses the model ("score is NaN or Inf.");
 *    min_score is the minimum over NORMAL pieces only (FLT_MAX when none).
 *  - BuildTrie: no trie piece at all refuses the model ("no pieces are
 *    loaded.").
 *  - EncodeOptimized, all in float32 (scores are float, sums are float):
 *    positions are bytes; a candidate ends at key_pos after each trie step;
 *    UNUSED ids are skipped ("continue"; left out of our trie, which is the
 *    same walk); a USER_DEFINED piece scores GetUserDefinedScore(length) =
 *    (float)(0.1 * (length - 1)) with length in bytes; a candidate replaces
 *    the node at its end when that node is unset or its score is strictly
 *    greater (the first path found wins a tie); a position without a
 *    piece of exactly one character (OneCharLen of its lead byte, capped at
 *    the end) gets an unknown node of that character scored
 *    min_score - kUnkPenalty (10) with the model's unk id (-1 when the
 *    model has no UNKNOWN piece: byte_fallback); when the best score so far
 *    leaves [-kScoreResetThreshold, kScoreResetThreshold] (1e5), it is
 *    subtracted from every set node from the current position to the
 *    frontier (the farthest end seen), which changes float rounding and is
 *    followed exactly; backtracking from the end gives the pieces.
 *  - Fusing unknowns and byte fallback happen later, in
 *    sentencepiece_processor.cc PopulateSentencePieceText (spm_model.c).
 * Does not: sampling, n-best.
 */
#include "spm_model.h"
#include "unigram.h"

#include <float.h>
#include <math.h>

#define UNK_PENALTY 10.0f                 /* unigram_model.cc kUnkPenalty */
#define SCORE_RESET_THRESHOLD 100000.0f   /* EncodeOptimized kScoreResetThreshold */

void tc_spm_ugm_free(tc_spm_ugm *m) {
    if (!m) return;
    tc_unigram_free(m->trie);
    m->trie = NULL;
}

int tc_spm_ugm_init(tc_spm_ugm *m, const tc_spm_proto *p, tc_error *err) {
    memset(m, 0, sizeof *m);
    float min_score = FLT_MAX;
    uint32_t in_trie = 0;
    for (uint32_t i = 0; i < p->npieces; i++) {
        const tc_spm_piece *pc = &p->pieces[i];
        if (isnan(pc->score) || isinf(pc->score))
            return tc_error_set(err, TC_ERR_FORMAT,
                                "SentencePiece model: at byte offset %u (ModelProto.pieces[%u].score): the score is %s "
                                "(sentencepiece: \"score is NaN or Inf.\")",
                                pc->score_at, i, isnan(pc->score) ? "NaN" : "infinite");
        if (pc->type == TC_SPM_NORMAL && pc->score < min_score) min_score = pc->score;
        in_trie += pc->type == TC_SPM_NORMAL || pc->type == TC_SPM_USER_DEFINED;
    }
    if (in_trie == 0)
        return tc_error_set(err, TC_ERR_FORMAT, "SentencePiece model: a Unigram model with no NORMAL or USER_DEFINED piece "
                                                "(sentencepiece: \"no pieces are loaded.\")");
    const uint8_t **strs = malloc(p->npieces * sizeof *strs);
    size_t *lens = malloc(p->npieces * sizeof *lens);
    if (!strs || !lens) {
        free(strs); free(lens);
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    }
    for (uint32_t i = 0; i < p->npieces; i++) {
        const tc_spm_piece *pc = &p->pieces[i];
        int keep = pc->type == TC_SPM_NORMAL || pc->type == TC_SPM_USER_DEFINED;
        strs[i] = p->pool.data + pc->off;
        lens[i] = keep ? pc->len : 0;   /* length 0: not in the trie */
    }
    m->trie = tc_unigram_trie_new(strs, lens, p->npieces, err);
    free(strs);
    free(lens);
    if (!m->trie) return err->code ? err->code : TC_ERR_NOMEM;
    m->unk_score = min_score - UNK_PENALTY;
    return TC_OK;
}

typedef struct best_node {
    float score;
    int64_t start;   /* -1: unset */
    int64_t id;
} best_node;

/* GetUserDefinedScore: 0.1 * (length - 1) in double, returned as float */
static float user_defined_score(size_t length) { return (float)(0.1 * ((double)length - 1.0)); }

static int lattice_push(tc_trace *tr, size_t start, size_t len, int64_t id, float score, float path, int unk) {
    void *q = tr->lattice;
    if (tc_grow(&q, &tr->lattice_cap, tr->nlattice + 1, sizeof *tr->lattice) != 0) return -1;
    tr->lattice = q;
    tc_trace_lattice_node *l = &tr->lattice[tr->nlattice++];
    memset(l, 0, sizeof *l);
    l->start = (uint32_t)start; l->len = (uint32_t)len;
    l->id = id >= 0 ? (uint32_t)id : UINT32_MAX;
    l->score = score; l->path_score = path;
    l->unk = (uint8_t)unk;
    return 0;
}

static int seg_push(tc_spm_seg **out, size_t *nout, size_t *cap, size_t start, size_t len, int64_t id) {
    void *q = *out;
    if (tc_grow(&q, cap, *nout + 1, sizeof **out) != 0) return -1;
    *out = q;
    (*out)[*nout].start = (uint32_t)start;
    (*out)[*nout].len = (uint32_t)len;
    (*out)[*nout].id = id;
    (*nout)++;
    return 0;
}

int tc_spm_ugm_encode(const tc_spm_ugm *m, const tc_spm_proto *p, int64_t unk_id, const uint8_t *t, size_t n,
                      tc_spm_seg **out, size_t *nout, size_t *cap, tc_trace *tr) {
    *nout = 0;
    if (n == 0) return 0;   /* normalized.empty(): no pieces */
    static const uint8_t one_char_len[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4};   /* util.h OneCharLen */
    best_node *bn = malloc((n + 1) * sizeof *bn);
    if (!bn) return -1;
    for (size_t i = 0; i <= n; i++) { bn[i].score = 0.0f; bn[i].start = -1; bn[i].id = -1; }
    size_t lat_first = tr ? tr->nlattice : 0;
    size_t max_frontier = 0;
    int rc = 0;
    for (size_t at = 0; at < n && rc == 0;) {
        float till = bn[at].score;
        if (till < -SCORE_RESET_THRESHOLD || till > SCORE_RESET_THRESHOLD) {
            const float offset = till;
            for (size_t i = at; i <= max_frontier; i++)
                if (i == at || bn[i].start != -1) bn[i].score -= offset;
            till = 0.0f;
        }
        int single = 0;
        size_t mblen = one_char_len[t[at] >> 4];
        if (mblen > n - at) mblen = n - at;
        uint32_t node = 0;
        for (size_t k = at; k < n && rc == 0; k++) {
            node = tc_unigram_trie_step(m->trie, node, t[k]);
            if (!node) break;
            int32_t id = tc_unigram_trie_id(m->trie, node);
            if (id < 0) continue;
            size_t key = k + 1, length = key - at;
            if (key > max_frontier) max_frontier = key;
            const tc_spm_piece *pc = &p->pieces[id];
            /* user-defined symbols get a bonus so that they are always taken */
            const float score = pc->type == TC_SPM_USER_DEFINED ? user_defined_score(length) : pc->score;
            const float cand = score + till;
            best_node *b = &bn[key];
            if (b->start == -1 || cand > b->score) { b->score = cand; b->start = (int64_t)at; b->id = id; }
            if (length == mblen) single = 1;
            if (tr && lattice_push(tr, at, length, id, score, cand, 0) != 0) rc = -1;
        }
        if (!single && rc == 0) {
            if (at + mblen > max_frontier) max_frontier = at + mblen;
            best_node *b = &bn[at + mblen];
            const float cand = m->unk_score + till;
            if (b->start == -1 || cand > b->score) { b->score = cand; b->start = (int64_t)at; b->id = unk_id; }
            if (tr && lattice_push(tr, at, mblen, unk_id, m->unk_score, cand, 1) != 0) rc = -1;
        }
        at += mblen;
    }
    /* backtrack from the end; the pieces come out last first */
    for (size_t end = n; rc == 0 && end > 0;) {
        const best_node *b = &bn[end];
        if (b->start < 0 || (size_t)b->start >= end) { rc = -1; break; }   /* unreachable: every character start is reached */
        size_t st = (size_t)b->start;
        if (tr) {
            for (size_t k = lat_first; k < tr->nlattice; k++) {
                tc_trace_lattice_node *l = &tr->lattice[k];
                /* trie pieces never have the unk id (UNKNOWN pieces are not in the trie) */
                int same = l->unk ? b->id == unk_id : b->id != unk_id && (int64_t)l->id == b->id;
                if (l->start == st && l->start + l->len == end && same) { l->best = 1; break; }
            }
        }
        if (seg_push(out, nout, cap, st, end - st, b->id) != 0) rc = -1;
        end = st;
    }
    free(bn);
    if (rc != 0) return rc;
    for (size_t a = 0, z = *nout; a + 1 < z; a++, z--) {
        tc_spm_seg x = (*out)[a]; (*out)[a] = (*out)[z - 1]; (*out)[z - 1] = x;
    }
    return 0;
}
