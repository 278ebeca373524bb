/*
 * ringset.c - load every ring of a run directory or ring directories.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "read/ringset.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int set_error(char *err, size_t errlen, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int set_error(char *err, size_t errlen, int rc, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return rc;
}

static int dir_error(char *err, size_t errlen, const char *dir, int e)
{
    switch (e) {
    case ENOENT:
        return set_error(err, errlen, -ENOENT, "%s: no such directory", dir);
    case ENOTDIR:
        return set_error(err, errlen, -ENOTDIR, "%s: not a directory", dir);
    case EACCES:
    case EPERM:
        return set_error(err, errlen, -EACCES, "%s: permission denied", dir);
    case ENOMEM:
        return set_error(err, errlen, -ENOMEM, "%s: out of memory", dir);
    default:
        return set_error(err, errlen, -e, "%s: %s", dir, strerror(e));
    }
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "dir/name" (no doubled slash), malloc'd; NULL when out of memory. */
static char *join(const char *dir, const char *name)
{
    size_t n = strlen(dir);
    int slash = n > 0 && dir[n - 1] == '/';
    char *p = malloc(n + strlen(name) + 2);
    if (p)
        sprintf(p, "%s%s%s", dir, slash ? "" : "/", name);
    return p;
}

static int open_ring(latrec_ring *r, int dirfd, const char *name, const char *path, int guess)
{
    return guess ? latrec_ring_openat_guess(r, dirfd, name, path) : latrec_ring_openat(r, dirfd, name, path);
}

/* Append one ring (opened at dirfd/name, shown as dir/name). */
static int add_ring(latrec_ringset *set, size_t *cap, int dirfd,
                    const char *dir, const char *name)
{
    if (set->n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 16;
        latrec_ring *nr = realloc(set->rings, ncap * sizeof *nr);
        if (!nr)
            return -ENOMEM;
        set->rings = nr;
        *cap = ncap;
    }
    char *path = join(dir, name);
    if (!path)
        return -ENOMEM;
    latrec_ring *r = &set->rings[set->n++];
    if (open_ring(r, dirfd, name, path, set->guess) == 0)
        set->n_ok++;
    free(path);
    return 0;
}

/* Rings [from, n) of an opener, every step-th: each ring's open-time scan
 * reads its whole file, so two threads halve the wait on a run of many. */
struct opener {
    latrec_ring *rings;
    int dirfd;
    char *const *names, *const *paths;
    size_t from, n, step;
    int guess;
};

static void *open_some(void *arg)
{
    const struct opener *o = arg;
    for (size_t i = o->from; i < o->n; i += o->step)
        open_ring(&o->rings[i], o->dirfd, o->names[i], o->paths[i], o->guess);
    return NULL;
}

/* Append the rings names[0..n) of dirfd (shown as dir/name), their scans
 * on up to two threads when threads says so: 0, or -ENOMEM. */
static int add_rings(latrec_ringset *set, size_t *cap, int dirfd, const char *dir, char *const *names, size_t n,
                     int threads)
{
    if (threads < 2 || n < 4) {
        int rc = 0;
        for (size_t i = 0; rc == 0 && i < n; i++)
            rc = add_ring(set, cap, dirfd, dir, names[i]);
        return rc;
    }
    if (set->n + n > *cap) {
        latrec_ring *nr = realloc(set->rings, (set->n + n) * sizeof *nr);
        if (!nr)
            return -ENOMEM;
        set->rings = nr;
        *cap = set->n + n;
    }
    char **paths = calloc(n, sizeof *paths);
    int rc = paths ? 0 : -ENOMEM;
    for (size_t i = 0; rc == 0 && i < n; i++)
        if (!(paths[i] = join(dir, names[i])))
            rc = -ENOMEM;
    if (rc == 0) {
        latrec_ring *rings = set->rings + set->n;
        struct opener a = { rings, dirfd, names, paths, 0, n, 2, set->guess }, b = a;
        b.from = 1;
        pthread_t t;
        const int two = pthread_create(&t, NULL, open_some, &b) == 0;
        if (!two)
            a.step = 1;
        open_some(&a);
        if (two)
            pthread_join(t, NULL);
        for (size_t i = 0; i < n; i++)
            set->n_ok += rings[i].status == LATREC_RING_OK;
        set->n += n;
    }
    for (size_t i = 0; paths && i < n; i++)
        free(paths[i]);
    free(paths);
    return rc;
}

/* Load every *.latrec of the open directory `dirfd` (shown as `dir`), in
 * name order. Returns the number loaded, or a negative errno. */
static int load_dir(latrec_ringset *set, size_t *cap, int dirfd, const char *dir, int threads)
{
    int fd = dup(dirfd);
    if (fd < 0)
        return -errno;
    DIR *d = fdopendir(fd);
    if (!d) {
        int e = errno;
        close(fd);
        return -e;
    }
    char **names = NULL;
    size_t n = 0, ncap = 0;
    int rc = 0;
    struct dirent *de;
    errno = 0;
    while ((de = readdir(d)) != NULL) {
        if (!ends_with(de->d_name, ".latrec"))
            continue; /* also skips "*.latrec.part" */
        if (n == ncap) {
            size_t c = ncap ? ncap * 2 : 16;
            char **nn = realloc(names, c * sizeof *nn);
            if (!nn) {
                rc = -ENOMEM;
                break;
            }
            names = nn;
            ncap = c;
        }
        if (!(names[n] = strdup(de->d_name))) {
            rc = -ENOMEM;
            break;
        }
        n++;
        errno = 0;
    }
    if (rc == 0 && errno != 0)
        rc = -errno;
    closedir(d);
    if (rc == 0 && n > 1)
        qsort(names, n, sizeof *names, cmp_names);
    if (rc == 0)
        rc = add_rings(set, cap, dirfd, dir, names, n, threads);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc < 0 ? rc : (int)n;
}

/* Load one directory argument (run directory or plain ring directory). */
static int load_arg(latrec_ringset *set, size_t *cap, const char *dir, int threads,
                    char *err, size_t errlen)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return dir_error(err, errlen, dir, errno);

    int found = 0, rc;
    struct stat st;
    if (fstatat(dfd, "rings", &st, 0) == 0 && S_ISDIR(st.st_mode)) {
        int rfd = openat(dfd, "rings", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        char *rdir = join(dir, "rings");
        if (rfd < 0 || !rdir) {
            int e = rfd < 0 ? errno : ENOMEM;
            if (rfd >= 0)
                close(rfd);
            rc = dir_error(err, errlen, rdir ? rdir : dir, e);
            free(rdir);
            close(dfd);
            return rc;
        }
        rc = load_dir(set, cap, rfd, rdir, threads);
        close(rfd);
        if (rc < 0) {
            rc = dir_error(err, errlen, rdir, -rc);
            free(rdir);
            close(dfd);
            return rc;
        }
        free(rdir);
        found += rc;
        if (fstatat(dfd, "sched.latrec", &st, AT_SYMLINK_NOFOLLOW) == 0) {
            rc = add_ring(set, cap, dfd, dir, "sched.latrec");
            if (rc < 0) {
                close(dfd);
                return dir_error(err, errlen, dir, -rc);
            }
            found++;
        }
    } else {
        rc = load_dir(set, cap, dfd, dir, threads);
        if (rc < 0) {
            close(dfd);
            return dir_error(err, errlen, dir, -rc);
        }
        found = rc;
    }
    close(dfd);
    if (found == 0)
        return set_error(err, errlen, -ENODATA, "%s: no .latrec rings", dir);
    return 0;
}

int latrec_ringset_open(latrec_ringset *set, const char *const *dirs,
                        size_t ndirs, char *err, size_t errlen)
{
    return latrec_ringset_open_on(set, dirs, ndirs, 1, err, errlen);
}

int latrec_ringset_open_on(latrec_ringset *set, const char *const *dirs,
                           size_t ndirs, int threads, char *err, size_t errlen)
{
    return latrec_ringset_open_guess(set, dirs, ndirs, threads, 0, err, errlen);
}

int latrec_ringset_open_guess(latrec_ringset *set, const char *const *dirs, size_t ndirs, int threads, int guess,
                              char *err, size_t errlen)
{
    memset(set, 0, sizeof *set);
    set->guess = guess;
    if (err && errlen)
        err[0] = '\0';
    if (ndirs == 0)
        return set_error(err, errlen, -EINVAL, "no directory given");
    size_t cap = 0;
    for (size_t i = 0; i < ndirs; i++) {
        int rc = load_arg(set, &cap, dirs[i], threads, err, errlen);
        if (rc < 0) {
            latrec_ringset_close(set);
            return rc;
        }
    }
    return 0;
}

int latrec_ringset_open_dir(latrec_ringset *set, const char *dir, char *err,
                            size_t errlen)
{
    return latrec_ringset_open(set, &dir, 1, err, errlen);
}

void latrec_ringset_close(latrec_ringset *set)
{
    for (size_t i = 0; i < set->n; i++)
        latrec_ring_close(&set->rings[i]);
    free(set->rings);
    memset(set, 0, sizeof *set);
}

int latrec_ringset_boots_differ(const latrec_ringset *set, size_t *a, size_t *b)
{
    size_t ref = set->n;
    for (size_t i = 0; i < set->n; i++) {
        const latrec_ring *r = &set->rings[i];
        if (r->status != LATREC_RING_OK || !latrec_ring_boot_known(r))
            continue;
        if (ref == set->n) {
            ref = i;
        } else if (latrec_ring_boot_differs(&set->rings[ref], r)) {
            if (a)
                *a = ref;
            if (b)
                *b = i;
            return 1;
        }
    }
    return 0;
}
