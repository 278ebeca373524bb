/*
 * bench_stamp - what one stamp costs, against the clock read it contains.
 *
 *   bench_stamp [--dir DIR] [--reps N] [--ops N] [--cpu N] [--big-log2 N]
 *
 * In one process and one run, pinned to one CPU. A sample is --ops
 * operations (default 20,000: about 0.35 ms, shorter than a time slice, so
 * that on a shared machine most samples run undisturbed) timed with
 * CLOCK_MONOTONIC around the loop; each figure's sample is taken right after
 * a sample of the bare clock read, and its ratio is figure / that bare
 * sample. --reps rounds (default 201) take one sample of every figure each,
 * interleaved, so drift and other load hit all of them alike. Figures:
 *
 *   bare_clock     clock_gettime(CLOCK_MONOTONIC) -> ns (latrec_now_ns)
 *   bare_rdtsc     the TSC read alone (latrec_rdtsc)
 *   stamp_big      latrec_stamp into a clock ring of 2^N records (--big-log2,
 *                  default 22: 128 MiB, larger than the caches, as real
 *                  rings are) - the headline
 *   tsc_stamp_big  latrec_stamp into a TSC ring of the same size
 *   stamp          latrec_stamp into a 2^16 ring (2 MiB: wraps in cache)
 *   tstamp         latrec_tstamp into the thread's 2^16 ring
 *   stamp_fn       latrec_stamp_fn, the exported out-of-line call (FFI)
 *   noring_tstamp  latrec_tstamp on a thread that never opened a ring
 *   sched_getcpu   sched_getcpu() alone
 *
 * Then two threads: two explicit latrec_t side by side in one struct (as two
 * rings of one object would be), each stamped by its own thread on its own
 * CPU (this one and the next allowed one), against one thread stamping
 * alone, rounds interleaved (alone, together, ...). two_thread ratio =
 * ns per stamp together / alone (1.0: no false sharing). Skipped, with a
 * line, when fewer than two CPUs are allowed.
 *
 * Output: `config ...`, then one line per figure
 *   NAME ns_per_op=MEDIAN ratio=MEDIAN_RATIO min_ns_per_op=MIN min_ratio=MIN/MIN_BARE
 * (the ratios are to bare_clock; two_thread's to one thread alone), and last
 *   headline stamp_big fastest_ratio=MIN/MIN_BARE median_ratio=MEDIAN_RATIO reps=N
 * MEDIAN_RATIO is the median over the rounds of each round's ratio; the
 * fastest-sample ratio compares the samples least disturbed by other load.
 * Both are needed: the fastest alone flatters a figure whose samples spread
 * wider than the reference's. Rings go to a fresh DIR/bench_stamp.XXXXXX,
 * removed with them at exit (a run writes about 260 MiB: runs must not pile
 * up); without --dir, to the library's resolution (LATREC_OUTPUT_DIR or the
 * compiled-in directory), and they stay.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <latrec/latrec.h>

#define BARRIER() __asm__ __volatile__("" ::: "memory")
#define KEEP(x) __asm__ __volatile__("" : : "r"(x) : "memory")

enum {
    FIG_BARE,
    FIG_RDTSC,
    FIG_STAMP_BIG,
    FIG_TSC_BIG,
    FIG_STAMP,
    FIG_TSTAMP,
    FIG_STAMP_FN,
    FIG_NORING,
    FIG_GETCPU,
    NFIG
};
static const char *const fig_name[NFIG] = { "bare_clock", "bare_rdtsc", "stamp_big",     "tsc_stamp_big", "stamp",
                                            "tstamp",     "stamp_fn",   "noring_tstamp", "sched_getcpu" };

static long ops = 20000;

static uint64_t mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static __attribute__((noinline)) double loop_bare(void)
{
    const long n = ops; /* a local: the loop reloads no global */
    const uint64_t t0 = mono();
    for (long i = 0; i < n; i++) {
        uint64_t t = latrec_now_ns();
        KEEP(t);
    }
    return (double)(mono() - t0) / (double)ops;
}

static __attribute__((noinline)) double loop_rdtsc(void)
{
    const long n = ops; /* a local: the loop reloads no global */
    const uint64_t t0 = mono();
    for (long i = 0; i < n; i++) {
        uint64_t t = latrec_rdtsc();
        KEEP(t);
    }
    return (double)(mono() - t0) / (double)ops;
}

static __attribute__((noinline)) double loop_stamp(latrec_t *r)
{
    const long n = ops; /* a local: the loop reloads no global */
    const uint64_t t0 = mono();
    for (long i = 0; i < n; i++) {
        latrec_stamp(r, (uint64_t)i, LATREC_ENQUEUE, (uint64_t)i, 0);
        BARRIER();
    }
    return (double)(mono() - t0) / (double)ops;
}

static __attribute__((noinline)) double loop_stamp_fn(latrec_t *r)
{
    const long n = ops; /* a local: the loop reloads no global */
    const uint64_t t0 = mono();
    for (long i = 0; i < n; i++) latrec_stamp_fn(r, (uint64_t)i, LATREC_ENQUEUE, (uint64_t)i, 0);
    return (double)(mono() - t0) / (double)ops;
}

static __attribute__((noinline)) double loop_tstamp(void)
{
    const long n = ops; /* a local: the loop reloads no global */
    const uint64_t t0 = mono();
    for (long i = 0; i < n; i++) {
        latrec_tstamp((uint64_t)i, LATREC_ENQUEUE, (uint64_t)i, 0);
        BARRIER();
    }
    return (double)(mono() - t0) / (double)ops;
}

static __attribute__((noinline)) double loop_getcpu(void)
{
    const long n = ops; /* a local: the loop reloads no global */
    const uint64_t t0 = mono();
    for (long i = 0; i < n; i++) {
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

/* Median and minimum of n samples (sorts v). */
static void med_min(double *v, int n, double *med, double *min)
{
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    *med = v[n / 2];
    *min = v[0];
}

static void pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof(set), &set) != 0) {
        fprintf(stderr, "bench_stamp: cannot pin to cpu %d: %s\n", cpu, strerror(errno));
        exit(1);
    }
}

/* ---- two threads, two latrec_t side by side -------------------------------- */

static struct {
    latrec_t a, b; /* adjacent, as two rings of one object */
} pair;

struct side {
    latrec_t *ring;
    int cpu;
    pthread_barrier_t *go;
    double ns;
};

static void *side_main(void *p)
{
    struct side *s = p;
    pin(s->cpu);
    pthread_barrier_wait(s->go);
    s->ns = loop_stamp(s->ring);
    return NULL;
}

/* One round with both threads stamping at once: the slower one's ns. */
static double together(int cpu_a, int cpu_b)
{
    pthread_barrier_t go;
    pthread_barrier_init(&go, NULL, 2);
    struct side sa = { &pair.a, cpu_a, &go, 0 }, sb = { &pair.b, cpu_b, &go, 0 };
    pthread_t ta, tb;
    pthread_create(&ta, NULL, side_main, &sa);
    pthread_create(&tb, NULL, side_main, &sb);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    pthread_barrier_destroy(&go);
    return sa.ns > sb.ns ? sa.ns : sb.ns;
}

static cpu_set_t allowed; /* the CPUs allowed at start, before pinning */

static void two_threads(const char *dir, int reps, int cpu)
{
    int other = -1;
    for (int c = 0; c < CPU_SETSIZE && other < 0; c++)
        if (c != cpu && CPU_ISSET(c, &allowed)) other = c;
    if (other < 0) {
        printf("two_thread skipped: only one CPU allowed\n");
        return;
    }
    if (latrec_open_in(&pair.a, dir, "bench_pair_a", 16) != 1 || latrec_open_in(&pair.b, dir, "bench_pair_b", 16) != 1)
        exit(1);
    double *alone = calloc((size_t)reps, sizeof(double)), *both = calloc((size_t)reps, sizeof(double));
    double *ratio = calloc((size_t)reps, sizeof(double));
    pin(cpu);
    loop_stamp(&pair.a);
    together(cpu, other);
    for (int r = 0; r < reps; r++) {
        pin(cpu);
        alone[r] = loop_stamp(&pair.a);
        both[r] = together(cpu, other);
        ratio[r] = both[r] / alone[r];
    }
    pin(cpu);
    latrec_close(&pair.a);
    latrec_close(&pair.b);
    double med_a, min_a, med_b, min_b, med_r, min_r;
    med_min(alone, reps, &med_a, &min_a);
    med_min(both, reps, &med_b, &min_b);
    med_min(ratio, reps, &med_r, &min_r);
    printf("two_thread ns_per_op=%.2f ratio=%.3f min_ns_per_op=%.2f min_ratio=%.3f "
           "alone_ns_per_op=%.2f cpus=%d,%d ring_distance_bytes=%zu\n",
           med_b, med_r, min_b, min_b / min_a, med_a, cpu, other, (size_t)((char *)&pair.b - (char *)&pair.a));
    free(alone);
    free(both);
    free(ratio);
}

/* The run's own ring directory under --dir, and its removal at exit (after
 * the library's exit flush, registered later, so run earlier). */
static char run_dir[4096];

static void remove_run_dir(void)
{
    DIR *d = opendir(run_dir);
    if (!d) return;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) unlinkat(dirfd(d), e->d_name, 0);
    closedir(d);
    rmdir(run_dir);
}

static const char *make_run_dir(const char *dir)
{
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "bench_stamp: %s: cannot create: %s\n", dir, strerror(errno));
        exit(1);
    }
    if (snprintf(run_dir, sizeof(run_dir), "%s/bench_stamp.XXXXXX", dir) >= (int)sizeof(run_dir) || !mkdtemp(run_dir)) {
        fprintf(stderr, "bench_stamp: %s: cannot make a directory for the rings: %s\n", dir, strerror(errno));
        exit(1);
    }
    atexit(remove_run_dir);
    return run_dir;
}

static void usage(void)
{
    fprintf(stderr, "usage: bench_stamp [--dir DIR] [--reps N] [--ops N] [--cpu N] [--big-log2 N]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *dir = NULL;
    int reps = 201, cpu = -1, big_log2 = 22;
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc) usage();
        if (strcmp(argv[i], "--dir") == 0) dir = argv[++i];
        else if (strcmp(argv[i], "--reps") == 0) reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--ops") == 0) ops = atol(argv[++i]);
        else if (strcmp(argv[i], "--cpu") == 0) cpu = atoi(argv[++i]);
        else if (strcmp(argv[i], "--big-log2") == 0) big_log2 = atoi(argv[++i]);
        else usage();
    }
    if (reps < 1 || reps > 1000 || ops < 1 || big_log2 < 12 || big_log2 > 26) usage();
    if (dir) dir = make_run_dir(dir);

    sched_getaffinity(0, sizeof(allowed), &allowed);
    if (cpu < 0) cpu = sched_getcpu();
    pin(cpu);
    sched_yield();

    /* Explicit rings for the stamp figures, this thread's ring for tstamp. */
    latrec_t small, big, tsc;
    if (latrec_open_in(&small, dir, "bench_stamp", 16) != 1) return 1;
    if (latrec_open_in(&big, dir, "bench_stamp_big", (unsigned)big_log2) != 1) return 1;
    latrec_set_timebase("bench_stamp_tsc", LATREC_TIMEBASE_TSC);
    if (latrec_open_in(&tsc, dir, "bench_stamp_tsc", (unsigned)big_log2) != 1) return 1;
    if (dir) latrec_set_output_dir(dir);
    setenv("LATREC_ENTRIES_LOG2_BENCH_TSTAMP", "16", 1);
    if (!latrec_tls_open_as("bench_tstamp")) return 1;

    double *v[NFIG], *ratio[NFIG];
    for (int f = 0; f < NFIG; f++) {
        v[f] = calloc((size_t)reps, sizeof(double));
        ratio[f] = calloc((size_t)reps, sizeof(double));
    }
    const int tsc_ring = tsc.timebase == LATREC_TIMEBASE_TSC;
    /* one sample of the figure f */
#define SAMPLE(f)                                                                                                      \
    ((f) == FIG_BARE        ? loop_bare()                                                                              \
     : (f) == FIG_RDTSC     ? loop_rdtsc()                                                                             \
     : (f) == FIG_STAMP_BIG ? loop_stamp(&big)                                                                         \
     : (f) == FIG_TSC_BIG   ? loop_stamp(&tsc)                                                                         \
     : (f) == FIG_STAMP     ? loop_stamp(&small)                                                                       \
     : (f) == FIG_TSTAMP    ? loop_tstamp()                                                                            \
     : (f) == FIG_STAMP_FN  ? loop_stamp_fn(&small)                                                                    \
     : (f) == FIG_NORING    ? loop_noring()                                                                            \
                            : loop_getcpu())
    for (int f = 0; f < NFIG; f++) SAMPLE(f); /* warm-up: one of each */
    for (int r = 0; r < reps; r++)
        for (int f = 0; f < NFIG; f++) {
            const double bare = loop_bare();
            v[f][r] = f == FIG_BARE ? bare : SAMPLE(f);
            ratio[f][r] = v[f][r] / bare;
        }
#undef SAMPLE
    latrec_close(&small);
    latrec_close(&big);
    latrec_close(&tsc);

    printf("config cpu=%d reps=%d ops=%ld big_log2=%d small_log2=16 rseq_cpu=%d tsc_ring=%d "
           "sizeof_latrec_t=%zu\n",
           cpu, reps, ops, big_log2, LATREC_HAVE_RSEQ_CPU, tsc_ring, sizeof(latrec_t));
    double med[NFIG], min[NFIG], med_ratio[NFIG], min_ratio_unused;
    for (int f = 0; f < NFIG; f++) {
        med_min(v[f], reps, &med[f], &min[f]);
        med_min(ratio[f], reps, &med_ratio[f], &min_ratio_unused);
    }
    for (int f = 0; f < NFIG; f++)
        printf("%s ns_per_op=%.2f ratio=%.3f min_ns_per_op=%.2f min_ratio=%.3f\n", fig_name[f], med[f], med_ratio[f],
               min[f], min[f] / min[FIG_BARE]);
    for (int f = 0; f < NFIG; f++) {
        free(v[f]);
        free(ratio[f]);
    }
    two_threads(dir, reps, cpu);
    printf("headline stamp_big fastest_ratio=%.3f median_ratio=%.3f reps=%d\n", min[FIG_STAMP_BIG] / min[FIG_BARE],
           med_ratio[FIG_STAMP_BIG], reps);
    return 0;
}
