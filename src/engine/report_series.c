/* A table's time series (--interval) read by process (engine/pass_split.c):
 * each thread's part keeps the intervals it is filling whole (up to
 * PART_OPEN_INTERVALS, the least recently used one made small when another
 * is wanted) and the rest small: their instances' count and bytes and the
 * histogram of their totals sparse (loghist.h). A thread reads its
 * processes one after another, each from the run's start, so an interval
 * is filled by several processes in turn; what each left of it is added
 * up, the parts are folded at the end and each interval made a row, its
 * p50 and p99 from the histogram of every total it was given, as the pass
 * in time order gives them. */
#include <stdlib.h>
#include <string.h>

#include "engine/report_run.h"

struct part_series *latrec_part_series_new(void)
{
    return calloc(1, sizeof(struct part_series));
}

/* The kept interval idx of ks, made empty if need be; NULL out of memory. */
static struct kept_interval *kept_at(struct kept_series *ks, uint64_t idx)
{
    size_t lo = 0, hi = ks->n;
    if (ks->n && ks->iv[ks->n - 1].idx < idx) lo = hi; /* the usual case: a later one */
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (ks->iv[mid].idx < idx) lo = mid + 1;
        else hi = mid;
    }
    if (lo < ks->n && ks->iv[lo].idx == idx) return &ks->iv[lo];
    if (ks->n == ks->cap) {
        const size_t cap = ks->cap ? 2 * ks->cap : 64;
        struct kept_interval *nv = realloc(ks->iv, cap * sizeof(*nv));
        if (!nv) return NULL;
        ks->iv = nv;
        ks->cap = cap;
    }
    memmove(&ks->iv[lo + 1], &ks->iv[lo], (ks->n - lo) * sizeof(*ks->iv));
    ks->n++;
    memset(&ks->iv[lo], 0, sizeof(ks->iv[lo]));
    ks->iv[lo].idx = idx;
    return &ks->iv[lo];
}

/* What an open interval holds, added to its kept one; the open one is
 * left empty. */
static void keep(struct part_series *ps, struct part_interval *pi)
{
    struct kept_interval *k = kept_at(&ps->kept, pi->idx);
    if (!k || latrec_loghist_sparse_add(&k->total, &pi->total) < 0) {
        ps->oom = 1;
    } else {
        k->count += pi->count;
        k->bytes += pi->bytes;
    }
    latrec_loghist_reset(&pi->total);
    pi->count = pi->bytes = 0;
}

/* An open interval for idx: a new one, or the least recently used one's
 * place once it is kept. NULL out of memory. */
static struct part_interval *open_slot(struct part_series *ps, uint64_t idx)
{
    int i = ps->n_open;
    if (i < PART_OPEN_INTERVALS) {
        if (latrec_loghist_init(&ps->open[i].total) < 0) {
            ps->oom = 1;
            return NULL;
        }
        ps->n_open++;
    } else {
        i = 0;
        for (int k = 1; k < ps->n_open; k++)
            if (ps->open[k].used < ps->open[i].used) i = k;
        keep(ps, &ps->open[i]);
    }
    ps->open[i].idx = idx;
    ps->open[i].count = ps->open[i].bytes = 0;
    return &ps->open[i];
}

void latrec_part_series_add(struct part_series *ps, const struct report_run *r, const latrec_leg_table *t,
                            const latrec_instance *inst)
{
    if (inst->first_t < r->begin) return;
    const uint64_t idx = (inst->first_t - r->begin) / r->interval_ns;
    struct part_interval *pi = ps->n_open && ps->open[ps->last].idx == idx ? &ps->open[ps->last] : NULL;
    for (int i = 0; !pi && i < ps->n_open; i++)
        if (ps->open[i].idx == idx) pi = &ps->open[i];
    if (!pi && !(pi = open_slot(ps, idx))) return;
    ps->last = (int)(pi - ps->open);
    pi->used = ++ps->tick;
    pi->count++;
    uint64_t bytes;
    int64_t v[LATREC_MAX_HOPS];
    const int n = latrec_report_interval_values(t, inst, &bytes, v);
    pi->bytes += bytes;
    for (int k = 0; k < n; k++) latrec_loghist_record(&pi->total, v[k]);
}

void latrec_kept_series_free(struct kept_series *ks)
{
    for (size_t k = 0; k < ks->n; k++) latrec_loghist_sparse_free(&ks->iv[k].total);
    free(ks->iv);
    memset(ks, 0, sizeof(*ks));
}

void latrec_part_series_free(struct part_series *ps)
{
    if (!ps) return;
    for (int i = 0; i < ps->n_open; i++) latrec_loghist_free(&ps->open[i].total);
    latrec_kept_series_free(&ps->kept);
    free(ps);
}

int latrec_part_series_fold(struct kept_series *dst, struct part_series *ps)
{
    for (int i = 0; i < ps->n_open; i++)
        if (ps->open[i].count) keep(ps, &ps->open[i]);
    int rc = ps->oom ? -1 : 0;
    for (size_t k = 0; rc == 0 && k < ps->kept.n; k++) {
        struct kept_interval *src = &ps->kept.iv[k], *d = kept_at(dst, src->idx);
        if (!d || latrec_loghist_sparse_merge(&d->total, &src->total) < 0) {
            rc = -1;
        } else {
            d->count += src->count;
            d->bytes += src->bytes;
        }
    }
    latrec_part_series_free(ps);
    return rc;
}

int latrec_kept_series_rows(struct report_run *r, const latrec_leg_table *t, struct kept_series *ks)
{
    if (!ks->n) return 0;
    latrec_loghist h;
    int rc = latrec_loghist_init(&h);
    for (size_t k = 0; rc == 0 && k < ks->n; k++) {
        const struct kept_interval *iv = &ks->iv[k];
        struct interval_row *row = latrec_report_row_new(r);
        if (!row) {
            rc = -1;
            break;
        }
        row->table = t;
        row->path = -1;
        row->idx = iv->idx;
        row->count = iv->count;
        row->bytes = iv->bytes;
        latrec_loghist_reset(&h);
        latrec_loghist_add_sparse(&h, &iv->total);
        row->has_p50 = latrec_loghist_value_at_percentile(&h, 50, &row->p50);
        row->has_p99 = latrec_loghist_value_at_percentile(&h, 99, &row->p99);
    }
    latrec_loghist_free(&h);
    latrec_kept_series_free(ks);
    return rc;
}
