/*
 * record/launch.h - launch the command held at a barrier, then release it.
 *
 * latrec_launch_start() forks. The child resets SIGINT, SIGTERM, SIGQUIT,
 * SIGHUP, SIGPIPE and SIGCHLD to their default action (latrec forwards the
 * first two itself), applies the cpu affinity and the scheduling policy, says
 * "ready" on a status pipe and blocks reading the barrier pipe. Only
 * latrec_launch_release() lets it go on to execvpe(); the status pipe is
 * O_CLOEXEC, so end-of-file on it means the exec succeeded, and a failed exec
 * sends its errno back through it before the child exits 127 (ENOENT) or
 * 126 (anything else). If latrec dies while the child waits, the barrier pipe
 * reads end-of-file and the child exits 125 without running the command.
 * The signal mask the caller passes is restored just before exec, so signals
 * latrec blocks (it reads them through a signalfd) arrive at the command only
 * once it runs.
 *
 * Times are CLOCK_MONOTONIC ns, measured in latrec.
 */
#ifndef LATREC_RECORD_LAUNCH_H
#define LATREC_RECORD_LAUNCH_H

#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "record/priority.h"

enum latrec_launch_stage {
    LATREC_LAUNCH_OK = 0,
    LATREC_LAUNCH_AFFINITY, /* sched_setaffinity failed in the child */
    LATREC_LAUNCH_SCHED,    /* sched_setattr failed in the child */
    LATREC_LAUNCH_EXEC,     /* execvpe failed */
    LATREC_LAUNCH_LOST,     /* the child vanished before saying anything */
};

typedef struct latrec_launch {
    pid_t    pid;         /* the child; 0 before start */
    int      barrier_wr;  /* latrec's end of the barrier pipe; -1 after release */
    int      status_rd;   /* latrec's end of the status pipe; -1 when done */
    uint64_t fork_ns;     /* just before fork() */
    uint64_t ready_ns;    /* the child's "ready" arrived: it waits at the barrier */
    uint64_t release_ns;  /* just before the barrier byte is written */
    uint64_t exec_ns;     /* end-of-file on the status pipe: exec succeeded */
    int      fail_stage;  /* enum latrec_launch_stage */
    int      fail_errno;
} latrec_launch;

typedef struct latrec_launch_opts {
    char *const     *argv;     /* command; argv[0] is searched in PATH */
    char *const     *envp;     /* its whole environment */
    const cpu_set_t *cpus;     /* affinity, NULL to inherit */
    const latrec_sched *sched; /* policy, NULL to inherit */
    const sigset_t  *exec_mask; /* signal mask for the command */
} latrec_launch_opts;

/* Fork the child and wait until it is ready at the barrier. Returns 0; or
 * -1 when fork or pipe creation failed (reason in err) or the child failed
 * before the barrier (l->fail_stage/fail_errno set, reason in err, the child
 * reaped). */
int latrec_launch_start(latrec_launch *l, const latrec_launch_opts *o, char *err, size_t errlen);

/* Release the barrier and wait for the exec result. Returns 0 when the
 * command is running; -1 when exec failed (fail_stage LATREC_LAUNCH_EXEC,
 * fail_errno set, err "<argv0>: <strerror>"); the failed child is left for
 * the caller to reap (its status is 127 or 126). */
int latrec_launch_release(latrec_launch *l, const char *argv0, char *err, size_t errlen);

/* Give up on a child still held at the barrier: close the barrier (the child
 * exits 125 without running the command), SIGKILL it and reap it. Safe to
 * call at any time before release; does nothing after. */
void latrec_launch_abort(latrec_launch *l);

/* Exit status latrec reports for a failed launch: 127 (ENOENT at exec),
 * 126 (other exec errors), 125 (affinity, policy, lost child). */
int latrec_launch_exit_code(const latrec_launch *l);

#endif
