/* tokcore.c - the board-side command line tool of the tokcore engine.
 *
 * Does: load a tokenizer (tokenizer.json, vocab.json + merges.txt or a
 * .tiktoken rank file, detected by content), then encode, decode or
 * describe it; --jsonl serves a stream of requests, one JSON line in, one
 * JSON line out, flushed per line (the desktop app drives this over SSH).
 * Does not: use anything beyond standard C and stdio (files are read by the
 * engine's platform.c), keep global mutable state, or put text through the
 * command line in --jsonl mode.
 *
 * Exit status: 0 ok, 1 load/input/output failure, 2 usage error.
 */
#include <stdio.h>

#include "../src/json.h"
#include "../src/platform.h"
#include "../src/tokcore.h"
#include "request.h"
#include "sample.h"
#include "sha256.h"

#define MAX_FILE_BYTES ((size_t)1 << 30) /* 1 GiB per tokenizer file */

enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

static const char USAGE[] =
    "usage: tokcore encode --tokenizer PATH [LOAD OPTIONS] [--encoder E] [--no-special]\n"
    "                      [--json] [--jsonl | TEXT]\n"
    "       tokcore decode --tokenizer PATH [LOAD OPTIONS] [--skip-special] [--jsonl | ID...]\n"
    "       tokcore info   --tokenizer PATH [LOAD OPTIONS]\n"
    "       tokcore sample --logits FILE --preset P [...] (tokcore sample --help)\n"
    "       tokcore version | --help\n"
    "\n"
    "LOAD OPTIONS: --merges PATH (with a vocab.json), --preset qwen2|qwen3.5|cl100k|o200k|o200k_harmony|llama3|gpt2|bert-uncased|bert-cased\n"
    "  (pattern for vocab.json + merges.txt, default gpt2; for .tiktoken, default qwen2;\n"
    "  bert-*: a WordPiece vocab.txt, default bert-uncased),\n"
    "  --no-parse-special (a GGUF: control tokens in the text are text, as llama.cpp's\n"
    "  parse_special = false; a GGUF is read from its header only)\n"
    "\n"
    "encode: TEXT, or all of stdin without TEXT; prints ids separated by spaces, or with\n"
    "  --json one object {\"ids\",\"tokens\",\"offsets\" (chars),\"byte_offsets\"}.\n"
    "  --jsonl: each stdin line is a JSON string or {\"text\": ..., \"add_special_tokens\": bool};\n"
    "  each output line is {\"ids\":[...],\"offsets\":[[start,end],...]} or {\"error\":\"...\"}.\n"
    "decode: ids as arguments or whitespace-separated on stdin; prints the text (invalid\n"
    "  UTF-8 replaced by U+FFFD, no newline added).\n"
    "  --jsonl: each stdin line is [ids...] or {\"ids\": [...], \"skip_special_tokens\": bool};\n"
    "  each output line is {\"text\":\"...\",\"bytes_hex\":\"...\"} or {\"error\":\"...\"}.\n"
    "info: one JSON object: pipeline description, path, size, sha256, added tokens.\n";

/* ---- options ------------------------------------------------------------- */

typedef struct options {
    const char *command;
    const char *tokenizer;
    const char *merges;
    const char *preset;
    const char *encoder;       /* bpe (default), rank or greedy */
    const char **pos;          /* positional arguments (TEXT or ids), owned */
    int npos;
    int no_special, skip_special, json, jsonl;
    int no_parse_special;   /* GGUF: llama.cpp's parse_special = false */
} options;

#if defined(__GNUC__)
TC_PRINTF(1, 2)
#endif
static int usage_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("tokcore: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\n(tokcore --help for usage)\n", stderr);
    return EXIT_USAGE;
}

static int is_flag(const char *a, const char *name) { return strcmp(a, name) == 0; }

/* Options that take a value: returns 1 and stores it, 0 if `a` is not one,
 * -1 if the value is missing. */
static int value_option(const char *a, int *i, int argc, char **argv, options *o) {
    const char **dst = is_flag(a, "--tokenizer") ? &o->tokenizer
                     : is_flag(a, "--merges")    ? &o->merges
                     : is_flag(a, "--preset")    ? &o->preset
                     : is_flag(a, "--encoder")   ? &o->encoder : NULL;
    if (!dst) return 0;
    if (*i + 1 >= argc) return -1;
    *dst = argv[++*i];
    return 1;
}

/* Fills o from argv[2..]; "--" ends the options. o->pos must be freed
 * (also after an error). Returns the exit status. */
static int parse_args(int argc, char **argv, options *o) {
    memset(o, 0, sizeof *o);
    o->command = argv[1];
    o->pos = malloc((size_t)argc * sizeof *o->pos);
    if (!o->pos) { fputs("tokcore: out of memory\n", stderr); return EXIT_FAIL; }
    int only_positional = 0;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (only_positional || a[0] != '-' || a[1] == 0) { o->pos[o->npos++] = a; continue; }
        int r = value_option(a, &i, argc, argv, o);
        if (r < 0) return usage_error("option %s needs a value", a);
        if (r > 0) continue;
        if (is_flag(a, "--")) only_positional = 1;
        else if (is_flag(a, "--no-special")) o->no_special = 1;
        else if (is_flag(a, "--no-parse-special")) o->no_parse_special = 1;
        else if (is_flag(a, "--skip-special")) o->skip_special = 1;
        else if (is_flag(a, "--json")) o->json = 1;
        else if (is_flag(a, "--jsonl")) o->jsonl = 1;
        else return usage_error("unknown option %s", a);
    }
    if (!o->tokenizer) return usage_error("%s needs --tokenizer PATH", o->command);
    tc_encoder enc;
    if (o->encoder && tc_encoder_from_name(o->encoder, &enc) != 0)
        return usage_error("unknown --encoder %s (bpe, rank, greedy, kestrel-v1, kestrel-v2)", o->encoder);
    if (o->jsonl && o->npos) return usage_error("%s --jsonl reads stdin only; drop the positional arguments", o->command);
    if (o->jsonl && o->json) return usage_error("%s", "use either --json or --jsonl");
    if (is_flag(o->command, "encode") && o->npos > 1)
        return usage_error("more than one TEXT argument (at %s); quote the text", o->pos[1]);
    if (is_flag(o->command, "decode") && o->json) return usage_error("%s", "decode has --jsonl, not --json");
    if (is_flag(o->command, "info") && (o->npos || o->jsonl || o->json))
        return usage_error("%s", "info takes no text, --json or --jsonl");
    return EXIT_OK;
}

/* Writes the buffer to stdout and flushes. Returns 0 or -1. */
static int flush_out(cli_out *w) {
    if (w->b.len && fwrite(w->b.data, 1, w->b.len, stdout) != w->b.len) return -1;
    return fflush(stdout) == 0 ? 0 : -1;
}

/* ---- input ---------------------------------------------------------------- */

/* Reads one line (without its '\n') into line. Returns 1 for a line, 0 at
 * end of input, -1 on a read error or out of memory (*oom set). getc reads
 * what is available, so an interactive peer gets each reply at once. */
static int read_line(FILE *in, tc_buf *line, int *oom) {
    line->len = 0;
    int c = getc(in);
    if (c == EOF) return ferror(in) ? -1 : 0;
    while (c != EOF && c != '\n') {
        if (tc_buf_push(line, (uint8_t)c) != 0) { *oom = 1; return -1; }
        c = getc(in);
    }
    if (c == EOF && ferror(in)) return -1;
    return 1;
}

static int read_all(FILE *in, tc_buf *all) {
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, in)) > 0)
        if (tc_buf_append(all, chunk, n) != 0) return -1;
    return ferror(in) ? -1 : 0;
}

/* ---- loading -------------------------------------------------------------- */

static int read_file(const char *path, tc_file *f) {
    tc_error err = {0};
    if (tc_precheck_file(path, MAX_FILE_BYTES, &err) == TC_OK && tc_file_read(path, MAX_FILE_BYTES, f, &err) == TC_OK)
        return 0;
    fprintf(stderr, "tokcore: %s\n", err.msg);
    return -1;
}

static int pick_preset(const options *o, tc_preset fallback, tc_preset *p) {
    *p = fallback;
    if (!o->preset) return 0;
    if (tc_preset_from_name(o->preset, p) == 0) return 0;
    usage_error("unknown --preset %s (qwen2, qwen3.5, cl100k, o200k, o200k_harmony, llama3, gpt2, bert-uncased, bert-cased)", o->preset);
    return -1;
}

/* A refusal from the engine (the message names the file). */
static int fail_loaded(const tc_error *err) {
    fprintf(stderr, "tokcore: %s\n", err->msg);
    return EXIT_FAIL;
}

/* Loads the tokenizer of the options. `file` keeps the tokenizer file's
 * contents for `info` (NULL: freed here). Returns the exit status. */
static int load(const options *o, tc_tokenizer **tok, tc_file *keep) {
    tc_file f, m;
    tc_error err = {0};
    tc_preset preset;
    *tok = NULL;
    /* a GGUF (a model file of any size) is read from its header only */
    tc_buf head = {0};
    uint64_t size = 0;
    if (tc_file_read_head(o->tokenizer, SIZE_MAX, 4, &head, &size, &err) == TC_OK && head.len == 4 &&
        memcmp(head.data, "GGUF", 4) == 0) {
        tc_buf_free(&head);
        *tok = tc_load_gguf_file(o->tokenizer, !o->no_parse_special, &err);
        if (!*tok) {
            fprintf(stderr, "tokcore: %s\n", err.msg);
            return EXIT_FAIL;
        }
        if (keep) { memset(keep, 0, sizeof *keep); keep->len = (size_t)size; }
        return EXIT_OK;
    }
    tc_buf_free(&head);
    memset(&err, 0, sizeof err);
    if (read_file(o->tokenizer, &f) != 0) return EXIT_FAIL;
    tc_format fmt = tc_detect_format(f.data, f.len);
    int status = EXIT_OK;
    if (fmt == TC_FORMAT_HF_JSON) {
        if (o->preset || o->merges)
            fprintf(stderr, "tokcore: note: %s is a tokenizer.json; --preset/--merges ignored\n", o->tokenizer);
        *tok = tc_load_hf_json(f.data, f.len, &err);
    } else if (fmt == TC_FORMAT_VOCAB_JSON) {
        if (!o->merges) status = usage_error("%s is a vocab.json: pass its merges.txt with --merges", o->tokenizer);
        else if (pick_preset(o, TC_PRESET_GPT2, &preset) != 0) status = EXIT_USAGE;
        else if (read_file(o->merges, &m) != 0) status = EXIT_FAIL;
        else {
            *tok = tc_load_vocab_merges(f.data, f.len, m.data, m.len, preset, &err);
            tc_file_free(&m);
        }
    } else if (fmt == TC_FORMAT_VOCAB_BIN) {
        if (pick_preset(o, TC_PRESET_QWEN2, &preset) != 0) status = EXIT_USAGE;
        else *tok = tc_load_vocabbin(f.data, f.len, preset, &err);
    } else if (fmt == TC_FORMAT_TIKTOKEN) {
        if (pick_preset(o, TC_PRESET_QWEN2, &preset) != 0) status = EXIT_USAGE;
        else *tok = tc_load_tiktoken(f.data, f.len, preset, &err);
    } else if (fmt == TC_FORMAT_WORDPIECE_TXT ||
               (o->preset && (strcmp(o->preset, "bert-uncased") == 0 || strcmp(o->preset, "bert-cased") == 0))) {
        /* a plain WordPiece vocab.txt (detected, or named by its preset) */
        if (pick_preset(o, TC_PRESET_BERT_UNCASED, &preset) != 0) status = EXIT_USAGE;
        else *tok = tc_load_wordpiece_vocab(f.data, f.len, preset, &err);
    } else if (fmt == TC_FORMAT_MERGES_TXT) {
        fprintf(stderr, "tokcore: %s looks like a merges.txt: pass the vocab.json as --tokenizer and this file as --merges\n",
                o->tokenizer);
        status = EXIT_FAIL;
    } else if (fmt == TC_FORMAT_SPM_MODEL) {
        *tok = tc_load_spm_model(f.data, f.len, &err);
    } else if (fmt == TC_FORMAT_TEKKEN) {
        if (o->preset || o->merges)
            fprintf(stderr, "tokcore: note: %s is a Tekken tokenizer; --preset/--merges ignored\n", o->tokenizer);
        *tok = tc_load_tekken(f.data, f.len, &err);
    } else if (fmt == TC_FORMAT_GGUF) {   /* a GGUF shorter than its magic's 4 bytes cannot come here */
        *tok = tc_load_gguf_file(o->tokenizer, !o->no_parse_special, &err);
        if (!*tok) status = fail_loaded(&err);
    } else {
        tc_refuse_file(o->tokenizer, f.data, f.len, &err);
        status = fail_loaded(&err);
    }
    if (status == EXIT_OK && !*tok) {
        fprintf(stderr, "tokcore: %s: %s\n", o->tokenizer, err.msg[0] ? err.msg : "cannot load");
        status = EXIT_FAIL;
    }
    if (keep && status == EXIT_OK) *keep = f;
    else tc_file_free(&f);
    return status;
}

/* ---- encode --------------------------------------------------------------- */

static tc_encoder encoder_of(const options *o) {
    tc_encoder enc = TC_ENC_BPE;
    if (o->encoder) (void)tc_encoder_from_name(o->encoder, &enc);   /* checked when parsing */
    return enc;
}

/* Serves request lines until end of input. Each reply is built whole, then
 * written and flushed, so a failure never leaves half a line. */
/* flag: the command's default (encode: add_special_tokens; decode: skip) */
typedef void (*line_handler)(const tc_tokenizer *tok, const options *o, const tc_buf *line, int flag, tc_encoding *enc,
                             cli_out *w);

static int serve_lines(const tc_tokenizer *tok, const options *o, int flag, line_handler handle) {
    tc_buf line = {0};
    tc_encoding enc;
    cli_out w = {{0}, 0};
    int status = EXIT_OK, oom = 0, r;
    memset(&enc, 0, sizeof enc);
    while ((r = read_line(stdin, &line, &oom)) > 0) {
        w.b.len = 0; w.oom = 0;
        handle(tok, o, &line, flag, &enc, &w);
        if (w.oom) {
            w.b.len = 0; w.oom = 0;
            cli_put_error_object(&w, "out of memory");
        }
        if (flush_out(&w) != 0) { fputs("tokcore: cannot write to stdout\n", stderr); status = EXIT_FAIL; break; }
    }
    if (r < 0) {
        fputs(oom ? "tokcore: out of memory reading a line\n" : "tokcore: cannot read stdin\n", stderr);
        status = EXIT_FAIL;
    }
    tc_buf_free(&line);
    tc_buf_free(&w.b);
    tc_encoding_free(&enc);
    return status;
}

static void put_encode_json(const tc_tokenizer *tok, const tc_encoding *e, cli_out *w) {
    cli_puts(w, "{\"ids\":");
    cli_put_id_array(w, e);
    cli_puts(w, ",\"tokens\":[");
    for (size_t i = 0; i < e->n; i++) {
        size_t len = 0;
        const char *s = tc_id_to_token(tok, e->ids[i], &len);
        if (i) cli_put(w, ",", 1);
        if (s) cli_put_json_string(w, (const uint8_t *)s, len);
        else cli_puts(w, "null");
    }
    cli_puts(w, "],\"offsets\":");
    cli_put_span_array(w, e->char_offsets, e->n);
    cli_puts(w, ",\"byte_offsets\":");
    cli_put_span_array(w, e->offsets, e->n);
    cli_puts(w, "}\n");
}

static int encode_once(const tc_tokenizer *tok, const options *o) {
    tc_buf input = {0};
    tc_encoding enc;
    tc_error err = {0};
    cli_out w = {{0}, 0};
    int status = EXIT_FAIL;
    memset(&enc, 0, sizeof enc);
    if (o->npos == 1) {
        if (tc_buf_append(&input, o->pos[0], strlen(o->pos[0])) != 0) { fputs("tokcore: out of memory\n", stderr); goto done; }
    } else if (read_all(stdin, &input) != 0) {
        fputs("tokcore: cannot read stdin\n", stderr);
        goto done;
    }
    /* the plain output is the ids alone: the engine computes no offsets for it */
    if (tc_encode_flags(tok, input.data, input.len, !o->no_special, encoder_of(o), o->json ? 0u : TC_ENCODE_IDS_ONLY,
                        &enc, NULL, &err) != TC_OK) {
        fprintf(stderr, "tokcore: encode: %s\n", err.msg);
        goto done;
    }
    if (o->json) put_encode_json(tok, &enc, &w);
    else {
        for (size_t i = 0; i < enc.n; i++) {
            if (i) cli_put(&w, " ", 1);
            cli_put_u32(&w, enc.ids[i]);
        }
        cli_put(&w, "\n", 1);
    }
    if (w.oom) fputs("tokcore: out of memory\n", stderr);
    else if (flush_out(&w) != 0) fputs("tokcore: cannot write to stdout\n", stderr);
    else status = EXIT_OK;
done:
    tc_buf_free(&input);
    tc_buf_free(&w.b);
    tc_encoding_free(&enc);
    return status;
}


static void encode_handler(const tc_tokenizer *tok, const options *o, const tc_buf *line, int flag, tc_encoding *enc,
                           cli_out *w) {
    cli_encode_line(tok, encoder_of(o), line->data, line->len, flag, enc, w);
}

static int cmd_encode(const tc_tokenizer *tok, const options *o) {
    if (o->jsonl) return serve_lines(tok, o, !o->no_special, encode_handler);
    return encode_once(tok, o);
}

/* ---- decode --------------------------------------------------------------- */

/* Parses a decimal id (0..4294967295). Returns 0 or -1. */
static int parse_id(const char *s, size_t n, uint32_t *id) {
    uint64_t v = 0;
    if (n == 0 || n > 10) return -1;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v > UINT32_MAX) return -1;
    *id = (uint32_t)v;
    return 0;
}

static void decode_handler(const tc_tokenizer *tok, const options *o, const tc_buf *line, int skip, tc_encoding *unused,
                           cli_out *w) {
    (void)o; (void)unused;
    cli_decode_line(tok, line->data, line->len, skip, w);
}

/* ids from the arguments, or whitespace-separated on stdin. */
static int collect_ids(const options *o, uint32_t **ids, size_t *n, size_t *cap) {
    if (o->npos > 0) {
        for (int i = 0; i < o->npos; i++) {
            uint32_t id;
            if (parse_id(o->pos[i], strlen(o->pos[i]), &id) != 0) return usage_error("bad id %s", o->pos[i]);
            if (cli_push_id(ids, n, cap, id) != 0) { fputs("tokcore: out of memory\n", stderr); return EXIT_FAIL; }
        }
        return EXIT_OK;
    }
    tc_buf in = {0};
    int status = EXIT_OK;
    if (read_all(stdin, &in) != 0) { fputs("tokcore: cannot read stdin\n", stderr); status = EXIT_FAIL; }
    for (size_t i = 0; status == EXIT_OK && i < in.len;) {
        const char *s = (const char *)in.data;
        if (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' || s[i] == ',') { i++; continue; }
        size_t j = i;
        while (j < in.len && !(s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r' || s[j] == ','))
            j++;
        uint32_t id;
        if (parse_id(s + i, j - i, &id) != 0) {
            fprintf(stderr, "tokcore: bad id on stdin at byte %llu\n", (unsigned long long)i);
            status = EXIT_FAIL;
        } else if (cli_push_id(ids, n, cap, id) != 0) {
            fputs("tokcore: out of memory\n", stderr);
            status = EXIT_FAIL;
        }
        i = j;
    }
    tc_buf_free(&in);
    return status;
}

static int decode_once(const tc_tokenizer *tok, const options *o) {
    uint32_t *ids = NULL;
    size_t n = 0, cap = 0;
    tc_buf bytes = {0};
    tc_error err = {0};
    cli_out w = {{0}, 0};
    int status = collect_ids(o, &ids, &n, &cap);
    if (status == EXIT_OK && tc_decode(tok, ids, n, o->skip_special, &bytes, &err) != TC_OK) {
        fprintf(stderr, "tokcore: decode: %s\n", err.msg);
        status = EXIT_FAIL;
    }
    if (status == EXIT_OK) {
        cli_put_text_replaced(&w, bytes.data, bytes.len);
        if (w.oom) { fputs("tokcore: out of memory\n", stderr); status = EXIT_FAIL; }
        else if (flush_out(&w) != 0) { fputs("tokcore: cannot write to stdout\n", stderr); status = EXIT_FAIL; }
    }
    free(ids);
    tc_buf_free(&bytes);
    tc_buf_free(&w.b);
    return status;
}

static int cmd_decode(const tc_tokenizer *tok, const options *o) {
    if (o->jsonl) return serve_lines(tok, o, o->skip_special, decode_handler);
    return decode_once(tok, o);
}

/* ---- info ----------------------------------------------------------------- */

static void put_bool_member(cli_out *w, const char *key, int v) {
    cli_puts(w, ",\"");
    cli_puts(w, key);
    cli_puts(w, v ? "\":true" : "\":false");
}

static void put_added_tokens(cli_out *w, const tc_tokenizer *tok) {
    cli_puts(w, "\"added\":[");
    for (size_t i = 0; i < tc_added_count(tok); i++) {
        const tc_added_token_spec *a = tc_added_at(tok, i);
        if (i) cli_put(w, ",", 1);
        cli_puts(w, "{\"id\":");
        cli_put_u32(w, a->id);
        cli_puts(w, ",\"content\":");
        cli_put_json_string(w, (const uint8_t *)a->content, a->content_len);
        put_bool_member(w, "special", a->special);
        put_bool_member(w, "lstrip", a->lstrip);
        put_bool_member(w, "rstrip", a->rstrip);
        put_bool_member(w, "single_word", a->single_word);
        put_bool_member(w, "normalized", a->normalized);
        cli_put(w, "}", 1);
    }
    cli_put(w, "]", 1);
}

static void put_file_members(cli_out *w, const char *prefix, const char *path, const tc_file *f) {
    char hex[65];
    if (!f->data && f->len) {   /* a GGUF: its header only was read, no sha256 of a model's gigabytes */
        cli_puts(w, "\""); cli_puts(w, prefix); cli_puts(w, "path\":");
        cli_put_json_string(w, (const uint8_t *)path, strlen(path));
        cli_puts(w, ",\""); cli_puts(w, prefix); cli_puts(w, "size\":");
        cli_put_size(w, f->len);
        cli_puts(w, ",");
        return;
    }
    sha256_hex(f->data, f->len, hex);
    cli_puts(w, "\""); cli_puts(w, prefix); cli_puts(w, "path\":");
    cli_put_json_string(w, (const uint8_t *)path, strlen(path));
    cli_puts(w, ",\""); cli_puts(w, prefix); cli_puts(w, "size\":");
    cli_put_size(w, f->len);
    cli_puts(w, ",\""); cli_puts(w, prefix); cli_puts(w, "sha256\":\"");
    cli_puts(w, hex);
    cli_puts(w, "\",");
}

/* tc_describe's object with path, size, sha256 (of the merges file too
 * when there is one) and the added tokens appended as further members. */
static int cmd_info(const tc_tokenizer *tok, const options *o, const tc_file *f) {
    const char *d = tc_describe(tok);
    const char *close = strrchr(d, '}');
    cli_out w = {{0}, 0};
    tc_file m;
    if (!close || d[0] != '{') { fputs("tokcore: engine description is not a JSON object\n", stderr); return EXIT_FAIL; }
    cli_put(&w, d, (size_t)(close - d));
    const char *p = d + 1;
    while (p < close && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')) p++;
    if (p < close) cli_put(&w, ",", 1);
    put_file_members(&w, "", o->tokenizer, f);
    if (o->merges && tc_detect_format(f->data, f->len) == TC_FORMAT_VOCAB_JSON) {
        if (read_file(o->merges, &m) != 0) { tc_buf_free(&w.b); return EXIT_FAIL; }
        put_file_members(&w, "merges_", o->merges, &m);
        tc_file_free(&m);
    }
    put_added_tokens(&w, tok);
    cli_puts(&w, "}\n");
    int status = EXIT_OK;
    if (w.oom) { fputs("tokcore: out of memory\n", stderr); status = EXIT_FAIL; }
    else if (flush_out(&w) != 0) { fputs("tokcore: cannot write to stdout\n", stderr); status = EXIT_FAIL; }
    tc_buf_free(&w.b);
    return status;
}

/* ---- main ----------------------------------------------------------------- */

int main(int argc, char **argv) {
    tc_stdio_binary();
    if (argc < 2) { fputs(USAGE, stderr); return EXIT_USAGE; }
    const char *cmd = argv[1];
    if (is_flag(cmd, "--help") || is_flag(cmd, "-h") || is_flag(cmd, "help")) { fputs(USAGE, stdout); return EXIT_OK; }
    if (is_flag(cmd, "version") || is_flag(cmd, "--version")) { printf("tokcore %s\n", TC_VERSION); return EXIT_OK; }
    if (is_flag(cmd, "sample")) return tokcore_sample_main(argc, argv);
    if (!is_flag(cmd, "encode") && !is_flag(cmd, "decode") && !is_flag(cmd, "info"))
        return usage_error("unknown command %s", cmd);
    for (int i = 2; i < argc; i++)
        if (is_flag(argv[i], "--help") || is_flag(argv[i], "-h")) { fputs(USAGE, stdout); return EXIT_OK; }

    options o;
    int status = parse_args(argc, argv, &o);
    tc_tokenizer *tok = NULL;
    tc_file file;
    if (status == EXIT_OK) status = load(&o, &tok, is_flag(cmd, "info") ? &file : NULL);
    if (status == EXIT_OK && is_flag(cmd, "encode")) {
        tc_error err = {0};
        if (tc_prepare(tok, encoder_of(&o), &err) != TC_OK) {
            fprintf(stderr, "tokcore: --encoder %s: %s\n", o.encoder, err.msg);
            status = EXIT_FAIL;
        }
    }
    if (status == EXIT_OK) {
        if (is_flag(cmd, "encode")) status = cmd_encode(tok, &o);
        else if (is_flag(cmd, "decode")) status = cmd_decode(tok, &o);
        else {
            status = cmd_info(tok, &o, &file);
            tc_file_free(&file);
        }
    }
    tc_free(tok);
    free(o.pos);
    return status;
}
