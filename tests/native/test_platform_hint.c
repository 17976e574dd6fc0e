/* test_platform_hint.c - tc_hint_large (platform.c): the huge-page hint on an encode's large output
 * arrays. It must leave every byte of a block as it was, accept any pointer and size (NULL, small,
 * unaligned), and on Linux mark the 2 MiB-aligned interior of a block of 4 MiB or more for huge
 * pages: /proc/self/smaps shows the flag ("hg" in VmFlags) on the mapping that holds it. */
#include "unit_check.h"

#include <stdint.h>
#include <string.h>

#include "platform.h"

static void fill(uint8_t *p, size_t n, unsigned seed) {
    for (size_t i = 0; i < n; i++) p[i] = (uint8_t)(i * 131u + seed);
}

static int same(const uint8_t *p, size_t n, unsigned seed) {
    for (size_t i = 0; i < n; i++)
        if (p[i] != (uint8_t)(i * 131u + seed)) return 0;
    return 1;
}

#if defined(__linux__)
/* 1 if the smaps mapping that holds address a lists flag `hg`, 0 if not, -1 if no mapping was found. */
static int smaps_hg(uintptr_t a) {
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f) return -1;
    char line[512];
    int in = 0, found = -1;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {   /* a mapping's first line: its range */
            in = a >= lo && a < hi;
            continue;
        }
        if (in && strncmp(line, "VmFlags:", 8) == 0) {
            found = strstr(line, " hg") != NULL;
            break;
        }
    }
    fclose(f);
    return found;
}

static int thp_present(void) {
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (!f) return 0;
    fclose(f);
    return 1;
}
#endif

int main(void) {
    tc_hint_large(NULL, 0);
    tc_hint_large(NULL, (size_t)64 << 20);
    const size_t sizes[] = {1, 100, (size_t)3 << 20, ((size_t)4 << 20) + 17, ((size_t)9 << 20) + 4095};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        size_t n = sizes[k];
        uint8_t *p = xmalloc(n);
        fill(p, n, (unsigned)k);
        tc_hint_large(p, n);
        CHECK(same(p, n, (unsigned)k));
        /* an unaligned start inside the block */
        tc_hint_large(p + 1, n - 1);
        CHECK(same(p, n, (unsigned)k));
        fill(p, n, (unsigned)k + 7);   /* still writable everywhere */
        CHECK(same(p, n, (unsigned)k + 7));
#if defined(__linux__)
        if (n >= ((size_t)9 << 20) && thp_present()) {
            const uintptr_t huge = (uintptr_t)2 << 20;
            uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1);
            CHECK(smaps_hg(a) == 1);
        }
#endif
        free(p);
    }
    printf("%d passed, %d failed\n", g_pass, g_fail);
    return g_fail != 0;
}
