/* trace.json: the scheduler's tracks. Each thread generation the scheduler
 * collector saw gets its timeline (analyze/sched_model.h) as complete slices
 * on its own thread track, written in step with the instances so that a cut
 * (the event budget) leaves both at the same time. sched.latrec is read
 * twice: once whole for the threads and their names, once as the slices
 * are written, its model fed only until what they need is settled and
 * letting go of what was written: memory for that span, not the run. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/timeline_impl.h"

/* The process of a scheduler thread's track: that of a ring of the same
 * thread (so stamps and states share one track), else its tgid. */
static json_int_t pid_for(const latrec_timeline *t, uint32_t tid, uint32_t tgid)
{
    for (size_t i = 0; i < t->in->set.n; i++) {
        if ((int)i == t->in->sched_ring || t->in->set.rings[i].status != LATREC_RING_OK) continue;
        if (latrec_ring_tid(&t->in->set.rings[i]) == tid)
            return tl_pid_of_process(t, latrec_legs_ring_process(t->legs, (uint32_t)i));
    }
    return tgid ? (json_int_t)tgid : (json_int_t)tid;
}

int tl_sched_open(latrec_timeline *t)
{
    if (latrec_sched_view_open_stream(&t->sv, t->in) < 0 || !t->sv.model) {
        snprintf(t->tot.sched_reason, sizeof(t->tot.sched_reason), "%s", t->sv.reason);
        return 0;
    }
    const latrec_sched_model *m = t->sv.names;
    size_t n = latrec_sched_n_threads(m);
    if (n && !(t->th = calloc(n, sizeof(*t->th)))) return -1;
    for (size_t i = 0; i < n; i++) {
        latrec_sched_thread info;
        latrec_sched_thread_info(m, i, &info);
        /* none stored, or another generation began at the same ns */
        if (!info.n_stored || latrec_sched_gen_at(m, info.tid, info.first_ns) != (int64_t)info.gen) continue;
        struct tl_sched_thread *th = &t->th[t->n_th];
        th->tid = info.tid;
        th->gen = info.gen;
        th->first_ns = info.first_ns;
        th->first_iv = info.first_interval_ns;
        th->n = info.n_stored;
        th->pid = pid_for(t, info.tid, info.tgid);
        t->n_th++;
    }
    t->tot.sched = 1;
    return 0;
}

/* Fed until every interval that starts before upto is stored as it stays
 * (the model's own are the whole run's from there on). 0, or -1 out of
 * memory. */
static int settle_to(latrec_timeline *t, uint64_t upto)
{
    while (t->sched_settled < upto) {
        if (t->sched_settled && latrec_sched_view_feed(&t->sv, 1024) < 0) return -1;
        t->sched_settled = latrec_sched_settled_before(t->sv.model);
        if (!t->sched_settled) t->sched_settled = 1; /* nothing fed yet */
    }
    return 0;
}

static const char *state_name(uint8_t s)
{
    return s == LATREC_SCHED_RUNNING ? "running" : s == LATREC_SCHED_RUNNABLE ? "runnable" : "blocked";
}

static const char *cause_name(uint8_t c)
{
    switch (c) {
    case LATREC_SCHED_C_PREEMPT: return "preempted";
    case LATREC_SCHED_C_WAKEUP: return "wakeup";
    case LATREC_SCHED_C_WAKEUP_NEW: return "new thread";
    case LATREC_SCHED_C_MIGRATE: return "migrated";
    case LATREC_SCHED_C_EXEC: return "exec";
    default: return "";
    }
}

/* Who ran on the CPU while the thread waited: "stress/812 12.345 us, ...". */
static json_t *instead(latrec_timeline *t, const struct tl_sched_thread *th, uint64_t a, uint64_t b)
{
    latrec_sched_breakdown bd;
    /* fed on until who ran on its CPUs then is settled */
    while (!latrec_sched_others_final(t->sv.model, th->tid, a, b))
        if (latrec_sched_view_feed(&t->sv, 1024) <= 0) break;
    if (latrec_sched_split_named(t->sv.model, t->sv.names, th->tid, a, b, &bd) < 0 || bd.gen < 0 || !bd.n_others)
        return NULL;
    char buf[512];
    size_t n = 0;
    for (int i = 0; i < bd.n_others && n < sizeof(buf); i++) {
        const latrec_sched_other *o = &bd.others[i];
        int k = o->tid ? snprintf(buf + n, sizeof(buf) - n, "%s%s/%u %.3f us", i ? ", " : "",
                                  o->comm[0] ? o->comm : "?", o->tid, (double)o->ns / 1000.0)
                       : snprintf(buf + n, sizeof(buf) - n, "%sidle %.3f us", i ? ", " : "", (double)o->ns / 1000.0);
        if (k > 0) n += (size_t)k;
    }
    if (bd.n_tasks > (uint32_t)bd.n_others && n < sizeof(buf))
        snprintf(buf + n, sizeof(buf) - n, " and %u more", bd.n_tasks - (uint32_t)bd.n_others);
    return tl_str(buf);
}

static void write_slice(latrec_timeline *t, const struct tl_sched_thread *th, const latrec_sched_interval *iv,
                        uint64_t a, uint64_t b)
{
    json_t *args = json_object();
    if (iv->cpu != LATREC_SCHED_NO_CPU) json_object_set_new(args, "cpu", json_integer(iv->cpu));
    if (iv->state == LATREC_SCHED_RUNNABLE) {
        json_object_set_new(args, "cause", json_string(cause_name(iv->cause)));
        json_t *who = instead(t, th, a, b);
        if (who) json_object_set_new(args, "ran_instead", who);
    }
    tl_put(t, json_pack("{s:s, s:s, s:s, s:f, s:f, s:I, s:I, s:o}", "name", state_name(iv->state), "cat", "sched", "ph",
                        "X", "ts", tl_us(t, a), "dur", (double)(b - a) / 1000.0, "pid", th->pid, "tid",
                        (json_int_t)th->tid, "args", args));
    t->tot.sched_slices++;
}

/* first i with iv[i].end_ns > t */
static size_t after(const latrec_sched_interval *iv, size_t n, uint64_t t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (iv[mid].end_ns <= t) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

int tl_sched_flush(latrec_timeline *t, uint64_t upto)
{
    if (!t->th) return 0;
    const uint64_t from = t->origin + t->opts.from_ns;
    const uint64_t to = t->opts.to_ns ? t->origin + t->opts.to_ns : UINT64_MAX;
    /* what begins at or after the window's end, or ends before its start,
     * is cut: counted at the end (tl_sched_count_rest), never read */
    if (upto > to) upto = to;
    if (t->sv.keep_from < from) t->sv.keep_from = from;
    if (settle_to(t, upto) < 0) {
        t->failed = ENOMEM;
        return 0;
    }
    for (size_t k = 0; k < t->n_th; k++) {
        struct tl_sched_thread *th = &t->th[k];
        for (;;) {
            size_t n;
            uint32_t gen;
            const latrec_sched_interval *iv = latrec_sched_intervals(t->sv.model, th->tid, th->first_ns, &n, &gen);
            if (!iv || gen != th->gen) break;                          /* not begun yet */
            const size_t j = th->next ? after(iv, n, th->done_to) : 0; /* the first not written or cut */
            if (j >= n || iv[j].start_ns >= upto) break;
            const latrec_sched_interval one = iv[j]; /* instead() may feed on: iv moves */
            th->done_to = one.end_ns;
            th->next++;
            uint64_t a = one.start_ns > from ? one.start_ns : from, b = one.end_ns < to ? one.end_ns : to;
            if (a >= b) { /* outside the window */
                t->tot.sched_cut++;
                continue;
            }
            if (!tl_fits(t, 1)) {
                th->next--;
                t->tot.stopped = 1;
                t->tot.stopped_at_ns = a - t->origin;
                return -1;
            }
            write_slice(t, th, &one, a, b);
        }
    }
    t->sv.keep_from = upto; /* what ended before it was written */
    return 0;
}

void tl_sched_count_rest(latrec_timeline *t)
{
    for (size_t k = 0; k < t->n_th; k++) {
        t->tot.sched_cut += t->th[k].n - t->th[k].next;
        t->th[k].next = t->th[k].n;
    }
}

void tl_sched_close(latrec_timeline *t)
{
    free(t->th);
    t->th = NULL;
    t->n_th = 0;
    latrec_sched_view_close(&t->sv);
}
