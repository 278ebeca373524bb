/*
 * record/proctree.h - a process's descendants and threads, read from /proc.
 *
 * Used to filter tracefs events to the target (set_event_pid takes thread
 * ids), to stop a whole launched tree, and to find the processes left to
 * latrec (a child subreaper) after the command exits.
 */
#ifndef LATREC_RECORD_PROCTREE_H
#define LATREC_RECORD_PROCTREE_H

#include <stddef.h>
#include <sys/types.h>

typedef struct latrec_pidlist {
    pid_t *pids;
    size_t n, cap;
} latrec_pidlist;

/* Append pid unless already present. 0, or -1 when out of memory. */
int latrec_pidlist_add(latrec_pidlist *l, pid_t pid);
int latrec_pidlist_has(const latrec_pidlist *l, pid_t pid);
void latrec_pidlist_free(latrec_pidlist *l);

/* Add every live descendant of `root` (children, their children, ...; not
 * root itself; zombies left out) to *out, from one scan of /proc/<pid>/stat. Processes that
 * appear or exit during the scan may be missed. 0, or -1 when /proc cannot
 * be read or out of memory. */
int latrec_proc_descendants(pid_t root, latrec_pidlist *out);

/* Add every thread id of process `pid` (/proc/<pid>/task) to *out.
 * 0, or -1 when the process is gone or out of memory. */
int latrec_proc_threads(pid_t pid, latrec_pidlist *out);

/* Send sig to root and to every live descendant of it (one scan, as
 * latrec_proc_descendants). */
void latrec_proc_kill_tree(pid_t root, int sig);

/* Parent pid of `pid` from /proc/<pid>/stat, or -1 when gone. */
pid_t latrec_proc_ppid(pid_t pid);

/* The directory process `pid` writes its rings to: the directory of the
 * first "*.latrec" file it maps (/proc/<pid>/maps), else its
 * LATREC_OUTPUT_DIR (/proc/<pid>/environ). 0 with out filled, or -1 when
 * neither tells (or /proc cannot be read). */
int latrec_proc_ring_dir(pid_t pid, char *out, size_t len);

#endif
