/*
 * bench_stamp - what one stamp costs, against the clock read it contains.
 *
 *   bench_stamp [--dir DIR] [--reps N] [--ops N] [--cpu N]
 *
 * In one process and one run, pinned to one CPU, each figure is the median
 * of --reps repetitions (default 15) of --ops operations (default 1,000,000),
 * timed with CLOCK_MONOTONIC around the loop; the repetitions of the figures
 * are interleaved so drift hits all of them alike:
 *
 *   bare_clock     clock_gettime(CLOCK_MONOTONIC) -> ns (latrec_now_ns)
 *   stamp          latrec_stamp into an open ring (2^16 entries: wraps in cache)
 *   tstamp         latrec_tstamp into the thread's open ring (2^16 entries)
 *   noring_tstamp  latrec_tstamp on a thread that never opened a ring
 *   sched_getcpu   sched_getcpu() alone
 *
 * Output: one line per figure, `name ns_per_op=X ratio=Y min_ns_per_op=Z`,
 * ratio = figure / bare_clock (medians). A leading `config ...` line says
 * where and how it ran. Rings go to DIR (default: the library's resolution,
 * LATREC_OUTPUT_DIR or the compiled-in directory).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <latrec/latrec.h>

#define BARRIER() __asm__ __volatile__("" ::: "memory")
#define KEEP(x)   __asm__ __volatile__("" : : "r"(x) : "memory")

enum { FIG_BARE, FIG_STAMP, FIG_TSTAMP, FIG_NORING, FIG_GETCPU, NFIG };
static const char *const fig_name[NFIG] = {"bare_clock", "stamp", "tstamp", "noring_tstamp",
                                           "sched_getcpu"};

static long ops = 1000000;

static uint64_t mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static __attribute__((noinline)) double loop_bare(void)
{
    const uint64_t t0 = mono();
    for (long i = 0; i < ops; i++) {
        uint64_t t = latrec_now_ns();
        KEEP(t);
    }
    return (double)(mono() - t0) / (double)ops;
}

static __attribute__((noinline)) double loop_stamp(latrec_t *r)
{
    const uint64_t t0 = mono();
    for (long i = 0; i < ops; i++) {
        latrec_stamp(r, (uint64_t)i, LATREC_ENQUEUE, (uint64_t)i, 0);
        BARRIER();
    }
    return (double)(mono() - t0) / (double)ops;
}

static __attribute__((noinline)) double loop_tstamp(void)
{
    const uint64_t t0 = mono();
    for (long i = 0; i < ops; i++) {
        latrec_tstamp((uint64_t)i, LATREC_ENQUEUE, (uint64_t)i, 0);
        BARRIER();
    }
    return (double)(mono() - t0) / (double)ops;
}

static __attribute__((noinline)) double loop_getcpu(void)
{
    const uint64_t t0 = mono();
    for (long i = 0; i < ops; i++) {
        int c = sched_getcpu();
        KEEP(c);
    }
    return (double)(mono() - t0) / (double)ops;
}

/* The no-ring figure runs on a fresh thread that never opens a ring (the
 * main thread owns the tstamp ring); it inherits the main thread's pinning. */
static void *noring_thread(void *p)
{
    *(double *)p = loop_tstamp();
    return NULL;
}

static double loop_noring(void)
{
    double v = -1;
    pthread_t t;
    if (pthread_create(&t, NULL, noring_thread, &v) != 0) {
        fprintf(stderr, "bench_stamp: pthread_create failed\n");
        exit(1);
    }
    pthread_join(t, NULL);
    return v;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void usage(void)
{
    fprintf(stderr, "usage: bench_stamp [--dir DIR] [--reps N] [--ops N] [--cpu N]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *dir = NULL;
    int reps = 15, cpu = -1;
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc) usage();
        if (strcmp(argv[i], "--dir") == 0) dir = argv[++i];
        else if (strcmp(argv[i], "--reps") == 0) reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--ops") == 0) ops = atol(argv[++i]);
        else if (strcmp(argv[i], "--cpu") == 0) cpu = atoi(argv[++i]);
        else usage();
    }
    if (reps < 1 || reps > 1000 || ops < 1) usage();

    if (cpu < 0) cpu = sched_getcpu();
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof(set), &set) != 0) {
        fprintf(stderr, "bench_stamp: cannot pin to cpu %d: %s\n", cpu, strerror(errno));
        return 1;
    }
    sched_yield();

    /* An explicit ring for `stamp`, this thread's ring for `tstamp`, both
     * 2^16 entries (2 MiB: the ring wraps and stays in cache). */
    latrec_t ring;
    if (latrec_open_in(&ring, dir, "bench_stamp", 16) != 1) return 1;
    if (dir) latrec_set_output_dir(dir);
    setenv("LATREC_ENTRIES_LOG2_BENCH_TSTAMP", "16", 1);
    if (!latrec_tls_open_as("bench_tstamp")) return 1;

    double *v[NFIG];
    for (int f = 0; f < NFIG; f++) v[f] = calloc((size_t)reps, sizeof(double));
    /* warm-up: one of each */
    loop_bare(), loop_stamp(&ring), loop_tstamp(), loop_noring(), loop_getcpu();
    for (int r = 0; r < reps; r++) {
        v[FIG_BARE][r] = loop_bare();
        v[FIG_STAMP][r] = loop_stamp(&ring);
        v[FIG_TSTAMP][r] = loop_tstamp();
        v[FIG_NORING][r] = loop_noring();
        v[FIG_GETCPU][r] = loop_getcpu();
    }
    latrec_close(&ring);

    double med[NFIG], min[NFIG];
    for (int f = 0; f < NFIG; f++) {
        qsort(v[f], (size_t)reps, sizeof(double), cmp_double);
        med[f] = v[f][reps / 2];
        min[f] = v[f][0];
    }
    printf("config cpu=%d reps=%d ops=%ld ring_log2=16 rseq_cpu=%d\n", cpu, reps, ops,
           LATREC_HAVE_RSEQ_CPU);
    for (int f = 0; f < NFIG; f++)
        printf("%s ns_per_op=%.2f ratio=%.3f min_ns_per_op=%.2f\n", fig_name[f], med[f],
               med[f] / med[FIG_BARE], min[f]);
    for (int f = 0; f < NFIG; f++) free(v[f]);
    return 0;
}
