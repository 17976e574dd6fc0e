/* sampler.h - next-token samplers of several inference engines, stage by
 * stage, with the engines' own draws.
 *
 * Does: run the sampling chain of a preset (ds4, llama.cpp, kestrel, hf,
 * custom) on one row of logits, record after each stage the candidates in
 * the order the engine holds them, their probabilities (renormalized, for
 * display), kept count and mass, entropy and the cut-off facts, and keep a
 * "draw plan": the final candidates with the exact float/double weights the
 * engine draws from, so that N draws from one seeded RNG reproduce the
 * engine's choices bit for bit (ds4, llama.cpp, kestrel).
 * Also: the engines' RNGs (xorshift64*, std::mt19937 with libstdc++'s
 * generate_canonical<double>, glibc rand() TYPE_3), usable on their own.
 * Does not: read files (logits.h), keep global state, call rand() itself.
 */
#ifndef TC_SAMPLER_H
#define TC_SAMPLER_H

#include "common.h"

/* ---- RNGs ------------------------------------------------------------------ */

/* xorshift64* as ds4.c sample_rng_next: a zero state becomes 0x9e3779b97f4a7c15. */
uint64_t tc_xorshift64s_next(uint64_t *state);
/* ds4.c sample_rng_f32: top 24 bits of the output / 2^24, as float. */
float tc_xorshift64s_f32(uint64_t *state);

typedef struct tc_mt19937 {
    uint32_t mt[624];
    uint32_t idx;
    uint64_t consumed;  /* outputs drawn since seeding */
} tc_mt19937;
void tc_mt19937_seed(tc_mt19937 *g, uint32_t seed);
uint32_t tc_mt19937_next(tc_mt19937 *g);
/* std::generate_canonical<double, 53>(mt19937) as libstdc++ computes it (two
 * outputs), which is also uniform_real_distribution<double>(0, 1). */
double tc_mt19937_canonical(tc_mt19937 *g);

/* glibc random()/rand() with the default TYPE_3 state (degree 31, sep 3). */
typedef struct tc_glibc_rand {
    int32_t r[31];
    uint32_t f, b;      /* front and rear indexes into r */
    uint64_t calls;     /* rand() calls since srand */
} tc_glibc_rand;
void tc_glibc_srand(tc_glibc_rand *g, uint32_t seed);
int32_t tc_glibc_rand_next(tc_glibc_rand *g);

/* ---- sampler --------------------------------------------------------------- */

typedef enum {
    TC_SP_DS4 = 0,
    TC_SP_LLAMA = 1,
    TC_SP_KESTREL = 2,
    TC_SP_HF = 3,
    TC_SP_CUSTOM = 4
} tc_sampler_preset;

/* stages the user sets (custom order / semantics index these) */
typedef enum {
    TC_STAGE_TEMPERATURE = 0,
    TC_STAGE_TOP_K = 1,
    TC_STAGE_TOP_P = 2,
    TC_STAGE_MIN_P = 3
} tc_stage_kind;

/* per-stage semantics for custom: the engine whose rule the stage follows */
typedef enum {
    TC_SEM_DS4 = 0,
    TC_SEM_LLAMA = 1,
    TC_SEM_KESTREL = 2,
    TC_SEM_HF = 3
} tc_semantics;

int tc_sampler_preset_from_name(const char *name, tc_sampler_preset *out);
const char *tc_sampler_preset_name(tc_sampler_preset p);
int tc_stage_from_name(const char *name, tc_stage_kind *out);
const char *tc_stage_name(tc_stage_kind k);
int tc_semantics_from_name(const char *name, tc_semantics *out);

typedef struct tc_sampler_params {
    tc_sampler_preset preset;
    float temperature;
    int32_t top_k;
    float top_p;
    float min_p;
    uint64_t seed;
    /* custom only: n_order stages in order (each at most once), each with
     * its semantics; other presets ignore these */
    int n_order;
    tc_stage_kind order[4];
    tc_semantics semantics[4];   /* indexed by tc_stage_kind */
} tc_sampler_params;

#define TC_SAMPLER_MAX_STAGES 8
#define TC_SAMPLER_CUTOFF_MAX 200
#define TC_SAMPLER_NOTES_MAX 2048

typedef struct tc_sstage {
    char name[16];          /* "input", "temperature", "top_k", "top_p", "min_p", "ban" */
    uint32_t n;             /* kept candidates (as the engine holds them) */
    int32_t *ids;           /* n ids in the engine's order */
    int ids_shared;         /* ids is the previous stage's array (same ids, same order): not freed here */
    int ids_ascending;      /* 1: ids are known to be in ascending order (a membership test can search) */
    double *probs;          /* n probabilities, renormalized over the kept set */
    double kept_mass;       /* mass of the kept set in the previous stage's distribution */
    double entropy_bits;
    char cutoff[TC_SAMPLER_CUTOFF_MAX];
} tc_sstage;

/* What a draw uses: the engine's exact candidate weights. */
typedef enum {
    TC_DRAW_FIXED = 0,       /* no RNG draw: `fixed` is the result */
    TC_DRAW_DS4 = 1,         /* r = u(xorshift64*) * fsum; subtract float weights until r <= 0 */
    TC_DRAW_LLAMA = 2,       /* double running sum of float weights >= dsum * canonical(mt19937) */
    TC_DRAW_KESTREL = 3,     /* r = rand()/RAND_MAX * fsum; float running sum in id order, r <= cum */
    TC_DRAW_GENERIC = 4      /* hf/custom: not an engine's draw: xorshift64* 53-bit u over double weights */
} tc_draw_kind;

typedef struct tc_splan {
    tc_draw_kind kind;
    int32_t fixed;           /* TC_DRAW_FIXED result; fallback id for the others */
    uint32_t n;
    uint32_t n_vocab;        /* kestrel: the draw walks every id of the vocabulary */
    int32_t *ids;
    float *fw;               /* float weights (ds4, llama, kestrel) */
    double *dw;              /* double weights (generic) */
    float fsum;
    double dsum;
    int llama_no_rng;        /* llama.cpp dist with one candidate: selected 0, RNG untouched */
} tc_splan;

typedef struct tc_sampler_ws tc_sampler_ws;   /* see tokcore.h */

typedef struct tc_sresult {
    tc_sampler_preset preset;
    int n_stages;
    tc_sstage stages[TC_SAMPLER_MAX_STAGES];
    int greedy;
    char notes[TC_SAMPLER_NOTES_MAX];   /* one note per line */
    tc_splan plan;
    tc_sampler_ws *own_ws;   /* tc_sampler_run's workspace (freed by tc_sresult_free); NULL from tc_sampler_run_ws */
} tc_sresult;

/* Runs the preset's chain on logits[0..n). Returns TC_OK or an error
 * (TC_ERR_ARG for n == 0 or bad custom order, TC_ERR_NOMEM). `out` must be
 * freed with tc_sresult_free, also after an error. Makes a workspace for
 * this one run: a caller that runs again keeps one (tc_sampler_run_ws). */
int tc_sampler_run(const float *logits, uint32_t n, const tc_sampler_params *p, tc_sresult *out, tc_error *err);
void tc_sresult_free(tc_sresult *r);

/* The stage's top `cap` candidates by display probability (descending, the
 * lower id first among equal ones) into ids / probs; returns how many (at
 * most cap and s->n). One pass with an insertion list: O(n) for small cap. */
uint32_t tc_sstage_top(const tc_sstage *s, uint32_t cap, int32_t *ids, double *probs);

/* n_draws draws in a row from one RNG seeded once with p->seed (as the
 * engine over n_draws steps with the same logits). rng_before / rng_after
 * describe the RNG state (64 bytes each at least). */
typedef struct tc_draw_state {
    char before[96];
    char after[96];
} tc_draw_state;
int tc_sampler_draw(const tc_sresult *r, const tc_sampler_params *p, uint32_t n_draws, int32_t *out,
                    tc_draw_state *st, tc_error *err);

/* The same draws in pieces: one RNG seeded once (init), then any number of
 * tc_draw_next calls continue the sequence (n draws each into out), so a
 * caller can stream 10^8 draws through a small buffer. rng_text describes
 * the state as tc_draw_state does. Free with tc_draw_rng_free. */
typedef struct tc_draw_rng {
    uint64_t x, seed;
    tc_mt19937 *mt;
    tc_glibc_rand gr;
    tc_sampler_preset preset;
} tc_draw_rng;
int tc_draw_rng_init(tc_draw_rng *g, const tc_sresult *r, const tc_sampler_params *p, tc_error *err);
void tc_draw_next(const tc_sresult *r, tc_draw_rng *g, uint32_t n_draws, int32_t *out);
void tc_draw_rng_text(const tc_draw_rng *g, char *dst, size_t cap);
void tc_draw_rng_free(tc_draw_rng *g);

#endif
