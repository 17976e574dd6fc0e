/* fastpat.c - hand-written scanners for well-known split patterns.
 * (filled in below; must agree with regex.c on every input) */
#include "pretok.h"

tc_fastpat tc_fast_detect(const char *pattern, size_t len) {
    (void)pattern; (void)len;
    return TC_FAST_NONE;
}

int tc_fast_find_all(tc_fastpat p, const uint8_t *s, size_t len, size_t **out, size_t *n, size_t *cap) {
    (void)p; (void)s; (void)len; (void)out; (void)n; (void)cap;
    return -1;
}
