/*
 * bench_tsc - the conversion error of TSC stamps, against clock reads taken
 * beside them.
 *
 *   bench_tsc [--seconds S] [--dir DIR] [--rate HZ] [--heartbeat-ms MS]
 *
 * Opens a TSC ring (DIR/bench_tsc.latrec, 2^20 entries) and for S seconds
 * (default 60), HZ times a second (default 10000), takes
 *   m0 = CLOCK_MONOTONIC; t = TSC; m1 = CLOCK_MONOTONIC
 * and stores t as the stamp with aux = m0, aux2 = m1. A heartbeat (one more
 * calibration pair) every MS ms (default 1000; 0: none between open and
 * close). The ring is closed, then read back through the project's reader:
 * each stamp's converted time is compared with the midpoint of its two clock
 * reads. The same stamps are also converted with fewer pairs, as a writer
 * that heartbeats less would leave them:
 *   all        every pair the ring holds (open, heartbeats, close)
 *   open_close the two open pairs and the close pair only
 *   open_only  the two open pairs only (a writer killed before any
 *              heartbeat: the 2 ms open rate extrapolated over S seconds)
 * Output: a config line, then per calibration one line
 *   NAME pairs=P median_abs_ns=X p99_abs_ns=Y max_abs_ns=Z outside=K outside_max_ns=D
 * with the error |converted - (m0 + m1) / 2| over the stamps whose window
 * m1 - m0 is at most twice the median window (a stamp preempted between its
 * clock reads says nothing about the conversion), and outside = stamps,
 * of all, whose converted time falls outside [m0, m1] (D: the farthest).
 * The median window is on the config line: an error within half of it is
 * the clock reads' own uncertainty.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <latrec/latrec.h>

#include "read/ring.h"
#include "read/timebase.h"

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void usage(void)
{
    fprintf(stderr, "usage: bench_tsc [--seconds S] [--dir DIR] [--rate HZ] [--heartbeat-ms MS]\n");
    exit(2);
}

/* Stamp for `seconds`; returns the records written. */
static uint64_t stamp_for(latrec_t *r, double seconds, double rate, long heartbeat_ms)
{
    const uint64_t start = latrec_now_ns(), end = start + (uint64_t)(seconds * 1e9);
    const uint64_t step = (uint64_t)(1e9 / rate);
    uint64_t next = start, beat = start + (uint64_t)heartbeat_ms * 1000000u, n = 0;
    for (uint64_t now = start; now < end; now = latrec_now_ns()) {
        if (now < next) continue;
        next += step;
        const uint64_t m0 = latrec_now_ns();
        const uint64_t t = latrec_ring_now(r);
        const uint64_t m1 = latrec_now_ns();
        latrec_stamp_at(r, ++n, LATREC_ENQUEUE, m0, m1, t);
        if (heartbeat_ms > 0 && m1 >= beat) {
            latrec_heartbeat(r);
            beat += (uint64_t)heartbeat_ms * 1000000u;
        }
    }
    return n;
}

/* Errors of the stamps of `ring` converted with `m`; prints one line. The
 * midpoint error is taken over the stamps whose window is at most
 * `max_window` ns (a stamp preempted between its clock reads has a wide
 * window and says nothing about the conversion); `outside` and its largest
 * distance to the window count every stamp. */
static void report(const char *name, const latrec_ring *ring, const latrec_tsc_map *m, uint64_t max_window,
                   uint64_t *err)
{
    uint64_t n = 0, outside = 0, outside_max = 0;
    for (uint64_t s = 0; s < ring->entries; s++) {
        const latrec_rec *rec = &ring->recs[s];
        if (!rec->t_ns) continue;
        const uint64_t t = latrec_tsc_to_mono(m, rec->t_ns);
        if (t < rec->aux || t > rec->aux2) {
            const uint64_t d = t < rec->aux ? rec->aux - t : t - rec->aux2;
            outside++;
            if (d > outside_max) outside_max = d;
        }
        if (rec->aux2 - rec->aux > max_window) continue;
        const uint64_t mid = rec->aux + (rec->aux2 - rec->aux) / 2;
        err[n++] = t > mid ? t - mid : mid - t;
    }
    if (!n) return;
    qsort(err, n, sizeof(err[0]), cmp_u64);
    printf("%s pairs=%u median_abs_ns=%llu p99_abs_ns=%llu max_abs_ns=%llu outside=%llu "
           "outside_max_ns=%llu\n",
           name, m->n, (unsigned long long)err[n / 2], (unsigned long long)err[n * 99 / 100],
           (unsigned long long)err[n - 1], (unsigned long long)outside, (unsigned long long)outside_max);
}

int main(int argc, char **argv)
{
    const char *dir = NULL;
    double seconds = 60, rate = 10000;
    long heartbeat_ms = 1000;
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc) usage();
        if (strcmp(argv[i], "--seconds") == 0) seconds = atof(argv[++i]);
        else if (strcmp(argv[i], "--dir") == 0) dir = argv[++i];
        else if (strcmp(argv[i], "--rate") == 0) rate = atof(argv[++i]);
        else if (strcmp(argv[i], "--heartbeat-ms") == 0) heartbeat_ms = atol(argv[++i]);
        else usage();
    }
    if (seconds <= 0 || rate <= 0 || rate > 1e6 || heartbeat_ms < 0) usage();

    latrec_set_timebase("bench_tsc", LATREC_TIMEBASE_TSC);
    latrec_t r;
    if (latrec_open_in(&r, dir, "bench_tsc", 20) != 1) return 1;
    if (r.timebase != LATREC_TIMEBASE_TSC) {
        fprintf(stderr, "bench_tsc: no TSC ring here (see the line above)\n");
        latrec_close(&r);
        return 1;
    }
    const uint64_t n = stamp_for(&r, seconds, rate, heartbeat_ms);
    latrec_close(&r);

    char path[4200];
    snprintf(path, sizeof(path), "%s/bench_tsc.latrec", dir ? dir : ".");
    latrec_ring ring;
    if (latrec_ring_open(&ring, path) != 0 || !ring.tsc) {
        fprintf(stderr, "bench_tsc: %s: %s\n", path, ring.error[0] ? ring.error : "not a TSC ring");
        return 1;
    }
    uint64_t *err = malloc(ring.entries * sizeof(*err)), *win = malloc(ring.entries * sizeof(*win));
    uint64_t k = 0;
    for (uint64_t s = 0; s < ring.entries; s++)
        if (ring.recs[s].t_ns) win[k++] = ring.recs[s].aux2 - ring.recs[s].aux;
    qsort(win, k, sizeof(*win), cmp_u64);
    const uint64_t max_window = k ? 2 * win[k / 2] : 0;
    uint64_t used = 0;
    while (used < k && win[used] <= max_window) used++;
    printf("config seconds=%.0f rate=%.0f heartbeat_ms=%ld stamps=%llu kept=%llu "
           "window_median_ns=%llu max_window_ns=%llu within_max_window=%llu\n",
           seconds, rate, heartbeat_ms, (unsigned long long)n, (unsigned long long)ring.valid,
           (unsigned long long)(k ? win[k / 2] : 0), (unsigned long long)max_window, (unsigned long long)used);

    const latrec_hdr *h = ring.map;
    latrec_tsc_map sub;
    report("all", &ring, ring.tsc, max_window, err);
    latrec_cal pick[3] = { h->cal[0], h->cal[1], ring.tsc->p[ring.tsc->n - 1] };
    if (latrec_tsc_map_build(&sub, pick, 3) == 0) report("open_close", &ring, &sub, max_window, err);
    if (latrec_tsc_map_build(&sub, h->cal, LATREC_CAL_OPEN) == 0) report("open_only", &ring, &sub, max_window, err);
    free(err);
    free(win);
    latrec_ring_close(&ring);
    return 0;
}
