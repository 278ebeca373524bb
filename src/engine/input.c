/* Shared input handling for report, hist and convert. */
#include "engine/input.h"

#include "analyze/sched_catalog.h"
#include "read/escape.h"
#include "read/input_file.h"
#include "util/prog.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int latrec_input_add_dir(latrec_input_opts *o, const char *dir)
{
    if (o->n_dirs == (int)(sizeof(o->dirs) / sizeof(o->dirs[0]))) return -1;
    o->dirs[o->n_dirs++] = dir;
    return 0;
}

/* The target's end as run.json's "exit" tells it (latrec-record(1)). */
static void exit_note(latrec_input *in, json_t *ex)
{
    char *b = in->exit_note;
    const size_t len = sizeof(in->exit_note);
    if (!json_is_object(ex)) {
        snprintf(b, len, "%s", in->run_state == LATREC_RUN_RECORDING  ? "not yet: the run is still being recorded"
                               : in->run_state == LATREC_RUN_UNFINISHED ? "not recorded: latrec record never finished "
                                                                          "the run (killed?)"
                                                                        : "not recorded (latrec record did not finish)");
        return;
    }
    json_t *code = json_object_get(ex, "code"), *sig = json_object_get(ex, "signal");
    const char *signame = json_string_value(json_object_get(ex, "signal_name"));
    const char *by = json_string_value(json_object_get(ex, "stopped_by"));
    const char *error = json_string_value(json_object_get(ex, "error"));
    int w;
    if (json_is_true(json_object_get(ex, "exec_failed")))
        w = snprintf(b, len, "could not be executed (errno %lld)",
                     (long long)json_integer_value(json_object_get(ex, "errno")));
    else if (json_is_integer(code))
        w = snprintf(b, len, "exited with status %lld", (long long)json_integer_value(code));
    else if (json_is_integer(sig))
        w = snprintf(b, len, "killed by %s (signal %lld)%s", signame ? signame : "a signal",
                     (long long)json_integer_value(sig),
                     json_is_true(json_object_get(ex, "core_dumped")) ? ", core dumped" : "");
    else
        w = snprintf(b, len, "not known (attached to a running process); latrec's status %lld",
                     (long long)json_integer_value(json_object_get(ex, "status")));
    if (w < 0 || (size_t)w >= len) return;
    if (by && strcmp(by, "exit") == 0) /* an attached process that ended by itself */
        w += snprintf(b + w, len - (size_t)w, "; recorded until it ended");
    else if (by) w += snprintf(b + w, len - (size_t)w, "; stopped by latrec (%s)", by);
    if (error && w >= 0 && (size_t)w < len) snprintf(b + w, len - (size_t)w, "; latrec: %s", error);
}

/* A finished or failed run whose rings are not in DIR/rings (the final move
 * failed, e.g. ENOSPC): DIR/rings still links to the directory run.json
 * names, and the rings are read there - said in one line; so is a link
 * run.json does not name (someone else's). */
static void rings_elsewhere(const latrec_input *in, const char *dir, const json_t *run)
{
    char link[4200], target[4096];
    snprintf(link, sizeof(link), "%s/rings", dir);
    ssize_t n = readlink(link, target, sizeof(target) - 1);
    if (n <= 0 || in->opts.quiet) return;
    target[n] = '\0';
    const char *why = json_string_value(json_object_get(json_object_get(json_object_get(run, "collectors"), "rings"),
                                                        "reason"));
    const char *named = json_string_value(json_object_get(run, "rings_dir"));
    struct stat st;
    if (!named || strcmp(named, target) != 0) /* a link run.json knows nothing of */
        latrec_text_sayf(stderr, latrec_prog, "%s: rings read from %s, where %s links (run.json does not name it)", dir,
                         target, link);
    else if (stat(link, &st) != 0)
        latrec_text_sayf(stderr, latrec_prog, "%s: its rings were left in %s, which is gone (%s)", dir, target,
                         why ? why : "not brought into the run directory");
    else
        latrec_text_sayf(stderr, latrec_prog, "%s: rings read from %s, where run.json says they are (%s)", dir, target,
                         why ? why : "not brought into the run directory");
}

/* A run latrec is still recording (it holds the directory's lock,
 * record/rundir.h), or one it never finished (run.json still says
 * "recording", nobody holds the lock: latrec was killed): one line says
 * so, and where the rings are read from. */
static void run_state(latrec_input *in, const char *dir, int first)
{
    char path[4200], *text, why[4400];
    size_t len;
    snprintf(path, sizeof(path), "%s/run.json", dir);
    if (latrec_input_file_read(path, LATREC_RUN_JSON_MAX, "run manifest", &text, &len, why, sizeof(why)) != 0) return;
    json_t *run = json_loadb(text, len, 0, NULL);
    free(text);
    const char *state = json_string_value(json_object_get(run, "state"));
    if (state && strcmp(state, "recording") != 0 && strcmp(state, "running") != 0) {
        rings_elsewhere(in, dir, run);
        json_decref(run);
        return;
    }
    if (!state) {
        json_decref(run);
        return;
    }
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int live = fd >= 0 && flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    if (fd >= 0) close(fd);
    if (first) in->run_state = live ? LATREC_RUN_RECORDING : LATREC_RUN_UNFINISHED;
    if (in->opts.quiet) {
        json_decref(run);
        return;
    }
    const json_t *pid = json_object_get(run, "latrec_pid");
    char who[64] = "latrec";
    if (json_is_integer(pid)) snprintf(who, sizeof(who), "latrec pid %lld", (long long)json_integer_value(pid));
    char link[4200], target[4096] = "";
    snprintf(link, sizeof(link), "%s/rings", dir);
    ssize_t n = readlink(link, target, sizeof(target) - 1);
    if (n > 0) target[n] = '\0';
    struct stat st;
    const char *where = n <= 0 ? "" : stat(link, &st) == 0 ? " - rings read from " : " - its rings were in ";
    const char *gone = n > 0 && stat(link, &st) != 0 ? ", which is gone" : "";
    if (live)
        latrec_text_sayf(stderr, latrec_prog,
                         "%s: still being recorded (%s): the rings and sched.latrec as they are now; "
                         "the counts come at its end%s%s",
                         dir, who, where, n > 0 ? target : "");
    else
        latrec_text_sayf(stderr, latrec_prog,
                         "%s: its recording never finished (%s ended without finalising run.json: "
                         "killed?)%s%s%s",
                         dir, who, where, n > 0 ? target : "", gone);
    json_decref(run);
}

/* run.json of a directory: command, run times, start stamp. Missing file:
 * 0 with nothing set. Unreadable or malformed: a warning, still 0. */
static void read_run(latrec_input *in, const char *dir, int first, uint64_t *start, int *have_start)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/run.json", dir);
    char *text, why[4400];
    size_t len;
    if (latrec_input_file_read(path, LATREC_RUN_JSON_MAX, "run manifest", &text, &len, why, sizeof(why)) != 0) {
        if (errno != ENOENT)
            latrec_text_sayf(stderr, latrec_prog, "%s (ignored: no command, run times or start stamp from it)", why);
        return;
    }
    json_error_t jerr;
    json_t *run = json_loadb(text, len, 0, &jerr);
    free(text);
    if (!run) {
        latrec_text_sayf(stderr, latrec_prog, "%s:%d: not a run manifest: %s", path, jerr.line, jerr.text);
        return;
    }
    if (!json_is_object(run)) { /* valid JSON, but nothing in it would be read: say so */
        latrec_text_sayf(stderr, latrec_prog,
                         "%s: not a run manifest: not a JSON object (ignored: no command, run times or start "
                         "stamp from it)",
                         path);
        json_decref(run);
        return;
    }
    json_t *stamp = json_object_get(run, "start_stamp");
    json_t *mono = json_object_get(stamp, "mono_ns");
    if (json_is_integer(mono) && json_integer_value(mono) >= 0) {
        *start = (uint64_t)json_integer_value(mono);
        *have_start = 1;
    } else if (stamp) { /* -1 was 2^64 - 1 ns: every record dropped before it */
        latrec_text_sayf(stderr, latrec_prog,
                         "%s: start_stamp without a time (mono_ns, ns of CLOCK_MONOTONIC): "
                         "ignored, every record kept",
                         path);
    }
    if (first) {
        in->have_run = 1;
        json_t *sched = json_object_get(json_object_get(run, "collectors"), "sched");
        const char *why = json_string_value(json_object_get(sched, "reason"));
        if (why) snprintf(in->sched_reason, sizeof(in->sched_reason), "%s", why);
        const char *cmd = json_string_value(json_object_get(run, "command"));
        snprintf(in->command, sizeof(in->command), "%s", cmd ? cmd : "");
        if (cmd && strlen(cmd) >= sizeof(in->command)) /* mark the cut */
            memcpy(in->command + sizeof(in->command) - 4, "...", 4);
        json_t *pid = json_object_get(run, "pid");
        if (json_is_integer(pid) && json_integer_value(pid) > 0 && json_integer_value(pid) <= INT32_MAX)
            in->run_pid = (uint32_t)json_integer_value(pid);
        const char *argv0 = json_string_value(json_array_get(json_object_get(run, "argv"), 0));
        if (argv0) {
            const char *base = strrchr(argv0, '/');
            snprintf(in->run_name, sizeof(in->run_name), "%s", base ? base + 1 : argv0);
        }
        json_t *t = json_object_get(run, "start_real_ns");
        if (json_is_integer(t)) in->run_start_real_ns = (uint64_t)json_integer_value(t);
        t = json_object_get(run, "stop_real_ns");
        if (json_is_integer(t)) in->run_stop_real_ns = (uint64_t)json_integer_value(t);
        exit_note(in, json_object_get(run, "exit"));
        if (json_is_object(json_object_get(run, "exit"))) in->exit_json = json_incref(json_object_get(run, "exit"));
    }
    json_decref(run);
}

/* A directory named twice (or through a link to it) would read its rings
 * twice, every instance's stamps doubled: one line names both. */
static int same_dir_twice(const latrec_input_opts *o, const char *cmd)
{
    for (int a = 0; a < o->n_dirs; a++)
        for (int b = a + 1; b < o->n_dirs; b++) {
            struct stat sa, sb;
            if (stat(o->dirs[a], &sa) == 0 && stat(o->dirs[b], &sb) == 0 && sa.st_dev == sb.st_dev &&
                sa.st_ino == sb.st_ino) {
                char x[4200], y[4200];
                fprintf(stderr, "latrec %s: %s and %s are the same directory: give it once\n", cmd,
                        latrec_text_safe(o->dirs[a], x, sizeof(x)), latrec_text_safe(o->dirs[b], y, sizeof(y)));
                return 1;
            }
        }
    return 0;
}

static int rescan_one(latrec_input *in, latrec_ring *r, int say);

/* A guessed ring's warning (read/ring.h: only a ring of several writers
 * has one) is known once the pass finds the guess wrong and scans it, and
 * said then: after every line the open says. So when the open says a line
 * about a ring, or one after them (several directories), every guessed
 * ring is scanned first, and its warning said in ring order with the
 * others (latrec_input_open). */
static void guessed_said_in_order(latrec_input *in)
{
    const latrec_input_opts *o = &in->opts;
    int lines = o->n_dirs > 1 && !o->wall && !o->quiet;
    for (size_t i = 0; i < in->set.n; i++) {
        const latrec_ring *r = &in->set.rings[i];
        in->guessed += r->derived == LATREC_RING_GUESSED;
        lines |= r->status != LATREC_RING_OK || (r->warning[0] && !o->quiet);
    }
    for (size_t i = 0; i < in->set.n && lines && in->guessed; i++)
        if (in->set.rings[i].derived == LATREC_RING_GUESSED) rescan_one(in, &in->set.rings[i], 0);
}

/* latrec_input_choose_catalogs, what it says held until the guessed rings
 * are scanned (their warnings come first, as the open says them). */
static int choose_catalogs_after_guessed(latrec_input *in)
{
    char *held = NULL;
    size_t len = 0;
    FILE *mem = in->guessed ? open_memstream(&held, &len) : NULL;
    in->msg = mem;
    const int rc = latrec_input_choose_catalogs(in);
    in->msg = NULL;
    if (mem) {
        fclose(mem);
        if (len) {
            (void)latrec_input_settle(in, NULL);
            fputs(held, stderr);
        }
        free(held);
    }
    return rc;
}

/* One line per rejected ring and per ring's warning, in ring order. */
static void say_rings(latrec_input *in)
{
    for (size_t i = 0; i < in->set.n; i++) {
        const latrec_ring *r = &in->set.rings[i];
        if (r->status != LATREC_RING_OK) {
            in->n_rejected++;
            char safe[4200];
            fprintf(stderr, "%s: %s: %s\n", latrec_prog, latrec_text_safe(r->path, safe, sizeof(safe)), r->error);
            /* the scheduler's n/a names the file it has, not a run without one */
            if (strcmp(r->basename, "sched.latrec") == 0)
                snprintf(in->sched_reason, sizeof(in->sched_reason), "sched.latrec: %s", r->error);
        } else if (r->warning[0] && !in->opts.quiet) {
            char safe[4200];
            fprintf(stderr, "%s: %s: %s\n", latrec_prog, latrec_text_safe(r->path, safe, sizeof(safe)), r->warning);
        }
    }
}

int latrec_input_open(latrec_input *in, const latrec_input_opts *opts, const char *cmd)
{
    memset(in, 0, sizeof(*in));
    in->sched_ring = -1;
    in->opts = *opts;
    if (in->opts.n_dirs == 0) latrec_input_add_dir(&in->opts, "latrec.data");
    const latrec_input_opts *o = &in->opts;
    char err[512];
    if (same_dir_twice(o, cmd)) return 1;
    for (int d = 0; d < o->n_dirs; d++) run_state(in, o->dirs[d], d == 0);
    /* --threads (0: 2 when two CPUs are online) scan the rings at open too */
    const int threads = o->threads > 0 ? o->threads : sysconf(_SC_NPROCESSORS_ONLN) >= 2 ? 2 : 1;
    const int guess = o->guess && !o->wall && !o->align && in->run_state != LATREC_RUN_RECORDING;
    if (latrec_ringset_open_guess(&in->set, o->dirs, (size_t)o->n_dirs, threads, guess, err, sizeof(err)) < 0) {
        char prog[64];
        snprintf(prog, sizeof(prog), "latrec %s", cmd);
        latrec_text_say(stderr, prog, err); /* it names a DIR as given */
        return 1;
    }
    in->ring_dir = calloc(in->set.n + 1, sizeof(int));
    in->dropped = calloc(in->set.n + 1, sizeof(uint64_t));
    in->released = calloc(in->set.n + 1, sizeof(*in->released));
    in->truncated = calloc(in->set.n + 1, 1);
    in->fed = calloc(in->set.n + 1, sizeof(uint64_t));
    in->lapped = calloc(in->set.n + 1, sizeof(uint64_t));
    uint64_t *starts = in->dir_start_ns = calloc((size_t)o->n_dirs, sizeof(uint64_t));
    int *have = in->dir_have_start = calloc((size_t)o->n_dirs, sizeof(int));
    if (!in->ring_dir || !in->dropped || !in->released || !in->truncated || !in->fed || !in->lapped || !starts ||
        !have) {
        fprintf(stderr, "latrec %s: out of memory\n", cmd);
        return 1;
    }
    for (int d = 0; d < o->n_dirs; d++) read_run(in, o->dirs[d], d == 0, &starts[d], &have[d]);
    for (size_t i = 0; i < in->set.n; i++) {
        const latrec_ring *r = &in->set.rings[i];
        size_t best = 0;
        for (int d = 0; d < o->n_dirs; d++) {
            /* the reader joins DIR and the name with one '/' ("host1/" gives
             * "host1/x.latrec"): compare without the trailing slashes */
            size_t len = strlen(o->dirs[d]);
            while (len > 0 && o->dirs[d][len - 1] == '/') len--;
            if (strncmp(r->path, o->dirs[d], len) == 0 && r->path[len] == '/' && len >= best) {
                best = len;
                in->ring_dir[i] = d;
            }
        }
        if (r->status == LATREC_RING_OK && strcmp(r->catalog, LATREC_SCHED_CATALOG) == 0) in->sched_ring = (int)i;
    }
    guessed_said_in_order(in);
    say_rings(in);
    /* Each directory's records are filtered by its own start stamp. */
    for (int d = o->n_dirs; d-- > 0;)
        if (have[d]) {
            in->have_start = 1;
            in->start_ns = starts[d];
        }
    if (o->n_dirs > 1 && !o->wall && !o->quiet)
        fprintf(stderr,
                "%s: %d directories merged on the monotonic clock; use --wall for "
                "rings of several hosts\n",
                latrec_prog, o->n_dirs);
    if (in->set.n_ok == 0) {
        char dir[4 * 4096 + 4];
        fprintf(stderr, "latrec %s: no readable rings in %s%s\n", cmd, latrec_text_safe(o->dirs[0], dir, sizeof(dir)),
                o->n_dirs > 1 ? " and the other directories" : "");
        return 1;
    }
    size_t a, b;
    if (!o->wall && latrec_ringset_boots_differ(&in->set, &a, &b)) {
        (void)latrec_input_settle(in, NULL); /* their warnings first, as the open says them */
        char prog[64];
        snprintf(prog, sizeof(prog), "latrec %s", cmd);
        latrec_text_sayf(stderr, prog,
                         "%s and %s come from different boots or hosts: their monotonic stamps cannot be merged; "
                         "use --wall",
                         in->set.rings[a].path, in->set.rings[b].path);
        return 1;
    }
    if (choose_catalogs_after_guessed(in) < 0) return 1;
    latrec_catalog_init(&in->kcat, LATREC_SCHED_CATALOG);
#define KIND_NAME_(name, id) in->kcat.stage_names[id] = strdup(#name);
    LATREC_SCHED_KINDS(KIND_NAME_)
#undef KIND_NAME_
    return 0;
}

latrec_legs *latrec_input_legs_new(const latrec_input *in, latrec_emit_fn emit, void *ctx)
{
    return latrec_legs_new_multi(in->cats, in->n_cats, in->ring_cat, &in->set, in->ring_dir,
                                 in->opts.leg_horizon_ns, 0, emit, ctx);
}

const char *latrec_input_leg_name(const latrec_legs *legs, int leg)
{
    const int c = latrec_legs_leg_catalog_index(legs, leg);
    const latrec_catalog *cat = latrec_legs_catalog(legs, c);
    for (int k = 0; k < cat->n_legs; k++)
        if (latrec_legs_catalog_leg(legs, c, k) == leg) return cat->legs[k].name;
    return latrec_legs_leg(legs, leg)->name;
}

const char *latrec_input_stage_name(const latrec_input *in, uint32_t ring, unsigned stage, char *buf)
{
    if ((int)ring == in->sched_ring) return latrec_catalog_stage_name(&in->kcat, stage, buf);
    return latrec_catalog_stage_name(in->ring_cat ? in->cats[in->ring_cat[ring]] : &in->cat, stage, buf);
}

/* ---- resident memory ---------------------------------------------------------
 *
 * The rings are read through read-only shared mappings, and mapped pages
 * count as the process's resident memory. A pass reads every ring front to
 * back once: each ring's window (read/ring_window.h) gives back the pages
 * behind its read position and keeps faults from mapping far ahead of it.
 * Resident memory then follows the merge front, not the run size.
 */

static int ring_starts(latrec_input *in);

/* The merge of the input's rings (sched.latrec left out with
 * merge_no_sched): 0, or -1 (said). */
static int merge_rings(latrec_input *in, latrec_merge *m)
{
    char err[512];
    const unsigned flags = in->opts.wall ? LATREC_MERGE_WALL : 0;
    latrec_ring *rings = in->set.rings, *copy = NULL;
    if (in->merge_no_sched && in->sched_ring >= 0 && !in->opts.wall) { /* the merge takes what it reads at its start */
        if (!(copy = malloc(in->set.n * sizeof(*copy)))) {
            fprintf(stderr, "%s: out of memory\n", latrec_prog);
            return -1;
        }
        memcpy(copy, rings, in->set.n * sizeof(*copy));
        copy[in->sched_ring].status = LATREC_RING_REJECTED;
        rings = copy;
    }
    const int rc = latrec_merge_init(m, rings, in->set.n, flags, err, sizeof(err));
    free(copy);
    if (rc < 0) fprintf(stderr, "%s: %s\n", latrec_prog, err);
    return rc < 0 ? -1 : 0;
}

int latrec_input_rewind(latrec_input *in, latrec_merge *m)
{
    in->pass++;
    (void)ring_starts(in); /* before parts are filled on threads (latrec_input_fill_part) */
    for (size_t i = 0; i < in->set.n; i++) latrec_ring_window_start(&in->set.rings[i], &in->released[i]);
    return merge_rings(in, m);
}

int latrec_input_say_truncated(latrec_input *in, FILE *out)
{
    int n = 0;
    for (size_t i = 0; i < in->set.n; i++) {
        uint64_t end;
        if (in->truncated[i] || !latrec_ring_truncated(&in->set.rings[i], &end)) continue;
        in->truncated[i] = 1;
        in->n_rejected++; /* not read whole: the exit status says so (3) */
        fprintf(out,
                "%s: %s: truncated while read (now at most %llu bytes): the records past "
                "that were not read\n",
                latrec_prog, in->set.rings[i].path, (unsigned long long)end);
        n++;
    }
    return n;
}

/* The end of a first pass that checked the guessed rings: those the counts
 * show wrong are scanned, and the pass must start over (in->guess_wrong). */
static void check_done(latrec_input *in)
{
    in->checking = 0;
    const latrec_input_counts c = { in->fed, in->dropped, in->lapped, 0, 0 };
    if (!latrec_input_guesses_hold(in, &c, 1)) in->guess_wrong = 1;
}

/* Each ring's lapped count, from its cursor. */
void latrec_input_lapped_get(latrec_input *in, latrec_merge *m)
{
    for (size_t i = 0; i < in->set.n && i < m->n; i++) in->lapped[i] = latrec_merge_cursor(m, i)->lapped;
}

/* The end of a pass (the stream ran dry): the lapped counts, and for a
 * finished input every window back to normal and the truncated rings
 * named. */
static void at_end(latrec_input *in, latrec_merge *m)
{
    if (in->pass == 1) latrec_input_lapped_get(in, m);
    if (in->pass == 1 && in->checking) check_done(in);
    if (in->live) return; /* idle for now: the windows stay where they are */
    for (size_t i = 0; i < in->set.n; i++) latrec_ring_window_end(&in->set.rings[i], &in->released[i]);
    latrec_input_say_truncated(in, stderr);
}

static uint64_t ring_start(const latrec_input *in, uint32_t r)
{
    const int d = in->ring_dir[r];
    return in->dir_have_start[d] ? in->dir_start_ns[d] : 0;
}

/* Each ring's start stamp (its directory's; 0: none), for the rings there
 * are now (live rings join): 0, or -1 when out of memory (then each record
 * looks its directory up). */
static int ring_starts(latrec_input *in)
{
    if (in->n_ring_start == in->set.n) return 0;
    uint64_t *t = realloc(in->ring_start_ns, (in->set.n + 1) * sizeof(*t));
    if (!t) return -1;
    in->ring_start_ns = t;
    in->none_early = 1;
    for (size_t i = 0; i < in->set.n; i++) {
        const latrec_ring *r = &in->set.rings[i];
        t[i] = ring_start(in, (uint32_t)i);
        if (r->status == LATREC_RING_OK && r->valid && r->min_t_ns < t[i]) in->none_early = 0;
    }
    in->n_ring_start = in->set.n;
    return 0;
}

/* keep() on the first pass of a finished input whose rings hold no record
 * before their start stamps (every record a pass visits was seen by the
 * scan at open, none below the ring's smallest stamp): every record is
 * kept. */
static size_t keep_all(latrec_input *in, const latrec_merged *out, size_t n, latrec_input_counts *c)
{
    const int sched = in->sched_ring;
    uint64_t *const fed = c->fed;
    const uint64_t sched_before = sched >= 0 ? fed[sched] : 0;
    for (size_t j = 0; j < n; j++) {
        const uint32_t r = out[j].ring;
        latrec_ring_window_at(&in->set.rings[r], &in->released[r], out[j].pos);
        fed[r]++;
    }
    const uint64_t n_sched = sched >= 0 ? fed[sched] - sched_before : 0;
    c->sched_records += n_sched;
    c->records += n - n_sched;
    return n;
}

/* Keep the records of out[0..n) at or after their directory's start stamp
 * (counting the others in dropped on the first pass), moving the rings'
 * windows along and counting what is kept: how many are kept. */
static size_t keep(latrec_input *in, const uint64_t *start, latrec_merged *out, size_t n, latrec_input_counts *c)
{
    const int first = in->pass == 1, sched = in->sched_ring;
    uint64_t *const fed = c->fed, *const dropped = c->dropped;
    size_t j = 0, k = 0, n_sched = 0;
    if (first && !in->live && start && in->none_early) return keep_all(in, out, n, c);
    if (first && !in->live && start) {
        /* the common case, in a loop of its own: nothing dropped yet */
        for (; j < n; j++) {
            const uint32_t r = out[j].ring;
            latrec_ring_window_at(&in->set.rings[r], &in->released[r], out[j].pos);
            if (__builtin_expect(out[j].rec.t_ns < start[r], 0)) break;
            fed[r]++;
            n_sched += (int)r == sched;
        }
        k = j;
    }
    for (; j < n; j++) {
        const uint32_t r = out[j].ring;
        latrec_ring_window_at(&in->set.rings[r], &in->released[r], out[j].pos); /* again: a no-op */
        const uint64_t from = start ? start[r] : ring_start(in, r);
        if (__builtin_expect(out[j].rec.t_ns < from, 0)) {
            if (first) dropped[r]++;
            continue;
        }
        if (first) {
            fed[r]++;
            n_sched += (int)r == sched;
        }
        if (in->live && (int)r != sched) {
            if (out[j].t_ns < in->last_key) in->late++;
            else in->last_key = out[j].t_ns;
        }
        if (k != j) out[k] = out[j];
        k++;
    }
    if (first) {
        c->sched_records += n_sched;
        c->records += k - n_sched;
    }
    return k;
}

/* The stamps of a pass that checks the guessed rings (in->checking), in
 * merge order: the stream goes down only right after a ring's own stamps
 * went down, at that ring's record (a head that was there when the record
 * before went out was not below it). A guessed ring's is a guess found
 * wrong: that ring is scanned now (the merge reads its own copy of where
 * the ring's records are), and the pass will start over. */
static void check_order(latrec_input *in, const latrec_merged *out, size_t n)
{
    uint64_t last = in->check_last;
    for (size_t j = 0; j < n; j++) {
        if (__builtin_expect(out[j].t_ns < last, 0)) latrec_input_guess_wrong(in, out[j].ring);
        last = out[j].t_ns;
    }
    in->check_last = last;
}

/* Up to max kept records (counted in c), 0 when the merge ran dry; check:
 * the stamps checked in order (check_order). */
static size_t fill_counted(latrec_input *in, latrec_merge *m, latrec_merged *out, size_t max, latrec_input_counts *c,
                           int check)
{
    if (max == 0) return 0;
    const uint64_t limit = in->live ? in->watermark : UINT64_MAX;
    const uint64_t *start = ring_starts(in) == 0 ? in->ring_start_ns : NULL;
    for (;;) {
        const size_t got = latrec_merge_fill(m, out, max, limit);
        if (got == 0) return 0;
        if (__builtin_expect(check, 0)) check_order(in, out, got);
        const size_t k = keep(in, start, out, got, c);
        if (k) return k;
    }
}

size_t latrec_input_fill(latrec_input *in, latrec_merge *m, latrec_merged *out, size_t max)
{
    /* a pass that neither checks the guesses nor settled them: now, before it reads */
    if (__builtin_expect(in->guessed != 0 && !in->checking, 0) && latrec_input_settle(in, m) < 0) return 0;
    latrec_input_counts c = { in->fed, in->dropped, NULL, 0, 0 };
    const size_t k = fill_counted(in, m, out, max, &c, in->checking && in->pass == 1);
    in->records += c.records;
    in->sched_records += c.sched_records;
    if (max && !k) at_end(in, m);
    return k;
}

size_t latrec_input_fill_part(latrec_input *in, latrec_merge *m, latrec_merged *out, size_t max,
                              latrec_input_counts *c)
{
    return fill_counted(in, m, out, max, c, 0);
}

void latrec_input_parts_done(latrec_input *in, const latrec_input_counts *c, int n)
{
    for (int k = 0; k < n; k++) {
        for (size_t i = 0; i < in->set.n; i++) {
            in->fed[i] += c[k].fed[i];
            in->dropped[i] += c[k].dropped[i];
            if (in->pass == 1 && c[k].lapped[i]) in->lapped[i] = c[k].lapped[i];
        }
        in->records += c[k].records;
        in->sched_records += c[k].sched_records;
    }
    for (size_t i = 0; i < in->set.n; i++) latrec_ring_window_end(&in->set.rings[i], &in->released[i]);
    latrec_input_say_truncated(in, stderr);
}

/* Scan guessed ring r (latrec_ring_rescan) and, with say, say its warning
 * as the open does: 1. */
static int rescan_one(latrec_input *in, latrec_ring *r, int say)
{
    latrec_ring_rescan(r);
    in->guessed--;
    in->rescans++;
    in->n_ring_start = 0; /* none_early again, from the stamps the scan found */
    if (say && r->warning[0] && !in->opts.quiet) {
        char safe[4200];
        fprintf(stderr, "%s: %s: %s\n", latrec_prog, latrec_text_safe(r->path, safe, sizeof(safe)), r->warning);
    }
    return 1;
}

void latrec_input_guess_wrong(latrec_input *in, uint32_t ring)
{
    if (ring >= in->set.n || in->set.rings[ring].derived != LATREC_RING_GUESSED) return;
    rescan_one(in, &in->set.rings[ring], 1);
    in->guess_wrong = 1;
}

int latrec_input_guesses_hold(latrec_input *in, const latrec_input_counts *c, int n)
{
    int hold = 1;
    for (size_t i = 0; i < in->set.n && in->guessed; i++) {
        latrec_ring *r = &in->set.rings[i];
        if (r->derived != LATREC_RING_GUESSED) continue;
        uint64_t read = 0, lapped = 0;
        for (int k = 0; k < n; k++) {
            read += c[k].fed[i] + c[k].dropped[i];
            lapped += c[k].lapped[i];
        }
        if (latrec_ring_guess_holds(r, read, lapped)) in->guessed--;
        else hold = !rescan_one(in, r, 1);
    }
    return hold;
}

int latrec_input_settle(latrec_input *in, latrec_merge *m)
{
    int n = 0;
    for (size_t i = 0; i < in->set.n && in->guessed; i++)
        if (in->set.rings[i].derived == LATREC_RING_GUESSED) n += rescan_one(in, &in->set.rings[i], 1);
    if (n == 0 || !m) return n;
    return latrec_input_remerge(in, m) < 0 ? -1 : n;
}

int latrec_input_settle_ring(latrec_input *in, uint32_t ring)
{
    if (ring >= in->set.n || in->set.rings[ring].derived != LATREC_RING_GUESSED) return 0;
    return rescan_one(in, &in->set.rings[ring], 1);
}

int latrec_input_remerge(latrec_input *in, latrec_merge *m)
{
    (void)ring_starts(in);
    latrec_merge_free(m);
    return merge_rings(in, m);
}

void latrec_input_start_over(latrec_input *in)
{
    const size_t n = in->set.n + 1;
    memset(in->fed, 0, n * sizeof(*in->fed));
    memset(in->dropped, 0, n * sizeof(*in->dropped));
    memset(in->lapped, 0, n * sizeof(*in->lapped));
    in->records = in->sched_records = 0;
    in->pass = 0;
    in->guess_wrong = 0;
    in->check_last = 0;
}

void latrec_input_parts_undo(latrec_input *in)
{
    for (size_t i = 0; i < in->set.n; i++) latrec_ring_window_start(&in->set.rings[i], &in->released[i]);
}

int latrec_input_next(latrec_input *in, latrec_merge *m, latrec_merged *out)
{
    return latrec_input_fill(in, m, out, 1) != 0;
}

void latrec_input_close(latrec_input *in)
{
    latrec_ringset_close(&in->set);
    latrec_catalog_free(&in->cat);
    for (int k = 1; k < in->n_cats; k++) latrec_catalog_free(&in->more_cats[k - 1]);
    free(in->ring_cat);
    latrec_path_index_free(in->paths);
    latrec_catalog_free(&in->kcat);
    json_decref(in->exit_json);
    free(in->ring_dir);
    free(in->dropped);
    free(in->released);
    free(in->truncated);
    free(in->fed);
    free(in->lapped);
    free(in->dir_have_start);
    free(in->dir_start_ns);
    free(in->ring_start_ns);
    memset(in, 0, sizeof(*in));
}

void latrec_input_ring_role(const latrec_ring *r, char *buf, size_t len)
{
    const uint32_t tid = latrec_ring_tid(r);
    snprintf(buf, len, "%s", r->name);
    char *dot = strrchr(buf, '.');
    if (dot && tid && dot[1] && strspn(dot + 1, "0123456789") == strlen(dot + 1) && strtoul(dot + 1, NULL, 10) == tid)
        *dot = '\0';
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    uint64_t s;
    return __builtin_add_overflow(a, b, &s) || s > LATREC_COUNT_MAX ? LATREC_COUNT_MAX : s;
}

void latrec_input_totals_get(const latrec_input *in, latrec_input_totals *t)
{
    memset(t, 0, sizeof(*t));
    for (size_t i = 0; i < in->set.n; i++) {
        const latrec_ring *r = &in->set.rings[i];
        if (r->status != LATREC_RING_OK) {
            t->rejected++;
            continue;
        }
        if (r->valid) {
            if (!t->first_t || r->min_t_ns < t->first_t) t->first_t = r->min_t_ns;
            if (r->max_t_ns > t->last_t) t->last_t = r->max_t_ns;
        }
        t->truncated += in->truncated[i] != 0;
        if ((int)i == in->sched_ring) {
            latrec_input_collector *c = &t->sched;
            c->present = 1;
            c->valid = r->valid;
            c->lost = r->lost;
            c->dropped = in->dropped[i];
            c->wrapped = r->wrapped != 0;
            c->lost_lower_bound = r->lost_lower_bound && r->lost;
            continue;
        }
        t->rings++;
        t->wrapped += r->wrapped != 0;
        t->multi_writer += r->multi_writer != 0;
        t->valid = sat_add(t->valid, r->valid);
        t->torn = sat_add(t->torn, r->torn);
        t->lapped = sat_add(t->lapped, in->lapped[i]);
        t->lost = sat_add(t->lost, r->lost);
        t->lost_lower_bound |= (r->lost_lower_bound && r->lost) || t->lost == LATREC_COUNT_MAX;
        t->dropped = sat_add(t->dropped, in->dropped[i]);
        if (r->clock_ns_per_call) {
            if (!t->clock_min || r->clock_ns_per_call < t->clock_min) t->clock_min = r->clock_ns_per_call;
            if (r->clock_ns_per_call > t->clock_max) t->clock_max = r->clock_ns_per_call;
        }
    }
}
