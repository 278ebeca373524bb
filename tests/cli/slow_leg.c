/*
 * slow_leg - one thread stamping libE3's outbound leg fast, once slow, for
 * record --stop-above (tests/cli/threshold.bats).
 *
 *   slow_leg N SLOW_SEQ SLEEP_MS OUT END_FILE STATUS
 *
 * Ring libe3.outbound.<tid> (LATREC_OUTPUT_DIR). For seq 1..N: ENQUEUE,
 * DEQUEUE, ENCODE_E3AP_DONE, SEND_DONE back to back, then a 1 ms pause.
 * Seq SLOW_SEQ (0: none) sleeps SLEEP_MS between DEQUEUE and
 * ENCODE_E3AP_DONE, and its bounds go to OUT as "SEQ INNER OUTER END":
 * INNER the clock from right after ENQUEUE was stamped to right before
 * SEND_DONE (a lower bound of its total), OUTER from right before ENQUEUE
 * to right after SEND_DONE (an upper bound), END the clock right after
 * SEND_DONE (CLOCK_MONOTONIC ns). After seq N it creates END_FILE (it ran
 * to its end) and exits STATUS.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <latrec/latrec.h>

static void pause_ns(long ns)
{
    struct timespec ts = { ns / 1000000000L, ns % 1000000000L };
    while (nanosleep(&ts, &ts) != 0) {
    }
}

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: slow_leg N SLOW_SEQ SLEEP_MS OUT END_FILE STATUS\n");
        return 2;
    }
    const long n = atol(argv[1]), slow = atol(argv[2]), sleep_ms = atol(argv[3]);
    if (!latrec_tls_open_as("libe3.outbound")) {
        fprintf(stderr, "slow_leg: no ring\n");
        return 1;
    }
    for (long i = 1; i <= n; i++) {
        const uint64_t seq = (uint64_t)i;
        const uint64_t outer_a = latrec_now_ns();
        latrec_tstamp(seq, LATREC_ENQUEUE, 0, 0);
        const uint64_t inner_a = latrec_now_ns();
        latrec_tstamp(seq, LATREC_DEQUEUE, 0, 0);
        sigset_t stop, old;
        sigemptyset(&stop);
        sigaddset(&stop, SIGINT);
        sigaddset(&stop, SIGTERM);
        /* the stop this instance causes waits until its figures are written */
        if (i == slow) {
            pause_ns(sleep_ms * 1000000L);
            sigprocmask(SIG_BLOCK, &stop, &old);
        }
        latrec_tstamp(seq, LATREC_ENCODE_E3AP_DONE, 100, 0);
        const uint64_t inner_b = latrec_now_ns();
        latrec_tstamp(seq, LATREC_SEND_DONE, seq, 0);
        const uint64_t outer_b = latrec_now_ns();
        if (i == slow) {
            FILE *f = fopen(argv[4], "w");
            if (!f) return 1;
            fprintf(f, "%llu %llu %llu %llu\n", (unsigned long long)seq, (unsigned long long)(inner_b - inner_a),
                    (unsigned long long)(outer_b - outer_a), (unsigned long long)outer_b);
            fclose(f);
            sigprocmask(SIG_SETMASK, &old, NULL);
        }
        pause_ns(1000000L);
    }
    FILE *f = fopen(argv[5], "w");
    if (f) fclose(f);
    return atoi(argv[6]);
}
