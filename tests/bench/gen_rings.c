/*
 * gen_rings.c - write a large synthetic run for the convert benchmark.
 *
 *   gen_rings [--dir DIR] [--procs P] [--threads T] [--log2 L] [--seed S] [--sched]
 *
 * P processes (default 4) of T threads (default 4, 1 allowed), one full v3 ring of
 * 2^L records per thread (default 20, 32 MiB), so 16 rings x 2^20 records
 * (512 MiB) by default. Each process sends 2^L * T / 4 messages through a
 * realistic 4-stage leg (ENQUEUE -> DEQUEUE -> ENCODE_E3AP_DONE ->
 * SEND_DONE, the E3 outbound leg) whose stages run on different threads of
 * the process: stage k of message s is stamped by thread (s + k) mod T, so
 * every hop crosses threads and every ring fills exactly. Messages start
 * every 5 us (+ jitter), hops take 2-50 us, 1-3 us and 3-10 us (hashed per
 * message), so tens of messages are in flight at once; each thread's
 * records are in time order, as a writer stamps them. Every process counts
 * seqs from 1 (equal seqs in every process, as in real runs).
 *
 * Rings are named libe3.outbound.<tid> (component libe3, as libE3 names them), pid 7000 + p, tid
 * 7000 + 100 * p + t, one boot id, catalog "e3", rec_count = 2^L, clean
 * close. Prints the total record count on stdout.
 *
 * --sched also writes DIR/sched.latrec, the scheduler data record's
 * collector would have saved for those threads (ring "sched", catalog
 * "kernel", time-ordered by (t_ns, cpu, kind), exact rec_count): each
 * thread runs on a CPU of its own, from just before its first record to
 * just after its last, and between two of its records at least 3 us apart
 * it gives up the CPU one time in eight (hashed): blocked, then woken by
 * the process's previous thread 2 us before its next record, or (one time
 * in four of those) preempted by a kworker; switched in again 0.5 us
 * before that record. So every hop's second stage has a timeline around
 * it, and each split holds on-CPU, runqueue and blocked time. Prints the
 * scheduler record count on stderr.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "latrec/format.h"

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

static int by_time(const void *a, const void *b)
{
    const latrec_rec *x = a, *y = b;
    if (x->t_ns != y->t_ns) return x->t_ns < y->t_ns ? -1 : 1;
    return x->sc < y->sc ? -1 : x->sc > y->sc;
}

/* The scheduler records of the run, growing (--sched). */
typedef struct {
    latrec_rec *v;
    size_t n, cap;
} recvec;

static int put(recvec *s, uint64_t t, unsigned cpu, unsigned kind, uint64_t seq, uint64_t aux, uint64_t aux2)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 1 << 16;
        latrec_rec *v = realloc(s->v, cap * sizeof(*v));
        if (!v) return -1;
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = (latrec_rec){ (seq & LATREC_SEQ_MASK) | ((uint64_t)(cpu & 0xFF) << 48) | ((uint64_t)kind << 56),
                                 t, aux, aux2 };
    return 0;
}

/* sched.latrec's order: t_ns, then cpu, then kind */
static int sched_order(const void *a, const void *b)
{
    const latrec_rec *x = a, *y = b;
    if (x->t_ns != y->t_ns) return x->t_ns < y->t_ns ? -1 : 1;
    const uint64_t cx = (x->sc >> 48) & 0xFF, cy = (y->sc >> 48) & 0xFF;
    if (cx != cy) return cx < cy ? -1 : 1;
    return (x->sc >> 56) < (y->sc >> 56) ? -1 : (x->sc >> 56) > (y->sc >> 56);
}

/* One thread's scheduler records around its n time-ordered records
 * (kernel catalog ids: analyze/sched_catalog.h). */
static int sched_thread(recvec *s, const latrec_rec *r, uint64_t n, uint32_t tid, uint32_t waker, unsigned cpu,
                        unsigned waker_cpu, uint64_t seed)
{
    enum { OUT_PREEMPTED = 1, OUT_BLOCKED = 2, SWITCH_IN = 3, WAKEUP = 4, COMM = 10 };
    char name[16] = { 0 };
    snprintf(name, sizeof(name), "bench-%u", tid);
    uint64_t w[2];
    memcpy(w, name, 16);
    int e = put(s, r[0].t_ns - 3000, cpu, COMM, tid, w[0], w[1]);
    e |= put(s, r[0].t_ns - 2000, cpu, SWITCH_IN, tid, 0, 120);
    for (uint64_t i = 0; i + 1 < n && !e; i++) {
        const uint64_t a = r[i].t_ns, b = r[i + 1].t_ns, h = mix(seed ^ ((uint64_t)tid << 40) ^ i);
        if (b - a < 3000 || h % 8) continue;
        if ((h >> 8) % 4 == 0) { /* preempted by the CPU's kworker */
            e |= put(s, a + 500, cpu, OUT_PREEMPTED, tid, 9000 + cpu, 120);
            e |= put(s, b - 500, cpu, SWITCH_IN, tid, 9000 + cpu, 120);
        } else {
            e |= put(s, a + 500, cpu, OUT_BLOCKED, tid, 0, 1);
            e |= put(s, b - 2000, waker_cpu, WAKEUP, tid, waker, cpu);
            e |= put(s, b - 500, cpu, SWITCH_IN, tid, 0, 120);
        }
    }
    e |= put(s, r[n - 1].t_ns + 500, cpu, OUT_BLOCKED, tid, 0, 1);
    return e ? -1 : 0;
}

static int write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t w = write(fd, c, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

/* DIR/sched.latrec: the records sorted, in the smallest power-of-two ring
 * that holds them, as record's collector saves it. 0, or -1 (said). */
static int write_sched(const char *dir, recvec *s, const uint8_t boot[16], uint64_t t0, uint64_t t0_real)
{
    qsort(s->v, s->n, sizeof(*s->v), sched_order);
    uint64_t entries = 1;
    while (entries < s->n) entries *= 2;
    latrec_hdr *hd = calloc(1, sizeof(*hd));
    latrec_rec *zero = calloc(4096, sizeof(*zero));
    if (!hd || !zero) return -1;
    hd->magic = LATREC_MAGIC;
    hd->version = LATREC_VERSION;
    hd->entries = entries;
    hd->rec_count = s->n;
    hd->rec_size = LATREC_REC_SIZE;
    hd->t0_mono_ns = t0 - 1000;
    hd->t0_real_ns = t0_real - 1000;
    hd->t1_mono_ns = s->n ? s->v[s->n - 1].t_ns + 1000 : t0;
    hd->t1_real_ns = t0_real + (hd->t1_mono_ns - t0);
    hd->pid = 6999; /* the recording latrec, not a target */
    hd->flags = LATREC_F_CLEAN_CLOSE;
    hd->clock_id = LATREC_CLOCK_ID_MONOTONIC;
    memcpy(hd->boot_id, boot, 16);
    snprintf(hd->name, sizeof(hd->name), "sched");
    snprintf(hd->host, sizeof(hd->host), "bench");
    snprintf(hd->catalog, sizeof(hd->catalog), "kernel");
    char path[4096], part[4200];
    snprintf(path, sizeof(path), "%s/sched.latrec", dir);
    snprintf(part, sizeof(part), "%s.part", path);
    int fd = open(part, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int rc = fd < 0 || write_all(fd, hd, sizeof(*hd)) < 0 || write_all(fd, s->v, s->n * sizeof(*s->v)) < 0;
    for (uint64_t k = s->n; !rc && k < entries; k += 4096)
        rc = write_all(fd, zero, (entries - k < 4096 ? entries - k : 4096) * sizeof(*zero)) < 0;
    if (fd >= 0 && close(fd) < 0) rc = 1;
    if (rc || rename(part, path) < 0) {
        fprintf(stderr, "gen_rings: %s: %s\n", path, strerror(errno));
        rc = 1;
    }
    fprintf(stderr, "gen_rings: %s: %zu scheduler records\n", path, s->n);
    free(hd);
    free(zero);
    return rc ? -1 : 0;
}

/* The command line. */
typedef struct {
    const char *dir;
    unsigned procs, threads, log2;
    uint64_t seed;
    int with_sched;
} gen_cfg;

/* 0, or the exit status of a bad command line (said). */
static int parse_args(int argc, char **argv, gen_cfg *c)
{
    *c = (gen_cfg){ "bench-rings", 4, 4, 20, 1, 0 };
    for (int i = 1; i < argc; i++) {
        if (i + 1 < argc && strcmp(argv[i], "--dir") == 0) c->dir = argv[++i];
        else if (i + 1 < argc && strcmp(argv[i], "--procs") == 0) c->procs = (unsigned)atoi(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--threads") == 0) c->threads = (unsigned)atoi(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--log2") == 0) c->log2 = (unsigned)atoi(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--seed") == 0) c->seed = strtoull(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "--sched") == 0) c->with_sched = 1;
        else {
            fprintf(stderr, "usage: gen_rings [--dir DIR] [--procs P] [--threads T] [--log2 L] [--seed S] [--sched]\n");
            return 2;
        }
    }
    if (c->procs < 1 || c->procs > 64 || c->threads < 1 || c->threads > 64 || c->log2 < 4 || c->log2 > 26) {
        fprintf(stderr, "gen_rings: 1..64 processes, 1..64 threads, log2 4..26\n");
        return 2;
    }
    return 0;
}

#define T0_MONO 5000000000ull          /* 5 s after boot */
#define T0_REAL 1795950000000000000ull

/* Process p's messages 1..msgs through the four stages, each record into
 * the ring of the thread that stamps it (fill[th] records so far). */
static void stamp_process(const gen_cfg *c, unsigned p, uint64_t msgs, latrec_rec **ring, uint64_t *fill)
{
    static const unsigned stages[4] = { 0x21, 0x22, 0x23, 0x24 };
    const unsigned threads = c->threads;
    memset(fill, 0, threads * sizeof(*fill));
    for (uint64_t s = 1; s <= msgs; s++) {
        uint64_t h = mix(c->seed ^ (s * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)p << 56));
        uint64_t t = T0_MONO + p * 1237 + s * 5000 + h % 1000;
        uint64_t off[4] = { 0, 2000 + (h >> 10) % 48000, 1000 + (h >> 26) % 2000, 3000 + (h >> 38) % 7000 };
        for (int k = 0; k < 4; k++) {
            t += off[k];
            unsigned th = (unsigned)((s + (uint64_t)k) % threads);
            latrec_rec *r = &ring[th][fill[th]++];
            unsigned cpu = (unsigned)(p * threads + th) & 0xFF;
            r->sc = (s & LATREC_SEQ_MASK) | ((uint64_t)cpu << 48) | ((uint64_t)stages[k] << 56);
            r->t_ns = t;
            r->aux = k == 2 ? 180 + h % 300 : k == 3 ? s * 2 + p : 0; /* bytes, msg id */
            r->aux2 = k == 0 ? 5 : 0;                                 /* PDU type */
        }
    }
}

/* DIR/libe3.outbound.<tid>.latrec: one thread's full ring of time-ordered
 * records, cleanly closed. 0, or -1 (said). */
static int write_ring(const char *dir, const latrec_rec *recs, uint64_t entries, uint32_t pid, uint32_t tid,
                      const uint8_t boot[16])
{
    latrec_hdr *hd = calloc(1, sizeof(*hd));
    if (!hd) return -1;
    hd->magic = LATREC_MAGIC;
    hd->version = LATREC_VERSION;
    hd->entries = entries;
    hd->rec_count = entries;
    hd->t0_mono_ns = T0_MONO - 1000;
    hd->t0_real_ns = T0_REAL - 1000;
    snprintf(hd->name, sizeof(hd->name), "libe3.outbound.%u", tid);
    hd->rec_size = LATREC_REC_SIZE;
    hd->clock_ns_per_call = 18;
    hd->t1_mono_ns = recs[entries - 1].t_ns + 1000;
    hd->t1_real_ns = T0_REAL + (hd->t1_mono_ns - T0_MONO) + 150; /* a little drift */
    hd->pid = pid;
    hd->tid = tid;
    hd->flags = LATREC_F_CLEAN_CLOSE;
    hd->clock_id = LATREC_CLOCK_ID_MONOTONIC;
    memcpy(hd->boot_id, boot, 16);
    snprintf(hd->host, sizeof(hd->host), "bench");
    snprintf(hd->catalog, sizeof(hd->catalog), "e3");
    char path[4096], part[4200];
    snprintf(path, sizeof(path), "%s/%s.latrec", dir, hd->name);
    snprintf(part, sizeof(part), "%s.part", path);
    int fd = open(part, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int rc = 0;
    if (fd < 0 || write_all(fd, hd, sizeof(*hd)) < 0 || write_all(fd, recs, entries * sizeof(latrec_rec)) < 0 ||
        close(fd) < 0 || rename(part, path) < 0) {
        fprintf(stderr, "gen_rings: %s: %s\n", path, strerror(errno));
        rc = -1;
    }
    free(hd);
    return rc;
}

/* Process p: its rings (and its threads' scheduler records with --sched).
 * 0, or -1 (said). */
static int gen_process(const gen_cfg *c, unsigned p, latrec_rec **ring, uint64_t *fill, recvec *sched,
                       const uint8_t boot[16])
{
    const unsigned threads = c->threads;
    const uint64_t entries = 1ull << c->log2;
    stamp_process(c, p, entries * threads / 4, ring, fill); /* 4 stages per message */
    for (unsigned th = 0; th < threads; th++) {
        if (fill[th] != entries) {
            fprintf(stderr, "gen_rings: thread %u got %llu records\n", th, (unsigned long long)fill[th]);
            return -1;
        }
        qsort(ring[th], entries, sizeof(latrec_rec), by_time);
        uint32_t pid = 7000 + p, tid = 7000 + 100 * p + th;
        const unsigned prev = (th + threads - 1) % threads;
        if (c->with_sched && sched_thread(sched, ring[th], entries, tid, 7000 + 100 * p + prev, p * threads + th,
                                          p * threads + prev, c->seed) < 0) {
            fprintf(stderr, "gen_rings: out of memory\n");
            return -1;
        }
        if (write_ring(c->dir, ring[th], entries, pid, tid, boot) < 0) return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    gen_cfg c;
    int bad = parse_args(argc, argv, &c);
    if (bad) return bad;
    if (mkdir(c.dir, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "gen_rings: %s: %s\n", c.dir, strerror(errno));
        return 1;
    }
    const uint64_t entries = 1ull << c.log2;
    latrec_rec **ring = calloc(c.threads, sizeof(*ring));
    uint64_t *fill = calloc(c.threads, sizeof(*fill));
    if (!ring || !fill) return 1;
    for (unsigned t = 0; t < c.threads; t++)
        if (!(ring[t] = malloc(entries * sizeof(latrec_rec)))) {
            fprintf(stderr, "gen_rings: out of memory\n");
            return 1;
        }
    uint8_t boot[16];
    for (int i = 0; i < 16; i++) boot[i] = (uint8_t)mix(c.seed * 977 + (uint64_t)i);
    uint64_t total = 0;
    recvec sched = { 0 };
    for (unsigned p = 0; p < c.procs; p++) {
        if (gen_process(&c, p, ring, fill, &sched, boot) < 0) return 1;
        total += entries * c.threads;
    }
    for (unsigned t = 0; t < c.threads; t++) free(ring[t]);
    free(ring);
    free(fill);
    if (c.with_sched && write_sched(c.dir, &sched, boot, T0_MONO, T0_REAL) < 0) return 1;
    free(sched.v);
    printf("%llu\n", (unsigned long long)total);
    return 0;
}
