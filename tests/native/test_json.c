/* test_json.c - unit tests for native/src/json.c.
 *
 * Build (from the repository root):
 *   gcc -std=c11 -Wall -Wextra -Werror -O2 -Inative/src \
 *       tests/native/test_json.c native/src/common.c -lm -o /tmp/test_json
 *   /tmp/test_json [path/to/tokenizer.json]
 *
 * json.c is included directly so allocation failures can be injected
 * through its TC_JSON_MALLOC/REALLOC/FREE hooks. With a path argument the
 * file is parsed too and the parse time is printed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- allocation failure injection (test-only state) -------------------- */
static long g_fail_at = -1; /* index of the allocation to fail, -1: never */
static long g_alloc_count = 0;
static long g_live = 0;      /* outstanding blocks through the hooks */

static void *t_malloc(size_t n) {
    if (g_fail_at >= 0 && g_alloc_count++ == g_fail_at) return NULL;
    void *p = malloc(n);
    if (p) g_live++;
    return p;
}
static void *t_realloc(void *p, size_t n) {
    if (g_fail_at >= 0 && g_alloc_count++ == g_fail_at) return NULL;
    void *q = realloc(p, n);
    if (q && !p) g_live++;
    return q;
}
static void t_free(void *p) {
    if (p) g_live--;
    free(p);
}
#define TC_JSON_MALLOC(n) t_malloc(n)
#define TC_JSON_REALLOC(p, n) t_realloc((p), (n))
#define TC_JSON_FREE(p) t_free(p)
#include "json.c"

/* ---- harness ------------------------------------------------------------ */
static int g_pass = 0, g_fail = 0;

#define CHECK(cond)                                                                 \
    do {                                                                            \
        if (cond) g_pass++;                                                         \
        else { g_fail++; fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); } \
    } while (0)

#define CHECKF(cond, ...)                                                           \
    do {                                                                            \
        if (cond) g_pass++;                                                         \
        else {                                                                      \
            g_fail++;                                                               \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);         \
            fprintf(stderr, __VA_ARGS__);                                           \
            fputc('\n', stderr);                                                    \
        }                                                                           \
    } while (0)

static double now_ms(void) {
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static tc_json_doc *parse_s(const char *s, tc_error *e) { return tc_json_parse(s, strlen(s), e); }

/* Parses src (length n) expecting an error with code, byte offset and a
 * reason containing `reason` (and path `path` if not NULL). */
static void expect_err_n(const char *src, size_t n, int code, size_t offset, const char *reason, const char *path,
                         int line) {
    tc_error e;
    tc_json_doc *d = tc_json_parse(src, n, &e);
    char want[64];
    snprintf(want, sizeof want, "at byte %zu ", offset);
    int ok = d == NULL && e.code == code && strstr(e.msg, want) != NULL && strstr(e.msg, reason) != NULL;
    if (ok && path) {
        char pw[256];
        snprintf(pw, sizeof pw, " in %s: ", path);
        ok = strstr(e.msg, pw) != NULL;
    }
    if (ok) g_pass++;
    else {
        g_fail++;
        fprintf(stderr, "FAIL line %d: input %.*s\n  want code %d offset %zu reason '%s' path %s\n  got  code %d: %s\n",
                line, (int)(n > 60 ? 60 : n), src, code, offset, reason, path ? path : "-", d ? 0 : e.code,
                d ? "(parsed)" : e.msg);
    }
    tc_json_free(d);
}
#define EXPECT_ERR(src, code, off, reason) expect_err_n(src, strlen(src), code, off, reason, NULL, __LINE__)
#define EXPECT_ERRP(src, code, off, reason, path) expect_err_n(src, strlen(src), code, off, reason, path, __LINE__)

/* ---- valid documents ---------------------------------------------------- */

static void test_scalars(void) {
    tc_error e;
    tc_json_doc *d;
    const tc_json *r;

    d = parse_s(" null ", &e);
    CHECK(d && e.code == TC_OK && tc_json_root(d)->type == TC_JSON_NULL && tc_json_root(d)->offset == 1);
    tc_json_free(d);
    d = parse_s("true", &e);
    CHECK(d && tc_json_root(d)->type == TC_JSON_TRUE);
    tc_json_free(d);
    d = parse_s("\t\r\nfalse\n", &e);
    CHECK(d && tc_json_root(d)->type == TC_JSON_FALSE && tc_json_root(d)->offset == 3);
    tc_json_free(d);

    struct { const char *s; int is_int; int64_t i; double dv; } nums[] = {
        {"0", 1, 0, 0.0},
        {"-0", 1, 0, -0.0},
        {"42", 1, 42, 42.0},
        {"-17", 1, -17, -17.0},
        {"151643", 1, 151643, 151643.0},
        {"9223372036854775807", 1, INT64_MAX, 9223372036854775807.0},
        {"-9223372036854775808", 1, INT64_MIN, -9223372036854775808.0},
        {"9223372036854775808", 0, 0, 9223372036854775808.0},
        {"-9223372036854775809", 0, 0, -9223372036854775809.0},
        {"123456789012345678901234567890", 0, 0, 123456789012345678901234567890.0},
        {"1.5", 0, 0, 1.5},
        {"-0.25", 0, 0, -0.25},
        {"1e3", 0, 0, 1000.0},
        {"1E+2", 0, 0, 100.0},
        {"25e-1", 0, 0, 2.5},
        {"0.1", 0, 0, 0.1},
        {"1e-400", 0, 0, 0.0},
        {"1.7976931348623157e308", 0, 0, 1.7976931348623157e308},
    };
    for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++) {
        d = parse_s(nums[k].s, &e);
        r = tc_json_root(d);
        int ok = d && r->type == TC_JSON_NUMBER && r->u.num.is_int == nums[k].is_int && r->u.num.d == nums[k].dv &&
                 (!nums[k].is_int || r->u.num.i == nums[k].i);
        CHECKF(ok, "number %s: %s", nums[k].s, d ? "wrong value" : e.msg);
        tc_json_free(d);
    }
    d = parse_s("-0", &e);
    CHECK(d && signbit(tc_json_root(d)->u.num.d));
    tc_json_free(d);
}

static void test_strings(void) {
    tc_error e;
    struct { const char *src; const char *want; size_t wlen; } cases[] = {
        {"\"\"", "", 0},
        {"\"abc\"", "abc", 3},
        {"\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"", "a\"b\\c/d\b\f\n\r\t", 12},
        {"\"\\u00e9\\u00E9\"", "\xc3\xa9\xc3\xa9", 4},
        {"\"\\u20ac\"", "\xe2\x82\xac", 3},
        {"\"\\ud83d\\ude00\"", "\xf0\x9f\x98\x80", 4},     /* surrogate pair */
        {"\"\\uD83D\\uDE00x\"", "\xf0\x9f\x98\x80x", 5},
        {"\"\\udbff\\udfff\"", "\xf4\x8f\xbf\xbf", 4},     /* U+10FFFF */
        {"\"a\\u0000b\"", "a\0b", 3},                      /* embedded NUL */
        {"\"\xc4\xa0the\"", "\xc4\xa0the", 5},             /* raw UTF-8 */
        {"\"\xf0\x9f\x98\x80\xe2\x82\xac\xef\xbf\xbf\"", "\xf0\x9f\x98\x80\xe2\x82\xac\xef\xbf\xbf", 10},
        {"\"\xc4\xa0\\n\xc4\xa0\"", "\xc4\xa0\n\xc4\xa0", 5},
        {"\"\x7f\"", "\x7f", 1},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tc_json_doc *d = parse_s(cases[k].src, &e);
        const tc_json *r = tc_json_root(d);
        int ok = d && r->type == TC_JSON_STRING && r->u.str.len == cases[k].wlen &&
                 memcmp(r->u.str.s, cases[k].want, cases[k].wlen) == 0 && r->u.str.s[cases[k].wlen] == 0;
        CHECKF(ok, "string case %zu %s: %s", k, cases[k].src, d ? "wrong value" : e.msg);
        tc_json_free(d);
    }
}

static void test_containers(void) {
    tc_error e;
    const char *src = "{\n  \"a\": [1, 2.5, \"x\", null, true, false, [], {}],\n  \"b\": {\"c\": {\"d\": -3}},\n"
                      "  \"\": 0, \"k\\u00e9y\": \"v\"\n}";
    char *copy = malloc(strlen(src) + 1);
    strcpy(copy, src);
    tc_json_doc *d = parse_s(copy, &e);
    CHECKF(d != NULL, "%s", e.msg);
    if (!d) { free(copy); return; }
    memset(copy, 'X', strlen(copy)); /* tree must not point into the source */
    free(copy);
    const tc_json *r = tc_json_root(d);
    CHECK(r->type == TC_JSON_OBJECT && r->u.obj.n == 4 && r->offset == 0);
    CHECK(strcmp(r->u.obj.members[0].key, "a") == 0 && r->u.obj.members[0].key_len == 1);
    const tc_json *a = tc_json_get(r, "a");
    CHECK(a && a->type == TC_JSON_ARRAY && a->u.arr.n == 8 && a->offset == 9);
    if (a && a->u.arr.n == 8) {
        CHECK(a->u.arr.items[0].u.num.i == 1 && a->u.arr.items[0].offset == 10);
        CHECK(a->u.arr.items[1].u.num.d == 2.5 && !a->u.arr.items[1].u.num.is_int);
        CHECK(a->u.arr.items[2].type == TC_JSON_STRING && strcmp(a->u.arr.items[2].u.str.s, "x") == 0);
        CHECK(a->u.arr.items[3].type == TC_JSON_NULL && a->u.arr.items[4].type == TC_JSON_TRUE &&
              a->u.arr.items[5].type == TC_JSON_FALSE);
        CHECK(a->u.arr.items[6].type == TC_JSON_ARRAY && a->u.arr.items[6].u.arr.n == 0);
        CHECK(a->u.arr.items[7].type == TC_JSON_OBJECT && a->u.arr.items[7].u.obj.n == 0);
    }
    const tc_json *dd = tc_json_get(tc_json_get(tc_json_get(r, "b"), "c"), "d");
    CHECK(dd && dd->u.num.is_int && dd->u.num.i == -3);
    CHECK(tc_json_get(r, "") && tc_json_get(r, "")->u.num.i == 0);
    CHECK(tc_json_get(r, "k\xc3\xa9y") && strcmp(tc_json_get(r, "k\xc3\xa9y")->u.str.s, "v") == 0);
    CHECK(tc_json_get(r, "zz") == NULL && tc_json_get(a, "a") == NULL && tc_json_get(NULL, "a") == NULL);

    char path[128];
    CHECK(tc_json_path(d, dd, path, sizeof path) == 0 && strcmp(path, "$.b.c.d") == 0);
    CHECK(tc_json_path(d, &a->u.arr.items[6], path, sizeof path) == 0 && strcmp(path, "$.a[6]") == 0);
    CHECK(tc_json_path(d, tc_json_get(r, "k\xc3\xa9y"), path, sizeof path) == 0 &&
          strcmp(path, "$[\"k\xc3\xa9y\"]") == 0);
    CHECK(tc_json_path(d, tc_json_get(r, ""), path, sizeof path) == 0 && strcmp(path, "$[\"\"]") == 0);
    CHECK(tc_json_path(d, r, path, sizeof path) == 0 && strcmp(path, "$") == 0);
    CHECK(tc_json_path(d, dd, path, 5) == 0 && strcmp(path, "$.b.") == 0); /* truncated */
    tc_json other;
    memset(&other, 0, sizeof other);
    CHECK(tc_json_path(d, &other, path, sizeof path) == -1);
    tc_json_free(d);
}

/* ---- errors ------------------------------------------------------------- */

static void test_errors(void) {
    EXPECT_ERR("", TC_ERR_FORMAT, 0, "empty input");
    EXPECT_ERR("  \n ", TC_ERR_FORMAT, 4, "empty input");
    EXPECT_ERR("\"abc", TC_ERR_FORMAT, 4, "unexpected end of input while reading a string");
    EXPECT_ERR("[\"abc", TC_ERR_FORMAT, 5, "unterminated string");
    EXPECT_ERR("\"ab\\", TC_ERR_FORMAT, 4, "unexpected end of input while reading a string");
    EXPECT_ERR("\"\\u12", TC_ERR_FORMAT, 5, "unexpected end of input while reading a string");
    EXPECT_ERR("\"\\ud800", TC_ERR_FORMAT, 7, "unexpected end of input while reading a string");
    EXPECT_ERR("\"\\ud800\\", TC_ERR_FORMAT, 8, "unexpected end of input while reading a string");
    EXPECT_ERR("\"\xe2\x82", TC_ERR_FORMAT, 3, "unexpected end of input while reading a string");
    EXPECT_ERR("\"a\\qb\"", TC_ERR_FORMAT, 2, "invalid escape \\q");
    EXPECT_ERR("\"a\\\x01\"", TC_ERR_FORMAT, 2, "invalid escape: byte 0x01");
    EXPECT_ERR("\"\\u12g4\"", TC_ERR_FORMAT, 1, "invalid \\u escape");
    EXPECT_ERR("\"x\\ud800\"", TC_ERR_FORMAT, 2, "lone surrogate \\ud800");
    EXPECT_ERR("\"x\\ud800\\n\"", TC_ERR_FORMAT, 2, "lone surrogate \\ud800");
    EXPECT_ERR("\"x\\ud800\\u0041\"", TC_ERR_FORMAT, 2, "lone surrogate \\ud800");
    EXPECT_ERR("\"x\\udc00\"", TC_ERR_FORMAT, 2, "lone surrogate \\udc00");
    EXPECT_ERR("\"ab\xff\"", TC_ERR_FORMAT, 3, "invalid UTF-8 byte 0xff");
    EXPECT_ERR("\"\xc0\xaf\"", TC_ERR_FORMAT, 1, "invalid UTF-8 byte 0xc0");       /* overlong */
    EXPECT_ERR("\"\xe0\x80\xaf\"", TC_ERR_FORMAT, 2, "invalid UTF-8 byte 0x80");   /* overlong */
    EXPECT_ERR("\"\xed\xa0\x80\"", TC_ERR_FORMAT, 2, "invalid UTF-8 byte 0xa0");   /* surrogate */
    EXPECT_ERR("\"\xf4\x90\x80\x80\"", TC_ERR_FORMAT, 2, "invalid UTF-8 byte 0x90"); /* > U+10FFFF */
    EXPECT_ERR("\"\xe2\x28\xa1\"", TC_ERR_FORMAT, 2, "invalid UTF-8 byte 0x28");
    EXPECT_ERR("\"\\n\xff\"", TC_ERR_FORMAT, 3, "invalid UTF-8 byte 0xff");        /* slow path */
    EXPECT_ERR("\"a\nb\"", TC_ERR_FORMAT, 2, "control character 0x0a in string");
    EXPECT_ERR("\"\\t\tb\"", TC_ERR_FORMAT, 3, "control character 0x09 in string");
    EXPECT_ERR("{\"a\":1 \"b\":2}", TC_ERR_FORMAT, 7, "expected ',' or '}'");
    EXPECT_ERR("[1 2]", TC_ERR_FORMAT, 3, "expected ',' or ']'");
    EXPECT_ERR("[1,2,]", TC_ERR_FORMAT, 4, "trailing comma");
    EXPECT_ERR("{\"a\":1,\n}", TC_ERR_FORMAT, 6, "trailing comma");
    EXPECT_ERR("{\"x\":1,\"y\":2,\"x\":3}", TC_ERR_FORMAT, 13, "duplicate key \"x\"");
    EXPECT_ERR("{\"a\\\"b\":1,\"a\\u0022b\":2}", TC_ERR_FORMAT, 10, "duplicate key \"a\\\"b\"");
    EXPECT_ERR("[1] x", TC_ERR_FORMAT, 4, "trailing data after the document");
    EXPECT_ERR("1 2", TC_ERR_FORMAT, 2, "trailing data after the document");
    EXPECT_ERR("{}}", TC_ERR_FORMAT, 2, "trailing data after the document");
    EXPECT_ERR("1e400", TC_ERR_FORMAT, 0, "number out of range");
    EXPECT_ERR("[-1e999]", TC_ERR_FORMAT, 1, "number out of range");
    EXPECT_ERR("01", TC_ERR_FORMAT, 0, "leading zero");
    EXPECT_ERR("[-012]", TC_ERR_FORMAT, 2, "leading zero");
    EXPECT_ERR("-", TC_ERR_FORMAT, 1, "unexpected end of input while reading a number");
    EXPECT_ERR("[-]", TC_ERR_FORMAT, 2, "expected a digit after '-'");
    EXPECT_ERR("[-a]", TC_ERR_FORMAT, 2, "expected a digit after '-'");
    EXPECT_ERR("[1.]", TC_ERR_FORMAT, 3, "expected a digit after '.'");
    EXPECT_ERR("1.", TC_ERR_FORMAT, 2, "unexpected end of input while reading a number");
    EXPECT_ERR("[.5]", TC_ERR_FORMAT, 1, "'.5' is not JSON");
    EXPECT_ERR("[1e]", TC_ERR_FORMAT, 3, "expected a digit in the exponent");
    EXPECT_ERR("[1e+]", TC_ERR_FORMAT, 4, "expected a digit in the exponent");
    EXPECT_ERR("1e", TC_ERR_FORMAT, 2, "unexpected end of input while reading a number");
    EXPECT_ERR("+1", TC_ERR_FORMAT, 0, "must not start with '+'");
    EXPECT_ERR("[NaN]", TC_ERR_FORMAT, 1, "NaN and Infinity");
    EXPECT_ERR("[Infinity]", TC_ERR_FORMAT, 1, "NaN and Infinity");
    EXPECT_ERR("[1, // c\n 2]", TC_ERR_FORMAT, 4, "comments are not allowed");
    EXPECT_ERR("{'a': 1}", TC_ERR_FORMAT, 1, "expected a string key or '}'");
    EXPECT_ERR("['a']", TC_ERR_FORMAT, 1, "single-quoted strings");
    EXPECT_ERR("[tru]", TC_ERR_FORMAT, 1, "invalid literal (expected 'true')");
    EXPECT_ERR("[nul", TC_ERR_FORMAT, 4, "unexpected end of input while reading 'null'");
    EXPECT_ERR("[True]", TC_ERR_FORMAT, 1, "unexpected character 'T'");
    EXPECT_ERR("[", TC_ERR_FORMAT, 1, "unexpected end of input while reading an array");
    EXPECT_ERR("[1,", TC_ERR_FORMAT, 3, "unexpected end of input while reading an array");
    EXPECT_ERR("[1", TC_ERR_FORMAT, 2, "unexpected end of input while reading an array");
    EXPECT_ERR("{", TC_ERR_FORMAT, 1, "unexpected end of input while reading an object");
    EXPECT_ERR("{\"a\"", TC_ERR_FORMAT, 4, "unexpected end of input while reading an object");
    EXPECT_ERR("{\"a\":", TC_ERR_FORMAT, 5, "unexpected end of input, expected a value");
    EXPECT_ERR("{\"a\" 1}", TC_ERR_FORMAT, 5, "expected ':'");
    EXPECT_ERR("{\"a\":1,2}", TC_ERR_FORMAT, 7, "expected a string key after ','");
    EXPECT_ERR("[1,,2]", TC_ERR_FORMAT, 3, "unexpected character ','");
    EXPECT_ERR("[}", TC_ERR_FORMAT, 1, "unexpected character '}'");
    EXPECT_ERR("{]", TC_ERR_FORMAT, 1, "expected a string key or '}'");
    EXPECT_ERR("[1}", TC_ERR_FORMAT, 2, "expected ',' or ']'");
    EXPECT_ERR("\xef\xbb\xbf{}", TC_ERR_FORMAT, 0, "byte order mark");
    EXPECT_ERR("[\xff]", TC_ERR_FORMAT, 1, "unexpected byte 0xff");
    EXPECT_ERR("[1]\x0c", TC_ERR_FORMAT, 3, "trailing data");   /* form feed is not JSON whitespace */
    expect_err_n("[1]\0", 4, TC_ERR_FORMAT, 3, "trailing data", NULL, __LINE__);
    expect_err_n("\"a\0b\"", 5, TC_ERR_FORMAT, 2, "control character 0x00", NULL, __LINE__);

    /* paths and line/column */
    EXPECT_ERRP("{\"model\": {\"vocab\": {\"a\": 1, \"b\": tru}}}", TC_ERR_FORMAT, 34, "invalid literal",
                "$.model.vocab.b");
    EXPECT_ERRP("{\"a\": [1, {\"b c\": [0, 0, 0, \"\\x\"]}]}", TC_ERR_FORMAT, 29, "invalid escape \\x",
                "$.a[1][\"b c\"][3]");
    EXPECT_ERRP("{\"a\": [1, 2,]}", TC_ERR_FORMAT, 11, "trailing comma", "$.a");
    EXPECT_ERRP("{\"m\": {\"x\": 1, \"x\": 2}}", TC_ERR_FORMAT, 15, "duplicate key \"x\"", "$.m");
    EXPECT_ERRP("[0, [1, [2, 01]]]", TC_ERR_FORMAT, 12, "leading zero", "$[1][1][1]");
    EXPECT_ERRP("{\"<|end|>\": \"\\ud800\"}", TC_ERR_FORMAT, 13, "lone surrogate \\ud800", "$[\"<|end|>\"]");
    EXPECT_ERRP("[1] x", TC_ERR_FORMAT, 4, "trailing data", "$");
    EXPECT_ERRP("{\"a\":\n  [1,\n   x]}", TC_ERR_FORMAT, 15, "unexpected character 'x'", "$.a[1]");
    {
        tc_error e;
        tc_json_doc *d = parse_s("{\"a\":\n  [1,\n   x]}", &e);
        CHECKF(!d && strstr(e.msg, "(line 3, column 4)"), "%s", e.msg);
        tc_json_free(d);
        int l, c;
        tc_json_line_col("ab\ncd\n", 6, 0, &l, &c);
        CHECK(l == 1 && c == 1);
        tc_json_line_col("ab\ncd\n", 6, 4, &l, &c);
        CHECK(l == 2 && c == 2);
        tc_json_line_col("ab\ncd\n", 6, 6, &l, &c);
        CHECK(l == 3 && c == 1);
    }
    /* long keys are shortened in paths; message stays within the limit */
    {
        char big[400];
        strcpy(big, "{\"");
        for (int i = 0; i < 300; i++) strcat(big, "k");
        strcat(big, "\": [x]}");
        tc_error e;
        tc_json_doc *d = parse_s(big, &e);
        CHECKF(!d && strstr(e.msg, "...\"][0]: unexpected character 'x'"), "%s", e.msg);
        tc_json_free(d);
    }
    /* NULL err pointer is allowed */
    CHECK(tc_json_parse("[", 1, NULL) == NULL);
    tc_json_free(NULL);
}

/* ---- nesting ------------------------------------------------------------ */

static char *nested(size_t depth, int close, int obj) {
    char *s = malloc(depth * 6 + 8);
    size_t o = 0;
    for (size_t i = 0; i < depth; i++) {
        if (obj) { memcpy(s + o, "{\"k\":", 5); o += 5; }
        else s[o++] = '[';
    }
    s[o++] = '1';
    if (close)
        for (size_t i = 0; i < depth; i++) s[o++] = obj ? '}' : ']';
    s[o] = 0;
    return s;
}

static void test_nesting(void) {
    tc_error e;
    char *s = nested(TC_JSON_MAX_DEPTH, 1, 0);
    tc_json_doc *d = parse_s(s, &e);
    CHECKF(d != NULL, "%s", e.msg);
    if (d) {
        const tc_json *v = tc_json_root(d);
        int depth = 0;
        while (v->type == TC_JSON_ARRAY) { v = &v->u.arr.items[0]; depth++; }
        CHECK(depth == TC_JSON_MAX_DEPTH && v->u.num.i == 1);
        char path[4096];
        CHECK(tc_json_path(d, v, path, sizeof path) == 0 && strlen(path) == 1 + 3 * TC_JSON_MAX_DEPTH);
    }
    tc_json_free(d);
    free(s);

    s = nested(TC_JSON_MAX_DEPTH + 1, 1, 0);
    expect_err_n(s, strlen(s), TC_ERR_LIMIT, TC_JSON_MAX_DEPTH, "nesting deeper than 512", NULL, __LINE__);
    free(s);

    s = nested(TC_JSON_MAX_DEPTH, 1, 1);
    d = parse_s(s, &e);
    CHECKF(d != NULL, "%s", e.msg);
    tc_json_free(d);
    free(s);
    s = nested(TC_JSON_MAX_DEPTH + 1, 1, 1);
    expect_err_n(s, strlen(s), TC_ERR_LIMIT, TC_JSON_MAX_DEPTH * 5, "nesting deeper than 512", NULL, __LINE__);
    /* the deep path is shortened: starts with "$..." and stays short */
    d = parse_s(s, &e);
    CHECKF(!d && strstr(e.msg, " in $...") && strlen(e.msg) < 400, "%s", e.msg);
    free(s);

    /* 10^6 levels: rejected quickly, no stack overflow */
    size_t big = 1000000;
    s = nested(big, 0, 0);
    double t0 = now_ms();
    expect_err_n(s, big + 1, TC_ERR_LIMIT, TC_JSON_MAX_DEPTH, "nesting deeper", NULL, __LINE__);
    double t1 = now_ms();
    CHECKF(t1 - t0 < 100, "took %.1f ms", t1 - t0);
    free(s);
}

/* ---- big objects -------------------------------------------------------- */

static char *big_object(size_t n, long dup_at, size_t *dup_off) {
    char *s = malloc(n * 32 + 64);
    size_t o = 0;
    s[o++] = '{';
    for (size_t i = 0; i < n; i++) {
        if (i) s[o++] = ',';
        size_t key = (dup_at >= 0 && i == (size_t)dup_at) ? i / 2 : i;
        if (dup_off && dup_at >= 0 && i == (size_t)dup_at) *dup_off = o;
        o += (size_t)sprintf(s + o, "\"\xc4\xa0k%zu\":%zu", key, i);
    }
    s[o++] = '}';
    s[o] = 0;
    return s;
}

static void test_big_objects(void) {
    tc_error e;
    size_t n = 200000;
    char *s = big_object(n, -1, NULL);
    double t0 = now_ms();
    tc_json_doc *d = parse_s(s, &e);
    double t1 = now_ms();
    CHECKF(d != NULL, "%s", e.msg);
    if (d) {
        const tc_json *r = tc_json_root(d);
        CHECK(r->type == TC_JSON_OBJECT && r->u.obj.n == n);
        CHECK(r->u.obj.members[n - 1].value.u.num.i == (int64_t)(n - 1));
        CHECK(strcmp(r->u.obj.members[12345].key, "\xc4\xa0k12345") == 0);
        char path[64];
        CHECK(tc_json_path(d, &r->u.obj.members[777].value, path, sizeof path) == 0 &&
              strcmp(path, "$[\"\xc4\xa0k777\"]") == 0);
    }
    printf("  big object: %zu keys parsed in %.1f ms\n", n, t1 - t0);
    tc_json_free(d);
    free(s);

    /* duplicates at several positions, incl. around the hash threshold */
    long at[] = {1, 15, 16, 17, 33, 64, 65, 1000, 199999};
    for (size_t k = 0; k < sizeof at / sizeof at[0]; k++) {
        size_t off = 0;
        s = big_object(n, at[k], &off);
        char want[64];
        snprintf(want, sizeof want, "duplicate key \"\xc4\xa0k%ld\"", at[k] / 2);
        expect_err_n(s, strlen(s), TC_ERR_FORMAT, off, want, "$", __LINE__);
        free(s);
    }
    /* many sibling objects of size > threshold reuse the frame's table */
    {
        size_t m = 2000, o = 0;
        char *t = malloc(m * 20 * 12 + 16);
        t[o++] = '[';
        for (size_t i = 0; i < m; i++) {
            if (i) t[o++] = ',';
            t[o++] = '{';
            for (int j = 0; j < 20; j++) o += (size_t)sprintf(t + o, "%s\"k%d\":%d", j ? "," : "", j, j);
            t[o++] = '}';
        }
        t[o++] = ']';
        t[o] = 0;
        d = parse_s(t, &e);
        CHECKF(d && tc_json_root(d)->u.arr.n == m, "%s", e.msg);
        tc_json_free(d);
        /* a duplicate in the last object only */
        memcpy(t + o - 10, "\"k0\" ", 5); /* ..."k19":19}] -> ..."k0" :19}] */
        d = parse_s(t, &e);
        CHECKF(!d && strstr(e.msg, "duplicate key \"k0\"") && strstr(e.msg, "in $[1999]:"), "%s", e.msg);
        tc_json_free(d);
        free(t);
    }
}

/* document order: a duplicate in a big open object beats a later error */
static void test_dup_order(void) {
    size_t n = 300, o = 0;
    char *s = malloc(n * 24 + 64);
    size_t dup_off = 0, bad_off = 0;
    o += (size_t)sprintf(s + o, "{\"o\": {");
    for (size_t i = 0; i < n; i++) {
        if (i == 100) dup_off = o + 1;
        if (i == 200) {
            bad_off = o + 8; /* ,"k200":x */
            o += (size_t)sprintf(s + o, ",\"k%zu\":x", i);
        } else {
            o += (size_t)sprintf(s + o, "%s\"k%zu\":%zu", i ? "," : "", i == 100 ? (size_t)50 : i, i);
        }
    }
    o += (size_t)sprintf(s + o, "}}");
    expect_err_n(s, o, TC_ERR_FORMAT, dup_off, "duplicate key \"k50\"", "$.o", __LINE__);
    /* without the duplicate, the later error is reported */
    memcpy(s + dup_off, "\"kk0\"", 5); /* "k50" -> "kk0" */
    expect_err_n(s, o, TC_ERR_FORMAT, bad_off, "unexpected character 'x'", "$.o.k200", __LINE__);
    /* the duplicate is the key whose value is being parsed */
    o = 0;
    o += (size_t)sprintf(s + o, "[{");
    for (size_t i = 0; i < 40; i++) o += (size_t)sprintf(s + o, "\"k%zu\":%zu,", i, i);
    dup_off = o;
    o += (size_t)sprintf(s + o, "\"k3\": [1, 2, ?");
    expect_err_n(s, o, TC_ERR_FORMAT, dup_off, "duplicate key \"k3\"", "$[0]", __LINE__);
    /* nested: an earlier duplicate in the outer object wins over an inner one */
    o = 0;
    o += (size_t)sprintf(s + o, "{");
    for (size_t i = 0; i < 20; i++) o += (size_t)sprintf(s + o, "\"k%zu\":%zu,", i, i);
    dup_off = o;
    o += (size_t)sprintf(s + o, "\"k0\":{");
    for (size_t i = 0; i < 20; i++) o += (size_t)sprintf(s + o, "\"j%zu\":%zu,", i, i);
    o += (size_t)sprintf(s + o, "\"j1\":1}}");
    expect_err_n(s, o, TC_ERR_FORMAT, dup_off, "duplicate key \"k0\"", "$", __LINE__);
    free(s);
}

/* find_dup with colliding hashes (groups > 2 take the key-sorting path) */
static void test_find_dup_collisions(void) {
    const char *keys[] = {"b", "a", "c", "ab", "a", "b", "a", "d"};
    size_t n = sizeof keys / sizeof keys[0];
    parser P;
    memset(&P, 0, sizeof P);
    tc_json_member m[8];
    memset(m, 0, sizeof m);
    frame f;
    memset(&f, 0, sizeof f);
    for (size_t i = 0; i < n; i++) {
        m[i].key = keys[i];
        m[i].key_len = (uint32_t)strlen(keys[i]);
        /* all hash 7 except "d"; pushed in index order like the parser */
        CHECK(hk_push(&f, i == 7 ? 9u : 7u, i) == 0);
    }
    P.scratch = m;
    CHECK(find_dup(&P, &f) == 4); /* "a" again at 4 (the "b" at 5 comes later) */
    const char *k2[] = {"x", "y", "z", "w"};
    f.hk_n = 0;
    for (size_t i = 0; i < 4; i++) {
        m[i].key = k2[i];
        m[i].key_len = 1;
        CHECK(hk_push(&f, 5u, i) == 0);
    }
    CHECK(find_dup(&P, &f) == -1);
    t_free(f.hk);
    t_free(P.sortbuf);
}

/* ---- allocation failures ------------------------------------------------ */

static void test_nomem(void) {
    /* a document that needs several arena chunks, scratch growth, escapes,
     * a duplicate-key hash table and a number through strtod */
    size_t cap = 400000, o = 0;
    char *s = malloc(cap);
    o += (size_t)sprintf(s + o, "{\"list\": [");
    for (int i = 0; i < 5000; i++) o += (size_t)sprintf(s + o, "%s\"s\\n%d\"", i ? "," : "", i);
    o += (size_t)sprintf(s + o, "], \"obj\": {");
    for (int i = 0; i < 100; i++) o += (size_t)sprintf(s + o, "%s\"k%d\": [%d.5, {\"x\": [\"abcdefghijklmnopqrstuvwxyz\"]}]", i ? "," : "", i, i);
    o += (size_t)sprintf(s + o, "}}");
    int saw_success = 0, bad = 0;
    long i;
    for (i = 0; i < 10000 && !saw_success; i++) {
        tc_error e;
        g_fail_at = i;
        g_alloc_count = 0;
        g_live = 0;
        tc_json_doc *d = tc_json_parse(s, o, &e);
        if (d) {
            saw_success = 1;
            const tc_json *r = tc_json_root(d);
            if (tc_json_get(r, "obj") == NULL || tc_json_get(r, "obj")->u.obj.n != 100) bad++;
            tc_json_free(d);
        } else if (e.code != TC_ERR_NOMEM || !strstr(e.msg, "out of memory")) {
            bad++;
            fprintf(stderr, "  nomem at %ld: %s\n", i, e.msg);
        }
        if (g_live != 0) { bad++; fprintf(stderr, "  nomem at %ld: %ld blocks leaked\n", i, g_live); }
    }
    g_fail_at = -1;
    CHECKF(saw_success && bad == 0, "success=%d bad=%d", saw_success, bad);
    printf("  allocation failure injected at each of %ld allocations\n", i - 1);
    free(s);
}

/* ---- fuzz-ish ----------------------------------------------------------- */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rng(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Walks the tree checking basic invariants (explicit heap stack). */
static int tree_ok(const tc_json *root) {
    size_t cap = 1024, sp = 0;
    const tc_json **stack = malloc(cap * sizeof *stack);
    int ok = 1;
    stack[sp++] = root;
    while (sp && ok) {
        const tc_json *v = stack[--sp];
        uint32_t n = 0;
        if (v->type == TC_JSON_STRING) {
            if (!v->u.str.s || v->u.str.s[v->u.str.len] != 0) ok = 0;
        } else if (v->type == TC_JSON_ARRAY) {
            n = v->u.arr.n;
            if (n && !v->u.arr.items) ok = 0;
        } else if (v->type == TC_JSON_OBJECT) {
            n = v->u.obj.n;
            if (n && !v->u.obj.members) ok = 0;
            for (uint32_t i = 0; ok && i < n; i++) {
                const tc_json_member *m = &v->u.obj.members[i];
                if (!m->key || m->key[m->key_len] != 0 || m->value.offset <= v->offset) ok = 0;
            }
        } else if (v->type > TC_JSON_OBJECT) ok = 0;
        if (!ok) break;
        if (sp + n > cap) {
            while (sp + n > cap) cap *= 2;
            stack = realloc(stack, cap * sizeof *stack);
        }
        for (uint32_t i = 0; i < n; i++)
            stack[sp++] = v->type == TC_JSON_ARRAY ? &v->u.arr.items[i] : &v->u.obj.members[i].value;
    }
    free(stack);
    return ok;
}

static void test_fuzz(void) {
    const char *doc =
        "{\"version\": \"1.0\", \"added_tokens\": [{\"id\": 151643, \"content\": \"<|endoftext|>\", \"special\": true}],\n"
        " \"model\": {\"type\": \"BPE\", \"dropout\": null, \"vocab\": {\"!\": 0, \"\\\"\": 1, \"\xc4\xa0t\": 2, "
        "\"\\u00e9\": 3, \"\\ud83d\\ude00\": 4, \"a\": -1.5e3, \"b\": [], \"c\": {}, \"d\": 5, \"e\": 6, \"f\": 7, \"g\": 8, \"h\": 9, "
        "\"i\": 10, \"j\": 11, \"k\": 12, \"l\": 13, \"m\": 14, \"n\": 15, \"o\": 16, \"p\": 17},\n"
        " \"merges\": [\"\xc4\xa0 t\", [\"a\", \"b\"], \"\xe2\x82\xac x\"]}, \"f\": [0.25, -0, false]}";
    size_t n = strlen(doc);
    tc_error e;
    tc_json_doc *d = tc_json_parse(doc, n, &e);
    CHECKF(d != NULL, "%s", e.msg);
    tc_json_free(d);

    int crashes = 0, ok_trees = 0, errors = 0, bad_err = 0;
    /* truncation at every position: always an error (the doc is an object) */
    for (size_t k = 0; k < n; k++) {
        char *buf = malloc(k ? k : 1); /* exact size so ASan catches overreads */
        memcpy(buf, doc, k);
        d = tc_json_parse(buf, k, &e);
        if (d) { crashes++; tc_json_free(d); }
        else {
            errors++;
            char want[32];
            snprintf(want, sizeof want, "at byte %zu ", k);
            /* truncated input is reported at the end of input */
            if (k > 0 && (!strstr(e.msg, want) || !strstr(e.msg, "end of input"))) {
                bad_err++;
                if (bad_err < 5) fprintf(stderr, "  truncated at %zu: %s\n", k, e.msg);
            }
        }
        free(buf);
    }
    CHECKF(crashes == 0 && bad_err == 0, "truncation: %d parsed, %d wrong messages", crashes, bad_err);

    /* random byte flips */
    for (int iter = 0; iter < 20000; iter++) {
        char *buf = malloc(n);
        memcpy(buf, doc, n);
        int flips = 1 + (int)(rng() % 3);
        for (int f = 0; f < flips; f++) {
            size_t pos = (size_t)(rng() % n);
            uint64_t r = rng();
            if (r % 4 == 0) buf[pos] = (char)(r >> 8);
            else if (r % 4 == 1) buf[pos] = "{}[],:\"\\ 0u-eE."[(r >> 8) % 15];
            else buf[pos] ^= (char)(1u << ((r >> 8) % 8));
        }
        size_t len = (rng() % 8 == 0) ? (size_t)(rng() % n) : n;
        d = tc_json_parse(buf, len, &e);
        if (d) {
            ok_trees++;
            if (!tree_ok(tc_json_root(d))) crashes++;
            tc_json_free(d);
        } else {
            errors++;
            if (e.code != TC_ERR_FORMAT || strncmp(e.msg, "JSON error at byte ", 19) != 0) bad_err++;
        }
        free(buf);
    }
    CHECKF(crashes == 0 && bad_err == 0, "flips: bad trees %d, bad errors %d", crashes, bad_err);
    printf("  fuzz: %d trees, %d errors\n", ok_trees, errors);
}

/* ---- real file ---------------------------------------------------------- */

static void test_file(const char *path) {
    FILE *f = fopen(path, "rb");
    CHECKF(f != NULL, "cannot open %s", path);
    if (!f) return;
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc(sz > 0 ? (size_t)sz : 1);
    size_t got = fread(buf, 1, (size_t)sz, f);
    fclose(f);
    CHECK(got == (size_t)sz);
    double best = 1e30, total = 0;
    int runs = 10;
    tc_json_doc *d = NULL;
    tc_error e;
    for (int r = 0; r < runs; r++) {
        double t0 = now_ms();
        d = tc_json_parse(buf, got, &e);
        double t = now_ms() - t0;
        if (t < best) best = t;
        total += t;
        if (!d) break;
        if (r + 1 < runs) tc_json_free(d);
    }
    CHECKF(d != NULL, "%s", e.msg);
    if (d) {
        const tc_json *r = tc_json_root(d);
        const tc_json *model = tc_json_get(r, "model");
        const tc_json *vocab = tc_json_get(model, "vocab");
        const tc_json *merges = tc_json_get(model, "merges");
        printf("  %s: %ld bytes, vocab %u keys, merges %u; parse best %.1f ms, mean %.1f ms over %d runs\n", path, sz,
               vocab ? vocab->u.obj.n : 0, merges ? merges->u.arr.n : 0, best, total / runs, runs);
        CHECK(vocab && vocab->type == TC_JSON_OBJECT && merges && merges->type == TC_JSON_ARRAY);
        CHECK(tree_ok(r));
    }
    tc_json_free(d);
    free(buf);
}

int main(int argc, char **argv) {
    test_scalars();
    test_strings();
    test_containers();
    test_errors();
    test_nesting();
    test_big_objects();
    test_dup_order();
    test_find_dup_collisions();
    test_nomem();
    test_fuzz();
    if (argc > 1) test_file(argv[1]);
    printf("%d passed, %d failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
