/*
 * stamp_rate.c - a target for `latrec top`'s benchmark: T threads (default
 * 2) stamp the E3 outbound leg (ENQUEUE, DEQUEUE, ENCODE_E3AP_DONE,
 * SEND_DONE: four records per message, one process-wide seq counter, as
 * libE3 does) at RATE records per second in total (default 1000000), for
 * SECONDS (default 10), in batches paced by the clock every millisecond.
 *
 *   stamp_rate [--rate N] [--seconds S] [--threads T]
 *
 * Prints the records stamped on stdout at the end.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <latrec/latrec.h>

static uint64_t rate = 1000000, seconds = 10;
static int threads = 2;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *stamper(void *arg)
{
    uint64_t *done = arg;
    latrec_tls_open_as("libe3.outbound");
    const uint64_t per_ms = rate / (uint64_t)threads / 1000 / 4; /* messages per thread per ms */
    const uint64_t t0 = now_ns(), end = t0 + seconds * 1000000000ull;
    uint64_t n = 0;
    for (uint64_t tick = t0; tick < end; tick += 1000000) {
        for (uint64_t i = 0; i < per_ms; i++) {
            uint64_t seq = latrec_seq_next();
            latrec_tstamp(seq, LATREC_ENQUEUE, 0, 0);
            latrec_tstamp(seq, LATREC_DEQUEUE, 0, 0);
            latrec_tstamp(seq, LATREC_ENCODE_E3AP_DONE, 64, 0);
            latrec_tstamp(seq, LATREC_SEND_DONE, 64, 0);
            n += 4;
        }
        struct timespec ts = { (time_t)((tick + 1000000) / 1000000000ull), (long)((tick + 1000000) % 1000000000ull) };
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
    }
    *done = n;
    return NULL;
}

int main(int argc, char **argv)
{
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--rate") == 0) rate = strtoull(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--seconds") == 0) seconds = strtoull(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--threads") == 0) threads = atoi(argv[i + 1]);
        else {
            fprintf(stderr, "usage: stamp_rate [--rate N] [--seconds S] [--threads T]\n");
            return 2;
        }
    }
    if (threads < 1 || threads > 64 || rate < 4000) {
        fprintf(stderr, "stamp_rate: --threads 1..64, --rate >= 4000\n");
        return 2;
    }
    pthread_t t[64];
    uint64_t done[64] = { 0 }, total = 0;
    for (int i = 0; i < threads; i++) pthread_create(&t[i], NULL, stamper, &done[i]);
    for (int i = 0; i < threads; i++) {
        pthread_join(t[i], NULL);
        total += done[i];
    }
    printf("%llu\n", (unsigned long long)total);
    return 0;
}
