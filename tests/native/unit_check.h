/* unit_check.h - what the C unit tests share: pass/fail counters, CHECK,
 * and an allocation that ends the test on failure. Each test prints
 * "N passed, M failed" from g_pass / g_fail (tests/test_native_units.py
 * reads that line). */
#ifndef UNIT_CHECK_H
#define UNIT_CHECK_H

#include <stdio.h>
#include <stdlib.h>

static int g_pass, g_fail;

#define CHECK(cond) do { \
        if (cond) g_pass++; \
        else { g_fail++; fprintf(stderr, "%s:%d: FAILED: %s\n", __FILE__, __LINE__, #cond); } \
    } while (0)

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) { fprintf(stderr, "out of memory\n"); exit(2); }
    return p;
}

#endif
