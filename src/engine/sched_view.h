/*
 * engine/sched_view.h - the scheduler's side of a hop, for report, hist and
 * record's --stop-above.
 *
 * When a run holds sched.latrec, its records are loaded into a scheduler
 * model (analyze/sched_model.h) and every hop instance [t_a, t_b] is laid
 * over the timeline of the thread that stamped its second stage: time on
 * CPU, runnable (runqueue wait), blocked, and unknown (no data), in ns;
 * preemptions and migrations inside; who ran instead. Without scheduler data
 * the view says why (run.json's collector reason, or that the run has no
 * sched.latrec) and every figure is n/a - never zero. While a run is
 * recorded the view follows its live sched.latrec (latrec_sched_view_open_live).
 */
#ifndef LATREC_ENGINE_SCHED_VIEW_H
#define LATREC_ENGINE_SCHED_VIEW_H

#include <stdint.h>

#include "analyze/sched_model.h"
#include "analyze/sched_pass.h"
#include "engine/input.h"

typedef struct latrec_sched_view {
    latrec_sched_model *model; /* NULL: no scheduler data */
    char reason[300];          /* why not, when model is NULL */
    /* live (latrec_sched_view_open_live): the model follows sched.latrec
     * as record's collector publishes it (record/sched_live.h) */
    int live, attached, ended;
    latrec_ring ring;    /* its own mapping of the file (not the merge's) */
    latrec_cursor cur;   /* lapped: records overwritten before read (lost to the model) */
    uint64_t covered_ns; /* hops ending at or before it can be split; UINT64_MAX: all */
    uint64_t forgot_ns;  /* the model let go of what ended before it (latrec_sched_forget) */
    /* a pass (latrec_sched_view_open_pass): model is the pass's */
    latrec_sched_pass *pass;
    struct latrec_sched_view_src *src;
    /* fed as read (latrec_sched_view_open_stream) */
    latrec_sched_model *names; /* the whole file read once: threads, names */
    uint64_t keep_from;        /* nothing that ended before it is asked again */
    uint64_t fed_at_forget, fed;
} latrec_sched_view;

/* Load the run's scheduler data. Returns 0 (model or reason set), or -1 when
 * sched.latrec exists but cannot be used (reason printed). */
int latrec_sched_view_open(latrec_sched_view *v, const latrec_input *in);
void latrec_sched_view_close(latrec_sched_view *v);

/* For one time-ordered pass (report): as latrec_sched_view_open, with the
 * model fed as the pass's splits ask and letting go of what they no longer
 * reach (analyze/sched_pass.h): memory for a window, not the run. The
 * splits are settled, and --explain's answered, by
 * latrec_sched_view_end_pass(); until then the acc figures are partial and
 * the model is not complete. One thread, splits in about time order: one
 * reaching back past what was let go is kept aside (32 bytes) for the end,
 * so a pass read by process wants a view per process, each with its own
 * sums. 0 (model or reason set), or -1: out of memory, or sched.latrec
 * could not be read (a line printed, the reason set). */
int latrec_sched_view_open_pass(latrec_sched_view *v, const latrec_input *in);

/* A pass's view: the full split of [t_a, t_b] on tid will be asked of
 * latrec_sched_view_explain (call after the pass's last split, before
 * latrec_sched_view_end_pass). No-op for other views. 0, or -1 out of memory. */
int latrec_sched_view_want(const latrec_sched_view *v, uint32_t tid, uint64_t t_a, uint64_t t_b);

/* A pass's view: every record in, every split settled, the wanted ones
 * answered. 0, or -1 out of memory (line printed). No-op for other views. */
int latrec_sched_view_end_pass(latrec_sched_view *v);

/* hist --runqlat: every runqueue wait of the run to fn, in switch-in
 * order, as latrec_sched_foreach_wait on the whole model, with memory for
 * the run's threads, not its records (latrec_sched_waits); then model is
 * the finished one (threads, names, counters: latrec_sched_view_label).
 * 0 (model or reason set), fn's nonzero return (the walk stopped there),
 * or -1: sched.latrec could not be read, or out of memory (a line printed,
 * the reason set). */
int latrec_sched_view_waits(latrec_sched_view *v, const latrec_input *in, latrec_sched_wait_fn fn, void *ctx);

/* A finished run's scheduler data fed as it is read (convert's timeline),
 * in bounded memory: names gets the whole file read once (threads,
 * generations, names, counters, as the whole model's: latrec_sched_waits),
 * and model a second reading fed on by latrec_sched_view_feed, letting go
 * of what ended before keep_from (the caller moves it on). 0 (model or
 * reason set), or -1: unreadable or out of memory (a line printed). */
int latrec_sched_view_open_stream(latrec_sched_view *v, const latrec_input *in);

/* Feed up to n more records to a stream view's model: 1, 0 when every
 * record is in (the model finished), -1 out of memory (a line printed). */
int latrec_sched_view_feed(latrec_sched_view *v, size_t n);

/* A run being recorded (latrec top). The model is built as the run's
 * sched.latrec grows: latrec_sched_view_follow() reads the header's
 * publication mark (t1_mono_ns: every record stamped before it is in the
 * ring), then every record there, feeds them and settles the model up to
 * the mark (latrec_sched_settle); once the ring is closed (the clean-close
 * flag: the run ended; or a finished run's file) everything is. What ended
 * more than the leg horizon and a second before the mark is let go
 * (latrec_sched_forget), so a long watch holds about that span. Until
 * sched.latrec is there (a run of an older record writes it at its end,
 * one without the collector never), model is NULL and reason says why.
 * Only the monotonic clock (not --wall). 0, or -1 out of memory. */
int latrec_sched_view_open_live(latrec_sched_view *v, const latrec_input *in);

/* Read what the collector published since the last call; returns
 * covered_ns (0: nothing yet). A file that cannot be read, or a model out
 * of memory, ends the view short of the whole run (one line on stderr,
 * reason set): latrec_sched_view_gave_up. */
uint64_t latrec_sched_view_follow(latrec_sched_view *v, const latrec_input *in);

/* 1 when a live view ended before covering the run (unreadable, out of
 * memory, --wall): it splits nothing more (latrec_sched_view_add fails),
 * the splits made before stay. */
static inline int latrec_sched_view_gave_up(const latrec_sched_view *v)
{
    return v->live && v->ended && v->covered_ns != UINT64_MAX;
}

/* Split [t_a, t_b] on thread tid and add it to acc (zeroed before the
 * first; its hint makes the next split of the same thread, later on, a few
 * steps). 0, or -1 when the model cannot (tid unknown: counted nowhere). */
int latrec_sched_view_add(const latrec_sched_view *v, latrec_sched_acc *acc, uint32_t tid, uint64_t t_a,
                          uint64_t t_b);

/* As latrec_sched_view_add, the same split added into also too (an
 * interval's sums beside the run's; NULL: none). A pass's view settles
 * some of a split later (latrec_sched_view_open_pass): into both, then. */
int latrec_sched_view_add_also(const latrec_sched_view *v, latrec_sched_acc *acc, latrec_sched_acc *also, uint32_t tid,
                               uint64_t t_a, uint64_t t_b);

/* The label of thread generation (tid, gen): "ROLE/TID" when one of the
 * program's rings was written by it (its role: the ring name without the
 * tid), else "NAME/TID" with the last name the generation had (after exec
 * and renames, not the "latrec" or "sh" it was forked as), "?/TID" when
 * never named; a later generation of a reused tid gets "#GEN" after it.
 * Control characters in the name are escaped (read/escape.h). */
void latrec_sched_view_label(const latrec_sched_view *v, const latrec_input *in, uint32_t tid, uint32_t gen,
                             char *buf, size_t len);

/* One sentence about where [t_a, t_b] on tid went, e.g. "10.2 us on CPU,
 * 779.9 us runnable on CPU 1 behind kworker/1:2 (650.0 us), stress (129.9
 * us); 1 preemption". Units as given (div ns per unit). */
void latrec_sched_view_explain(const latrec_sched_view *v, uint32_t tid, uint64_t t_a, uint64_t t_b,
                               const char *unit, double div, char *out, size_t len);

#endif
