/* Buffered CSV writer. */
#include "cli/csv.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

uint32_t latrec_digits4[10000];

__attribute__((constructor)) static void digits4_fill(void)
{
    for (uint32_t n = 0; n < 10000; n++)
        latrec_digits4[n] = n / 1000 | (n / 100 % 10) << 8 | (n / 10 % 10) << 16 | (n % 10) << 24;
}

#define CSV_BUF (1u << 16) /* 64 KiB: 256 KiB measured no faster, 1 MiB slower (more system time) */

/* A file opened by path is written with write(2). Once it has passed
 * CSV_BIG_AFTER bytes (records.csv, a large <component>.csv), its buffer
 * grows to CSV_FILE_BUF bytes (huge pages where the kernel gives them) and
 * whole blocks go out with O_DIRECT where the filesystem takes it (statx's
 * STATX_DIOALIGN): nothing is copied into the page cache, and no page
 * cache is allocated. On convert's 1.9 GB of CSV (16 rings x 2^20
 * records) that took system time from 0.6-0.7 s (64 KiB through stdio,
 * written 4096 + 61440 bytes at a time) to 0.11-0.16 s; blocks of 1 MiB
 * without huge pages cost 0.3 s. The last partial block goes out without
 * O_DIRECT at close. The bytes are then on the device, not in the page
 * cache; a full disk shows at the write, as with buffered writes. Small
 * files keep the small buffer (many components open at once stay cheap). */
#define CSV_BIG_AFTER (16u << 20)
#define CSV_FILE_BUF (4u << 20)
#define CSV_HUGE (2u << 20)      /* the large buffer's alignment: a huge page */
#define CSV_ALIGN_MAX (1u << 16) /* a larger alignment: written without O_DIRECT */

static void write_error(latrec_csv *c, int e)
{
    if (!c->error) {
        c->error = 1;
        c->err_no = e;
    }
}

/* The alignment O_DIRECT needs on fd (offsets, lengths and memory); 0 when
 * the filesystem does not take it. */
static unsigned direct_align(int fd)
{
    struct statx st;
    if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &st) != 0 || !(st.stx_mask & STATX_DIOALIGN) ||
        !st.stx_dio_offset_align)
        return 0;
    unsigned a = 4096; /* a page at least */
    if (st.stx_dio_offset_align > a) a = st.stx_dio_offset_align;
    if (st.stx_dio_mem_align > a) a = st.stx_dio_mem_align;
    return a <= CSV_ALIGN_MAX && !(a & (a - 1)) ? a : 0;
}

static int set_direct(int fd, int on)
{
    const int fl = fcntl(fd, F_GETFL);
    return fl < 0 ? -1 : fcntl(fd, F_SETFL, on ? fl | O_DIRECT : fl & ~O_DIRECT);
}

static void direct_off(latrec_csv *c)
{
    set_direct(c->fd, 0);
    c->align = 0;
}

/* n bytes from p to the file's end (c->fd). */
static void put(latrec_csv *c, const char *p, size_t n)
{
    while (n && !c->error) {
        const ssize_t w = write(c->fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && errno == EINVAL && c->align) { /* refused after all: buffered from here on */
            direct_off(c);
            continue;
        }
        if (w <= 0) {
            write_error(c, w < 0 ? errno : EIO);
            return;
        }
        if (c->align && (size_t)w % c->align) direct_off(c); /* the end is no longer aligned */
        c->written += (uint64_t)w;
        p += w;
        n -= (size_t)w;
    }
}

int latrec_csv_open(latrec_csv *c, const char *path, latrec_outset *set, char *err, size_t errlen)
{
    memset(c, 0, sizeof(*c));
    c->fd = -1;
    c->set = set;
    if (!(c->out = malloc(sizeof(*c->out))) || !(c->buf = malloc(CSV_BUF))) {
        free(c->out);
        c->out = NULL;
        snprintf(err, errlen, "%s: out of memory", path);
        errno = ENOMEM;
        return -1;
    }
    if (latrec_outfile_open(c->out, path, 0, err, errlen) < 0) {
        const int e = errno;
        free(c->out);
        free(c->buf);
        c->out = NULL;
        c->buf = NULL;
        errno = e;
        return -1;
    }
    c->f = c->out->f; /* nothing is written through it: its buffer stays empty */
    c->fd = fileno(c->f);
    c->cap = CSV_BUF;
    c->first = 1;
    return 0;
}

/* ---- the blocks of a large file written on a thread ----------------------
 *
 * With O_DIRECT a write(2) returns when the device has the bytes, so the
 * large buffer's blocks go out on a thread of the file's own while the
 * caller fills a second buffer: the formatting does not wait for the
 * device (more system time it does not save, only wall time). Between a
 * hand-over and the next wait, the thread alone uses fd, written, align,
 * error and err_no; the caller waits for it (io_wait) before it looks at
 * them or writes itself. */
struct csv_io {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    char *spare;      /* the buffer not being filled (being written while busy) */
    const char *pend; /* busy: pend_n bytes to write */
    size_t pend_n;
    int busy, stop;
};

static void *io_main(void *arg)
{
    latrec_csv *c = arg;
    struct csv_io *io = c->io;
    pthread_mutex_lock(&io->mu);
    for (;;) {
        while (!io->busy && !io->stop) pthread_cond_wait(&io->cv, &io->mu);
        if (!io->busy) break;
        pthread_mutex_unlock(&io->mu);
        put(c, io->pend, io->pend_n);
        pthread_mutex_lock(&io->mu);
        io->busy = 0;
        pthread_cond_broadcast(&io->cv);
    }
    pthread_mutex_unlock(&io->mu);
    return NULL;
}

/* The block handed over written. */
static void io_wait(latrec_csv *c)
{
    struct csv_io *io = c->io;
    if (!io) return;
    pthread_mutex_lock(&io->mu);
    while (io->busy) pthread_cond_wait(&io->cv, &io->mu);
    pthread_mutex_unlock(&io->mu);
}

/* A second buffer and the thread (else the blocks are written here). */
static void io_start(latrec_csv *c)
{
    struct csv_io *io = calloc(1, sizeof(*io));
    if (!io || posix_memalign((void **)&io->spare, CSV_HUGE, CSV_FILE_BUF) != 0) {
        free(io);
        return;
    }
    madvise(io->spare, CSV_FILE_BUF, MADV_HUGEPAGE);
    pthread_mutex_init(&io->mu, NULL);
    pthread_cond_init(&io->cv, NULL);
    c->io = io;
    if (pthread_create(&io->thread, NULL, io_main, c) != 0) {
        pthread_mutex_destroy(&io->mu);
        pthread_cond_destroy(&io->cv);
        free(io->spare);
        free(io);
        c->io = NULL;
    }
}

static void io_stop(latrec_csv *c)
{
    struct csv_io *io = c->io;
    if (!io) return;
    pthread_mutex_lock(&io->mu);
    io->stop = 1;
    pthread_cond_broadcast(&io->cv);
    pthread_mutex_unlock(&io->mu);
    pthread_join(io->thread, NULL);
    pthread_mutex_destroy(&io->mu);
    pthread_cond_destroy(&io->cv);
    free(io->spare);
    free(io);
    c->io = NULL;
}

/* The first n bytes of the buffer to the thread; the rest moves to the
 * front of the spare one, which is filled from then on. */
static void io_hand_over(latrec_csv *c, size_t n)
{
    struct csv_io *io = c->io;
    char *const full = c->buf;
    memcpy(io->spare, full + n, c->len - n);
    c->buf = io->spare;
    c->len -= n;
    pthread_mutex_lock(&io->mu);
    io->spare = full;
    io->pend = full;
    io->pend_n = n;
    io->busy = 1;
    pthread_cond_broadcast(&io->cv);
    pthread_mutex_unlock(&io->mu);
}

/* Everything buffered out (with O_DIRECT, then, no more: the file's end is
 * no longer aligned). */
static void flush(latrec_csv *c)
{
    io_wait(c);
    if (c->align && c->len % c->align) direct_off(c);
    put(c, c->buf, c->len);
    c->len = 0;
}

/* A file past CSV_BIG_AFTER: the large buffer, and O_DIRECT from the next
 * block boundary on (the bytes before it out now, buffered). Stays as it
 * is when either cannot be had. */
static void grow(latrec_csv *c)
{
    c->grown = 1;
    const unsigned a = direct_align(c->fd);
    const size_t head = a ? (a - c->written % a) % a : 0;
    char *big = NULL;
    if (!a || head > c->len || posix_memalign((void **)&big, CSV_HUGE, CSV_FILE_BUF) != 0) return;
    madvise(big, CSV_FILE_BUF, MADV_HUGEPAGE);
    put(c, c->buf, head);
    if (c->error || set_direct(c->fd, 1) < 0) {
        free(big);
        flush(c);
        return;
    }
    c->align = a;
    memcpy(big, c->buf + head, c->len - head);
    c->len -= head;
    free(c->buf);
    c->buf = big;
    c->cap = CSV_FILE_BUF;
    io_start(c);
}

void latrec_csv_make_room(latrec_csv *c)
{
    if (!c->grown && c->written + c->len >= CSV_BIG_AFTER) grow(c);
    io_wait(c); /* the thread's last block written: the spare buffer is free, align is current */
    const size_t whole = c->align ? c->len - c->len % c->align : 0;
    if (!whole) {
        flush(c);
        return;
    }
    if (c->io) {
        io_hand_over(c, whole);
        return;
    }
    put(c, c->buf, whole);
    c->len -= whole;
    memmove(c->buf, c->buf + whole, c->len);
}

/* Room for n more bytes plus a separator. */
static char *room(latrec_csv *c, size_t n)
{
    if (c->len + n + 1 > c->cap) latrec_csv_make_room(c);
    if (!c->first) c->buf[c->len++] = ',';
    c->first = 0;
    return c->buf + c->len;
}

static void put_byte(latrec_csv *c, char ch)
{
    if (c->len == c->cap) latrec_csv_make_room(c);
    c->buf[c->len++] = ch;
}

void latrec_csv_u64(latrec_csv *c, uint64_t v)
{
    char *p = room(c, 24);
    latrec_csv_commit(c, latrec_fmt_u64(p, v));
}

void latrec_csv_i64(latrec_csv *c, int64_t v)
{
    char *p = room(c, 24);
    size_t n = 0;
    if (v < 0) p[n++] = '-';
    latrec_csv_commit(c, latrec_fmt_u64(p + n, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v));
}

void latrec_csv_hex(latrec_csv *c, uint64_t v)
{
    static const char digits[] = "0123456789ABCDEF";
    char *p = room(c, 20);
    char tmp[16];
    size_t n = 0;
    do {
        tmp[n++] = digits[v & 15];
        v >>= 4;
    } while (v);
    if (n < 2) tmp[n++] = '0';
    p[0] = '0';
    p[1] = 'x';
    for (size_t i = 0; i < n; i++) p[2 + i] = tmp[n - 1 - i];
    c->len += 2 + n;
}

void latrec_csv_us(latrec_csv *c, int64_t ns)
{
    char *p = room(c, 32);
    latrec_csv_commit(c, latrec_fmt_us(p, ns));
}

void latrec_csv_double(latrec_csv *c, double v, int decimals)
{
    char *p = room(c, 64);
    int n = snprintf(p, 64, "%.*f", decimals, v);
    c->len += n > 0 && n < 64 ? (size_t)n : 0;
}

void latrec_csv_str(latrec_csv *c, const char *s)
{
    /* Fast path, one pass: a field of up to 64 bytes with nothing to quote
     * (ring, component, stage and leg names) is copied as it is scanned;
     * nothing is committed until its end is seen. */
    if (c->len + 1 + 64 <= c->cap) {
        char *p = c->buf + c->len + !c->first;
        for (size_t k = 0; k < 64; k++) {
            const char ch = s[k];
            if (ch == '\0') {
                if (!c->first) c->buf[c->len] = ',';
                c->len += (size_t)!c->first + k;
                c->first = 0;
                return;
            }
            if (ch == ',' || ch == '"' || ch == '\r' || ch == '\n') break;
            p[k] = ch;
        }
    }
    size_t n = strlen(s);
    int quote = strpbrk(s, ",\"\r\n") != NULL;
    if (2 * n + 3 > c->cap / 2) { /* a field as long as the buffer: through it a byte at a time */
        room(c, 0);
        if (quote) put_byte(c, '"');
        for (const char *q = s; *q; q++) {
            if (*q == '"') put_byte(c, '"');
            put_byte(c, *q);
        }
        if (quote) put_byte(c, '"');
        return;
    }
    char *p = room(c, 2 * n + 2);
    size_t k = 0;
    if (quote) p[k++] = '"';
    for (const char *q = s; *q; q++) {
        if (*q == '"') p[k++] = '"';
        p[k++] = *q;
    }
    if (quote) p[k++] = '"';
    c->len += k;
}

size_t latrec_csv_field(const char *s, char *out, size_t cap)
{
    const size_t n = strlen(s);
    const int quote = strpbrk(s, ",\"\r\n") != NULL;
    size_t k = 0;
    if (2 * n + 3 > cap) return 0;
    if (quote) out[k++] = '"';
    for (const char *q = s; *q; q++) {
        if (*q == '"') out[k++] = '"';
        out[k++] = *q;
    }
    if (quote) out[k++] = '"';
    out[k] = '\0';
    return k;
}

void latrec_csv_flush(latrec_csv *c)
{
    flush(c);
}

void latrec_csv_empty(latrec_csv *c)
{
    room(c, 0);
}

void latrec_csv_end(latrec_csv *c)
{
    if (c->len + 1 > c->cap) latrec_csv_make_room(c);
    c->buf[c->len++] = '\n';
    c->first = 1;
}

void latrec_csv_abort(latrec_csv *c)
{
    io_stop(c); /* a block being written is written, then removed with the file */
    if (c->out) latrec_outfile_abort(c->out);
    free(c->out);
    free(c->buf);
    c->out = NULL;
    c->f = NULL;
    c->buf = NULL;
}

int latrec_csv_close(latrec_csv *c, char *err, size_t errlen)
{
    flush(c);
    io_stop(c);
    int rc = 0;
    if (c->error) {
        snprintf(err, errlen, "%s: %s", c->out->path, strerror(c->err_no));
        latrec_outfile_abort(c->out);
        rc = -1;
    } else if (!c->set) {
        rc = latrec_outfile_commit(c->out, err, errlen);
    } else if ((rc = latrec_outfile_finish(c->out, err, errlen)) == 0) {
        if (latrec_outset_add(c->set, c->out) == 0) c->out = NULL; /* the set's now */
        else {
            snprintf(err, errlen, "%s: out of memory", c->out->path);
            latrec_outfile_abort(c->out);
            errno = ENOMEM;
            rc = -1;
        }
    }
    const int e = c->error ? c->err_no : errno;
    free(c->out);
    free(c->buf);
    c->out = NULL;
    c->f = NULL;
    c->buf = NULL;
    errno = e;
    return rc;
}
