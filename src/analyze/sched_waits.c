/*
 * analyze/sched_waits.c - the runqueue waits of a whole run in bounded
 * memory (latrec_sched_waits, sched_pass.h): the model is fed from the
 * source, the waits it pushed are handed on every so often and then let go
 * of, with every interval and occupancy that ended.
 */
#include "analyze/sched_pass.h"

#include <errno.h>

#include "analyze/sched_model_impl.h"

#define WAITS_EVERY 4096u /* records fed between two walks over the waits */

/* The waits pushed since the last walk to fn, then what ended let go: a
 * wait is pushed at its switch-in, at or before the model's time. */
static int walk(latrec_sched_model *m, latrec_sched_wait_fn fn, void *ctx)
{
    const int rc = latrec_sched_foreach_wait(m, fn, ctx);
    if (!rc) latrec_sched_forget(m, m->cur_t);
    return rc;
}

int latrec_sched_waits(const latrec_sched_source *src, latrec_sched_model **out, latrec_sched_wait_fn fn, void *ctx)
{
    latrec_sched_model *m = *out = latrec_sched_model_new();
    if (!m) {
        errno = ENOMEM;
        return -1;
    }
    m->c.ring_lost = src->ring_lost;
    latrec_rec rec;
    int rc = 0;
    for (unsigned k = 1; !rc && src->next(src->ctx, &rec); k++) {
        if (latrec_sched_feed(m, &rec)) return -1;
        if (k % WAITS_EVERY == 0) rc = walk(m, fn, ctx);
    }
    if (rc) return rc;
    if (latrec_sched_finish(m)) return -1;
    return walk(m, fn, ctx);
}
