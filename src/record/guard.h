/*
 * record/guard.h - last-resort cleanup when latrec itself dies or exits
 * early: kill the child it launched and remove its tracefs instance.
 *
 * The normal path cleans up in order and then calls latrec_guard_clear().
 * Until then, a fatal signal in latrec (SIGSEGV, SIGBUS, SIGFPE, SIGILL,
 * SIGABRT) or an exit() from anywhere runs the guard: SIGKILL to the child
 * (never to anything else), rmdir(2) of the instance directory (which
 * destroys a tracefs instance), then the signal's default action. Only
 * async-signal-safe calls are made; the values are copied at set time.
 */
#ifndef LATREC_RECORD_GUARD_H
#define LATREC_RECORD_GUARD_H

#include <sys/types.h>

/* Install the handlers and the atexit hook (once per process). */
void latrec_guard_install(void);

/* The instance directory to rmdir; NULL forgets it. */
void latrec_guard_set_instance(const char *dir);

/* The child to SIGKILL; 0 forgets it. */
void latrec_guard_set_child(pid_t pid);

/* Forget both (the orderly cleanup has happened). */
void latrec_guard_clear(void);

#endif
