/*
 * tsc_mixed - one process writing a TSC ring and a clock ring of one leg,
 * for the mixed-timebase report test (tests/cli/tsc.bats).
 *
 *   tsc_mixed DIR N GAP_NS
 *
 * Ring oai.1 is a TSC ring (latrec_set_timebase), libe3.outbound.2 a clock
 * ring. For seq 1..N: ENQUEUE on oai.1, then a spin until the clock is
 * GAP_NS past a clock read taken right after that stamp, then DEQUEUE,
 * ENCODE_E3AP_DONE and SEND_DONE on libe3.outbound.2. So every
 * ENQUEUE->DEQUEUE hop is at least GAP_NS (less the TSC conversion error,
 * a few ns). Exit 0, or 1 when a ring is not of the timebase wanted.
 */
#include <stdio.h>
#include <stdlib.h>

#include <latrec/latrec.h>

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: tsc_mixed DIR N GAP_NS\n");
        return 2;
    }
    const char *dir = argv[1];
    const long n = atol(argv[2]);
    const uint64_t gap = strtoull(argv[3], NULL, 10);
    latrec_set_timebase("oai", LATREC_TIMEBASE_TSC);
    latrec_t src, out;
    if (latrec_open_in(&src, dir, "oai.1", 12) != 1 || latrec_open_in(&out, dir, "libe3.outbound.2", 12) != 1) return 1;
    if (src.timebase != LATREC_TIMEBASE_TSC || out.timebase != LATREC_TIMEBASE_MONO) {
        fprintf(stderr, "tsc_mixed: oai.1 is not a TSC ring here\n");
        return 1;
    }
    for (long i = 1; i <= n; i++) {
        latrec_stamp(&src, (uint64_t)i, LATREC_ENQUEUE, 0, 0);
        const uint64_t after = latrec_now_ns();
        while (latrec_now_ns() < after + gap) {
        }
        latrec_stamp(&out, (uint64_t)i, LATREC_DEQUEUE, 0, 0);
        latrec_stamp(&out, (uint64_t)i, LATREC_ENCODE_E3AP_DONE, 100, 0);
        latrec_stamp(&out, (uint64_t)i, LATREC_SEND_DONE, (uint64_t)i, 0);
        if (i % 50 == 0) latrec_heartbeat(&src);
    }
    latrec_close(&src);
    latrec_close(&out);
    return 0;
}
