/*
 * bench_legs.c - the leg builder's cost per record on a run of rings.
 *
 *   bench_legs DIR [--repeat R]
 *
 * Merges DIR's rings (the built-in E3 catalog) in time order and, in the
 * same process, alternates R times (default 3) between the merge alone
 * (the reference: every record read and counted) and the merge feeding
 * every record to the leg builder, whose ended instances an emit callback
 * reads (every hit's stamp summed, as a consumer touches them). Records
 * come from the merge 256 at a time and are fed lazily, settled after each
 * block, as in hist's pass (latrec_legs_feed_lazy). It prints
 * the best CPU time per record of each and their difference: the builder's
 * own ns per record. Run it on tests/bench/gen_rings' rings (make bench:
 * bench_engine.sh's 16 x 2^20 run), where every outbound instance waits
 * 10 ms of stream time in grace for its extras.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyze/catalog.h"
#include "analyze/legs.h"
#include "read/merge.h"
#include "read/ringset.h"

#define BLOCK 256 /* records from the merge at a time, as hist's pass takes them */

struct sink {
    uint64_t stamps, instances;
};

static void on_instance(void *ctx, const latrec_instance *inst)
{
    struct sink *k = ctx;
    for (int i = 0; i < inst->n_hits; i++) k->stamps += inst->hits[i].t_ns;
    k->instances++;
}

static double cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* One pass; with_legs 0 is the reference. CPU seconds; *records counted. */
static double run_once(const latrec_catalog *cat, const latrec_ringset *set, int with_legs, uint64_t *records,
                       struct sink *k)
{
    char err[256];
    latrec_merge m;
    if (latrec_merge_init(&m, set->rings, set->n, 0, err, sizeof err) < 0) {
        fprintf(stderr, "bench_legs: %s\n", err);
        exit(1);
    }
    latrec_legs *legs = with_legs ? latrec_legs_new(cat, set, NULL, 0, 0, on_instance, k) : NULL;
    if (with_legs && !legs) {
        fprintf(stderr, "bench_legs: out of memory\n");
        exit(1);
    }
    const double t0 = cpu_s();
    static latrec_merged ev[BLOCK];
    uint64_t n = 0, sum = 0;
    for (size_t got; (got = latrec_merge_fill(&m, ev, BLOCK, UINT64_MAX)) > 0; n += got) {
        if (!legs) {
            for (size_t k = 0; k < got; k++) sum += ev[k].rec.sc;
        } else {
            for (size_t k = 0; k < got; k++) {
                ev[k].rec.t_ns = ev[k].t_ns;
                latrec_legs_feed_lazy(legs, ev[k].ring, &ev[k].rec);
            }
            latrec_legs_settle(legs);
        }
    }
    if (legs) latrec_legs_finish(legs);
    const double dt = cpu_s() - t0;
    latrec_legs_free(legs);
    latrec_merge_free(&m);
    k->stamps += sum; /* keeps the reference's reads */
    *records = n;
    return dt;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_legs DIR [--repeat R]\n");
        return 2;
    }
    int repeat = argc > 3 && strcmp(argv[2], "--repeat") == 0 ? atoi(argv[3]) : 3;
    if (repeat < 1) repeat = 1;
    latrec_catalog cat;
    latrec_ringset set;
    char err[256];
    const char *dirs[] = { argv[1] };
    if (latrec_catalog_e3(&cat) < 0) {
        fprintf(stderr, "bench_legs: out of memory\n");
        return 1;
    }
    if (latrec_ringset_open(&set, dirs, 1, err, sizeof err) < 0) {
        fprintf(stderr, "bench_legs: %s\n", err);
        return 1;
    }
    double best_ref = 1e30, best = 1e30;
    uint64_t records = 0, instances = 0;
    for (int r = 0; r < repeat; r++) {
        struct sink k = { 0, 0 };
        double ref = run_once(&cat, &set, 0, &records, &k), v = run_once(&cat, &set, 1, &records, &k);
        if (ref < best_ref) best_ref = ref;
        if (v < best) best = v;
        instances = k.instances;
    }
    if (!records) {
        fprintf(stderr, "bench_legs: %s: no records\n", argv[1]);
        return 1;
    }
    const double per = 1e9 / (double)records;
    printf("%llu records, %llu instances: merge alone %.2f ns/record, merge + leg builder %.2f ns/record, "
           "leg builder %.2f ns/record (best of %d, CPU time)\n",
           (unsigned long long)records, (unsigned long long)instances, best_ref * per, best * per,
           (best - best_ref) * per, repeat);
    latrec_ringset_close(&set);
    latrec_catalog_free(&cat);
    return 0;
}
