/* platform.h - the only place with OS-specific calls (file reading).
 * POSIX and Windows implementations live in platform.c behind #ifdef. */
#ifndef TC_PLATFORM_H
#define TC_PLATFORM_H

#include "common.h"

typedef struct tc_file {
    uint8_t *data;
    size_t len;
    int mapped;     /* 1 when memory-mapped (unmap on free) */
} tc_file;

/* Reads (or maps) a whole file. Limit: max_bytes (error beyond). */
int tc_file_read(const char *path, size_t max_bytes, tc_file *f, tc_error *err);
void tc_file_free(tc_file *f);

#endif
