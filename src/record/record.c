/* latrec record: the sequence of a run (see record.h). */
#include "record/record.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "record/coll_sched.h"
#include "record/collector.h"
#include "record/env.h"
#include "record/guard.h"
#include "record/launch.h"
#include "record/manifest.h"
#include "record/proctree.h"
#include "record/rundir.h"
#include "record/tracefs_sync.h"

extern char **environ;

#define GRACE_DEFAULT_NS 2000000000ull
#define MARK_TIMEOUT_MS 2000u
#define MAX_COLLECTORS 8

struct run {
    const latrec_record_opts *o;
    char run_id[64];
    char dir[4096];        /* run directory as given, no trailing '/' */
    char rings_tmp[4096];  /* the run's own ring directory, "" when none */
    char rings_src[4200];  /* where the target writes (absolute) */
    int  sfd;
    sigset_t old_mask;
    latrec_tracefs *tfs;
    char tfs_reason[1024];
    latrec_collector *coll[MAX_COLLECTORS];
    size_t n_coll;
    latrec_launch child;
    pid_t pid;             /* the child or the attached process */
    int   have_status, wstatus;
    int   level, first_sig; /* stop escalation: 0 none, 1 first signal, 2 SIGTERM, 3 SIGKILL */
    const char *stopped_by;
    int   interrupted;     /* stop signal received before the command ran */
    uint64_t grace_ns;
    latrec_manifest man;
    json_t *options, *launch, *collectors, *exit;
    int   failed;          /* latrec failed: exit 125 */
};

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t real_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static const char *sig_name(int sig, char *buf, size_t len)
{
    const char *a = sigabbrev_np(sig);
    snprintf(buf, len, "SIG%s", a ? a : "?");
    return buf;
}

/* ---- setup ---------------------------------------------------------------- */

static int setup_signals(struct run *r)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGQUIT);
    sigaddset(&set, SIGCHLD);
    if (sigprocmask(SIG_BLOCK, &set, &r->old_mask) != 0) return -1;
    /* Blocked signals are queued even when ignored, but a disposition of
     * SIG_IGN inherited from a shell (background job) is reset so that the
     * signalfd reads them on every kernel. */
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = SIG_DFL;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGQUIT, &sa, NULL);
    /* A closed stderr pipe must not kill latrec mid-run (the command and
     * the instance would be left behind); the command gets SIGPIPE back. */
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
    r->sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
    return r->sfd < 0 ? -1 : 0;
}

static void make_run_id(struct run *r)
{
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    char ts[32];
    strftime(ts, sizeof(ts), "%Y%m%d-%H%M%S", &tm);
    snprintf(r->run_id, sizeof(r->run_id), "%s-%d", ts, (int)getpid());
}

static json_t *options_json(const latrec_record_opts *o, const char *output, uint64_t grace_ns)
{
    json_t *j = json_object();
    json_object_set_new(j, "output", json_string(output));
    json_object_set_new(j, "force", json_boolean(o->force));
    if (o->duration_ns) json_object_set_new(j, "duration_ns", json_integer((json_int_t)o->duration_ns));
    json_object_set_new(j, "grace_ns", json_integer((json_int_t)grace_ns));
    if (o->cpus_text) json_object_set_new(j, "cpus", json_string(o->cpus_text));
    if (o->sched) {
        json_t *p = json_object();
        json_object_set_new(p, "text", json_string(o->sched->text));
        json_object_set_new(p, "policy", json_string(latrec_sched_policy_name(o->sched->policy)));
        if (o->sched->policy == SCHED_OTHER) json_object_set_new(p, "nice", json_integer(o->sched->nice));
        if (o->sched->policy == SCHED_FIFO || o->sched->policy == SCHED_RR)
            json_object_set_new(p, "priority", json_integer(o->sched->prio));
        if (o->sched->policy == SCHED_DEADLINE) {
            json_object_set_new(p, "runtime_ns", json_integer((json_int_t)o->sched->runtime_ns));
            json_object_set_new(p, "period_ns", json_integer((json_int_t)o->sched->period_ns));
        }
        json_object_set_new(j, "priority", p);
    }
    if (o->entries_log2) json_object_set_new(j, "entries_log2", json_integer(o->entries_log2));
    if (o->n_roles) {
        json_t *roles = json_object();
        for (size_t i = 0; i < o->n_roles; i++)
            json_object_set_new(roles, o->roles[i].role, json_integer(o->roles[i].log2));
        json_object_set_new(j, "role_entries", roles);
    }
    if (o->lib_dir) json_object_set_new(j, "lib", json_string(o->lib_dir));
    if (o->rings_base) json_object_set_new(j, "rings_dir", json_string(o->rings_base));
    if (o->attach_pid) json_object_set_new(j, "pid", json_integer(o->attach_pid));
    if (o->attach_rings) json_object_set_new(j, "rings", json_string(o->attach_rings));
    json_object_set_new(j, "trace", json_boolean(o->trace));
    if (o->n_events) {
        json_t *ev = json_array();
        for (size_t i = 0; i < o->n_events; i++) json_array_append_new(ev, json_string(o->events[i]));
        json_object_set_new(j, "events", ev);
    }
    if (o->trace_buffer_kb) json_object_set_new(j, "trace_buffer_kb", json_integer((json_int_t)o->trace_buffer_kb));
    json_object_set_new(j, "sched", json_boolean(!o->no_sched));
    if (o->require_sched) json_object_set_new(j, "require_sched", json_true());
    if (o->sched_buffer) json_object_set_new(j, "sched_buffer", json_integer((json_int_t)o->sched_buffer));
    if (o->sched_tid) json_object_set_new(j, "tid", json_integer(o->sched_tid));
    return j;
}

static json_t *collectors_json(const struct run *r)
{
    json_t *all = json_object();
    for (size_t i = 0; i < r->n_coll; i++) {
        const latrec_collector *c = r->coll[i];
        json_t *o = c->ops->describe && c->state != LATREC_COLL_NEW ? c->ops->describe(c) : json_object();
        json_object_set_new(o, "ran", json_boolean(c->state == LATREC_COLL_ON || c->state == LATREC_COLL_DONE));
        if (c->state == LATREC_COLL_FAILED) json_object_set_new(o, "reason", json_string(c->error));
        if (c->state == LATREC_COLL_DONE) {
            json_object_set_new(o, "written", json_integer((json_int_t)c->counts.written));
            json_object_set_new(o, "records", json_integer((json_int_t)c->counts.records));
            json_object_set_new(o, "lost", json_integer((json_int_t)c->counts.lost));
            json_object_set_new(o, "dropped_before_start", json_integer((json_int_t)c->counts.dropped));
            if (c->counts.lost_lower_bound) json_object_set_new(o, "lost_lower_bound", json_true());
        }
        json_object_set_new(all, c->ops->name, o);
    }
    return all;
}

static void write_manifest(struct run *r, const char *state)
{
    json_decref(r->collectors);
    r->collectors = collectors_json(r);
    r->man.state = state;
    r->man.options = r->options;
    r->man.launch = r->launch;
    r->man.collectors = r->collectors;
    r->man.exit = r->exit;
    char err[512];
    if (latrec_manifest_write(r->dir, &r->man, err, sizeof(err)) < 0) {
        fprintf(stderr, "latrec: %s\n", err);
        r->failed = 1;
    }
}

/* ---- stopping the command -------------------------------------------------- */

static void kill_tree(pid_t root, int sig)
{
    latrec_pidlist l = { 0 };
    latrec_proc_descendants(root, &l);
    kill(root, sig);
    for (size_t i = 0; i < l.n; i++) kill(l.pids[i], sig);
    latrec_pidlist_free(&l);
}

static void arm(int tfd, uint64_t ns)
{
    struct itimerspec its;
    memset(&its, 0, sizeof(its));
    its.it_value.tv_sec = (time_t)(ns / 1000000000ull);
    its.it_value.tv_nsec = (long)(ns % 1000000000ull);
    if (!ns) its.it_value.tv_nsec = 1;
    timerfd_settime(tfd, 0, &its, NULL);
}

/* Next step of INT -> TERM -> KILL. `sig` is the first step's signal;
 * `send_first` 0 when the command already got it (terminal ^C). */
static void escalate(struct run *r, int sig, int send_first, int grace_tfd)
{
    char nb[16];
    int next = r->level + 1;
    if (next == 1) {
        r->first_sig = sig;
    } else if (next == 2 && r->first_sig == SIGTERM) {
        next = 3;
    }
    if (next > 3) return;
    r->level = next;
    int s = next == 1 ? sig : next == 2 ? SIGTERM : SIGKILL;
    if (next == 1 && !send_first) {
        arm(grace_tfd, r->grace_ns);
        return;
    }
    if (next > 1 && !r->o->quiet)
        fprintf(stderr, "latrec: the command is still running: sending %s\n", sig_name(s, nb, sizeof(nb)));
    if (s == SIGKILL) kill_tree(r->pid, SIGKILL);
    else kill(r->pid, s);
    if (next < 3) arm(grace_tfd, r->grace_ns);
}

static void reap(struct run *r)
{
    int st;
    pid_t p;
    while ((p = waitpid(-1, &st, WNOHANG)) > 0)
        if (p == r->pid && !r->have_status) {
            r->have_status = 1;
            r->wstatus = st;
            latrec_guard_set_child(0);
        }
}

/* Drain the signalfd: SIGCHLD reaps; the others are stop requests. Returns
 * how many stop requests arrived, the first in *first (from the terminal
 * when *from_tty). */
static int read_signals(struct run *r, int *first, int *from_tty)
{
    struct signalfd_siginfo si;
    int n = 0;
    while (read(r->sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
        if (si.ssi_signo == SIGCHLD) {
            reap(r);
            continue;
        }
        if (n++ == 0) {
            *first = (int)si.ssi_signo;
            *from_tty = si.ssi_code == SI_KERNEL;
        }
    }
    return n;
}

static const char *stop_name(int sig)
{
    return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "SIGQUIT";
}

static int collectors_poll_ms(const struct run *r)
{
    unsigned ms = 0;
    for (size_t i = 0; i < r->n_coll; i++)
        if (r->coll[i]->state == LATREC_COLL_ON && r->coll[i]->ops->poll && r->coll[i]->ops->poll_ms &&
            (!ms || r->coll[i]->ops->poll_ms < ms))
            ms = r->coll[i]->ops->poll_ms;
    return (int)ms;
}

static void poll_collectors(struct run *r)
{
    for (size_t i = 0; i < r->n_coll; i++)
        if (r->coll[i]->state == LATREC_COLL_ON && r->coll[i]->ops->poll) r->coll[i]->ops->poll(r->coll[i]);
}

/* Wait for the end of the run. */
static void wait_run(struct run *r)
{
    int attach = r->o->attach_pid != 0;
    int tdur = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
    int tgrace = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
    int tpoll = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
    int pfd = attach ? (int)syscall(SYS_pidfd_open, r->pid, 0) : -1;
    if (r->o->duration_ns) arm(tdur, r->o->duration_ns);
    int pms = collectors_poll_ms(r);
    if (pms) {
        struct itimerspec its = { { pms / 1000, (pms % 1000) * 1000000L }, { pms / 1000, (pms % 1000) * 1000000L } };
        timerfd_settime(tpoll, 0, &its, NULL);
    }
    reap(r);
    int done = attach ? 0 : r->have_status;
    while (!done) {
        struct pollfd pf[5] = {
            { r->sfd, POLLIN, 0 }, { tdur, POLLIN, 0 }, { tgrace, POLLIN, 0 }, { tpoll, POLLIN, 0 },
            { pfd, POLLIN, 0 },
        };
        int n = poll(pf, pfd >= 0 ? 5 : 4, -1);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) break;
        uint64_t ticks;
        if (pf[0].revents & POLLIN) {
            int tty = 0, sig = 0;
            int cnt = read_signals(r, &sig, &tty);
            if (cnt && attach) {
                if (!r->stopped_by) r->stopped_by = stop_name(sig);
                done = 1;
            } else if (cnt) {
                char nb[16];
                if (!r->stopped_by) r->stopped_by = stop_name(sig);
                int tty_shared = tty && getpgid(r->pid) == getpgrp();
                if (r->level == 0 && !r->o->quiet && !tty_shared)
                    fprintf(stderr, "latrec: %s: passing it to the command\n", sig_name(sig, nb, sizeof(nb)));
                escalate(r, sig, !tty_shared, tgrace);
                for (int k = 1; k < cnt; k++) escalate(r, SIGTERM, 1, tgrace);
            }
        }
        if (pf[1].revents & POLLIN && read(tdur, &ticks, sizeof(ticks)) > 0) {
            if (!r->stopped_by) r->stopped_by = "duration";
            if (attach) done = 1;
            else if (r->level == 0) escalate(r, SIGINT, 1, tgrace);
        }
        if (pf[2].revents & POLLIN && read(tgrace, &ticks, sizeof(ticks)) > 0 && !attach)
            escalate(r, SIGTERM, 1, tgrace);
        if (pf[3].revents & POLLIN && read(tpoll, &ticks, sizeof(ticks)) > 0) {
            poll_collectors(r);
            if (attach && pfd < 0 && kill(r->pid, 0) != 0 && errno == ESRCH) { /* no pidfd: look */
                if (!r->stopped_by) r->stopped_by = "exit";
                done = 1;
            }
        }
        if (pfd >= 0 && (pf[4].revents & (POLLIN | POLLHUP))) {
            if (!r->stopped_by) r->stopped_by = "exit";
            done = 1;
        }
        if (!attach) {
            reap(r);
            done = r->have_status;
        }
    }
    if (pfd >= 0) close(pfd);
    close(tdur);
    close(tgrace);
    close(tpoll);
}

/* Processes the command left behind (reparented to latrec, a subreaper):
 * SIGTERM, then SIGKILL after the grace period. */
static void stop_leftovers(struct run *r)
{
    int st;
    while (waitpid(-1, &st, WNOHANG) > 0) {}
    latrec_pidlist l = { 0 };
    latrec_proc_descendants(getpid(), &l);
    if (l.n == 0) {
        latrec_pidlist_free(&l);
        return;
    }
    if (!r->o->quiet) {
        fprintf(stderr, "latrec: the command left %zu process%s running (", l.n, l.n == 1 ? "" : "es");
        for (size_t i = 0; i < l.n; i++) fprintf(stderr, "%s%d", i ? " " : "", (int)l.pids[i]);
        fprintf(stderr, "): sending SIGTERM\n");
    }
    for (size_t i = 0; i < l.n; i++) kill(l.pids[i], SIGTERM);
    uint64_t until = mono_ns() + r->grace_ns;
    for (;;) {
        while (waitpid(-1, &st, WNOHANG) > 0) {}
        latrec_pidlist left = { 0 };
        latrec_proc_descendants(getpid(), &left);
        size_t n = left.n;
        if (n && mono_ns() >= until) {
            for (size_t i = 0; i < left.n; i++) kill(left.pids[i], SIGKILL);
            while (waitpid(-1, &st, 0) > 0) {}
            n = 0;
        }
        latrec_pidlist_free(&left);
        if (!n) break;
        struct timespec nap = { 0, 10000000 };
        nanosleep(&nap, NULL);
    }
    latrec_pidlist_free(&l);
}

/* ---- collectors ------------------------------------------------------------ */

static void start_collectors(struct run *r)
{
    latrec_collect_ctx x = { r->dir, r->run_id, r->pid, r->o->attach_pid != 0, r->tfs, r->o->quiet };
    for (size_t i = 0; i < r->n_coll; i++) {
        latrec_collector *c = r->coll[i];
        if (c->state == LATREC_COLL_FAILED) continue; /* said so when it was made */
        if (c->ops->start(c, &x, c->error, sizeof(c->error)) < 0) {
            c->state = LATREC_COLL_FAILED;
            fprintf(stderr, "latrec: collector %s: %s; recording without it\n", c->ops->name, c->error);
        } else {
            c->state = LATREC_COLL_ON;
        }
    }
}

static void stop_collectors(struct run *r)
{
    for (size_t i = 0; i < r->n_coll; i++) {
        latrec_collector *c = r->coll[i];
        if (c->state != LATREC_COLL_ON) continue;
        if (c->ops->stop(c, r->man.stop.have ? r->man.stop.mono_ns : 0, c->error, sizeof(c->error)) < 0) {
            c->state = LATREC_COLL_FAILED;
            fprintf(stderr, "latrec: collector %s: %s\n", c->ops->name, c->error);
            r->failed = 1;
        } else {
            c->state = LATREC_COLL_DONE;
        }
    }
}

static int take_stamp(struct run *r, const char *what, latrec_stamp *s)
{
    if (!r->tfs) return -1;
    char err[512];
    snprintf(s->marker, sizeof(s->marker), "latrec-%s %s", what, r->run_id);
    if (latrec_tracefs_mark(r->tfs, s->marker, MARK_TIMEOUT_MS, &s->mono_ns, err, sizeof(err)) < 0) {
        fprintf(stderr, "latrec: no %s stamp: %s\n", what, err);
        if (!r->tfs_reason[0]) snprintf(r->tfs_reason, sizeof(r->tfs_reason), "%s", err);
        return -1;
    }
    s->have = 1;
    return 0;
}

/* ---- the summary ------------------------------------------------------------ */

static void summary(const struct run *r, int status)
{
    const latrec_collector *rings = NULL, *trace = NULL, *sched = NULL;
    for (size_t i = 0; i < r->n_coll; i++) {
        if (strcmp(r->coll[i]->ops->name, "rings") == 0) rings = r->coll[i];
        if (strcmp(r->coll[i]->ops->name, "trace") == 0) trace = r->coll[i];
        if (strcmp(r->coll[i]->ops->name, "sched") == 0) sched = r->coll[i];
    }
    char what[256] = "";
    if (r->o->attach_pid) {
        snprintf(what, sizeof(what), "pid %d", (int)r->pid);
    } else if (!r->have_status && r->interrupted) {
        char nb[16];
        snprintf(what, sizeof(what), "%s before the command ran (exit %d)", sig_name(r->interrupted, nb, sizeof(nb)),
                 status);
    } else if (r->have_status && WIFSIGNALED(r->wstatus)) {
        char nb[16];
        snprintf(what, sizeof(what), "the command died of %s (exit %d)", sig_name(WTERMSIG(r->wstatus), nb, sizeof(nb)),
                 status);
    } else {
        snprintf(what, sizeof(what), "the command exited %d", status);
    }
    if (!rings || rings->state != LATREC_COLL_DONE) {
        fprintf(stderr, "latrec: run in %s (rings not collected); %s\n", r->dir, what);
        return;
    }
    const json_t *d = json_object_get(json_object_get(r->collectors, "rings"), "rings");
    long long n = json_is_integer(d) ? json_integer_value(d) : 0;
    if (n == 0) {
        fprintf(stderr, "latrec: no rings (the command wrote none: not instrumented?); run in %s; %s\n", r->dir,
                what);
        return;
    }
    const latrec_collector_counts *c = &rings->counts;
    fprintf(stderr, "latrec: %lld ring%s, %llu records (%llu%s lost, %llu dropped before the start stamp)",
            n, n == 1 ? "" : "s", (unsigned long long)c->records, (unsigned long long)c->lost,
            c->lost_lower_bound ? "+" : "", (unsigned long long)c->dropped);
    if (trace && trace->state == LATREC_COLL_DONE)
        fprintf(stderr, ", %llu trace events", (unsigned long long)trace->counts.records);
    if (sched && sched->state == LATREC_COLL_DONE)
        fprintf(stderr, ", %llu scheduler records (%llu lost)", (unsigned long long)sched->counts.records,
                (unsigned long long)sched->counts.lost);
    fprintf(stderr, " in %s; %s\n", r->dir, what);
}

/* ---- the run --------------------------------------------------------------- */

static int build_env(struct run *r, latrec_env *env, char *err, size_t errlen)
{
    const latrec_record_opts *o = r->o;
    if (latrec_env_init(env, environ) < 0) goto oom;
    if (latrec_env_set(env, "LATREC_OUTPUT_DIR", r->rings_src) < 0) goto oom;
    char num[16];
    if (o->entries_log2) {
        snprintf(num, sizeof(num), "%u", o->entries_log2);
        if (latrec_env_set(env, "LATREC_ENTRIES_LOG2", num) < 0) goto oom;
    }
    for (size_t i = 0; i < o->n_roles; i++) {
        char var[160];
        if (latrec_env_role_var(o->roles[i].role, var, sizeof(var)) < 0) {
            snprintf(err, errlen, "--role-entries %s: role name too long", o->roles[i].role);
            return -1;
        }
        snprintf(num, sizeof(num), "%u", o->roles[i].log2);
        if (latrec_env_set(env, var, num) < 0) goto oom;
    }
    if (o->lib_dir) {
        char abs[PATH_MAX];
        const char *lib = realpath(o->lib_dir, abs) ? abs : o->lib_dir;
        if (latrec_env_prepend_path(env, "LD_LIBRARY_PATH", lib) < 0) goto oom;
    }
    return 0;
oom:
    snprintf(err, errlen, "out of memory");
    return -1;
}

static json_t *launch_json(const latrec_launch *l, const latrec_stamp *start)
{
    json_t *j = json_object();
    if (l->ready_ns) json_object_set_new(j, "fork_to_ready_ns", json_integer((json_int_t)(l->ready_ns - l->fork_ns)));
    if (l->release_ns && l->ready_ns)
        json_object_set_new(j, "ready_to_release_ns", json_integer((json_int_t)(l->release_ns - l->ready_ns)));
    if (l->release_ns && start->have)
        json_object_set_new(j, "stamp_to_release_ns", json_integer((json_int_t)(l->release_ns - start->mono_ns)));
    if (l->exec_ns) json_object_set_new(j, "release_to_exec_ns", json_integer((json_int_t)(l->exec_ns - l->release_ns)));
    return j;
}

static int prepare_rings(struct run *r, char *err, size_t errlen)
{
    const latrec_record_opts *o = r->o;
    char abs[PATH_MAX];
    if (!realpath(r->dir, abs)) {
        snprintf(err, errlen, "%s: %s", r->dir, strerror(errno));
        return -1;
    }
    if (o->attach_pid) {
        if (o->attach_rings) snprintf(r->rings_src, sizeof(r->rings_src), "%s", o->attach_rings);
        else if (latrec_proc_ring_dir(r->pid, r->rings_src, sizeof(r->rings_src)) < 0) {
            snprintf(err, errlen, "pid %d: cannot tell where it writes its rings (no mapped .latrec file, no "
                                  "LATREC_OUTPUT_DIR); name the directory with --rings", (int)r->pid);
            return -1;
        }
        return latrec_rundir_rings_link(r->dir, NULL, err, errlen);
    }
    int tmpfs;
    char note[512];
    if (latrec_rundir_rings_tmp(o->rings_base, r->run_id, r->rings_tmp, sizeof(r->rings_tmp), &tmpfs, note,
                                sizeof(note), err, errlen) < 0)
        return -1;
    if (note[0] && !o->quiet) fprintf(stderr, "latrec: %s\n", note);
    if (r->rings_tmp[0]) {
        snprintf(r->rings_src, sizeof(r->rings_src), "%s", r->rings_tmp);
        return latrec_rundir_rings_link(r->dir, r->rings_tmp, err, errlen);
    }
    snprintf(r->rings_src, sizeof(r->rings_src), "%s/rings", abs);
    return latrec_rundir_rings_link(r->dir, NULL, err, errlen);
}

static int status_of(const struct run *r)
{
    if (r->failed) return LATREC_RECORD_EXIT_FAIL;
    if (r->o->attach_pid) return 0;
    if (r->child.fail_stage) return latrec_launch_exit_code(&r->child);
    if (!r->have_status) return r->interrupted ? 128 + r->interrupted : LATREC_RECORD_EXIT_FAIL;
    if (WIFEXITED(r->wstatus)) return WEXITSTATUS(r->wstatus);
    if (WIFSIGNALED(r->wstatus)) return 128 + WTERMSIG(r->wstatus);
    return LATREC_RECORD_EXIT_FAIL;
}

/* Stop stamp, collectors, final manifest, summary. Returns the status. */
static int finish(struct run *r, const char *error)
{
    r->man.stop_real_ns = real_ns();
    r->man.stop_mono_ns = mono_ns();
    if (r->tfs && r->man.start.have) take_stamp(r, "stop", &r->man.stop);
    stop_collectors(r);
    if (r->coll[0] && r->coll[0]->state == LATREC_COLL_DONE) r->man.rings_dir = "rings"; /* coll[0]: rings */
    int status = status_of(r);
    json_decref(r->exit);
    if (r->have_status) {
        r->exit = latrec_manifest_wait_status(r->wstatus, status);
    } else {
        r->exit = json_object();
        json_object_set_new(r->exit, "status", json_integer(status));
    }
    if (r->child.fail_stage == LATREC_LAUNCH_EXEC) {
        json_object_set_new(r->exit, "exec_failed", json_true());
        json_object_set_new(r->exit, "errno", json_integer(r->child.fail_errno));
    }
    if (error) json_object_set_new(r->exit, "error", json_string(error));
    if (r->stopped_by) json_object_set_new(r->exit, "stopped_by", json_string(r->stopped_by));
    json_decref(r->launch);
    r->launch = r->o->attach_pid ? NULL : launch_json(&r->child, &r->man.start);
    write_manifest(r, r->failed || error ? "failed" : "finished");
    status = status_of(r); /* the manifest may have failed */
    if (!r->o->quiet) summary(r, status);
    return status;
}

int latrec_record_run(const latrec_record_opts *o)
{
    struct run *r = calloc(1, sizeof(*r));
    if (!r) {
        fprintf(stderr, "latrec: out of memory\n");
        return LATREC_RECORD_EXIT_FAIL;
    }
    r->o = o;
    r->sfd = -1;
    r->child.barrier_wr = r->child.status_rd = -1;
    r->grace_ns = o->grace_ns ? o->grace_ns : GRACE_DEFAULT_NS;
    char err[1024];
    int status = LATREC_RECORD_EXIT_FAIL;
    latrec_env env = { 0 };
    latrec_collector *sched = NULL; /* until it joins r->coll */
    latrec_guard_install();
    make_run_id(r);
    const char *out = o->output ? o->output : "latrec.data";
    snprintf(r->dir, sizeof(r->dir), "%s", out);
    for (size_t n = strlen(r->dir); n > 1 && r->dir[n - 1] == '/'; n--) r->dir[n - 1] = '\0';

    if (setup_signals(r) < 0) {
        fprintf(stderr, "latrec: signalfd: %s\n", strerror(errno));
        goto out;
    }
    if (!o->attach_pid) prctl(PR_SET_CHILD_SUBREAPER, 1);
    if (o->attach_pid) {
        r->pid = o->attach_pid;
        if (kill(r->pid, 0) != 0 && errno == ESRCH) {
            fprintf(stderr, "latrec: pid %d: no such process\n", (int)r->pid);
            goto out;
        }
    }
    /* The scheduler collector loads its BPF program now, before anything
     * is created: with --require-sched, no scheduler data fails the run
     * here, the command never forked and no run directory touched. */
    latrec_sched_opts so = { o->no_sched, o->sched_buffer, o->sched_tid };
    sched = latrec_coll_sched_new(&so);
    if (!sched) {
        fprintf(stderr, "latrec: out of memory\n");
        goto out;
    }
    if (sched->state == LATREC_COLL_FAILED && !o->no_sched) {
        if (o->require_sched) {
            fprintf(stderr, "latrec: scheduler data: n/a (%s); --require-sched: not running the command\n",
                    sched->error);
            goto out;
        }
        if (!o->quiet) fprintf(stderr, "latrec: scheduler data: n/a (%s)\n", sched->error);
    }
    int rotated;
    if (latrec_rundir_create(r->dir, o->force, &rotated, err, sizeof(err)) < 0) {
        fprintf(stderr, "latrec: %s\n", err);
        goto out;
    }
    if (rotated && !o->quiet) fprintf(stderr, "latrec: kept the previous %s as %s.old\n", r->dir, r->dir);
    if (prepare_rings(r, err, sizeof(err)) < 0) {
        fprintf(stderr, "latrec: %s\n", err);
        goto out;
    }

    /* tracefs: the instance and its clock */
    const char *systems[40];
    size_t ns = 0;
    if (o->trace) systems[ns++] = "sched";
    char sysbuf[32][64];
    for (size_t i = 0; i < o->n_events && ns < 33; i++) {
        snprintf(sysbuf[i], sizeof(sysbuf[i]), "%.*s", (int)strcspn(o->events[i], ":"), o->events[i]);
        systems[ns++] = sysbuf[i];
    }
    systems[ns] = NULL;
    char notes[1024];
    r->tfs = latrec_tracefs_open(r->run_id, systems, notes, sizeof(notes), err, sizeof(err));
    if (!o->quiet)
        for (char *line = strtok(notes, "\n"); line; line = strtok(NULL, "\n")) fprintf(stderr, "latrec: %s\n", line);
    if (!r->tfs) {
        snprintf(r->tfs_reason, sizeof(r->tfs_reason), "%s", err);
        fprintf(stderr, "latrec: no start stamp: %s; recording the rings without one\n", err);
    } else {
        latrec_guard_set_instance(latrec_tracefs_dir(r->tfs));
    }

    /* collectors */
    r->coll[r->n_coll++] = latrec_coll_rings_new(r->rings_src, o->attach_pid ? LATREC_RINGS_COPY
                                                             : r->rings_tmp[0] ? LATREC_RINGS_MOVE
                                                                               : LATREC_RINGS_DIRECT);
    if (o->trace) {
        const char *ev[40];
        size_t ne = 0;
        ev[ne++] = "sched:sched_switch";
        ev[ne++] = "sched:sched_wakeup";
        for (size_t i = 0; i < o->n_events && ne < 39; i++) ev[ne++] = o->events[i];
        ev[ne] = NULL;
        r->coll[r->n_coll++] = latrec_coll_trace_new(ev, o->trace_buffer_kb);
    }
    r->coll[r->n_coll++] = sched; /* made (and loaded) above */
    sched = NULL;
    for (size_t i = 0; i < r->n_coll; i++)
        if (!r->coll[i]) {
            fprintf(stderr, "latrec: out of memory\n");
            r->n_coll = i;
            r->failed = 1;
            status = finish(r, "out of memory");
            goto out;
        }

    /* the first manifest */
    r->options = options_json(o, r->dir, r->grace_ns);
    r->man.run_id = r->run_id;
    r->man.mode = o->attach_pid ? "attach" : "launch";
    r->man.argv = o->attach_pid ? NULL : o->argv;
    r->man.pid = r->pid;
    r->man.instance = r->tfs ? latrec_tracefs_name(r->tfs) : NULL;
    r->man.tracefs_ok = r->tfs != NULL;
    r->man.mounted_by_latrec = r->tfs && latrec_tracefs_mounted_here(r->tfs);
    r->man.tracefs_reason = r->tfs_reason[0] ? r->tfs_reason : NULL;
    r->man.rings_dir = r->rings_src;
    r->man.rings_tmp = r->rings_tmp[0] ? r->rings_tmp : NULL;
    latrec_manifest_init(&r->man);
    write_manifest(r, "running");
    if (r->failed) {
        status = finish(r, "cannot write run.json");
        goto out;
    }

    /* the command, held at its barrier */
    if (!o->attach_pid) {
        if (build_env(r, &env, err, sizeof(err)) < 0) {
            fprintf(stderr, "latrec: %s\n", err);
            r->failed = 1;
            status = finish(r, err);
            goto out;
        }
        latrec_launch_opts lo = { o->argv, env.vars, o->cpus, o->sched, &r->old_mask };
        if (latrec_launch_start(&r->child, &lo, err, sizeof(err)) < 0) {
            fprintf(stderr, "latrec: %s: %s\n", o->argv[0], err);
            r->failed = 1;
            status = finish(r, err);
            goto out;
        }
        r->pid = r->child.pid;
        r->man.pid = r->pid;
        latrec_guard_set_child(r->pid);
    }

    /* every collector on, then the start stamp */
    start_collectors(r);
    int tty, sig;
    if (read_signals(r, &sig, &tty)) r->interrupted = sig;
    if (!r->interrupted && r->tfs && take_stamp(r, "start", &r->man.start) == 0)
        for (size_t i = 0; i < r->n_coll; i++)
            if (r->coll[i]->state == LATREC_COLL_ON && r->coll[i]->ops->told_start)
                r->coll[i]->ops->told_start(r->coll[i], r->man.start.mono_ns);
    r->man.start_real_ns = real_ns();
    r->man.start_mono_ns = mono_ns();
    if (!r->interrupted && read_signals(r, &sig, &tty)) r->interrupted = sig;
    if (r->interrupted) r->stopped_by = stop_name(r->interrupted);

    if (r->interrupted) {
        char nb[16];
        fprintf(stderr, "latrec: %s before the command started: not running it\n",
                sig_name(r->interrupted, nb, sizeof(nb)));
        latrec_launch_abort(&r->child);
        latrec_guard_set_child(0);
        status = finish(r, NULL);
        goto out;
    }
    if (!o->attach_pid && latrec_launch_release(&r->child, o->argv[0], err, sizeof(err)) < 0) {
        fprintf(stderr, "latrec: %s\n", err);
        int st;
        while (waitpid(r->pid, &st, 0) < 0 && errno == EINTR) {}
        latrec_guard_set_child(0);
        status = finish(r, err);
        goto out;
    }
    json_decref(r->launch);
    r->launch = o->attach_pid ? NULL : launch_json(&r->child, &r->man.start);
    write_manifest(r, "running");

    wait_run(r);
    if (!o->attach_pid) stop_leftovers(r);
    status = finish(r, NULL);
out:
    if (sched) sched->ops->destroy(sched);
    for (size_t i = 0; i < r->n_coll; i++) r->coll[i]->ops->destroy(r->coll[i]);
    latrec_tracefs_close(r->tfs);
    latrec_guard_clear();
    latrec_manifest_free(&r->man);
    json_decref(r->options);
    json_decref(r->launch);
    json_decref(r->collectors);
    json_decref(r->exit);
    latrec_env_free(&env);
    if (r->sfd >= 0) close(r->sfd);
    free(r);
    return status;
}
