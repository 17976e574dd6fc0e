/* request.c - the tokcore CLI's JSON Lines requests and replies (request.h). */
#include "request.h"

#include <stdio.h>

void cli_put(cli_out *w, const void *p, size_t n) {
    if (!w->oom && tc_buf_append(&w->b, p, n) != 0) w->oom = 1;
}

void cli_puts(cli_out *w, const char *s) { cli_put(w, s, strlen(s)); }

void cli_put_u32(cli_out *w, uint32_t v) {
    char tmp[16];
    int n = snprintf(tmp, sizeof tmp, "%lu", (unsigned long)v);
    cli_put(w, tmp, (size_t)n);
}

void cli_put_size(cli_out *w, size_t v) {
    char tmp[32];
    int n = snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)v);
    cli_put(w, tmp, (size_t)n);
}

/* Length of the well-formed UTF-8 sequence at s[i] (1..4), or, when it is
 * ill-formed, minus the length of its maximal subpart (Unicode 3.9 / the
 * WHATWG decoder, which Python's errors='replace' follows): each maximal
 * subpart becomes one U+FFFD. */
static int utf8_unit(const uint8_t *s, size_t len, size_t i) {
    uint8_t c = s[i];
    if (c < 0x80) return 1;
    int need;
    uint8_t lo = 0x80, hi = 0xBF;  /* allowed range of the second byte */
    if (c >= 0xC2 && c <= 0xDF) need = 1;
    else if (c >= 0xE0 && c <= 0xEF) { need = 2; if (c == 0xE0) lo = 0xA0; if (c == 0xED) hi = 0x9F; }
    else if (c >= 0xF0 && c <= 0xF4) { need = 3; if (c == 0xF0) lo = 0x90; if (c == 0xF4) hi = 0x8F; }
    else return -1;
    for (int k = 1; k <= need; k++) {
        if (i + (size_t)k >= len) return -k;
        uint8_t b = s[i + (size_t)k];
        if (k == 1 ? (b < lo || b > hi) : (b & 0xC0) != 0x80) return -k;
    }
    return need + 1;
}

/* A JSON string of s[0..len): UTF-8 kept as is, ill-formed sequences
 * replaced by U+FFFD, quotes, backslashes and control characters escaped. */
void cli_put_json_string(cli_out *w, const uint8_t *s, size_t len) {
    static const char hex[] = "0123456789abcdef";
    cli_put(w, "\"", 1);
    size_t i = 0;
    while (i < len) {
        int n = utf8_unit(s, len, i);
        if (n < 0) { cli_put(w, "\xEF\xBF\xBD", 3); i += (size_t)-n; continue; }
        uint8_t c = s[i];
        if (n > 1) { cli_put(w, s + i, (size_t)n); i += (size_t)n; continue; }
        i++;
        if (c == '"') cli_put(w, "\\\"", 2);
        else if (c == '\\') cli_put(w, "\\\\", 2);
        else if (c == '\n') cli_put(w, "\\n", 2);
        else if (c == '\r') cli_put(w, "\\r", 2);
        else if (c == '\t') cli_put(w, "\\t", 2);
        else if (c < 0x20) { char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]}; cli_put(w, e, 6); }
        else cli_put(w, &c, 1);
    }
    cli_put(w, "\"", 1);
}

static void json_cstr(cli_out *w, const char *s) { cli_put_json_string(w, (const uint8_t *)s, strlen(s)); }

/* Raw text with ill-formed UTF-8 replaced by U+FFFD (decode's plain output). */
void cli_put_text_replaced(cli_out *w, const uint8_t *s, size_t len) {
    size_t i = 0;
    while (i < len) {
        int n = utf8_unit(s, len, i);
        if (n < 0) { cli_put(w, "\xEF\xBF\xBD", 3); i += (size_t)-n; continue; }
        cli_put(w, s + i, (size_t)n);
        i += (size_t)n;
    }
}

void cli_put_hex(cli_out *w, const uint8_t *s, size_t len) {
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < len; i++) { char e[2] = {hex[s[i] >> 4], hex[s[i] & 15]}; cli_put(w, e, 2); }
}

void cli_put_error_object(cli_out *w, const char *msg) {
    cli_puts(w, "{\"error\":");
    json_cstr(w, msg);
    cli_puts(w, "}\n");
}

void cli_put_id_array(cli_out *w, const tc_encoding *e) {
    cli_put(w, "[", 1);
    for (size_t i = 0; i < e->n; i++) {
        if (i) cli_put(w, ",", 1);
        cli_put_u32(w, e->ids[i]);
    }
    cli_put(w, "]", 1);
}

void cli_put_span_array(cli_out *w, const uint32_t *spans, size_t n) {
    cli_put(w, "[", 1);
    for (size_t i = 0; i < n; i++) {
        cli_put(w, i ? ",[" : "[", i ? 2 : 1);
        cli_put_u32(w, spans[2 * i]);
        cli_put(w, ",", 1);
        cli_put_u32(w, spans[2 * i + 1]);
        cli_put(w, "]", 1);
    }
    cli_put(w, "]", 1);
}

/* Whether member m's key is exactly `name`: the decoded key may hold an
 * escaped NUL ("text\u0000junk"), so its length decides, not strcmp. */
static int key_is(const tc_json_member *m, const char *name) {
    size_t n = strlen(name);
    return m->key_len == n && memcmp(m->key, name, n) == 0;
}

/* An unknown key for an error message: at most 60 bytes, NULs shown as \u0000. */
static const char *key_for_message(const tc_json_member *m, char *out, size_t cap) {
    size_t o = 0;
    for (uint32_t i = 0; i < m->key_len && i < 60 && o + 7 < cap; i++) {
        if (m->key[i] == '\0') { memcpy(out + o, "\\u0000", 6); o += 6; }
        else out[o++] = m->key[i];
    }
    out[o] = '\0';
    return out;
}

/* One encode request line -> text and add_special_tokens, or an error
 * message in err. The text points into doc. */
int cli_parse_encode_request(const tc_json *root, int *add_special, const char **text, size_t *len,
                             tc_error *err) {
    if (root->type == TC_JSON_STRING) {
        *text = root->u.str.s; *len = root->u.str.len;
        return TC_OK;
    }
    if (root->type != TC_JSON_OBJECT)
        return tc_error_set(err, TC_ERR_ARG, "expected a JSON string or an object {\"text\": ...}");
    const tc_json *t = NULL;
    char kbuf[400];
    for (uint32_t i = 0; i < root->u.obj.n; i++) {
        const tc_json_member *m = &root->u.obj.members[i];
        if (key_is(m, "text") && m->value.type == TC_JSON_STRING) t = &m->value;
        else if (key_is(m, "text")) return tc_error_set(err, TC_ERR_ARG, "\"text\" must be a string");
        else if (key_is(m, "add_special_tokens") && m->value.type == TC_JSON_TRUE) *add_special = 1;
        else if (key_is(m, "add_special_tokens") && m->value.type == TC_JSON_FALSE) *add_special = 0;
        else if (key_is(m, "add_special_tokens"))
            return tc_error_set(err, TC_ERR_ARG, "\"add_special_tokens\" must be true or false");
        else return tc_error_set(err, TC_ERR_ARG, "unknown key \"%s\" (expected text, add_special_tokens)", key_for_message(m, kbuf, sizeof kbuf));
    }
    if (!t) return tc_error_set(err, TC_ERR_ARG, "missing \"text\"");
    *text = t->u.str.s; *len = t->u.str.len;
    return TC_OK;
}

/* Encodes one JSON request line into w (a result or an error object). */
void cli_encode_line(const tc_tokenizer *tok, tc_encoder encoder, const uint8_t *line, size_t line_len, int add_special,
                     tc_encoding *enc, cli_out *w) {
    tc_error err = {0};
    tc_json_doc *doc = tc_json_parse((const char *)line, line_len, &err);
    const char *text = NULL;
    size_t len = 0;
    if (doc && cli_parse_encode_request(tc_json_root(doc), &add_special, &text, &len, &err) == TC_OK &&
        tc_encode_ex(tok, (const uint8_t *)text, len, add_special, encoder, enc, NULL, &err) == TC_OK) {
        cli_puts(w, "{\"ids\":");
        cli_put_id_array(w, enc);
        cli_puts(w, ",\"offsets\":");
        cli_put_span_array(w, enc->char_offsets, enc->n);
        cli_puts(w, "}\n");
    } else {
        cli_put_error_object(w, err.msg[0] ? err.msg : "failed");
    }
    tc_json_free(doc);
}

int cli_push_id(uint32_t **ids, size_t *n, size_t *cap, uint32_t id) {
    void *p = *ids;
    if (tc_grow(&p, cap, *n + 1, sizeof **ids) != 0) return -1;
    *ids = p;
    (*ids)[(*n)++] = id;
    return 0;
}

/* ids from a JSON array (or {"ids": [...], "skip_special_tokens": bool}). */
int cli_parse_decode_request(const tc_json *root, int *skip, uint32_t **ids, size_t *n, size_t *cap,
                             tc_error *err) {
    const tc_json *arr = root;
    if (root->type == TC_JSON_OBJECT) {
        arr = NULL;
        char kbuf[400];
        for (uint32_t i = 0; i < root->u.obj.n; i++) {
            const tc_json_member *m = &root->u.obj.members[i];
            if (key_is(m, "ids")) arr = &m->value;
            else if (key_is(m, "skip_special_tokens") && m->value.type == TC_JSON_TRUE) *skip = 1;
            else if (key_is(m, "skip_special_tokens") && m->value.type == TC_JSON_FALSE) *skip = 0;
            else if (key_is(m, "skip_special_tokens"))
                return tc_error_set(err, TC_ERR_ARG, "\"skip_special_tokens\" must be true or false");
            else return tc_error_set(err, TC_ERR_ARG, "unknown key \"%s\" (expected ids, skip_special_tokens)", key_for_message(m, kbuf, sizeof kbuf));
        }
        if (!arr) return tc_error_set(err, TC_ERR_ARG, "missing \"ids\"");
    }
    if (arr->type != TC_JSON_ARRAY) return tc_error_set(err, TC_ERR_ARG, "expected a JSON array of ids");
    for (uint32_t i = 0; i < arr->u.arr.n; i++) {
        const tc_json *v = &arr->u.arr.items[i];
        if (v->type != TC_JSON_NUMBER || !v->u.num.is_int || v->u.num.i < 0 || v->u.num.i > (int64_t)UINT32_MAX)
            return tc_error_set(err, TC_ERR_ARG, "id %lu is not an integer in 0..4294967295", (unsigned long)i);
        if (cli_push_id(ids, n, cap, (uint32_t)v->u.num.i) != 0) return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    }
    return TC_OK;
}

void cli_decode_line(const tc_tokenizer *tok, const uint8_t *line, size_t len, int skip, cli_out *w) {
    tc_error err = {0};
    uint32_t *ids = NULL;
    size_t n = 0, cap = 0;
    tc_buf bytes = {0};
    tc_json_doc *doc = tc_json_parse((const char *)line, len, &err);
    if (doc && cli_parse_decode_request(tc_json_root(doc), &skip, &ids, &n, &cap, &err) == TC_OK &&
        tc_decode(tok, ids, n, skip, &bytes, &err) == TC_OK) {
        cli_puts(w, "{\"text\":");
        cli_put_json_string(w, bytes.data, bytes.len);
        cli_puts(w, ",\"bytes_hex\":\"");
        cli_put_hex(w, bytes.data, bytes.len);
        cli_puts(w, "\"}\n");
    } else {
        cli_put_error_object(w, err.msg[0] ? err.msg : "failed");
    }
    tc_json_free(doc);
    free(ids);
    tc_buf_free(&bytes);
}

