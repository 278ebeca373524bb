/* TSC rings: whether the TSC may be used (invariant), and the (TSC,
 * CLOCK_MONOTONIC) calibration pairs a TSC ring's header carries. */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "latrec/latrec.h"

static pthread_once_t check_once = PTHREAD_ONCE_INIT;
static int invariant;
static char why_not[160];

/* 1 when the flags line of a cpuinfo file names both flags; 0 when it lacks
 * one (why says which); -1 when the file has no flags line or is unreadable. */
static int cpuinfo_says(const char *path)
{
    FILE *f = fopen(path, "re");
    if (!f) return -1;
    char line[8192];
    int rc = -1;
    while (fgets(line, sizeof(line), f)) {
        if (strncmp(line, "flags", 5) != 0) continue;
        int constant = 0, nonstop = 0;
        for (char *tok = strtok(strchr(line, ':') ? strchr(line, ':') + 1 : line, " \t\n"); tok;
             tok = strtok(NULL, " \t\n")) {
            constant |= strcmp(tok, "constant_tsc") == 0;
            nonstop |= strcmp(tok, "nonstop_tsc") == 0;
        }
        rc = constant && nonstop;
        if (!rc)
            snprintf(why_not, sizeof(why_not), "no %s in %s",
                     !constant ? (nonstop ? "constant_tsc" : "constant_tsc/nonstop_tsc") : "nonstop_tsc", path);
        break;
    }
    fclose(f);
    return rc;
}

static void check(void)
{
#if defined(__x86_64__)
    /* LATREC_TSC_CPUINFO names another cpuinfo file (tests simulate a CPU
     * without an invariant TSC with it). */
    const char *path = getenv("LATREC_TSC_CPUINFO");
    if (!path || !*path) path = "/proc/cpuinfo";
    int rc = cpuinfo_says(path);
    if (rc < 0) { /* no cpuinfo: ask the CPU (invariant TSC, 0x80000007 EDX bit 8) */
        unsigned a, b, c, d;
        rc = __get_cpuid(0x80000007u, &a, &b, &c, &d) && (d & (1u << 8));
        if (!rc) snprintf(why_not, sizeof(why_not), "no flags in %s and no invariant TSC in CPUID", path);
    }
    invariant = rc;
#else
    invariant = 0;
    snprintf(why_not, sizeof(why_not), "no TSC ring on this architecture");
#endif
}

int latrec_tsc_usable_(const char **why)
{
    pthread_once(&check_once, check);
    *why = why_not;
    return invariant;
}

void latrec_tsc_pair_(uint64_t *tsc, uint64_t *mono_ns)
{
    /* The clock read between two TSC reads; the tightest of a few tries, the
     * TSC at the midpoint (error about half that window, ~10 ns). */
    uint64_t best = UINT64_MAX;
    for (int k = 0; k < 7; k++) {
        const uint64_t a = latrec_rdtsc();
        const uint64_t m = latrec_now_ns();
        const uint64_t b = latrec_rdtsc();
        if (b < a || b - a >= best) continue;
        best = b - a;
        *tsc = a + (b - a) / 2;
        *mono_ns = m;
    }
    if (best == UINT64_MAX) { /* never ordered (cannot happen on one CPU) */
        *mono_ns = latrec_now_ns();
        *tsc = latrec_rdtsc();
    }
}

void latrec_tsc_store_pair_(latrec_hdr *h)
{
    uint64_t tsc, mono;
    latrec_tsc_pair_(&tsc, &mono);
    const uint64_t k = __atomic_fetch_add(&h->cal_taken, 1, __ATOMIC_RELAXED);
    const uint64_t slots = h->cal_slots > LATREC_CAL_OPEN ? h->cal_slots : LATREC_CAL_SLOTS;
    const uint64_t s = k < LATREC_CAL_OPEN ? k : LATREC_CAL_OPEN + (k - LATREC_CAL_OPEN) % (slots - LATREC_CAL_OPEN);
    latrec_cal *c = &h->cal[s];
    /* empty the slot, write the counter, publish with the clock last */
    __atomic_store_n(&c->mono_ns, 0, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    __atomic_store_n(&c->tsc, tsc, __ATOMIC_RELAXED);
    __atomic_store_n(&c->mono_ns, mono, __ATOMIC_RELEASE);
}
