/* fuzz_jsonl.c - the tokcore --jsonl line handling (native/cli/request.c, the
 * same functions the CLI calls): one request line in, one reply line out.
 * Byte 0: tokenizer (bits 0-1), encoder (bits 2-3), decode instead of encode
 * (bit 4), the command's default flag (bit 5). Every reply must be one line
 * of valid JSON (checked with the engine's own strict reader). */
#include "json.h"
#include "request.h"
#include "tiny.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    tiny_set *s = tiny_get();
    uint8_t sel = data[0];
    int t = sel & 3, k = (sel >> 2) & 3, dec = (sel >> 4) & 1, flag = (sel >> 5) & 1;
    if (k == 3) k = 0;
    if (!s->prepared[t][k]) return 0;
    size_t len = size - 1;
    uint8_t *line = malloc(len ? len : 1);
    if (!line) return 0;
    memcpy(line, data + 1, len);
    cli_out w = {{0}, 0};
    tc_encoding enc;
    memset(&enc, 0, sizeof enc);
    if (dec) cli_decode_line(s->tok[t], line, len, flag, &w);
    else cli_encode_line(s->tok[t], (tc_encoder)k, line, len, flag, &enc, &w);
    FUZZ_CHECK(!w.oom);
    FUZZ_CHECK(w.b.len > 1 && w.b.data[w.b.len - 1] == '\n');
    FUZZ_CHECK(memchr(w.b.data, '\n', w.b.len - 1) == NULL);
    tc_error err = {0};
    tc_json_doc *reply = tc_json_parse((const char *)w.b.data, w.b.len, &err);
    if (!reply) { fprintf(stderr, "reply is not JSON: %s\n%.*s", err.msg, (int)w.b.len, (const char *)w.b.data); abort(); }
    FUZZ_CHECK(tc_json_root(reply)->type == TC_JSON_OBJECT);
    tc_json_free(reply);
    /* the plain-text writer of decode (no --jsonl) on the raw line */
    w.b.len = 0;
    cli_put_text_replaced(&w, line, len);
    tc_buf_free(&w.b);
    tc_encoding_free(&enc);
    free(line);
    return 0;
}
