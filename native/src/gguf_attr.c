/* gguf_attr.c - the type of every GGUF token as llama.cpp's loader leaves it,
 * after its overrides by token text.
 *
 * llama.cpp does not take tokenizer.ggml.token_type as it is: its loader
 * (llama_vocab::impl::load in src/llama-vocab.cpp of the llama.cpp vendored by
 * llama-cpp-python 0.3.36, "auto-detect special tokens by text") makes tokens
 * CONTROL by their text, and the special-token partition (cache_special_tokens,
 * tokenizer_st_partition) then matches them in the text like any control
 * token. Qwen2's "</s>" (id 128247, an ordinary token in the file) is one:
 * llama.cpp reads "</s>" in a text as that one token. The rules, in its order:
 *
 * - FIM tokens: for each of FIM_PRE, FIM_SUF, FIM_MID, FIM_PAD, FIM_REP and
 *   FIM_SEP whose id the file does not give (tokenizer.ggml.fim_*_token_id, or
 *   the deprecated prefix/suffix/middle ids), the token found with one of the
 *   kind's texts becomes CONTROL.
 * - EOG texts ("maintain a list of tokens that cause end-of-generation"):
 *   every token whose text is in EOG_TEXTS becomes CONTROL (the EOT and EOM
 *   lists before it are subsets of this one).
 * - gpt-oss: "<|channel|>", "<|message|>", "<|start|>", "<|constrain|>" become
 *   USER_DEFINED (matched even when special tokens are not parsed).
 * - "</s>" is NORMAL again when the EOG set also holds "<|tool_response>" or
 *   "<|plamo:eos|>" (gemma4, plamo: "a normal </s> token, unlike paddleocr").
 *
 * Does not: decide lstrip/rstrip (load_gguf.c: phi-3's rule) or the EOG set
 * itself (generation is not ours). Known approximation: llama.cpp finds a FIM
 * token by iterating its token_to_id hash map, so when a vocabulary holds two
 * texts of one FIM kind the one it takes depends on that map's order; here the
 * first text of the kind's list that the vocabulary holds (lowest id for equal
 * texts) is taken.
 */
#include <stdlib.h>
#include <string.h>

#include "gguf.h"

#define FIM_KINDS 6
#define FIM_MAX_TEXTS 8

static const char *const EOG_TEXTS[] = {
    "<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>", "<|calls|>", "<end_of_turn>",
    "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>", "_<EOT>", "[EOT]", "[EOS]", "<|end_of_text|>",
    "<end_of_utterance>", "<eos>", "<turn|>", "<|tool_response>",
    "<\357\275\234end\342\226\201of\342\226\201sentence\357\275\234>",   /* <｜end▁of▁sentence｜> */
    "[e~[",
};
static const char *const USER_TEXTS[] = {"<|channel|>", "<|message|>", "<|start|>", "<|constrain|>"};

/* per FIM kind: the id key that names it, and its texts in the loader's order */
static const struct {
    int key;
    const char *texts[FIM_MAX_TEXTS];
} FIM[FIM_KINDS] = {
    {TC_GGUF_FIM_PRE, {"<|fim_prefix|>", "<fim-prefix>", "<fim_prefix>", "<\357\275\234fim\342\226\201begin\357\275\234>",
                       "<PRE>", "\342\226\201<PRE>", "<|code_prefix|>", "<|prefix|>"}},
    {TC_GGUF_FIM_SUF, {"<|fim_suffix|>", "<fim-suffix>", "<fim_suffix>", "<\357\275\234fim\342\226\201hole\357\275\234>",
                       "<SUF>", "\342\226\201<SUF>", "<|code_suffix|>", "<|suffix|>"}},
    {TC_GGUF_FIM_MID, {"<|fim_middle|>", "<fim-middle>", "<fim_middle>", "<\357\275\234fim\342\226\201end\357\275\234>",
                       "<MID>", "\342\226\201<MID>", "<|code_middle|>", "<|middle|>"}},
    {TC_GGUF_FIM_PAD, {"<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]", NULL, NULL, NULL}},
    {TC_GGUF_FIM_REP, {"<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>", NULL, NULL, NULL}},
    {TC_GGUF_FIM_SEP, {"<|file_sep|>", NULL, NULL, NULL, NULL, NULL, NULL, NULL}},
};

static int is(const uint8_t *s, uint32_t len, const char *text) {
    size_t n = strlen(text);
    return n == len && memcmp(s, text, n) == 0;
}

static int in_list(const uint8_t *s, uint32_t len, const char *const *list, size_t n) {
    for (size_t k = 0; k < n; k++)
        if (is(s, len, list[k])) return 1;
    return 0;
}

static int id_text_is(const tc_gguf *g, int64_t id, const char *text) {
    if (id < 0 || id >= (int64_t)g->tokens.n) return 0;
    uint32_t len;
    const uint8_t *s = tc_gguf_at(g, &g->tokens, (uint32_t)id, &len);
    return is(s, len, text);
}

int32_t *tc_gguf_llama_types(const tc_gguf *g) {
    uint32_t n = g->tokens.n;
    int32_t *t = malloc((size_t)(n ? n : 1) * sizeof *t);
    if (!t) return NULL;
    for (uint32_t i = 0; i < n; i++)   /* no token_type array: llama.cpp takes every token as NORMAL */
        t[i] = g->types && i < g->n_types ? g->types[i] : TC_GGUF_TT_NORMAL;
    /* FIM: the kind's first text the vocabulary holds, for kinds the file gives no id for */
    for (int f = 0; f < FIM_KINDS; f++) {
        if (g->ids[FIM[f].key] >= 0 && g->ids[FIM[f].key] < (int64_t)n) continue;
        int64_t best = -1;
        int best_rank = FIM_MAX_TEXTS;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t len;
            const uint8_t *s = tc_gguf_at(g, &g->tokens, i, &len);
            for (int k = 0; k < best_rank && FIM[f].texts[k]; k++)
                if (is(s, len, FIM[f].texts[k])) { best = i; best_rank = k; break; }
        }
        if (best >= 0) t[best] = TC_GGUF_TT_CONTROL;
    }
    int tool_response = 0, s_marker = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t len;
        const uint8_t *s = tc_gguf_at(g, &g->tokens, i, &len);
        if (in_list(s, len, EOG_TEXTS, sizeof EOG_TEXTS / sizeof *EOG_TEXTS)) {
            t[i] = TC_GGUF_TT_CONTROL;
            tool_response |= is(s, len, "<|tool_response>");
        }
        if (in_list(s, len, USER_TEXTS, sizeof USER_TEXTS / sizeof *USER_TEXTS)) t[i] = TC_GGUF_TT_USER_DEFINED;
    }
    /* "<|plamo:eos|>" reaches the EOG set only as the file's eos/eot/eom id */
    s_marker = tool_response || id_text_is(g, g->ids[TC_GGUF_EOS], "<|plamo:eos|>") ||
               id_text_is(g, g->ids[TC_GGUF_EOT], "<|plamo:eos|>") || id_text_is(g, g->ids[TC_GGUF_EOM], "<|plamo:eos|>");
    if (s_marker)
        for (uint32_t i = 0; i < n; i++) {
            uint32_t len;
            const uint8_t *s = tc_gguf_at(g, &g->tokens, i, &len);
            if (is(s, len, "</s>")) t[i] = TC_GGUF_TT_NORMAL;
        }
    return t;
}
