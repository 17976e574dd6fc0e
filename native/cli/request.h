/* request.h - the tokcore CLI's JSON Lines requests and replies.
 *
 * Does: parse one --jsonl request line with the engine's strict JSON reader
 * and interpret it (encode: a string or {"text", "add_special_tokens"};
 * decode: an array of ids or {"ids", "skip_special_tokens"}), run it on a
 * handle and build the whole reply line ({"ids","offsets"} / {"text",
 * "bytes_hex"} / {"error"}) in a buffer; the JSON string writer with U+FFFD
 * for ill-formed UTF-8 that every reply uses.
 * Does not: read stdin or write stdout (tokcore.c does), so the fuzz
 * harness (tests/native/fuzz/fuzz_jsonl.c) drives exactly the CLI's code.
 */
#ifndef TC_CLI_REQUEST_H
#define TC_CLI_REQUEST_H

#include "../src/json.h"
#include "../src/tokcore.h"

/* Output buffer with a sticky out-of-memory flag. */
typedef struct cli_out {
    tc_buf b;
    int oom;
} cli_out;

void cli_put(cli_out *w, const void *p, size_t n);
void cli_puts(cli_out *w, const char *s);
void cli_put_u32(cli_out *w, uint32_t v);
void cli_put_size(cli_out *w, size_t v);
/* A JSON string of s[0..len): UTF-8 kept, each maximal ill-formed subpart
 * replaced by U+FFFD, quotes, backslashes and control characters escaped. */
void cli_put_json_string(cli_out *w, const uint8_t *s, size_t len);
/* Raw text with ill-formed UTF-8 replaced by U+FFFD. */
void cli_put_text_replaced(cli_out *w, const uint8_t *s, size_t len);
void cli_put_hex(cli_out *w, const uint8_t *s, size_t len);
void cli_put_error_object(cli_out *w, const char *msg);
void cli_put_id_array(cli_out *w, const tc_encoding *e);
void cli_put_span_array(cli_out *w, const uint32_t *spans, size_t n);

/* Appends id to a growable array. 0 or -1 (out of memory). */
int cli_push_id(uint32_t **ids, size_t *n, size_t *cap, uint32_t id);

/* Interpret a parsed request. The text points into the parse tree; ids are
 * appended to the growable array. TC_OK or an error (TC_ERR_ARG) in err. */
int cli_parse_encode_request(const tc_json *root, int *add_special, const char **text, size_t *len, tc_error *err);
int cli_parse_decode_request(const tc_json *root, int *skip, uint32_t **ids, size_t *n, size_t *cap, tc_error *err);

/* One request line (line[0..len), without its '\n') -> one reply line
 * (with '\n') appended to w. add_special / skip is the command's default.
 * enc is reusable scratch (zero-initialized, freed by the caller). */
void cli_encode_line(const tc_tokenizer *tok, tc_encoder encoder, const uint8_t *line, size_t len, int add_special,
                     tc_encoding *enc, cli_out *w);
void cli_decode_line(const tc_tokenizer *tok, const uint8_t *line, size_t len, int skip, cli_out *w);

#endif
