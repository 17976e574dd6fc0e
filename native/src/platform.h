/* platform.h - the only place with OS-specific calls (file reading).
 * POSIX and Windows implementations live in platform.c behind #ifdef.
 *
 * A mapped file that another process shrinks (an editor or a training
 * script saving in place) raises SIGBUS on the next touch of a page past
 * its new end, which kills the process. So nothing is mapped: tokenizer
 * files of any size are read whole with read() (a file that shrinks
 * meanwhile gives the bytes that were there, and the parser names what is
 * missing), and logits files are opened "guarded": the descriptor stays
 * open and each use reads the bytes it needs with pread() after checking
 * that the file is still the one that was opened, so a change is an error
 * naming the file, never a signal. (Files above 256 MiB used to be mapped so
 * that a big file refused from its first bytes cost no memory; the callers
 * detect the format from the first bytes before they load, so that saving
 * is kept without the map.) */
#ifndef TC_PLATFORM_H
#define TC_PLATFORM_H

#include "common.h"

typedef struct tc_file {
    uint8_t *data;      /* tc_file_read: the whole file (owned); guarded: NULL */
    size_t len;         /* bytes in the file (when read or opened) */
    int guarded;        /* 1: opened by tc_file_open_guarded (fd is open) */
    int fd;             /* guarded: the open descriptor */
    char *path;         /* guarded: a copy of the path, for messages */
    long long mtime_s, mtime_ns;        /* guarded: as opened */
    unsigned long long ino, dev;        /* guarded: as opened */
} tc_file;

/* Reads a whole file into memory with read(). Limit: max_bytes
 * (error beyond). A file that shrinks while it is read gives the bytes
 * that were there; one that grows past max_bytes is an error. */
int tc_file_read(const char *path, size_t max_bytes, tc_file *f, tc_error *err);
/* Reads at most n first bytes of a regular file of at most max_bytes into
 * out (appended), and its size into *size. */
int tc_file_read_head(const char *path, size_t max_bytes, size_t n, tc_buf *out, uint64_t *size, tc_error *err);
/* Opens a file for guarded reads (f->data is NULL, f->len its size). */
int tc_file_open_guarded(const char *path, size_t max_bytes, tc_file *f, tc_error *err);
/* TC_OK when the guarded file has the size, mtime and inode it had when
 * opened; else TC_ERR_IO with "<path>: the file changed while open ...". */
int tc_file_check(const tc_file *f, tc_error *err);
/* Checks, then copies n bytes at offset off into buf. A short read (the
 * file shrank between the check and the read) is the same error. */
int tc_file_pread(const tc_file *f, uint64_t off, void *buf, size_t n, tc_error *err);
void tc_file_free(tc_file *f);
/* Puts stdin, stdout and stderr in binary mode (Windows; nothing elsewhere). */
void tc_stdio_binary(void);

/* ---- threads ------------------------------------------------------------
 * The engine's only threads: tc_encode_batch runs its workers through this.
 * POSIX: pthreads; Windows: CreateThread. */
typedef void (*tc_thread_fn)(void *arg);
/* Runs fn(args[i]) for every i < n, each on a thread of its own, and
 * returns when all have returned. fn(args[0]) runs on the calling thread;
 * a thread that cannot be started (or n above TC_MAX_THREADS) has its part
 * run on the calling thread after the others were started, so the work is
 * always done. Returns how many parts ran on threads of their own. */
#define TC_MAX_THREADS 256u
unsigned tc_run_threads(unsigned n, tc_thread_fn fn, void *const *args);

/* ---- large tables ---------------------------------------------------------
 * n zeroed bytes, page-aligned, for a table probed at random (the chunk
 * cache's slots): pages get memory when first written; on Linux they are
 * asked for as huge pages (fewer TLB misses). NULL if out of memory. */
void *tc_table_alloc(size_t n);
/* Frees a table from tc_table_alloc of the same n (NULL: nothing). */
void tc_table_free(void *p, size_t n);
/* A hint for a large block from malloc/realloc (an encode's output arrays): where the OS has huge pages,
 * asks for them on the block's 2 MiB-aligned interior, so that its first writes fault once per 2 MiB
 * instead of once per 4 KiB page. No effect on the block's contents; a refusal is fine; nothing on other
 * systems or below 4 MiB. */
void tc_hint_large(void *p, size_t n);
/* n bytes (not zeroed) that free() releases, for a large table about to be
 * written whole (a load cache's tables): where the OS has huge pages, the
 * block starts on a 2 MiB boundary and is asked for as huge pages, so that
 * filling it faults once per 2 MiB instead of once per 4 KiB page. Plain
 * malloc elsewhere and below 1 MiB. NULL if out of memory. */
void *tc_alloc_filled(size_t n);

#endif
