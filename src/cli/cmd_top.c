/* latrec top: the figures of a run while it is recorded, every interval. */
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/top_launch.h"
#include "cli/top_model.h"
#include "cli/top_print.h"
#include "cli/top_screen.h"
#include "engine/engine.h"
#include "read/input_file.h"
#include "record/record.h"

enum { FORMAT_TEXT, FORMAT_JSON };

static const latrec_choice top_formats[] = {
    { "text", FORMAT_TEXT, "tables, redrawn in place on a terminal, else one block per interval" },
    { "json", FORMAT_JSON, "one JSON object per interval on one line (JSON Lines)" },
    { NULL, 0, NULL },
};

enum {
    OPT_INTERVAL = 0x900,
    OPT_PATH,
    OPT_GRACE,
    OPT_LIB,
    OPT_ENTRIES,
    OPT_ROLE_ENTRIES,
    OPT_RINGS_DIR,
    OPT_TRACE_BUFFER,
    OPT_NO_SCHED,
    OPT_REQUIRE_SCHED,
    OPT_SCHED_BUFFER,
    OPT_STOP_ABOVE,
    OPT_ON_THRESHOLD
};

#define MAX_RECORD_ARGS 256

struct top_opts {
    latrec_input_opts input;
    latrec_select_opts sel;
    latrec_output_opts out;
    uint64_t interval_ns, duration_ns;
    const char *output;         /* -o DIR: the run directory of a launched command */
    char **cmd;                 /* after "--": launch it under latrec record */
    char *rec[MAX_RECORD_ARGS]; /* options handed to latrec record */
    int n_rec;
};

/* clang-format off */
static const struct argp_option top_options[] = {
    { "interval", OPT_INTERVAL, "DURATION", 0, "Print a block every DURATION (with its unit; default 1s)", 0 },
    { "duration", 'd', "TIME", 0, "Stop after TIME (a bare number is seconds; or 500ms, 2m); a launched "
                                  "command is stopped as record's -d stops it", 0 },
    { "path", OPT_PATH, "NAME", 0, "Only the path NAME of any catalog of the run (e.g. e3/loop; pipe:request when "
                                   "two catalogs define request), no leg rows", 0 },
    { 0, 0, 0, 0, "Launching (latrec top [OPTION...] -- COMMAND [ARGS...]), as latrec record:", 4 },
    { "output", 'o', "DIR", 0, "Run directory of the command (default latrec.data; an existing one is kept "
                               "as DIR.old)", 4 },
    { "force", 'f', 0, 0, "As record's -f: replace DIR when DIR.old exists too", 4 },
    { "grace", OPT_GRACE, "TIME", 0, "As record's --grace", 4 },
    { "cpus", 'c', "LIST", 0, "As record's -c: run the command on these cpus", 4 },
    { "priority", 'P', "o:NICE|r:PRIO|f:PRIO|d:RUNTIME:PERIOD", 0, "As record's -P", 4 },
    { "lib", OPT_LIB, "DIR", 0, "As record's --lib", 4 },
    { "entries-log2", OPT_ENTRIES, "N", 0, "As record's --entries-log2", 4 },
    { "role-entries", OPT_ROLE_ENTRIES, "ROLE=N", 0, "As record's --role-entries; repeatable", 4 },
    { "rings-dir", OPT_RINGS_DIR, "DIR", 0, "As record's --rings-dir", 4 },
    { "trace", 't', 0, 0, "As record's -t", 4 },
    { "event", 'e', "SYSTEM:EVENT", 0, "As record's -e; repeatable", 4 },
    { "trace-buffer-size", OPT_TRACE_BUFFER, "KB", 0, "As record's --trace-buffer-size", 4 },
    { "no-sched", OPT_NO_SCHED, 0, 0, "As record's --no-sched", 4 },
    { "require-sched", OPT_REQUIRE_SCHED, 0, 0, "As record's --require-sched", 4 },
    { "sched-buffer", OPT_SCHED_BUFFER, "SIZE", 0, "As record's --sched-buffer", 4 },
    { "stop-above", OPT_STOP_ABOVE, "SPEC", 0, "As record's --stop-above: stop the run at the first instance "
                                               "over a limit, e.g. 'libe3/outbound:total>500us' (exit 193)", 4 },
    { "on-threshold", OPT_ON_THRESHOLD, "CMD", 0, "As record's --on-threshold: run CMD once when that limit "
                                                  "was crossed", 4 },
    { 0 }
};
/* clang-format on */

/* The options handed to record as they were given: its own parser judges
 * them (a bad value fails the run with record's status, 125); a name
 * (`names` says of what) is checked here, so that an empty one is a usage
 * error of top's, as record's own. */
static const struct {
    int key;
    const char *name;
    const char *names;
} record_names[] = {
    { 'f', "--force", NULL },
    { OPT_GRACE, "--grace", NULL },
    { 'c', "--cpus", NULL },
    { 'P', "--priority", NULL },
    { OPT_LIB, "--lib", "directory" },
    { OPT_ENTRIES, "--entries-log2", NULL },
    { OPT_ROLE_ENTRIES, "--role-entries", NULL },
    { OPT_RINGS_DIR, "--rings-dir", "directory" },
    { 't', "--trace", NULL },
    { 'e', "--event", NULL },
    { OPT_TRACE_BUFFER, "--trace-buffer-size", NULL },
    { OPT_NO_SCHED, "--no-sched", NULL },
    { OPT_REQUIRE_SCHED, "--require-sched", NULL },
    { OPT_SCHED_BUFFER, "--sched-buffer", NULL },
    { OPT_STOP_ABOVE, "--stop-above", NULL },
    { OPT_ON_THRESHOLD, "--on-threshold", NULL },
};

static const latrec_duration_opt duration_opt = { "-d", "s", 1, 8784 * 3600000000000ull };

static void rec_push(struct argp_state *state, struct top_opts *o, const char *a)
{
    if (o->n_rec == MAX_RECORD_ARGS - 1) argp_error(state, "too many options for latrec record");
    o->rec[o->n_rec++] = (char *)a;
}

static error_t parse_top(int key, char *arg, struct argp_state *state)
{
    struct top_opts *o = state->input;
    for (size_t i = 0; i < sizeof(record_names) / sizeof(record_names[0]); i++)
        if (record_names[i].key == key) {
            if (record_names[i].names) latrec_arg_name(state, record_names[i].name, record_names[i].names, arg);
            rec_push(state, o, record_names[i].name);
            if (arg) rec_push(state, o, arg);
            return 0;
        }
    switch (key) {
    case ARGP_KEY_INIT:
        latrec_analysis_inputs(state, &o->input, &o->sel, &o->out);
        break;
    case OPT_INTERVAL: o->interval_ns = latrec_arg_duration(state, &latrec_opt_interval, arg); break;
    case 'd': o->duration_ns = latrec_arg_duration(state, &duration_opt, arg); break;
    case OPT_PATH: o->sel.pass.path = arg; break;
    case 'o': o->output = latrec_arg_out_dir(state, "-o", arg); break;
    case ARGP_KEY_ARG: latrec_arg_dir(state, &o->input, arg); break;
    case ARGP_KEY_END:
        if (o->cmd && o->input.n_dirs) argp_error(state, "a DIR to watch or a command to launch (after --), not both");
        if (!o->cmd && (o->output || o->n_rec))
            argp_error(state, "-o and record's options launch a command: latrec top [OPTION...] -- COMMAND");
        if (o->cmd && o->input.n_dirs == 0) latrec_input_add_dir(&o->input, o->output ? o->output : "latrec.data");
        break;
    default: return ARGP_ERR_UNKNOWN;
    }
    return 0;
}

/* ---- the source: a launched record, a run being recorded, a directory ------- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* 1 while latrec record holds DIR's lock (record/rundir.h). */
static int run_recording(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return 0;
    int live = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    close(fd);
    return live;
}

/* run.json's latrec_pid, 0 when there is none (a FIFO or a device there is
 * refused, never waited on: read/input_file.h). */
static long run_pid(const char *dir)
{
    char path[4200], *text;
    size_t len;
    snprintf(path, sizeof(path), "%s/run.json", dir);
    if (latrec_input_file_read(path, LATREC_RUN_JSON_MAX, "run manifest", &text, &len, NULL, 0) != 0) return 0;
    json_t *run = json_loadb(text, len, 0, NULL); /* NULL while record rewrites it: not yet */
    free(text);
    const json_t *pid = json_object_get(run, "latrec_pid");
    long v = json_is_integer(pid) ? (long)json_integer_value(pid) : 0;
    json_decref(run);
    return v;
}

/* Some ring file is there to read: DIR/rings/ *.latrec, or DIR/ *.latrec. */
static int has_rings(const char *dir)
{
    char sub[4200];
    snprintf(sub, sizeof(sub), "%s/rings", dir);
    DIR *d = opendir(sub);
    if (!d) d = opendir(dir);
    if (!d) return 0;
    int found = 0;
    for (struct dirent *de; !found && (de = readdir(d));) {
        size_t n = strlen(de->d_name);
        found = n > 7 && strcmp(de->d_name + n - 7, ".latrec") == 0 && strcmp(de->d_name, "sched.latrec") != 0;
    }
    closedir(d);
    return found;
}

struct top_run {
    struct top_opts *o;
    const char *dir; /* the directory watched */
    int launch;      /* a command launched under latrec record */
    int recording;   /* watched: record holds the directory */
    int live;        /* the source may still grow */
    latrec_top_child child;
    int sfd; /* the stop signals (latrec_stop_signals_block) */
    sigset_t old_mask;
    latrec_top_screen *screen;
    int only_final; /* -q: the final block only */
    int quit;       /* q, ^C or a stop signal */
    int out_err;    /* standard output failed (EPIPE: the reader went away) */
    double t0, last_tick;
    uint64_t last_records, blocks;
    latrec_engine *e;
    latrec_top model;
    latrec_sched_view sv; /* have_sv: a run read once (top_model.h) */
    int have_sv;
    /* the final block recomputed (recompute()): the pass over the finished
     * input, its scheduler view, and the live model it replaced */
    latrec_engine *full_e;
    latrec_sched_view full_sv;
    int have_full_sv, recomputed;
    latrec_top live_model;
    /* notes said while watching (a ring truncated while read): on stderr,
     * or kept under the block while the screen is up, then on stderr */
    char *notes;
    size_t notes_len;
    FILE *notes_f;
};

/* Rings that shrank under the reader since the last look, in report's words. */
static void check_truncated(struct top_run *r)
{
    latrec_input *in = latrec_engine_input(r->e);
    if (!r->screen) {
        latrec_input_say_truncated(in, stderr);
        return;
    }
    if (!r->notes_f && !(r->notes_f = open_memstream(&r->notes, &r->notes_len))) return;
    latrec_input_say_truncated(in, r->notes_f);
    fflush(r->notes_f);
}

/* The notes kept while the screen was up, on stderr once it is gone. */
static void flush_notes(struct top_run *r)
{
    if (!r->notes_f) return;
    fclose(r->notes_f);
    r->notes_f = NULL;
    if (r->notes_len) fputs(r->notes, stderr);
    free(r->notes);
    r->notes = NULL;
    r->notes_len = 0;
}

/* Ask a launched record to stop (as ^C does), once per request. */
static void stop_child(struct top_run *r, int sig)
{
    if (r->launch && !r->child.done) kill(r->child.pid, sig);
}

/* Wait up to ms for a key or a signal, and act on them. A signal from the
 * terminal (^C) reached a launched record too, in top's process group;
 * one sent to top alone is passed on. */
static void events(struct top_run *r, int ms)
{
    struct pollfd pf[2] = { { r->sfd, POLLIN, 0 }, { r->screen ? 0 : -1, POLLIN, 0 } };
    if (ms > 0) poll(pf, 2, ms);
    struct signalfd_siginfo si;
    while (read(r->sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
        if (si.ssi_signo == SIGCHLD) continue;
        r->quit = 1;
        if (si.ssi_code != SI_KERNEL) stop_child(r, (int)si.ssi_signo);
    }
    if (r->screen && latrec_top_screen_keys(r->screen)) {
        r->quit = 1;
        stop_child(r, SIGINT);
    }
    if (r->launch) latrec_top_child_reap(&r->child);
}

/* The source is over: the launched record ended, or the watched run's
 * recording did. A plain directory of rings goes on until q or -d. */
static int source_over(struct top_run *r)
{
    if (r->launch) return r->child.done;
    return r->recording && !run_recording(r->dir);
}

/* Standard output failed: nothing more is printed, and a launched record
 * is stopped as q stops it (top must not leave it running behind). */
static void output_failed(struct top_run *r)
{
    if (!r->out_err) r->out_err = errno ? errno : EIO;
    r->quit = 1;
    stop_child(r, SIGINT);
}

static void show(struct top_run *r, const latrec_top_tick *k)
{
    if (r->out_err) return;
    errno = 0;
    if (r->o->out.format == FORMAT_JSON) {
        latrec_top_print_json(stdout, &r->model, k);
        if (fflush(stdout) != 0 || ferror(stdout)) output_failed(r);
        return;
    }
    if (r->screen) {
        char *text = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&text, &len);
        if (!m) return;
        latrec_top_print_text(m, &r->model, k);
        if (r->notes_len) fputs(r->notes, m);
        fputs(r->launch ? "q: stop the command (as ^C)\n" : "q: quit\n", m);
        fclose(m);
        latrec_top_screen_draw(r->screen, text);
        free(text);
        return;
    }
    if (k->n && !r->only_final) fputc('\n', stdout);
    latrec_top_print_text(stdout, &r->model, k);
    if (fflush(stdout) != 0 || ferror(stdout)) output_failed(r);
}

/* The run's beginning for the since-start rates: the pass's; when the
 * rings held no record yet at the open (a launched command), the pass has
 * none: the start stamp, else the first record. */
static uint64_t run_begin(const struct top_run *r, const latrec_engine_snap *s)
{
    const latrec_input *in = latrec_engine_input(r->e);
    if (s->begin_ns) return s->begin_ns;
    if (in->have_start && !in->opts.wall) return in->start_ns;
    return s->totals.first_t;
}

/* Live: what the scheduler collector published since, and the instances
 * waiting for it split (top_model.h). */
static void sched_follow(struct top_run *r)
{
    if (!r->have_sv || !r->sv.live) return;
    latrec_top_sched_flush(&r->model, latrec_sched_view_follow(&r->sv, latrec_engine_input(r->e)));
}

/* One block: the last interval and since the start; then a new interval. */
static void emit(struct top_run *r, int final)
{
    check_truncated(r);
    sched_follow(r);
    latrec_engine_snap s;
    latrec_engine_snapshot(r->e, &s);
    double now = now_s();
    const uint64_t begin = run_begin(r, &s);
    double span = s.last_t_ns > begin ? (double)(s.last_t_ns - begin) / 1e9 : 0;
    latrec_top_tick k = { r->blocks,
                          now - r->t0,
                          now - r->last_tick,
                          r->live ? now - r->last_tick : span,
                          span,
                          s.records - r->last_records,
                          r->live ? "recording" : "ended",
                          final,
                          final && r->recomputed,
                          &s,
                          &r->o->out.units };
    if (final) {
        latrec_top_screen_close(r->screen);
        r->screen = NULL;
        flush_notes(r);
    }
    if (final || !r->only_final) show(r, &k);
    r->blocks++;
    r->last_tick = now;
    r->last_records = s.records;
    latrec_top_next_interval(&r->model);
}

/* Step the engine, a block every interval, until the stream ends (the
 * recording did, and everything it wrote is read: 1), or q, ^C or -d while
 * watching (0); -1 out of memory. A launched record asked to stop goes on
 * being read until it has finished the run. */
static int follow(struct top_run *r)
{
    const double interval = (double)r->o->interval_ns / 1e9;
    double next = r->t0 + interval, checked = 0, followed = 0;
    int over = 0;
    for (;;) {
        int st = latrec_engine_step(r->e, 1u << 16);
        if (st == LATREC_ENGINE_ERROR) return -1;
        if (st == LATREC_ENGINE_END) return 1;
        /* a record that died without finishing run.json: what is there */
        if (st == LATREC_ENGINE_IDLE && over) return 1;
        double now = now_s();
        int ms = st == LATREC_ENGINE_IDLE ? (int)((next - now) * 1000) + 1 : 0;
        events(r, ms < 0 ? 0 : ms > 50 ? 50 : ms);
        if (r->quit && !r->launch) return 0;
        now = now_s();
        if (now - followed >= 0.05) { /* as often as the collector publishes */
            followed = now;
            sched_follow(r);
        }
        if (!over && now - checked >= 0.1) {
            checked = now;
            over = source_over(r);
        }
        if (r->o->duration_ns && !r->launch && now - r->t0 >= (double)r->o->duration_ns / 1e9) return 0;
        if (now >= next) {
            if (!r->only_final) emit(r, 0); /* -q: no block before the final one */
            next += interval; /* with -q too: an idle step then waits, never spins */
            if (next <= now) next = now + interval;
        }
    }
}

/* Before the first ring: a launched record has made its directory (its
 * run.json names it) and the command opened a ring; a watched run being
 * recorded has a ring. 0, or -1 when the source ended first. */
static int wait_rings(struct top_run *r)
{
    int said = 0;
    for (;;) {
        if (r->launch ? run_pid(r->dir) == (long)r->child.pid && has_rings(r->dir) : has_rings(r->dir)) return 0;
        if (r->quit || source_over(r)) return -1;
        if (!said && r->screen) latrec_top_screen_draw(r->screen, "latrec top: waiting for the first ring...\n");
        said = 1;
        events(r, 100);
    }
}

/* Open the engine and start the pass over the rows' sinks. 0, or an exit
 * status. */
static int start(struct top_run *r)
{
    struct top_opts *o = r->o;
    /* A finished run shown by its final block only: the rings closed
     * cleanly are opened by the guess, which the pass checks and starts
     * over for when wrong (top_model.h); a block shown while reading would
     * show the figures of a pass that may start over. */
    latrec_input_opts io = o->input;
    io.guess = !r->live && r->only_final;
    if (!(r->e = latrec_engine_open(&io, "top", r->live ? LATREC_ENGINE_LIVE : 0))) return LATREC_EXIT_ERROR;
    latrec_input *in = latrec_engine_input(r->e);
    if (latrec_select_resolve(&o->sel, in, "top") < 0) return LATREC_EXIT_ERROR;
    if (o->sel.pass.path && latrec_path_check_name(in, o->sel.pass.path, "top") < 0) return LATREC_EXIT_ERROR;
    latrec_top_init(&r->model, in, &o->sel.pass);
    /* A run read once has its scheduler data already: its split, as
     * report's (read along with the pass). A run being recorded has it as
     * record publishes it. */
    if ((r->live ? latrec_sched_view_open_live(&r->sv, in) : latrec_sched_view_open_pass(&r->sv, in)) < 0)
        return LATREC_EXIT_ERROR;
    r->have_sv = 1;
    r->model.sv = &r->sv;
    latrec_pass_sinks sinks = latrec_top_sinks(&r->model);
    return latrec_engine_start(r->e, &o->sel.pass, &sinks) == 0 ? 0 : LATREC_EXIT_ERROR;
}

/* The live stream fed records late for its watermark, or lost some under
 * the reader (lapped): the live model's since-start figures are not what
 * the finished input holds. They come from one pass over it, as top
 * shows a finished run (and report counts); the last interval stays the
 * live one (latrec_top_take_last). Not while the run goes on (stopped by
 * q or -d): the pass would count a run still growing. 0, or -1. */
static int recompute(struct top_run *r, int ended)
{
    latrec_engine_snap s;
    latrec_engine_snapshot(r->e, &s);
    if (!r->live || r->model.oom || (!s.late && !s.totals.lapped)) return 0;
    if (!ended && (r->launch || r->recording)) return 0;
    latrec_input_opts io = r->o->input;
    io.quiet = 1; /* the live open said its notes */
    io.guess = 1; /* one pass to its end, started over when a guess was wrong */
    if (!(r->full_e = latrec_engine_open(&io, "top", 0))) return -1;
    latrec_input *in = latrec_engine_input(r->full_e);
    latrec_top full;
    latrec_top_init(&full, in, &r->o->sel.pass);
    if (latrec_sched_view_open_pass(&r->full_sv, in) < 0) {
        latrec_top_free(&full);
        return -1;
    }
    r->have_full_sv = 1;
    full.sv = &r->full_sv;
    latrec_pass_sinks sinks = latrec_top_sinks(&full);
    if (latrec_engine_start(r->full_e, &r->o->sel.pass, &sinks) < 0 || latrec_engine_run(r->full_e) < 0 ||
        latrec_sched_view_end_pass(&r->full_sv) < 0) {
        latrec_top_release_tables(latrec_engine_pass(r->full_e));
        latrec_top_free(&full);
        return -1;
    }
    latrec_top_take_last(&full, &r->model);
    r->live_model = r->model; /* freed at the end (top_end) */
    r->model = full;
    r->recomputed = 1;
    return 0;
}

/* Every ring read is closed by its writer (a directory of rings without
 * run.json whose writers are gone): nothing more will come, so the input
 * is finished, whether or not top was stopped first. */
static int input_closed(struct top_run *r)
{
    const latrec_input *in = latrec_engine_input(r->e);
    size_t n = 0;
    for (size_t i = 0; i < in->set.n; i++) {
        const latrec_ring *g = &in->set.rings[i];
        if (g->status != LATREC_RING_OK) continue;
        if (!g->live_closed) return 0;
        n++;
    }
    return n > 0;
}

/* The whole watch: wait, start, follow, finish, the final block. */
static int watch(struct top_run *r)
{
    if ((r->launch || r->recording) && wait_rings(r) < 0) {
        latrec_top_screen_close(r->screen);
        r->screen = NULL;
        if (!r->launch || latrec_top_child_exit(&r->child) == 0)
            fprintf(stderr, "latrec top: %s: no ring to read: %s\n", r->dir,
                    r->quit ? "stopped before the first one" : "the run ended without one");
        return LATREC_EXIT_ERROR;
    }
    int rc = start(r);
    if (rc) return rc;
    r->t0 = r->last_tick = now_s();
    /* The stream ended: finish ends the instances still open, as report
     * does (those complete and waiting in grace for late extras are
     * counted). Stopped (q, ^C, -d) with every ring closed: the input is
     * finished too, read to its end and finished the same way. Stopped
     * while the run goes on: they stay unfinished, uncounted (finishing
     * would read on for as long as the writers write). */
    int ended = follow(r);
    if (ended == 0 && !r->recording && input_closed(r)) ended = 1;
    /* stopped before the end: the rings the pass did not finish checking
     * are scanned, so that the block shows what the scan gives */
    if (ended == 0 && latrec_input_settle(latrec_engine_input(r->e), NULL) < 0) return LATREC_EXIT_ERROR;
    if (ended < 0 || (ended && latrec_engine_finish(r->e) < 0)) return LATREC_EXIT_ERROR;
    if (latrec_sched_view_end_pass(&r->sv) < 0) return LATREC_EXIT_ERROR; /* a run read once: settled */
    if (latrec_pass_check_names(latrec_engine_pass(r->e), "top") < 0) return LATREC_EXIT_ERROR;
    sched_follow(r);
    /* the stream ended, sched.latrec never closed (record killed): no
     * more scheduler data will come for the instances still waiting */
    if (ended && r->have_sv && r->sv.live && !r->sv.ended) latrec_top_sched_settle(&r->model);
    if (recompute(r, ended) < 0) return LATREC_EXIT_ERROR;
    emit(r, 1);
    if (r->model.oom) fprintf(stderr, "latrec top: out of memory: some rows are missing\n");
    return latrec_engine_input(r->e)->n_rejected ? LATREC_EXIT_SKIPPED : LATREC_EXIT_OK;
}

static int block_signals(struct top_run *r)
{
    sigset_t set;
    if (latrec_stop_signals_block(&set, &r->old_mask) != 0) return -1;
    r->sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
    /* a closed pipe: the write fails with EPIPE (output_failed), top does
     * not die with record still running; record gets the old mask */
    sigset_t pipe;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    if (sigprocmask(SIG_BLOCK, &pipe, NULL) != 0) return -1;
    return r->sfd < 0 ? -1 : 0;
}

/* record --stop-above stopped the run, its summary kept off the screen:
 * the instance in one line, from run.json. */
static void say_threshold(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/run.json", dir);
    json_t *run = json_load_file(path, 0, NULL);
    const json_t *t = json_object_get(run, "threshold");
    if (t) {
        const char *kind = json_string_value(json_object_get(t, "kind"));
        int is_path = kind && strcmp(kind, "path") == 0;
        char name[600];
        if (is_path) snprintf(name, sizeof(name), "path %s", json_string_value(json_object_get(t, "path")));
        else
            snprintf(name, sizeof(name), "%s/%s", json_string_value(json_object_get(t, "component")),
                     json_string_value(json_object_get(t, "leg")));
        fprintf(stderr, "latrec top: --stop-above %s crossed by seq %lld of %s: %s %.3f us (tid %lld); %s names it\n",
                json_string_value(json_object_get(t, "spec")), (long long)json_integer_value(json_object_get(t, "seq")),
                name, json_string_value(json_object_get(t, is_path ? "segment" : "hop")),
                (double)json_integer_value(json_object_get(t, "value_ns")) / 1e3,
                (long long)json_integer_value(json_object_get(t, "tid")), path);
    }
    json_decref(run);
}

/* The command line of latrec record: -o DIR, -q, -d, --catalog, the
 * options given for it, then the command. */
static void record_args(struct top_opts *o, char **args)
{
    int n = 0;
    args[n++] = "-o";
    args[n++] = (char *)(o->output ? o->output : "latrec.data");
    if (o->input.quiet) args[n++] = "-q";
    static char dur[32];
    if (o->duration_ns) {
        snprintf(dur, sizeof(dur), "%lluns", (unsigned long long)o->duration_ns);
        args[n++] = "-d";
        args[n++] = dur;
    }
    if (o->input.catalog_path) {
        args[n++] = "--catalog";
        args[n++] = (char *)o->input.catalog_path;
    }
    for (int i = 0; i < o->n_rec; i++) args[n++] = o->rec[i];
    args[n++] = "--";
    for (char **c = o->cmd; *c; c++) args[n++] = *c;
    args[n] = NULL;
}

/* The command line into o: options before the first "--", the command
 * after it. 0, or LATREC_EXIT_USAGE (said). */
static int top_parse(int argc, char **argv, struct top_opts *o)
{
    struct argp argp = {
        top_options,
        parse_top,
        "[DIR]\n-- COMMAND [ARGS...]",
        "The figures of a run while it is recorded, as rtla's top is to its hist: every --interval, per leg "
        "(its total, or each hop with --leg or --hop) and per path, the count, rate, p50, p99 and max of "
        "the instances that ended in the last interval and since the start, and each ring's records read "
        "and written, lost, wrapped and lapped; with the run's scheduler data, each leg's split into on CPU, "
        "runqueue and blocked time (while the run is recorded, as record publishes it, about 200 ms "
        "behind).\v"
        "latrec top DIR watches DIR (default latrec.data) while latrec record writes it and ends with the "
        "recording; a finished run is shown once; a directory of rings without run.json is watched until "
        "q, ^C or -d. latrec top [OPTION...] -- COMMAND runs latrec record -o DIR with the launching options "
        "given, watches DIR and ends when record does, with its exit status; q or ^C stops the command "
        "as record's ^C does. On a terminal the block is redrawn in place (q quits); otherwise one block "
        "is printed per interval, or one JSON object per line with --format json. -q prints the final "
        "block only (as rtla's top -q).\n\n"
        "Exit status: watching, 0, or 1 nothing could be read or a name the run does not hold, 2 usage, "
        "3 some rings were skipped; launching, latrec record's (193: --stop-above stopped it); 141 when standard "
        "output went away (a launched command stopped first). See latrec-top(1).",
        latrec_analysis_children,
        0,
        0
    };
    memset(o, 0, sizeof(*o));
    o->interval_ns = 1000000000ull;
    latrec_output_init(&o->out, top_formats);
    /* Everything after the first "--" is the command. */
    int n = argc;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--") == 0) {
            n = i;
            o->cmd = argv + i + 1;
            break;
        }
    if (o->cmd && !*o->cmd) {
        fprintf(stderr, "latrec top: no command after --\n");
        return LATREC_EXIT_USAGE;
    }
    argp_err_exit_status = LATREC_EXIT_USAGE;
    latrec_input_docs("The final block only (its last interval is the whole watch), no notes on stderr; "
                      "passed to record when launching",
                      "Taken as report takes it (1..64); top steps through the run on one thread, whatever N is");
    if (argp_parse(&argp, n, argv, 0, 0, o) != 0) return LATREC_EXIT_USAGE;
    o->sel.pass.paths = o->sel.pass.path || !latrec_select_any(&o->sel);
    o->sel.pass.no_legs = o->sel.pass.path && !latrec_select_any(&o->sel);
    return 0;
}

/* Launch the command and watch its run, or watch a directory: the exit
 * status. */
static int top_run_main(struct top_run *r, struct top_opts *o, int argc, int quiet_for_screen)
{
    int rc;
    char **args = calloc(MAX_RECORD_ARGS + 16 + (size_t)argc, sizeof(char *));
    if (!args) {
        rc = LATREC_EXIT_ERROR;
    } else if (r->launch) {
        record_args(o, args);
        r->live = 1;
        rc = latrec_top_launch(&r->child, args, r->screen != NULL, &r->old_mask) < 0 ? LATREC_RECORD_EXIT_FAIL : 0;
        if (rc == 0) {
            watch(r);
            while (!latrec_top_child_reap(&r->child)) events(r, 100);
            rc = latrec_top_child_exit(&r->child);
            if (rc == LATREC_RECORD_EXIT_THRESHOLD && quiet_for_screen) say_threshold(r->dir);
        }
    } else {
        r->recording = run_recording(r->dir);
        struct stat st;
        char run_json[4200];
        snprintf(run_json, sizeof(run_json), "%s/run.json", r->dir);
        r->live = r->recording || (o->input.n_dirs == 1 && stat(run_json, &st) != 0 && errno == ENOENT);
        rc = watch(r);
    }
    free(args);
    return rc;
}

/* Everything top holds let go, the mask as it was; rc, or what a failed
 * standard output makes of it. */
static int top_end(struct top_run *r, int rc)
{
    latrec_top_screen_close(r->screen);
    flush_notes(r);
    if (r->out_err == EPIPE) {
        rc = 128 + SIGPIPE; /* as a writer SIGPIPE ended, the run finalised */
    } else if (r->out_err) {
        fprintf(stderr, "latrec top: standard output: %s\n", strerror(r->out_err));
        rc = LATREC_EXIT_ERROR;
    }
    latrec_top_release_tables(r->e ? latrec_engine_pass(r->e) : NULL);
    latrec_top_release_tables(r->full_e ? latrec_engine_pass(r->full_e) : NULL);
    latrec_top_free(&r->model);
    latrec_top_free(&r->live_model);
    if (r->have_sv) latrec_sched_view_close(&r->sv);
    if (r->have_full_sv) latrec_sched_view_close(&r->full_sv);
    latrec_engine_close(r->e);
    latrec_engine_close(r->full_e);
    close(r->sfd);
    sigprocmask(SIG_SETMASK, &r->old_mask, NULL);
    return rc;
}

int latrec_cmd_top(int argc, char **argv)
{
    struct top_opts o;
    const int usage = top_parse(argc, argv, &o);
    if (usage) return usage;

    struct top_run r;
    memset(&r, 0, sizeof(r));
    r.o = &o;
    r.dir = o.input.dirs[0] ? o.input.dirs[0] : "latrec.data";
    r.launch = o.cmd != NULL;
    r.only_final = o.input.quiet;
    if (block_signals(&r) < 0) {
        fprintf(stderr, "latrec top: signals: %s\n", strerror(errno));
        return LATREC_EXIT_ERROR;
    }
    int quiet_for_screen = 0;
    if (o.out.format == FORMAT_TEXT && !r.only_final && isatty(1)) {
        char why[200];
        if (!(r.screen = latrec_top_screen_open(why, sizeof(why))) && !o.input.quiet)
            fprintf(stderr, "latrec top: %s: one block per interval instead\n", why);
        if (r.screen) o.input.quiet = quiet_for_screen = 1; /* notes would tear the screen (kept: see top_screen.h) */
    }
    return top_end(&r, top_run_main(&r, &o, argc, quiet_for_screen));
}
