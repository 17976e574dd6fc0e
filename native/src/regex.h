/* regex.h - the engine's own regex matcher for pre-tokenizer patterns.
 *
 * Does: compile and search the subset of Oniguruma/fancy-regex syntax used
 * by real `Split` patterns (GPT-2, Qwen2, Llama-3, cl100k, o200k and
 * similar): literals, escapes, `.`, alternation, (...) (?:...) (?i:...)
 * (?i) groups, classes [..] [^..] with ranges and \p{..}/\P{..} general
 * categories (short and long names), \s \S \d \D \w \W \r \n \t \f \v
 * \xHH \x{H..} \uHHHH, quantifiers ? * + {m} {m,} {m,n} greedy and lazy,
 * lookahead (?=..) (?!..), anchors ^ $ \A \z. Matching is over code
 * points of UTF-8 (invalid bytes are single units of category Cn), with
 * backtracking semantics identical to Oniguruma (leftmost, first
 * alternative wins, greedy/lazy as written).
 * Does not: capture groups for the caller, lookbehind, backreferences,
 * possessive quantifiers, named classes like [[:alpha:]] - compile fails
 * with a message naming the construct and its offset in the pattern.
 * Limits: a search that exceeds TC_REGEX_STEP_LIMIT backtracking steps per
 * byte of subject fails with -2 rather than hang.
 */
#ifndef TC_REGEX_H
#define TC_REGEX_H

#include "common.h"
#include "unicode.h"

typedef struct tc_regex tc_regex;

/* Compile. On failure returns NULL and fills err (TC_ERR_UNSUPPORTED for
 * constructs outside the subset, TC_ERR_FORMAT for syntax errors; message
 * names the construct and its byte offset in the pattern). */
tc_regex *tc_regex_compile(const char *pattern, size_t len, tc_error *err);
/* The same, with the class semantics of one reference engine: TC_RX_ONIG
 * (HF tokenizers' Oniguruma: tokenizer.json; what tc_regex_compile uses) or
 * TC_RX_RUST (tiktoken's regex crate: rank files). */
tc_regex *tc_regex_compile_flavor(const char *pattern, size_t len, tc_rx_flavor flavor, tc_error *err);
void tc_regex_free(tc_regex *re);

/* Search subject[0..len) for the leftmost match starting at or after byte
 * `from` (always at a unit boundary). Returns 1 with [*ms, *me) set, 0 for
 * no match, -1 allocation failure, -2 step limit exceeded. Thread-safe: a
 * compiled regex is immutable; any scratch memory is per call. */
int tc_regex_search(const tc_regex *re, const uint8_t *subject, size_t len, size_t from,
                    size_t *ms, size_t *me);

/* All matches as Oniguruma's find_iter yields them (an empty match right
 * at the end of the previous match is skipped by advancing one unit).
 * Appends pairs (start, end) to *out (growable, *n pairs, *cap capacity in
 * size_t entries, i.e. 2 per pair: the convention of the engine's other
 * match lists, so a caller may share one array and capacity between them).
 * Returns 0, -1 allocation failure, -2 step limit. */
int tc_regex_find_all(const tc_regex *re, const uint8_t *subject, size_t len,
                      size_t **out, size_t *n, size_t *cap);

/* Introspection (debugging / the inspector UI): number of VM instructions,
 * and a textual listing of the compiled program appended to *out.
 * tc_regex_describe returns 0 or -1 on allocation failure. */
size_t tc_regex_program_size(const tc_regex *re);
int tc_regex_describe(const tc_regex *re, tc_buf *out);

#endif
