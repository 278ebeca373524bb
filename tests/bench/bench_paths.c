/*
 * bench_paths.c - path assembly throughput and memory.
 *
 *   bench_paths [--log2 L...] [--repeat R]
 *
 * 16 rings (4 processes x 4 threads) of 2^L records each (default L = 16,
 * 18, 20), in memory: a three-leg path a -> b -> c (2 stages each), a in
 * process p, b and c in process p + 1, joined across processes by aux
 * (A_OUT.aux = B_IN.aux) and inside the process by aux2 (B_OUT.aux2 =
 * C_IN.aux2), every key unique; message m starts every 100 ns and takes
 * 5.1 us, each stage on another thread. The records are fed in time order to
 * the leg builder, its ended instances to the path assembler, as report
 * does (no file I/O: this measures the analysis).
 *
 * Per size, in a child process each (so that peak RSS is the size's own),
 * alternating R times (default 3) between the reference (leg builder only)
 * and legs + paths, it prints the best records/s of each, their ratio, and
 * peak RSS (getrusage ru_maxrss of the child) and the most fragments open at
 * once; memory flat as records grow shows as the same peak RSS at every size.
 * Exit 1 when a message was not assembled (the count is checked).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "analyze/catalog.h"
#include "analyze/legs.h"
#include "analyze/paths.h"
#include "latrec/format.h"

#define PROCS 4
#define THREADS 4
#define RINGS (PROCS * THREADS)
#define STAGES 6

static const uint64_t offset_ns[STAGES] = { 0, 50, 3000, 3200, 5000, 5100 };

struct bench {
    latrec_catalog cat;
    latrec_ringset set;
    latrec_ring rings[RINGS];
    latrec_paths *paths;
    uint64_t complete;
    size_t max_open;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void on_path(void *ctx, const latrec_path_instance *pi)
{
    struct bench *b = ctx;
    b->complete += pi->complete != 0;
}

static void on_leg(void *ctx, const latrec_instance *inst)
{
    struct bench *b = ctx;
    if (!b->paths) return;
    if (latrec_paths_feed(b->paths, inst) < 0) {
        fprintf(stderr, "bench_paths: out of memory\n");
        exit(1);
    }
    size_t open = latrec_paths_open(b->paths);
    if (open > b->max_open) b->max_open = open;
}

static void setup(struct bench *b)
{
    memset(b, 0, sizeof(*b));
    latrec_catalog_init(&b->cat, "pipe");
    static const char *const names[STAGES] = { "A_IN", "A_OUT", "B_IN", "B_OUT", "C_IN", "C_OUT" };
    for (int s = 0; s < STAGES; s++) b->cat.stage_names[s + 1] = strdup(names[s]);
    for (int l = 0; l < 3; l++) {
        latrec_leg leg;
        memset(&leg, 0, sizeof(leg));
        snprintf(leg.name, sizeof(leg.name), "%c", 'a' + l);
        leg.chain[0] = (uint8_t)(2 * l + 1);
        leg.chain[1] = (uint8_t)(2 * l + 2);
        leg.n_chain = 2;
        latrec_catalog_add_leg(&b->cat, &leg);
    }
    /* a.out = A_OUT.aux; b.in = B_IN.aux, b.out = B_OUT.aux2; c.in = C_IN.aux2 */
    b->cat.legs[0].keys[0] = (latrec_key){ "out", 2, LATREC_FIELD_AUX };
    b->cat.legs[0].n_keys = 1;
    b->cat.legs[1].keys[0] = (latrec_key){ "in", 3, LATREC_FIELD_AUX };
    b->cat.legs[1].keys[1] = (latrec_key){ "out", 4, LATREC_FIELD_AUX2 };
    b->cat.legs[1].n_keys = 2;
    b->cat.legs[2].keys[0] = (latrec_key){ "in", 5, LATREC_FIELD_AUX2 };
    b->cat.legs[2].n_keys = 1;
    b->cat.joins[0] = (latrec_join){ 0, 0, 1, 0, 1 };
    b->cat.joins[1] = (latrec_join){ 1, 1, 2, 0, 0 };
    b->cat.n_joins = 2;
    const int legs[] = { 0, 1, 2 };
    char why[160];
    if (latrec_catalog_add_path(&b->cat, "pipe/abc", legs, 3, why, sizeof(why)) < 0) {
        fprintf(stderr, "bench_paths: %s\n", why);
        exit(1);
    }
    for (int r = 0; r < RINGS; r++) {
        latrec_ring *ring = &b->rings[r];
        ring->status = LATREC_RING_OK;
        ring->version = 3;
        ring->pid = 9000u + (uint32_t)(r / THREADS);
        ring->tid = 9100u + (uint32_t)r;
        snprintf(ring->name, sizeof(ring->name), "pipe.%u", ring->tid);
        ring->basename = ring->name;
    }
    b->set.rings = b->rings;
    b->set.n = b->set.n_ok = RINGS;
}

/* Feed n_msgs messages in time order: stage j of message m at
 * m * 100 + offset_ns[j] (a 6-way merge of arithmetic sequences). */
static void feed(latrec_legs *legs, uint64_t n_msgs)
{
    uint64_t next[STAGES] = { 0 };
    const uint64_t base = 1000000000ull;
    for (;;) {
        int j = -1;
        uint64_t best = UINT64_MAX;
        for (int s = 0; s < STAGES; s++) {
            if (next[s] >= n_msgs) continue;
            uint64_t t = next[s] * 100 + offset_ns[s];
            if (t < best) {
                best = t;
                j = s;
            }
        }
        if (j < 0) return;
        const uint64_t m = next[j]++;
        const unsigned p = (unsigned)(m % PROCS), q = (p + 1) % PROCS;
        const unsigned proc = j < 2 ? p : q, thread = (unsigned)((m + (uint64_t)j) % THREADS);
        const uint64_t seq = m / PROCS + 1; /* each leg counts its own seqs per process */
        latrec_rec rec = { (uint64_t)(j + 1) << 56 | seq, base + best, 0, 0 };
        if (j == 1 || j == 2) rec.aux = m + 1;
        if (j == 3 || j == 4) rec.aux2 = m + 1;
        latrec_legs_feed(legs, proc * THREADS + thread, &rec);
    }
}

/* One run: records/s; with_paths 0 is the reference (legs only). */
static double run_once(struct bench *b, uint64_t n_msgs, int with_paths)
{
    b->complete = 0;
    b->max_open = 0;
    latrec_legs *legs = latrec_legs_new(&b->cat, &b->set, NULL, 0, 0, on_leg, b);
    b->paths = with_paths ? latrec_paths_new(&b->cat, legs, NULL, on_path, b) : NULL;
    if (!legs || (with_paths && !b->paths)) {
        fprintf(stderr, "bench_paths: out of memory\n");
        exit(1);
    }
    double t0 = now_s();
    feed(legs, n_msgs);
    latrec_legs_finish(legs);
    if (b->paths) latrec_paths_finish(b->paths);
    double dt = now_s() - t0;
    latrec_paths_free(b->paths);
    b->paths = NULL;
    latrec_legs_free(legs);
    return (double)(n_msgs * STAGES) / dt;
}

/* In a child: R alternating rounds; prints one line. */
static int bench_size(unsigned log2, int repeat)
{
    struct bench b;
    setup(&b);
    const uint64_t records = (uint64_t)RINGS << log2, n_msgs = records / STAGES;
    double best_ref = 0, best = 0;
    for (int r = 0; r < repeat; r++) {
        double ref = run_once(&b, n_msgs, 0), v = run_once(&b, n_msgs, 1);
        if (ref > best_ref) best_ref = ref;
        if (v > best) best = v;
        if (b.complete != n_msgs) {
            fprintf(stderr, "bench_paths: %llu of %llu messages assembled\n", (unsigned long long)b.complete,
                    (unsigned long long)n_msgs);
            return 1;
        }
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("%2u x 2^%-2u  %9llu records  legs only %6.2f M rec/s  legs+paths %6.2f M rec/s  ratio %.2f  "
           "peak RSS %6.1f MiB  open fragments max %zu\n",
           RINGS, log2, (unsigned long long)(n_msgs * STAGES), best_ref / 1e6, best / 1e6, best / best_ref,
           (double)ru.ru_maxrss / 1024.0, b.max_open);
    fflush(stdout);
    latrec_catalog_free(&b.cat);
    return 0;
}

int main(int argc, char **argv)
{
    unsigned sizes[8] = { 16, 18, 20 };
    int n_sizes = 3, repeat = 3, custom = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--log2") == 0 && i + 1 < argc) {
            if (!custom) n_sizes = 0;
            custom = 1;
            if (n_sizes < 8) sizes[n_sizes++] = (unsigned)atoi(argv[++i]);
        } else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
            repeat = atoi(argv[++i]);
        } else {
            fprintf(stderr, "usage: bench_paths [--log2 L...] [--repeat R]\n");
            return 2;
        }
    }
    printf("bench_paths: path assembly (3 legs, 2 joins, unique keys), best of %d, reference = leg builder "
           "alone, interleaved\n",
           repeat);
    int rc = 0;
    for (int s = 0; s < n_sizes; s++) {
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) _exit(bench_size(sizes[s], repeat));
        int st = 0;
        if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) rc = 1;
    }
    return rc;
}
