/* Child launch: fork, hold at a barrier pipe, exec on release; exec failure
 * reported back through an O_CLOEXEC status pipe. */
#include "record/launch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct launch_msg {
    char tag;  /* 'R' ready at the barrier, 'E' failed */
    int  stage;
    int  err;
};

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void child_send(int fd, char tag, int stage, int err)
{
    struct launch_msg m;
    memset(&m, 0, sizeof(m));
    m.tag = tag;
    m.stage = stage;
    m.err = err;
    ssize_t n;
    do n = write(fd, &m, sizeof(m));
    while (n < 0 && errno == EINTR);
}

/* In the child, between fork and exec: async-signal-safe calls only. */
static void __attribute__((noreturn)) child_main(const latrec_launch_opts *o, pid_t latrec, int barrier_rd,
                                                 int status_wr)
{
    /* The command dies with latrec: SIGKILL when latrec ends without
     * stopping it (latrec itself SIGKILLed). Kept across execve (not for a
     * set-user-ID program, which the kernel clears it for). latrec may
     * already be gone by now: then never run the command. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != latrec) _exit(125);
    static const int reset[] = { SIGINT, SIGTERM, SIGQUIT, SIGHUP, SIGPIPE, SIGCHLD };
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = SIG_DFL;
    for (size_t i = 0; i < sizeof(reset) / sizeof(reset[0]); i++) sigaction(reset[i], &sa, NULL);

    if (o->cpus && sched_setaffinity(0, sizeof(*o->cpus), o->cpus) != 0) {
        child_send(status_wr, 'E', LATREC_LAUNCH_AFFINITY, errno);
        _exit(125);
    }
    if (o->sched) {
        int rc = latrec_sched_apply(0, o->sched);
        if (rc < 0) {
            child_send(status_wr, 'E', LATREC_LAUNCH_SCHED, -rc);
            _exit(125);
        }
    }
    child_send(status_wr, 'R', 0, 0);
    char go;
    ssize_t n;
    do n = read(barrier_rd, &go, 1);
    while (n < 0 && errno == EINTR);
    if (n != 1) _exit(125); /* latrec went away: never run the command */
    close(barrier_rd);
    if (o->exec_mask) sigprocmask(SIG_SETMASK, o->exec_mask, NULL);
    execvpe(o->argv[0], o->argv, o->envp);
    int e = errno;
    child_send(status_wr, 'E', LATREC_LAUNCH_EXEC, e);
    _exit(e == ENOENT ? 127 : 126);
}

/* Read one status message. 1 with *m, 0 at end-of-file, -1 on error. */
static int read_msg(int fd, struct launch_msg *m)
{
    size_t got = 0;
    while (got < sizeof(*m)) {
        ssize_t n = read(fd, (char *)m + got, sizeof(*m) - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return -1;
        if (n == 0) return got ? -1 : 0;
        got += (size_t)n;
    }
    return 1;
}

static const char *stage_what(int stage)
{
    switch (stage) {
    case LATREC_LAUNCH_AFFINITY: return "setting the cpu affinity (-c)";
    case LATREC_LAUNCH_SCHED: return "setting the scheduling policy (-P)";
    default: return "starting the command";
    }
}

int latrec_launch_start(latrec_launch *l, const latrec_launch_opts *o, char *err, size_t errlen)
{
    memset(l, 0, sizeof(*l));
    l->barrier_wr = l->status_rd = -1;
    int barrier[2], status[2];
    if (pipe2(barrier, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        return -1;
    }
    if (pipe2(status, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        close(barrier[0]);
        close(barrier[1]);
        return -1;
    }
    fflush(NULL);
    l->fork_ns = mono_ns();
    pid_t self = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        close(barrier[0]);
        close(barrier[1]);
        close(status[0]);
        close(status[1]);
        return -1;
    }
    if (pid == 0) {
        close(barrier[1]);
        close(status[0]);
        child_main(o, self, barrier[0], status[1]);
    }
    close(barrier[0]);
    close(status[1]);
    l->pid = pid;
    l->barrier_wr = barrier[1];
    l->status_rd = status[0];
    struct launch_msg m;
    int r = read_msg(l->status_rd, &m);
    if (r == 1 && m.tag == 'R') {
        l->ready_ns = mono_ns();
        return 0;
    }
    if (r == 1 && m.tag == 'E') {
        l->fail_stage = m.stage;
        l->fail_errno = m.err;
        snprintf(err, errlen, "%s: %s", stage_what(m.stage), strerror(m.err));
    } else {
        l->fail_stage = LATREC_LAUNCH_LOST;
        snprintf(err, errlen, "the command's process exited before it was ready");
    }
    latrec_launch_abort(l);
    return -1;
}

int latrec_launch_release(latrec_launch *l, const char *argv0, char *err, size_t errlen)
{
    l->release_ns = mono_ns();
    char go = 'G';
    ssize_t n;
    do n = write(l->barrier_wr, &go, 1);
    while (n < 0 && errno == EINTR);
    close(l->barrier_wr);
    l->barrier_wr = -1;
    struct launch_msg m;
    int r = read_msg(l->status_rd, &m);
    close(l->status_rd);
    l->status_rd = -1;
    if (r == 0) {
        l->exec_ns = mono_ns();
        return 0;
    }
    if (r == 1 && m.tag == 'E') {
        l->fail_stage = m.stage;
        l->fail_errno = m.err;
        if (m.err == ENOENT && !*argv0) /* (else the line began ": command not found") */
            snprintf(err, errlen, "an empty command name: command not found");
        else if (m.err == ENOENT && !strchr(argv0, '/'))
            snprintf(err, errlen, "%s: command not found", argv0);
        else
            snprintf(err, errlen, "%s: %s", argv0, strerror(m.err));
    } else {
        l->fail_stage = LATREC_LAUNCH_LOST;
        snprintf(err, errlen, "%s: lost track of the command's exec", argv0);
    }
    return -1;
}

void latrec_launch_abort(latrec_launch *l)
{
    if (l->barrier_wr < 0 && l->status_rd < 0) return;
    if (l->barrier_wr >= 0) {
        close(l->barrier_wr);
        l->barrier_wr = -1;
        if (l->pid > 0) {
            kill(l->pid, SIGKILL);
            int st;
            while (waitpid(l->pid, &st, 0) < 0 && errno == EINTR) {}
            l->pid = 0;
        }
    }
    if (l->status_rd >= 0) {
        close(l->status_rd);
        l->status_rd = -1;
    }
}

int latrec_launch_exit_code(const latrec_launch *l)
{
    if (l->fail_stage == LATREC_LAUNCH_EXEC) return l->fail_errno == ENOENT ? 127 : 126;
    return 125;
}
