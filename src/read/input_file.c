/*
 * input_file.c - read a bounded regular input file whole (rules in
 * input_file.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "read/input_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int fail(int e, char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int fail(int e, char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    errno = e;
    return -1;
}

static const char *kind_of(mode_t m)
{
    if (S_ISDIR(m)) return "a directory";
    if (S_ISFIFO(m)) return "a FIFO";
    if (S_ISCHR(m)) return "a character device";
    if (S_ISBLK(m)) return "a block device";
    if (S_ISSOCK(m)) return "a socket";
    return "not a plain file";
}

int latrec_input_file_read(const char *path, size_t limit, const char *what, char **text, size_t *len, char *err,
                           size_t errlen)
{
    *text = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        int e = errno;
        return fail(e, err, errlen, "%s: %s", path, strerror(e));
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return fail(e, err, errlen, "%s: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return fail(S_ISDIR(st.st_mode) ? EISDIR : EINVAL, err, errlen, "%s: %s, not a regular file", path,
                    kind_of(st.st_mode));
    }
    if ((uint64_t)st.st_size > limit) {
        close(fd);
        return fail(EFBIG, err, errlen, "%s: larger than the %zu-byte limit of a %s", path, limit, what);
    }
    /* Read up to one byte past the limit: a file that grew since fstat is
     * caught, and the buffer never grows past limit + 1. */
    size_t cap = (size_t)st.st_size + 1, n = 0;
    char *buf = malloc(cap + 1);
    if (!buf) {
        close(fd);
        return fail(ENOMEM, err, errlen, "%s: out of memory", path);
    }
    for (;;) {
        if (n == cap) {
            size_t ncap = cap * 2 > limit + 1 ? limit + 1 : cap * 2;
            if (ncap <= cap) {
                free(buf);
                close(fd);
                return fail(EFBIG, err, errlen, "%s: larger than the %zu-byte limit of a %s", path, limit, what);
            }
            char *nb = realloc(buf, ncap + 1);
            if (!nb) {
                free(buf);
                close(fd);
                return fail(ENOMEM, err, errlen, "%s: out of memory", path);
            }
            buf = nb;
            cap = ncap;
        }
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            int e = errno;
            free(buf);
            close(fd);
            return fail(e, err, errlen, "%s: %s", path, strerror(e));
        }
        if (got == 0) break;
        n += (size_t)got;
    }
    close(fd);
    if (n > limit) {
        free(buf);
        return fail(EFBIG, err, errlen, "%s: larger than the %zu-byte limit of a %s", path, limit, what);
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return 0;
}
