/* Explicit rings: create the file safely, fill the v3 header (and a TSC
 * ring's open calibration), map, heartbeat, close. */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "latrec/latrec.h"

#define PAGE 4096u

/* A ring that cannot be created: one line on stderr and, when latrec record
 * runs the program, a line "<ring name>\t<reason>" appended to its failure
 * log ($LATREC_FAILURE_LOG, a file record made and reserved room in, so the
 * line fits even when the ring's filesystem is full; never created here),
 * so that the ring is counted in run.json instead of silently missing. */
static void ring_error(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ring_error(const char *name, const char *fmt, ...)
{
    const int saved = errno;
    char msg[700], line[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "latrec: %s\n", msg);
    const char *log = getenv("LATREC_FAILURE_LOG");
    int fd = log && *log ? open(log, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC) : -1;
    if (fd >= 0) {
        const char *nm = name ? name : "";
        const size_t tab = strlen(nm);
        int n = snprintf(line, sizeof(line), "%s\t%s", nm, msg);
        if (n < 0 || n >= (int)sizeof(line) - 1) n = (int)sizeof(line) - 2;
        for (int i = 0; i < n; i++) /* one line, one tab */
            if ((line[i] == '\n' || line[i] == '\t') && (size_t)i != tab) line[i] = ' ';
        line[n++] = '\n';
        ssize_t w = write(fd, line, (size_t)n); /* one write: lines of several writers never mix */
        (void)w;
        close(fd);
    }
    errno = saved;
}

/* mkdir -p: create every missing component of dir. 0 or -1 with errno. */
static int make_dirs(const char *dir)
{
    char buf[4096];
    if (snprintf(buf, sizeof(buf), "%s", dir) >= (int)sizeof(buf)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    if (mkdir(buf, 0755) != 0 && errno != EEXIST) return -1;
    struct stat st;
    if (stat(buf, &st) != 0) return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

/* Mean cost of one CLOCK_MONOTONIC read over 1000 reads, ns. A thread
 * preempted during those ~25 us would charge the preemption to the clock and
 * trip the slow-clock warning on a healthy vDSO clock, so a mean above
 * LATREC_CLOCK_SLOW_NS is measured again (up to 5 times) and the lowest mean
 * is kept; a clock that really is slow stays slow on every try. */
static uint32_t measure_clock_ns(void)
{
    enum { ITERS = 1000, TRIES = 5 };
    uint32_t best = 0;
    for (int k = 0; k < TRIES; k++) {
        uint64_t sink = 0;
        const uint64_t t0 = latrec_now_ns();
        for (int i = 0; i < ITERS; i++) sink += latrec_now_ns();
        const uint64_t t1 = latrec_now_ns();
        if (sink == 0 || t1 <= t0) continue;
        const uint32_t mean = (uint32_t)((t1 - t0 + ITERS / 2) / ITERS);
        if (best == 0 || mean < best) best = mean;
        if (best <= LATREC_CLOCK_SLOW_NS) break;
    }
    return best;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* The boot id as 16 raw bytes; all zero when it cannot be read. */
static void read_boot_id(uint8_t out[16])
{
    memset(out, 0, 16);
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
    if (!f) return;
    char line[64];
    uint8_t id[16];
    int n = 0;
    if (fgets(line, sizeof(line), f)) {
        for (const char *p = line; *p && n < 32; p++) {
            int v = hexval(*p);
            if (v < 0) continue;
            if (n % 2 == 0) id[n / 2] = (uint8_t)(v << 4);
            else id[n / 2] |= (uint8_t)v;
            n++;
        }
    }
    fclose(f);
    if (n == 32) memcpy(out, id, 16);
}

/* Rename without replacing: 0, or -1 with errno (EEXIST when taken). */
static int rename_noreplace(const char *from, const char *to)
{
    if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0) return 0;
    if (errno != EINVAL && errno != ENOSYS) return -1;
    if (link(from, to) != 0) return -1; /* fails with EEXIST, never replaces */
    unlink(from);
    return 0;
}

static void fill_header(latrec_hdr *h, const char *name, uint64_t entries, unsigned timebase)
{
    h->magic = timebase == LATREC_TIMEBASE_TSC ? LATREC_MAGIC_TSC : LATREC_MAGIC;
    h->version = LATREC_VERSION;
    h->entries = entries;
    h->rec_count = 0;
    h->rec_size = LATREC_REC_SIZE;
    h->clock_ns_per_call = measure_clock_ns();
    latrec_clock_pair(&h->t0_mono_ns, &h->t0_real_ns);
    h->t1_mono_ns = h->t0_mono_ns;
    h->t1_real_ns = h->t0_real_ns;
    snprintf(h->name, sizeof(h->name), "%s", name);
    h->pid = (uint32_t)getpid();
    h->tid = (uint32_t)gettid();
    h->clock_id = LATREC_CLOCK_ID_MONOTONIC;
#if LATREC_HAVE_RSEQ_CPU
    h->flags = __rseq_size > 0 ? LATREC_F_RSEQ_CPU : 0;
#else
    h->flags = LATREC_F_CACHED_CPU;
#endif
    read_boot_id(h->boot_id);
    gethostname(h->host, sizeof(h->host) - 1);
    latrec_catalog_name_(h->catalog, sizeof(h->catalog));
    h->timebase = timebase;
}

/* A TSC ring's two open pairs: `first` was taken before the pages were
 * faulted; the second is taken at least 2 ms after it, so a ring whose
 * writer dies before any heartbeat still has a rate measured over 2 ms. */
static void open_calibration(latrec_hdr *h, const latrec_cal *first)
{
    enum { MIN_GAP_NS = 2000000 };
    latrec_cal second;
    do latrec_tsc_pair_(&second.tsc, &second.mono_ns);
    while (second.mono_ns - first->mono_ns < MIN_GAP_NS || second.tsc <= first->tsc);
    h->cal_slots = LATREC_CAL_SLOTS;
    h->cal[0] = *first;
    h->cal[1] = second;
    h->cal_taken = LATREC_CAL_OPEN;
}

/* Create <base>.latrec.part exclusively, size and fault it, write the header
 * and rename it to the first free name of <base>.latrec, <base>-1.latrec, ...
 * On success the mapping is returned and the final path is in path. */
static void *create_ring(const char *base, const char *name, uint64_t entries, size_t len,
                         unsigned timebase, char *path, size_t path_len)
{
    char part[4200];
    int fd = -1;
    for (int k = 0; k < 1000 && fd < 0; k++) {
        if (k == 0) snprintf(part, sizeof(part), "%s.latrec.part", base);
        else snprintf(part, sizeof(part), "%s-%d.latrec.part", base, k);
        fd = open(part, O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0 && errno != EEXIST) {
            ring_error(name, "%s: cannot create: %s", part, strerror(errno));
            return NULL;
        }
    }
    if (fd < 0) {
        ring_error(name, "%s.latrec: no free file name", base);
        return NULL;
    }
    int err = posix_fallocate(fd, 0, (off_t)len);
    if (err == EOPNOTSUPP || err == EINVAL) err = ftruncate(fd, (off_t)len) ? errno : 0;
    if (err) {
        ring_error(name, "%s: cannot allocate %zu bytes: %s", part, len, strerror(err));
        close(fd);
        unlink(part);
        return NULL;
    }
    void *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    err = errno;
    close(fd);
    if (map == MAP_FAILED) {
        ring_error(name, "%s: cannot map %zu bytes: %s", part, len, strerror(err));
        unlink(part);
        return NULL;
    }
    latrec_cal first = {0, 0};
    if (timebase == LATREC_TIMEBASE_TSC) latrec_tsc_pair_(&first.tsc, &first.mono_ns);
    /* Fault every page in writable now, so no stamp takes the fault. */
    for (size_t off = 0; off < len; off += PAGE) ((volatile char *)map)[off] = 0;
    fill_header((latrec_hdr *)map, name, entries, timebase);
    if (timebase == LATREC_TIMEBASE_TSC) open_calibration((latrec_hdr *)map, &first);

    for (int k = 0; k < 1000; k++) {
        if (k == 0) snprintf(path, path_len, "%s.latrec", base);
        else snprintf(path, path_len, "%s-%d.latrec", base, k);
        if (rename_noreplace(part, path) == 0) return map;
        if (errno != EEXIST) break;
    }
    ring_error(name, "%s: cannot rename into place: %s", part, strerror(errno));
    munmap(map, len);
    unlink(part);
    return NULL;
}

/* The timebase a ring named `name` gets: its role's choice (the role is the
 * name without a trailing ".<digits>", the tid of a per-thread ring), TSC
 * only where the TSC is invariant. The fall back to the clock is said once
 * per process. */
static unsigned ring_timebase(const char *name)
{
    char role[LATREC_NAME_LEN], source[96];
    snprintf(role, sizeof(role), "%s", name);
    char *dot = strrchr(role, '.');
    if (dot && dot[1] && strspn(dot + 1, "0123456789") == strlen(dot + 1)) *dot = '\0';
    const unsigned want = latrec_timebase_for_(role, source, sizeof(source));
    if (want != LATREC_TIMEBASE_TSC) return LATREC_TIMEBASE_MONO;
    const char *why;
    if (latrec_tsc_usable_(&why)) return LATREC_TIMEBASE_TSC;
    static int said;
    if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
        fprintf(stderr, "latrec: ring %s: TSC asked for (%s) but the TSC is not invariant (%s): stamping CLOCK_MONOTONIC\n",
                name, source, why);
    return LATREC_TIMEBASE_MONO;
}

int latrec_open_in(latrec_t *r, const char *dir, const char *name, unsigned entries_log2)
{
    memset(r, 0, sizeof(*r));
    char dirbuf[4096], base[4160], path[4200];
    if (!name || !*name || strchr(name, '/') || strlen(name) >= LATREC_NAME_LEN) {
        ring_error(name, "ring name '%s': must be 1..%d bytes without '/'",
                name ? name : "(null)", LATREC_NAME_LEN - 1);
        return -1;
    }
    if (entries_log2 < 1 || entries_log2 > 30) {
        ring_error(name, "ring %s: entries_log2 %u out of range 1..30", name, entries_log2);
        return -1;
    }
    const char *d = latrec_resolve_dir_(dir, dirbuf, sizeof(dirbuf));
    if (!d) {
        ring_error(name, "ring %s: output directory path too long", name);
        return -1;
    }
    if (make_dirs(d) != 0) {
        ring_error(name, "%s: cannot create directory: %s", d, strerror(errno));
        return -1;
    }
    snprintf(base, sizeof(base), "%s/%s", d, name);

    const uint64_t entries = 1ull << entries_log2;
    const size_t len = LATREC_HDR_LEN + (size_t)entries * sizeof(latrec_rec);
    const unsigned timebase = ring_timebase(name);
    void *map = create_ring(base, name, entries, len, timebase, path, sizeof(path));
    if (!map) return -1;

    r->recs = (latrec_rec *)((char *)map + LATREC_HDR_LEN);
    r->mask = entries - 1;
    r->map = map;
    r->map_len = len;
    latrec_refresh_cpu(r);
    r->timebase = timebase;
    r->enabled = 1;

    const uint32_t clock_ns = ((latrec_hdr *)map)->clock_ns_per_call;
    if (clock_ns > LATREC_CLOCK_SLOW_NS)
        fprintf(stderr, "latrec: %s: CLOCK_MONOTONIC costs %u ns per read (no vDSO? check the clocksource)\n",
                path, clock_ns);
    return 1;
}

int latrec_open(latrec_t *r, const char *name, unsigned entries_log2)
{
    return latrec_open_in(r, NULL, name, entries_log2);
}

void latrec_heartbeat(latrec_t *r)
{
    if (!r->enabled) return;
    latrec_hdr *h = (latrec_hdr *)r->map;
    LATREC_STORE_RELAXED(&h->rec_count, __atomic_load_n(&r->idx, __ATOMIC_RELAXED));
    uint64_t mono, real;
    latrec_clock_pair(&mono, &real);
    h->t1_mono_ns = mono;
    h->t1_real_ns = real;
    if (r->timebase == LATREC_TIMEBASE_TSC) latrec_tsc_store_pair_(h);
}

void latrec_close(latrec_t *r)
{
    if (!r->enabled) return;
    latrec_heartbeat(r);
    ((latrec_hdr *)r->map)->flags |= LATREC_F_CLEAN_CLOSE;
    r->enabled = 0;
    munmap(r->map, r->map_len);
    r->map = NULL;
    r->recs = NULL;
}
