/* sampler.c - engine samplers stage by stage (see sampler.h).
 *
 * Every rule below names the public source it follows:
 *   ds4.c      antirez/ds4 ds4.c: sample_rng_next, sample_rng_f32, sample_argmax,
 *              sample_full_vocab, sample_top_p_min_p
 *   llama.cpp  ggml-org/llama.cpp src/llama-sampling.cpp: llama_sampler_top_k_impl,
 *              llama_sampler_top_p_apply, llama_sampler_min_p_apply,
 *              llama_sampler_temp_impl, llama_sampler_dist_apply; the default chain
 *              order of common/sampling.cpp (top_k, top_p, min_p, temperature, dist)
 *   kestrel    m13253246268-ship-it/kestrel-llm src/core/vllm_transformer.c:
 *              sample_token_pk, apply_top_k
 *   hf         huggingface/transformers generation/logits_process.py:
 *              TemperatureLogitsWarper, TopKLogitsWarper, TopPLogitsWarper,
 *              MinPLogitsWarper (order of GenerationMixin._get_logits_processor)
 *   libstdc++  bits/random.tcc generate_canonical, mersenne_twister_engine
 *   glibc      stdlib/random_r.c srandom_r / random_r (TYPE_3)
 * The code is written from the rules, not copied. Float arithmetic follows
 * the engine's types operation by operation (this file must not be built
 * with -ffast-math; FP contraction is off under -std=c11).
 */
#include "sampler.h"

#include <math.h>
#include <stdio.h>

/* ---- RNGs ------------------------------------------------------------------ */

/* ds4.c sample_rng_next: zero state -> 0x9e3779b97f4a7c15; x ^= x>>12; x ^= x<<25;
 * x ^= x>>27; state = x; output x * 0x2545F4914F6CDD1D. */
uint64_t tc_xorshift64s_next(uint64_t *state) {
    uint64_t x = *state;
    if (x == 0) x = UINT64_C(0x9e3779b97f4a7c15);
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * UINT64_C(0x2545F4914F6CDD1D);
}

/* ds4.c sample_rng_f32: (float)((x >> 40) & 0xffffff) / 16777216.0f */
float tc_xorshift64s_f32(uint64_t *state) {
    uint64_t x = tc_xorshift64s_next(state);
    return (float)((x >> 40) & 0xffffffu) / 16777216.0f;
}

/* libstdc++ mersenne_twister_engine<uint32_t,32,624,397,31,0x9908b0df,11,
 * 0xffffffff,7,0x9d2c5680,15,0xefc60000,18,1812433253>: seed(), _M_gen_rand(). */
void tc_mt19937_seed(tc_mt19937 *g, uint32_t seed) {
    g->mt[0] = seed;
    for (uint32_t i = 1; i < 624; i++)
        g->mt[i] = 1812433253u * (g->mt[i - 1] ^ (g->mt[i - 1] >> 30)) + i;
    g->idx = 624;
    g->consumed = 0;
}

uint32_t tc_mt19937_next(tc_mt19937 *g) {
    if (g->idx >= 624) {
        for (uint32_t i = 0; i < 624; i++) {
            uint32_t y = (g->mt[i] & 0x80000000u) | (g->mt[(i + 1) % 624] & 0x7fffffffu);
            g->mt[i] = g->mt[(i + 397) % 624] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
        }
        g->idx = 0;
    }
    uint32_t y = g->mt[g->idx++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    g->consumed++;
    return y;
}

/* libstdc++ bits/random.tcc generate_canonical<double, 53>: r = 2^32, k =
 * max(1, (53 + 32 - 1) / 32) = 2 calls; sum = g1 * 1 + g2 * 2^32 (double
 * arithmetic, rounded), ret = sum / 2^64; ret >= 1 becomes nextafter(1, 0).
 * uniform_real_distribution<double>(0, 1) returns ret * (1 - 0) + 0. */
double tc_mt19937_canonical(tc_mt19937 *g) {
    double sum = 0.0, tmp = 1.0;
    for (int k = 0; k < 2; k++) {
        sum += (double)tc_mt19937_next(g) * tmp;
        tmp *= 4294967296.0;
    }
    double ret = sum / tmp;
    if (ret >= 1.0) ret = nextafter(1.0, 0.0);
    return ret * (1.0 - 0.0) + 0.0;
}

/* glibc stdlib/random_r.c __srandom_r (TYPE_3: degree 31, separation 3):
 * seed 0 -> 1; r[0] = seed; r[i] = 16807 * r[i-1] % 2147483647 via Schrage
 * (hi = w / 127773, lo = w % 127773, w = 16807*lo - 2836*hi, +2147483647 if
 * negative); front = 3, rear = 0; then 310 outputs discarded. */
void tc_glibc_srand(tc_glibc_rand *g, uint32_t seed) {
    if (seed == 0) seed = 1;
    /* glibc keeps `word` in an int32_t: seeds >= 2^31 start negative, and the
     * long result is stored back with a 32-bit wrap (done here explicitly) */
    int32_t word = (int32_t)(seed > INT32_MAX ? (int64_t)seed - 4294967296LL : (int64_t)seed);
    g->r[0] = word;
    for (int i = 1; i < 31; i++) {
        int64_t hi = word / 127773, lo = word % 127773;
        int64_t w = 16807 * lo - 2836 * hi;
        w &= 0xffffffffLL;
        if (w > INT32_MAX) w -= 4294967296LL;
        word = (int32_t)w;
        if (word < 0) word += 2147483647;
        g->r[i] = word;
    }
    g->f = 3;
    g->b = 0;
    for (int i = 0; i < 310; i++) (void)tc_glibc_rand_next(g);
    g->calls = 0;
}

/* glibc __random_r: val = (r[f] += r[b]) (uint32 wrap); result val >> 1;
 * both indexes advance cyclically. */
int32_t tc_glibc_rand_next(tc_glibc_rand *g) {
    uint32_t v = (uint32_t)g->r[g->f] + (uint32_t)g->r[g->b];
    g->r[g->f] = (int32_t)v;
    g->f = (g->f + 1) % 31;
    g->b = (g->b + 1) % 31;
    g->calls++;
    return (int32_t)(v >> 1);
}

/* ---- names ----------------------------------------------------------------- */

static const char *const PRESET_NAMES[] = {"ds4", "llama.cpp", "kestrel", "hf", "custom"};
static const char *const STAGE_NAMES[] = {"temperature", "top_k", "top_p", "min_p"};
static const char *const SEM_NAMES[] = {"ds4", "llama.cpp", "kestrel", "hf"};

static int name_index(const char *const *names, int n, const char *name) {
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0) return i;
    return -1;
}

int tc_sampler_preset_from_name(const char *name, tc_sampler_preset *out) {
    int i = name_index(PRESET_NAMES, 5, name);
    if (i < 0 && strcmp(name, "llama") == 0) i = TC_SP_LLAMA;
    if (i < 0) return -1;
    *out = (tc_sampler_preset)i;
    return 0;
}

const char *tc_sampler_preset_name(tc_sampler_preset p) {
    return (unsigned)p < 5 ? PRESET_NAMES[p] : "?";
}

int tc_stage_from_name(const char *name, tc_stage_kind *out) {
    int i = name_index(STAGE_NAMES, 4, name);
    if (i < 0) return -1;
    *out = (tc_stage_kind)i;
    return 0;
}

const char *tc_stage_name(tc_stage_kind k) { return (unsigned)k < 4 ? STAGE_NAMES[k] : "?"; }

int tc_semantics_from_name(const char *name, tc_semantics *out) {
    int i = name_index(SEM_NAMES, 4, name);
    if (i < 0 && strcmp(name, "llama") == 0) i = TC_SEM_LLAMA;
    if (i < 0) return -1;
    *out = (tc_semantics)i;
    return 0;
}

/* ---- stage records ---------------------------------------------------------- */

typedef struct ctx {
    const float *logits;
    uint32_t n;
    tc_sresult *res;
    double *prevp;      /* by id: probabilities of the previous stage */
    double *tmp;        /* n scratch doubles */
} ctx;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void note(tc_sresult *r, const char *fmt, ...) {
    size_t used = strlen(r->notes);
    if (used + 2 >= sizeof r->notes) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->notes + used, sizeof r->notes - used - 1, fmt, ap);
    va_end(ap);
    used = strlen(r->notes);
    r->notes[used] = '\n';
    r->notes[used + 1] = 0;
}

/* Display probabilities of k weights: logits (softmax in double, +inf
 * entries share the mass, NaN/-inf get 0) or probabilities (divided by their
 * sum). Never NaN: an all-zero set shows uniform. Returns the entropy in
 * bits (for logits from the log-sum-exp: no logarithm per entry). */
static double display_probs(const double *w, uint32_t k, int is_logit, double *out) {
    uint32_t n_posinf = 0;
    double m = -INFINITY, sum = 0.0, dot = 0.0, h = 0.0;
    for (uint32_t i = 0; i < k; i++) {
        if (isnan(w[i])) continue;
        if (w[i] == INFINITY) n_posinf++;
        if (w[i] > m) m = w[i];
    }
    if (n_posinf) {
        for (uint32_t i = 0; i < k; i++) out[i] = w[i] == INFINITY ? 1.0 / n_posinf : 0.0;
        return log2((double)n_posinf);
    }
    if (is_logit && m != -INFINITY) {
        for (uint32_t i = 0; i < k; i++) {
            double v = 0.0;
            if (!isnan(w[i]) && w[i] != -INFINITY) {
                v = exp(w[i] - m);
                dot += v * (w[i] - m);
            }
            out[i] = v;
            sum += v;
        }
        for (uint32_t i = 0; i < k; i++) out[i] /= sum;
        h = (log(sum) - dot / sum) / log(2.0);
        return h > 0 ? h : 0.0;
    }
    for (uint32_t i = 0; i < k; i++) {
        double v = (is_logit || isnan(w[i]) || w[i] < 0) ? 0.0 : w[i];
        out[i] = v;
        sum += v;
    }
    for (uint32_t i = 0; i < k; i++) {
        out[i] = sum > 0 ? out[i] / sum : 1.0 / k;
        if (out[i] > 0) h -= out[i] * log2(out[i]);
    }
    return h;
}

/* Appends a stage: k ids (engine order) with weights w (logits or probs). */
#if defined(__GNUC__)
__attribute__((format(printf, 7, 8)))
#endif
static int add_stage(ctx *c, const char *name, uint32_t k, const int32_t *ids, const double *w, int is_logit,
                     const char *fmt, ...);

static int add_stage_v(ctx *c, const char *name, uint32_t k, const int32_t *ids, const double *w, int is_logit,
                       const char *fmt, va_list ap) {
    tc_sresult *r = c->res;
    if (r->n_stages >= TC_SAMPLER_MAX_STAGES) return TC_ERR_ARG;
    tc_sstage *s = &r->stages[r->n_stages];
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", name);
    vsnprintf(s->cutoff, sizeof s->cutoff, fmt, ap);
    s->ids = malloc((k ? k : 1) * sizeof *s->ids);
    s->probs = malloc((k ? k : 1) * sizeof *s->probs);
    if (!s->ids || !s->probs) { free(s->ids); free(s->probs); s->ids = NULL; s->probs = NULL; return TC_ERR_NOMEM; }
    r->n_stages++;
    s->n = k;
    if (k) memcpy(s->ids, ids, k * sizeof *ids);
    double h = display_probs(w, k, is_logit, s->probs), mass = 0.0;
    for (uint32_t i = 0; i < k; i++) mass += c->prevp[ids[i]];
    s->kept_mass = r->n_stages == 1 ? 1.0 : mass;
    s->entropy_bits = h;
    if (r->n_stages >= 2) {
        const tc_sstage *prev = &r->stages[r->n_stages - 2];
        for (uint32_t i = 0; i < prev->n; i++) c->prevp[prev->ids[i]] = 0.0;
    }
    for (uint32_t i = 0; i < k; i++) c->prevp[ids[i]] = s->probs[i];
    return TC_OK;
}

static int add_stage(ctx *c, const char *name, uint32_t k, const int32_t *ids, const double *w, int is_logit,
                     const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int rc = add_stage_v(c, name, k, ids, w, is_logit, fmt, ap);
    va_end(ap);
    return rc;
}

/* input: softmax of the raw logits over every finite id, in id order */
static int add_input(ctx *c, int32_t *idbuf) {
    uint32_t k = 0, bad = 0;
    for (uint32_t i = 0; i < c->n; i++) {
        if (isfinite(c->logits[i])) { idbuf[k] = (int32_t)i; c->tmp[k++] = c->logits[i]; }
        else bad++;
    }
    return add_stage(c, "input", k, idbuf, c->tmp, 1, "%u finite logits%s", k, bad ? " (non-finite left out)" : "");
}

static int plan_alloc(tc_splan *pl, uint32_t n, int with_f, int with_d) {
    pl->ids = malloc((n ? n : 1) * sizeof *pl->ids);
    if (with_f) pl->fw = malloc((n ? n : 1) * sizeof *pl->fw);
    if (with_d) pl->dw = malloc((n ? n : 1) * sizeof *pl->dw);
    if (!pl->ids || (with_f && !pl->fw) || (with_d && !pl->dw)) return TC_ERR_NOMEM;
    pl->n = n;
    return TC_OK;
}

static void report_nonfinite(ctx *c, const char *how) {
    uint32_t nan = 0, pinf = 0, ninf = 0;
    int32_t first = -1;
    for (uint32_t i = 0; i < c->n; i++) {
        float v = c->logits[i];
        if (isfinite(v)) continue;
        if (first < 0) first = (int32_t)i;
        if (isnan(v)) nan++;
        else if (v > 0) pinf++;
        else ninf++;
    }
    if (first >= 0)
        note(c->res, "%u NaN, %u +inf, %u -inf (first at id %d): %s", nan, pinf, ninf, first, how);
}

/* ---- ds4 -------------------------------------------------------------------- */

typedef struct cand {
    int32_t id;
    float logit;
    float p;
} cand;

/* ds4.c sample_argmax: best = 0, best_v = DS4_NEG_INF (-1e30f); v > best_v
 * (the lowest id among equal maxima; NaN never wins). */
static int32_t ds4_argmax(const float *lg, uint32_t n) {
    int32_t best = 0;
    float bv = -1.0e30f;
    for (uint32_t i = 0; i < n; i++)
        if (lg[i] > bv) { bv = lg[i]; best = (int32_t)i; }
    return best;
}

/* logit descending, id ascending: a total order for finite logits (the
 * engines sort finite candidates only, or NaN placed last). */
static int cand_cmp_desc(const void *a, const void *b) {
    const cand *x = a, *y = b;
    int xn = isnan(x->logit), yn = isnan(y->logit);
    if (xn != yn) return xn - yn;
    if (!xn) {
        if (x->logit > y->logit) return -1;
        if (x->logit < y->logit) return 1;
    }
    return (x->id > y->id) - (x->id < y->id);
}

/* records the ds4 min_p and top_p prefixes of cs[0..cnt) (sorted), fills the plan */
static int ds4_cut(ctx *c, cand *cs, uint32_t cnt, float sum, float top_p, float min_p, int32_t *idb) {
    tc_sresult *r = c->res;
    /* ds4.c sample_top_p_min_p / sample_full_vocab: min_prob = (p0 / sum) * min_p;
     * for i: p = prob_i / sum; if (i > 0 && p < min_prob) break; filtered_sum +=
     * prob_i; filtered++; if (filtered_sum / sum >= top_p) break. */
    const float min_prob = (cs[0].p / sum) * min_p;
    uint32_t m_end = cnt;
    for (uint32_t i = 1; i < cnt; i++)
        if (cs[i].p / sum < min_prob) { m_end = i; break; }
    float fsum = 0.0f;
    uint32_t filtered = 0;
    for (uint32_t i = 0; i < cnt; i++) {
        float pr = cs[i].p / sum;
        if (i > 0 && pr < min_prob) break;
        fsum += cs[i].p;
        filtered++;
        if (fsum / sum >= top_p) break;
    }
    for (uint32_t i = 0; i < cnt; i++) { idb[i] = cs[i].id; c->tmp[i] = cs[i].p; }
    int rc = add_stage(c, "min_p", m_end, idb, c->tmp, 0, "min_p=%g of the top prob (threshold prob %.6g): %u kept",
                       (double)min_p, (double)min_prob, m_end);
    if (rc) return rc;
    for (uint32_t i = 0; i < cnt; i++) c->tmp[i] = cs[i].p;
    rc = add_stage(c, "top_p", filtered, idb, c->tmp, 0, "p=%g: running sum %.6g at rank %u%s", (double)top_p,
                   (double)(fsum / sum), filtered, filtered == m_end ? " (min_p cut first)" : "");
    if (rc) return rc;
    tc_splan *pl = &r->plan;
    if ((rc = plan_alloc(pl, filtered, 1, 0))) return rc;
    for (uint32_t i = 0; i < filtered; i++) { pl->ids[i] = cs[i].id; pl->fw[i] = cs[i].p; }
    pl->fsum = fsum;
    pl->kind = TC_DRAW_DS4;
    pl->fixed = cs[filtered - 1].id;   /* ds4.c: ids[filtered - 1] when r never reaches 0 */
    return TC_OK;
}

static int run_ds4(ctx *c, const tc_sampler_params *p, int32_t *idb) {
    tc_sresult *r = c->res;
    const float *lg = c->logits;
    const uint32_t n = c->n;
    float T = p->temperature, top_p = p->top_p, min_p = p->min_p;
    int32_t k = p->top_k;
    int rc;
    report_nonfinite(c, "ds4 skips non-finite logits (isfinite), as sample_top_p_min_p does");
    /* ds4.c sample_top_p_min_p: temperature <= 0 -> sample_argmax, no RNG draw */
    if (T <= 0.0f) {
        r->greedy = 1;
        r->plan.kind = TC_DRAW_FIXED;
        r->plan.fixed = ds4_argmax(lg, n);
        double w = 0.0;
        return add_stage(c, "temperature", 1, &r->plan.fixed, &w, 1, "T=%g <= 0: argmax id %d (lowest id among equal maxima), no RNG draw",
                         (double)T, r->plan.fixed);
    }
    /* ds4.c: top_p <= 0 or > 1 -> 1; min_p < 0 -> 0 */
    if (top_p <= 0.0f || top_p > 1.0f) {
        note(r, "ds4: top_p %g outside (0, 1] is treated as 1 (off)", (double)top_p);
        top_p = 1.0f;
    }
    if (min_p < 0.0f) min_p = 0.0f;
    if (k <= 0) {
        /* ds4.c sample_full_vocab: max over finite logits (start DS4_NEG_INF), best = its id */
        float maxl = -1.0e30f;
        int32_t best = 0;
        uint32_t finite = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (!isfinite(lg[i])) continue;
            finite++;
            if (lg[i] > maxl) { maxl = lg[i]; best = (int32_t)i; }
        }
        double zero = 0.0;
        uint32_t nf = 0;
        for (uint32_t i = 0; i < n; i++)
            if (isfinite(lg[i])) { idb[nf] = (int32_t)i; c->tmp[nf++] = lg[i]; }
        if ((rc = add_stage(c, "top_k", finite, idb, c->tmp, 1, "k=%d <= 0: full vocabulary (%u finite)", k, finite)))
            return rc;
        if (finite == 0) {
            r->plan.kind = TC_DRAW_FIXED;
            r->plan.fixed = ds4_argmax(lg, n);
            note(r, "ds4: no finite logit: sample_argmax fallback, no RNG draw");
            return add_stage(c, "temperature", 1, &r->plan.fixed, &zero, 1, "no finite logit: argmax id %d", r->plan.fixed);
        }
        cand *cs = malloc(finite * sizeof *cs);
        if (!cs) return TC_ERR_NOMEM;
        uint32_t cnt = 0;
        float sum = 0.0f;
        for (uint32_t i = 0; i < n; i++) {
            if (!isfinite(lg[i])) continue;
            /* ds4.c: p = expf((v - max_logit) / temperature), float */
            float pr = expf((lg[i] - maxl) / T);
            cs[cnt].id = (int32_t)i; cs[cnt].logit = lg[i]; cs[cnt].p = pr;
            cnt++;
        }
        if (top_p >= 1.0f) {
            /* ds4.c sample_full_vocab, top_p >= 1: id order; min_rel = min_p (the top's
             * unnormalized p is expf(0) = 1, so min_p is relative to the top); keep
             * p >= min_rel; sum in id order; r = u * sum, subtract in id order. */
            const float min_rel = min_p > 0.0f ? min_p : 0.0f;
            for (uint32_t i = 0; i < cnt; i++) { idb[i] = cs[i].id; c->tmp[i] = cs[i].p; }
            rc = add_stage(c, "temperature", cnt, idb, c->tmp, 0, "T=%g: expf((v - max) / T) in float, id order", (double)T);
            uint32_t kept = 0;
            for (uint32_t i = 0; i < cnt && !rc; i++) {
                if (cs[i].p < min_rel) continue;
                sum += cs[i].p;
                cs[kept++] = cs[i];
            }
            for (uint32_t i = 0; i < kept && !rc; i++) { idb[i] = cs[i].id; c->tmp[i] = cs[i].p; }
            if (!rc) rc = add_stage(c, "min_p", kept, idb, c->tmp, 0, "min_p=%g of the top prob: %u kept", (double)min_p, kept);
            if (!rc) rc = add_stage(c, "top_p", kept, idb, c->tmp, 0, "p=1: off (draw walks the ids in id order)");
            if (!rc && (sum <= 0.0f || !isfinite(sum))) {
                r->plan.kind = TC_DRAW_FIXED;
                r->plan.fixed = best;
                note(r, "ds4: kept sum %g is not positive and finite: returns the best id, no RNG draw", (double)sum);
            } else if (!rc && !(rc = plan_alloc(&r->plan, kept, 1, 0))) {
                for (uint32_t i = 0; i < kept; i++) { r->plan.ids[i] = cs[i].id; r->plan.fw[i] = cs[i].p; }
                r->plan.fsum = sum;
                r->plan.kind = TC_DRAW_DS4;
                r->plan.fixed = best;   /* ds4.c: falls back to best */
            }
            free(cs);
            return rc;
        }
        /* ds4.c sample_full_vocab, top_p < 1: sum in id order, qsort by logit
         * descending (ties: lower id first here; glibc qsort's tie order may differ) */
        for (uint32_t i = 0; i < cnt; i++) sum += cs[i].p;
        qsort(cs, cnt, sizeof *cs, cand_cmp_desc);
        for (uint32_t i = 0; i < cnt; i++) { idb[i] = cs[i].id; c->tmp[i] = cs[i].p; }
        rc = add_stage(c, "temperature", cnt, idb, c->tmp, 0, "T=%g: expf((v - max) / T) in float, sorted by logit", (double)T);
        if (!rc && (sum <= 0.0f || !isfinite(sum))) {
            r->plan.kind = TC_DRAW_FIXED;
            r->plan.fixed = best;
            note(r, "ds4: sum %g is not positive and finite: returns the best id, no RNG draw", (double)sum);
        } else if (!rc) {
            rc = ds4_cut(c, cs, cnt, sum, top_p, min_p, idb);
        }
        free(cs);
        return rc;
    }
    /* ds4.c sample_top_p_min_p top-k path: k capped at 1024 (stack arrays), then at n_vocab */
    int32_t kreq = k;
    if (k > 1024) k = 1024;
    if ((uint32_t)k > n) k = (int32_t)n;
    cand top[1024];
    uint32_t cnt = 0;
    /* insertion into a descending list; skip non-finite; a full list skips
     * v <= last; shifting only while vals[j-1] < v keeps equal values in id order */
    for (uint32_t i = 0; i < n; i++) {
        float v = lg[i];
        if (!isfinite(v)) continue;
        if (cnt == (uint32_t)k && v <= top[cnt - 1].logit) continue;
        uint32_t j = cnt < (uint32_t)k ? cnt++ : cnt - 1;
        while (j > 0 && top[j - 1].logit < v) { top[j] = top[j - 1]; j--; }
        top[j].logit = v;
        top[j].id = (int32_t)i;
    }
    for (uint32_t i = 0; i < cnt; i++) { idb[i] = top[i].id; c->tmp[i] = top[i].logit; }
    if (kreq != k) rc = add_stage(c, "top_k", cnt, idb, c->tmp, 1, "k=%d (capped from %d at %s)", k, kreq,
                                  kreq > 1024 ? "1024" : "the vocabulary size");
    else rc = add_stage(c, "top_k", cnt, idb, c->tmp, 1, "k=%d: %u kept (insertion sort, ties keep the lower id)", k, cnt);
    if (rc) return rc;
    if (cnt == 0) {
        double zero = 0.0;
        r->plan.kind = TC_DRAW_FIXED;
        r->plan.fixed = ds4_argmax(lg, n);
        note(r, "ds4: no finite logit: sample_argmax fallback, no RNG draw");
        return add_stage(c, "temperature", 1, &r->plan.fixed, &zero, 1, "no finite logit: argmax id %d", r->plan.fixed);
    }
    /* ds4.c: probs[i] = expf((vals[i] - vals[0]) / T); sum in rank order */
    float sum = 0.0f;
    for (uint32_t i = 0; i < cnt; i++) {
        top[i].p = expf((top[i].logit - top[0].logit) / T);
        sum += top[i].p;
    }
    for (uint32_t i = 0; i < cnt; i++) c->tmp[i] = top[i].p;
    if ((rc = add_stage(c, "temperature", cnt, idb, c->tmp, 0, "T=%g: expf((v - max) / T) in float", (double)T))) return rc;
    if (sum <= 0.0f || !isfinite(sum)) {
        r->plan.kind = TC_DRAW_FIXED;
        r->plan.fixed = top[0].id;
        note(r, "ds4: sum %g is not positive and finite: returns ids[0], no RNG draw", (double)sum);
        return TC_OK;
    }
    return ds4_cut(c, top, cnt, sum, top_p, min_p, idb);
}

/* ---- llama.cpp ------------------------------------------------------------------ */

typedef struct larr {
    cand *d;
    uint32_t size;
    int sorted;
} larr;

/* std::max(a, b) is (a < b) ? b : a */
static float std_max(float a, float b) { return a < b ? b : a; }

/* Sorts d[0..size) by logit descending. llama.cpp uses std::partial_sort /
 * a bucket sort + std::sort: equal logits come out in libstdc++'s order;
 * here lower id first (the same for distinct logits). NaN last. */
static void llama_sort(cand *d, uint32_t size) { qsort(d, size, sizeof *d, cand_cmp_desc); }

/* the k best of d[0..size) first, sorted (min-heap selection, then sort) */
static void llama_partial(cand *d, uint32_t size, uint32_t k) {
    if (k >= size / 4) { llama_sort(d, size); return; }
    /* heap of the k best at d[0..k): root = worst by cand_cmp_desc */
    for (uint32_t s = k / 2; s-- > 0;) {
        uint32_t r = s;
        for (;;) {
            uint32_t l = 2 * r + 1, m = r;
            if (l < k && cand_cmp_desc(&d[l], &d[m]) > 0) m = l;
            if (l + 1 < k && cand_cmp_desc(&d[l + 1], &d[m]) > 0) m = l + 1;
            if (m == r) break;
            cand t = d[r]; d[r] = d[m]; d[m] = t;
            r = m;
        }
    }
    for (uint32_t i = k; i < size; i++) {
        if (cand_cmp_desc(&d[i], &d[0]) >= 0) continue;
        cand t = d[0]; d[0] = d[i]; d[i] = t;
        uint32_t r = 0;
        for (;;) {
            uint32_t l = 2 * r + 1, m = r;
            if (l < k && cand_cmp_desc(&d[l], &d[m]) > 0) m = l;
            if (l + 1 < k && cand_cmp_desc(&d[l + 1], &d[m]) > 0) m = l + 1;
            if (m == r) break;
            cand u = d[r]; d[r] = d[m]; d[m] = u;
            r = m;
        }
    }
    llama_sort(d, k);
}

static int llama_stage(ctx *c, const char *name, const larr *a, int32_t *idb, const char *cut) {
    for (uint32_t i = 0; i < a->size; i++) { idb[i] = a->d[i].id; c->tmp[i] = a->d[i].logit; }
    return add_stage(c, name, a->size, idb, c->tmp, 1, "%s", cut);
}

static int run_llama(ctx *c, const tc_sampler_params *p, int32_t *idb) {
    tc_sresult *r = c->res;
    const uint32_t n = c->n;
    char cut[TC_SAMPLER_CUTOFF_MAX];
    larr a = {malloc(n * sizeof(cand)), n, 0};
    if (!a.d) return TC_ERR_NOMEM;
    int has_nan = 0;
    for (uint32_t i = 0; i < n; i++) {
        a.d[i].id = (int32_t)i; a.d[i].logit = c->logits[i]; a.d[i].p = 0.0f;
        has_nan |= isnan(c->logits[i]);
    }
    report_nonfinite(c, "llama.cpp keeps them as they are (+inf makes expf(inf - inf) NaN downstream)");
    if (has_nan)
        note(r, "llama.cpp: NaN logits make its std::sort comparator inconsistent; here NaN sorts last (not bit-exact)");
    int rc = TC_OK;
    /* llama_sampler_top_k_impl: k <= 0 -> no-op; k = min(k, size); partial sort when unsorted */
    int32_t k = p->top_k;
    if (k <= 0) snprintf(cut, sizeof cut, "k=%d <= 0: no-op (%u candidates, id order)", k, a.size);
    else {
        uint32_t kk = (uint32_t)k < a.size ? (uint32_t)k : a.size;
        if (!a.sorted) llama_partial(a.d, a.size, kk);
        a.sorted = 1;
        if ((uint32_t)k > kk) snprintf(cut, sizeof cut, "k=%u (capped from %d at the candidate count)", kk, k);
        else snprintf(cut, sizeof cut, "k=%u, sorted by logit", kk);
        a.size = kk;
    }
    if ((rc = llama_stage(c, "top_k", &a, idb, cut))) goto done;
    /* llama_sampler_top_p_apply: p >= 1 -> no-op; softmax of the current
     * candidates (expf(l - max), float sum, divide); sort; cum_sum (float)
     * += p; stop at cum_sum >= p and i + 1 >= min_keep (0 in the default chain) */
    if (p->top_p >= 1.0f) snprintf(cut, sizeof cut, "p=%g >= 1: no-op", (double)p->top_p);
    else {
        float max_l = a.d[0].logit;
        if (!a.sorted)
            for (uint32_t i = 1; i < a.size; i++) max_l = std_max(max_l, a.d[i].logit);
        float cs = 0.0f;
        for (uint32_t i = 0; i < a.size; i++) { a.d[i].p = expf(a.d[i].logit - max_l); cs += a.d[i].p; }
        for (uint32_t i = 0; i < a.size; i++) a.d[i].p /= cs;
        if (!a.sorted) llama_sort(a.d, a.size);
        float cum = 0.0f;
        uint32_t last = a.size;
        for (uint32_t i = 0; i < a.size; i++) {
            cum += a.d[i].p;
            if (cum >= p->top_p) { last = i + 1; break; }
        }
        a.sorted = 1;
        float thr = last ? a.d[last - 1].p : 0.0f;
        a.size = last;
        snprintf(cut, sizeof cut, "p=%g reached at rank %u (cum %.6g), threshold prob %.6g", (double)p->top_p, last,
                 (double)cum, (double)thr);
    }
    if ((rc = llama_stage(c, "top_p", &a, idb, cut))) goto done;
    /* llama_sampler_min_p_apply: p <= 0 -> no-op; unsorted: max by std::max from
     * -FLT_MAX, keep logit >= max + logf(p) in order (if any kept); sorted (or
     * nothing kept): min_logit = data[0] + logf(p), keep the prefix from 1 while
     * logit >= min_logit */
    if (p->min_p <= 0.0f || a.size == 0) snprintf(cut, sizeof cut, "min_p=%g <= 0: no-op", (double)p->min_p);
    else {
        int applied = 0;
        float min_logit = 0.0f;
        if (!a.sorted) {
            float mx = -3.40282346638528859812e+38f;
            for (uint32_t i = 0; i < a.size; i++) mx = std_max(mx, a.d[i].logit);
            min_logit = mx + logf(p->min_p);
            uint32_t m = 0;
            for (uint32_t i = 0; i < a.size; i++)
                if (a.d[i].logit >= min_logit) m++;
            if (m > 0) {
                uint32_t j = 0;
                for (uint32_t i = 0; i < a.size; i++)
                    if (a.d[i].logit >= min_logit) a.d[j++] = a.d[i];
                a.size = m;
                applied = 1;
            }
        }
        if (!applied) {
            if (!a.sorted) { llama_sort(a.d, a.size); a.sorted = 1; }
            min_logit = a.d[0].logit + logf(p->min_p);
            uint32_t i = 1;
            while (i < a.size && !(a.d[i].logit < min_logit)) i++;
            a.size = i;
        }
        snprintf(cut, sizeof cut, "min_p=%g: logit >= max + ln(min_p) = %.6g, %u kept", (double)p->min_p,
                 (double)min_logit, a.size);
    }
    if ((rc = llama_stage(c, "min_p", &a, idb, cut))) goto done;
    /* llama_sampler_temp_impl: temp <= 0 -> keep the first maximum (strict >),
     * every other logit -inf (they stay candidates); else logit /= temp */
    if (p->temperature <= 0.0f) {
        r->greedy = 1;
        uint32_t mi = 0;
        float ml = a.d[0].logit;
        for (uint32_t i = 1; i < a.size; i++) {
            if (a.d[i].logit > ml) { a.d[mi].logit = -INFINITY; mi = i; ml = a.d[i].logit; }
            else a.d[i].logit = -INFINITY;
        }
        snprintf(cut, sizeof cut, "T=%g <= 0: id %d keeps its logit, the other %u get -inf (dist still draws)",
                 (double)p->temperature, a.d[mi].id, a.size - 1);
        note(r, "llama.cpp: T <= 0 still consumes the RNG in dist (two mt19937 outputs per draw) unless one candidate is left");
    } else {
        for (uint32_t i = 0; i < a.size; i++) a.d[i].logit /= p->temperature;
        snprintf(cut, sizeof cut, "T=%g: logit / T (temperature last)", (double)p->temperature);
    }
    if ((rc = llama_stage(c, "temperature", &a, idb, cut))) goto done;
    /* llama_sampler_dist_apply: size 1 -> selected 0, no RNG; max_l = data[0]
     * when sorted else std::max fold; p = expf(l - max_l) (float); sum_cum
     * (double) += p; rnd = uniform_real_distribution<double>(0,1)(mt19937);
     * first i with running double sum >= sum_cum * rnd; fallback size - 1 */
    tc_splan *pl = &r->plan;
    if ((rc = plan_alloc(pl, a.size, 1, 0))) goto done;
    pl->kind = TC_DRAW_LLAMA;
    pl->fixed = a.d[a.size - 1].id;
    if (a.size == 1) {
        pl->llama_no_rng = 1;
        pl->ids[0] = a.d[0].id;
        pl->fw[0] = 1.0f;
        pl->dsum = 1.0;
        pl->fixed = a.d[0].id;
        goto done;
    }
    float max_l = a.d[0].logit;
    if (!a.sorted)
        for (uint32_t i = 1; i < a.size; i++) max_l = std_max(max_l, a.d[i].logit);
    double sum = 0.0;
    for (uint32_t i = 0; i < a.size; i++) {
        pl->ids[i] = a.d[i].id;
        pl->fw[i] = expf(a.d[i].logit - max_l);
        sum += pl->fw[i];
    }
    pl->dsum = sum;
done:
    free(a.d);
    return rc;
}

/* ---- kestrel -------------------------------------------------------------------- */

typedef struct ip {
    int32_t idx;
    float prob;
} ip;

/* kestrel top-p max-heap priority: prob descending, then index ascending */
static int ip_before(const ip *a, const ip *b) {
    return a->prob > b->prob || (a->prob == b->prob && a->idx < b->idx);
}

static void ip_sift_down(ip *a, uint32_t root, uint32_t n) {
    for (;;) {
        uint32_t l = 2 * root + 1;
        if (l >= n) return;
        uint32_t m = l;
        if (l + 1 < n && ip_before(&a[l + 1], &a[m])) m = l + 1;
        if (!ip_before(&a[m], &a[root])) return;
        ip t = a[root]; a[root] = a[m]; a[m] = t;
        root = m;
    }
}

static int kestrel_stage(ctx *c, const char *name, const float *probs, int32_t *idb, const char *cut) {
    uint32_t k = 0;
    for (uint32_t i = 0; i < c->n; i++)
        if (probs[i] != 0.0f) { idb[k] = (int32_t)i; c->tmp[k++] = probs[i]; }
    return add_stage(c, name, k, idb, c->tmp, 0, "%s", cut);
}

static int32_t kestrel_argmax(const float *lg, uint32_t n) {
    int32_t best = 0;   /* sample_token_pk: best = 0; logits[i] > logits[best] */
    for (uint32_t i = 1; i < n; i++)
        if (lg[i] > lg[best]) best = (int32_t)i;
    return best;
}

static int run_kestrel(ctx *c, const tc_sampler_params *p, int32_t *idb) {
    tc_sresult *r = c->res;
    const float *lg = c->logits;
    const uint32_t n = c->n;
    const float T = p->temperature;
    char cut[TC_SAMPLER_CUTOFF_MAX];
    int rc = TC_OK;
    report_nonfinite(c, "kestrel does not filter them (the float arithmetic runs on them as is)");
    /* sample_token_pk: temperature <= 0 or top_p <= 0 -> argmax, no rand() */
    if (T <= 0.0f || p->top_p <= 0.0f) {
        double zero = 0.0;
        r->greedy = 1;
        r->plan.kind = TC_DRAW_FIXED;
        r->plan.fixed = kestrel_argmax(lg, n);
        return add_stage(c, "temperature", 1, &r->plan.fixed, &zero, 1,
                         "%s <= 0: argmax id %d (first maximum, banned ids not applied), no rand() call",
                         T <= 0.0f ? "T" : "top_p", r->plan.fixed);
    }
    float *probs = malloc(n * sizeof *probs);
    ip *heap = NULL;
    if (!probs) return TC_ERR_NOMEM;
    /* softmax with temperature: max by > from logits[0]; expf((l - max) / T);
     * float sum in id order; probs /= sum */
    float mx = lg[0];
    for (uint32_t i = 1; i < n; i++)
        if (lg[i] > mx) mx = lg[i];
    float sum = 0.0f;
    for (uint32_t i = 0; i < n; i++) { probs[i] = expf((lg[i] - mx) / T); sum += probs[i]; }
    for (uint32_t i = 0; i < n; i++) probs[i] /= sum;
    if (isnan(sum))
        note(r, "kestrel: the softmax sum is NaN: every probability is NaN and the draw falls back to the argmax of the logits");
    snprintf(cut, sizeof cut, "T=%g: softmax in float over the whole vocabulary, id order", (double)T);
    if ((rc = kestrel_stage(c, "temperature", probs, idb, cut))) goto done;
    /* suppress special ids 0 (<unk>), 1 (<s>), 3 (<pad>): probs set to 0 (not renormalized) */
    double banned = 0.0;
    static const uint32_t BAN[3] = {0, 1, 3};
    for (int b = 0; b < 3; b++)
        if (BAN[b] < n) { banned += probs[BAN[b]]; probs[BAN[b]] = 0.0f; }
    snprintf(cut, sizeof cut, "ids 0, 1, 3 set to 0 (mass %.6g removed, not renormalized)", banned);
    if ((rc = kestrel_stage(c, "ban", probs, idb, cut))) goto done;
    /* apply_top_k: k <= 0 or k >= vocab -> no-op; min-heap (by prob) of capacity
     * k over probs > 0 in id order: fill with sift-up (stop when parent <= child);
     * when full, replace the root only if p > root, sift-down (stop when the
     * smaller child >= node); then zero everything and restore the heap's ids */
    int32_t k = p->top_k;
    if (k <= 0 || k >= (int32_t)n) snprintf(cut, sizeof cut, "k=%d: no-op (k <= 0 or k >= vocabulary %u)", k, n);
    else {
        heap = malloc((size_t)k * sizeof *heap);
        if (!heap) { rc = TC_ERR_NOMEM; goto done; }
        uint32_t hn = 0, K = (uint32_t)k;
        for (uint32_t i = 0; i < n; i++) {
            float pr = probs[i];
            if (pr <= 0.0f) continue;
            if (hn < K) {
                uint32_t ci = hn++;
                heap[ci].idx = (int32_t)i; heap[ci].prob = pr;
                while (ci > 0) {
                    uint32_t par = (ci - 1) / 2;
                    if (heap[par].prob <= heap[ci].prob) break;
                    ip t = heap[par]; heap[par] = heap[ci]; heap[ci] = t;
                    ci = par;
                }
            } else if (pr > heap[0].prob) {
                heap[0].idx = (int32_t)i; heap[0].prob = pr;
                for (uint32_t ro = 0;;) {
                    uint32_t l = 2 * ro + 1;
                    if (l >= K) break;
                    uint32_t rr = l + 1, m = l;
                    if (rr < K && heap[rr].prob < heap[m].prob) m = rr;
                    if (heap[m].prob >= heap[ro].prob) break;
                    ip t = heap[m]; heap[m] = heap[ro]; heap[ro] = t;
                    ro = m;
                }
            }
        }
        memset(probs, 0, n * sizeof *probs);
        for (uint32_t i = 0; i < hn; i++) probs[heap[i].idx] = heap[i].prob;
        snprintf(cut, sizeof cut, "k=%d: %u kept (min-heap on probabilities)", k, hn);
    }
    if ((rc = kestrel_stage(c, "top_k", probs, idb, cut))) goto done;
    /* min-p: min_p > 0: maxp by > from probs[0]; probs < min_p * maxp -> 0 */
    if (p->min_p > 0.0f) {
        float maxp = probs[0];
        for (uint32_t i = 1; i < n; i++)
            if (probs[i] > maxp) maxp = probs[i];
        float thr = p->min_p * maxp;
        for (uint32_t i = 0; i < n; i++)
            if (probs[i] < thr) probs[i] = 0.0f;
        snprintf(cut, sizeof cut, "min_p=%g of the top prob %.6g: threshold %.6g", (double)p->min_p, (double)maxp, (double)thr);
    } else snprintf(cut, sizeof cut, "min_p=%g <= 0: off", (double)p->min_p);
    if ((rc = kestrel_stage(c, "min_p", probs, idb, cut))) goto done;
    /* top-p: top_p < 1: max-heap over every id (prob desc, idx asc); extract
     * while cumsum < top_p (float cumsum += prob, on the probabilities as they
     * are: not renormalized after ban / top-k / min-p); zero the rest */
    if (p->top_p < 1.0f) {
        ip *all = malloc(n * sizeof *all);
        if (!all) { rc = TC_ERR_NOMEM; goto done; }
        /* Without NaN the heap order is a strict total order, so extraction
         * yields the sorted order whatever else the heap holds, and extracting
         * a 0 changes neither cum nor probs: the zeros are left out then. With
         * NaN the exact heap over every id is replayed. */
        int any_nan = 0;
        for (uint32_t i = 0; i < n; i++) any_nan |= isnan(probs[i]);
        uint32_t hn = 0;
        for (uint32_t i = 0; i < n; i++)
            if (any_nan || probs[i] != 0.0f) { all[hn].idx = (int32_t)i; all[hn++].prob = probs[i]; }
        for (uint32_t i = hn / 2; i-- > 0;) ip_sift_down(all, i, hn);
        float cum = 0.0f;
        uint32_t left = hn;
        float lastp = 0.0f;
        while (left > 0 && cum < p->top_p) {
            ip m = all[0];
            all[0] = all[left - 1];
            all[left - 1] = m;
            cum += m.prob;
            lastp = m.prob;
            left--;
            ip_sift_down(all, 0, left);
        }
        for (uint32_t i = 0; i < left; i++) probs[all[i].idx] = 0.0f;
        snprintf(cut, sizeof cut, "p=%g: %u extracted, cum %.6g (unrenormalized), last prob %.6g%s", (double)p->top_p,
                 hn - left, (double)cum, (double)lastp, cum < p->top_p ? " (p never reached)" : "");
        free(all);
    } else snprintf(cut, sizeof cut, "p=%g >= 1: off", (double)p->top_p);
    if ((rc = kestrel_stage(c, "top_p", probs, idb, cut))) goto done;
    /* draw: sum over ids (float); r = (float)rand() / (float)RAND_MAX * sum;
     * cumsum in id order, first r <= cumsum; fallback argmax of the logits */
    {
        uint32_t m = 0;
        float s2 = 0.0f;
        for (uint32_t i = 0; i < n; i++) {
            s2 += probs[i];
            if (probs[i] != 0.0f) m++;
        }
        tc_splan *pl = &r->plan;
        if ((rc = plan_alloc(pl, m, 1, 0))) goto done;
        m = 0;
        for (uint32_t i = 0; i < n; i++)
            if (probs[i] != 0.0f) { pl->ids[m] = (int32_t)i; pl->fw[m++] = probs[i]; }
        pl->fsum = s2;
        pl->n_vocab = n;
        if (m == 0)
            note(r, "kestrel: no probability left (banned or cut): the sum is 0, so r = 0 <= cumsum and the draw returns id 0");
        pl->kind = TC_DRAW_KESTREL;
        pl->fixed = kestrel_argmax(lg, n);
    }
done:
    free(heap);
    free(probs);
    return rc;
}

/* ---- generic (hf, custom) --------------------------------------------------------- */

typedef struct gi {
    int32_t id;
    double sc;
} gi;

typedef struct gen {
    gi *d;
    uint32_t k;
    double *base;      /* by id: the tempered softmax over the whole set (kestrel top-p) */
} gen;

static int gi_desc(const void *a, const void *b) {
    const gi *x = a, *y = b;
    if (x->sc > y->sc) return -1;
    if (x->sc < y->sc) return 1;
    return (x->id > y->id) - (x->id < y->id);
}

static int gi_id(const void *a, const void *b) {
    const gi *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

/* the kk-th largest score (1 <= kk <= g->k): a min-heap of the kk best; NaN on OOM */
static double kth_largest(const gen *g, uint32_t kk) {
    double *h = malloc(kk * sizeof *h);
    if (!h) return NAN;
    uint32_t n = 0;
    for (uint32_t i = 0; i < g->k; i++) {
        double v = g->d[i].sc;
        uint32_t c;
        if (n < kk) {
            c = n++;
            h[c] = v;
            while (c > 0 && h[(c - 1) / 2] > h[c]) { double t = h[c]; h[c] = h[(c - 1) / 2]; h[(c - 1) / 2] = t; c = (c - 1) / 2; }
        } else if (v > h[0]) {
            h[0] = v;
            for (c = 0;;) {
                uint32_t l = 2 * c + 1, m = c;
                if (l < kk && h[l] < h[m]) m = l;
                if (l + 1 < kk && h[l + 1] < h[m]) m = l + 1;
                if (m == c) break;
                double t = h[c]; h[c] = h[m]; h[m] = t;
                c = m;
            }
        }
    }
    double r = h[0];
    free(h);
    return r;
}

static void gen_probs(const gen *g, double *out) {
    for (uint32_t i = 0; i < g->k; i++) out[i] = g->d[i].sc;
    display_probs(out, g->k, 1, out);
}

static void gen_set_base(gen *g, double *tmp) {
    gen_probs(g, tmp);
    for (uint32_t i = 0; i < g->k; i++) g->base[g->d[i].id] = tmp[i];
}

/* keeps the entries with keep[i] != 0, order unchanged */
static void gen_filter(gen *g, const unsigned char *keep) {
    uint32_t j = 0;
    for (uint32_t i = 0; i < g->k; i++)
        if (keep[i]) g->d[j++] = g->d[i];
    g->k = j;
}

static int gen_stage(ctx *c, const char *name, const gen *g, int32_t *idb, const char *cut) {
    for (uint32_t i = 0; i < g->k; i++) { idb[i] = g->d[i].id; c->tmp[i] = g->d[i].sc; }
    return add_stage(c, name, g->k, idb, c->tmp, 1, "%s", cut);
}

static int gen_apply(ctx *c, gen *g, tc_stage_kind st, tc_semantics sem, const tc_sampler_params *p,
                     unsigned char *keep, char *cut) {
    tc_sresult *r = c->res;
    double *pr = c->tmp;
    const char *sn = SEM_NAMES[sem];
    if (g->k == 0) { snprintf(cut, TC_SAMPLER_CUTOFF_MAX, "no candidates"); return 0; }
    switch (st) {
    case TC_STAGE_TEMPERATURE: {
        /* every engine divides by T; T <= 0 is greedy (hf: do_sample=False argmax) */
        double T = p->temperature;
        if (!(T > 0)) {
            uint32_t b = 0;
            for (uint32_t i = 1; i < g->k; i++)
                if (g->d[i].sc > g->d[b].sc) b = i;
            g->d[0] = g->d[b];
            g->k = 1;
            r->greedy = 1;
            snprintf(cut, TC_SAMPLER_CUTOFF_MAX, "T=%g <= 0: greedy, id %d", T, g->d[0].id);
        } else {
            for (uint32_t i = 0; i < g->k; i++) g->d[i].sc /= T;
            snprintf(cut, TC_SAMPLER_CUTOFF_MAX, "T=%g: scores / T (%s)", T, sn);
        }
        gen_set_base(g, pr);
        return 0;
    }
    case TC_STAGE_TOP_K: {
        int32_t k = p->top_k;
        if (k <= 0 || (sem == TC_SEM_KESTREL && (uint32_t)k >= c->n)) {
            snprintf(cut, TC_SAMPLER_CUTOFF_MAX, "k=%d: off (%s)", k, sn);
            return 0;
        }
        uint32_t kk = (uint32_t)k;
        if (sem == TC_SEM_DS4 && kk > 1024) kk = 1024;   /* ds4.c: cap 1024 */
        if (kk > g->k) kk = g->k;
        if (sem == TC_SEM_HF) {
            /* TopKLogitsWarper: remove scores < the k-th largest (ties at it stay) */
            double thr = kth_largest(g, kk);
            if (isnan(thr)) return TC_ERR_NOMEM;
            for (uint32_t i = 0; i < g->k; i++) keep[i] = !(g->d[i].sc < thr);
            gen_filter(g, keep);
            snprintf(cut, TC_SAMPLER_CUTOFF_MAX, "k=%u: scores < the k-th largest %.6g removed, %u kept (hf keeps ties)", kk, thr, g->k);
            return 0;
        }
        if (kk < g->k) {   /* keep what can be among the kk best, then sort only those */
            double thr = kth_largest(g, kk);
            if (isnan(thr)) return TC_ERR_NOMEM;
            for (uint32_t i = 0; i < g->k; i++) keep[i] = g->d[i].sc >= thr;
            gen_filter(g, keep);
        }
        qsort(g->d, g->k, sizeof *g->d, gi_desc);
        g->k = kk;
        if (sem == TC_SEM_KESTREL) qsort(g->d, g->k, sizeof *g->d, gi_id);
        if ((int32_t)kk != k) snprintf(cut, TC_SAMPLER_CUTOFF_MAX, "k=%u (capped from %d) (%s)", kk, k, sn);
        else snprintf(cut, TC_SAMPLER_CUTOFF_MAX, "k=%u (%s)", kk, sn);
        return 0;
    }
    case TC_STAGE_TOP_P: {
        double tp = p->top_p;
        if (sem == TC_SEM_DS4 && (tp <= 0 || tp > 1)) tp = 1;      /* ds4.c clamp */
        if (sem != TC_SEM_DS4 && tp >= 1) { snprintf(cut, TC_SAMPLER_CUTOFF_MAX, "p=%g >= 1: off (%s)", tp, sn); return 0; }
        if (sem == TC_SEM_HF) {
            /* TopPLogitsWarper: ascending sort, cumulative softmax; remove
             * cum <= 1 - p; the last (top) min_tokens_to_keep = 1 stays */
            qsort(g->d, g->k, sizeof *g->d, gi_desc);
            gen_probs(g, pr);
            double cum = 0;
            for (uint32_t i = g->k; i-- > 0;) {
                cum += pr[i];
                keep[i] = !(cum <= 1.0 - tp) || i == 0;
            }
            gen_filter(g, keep);
            snprintf(cut, TC_SAMPLER_CUTOFF_MAX, "p=%g: ascending cumulative <= %.6g removed, %u kept (hf)", tp, 1.0 - tp, g->k);
            return 0;
        }
        if (sem == TC_SEM_KESTREL) {
            /* unrenormalized probabilities of the tempered softmax, prob desc / id asc, keep while cum < p */
            gi *s = malloc(g->k * sizeof *s);
            if (!s) return TC_ERR_NOMEM;
            for (uint32_t i = 0; i < g->k; i++) { s[i].id = g->d[i].id; s[i].sc = g->base[g->d[i].id]; }
            qsort(s, g->k, sizeof *s, gi_desc);
            double cum = 0;
            uint32_t m = 0;
            if (tp <= 0) m = 1;
            else while (m < g->k && cum < tp) cum += s[m++].sc;
            for (uint32_t i = 0; i < g->k; i++) keep[i] = 0;
            qsort(g->d, g->k, sizeof *g->d, gi_id);
            for (uint32_t i = 0; i < m; i++) {
                gi key = {s[i].id, 0};
                gi *f = bsearch(&key, g->d, g->k, sizeof *g->d, gi_id);
                if (f) keep[f - g->d] = 1;
            }
            free(s);
            gen_filter(g, keep);
            snprintf(cut, TC_SAMPLER_CUTOFF_MAX, "p=%g: %u kept, cum %.6g of the unrenormalized probs (kestrel)", tp, m, cum);
            return 0;
        }
        /* ds4 / llama.cpp: sort, softmax of the current set, keep through cum >= p */
        qsort(g->d, g->k, sizeof *g->d, gi_desc);
        gen_probs(g, pr);
        double cum = 0;
        uint32_t m = g->k;
        for (uint32_t i = 0; i < g->k; i++) {
            cum += pr[i];
            if (cum >= tp) { m = i + 1; break; }
        }
        double thr = pr[m - 1];
        g->k = m;
        snprintf(cut, TC_SAMPLER_CUTOFF_MAX, "p=%g reached at rank %u, threshold prob %.6g (%s)", tp, m, thr, sn);
        return 0;
    }
    case TC_STAGE_MIN_P: {
        double mp = p->min_p;
        if (!(mp > 0)) { snprintf(cut, TC_SAMPLER_CUTOFF_MAX, "min_p=%g: off (%s)", mp, sn); return 0; }
        if (sem == TC_SEM_LLAMA) {
            double mx = -INFINITY;
            for (uint32_t i = 0; i < g->k; i++)
                if (g->d[i].sc > mx) mx = g->d[i].sc;
            double thr = mx + log(mp);
            for (uint32_t i = 0; i < g->k; i++) keep[i] = g->d[i].sc >= thr;
            gen_filter(g, keep);
            snprintf(cut, TC_SAMPLER_CUTOFF_MAX, "min_p=%g: logit >= max + ln(min_p) = %.6g, %u kept (llama.cpp)", mp, thr, g->k);
            return 0;
        }
        if (sem == TC_SEM_DS4) qsort(g->d, g->k, sizeof *g->d, gi_desc);
        gen_probs(g, pr);
        double mx = 0;
        uint32_t top = 0;
        for (uint32_t i = 0; i < g->k; i++)
            if (pr[i] > mx) { mx = pr[i]; top = i; }
        double thr = mp * mx;
        for (uint32_t i = 0; i < g->k; i++) keep[i] = !(pr[i] < thr) || i == top;
        gen_filter(g, keep);
        snprintf(cut, TC_SAMPLER_CUTOFF_MAX, "min_p=%g of the top prob: threshold prob %.6g, %u kept (%s)", mp, thr, g->k, sn);
        return 0;
    }
    }
    return 0;
}

static int run_generic(ctx *c, const tc_sampler_params *p, int32_t *idb) {
    tc_sresult *r = c->res;
    tc_stage_kind order[4];
    tc_semantics sem[4];
    int n_order;
    if (p->preset == TC_SP_HF) {
        /* GenerationMixin._get_logits_processor: temperature, top-k, top-p, min-p */
        static const tc_stage_kind HF[4] = {TC_STAGE_TEMPERATURE, TC_STAGE_TOP_K, TC_STAGE_TOP_P, TC_STAGE_MIN_P};
        memcpy(order, HF, sizeof order);
        for (int i = 0; i < 4; i++) sem[i] = TC_SEM_HF;
        n_order = 4;
        note(r, "hf: draw not reproducible (torch.multinomial); the draws shown use xorshift64* over the final probabilities");
    } else {
        n_order = p->n_order;
        memcpy(order, p->order, sizeof order);
        memcpy(sem, p->semantics, sizeof sem);
        note(r, "custom: no engine's draw; the draws use xorshift64* over the final probabilities (double)");
    }
    report_nonfinite(c, "NaN and -inf are dropped; +inf entries share all the mass");
    gen g = {malloc(c->n * sizeof(gi)), 0, calloc(c->n, sizeof(double))};
    unsigned char *keep = malloc(c->n);
    int rc = TC_OK;
    char cut[TC_SAMPLER_CUTOFF_MAX];
    if (!g.d || !g.base || !keep) { rc = TC_ERR_NOMEM; goto done; }
    for (uint32_t i = 0; i < c->n; i++)
        if (!isnan(c->logits[i]) && c->logits[i] != -INFINITY) { g.d[g.k].id = (int32_t)i; g.d[g.k++].sc = c->logits[i]; }
    gen_set_base(&g, c->tmp);
    for (int s = 0; s < n_order && !rc; s++) {
        rc = gen_apply(c, &g, order[s], sem[order[s]], p, keep, cut);
        if (!rc) rc = gen_stage(c, STAGE_NAMES[order[s]], &g, idb, cut);
    }
    if (rc) goto done;
    tc_splan *pl = &r->plan;
    if (g.k == 0) { rc = TC_ERR_ARG; goto done; }
    if ((rc = plan_alloc(pl, g.k, 0, 1))) goto done;
    gen_probs(&g, pl->dw);
    pl->dsum = 0;
    for (uint32_t i = 0; i < g.k; i++) { pl->ids[i] = g.d[i].id; pl->dsum += pl->dw[i]; }
    pl->kind = g.k == 1 ? TC_DRAW_FIXED : TC_DRAW_GENERIC;
    pl->fixed = g.d[g.k - 1].id;
    if (g.k == 1) pl->fixed = g.d[0].id;
done:
    free(g.d);
    free(g.base);
    free(keep);
    return rc;
}

/* ---- entry points ---------------------------------------------------------------- */

void tc_sresult_free(tc_sresult *r) {
    if (!r) return;
    for (int i = 0; i < r->n_stages; i++) {
        free(r->stages[i].ids);
        free(r->stages[i].probs);
    }
    free(r->plan.ids);
    free(r->plan.fw);
    free(r->plan.dw);
    memset(r, 0, sizeof *r);
}

int tc_sampler_run(const float *logits, uint32_t n, const tc_sampler_params *p, tc_sresult *out, tc_error *err) {
    memset(out, 0, sizeof *out);
    out->preset = p->preset;
    if (n == 0 || n > (uint32_t)INT32_MAX) return tc_error_set(err, TC_ERR_ARG, "sampler: %u logits (need 1..2^31-1)", n);
    if ((unsigned)p->preset > TC_SP_CUSTOM) return tc_error_set(err, TC_ERR_ARG, "sampler: unknown preset %d", (int)p->preset);
    if (p->preset == TC_SP_CUSTOM) {
        if (p->n_order < 0 || p->n_order > 4) return tc_error_set(err, TC_ERR_ARG, "sampler: custom order of %d stages", p->n_order);
        int seen[4] = {0};
        for (int i = 0; i < p->n_order; i++) {
            if ((unsigned)p->order[i] > 3 || seen[p->order[i]]++)
                return tc_error_set(err, TC_ERR_ARG, "sampler: custom order repeats or names an unknown stage");
        }
        for (int i = 0; i < 4; i++)
            if ((unsigned)p->semantics[i] > 3) return tc_error_set(err, TC_ERR_ARG, "sampler: unknown semantics for %s", STAGE_NAMES[i]);
    }
    ctx c = {logits, n, out, calloc(n, sizeof(double)), malloc(n * sizeof(double))};
    int32_t *idb = malloc(n * sizeof *idb);
    int rc;
    if (!c.prevp || !c.tmp || !idb) rc = TC_ERR_NOMEM;
    else rc = add_input(&c, idb);
    if (rc == TC_OK) {
        switch (p->preset) {
        case TC_SP_DS4: rc = run_ds4(&c, p, idb); break;
        case TC_SP_LLAMA: rc = run_llama(&c, p, idb); break;
        case TC_SP_KESTREL: rc = run_kestrel(&c, p, idb); break;
        default: rc = run_generic(&c, p, idb); break;
        }
    }
    free(c.prevp);
    free(c.tmp);
    free(idb);
    if (rc == TC_ERR_NOMEM) return tc_error_set(err, rc, "sampler: out of memory");
    if (rc != TC_OK) return tc_error_set(err, rc, "sampler: no candidate left (every logit is NaN or -inf)");
    return TC_OK;
}

static void rng_text(char *dst, size_t cap, tc_sampler_preset preset, uint64_t x64, const tc_mt19937 *mt,
                     const tc_glibc_rand *gr, uint64_t seed) {
    if (preset == TC_SP_LLAMA)
        snprintf(dst, cap, "mt19937 seed %u, outputs consumed: %llu", (unsigned)(uint32_t)seed,
                 (unsigned long long)(mt ? mt->consumed : 0));
    else if (preset == TC_SP_KESTREL)
        snprintf(dst, cap, "glibc srand(%u), rand() calls: %llu", (unsigned)(uint32_t)seed,
                 (unsigned long long)(gr ? gr->calls : 0));
    else snprintf(dst, cap, "xorshift64* 0x%016llx", (unsigned long long)x64);
}

int tc_sampler_draw(const tc_sresult *r, const tc_sampler_params *p, uint32_t n_draws, int32_t *out,
                    tc_draw_state *st, tc_error *err) {
    const tc_splan *pl = &r->plan;
    uint64_t x = p->seed;
    tc_mt19937 *mt = NULL;
    tc_glibc_rand gr;
    memset(&gr, 0, sizeof gr);
    if (r->preset == TC_SP_LLAMA) {
        mt = malloc(sizeof *mt);
        if (!mt) return tc_error_set(err, TC_ERR_NOMEM, "sampler: out of memory");
        tc_mt19937_seed(mt, (uint32_t)p->seed);
    } else if (r->preset == TC_SP_KESTREL) {
        tc_glibc_srand(&gr, (uint32_t)p->seed);
    }
    if (st) rng_text(st->before, sizeof st->before, r->preset, x, mt, &gr, p->seed);
    for (uint32_t d = 0; d < n_draws; d++) {
        int32_t id = pl->fixed;
        switch (pl->kind) {
        case TC_DRAW_FIXED: break;
        case TC_DRAW_DS4: {
            /* ds4.c: r = sample_rng_f32(rng) * filtered_sum; r -= probs[i]; r <= 0 -> ids[i] */
            float rr = tc_xorshift64s_f32(&x) * pl->fsum;
            for (uint32_t i = 0; i < pl->n; i++) {
                rr -= pl->fw[i];
                if (rr <= 0.0f) { id = pl->ids[i]; break; }
            }
            break;
        }
        case TC_DRAW_LLAMA: {
            if (pl->llama_no_rng) { id = pl->ids[0]; break; }
            const double rnd = tc_mt19937_canonical(mt);
            const double tgt = pl->dsum * rnd;
            double run = 0.0;
            for (uint32_t i = 0; i < pl->n; i++) {
                run += pl->fw[i];
                if (run >= tgt) { id = pl->ids[i]; break; }
            }
            break;
        }
        case TC_DRAW_KESTREL: {
            /* (float)rand() / (float)RAND_MAX * sum; ids without probability add 0
             * to the float cumsum, so only their "r <= cumsum" test is replayed */
            const float rr = (float)tc_glibc_rand_next(&gr) / (float)2147483647 * pl->fsum;
            float cum = 0.0f;
            uint32_t next = 0;   /* first id not yet tested */
            int found = 0;
            for (uint32_t i = 0; i < pl->n && !found; i++) {
                if ((uint32_t)pl->ids[i] > next && rr <= cum) { id = (int32_t)next; found = 1; break; }
                cum += pl->fw[i];
                if (rr <= cum) { id = pl->ids[i]; found = 1; break; }
                next = (uint32_t)pl->ids[i] + 1;
            }
            if (!found && next < pl->n_vocab && rr <= cum) id = (int32_t)next;
            break;
        }
        case TC_DRAW_GENERIC: {
            const double u = (double)(tc_xorshift64s_next(&x) >> 11) * 0x1.0p-53;
            const double tgt = u * pl->dsum;
            double cum = 0.0;
            for (uint32_t i = 0; i < pl->n; i++) {
                cum += pl->dw[i];
                if (cum > tgt) { id = pl->ids[i]; break; }
            }
            break;
        }
        }
        out[d] = id;
    }
    if (st) rng_text(st->after, sizeof st->after, r->preset, x, mt, &gr, p->seed);
    free(mt);
    return TC_OK;
}
