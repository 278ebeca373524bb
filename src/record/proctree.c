/* Descendants and threads of a process, from /proc. */
#include "record/proctree.h"

#include <ctype.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int latrec_pidlist_has(const latrec_pidlist *l, pid_t pid)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->pids[i] == pid) return 1;
    return 0;
}

int latrec_pidlist_add(latrec_pidlist *l, pid_t pid)
{
    if (latrec_pidlist_has(l, pid)) return 0;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 32;
        pid_t *p = realloc(l->pids, cap * sizeof(*p));
        if (!p) return -1;
        l->pids = p;
        l->cap = cap;
    }
    l->pids[l->n++] = pid;
    return 0;
}

void latrec_pidlist_free(latrec_pidlist *l)
{
    free(l->pids);
    memset(l, 0, sizeof(*l));
}

/* ppid and state letter of pid; -1 when gone. */
static pid_t proc_stat(pid_t pid, char *state_out)
{
    char path[64], buf[512];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f) return -1;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* "pid (comm) state ppid ...": comm may hold spaces and ')'. */
    char *rp = strrchr(buf, ')');
    int ppid;
    char state;
    if (!rp || sscanf(rp + 1, " %c %d", &state, &ppid) != 2) return -1;
    if (state_out) *state_out = state;
    return (pid_t)ppid;
}

pid_t latrec_proc_ppid(pid_t pid)
{
    return proc_stat(pid, NULL);
}

static int numeric(const char *s)
{
    if (!*s) return 0;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s)) return 0;
    return 1;
}

int latrec_proc_descendants(pid_t root, latrec_pidlist *out)
{
    DIR *d = opendir("/proc");
    if (!d) return -1;
    /* (pid, ppid) of every process, then a closure from root. */
    latrec_pidlist pids = { 0 }, ppids = { 0 };
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d))) {
        if (!numeric(e->d_name)) continue;
        pid_t pid = (pid_t)atoi(e->d_name);
        char state = '?';
        pid_t pp = proc_stat(pid, &state);
        if (pp < 0 || state == 'Z' || state == 'X') continue; /* gone, or dead and unreaped */
        /* parallel arrays: pidlist_add dedups, so append by hand */
        if (latrec_pidlist_add(&pids, pid) < 0) { rc = -1; break; }
        if (ppids.n == ppids.cap) {
            size_t cap = ppids.cap ? ppids.cap * 2 : 64;
            pid_t *p = realloc(ppids.pids, cap * sizeof(*p));
            if (!p) { rc = -1; break; }
            ppids.pids = p;
            ppids.cap = cap;
        }
        ppids.pids[ppids.n++] = pp;
    }
    closedir(d);
    if (rc == 0) {
        latrec_pidlist frontier = { 0 };
        if (latrec_pidlist_add(&frontier, root) < 0) rc = -1;
        for (size_t f = 0; rc == 0 && f < frontier.n; f++)
            for (size_t i = 0; i < pids.n && i < ppids.n; i++)
                if (ppids.pids[i] == frontier.pids[f] && pids.pids[i] != root &&
                    !latrec_pidlist_has(&frontier, pids.pids[i])) {
                    if (latrec_pidlist_add(&frontier, pids.pids[i]) < 0 ||
                        latrec_pidlist_add(out, pids.pids[i]) < 0) {
                        rc = -1;
                        break;
                    }
                }
        latrec_pidlist_free(&frontier);
    }
    latrec_pidlist_free(&pids);
    latrec_pidlist_free(&ppids);
    return rc;
}

int latrec_proc_threads(pid_t pid, latrec_pidlist *out)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    if (!d) return -1;
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d)))
        if (numeric(e->d_name) && latrec_pidlist_add(out, (pid_t)atoi(e->d_name)) < 0) {
            rc = -1;
            break;
        }
    closedir(d);
    return rc;
}

int latrec_proc_ring_dir(pid_t pid, char *out, size_t len)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
    FILE *f = fopen(path, "re");
    if (f) {
        char *line = NULL;
        size_t cap = 0;
        int found = 0;
        while (!found && getline(&line, &cap, f) > 0) {
            line[strcspn(line, "\n")] = '\0';
            char *file = strchr(line, '/');
            size_t n = file ? strlen(file) : 0;
            if (n > 7 && strcmp(file + n - 7, ".latrec") == 0) {
                char *slash = strrchr(file, '/');
                if ((size_t)(slash - file) < len) {
                    snprintf(out, len, "%.*s", (int)(slash - file), file);
                    found = 1;
                }
            }
        }
        free(line);
        fclose(f);
        if (found) return 0;
    }
    snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
    f = fopen(path, "re");
    if (!f) return -1;
    char *var = NULL;
    size_t cap = 0;
    int found = 0;
    while (!found && getdelim(&var, &cap, '\0', f) > 0)
        if (strncmp(var, "LATREC_OUTPUT_DIR=", 18) == 0 && var[18] && strlen(var + 18) < len) {
            snprintf(out, len, "%s", var + 18);
            found = 1;
        }
    free(var);
    fclose(f);
    return found ? 0 : -1;
}

void latrec_proc_kill_tree(pid_t root, int sig)
{
    latrec_pidlist l = { 0 };
    latrec_proc_descendants(root, &l);
    kill(root, sig);
    for (size_t i = 0; i < l.n; i++) kill(l.pids[i], sig);
    latrec_pidlist_free(&l);
}
