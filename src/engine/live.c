/* Following a run still being recorded: polls, watermark, new rings. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "engine/live.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analyze/sched_catalog.h"
#include "read/escape.h"
#include "read/input_file.h"
#include "util/prog.h"

uint64_t latrec_live_now_key(const latrec_input *in)
{
    struct timespec ts;
    clock_gettime(in->opts.wall ? CLOCK_REALTIME : CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t latrec_live_poll(latrec_input *in, latrec_merge *m, uint64_t now_key)
{
    uint64_t added = 0, low = UINT64_MAX;
    const uint64_t floor = now_key > LATREC_LIVE_LAG_NS ? now_key - LATREC_LIVE_LAG_NS : 0;
    for (size_t i = 0; i < m->n; i++) {
        latrec_ring *r = &in->set.rings[i];
        if (r->status != LATREC_RING_OK) continue;
        int idle = 0;
        if (!latrec_merge_repoll(m, i)) {
            const uint64_t got = latrec_ring_poll(r, latrec_merge_cursor(m, i));
            if (got && latrec_merge_repoll(m, i)) added += got;
            idle = !got;
        }
        /* A ring still written gives nothing older than its newest stamp
         * from now on (its writer's stamps rise); a closed one nothing. Its
         * newest stamp holds the others back, unless the ring was just
         * polled and had nothing new (idle): then only down to the lag,
         * which a record still unread when the ring ran dry during the last
         * step (its writer busy, not idle) must not get: it would be
         * overtaken. The scheduler's ring is left out: it is published
         * behind the clock on purpose (record/sched_live.h), the pass
         * feeds none of it, and its own reader has its mark (sched_view.h). */
        if (!r->live_closed && (int)i != in->sched_ring) {
            uint64_t k = r->max_t_ns ? latrec_merge_key(m, i, r->max_t_ns) : 0;
            if (idle && k < floor) k = floor;
            if (k < low) low = k;
        }
    }
    latrec_input_lapped_get(in, m);
    in->watermark = low;
    return added;
}

int latrec_live_recording(const latrec_input *in)
{
    char path[4200], *text, why[4400];
    size_t len;
    snprintf(path, sizeof(path), "%s/run.json", in->opts.dirs[0]);
    if (latrec_input_file_read(path, LATREC_RUN_JSON_MAX, "run manifest", &text, &len, why, sizeof(why)) != 0)
        return errno == ENOENT;
    json_t *run = json_loadb(text, len, 0, NULL);
    free(text);
    const char *state = json_string_value(json_object_get(run, "state"));
    int recording = !state || strcmp(state, "recording") == 0 || strcmp(state, "running") == 0;
    json_decref(run);
    return recording;
}

/* ---- new rings ------------------------------------------------------------ */

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

/* "dir/name" as the ring set spells it (no doubled slash). */
static void join(char *buf, size_t len, const char *dir, const char *name)
{
    size_t n = strlen(dir);
    snprintf(buf, len, "%s%s%s", dir, n > 0 && dir[n - 1] == '/' ? "" : "/", name);
}

static int known(const latrec_input *in, const char *path)
{
    for (size_t i = 0; i < in->set.n; i++)
        if (strcmp(in->set.rings[i].path, path) == 0) return 1;
    return 0;
}

/* Grow the per-ring arrays of `in` to n + 1 entries, the new ones zero. */
static int grow(void *p, size_t old, size_t n, size_t sz)
{
    void *q = realloc(*(void **)p, (n + 1) * sz);
    if (!q) return -1;
    memset((char *)q + (old + 1) * sz, 0, (n - old) * sz);
    *(void **)p = q;
    return 0;
}

static int grow_input(latrec_input *in, size_t old, size_t n)
{
    return grow(&in->ring_dir, old, n, sizeof(int)) < 0 || grow(&in->ring_cat, old, n, sizeof(int)) < 0 ||
                   grow(&in->dropped, old, n, sizeof(uint64_t)) < 0 ||
                   grow(&in->released, old, n, sizeof(*in->released)) < 0 || grow(&in->truncated, old, n, 1) < 0 ||
                   grow(&in->fed, old, n, sizeof(uint64_t)) < 0 || grow(&in->lapped, old, n, sizeof(uint64_t)) < 0
               ? -1
               : 0;
}

/* The catalog slot a new ring reads under: the loaded catalog it names
 * (--catalog/--stages: the given one when none does), else -1. */
static int catalog_of(const latrec_input *in, const latrec_ring *r)
{
    const char *want = r->version >= 3 && r->catalog[0] ? r->catalog : "e3";
    for (int k = 0; k < in->n_cats; k++)
        if (strcmp(in->cats[k]->name, want) == 0) return k;
    return in->opts.catalog_path || in->opts.stages_header ? 0 : -1;
}

/* Why a new ring cannot join the others, or NULL. */
static const char *left_out(latrec_input *in, size_t i)
{
    const latrec_ring *r = &in->set.rings[i];
    if (strcmp(r->catalog, LATREC_SCHED_CATALOG) == 0) {
        if (in->sched_ring < 0) in->sched_ring = (int)i;
        return NULL;
    }
    if ((in->ring_cat[i] = catalog_of(in, r)) < 0)
        return "names a catalog not loaded when the run was opened: not analysed";
    for (size_t j = 0; j < i && !in->opts.wall; j++)
        if (in->set.rings[j].status == LATREC_RING_OK && latrec_ring_boot_differs(&in->set.rings[j], r))
            return "comes from another boot than the other rings: not merged (use --wall)";
    return NULL;
}

/* Open dir/name as ring n of the set (room made by the caller). */
static void open_new(latrec_input *in, int dirfd, const char *dir, const char *name, int d)
{
    char path[4200], safe[4200];
    join(path, sizeof(path), dir, name);
    const size_t i = in->set.n++;
    latrec_ring *r = &in->set.rings[i];
    in->ring_dir[i] = d;
    if (latrec_ring_openat(r, dirfd, name, path) != 0) {
        in->n_rejected++;
        fprintf(stderr, "%s: %s: %s\n", latrec_prog, latrec_text_safe(r->path, safe, sizeof(safe)), r->error);
        return;
    }
    const char *why = left_out(in, i);
    if (why) {
        fprintf(stderr, "%s: %s: %s\n", latrec_prog, latrec_text_safe(r->path, safe, sizeof(safe)), why);
        latrec_ring_close(r);
        r->path = strdup(path);
        r->basename = r->path ? strrchr(r->path, '/') + 1 : "";
        r->status = LATREC_RING_REJECTED;
        snprintf(r->error, sizeof(r->error), "%s", why);
        in->n_rejected++;
        return;
    }
    in->set.n_ok++;
}

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The new "*.latrec" of one directory, in name order, joined to the set. */
static int scan_dir(latrec_input *in, int dirfd, const char *dir, int d, const char *only)
{
    char *names[256];
    size_t n = 0;
    char path[4200];
    if (only) {
        struct stat st;
        join(path, sizeof(path), dir, only);
        if (fstatat(dirfd, only, &st, AT_SYMLINK_NOFOLLOW) == 0 && !known(in, path)) names[n++] = strdup(only);
    } else {
        int fd = dup(dirfd);
        DIR *dp = fd >= 0 ? fdopendir(fd) : NULL;
        if (!dp) {
            if (fd >= 0) close(fd);
            return 0;
        }
        struct dirent *de;
        while ((de = readdir(dp)) && n < sizeof(names) / sizeof(names[0])) { /* more: the next rescan */
            if (!ends_with(de->d_name, ".latrec")) continue;
            join(path, sizeof(path), dir, de->d_name);
            if (!known(in, path)) names[n++] = strdup(de->d_name);
        }
        closedir(dp);
    }
    int rc = 0;
    for (size_t k = 0; k < n; k++) rc |= !names[k];
    if (rc == 0 && n) {
        latrec_ring *rings = realloc(in->set.rings, (in->set.n + n) * sizeof(*rings));
        if (!rings || grow_input(in, in->set.n, in->set.n + n) < 0) rc = 1;
        if (rings) in->set.rings = rings;
    }
    if (n > 1) qsort(names, n, sizeof(*names), cmp_names);
    for (size_t k = 0; k < n; k++) {
        if (rc == 0) open_new(in, dirfd, dir, names[k], d);
        free(names[k]);
    }
    return rc ? -1 : (int)n;
}

/* One directory argument as the ring set reads it: DIR/rings and
 * DIR/sched.latrec of a run directory, else DIR itself. */
static int scan_arg(latrec_input *in, int d)
{
    const char *dir = in->opts.dirs[d];
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) return 0; /* gone for now: the rings already open stay */
    struct stat st;
    int n = 0;
    if (fstatat(dfd, "rings", &st, 0) == 0 && S_ISDIR(st.st_mode)) {
        char rdir[4200];
        join(rdir, sizeof(rdir), dir, "rings");
        int rfd = openat(dfd, "rings", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (rfd >= 0) {
            n = scan_dir(in, rfd, rdir, d, NULL);
            close(rfd);
        }
        int s = n < 0 ? 0 : scan_dir(in, dfd, dir, d, "sched.latrec");
        n = n < 0 || s < 0 ? -1 : n + s;
    } else {
        n = scan_dir(in, dfd, dir, d, NULL);
    }
    close(dfd);
    return n;
}

int latrec_live_rescan(latrec_input *in, latrec_merge *m, latrec_legs *legs)
{
    const size_t before = in->set.n;
    int rc = 0;
    for (int d = 0; d < in->opts.n_dirs && rc >= 0; d++)
        if (scan_arg(in, d) < 0) rc = -1;
    /* the merge follows the ring array even when it only moved */
    char err[512];
    if (latrec_merge_add_rings(m, in->set.rings, in->set.n, err, sizeof(err)) < 0) {
        if (strcmp(err, "out of memory") == 0) rc = -1;
        else fprintf(stderr, "%s: %s\n", latrec_prog, err);
    }
    if (rc == 0 && legs && latrec_legs_add_rings(legs, &in->set, in->ring_cat, in->ring_dir) < 0) rc = -1;
    if (rc < 0) {
        fprintf(stderr, "%s: out of memory\n", latrec_prog);
        return -1;
    }
    return (int)(in->set.n - before);
}
