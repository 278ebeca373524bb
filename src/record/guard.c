/* Fatal-signal and exit() guard: kill the launched child, remove the
 * tracefs instance. */
#include "record/guard.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char guard_dir[4096];
static volatile sig_atomic_t guard_have_dir;
static volatile pid_t guard_child;
static int guard_installed;

static void guard_run(void)
{
    pid_t c = guard_child;
    if (c > 0) kill(c, SIGKILL);
    if (guard_have_dir) rmdir(guard_dir);
    guard_child = 0;
    guard_have_dir = 0;
}

static void on_fatal(int sig)
{
    guard_run();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void on_exit_hook(void) { guard_run(); }

void latrec_guard_install(void)
{
    if (guard_installed) return;
    guard_installed = 1;
    static const int fatal[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_fatal;
    sa.sa_flags = SA_RESETHAND | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++) sigaction(fatal[i], &sa, NULL);
    atexit(on_exit_hook);
}

void latrec_guard_set_instance(const char *dir)
{
    guard_have_dir = 0;
    if (!dir || strlen(dir) >= sizeof(guard_dir)) return;
    memcpy(guard_dir, dir, strlen(dir) + 1);
    guard_have_dir = 1;
}

void latrec_guard_set_child(pid_t pid) { guard_child = pid; }

void latrec_guard_clear(void)
{
    guard_child = 0;
    guard_have_dir = 0;
}
