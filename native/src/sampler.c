/* sampler.c - engine samplers stage by stage (see sampler.h).
 *
 * Every rule below names the public source it follows. The sources were read
 * through a paged store that shows character offsets, not line numbers, so
 * locations are given as "chars" (offsets into the file at the named commit):
 *   ds4.c      antirez/ds4 ds4.c at commit 8df7a49b (1,205,947 chars):
 *              sample_argmax (chars ~984,200), sample_rng_next / sample_rng_f32
 *              (~985,600), sample_candidate_cmp_desc + sample_full_vocab
 *              (~986,100-989,500), sample_top_p_min_p (~989,500-991,600);
 *              DS4_NEG_INF is (-1.0e30f). Seeding: ds4_cli.c (commit 001f92b5)
 *              run_sampled_generation (chars ~18,900): uint64_t rng = seed ? seed
 *              : time/pid/clock mix, one state advanced across every token;
 *              parse_u64 rejects --seed 0. That CLI passes top_k = 0 (full
 *              vocabulary path) to ds4_session_sample.
 *   llama.cpp  ggml-org/llama.cpp src/llama-sampling.cpp: llama_sampler_top_k_impl,
 *              llama_sampler_top_p_apply, llama_sampler_min_p_apply,
 *              llama_sampler_temp_impl, llama_sampler_dist_apply; the default chain
 *              order of common/sampling.cpp (top_k, top_p, min_p, temperature, dist)
 *   kestrel    m13253246268-ship-it/kestrel-llm src/core/vllm_transformer.c
 *              (commit fe0b3fe9, 25,732 chars): apply_top_k (chars ~10,900-12,900),
 *              sample_token_pk (~12,900-17,300), idxprob_sift_down (~9,900).
 *              Seeding: src/main.c main() (commit 2c684b66, chars ~157,000-179,775)
 *              has no srand call and no --seed flag, so the engine's rand()
 *              stream is glibc's unseeded one, i.e. that of srand(1).
 *   hf         huggingface/transformers src/transformers/generation/logits_process.py
 *              (commit 00857b6c): TemperatureLogitsWarper (chars ~12,300-13,200),
 *              TopPLogitsWarper (~21,500-24,900), TopKLogitsWarper (~24,900-28,600),
 *              MinPLogitsWarper (~33,000-37,300); order from
 *              generation/utils.py GenerationMixin._get_logits_processor (commit
 *              000034a4, chars ~65,700-68,400): only when do_sample, temperature
 *              (if != 1), top-k (if != 0), top-p (if < 1), min-p (if set).
 *   libstdc++  bits/random.tcc generate_canonical, mersenne_twister_engine
 *   glibc      stdlib/random_r.c srandom_r / random_r (TYPE_3)
 * The code is written from the rules, not copied. Float arithmetic follows
 * the engine's types operation by operation (this file must not be built
 * with -ffast-math; FP contraction is off under -std=c11).
 */
#include "sampler.h"
#include "tokcore.h"

#include <math.h>
#include <stdio.h>

/* ---- RNGs ------------------------------------------------------------------ */

/* ds4.c sample_rng_next (chars ~985,600, confirmed): zero state -> 0x9e3779b97f4a7c15;
 * x ^= x>>12; x ^= x<<25;
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

/* ds4.c sample_rng_f32 (confirmed): (float)((x >> 40) & 0xffffffu) / 16777216.0f,
 * i.e. the top 24 bits of the multiplied output over 2^24 */
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

/* ---- workspace ------------------------------------------------------------ */

/* A run takes every array (stage records, plan, scratch) from one arena that
 * the caller keeps across runs: after the first run at a vocabulary size no
 * run calls malloc or touches a fresh page. A run that needs more than the
 * arena holds takes overflow blocks; the next reset replaces the arena by one
 * block large enough for both, so growth happens once. */
typedef union ws_block {
    union ws_block *next;
    max_align_t align;
} ws_block;

struct tc_sampler_ws {
    unsigned char *mem;   /* the arena: cap bytes */
    size_t cap, used;
    ws_block *extra;      /* overflow blocks of the current run */
    size_t extra_bytes;
    double *byid;         /* n_byid doubles, all 0 between uses (stage_mass's by-id table) */
    uint32_t n_byid;
    /* The input stage of the last run's logits (it depends on nothing else: a slider drag reruns
     * the chain on the same row, and every preset starts with it): the logits it was made from,
     * its record and what add_input counted. in_valid 0: nothing kept (or being rebuilt). */
    int in_valid;
    uint32_t in_cap;      /* capacity of the three arrays, in entries */
    float *in_logits;
    int32_t *in_ids;
    double *in_probs;
    uint32_t in_n, in_k;  /* logits, finite ones (the stage's n) */
    double in_entropy, in_total;
    uint32_t in_nan, in_pinf, in_ninf;
    int32_t in_first;
    char in_cut[TC_SAMPLER_CUTOFF_MAX];
};

#define WS_ALIGN (sizeof(max_align_t))

tc_sampler_ws *tc_sampler_ws_new(uint32_t n_vocab) {
    tc_sampler_ws *ws = calloc(1, sizeof *ws);
    if (!ws) return NULL;
    /* the largest chains hold about 60 bytes per id (five full-vocabulary
     * stages of ids and probs, the scratch arrays): one block for them */
    size_t want = (size_t)n_vocab * 64 + 65536;
    ws->mem = malloc(want);
    ws->cap = ws->mem ? want : 0;
    return ws;
}

void tc_sampler_ws_free(tc_sampler_ws *ws) {
    if (!ws) return;
    for (ws_block *b = ws->extra; b;) {
        ws_block *nx = b->next;
        free(b);
        b = nx;
    }
    free(ws->mem);
    free(ws->byid);
    free(ws->in_logits);
    free(ws->in_ids);
    free(ws->in_probs);
    free(ws);
}

size_t tc_sampler_ws_bytes(const tc_sampler_ws *ws) {
    return ws ? ws->cap + ws->extra_bytes + (size_t)ws->n_byid * sizeof(double) +
                    (size_t)ws->in_cap * (sizeof(float) + sizeof(int32_t) + sizeof(double)) : 0;
}

/* start of a run: last run's arrays are dead; overflow folds into the arena */
static void ws_reset(tc_sampler_ws *ws) {
    if (ws->extra) {
        size_t want = ws->cap + ws->extra_bytes + ws->extra_bytes / 4;
        for (ws_block *b = ws->extra; b;) {
            ws_block *nx = b->next;
            free(b);
            b = nx;
        }
        ws->extra = NULL;
        ws->extra_bytes = 0;
        free(ws->mem);
        ws->mem = malloc(want);
        ws->cap = ws->mem ? want : 0;
    }
    ws->used = 0;
}

/* bytes from the arena (aligned for any type); NULL when out of memory */
static void *ws_alloc(tc_sampler_ws *ws, size_t bytes) {
    if (bytes == 0) bytes = 1;
    if (bytes > SIZE_MAX - 2 * WS_ALIGN) return NULL;
    bytes = (bytes + WS_ALIGN - 1) / WS_ALIGN * WS_ALIGN;
    if (ws->mem && ws->cap - ws->used >= bytes) {
        void *p = ws->mem + ws->used;
        ws->used += bytes;
        return p;
    }
    ws_block *b = malloc(sizeof *b + bytes);
    if (!b) return NULL;
    b->next = ws->extra;
    ws->extra = b;
    ws->extra_bytes += bytes;
    return b + 1;
}

/* n elements of `size` bytes, overflow-checked */
static void *ws_array(tc_sampler_ws *ws, size_t n, size_t size) {
    if (size && n > SIZE_MAX / size) return NULL;
    return ws_alloc(ws, n * size);
}

typedef struct ctx {
    const float *logits;
    uint32_t n;
    tc_sresult *res;
    tc_sampler_ws *ws;
    double *tmp;        /* n scratch doubles */
    uint32_t n_nan, n_pinf, n_ninf;   /* non-finite logits, counted by add_input */
    /* the last stage of probabilities shown by display_probs: its weights' sum and sum of w log2 w
     * (raw_ok 0: not known); same_raw: the next stage keeps a subset of those same weights */
    double raw_sum, raw_a;
    int raw_ok, same_raw;
    int32_t first_nonfinite;          /* -1: none */
    /* what the pass that wrote a stage's weights already knows, for stage_done (consumed there):
     * has_known: known is the max of the logits (none NaN-free +inf) or the sum of the probabilities
     * (every one positive and finite), in the order display_probs would compute it */
    int has_known;
    double known;
    /* kestrel_stage over the previous stage's own ids: the removed entries' weight, weight log2
     * weight and display mass, as subset_display would sum them (has_removed: set) */
    int has_removed, removed_ok;
    double rem_sr, rem_ar, rem_qr;
    double last_total;   /* sum of the last stage's display probabilities in index order; NaN: not known */
} ctx;

#if defined(__GNUC__)
TC_PRINTF(2, 3)
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

/* Display-only exp and log2. The stage records' probabilities and entropies
 * are for display (and the hf/custom generic draw, which is no engine's): they
 * need not match libm bit for bit, so they use short inline table-driven
 * polynomials instead of a libm call per entry (two full-vocabulary stages cost
 * two calls per id: 0.5 ms each at 151,936 ids). Measured against glibc's
 * libm over 10^7 arguments (exp on [-708, 0], log2 on (0, 1] and down to
 * 1e-300): exp within 4 ulp, log2 within 1e-13 absolute (1e-16 relative). Neither is used where an engine's own
 * arithmetic is reproduced (the engines' expf/logf calls stay libm's). */

/* inlined into the passes that call them once per id (a call each cost more than the polynomial) */
#if defined(__GNUC__)
#define SAMPLER_INLINE inline __attribute__((always_inline))
#else
#define SAMPLER_INLINE inline
#endif

/* 2^(j/64), j = 0..63, correctly rounded */
static const double EXP2_64[64] = {
    0x1.0000000000000p+0, 0x1.02c9a3e778061p+0, 0x1.059b0d3158574p+0, 0x1.0874518759bc8p+0,
    0x1.0b5586cf9890fp+0, 0x1.0e3ec32d3d1a2p+0, 0x1.11301d0125b51p+0, 0x1.1429aaea92de0p+0,
    0x1.172b83c7d517bp+0, 0x1.1a35beb6fcb75p+0, 0x1.1d4873168b9aap+0, 0x1.2063b88628cd6p+0,
    0x1.2387a6e756238p+0, 0x1.26b4565e27cddp+0, 0x1.29e9df51fdee1p+0, 0x1.2d285a6e4030bp+0,
    0x1.306fe0a31b715p+0, 0x1.33c08b26416ffp+0, 0x1.371a7373aa9cbp+0, 0x1.3a7db34e59ff7p+0,
    0x1.3dea64c123422p+0, 0x1.4160a21f72e2ap+0, 0x1.44e086061892dp+0, 0x1.486a2b5c13cd0p+0,
    0x1.4bfdad5362a27p+0, 0x1.4f9b2769d2ca7p+0, 0x1.5342b569d4f82p+0, 0x1.56f4736b527dap+0,
    0x1.5ab07dd485429p+0, 0x1.5e76f15ad2148p+0, 0x1.6247eb03a5585p+0, 0x1.6623882552225p+0,
    0x1.6a09e667f3bcdp+0, 0x1.6dfb23c651a2fp+0, 0x1.71f75e8ec5f74p+0, 0x1.75feb564267c9p+0,
    0x1.7a11473eb0187p+0, 0x1.7e2f336cf4e62p+0, 0x1.82589994cce13p+0, 0x1.868d99b4492edp+0,
    0x1.8ace5422aa0dbp+0, 0x1.8f1ae99157736p+0, 0x1.93737b0cdc5e5p+0, 0x1.97d829fde4e50p+0,
    0x1.9c49182a3f090p+0, 0x1.a0c667b5de565p+0, 0x1.a5503b23e255dp+0, 0x1.a9e6b5579fdbfp+0,
    0x1.ae89f995ad3adp+0, 0x1.b33a2b84f15fbp+0, 0x1.b7f76f2fb5e47p+0, 0x1.bcc1e904bc1d2p+0,
    0x1.c199bdd85529cp+0, 0x1.c67f12e57d14bp+0, 0x1.cb720dcef9069p+0, 0x1.d072d4a07897cp+0,
    0x1.d5818dcfba487p+0, 0x1.da9e603db3285p+0, 0x1.dfc97337b9b5fp+0, 0x1.e502ee78b3ff6p+0,
    0x1.ea4afa2a490dap+0, 0x1.efa1bee615a27p+0, 0x1.f50765b6e4540p+0, 0x1.fa7c1819e90d8p+0,
};

/* 1/c and log2(c) for c = 1 + (j + 1/2)/128 (1/c rounded, log2 of that rounded value) */
static const double LOG2_128[128][2] = {
    {0x1.fe01fe01fe020p-1, 0x1.709c46d7aac60p-8}, {0x1.fa11caa01fa12p-1, 0x1.1363117a97b03p-6}, {0x1.f6310aca0dbb5p-1, 0x1.c9363ba850f9cp-6}, {0x1.f25f644230ab5p-1, 0x1.3ed3094685a27p-5},
    {0x1.ee9c7f8458e02p-1, 0x1.985bfc3495193p-5}, {0x1.eae807aba01ebp-1, 0x1.f13898332539dp-5}, {0x1.e741aa59750e4p-1, 0x1.24b5b7e135a41p-4}, {0x1.e3a9179dc1a73p-1, 0x1.507b836033bbap-4},
    {0x1.e01e01e01e01ep-1, 0x1.7beee96b8a281p-4}, {0x1.dca01dca01dcap-1, 0x1.a7111df348494p-4}, {0x1.d92f2231e7f8ap-1, 0x1.d1e34e35b82d7p-4}, {0x1.d5cac807572b2p-1, 0x1.fc66a0f0b00a5p-4},
    {0x1.d272ca3fc5b1ap-1, 0x1.134e1b4890631p-3}, {0x1.cf26e5c44bfc6p-1, 0x1.284294b07a640p-3}, {0x1.cbe6d9601cbe7p-1, 0x1.3d1146d9a8a63p-3}, {0x1.c8b265afb8a42p-1, 0x1.51bab907a5c8ap-3},
    {0x1.c5894d10d4986p-1, 0x1.663f6fac91315p-3}, {0x1.c26b5392ea01cp-1, 0x1.7a9fec7d05de0p-3}, {0x1.bf583ee868d8bp-1, 0x1.8edcae8352b6bp-3}, {0x1.bc4fd65883e7bp-1, 0x1.a2f632320b86cp-3},
    {0x1.b951e2b18ff23p-1, 0x1.b6ecf175f95ecp-3}, {0x1.b65e2e3beee05p-1, 0x1.cac163c770dcap-3}, {0x1.b37484ad806cep-1, 0x1.de73fe3b1480ep-3}, {0x1.b094b31d922a4p-1, 0x1.f205339208f27p-3},
    {0x1.adbe87f94905ep-1, 0x1.02baba24d0664p-2}, {0x1.aaf1d2f87ebfdp-1, 0x1.0c62975542a8dp-2}, {0x1.a82e65130e159p-1, 0x1.15fa676bb08fep-2}, {0x1.a574107688a4ap-1, 0x1.1f825f6d88e13p-2},
    {0x1.a2c2a87c51ca0p-1, 0x1.28fab35b32684p-2}, {0x1.a01a01a01a01ap-1, 0x1.32639636b2836p-2}, {0x1.9d79f176b682dp-1, 0x1.3bbd3a0a1dcfbp-2}, {0x1.9ae24ea5510dap-1, 0x1.4507cfedd4fc5p-2},
    {0x1.9852f0d8ec0ffp-1, 0x1.4e43880e8fb6bp-2}, {0x1.95cbb0be377aep-1, 0x1.577091b3378c9p-2}, {0x1.934c67f9b2ce6p-1, 0x1.608f1b42948aep-2}, {0x1.90d4f120190d5p-1, 0x1.699f5248cd4b8p-2},
    {0x1.8e6527af1373fp-1, 0x1.72a1637cbc183p-2}, {0x1.8bfce8062ff3ap-1, 0x1.7b957ac51aac4p-2}, {0x1.899c0f601899cp-1, 0x1.847bc33d8618ep-2}, {0x1.87427bcc092b9p-1, 0x1.8d54673b5c371p-2},
    {0x1.84f00c2780614p-1, 0x1.961f90527409bp-2}, {0x1.82a4a0182a4a0p-1, 0x1.9edd6759b25e0p-2}, {0x1.8060180601806p-1, 0x1.a78e146f7bef4p-2}, {0x1.7e225515a4f1dp-1, 0x1.b031befe06435p-2},
    {0x1.7beb3922e017cp-1, 0x1.b8c88dbf88679p-2}, {0x1.79baa6bb6398bp-1, 0x1.c152a6c24cae7p-2}, {0x1.77908119ac60dp-1, 0x1.c9d02f6ca47b5p-2}, {0x1.756cac201756dp-1, 0x1.d2414c80bf27cp-2},
    {0x1.734f0c541fe8dp-1, 0x1.daa6222064fb8p-2}, {0x1.713786d9c7c09p-1, 0x1.e2fed3d097297p-2}, {0x1.6f26016f26017p-1, 0x1.eb4b847d15bcep-2}, {0x1.6d1a62681c861p-1, 0x1.f38c567bcc541p-2},
    {0x1.6b1490aa31a3dp-1, 0x1.fbc16b902680ap-2}, {0x1.691473a88d0c0p-1, 0x1.01f57277264e0p-1}, {0x1.6719f3601671ap-1, 0x1.0604719f24eb2p-1}, {0x1.6524f853b4aa3p-1, 0x1.0a0dc34f8e1fcp-1},
    {0x1.63356b88ac0dep-1, 0x1.0e117754d7c11p-1}, {0x1.614b36831ae94p-1, 0x1.120f9d39e1806p-1}, {0x1.5f66434292dfcp-1, 0x1.160844495e006p-1}, {0x1.5d867c3ece2a5p-1, 0x1.19fb7b8f32422p-1},
    {0x1.5babcc647fa91p-1, 0x1.1de951d9cbba7p-1}, {0x1.59d61f123ccaap-1, 0x1.21d1d5bb6d59bp-1}, {0x1.5805601580560p-1, 0x1.25b5158b73d05p-1}, {0x1.56397ba7c52e2p-1, 0x1.29931f6791560p-1},
    {0x1.54725e6bb82fep-1, 0x1.2d6c013501380p-1}, {0x1.52aff56a8054bp-1, 0x1.313fc8a1b36f2p-1}, {0x1.50f22e111c4c5p-1, 0x1.350e8325707dap-1}, {0x1.4f38f62dd4c9bp-1, 0x1.38d83e02f5d08p-1},
    {0x1.4d843bedc2c4cp-1, 0x1.3c9d06490ae11p-1}, {0x1.4bd3edda68fe1p-1, 0x1.405ce8d38f4bcp-1}, {0x1.4a27fad76014ap-1, 0x1.4417f24c82165p-1}, {0x1.4880522014880p-1, 0x1.47ce2f2d02588p-1},
    {0x1.46dce34596066p-1, 0x1.4b7fabbe49796p-1}, {0x1.453d9e2c776cap-1, 0x1.4f2c741a9f33ep-1}, {0x1.43a2730abee4dp-1, 0x1.52d4942e4790ap-1}, {0x1.420b5265e5951p-1, 0x1.567817b86b02dp-1},
    {0x1.40782d10e6566p-1, 0x1.5a170a4bf8d5cp-1}, {0x1.3ee8f42a5af07p-1, 0x1.5db177508413cp-1}, {0x1.3d5d991aa75c6p-1, 0x1.61476a031b108p-1}, {0x1.3bd60d9232955p-1, 0x1.64d8ed7719beep-1},
    {0x1.3a524387ac822p-1, 0x1.68660c96f6f88p-1}, {0x1.38d22d366088ep-1, 0x1.6beed2250cdadp-1}, {0x1.3755bd1c945eep-1, 0x1.6f7348bc5c617p-1}, {0x1.35dce5f9f2af8p-1, 0x1.72f37ad14c5b0p-1},
    {0x1.34679ace01346p-1, 0x1.766f72b263defp-1}, {0x1.32f5ced6a1dfap-1, 0x1.79e73a8900620p-1}, {0x1.3187758e9ebb6p-1, 0x1.7d5adc5a078a4p-1}, {0x1.301c82ac40260p-1, 0x1.80ca620694df9p-1},
    {0x1.2eb4ea1fed14bp-1, 0x1.8435d54ca3774p-1}, {0x1.2d50a012d50a0p-1, 0x1.879d3fc7b3b71p-1}, {0x1.2bef98e5a3711p-1, 0x1.8b00aaf16d4a9p-1}, {0x1.2a91c92f3c105p-1, 0x1.8e6020223d661p-1},
    {0x1.293725bb804a5p-1, 0x1.91bba891f1708p-1}, {0x1.27dfa38a1ce4dp-1, 0x1.95134d584e2e4p-1}, {0x1.268b37cd60127p-1, 0x1.9867176da382dp-1}, {0x1.2539d7e9177b2p-1, 0x1.9bb70fab5ce4dp-1},
    {0x1.23eb79717605bp-1, 0x1.9f033ecc8e957p-1}, {0x1.22a0122a0122ap-1, 0x1.a24bad6e7fb77p-1}, {0x1.21579804855e6p-1, 0x1.a590641131564p-1}, {0x1.2012012012012p-1, 0x1.a8d16b17e2745p-1},
    {0x1.1ecf43c7fb84cp-1, 0x1.ac0ecac99133cp-1}, {0x1.1d8f5672e4abdp-1, 0x1.af488b51792d4p-1}, {0x1.1c522fc1ce059p-1, 0x1.b27eb4bf8f08ap-1}, {0x1.1b17c67f2bae3p-1, 0x1.b5b14f08f9665p-1},
    {0x1.19e0119e0119ep-1, 0x1.b8e0620887309p-1}, {0x1.18ab083902bdbp-1, 0x1.bc0bf57f23605p-1}, {0x1.1778a191bd684p-1, 0x1.bf341114464a7p-1}, {0x1.1648d50fc3201p-1, 0x1.c258bc5664829p-1},
    {0x1.151b9a3fdd5c9p-1, 0x1.c579febb5b657p-1}, {0x1.13f0e8d344724p-1, 0x1.c897dfa0db58ep-1}, {0x1.12c8b89edc0acp-1, 0x1.cbb2664ccfcf5p-1}, {0x1.11a3019a74826p-1, 0x1.cec999edc5204p-1},
    {0x1.107fbbe011080p-1, 0x1.d1dd819b4c3f0p-1}, {0x1.0f5edfab325a2p-1, 0x1.d4ee24565c62ap-1}, {0x1.0e40655826011p-1, 0x1.d7fb8909b2a6cp-1}, {0x1.0d24456359e3ap-1, 0x1.db05b68a2fb64p-1},
    {0x1.0c0a7868b4171p-1, 0x1.de0cb397338a3p-1}, {0x1.0af2f722eecb5p-1, 0x1.e11086daf7497p-1}, {0x1.09ddba6af8360p-1, 0x1.e41136eae553dp-1}, {0x1.08cabb37565e2p-1, 0x1.e70eca47ef86fp-1},
    {0x1.07b9f29b8eae2p-1, 0x1.ea09475ee3c39p-1}, {0x1.06ab59c7912fbp-1, 0x1.ed00b488bec24p-1}, {0x1.059eea0727586p-1, 0x1.eff5180afd3e5p-1}, {0x1.04949cc1664c5p-1, 0x1.f2e67817eb846p-1},
    {0x1.038c6b78247fcp-1, 0x1.f5d4dacef36bep-1}, {0x1.02864fc7729e9p-1, 0x1.f8c0463ce8c68p-1}, {0x1.0182436517a37p-1, 0x1.fba8c05c544e0p-1}, {0x1.0080402010080p-1, 0x1.fe8e4f15bd1a1p-1},
};

/* exp(x) for x <= 0; 0 below -708 (beneath that the value is subnormal: a
 * display probability of 0) and for NaN. x = (k/64) ln2 + r, |r| <= ln2/128;
 * exp(r) to r^5 (remainder < 4e-17); 2^(k/64) = 2^(k div 64) * EXP2_64[k mod 64]. */
static SAMPLER_INLINE double disp_exp(double x) {
    if (!(x >= -708.0)) return 0.0;
    /* round(x * 64 / ln2) by the 1.5 * 2^52 shifter (round to nearest, |value| < 2^51) */
    const double kf = (x * 92.33248261689366 + 6755399441055744.0) - 6755399441055744.0;
    const double r = (x - kf * 0x1.62e42fef00000p-7) - kf * 1.162596423439437e-12;   /* ln2/64: hi (kf * hi exact) + lo */
    const double r2 = r * r;
    const double q = (1.0 + r) + r2 * (0.5 + r * (1.0 / 6.0)) + (r2 * r2) * (1.0 / 24.0 + r * (1.0 / 120.0));
    const int64_t ki = (int64_t)kf;                       /* in [-65408, 0] */
    const uint32_t j = (uint32_t)((uint64_t)ki & 63u);
    const int64_t e = (ki - (int64_t)j) / 64;             /* exact: >= -1022 */
    const uint64_t bits = (uint64_t)(e + 1023) << 52;
    double scale;
    memcpy(&scale, &bits, sizeof scale);
    return q * EXP2_64[j] * scale;
}

/* log2(v) for a positive finite v: v = 2^e m, m in [1, 2); with c the centre
 * of m's 1/128 bucket, log2 m = log2 c + log2(m / c), u = m / c - 1 (|u| <
 * 0.004), ln(1 + u) to u^5 (remainder < 1e-15). */
static SAMPLER_INLINE double disp_log2(double v) {
    uint64_t bits;
    int e = 0;
    if (v < 0x1p-1022) { v *= 0x1p54; e = -54; }
    memcpy(&bits, &v, sizeof bits);
    e += (int)((bits >> 52) & 0x7ff) - 1023;
    const uint32_t j = (uint32_t)((bits >> 45) & 127u);
    bits = (bits & UINT64_C(0x000fffffffffffff)) | UINT64_C(0x3ff0000000000000);
    double m;
    memcpy(&m, &bits, sizeof m);
    const double u = m * LOG2_128[j][0] - 1.0, u2 = u * u;
    const double ln1p = u - u2 * (0.5 - u * (1.0 / 3.0)) - (u2 * u2) * (0.25 - u * 0.2);
    return ((double)e + LOG2_128[j][1]) + ln1p * 1.4426950408889634;
}

/* Display probabilities of k weights: logits (softmax in double, +inf
 * entries share the mass, NaN/-inf get 0) or probabilities (divided by their
 * sum). Never NaN: an all-zero set shows uniform. Returns the entropy in
 * bits (for logits from the log-sum-exp: no logarithm per entry). */
static double display_probs(const double *w, uint32_t k, int is_logit, double *out, double raw[2],
                            const double *known, double *total) {
    uint32_t n_posinf = 0;
    double m = -INFINITY, sum = 0.0, dot = 0.0, h = 0.0, t = 0.0;
    if (raw) raw[0] = NAN;
    if (total) *total = NAN;
    if (!is_logit) {
        /* probabilities: one pass cleans (NaN, negative -> 0; +inf stays) and sums; a caller that
         * summed them while writing them in place (every one positive and finite) saves it */
        if (known && out == w && *known > 0) sum = *known;
        else
            for (uint32_t i = 0; i < k; i++) {
                double v = (isnan(w[i]) || w[i] < 0) ? 0.0 : w[i];
                n_posinf += v == INFINITY;
                out[i] = v;
                sum += v;
            }
        if (n_posinf) {
            for (uint32_t i = 0; i < k; i++) out[i] = out[i] == INFINITY ? 1.0 / n_posinf : 0.0;
            return log2((double)n_posinf);
        }
        if (sum > 0) {
            /* H = log2(sum) - sum(v log2 v) / sum: one logarithm per nonzero entry */
            const double inv = 1.0 / sum;
            for (uint32_t i = 0; i < k; i++) {
                const double v = out[i];
                if (v > 0) h += v * disp_log2(v);
                out[i] = v * inv;
                t += out[i];
            }
            if (total) *total = t;
            if (raw) { raw[0] = sum; raw[1] = h; }
            h = disp_log2(sum) - h * inv;
            return h > 0 ? h : 0.0;
        }
        for (uint32_t i = 0; i < k; i++) {
            out[i] = 1.0 / k;
            if (out[i] > 0) h -= out[i] * log2(out[i]);
        }
        return h;
    }
    /* a caller that found the max while writing the logits (none +inf) saves this pass */
    if (known) m = *known;
    else
        for (uint32_t i = 0; i < k; i++) {
            if (isnan(w[i])) continue;
            if (w[i] == INFINITY) n_posinf++;
            if (w[i] > m) m = w[i];
        }
    if (n_posinf) {
        for (uint32_t i = 0; i < k; i++) out[i] = w[i] == INFINITY ? 1.0 / n_posinf : 0.0;
        return log2((double)n_posinf);
    }
    if (m != -INFINITY) {
        for (uint32_t i = 0; i < k; i++) {
            const double x = w[i] - m;          /* NaN for NaN, -inf for -inf: both exp to 0 */
            const double v = disp_exp(x);
            if (v > 0) dot += v * x;
            out[i] = v;
            sum += v;
        }
        const double inv = 1.0 / sum;
        for (uint32_t i = 0; i < k; i++) { out[i] *= inv; t += out[i]; }
        if (total) *total = t;
        h = (log(sum) - dot / sum) / log(2.0);
        return h > 0 ? h : 0.0;
    }
    /* logits that are all NaN / -inf: uniform */
    for (uint32_t i = 0; i < k; i++) {
        out[i] = 1.0 / k;
        if (out[i] > 0) h -= out[i] * log2(out[i]);
    }
    return h;
}

/* Stage records. A stage is built in place: stage_new allocates its ids and
 * probs (or shares the previous stage's ids array when the kept ids are the
 * same, in the same order), the caller writes the ids and the weights (logits
 * or probabilities) into s->probs, and stage_done turns the weights into the
 * display probabilities in place, with the entropy and the kept mass. */

static tc_sstage *prev_stage(const ctx *c) {
    return c->res->n_stages >= 2 ? &c->res->stages[c->res->n_stages - 2] : NULL;
}

/* k kept candidates; share_ids: point at the previous stage's ids (same k ids, same order) */
static tc_sstage *stage_new(ctx *c, const char *name, uint32_t k, int share_ids) {
    tc_sresult *r = c->res;
    if (r->n_stages >= TC_SAMPLER_MAX_STAGES) return NULL;
    tc_sstage *s = &r->stages[r->n_stages];
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", name);
    const tc_sstage *prev = r->n_stages >= 1 ? &r->stages[r->n_stages - 1] : NULL;
    s->probs = ws_array(c->ws, k, sizeof *s->probs);
    if (share_ids && prev && prev->n == k) {
        s->ids = prev->ids;
        s->ids_shared = 1;
    } else {
        s->ids = ws_array(c->ws, k, sizeof *s->ids);
    }
    if (!s->ids || !s->probs) {
        memset(s, 0, sizeof *s);
        return NULL;
    }
    s->n = k;
    r->n_stages++;
    return s;
}

/* mass of s's ids in the previous stage's distribution, summed in s's order
 * (ids absent from the previous stage add 0): the shared ids, an in-order
 * subsequence, a binary search in id-sorted previous ids, or else a by-id table */
static int stage_mass(ctx *c, const tc_sstage *s, double prev_total, double *out) {
    const tc_sstage *prev = prev_stage(c);
    double mass = 0.0;
    if (s->ids == prev->ids) {
        /* the same sum in the same order was taken when prev's probabilities were written */
        if (!isnan(prev_total) && s->n == prev->n) mass = prev_total;
        else
            for (uint32_t i = 0; i < s->n; i++) mass += prev->probs[i];
        *out = mass;
        return TC_OK;
    }
    /* each path sums prev's probability of s->ids[i] in s's order (ids are distinct): the same
     * value whichever is taken. A small s over id-sorted previous ids (kestrel's top-k of 40 after
     * its ban stage of 151,933) goes to the binary searches at once, not through a walk of prev. */
    const int small = s->n < prev->n / 16;
    uint32_t j = 0, i = 0;
    if (!(small && prev->ids_ascending)) {
        for (; i < s->n; i++) {
            while (j < prev->n && prev->ids[j] != s->ids[i]) j++;
            if (j == prev->n) break;
            mass += prev->probs[j++];
        }
        if (i == s->n) { *out = mass; return TC_OK; }
    }
    /* id-sorted previous ids: a binary search per id when s is small; a by-id table otherwise (the
     * searches' cache misses cost more than two passes once s holds more than ~1/16 of them) */
    int sorted = small;
    if (!prev->ids_ascending)
        for (uint32_t t = 1; t < prev->n && sorted; t++) sorted = prev->ids[t - 1] < prev->ids[t];
    mass = 0.0;
    if (sorted) {
        for (i = 0; i < s->n; i++) {
            uint32_t lo = 0, hi = prev->n;
            while (lo < hi) {
                uint32_t mid = lo + (hi - lo) / 2;
                if (prev->ids[mid] < s->ids[i]) lo = mid + 1;
                else hi = mid;
            }
            mass += (lo < prev->n && prev->ids[lo] == s->ids[i]) ? prev->probs[lo] : 0.0;
        }
        *out = mass;
        return TC_OK;
    }
    tc_sampler_ws *ws = c->ws;
    if (ws->n_byid < c->n) {
        free(ws->byid);
        ws->n_byid = 0;
        if (!(ws->byid = calloc(c->n, sizeof *ws->byid))) return TC_ERR_NOMEM;
        ws->n_byid = c->n;
    }
    double *byid = ws->byid;
    for (i = 0; i < prev->n; i++) byid[prev->ids[i]] = prev->probs[i];
    for (i = 0; i < s->n; i++) mass += byid[s->ids[i]];
    for (i = 0; i < prev->n; i++) byid[prev->ids[i]] = 0.0;
    *out = mass;
    return TC_OK;
}

/* A stage that keeps some of the previous stage's weights unchanged (kestrel
 * after its softmax: the ban, top-k, min-p and top-p stages zero entries and
 * leave the others as they are) has display probabilities w / S' and entropy
 * log2 S' - A' / S', where S' and A' (the sum of w log2 w) are the previous
 * stage's minus the removed entries': a pass over the removed ones instead of
 * a logarithm per kept one (the ban stage removes 3 of 151,936). Returns 0
 * (nothing written) when the shortcut does not apply: the ids are not an
 * in-order subsequence of the previous stage's, a weight is not positive and
 * finite, or the removed ones hold half the mass or more (cancellation). */
static int subset_display(ctx *c, tc_sstage *s, const double *kept_sum) {
    const tc_sstage *prev = prev_stage(c);
    if (!c->raw_ok || !prev || s->n == 0 || s->n >= prev->n) return 0;
    double sr = 0.0, ar = 0.0, qr = 0.0;
    uint32_t i = 0;
    int ok = 1;
    /* the kept weights first (s->n of them): when they hold at most half of the previous sum the
     * shortcut is refused below anyway, so the walk over the removed ones (a logarithm each: 151,893
     * of them after kestrel's top-k of 40) is not made (a margin of 1e-9 for the two sums' rounding) */
    double kept = 0.0;
    if (kept_sum) kept = *kept_sum;   /* the same sum, in this order, by the pass that wrote s */
    else
        for (i = 0; i < s->n; i++) kept += s->probs[i];
    i = 0;
    if (!(kept > 0.5 * c->raw_sum * (1.0 + 1e-9))) return 0;
    if (c->has_removed) {   /* summed by the pass that wrote s (kestrel_stage), in this same order */
        sr = c->rem_sr; ar = c->rem_ar; qr = c->rem_qr; ok = c->removed_ok; i = s->n;
    } else
        for (uint32_t j = 0; j < prev->n; j++) {
            if (i < s->n && s->ids[i] == prev->ids[j]) {
                const double v = s->probs[i++];
                ok &= v > 0 && v < INFINITY;
                continue;
            }
            const double w = prev->probs[j] * c->raw_sum;   /* a removed entry's weight */
            qr += prev->probs[j];
            sr += w;
            if (w > 0) ar += w * disp_log2(w);
        }
    if (i != s->n || !ok) return 0;
    const double sum = c->raw_sum - sr, a = c->raw_a - ar;
    if (!(sum > 0.5 * c->raw_sum)) return 0;
    const double inv = 1.0 / sum;
    double t = 0.0;
    for (i = 0; i < s->n; i++) { s->probs[i] *= inv; t += s->probs[i]; }
    c->last_total = t;
    const double h = disp_log2(sum) - a * inv;
    s->entropy_bits = h > 0 ? h : 0.0;
    /* the kept mass in the previous stage's distribution: 1 minus the removed display probabilities
     * (that distribution sums to 1 within rounding, and more than half of it is kept) */
    s->kept_mass = 1.0 - qr;
    c->raw_sum = sum;
    c->raw_a = a;
    return 1;
}

/* s->probs holds the weights (logits or probabilities); made the display
 * probabilities in place (display_probs reads w[i] before writing out[i]) */
#if defined(__GNUC__)
TC_PRINTF(4, 5)
#endif
static int stage_done(ctx *c, tc_sstage *s, int is_logit, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->cutoff, sizeof s->cutoff, fmt, ap);
    va_end(ap);
    const int same_raw = c->same_raw, has_known = c->has_known;
    const double prev_total = c->last_total;
    c->same_raw = 0;
    c->has_known = 0;
    c->last_total = NAN;
    if (!is_logit && same_raw && subset_display(c, s, has_known ? &c->known : NULL)) {
        c->has_removed = 0;
        return TC_OK;   /* kept_mass set there */
    }
    c->has_removed = 0;
    double raw[2];
    s->entropy_bits = display_probs(s->probs, s->n, is_logit, s->probs, is_logit ? NULL : raw,
                                    has_known ? &c->known : NULL, &c->last_total);
    c->raw_ok = !is_logit && !isnan(raw[0]);
    if (c->raw_ok) { c->raw_sum = raw[0]; c->raw_a = raw[1]; }
    if (c->res->n_stages == 1) {
        s->kept_mass = 1.0;
        return TC_OK;
    }
    return stage_mass(c, s, prev_total, &s->kept_mass);
}

/* 1 if the k ids equal the previous stage's ids (a cheap test that saves a copy) */
static int same_as_prev_ids(const ctx *c, uint32_t k, const int32_t *ids) {
    const tc_sresult *r = c->res;
    if (r->n_stages < 1) return 0;
    const tc_sstage *prev = &r->stages[r->n_stages - 1];
    return prev->n == k && k > 0 && memcmp(prev->ids, ids, k * sizeof *ids) == 0;
}

/* Appends a stage: k ids (engine order) with weights w (logits or probs), copied. */
#if defined(__GNUC__)
TC_PRINTF(7, 8)
#endif
static int add_stage(ctx *c, const char *name, uint32_t k, const int32_t *ids, const double *w, int is_logit,
                     const char *fmt, ...) {
    tc_sstage *s = stage_new(c, name, k, same_as_prev_ids(c, k, ids));
    if (!s) return c->res->n_stages >= TC_SAMPLER_MAX_STAGES ? TC_ERR_ARG : TC_ERR_NOMEM;
    if (k) {
        if (!s->ids_shared) memcpy(s->ids, ids, k * sizeof *ids);
        memcpy(s->probs, w, k * sizeof *w);
    }
    char cut[TC_SAMPLER_CUTOFF_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cut, sizeof cut, fmt, ap);
    va_end(ap);
    return stage_done(c, s, is_logit, "%s", cut);
}

/* input: softmax of the raw logits over every finite id, in id order; counts
 * the non-finite logits for report_nonfinite */
static int add_input(ctx *c) {
    tc_sampler_ws *ws = c->ws;
    const size_t lbytes = (size_t)c->n * sizeof *c->logits;
    if (ws->in_valid && ws->in_n == c->n && memcmp(ws->in_logits, c->logits, lbytes) == 0) {
        /* the same row as a run before on this workspace: its input stage, unchanged */
        tc_sstage *s = stage_new(c, "input", 0, 0);
        if (!s) return TC_ERR_NOMEM;
        s->ids = ws->in_ids;
        s->probs = ws->in_probs;
        s->n = ws->in_k;
        s->entropy_bits = ws->in_entropy;
        s->kept_mass = 1.0;
        s->ids_ascending = 1;
        memcpy(s->cutoff, ws->in_cut, sizeof s->cutoff);
        c->n_nan = ws->in_nan;
        c->n_pinf = ws->in_pinf;
        c->n_ninf = ws->in_ninf;
        c->first_nonfinite = ws->in_first;
        c->last_total = ws->in_total;
        c->raw_ok = 0;   /* a stage of logits: stage_done's state after it */
        return TC_OK;
    }
    ws->in_valid = 0;
    if (ws->in_cap < c->n) {   /* the kept record's arrays; without them the stage is the arena's, not kept */
        free(ws->in_logits);
        free(ws->in_ids);
        free(ws->in_probs);
        ws->in_logits = malloc(lbytes);
        ws->in_ids = malloc((size_t)c->n * sizeof *ws->in_ids);
        ws->in_probs = malloc((size_t)c->n * sizeof *ws->in_probs);
        ws->in_cap = ws->in_logits && ws->in_ids && ws->in_probs ? c->n : 0;
    }
    const int keep = ws->in_cap >= c->n;
    tc_sstage *s = stage_new(c, "input", keep ? 0 : c->n, 0);   /* n at most: untouched tail pages cost nothing */
    if (!s) return TC_ERR_NOMEM;
    if (keep) {
        s->ids = ws->in_ids;
        s->probs = ws->in_probs;
        s->n = c->n;
    }
    uint32_t k = 0;
    float mx = -INFINITY;
    c->n_nan = c->n_pinf = c->n_ninf = 0;
    c->first_nonfinite = -1;
    for (uint32_t i = 0; i < c->n; i++) {
        const float v = c->logits[i];
        if (isfinite(v)) { s->ids[k] = (int32_t)i; s->probs[k++] = v; mx = v > mx ? v : mx; continue; }
        if (c->first_nonfinite < 0) c->first_nonfinite = (int32_t)i;
        if (isnan(v)) c->n_nan++;
        else if (v > 0) c->n_pinf++;
        else c->n_ninf++;
    }
    s->n = k;
    s->ids_ascending = 1;   /* the finite ids in id order */
    c->has_known = 1;   /* the max of finite logits: display_probs's own max pass */
    c->known = mx;
    int rc = stage_done(c, s, 1, "%u finite logits%s", k, k < c->n ? " (non-finite left out)" : "");
    if (rc == TC_OK && keep) {
        memcpy(ws->in_logits, c->logits, lbytes);
        ws->in_n = c->n;
        ws->in_k = k;
        ws->in_entropy = s->entropy_bits;
        ws->in_total = c->last_total;
        ws->in_nan = c->n_nan;
        ws->in_pinf = c->n_pinf;
        ws->in_ninf = c->n_ninf;
        ws->in_first = c->first_nonfinite;
        memcpy(ws->in_cut, s->cutoff, sizeof ws->in_cut);
        ws->in_valid = 1;
    }
    return rc;
}

static int plan_alloc(ctx *c, tc_splan *pl, uint32_t n, int with_f, int with_d) {
    pl->ids = ws_array(c->ws, n, sizeof *pl->ids);
    if (with_f) pl->fw = ws_array(c->ws, n, sizeof *pl->fw);
    if (with_d) pl->dw = ws_array(c->ws, n, sizeof *pl->dw);
    if (!pl->ids || (with_f && !pl->fw) || (with_d && !pl->dw)) return TC_ERR_NOMEM;
    pl->n = n;
    return TC_OK;
}

static void report_nonfinite(ctx *c, const char *how) {
    if (c->first_nonfinite >= 0)
        note(c->res, "%u NaN, %u +inf, %u -inf (first at id %d): %s", c->n_nan, c->n_pinf, c->n_ninf,
             c->first_nonfinite, how);
}

/* ---- ds4 -------------------------------------------------------------------- */

typedef struct cand {
    int32_t id;
    float logit;
    float p;
} cand;

/* ds4.c sample_argmax (chars ~984,200, confirmed): best = 0, best_v = DS4_NEG_INF
 * (#define DS4_NEG_INF (-1.0e30f)); v > best_v
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

/* cand_cmp_desc's order as an unsigned key: the logit descending (-0 with +0, NaN after every
 * number) in the high 32 bits, the id in the low 32 */
static uint64_t cand_key(const cand *x) {
    uint32_t k = 0xffffffffu;
    if (!isnan(x->logit)) {
        const float v = x->logit == 0.0f ? 0.0f : x->logit;
        uint32_t u;
        memcpy(&u, &v, sizeof u);
        u = (u & 0x80000000u) ? ~u : (u | 0x80000000u);   /* ascending order of the numbers */
        k = ~u;                                             /* descending; never 0xffffffff */
    }
    return (uint64_t)k << 32 | (uint32_t)x->id;
}

/* Sorts d[0..n) as qsort with cand_cmp_desc would (the order is total: ids are distinct), by a
 * least-significant-digit radix sort of cand_key in 11-bit digits, skipping the digits every key
 * shares: 3-4 passes for a vocabulary row instead of ~17 comparisons per entry. Scratch from the
 * workspace; -1 (nothing changed) when it has none, and the caller sorts with qsort. */
static int cand_sort(tc_sampler_ws *ws, cand *d, uint32_t n) {
    if (n < 64) { qsort(d, n, sizeof *d, cand_cmp_desc); return 0; }
    uint64_t *key = ws_array(ws, (size_t)n * 2, sizeof *key);
    uint32_t *pos = ws_array(ws, (size_t)n * 2, sizeof *pos);
    uint32_t *cnt = ws_array(ws, 2048, sizeof *cnt);
    cand *tmp = ws_array(ws, n, sizeof *tmp);
    if (!key || !pos || !cnt || !tmp) return -1;
    uint64_t *ka = key, *kb = key + n, all_or = 0, all_and = ~(uint64_t)0;
    uint32_t *pa = pos, *pb = pos + n;
    for (uint32_t i = 0; i < n; i++) {
        ka[i] = cand_key(&d[i]);
        pa[i] = i;
        all_or |= ka[i];
        all_and &= ka[i];
    }
    /* an array in id order (a vocabulary row, as llama.cpp's unsorted candidates are) needs the
     * logit digits only: the passes are stable, so equal logits keep their id order */
    int by_id = 1;
    for (uint32_t i = 1; i < n && by_id; i++) by_id = d[i].id > d[i - 1].id;
    for (unsigned shift = by_id ? 32 : 0; shift < 64; shift += 11) {
        const uint64_t differ = (all_or ^ all_and) >> shift & 2047u;
        if (!differ) continue;                 /* every key has this digit: the pass would move nothing */
        memset(cnt, 0, 2048 * sizeof *cnt);
        for (uint32_t i = 0; i < n; i++) cnt[ka[i] >> shift & 2047u]++;
        uint32_t sum = 0;
        for (uint32_t b = 0; b < 2048; b++) { const uint32_t t = cnt[b]; cnt[b] = sum; sum += t; }
        for (uint32_t i = 0; i < n; i++) {
            const uint32_t at = cnt[ka[i] >> shift & 2047u]++;
            kb[at] = ka[i];
            pb[at] = pa[i];
        }
        uint64_t *kt = ka; ka = kb; kb = kt;
        uint32_t *pt = pa; pa = pb; pb = pt;
    }
    for (uint32_t i = 0; i < n; i++) tmp[i] = d[pa[i]];
    memcpy(d, tmp, (size_t)n * sizeof *d);
    return 0;
}

/* records the ds4 min_p and top_p prefixes of cs[0..cnt) (sorted), fills the plan */
static int ds4_cut(ctx *c, cand *cs, uint32_t cnt, float sum, float top_p, float min_p, int32_t *idb) {
    tc_sresult *r = c->res;
    /* ds4.c sample_top_p_min_p / sample_full_vocab (confirmed, both paths): min-p is
     * relative to the top: min_prob = (p0 / sum) * min_p; for i: p = prob_i / sum;
     * if (i > 0 && p < min_prob) break; filtered_sum += prob_i; filtered++; if
     * (filtered_sum / sum >= top_p) break (top-p on the running float sum, the
     * rank that reaches top_p is kept). The draw: r = sample_rng_f32 * filtered_sum,
     * r -= prob_i until r <= 0; never reached -> ids[filtered - 1]. */
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
    if ((rc = plan_alloc(c, pl, filtered, 1, 0))) return rc;
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
    /* ds4.c sample_top_p_min_p (chars ~989,500, confirmed): temperature <= 0 ->
     * sample_argmax, no RNG draw (NaN T is not <= 0 and goes on) */
    if (T <= 0.0f) {
        r->greedy = 1;
        r->plan.kind = TC_DRAW_FIXED;
        r->plan.fixed = ds4_argmax(lg, n);
        double w = 0.0;
        return add_stage(c, "temperature", 1, &r->plan.fixed, &w, 1, "T=%g <= 0: argmax id %d (lowest id among equal maxima), no RNG draw",
                         (double)T, r->plan.fixed);
    }
    /* ds4.c sample_top_p_min_p: top_p <= 0 or > 1 -> 1 (NaN stays NaN, so no top-p
     * cut); min_p < 0 -> 0 (NaN stays NaN: min_prob NaN, no min-p cut) */
    if (top_p <= 0.0f || top_p > 1.0f) {
        note(r, "ds4: top_p %g outside (0, 1] is treated as 1 (off)", (double)top_p);
        top_p = 1.0f;
    }
    if (min_p < 0.0f) min_p = 0.0f;
    if (k > 0)
        note(r, "ds4: the ds4 CLI (ds4_cli.c run_sampled_generation) always samples with top_k = 0; "
                "top_k > 0 follows ds4_sample_logits callers that pass k");
    if (k <= 0) {
        /* ds4.c sample_full_vocab (chars ~986,400, confirmed; the path the ds4 CLI
         * always takes: it passes top_k = 0): max over isfinite logits from
         * DS4_NEG_INF with >, best = its id; no finite logit -> sample_argmax */
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
        cand *cs = ws_array(c->ws, finite, sizeof *cs);
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
            } else if (!rc && !(rc = plan_alloc(c, &r->plan, kept, 1, 0))) {
                for (uint32_t i = 0; i < kept; i++) { r->plan.ids[i] = cs[i].id; r->plan.fw[i] = cs[i].p; }
                r->plan.fsum = sum;
                r->plan.kind = TC_DRAW_DS4;
                r->plan.fixed = best;   /* ds4.c: falls back to best */
            }
            return rc;
        }
        /* ds4.c sample_full_vocab, top_p < 1: float sum in id order before the sort;
         * qsort with sample_candidate_cmp_desc, which compares the logit only, so
         * the order of equal logits is the C library's: lower id first here (a
         * stable sort of the id-ordered array, as glibc's merge-sort qsort gives);
         * then min_prob = (p0 / sum) * max(min_p, 0) and the ds4_cut loop */
        for (uint32_t i = 0; i < cnt; i++) sum += cs[i].p;
        if (cand_sort(c->ws, cs, cnt) != 0) qsort(cs, cnt, sizeof *cs, cand_cmp_desc);   /* the same order */
        for (uint32_t i = 0; i < cnt; i++) { idb[i] = cs[i].id; c->tmp[i] = cs[i].p; }
        rc = add_stage(c, "temperature", cnt, idb, c->tmp, 0, "T=%g: expf((v - max) / T) in float, sorted by logit", (double)T);
        if (!rc && (sum <= 0.0f || !isfinite(sum))) {
            r->plan.kind = TC_DRAW_FIXED;
            r->plan.fixed = best;
            note(r, "ds4: sum %g is not positive and finite: returns the best id, no RNG draw", (double)sum);
        } else if (!rc) {
            rc = ds4_cut(c, cs, cnt, sum, top_p, min_p, idb);
        }
        return rc;
    }
    /* ds4.c sample_top_p_min_p top-k path (confirmed): k capped at 1024 (int ids[1024],
     * float vals[1024]), then at n_vocab */
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
    /* ds4.c sample_top_p_min_p: probs[i] = expf((vals[i] - vals[0]) / T), float sum in
     * rank order; sum <= 0 or not finite -> ids[0], no RNG draw */
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
 * here lower id first (the same for distinct logits). NaN last. A radix
 * sort (cand_sort): the whole vocabulary in ~1 ms where qsort took 12. */
static void llama_sort(tc_sampler_ws *ws, cand *d, uint32_t size) {
    if (cand_sort(ws, d, size) != 0) qsort(d, size, sizeof *d, cand_cmp_desc);
}

/* the k best of d[0..size) first, sorted (min-heap selection, then sort) */
static void llama_partial(tc_sampler_ws *ws, cand *d, uint32_t size, uint32_t k) {
    if (k >= size / 4) { llama_sort(ws, d, size); return; }
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
    llama_sort(ws, d, k);
}

static int llama_stage(ctx *c, const char *name, const larr *a, int32_t *idb, const char *cut) {
    for (uint32_t i = 0; i < a->size; i++) { idb[i] = a->d[i].id; c->tmp[i] = a->d[i].logit; }
    return add_stage(c, name, a->size, idb, c->tmp, 1, "%s", cut);
}

static int run_llama(ctx *c, const tc_sampler_params *p, int32_t *idb) {
    tc_sresult *r = c->res;
    const uint32_t n = c->n;
    char cut[TC_SAMPLER_CUTOFF_MAX];
    larr a = {ws_array(c->ws, n, sizeof(cand)), n, 0};
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
        if (!a.sorted) llama_partial(c->ws, a.d, a.size, kk);
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
        if (!a.sorted) llama_sort(c->ws, a.d, a.size);   /* a radix sort: linear in the candidates */
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
            if (!a.sorted) { llama_sort(c->ws, a.d, a.size); a.sorted = 1; }
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
    if ((rc = plan_alloc(c, pl, a.size, 1, 0))) goto done;
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

static int i32_cmp(const void *a, const void *b) {
    const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* a stage of the ids whose probability is not 0 (NaN included), in id order,
 * taken from the ascending ids src[0..nsrc) (every id outside them has
 * probability 0) or, when src is NULL, from every id. With dst, the kept ids
 * are also written there (dst may be src: compaction in place). The ids array
 * is shared with the previous stage when it is the same.
 * The same pass does what stage_done would do in passes of its own: it sums
 * the kept weights for display_probs (when each is positive and finite) and,
 * when src holds the previous stage's ids in its order (src_is_prev), sums the
 * removed entries for subset_display. With div, probs[i] /= *div first, for
 * every i read (the engine's normalization, src NULL: every id), so that the
 * engine's pass and the stage's copy are one pass. */
static int kestrel_stage(ctx *c, const char *name, float *probs, const int32_t *src, uint32_t nsrc,
                         int32_t *dst, uint32_t *ndst, const char *cut, int src_is_prev, const float *div) {
    const tc_sstage *prev = &c->res->stages[c->res->n_stages - 1];
    const int32_t *pids = prev->ids;
    const uint32_t pn = prev->n, cap = src ? nsrc : c->n;
    tc_sstage *s = stage_new(c, name, cap, 1);   /* ids decided below */
    if (!s) return c->res->n_stages >= TC_SAMPLER_MAX_STAGES ? TC_ERR_ARG : TC_ERR_NOMEM;
    s->ids = NULL;                               /* set below: own array or pids */
    s->ids_shared = 0;
    int32_t *own = NULL;                         /* s's own ids once they differ from pids */
    uint32_t k = 0;
    const int removed = src_is_prev && c->raw_ok && cap == pn;
    const double raw_sum = c->raw_sum;
    double ksum = 0.0, sr = 0.0, ar = 0.0, qr = 0.0;
    double *const sp = s->probs;
    const float d = div ? *div : 1.0f;   /* a local: a store to probs[] could alias *div, reloaded each id */
    int clean = 1;
    if (cap == c->n && pn == cap) {
        /* every id, in id order, from a stage of every id (the temperature and ban stages of a
         * vocabulary whose probabilities are all nonzero): src[j] == j and pids[j] == j (ascending
         * distinct ids below n), so a zero is the first point where the ids part from pids, and
         * own is made there; the same sums as the loop below, without the indirections */
        uint32_t i = 0;
        if (div && !dst)   /* the engine's division up to the first zero: the ids are pids' own */
            for (; i < cap; i++) {
                const float v = probs[i] / d;
                if (v == 0.0f) break;   /* divided again below */
                probs[i] = v;
                clean &= (v > 0.0f) & (v < INFINITY);
                ksum += (double)v;
                sp[k++] = v;
            }
        for (; i < cap; i++) {
            if (own && !div && !dst) {   /* a run of kept ids after a zero (the ban stage's 151,933) */
                for (; i < cap; i++) {
                    const float v = probs[i];
                    if (v == 0.0f) break;
                    clean &= (v > 0.0f) & (v < INFINITY);
                    ksum += (double)v;
                    own[k] = (int32_t)i;
                    sp[k++] = v;
                }
                if (i == cap) break;
            }
            float v = probs[i];
            if (div) { v /= d; probs[i] = v; }
            if (v == 0.0f) {
                if (removed) {
                    const double w = prev->probs[i] * raw_sum;
                    qr += prev->probs[i];
                    sr += w;
                    if (w > 0) ar += w * disp_log2(w);
                }
                if (!own) {
                    if (!(own = ws_array(c->ws, cap, sizeof *own))) return TC_ERR_NOMEM;
                    if (k) memcpy(own, pids, k * sizeof *own);
                }
                continue;
            }
            clean &= v > 0.0f && v < INFINITY;
            ksum += (double)v;
            if (own) own[k] = (int32_t)i;
            if (dst) dst[k] = (int32_t)i;
            sp[k++] = v;
        }
    } else
        for (uint32_t j = 0; j < cap; j++) {
            const uint32_t i = src ? (uint32_t)src[j] : j;
            if (div) probs[i] /= d;
            const float v = probs[i];
            if (v == 0.0f) {
                if (removed) {   /* subset_display's sums over the removed entries, in its order */
                    const double w = prev->probs[j] * raw_sum;
                    qr += prev->probs[j];
                    sr += w;
                    if (w > 0) ar += w * disp_log2(w);
                }
                continue;
            }
            clean &= v > 0.0f && v < INFINITY;
            ksum += (double)v;
            if (!own && (k >= pn || pids[k] != (int32_t)i)) {
                if (!(own = ws_array(c->ws, cap, sizeof *own))) return TC_ERR_NOMEM;
                if (k) memcpy(own, pids, k * sizeof *own);
            }
            if (own) own[k] = (int32_t)i;
            if (dst) dst[k] = (int32_t)i;
            sp[k++] = v;
        }
    if (!own && (k != pn || k == 0)) {
        if (!(own = ws_array(c->ws, k, sizeof *own))) return TC_ERR_NOMEM;
        if (k) memcpy(own, pids, k * sizeof *own);
    }
    if (own) s->ids = own;
    else { s->ids = (int32_t *)pids; s->ids_shared = 1; }
    s->n = k;
    s->ids_ascending = 1;   /* id order, by construction */
    if (ndst) *ndst = k;
    c->same_raw = 1;   /* every kestrel stage holds probs[] as they are: the previous stage's weights, some zeroed */
    c->has_known = clean && k > 0;
    c->known = ksum;
    if (removed) {
        c->has_removed = 1;
        c->removed_ok = clean;
        c->rem_sr = sr;
        c->rem_ar = ar;
        c->rem_qr = qr;
    }
    return stage_done(c, s, 0, "%s", cut);
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
    note(r, "kestrel never calls srand (src/main.c main): a fresh engine process draws as after srand(1); "
            "seed S here means srand(S)");
    /* vllm_transformer.c sample_token_pk (chars ~12,900, confirmed): temperature <= 0
     * or top_p <= 0 -> argmax (best = 0; logits[i] > logits[best]), no rand() call,
     * special ids not applied; NaN T / top_p are not <= 0 and go on */
    if (T <= 0.0f || p->top_p <= 0.0f) {
        double zero = 0.0;
        r->greedy = 1;
        r->plan.kind = TC_DRAW_FIXED;
        r->plan.fixed = kestrel_argmax(lg, n);
        return add_stage(c, "temperature", 1, &r->plan.fixed, &zero, 1,
                         "%s <= 0: argmax id %d (first maximum, banned ids not applied), no rand() call",
                         T <= 0.0f ? "T" : "top_p", r->plan.fixed);
    }
    float *probs = ws_array(c->ws, n, sizeof *probs);
    ip *heap = NULL;
    if (!probs) return TC_ERR_NOMEM;
    /* L (after top-k): ascending ids that may hold a nonzero probability (all others are 0) */
    int32_t *L = idb;
    uint32_t nl = 0;
    /* sample_token_pk "Softmax with temperature" (confirmed): max by > from logits[0];
     * probs[i] = expf((l - max) / T); float sum in id order; probs /= sum. The index
     * of that max is also the fallback argmax (best = 0; logits[i] > logits[best]). */
    float mx = lg[0];
    int32_t argmax = 0;
    for (uint32_t i = 1; i < n; i++)
        if (lg[i] > mx) { mx = lg[i]; argmax = (int32_t)i; }
    /* two passes, the same float sum in the same order: with the sum in the loop that calls
     * expf, the call clobbers every vector register and the sum went through the stack each id */
    for (uint32_t i = 0; i < n; i++) probs[i] = expf((lg[i] - mx) / T);
    float sum = 0.0f;
    for (uint32_t i = 0; i < n; i++) sum += probs[i];
    /* probs[i] /= sum: done by kestrel_stage below as it copies the stage (one pass) */
    if (isnan(sum))
        note(r, "kestrel: the softmax sum is NaN: every probability is NaN and the draw falls back to the argmax of the logits");
    snprintf(cut, sizeof cut, "T=%g: softmax in float over the whole vocabulary, id order", (double)T);
    if ((rc = kestrel_stage(c, "temperature", probs, NULL, 0, NULL, NULL, cut, 0, &sum))) goto done;
    /* sample_token_pk "Suppress special tokens" (confirmed): probs[0] (<unk>), probs[1]
     * (<s>), probs[3] (<pad>) = 0, not renormalized (the engine writes them
     * unconditionally; a vocabulary of <= 3 ids would be out of bounds there) */
    double banned = 0.0;
    static const uint32_t BAN[3] = {0, 1, 3};
    for (int b = 0; b < 3; b++)
        if (BAN[b] < n) { banned += probs[BAN[b]]; probs[BAN[b]] = 0.0f; }
    snprintf(cut, sizeof cut, "ids 0, 1, 3 set to 0 (mass %.6g removed, not renormalized)", banned);
    {   /* the temperature stage holds exactly the nonzero ids */
        const tc_sstage *t = &r->stages[r->n_stages - 1];
        if ((rc = kestrel_stage(c, "ban", probs, t->ids, t->n, NULL, NULL, cut, 1, NULL))) goto done;
    }
    const tc_sstage *ban = &r->stages[r->n_stages - 1];   /* its ids: the nonzero ones */
    /* vllm_transformer.c apply_top_k (chars ~10,900, confirmed): k <= 0 or k >= vocab -> no-op; min-heap (by prob) of capacity
     * k over probs > 0 in id order: fill with sift-up (stop when parent <= child);
     * when full, replace the root only if p > root, sift-down (stop when the
     * smaller child >= node); then zero everything and restore the heap's ids.
     * Zeros are skipped (p <= 0), so walking L gives the same heap. */
    int32_t k = p->top_k;
    if (k <= 0 || k >= (int32_t)n) snprintf(cut, sizeof cut, "k=%d: no-op (k <= 0 or k >= vocabulary %u)", k, n);
    else {
        heap = ws_array(c->ws, (size_t)k, sizeof *heap);
        if (!heap) { rc = TC_ERR_NOMEM; goto done; }
        uint32_t hn = 0, K = (uint32_t)k;
        for (uint32_t j = 0; j < ban->n; j++) {
            const uint32_t i = (uint32_t)ban->ids[j];
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
        /* the engine zeroes every other id here; only the NaN replay of top-p below reads ids
         * outside L (min-p's probs[0] is banned: 0 already), so the zeroing is done there */
        for (uint32_t i = 0; i < hn; i++) L[i] = heap[i].idx;
        nl = hn;
        qsort(L, nl, sizeof *L, i32_cmp);
        snprintf(cut, sizeof cut, "k=%d: %u kept (min-heap on probabilities)", k, hn);
    }
    if (!heap) {   /* no top-k: L is the ban stage's ids */
        nl = ban->n;
        memcpy(L, ban->ids, nl * sizeof *L);
    }
    if ((rc = kestrel_stage(c, "top_k", probs, L, nl, L, &nl, cut, !heap, NULL))) goto done;
    /* sample_token_pk "Min-P filtering" (confirmed): min_p > 0: maxp by > from probs[0]
     * (after the ban and top-k); probs < min_p * maxp -> 0. The zeros outside L
     * neither raise maxp (which starts at probs[0] >= 0 or NaN) nor change. */
    if (p->min_p > 0.0f) {
        float maxp = probs[0];
        for (uint32_t j = 0; j < nl; j++)
            if (L[j] >= 1 && probs[L[j]] > maxp) maxp = probs[L[j]];
        float thr = p->min_p * maxp;
        for (uint32_t j = 0; j < nl; j++)
            if (probs[L[j]] < thr) probs[L[j]] = 0.0f;
        snprintf(cut, sizeof cut, "min_p=%g of the top prob %.6g: threshold %.6g", (double)p->min_p, (double)maxp, (double)thr);
    } else snprintf(cut, sizeof cut, "min_p=%g <= 0: off", (double)p->min_p);
    if ((rc = kestrel_stage(c, "min_p", probs, L, nl, L, &nl, cut, 1, NULL))) goto done;
    /* sample_token_pk "Top-P filtering" (confirmed; heap order of idxprob_sift_down):
     * top_p < 1: max-heap over every id (prob desc, idx asc); extract
     * while cumsum < top_p (float cumsum += prob, on the probabilities as they
     * are: not renormalized after ban / top-k / min-p); zero the rest */
    if (p->top_p < 1.0f) {
        /* Without NaN the heap order is a strict total order, so extraction
         * yields the sorted order whatever else the heap holds, and extracting
         * a 0 changes neither cum nor probs: the zeros are left out then. With
         * NaN the exact heap over every id is replayed. */
        int any_nan = 0;
        for (uint32_t j = 0; j < nl; j++) any_nan |= isnan(probs[L[j]]);
        if (any_nan && heap)   /* top-k's zeroing of every id outside its heap (L is ascending) */
            for (uint32_t i = 0, j = 0; i < n; i++) {
                if (j < nl && (uint32_t)L[j] == i) j++;
                else probs[i] = 0.0f;
            }
        ip *all = ws_array(c->ws, any_nan ? n : nl, sizeof *all);
        if (!all) { rc = TC_ERR_NOMEM; goto done; }
        uint32_t hn = 0;
        if (any_nan)
            for (uint32_t i = 0; i < n; i++) { all[hn].idx = (int32_t)i; all[hn++].prob = probs[i]; }
        else
            for (uint32_t j = 0; j < nl; j++)
                if (probs[L[j]] != 0.0f) { all[hn].idx = L[j]; all[hn++].prob = probs[L[j]]; }
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
    } else snprintf(cut, sizeof cut, "p=%g >= 1: off", (double)p->top_p);
    if ((rc = kestrel_stage(c, "top_p", probs, L, nl, L, &nl, cut, 1, NULL))) goto done;
    /* sample_token_pk "Renormalize and sample" (confirmed): sum over ids (float);
     * r = (float)rand() / (float)RAND_MAX * sum; float cumsum in id order, first
     * r <= cumsum; never reached (NaN) -> argmax of the logits. The zeros outside
     * L add +0.0f, which leaves the float sum as it is. */
    {
        float s2 = 0.0f;
        for (uint32_t j = 0; j < nl; j++) s2 += probs[L[j]];
        tc_splan *pl = &r->plan;
        if ((rc = plan_alloc(c, pl, nl, 1, 0))) goto done;
        for (uint32_t j = 0; j < nl; j++) { pl->ids[j] = L[j]; pl->fw[j] = probs[L[j]]; }
        pl->fsum = s2;
        pl->n_vocab = n;
        if (nl == 0)
            note(r, "kestrel: no probability left (banned or cut): the sum is 0, so r = 0 <= cumsum and the draw returns id 0");
        /* NaN sum: r = (float)rand() / RAND_MAX * sum is NaN, no "r <= cumsum" holds,
         * and sample_token_pk returns its fallback argmax (best = 0; logits[i] >
         * logits[best]), which need not be a final candidate: with logits[0] NaN no
         * logit compares greater, so it is id 0. Checked against the engine:
         * m13253246268-ship-it/kestrel-llm src/core/vllm_transformer.c,
         * sample_token_pk at commit fe0b3fe9b2ba53cd1f2127bf57c74f1aa6353f39 ("Fallback:
         * argmax" after the cumsum loop). The emulation draws the same id on purpose. */
        if (isnan(s2)) {
            int in_final = 0;
            for (uint32_t j = 0; j < nl; j++) in_final |= L[j] == argmax;
            note(r,
                     "kestrel: the final sum is NaN, so r is NaN, no r <= cumsum holds and every draw is the engine's "
                     "argmax fallback (best = 0; logits[i] > logits[best]): id %d%s%s; the engine does the same "
                     "(vllm_transformer.c sample_token_pk)",
                     (int)argmax, in_final ? "" : ", which is not a final candidate",
                     argmax == 0 && isnan(lg[0]) ? " (logits[0] is NaN: no logit compares greater, so it stays at id 0)" : "");
        }
        pl->kind = TC_DRAW_KESTREL;
        pl->fixed = argmax;
    }
done:
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
    double *base;      /* by id: the tempered softmax over the whole set (kestrel top-p);
                        * NULL when no stage reads it */
    int synced;        /* d's ids are the last stage's ids, in its order (no check pass needed) */
} gen;

static int gi_desc(const void *a, const void *b) {
    const gi *x = a, *y = b;
    if (x->sc > y->sc) return -1;
    if (x->sc < y->sc) return 1;
    return (x->id > y->id) - (x->id < y->id);
}

/* hf top-p scratch: score ascending, then id ascending (torch.sort's order
 * among equal scores); pos is the entry's index in g->d */
typedef struct gp {
    int32_t id;
    uint32_t pos;
    double sc;
} gp;

static int gp_asc(const void *a, const void *b) {
    const gp *x = a, *y = b;
    if (x->sc < y->sc) return -1;
    if (x->sc > y->sc) return 1;
    return (x->id > y->id) - (x->id < y->id);
}

static int gi_id(const void *a, const void *b) {
    const gi *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

/* the kk-th largest score (1 <= kk <= g->k): a min-heap of the kk best; NaN on OOM */
static double kth_largest(ctx *c, const gen *g, uint32_t kk) {
    double *h = ws_array(c->ws, kk, sizeof *h);
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
    return h[0];
}

static void gen_probs(const gen *g, double *out) {
    for (uint32_t i = 0; i < g->k; i++) out[i] = g->d[i].sc;
    display_probs(out, g->k, 1, out, NULL, NULL, NULL);
}

static void gen_set_base(gen *g, double *tmp) {
    if (!g->base) return;
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

static int gen_stage(ctx *c, const char *name, gen *g, const char *cut) {
    const tc_sstage *prev = &c->res->stages[c->res->n_stages - 1];
    int same = prev->n == g->k && g->k > 0;
    if (!g->synced)
        for (uint32_t i = 0; i < g->k && same; i++) same = prev->ids[i] == g->d[i].id;
    tc_sstage *s = stage_new(c, name, g->k, same);
    if (!s) return c->res->n_stages >= TC_SAMPLER_MAX_STAGES ? TC_ERR_ARG : TC_ERR_NOMEM;
    double mx = -INFINITY;
    uint32_t odd = 0;   /* +inf or NaN (+inf / +inf T): display_probs's own max pass handles them */
    for (uint32_t i = 0; i < g->k; i++) {
        const double v = g->d[i].sc;
        if (!s->ids_shared) s->ids[i] = g->d[i].id;
        s->probs[i] = v;
        odd += !(v < INFINITY);
        mx = v > mx ? v : mx;
    }
    c->has_known = !odd;
    c->known = mx;
    g->synced = 1;
    return stage_done(c, s, 1, "%s", cut);
}

static int gen_apply(ctx *c, gen *g, tc_stage_kind st, tc_semantics sem, const tc_sampler_params *p,
                     unsigned char *keep, char *cut) {
    tc_sresult *r = c->res;
    double *pr = c->tmp;
    const char *sn = SEM_NAMES[sem];
    if (st != TC_STAGE_TEMPERATURE || !(p->temperature > 0)) g->synced = 0;   /* only a division keeps d's ids */
    if (g->k == 0) { snprintf(cut, TC_SAMPLER_CUTOFF_MAX, "no candidates"); return 0; }
    switch (st) {
    case TC_STAGE_TEMPERATURE: {
        /* every engine divides by T (hf TemperatureLogitsWarper.__call__: scores /
         * temperature, confirmed; generate skips it at T == 1). T <= 0 is greedy here:
         * in hf, TemperatureLogitsWarper raises ValueError for T <= 0 with
         * do_sample=True; do_sample=False is torch.argmax over the logits, with no
         * warper at all (the first index among equal maxima) */
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
            /* hf TopKLogitsWarper (confirmed): top_k = max(top_k, min_tokens_to_keep = 1),
             * min(top_k, vocab); remove scores < torch.topk(scores, top_k)[0][-1]: ties at
             * the k-th value stay; generate adds it only when top_k != 0 */
            double thr = kth_largest(c, g, kk);
            if (isnan(thr)) return TC_ERR_NOMEM;
            for (uint32_t i = 0; i < g->k; i++) keep[i] = !(g->d[i].sc < thr);
            gen_filter(g, keep);
            snprintf(cut, TC_SAMPLER_CUTOFF_MAX, "k=%u: scores < the k-th largest %.6g removed, %u kept (hf keeps ties)", kk, thr, g->k);
            return 0;
        }
        if (kk < g->k) {   /* keep what can be among the kk best, then sort only those */
            double thr = kth_largest(c, g, kk);
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
            /* transformers src/transformers/generation/logits_process.py,
             * TopPLogitsWarper.__call__ (stored copy at commit 00857b6c, chars
             * ~23,900-24,900): torch.sort(scores, descending=False); softmax of
             * the sorted scores; cumsum; remove cumulative <= 1 - top_p; the last
             * min_tokens_to_keep (= 1 from generate) sorted entries stay; the
             * mask is scattered back, so the scores keep their vocabulary order.
             * Ties: torch.sort does not promise stability, but its CPU and CUDA
             * kernels keep the input (vocabulary) order among equal scores, so
             * the ascending order here is (score asc, id asc): among equal
             * scores the lower ids are removed first and the kept top is the
             * highest id among equal maxima. g->d is not reordered. */
            gp *s = ws_array(c->ws, g->k, sizeof *s);
            if (!s) return TC_ERR_NOMEM;
            for (uint32_t i = 0; i < g->k; i++) { s[i].id = g->d[i].id; s[i].pos = i; s[i].sc = g->d[i].sc; }
            qsort(s, g->k, sizeof *s, gp_asc);
            for (uint32_t i = 0; i < g->k; i++) pr[i] = s[i].sc;
            display_probs(pr, g->k, 1, pr, NULL, NULL, NULL);
            double cum = 0;
            for (uint32_t i = 0; i < g->k; i++) {
                cum += pr[i];
                keep[s[i].pos] = !(cum <= 1.0 - tp) || i + 1 == g->k;
            }
            gen_filter(g, keep);
            snprintf(cut, TC_SAMPLER_CUTOFF_MAX, "p=%g: ascending cumulative <= %.6g removed, %u kept (hf)", tp, 1.0 - tp, g->k);
            return 0;
        }
        if (sem == TC_SEM_KESTREL) {
            /* unrenormalized probabilities of the tempered softmax, prob desc / id asc, keep while cum < p */
            gi *s = ws_array(c->ws, g->k, sizeof *s);
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
        /* hf MinPLogitsWarper (confirmed): probs = softmax(scores); remove probs <
         * min_p * max(probs), relative to the top prob after the earlier warpers;
         * the top-1 (torch.topk, min_tokens_to_keep = 1) always stays; order kept.
         * ds4 semantics: the same threshold on the sorted candidates. */
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
    (void)idb;
    tc_sresult *r = c->res;
    tc_stage_kind order[4];
    tc_semantics sem[4];
    int n_order;
    if (p->preset == TC_SP_HF) {
        /* GenerationMixin._get_logits_processor (confirmed): with do_sample, temperature
         * (T != 1), top-k (k != 0), top-p (p < 1), min-p (set), in that order */
        static const tc_stage_kind HF[4] = {TC_STAGE_TEMPERATURE, TC_STAGE_TOP_K, TC_STAGE_TOP_P, TC_STAGE_MIN_P};
        memcpy(order, HF, sizeof order);
        for (int i = 0; i < 4; i++) sem[i] = TC_SEM_HF;
        n_order = 4;
        note(r, "hf: draw not reproducible (torch.multinomial); the draws shown use xorshift64* over the final probabilities");
        if (!(p->temperature > 0))
            note(r, "hf: generate(do_sample=True) raises ValueError for temperature <= 0; shown as do_sample=False (argmax)");
        if (p->top_k < 0 || p->top_p < 0 || p->min_p < 0 || p->min_p > 1)
            note(r, "hf: the warpers raise ValueError for top_k < 0, top_p < 0 or min_p outside [0, 1]; shown with the rules applied as is");
    } else {
        n_order = p->n_order;
        memcpy(order, p->order, sizeof order);
        memcpy(sem, p->semantics, sizeof sem);
        note(r, "custom: no engine's draw; the draws use xorshift64* over the final probabilities (double)");
    }
    report_nonfinite(c, "NaN and -inf are dropped; +inf entries share all the mass");
    /* only a kestrel-semantics top-p reads the base softmax */
    int need_base = 0;
    for (int s = 0; s < n_order; s++) need_base |= order[s] == TC_STAGE_TOP_P && sem[TC_STAGE_TOP_P] == TC_SEM_KESTREL;
    gen g = {ws_array(c->ws, c->n, sizeof(gi)), 0, need_base ? ws_array(c->ws, c->n, sizeof(double)) : NULL, 0};
    unsigned char *keep = ws_array(c->ws, c->n, 1);
    int rc = TC_OK;
    char cut[TC_SAMPLER_CUTOFF_MAX];
    if (!g.d || (need_base && !g.base) || !keep) { rc = TC_ERR_NOMEM; goto done; }
    for (uint32_t i = 0; i < c->n; i++)
        if (!isnan(c->logits[i]) && c->logits[i] != -INFINITY) { g.d[g.k].id = (int32_t)i; g.d[g.k++].sc = c->logits[i]; }
    g.synced = c->n_pinf == 0;   /* then d holds the finite ids in id order: the input stage's */
    gen_set_base(&g, c->tmp);
    for (int s = 0; s < n_order && !rc; s++) {
        rc = gen_apply(c, &g, order[s], sem[order[s]], p, keep, cut);
        if (!rc) rc = gen_stage(c, STAGE_NAMES[order[s]], &g, cut);
    }
    if (rc) goto done;
    tc_splan *pl = &r->plan;
    if (g.k == 0) { rc = TC_ERR_ARG; goto done; }
    if ((rc = plan_alloc(c, pl, g.k, 0, 1))) goto done;
    gen_probs(&g, pl->dw);
    pl->dsum = 0;
    for (uint32_t i = 0; i < g.k; i++) { pl->ids[i] = g.d[i].id; pl->dsum += pl->dw[i]; }
    pl->kind = g.k == 1 ? TC_DRAW_FIXED : TC_DRAW_GENERIC;
    pl->fixed = g.d[g.k - 1].id;
    if (g.k == 1) pl->fixed = g.d[0].id;
done:
    return rc;
}

/* ---- entry points ---------------------------------------------------------------- */

/* the arrays live in a workspace: the result's own one (tc_sampler_run) is freed here */
void tc_sresult_free(tc_sresult *r) {
    if (!r) return;
    tc_sampler_ws_free(r->own_ws);
    memset(r, 0, sizeof *r);
}

int tc_sampler_run(const float *logits, uint32_t n, const tc_sampler_params *p, tc_sresult *out, tc_error *err) {
    memset(out, 0, sizeof *out);
    tc_sampler_ws *ws = tc_sampler_ws_new(n);
    if (!ws) return tc_error_set(err, TC_ERR_NOMEM, "sampler: out of memory");
    int rc = tc_sampler_run_ws(ws, logits, n, p, out, err);
    out->own_ws = ws;
    return rc;
}

int tc_sampler_run_ws(tc_sampler_ws *ws, const float *logits, uint32_t n, const tc_sampler_params *p, tc_sresult *out,
                      tc_error *err) {
    memset(out, 0, sizeof *out);
    ws_reset(ws);
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
    ctx c;
    memset(&c, 0, sizeof c);
    c.logits = logits;
    c.n = n;
    c.res = out;
    c.ws = ws;
    c.tmp = ws_array(ws, n, sizeof(double));
    c.first_nonfinite = -1;
    c.last_total = NAN;
    int32_t *idb = ws_array(ws, n, sizeof *idb);
    int rc;
    if (!c.tmp || !idb) rc = TC_ERR_NOMEM;
    else rc = add_input(&c);
    if (rc == TC_OK) {
        switch (p->preset) {
        case TC_SP_DS4: rc = run_ds4(&c, p, idb); break;
        case TC_SP_LLAMA: rc = run_llama(&c, p, idb); break;
        case TC_SP_KESTREL: rc = run_kestrel(&c, p, idb); break;
        default: rc = run_generic(&c, p, idb); break;
        }
    }
    if (rc == TC_ERR_NOMEM) return tc_error_set(err, rc, "sampler: out of memory");
    if (rc != TC_OK) return tc_error_set(err, rc, "sampler: no candidate left (every logit is NaN or -inf)");
    return TC_OK;
}

uint32_t tc_sstage_top(const tc_sstage *s, uint32_t cap, int32_t *ids, double *probs) {
    uint32_t m = 0;
    /* the list's last entry, held in locals once the list is full (the writes to probs / ids would
     * make the compiler reload it for every candidate): most candidates fail one comparison */
    double last_p = INFINITY;
    int32_t last_id = INT32_MIN;
    const double *sp = s->probs;
    for (uint32_t i = 0; i < s->n && cap; i++) {
        const double v = sp[i];
        /* x before y: higher probability, or equal and lower id */
        if (m == cap && !(v > last_p || (v == last_p && s->ids[i] < last_id))) continue;
        const int32_t id = s->ids[i];
        uint32_t j = m < cap ? m++ : m - 1;
        while (j > 0 && (v > probs[j - 1] || (v == probs[j - 1] && id < ids[j - 1]))) {
            probs[j] = probs[j - 1];
            ids[j] = ids[j - 1];
            j--;
        }
        probs[j] = v;
        ids[j] = id;
        if (m == cap) { last_p = probs[m - 1]; last_id = ids[m - 1]; }
    }
    return m;
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

int tc_draw_rng_init(tc_draw_rng *g, const tc_sresult *r, const tc_sampler_params *p, tc_error *err) {
    memset(g, 0, sizeof *g);
    g->x = p->seed;
    g->seed = p->seed;
    g->preset = r->preset;
    if (r->preset == TC_SP_LLAMA) {
        g->mt = malloc(sizeof *g->mt);
        if (!g->mt) return tc_error_set(err, TC_ERR_NOMEM, "sampler: out of memory");
        tc_mt19937_seed(g->mt, (uint32_t)p->seed);
    } else if (r->preset == TC_SP_KESTREL) {
        tc_glibc_srand(&g->gr, (uint32_t)p->seed);
    }
    return TC_OK;
}

void tc_draw_rng_text(const tc_draw_rng *g, char *dst, size_t cap) {
    rng_text(dst, cap, g->preset, g->x, g->mt, &g->gr, g->seed);
}

void tc_draw_rng_free(tc_draw_rng *g) {
    free(g->mt);
    g->mt = NULL;
}

void tc_draw_next(const tc_sresult *r, tc_draw_rng *g, uint32_t n_draws, int32_t *out) {
    const tc_splan *pl = &r->plan;
    for (uint32_t d = 0; d < n_draws; d++) {
        int32_t id = pl->fixed;
        switch (pl->kind) {
        case TC_DRAW_FIXED: break;
        case TC_DRAW_DS4: {
            /* ds4.c: r = sample_rng_f32(rng) * filtered_sum; r -= probs[i]; r <= 0 -> ids[i] */
            float rr = tc_xorshift64s_f32(&g->x) * pl->fsum;
            for (uint32_t i = 0; i < pl->n; i++) {
                rr -= pl->fw[i];
                if (rr <= 0.0f) { id = pl->ids[i]; break; }
            }
            break;
        }
        case TC_DRAW_LLAMA: {
            if (pl->llama_no_rng) { id = pl->ids[0]; break; }
            const double rnd = tc_mt19937_canonical(g->mt);
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
            const float rr = (float)tc_glibc_rand_next(&g->gr) / (float)2147483647 * pl->fsum;
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
            const double u = (double)(tc_xorshift64s_next(&g->x) >> 11) * 0x1.0p-53;
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
}

int tc_sampler_draw(const tc_sresult *r, const tc_sampler_params *p, uint32_t n_draws, int32_t *out,
                    tc_draw_state *st, tc_error *err) {
    tc_draw_rng g;
    int rc = tc_draw_rng_init(&g, r, p, err);
    if (rc != TC_OK) return rc;
    if (st) tc_draw_rng_text(&g, st->before, sizeof st->before);
    tc_draw_next(r, &g, n_draws, out);
    if (st) tc_draw_rng_text(&g, st->after, sizeof st->after);
    tc_draw_rng_free(&g);
    return TC_OK;
}
