/* latrec record: waiting for the end of the run - stop signals (signalfd),
 * the duration, the INT -> TERM -> KILL escalation, the processes the
 * command left behind (see record.h, steps 8 and 9). */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "record/guard.h"
#include "record/proctree.h"
#include "record/run.h"
#include "util/prog.h"

int latrec_stop_signals_block(sigset_t *set, sigset_t *old_mask)
{
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGHUP);
    sigaddset(set, SIGQUIT);
    sigaddset(set, SIGCHLD);
    return sigprocmask(SIG_BLOCK, set, old_mask);
}

int latrec_run_setup_signals(latrec_run *r)
{
    sigset_t set;
    if (latrec_stop_signals_block(&set, &r->old_mask) != 0) return -1;
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

/* ---- stopping the command -------------------------------------------------- */

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
static void escalate(latrec_run *r, int sig, int send_first, int grace_tfd)
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
        fprintf(stderr, "%s: the command is still running: sending %s\n", latrec_prog,
                latrec_run_sig_name(s, nb, sizeof(nb)));
    if (s == SIGKILL) latrec_proc_kill_tree(r->pid, SIGKILL);
    else kill(r->pid, s);
    if (next < 3) arm(grace_tfd, r->grace_ns);
}

static void reap(latrec_run *r)
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
int latrec_run_read_signals(latrec_run *r, int *first, int *from_tty)
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

const char *latrec_run_stop_name(int sig)
{
    return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "SIGQUIT";
}

static int collectors_poll_ms(const latrec_run *r)
{
    unsigned ms = 0;
    for (size_t i = 0; i < r->n_coll; i++)
        if (r->coll[i]->state == LATREC_COLL_ON && r->coll[i]->ops->poll && r->coll[i]->ops->poll_ms &&
            (!ms || r->coll[i]->ops->poll_ms < ms))
            ms = r->coll[i]->ops->poll_ms;
    return (int)ms;
}

static void poll_collectors(latrec_run *r)
{
    for (size_t i = 0; i < r->n_coll; i++)
        if (r->coll[i]->state == LATREC_COLL_ON && r->coll[i]->ops->poll) r->coll[i]->ops->poll(r->coll[i]);
}

/* --stop-above crossed: the trace cut first, then the stop -d makes (an
 * attached process is never signalled: the recording ends). 1 when the
 * wait is over. */
static int threshold_stop(latrec_run *r, int grace_tfd)
{
    latrec_run_threshold_heard(r);
    if (!r->stopped_by) r->stopped_by = "threshold";
    if (r->o->attach_pid) return 1;
    if (r->level == 0) {
        escalate(r, SIGINT, 1, grace_tfd);
        r->signalled_ns = latrec_run_mono_ns();
    }
    return 0;
}

/* Wait for the end of the run. */
void latrec_run_wait(latrec_run *r)
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
        /* a negative fd is not polled */
        struct pollfd pf[6] = {
            { r->sfd, POLLIN, 0 }, { tdur, POLLIN, 0 }, { tgrace, POLLIN, 0 }, { tpoll, POLLIN, 0 },
            { pfd, POLLIN, 0 },    { r->thr ? latrec_threshold_fd(r->thr) : -1, POLLIN, 0 },
        };
        int n = poll(pf, 6, -1);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) break;
        uint64_t ticks;
        if (pf[0].revents & POLLIN) {
            int tty = 0, sig = 0;
            int cnt = latrec_run_read_signals(r, &sig, &tty);
            if (cnt && attach) {
                if (!r->stopped_by) r->stopped_by = latrec_run_stop_name(sig);
                done = 1;
            } else if (cnt) {
                char nb[16];
                if (!r->stopped_by) r->stopped_by = latrec_run_stop_name(sig);
                int tty_shared = tty && getpgid(r->pid) == getpgrp();
                if (r->level == 0 && !r->o->quiet && !tty_shared)
                    fprintf(stderr, "%s: %s: passing it to the command\n", latrec_prog,
                            latrec_run_sig_name(sig, nb, sizeof(nb)));
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
        if (pf[5].revents & POLLIN && read(pf[5].fd, &ticks, sizeof(ticks)) > 0) done |= threshold_stop(r, tgrace);
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
void latrec_run_stop_leftovers(latrec_run *r)
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
        fprintf(stderr, "%s: the command left %zu process%s running (", latrec_prog, l.n, l.n == 1 ? "" : "es");
        for (size_t i = 0; i < l.n; i++) fprintf(stderr, "%s%d", i ? " " : "", (int)l.pids[i]);
        fprintf(stderr, "): sending SIGTERM\n");
    }
    for (size_t i = 0; i < l.n; i++) kill(l.pids[i], SIGTERM);
    uint64_t until = latrec_run_mono_ns() + r->grace_ns;
    for (;;) {
        while (waitpid(-1, &st, WNOHANG) > 0) {}
        latrec_pidlist left = { 0 };
        latrec_proc_descendants(getpid(), &left);
        size_t n = left.n;
        if (n && latrec_run_mono_ns() >= until) {
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
