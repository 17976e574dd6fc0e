/* platform.c - file access: whole reads and guarded pread()s (see
 * platform.h for why nothing is memory-mapped), POSIX and Windows.
 * Everything OS-specific in the engine is here and nowhere else. */
#if defined(__linux__) && !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE   /* MAP_ANONYMOUS and madvise(MADV_HUGEPAGE), for tc_table_alloc */
#endif
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#include "platform.h"

#include <errno.h>
#include <stdio.h>

static char *dup_path(const char *path) {
    size_t n = strlen(path) + 1;
    char *p = malloc(n);
    if (p) memcpy(p, path, n);
    return p;
}

static int changed(const tc_file *f, tc_error *err, const char *what) {
    return tc_error_set(err, TC_ERR_IO, "%s: the file changed while open (%s); open it again",
                        f->path ? f->path : "?", what);
}

#if defined(_WIN32)

#include <fcntl.h>
#include <io.h>

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
    f->data = b.data; f->len = b.len;
    return TC_OK;
}

int tc_file_read_head(const char *path, size_t max_bytes, size_t n, tc_buf *out, uint64_t *size, tc_error *err) {
    FILE *fp = fopen(path, "rb");
    if (!fp) return tc_error_set(err, TC_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    if (_fseeki64(fp, 0, SEEK_END) != 0) { fclose(fp); return tc_error_set(err, TC_ERR_IO, "%s: cannot seek", path); }
    long long end = _ftelli64(fp);
    rewind(fp);
    if (end < 0) { fclose(fp); return tc_error_set(err, TC_ERR_IO, "%s: cannot tell its size", path); }
    if ((unsigned long long)end > (unsigned long long)max_bytes) {
        fclose(fp);
        return tc_error_set(err, TC_ERR_LIMIT, "%s: %lld bytes, larger than the limit of %zu bytes", path, end, max_bytes);
    }
    *size = (uint64_t)end;
    if (tc_buf_reserve(out, n) != 0) { fclose(fp); return tc_error_set(err, TC_ERR_NOMEM, "%s: out of memory", path); }
    size_t got = fread(out->data + out->len, 1, n, fp);
    int bad = ferror(fp);
    fclose(fp);
    if (bad) return tc_error_set(err, TC_ERR_IO, "%s: read error", path);
    out->len += got;
    return TC_OK;
}

/* The C runtime's stdio is in text mode on Windows: "\n" written becomes
 * "\r\n", and reading turns "\r\n" into "\n" and stops at a Ctrl-Z byte. The
 * JSON Lines protocol is bytes, the same on every host. */
void tc_stdio_binary(void) {
    (void)_setmode(_fileno(stdin), _O_BINARY);
    (void)_setmode(_fileno(stdout), _O_BINARY);
    (void)_setmode(_fileno(stderr), _O_BINARY);
}

/* Windows: the file is read whole and the "guarded" reads copy from memory. */
int tc_file_open_guarded(const char *path, size_t max_bytes, tc_file *f, tc_error *err) {
    int r = tc_file_read(path, max_bytes, f, err);
    if (r != TC_OK) return r;
    f->path = dup_path(path);
    if (!f->path) { tc_file_free(f); return tc_error_set(err, TC_ERR_NOMEM, "%s: out of memory", path); }
    return TC_OK;
}

int tc_file_check(const tc_file *f, tc_error *err) {
    (void)f; (void)err;
    return TC_OK;
}

int tc_file_pread(const tc_file *f, uint64_t off, void *buf, size_t n, tc_error *err) {
    if (off > f->len || n > f->len - (size_t)off) return changed(f, err, "a read past its end");
    if (n) memcpy(buf, f->data + off, n);
    return TC_OK;
}

void tc_file_free(tc_file *f) {
    free(f->data);
    free(f->path);
    memset(f, 0, sizeof *f);
}

#else

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

void tc_stdio_binary(void) {}  /* POSIX stdio has no text mode */

static long long st_mtime_ns(const struct stat *st) { return (long long)st->st_mtim.tv_nsec; }

/* Opens a regular file of at most max_bytes for reading: the descriptor in
 * *fd and its stat in *st, or an error naming the file. */
static int open_regular(const char *path, size_t max_bytes, int *fd, struct stat *st, tc_error *err) {
    *fd = open(path, O_RDONLY);
    if (*fd < 0) return tc_error_set(err, TC_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    if (fstat(*fd, st) != 0) {
        int e = errno; close(*fd);
        return tc_error_set(err, TC_ERR_IO, "%s: cannot stat: %s", path, strerror(e));
    }
    if (S_ISDIR(st->st_mode)) { close(*fd); return tc_error_set(err, TC_ERR_IO, "%s: a directory, not a tokenizer file", path); }
    if (!S_ISREG(st->st_mode)) { close(*fd); return tc_error_set(err, TC_ERR_IO, "%s: not a regular file", path); }
    if ((unsigned long long)st->st_size > (unsigned long long)max_bytes) {
        close(*fd);
        return tc_error_set(err, TC_ERR_LIMIT, "%s: %lld bytes, larger than the limit of %zu bytes",
                            path, (long long)st->st_size, max_bytes);
    }
    return TC_OK;
}

int tc_file_read(const char *path, size_t max_bytes, tc_file *f, tc_error *err) {
    memset(f, 0, sizeof *f);
    int fd;
    struct stat st;
    int r = open_regular(path, max_bytes, &fd, &st, err);
    if (r != TC_OK) return r;
    /* read() until the end: the size from fstat is only the first guess
     * (the file may shrink or grow meanwhile); one byte more than the
     * limit tells a file that grew past it. */
    size_t cap = (size_t)st.st_size + 1, len = 0;
    uint8_t *buf = malloc(cap);
    if (!buf) { close(fd); return tc_error_set(err, TC_ERR_NOMEM, "%s: out of memory (%zu bytes)", path, cap); }
    for (;;) {
        if (len == cap) {
            if (cap > max_bytes) {
                free(buf); close(fd);
                return tc_error_set(err, TC_ERR_LIMIT, "%s: grew past the limit of %zu bytes while read", path, max_bytes);
            }
            size_t ncap = cap > max_bytes - cap ? max_bytes + 1 : cap * 2;
            uint8_t *nb = realloc(buf, ncap);
            if (!nb) { free(buf); close(fd); return tc_error_set(err, TC_ERR_NOMEM, "%s: out of memory", path); }
            buf = nb; cap = ncap;
        }
        ssize_t n = read(fd, buf + len, cap - len);
        if (n < 0) {
            if (errno == EINTR) continue;
            int e = errno; free(buf); close(fd);
            return tc_error_set(err, TC_ERR_IO, "%s: read error: %s", path, strerror(e));
        }
        if (n == 0) break;
        len += (size_t)n;
    }
    close(fd);
    if (len > max_bytes) {
        free(buf);
        return tc_error_set(err, TC_ERR_LIMIT, "%s: grew past the limit of %zu bytes while read", path, max_bytes);
    }
    if (len == 0) { free(buf); buf = NULL; }
    f->data = buf; f->len = len;
    return TC_OK;
}

int tc_file_read_head(const char *path, size_t max_bytes, size_t n, tc_buf *out, uint64_t *size, tc_error *err) {
    int fd;
    struct stat st;
    int r = open_regular(path, max_bytes, &fd, &st, err);
    if (r != TC_OK) return r;
    *size = (uint64_t)st.st_size;
    if (tc_buf_reserve(out, n) != 0) { close(fd); return tc_error_set(err, TC_ERR_NOMEM, "%s: out of memory", path); }
    size_t got = 0;
    while (got < n) {
        ssize_t k = read(fd, out->data + out->len + got, n - got);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) {
            int e = errno; close(fd);
            return tc_error_set(err, TC_ERR_IO, "%s: read error: %s", path, strerror(e));
        }
        if (k == 0) break;
        got += (size_t)k;
    }
    close(fd);
    out->len += got;
    return TC_OK;
}

int tc_file_open_guarded(const char *path, size_t max_bytes, tc_file *f, tc_error *err) {
    memset(f, 0, sizeof *f);
    int fd;
    struct stat st;
    int r = open_regular(path, max_bytes, &fd, &st, err);
    if (r != TC_OK) return r;
    f->path = dup_path(path);
    if (!f->path) { close(fd); return tc_error_set(err, TC_ERR_NOMEM, "%s: out of memory", path); }
    f->fd = fd;
    f->guarded = 1;
    f->len = (size_t)st.st_size;
    f->mtime_s = (long long)st.st_mtime;
    f->mtime_ns = st_mtime_ns(&st);
    f->ino = (unsigned long long)st.st_ino;
    f->dev = (unsigned long long)st.st_dev;
    return TC_OK;
}

int tc_file_check(const tc_file *f, tc_error *err) {
    if (!f->guarded) return TC_OK;  /* read whole: nothing can change under it */
    struct stat st;
    if (fstat(f->fd, &st) != 0) return changed(f, err, "cannot stat it");
    if ((unsigned long long)st.st_size != (unsigned long long)f->len) {
        char what[96];
        snprintf(what, sizeof what, "now %lld bytes, %zu when opened", (long long)st.st_size, f->len);
        return changed(f, err, what);
    }
    if ((long long)st.st_mtime != f->mtime_s || st_mtime_ns(&st) != f->mtime_ns)
        return changed(f, err, "modified since it was opened");
    if (stat(f->path, &st) == 0 && ((unsigned long long)st.st_ino != f->ino || (unsigned long long)st.st_dev != f->dev))
        return changed(f, err, "replaced by another file");
    return TC_OK;
}

int tc_file_pread(const tc_file *f, uint64_t off, void *buf, size_t n, tc_error *err) {
    if (!f->guarded) {
        if (off > f->len || n > f->len - (size_t)off) return changed(f, err, "a read past its end");
        if (n) memcpy(buf, f->data + off, n);
        return TC_OK;
    }
    int r = tc_file_check(f, err);
    if (r != TC_OK) return r;
    if (off > f->len || n > f->len - (size_t)off) return changed(f, err, "a read past its end");
    size_t got = 0;
    while (got < n) {
        ssize_t k = pread(f->fd, (uint8_t *)buf + got, n - got, (off_t)(off + got));
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) {
            char what[96];
            snprintf(what, sizeof what, "read error: %s", strerror(errno));
            return changed(f, err, what);
        }
        if (k == 0) return changed(f, err, "it is shorter than when opened");
        got += (size_t)k;
    }
    return TC_OK;
}

void tc_file_free(tc_file *f) {
    free(f->data);
    free(f->path);
    if (f->guarded) close(f->fd);
    memset(f, 0, sizeof *f);
}

#endif

/* ---- threads (platform.h) ---------------------------------------------------
 * Each started thread gets a trampoline record {fn, arg}; the records and the
 * thread handles live in one allocation for the call. A thread that fails to
 * start is remembered and its part runs on the caller, after its own part. */

typedef struct thread_rec {
    tc_thread_fn fn;
    void *arg;
    int started;
} thread_rec;

#if defined(_WIN32)

#include <windows.h>

static DWORD WINAPI thread_main(LPVOID p) {
    thread_rec *r = p;
    r->fn(r->arg);
    return 0;
}

typedef HANDLE thread_handle;

static int thread_start(thread_handle *h, thread_rec *r) {
    *h = CreateThread(NULL, 0, thread_main, r, 0, NULL);
    return *h ? 0 : -1;
}

static void thread_join(thread_handle *h) {
    WaitForSingleObject(*h, INFINITE);
    CloseHandle(*h);
}

#else

#include <pthread.h>

static void *thread_main(void *p) {
    thread_rec *r = p;
    r->fn(r->arg);
    return NULL;
}

typedef pthread_t thread_handle;

static int thread_start(thread_handle *h, thread_rec *r) {
    return pthread_create(h, NULL, thread_main, r) == 0 ? 0 : -1;
}

static void thread_join(thread_handle *h) {
    (void)pthread_join(*h, NULL);
}

#endif

unsigned tc_run_threads(unsigned n, tc_thread_fn fn, void *const *args) {
    if (n == 0) return 0;
    unsigned extra = n - 1;
    if (extra > TC_MAX_THREADS - 1) extra = TC_MAX_THREADS - 1;
    thread_rec *recs = extra ? calloc(extra, sizeof *recs) : NULL;
    thread_handle *hs = extra ? calloc(extra, sizeof *hs) : NULL;
    if (!recs || !hs) { free(recs); free(hs); recs = NULL; hs = NULL; extra = 0; }   /* all on the caller */
    unsigned started = 0;
    for (unsigned i = 0; i < extra; i++) {
        recs[i].fn = fn;
        recs[i].arg = args[i + 1];
        recs[i].started = thread_start(&hs[i], &recs[i]) == 0;
        started += (unsigned)recs[i].started;
    }
    fn(args[0]);
    for (unsigned i = 0; i < extra; i++)
        if (!recs[i].started) fn(args[i + 1]);
    for (unsigned i = extra + 1; i < n; i++) fn(args[i]);   /* beyond the cap, or no memory for records */
    for (unsigned i = 0; i < extra; i++)
        if (recs[i].started) thread_join(&hs[i]);
    free(recs);
    free(hs);
    return started + 1;
}

/* ---- large tables (platform.h) ------------------------------------------- */

#if defined(_WIN32)

void *tc_table_alloc(size_t n) {
    /* committed pages read as zero and get memory on first touch */
    return VirtualAlloc(NULL, n, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
}

void tc_table_free(void *p, size_t n) {
    (void)n;
    if (p) VirtualFree(p, 0, MEM_RELEASE);
}

void tc_hint_large(void *p, size_t n) {
    (void)p;
    (void)n;
}

void *tc_alloc_filled(size_t n) { return malloc(n ? n : 1); }

#else

#include <stdlib.h>
#include <sys/mman.h>

#if defined(MAP_ANONYMOUS)
#define TC_MAP_ANON MAP_ANONYMOUS
#elif defined(MAP_ANON)
#define TC_MAP_ANON MAP_ANON
#endif

void *tc_table_alloc(size_t n) {
#if defined(TC_MAP_ANON)
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | TC_MAP_ANON, -1, 0);
    if (p == MAP_FAILED) return NULL;
#if defined(MADV_HUGEPAGE)
    /* a hint: random probes into a 32 MiB table miss the TLB on most 4 KiB pages; refused is fine */
    (void)madvise(p, n, MADV_HUGEPAGE);
#endif
    return p;
#else
    return calloc(1, n);
#endif
}

void tc_table_free(void *p, size_t n) {
    if (!p) return;
#if defined(TC_MAP_ANON)
    (void)munmap(p, n);
#else
    (void)n;
    free(p);
#endif
}

void *tc_alloc_filled(size_t n) {
#if defined(TC_MAP_ANON) && defined(MADV_HUGEPAGE)
    const size_t huge = (size_t)2 << 20;
    if (n >= huge / 2) {
        void *p = NULL;
        size_t whole = n + (huge - 1) > n ? (n + huge - 1) & ~(huge - 1) : n;   /* the last huge page whole */
        if (posix_memalign(&p, huge, whole) != 0) return NULL;
        (void)madvise(p, whole, MADV_HUGEPAGE);   /* a hint: refused is fine */
        return p;
    }
#endif
    return malloc(n ? n : 1);
}

void tc_hint_large(void *p, size_t n) {
#if defined(TC_MAP_ANON) && defined(MADV_HUGEPAGE)
    const uintptr_t huge = (uintptr_t)2 << 20;
    if (!p || n < 2 * huge) return;
    uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1), b = ((uintptr_t)p + n) & ~(huge - 1);
    if (b > a) (void)madvise((void *)a, (size_t)(b - a), MADV_HUGEPAGE);
#else
    (void)p;
    (void)n;
#endif
}

#endif
