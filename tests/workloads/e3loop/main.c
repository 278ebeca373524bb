/*
 * e3loop - an instrumented two-process E3 loop (RAN <-> dApp) for
 * `latrec record`; see e3loop.h for who stamps what.
 *
 *   e3loop [--rate HZ] [--duration SECONDS] [--payload BYTES] [--threads N]
 *          [--queue N] [--sleep-hop STAGE:TIME[/EVERY]]
 *          [--spin-hop STAGE:TIME[/EVERY]]
 *
 * Exits 0 after its duration (0 = until SIGINT/SIGTERM). On SIGINT or
 * SIGTERM it stops the loop cleanly (rings flushed) and then dies of that
 * signal, as a shell expects.
 */
#define _GNU_SOURCE 1
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <latrec/latrec.h>

#include "e3loop.h"
#include "hops.h"

atomic_int e3loop_stop;

uint64_t e3loop_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void e3loop_heartbeat(uint64_t *last)
{
    uint64_t now = e3loop_now();
    if (now - *last < 100000000u) return;
    *last = now;
    latrec_heartbeat(latrec_tls);
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: e3loop [OPTION...]\n"
            "An instrumented E3 loop: a RAN process sends indications to a dApp process over a\n"
            "Unix socket; the dApp answers with controls. Rings via liblatrec (LATREC_OUTPUT_DIR).\n"
            "  --rate HZ                 indications per second per source thread (default 2000)\n"
            "  --duration SECONDS        run time (default 5; 0: until SIGINT/SIGTERM)\n"
            "  --payload BYTES           E3SM payload per indication (default 256, max %u)\n"
            "  --threads N               parallel source threads (default 1, max %d)\n"
            "  --queue N                 outbound and handler queue capacity (default 1024)\n"
            "  --sleep-hop STAGE:TIME[/EVERY]  sleep before stamping STAGE (e.g. dequeue:10ms)\n"
            "  --spin-hop STAGE:TIME[/EVERY]   busy-spin before stamping STAGE (e.g. process_done:50us)\n"
            "  --help\n",
            E3LOOP_MAX_PAYLOAD, E3LOOP_MAX_THREADS);
}

static int num(const char *opt, const char *s, double lo, double hi, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || v < lo || v > hi) {
        fprintf(stderr, "e3loop: --%s '%s': expected a number in %g..%g\n", opt, s, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

int main(int argc, char **argv)
{
    e3loop_cfg cfg = { 2000, 5, 256, 1, 1024, -1 };
    enum { O_RATE = 1, O_DUR, O_PAYLOAD, O_THREADS, O_QUEUE, O_SLEEP, O_SPIN, O_DAPP, O_HELP };
    static const struct option longopts[] = {
        { "rate", required_argument, 0, O_RATE },       { "duration", required_argument, 0, O_DUR },
        { "payload", required_argument, 0, O_PAYLOAD }, { "threads", required_argument, 0, O_THREADS },
        { "queue", required_argument, 0, O_QUEUE },     { "sleep-hop", required_argument, 0, O_SLEEP },
        { "spin-hop", required_argument, 0, O_SPIN },   { "dapp-fd", required_argument, 0, O_DAPP },
        { "help", no_argument, 0, O_HELP },             { 0, 0, 0, 0 },
    };
    int c;
    double v;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case O_RATE: if (num("rate", optarg, 1, 1e6, &cfg.rate_hz) < 0) return 2; break;
        case O_DUR: if (num("duration", optarg, 0, 1e7, &cfg.duration_s) < 0) return 2; break;
        case O_PAYLOAD: if (num("payload", optarg, 0, E3LOOP_MAX_PAYLOAD, &v) < 0) return 2; cfg.payload = (unsigned)v; break;
        case O_THREADS: if (num("threads", optarg, 1, E3LOOP_MAX_THREADS, &v) < 0) return 2; cfg.threads = (unsigned)v; break;
        case O_QUEUE: if (num("queue", optarg, 1, 1 << 20, &v) < 0) return 2; cfg.queue = (unsigned)v; break;
        case O_SLEEP: if (e3loop_hop_parse(optarg, 0) < 0) return 2; break;
        case O_SPIN: if (e3loop_hop_parse(optarg, 1) < 0) return 2; break;
        case O_DAPP: if (num("dapp-fd", optarg, 0, 1 << 20, &v) < 0) return 2; cfg.dapp_fd = (int)v; break;
        case O_HELP: usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "e3loop: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    if (cfg.dapp_fd >= 0) return e3loop_dapp(&cfg);
    /* the dApp gets the same options (its hops, payload, queue) */
    int stop_sig = 0;
    int rc = e3loop_ran(&cfg, optind, argv, &stop_sig);
    if (stop_sig) {
        /* clean stop done: now die of the signal, as a shell expects */
        signal(stop_sig, SIG_DFL);
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, stop_sig);
        pthread_sigmask(SIG_UNBLOCK, &set, NULL);
        raise(stop_sig);
    }
    return rc;
}
