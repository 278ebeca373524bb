/* The rings collector: where the target's rings are during the run, how
 * they reach <run>/rings, and their counts around the start stamp. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "read/escape.h"
#include "read/ring.h"
#include "read/ringset.h"
#include "record/collector.h"
#include "record/manifest.h"
#include "record/proctree.h"
#include "record/rundir.h"
#include "util/prog.h"

struct ring_row {
    char     name[128];
    uint32_t pid, tid;
    uint64_t written, records, dropped, lost;
    int      lower_bound;
    int      ok;
    int      tsc;       /* a TSC ring ... */
    unsigned tsc_pairs; /* ... converted through this many pairs */
    char     error[160];
};

/* Rings the program could not create, per role (rundir.h's failure log). */
struct failed_role {
    char     role[128];
    unsigned rings;
    char     reason[320]; /* the first one's */
};

struct rings_priv {
    char     src[4096];
    int      mode;
    char     run_dir[4096];
    pid_t    pid;
    uint64_t begin_ns;     /* latrec's clock when the collector started */
    uint64_t start_ns;     /* the start stamp, 0 when none */
    int      have_start;
    latrec_pidlist tree;   /* attach: the process and its descendants seen */
    latrec_collect_stats moved;
    struct ring_row *rows;
    size_t   n_rows, n_rejected;
    uint64_t first_kept_ns; /* earliest record at or after the start stamp */
    uint64_t first_ns;      /* earliest record of all */
    struct failed_role *failed;
    size_t   n_failed_roles;
    unsigned n_failed;      /* rings the program could not create */
    unsigned n_parts;       /* partial rings (.part) removed at stop */
    uint64_t part_bytes;
};

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void refresh_tree(struct rings_priv *p)
{
    if (latrec_pidlist_add(&p->tree, p->pid) < 0) return;
    latrec_proc_descendants(p->pid, &p->tree);
}

static int rings_start(latrec_collector *c, const latrec_collect_ctx *x, char *err, size_t errlen)
{
    struct rings_priv *p = c->priv;
    snprintf(p->run_dir, sizeof(p->run_dir), "%s", x->run_dir);
    p->pid = x->pid;
    p->begin_ns = mono_ns();
    if (p->mode == LATREC_RINGS_COPY) {
        refresh_tree(p);
        if (!p->src[0]) {
            snprintf(err, errlen, "no ring directory to collect");
            return -1;
        }
    }
    return 0;
}

static void rings_told_start(latrec_collector *c, uint64_t start_ns)
{
    struct rings_priv *p = c->priv;
    p->start_ns = start_ns;
    p->have_start = 1;
}

static void rings_poll(latrec_collector *c)
{
    struct rings_priv *p = c->priv;
    if (p->mode == LATREC_RINGS_COPY) refresh_tree(p);
}

/* Attach mode: take a ring written by the process tree, or one holding
 * records from this run. */
static int attach_filter(void *ctx, const char *path, const char *name)
{
    struct rings_priv *p = ctx;
    (void)name;
    latrec_ring r;
    int take = 0;
    latrec_ring_open(&r, path);
    if (r.status == LATREC_RING_OK) {
        uint64_t bound = p->have_start ? p->start_ns : p->begin_ns;
        take = (r.pid && latrec_pidlist_has(&p->tree, (pid_t)r.pid)) || (r.valid && r.max_t_ns >= bound);
    }
    latrec_ring_close(&r);
    return take;
}

/* src cut to fit dst (len > 0), NUL-terminated. */
static void copy_text(char *dst, size_t len, const char *src)
{
    size_t n = strnlen(src, len - 1);
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* The role of a ring name: a per-thread ring is "<role>.<tid>". */
static void role_of(const char *name, char *role, size_t len)
{
    copy_text(role, len, name);
    char *dot = strrchr(role, '.');
    if (dot && dot[1] && strspn(dot + 1, "0123456789") == strlen(dot + 1)) *dot = '\0';
}

/* Read and remove <run>/rings-failed.log: one line per ring the program's
 * library could not create, "<name>\t<reason>" (src/lib/ring.c). The
 * program can replace the file: only a regular file is read (never a link
 * or a FIFO, which would block or never end), its first FAILURE_LOG_MAX
 * bytes, grouped into at most FAILURE_ROLES_MAX roles (later roles count
 * in the total only). */
#define FAILURE_LOG_MAX   (4u << 20)
#define FAILURE_ROLES_MAX 256u
static void read_failures(struct rings_priv *p)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/%s", p->run_dir, LATREC_RING_FAILURE_LOG);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    struct stat st;
    if (fd < 0 && errno == ENOENT) return;
    FILE *f = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? fdopen(fd, "r") : NULL;
    if (!f) {
        fprintf(stderr,
                "%s: %s: not a regular file (replaced by the program?): ignored, rings that "
                "failed to open are not counted\n",
                latrec_prog, path);
        if (fd >= 0) close(fd);
        unlink(path);
        return;
    }
    char line[1024];
    size_t used = 0;
    while (used < FAILURE_LOG_MAX && fgets(line, sizeof(line), f)) {
        used += strlen(line);
        line[strcspn(line, "\n")] = '\0';
        char *tab = strchr(line, '\t');
        if (!tab) continue;
        *tab = '\0';
        char role[128];
        role_of(line, role, sizeof(role));
        size_t i = 0;
        while (i < p->n_failed_roles && strcmp(p->failed[i].role, role) != 0) i++;
        if (i == p->n_failed_roles && i < FAILURE_ROLES_MAX) {
            struct failed_role *g = realloc(p->failed, (i + 1) * sizeof(*g));
            if (!g) break;
            p->failed = g;
            memset(&g[i], 0, sizeof(g[i]));
            copy_text(g[i].role, sizeof(g[i].role), role);
            copy_text(g[i].reason, sizeof(g[i].reason), tab + 1);
            p->n_failed_roles++;
        }
        if (i < p->n_failed_roles) p->failed[i].rings++;
        p->n_failed++;
    }
    fclose(f);
    unlink(path);
}

/* Partial rings left in the ring directory: the program died while it was
 * creating them (between create and rename, src/lib/ring.c). Removed,
 * counted in run.json and the summary. */
static void remove_parts(struct rings_priv *p, const char *dir)
{
    uint64_t bytes = 0;
    p->n_parts += latrec_rundir_remove_parts(dir, &bytes);
    p->part_bytes += bytes;
}

static int grow_rows(struct rings_priv *p, size_t n)
{
    p->rows = calloc(n ? n : 1, sizeof(*p->rows));
    return p->rows ? 0 : -1;
}

static int rings_stop(latrec_collector *c, uint64_t stop_ns, char *err, size_t errlen)
{
    struct rings_priv *p = c->priv;
    (void)stop_ns;
    if (p->mode == LATREC_RINGS_COPY) refresh_tree(p);
    if (p->mode != LATREC_RINGS_COPY) {
        read_failures(p);
        remove_parts(p, p->mode == LATREC_RINGS_MOVE ? p->src : NULL);
    }
    if (p->mode != LATREC_RINGS_DIRECT &&
        latrec_rundir_collect(p->run_dir, p->src, p->mode == LATREC_RINGS_MOVE,
                              p->mode == LATREC_RINGS_COPY ? attach_filter : NULL, p, &p->moved, err,
                              errlen) < 0)
        return -1;
    char rings[4200], ringerr[512];
    snprintf(rings, sizeof(rings), "%s/rings", p->run_dir);
    if (p->mode == LATREC_RINGS_DIRECT) remove_parts(p, rings);
    latrec_ringset set;
    int rc = latrec_ringset_open_dir(&set, rings, ringerr, sizeof(ringerr));
    memset(&c->counts, 0, sizeof(c->counts));
    if (rc == -ENODATA && !p->moved.failed) return 0; /* an uninstrumented command: no rings */
    if (rc == -ENODATA) {
        snprintf(err, errlen, "the rings could not be brought into %s: %u ring%s left in %s, where %s points (see "
                 "above)", rings, p->moved.failed, p->moved.failed == 1 ? "" : "s", p->src, rings);
        return -1;
    }
    if (rc < 0) {
        snprintf(err, errlen, "%s", ringerr);
        return -1;
    }
    if (grow_rows(p, set.n) < 0) {
        latrec_ringset_close(&set);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < set.n; i++) {
        const latrec_ring *r = &set.rings[i];
        struct ring_row *row = &p->rows[p->n_rows++];
        snprintf(row->name, sizeof(row->name), "%s", r->basename);
        if (r->status != LATREC_RING_OK) {
            snprintf(row->error, sizeof(row->error), "%s", r->error);
            char shown[4 * 4200 + 4]; /* a name the program chose */
            fprintf(stderr, "%s: %s: %s\n", latrec_prog, latrec_text_safe(r->path, shown, sizeof(shown)), r->error);
            p->n_rejected++;
            continue;
        }
        row->ok = 1;
        row->pid = r->pid;
        row->tid = r->tid;
        row->written = r->written;
        row->lost = r->lost;
        row->lower_bound = r->lost_lower_bound;
        row->tsc = r->tsc != NULL;
        row->tsc_pairs = r->tsc ? r->tsc->n : 0;
        latrec_cursor cur;
        latrec_rec rec;
        latrec_ring_cursor_init(&cur);
        while (latrec_ring_next(r, &cur, &rec)) {
            if (!p->first_ns || rec.t_ns < p->first_ns) p->first_ns = rec.t_ns;
            if (p->have_start && rec.t_ns < p->start_ns) {
                row->dropped++;
                continue;
            }
            row->records++;
            if (!p->first_kept_ns || rec.t_ns < p->first_kept_ns) p->first_kept_ns = rec.t_ns;
        }
        c->counts.written += row->written;
        c->counts.records += row->records;
        c->counts.dropped += row->dropped;
        c->counts.lost += row->lost;
        c->counts.lost_lower_bound |= row->lower_bound;
    }
    latrec_ringset_close(&set);
    if (p->moved.failed) {
        snprintf(err, errlen, "the rings could not be brought into %s: %u ring%s left in %s, where %s points (see "
                 "above)", rings, p->moved.failed, p->moved.failed == 1 ? "" : "s", p->src, rings);
        return -1;
    }
    return 0;
}

static json_t *rings_describe(const latrec_collector *c)
{
    const struct rings_priv *p = c->priv;
    static const char *const modes[] = { "moved", "direct", "copied" };
    json_t *o = json_object();
    latrec_manifest_set_bytes(o, "source", p->src);
    json_object_set_new(o, "mode", json_string(modes[p->mode]));
    size_t ok = p->n_rows - p->n_rejected;
    json_object_set_new(o, "rings", json_integer((json_int_t)ok));
    json_object_set_new(o, "rejected", json_integer((json_int_t)p->n_rejected));
    if (p->mode != LATREC_RINGS_DIRECT) {
        json_object_set_new(o, "moved", json_integer(p->moved.moved));
        json_object_set_new(o, "copied", json_integer(p->moved.copied));
        json_object_set_new(o, "not_collected", json_integer(p->moved.skipped));
        json_object_set_new(o, "failed", json_integer(p->moved.failed));
    }
    json_object_set_new(o, "failed_to_open", json_integer(p->n_failed));
    if (p->n_failed_roles) {
        json_t *fr = json_array();
        for (size_t i = 0; i < p->n_failed_roles; i++)
        {
            json_t *g = json_object();
            latrec_manifest_set_bytes(g, "role", p->failed[i].role);
            json_object_set_new(g, "rings", json_integer(p->failed[i].rings));
            latrec_manifest_set_bytes(g, "reason", p->failed[i].reason);
            json_array_append_new(fr, g);
        }
        json_object_set_new(o, "failed_to_open_roles", fr);
    }
    if (p->n_parts) {
        json_object_set_new(o, "partial_removed", json_integer(p->n_parts));
        json_object_set_new(o, "partial_removed_bytes", json_integer((json_int_t)p->part_bytes));
    }
    if (p->first_ns) json_object_set_new(o, "first_record_mono_ns", json_integer((json_int_t)p->first_ns));
    if (p->first_kept_ns)
        json_object_set_new(o, "first_kept_mono_ns", json_integer((json_int_t)p->first_kept_ns));
    json_t *files = json_array();
    for (size_t i = 0; i < p->n_rows; i++) {
        const struct ring_row *r = &p->rows[i];
        json_t *f = json_object();
        latrec_manifest_set_bytes(f, "name", r->name);
        if (!r->ok) {
            latrec_manifest_set_bytes(f, "error", r->error);
        } else {
            json_object_set_new(f, "pid", json_integer(r->pid));
            json_object_set_new(f, "tid", json_integer(r->tid));
            json_object_set_new(f, "written", json_integer((json_int_t)r->written));
            json_object_set_new(f, "records", json_integer((json_int_t)r->records));
            json_object_set_new(f, "dropped_before_start", json_integer((json_int_t)r->dropped));
            json_object_set_new(f, "lost", json_integer((json_int_t)r->lost));
            if (r->lower_bound) json_object_set_new(f, "lost_lower_bound", json_true());
            json_object_set_new(f, "timebase", json_string(r->tsc ? "tsc" : "clock"));
            if (r->tsc) json_object_set_new(f, "tsc_pairs", json_integer(r->tsc_pairs));
        }
        json_array_append_new(files, f);
    }
    json_object_set_new(o, "files", files);
    return o;
}

static void rings_destroy(latrec_collector *c)
{
    struct rings_priv *p = c->priv;
    if (p) {
        latrec_pidlist_free(&p->tree);
        free(p->rows);
        free(p->failed);
        free(p);
    }
    free(c);
}

static const latrec_collector_ops rings_ops = {
    .name = "rings",
    .poll_ms = 1000,
    .start = rings_start,
    .told_start = rings_told_start,
    .poll = rings_poll,
    .stop = rings_stop,
    .describe = rings_describe,
    .destroy = rings_destroy,
};

latrec_collector *latrec_coll_rings_new(const char *src, int mode)
{
    latrec_collector *c = calloc(1, sizeof(*c));
    struct rings_priv *p = calloc(1, sizeof(*p));
    if (!c || !p) {
        free(c);
        free(p);
        return NULL;
    }
    snprintf(p->src, sizeof(p->src), "%s", src ? src : "");
    p->mode = mode;
    c->ops = &rings_ops;
    c->priv = p;
    return c;
}
