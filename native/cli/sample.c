/* sample.c - `tokcore sample`: the sampler of native/src/sampler.h on one row
 * of a logits file (native/src/logits.h), stage by stage, and its draws.
 *
 *   tokcore sample --logits FILE [--format npy|f32|f16|bf16|text]
 *                  [--vocab N | --tokenizer PATH] [--step I] --preset P
 *                  [--temperature T] [--top-k K] [--top-p P] [--min-p M]
 *                  [--seed S] [--draws N] [--order a,b,..] [--semantics stage=engine,..] [--json]
 *
 * Exit status: 0 ok, 1 input failure, 2 usage error.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "../src/logits.h"
#include "../src/platform.h"
#include "../src/sampler.h"
#include "../src/tokcore.h"
#include "sample.h"

#define MAX_LOGITS_BYTES ((size_t)1 << 40)
#define MAX_TOKENIZER_BYTES ((size_t)1 << 30)

static const char SAMPLE_USAGE[] =
    "usage: tokcore sample --logits FILE [--format npy|f32|f16|bf16|text] [--vocab N | --tokenizer PATH]\n"
    "                      [--step I] --preset ds4|llama.cpp|kestrel|hf|custom [--temperature T] [--top-k K]\n"
    "                      [--top-p P] [--min-p M] [--seed S] [--draws N] [--json [--json-top K]]\n"
    "                      [--order temperature,top_k,top_p,min_p] [--semantics top_p=llama.cpp,min_p=ds4]\n"
    "Prints each stage of the preset's chain (candidates, probabilities, cut-off) and N draws from\n"
    "one RNG seeded once with --seed. --json: {\"preset\",\"stages\":[{\"name\",\"ids\",\"probs\",\"listed\",\"kept\",...}],\"draws\"};\n"
    "each stage lists its K most probable candidates (--json-top, default 256; 0: all, in the stage's order).\n";

static int sample_usage(const char *msg, const char *arg) {
    fprintf(stderr, "tokcore sample: %s%s\n(tokcore sample --help for usage)\n", msg, arg ? arg : "");
    return 2;
}

static int parse_u64(const char *s, uint64_t *v) {
    if (!*s) return -1;
    uint64_t x = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9' || x > (UINT64_MAX - 9) / 10) return -1;
        x = x * 10 + (uint64_t)(*p - '0');
    }
    *v = x;
    return 0;
}

static int parse_float(const char *s, float *v) {
    char *end = NULL;
    errno = 0;
    float x = strtof(s, &end);
    if (end == s || *end) return -1;
    *v = x;
    return 0;
}

static int parse_i32(const char *s, int32_t *v) {
    int neg = s[0] == '-';
    uint64_t x;
    if (parse_u64(s + neg, &x) != 0 || x > (uint64_t)INT32_MAX) return -1;
    *v = neg ? -(int32_t)x : (int32_t)x;
    return 0;
}

/* "a,b,c" -> custom order */
static int parse_order(const char *s, tc_sampler_params *p) {
    char buf[128];
    if (strlen(s) >= sizeof buf) return -1;
    strcpy(buf, s);
    p->n_order = 0;
    for (char *tok = buf; tok && *tok;) {
        char *comma = strchr(tok, ',');
        if (comma) *comma = 0;
        if (p->n_order == 4 || tc_stage_from_name(tok, &p->order[p->n_order]) != 0) return -1;
        p->n_order++;
        tok = comma ? comma + 1 : NULL;
    }
    return 0;
}

static int parse_semantics(const char *s, tc_sampler_params *p) {
    char buf[160];
    if (strlen(s) >= sizeof buf) return -1;
    strcpy(buf, s);
    for (char *tok = buf; tok && *tok;) {
        char *comma = strchr(tok, ',');
        if (comma) *comma = 0;
        char *eq = strchr(tok, '=');
        tc_stage_kind k;
        tc_semantics sem;
        if (!eq) return -1;
        *eq = 0;
        if (tc_stage_from_name(tok, &k) != 0 || tc_semantics_from_name(eq + 1, &sem) != 0) return -1;
        p->semantics[k] = sem;
        tok = comma ? comma + 1 : NULL;
    }
    return 0;
}

static int vocab_of_tokenizer(const char *path, uint32_t *vocab) {
    tc_file f;
    tc_error err = {0};
    if (tc_precheck_file(path, MAX_TOKENIZER_BYTES, &err) != TC_OK || tc_file_read(path, MAX_TOKENIZER_BYTES, &f, &err) != TC_OK) { fprintf(stderr, "tokcore: %s\n", err.msg); return -1; }
    tc_tokenizer *tok = NULL;
    switch (tc_detect_format(f.data, f.len)) {
    case TC_FORMAT_HF_JSON: tok = tc_load_hf_json(f.data, f.len, &err); break;
    case TC_FORMAT_TIKTOKEN: tok = tc_load_tiktoken(f.data, f.len, TC_PRESET_QWEN2, &err); break;
    case TC_FORMAT_VOCAB_BIN: tok = tc_load_vocabbin(f.data, f.len, TC_PRESET_QWEN2, &err); break;
    default: tc_error_set(&err, TC_ERR_UNSUPPORTED, "%s: use a tokenizer.json, .tiktoken or vocab.bin (or --vocab N)", path);
    }
    tc_file_free(&f);
    if (!tok) { fprintf(stderr, "tokcore: %s\n", err.msg[0] ? err.msg : "cannot load the tokenizer"); return -1; }
    *vocab = tc_vocab_size(tok);
    tc_free(tok);
    return 0;
}

/* a JSON number for a double (non-finite as null) */
static void put_num(tc_buf *b, double v, int *oom) {
    char tmp[40];
    int n = isfinite(v) ? snprintf(tmp, sizeof tmp, "%.17g", v) : snprintf(tmp, sizeof tmp, "null");
    if (tc_buf_append(b, tmp, (size_t)n) != 0) *oom = 1;
}

static void put_str(tc_buf *b, const char *s, int *oom) {
    if (tc_buf_push(b, '"') != 0) *oom = 1;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        char tmp[8];
        int n;
        if (c == '"' || c == '\\') n = snprintf(tmp, sizeof tmp, "\\%c", c);
        else if (c < 0x20) n = snprintf(tmp, sizeof tmp, "\\u%04x", c);
        else { tmp[0] = (char)c; n = 1; }
        if (tc_buf_append(b, tmp, (size_t)n) != 0) *oom = 1;
    }
    if (tc_buf_push(b, '"') != 0) *oom = 1;
}

static void put_lit(tc_buf *b, const char *s, int *oom) {
    if (tc_buf_append(b, s, strlen(s)) != 0) *oom = 1;
}

/* --json-top: a stage lists its `top` most probable candidates, most probable first, ties (and NaN,
 * which goes last) in the stage's own order: numpy's stable argsort of -p, what the Python CLI uses. */
typedef struct ranked { double p; uint32_t i; } ranked;

static int by_prob(const void *a, const void *b) {
    const ranked *x = a, *y = b;
    int xn = isnan(x->p), yn = isnan(y->p);
    if (xn != yn) return xn ? 1 : -1;
    if (!xn && x->p != y->p) return x->p > y->p ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* The order of a stage's listed candidates (NULL: all of them, in the stage's order). */
static uint32_t *listed(const tc_sstage *g, uint32_t top, uint32_t *n, int *oom) {
    *n = g->n;
    if (top == 0 || top >= g->n) return NULL;
    ranked *rk = malloc((size_t)g->n * sizeof *rk);
    uint32_t *ix = malloc((size_t)top * sizeof *ix);
    if (!rk || !ix) { free(rk); free(ix); *oom = 1; *n = 0; return NULL; }
    for (uint32_t i = 0; i < g->n; i++) { rk[i].p = g->probs[i]; rk[i].i = i; }
    qsort(rk, g->n, sizeof *rk, by_prob);
    for (uint32_t i = 0; i < top; i++) ix[i] = rk[i].i;
    free(rk);
    *n = top;
    return ix;
}

static int print_json(const tc_sresult *r, const int32_t *draws, uint32_t nd, const tc_draw_state *st, uint32_t top) {
    tc_buf b = {0};
    int oom = 0;
    char tmp[32];
    put_lit(&b, "{\"preset\":", &oom);
    put_str(&b, tc_sampler_preset_name(r->preset), &oom);
    put_lit(&b, ",\"greedy\":", &oom);
    put_lit(&b, r->greedy ? "true" : "false", &oom);
    put_lit(&b, ",\"stages\":[", &oom);
    for (int s = 0; s < r->n_stages; s++) {
        const tc_sstage *g = &r->stages[s];
        if (s) put_lit(&b, ",", &oom);
        put_lit(&b, "{\"name\":", &oom);
        put_str(&b, g->name, &oom);
        uint32_t nl;
        uint32_t *ix = listed(g, top, &nl, &oom);
        put_lit(&b, ",\"ids\":[", &oom);
        for (uint32_t i = 0; i < nl; i++) {
            int n = snprintf(tmp, sizeof tmp, "%s%d", i ? "," : "", g->ids[ix ? ix[i] : i]);
            if (tc_buf_append(&b, tmp, (size_t)n) != 0) oom = 1;
        }
        put_lit(&b, "],\"probs\":[", &oom);
        for (uint32_t i = 0; i < nl; i++) {
            if (i) put_lit(&b, ",", &oom);
            put_num(&b, g->probs[ix ? ix[i] : i], &oom);
        }
        free(ix);
        put_lit(&b, "],\"listed\":", &oom);
        put_num(&b, nl, &oom);
        put_lit(&b, ",\"kept\":", &oom);
        put_num(&b, g->n, &oom);
        put_lit(&b, ",\"kept_mass\":", &oom);
        put_num(&b, g->kept_mass, &oom);
        put_lit(&b, ",\"entropy_bits\":", &oom);
        put_num(&b, g->entropy_bits, &oom);
        put_lit(&b, ",\"cutoff\":", &oom);
        put_str(&b, g->cutoff, &oom);
        put_lit(&b, "}", &oom);
    }
    put_lit(&b, "],\"draws\":[", &oom);
    for (uint32_t i = 0; i < nd; i++) {
        int n = snprintf(tmp, sizeof tmp, "%s%d", i ? "," : "", draws[i]);
        if (tc_buf_append(&b, tmp, (size_t)n) != 0) oom = 1;
    }
    put_lit(&b, "],\"rng_before\":", &oom);
    put_str(&b, st->before, &oom);
    put_lit(&b, ",\"rng_after\":", &oom);
    put_str(&b, st->after, &oom);
    put_lit(&b, ",\"notes\":", &oom);
    put_str(&b, r->notes, &oom);
    put_lit(&b, "}\n", &oom);
    int rc = 0;
    if (oom) { fputs("tokcore: out of memory\n", stderr); rc = 1; }
    else if (fwrite(b.data, 1, b.len, stdout) != b.len || fflush(stdout) != 0) { fputs("tokcore: cannot write\n", stderr); rc = 1; }
    tc_buf_free(&b);
    return rc;
}

static void print_text(const tc_sresult *r, const int32_t *draws, uint32_t nd, const tc_draw_state *st) {
    printf("preset %s%s\n", tc_sampler_preset_name(r->preset), r->greedy ? " (greedy)" : "");
    for (int s = 0; s < r->n_stages; s++) {
        const tc_sstage *g = &r->stages[s];
        printf("%-12s kept %u  mass %.6f  entropy %.4f bits  %s\n", g->name, g->n, g->kept_mass, g->entropy_bits, g->cutoff);
        uint32_t show = g->n < 10 ? g->n : 10;
        /* the ten most probable of the stage, in the engine's order otherwise */
        for (uint32_t i = 0; i < show; i++) printf("    id %-8d p %.6f\n", g->ids[i], g->probs[i]);
        if (g->n > show) printf("    ... %u more\n", g->n - show);
    }
    printf("rng before: %s\nrng after:  %s\ndraws:", st->before, st->after);
    for (uint32_t i = 0; i < nd; i++) printf(" %d", draws[i]);
    printf("\n");
    if (r->notes[0]) printf("notes:\n%s", r->notes);
}

int tokcore_sample_main(int argc, char **argv) {
    const char *logits_path = NULL, *format = NULL, *tokenizer = NULL, *preset = NULL, *order = NULL, *semantics = NULL;
    uint64_t vocab64 = 0, step = 0, seed = 42, ndraws = 1;
    int json = 0;
    uint64_t json_top = 256;
    tc_sampler_params p;
    memset(&p, 0, sizeof p);
    p.temperature = 0.8f; p.top_k = 40; p.top_p = 0.95f; p.min_p = 0.05f;
    for (int i = 0; i < 4; i++) p.semantics[i] = TC_SEM_LLAMA;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) { fputs(SAMPLE_USAGE, stdout); return 0; }
        if (strcmp(a, "--json") == 0) { json = 1; continue; }
        if (i + 1 >= argc) return sample_usage("option needs a value or is unknown: ", a);
        const char *v = argv[++i];
        int bad = 0;
        if (strcmp(a, "--logits") == 0) logits_path = v;
        else if (strcmp(a, "--format") == 0) format = v;
        else if (strcmp(a, "--tokenizer") == 0) tokenizer = v;
        else if (strcmp(a, "--preset") == 0) preset = v;
        else if (strcmp(a, "--order") == 0) order = v;
        else if (strcmp(a, "--semantics") == 0) semantics = v;
        else if (strcmp(a, "--vocab") == 0) bad = parse_u64(v, &vocab64) || vocab64 == 0 || vocab64 > INT32_MAX;
        else if (strcmp(a, "--step") == 0) bad = parse_u64(v, &step) || step > UINT32_MAX;
        else if (strcmp(a, "--seed") == 0) bad = parse_u64(v, &seed);
        else if (strcmp(a, "--draws") == 0) bad = parse_u64(v, &ndraws) || ndraws > 100000000;
        else if (strcmp(a, "--json-top") == 0) bad = parse_u64(v, &json_top) || json_top > UINT32_MAX;
        else if (strcmp(a, "--temperature") == 0) bad = parse_float(v, &p.temperature);
        else if (strcmp(a, "--top-k") == 0) bad = parse_i32(v, &p.top_k);
        else if (strcmp(a, "--top-p") == 0) bad = parse_float(v, &p.top_p);
        else if (strcmp(a, "--min-p") == 0) bad = parse_float(v, &p.min_p);
        else return sample_usage("unknown option ", a);
        if (bad) return sample_usage("bad value for ", a);
    }
    if (!logits_path) return sample_usage("needs --logits FILE", NULL);
    if (!preset) return sample_usage("needs --preset ds4|llama.cpp|kestrel|hf|custom", NULL);
    if (tc_sampler_preset_from_name(preset, &p.preset) != 0) return sample_usage("unknown --preset ", preset);
    if (order && parse_order(order, &p) != 0) return sample_usage("bad --order ", order);
    if (semantics && parse_semantics(semantics, &p) != 0) return sample_usage("bad --semantics ", semantics);
    if (p.preset == TC_SP_CUSTOM && !order) {
        p.n_order = 4;
        for (int i = 0; i < 4; i++) p.order[i] = (tc_stage_kind)i;
    }
    p.seed = seed;
    tc_logits_format fmt = TC_LOGITS_AUTO;
    if (format && tc_logits_format_from_name(format, &fmt) != 0) return sample_usage("unknown --format ", format);
    uint32_t vocab = (uint32_t)vocab64;
    if (tokenizer && vocab) return sample_usage("use either --vocab or --tokenizer", NULL);
    if (tokenizer && vocab_of_tokenizer(tokenizer, &vocab) != 0) return 1;

    tc_file f;
    tc_error err = {0};
    tc_logits lg;
    tc_sresult res;
    float *row = NULL;
    int32_t *draws = NULL;
    int status = 1;
    memset(&lg, 0, sizeof lg);
    memset(&res, 0, sizeof res);
    if (tc_file_open_guarded(logits_path, MAX_LOGITS_BYTES, &f, &err) != TC_OK) { fprintf(stderr, "tokcore: %s\n", err.msg); return 1; }
    if (tc_logits_open_file(&f, fmt, vocab, &lg, &err) != TC_OK) {
        fprintf(stderr, "tokcore: %s: %s\n", logits_path, err.msg);
        goto done;
    }
    if (step >= lg.steps) {
        fprintf(stderr, "tokcore: --step %llu: the file has %u steps\n", (unsigned long long)step, lg.steps);
        status = 2;
        goto done;
    }
    row = malloc((size_t)lg.vocab * sizeof *row);
    draws = malloc((size_t)(ndraws ? ndraws : 1) * sizeof *draws);
    if (!row || !draws) { fputs("tokcore: out of memory\n", stderr); goto done; }
    if (tc_logits_read_row(&lg, &f, (uint32_t)step, row, &err) != TC_OK) { fprintf(stderr, "tokcore: %s\n", err.msg); goto done; }
    if (tc_sampler_run(row, lg.vocab, &p, &res, &err) != TC_OK) { fprintf(stderr, "tokcore: %s\n", err.msg); goto done; }
    tc_draw_state st;
    if (tc_sampler_draw(&res, &p, (uint32_t)ndraws, draws, &st, &err) != TC_OK) { fprintf(stderr, "tokcore: %s\n", err.msg); goto done; }
    if (json) status = print_json(&res, draws, (uint32_t)ndraws, &st, (uint32_t)json_top);
    else {
        print_text(&res, draws, (uint32_t)ndraws, &st);
        status = fflush(stdout) == 0 ? 0 : 1;
    }
done:
    tc_sresult_free(&res);
    tc_logits_free(&lg);
    tc_file_free(&f);
    free(row);
    free(draws);
    return status;
}
