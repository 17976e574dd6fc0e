/* test_fastpat_portable.c - test_fastpat.c over the portable classification of a block (one byte at a
 * time through the class table), which targets without SSE2 (the board's aarch64) build. */
#define TC_FASTPAT_PORTABLE 1
#include "test_fastpat.c"
