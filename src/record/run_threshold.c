/* latrec record --stop-above and --on-threshold: the watcher's start and
 * end, the collectors cut, the instance explained, run.json's "threshold",
 * the command run once, the summary's lines (run.h). */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <poll.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/explain.h"
#include "engine/input.h"
#include "engine/sched_view.h"
#include "read/escape.h"
#include "record/proctree.h"
#include "record/run.h"
#include "util/prog.h"

void latrec_run_threshold_start(latrec_run *r)
{
    const latrec_record_opts *o = r->o;
    if (!o->stop_above) return;
    /* -p: the process's own ring directory (DIR/rings is filled at the end) */
    latrec_threshold_opts to = { o->attach_pid ? r->rings_src : r->dir, r->rings_src, o->stop_above, o->catalog,
                                 r->man.start.have ? r->man.start.mono_ns : r->man.start_mono_ns };
    char err[512];
    if (!(r->thr = latrec_threshold_start(&to, err, sizeof(err))))
        fprintf(stderr, "%s: --stop-above: %s: the run is not watched\n", latrec_prog, err);
}

void latrec_run_threshold_heard(latrec_run *r)
{
    if (r->cut_ns || !r->thr || !latrec_threshold_crossed(r->thr, &r->hit, &r->detected_ns)) return;
    r->crossed = 1;
    r->cut_ns = latrec_run_mono_ns();
    for (size_t i = 0; i < r->n_coll; i++)
        if (r->coll[i]->state == LATREC_COLL_ON && r->coll[i]->ops->cut) r->coll[i]->ops->cut(r->coll[i], r->cut_ns);
}

void latrec_run_threshold_end(latrec_run *r)
{
    if (!r->thr) return;
    latrec_threshold_end(r->thr);
    if (!r->crossed) r->crossed = latrec_threshold_crossed(r->thr, &r->hit, &r->detected_ns);
    const char *why = latrec_threshold_error(r->thr);
    const char *spec = r->o->stop_above->spec;
    if (why[0])
        fprintf(stderr, "%s: --stop-above %s: %s: the rest of the run was not judged\n", latrec_prog, spec, why);
    else if (!r->crossed && !latrec_threshold_named(r->thr))
        fprintf(stderr,
                "%s: --stop-above %s: no such component/leg/hop or path/segment in this run: "
                "nothing was judged\n",
                latrec_prog, spec);
}

/* The scheduler's account of the row that took the most, from the
 * finished run (sched.latrec is written when the collectors stop): its
 * two splits wanted of a pass's view, which reads sched.latrec once and
 * keeps only what they need (engine/sched_view.h). */
void latrec_run_threshold_explain(latrec_run *r)
{
    if (!r->crossed) return;
    latrec_input_opts io;
    memset(&io, 0, sizeof(io));
    latrec_input_add_dir(&io, r->dir);
    io.catalog_path = r->o->catalog;
    io.quiet = 1;
    latrec_input in;
    latrec_sched_view sv;
    memset(&sv, 0, sizeof(sv));
    int opened = latrec_input_open(&in, &io, "record") == 0;
    const latrec_judge_row *w = &r->hit.worst;
    if (!opened) snprintf(sv.reason, sizeof(sv.reason), "the run could not be read back");
    else if (latrec_sched_view_open_pass(&sv, &in) == 0 && sv.model &&
             (latrec_sched_view_want(&sv, w->tid_b, w->t_a, w->t_b) < 0 ||
              latrec_sched_view_want(&sv, w->tid_a, w->t_a, w->t_b) < 0 || latrec_sched_view_end_pass(&sv) < 0)) {
        latrec_sched_view_close(&sv);
        snprintf(sv.reason, sizeof(sv.reason), "out of memory");
    }
    char why_b[1024], why_a[1024], value[48], words[2600];
    latrec_sched_view_explain(&sv, w->tid_b, w->t_a, w->t_b, "us", 1e3, why_b, sizeof(why_b));
    int other = w->tid_a && w->tid_a != w->tid_b && sv.model;
    if (other) latrec_sched_view_explain(&sv, w->tid_a, w->t_a, w->t_b, "us", 1e3, why_a, sizeof(why_a));
    snprintf(value, sizeof(value), "%.3f", (double)w->ns / 1e3);
    int share = r->hit.has_total && r->hit.total_ns > 0;
    latrec_explain_words ew = { w->name,
                                value,
                                "us",
                                share,
                                share ? 100.0 * (double)w->ns / (double)r->hit.total_ns : 0,
                                w->tid_b,
                                why_b,
                                w->tid_a,
                                other ? why_a : NULL };
    latrec_explain_format(&ew, words, sizeof(words));
    free(r->explain);
    r->explain = strdup(words);
    latrec_sched_view_close(&sv);
    if (opened) latrec_input_close(&in);
}

static uint64_t run_begin(const latrec_run *r)
{
    return r->man.start.have ? r->man.start.mono_ns : r->man.start_mono_ns;
}

static void set_u64(json_t *o, const char *key, uint64_t v)
{
    json_object_set_new(o, key, json_integer((json_int_t)v));
}

json_t *latrec_run_threshold_json(const latrec_run *r)
{
    if (!r->crossed) return NULL;
    const latrec_judge_hit *h = &r->hit;
    json_t *o = json_object();
    json_object_set_new(o, "spec", json_string(r->o->stop_above->spec));
    json_object_set_new(o, "kind", json_string(h->path ? "path" : "leg"));
    if (h->path) {
        json_object_set_new(o, "path", json_string(h->name));
    } else {
        json_object_set_new(o, "component", json_string(h->component));
        json_object_set_new(o, "leg", json_string(h->name));
    }
    json_object_set_new(o, h->path ? "segment" : "hop", json_string(h->row.name));
    latrec_manifest_set_bytes(o, "ring", h->ring);
    set_u64(o, "pid", h->pid);
    set_u64(o, "tid", h->row.tid_b);
    set_u64(o, "seq", h->seq);
    json_object_set_new(o, "value_ns", json_integer((json_int_t)h->row.ns));
    set_u64(o, "limit_ns", (uint64_t)r->o->stop_above->limit);
    set_u64(o, "start_mono_ns", h->start_ns);
    set_u64(o, "end_mono_ns", h->row.t_b);
    set_u64(o, "detected_mono_ns", r->detected_ns);
    if (r->detected_ns >= h->row.t_b) set_u64(o, "detected_after_ns", r->detected_ns - h->row.t_b);
    json_object_set_new(o, "stopped", json_boolean(r->cut_ns != 0));
    if (r->signalled_ns) {
        set_u64(o, "signalled_mono_ns", r->signalled_ns);
        if (r->signalled_ns >= h->row.t_b) set_u64(o, "signalled_after_ns", r->signalled_ns - h->row.t_b);
    }
    if (r->explain) json_object_set_new(o, "explain", json_string(r->explain));
    if (r->o->on_threshold) {
        json_t *a = r->action_ran ? latrec_manifest_wait_status(r->action_status, -1) : json_object();
        json_object_del(a, "status");
        latrec_manifest_set_bytes(a, "command", r->o->on_threshold);
        json_object_set_new(a, "ran", json_boolean(r->action_ran));
        json_object_set_new(o, "on_threshold", a);
    }
    return o;
}

static void set_env_u64(const char *name, uint64_t v)
{
    char buf[32];
    snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
    setenv(name, buf, 1);
}

/* In the child: the instance in LATREC_THRESHOLD_*, then sh -c CMD. */
static void exec_action(const latrec_run *r)
{
    const latrec_judge_hit *h = &r->hit;
    char buf[32];
    sigprocmask(SIG_SETMASK, &r->old_mask, NULL);
    signal(SIGPIPE, SIG_DFL);
    char dir[PATH_MAX];
    setenv("LATREC_RUN_DIR", realpath(r->dir, dir) ? dir : r->dir, 1);
    setenv("LATREC_THRESHOLD_SPEC", r->o->stop_above->spec, 1);
    setenv("LATREC_THRESHOLD_KIND", h->path ? "path" : "leg", 1);
    setenv("LATREC_THRESHOLD_COMPONENT", h->component, 1);
    setenv(h->path ? "LATREC_THRESHOLD_PATH" : "LATREC_THRESHOLD_LEG", h->name, 1);
    setenv("LATREC_THRESHOLD_HOP", h->row.name, 1);
    setenv("LATREC_THRESHOLD_RING", h->ring, 1);
    set_env_u64("LATREC_THRESHOLD_PID", h->pid);
    set_env_u64("LATREC_THRESHOLD_TID", h->row.tid_b);
    set_env_u64("LATREC_THRESHOLD_SEQ", h->seq);
    snprintf(buf, sizeof(buf), "%lld", (long long)h->row.ns);
    setenv("LATREC_THRESHOLD_VALUE_NS", buf, 1);
    set_env_u64("LATREC_THRESHOLD_LIMIT_NS", (uint64_t)r->o->stop_above->limit);
    set_env_u64("LATREC_THRESHOLD_END_NS", h->row.t_b);
    execl("/bin/sh", "sh", "-c", r->o->on_threshold, (char *)NULL);
    fprintf(stderr, "%s: --on-threshold: /bin/sh: %s\n", latrec_prog, strerror(errno));
    _exit(127);
}

/* Wait for the action. A stop signal sent to latrec meanwhile is passed to
 * CMD and its children (a terminal's ^C reached them already), a repeat
 * sends SIGTERM, then SIGKILL: a CMD that hangs does not hold record. Not
 * latrec_run_read_signals: its reaping would take CMD's status. */
static int wait_action(latrec_run *r, pid_t pid, int *st)
{
    for (int level = 0;;) {
        pid_t w = waitpid(pid, st, r->sfd >= 0 ? WNOHANG : 0);
        if (w == pid) return 0;
        if (w < 0 && errno != EINTR) return -1;
        if (r->sfd < 0) continue;
        struct pollfd pf = { r->sfd, POLLIN, 0 };
        poll(&pf, 1, 1000);
        struct signalfd_siginfo si;
        while (read(r->sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
            if (si.ssi_signo == SIGCHLD) continue;
            int sig = level == 0 ? (int)si.ssi_signo : level == 1 ? SIGTERM : SIGKILL;
            if (level++ == 0 && si.ssi_code == SI_KERNEL) continue;
            char nb[16];
            if (!r->o->quiet)
                fprintf(stderr, "%s: --on-threshold is still running: sending %s\n", latrec_prog,
                        latrec_run_sig_name(sig, nb, sizeof(nb)));
            latrec_proc_kill_tree(pid, sig);
        }
    }
}

int latrec_run_threshold_action(latrec_run *r)
{
    if (!r->crossed || !r->o->on_threshold) return 0;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "%s: --on-threshold: fork: %s\n", latrec_prog, strerror(errno));
        return -1;
    }
    if (pid == 0) exec_action(r);
    int st;
    if (wait_action(r, pid, &st) < 0) return -1;
    r->action_ran = 1;
    r->action_status = st;
    return 0;
}

void latrec_run_threshold_summary(const latrec_run *r)
{
    if (!r->crossed) return;
    const latrec_judge_hit *h = &r->hit;
    char ring[1024], name[600], stop[96] = "";
    latrec_text_safe(h->ring, ring, sizeof(ring));
    if (h->path) snprintf(name, sizeof(name), "path %s", h->name);
    else snprintf(name, sizeof(name), "%s/%s", h->component, h->name);
    if (r->signalled_ns && r->signalled_ns >= h->row.t_b)
        snprintf(stop, sizeof(stop), "; the command was signalled %.3f ms after it ended",
                 (double)(r->signalled_ns - h->row.t_b) / 1e6);
    else if (r->cut_ns && r->cut_ns >= h->row.t_b)
        snprintf(stop, sizeof(stop), "; the run was stopped %.3f ms after it ended",
                 (double)(r->cut_ns - h->row.t_b) / 1e6);
    fprintf(stderr,
            "%s: --stop-above %s crossed by seq %llu of %s: %s %.3f us > %.3f us (ring %s, tid %u, "
            "pid %u)%s\n",
            latrec_prog, r->o->stop_above->spec, (unsigned long long)h->seq, name, h->row.name, (double)h->row.ns / 1e3,
            r->o->stop_above->limit / 1e3, ring, h->row.tid_b, h->pid, stop);
    uint64_t begin = run_begin(r);
    double start_s = h->start_ns >= begin ? (double)(h->start_ns - begin) / 1e9 : 0;
    if (r->explain)
        fprintf(stderr, "%s: seq %llu (pid %u), %s %.3f us, started at %.6f s: %s.\n", latrec_prog,
                (unsigned long long)h->seq, h->pid, h->row.name, (double)h->row.ns / 1e3, start_s, r->explain);
    if (r->action_ran && !(WIFEXITED(r->action_status) && WEXITSTATUS(r->action_status) == 0)) {
        if (WIFEXITED(r->action_status))
            fprintf(stderr, "%s: --on-threshold exited %d\n", latrec_prog, WEXITSTATUS(r->action_status));
        else fprintf(stderr, "%s: --on-threshold died of signal %d\n", latrec_prog, WTERMSIG(r->action_status));
    }
}

void latrec_run_threshold_free(latrec_run *r)
{
    latrec_threshold_free(r->thr);
    r->thr = NULL;
    free(r->explain);
    r->explain = NULL;
    json_decref(r->man.threshold);
    r->man.threshold = NULL;
}
