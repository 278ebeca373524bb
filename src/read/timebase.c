/*
 * timebase.c - TSC counts to CLOCK_MONOTONIC ns (rules in timebase.h).
 */
#include "read/timebase.h"

#include <stdlib.h>
#include <string.h>

static int by_tsc(const void *a, const void *b)
{
    const latrec_cal *x = a, *y = b;
    if (x->tsc != y->tsc) return x->tsc < y->tsc ? -1 : 1;
    return x->mono_ns < y->mono_ns ? -1 : x->mono_ns > y->mono_ns;
}

int latrec_tsc_map_build(latrec_tsc_map *m, const latrec_cal *raw, unsigned slots)
{
    memset(m, 0, sizeof *m);
    if (slots > LATREC_CAL_SLOTS) slots = LATREC_CAL_SLOTS;
    latrec_cal all[LATREC_CAL_SLOTS];
    unsigned k = 0;
    for (unsigned i = 0; i < slots; i++)
        if (raw[i].mono_ns != 0) all[k++] = raw[i];
    qsort(all, k, sizeof all[0], by_tsc);
    for (unsigned i = 0; i < k; i++) {
        const latrec_cal *last = m->n ? &m->p[m->n - 1] : NULL;
        if (last && (all[i].tsc <= last->tsc || all[i].mono_ns <= last->mono_ns)) {
            m->dropped++;
            continue;
        }
        m->p[m->n++] = all[i];
    }
    return m->n >= 2 ? 0 : -1;
}
