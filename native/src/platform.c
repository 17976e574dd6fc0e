/* platform.c - file access: mmap on POSIX, plain reads on Windows.
 * Everything OS-specific in the engine is here and nowhere else. */
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#include "platform.h"

#include <errno.h>
#include <stdio.h>

#if defined(_WIN32)

int tc_file_read(const char *path, size_t max_bytes, tc_file *f, tc_error *err) {
    memset(f, 0, sizeof *f);
    FILE *fp = fopen(path, "rb");
    if (!fp) return tc_error_set(err, TC_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    tc_buf b = {0};
    uint8_t chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0) {
        if (b.len + n > max_bytes) {
            fclose(fp); tc_buf_free(&b);
            return tc_error_set(err, TC_ERR_LIMIT, "%s: larger than the limit of %zu bytes", path, max_bytes);
        }
        if (tc_buf_append(&b, chunk, n) != 0) {
            fclose(fp); tc_buf_free(&b);
            return tc_error_set(err, TC_ERR_NOMEM, "%s: out of memory", path);
        }
    }
    int bad = ferror(fp);
    fclose(fp);
    if (bad) { tc_buf_free(&b); return tc_error_set(err, TC_ERR_IO, "%s: read error", path); }
    f->data = b.data; f->len = b.len; f->mapped = 0;
    return TC_OK;
}

void tc_file_free(tc_file *f) {
    free(f->data);
    memset(f, 0, sizeof *f);
}

#else

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int tc_file_read(const char *path, size_t max_bytes, tc_file *f, tc_error *err) {
    memset(f, 0, sizeof *f);
    int fd = open(path, O_RDONLY);
    if (fd < 0) return tc_error_set(err, TC_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno; close(fd);
        return tc_error_set(err, TC_ERR_IO, "%s: cannot stat: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) { close(fd); return tc_error_set(err, TC_ERR_IO, "%s: not a regular file", path); }
    if ((unsigned long long)st.st_size > (unsigned long long)max_bytes) {
        close(fd);
        return tc_error_set(err, TC_ERR_LIMIT, "%s: %lld bytes, larger than the limit of %zu bytes",
                            path, (long long)st.st_size, max_bytes);
    }
    size_t len = (size_t)st.st_size;
    if (len == 0) { close(fd); f->data = NULL; f->len = 0; return TC_OK; }
    void *p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED) return tc_error_set(err, TC_ERR_IO, "%s: cannot map: %s", path, strerror(errno));
    f->data = p; f->len = len; f->mapped = 1;
    return TC_OK;
}

void tc_file_free(tc_file *f) {
    if (f->mapped && f->data) munmap(f->data, f->len);
    else free(f->data);
    memset(f, 0, sizeof *f);
}

#endif
