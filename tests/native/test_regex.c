/* test_regex.c - unit tests of native/src/regex.c.
 * Build: cc -std=c11 -Wall -Wextra -Werror -O2 -I native/src tests/native/test_regex.c \
 *        native/src/regex.c native/src/common.c native/src/unicode.c -o test_regex
 * (tests/native/unicode_stub.c may replace unicode.c). Prints
 * "N passed, M failed"; exit status nonzero on any failure. */
#include "../../native/src/regex.h"
#include "../../native/src/unicode.h"

#include <stdio.h>
#include <time.h>

static int passed, failed;

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (cond) passed++;                                                \
        else {                                                             \
            failed++;                                                      \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                    \
            printf(__VA_ARGS__);                                           \
            printf("\n");                                                  \
        }                                                                  \
    } while (0)

#define PAT_GPT2 "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+"
#define PAT_QWEN2 "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"
#define PAT_CL100K "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"
#define PAT_O200K "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"

/* generated from HF tokenizers 0.23.3 (Oniguruma) by a one-off script */
static const struct real_case { const char *pat; const char *subj; size_t n; size_t spans[64]; } REAL_CASES[] = {
    {PAT_GPT2, "Hello world's   123 test!!  \x0a""\x0a""I'LL  don't", 15, {0, 5, 5, 11, 11, 13, 13, 15, 15, 19, 19, 24, 24, 26, 26, 29, 29, 30, 30, 31, 31, 32, 32, 34, 34, 35, 35, 39, 39, 41}},
    {PAT_GPT2, "  \xc2""\xa0""\xe3""\x80""\x80""x\x09""\x09""y 12\xd9""\xa1""\xd9""\xa2"" \xe2""\x85""\xab""\xc2""\xbd""", 8, {0, 4, 4, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 18, 18, 24}},
    {PAT_QWEN2, "I'M here, it's 2024!\x0d""\x0a""\x0d""\x0a""  x\xe4""\xb8""\xad""\xe6""\x96""\x87"" \xf0""\x9f""\x98""\x80""\xe2""\x80""\x8d""", 15, {0, 1, 1, 3, 3, 8, 8, 9, 9, 12, 12, 14, 14, 15, 15, 16, 16, 17, 17, 18, 18, 19, 19, 24, 24, 25, 25, 33, 33, 41}},
    {PAT_QWEN2, "'\xc5""\xbf"" 'S 'Re \xcc""\x81""e\xcc""\x81"" // \x0a"" \x1c""\x1d"" x", 12, {0, 3, 3, 5, 5, 6, 6, 8, 8, 10, 10, 13, 13, 14, 14, 16, 16, 19, 19, 21, 21, 24, 24, 26}},
    {PAT_CL100K, "12345678 \xef""\xbc""\x91""\xef""\xbc""\x92""\xef""\xbc""\x93""\xef""\xbc""\x94"" ab'll 'LL ..\x0a""\x0a""\x0a""  \x0a""", 12, {0, 3, 3, 6, 6, 8, 8, 9, 9, 18, 18, 21, 21, 24, 24, 27, 27, 29, 29, 31, 31, 37, 37, 40}},
    {PAT_CL100K, "\xe0""\xb8""\xa0""\xe0""\xb8""\xb2""\xe0""\xb8""\xa9""\xe0""\xb8""\xb2"" \xed""\x95""\x9c""\xea""\xb5""\xad""\xec""\x96""\xb4""  \xe2""\x80""\xa8"" \xc2""\x85""x", 4, {0, 12, 12, 22, 22, 28, 28, 31}},
    {PAT_O200K, "HelloWorld THEnd camelCase'S I'd //path/to\x0a""\x0a"" 12345", 13, {0, 5, 5, 10, 10, 16, 16, 22, 22, 28, 28, 32, 32, 35, 35, 39, 39, 42, 42, 44, 44, 45, 45, 48, 48, 50}},
    {PAT_O200K, "\xc7""\x85""a \xca""\xb0""b \xcc""\x81""\xcc""\x81""A \xe4""\xb8""\xad""A x\x0b""\x0b""y", 9, {0, 3, 3, 7, 7, 12, 12, 13, 13, 17, 17, 18, 18, 20, 20, 21, 21, 23}},
};

static tc_regex *comp(const char *pat) {
    tc_error err = {0, {0}};
    tc_regex *re = tc_regex_compile(pat, strlen(pat), &err);
    CHECK(re != NULL, "compile %s: %s", pat, err.msg);
    return re;
}

/* expect: "s:e s:e" (byte offsets) or "" for none */
static void expect_all_len(const char *pat, const char *subj, size_t len, const char *expect) {
    tc_regex *re = comp(pat);
    if (!re) return;
    size_t *out = NULL, n = 0, cap = 0;
    int rc = tc_regex_find_all(re, (const uint8_t *)subj, len, &out, &n, &cap);
    char got[2048];
    size_t gl = 0;
    got[0] = 0;
    for (size_t i = 0; i < n && gl + 48 < sizeof got; i++)
        gl += (size_t)snprintf(got + gl, sizeof got - gl, i ? " %zu:%zu" : "%zu:%zu", out[2 * i], out[2 * i + 1]);
    CHECK(rc == 0 && strcmp(got, expect) == 0, "pattern %s: rc=%d got \"%s\" want \"%s\"", pat, rc, got, expect);
    free(out);
    tc_regex_free(re);
}

static void expect_all(const char *pat, const char *subj, const char *expect) {
    expect_all_len(pat, subj, strlen(subj), expect);
}

static void expect_error(const char *pat, int code, const char *needle) {
    tc_error err = {0, {0}};
    tc_regex *re = tc_regex_compile(pat, strlen(pat), &err);
    CHECK(re == NULL && err.code == code && strstr(err.msg, needle) != NULL,
          "pattern %s: want error %d containing \"%s\", got %s code %d msg \"%s\"", pat, code, needle,
          re ? "success" : "failure", err.code, err.msg);
    tc_regex_free(re);
}

static void test_real_patterns(void) {
    for (size_t c = 0; c < sizeof REAL_CASES / sizeof REAL_CASES[0]; c++) {
        const struct real_case *rc = &REAL_CASES[c];
        tc_regex *re = comp(rc->pat);
        if (!re) continue;
        size_t *out = NULL, n = 0, cap = 0;
        int r = tc_regex_find_all(re, (const uint8_t *)rc->subj, strlen(rc->subj), &out, &n, &cap);
        int same = r == 0 && n == rc->n;
        for (size_t i = 0; same && i < n; i++)
            same = out[2 * i] == rc->spans[2 * i] && out[2 * i + 1] == rc->spans[2 * i + 1];
        CHECK(same, "real case %zu: rc=%d n=%zu want %zu", c, r, n, rc->n);
        free(out);
        tc_regex_free(re);
    }
}

static void test_basics(void) {
    expect_all("\\d+", "ab 12 \xd9\xa3\xd9\xa4 x\xef\xbc\x91", "3:5 6:10 12:15");
    expect_all("[0-9]", "a1b22", "1:2 3:4 4:5");
    expect_all(" ", "a b  c", "1:2 3:4 4:5");
    expect_all("\\s+", "a \t\nb\xc2\xa0\xe3\x80\x80" "c\x1c", "1:4 5:10");
    expect_all("\xe2\x96\x81", "\xe2\x96\x81" "a\xe2\x96\x81\xe2\x96\x81", "0:3 4:7 7:10");
    expect_all("(?i)abc", "ABC aBc abd", "0:3 4:7");
    expect_all("a|ab", "ab", "0:1");
    expect_all("(a|ab)(c|bcd)", "abcd", "0:4");
    expect_all("a{2,3}?", "aaaaa", "0:2 2:4");
    expect_all("a{2,3}", "aaaaa", "0:3 3:5");
    expect_all("a{2}", "aaaaa", "0:2 2:4");
    expect_all("a{,2}b", "aaab", "1:4");
    expect_all("x{2,}", "x xx xxxxx", "2:4 5:10");
    expect_all("a+?", "aaa", "0:1 1:2 2:3");
    expect_all("a*?b", "aaab", "0:4");
    expect_all(".", "a\nb\r", "0:1 2:3 3:4");
    expect_all(".+", "ab\ncd", "0:2 3:5");
    expect_all("\\w+", "a_1\xe2\x85\xab\xc2\xbd\xcc\x81\xe2\x80\xbf-x", "0:13 14:15");
    expect_all("\\W", "a-b", "1:2");
    expect_all("\\D+", "ab1", "0:2");
    expect_all("\\h+", "0aF g", "0:3");
    expect_all("\\x41\\u00e9\\x{1F600}", "A\xc3\xa9\xf0\x9f\x98\x80", "0:7");
    expect_all("[\\t\\n]+", "a\t\n\tb", "1:4");
    expect_all("\\.\\*\\[", ".*[", "0:3");
    expect_all("a{", "a{", "0:2");
    expect_all("{x}", "{x}", "0:3");
    expect_all("[]a]", "]a", "0:1 1:2");
    expect_all("[a-]", "-", "0:1");
    expect_all("[\\p{Lu}\\d]+", "aB1c", "1:3");
    expect_all("\\p{^L}", "a1", "1:2");
    expect_all("\\P{^L}", "a1", "0:1");
    expect_all("[\\P{L}]", "a1", "1:2");
    expect_all("\\p{Uppercase_Letter}", "aA", "1:2");
    expect_all("\\p{ l }", "a1", "0:1");
    expect_all("(?#comment)a", "a", "0:1");
    expect_all("(?<name>a)b", "ab", "0:2");
}

static void test_anchors_and_look(void) {
    expect_all("^a", "a\na", "0:1 2:3");
    expect_all("a$", "a\na\n", "0:1 2:3");
    expect_all("a\\Z", "a\na\n", "2:3");
    expect_all("a\\z", "a\na\n", "");
    expect_all("\n^", "a\n", "");      /* Onig: ^ never matches at the very end */
    expect_all("\n^", "a\nb\n", "1:2");
    expect_all("\\Aa", "aa", "0:1");
    expect_all("a(?=b)", "ab ac", "0:1");
    expect_all("a(?!b)", "ab ac", "3:4");
    expect_all("(?=a(?!b))a.", "ab ac", "3:5");
    expect_all("\\s+(?!\\S)|\\s+", "a   b  ", "1:3 3:4 5:7");
    expect_all("(?!)|b", "ab", "1:2");
}

static void test_empty_semantics(void) {
    /* Onig find_iter: empty match right after the previous match is skipped */
    expect_all("x*", "axxb", "0:0 1:3 4:4");
    expect_all("", "ab", "0:0 1:1 2:2");
    expect_all("a|", "bab", "0:0 1:2 3:3");
    expect_all("(a*)*", "aab", "0:2 3:3");
    expect_all("(?:x?)+y", "xxy y", "0:3 4:5");
    expect_all("(a|)+b", "aab", "0:3");
    expect_all("(?:a*?)*?b", "aab", "0:3");
}

static void test_icase(void) {
    expect_all("(?i:'s|'ll)", "'S '\xc5\xbf 'lL 'LL", "0:2 3:6 7:10 11:14");
    expect_all("(?i)k", "K\xe2\x84\xaak", "0:1 1:4 4:5");
    expect_all("(?i)[a-z]+", "AK\xe2\x84\xaa\xc5\xbf-", "0:7");
    expect_all("(?i)[\xe2\x84\xaa]", "kK", "0:1 1:2");
    expect_all("(?i:\\p{Lu})", "aA", "1:2");        /* escapes outside [] are not folded */
    expect_all("(?i:[\\p{Lu}])", "aA1", "0:1 1:2"); /* bracket classes are */
    expect_all("(?i)[^\\p{Ll}]", "aA1", "2:3");
    expect_all("(?i)[^k]", "kK\xe2\x84\xaa" "x", "5:6");
    expect_all("a(?i)b|c", "c aB", "2:4");
    expect_all("(?i)a(?-i)b", "Ab AB", "0:2");
    expect_all("(?i)\xc3\x89T\xc3\x89", "\xc3\xa9t\xc3\xa9", "0:5");
}

static void test_utf8_and_invalid(void) {
    const char s[] = "a\xff\xe2\x82" "x\xe2\x82\xac";
    expect_all_len(".", s, sizeof s - 1, "0:1 1:2 2:3 3:4 4:5 5:8");
    expect_all_len(".*x", s, sizeof s - 1, "0:5");
    expect_all_len("\\p{Cn}+", s, sizeof s - 1, "1:4");
    expect_all_len("[^a]+?\\p{Sc}", s, sizeof s - 1, "1:8");
    expect_all_len("\\s", s, sizeof s - 1, "");
    expect_all("\\p{L}*\xc3\xa9", "\xc3\xa9\xc3\xa9\xc3\xa9", "0:6");
    expect_all(".*\\p{Lu}", "a\xc3\x89" "b", "0:3");
    expect_all("\\S*\xe2\x82\xac", "\xe2\x82\xac\xe2\x82\xac" "a", "0:6");
}

static void test_search(void) {
    tc_regex *re = comp("\\p{L}+");
    if (!re) return;
    const uint8_t *s = (const uint8_t *)"12 ab cd";
    size_t ms = 99, me = 99;
    CHECK(tc_regex_search(re, s, 8, 0, &ms, &me) == 1 && ms == 3 && me == 5, "search from 0: %zu %zu", ms, me);
    CHECK(tc_regex_search(re, s, 8, 4, &ms, &me) == 1 && ms == 4 && me == 5, "search from 4: %zu %zu", ms, me);
    CHECK(tc_regex_search(re, s, 8, 5, &ms, &me) == 1 && ms == 6 && me == 8, "search from 5");
    CHECK(tc_regex_search(re, s, 8, 8, &ms, &me) == 0, "search at end");
    CHECK(tc_regex_search(re, s, 2, 0, &ms, &me) == 0, "search no match");
    CHECK(tc_regex_search(re, s, 8, 9, &ms, &me) == 0, "search beyond end");
    CHECK(tc_regex_program_size(re) > 0, "program size");
    tc_buf b = {0};
    CHECK(tc_regex_describe(re, &b) == 0 && b.len > 0, "describe");
    tc_buf_free(&b);
    tc_regex_free(re);
    re = comp("^b");
    if (re) {
        CHECK(tc_regex_search(re, (const uint8_t *)"ab", 2, 1, &ms, &me) == 0, "^ is not start-of-search");
        tc_regex_free(re);
    }
    re = comp("\\Ab");
    if (re) {
        CHECK(tc_regex_search(re, (const uint8_t *)"ab", 2, 1, &ms, &me) == 0, "\\A is start-of-subject");
        tc_regex_free(re);
    }
    tc_regex_free(NULL);
}

static void test_errors(void) {
    expect_error("(?<=a)b", TC_ERR_UNSUPPORTED, "lookbehind");
    expect_error("(?<!a)b", TC_ERR_UNSUPPORTED, "lookbehind");
    expect_error("(a)\\1", TC_ERR_UNSUPPORTED, "backreference");
    expect_error("a*+", TC_ERR_UNSUPPORTED, "possessive");
    expect_error("(?>a)", TC_ERR_UNSUPPORTED, "atomic");
    expect_error("[[:alpha:]]", TC_ERR_UNSUPPORTED, "POSIX");
    expect_error("[a[b]]", TC_ERR_UNSUPPORTED, "nested");
    expect_error("[a&&b]", TC_ERR_UNSUPPORTED, "intersection");
    expect_error("\\p{Greek}", TC_ERR_UNSUPPORTED, "property");
    expect_error("\\pL", TC_ERR_UNSUPPORTED, "\\p");
    expect_error("\\b", TC_ERR_UNSUPPORTED, "word boundary");
    expect_error("(?m)a", TC_ERR_UNSUPPORTED, "option");
    expect_error("(a", TC_ERR_FORMAT, "missing )");
    expect_error("a)", TC_ERR_FORMAT, "unmatched )");
    expect_error("*a", TC_ERR_FORMAT, "repeat");
    expect_error("a|+", TC_ERR_FORMAT, "offset 2");
    expect_error("[a", TC_ERR_FORMAT, "unterminated");
    expect_error("[z-a]", TC_ERR_FORMAT, "range");
    expect_error("\\", TC_ERR_FORMAT, "trailing");
    expect_error("\\x{110000}", TC_ERR_FORMAT, "too large");
    expect_error("a{3,2}", TC_ERR_UNSUPPORTED, "n > m");
    expect_error("a{100001}", TC_ERR_LIMIT, "repeat count");
    expect_error("(?:(?:ab){1000}){200}", TC_ERR_LIMIT, "program too large");
    expect_error("\xff", TC_ERR_FORMAT, "UTF-8");
    char deep[512];
    size_t k = 0;
    for (int i = 0; i < 150; i++) deep[k++] = '(';
    deep[k++] = 'a';
    for (int i = 0; i < 150; i++) deep[k++] = ')';
    deep[k] = 0;
    expect_error(deep, TC_ERR_LIMIT, "nested too deeply");
    k = 0;
    for (int i = 0; i < 40; i++) deep[k++] = '(';
    deep[k++] = 'a';
    for (int i = 0; i < 40; i++) deep[k++] = ')';
    deep[k] = 0;
    expect_all(deep, "ba", "1:2");
    k = 0;
    deep[k++] = 'a';
    for (int i = 0; i < 300; i++) deep[k++] = '?';
    deep[k] = 0;
    expect_error(deep, TC_ERR_LIMIT, "nested too deeply");
}

static void test_step_limit(void) {
    static const char *pats[] = {"(a*)*b", "(a|aa)+$", "(?:a|a)*c", "(\\p{L}+)+\\d"};
    char subj[64];
    memset(subj, 'a', 40);
    subj[40] = '!';
    subj[41] = 0;
    for (size_t i = 0; i < sizeof pats / sizeof pats[0]; i++) {
        tc_regex *re = comp(pats[i]);
        if (!re) continue;
        size_t *out = NULL, n = 0, cap = 0;
        clock_t t0 = clock();
        int rc = tc_regex_find_all(re, (const uint8_t *)subj, 41, &out, &n, &cap);
        double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
        CHECK(rc == -2, "%s: want step limit -2, got %d", pats[i], rc);
        CHECK(secs < 5.0, "%s: step limit took %.2fs", pats[i], secs);
        size_t ms, me;
        CHECK(tc_regex_search(re, (const uint8_t *)subj, 41, 0, &ms, &me) == -2, "%s: search -2", pats[i]);
        free(out);
        tc_regex_free(re);
    }
}

static char *big_text(size_t target, size_t *len) {
    static const char *frags[] = {"Hello", " world", "'s", " 12345", "  ", "\n\n", " \xe4\xb8\xad\xe6\x96\x87",
                                  "!!", " don't", "\t", " \xf0\x9f\x98\x80", " caf\xc3\xa9", "\r\n", " x", "   ",
                                  " \xd0\x96\xd0\xb8\xd0\xb7\xd0\xbd\xd1\x8c", ".", " The", " QUICK", "/path/x"};
    char *t = malloc(target + 64);
    if (!t) return NULL;
    size_t n = 0;
    uint32_t seed = 12345;
    while (n < target) {
        seed = seed * 1103515245u + 12345u;
        const char *f = frags[(seed >> 16) % (sizeof frags / sizeof frags[0])];
        size_t fl = strlen(f);
        memcpy(t + n, f, fl);
        n += fl;
    }
    *len = n;
    return t;
}

static void test_big_linear(void) {
    static const char *pats[] = {PAT_GPT2, PAT_QWEN2, PAT_CL100K, PAT_O200K};
    size_t len;
    char *t = big_text(1u << 20, &len);
    CHECK(t != NULL, "alloc");
    if (!t) return;
    for (size_t i = 0; i < 4; i++) {
        tc_regex *re = comp(pats[i]);
        if (!re) continue;
        size_t *out = NULL, n = 0, cap = 0;
        clock_t t0 = clock();
        int rc = tc_regex_find_all(re, (const uint8_t *)t, len, &out, &n, &cap);
        double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
        /* matches must tile the subject for these patterns */
        int tiled = rc == 0 && n > 0 && out[0] == 0 && out[2 * n - 1] == len;
        for (size_t k = 1; tiled && k < n; k++) tiled = out[2 * k] == out[2 * k - 1];
        CHECK(tiled, "pattern %zu: rc=%d n=%zu not tiling", i, rc, n);
        printf("  find_all pattern %zu on %zu bytes: %zu matches, %.1f MB/s\n", i, len, n,
               secs > 0 ? (double)len / 1e6 / secs : 0.0);
        free(out);
        tc_regex_free(re);
    }
    /* long runs: one big whitespace run and one big letter run */
    memset(t, ' ', len);
    t[len - 1] = 'x';
    char want[64];
    snprintf(want, sizeof want, "0:%zu %zu:%zu", len - 2, len - 2, len - 1);
    expect_all_len("\\s+(?!\\S)|\\s+", t, len, want);
    memset(t, 'a', len);
    snprintf(want, sizeof want, "0:%zu", len);
    expect_all_len("\\p{L}+|\\s*[\\r\\n]+", t, len, want);
    expect_all_len("\\p{L}+(?i:'s)?", t, len, want);
    free(t);
}

/* Regression (fuzz_encode): *cap counts size_t entries, so an array that
 * pretok.c sized for 64 entries (32 pairs) is not overrun when find_all
 * appends 40 pairs; and an empty class compiles (no NULL + 0). */
static void test_find_all_shared_capacity(void) {
    tc_regex *re = comp("a");
    if (!re) return;
    size_t cap = 64, n = 0;
    size_t *out = malloc(cap * sizeof *out);
    char subj[41];
    memset(subj, 'a', 40);
    subj[40] = 0;
    int rc = tc_regex_find_all(re, (const uint8_t *)subj, 40, &out, &n, &cap);
    CHECK(rc == 0 && n == 40 && cap >= 80 && out[78] == 39 && out[79] == 40, "rc=%d n=%zu cap=%zu", rc, n, cap);
    free(out);
    tc_regex_free(re);
    tc_error e = {0};
    re = tc_regex_compile("[^\\x{0}-\\x{10FFFF}]|\\w", 22, &e);
    CHECK(re != NULL, "empty class: %s", e.msg);
    tc_regex_free(re);
}

int main(void) {
    test_find_all_shared_capacity();
    test_real_patterns();
    test_basics();
    test_anchors_and_look();
    test_empty_semantics();
    test_icase();
    test_utf8_and_invalid();
    test_search();
    test_errors();
    test_step_limit();
    test_big_linear();
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
