/* fuzz_json.c - the JSON reader (json.h): parse, walk every value, build its path. */
#include "fuzz_common.h"
#include "json.h"

static void walk(const tc_json_doc *doc, const tc_json *v, int depth, size_t len, int *budget) {
    if (--*budget < 0) return;
    FUZZ_CHECK(v->offset <= len);
    char path[128];
    FUZZ_CHECK(tc_json_path(doc, v, path, sizeof path) == 0);
    FUZZ_CHECK(strlen(path) < sizeof path);
    if (v->type == TC_JSON_ARRAY)
        for (uint32_t i = 0; i < v->u.arr.n; i++) walk(doc, &v->u.arr.items[i], depth + 1, len, budget);
    else if (v->type == TC_JSON_OBJECT)
        for (uint32_t i = 0; i < v->u.obj.n; i++) {
            const tc_json_member *m = &v->u.obj.members[i];
            FUZZ_CHECK(m->key[m->key_len] == 0);
            /* tc_json_get takes a C string: keys with an escaped NUL cannot be looked up */
            if (strlen(m->key) == m->key_len) FUZZ_CHECK(tc_json_get(v, m->key) != NULL);
            walk(doc, &m->value, depth + 1, len, budget);
        }
    else if (v->type == TC_JSON_STRING)
        FUZZ_CHECK(v->u.str.s[v->u.str.len] == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    tc_error err = {0};
    /* exact-size copy: any read past the end is an ASan error */
    char *src = malloc(size ? size : 1);
    if (!src) return 0;
    memcpy(src, data, size);
    tc_json_doc *doc = tc_json_parse(src, size, &err);
    if (doc) {
        FUZZ_CHECK(err.code == TC_OK);
        int budget = 20000;
        walk(doc, tc_json_root(doc), 0, size, &budget);
        tc_json_free(doc);
    } else {
        FUZZ_CHECK(err.code != TC_OK);
        fuzz_check_error(&err);
        int line, col;
        tc_json_line_col(src, size, size, &line, &col);
        tc_json_line_col(src, size, size / 2, &line, &col);
    }
    free(src);
    return 0;
}
