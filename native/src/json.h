/* json.h - a strict JSON reader producing a read-only tree.
 *
 * Does: RFC 8259 JSON, UTF-8 input only; strings unescaped to UTF-8
 * (\uXXXX with surrogate pairs; a lone surrogate escape, invalid UTF-8,
 * control characters in strings, trailing commas, comments, leading zeros,
 * NaN/Infinity, duplicate keys in one object and trailing non-space data are
 * errors). Every value remembers its byte offset. Errors give the byte
 * offset, line:column and the JSON path being parsed ($.model.vocab["x"]).
 * Nesting deeper than TC_JSON_MAX_DEPTH is an error (no recursion limit
 * problem: the parser does not use the C stack per level).
 * Does not: keep comments, write JSON, or give a mutable tree.
 */
#ifndef TC_JSON_H
#define TC_JSON_H

#include "common.h"

#define TC_JSON_MAX_DEPTH 512

typedef enum tc_json_type {
    TC_JSON_NULL, TC_JSON_FALSE, TC_JSON_TRUE, TC_JSON_NUMBER,
    TC_JSON_STRING, TC_JSON_ARRAY, TC_JSON_OBJECT
} tc_json_type;

typedef struct tc_json tc_json;
typedef struct tc_json_member tc_json_member;

struct tc_json {
    tc_json_type type;
    uint32_t offset;             /* byte offset of the value's first byte */
    union {
        struct { const char *s; uint32_t len; } str;  /* NUL-terminated, may contain NUL */
        struct { double d; int is_int; int64_t i; } num; /* is_int: integral literal fitting int64 */
        struct { tc_json *items; uint32_t n; uint32_t end; } arr;  /* end: offset just past ']' */
        struct { tc_json_member *members; uint32_t n; uint32_t end; } obj;  /* in file order; end: past '}' */
    } u;
};

struct tc_json_member {
    const char *key;   /* NUL-terminated unescaped UTF-8 */
    uint32_t key_len;
    tc_json value;
};

typedef struct tc_json_doc tc_json_doc;

/* Parse src[0..len). On error returns NULL and fills err (TC_ERR_FORMAT,
 * or TC_ERR_LIMIT for depth, TC_ERR_NOMEM). On success err->code is TC_OK.
 * Error text: "JSON error at byte OFFSET (line L, column C) in $.path[3]:
 * reason"; the offset points at the offending byte (len for truncated
 * input: "unexpected end of input while reading ...").
 * The tree is self-contained: every string and key is copied (unescaped)
 * into the document's arena, so src may be freed right after parsing. All
 * tree memory belongs to the doc and is released by tc_json_free. Empty
 * arrays/objects have n == 0 and a NULL items/members pointer. Inputs over
 * 4 GiB are refused (TC_ERR_LIMIT); src need not be NUL-terminated. */
tc_json_doc *tc_json_parse(const char *src, size_t len, tc_error *err);
/* A value not to read: the array or object starting at byte `start` and
 * ending just before byte `end`. */
typedef struct tc_json_span { uint32_t start, end; } tc_json_span;

/* tc_json_parse, except that each value that starts at a span's start
 * (an array or object whose last byte, at end - 1, is its closing bracket)
 * is not read: it becomes an empty container of its type (n == 0, end set)
 * and parsing resumes at the span's end. For a document already parsed
 * whole before (its sha256 known to match): the skipped bytes are not
 * checked. A span that does not fit (not at a value, not bracketed, past
 * the input) is an error like any other malformed input. */
tc_json_doc *tc_json_parse_skipping(const char *src, size_t len, const tc_json_span *skip, size_t nskip,
                                    tc_error *err);
const tc_json *tc_json_root(const tc_json_doc *doc);
void tc_json_free(tc_json_doc *doc);

/* Member lookup in an object (NULL if absent or v is not an object).
 * Linear for small objects; fine for config objects. */
const tc_json *tc_json_get(const tc_json *obj, const char *key);

/* Line and column (1-based, column in bytes) of a byte offset. */
void tc_json_line_col(const char *src, size_t len, size_t offset, int *line, int *col);

/* Writes the JSON path of v (a value inside doc's tree) into out, e.g.
 * $.model.vocab["<|x|>"] or $.merges[17][0], for error messages of code
 * that interprets the tree. Keys that are identifiers use .key, others
 * ["escaped"] shortened to 40 bytes. Truncated to cap-1 bytes, always
 * NUL-terminated (cap > 0). Cost O(depth * log(width)), no allocation.
 * Returns 0, or -1 if v is not in doc (out then holds the path prefix). */
int tc_json_path(const tc_json_doc *doc, const tc_json *v, char *out, size_t cap);

#endif
