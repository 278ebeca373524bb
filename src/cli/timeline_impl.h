/*
 * cli/timeline_impl.h - what the parts of the trace.json writer share
 * (timeline.c: the file, instances and flows; timeline_names.c: process and
 * thread names; timeline_sched.c: the scheduler tracks). Not an interface.
 */
#ifndef LATREC_CLI_TIMELINE_IMPL_H
#define LATREC_CLI_TIMELINE_IMPL_H

#include <jansson.h>
#include <stdio.h>

#include "engine/sched_view.h"
#include "cli/timeline.h"
#include "read/outfile.h"

/* One scheduler-known thread generation and where its track stands. */
struct tl_sched_thread {
    uint32_t tid, gen;
    json_int_t pid;    /* the track's process */
    uint64_t first_ns; /* its first event (its generation is the one alive then) */
    uint64_t first_iv; /* its first interval's start */
    size_t n, next;    /* intervals stored over its life, those written or cut */
    uint64_t done_to;  /* the end of the last one written or cut */
};

struct latrec_timeline {
    latrec_outfile out; /* written aside, renamed over trace.json at close */
    FILE *f;
    const latrec_input *in;
    const latrec_legs *legs;
    latrec_timeline_opts opts;
    latrec_timeline_totals tot;
    uint64_t origin;   /* ts 0, ns */
    uint64_t async_id; /* last leg instance id */
    uint64_t flow_id;
    int first;
    int failed;
    latrec_sched_view sv;
    struct tl_sched_thread *th;
    size_t n_th;
    uint64_t sched_settled; /* the model's latrec_sched_settled_before, when last asked */
};

/* Write one event (takes the reference; NULL means out of memory). */
void tl_put(latrec_timeline *t, json_t *ev);
/* A JSON string of s; escaped as \\xHH where s is not UTF-8 (read/escape.h). */
json_t *tl_str(const char *s);
json_int_t tl_pid_of_process(const latrec_timeline *t, uint32_t process);
json_int_t tl_tid_of_ring(const latrec_timeline *t, uint32_t ring);
/* us from ts 0 (three decimals carry the ns). */
double tl_us(const latrec_timeline *t, uint64_t ns);

/* timeline_names.c: process_name / thread_name (and sort) metadata for every
 * process and thread any event uses. */
void tl_write_names(latrec_timeline *t);

/* timeline_sched.c: the scheduler tracks (t->sv open, fed as the slices
 * are written: latrec_sched_view_open_stream), write their
 * slices that begin before `upto` (ns, on the records' clock) within the
 * window and the budget, and free them. tl_sched_flush returns -1 when the
 * budget ran out (t->tot.stopped set). */
int tl_sched_open(latrec_timeline *t);
int tl_sched_flush(latrec_timeline *t, uint64_t upto);
void tl_sched_count_rest(latrec_timeline *t);
void tl_sched_close(latrec_timeline *t);

/* The budget: 1 when n more events fit. */
static inline int tl_fits(const latrec_timeline *t, uint64_t n)
{
    return !t->opts.max_events || t->tot.events + n <= t->opts.max_events;
}

#endif
