/* probe.c - "the board's own tokenizer" of the test board.
 *
 * usage: probe [-e ENCODER] [--whole] TOKENIZER [FILE]
 * Loads TOKENIZER (vocab.bin with the qwen2 preset, or a tokenizer.json),
 * reads lines from FILE (or stdin when absent) and prints, per line, the
 * ids of the encoder (default greedy, the longest prefix match; -e
 * kestrel-v1 or kestrel-v2 makes it behave as that board engine) separated
 * by single spaces, one output line per input line, flushed per line. The
 * line's '\n' is not part of the text; no special tokens are added.
 * --whole: all of the input is one text (one output line).
 * Exit status: 0 ok, 1 load/read/encode failure, 2 usage.
 */
#include <stdio.h>
#include <string.h>

#include "platform.h"
#include "tokcore.h"

static int read_line(FILE *in, tc_buf *line, int whole) {
    line->len = 0;
    int c = getc(in);
    if (c == EOF) return 0;
    while (c != EOF && (whole || c != '\n')) {
        if (tc_buf_push(line, (uint8_t)c) != 0) return -1;
        c = getc(in);
    }
    return 1;
}

int main(int argc, char **argv) {
    tc_encoder encoder = TC_ENC_GREEDY;
    int whole = 0, a = 1;
    for (; a < argc && argv[a][0] == '-'; a++) {
        if (strcmp(argv[a], "--whole") == 0) whole = 1;
        else if (strcmp(argv[a], "-e") == 0 && a + 1 < argc && tc_encoder_from_name(argv[a + 1], &encoder) == 0) a++;
        else break;
    }
    argc -= a - 1;
    argv += a - 1;
    if (argc < 2 || argc > 3) {
        fputs("usage: probe [-e ENCODER] [--whole] TOKENIZER [FILE]\n", stderr);
        return 2;
    }
    tc_file f;
    tc_error err = {0};
    if (tc_file_read(argv[1], (size_t)1 << 30, &f, &err) != TC_OK) {
        fprintf(stderr, "probe: %s\n", err.msg);
        return 1;
    }
    tc_tokenizer *tok = NULL;
    tc_format fmt = tc_detect_format(f.data, f.len);
    if (fmt == TC_FORMAT_VOCAB_BIN) tok = tc_load_vocabbin(f.data, f.len, TC_PRESET_QWEN2, &err);
    else if (fmt == TC_FORMAT_HF_JSON) tok = tc_load_hf_json(f.data, f.len, &err);
    else tc_error_set(&err, TC_ERR_FORMAT, "%s: not a vocab.bin or tokenizer.json", argv[1]);
    tc_file_free(&f);
    if (!tok || tc_prepare(tok, encoder, &err) != TC_OK) {
        fprintf(stderr, "probe: %s\n", err.msg);
        tc_free(tok);
        return 1;
    }
    FILE *in = stdin;
    if (argc == 3 && !(in = fopen(argv[2], "rb"))) {
        fprintf(stderr, "probe: cannot open %s\n", argv[2]);
        tc_free(tok);
        return 1;
    }
    tc_buf line = {0};
    tc_encoding enc;
    memset(&enc, 0, sizeof enc);
    int status = 0, r;
    while ((r = read_line(in, &line, whole)) > 0) {
        if (tc_encode_ex(tok, line.data, line.len, 0, encoder, &enc, NULL, &err) != TC_OK) {
            fprintf(stderr, "probe: encode: %s\n", err.msg);
            status = 1;
            break;
        }
        for (size_t i = 0; i < enc.n; i++) printf(i ? " %lu" : "%lu", (unsigned long)enc.ids[i]);
        putchar('\n');
        fflush(stdout);
    }
    if (r < 0) { fputs("probe: out of memory\n", stderr); status = 1; }
    if (in != stdin) fclose(in);
    tc_buf_free(&line);
    tc_encoding_free(&enc);
    tc_free(tok);
    return status;
}
