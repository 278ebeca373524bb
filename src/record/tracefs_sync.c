/* The run's tracefs instance, clock "mono", and the trace_marker start/stop
 * stamps read back through libtracefs + libtraceevent. */
#include "record/tracefs_sync.h"
#include "util/prog.h"

#include <errno.h>
#include <event-parse.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/statfs.h>
#include <time.h>
#include <tracefs.h>
#include <unistd.h>

#define TRACEFS_DEFAULT "/sys/kernel/tracing"
#ifndef TRACEFS_MAGIC
#define TRACEFS_MAGIC 0x74726163 /* <linux/magic.h> */
#endif

struct latrec_tracefs {
    struct tracefs_instance *inst;
    struct tep_handle *tep;
    char name[96];
    char *dir;        /* instance directory (tracefs_instance_get_dir) */
    char root[256];   /* tracefs mount point */
    int mounted_here;
    latrec_tracefs_sink sink;
    void *sink_ctx;
    uint64_t missed;
    long nread;       /* events read by the current drain */
    /* the marker being waited for */
    const char *want;
    int found;
    uint64_t found_ns;
};

static void note_add(char *notes, size_t len, const char *fmt, const char *a, const char *b)
{
    size_t used = strlen(notes);
    if (used >= len) return;
    snprintf(notes + used, len - used, fmt, a, b);
}

struct sweep {
    const char *own;
    char *notes;
    size_t noteslen;
};

/* Remove a "latrec-<run-id>" instance whose latrec (the number after the
 * last '-' of the run id) no longer exists. (tracefs_instances_walk rather
 * than tracefs_instances(): the latter leaks its regex in libtracefs 1.6.) */
static int sweep_one(const char *name, void *ctx)
{
    struct sweep *sw = ctx;
    if (strncmp(name, "latrec-", 7) != 0 || strcmp(name, sw->own) == 0) return 0;
    const char *dash = strrchr(name, '-');
    char *end;
    long pid = strtol(dash + 1, &end, 10);
    if (*end || pid <= 0) return 0;
    if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) return 0;
    struct tracefs_instance *old = tracefs_instance_alloc(NULL, name);
    if (old && tracefs_instance_destroy(old) == 0)
        note_add(sw->notes, sw->noteslen, "removed the tracefs instance %s left by a latrec that is gone%s\n",
                 name, "");
    tracefs_instance_free(old);
    return 0;
}

static void sweep_stale(const char *own, char *notes, size_t noteslen)
{
    struct sweep sw = { own, notes, noteslen };
    tracefs_instances_walk(sweep_one, &sw);
}

/* Where tracefs is mounted: /sys/kernel/tracing when it holds a tracefs,
 * else wherever libtracefs finds one. 1 with root filled, 0 when not
 * mounted. */
static int find_tracefs(char *root, size_t len)
{
    struct statfs sf;
    if (statfs(TRACEFS_DEFAULT, &sf) == 0 && sf.f_type == TRACEFS_MAGIC) {
        snprintf(root, len, "%s", TRACEFS_DEFAULT);
        return 1;
    }
    const char *path = NULL;
    if (tracefs_tracing_dir_is_mounted(false, &path) == 1 && path) {
        snprintf(root, len, "%s", path);
        return 1;
    }
    return 0;
}

/* A tep handle with the header page and the formats of `systems` only.
 * (tracefs_local_events_system() would also parse /proc/kallsyms: half a
 * second, and megabytes that a forked child at its barrier shares copy on
 * write.) */
static struct tep_handle *load_tep(const char *root, const char *const *systems)
{
    struct tep_handle *tep = tep_alloc();
    if (!tep) return NULL;
    int size = 0;
    char *hdr = tracefs_instance_file_read(NULL, "events/header_page", &size);
    if (!hdr || size <= 0 || tep_parse_header_page(tep, hdr, size, sizeof(long)) != 0) {
        free(hdr);
        tep_free(tep);
        if (!errno) errno = EINVAL;
        return NULL;
    }
    free(hdr);
    int parsed = 0;
    for (size_t i = 0; systems[i]; i++) {
        char **events = tracefs_system_events(root, systems[i]);
        for (int e = 0; events && events[e]; e++) {
            char *fmt = tracefs_event_file_read(NULL, systems[i], events[e], "format", &size);
            if (fmt && size > 0 && tep_parse_event(tep, fmt, (unsigned long)size, systems[i]) == 0) parsed++;
            free(fmt);
        }
        tracefs_list_free(events);
    }
    if (!tep_find_event_by_name(tep, "ftrace", "print")) {
        tep_free(tep);
        errno = ENOENT;
        return NULL;
    }
    tep_set_long_size(tep, tep_get_header_page_size(tep));
    tep_set_cpus(tep, (int)sysconf(_SC_NPROCESSORS_CONF));
    tracefs_load_cmdlines(root, tep);
    return tep;
}

latrec_tracefs *latrec_tracefs_open(const char *run_id, const char *const *systems, char *notes,
                                    size_t noteslen, char *err, size_t errlen)
{
    notes[0] = '\0';
    latrec_tracefs *t = calloc(1, sizeof(*t));
    if (!t) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (!find_tracefs(t->root, sizeof(t->root))) {
        /* mount(2) as tracefs_tracing_dir_is_mounted(true) would (which
         * leaks its path string in libtracefs 1.6) */
        if (mount("nodev", TRACEFS_DEFAULT, "tracefs", 0, NULL) != 0 || !find_tracefs(t->root, sizeof(t->root))) {
            const int e = errno;
            snprintf(err, errlen, "tracefs is not mounted and cannot be mounted at %s: %s%s", TRACEFS_DEFAULT,
                     strerror(e), e == EACCES || e == EPERM ? " (needs root)" : "");
            free(t);
            return NULL;
        }
        t->mounted_here = 1;
        note_add(notes, noteslen, "mounted tracefs at %s (unmounted again at the end)%s\n", t->root, "");
    }
    snprintf(t->name, sizeof(t->name), "latrec-%s", run_id);
    char inst_dir[300];
    snprintf(inst_dir, sizeof(inst_dir), "%s/instances", t->root);
    if (access(inst_dir, W_OK | X_OK) != 0) {
        /* said here rather than by tracefs_instance_create(), whose error
         * path leaks in libtracefs 1.6 */
        const int e = errno;
        snprintf(err, errlen, "%s: cannot create the tracefs instance %s: %s%s", inst_dir, t->name, strerror(e),
                 e == EACCES || e == EPERM ? " (needs root)" : "");
        goto fail;
    }
    sweep_stale(t->name, notes, noteslen);

    errno = 0;
    t->inst = tracefs_instance_create(t->name);
    if (!t->inst) {
        snprintf(err, errlen, "%s/instances/%s: cannot create the tracefs instance: %s", t->root, t->name,
                 errno ? strerror(errno) : "unknown error");
        goto fail;
    }
    if (!tracefs_instance_is_new(t->inst)) {
        snprintf(err, errlen, "%s/instances/%s: already exists (another latrec with this run id?)", t->root,
                 t->name);
        tracefs_instance_free(t->inst);
        t->inst = NULL;
        goto fail;
    }
    t->dir = tracefs_instance_get_dir(t->inst);
    if (tracefs_instance_file_write(t->inst, "trace_clock", "mono") < 0) {
        snprintf(err, errlen, "%s/trace_clock: cannot select the mono clock: %s", t->dir ? t->dir : t->name,
                 strerror(errno));
        goto fail;
    }
    const char *sys[16];
    size_t ns = 0;
    sys[ns++] = "ftrace";
    for (size_t i = 0; systems && systems[i] && ns + 1 < sizeof(sys) / sizeof(sys[0]); i++) {
        int dup = 0;
        for (size_t j = 0; j < ns; j++) dup |= strcmp(sys[j], systems[i]) == 0;
        if (!dup) sys[ns++] = systems[i];
    }
    sys[ns] = NULL;
    t->tep = load_tep(t->root, sys);
    if (!t->tep) {
        snprintf(err, errlen, "%s/events: cannot read the event formats: %s", t->root, strerror(errno));
        goto fail;
    }
    return t;
fail:
    latrec_tracefs_close(t);
    return NULL;
}

static const char *print_text(struct tep_event *ev, struct tep_record *rec, int *len);

static int is_print(const struct tep_event *ev)
{
    return ev && ev->system && ev->name && strcmp(ev->system, "ftrace") == 0 && strcmp(ev->name, "print") == 0;
}

const char *latrec_tracefs_print_text(struct tep_event *ev, struct tep_record *rec, int *len)
{
    return is_print(ev) ? print_text(ev, rec, len) : NULL;
}

/* The text of an ftrace "print" record ("buf" runs to the end of the record). */
static const char *print_text(struct tep_event *ev, struct tep_record *rec, int *len)
{
    struct tep_format_field *f = tep_find_field(ev, "buf");
    if (!f || f->offset < 0 || f->offset >= rec->size) return NULL;
    const char *p = (const char *)rec->data + f->offset;
    *len = (int)strnlen(p, (size_t)(rec->size - f->offset));
    return p;
}

static int on_event(struct tep_event *ev, struct tep_record *rec, int cpu, void *ctx)
{
    latrec_tracefs *t = ctx;
    t->nread++;
    if (rec->missed_events > 0) t->missed += (uint64_t)rec->missed_events;
    if (t->want && !t->found && is_print(ev)) {
        int len;
        const char *txt = print_text(ev, rec, &len);
        size_t wl = strlen(t->want);
        if (txt && (size_t)len >= wl && strncmp(txt, t->want, wl) == 0 &&
            ((size_t)len == wl || txt[wl] == '\n')) {
            t->found = 1;
            t->found_ns = rec->ts;
        }
    }
    if (t->sink) t->sink(t->sink_ctx, ev, rec, cpu);
    return 0;
}

long latrec_tracefs_drain(latrec_tracefs *t)
{
    if (!t || !t->inst) return -1;
    t->nread = 0;
    if (tracefs_iterate_raw_events(t->tep, t->inst, NULL, 0, on_event, t) < 0) return -1;
    return t->nread;
}

int latrec_tracefs_mark(latrec_tracefs *t, const char *text, unsigned timeout_ms, uint64_t *mono_ns,
                        char *err, size_t errlen)
{
    t->want = text;
    t->found = 0;
    if (tracefs_printf(t->inst, "%s\n", text) < 0) {
        snprintf(err, errlen, "%s/trace_marker: cannot write: %s", t->dir ? t->dir : t->name, strerror(errno));
        t->want = NULL;
        return -1;
    }
    struct timespec nap = { 0, 200000 }; /* 200 us between reads */
    unsigned waited_us = 0;
    for (;;) {
        if (latrec_tracefs_drain(t) < 0) {
            snprintf(err, errlen, "%s/per_cpu: cannot read the trace buffers: %s", t->dir ? t->dir : t->name,
                     strerror(errno));
            t->want = NULL;
            return -1;
        }
        if (t->found) break;
        if (waited_us >= timeout_ms * 1000u) {
            snprintf(err, errlen, "%s: the marker '%s' was written but not read back within %u ms",
                     t->dir ? t->dir : t->name, text, timeout_ms);
            t->want = NULL;
            return -1;
        }
        nanosleep(&nap, NULL);
        waited_us += 200;
    }
    t->want = NULL;
    *mono_ns = t->found_ns;
    return 0;
}

void latrec_tracefs_set_sink(latrec_tracefs *t, latrec_tracefs_sink sink, void *ctx)
{
    t->sink = sink;
    t->sink_ctx = ctx;
}

uint64_t latrec_tracefs_missed(const latrec_tracefs *t) { return t->missed; }
struct tracefs_instance *latrec_tracefs_instance(latrec_tracefs *t) { return t->inst; }
struct tep_handle *latrec_tracefs_tep(latrec_tracefs *t) { return t->tep; }
const char *latrec_tracefs_name(const latrec_tracefs *t) { return t->name; }
const char *latrec_tracefs_dir(const latrec_tracefs *t) { return t->dir; }
const char *latrec_tracefs_root(const latrec_tracefs *t) { return t->root; }
int latrec_tracefs_mounted_here(const latrec_tracefs *t) { return t->mounted_here; }

void latrec_tracefs_close(latrec_tracefs *t)
{
    if (!t) return;
    if (t->inst) {
        tracefs_print_close(t->inst);
        if (tracefs_instance_destroy(t->inst) != 0)
            fprintf(stderr, "%s: %s: cannot remove the tracefs instance: %s\n", latrec_prog, t->dir ? t->dir : t->name,
                    strerror(errno));
        tracefs_instance_free(t->inst);
    }
    if (t->tep) tep_free(t->tep);
    free(t->dir);
    if (t->mounted_here && umount(t->root) != 0)
        fprintf(stderr, "%s: %s: cannot unmount the tracefs latrec mounted: %s\n", latrec_prog, t->root,
                strerror(errno));
    free(t);
}
