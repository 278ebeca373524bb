/* latrec record: the collector table, and driving every collector through
 * its steps (collector.h). A new collector is one file (coll_<name>.c) and
 * one row below. */
#include <stdio.h>
#include <string.h>

#include "record/coll_sched.h"
#include "record/run.h"
#include "util/prog.h"

/* Make the collector for this run: NULL with *err set when out of memory
 * or when the run must not go on; NULL without err when the run does not
 * want it. A collector that cannot work comes back in state FAILED (the
 * run goes on without it, run.json says why). */
typedef latrec_collector *(*make_fn)(const latrec_run *r, char *err, size_t errlen);

static latrec_collector *make_rings(const latrec_run *r, char *err, size_t errlen)
{
    int mode = r->o->attach_pid ? LATREC_RINGS_COPY : r->rings_tmp[0] ? LATREC_RINGS_MOVE : LATREC_RINGS_DIRECT;
    latrec_collector *c = latrec_coll_rings_new(r->rings_src, mode);
    if (!c) snprintf(err, errlen, "out of memory");
    return c;
}

static latrec_collector *make_trace(const latrec_run *r, char *err, size_t errlen)
{
    const latrec_record_opts *o = r->o;
    if (!o->trace) return NULL;
    const char *ev[40];
    size_t ne = 0;
    ev[ne++] = "sched:sched_switch";
    ev[ne++] = "sched:sched_wakeup";
    for (size_t i = 0; i < o->n_events && ne < 39; i++) ev[ne++] = o->events[i];
    ev[ne] = NULL;
    latrec_collector *c = latrec_coll_trace_new(ev, o->trace_buffer_kb);
    if (!c) snprintf(err, errlen, "out of memory");
    return c;
}

/* Loads its BPF program before anything is created: with --require-sched,
 * no scheduler data fails the run before the command forks and before the
 * run directory is touched. */
static latrec_collector *make_sched(const latrec_run *r, char *err, size_t errlen)
{
    const latrec_record_opts *o = r->o;
    latrec_sched_opts so = { o->no_sched, o->sched_buffer, o->sched_tid };
    latrec_collector *c = latrec_coll_sched_new(&so);
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (c->state == LATREC_COLL_FAILED && !o->no_sched) {
        if (o->require_sched) {
            snprintf(err, errlen, "scheduler data: n/a (%s); --require-sched: not running the command", c->error);
            c->ops->destroy(c);
            return NULL;
        }
        if (!o->quiet) fprintf(stderr, "%s: scheduler data: n/a (%s)\n", latrec_prog, c->error);
    }
    return c;
}

static const struct collector_row {
    const char *name;
    int         early; /* made before the run directory exists */
    make_fn     make;
} collector_table[] = {
    { "rings", 0, make_rings }, /* first: finish() looks at it */
    { "trace", 0, make_trace },
    { "sched", 1, make_sched },
};
enum { N_ROWS = sizeof(collector_table) / sizeof(collector_table[0]) };

int latrec_run_make_collectors(latrec_run *r, int early, char *err, size_t errlen)
{
    /* Made ones wait in r->made (a slot per row) so that r->coll keeps
     * table order whatever the phase that made them. */
    for (size_t i = 0; i < N_ROWS; i++) {
        if (collector_table[i].early != early) continue;
        err[0] = '\0';
        r->made[i] = collector_table[i].make(r, err, errlen);
        if (!r->made[i] && err[0]) return -1;
    }
    if (early) return 0;
    r->n_coll = 0;
    for (size_t i = 0; i < N_ROWS; i++)
        if (r->made[i]) r->coll[r->n_coll++] = r->made[i];
    memset(r->made, 0, sizeof(r->made));
    return 0;
}

void latrec_run_start_collectors(latrec_run *r)
{
    latrec_collect_ctx x = { r->dir, r->run_id, r->pid, r->o->attach_pid != 0, r->tfs, r->o->quiet };
    for (size_t i = 0; i < r->n_coll; i++) {
        latrec_collector *c = r->coll[i];
        if (c->state == LATREC_COLL_FAILED) continue; /* said so when it was made */
        if (c->ops->start(c, &x, c->error, sizeof(c->error)) < 0) {
            c->state = LATREC_COLL_FAILED;
            fprintf(stderr, "%s: collector %s: %s; recording without it\n", latrec_prog, c->ops->name, c->error);
        } else {
            c->state = LATREC_COLL_ON;
        }
    }
}

void latrec_run_tell_start(latrec_run *r, uint64_t start_ns)
{
    for (size_t i = 0; i < r->n_coll; i++)
        if (r->coll[i]->state == LATREC_COLL_ON && r->coll[i]->ops->told_start)
            r->coll[i]->ops->told_start(r->coll[i], start_ns);
}

void latrec_run_stop_collectors(latrec_run *r)
{
    for (size_t i = 0; i < r->n_coll; i++) {
        latrec_collector *c = r->coll[i];
        if (c->state != LATREC_COLL_ON) continue;
        if (c->ops->stop(c, r->man.stop.have ? r->man.stop.mono_ns : 0, c->error, sizeof(c->error)) < 0) {
            c->state = LATREC_COLL_FAILED;
            fprintf(stderr, "%s: collector %s: %s\n", latrec_prog, c->ops->name, c->error);
            r->failed = 1;
        } else {
            c->state = LATREC_COLL_DONE;
        }
    }
}

const latrec_collector *latrec_run_collector(const latrec_run *r, const char *name)
{
    for (size_t i = 0; i < r->n_coll; i++)
        if (strcmp(r->coll[i]->ops->name, name) == 0) return r->coll[i];
    return NULL;
}

void latrec_run_destroy_collectors(latrec_run *r)
{
    for (size_t i = 0; i < r->n_coll; i++) r->coll[i]->ops->destroy(r->coll[i]);
    for (size_t i = 0; i < LATREC_RUN_MAX_COLLECTORS; i++)
        if (r->made[i]) r->made[i]->ops->destroy(r->made[i]);
    r->n_coll = 0;
    memset(r->made, 0, sizeof(r->made));
}
