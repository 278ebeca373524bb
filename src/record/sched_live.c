/* The live scheduler ring: records published in time order while the run
 * goes on (see sched_live.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "record/sched_live.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "latrec/latrec.h" /* latrec_clock_pair */
#include "record/sched_spool.h"

struct latrec_sched_live {
    int fd;
    dev_t dev;
    ino_t ino;
    latrec_hdr *hdr; /* the mapping: header, then the slots */
    latrec_rec *recs;
    size_t map_len;
    uint64_t mask, idx; /* idx: records written */
    uint64_t until;     /* last publication: everything before it is in */
    latrec_rec *buf;    /* waiting for a publication */
    size_t n_buf, cap_buf;
    uint64_t late;
};

/* len bytes of fd backed by blocks (0, or an errno); plain ftruncate where
 * the filesystem cannot allocate ahead. */
static int reserve(int fd, size_t len)
{
    int e = posix_fallocate(fd, 0, (off_t)len);
    if (e == EOPNOTSUPP || e == EINVAL) e = ftruncate(fd, (off_t)len) != 0 ? errno : 0;
    return e;
}

int latrec_sched_live_open(latrec_sched_live **out, const char *path, const latrec_hdr *tmpl, char *err, size_t errlen)
{
    *out = NULL;
    char part[4200];
    snprintf(part, sizeof(part), "%s.part", path);
    const uint64_t entries = 1ull << LATREC_SCHED_LIVE_LOG2;
    const size_t len = LATREC_HDR_LEN + (size_t)entries * LATREC_REC_SIZE;
    latrec_sched_live *l = calloc(1, sizeof(*l));
    if (!l) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    l->fd = open(part, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    struct stat st;
    void *map = MAP_FAILED;
    /* The blocks allocated now, as liblatrec's rings are: a store into a
     * hole of a full filesystem's mapping is a SIGBUS that kills record. */
    if (l->fd < 0 || (errno = reserve(l->fd, len)) != 0 || fstat(l->fd, &st) != 0 ||
        (map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, l->fd, 0)) == MAP_FAILED) {
        snprintf(err, errlen, "%s: %s", part, strerror(errno));
        if (l->fd >= 0) {
            close(l->fd);
            unlink(part);
        }
        free(l);
        return -1;
    }
    l->dev = st.st_dev;
    l->ino = st.st_ino;
    l->hdr = map;
    l->recs = (latrec_rec *)(void *)((char *)map + LATREC_HDR_LEN);
    l->map_len = len;
    l->mask = entries - 1;
    *l->hdr = *tmpl;
    l->hdr->magic = LATREC_MAGIC;
    l->hdr->version = LATREC_VERSION;
    l->hdr->rec_size = LATREC_REC_SIZE;
    l->hdr->entries = entries;
    l->hdr->rec_count = 0;
    l->hdr->flags = 0;
    l->hdr->t1_mono_ns = l->hdr->t1_real_ns = 0;                            /* nothing published yet */
    if (renameat2(AT_FDCWD, part, AT_FDCWD, path, RENAME_NOREPLACE) != 0) { /* never over anything */
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        unlink(part);
        latrec_sched_live_free(l);
        return -1;
    }
    *out = l;
    return 0;
}

int latrec_sched_live_add(latrec_sched_live *l, const latrec_rec *r)
{
    if (r->t_ns < l->until || r->t_ns == 0) {
        l->late++;
        return 0;
    }
    if (l->n_buf == l->cap_buf) {
        size_t cap = l->cap_buf ? l->cap_buf * 2 : 4096;
        latrec_rec *nb = realloc(l->buf, cap * sizeof(*nb));
        if (!nb) {
            l->late++;
            return -1;
        }
        l->buf = nb;
        l->cap_buf = cap;
    }
    l->buf[l->n_buf++] = *r;
    return 0;
}

/* One record into the next slot, as liblatrec's stamp stores it
 * (latrec_fill_ and latrec_publish_ in latrec.h). */
static void put(latrec_sched_live *l, const latrec_rec *r)
{
    const uint64_t i = l->idx;
    latrec_rec *s = &l->recs[i & l->mask];
    if ((i & (l->mask >> 1)) == 0) __atomic_store_n(&l->hdr->rec_count, i, __ATOMIC_RELEASE);
    __atomic_store_n(&s->t_ns, 0, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    s->sc = r->sc;
    s->aux = r->aux;
    s->aux2 = r->aux2;
    __atomic_store_n(&s->t_ns, r->t_ns, __ATOMIC_RELEASE);
    l->idx = i + 1;
}

void latrec_sched_live_publish(latrec_sched_live *l, uint64_t before_ns)
{
    if (before_ns <= l->until) return;
    qsort(l->buf, l->n_buf, sizeof(*l->buf), latrec_spool_cmp);
    size_t k = 0;
    while (k < l->n_buf && l->buf[k].t_ns < before_ns) put(l, &l->buf[k++]);
    memmove(l->buf, l->buf + k, (l->n_buf - k) * sizeof(*l->buf));
    l->n_buf -= k;
    l->until = before_ns;
    /* the pair as the realtime at before_ns; mono last, with release: a
     * reader that sees it sees every record before it */
    uint64_t mono, real;
    latrec_clock_pair(&mono, &real);
    __atomic_store_n(&l->hdr->t1_real_ns, real - (mono > before_ns ? mono - before_ns : 0), __ATOMIC_RELAXED);
    __atomic_store_n(&l->hdr->t1_mono_ns, before_ns, __ATOMIC_RELEASE);
}

void latrec_sched_live_close(latrec_sched_live *l)
{
    __atomic_store_n(&l->hdr->rec_count, l->idx, __ATOMIC_RELEASE);
    __atomic_store_n(&l->hdr->flags, l->hdr->flags | LATREC_F_CLEAN_CLOSE, __ATOMIC_RELEASE);
    msync(l->hdr, LATREC_HDR_LEN, MS_ASYNC);
}

int latrec_sched_live_is(const latrec_sched_live *l, const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_dev == l->dev && st.st_ino == l->ino;
}

uint64_t latrec_sched_live_published(const latrec_sched_live *l)
{
    return l->idx;
}
uint64_t latrec_sched_live_late(const latrec_sched_live *l)
{
    return l->late;
}

void latrec_sched_live_free(latrec_sched_live *l)
{
    if (!l) return;
    if (l->hdr) munmap(l->hdr, l->map_len);
    if (l->fd >= 0) close(l->fd);
    free(l->buf);
    free(l);
}
