/* latrec convert: rings to rings.csv, records.csv, <component>.csv, paths.csv, or a
 * trace-event timeline (trace.json). */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analyze/legs.h"
#include "engine/align.h"
#include "cli/commands.h"
#include "cli/component_table.h"
#include "cli/csv.h"
#include "engine/engine.h"
#include "engine/input.h"
#include "cli/options.h"
#include "engine/pass.h"
#include "cli/paths_csv.h"
#include "cli/records_csv.h"
#include "cli/timeline.h"
#include "read/escape.h"

enum { OPT_WATCH = 0x400, OPT_QUIET_SECS, OPT_TIMEOUT, OPT_FORMAT, OPT_WINDOW, OPT_MAX_EVENTS };

/* trace.json's event budget unless --max-events says otherwise: about
 * 150 MB, which Perfetto's JSON importer and chrome://tracing still load. */
#define DEFAULT_MAX_EVENTS 1000000ull

struct convert_opts {
    latrec_input_opts input;
    const char *outdir;
    int chrome;
    latrec_timeline_opts timeline;
    int watch;
    double quiet_secs, timeout_secs;
    int force; /* -f: remove the tables of an earlier conversion this one does not write */
};

static const struct argp_option convert_options[] = {
    { "outdir", 'o', "DIR", 0, "Write the files into DIR (default: <first DIR>/csv; with --format chrome, "
                               "<first DIR>)", 0 },
    { "force", 'f', 0, 0, "Remove the CSV files an earlier conversion wrote into DIR that this one does not "
                          "write (without -f they stop convert: DIR would mix two runs)", 0 },
    { "format", OPT_FORMAT, "FMT", 0, "csv (rings.csv, records.csv, <component>.csv, paths.csv; default) or "
                                      "chrome (trace.json for Perfetto / chrome://tracing); "
                                      "'--format=help' lists them", 0 },
    { "window", OPT_WINDOW, "FROM:TO", 0, "With --format chrome: only instances that begin in [FROM, TO) from "
                                          "the first record (e.g. 1s:1.5s; TO may be empty)", 0 },
    { "max-events", OPT_MAX_EVENTS, "N", 0, "With --format chrome: stop the timeline before it passes N events "
                                            "(default 1000000, about 150 MB; 0: no limit)", 0 },
    { "watch", OPT_WATCH, 0, 0, "Wait until the rings go quiet before converting", 0 },
    { "quiet-secs", OPT_QUIET_SECS, "SECS", 0, "With --watch: how long nothing must change (a bare number is seconds; default 2)", 0 },
    { "timeout", OPT_TIMEOUT, "SECS", 0, "With --watch: give up waiting after SECS (a bare number "
                                         "is seconds) and convert anyway (default 0: wait forever)", 0 },
    { 0 }
};

/* --format's table (value: chrome or not). */
static const latrec_choice convert_formats[] = {
    { "csv", 0, "rings.csv, records.csv, <component>.csv, paths.csv (when the catalog has paths)" },
    { "chrome", 1, "trace.json for Perfetto / chrome://tracing" },
    { NULL, 0, NULL },
};

/* --quiet-secs and --timeout: a bare number is seconds, as their names say. */
static const latrec_duration_opt quiet_opt = { "--quiet-secs", "s", 0, 3600000000000ull };
static const latrec_duration_opt timeout_opt = { "--timeout", "s", 0, 8784ull * 3600000000000ull };

static const latrec_duration_opt window_opt = { "--window", NULL, 0, 8784ull * 3600000000000ull };
static const latrec_count_opt max_events_opt = { "--max-events", 0, UINT64_MAX };

static error_t parse_convert(int key, char *arg, struct argp_state *state)
{
    struct convert_opts *o = state->input;
    switch (key) {
    case ARGP_KEY_INIT: state->child_inputs[0] = &o->input; break;
    case 'o': o->outdir = latrec_arg_out_dir(state, "-o", arg); break;
    case 'f': o->force = 1; break;
    case OPT_FORMAT: o->chrome = latrec_arg_choice(state, "--format", convert_formats, arg); break;
    case OPT_WINDOW: {
        /* FROM:TO, each in the one duration grammar; an empty TO: the end */
        char from[64], err[160];
        const char *colon = strchr(arg, ':');
        size_t n = colon ? (size_t)(colon - arg) : 0;
        if (!colon || n >= sizeof(from)) argp_error(state, "--window takes FROM:TO (e.g. 1s:1.5s), not '%s'", arg);
        memcpy(from, arg, n);
        from[n] = '\0';
        if ((n && latrec_duration_parse(&window_opt, from, &o->timeline.from_ns, err, sizeof(err)) < 0) ||
            (colon[1] && latrec_duration_parse(&window_opt, colon + 1, &o->timeline.to_ns, err, sizeof(err)) < 0))
            argp_error(state, "%s", err);
        if (o->timeline.to_ns && o->timeline.to_ns <= o->timeline.from_ns)
            argp_error(state, "--window takes FROM:TO with FROM < TO (e.g. 1s:1.5s), not '%s'", arg);
        break;
    }
    case OPT_MAX_EVENTS: o->timeline.max_events = latrec_arg_count(state, &max_events_opt, arg); break;
    case OPT_WATCH: o->watch = 1; break;
    case OPT_QUIET_SECS: o->quiet_secs = (double)latrec_arg_duration(state, &quiet_opt, arg) / 1e9; break;
    case OPT_TIMEOUT: o->timeout_secs = (double)latrec_arg_duration(state, &timeout_opt, arg) / 1e9; break;
    case ARGP_KEY_ARG: latrec_arg_dir(state, &o->input, arg); break;
    default: return ARGP_ERR_UNKNOWN;
    }
    return 0;
}

/* ---- --watch ------------------------------------------------------------- */

struct activity { size_t rings; uint64_t valid, rec_count, last_t; };

static int sample_activity(const latrec_input_opts *o, struct activity *a)
{
    latrec_ringset set;
    memset(a, 0, sizeof(*a));
    if (latrec_ringset_open(&set, o->dirs, (size_t)o->n_dirs, NULL, 0) < 0) return -1;
    for (size_t i = 0; i < set.n; i++) {
        const latrec_ring *r = &set.rings[i];
        a->rings++;
        a->valid += r->valid;
        a->rec_count += r->rec_count;
        if (r->max_t_ns > a->last_t) a->last_t = r->max_t_ns;
    }
    latrec_ringset_close(&set);
    return 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Wait until two samples quiet_secs apart agree (or timeout). */
static void wait_quiet(const latrec_input_opts *o, double quiet_secs, double timeout_secs)
{
    const double start = now_s();
    struct activity last, cur;
    int have = sample_activity(o, &last) == 0;
    double since = now_s();
    for (;;) {
        struct timespec nap = { 0, 200000000 };
        nanosleep(&nap, NULL);
        int ok = sample_activity(o, &cur) == 0;
        if (!ok || !have || memcmp(&cur, &last, sizeof(cur)) != 0) {
            last = cur;
            have = ok;
            since = now_s();
        } else if (now_s() - since >= quiet_secs) {
            return;
        }
        if (timeout_secs > 0 && now_s() - start >= timeout_secs) {
            if (!o->quiet)
                fprintf(stderr, "latrec convert: rings still changing after %.1f s; converting anyway\n",
                        timeout_secs);
            return;
        }
    }
}

/* ---- rings.csv ------------------------------------------------------------ */

static const char *const rings_columns[] = {
    "file", "name", "version", "entries", "bytes", "rec_size", "rec_count", "valid", "wrapped",
    "lost_records", "lost_lower_bound", "descents", "clock_ns_per_call", "t0_mono_ns", "t0_real_ns",
    "t1_mono_ns", "t1_real_ns", "mono_real_offset_ns", "pid", "tid", "flags", "clock_id", "boot_id",
    "host", "catalog", "dropped_before_start", "status", "error", "torn_slots", "timebase", "tsc_pairs",
    "tsc_pairs_taken", "lapped", NULL
};

/* The ring's timebase: "clock" (CLOCK_MONOTONIC stamps; every ring before
 * version 3) or "tsc", then the calibration pairs its stamps are converted
 * through and the pairs its writer took (empty for a clock ring). */
static void rings_csv_timebase(latrec_csv *c, const latrec_ring *r)
{
    if (!r->tsc) {
        latrec_csv_str(c, "clock");
        latrec_csv_empty(c);
        latrec_csv_empty(c);
        return;
    }
    latrec_csv_str(c, "tsc");
    latrec_csv_u64(c, r->tsc->n);
    latrec_csv_u64(c, r->cal_taken);
}

/* 0, or -1 with one line in err. */
static int write_rings_csv(const latrec_input *in, const char *path, latrec_outset *set, char *err, size_t errlen)
{
    latrec_csv c;
    if (latrec_csv_open(&c, path, set, err, errlen) < 0) return -1;
    for (int i = 0; rings_columns[i]; i++) latrec_csv_str(&c, rings_columns[i]);
    latrec_csv_end(&c);
    for (size_t i = 0; i < in->set.n; i++) {
        const latrec_ring *r = &in->set.rings[i];
        latrec_csv_str(&c, r->basename);
        if (r->status != LATREC_RING_OK) {
            for (int k = 1; k < 26; k++) latrec_csv_empty(&c);
            latrec_csv_str(&c, "rejected");
            latrec_csv_str(&c, r->error);
            for (int k = 0; k < 5; k++) latrec_csv_empty(&c);
            latrec_csv_end(&c);
            continue;
        }
        latrec_csv_str(&c, r->name);
        latrec_csv_u64(&c, r->version);
        latrec_csv_u64(&c, r->entries);
        latrec_csv_u64(&c, r->file_size);
        latrec_csv_u64(&c, r->rec_size);
        latrec_csv_u64(&c, r->rec_count);
        latrec_csv_u64(&c, r->valid);
        latrec_csv_u64(&c, r->wrapped != 0);
        latrec_csv_u64(&c, r->lost);
        latrec_csv_u64(&c, r->lost_lower_bound != 0);
        latrec_csv_u64(&c, r->descents);
        latrec_csv_u64(&c, r->clock_ns_per_call);
        latrec_csv_u64(&c, r->t0_mono_ns);
        latrec_csv_u64(&c, r->t0_real_ns);
        latrec_csv_u64(&c, r->t1_mono_ns);
        latrec_csv_u64(&c, r->t1_real_ns);
        latrec_csv_i64(&c, (int64_t)(r->t0_real_ns - r->t0_mono_ns));
        if (r->version >= 3) {
            char boot[40];
            static const char hex[] = "0123456789abcdef";
            size_t k = 0;
            for (int b = 0; b < 16; b++) {
                if (b == 4 || b == 6 || b == 8 || b == 10) boot[k++] = '-';
                boot[k++] = hex[r->boot_id[b] >> 4];
                boot[k++] = hex[r->boot_id[b] & 15];
            }
            boot[k] = '\0';
            latrec_csv_u64(&c, r->pid);
            latrec_csv_u64(&c, r->tid);
            latrec_csv_hex(&c, r->flags);
            latrec_csv_u64(&c, r->clock_id);
            latrec_csv_str(&c, boot);
            latrec_csv_str(&c, r->host);
            latrec_csv_str(&c, r->catalog);
        } else {
            for (int k = 0; k < 7; k++) latrec_csv_empty(&c);
        }
        latrec_csv_u64(&c, in->dropped[i]);
        uint64_t end;
        char why[LATREC_REASON_LEN + 80];
        if (latrec_ring_truncated(r, &end)) {
            snprintf(why, sizeof(why), "truncated while read (now at most %llu bytes)", (unsigned long long)end);
            latrec_csv_str(&c, "truncated");
            latrec_csv_str(&c, why);
        } else {
            latrec_csv_str(&c, r->multi_writer ? "multi_writer" : "ok");
            latrec_csv_str(&c, r->warning);
        }
        latrec_csv_u64(&c, r->torn);
        rings_csv_timebase(&c, r);
        latrec_csv_u64(&c, in->lapped[i]);
        latrec_csv_end(&c);
    }
    return latrec_csv_close(&c, err, errlen);
}

/* ---- the pass -------------------------------------------------------------- */

struct convert_pass {
    latrec_input *in;
    const struct convert_opts *o;
    latrec_legs *legs;               /* the engine pass's leg builder */
    latrec_component_tables *tables; /* csv */
    latrec_timeline *timeline;       /* chrome */
    latrec_records_csv *records;     /* csv: records.csv */
    latrec_path_index *paths;        /* every catalog's paths: flows (chrome), paths.csv (csv) */
    int paths_lost;                  /* leg instances the path assembler could not take */
    latrec_paths_csv *paths_csv;     /* csv: opened at the first path instance */
    const char *outdir;
    int paths_csv_err;               /* paths.csv failed: paths_csv_msg says why */
    char paths_csv_msg[4400];
    uint64_t paths_rows;             /* rows paths.csv got */
    uint64_t n_records, all_records; /* records tapped, of all the rings' (progress) */
    /* csv: every file, placed together once all are written (none when
     * any fails: the directory is left as it was; latrec-convert(1)) */
    latrec_outset set;
    char *stale;    /* csv: the tables of an earlier conversion this one does not write (NUL-separated) */
    size_t n_stale; /* -f removed them once the set was placed */
};

/* Every ended instance, before any warm-up or selection: convert shows
 * them all. */
static void on_instance(void *ctx, const latrec_instance *inst)
{
    struct convert_pass *p = ctx;
    if (p->tables) latrec_component_tables_add(p->tables, inst);
    if (p->timeline) latrec_timeline_add_instance(p->timeline, inst);
    if (p->paths && latrec_path_index_feed(p->paths, inst) < 0) p->paths_lost = 1;
}

static void progress(const latrec_input *in, uint64_t done, uint64_t total);

/* On the builder's thread when the pass runs on threads (engine/pass.h). */
static void on_record(void *ctx, const latrec_merged *ev, int leg)
{
    struct convert_pass *p = ctx;
    if (p->records) latrec_records_csv_add(p->records, ev, leg);
    if (!(++p->n_records & 0xFFFFF)) progress(p->in, p->n_records, p->all_records);
}

static void on_path(void *ctx, const latrec_path_instance *pi)
{
    struct convert_pass *p = ctx;
    if (p->timeline) {
        latrec_timeline_add_path(p->timeline, pi);
        return;
    }
    if (!p->paths_csv && !p->paths_csv_err) { /* a run without path instances gets no paths.csv */
        char path[4200];
        snprintf(path, sizeof(path), "%s/paths.csv", p->outdir);
        if (!(p->paths_csv =
                  latrec_paths_csv_open(path, p->in, p->legs, &p->set, p->paths_csv_msg, sizeof(p->paths_csv_msg))))
            p->paths_csv_err = 1;
    }
    if (p->paths_csv) latrec_paths_csv_add(p->paths_csv, pi);
}

/* paths.csv closes into the set (the assembler finished with the
 * records). 0, or -1 with one line in err. */
static int close_paths_csv(struct convert_pass *p, char *err, size_t errlen)
{
    if (p->paths_csv &&
        latrec_paths_csv_close(p->paths_csv, &p->paths_rows, p->paths_csv_msg, sizeof(p->paths_csv_msg)) < 0)
        p->paths_csv_err = 1;
    p->paths_csv = NULL;
    if (!p->paths_csv_err) return 0;
    snprintf(err, errlen, "%s", p->paths_csv_msg);
    return -1;
}

/* What paths.csv holds (once it is in place). */
static void paths_csv_note(const struct convert_pass *p)
{
    if (p->paths_lost) fprintf(stderr, "latrec convert: out of memory: some path instances are missing\n");
    if (p->paths_rows && !p->in->opts.quiet)
        fprintf(stderr, "latrec convert: paths.csv: %llu path instances\n", (unsigned long long)p->paths_rows);
}

static void progress(const latrec_input *in, uint64_t done, uint64_t total)
{
    if (in->opts.quiet || !isatty(STDERR_FILENO) || !total) return;
    fprintf(stderr, "\rlatrec convert: %3u%%", (unsigned)(done * 100 / total));
    if (done >= total) fputc('\n', stderr);
}

/* The records pass through the engine, on --threads threads: every record
 * to the leg builder (whose ended instances go to the component tables or
 * the timeline) and to records.csv (csv), whose rows are formatted and
 * written on a thread of their own; the record tap shows the progress.
 * 0, or -1 (printed). */
static int convert_records(latrec_engine *e, struct convert_pass *p)
{
    latrec_input_totals tot;
    latrec_input_totals_get(p->in, &tot);
    p->all_records = tot.valid + tot.sched.valid;
    if (latrec_engine_run(e) < 0) return -1;
    if (p->n_records > 0xFFFFF) progress(p->in, p->all_records, p->all_records);
    if (p->paths) latrec_path_index_finish(p->paths);
    return 0;
}

/* What trace.json holds and what it left out, one line each (always, not
 * only without -q: a cut timeline must not pass for a whole one). */
static void timeline_note(const latrec_timeline_totals *tt, const latrec_timeline_opts *o, const char *dir,
                          int quiet)
{
    char outdir[4 * 4096 + 4];
    latrec_text_safe(dir, outdir, sizeof(outdir));
    if (tt->stopped)
        fprintf(stderr, "latrec convert: %s/trace.json: stopped at %.6f s (--max-events %llu): %llu instances and "
                        "%llu scheduler slices after it are not in the timeline; use --window or --max-events\n",
                outdir, (double)tt->stopped_at_ns / 1e9, (unsigned long long)o->max_events,
                (unsigned long long)tt->cut, (unsigned long long)tt->sched_cut);
    if (tt->outside) {
        char to[32] = "the end";
        if (o->to_ns) snprintf(to, sizeof(to), "%.6f s", (double)o->to_ns / 1e9);
        fprintf(stderr, "latrec convert: %s/trace.json: window %.6f s to %s: %llu instances outside it left out\n",
                outdir, (double)o->from_ns / 1e9, to, (unsigned long long)tt->outside);
    }
    if (!tt->sched && !quiet) fprintf(stderr, "latrec convert: trace.json: no scheduler tracks: %s\n", tt->sched_reason);
}

/* Open the outputs of the format: trace.json (chrome), or records.csv
 * and the component tables (csv); the path assembler when the run has
 * paths. 0, or -1 with one line in err. PATH (PLEN bytes) is room for
 * each output's name. */
static int outputs_open(struct convert_pass *p, const struct convert_opts *o, latrec_input *in, const char *outdir,
                        char *path, size_t plen, char *err, size_t errlen)
{
    if (o->chrome) {
        snprintf(path, plen, "%s/trace.json", outdir);
        if (!(p->timeline = latrec_timeline_open(path, in, p->legs, &o->timeline, err, errlen))) return -1;
    } else {
        p->tables = latrec_component_tables_new(in, p->legs, outdir, &p->set);
        if (!p->tables) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        snprintf(path, plen, "%s/records.csv", outdir);
        if (!(p->records = latrec_records_csv_open(path, in, p->legs, &p->set, err, errlen))) return -1;
    }
    p->outdir = outdir;
    const latrec_paths_opts po = { in->opts.path_horizon_ns, 0, in->opts.wall && in->opts.n_dirs > 1 };
    if (latrec_path_index_n(in->paths) && !(p->paths = latrec_path_index_assemble(p->legs, &po, on_path, p))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

/* What stops convert before its pass, said after the rings' warnings as
 * when every ring is scanned at open: the rings still guessed are scanned
 * first (their warnings said), then "latrec convert: ERR". */
static void say_before_pass(latrec_input *in, const char *err)
{
    (void)latrec_input_settle(in, NULL);
    latrec_text_say(stderr, "latrec convert", err);
}

/* The pass starts over (a ring opened by the guess was wrong, engine/pass.h):
 * everything it wrote is dropped, none of it placed (the temporary files
 * removed, the spools closed), and the outputs open again over the new
 * pass's builder. 0, or -1 (said). */
static int convert_restart(void *ctx, latrec_pass *fresh)
{
    struct convert_pass *p = ctx;
    latrec_timeline_abort(p->timeline);
    latrec_paths_csv_abort(p->paths_csv);
    latrec_records_csv_abort(p->records);
    latrec_outset_abort(&p->set);
    latrec_component_tables_free(p->tables);
    latrec_path_index_free(p->paths);
    free(p->stale);
    p->stale = NULL;
    p->n_stale = 0;
    p->timeline = NULL;
    p->paths_csv = NULL;
    p->records = NULL;
    p->tables = NULL;
    p->paths = NULL;
    p->paths_lost = p->paths_csv_err = 0;
    p->paths_rows = p->n_records = 0;
    p->legs = latrec_pass_legs(fresh);
    latrec_input_totals tot; /* the rings scanned since: their counts */
    latrec_input_totals_get(p->in, &tot);
    p->all_records = tot.valid + tot.sched.valid;
    char path[4200], err[4400];
    if (outputs_open(p, p->o, p->in, p->outdir, path, sizeof(path), err, sizeof(err)) == 0) return 0;
    latrec_text_say(stderr, "latrec convert", err);
    return -1;
}

/* "NAME, NAME..." of the n NUL-separated names (cut with "..." past len). */
static const char *name_list(const char *names, size_t n, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < n && used < len; k++, names += strlen(names) + 1) {
        const int w = snprintf(buf + used, len - used, "%s%s", k ? ", " : "", names);
        if (w < 0 || (size_t)w >= len - used) {
            snprintf(buf + (len > 4 ? len - 4 : 0), len > 4 ? 4 : len, "...");
            break;
        }
        used += (size_t)w;
    }
    return buf;
}

/* The CSV files latrec wrote into outdir before that this conversion does
 * not write (another run's components, a paths.csv this run has none of):
 * kept in p for -f to remove once the set is in place, else an error, so
 * that a directory never holds the tables of two conversions. 0, or -1 with
 * one line in err. */
static int check_stale(struct convert_pass *p, const struct convert_opts *o, const char *outdir, char *err,
                       size_t errlen)
{
    p->stale = latrec_outset_stale(&p->set, ".csv", &p->n_stale);
    if (!p->n_stale || o->force) return 0;
    char others[256];
    const char *first = p->stale;
    name_list(first + strlen(first) + 1, p->n_stale - 1, others, sizeof(others));
    const int one = p->n_stale == 1;
    snprintf(err, errlen,
             "%.3600s/%.240s%s%s: written there by latrec before (its %s lists %s), not by this conversion: "
             "nothing placed, so that the directory does not mix two runs' tables; give -f to remove %s, or "
             "write elsewhere",
             outdir, first, one ? "" : ", ", others, LATREC_OUT_MARKER, one ? "it" : "them", one ? "it" : "them");
    return -1;
}

/* Close what the pass wrote to (records.csv, trace.json) and write what
 * comes after it (rings.csv, the component tables). 0, or -1 with one line
 * on stderr. */
static int outputs_close(struct convert_pass *p, const struct convert_opts *o, latrec_input *in, const char *outdir,
                         char *path, size_t plen, char *err, size_t errlen)
{
    if (p->records) {
        const int closed = latrec_records_csv_close(p->records, err, errlen);
        p->records = NULL;
        if (closed < 0) {
            latrec_text_say(stderr, "latrec convert", err);
            return -1;
        }
    }
    if (o->chrome) {
        latrec_timeline_totals tt;
        int closed = latrec_timeline_close(p->timeline, &tt, err, errlen);
        p->timeline = NULL;
        if (closed < 0) {
            latrec_text_say(stderr, "latrec convert", err);
            return -1;
        }
        timeline_note(&tt, &o->timeline, outdir, in->opts.quiet);
        if (p->paths_lost) fprintf(stderr, "latrec convert: out of memory: some path flows are missing\n");
    } else {
        snprintf(path, plen, "%s/rings.csv", outdir);
        if (write_rings_csv(in, path, &p->set, err, errlen) < 0 ||
            latrec_component_tables_write(p->tables, err, errlen) < 0 || close_paths_csv(p, err, errlen) < 0 ||
            check_stale(p, o, outdir, err, errlen) < 0 || latrec_outset_place(&p->set, err, errlen) < 0 ||
            latrec_outdir_remove(outdir, p->stale, p->n_stale, err, errlen) < 0) {
            latrec_text_say(stderr, "latrec convert", err);
            return -1;
        }
    }
    return 0;
}

/* "latrec convert: N rings (M skipped), R records[...] -> DIR" */
static void print_summary(const struct convert_pass *p, latrec_input *in, const char *outdir)
{
    latrec_input_totals t;
    latrec_input_totals_get(in, &t);
    fprintf(stderr, "latrec convert: %zu ring%s (%zu skipped), %llu records", t.rings,
            t.rings == 1 ? "" : "s", t.rejected, (unsigned long long)in->records);
    if (t.dropped) fprintf(stderr, ", %llu dropped before the start stamp", (unsigned long long)t.dropped);
    if (t.sched.present)
        fprintf(stderr, "; %s: %llu scheduler events", in->set.rings[in->sched_ring].basename,
                (unsigned long long)in->sched_records);
    char shown[4 * 4096 + 4];
    fprintf(stderr, " -> %s\n", latrec_text_safe(outdir, shown, sizeof(shown)));
    if (latrec_legs_guessed_processes(p->legs))
        fprintf(stderr, "latrec convert: rings without a pid (format v1/v2): one process per component assumed\n");
}

/* The output directory: -o, else the first DIR (chrome) or DIR/csv; -1
 * (printed) when the name does not fit: never into the directory a cut
 * name would name. */
static int output_dir_name(const struct convert_opts *o, latrec_input *in, char *outdir, size_t size)
{
    int n;
    if (o->outdir) n = snprintf(outdir, size, "%s", o->outdir);
    else if (o->chrome) n = snprintf(outdir, size, "%s", in->opts.dirs[0]);
    else n = snprintf(outdir, size, "%s/csv", in->opts.dirs[0]);
    struct stat st;
    char err[4400];
    if (n < (int)size && !o->outdir && !o->chrome && lstat(outdir, &st) == 0 && S_ISLNK(st.st_mode)) {
        /* the run's own csv is a name latrec chose in a directory that may be
         * anyone's: a link there would have it write where it points */
        snprintf(err, sizeof(err), "%s: a symbolic link, not followed (give -o to write where it points)", outdir);
        say_before_pass(in, err);
        return -1;
    }
    if (n < (int)size) return 0;
    snprintf(err, sizeof(err), "%.200s...: the output directory's name is longer than %zu bytes; use -o",
             in->opts.dirs[0], size - 1);
    say_before_pass(in, err);
    return -1;
}

/* What follows a conversion: the summary, the notes and warnings (the cut
 * instances even with -q). */
static void print_after(struct convert_pass *p, const struct convert_opts *o, latrec_input *in, const char *outdir)
{
    if (!in->opts.quiet) print_summary(p, in, outdir);
    if (p->n_stale && !in->opts.quiet) {
        char names[1024], line[1200];
        snprintf(line, sizeof(line), "-f: removed %s (an earlier conversion's, not written by this one)",
                 name_list(p->stale, p->n_stale, names, sizeof(names)));
        latrec_text_say(stderr, "latrec convert", line);
    }
    if (!o->chrome) paths_csv_note(p);
    if (!in->opts.quiet) {
        latrec_pass_print_warnings(p->legs);
        if (p->paths) latrec_pass_print_join_warnings(p->paths);
    }
    if (latrec_legs_evicted(p->legs)) {
        char cuts[256];
        latrec_pass_cut_note(p->legs, cuts, sizeof(cuts));
        fprintf(stderr, "latrec convert: leg horizon %s (--leg-horizon)\n", cuts);
    }
}

int latrec_cmd_convert(int argc, char **argv)
{
    static const struct argp_child children[] = { { &latrec_input_argp, 0, "Input:", 1 },
                                                  { &latrec_help_argp, 0, 0, -1 }, { 0 } };
    struct argp argp = { convert_options, parse_convert, "[DIR...]",
                         "Convert the rings of a run to CSV or to a trace-event timeline.\v"
                         "DIR is a run directory (default latrec.data) or any directory of .latrec "
                         "files; several DIRs (one per host) need --wall.\n\n"
                         "Exit status: 0 every ring read cleanly; 1 nothing could be read, an output "
                         "could not be written, or an earlier conversion's tables would stay beside this "
                         "one's without -f (then none is placed); 2 usage; "
                         "3 some rings were skipped (the rest was converted). See latrec-convert(1).",
                         children, 0, 0 };
    struct convert_opts o;
    memset(&o, 0, sizeof(o));
    o.quiet_secs = 2;
    o.timeline.max_events = DEFAULT_MAX_EVENTS;
    argp_err_exit_status = LATREC_EXIT_USAGE;
    if (argp_parse(&argp, argc, argv, 0, 0, &o) != 0) return LATREC_EXIT_USAGE;
    /* The pass on one thread unless --threads says otherwise: records.csv's
     * writer is convert's second thread, and moving every record and
     * instance between cores as well cost more CPU time than it saved
     * (16 x 2^20 records: 2.6 s against 2.1 s, and no faster) */
    if (!o.input.threads) o.input.threads = 1;
    latrec_outfile_unlink_on_signal(); /* a kill mid-write leaves no .NAME.XXXXXX behind */
    if (o.input.n_dirs == 0) latrec_input_add_dir(&o.input, "latrec.data");
    if (o.watch) wait_quiet(&o.input, o.quiet_secs, o.timeout_secs);
    o.input.guess = 1; /* the pass checks what the guess gave and starts over when wrong (convert_restart) */

    /* the engine opens the run (input, catalogs, --align) and takes the
     * records through the leg builder (convert_records) */
    latrec_engine *e = latrec_engine_open(&o.input, "convert", 0);
    if (!e) return LATREC_EXIT_ERROR;
    latrec_input *in = latrec_engine_input(e);
    latrec_align_print(in, stderr);
    char outdir[4096];
    int rc = LATREC_EXIT_ERROR;
    if (output_dir_name(&o, in, outdir, sizeof(outdir)) < 0) {
        latrec_engine_close(e);
        return LATREC_EXIT_ERROR;
    }
    struct convert_pass p = { .in = in, .o = &o };
    latrec_outlock lock = { -1, -1 };
    char path[4200];
    char err[4400];
    /* the directory held until every file is placed: a second convert into
     * it at once is refused, never placed over this one's half */
    if (latrec_outdir_make(outdir, err, sizeof(err)) < 0 || latrec_outdir_lock(outdir, &lock, err, sizeof(err)) < 0) {
        say_before_pass(in, err);
        goto out;
    }
    /* every instance and record, no tables of the engine's own; the
     * warnings come after convert's summary */
    const latrec_pass_opts pass_opts = { .no_legs = 1, .no_warnings = 1 };
    const latrec_pass_sinks sinks = { .ctx = &p };
    if (latrec_engine_start(e, &pass_opts, &sinks) < 0) goto out; /* printed */
    p.legs = latrec_pass_legs(latrec_engine_pass(e));
    if (outputs_open(&p, &o, in, outdir, path, sizeof(path), err, sizeof(err)) < 0) {
        say_before_pass(in, err);
        goto out;
    }
    /* every record, sched.latrec's too, to records.csv (csv) and the
     * progress: the builder ran on the merge's time (the wall-clock mapping
     * with --wall), so the tables and the timeline show the same clock as
     * records.csv's t_ns */
    const latrec_pass_taps taps = { .ctx = &p, .ended = on_instance, .record = on_record, .restart = convert_restart };
    latrec_pass_tap(latrec_engine_pass(e), &taps);
    if (convert_records(e, &p) < 0) goto out;
    if (outputs_close(&p, &o, in, outdir, path, sizeof(path), err, sizeof(err)) < 0) goto out;
    print_after(&p, &o, in, outdir);
    rc = in->n_rejected ? LATREC_EXIT_SKIPPED : LATREC_EXIT_OK;
out:
    latrec_timeline_abort(p.timeline);
    latrec_paths_csv_abort(p.paths_csv);
    latrec_records_csv_abort(p.records);
    latrec_outset_abort(&p.set);
    latrec_component_tables_free(p.tables);
    latrec_path_index_free(p.paths);
    free(p.stale);
    latrec_outdir_unlock(&lock);
    latrec_engine_close(e);
    return rc;
}
