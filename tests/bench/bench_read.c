/*
 * bench_read.c - the reader's plain pass: open and validate every ring of a
 * directory (header checks, the one derivation pass over the slots: valid
 * count, descents, wrap point, loss), then visit every record in write
 * order with latrec_ring_next(). No output but the figures.
 *
 *   bench_read [--merge] [--repeat N] DIR
 *
 * Prints one line per pass:
 *   plain: R rings, N records, open+validate S s, iterate S s, total S s, X M records/s
 * With --merge, a second pass visits the records in time order through the
 * k-way merge (what every analysis command reads) and prints its rate.
 * --repeat N runs everything N times and keeps the fastest pass (the first
 * pays the page faults of the mappings). Times are CPU time (user + sys) of
 * the process, which a busy neighbour steals least of. A checksum of the records keeps
 * the compiler from dropping the loops.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "read/merge.h"
#include "read/ringset.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts); /* CPU time: the machines are shared */
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    int merge = 0, repeat = 1;
    const char *dir = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--merge") == 0) merge = 1;
        else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) repeat = atoi(argv[++i]);
        else if (!dir && argv[i][0] != '-') dir = argv[i];
        else {
            fprintf(stderr, "usage: bench_read [--merge] [--repeat N] DIR\n");
            return 2;
        }
    }
    if (!dir || repeat < 1) {
        fprintf(stderr, "usage: bench_read [--merge] [--repeat N] DIR\n");
        return 2;
    }
    double best_open = 1e9, best_iter = 1e9, best_total = 1e9, best_merge = 1e9;
    uint64_t n = 0, sum = 0, n_merged = 0;
    size_t rings = 0;
    for (int rep = 0; rep < repeat; rep++) {
        latrec_ringset set;
        char err[512];
        double a = now();
        if (latrec_ringset_open_dir(&set, dir, err, sizeof err) < 0) {
            fprintf(stderr, "bench_read: %s\n", err);
            return 1;
        }
        double b = now();
        n = 0;
        for (size_t i = 0; i < set.n; i++) {
            const latrec_ring *r = &set.rings[i];
            if (r->status != LATREC_RING_OK) {
                fprintf(stderr, "bench_read: %s: %s\n", r->path, r->error);
                continue;
            }
            latrec_cursor c;
            latrec_rec rec;
            latrec_ring_cursor_init(&c);
            while (latrec_ring_next(r, &c, &rec)) {
                sum += rec.t_ns ^ rec.sc;
                n++;
            }
        }
        double c = now();
        rings = set.n_ok;
        if (b - a < best_open) best_open = b - a;
        if (c - b < best_iter) best_iter = c - b;
        if (c - a < best_total) best_total = c - a;
        if (merge) {
            latrec_merge m;
            static latrec_merged ev[256];
            double d = now();
            if (latrec_merge_init(&m, set.rings, set.n, 0, err, sizeof err) < 0) {
                fprintf(stderr, "bench_read: %s\n", err);
                return 1;
            }
            n_merged = 0;
            for (size_t got; (got = latrec_merge_fill(&m, ev, 256, UINT64_MAX)) > 0;)
                for (size_t k = 0; k < got; k++) {
                    sum += ev[k].t_ns;
                    n_merged++;
                }
            latrec_merge_free(&m);
            double e = now();
            if (e - d < best_merge) best_merge = e - d;
        }
        latrec_ringset_close(&set);
    }
    printf("plain: %zu rings, %llu records, open+validate %.3f s, iterate %.3f s, total %.3f s, %.1f M records/s\n",
           rings, (unsigned long long)n, best_open, best_iter, best_total, (double)n / best_total / 1e6);
    if (merge)
        printf("merge: %llu records in time order, %.3f s, %.1f M records/s\n", (unsigned long long)n_merged,
               best_merge, (double)n_merged / best_merge / 1e6);
    fprintf(stderr, "checksum %llx\n", (unsigned long long)sum);
    return n == 0;
}
