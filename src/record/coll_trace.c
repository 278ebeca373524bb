/* The tracefs events collector (-t): sched_switch, sched_wakeup and -e
 * events in the run's instance, filtered to the target, saved as trace.txt
 * between the start and stop stamps. */
#include <errno.h>
#include <event-parse.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <trace-seq.h>
#include <tracefs.h>
#include <time.h>
#include <unistd.h>

#include "read/outfile.h"
#include "record/collector.h"
#include "record/proctree.h"
#include "util/prog.h"

struct trace_priv {
    char   **events;        /* "system:event" */
    size_t   n_events;
    size_t   buffer_kb;
    latrec_tracefs *tfs;
    char     part[4200];    /* every event read, one line each */
    char     out[4200];     /* trace.txt */
    FILE    *f;
    uint64_t start_ns, stop_ns;
    uint64_t cut_ns;        /* --stop-above: events disabled at this time (0: not cut) */
    uint64_t after_cut;     /* events stamped after it anyway, dropped */
    int      have_start, pid_filter;
    size_t   n_pids;
    uint64_t read;          /* events read */
    char     note[512];
};

static void sink(void *ctx, struct tep_event *ev, struct tep_record *rec, int cpu)
{
    struct trace_priv *p = ctx;
    (void)cpu;
    p->read++;
    if (!p->f) return;
    struct trace_seq s;
    trace_seq_init(&s);
    int len;
    const char *marker = latrec_tracefs_print_text(ev, rec, &len);
    if (marker) {
        /* trace_marker text as written (without kallsyms the ip means nothing) */
        tep_print_event(latrec_tracefs_tep(p->tfs), &s, rec, "%s-%d [%03d] print: ", TEP_PRINT_COMM,
                        TEP_PRINT_PID, TEP_PRINT_CPU);
        while (len > 0 && marker[len - 1] == '\n') len--;
        trace_seq_printf(&s, "%.*s", len, marker);
    } else {
        tep_print_event(latrec_tracefs_tep(p->tfs), &s, rec, "%s-%d [%03d] %s: %s", TEP_PRINT_COMM,
                        TEP_PRINT_PID, TEP_PRINT_CPU, TEP_PRINT_NAME, TEP_PRINT_INFO);
    }
    trace_seq_terminate(&s);
    /* one line per event: a marker's text ends in a newline */
    for (char *q = s.buffer; q && *q; q++)
        if (*q == '\n') *q = ' ';
    fprintf(p->f, "%llu %s\n", rec->ts, s.buffer ? s.buffer : ev->name);
    trace_seq_destroy(&s);
}

static int set_pid_filter(struct trace_priv *p, struct tracefs_instance *inst, pid_t pid, char *err,
                          size_t errlen)
{
    latrec_pidlist procs = { 0 }, tids = { 0 };
    latrec_pidlist_add(&procs, pid);
    latrec_proc_descendants(pid, &procs);
    for (size_t i = 0; i < procs.n; i++) latrec_proc_threads(procs.pids[i], &tids);
    latrec_pidlist_add(&tids, pid);
    size_t len = tids.n * 12 + 2;
    char *list = malloc(len), *w = list;
    int rc = -1;
    if (list) {
        list[0] = '\0';
        for (size_t i = 0; i < tids.n; i++) w += sprintf(w, "%s%d", i ? " " : "", (int)tids.pids[i]);
        if (tracefs_option_enable(inst, TRACEFS_OPTION_EVENT_FORK) < 0)
            snprintf(err, errlen, "options/event-fork: %s", strerror(errno));
        else if (tracefs_instance_file_write(inst, "set_event_pid", list) < 0)
            snprintf(err, errlen, "set_event_pid: %s", strerror(errno));
        else
            rc = 0;
    }
    p->n_pids = tids.n;
    free(list);
    latrec_pidlist_free(&procs);
    latrec_pidlist_free(&tids);
    return rc;
}

static int trace_start(latrec_collector *c, const latrec_collect_ctx *x, char *err, size_t errlen)
{
    struct trace_priv *p = c->priv;
    if (!x->tfs) {
        snprintf(err, errlen, "needs tracefs, which this run does not have");
        return -1;
    }
    p->tfs = x->tfs;
    struct tracefs_instance *inst = latrec_tracefs_instance(p->tfs);
    snprintf(p->part, sizeof(p->part), "%s/trace.txt.part", x->run_dir);
    snprintf(p->out, sizeof(p->out), "%s/trace.txt", x->run_dir);
    p->f = fopen(p->part, "wxe");
    if (!p->f) {
        snprintf(err, errlen, "%s: %s", p->part, strerror(errno));
        return -1;
    }
    if (p->buffer_kb && tracefs_instance_set_buffer_size(inst, p->buffer_kb, -1) < 0) {
        snprintf(err, errlen, "%s/buffer_size_kb: %s", latrec_tracefs_dir(p->tfs), strerror(errno));
        return -1;
    }
    char perr[256];
    if (set_pid_filter(p, inst, x->pid, perr, sizeof(perr)) == 0) {
        p->pid_filter = 1;
    } else {
        snprintf(p->note, sizeof(p->note), "events of every process (pid filter refused: %s)", perr);
        if (!x->quiet) fprintf(stderr, "%s: -t: %s\n", latrec_prog, p->note);
    }
    for (size_t i = 0; i < p->n_events; i++) {
        char sys[128];
        const char *colon = strchr(p->events[i], ':');
        snprintf(sys, sizeof(sys), "%.*s", (int)(colon - p->events[i]), p->events[i]);
        if (tracefs_event_enable(inst, sys, colon + 1) < 0) {
            snprintf(err, errlen, "%s/events/%s/%s: cannot enable: %s", latrec_tracefs_dir(p->tfs), sys,
                     colon + 1, errno ? strerror(errno) : "no such event");
            return -1;
        }
    }
    tracefs_load_cmdlines(latrec_tracefs_root(p->tfs), latrec_tracefs_tep(p->tfs));
    latrec_tracefs_set_sink(p->tfs, sink, p);
    return 0;
}

static void trace_told_start(latrec_collector *c, uint64_t start_ns)
{
    struct trace_priv *p = c->priv;
    p->start_ns = start_ns;
    p->have_start = 1;
}

static void trace_poll(latrec_collector *c)
{
    struct trace_priv *p = c->priv;
    if (!p->tfs) return;
    /* comms of threads that appeared since (names in trace.txt) */
    tracefs_load_cmdlines(latrec_tracefs_root(p->tfs), latrec_tracefs_tep(p->tfs));
    latrec_tracefs_drain(p->tfs);
}

static void disable_events(struct trace_priv *p)
{
    struct tracefs_instance *inst = latrec_tracefs_instance(p->tfs);
    for (size_t i = 0; i < p->n_events; i++) {
        char sys[128];
        const char *colon = strchr(p->events[i], ':');
        snprintf(sys, sizeof(sys), "%.*s", (int)(colon - p->events[i]), p->events[i]);
        tracefs_event_disable(inst, sys, colon + 1);
    }
}

/* A --stop-above crossing (heard at mono_ns): no event after this moment
 * (the stop marker is still written: trace_marker is not one of the
 * events); cut_ns is when the last event was switched off. */
static void trace_cut(latrec_collector *c, uint64_t mono_ns)
{
    struct trace_priv *p = c->priv;
    (void)mono_ns;
    if (!p->tfs || p->cut_ns) return;
    disable_events(p);
    /* every event still written is older than this */
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    p->cut_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* trace.txt.part -> trace.txt, keeping [start, stop]. */
static int trace_stop(latrec_collector *c, uint64_t stop_ns, char *err, size_t errlen)
{
    struct trace_priv *p = c->priv;
    latrec_tracefs_drain(p->tfs);
    disable_events(p);
    latrec_tracefs_set_sink(p->tfs, NULL, NULL);
    p->stop_ns = stop_ns;
    if (fclose(p->f) != 0) {
        p->f = NULL;
        snprintf(err, errlen, "%s: %s", p->part, strerror(errno));
        return -1;
    }
    p->f = NULL;
    /* trace.txt written aside and renamed into place (read/outfile.h) */
    FILE *in = fopen(p->part, "re");
    latrec_outfile of;
    if (!in) {
        snprintf(err, errlen, "%s: %s", p->part, strerror(errno));
        return -1;
    }
    if (latrec_outfile_open(&of, p->out, LATREC_OUT_OWN_DIR, err, errlen) < 0) {
        fclose(in);
        return -1;
    }
    FILE *out = of.f;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, in)) > 0) {
        unsigned long long ts = strtoull(line, NULL, 10);
        c->counts.written++;
        if ((p->have_start && ts < p->start_ns) || (stop_ns && ts > stop_ns)) {
            c->counts.dropped++;
            continue;
        }
        /* an event another CPU was writing as they were switched off */
        if (p->cut_ns && ts > p->cut_ns && !strstr(line, " print: ")) {
            c->counts.dropped++;
            p->after_cut++;
            continue;
        }
        c->counts.records++;
        fwrite(line, 1, (size_t)n, out);
    }
    free(line);
    fclose(in);
    c->counts.lost = latrec_tracefs_missed(p->tfs);
    c->counts.written += c->counts.lost;
    if (latrec_outfile_commit(&of, err, errlen) < 0) return -1;
    unlink(p->part);
    return 0;
}

static json_t *trace_describe(const latrec_collector *c)
{
    const struct trace_priv *p = c->priv;
    json_t *o = json_object();
    json_t *ev = json_array();
    for (size_t i = 0; i < p->n_events; i++) json_array_append_new(ev, json_string(p->events[i]));
    json_object_set_new(o, "events", ev);
    json_object_set_new(o, "file", json_string("trace.txt"));
    json_object_set_new(o, "pid_filter", json_boolean(p->pid_filter));
    if (p->pid_filter) json_object_set_new(o, "pids_at_start", json_integer((json_int_t)p->n_pids));
    if (p->note[0]) json_object_set_new(o, "note", json_string(p->note));
    if (p->buffer_kb) json_object_set_new(o, "buffer_kb", json_integer((json_int_t)p->buffer_kb));
    if (p->cut_ns) {
        json_object_set_new(o, "cut_mono_ns", json_integer((json_int_t)p->cut_ns));
        json_object_set_new(o, "dropped_after_cut", json_integer((json_int_t)p->after_cut));
    }
    return o;
}

static void trace_destroy(latrec_collector *c)
{
    struct trace_priv *p = c->priv;
    if (p) {
        if (p->f) {
            fclose(p->f);
            unlink(p->part);
        }
        if (p->tfs) latrec_tracefs_set_sink(p->tfs, NULL, NULL);
        for (size_t i = 0; i < p->n_events; i++) free(p->events[i]);
        free(p->events);
        free(p);
    }
    free(c);
}

static const latrec_collector_ops trace_ops = {
    .name = "trace",
    .poll_ms = 200,
    .start = trace_start,
    .told_start = trace_told_start,
    .poll = trace_poll,
    .cut = trace_cut,
    .stop = trace_stop,
    .describe = trace_describe,
    .destroy = trace_destroy,
};

latrec_collector *latrec_coll_trace_new(const char *const *events, size_t buffer_kb)
{
    latrec_collector *c = calloc(1, sizeof(*c));
    struct trace_priv *p = calloc(1, sizeof(*p));
    size_t n = 0;
    while (events && events[n]) n++;
    if (!c || !p || !(p->events = calloc(n + 1, sizeof(char *)))) goto oom;
    for (size_t i = 0; i < n; i++) {
        if (!strchr(events[i], ':') || !(p->events[i] = strdup(events[i]))) goto oom;
        p->n_events++;
    }
    p->buffer_kb = buffer_kb;
    c->ops = &trace_ops;
    c->priv = p;
    return c;
oom:
    if (p) {
        for (size_t i = 0; i < p->n_events; i++) free(p->events[i]);
        free(p->events);
    }
    free(p);
    free(c);
    return NULL;
}
