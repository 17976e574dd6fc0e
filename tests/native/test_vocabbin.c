/* test_vocabbin.c - unit tests for native/src/vocabbin.c.
 *
 * Build (from the repository root; the compile tests load small
 * tokenizer.json texts, so every engine file is linked):
 *   gcc -std=c11 -Wall -Wextra -Werror -O2 -Inative/src \
 *       tests/native/test_vocabbin.c native/src/ALL.c -lm -o /tmp/test_vocabbin
 *   (ALL.c: every .c file of native/src)
 *   /tmp/test_vocabbin [path/to/vocab.bin]
 *
 * Every image is parsed from a heap block of exactly its size, so an
 * out-of-bounds read shows under AddressSanitizer. With a path argument the
 * file is parsed and N, the parse time and the audit are printed; the
 * seed's "N edited to 200000" case is replayed on it.
 * Prints "N passed, M failed"; exit status nonzero on any failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine.h"
#include "platform.h"
#include "tokcore.h"
#include "vocabbin.h"

static int g_pass, g_fail;

#define CHECK(cond) do { \
        if (cond) g_pass++; \
        else { g_fail++; fprintf(stderr, "%s:%d: FAILED: %s\n", __FILE__, __LINE__, #cond); } \
    } while (0)

/* ---- building images ----------------------------------------------- */

typedef struct img { uint8_t d[4096]; size_t n; } img;

static void put32(img *m, uint32_t v) {
    for (int i = 0; i < 4; i++) m->d[m->n++] = (uint8_t)(v >> (8 * i));
}

static void put_entry(img *m, uint32_t id, const void *s, uint16_t len) {
    put32(m, id);
    m->d[m->n++] = (uint8_t)len;
    m->d[m->n++] = (uint8_t)(len >> 8);
    memcpy(m->d + m->n, s, len);
    m->n += len;
}

/* Parses a heap copy of exactly n bytes; returns the rc, fills msg. */
static int parse_exact(const uint8_t *d, size_t n, tc_vbin *v, tc_error *err) {
    uint8_t *copy = malloc(n ? n : 1);
    if (!copy) { fprintf(stderr, "out of memory\n"); exit(2); }
    if (n) memcpy(copy, d, n);
    memset(err, 0, sizeof *err);
    int rc = tc_vbin_parse(n ? copy : NULL, n, v, err);
    (void)tc_vbin_detect(n ? copy : NULL, n);
    if (rc == TC_OK) { tc_vbin_free(v); }   /* v points into copy */
    free(copy);
    return rc;
}

static void expect_error(const img *m, const char *what, const char *where) {
    tc_vbin v;
    tc_error err;
    int rc = parse_exact(m->d, m->n, &v, &err);
    CHECK(rc != TC_OK);
    CHECK(strstr(err.msg, what) != NULL);
    CHECK(strstr(err.msg, where) != NULL);
    CHECK(v.by_id == NULL && v.n == 0);
    if (rc == TC_OK || !strstr(err.msg, what) || !strstr(err.msg, where))
        fprintf(stderr, "  expected \"%s\" and \"%s\", got: %s\n", what, where, err.msg);
}

/* ---- parser ---------------------------------------------------------- */

static void test_parse_ok(void) {
    img m = {.n = 0};
    put32(&m, 3);
    put_entry(&m, 2, "ab", 2);
    put_entry(&m, 0, "\xC4\xA0", 2);
    put_entry(&m, 1, "x", 1);
    tc_vbin v;
    tc_error err = {0};
    CHECK(tc_vbin_detect(m.d, m.n) == 1);
    CHECK(tc_vbin_parse(m.d, m.n, &v, &err) == TC_OK);
    CHECK(v.n == 3 && v.trailing == 0 && v.size == m.n);
    CHECK(v.by_id[0].len == 2 && memcmp(v.data + v.by_id[0].off, "\xC4\xA0", 2) == 0);
    CHECK(v.by_id[1].len == 1 && v.data[v.by_id[1].off] == 'x');
    CHECK(v.by_id[2].len == 2 && memcmp(v.data + v.by_id[2].off, "ab", 2) == 0);
    CHECK(v.by_id[0].present && v.by_id[1].present && v.by_id[2].present);
    tc_vbin_free(&v);
    CHECK(v.by_id == NULL);
    tc_vbin_free(&v);   /* twice is harmless */

    /* trailing bytes: reported, not an error */
    memcpy(m.d + m.n, "\0\0\0\0\0", 5);
    m.n += 5;
    CHECK(tc_vbin_parse(m.d, m.n, &v, &err) == TC_OK);
    CHECK(v.trailing == 5);
    tc_vbin_free(&v);
    CHECK(tc_vbin_detect(m.d, m.n) == 1);
    memset(m.d + m.n, 0, 100);
    m.n += 100;
    /* more left over: N is smaller than the entries; detected, and the
     * loader (one verdict for the host and tokcore) refuses it */
    CHECK(tc_vbin_detect(m.d, m.n) == 1);
    tc_error lerr = {0};
    CHECK(tc_load_vocabbin(m.d, m.n, TC_PRESET_QWEN2, &lerr) == NULL);
    CHECK(strstr(lerr.msg, "more entries than N") != NULL);
}

static void test_parse_errors(void) {
    img m = {.n = 0};
    expect_error(&m, "empty file", "0 bytes");

    m.n = 0; m.d[m.n++] = 1; m.d[m.n++] = 0; m.d[m.n++] = 0;
    expect_error(&m, "shorter than the 4-byte header", "offset 0");

    m.n = 0; put32(&m, 0);
    expect_error(&m, "N = 0", "offset 0");

    m.n = 0; put32(&m, TC_VBIN_MAX_ENTRIES + 1); put_entry(&m, 0, "a", 1);
    expect_error(&m, "above the limit of 4000000", "offset 0");
    m.n = 0; put32(&m, 0xFFFFFFFFu);
    expect_error(&m, "above the limit", "N = 4294967295");

    /* truncated entry header: entries at 4 (7 bytes), 11 (7 bytes), 18 */
    m.n = 0; put32(&m, 3); put_entry(&m, 0, "a", 1); put_entry(&m, 1, "b", 1);
    m.d[m.n++] = 2; m.d[m.n++] = 0; m.d[m.n++] = 0;
    expect_error(&m, "truncated entry header (id/len) at entry 2, offset 18", "3 of 6 bytes left");

    /* truncated entry bytes */
    m.n = 0; put32(&m, 2); put_entry(&m, 0, "a", 1);
    put32(&m, 1); m.d[m.n++] = 10; m.d[m.n++] = 0; memcpy(m.d + m.n, "abcde", 5); m.n += 5;
    expect_error(&m, "truncated entry bytes at entry 1, offset 11", "length 10 but only 5 bytes left");

    /* id >= N */
    m.n = 0; put32(&m, 2); put_entry(&m, 0, "a", 1); put_entry(&m, 2, "b", 1);
    expect_error(&m, "id 2 >= N = 2 at entry 1, offset 11", "vocab.bin");

    /* duplicate id, naming the first entry */
    m.n = 0; put32(&m, 3); put_entry(&m, 1, "a", 1); put_entry(&m, 0, "bb", 2); put_entry(&m, 1, "c", 1);
    expect_error(&m, "duplicate id 1 at entry 2, offset 19", "first at entry 0, offset 4");

    /* zero-length entry */
    m.n = 0; put32(&m, 2); put_entry(&m, 0, "a", 1); put_entry(&m, 1, "", 0);
    expect_error(&m, "zero-length entry at entry 1, offset 11", "id 1");

    /* fewer entries than N: the file ends exactly after entry 1 */
    m.n = 0; put32(&m, 5); put_entry(&m, 0, "a", 1); put_entry(&m, 1, "b", 1);
    expect_error(&m, "truncated entry header at entry 2, offset 18", "fewer entries than N");

    /* detection says no to all of those and to other formats */
    CHECK(tc_vbin_detect((const uint8_t *)"{\"version\": \"1.0\"}", 18) == 0);
    CHECK(tc_vbin_detect((const uint8_t *)"IQ== 0\n", 7) == 0);
    CHECK(tc_vbin_detect(m.d, m.n) == 0);
    CHECK(tc_vbin_detect(NULL, 0) == 0);
}

/* Every prefix and many corrupted copies of a valid image: the parser must
 * return cleanly (ASan checks the reads), never succeed on a prefix. */
static void test_parse_fuzz(void) {
    img m = {.n = 0};
    put32(&m, 40);
    for (uint32_t i = 0; i < 40; i++) {
        char s[8];
        int k = snprintf(s, sizeof s, "t%u", 39 - i);
        put_entry(&m, 39 - i, s, (uint16_t)k);
    }
    int prefix_failures = 0;
    for (size_t n = 0; n < m.n; n++) {
        tc_vbin v;
        tc_error err;
        if (parse_exact(m.d, n, &v, &err) != TC_OK && err.msg[0]) prefix_failures++;
    }
    CHECK(prefix_failures == (int)m.n);
    uint64_t x = 0x9E3779B97F4A7C15ull;
    int ok = 0, failed_with_msg = 0, total = 3000;
    for (int t = 0; t < total; t++) {
        img c = m;
        for (int f = 0; f < 3; f++) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            c.d[(size_t)(x % c.n)] = (uint8_t)(x >> 40);
        }
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        if (x % 4 == 0) c.n -= (size_t)(x >> 20) % c.n;
        tc_vbin v;
        tc_error err;
        if (parse_exact(c.d, c.n, &v, &err) == TC_OK) ok++;
        else if (err.msg[0]) failed_with_msg++;
    }
    CHECK(ok + failed_with_msg == total);
}

/* ---- stored form ----------------------------------------------------- */

/* Reference GPT-2 bytes_to_unicode, written out independently. */
static uint32_t ref_byte_to_cp(int b) {
    if ((b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF)) return (uint32_t)b;
    uint32_t n = 0;
    for (int c = 0; c < b; c++)
        if (!((c >= 0x21 && c <= 0x7E) || (c >= 0xA1 && c <= 0xAC) || (c >= 0xAE && c <= 0xFF))) n++;
    return 0x100 + n;
}

static size_t utf8(uint32_t cp, uint8_t *o) {
    if (cp < 0x80) { o[0] = (uint8_t)cp; return 1; }
    o[0] = (uint8_t)(0xC0 | (cp >> 6)); o[1] = (uint8_t)(0x80 | (cp & 0x3F));
    return 2;
}

static int stored_is(const char *in, const char *expect_hex, int expect_rc) {
    tc_buf b = {0};
    int rc = tc_vbin_stored_form((const uint8_t *)in, strlen(in), &b);
    char hex[256] = {0};
    for (size_t i = 0; i < b.len && i * 2 + 2 < sizeof hex; i++) snprintf(hex + 2 * i, 3, "%02X", b.data[i]);
    int ok = rc == expect_rc && strcmp(hex, expect_hex) == 0;
    if (!ok) fprintf(stderr, "  stored form of \"%s\": %s rc %d, expected %s rc %d\n", in, hex, rc, expect_hex, expect_rc);
    tc_buf_free(&b);
    return ok;
}

static void test_stored_form(void) {
    /* seed 000 §3.3 probes: ids 220, 198, 255, 221 */
    CHECK(stored_is("\xC4\xA0", "C4A0", 0));   /* Ġ: kept, the word-start marker */
    CHECK(stored_is("\xC4\x8A", "C48A", 0));   /* Ċ: kept, the newline marker */
    CHECK(stored_is("\xC5\x83", "AD", 1));     /* Ń -> 0xAD */
    CHECK(stored_is("\xC4\xA1", "7F", 1));     /* ġ -> 0x7F */
    CHECK(stored_is("\xC4\xA0" "apple", "C4A06170706C65", 0));
    CHECK(stored_is("\xC3\xA4\xC2\xBD\xC5\x82", "E4BDA0", 1));   /* "ä½ł" = the bytes of 你 */
    CHECK(stored_is("\xE4\xBD\xA0", "E4BDA0", 0));               /* a real CJK char stays UTF-8 */
    CHECK(stored_is("\xC4\xA2\xC5\x82", "80A0", 1));             /* U+0122 -> 80, U+0142 -> A0 */
    CHECK(stored_is("\xC2\xAD", "C2AD", 0));                     /* U+00AD is not a mapped char */
    CHECK(stored_is("\xC4\x80\xC5\x84", "C480C584", 0));         /* U+0100 marker, U+0144 unmapped */
    CHECK(stored_is("", "", 0));
    CHECK(stored_is("\xFF" "a", "FF61", 0));                     /* invalid UTF-8 is copied */

    /* all 256 single-byte strings, and real_bytes back to the byte */
    int ok_stored = 0, ok_real = 0;
    for (int b = 0; b < 256; b++) {
        uint8_t s[4];
        size_t n = utf8(ref_byte_to_cp(b), s);
        tc_buf st = {0}, rb = {0};
        int rc = tc_vbin_stored_form(s, n, &st);
        int exp_changed = n == 2 && b > 0x20;   /* 2-byte chars other than markers collapse */
        int good;
        if (b <= 0x20) good = st.len == 2 && st.data[0] == 0xC4 && st.data[1] == 0x80 + b;
        else good = st.len == 1 && st.data[0] == b;
        if (good && rc == exp_changed) ok_stored++;
        else fprintf(stderr, "  byte %02X: stored len %zu rc %d\n", b, st.len, rc);
        int rr = tc_vbin_real_bytes(st.data, st.len, &rb);
        if (rb.len == 1 && rb.data[0] == b && rr == (b <= 0x20)) ok_real++;
        else fprintf(stderr, "  byte %02X: real_bytes len %zu rc %d\n", b, rb.len, rr);
        tc_buf_free(&st);
        tc_buf_free(&rb);
    }
    CHECK(ok_stored == 256);
    CHECK(ok_real == 256);

    /* real_bytes: markers only, everything else as is */
    tc_buf rb = {0};
    CHECK(tc_vbin_real_bytes((const uint8_t *)"\xC4\xA0" "a\xC4\x8A\xC4\xA1\xC4", 8, &rb) == 1);
    CHECK(rb.len == 6 && memcmp(rb.data, " a\n\xC4\xA1\xC4", 6) == 0);
    rb.len = 0;
    CHECK(tc_vbin_real_bytes((const uint8_t *)"abc", 3, &rb) == 0);
    CHECK(rb.len == 3);
    tc_buf_free(&rb);
}

/* ---- audit ----------------------------------------------------------- */

static void test_audit(void) {
    img m = {.n = 0};
    put32(&m, 9);
    put_entry(&m, 0, "a", 1);
    put_entry(&m, 1, "\xC4\x99", 2);       /* marker of byte 0x19 */
    put_entry(&m, 2, "\x7F", 1);
    put_entry(&m, 3, "\x80", 1);
    put_entry(&m, 4, "\xAD", 1);
    put_entry(&m, 5, "\xE9", 1);
    put_entry(&m, 6, "\xE4\xBD\xA0", 3);   /* 你 */
    put_entry(&m, 7, "\xC4\x99", 2);       /* "ę": same bytes as id 1 */
    put_entry(&m, 8, "hello", 5);
    m.d[m.n++] = 0xEE;                     /* one trailing byte */
    tc_vbin v;
    tc_error err = {0};
    CHECK(tc_vbin_parse(m.d, m.n, &v, &err) == TC_OK);
    tc_buf j = {0};
    CHECK(tc_vbin_audit(&v, &j) == TC_OK);
    CHECK(tc_buf_push(&j, 0) == 0);
    const char *expect =
        "{\"n\":9,\"file_bytes\":76,\"string_bytes\":17,\"trailing\":1,"
        "\"classes\":{\"markers\":2,\"del_7f\":1,\"raw_80_a0\":1,\"raw_ad\":1,\"raw_a1_ff\":1,"
        "\"ascii\":3,\"multibyte_utf8\":1},"
        "\"invalid_utf8\":{\"count\":3,\"first_ids\":[3,4,5]},"
        "\"longest\":{\"id\":8,\"len\":5},"
        "\"identical\":{\"groups\":1,\"entries\":2,\"list\":[[1,7]]}}";
    CHECK(strcmp((const char *)j.data, expect) == 0);
    if (strcmp((const char *)j.data, expect) != 0) fprintf(stderr, "  audit: %s\n", (const char *)j.data);
    tc_buf_free(&j);
    tc_vbin_free(&v);

    /* three-way group plus a pair, groups ordered by first id */
    m.n = 0;
    put32(&m, 6);
    put_entry(&m, 0, "zz", 2);
    put_entry(&m, 1, "q", 1);
    put_entry(&m, 2, "zz", 2);
    put_entry(&m, 3, "q", 1);
    put_entry(&m, 4, "zz", 2);
    put_entry(&m, 5, "z", 1);
    CHECK(tc_vbin_parse(m.d, m.n, &v, &err) == TC_OK);
    CHECK(tc_vbin_audit(&v, &j) == TC_OK);
    CHECK(tc_buf_push(&j, 0) == 0);
    CHECK(strstr((const char *)j.data, "\"identical\":{\"groups\":2,\"entries\":5,\"list\":[[0,2,4],[1,3]]}") != NULL);
    tc_buf_free(&j);
    tc_vbin_free(&v);
}

/* ---- compiler -------------------------------------------------------- */

static const char *TOK_JSON =
    "{\"version\":\"1.0\",\"added_tokens\":["
    "{\"id\":258,\"content\":\"<|end|>\",\"single_word\":false,\"lstrip\":false,\"rstrip\":false,\"normalized\":false,\"special\":true},"
    "{\"id\":259,\"content\":\"<think>\",\"single_word\":false,\"lstrip\":false,\"rstrip\":false,\"normalized\":false,\"special\":false}],"
    "\"normalizer\":null,"
    "\"pre_tokenizer\":{\"type\":\"ByteLevel\",\"add_prefix_space\":false,\"trim_offsets\":false,\"use_regex\":true},"
    "\"post_processor\":null,"
    "\"decoder\":{\"type\":\"ByteLevel\",\"add_prefix_space\":false,\"trim_offsets\":false,\"use_regex\":true},"
    "\"model\":{\"type\":\"BPE\",\"dropout\":null,\"unk_token\":null,\"continuing_subword_prefix\":null,"
    "\"end_of_word_suffix\":null,\"fuse_unk\":false,\"byte_fallback\":false,\"ignore_merges\":false,"
    "\"vocab\":{\"a\":0,\"\\u0120\":1,\"\\u0143\":2,\"\\u0121\":3,\"\\u0120a\":4,\"\\u00e4\\u00bd\\u0142\":5},"
    "\"merges\":[\"\\u0120 a\"]}}";

/* json with a token for every byte its vocabulary lacks appended at ids
 * first_id.. (byte-level vocabularies must cover the 256 bytes to load),
 * skipping the bytes in `have`. Returns a malloc'ed string; *next is the
 * id after the last one added. */
static char *with_all_bytes(const char *json, const char *have, size_t nhave, uint32_t first_id, uint32_t *next) {
    const char *cut = strstr(json, "},\"merges\"");
    if (!cut) return NULL;
    size_t head = (size_t)(cut - json), cap = strlen(json) + 256 * 24 + 1;
    char *out = malloc(cap);
    if (!out) return NULL;
    memcpy(out, json, head);
    size_t o = head;
    uint32_t id = first_id;
    for (int b = 0; b < 256; b++) {
        if (memchr(have, b, nhave)) continue;
        o += (size_t)snprintf(out + o, cap - o, ",\"\\u%04x\":%u", (unsigned)tc_byte_to_cp((uint8_t)b), id++);
    }
    snprintf(out + o, cap - o, "%s", cut);
    *next = id;
    return out;
}

static void test_compile(void) {
    tc_error err = {0};
    uint32_t n_all = 0;
    char *tok_json = with_all_bytes(TOK_JSON, "a \xAD\x7F", 4, 6, &n_all);   /* ids 6..257 */
    CHECK(tok_json != NULL);
    if (!tok_json) return;
    tc_tokenizer *tok = tc_load_hf_json((const uint8_t *)tok_json, strlen(tok_json), &err);
    free(tok_json);
    CHECK(tok != NULL);
    if (!tok) { fprintf(stderr, "  load: %s\n", err.msg); return; }
    tc_buf out = {0};
    tc_vbin_stats st;
    if (tc_vbin_compile(tok, &out, &st, &err) != TC_OK) fprintf(stderr, "  compile: %s\n", err.msg);
    CHECK(st.total == 260 && n_all == 258 && st.specials == 2);
    img m = {.n = 0};
    put32(&m, 260);
    put_entry(&m, 0, "a", 1);
    put_entry(&m, 1, "\xC4\xA0", 2);
    put_entry(&m, 2, "\xAD", 1);
    put_entry(&m, 3, "\x7F", 1);
    put_entry(&m, 4, "\xC4\xA0" "a", 3);
    put_entry(&m, 5, "\xE4\xBD\xA0", 3);
    size_t head = m.n;
    put_entry(&m, 258, "<|end|>", 7);
    put_entry(&m, 259, "<think>", 7);
    /* the first 6 entries, the byte tokens, then the two added tokens */
    size_t tail = m.n - head;
    CHECK(out.len > m.n && memcmp(out.data, m.d, head) == 0 && memcmp(out.data + out.len - tail, m.d + head, tail) == 0);
    /* appends after existing content */
    tc_buf two = {0};
    CHECK(tc_buf_append(&two, "XY", 2) == 0);
    CHECK(tc_vbin_compile(tok, &two, NULL, &err) == TC_OK);
    CHECK(two.len == out.len + 2 && memcmp(two.data + 2, out.data, out.len) == 0);
    tc_buf_free(&two);
    tc_buf_free(&out);
    tc_free(tok);

    /* a hole: id 2 unused */
    const char *holey_base =
        "{\"version\":\"1.0\",\"added_tokens\":[],\"normalizer\":null,"
        "\"pre_tokenizer\":{\"type\":\"ByteLevel\",\"add_prefix_space\":false,\"trim_offsets\":false,\"use_regex\":true},"
        "\"post_processor\":null,\"decoder\":null,"
        "\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0,\"\\u0120\":1,\"x\":3},\"merges\":[]}}";
    char *holey = with_all_bytes(holey_base, "a x", 3, 4, &n_all);
    CHECK(holey != NULL);
    if (!holey) return;
    tok = tc_load_hf_json((const uint8_t *)holey, strlen(holey), &err);
    free(holey);
    CHECK(tok != NULL);
    if (tok) {
        tc_buf b = {0};
        CHECK(tc_vbin_compile(tok, &b, &st, &err) == TC_ERR_FORMAT);
        CHECK(strstr(err.msg, "id 2 has no token") != NULL);
        CHECK(b.len == 0);
        tc_buf_free(&b);
        tc_free(tok);
    } else {
        fprintf(stderr, "  load holey: %s\n", err.msg);
    }

    /* not byte-level: the same vocabulary without ByteLevel anywhere */
    const char *plain =
        "{\"version\":\"1.0\",\"added_tokens\":[],\"normalizer\":null,\"pre_tokenizer\":null,"
        "\"post_processor\":null,\"decoder\":null,"
        "\"model\":{\"type\":\"BPE\",\"dropout\":null,\"unk_token\":null,\"continuing_subword_prefix\":null,"
        "\"end_of_word_suffix\":null,\"fuse_unk\":false,\"byte_fallback\":false,"
        "\"vocab\":{\"a\":0,\"b\":1},\"merges\":[]}}";
    tok = tc_load_hf_json((const uint8_t *)plain, strlen(plain), &err);
    CHECK(tok != NULL);
    if (tok) {
        tc_buf b = {0};
        CHECK(tc_vbin_compile(tok, &b, &st, &err) == TC_ERR_UNSUPPORTED);
        CHECK(strstr(err.msg, "not byte-level") != NULL);
        tc_buf_free(&b);
        tc_free(tok);
    } else {
        fprintf(stderr, "  load plain: %s\n", err.msg);
    }
}

/* ---- a real file ----------------------------------------------------- */

static double now_ms(void) {
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void test_file(const char *path) {
    tc_error err = {0};
    tc_file f;
    if (tc_file_read(path, (size_t)1 << 30, &f, &err) != TC_OK) {
        fprintf(stderr, "%s\n", err.msg);
        g_fail++;
        return;
    }
    tc_vbin v;
    double t0 = now_ms();
    int rc = tc_vbin_parse(f.data, f.len, &v, &err);
    double t1 = now_ms();
    CHECK(rc == TC_OK);
    if (rc != TC_OK) {
        fprintf(stderr, "%s\n", err.msg);
        tc_file_free(&f);
        return;
    }
    CHECK(tc_vbin_detect(f.data, f.len) == 1);
    printf("%s: N = %u, %zu bytes, trailing %zu, parse %.2f ms\n", path, v.n, f.len, v.trailing, t1 - t0);
    tc_buf j = {0};
    t0 = now_ms();
    CHECK(tc_vbin_audit(&v, &j) == TC_OK);
    t1 = now_ms();
    CHECK(tc_buf_push(&j, 0) == 0);
    printf("audit (%.2f ms): %s\n", t1 - t0, (const char *)j.data);
    tc_buf_free(&j);

    /* the seed's question: N edited to N + 48331 (151669 -> 200000) */
    uint8_t *copy = malloc(f.len);
    if (copy) {
        memcpy(copy, f.data, f.len);
        uint32_t bigger = v.n + 48331u;
        for (int i = 0; i < 4; i++) copy[i] = (uint8_t)(bigger >> (8 * i));
        tc_vbin w;
        char where[96];
        snprintf(where, sizeof where, "truncated entry header at entry %u, offset %zu", v.n, f.len - v.trailing);
        CHECK(tc_vbin_parse(copy, f.len - v.trailing, &w, &err) != TC_OK);
        CHECK(strstr(err.msg, where) != NULL);
        printf("N = %u: %s\n", bigger, err.msg);
        free(copy);
    }
    tc_vbin_free(&v);
    tc_file_free(&f);
}

int main(int argc, char **argv) {
    test_parse_ok();
    test_parse_errors();
    test_parse_fuzz();
    test_stored_form();
    test_audit();
    test_compile();
    if (argc > 1) test_file(argv[1]);
    printf("%d passed, %d failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
