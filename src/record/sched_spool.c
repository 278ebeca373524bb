/* The scheduler spool: sorted runs in a temporary file, merged into one
 * ALR1 ring (see sched_spool.h). */
#include "record/sched_spool.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OUT_BUF 32768u /* records per write of the ring file (1 MiB) */

struct run {
    uint64_t off, n; /* first record (index in the spool file) and count */
};

struct latrec_spool {
    char        dir[4096];
    int         fd;        /* the temporary file */
    latrec_rec *chunk;     /* LATREC_SPOOL_CHUNK records */
    size_t      n_chunk;
    struct run *runs;
    size_t      n_runs, cap_runs;
    uint64_t    n_spooled; /* records in the file */
    char        error[4400];
};

int latrec_spool_cmp(const void *pa, const void *pb)
{
    const latrec_rec *a = pa, *b = pb;
    if (a->t_ns != b->t_ns) return a->t_ns < b->t_ns ? -1 : 1;
    unsigned ca = latrec_rec_cpu(a->sc), cb = latrec_rec_cpu(b->sc);
    if (ca != cb) return ca < cb ? -1 : 1;
    unsigned ka = latrec_rec_stage(a->sc), kb = latrec_rec_stage(b->sc);
    if (ka != kb) return ka < kb ? -1 : 1;
    uint64_t sa = latrec_rec_seq(a->sc), sb = latrec_rec_seq(b->sc);
    if (sa != sb) return sa < sb ? -1 : 1;
    if (a->aux != b->aux) return a->aux < b->aux ? -1 : 1;
    if (a->aux2 != b->aux2) return a->aux2 < b->aux2 ? -1 : 1;
    return 0;
}

/* "<dir>: spool: <what>", kept as the spool's error. */
static int fail(latrec_spool *s, char *err, size_t errlen, const char *what)
{
    if (!s->error[0]) snprintf(s->error, sizeof(s->error), "%s: spool: %s", s->dir, what);
    snprintf(err, errlen, "%s", s->error);
    return -1;
}

static int write_all(int fd, const void *buf, size_t len, off_t off)
{
    const char *p = buf;
    while (len) {
        ssize_t w = pwrite(fd, p, len, off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            if (w == 0) errno = EIO;
            return -1;
        }
        p += w;
        len -= (size_t)w;
        off += w;
    }
    return 0;
}

static int read_all(int fd, void *buf, size_t len, off_t off)
{
    char *p = buf;
    while (len) {
        ssize_t r = pread(fd, p, len, off);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            if (r == 0) errno = EIO;
            return -1;
        }
        p += r;
        len -= (size_t)r;
        off += r;
    }
    return 0;
}

int latrec_spool_open(latrec_spool **out, const char *dir, char *err, size_t errlen)
{
    *out = NULL;
    latrec_spool *s = calloc(1, sizeof(*s));
    if (!s || !(s->chunk = malloc((size_t)LATREC_SPOOL_CHUNK * sizeof(latrec_rec)))) {
        if (s) free(s);
        snprintf(err, errlen, "%s: spool: out of memory", dir);
        return -1;
    }
    snprintf(s->dir, sizeof(s->dir), "%s", dir);
    s->fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (s->fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
        char path[4200];
        snprintf(path, sizeof(path), "%s/.sched.spool.XXXXXX", dir);
        s->fd = mkostemp(path, O_CLOEXEC);
        if (s->fd >= 0) unlink(path);
    }
    if (s->fd < 0) {
        snprintf(err, errlen, "%s: spool: %s", dir, strerror(errno));
        free(s->chunk);
        free(s);
        return -1;
    }
    *out = s;
    return 0;
}

/* Sort the chunk and append it as a run. */
static int flush_chunk(latrec_spool *s, char *err, size_t errlen)
{
    if (!s->n_chunk) return 0;
    qsort(s->chunk, s->n_chunk, sizeof(latrec_rec), latrec_spool_cmp);
    if (s->n_runs == s->cap_runs) {
        size_t cap = s->cap_runs ? s->cap_runs * 2 : 16;
        struct run *nr = realloc(s->runs, cap * sizeof(*nr));
        if (!nr) return fail(s, err, errlen, "out of memory");
        s->runs = nr;
        s->cap_runs = cap;
    }
    if (write_all(s->fd, s->chunk, s->n_chunk * sizeof(latrec_rec), (off_t)(s->n_spooled * sizeof(latrec_rec))) < 0)
        return fail(s, err, errlen, strerror(errno));
    s->runs[s->n_runs++] = (struct run){ s->n_spooled, s->n_chunk };
    s->n_spooled += s->n_chunk;
    s->n_chunk = 0;
    return 0;
}

int latrec_spool_add(latrec_spool *s, const latrec_rec *r, char *err, size_t errlen)
{
    if (s->error[0]) {
        snprintf(err, errlen, "%s", s->error);
        return -1;
    }
    if (s->n_chunk == LATREC_SPOOL_CHUNK && flush_chunk(s, err, errlen) < 0) return -1;
    s->chunk[s->n_chunk++] = *r;
    return 0;
}

uint64_t latrec_spool_count(const latrec_spool *s)
{
    return s->n_spooled + s->n_chunk;
}

uint64_t latrec_spool_runs(const latrec_spool *s)
{
    return s->n_runs;
}

/* ---- the merge ------------------------------------------------------------- */

struct cursor {
    uint64_t    next, end; /* record indexes in the spool file still to read */
    latrec_rec *buf;
    size_t      pos, len;
};

static int cursor_fill(int fd, struct cursor *c)
{
    uint64_t n = c->end - c->next;
    if (n > LATREC_SPOOL_RUN_BUF) n = LATREC_SPOOL_RUN_BUF;
    c->pos = 0;
    c->len = (size_t)n;
    if (!n) return 0;
    if (read_all(fd, c->buf, (size_t)n * sizeof(latrec_rec), (off_t)(c->next * sizeof(latrec_rec))) < 0) return -1;
    c->next += n;
    return 0;
}

static int cur_less(const struct cursor *a, const struct cursor *b)
{
    return latrec_spool_cmp(&a->buf[a->pos], &b->buf[b->pos]) < 0;
}

static void sift_down(struct cursor **h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && cur_less(h[l], h[m])) m = l;
        if (r < n && cur_less(h[r], h[m])) m = r;
        if (m == i) return;
        struct cursor *t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

struct out {
    int         fd;
    latrec_rec *buf;
    size_t      n;
    off_t       off;
    uint64_t    keep_until, kept, after;
};

static int out_flush(struct out *o)
{
    if (!o->n) return 0;
    if (write_all(o->fd, o->buf, o->n * sizeof(latrec_rec), o->off) < 0) return -1;
    o->off += (off_t)(o->n * sizeof(latrec_rec));
    o->n = 0;
    return 0;
}

static int out_put(struct out *o, const latrec_rec *r)
{
    if (o->keep_until && r->t_ns > o->keep_until) {
        o->after++;
        return 0;
    }
    o->buf[o->n++] = *r;
    o->kept++;
    return o->n == OUT_BUF ? out_flush(o) : 0;
}

/* Every run into o, in order. -1 with errno set on a read or write error. */
static int merge_runs(latrec_spool *s, struct out *o)
{
    size_t k = s->n_runs;
    struct cursor *cur = calloc(k, sizeof(*cur));
    struct cursor **heap = calloc(k, sizeof(*heap));
    latrec_rec *bufs = malloc(k * LATREC_SPOOL_RUN_BUF * sizeof(latrec_rec));
    int rc = -1;
    if (!cur || !heap || !bufs) {
        errno = ENOMEM;
        goto out;
    }
    size_t n = 0;
    for (size_t i = 0; i < k; i++) {
        cur[i].next = s->runs[i].off;
        cur[i].end = s->runs[i].off + s->runs[i].n;
        cur[i].buf = bufs + i * LATREC_SPOOL_RUN_BUF;
        if (cursor_fill(s->fd, &cur[i]) < 0) goto out;
        if (cur[i].len) heap[n++] = &cur[i];
    }
    for (size_t i = n; i-- > 0;) sift_down(heap, n, i);
    while (n) {
        struct cursor *c = heap[0];
        if (out_put(o, &c->buf[c->pos]) < 0) goto out;
        if (++c->pos == c->len && cursor_fill(s->fd, c) < 0) goto out;
        if (c->len == 0) heap[0] = heap[--n];
        sift_down(heap, n, 0);
    }
    rc = 0;
out:
    free(cur);
    free(heap);
    free(bufs);
    return rc;
}

int latrec_spool_finish(latrec_spool *s, const char *path, const latrec_hdr *hdr, uint64_t keep_until_ns, int replace,
                        uint64_t *kept, uint64_t *after_stop, char *err, size_t errlen)
{
    *kept = *after_stop = 0;
    if (s->error[0]) {
        snprintf(err, errlen, "%s", s->error);
        return -1;
    }
    /* everything in memory: sort it there; else the last chunk is one more run */
    if (s->n_runs == 0) qsort(s->chunk, s->n_chunk, sizeof(latrec_rec), latrec_spool_cmp);
    else if (flush_chunk(s, err, errlen) < 0) return -1;

    char part[4200];
    snprintf(part, sizeof(part), "%s.part", path);
    struct out o = { .keep_until = keep_until_ns, .off = LATREC_HDR_LEN };
    o.fd = open(part, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (o.fd < 0) {
        snprintf(err, errlen, "%s: %s", part, strerror(errno));
        return -1;
    }
    int rc = 0;
    if (s->n_runs == 0) {
        o.buf = s->chunk; /* filtered in place: the write index never passes the read index */
        for (size_t i = 0; i < s->n_chunk; i++) {
            latrec_rec r = s->chunk[i];
            if (o.keep_until && r.t_ns > o.keep_until) {
                o.after++;
                continue;
            }
            o.buf[o.n++] = r;
            o.kept++;
        }
        rc = out_flush(&o);
    } else if (!(o.buf = malloc((size_t)OUT_BUF * sizeof(latrec_rec)))) {
        errno = ENOMEM;
        rc = -1;
    } else {
        rc = merge_runs(s, &o);
        if (rc == 0) rc = out_flush(&o);
        free(o.buf);
    }
    if (rc == 0) {
        latrec_hdr h = *hdr;
        uint64_t entries = 1;
        while (entries < o.kept) entries <<= 1;
        h.magic = LATREC_MAGIC;
        h.version = LATREC_VERSION;
        h.rec_size = LATREC_REC_SIZE;
        h.entries = entries;
        h.rec_count = o.kept;
        if (ftruncate(o.fd, (off_t)(LATREC_HDR_LEN + entries * LATREC_REC_SIZE)) < 0 ||
            write_all(o.fd, &h, sizeof(h), 0) < 0)
            rc = -1;
    }
    if (rc < 0) {
        snprintf(err, errlen, "%s: %s", part, strerror(errno));
        close(o.fd);
        unlink(part);
        return -1;
    }
    if (close(o.fd) != 0) {
        snprintf(err, errlen, "%s: %s", part, strerror(errno));
        unlink(part);
        return -1;
    }
    /* never over anything but the caller's own live ring (sched_live.h),
     * which it replaces in one step: a reader sees one file or the other */
    if (renameat2(AT_FDCWD, part, AT_FDCWD, path, replace ? 0 : RENAME_NOREPLACE) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        unlink(part);
        return -1;
    }
    *kept = o.kept;
    *after_stop = o.after;
    return 0;
}

void latrec_spool_close(latrec_spool *s)
{
    if (!s) return;
    if (s->fd >= 0) close(s->fd);
    free(s->chunk);
    free(s->runs);
    free(s);
}
