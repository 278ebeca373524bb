/* latrec top: the `latrec record` child (cli/top_launch.h). */
#include "cli/top_launch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record/record.h"

/* In the child: its descriptors, its mask, then record. Never returns. */
static void exec_record(char *const *args, int stdin_null, const sigset_t *mask)
{
    int n = 0;
    while (args[n]) n++;
    char **argv = calloc((size_t)n + 3, sizeof(char *));
    if (!argv) _exit(LATREC_RECORD_EXIT_FAIL);
    argv[0] = "latrec";
    argv[1] = "record";
    for (int i = 0; i < n; i++) argv[i + 2] = args[i];
    if (stdin_null) {
        int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (nul < 0 || dup2(nul, 0) < 0) _exit(LATREC_RECORD_EXIT_FAIL);
    }
    if (dup2(2, 1) < 0) _exit(LATREC_RECORD_EXIT_FAIL);
    sigprocmask(SIG_SETMASK, mask, NULL);
    execv("/proc/self/exe", argv);
    fprintf(stderr, "latrec top: cannot run latrec record (/proc/self/exe): %s\n", strerror(errno));
    _exit(LATREC_RECORD_EXIT_FAIL);
}

int latrec_top_launch(latrec_top_child *c, char *const *args, int stdin_null, const sigset_t *mask)
{
    memset(c, 0, sizeof(*c));
    fflush(NULL);
    c->pid = fork();
    if (c->pid < 0) {
        fprintf(stderr, "latrec top: fork: %s\n", strerror(errno));
        return -1;
    }
    if (c->pid == 0) exec_record(args, stdin_null, mask);
    return 0;
}

int latrec_top_child_reap(latrec_top_child *c)
{
    if (c->done) return 1;
    int st;
    pid_t r = waitpid(c->pid, &st, WNOHANG);
    if (r == c->pid) {
        c->done = 1;
        c->status = st;
    } else if (r < 0 && errno == ECHILD) {
        c->done = 1;
        c->status = LATREC_RECORD_EXIT_FAIL << 8;
    }
    return c->done;
}

int latrec_top_child_exit(const latrec_top_child *c)
{
    if (WIFEXITED(c->status)) return WEXITSTATUS(c->status);
    if (WIFSIGNALED(c->status)) return 128 + WTERMSIG(c->status);
    return LATREC_RECORD_EXIT_FAIL;
}
