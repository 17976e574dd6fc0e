/* test_sampler.c - unit tests for native/src/sampler.c and logits.c: RNG
 * known answers (xorshift64* against a reference written here, mt19937 and
 * glibc rand() published values), per-preset rules on hand-built logits, the
 * invariants of every stage on random rows with NaN/inf, and logits parsing.
 *
 * Build (from the repository root):
 *   gcc -std=c11 -Wall -Wextra -Werror -O2 -Inative/src tests/native/test_sampler.c \
 *       native/src/sampler.c native/src/logits.c native/src/platform.c native/src/common.c -lm -o /tmp/test_sampler
 * Prints "N passed, M failed"; exit status nonzero on any failure.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logits.h"
#include "sampler.h"

static int g_pass, g_fail;

#define CHECK(cond) do { \
        if (cond) g_pass++; \
        else { g_fail++; fprintf(stderr, "%s:%d: FAILED: %s\n", __FILE__, __LINE__, #cond); } \
    } while (0)

/* reference xorshift64*, written from the published algorithm (Vigna) */
static uint64_t ref_xs(uint64_t *s) {
    if (*s == 0) *s = 0x9e3779b97f4a7c15ull;
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

static void test_rngs(void) {
    const uint64_t seeds[] = {0, 1, 42, 0x8000000000000000ull, 0xffffffffffffffffull};
    for (size_t k = 0; k < sizeof seeds / sizeof *seeds; k++) {
        uint64_t a = seeds[k], b = seeds[k];
        int ok = 1;
        for (int i = 0; i < 1000; i++) ok &= tc_xorshift64s_next(&a) == ref_xs(&b);
        CHECK(ok && a == b);
    }
    uint64_t s = 7, t = 7;
    float f = tc_xorshift64s_f32(&s);
    CHECK(f == (float)(ref_xs(&t) >> 40) / 16777216.0f && f >= 0.0f && f < 1.0f);

    tc_mt19937 mt;
    tc_mt19937_seed(&mt, 5489);
    uint32_t first = tc_mt19937_next(&mt), v = first;
    for (int i = 1; i < 10000; i++) v = tc_mt19937_next(&mt);
    CHECK(first == 3499211612u);
    CHECK(v == 4123659995u);
    CHECK(mt.consumed == 10000);
    tc_mt19937_seed(&mt, 5489);
    double c = tc_mt19937_canonical(&mt);
    tc_mt19937 m2;
    tc_mt19937_seed(&m2, 5489);
    uint32_t g1 = tc_mt19937_next(&m2), g2 = tc_mt19937_next(&m2);
    CHECK(c == ((double)g1 + (double)g2 * 4294967296.0) / 18446744073709551616.0);
    CHECK(mt.consumed == 2);

    tc_glibc_rand g;
    tc_glibc_srand(&g, 1);
    const int32_t want[] = {1804289383, 846930886, 1681692777, 1714636915, 1957747793, 424238335, 719885386};
    int ok = 1;
    for (int i = 0; i < 7; i++) ok &= tc_glibc_rand_next(&g) == want[i];
    CHECK(ok);
    tc_glibc_rand g0;
    tc_glibc_srand(&g0, 0);   /* srand(0) is srand(1) in glibc */
    CHECK(tc_glibc_rand_next(&g0) == 1804289383);
}

static tc_sampler_params params(tc_sampler_preset p, float T, int32_t k, float tp, float mp, uint64_t seed) {
    tc_sampler_params s;
    memset(&s, 0, sizeof s);
    s.preset = p; s.temperature = T; s.top_k = k; s.top_p = tp; s.min_p = mp; s.seed = seed;
    s.n_order = 4;
    for (int i = 0; i < 4; i++) { s.order[i] = (tc_stage_kind)i; s.semantics[i] = TC_SEM_LLAMA; }
    return s;
}

static const tc_sstage *final_stage(const tc_sresult *r) { return &r->stages[r->n_stages - 1]; }

/* runs and draws n; checks the universal invariants; returns the first draw */
static int32_t run(const float *lg, uint32_t n, tc_sampler_params p, tc_sresult *r, int32_t *draws, uint32_t nd,
                   tc_draw_state *st) {
    tc_error err = {0};
    int rc = tc_sampler_run(lg, n, &p, r, &err);
    CHECK(rc == TC_OK);
    if (rc != TC_OK) { fprintf(stderr, "  %s\n", err.msg); return -1; }
    for (int s = 0; s < r->n_stages; s++) {
        double sum = 0;
        for (uint32_t i = 0; i < r->stages[s].n; i++) {
            CHECK(r->stages[s].ids[i] >= 0 && (uint32_t)r->stages[s].ids[i] < n);
            sum += r->stages[s].probs[i];
        }
        if (r->stages[s].n) CHECK(fabs(sum - 1.0) < 1e-9);
        CHECK(r->stages[s].kept_mass >= -1e-12 && r->stages[s].kept_mass <= 1.0 + 1e-9);
    }
    tc_draw_state local;
    CHECK(tc_sampler_draw(r, &p, nd, draws, st ? st : &local, &err) == TC_OK);
    return nd ? draws[0] : -1;
}

static void test_ds4(void) {
    tc_sresult r;
    int32_t d[64];
    tc_draw_state st;
    /* T = 0: argmax, lowest id among equal maxima, no RNG draw */
    float ties[6] = {1, 5, 2, 5, NAN, INFINITY};
    run(ties, 6, params(TC_SP_DS4, 0.0f, 40, 0.9f, 0.0f, 1), &r, d, 3, &st);
    CHECK(r.greedy && d[0] == 5 && d[2] == 5);   /* +inf > -1e30: sample_argmax takes it */
    CHECK(strcmp(st.before, st.after) == 0);
    tc_sresult_free(&r);
    float ties2[5] = {1, 5, 2, 5, NAN};
    run(ties2, 5, params(TC_SP_DS4, 0.0f, 40, 0.9f, 0.0f, 1), &r, d, 1, NULL);
    CHECK(d[0] == 1);
    tc_sresult_free(&r);
    /* top-k path: equal logits keep the lower id first; NaN/inf skipped */
    run(ties, 6, params(TC_SP_DS4, 1.0f, 3, 1.0f, 0.0f, 1), &r, d, 16, &st);
    const tc_sstage *tk = &r.stages[1];
    CHECK(strcmp(tk->name, "top_k") == 0 && tk->n == 3 && tk->ids[0] == 1 && tk->ids[1] == 3 && tk->ids[2] == 2);
    CHECK(strcmp(st.before, st.after) != 0);
    tc_sresult_free(&r);
    /* top-k above 1024 is capped; above the vocabulary, too */
    float *big = malloc(3000 * sizeof *big);
    for (int i = 0; i < 3000; i++) big[i] = (float)(i % 97) * 0.01f;
    run(big, 3000, params(TC_SP_DS4, 1.0f, 5000, 1.0f, 0.0f, 3), &r, d, 4, NULL);
    CHECK(r.stages[1].n == 1024 && strstr(r.stages[1].cutoff, "capped") != NULL);
    tc_sresult_free(&r);
    run(big, 10, params(TC_SP_DS4, 1.0f, 50, 1.0f, 0.0f, 3), &r, d, 4, NULL);
    CHECK(r.stages[1].n == 10);
    tc_sresult_free(&r);
    /* all-equal logits: uniform final, every draw a candidate; top_p = 0 means 1 in ds4 */
    float eq[8] = {2, 2, 2, 2, 2, 2, 2, 2};
    run(eq, 8, params(TC_SP_DS4, 0.7f, 0, 0.0f, 0.0f, 9), &r, d, 64, NULL);
    CHECK(final_stage(&r)->n == 8 && fabs(final_stage(&r)->probs[3] - 0.125) < 1e-12);
    CHECK(strstr(r.notes, "treated as 1") != NULL);
    tc_sresult_free(&r);
    /* a single finite logit */
    float one[4] = {-INFINITY, NAN, 3.0f, -INFINITY};
    for (int k = -1; k <= 2; k += 3) {
        run(one, 4, params(TC_SP_DS4, 1.0f, k, 0.5f, 0.1f, 5), &r, d, 8, NULL);
        int all2 = 1;
        for (int i = 0; i < 8; i++) all2 &= d[i] == 2;
        CHECK(all2 && final_stage(&r)->n == 1);
        tc_sresult_free(&r);
    }
    /* the draw follows ds4: r = u * sum; subtract until <= 0 (reference here) */
    float lg[5] = {0.5f, 1.5f, -0.25f, 1.0f, 0.0f};
    run(lg, 5, params(TC_SP_DS4, 0.9f, 4, 1.0f, 0.0f, 1234), &r, d, 32, NULL);
    {
        int ids[4] = {1, 3, 0, 4};
        float pr[4], sum = 0;
        for (int i = 0; i < 4; i++) { pr[i] = expf((lg[ids[i]] - lg[1]) / 0.9f); sum += pr[i]; }
        uint64_t s = 1234;
        int ok = 1;
        for (int t = 0; t < 32; t++) {
            float u = (float)(ref_xs(&s) >> 40) / 16777216.0f, rr = u * sum;
            int got = ids[3];
            for (int i = 0; i < 4; i++) { rr -= pr[i]; if (rr <= 0.0f) { got = ids[i]; break; } }
            ok &= got == d[t];
        }
        CHECK(ok);
    }
    tc_sresult_free(&r);
    free(big);
}

static void test_llama(void) {
    tc_sresult r;
    int32_t d[16];
    tc_draw_state st;
    float lg[6] = {1, 3, 2, 3, 0, -1};
    /* T = 0: greedy but dist still consumes two mt19937 outputs per draw */
    run(lg, 6, params(TC_SP_LLAMA, 0.0f, 0, 1.0f, 0.0f, 5), &r, d, 4, &st);
    CHECK(r.greedy && d[0] == 1 && d[3] == 1);
    CHECK(strstr(st.after, "consumed: 8") != NULL);
    tc_sresult_free(&r);
    /* one candidate left (k = 1): selected 0, the RNG is not touched */
    run(lg, 6, params(TC_SP_LLAMA, 0.8f, 1, 1.0f, 0.0f, 5), &r, d, 4, &st);
    CHECK(d[0] == 1 && strstr(st.after, "consumed: 0") != NULL);
    tc_sresult_free(&r);
    /* top-k above the vocabulary: k = size; top-p 0 keeps the top one */
    run(lg, 6, params(TC_SP_LLAMA, 1.0f, 100, 0.0f, 0.0f, 5), &r, d, 2, NULL);
    CHECK(r.stages[1].n == 6 && r.stages[2].n == 1);
    tc_sresult_free(&r);
    /* min-p on logits before temperature: logit >= max + ln(0.5) */
    run(lg, 6, params(TC_SP_LLAMA, 2.0f, 0, 1.0f, 0.5f, 5), &r, d, 2, NULL);
    CHECK(r.stages[3].n == 2);   /* only the two 3's: 2 < 3 + ln 0.5 */
    tc_sresult_free(&r);
    /* the draw against a reference: double running sum >= sum * canonical */
    run(lg, 6, params(TC_SP_LLAMA, 0.8f, 4, 0.95f, 0.0f, 77), &r, d, 16, NULL);
    {
        const tc_splan *pl = &r.plan;
        tc_mt19937 mt;
        tc_mt19937_seed(&mt, 77);
        int ok = pl->kind == TC_DRAW_LLAMA;
        for (int t = 0; t < 16; t++) {
            double u = tc_mt19937_canonical(&mt), tgt = pl->dsum * u, run = 0;
            int got = pl->ids[pl->n - 1];
            for (uint32_t i = 0; i < pl->n; i++) { run += pl->fw[i]; if (run >= tgt) { got = pl->ids[i]; break; } }
            ok &= got == d[t];
        }
        CHECK(ok);
    }
    tc_sresult_free(&r);
}

static void test_kestrel(void) {
    tc_sresult r;
    int32_t d[16];
    tc_draw_state st;
    float lg[6] = {9, 8, 1, 7, 2, 2};
    /* top_p = 0 or T = 0: argmax over raw logits, ban not applied, no rand() */
    run(lg, 6, params(TC_SP_KESTREL, 1.0f, 0, 0.0f, 0.0f, 1), &r, d, 2, &st);
    CHECK(r.greedy && d[0] == 0 && strstr(st.after, "calls: 0") != NULL);
    tc_sresult_free(&r);
    /* sampling: ids 0, 1, 3 banned; never drawn (except rand() == 0) */
    run(lg, 6, params(TC_SP_KESTREL, 1.0f, 0, 1.0f, 0.0f, 1), &r, d, 16, &st);
    int ok = 1;
    for (int i = 0; i < 16; i++) ok &= d[i] == 2 || d[i] == 4 || d[i] == 5;
    CHECK(ok && strstr(st.after, "calls: 16") != NULL);
    CHECK(final_stage(&r)->n == 3);
    tc_sresult_free(&r);
    /* top-p on unrenormalized probs: after the ban the mass left is small, p is never reached */
    run(lg, 6, params(TC_SP_KESTREL, 1.0f, 0, 0.5f, 0.0f, 1), &r, d, 4, NULL);
    CHECK(final_stage(&r)->n == 3 && strstr(final_stage(&r)->cutoff, "never reached") != NULL);
    tc_sresult_free(&r);
    /* top-k equal probabilities: the min-heap keeps the earlier ids */
    float eq[8] = {0, 0, 5, 0, 5, 5, 5, 1};
    run(eq, 8, params(TC_SP_KESTREL, 1.0f, 2, 1.0f, 0.0f, 1), &r, d, 4, NULL);
    CHECK(r.stages[3].n == 2 && r.stages[3].ids[0] == 2 && r.stages[3].ids[1] == 4);
    tc_sresult_free(&r);
}

static void test_hf(void) {
    tc_sresult r;
    int32_t d[8];
    float lg[6] = {1, 3, 2, 2, 2, 0};
    /* top-k keeps every tie at the k-th value */
    run(lg, 6, params(TC_SP_HF, 1.0f, 2, 1.0f, 0.0f, 1), &r, d, 8, NULL);
    CHECK(r.stages[2].n == 4);
    CHECK(strstr(r.notes, "not reproducible") != NULL);
    tc_sresult_free(&r);
    /* top_p = 0 keeps one (min_tokens_to_keep) */
    run(lg, 6, params(TC_SP_HF, 1.0f, 0, 0.0f, 0.0f, 1), &r, d, 8, NULL);
    CHECK(r.stages[3].n == 1 && r.stages[3].ids[0] == 1 && d[0] == 1);
    tc_sresult_free(&r);
    /* top-p ties (transformers TopPLogitsWarper, torch.sort ascending keeps index order):
     * [3, 1, 1, 1] -> probs 0.7112, 0.0963 x3; ascending ids 1, 2, 3, 0, cumulative
     * 0.0963, 0.1925, 0.2888, 1; p = 0.8 removes cumulative <= 0.2 (ids 1, 2); the
     * kept scores stay in vocabulary order */
    float tie[4] = {3, 1, 1, 1};
    run(tie, 4, params(TC_SP_HF, 1.0f, 0, 0.8f, 0.0f, 1), &r, d, 4, NULL);
    CHECK(r.stages[3].n == 2 && r.stages[3].ids[0] == 0 && r.stages[3].ids[1] == 3);
    tc_sresult_free(&r);
    /* equal maxima, p = 0.3: ascending [0, 1], cumulative 0.5 <= 0.7 removes id 0; the
     * last sorted entry (id 1) is the min_tokens_to_keep one */
    float two[2] = {5, 5};
    run(two, 2, params(TC_SP_HF, 1.0f, 0, 0.3f, 0.0f, 1), &r, d, 4, NULL);
    CHECK(r.stages[3].n == 1 && r.stages[3].ids[0] == 1 && d[0] == 1 && d[3] == 1);
    tc_sresult_free(&r);
    /* custom order and semantics */
    tc_sampler_params p = params(TC_SP_CUSTOM, 1.0f, 3, 0.9f, 0.2f, 1);
    p.n_order = 2;
    p.order[0] = TC_STAGE_MIN_P; p.order[1] = TC_STAGE_TOP_K;
    p.semantics[TC_STAGE_TOP_K] = TC_SEM_HF;
    run(lg, 6, p, &r, d, 8, NULL);
    CHECK(r.n_stages == 3 && strcmp(r.stages[1].name, "min_p") == 0 && strcmp(r.stages[2].name, "top_k") == 0);
    tc_sresult_free(&r);
    tc_error err = {0};
    p.n_order = 2;
    p.order[1] = TC_STAGE_MIN_P;
    CHECK(tc_sampler_run(lg, 6, &p, &r, &err) == TC_ERR_ARG);
    tc_sresult_free(&r);
}

/* random rows with NaN / inf for every preset: the invariants, the draw in the final set */
static void test_random(void) {
    uint64_t s = 99;
    float lg[300];
    tc_sresult r;
    int32_t d[50];
    for (int trial = 0; trial < 200; trial++) {
        uint32_t n = 1 + (uint32_t)(ref_xs(&s) % 300);
        for (uint32_t i = 0; i < n; i++) {
            uint64_t x = ref_xs(&s);
            lg[i] = (float)((int)(x % 2000) - 1000) / 100.0f;
            if (x % 53 == 0) lg[i] = NAN;
            if (x % 59 == 0) lg[i] = -INFINITY;
            if (x % 211 == 0) lg[i] = (x & 1) ? INFINITY : 3.0f;
        }
        tc_sampler_preset pre = (tc_sampler_preset)(trial % 5);
        float T = (float)(ref_xs(&s) % 300) / 100.0f;
        int32_t k = (int32_t)(ref_xs(&s) % 50) - 5;
        float tp = (float)(ref_xs(&s) % 110) / 100.0f, mp = (float)(ref_xs(&s) % 30) / 100.0f;
        tc_sampler_params p = params(pre, T, k, tp, mp, ref_xs(&s) & 0xffffffff);
        for (int i = 0; i < 4; i++) p.semantics[i] = (tc_semantics)(ref_xs(&s) % 4);
        run(lg, n, p, &r, d, 50, NULL);
        const tc_sstage *f = final_stage(&r);
        int has_nan_or_inf = 0;
        for (uint32_t i = 0; i < n; i++) has_nan_or_inf |= !isfinite(lg[i]);
        for (int i = 0; i < 50; i++) {
            int in = 0;
            for (uint32_t j = 0; j < f->n; j++) in |= f->ids[j] == d[i];
            /* a draw outside the final set only through an engine's documented
             * fallback on non-finite sums (llama.cpp +inf, ds4/kestrel NaN) */
            if (!in && !has_nan_or_inf) fprintf(stderr, "  trial %d preset %d: draw %d not final\n", trial, pre, d[i]);
            CHECK(in || has_nan_or_inf);
        }
        tc_sresult_free(&r);
    }
}

static void test_logits(void) {
    tc_logits l;
    tc_error err = {0};
    float row[8];
    /* npy v1, <f4, shape (2, 3) */
    uint8_t npy[128 + 24];
    memset(npy, ' ', 128);
    memcpy(npy, "\x93NUMPY\x01\x00", 8);
    npy[8] = 118; npy[9] = 0;
    const char *hdr = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
    memcpy(npy + 10, hdr, strlen(hdr));
    npy[127] = '\n';
    float vals[6] = {1, 2, 3, -4, NAN, INFINITY};
    memcpy(npy + 128, vals, 24);
    CHECK(tc_logits_parse(npy, sizeof npy, TC_LOGITS_AUTO, 0, &l, &err) == TC_OK);
    CHECK(l.steps == 2 && l.vocab == 3 && l.offset == 128 && l.dtype == TC_DT_F32);
    CHECK(tc_logits_row(&l, 1, row) == TC_OK && row[0] == -4 && isnan(row[1]) && isinf(row[2]));
    CHECK(tc_logits_row(&l, 2, row) == TC_ERR_ARG);
    tc_logits_free(&l);
    CHECK(tc_logits_parse(npy, sizeof npy, TC_LOGITS_NPY, 5, &l, &err) != TC_OK && strstr(err.msg, "3") && strstr(err.msg, "5"));
    tc_logits_free(&l);
    CHECK(tc_logits_parse(npy, sizeof npy - 1, TC_LOGITS_NPY, 0, &l, &err) == TC_ERR_FORMAT);
    tc_logits_free(&l);
    memcpy((uint8_t *)strstr((const char *)npy + 10, "False"), "True ", 5);
    CHECK(tc_logits_parse(npy, sizeof npy, TC_LOGITS_NPY, 0, &l, &err) == TC_ERR_UNSUPPORTED);
    tc_logits_free(&l);
    /* raw f16 / bf16 */
    uint8_t h[8] = {0x00, 0x3c, 0x00, 0xc0, 0x00, 0x7c, 0x01, 0x00};   /* 1, -2, inf, smallest subnormal */
    CHECK(tc_logits_parse(h, 8, TC_LOGITS_F16, 4, &l, &err) == TC_OK && l.steps == 1);
    tc_logits_row(&l, 0, row);
    CHECK(row[0] == 1.0f && row[1] == -2.0f && isinf(row[2]) && row[3] == ldexpf(1.0f, -24));
    tc_logits_free(&l);
    CHECK(tc_logits_parse(h, 8, TC_LOGITS_F16, 3, &l, &err) == TC_ERR_FORMAT && strstr(err.msg, "8 bytes") && strstr(err.msg, " 3 "));
    tc_logits_free(&l);
    uint8_t b[4] = {0x80, 0x3f, 0xc0, 0x7f};   /* bf16 1.0, NaN */
    CHECK(tc_logits_parse(b, 4, TC_LOGITS_BF16, 2, &l, &err) == TC_OK);
    tc_logits_row(&l, 0, row);
    CHECK(row[0] == 1.0f && isnan(row[1]));
    tc_logits_free(&l);
    /* text */
    const char *txt = "1.5\n-inf\n  nan \r\n\n2e3\n";
    CHECK(tc_logits_parse((const uint8_t *)txt, strlen(txt), TC_LOGITS_AUTO, 0, &l, &err) == TC_OK);
    CHECK(l.format == TC_LOGITS_TEXT && l.vocab == 4 && l.steps == 1);
    tc_logits_row(&l, 0, row);
    CHECK(row[0] == 1.5f && isinf(row[1]) && row[1] < 0 && isnan(row[2]) && row[3] == 2000.0f);
    tc_logits_free(&l);
    CHECK(tc_logits_parse((const uint8_t *)txt, strlen(txt), TC_LOGITS_TEXT, 2, &l, &err) == TC_OK && l.steps == 2);
    tc_logits_free(&l);
    CHECK(tc_logits_parse((const uint8_t *)"1\nx2\n", 5, TC_LOGITS_TEXT, 0, &l, &err) == TC_ERR_FORMAT && strstr(err.msg, "line 2"));
    tc_logits_free(&l);
}

int main(void) {
    test_rngs();
    test_ds4();
    test_llama();
    test_kestrel();
    test_hf();
    test_random();
    test_logits();
    printf("%d passed, %d failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
