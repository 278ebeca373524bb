/* Planted sleeps and spins before a stage. */
#include "hops.h"

#include <ctype.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <latrec/latrec.h>

#include "e3loop.h"

struct hop_delay {
    uint64_t ns;
    uint64_t every;
    int spin;
    atomic_uint_fast64_t count;
};

static struct hop_delay delays[256];

static int stage_id(const char *name, size_t len)
{
    char up[48];
    if (len == 0 || len >= sizeof(up)) return -1;
    for (size_t i = 0; i < len; i++) up[i] = (char)toupper((unsigned char)name[i]);
    up[len] = '\0';
    for (unsigned id = 0; id < 256; id++) {
        const char *n = latrec_e3_stage_name(id);
        if (n && strcmp(n, up) == 0) return (int)id;
    }
    return -1;
}

static int parse_time(const char *s, const char *end, uint64_t *ns)
{
    char *e;
    double v = strtod(s, &e);
    if (e == s || v < 0) return -1;
    size_t ulen = (size_t)(end - e);
    double mul;
    if (ulen == 0 || (ulen == 2 && !strncmp(e, "ns", 2))) mul = 1;
    else if (ulen == 2 && !strncmp(e, "us", 2)) mul = 1e3;
    else if (ulen == 2 && !strncmp(e, "ms", 2)) mul = 1e6;
    else if (ulen == 1 && *e == 's') mul = 1e9;
    else return -1;
    *ns = (uint64_t)(v * mul + 0.5);
    return 0;
}

int e3loop_hop_parse(const char *arg, int spin)
{
    const char *colon = strchr(arg, ':');
    const char *slash = colon ? strchr(colon, '/') : NULL;
    const char *tend = slash ? slash : arg + strlen(arg);
    int id = colon ? stage_id(arg, (size_t)(colon - arg)) : -1;
    uint64_t ns = 0, every = 1;
    if (id < 0 || parse_time(colon + 1, tend, &ns) < 0 || ns == 0) goto bad;
    if (slash) {
        char *e;
        every = strtoull(slash + 1, &e, 10);
        if (*e || every == 0) goto bad;
    }
    delays[id].ns = ns;
    delays[id].every = every;
    delays[id].spin = spin;
    return 0;
bad:
    fprintf(stderr, "e3loop: --%s-hop '%s': expected STAGE:TIME[/EVERY], e.g. dequeue:10ms or "
                    "recv:200us/100 (STAGE an E3 stage name)\n", spin ? "spin" : "sleep", arg);
    return -1;
}

void e3loop_hop(uint8_t stage)
{
    struct hop_delay *d = &delays[stage];
    if (!d->ns) return;
    uint64_t n = atomic_fetch_add(&d->count, 1) + 1;
    if (n % d->every) return;
    if (d->spin) {
        uint64_t until = e3loop_now() + d->ns;
        while (e3loop_now() < until) {}
    } else {
        struct timespec ts = { (time_t)(d->ns / 1000000000u), (long)(d->ns % 1000000000u) };
        clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
    }
}

void e3loop_stamp(uint64_t seq, uint8_t stage, uint64_t aux, uint64_t aux2)
{
    e3loop_hop(stage);
    latrec_tstamp(seq, stage, aux, aux2);
}
