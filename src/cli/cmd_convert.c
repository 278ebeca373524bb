/* latrec convert: rings to rings.csv, records.csv, <component>.csv, or a
 * trace-event timeline (trace.json). */
#include <argp.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analyze/legs.h"
#include "cli/commands.h"
#include "cli/component_table.h"
#include "cli/csv.h"
#include "cli/input.h"
#include "cli/timeline.h"

enum { OPT_WATCH = 0x400, OPT_QUIET_SECS, OPT_TIMEOUT, OPT_FORMAT };

struct convert_opts {
    latrec_input_opts input;
    const char *outdir;
    int chrome;
    int watch;
    double quiet_secs, timeout_secs;
};

static const struct argp_option convert_options[] = {
    { "outdir", 'o', "DIR", 0, "Write the files into DIR (default: <first DIR>/csv)", 0 },
    { "format", OPT_FORMAT, "FMT", 0, "csv (rings.csv, records.csv, <component>.csv; default) or "
                                      "chrome (trace.json for Perfetto / chrome://tracing)", 0 },
    { "watch", OPT_WATCH, 0, 0, "Wait until the rings go quiet before converting", 0 },
    { "quiet-secs", OPT_QUIET_SECS, "SECS", 0, "With --watch: how long nothing must change (default 2)", 0 },
    { "timeout", OPT_TIMEOUT, "SECS", 0, "With --watch: give up waiting after SECS and convert "
                                         "anyway (default 0: wait forever)", 0 },
    { 0 }
};

static error_t parse_convert(int key, char *arg, struct argp_state *state)
{
    struct convert_opts *o = state->input;
    char *end;
    switch (key) {
    case ARGP_KEY_INIT: state->child_inputs[0] = &o->input; break;
    case 'o': o->outdir = arg; break;
    case OPT_FORMAT:
        if (strcmp(arg, "chrome") == 0) o->chrome = 1;
        else if (strcmp(arg, "csv") == 0) o->chrome = 0;
        else argp_error(state, "--format must be csv or chrome, not '%s'", arg);
        break;
    case OPT_WATCH: o->watch = 1; break;
    case OPT_QUIET_SECS:
    case OPT_TIMEOUT: {
        double v = strtod(arg, &end);
        if (*end || end == arg || v < 0) argp_error(state, "'%s' is not a number of seconds", arg);
        if (key == OPT_QUIET_SECS) o->quiet_secs = v;
        else o->timeout_secs = v;
        break;
    }
    case ARGP_KEY_ARG:
        if (latrec_input_add_dir(&o->input, arg) < 0) argp_error(state, "too many directories");
        break;
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
    "host", "catalog", "dropped_before_start", "status", "error", NULL
};

static int write_rings_csv(const latrec_input *in, const char *path)
{
    latrec_csv c;
    if (latrec_csv_open(&c, path, NULL) < 0) return -1;
    for (int i = 0; rings_columns[i]; i++) latrec_csv_str(&c, rings_columns[i]);
    latrec_csv_end(&c);
    for (size_t i = 0; i < in->set.n; i++) {
        const latrec_ring *r = &in->set.rings[i];
        latrec_csv_str(&c, r->basename);
        if (r->status != LATREC_RING_OK) {
            for (int k = 1; k < 26; k++) latrec_csv_empty(&c);
            latrec_csv_str(&c, "rejected");
            latrec_csv_str(&c, r->error);
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
        latrec_csv_str(&c, r->multi_writer ? "multi_writer" : "ok");
        latrec_csv_str(&c, r->warning);
        latrec_csv_end(&c);
    }
    return latrec_csv_close(&c);
}

/* ---- the pass -------------------------------------------------------------- */

struct convert_pass {
    latrec_input *in;
    latrec_legs *legs;
    latrec_component_tables *tables; /* csv */
    latrec_timeline *timeline;       /* chrome */
};

static void on_instance(void *ctx, const latrec_instance *inst)
{
    struct convert_pass *p = ctx;
    if (p->tables) latrec_component_tables_add(p->tables, inst);
    if (p->timeline) latrec_timeline_add_instance(p->timeline, inst);
}

static int make_outdir(const char *dir)
{
    char buf[4096];
    snprintf(buf, sizeof(buf), "%s", dir);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    if (mkdir(buf, 0755) != 0 && errno != EEXIST) return -1;
    struct stat st;
    if (stat(buf, &st) != 0) return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

static void progress(const latrec_input *in, uint64_t done, uint64_t total)
{
    if (in->opts.quiet || !isatty(STDERR_FILENO) || !total) return;
    fprintf(stderr, "\rlatrec convert: %3u%%", (unsigned)(done * 100 / total));
    if (done >= total) fputc('\n', stderr);
}

/* ---- records.csv, written by a second thread --------------------------------
 *
 * The pass thread merges the rings and builds leg instances; formatting and
 * writing records.csv (most of the bytes) runs beside it on another thread.
 * The pass hands over batches of merged records with their leg through a
 * small queue; the writer only reads what is fixed before it starts (ring
 * names, components, pids, tids, catalog names), so the two share nothing
 * else. Row order is the merge order either way.
 */

#define REC_BATCH 8192
#define REC_QUEUE 4

struct rec_batch {
    size_t n;
    latrec_merged ev[REC_BATCH];
    int32_t leg[REC_BATCH]; /* catalog leg, or -1 */
};

struct rec_writer {
    latrec_csv csv;
    const latrec_input *in;
    int wall;
    const char **ring_name, **comp_name, **leg_name;
    uint32_t *pid, *tid;
    int n_legs;
    struct rec_batch *batch[REC_QUEUE];
    size_t prod, cons, filled; /* batches handed over and not yet written */
    int done, threaded;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t not_empty, not_full;
};

static void write_rows(struct rec_writer *w, const struct rec_batch *b)
{
    latrec_csv *c = &w->csv;
    char namebuf[8];
    for (size_t i = 0; i < b->n; i++) {
        const latrec_merged *ev = &b->ev[i];
        const uint32_t r = ev->ring;
        const unsigned stage = latrec_rec_stage(ev->rec.sc);
        latrec_csv_u64(c, ev->t_ns);
        latrec_csv_str(c, w->ring_name[r]);
        latrec_csv_str(c, w->comp_name[r]);
        if (w->pid[r]) latrec_csv_u64(c, w->pid[r]);
        else latrec_csv_empty(c);
        latrec_csv_u64(c, w->tid[r]);
        latrec_csv_u64(c, latrec_rec_seq(ev->rec.sc));
        latrec_csv_u64(c, latrec_rec_cpu(ev->rec.sc));
        latrec_csv_u64(c, stage);
        latrec_csv_str(c, latrec_input_stage_name(w->in, r, stage, namebuf));
        if (b->leg[i] >= 0 && b->leg[i] < w->n_legs) latrec_csv_str(c, w->leg_name[b->leg[i]]);
        else latrec_csv_empty(c);
        latrec_csv_u64(c, ev->rec.aux);
        latrec_csv_u64(c, ev->rec.aux2);
        if (w->wall) latrec_csv_u64(c, ev->rec.t_ns);
        latrec_csv_end(c);
    }
}

static void *writer_main(void *arg)
{
    struct rec_writer *w = arg;
    for (;;) {
        pthread_mutex_lock(&w->mu);
        while (!w->filled && !w->done) pthread_cond_wait(&w->not_empty, &w->mu);
        if (!w->filled) {
            pthread_mutex_unlock(&w->mu);
            return NULL;
        }
        struct rec_batch *b = w->batch[w->cons % REC_QUEUE];
        pthread_mutex_unlock(&w->mu);
        write_rows(w, b);
        pthread_mutex_lock(&w->mu);
        w->cons++;
        w->filled--;
        pthread_cond_signal(&w->not_full);
        pthread_mutex_unlock(&w->mu);
    }
}

static void writer_free(struct rec_writer *w)
{
    for (int i = 0; i < REC_QUEUE; i++) free(w->batch[i]);
    free(w->ring_name);
    free(w->comp_name);
    free(w->leg_name);
    free(w->pid);
    free(w->tid);
}

/* Open records.csv, write its header, start the thread (or write inline
 * when no thread can be had). 0, or -1 with errno. */
static int writer_start(struct rec_writer *w, const latrec_input *in, const latrec_legs *legs, const char *path)
{
    memset(w, 0, sizeof(*w));
    w->in = in;
    w->wall = in->opts.wall;
    const size_t n = in->set.n + 1;
    w->ring_name = calloc(n, sizeof(*w->ring_name));
    w->comp_name = calloc(n, sizeof(*w->comp_name));
    w->pid = calloc(n, sizeof(*w->pid));
    w->tid = calloc(n, sizeof(*w->tid));
    w->n_legs = in->cat.n_legs;
    w->leg_name = calloc((size_t)w->n_legs + 1, sizeof(*w->leg_name));
    int ok = w->ring_name && w->comp_name && w->pid && w->tid && w->leg_name;
    for (int i = 0; ok && i < REC_QUEUE; i++) ok = (w->batch[i] = malloc(sizeof(struct rec_batch))) != NULL;
    if (!ok) {
        writer_free(w);
        errno = ENOMEM;
        return -1;
    }
    for (size_t i = 0; i < in->set.n; i++) {
        w->ring_name[i] = in->set.rings[i].name;
        w->comp_name[i] = latrec_legs_component_name(legs, latrec_legs_ring_component(legs, (uint32_t)i));
        w->pid[i] = in->set.rings[i].status == LATREC_RING_OK
                        ? latrec_legs_process(legs, latrec_legs_ring_process(legs, (uint32_t)i))->pid
                        : 0;
        w->tid[i] = latrec_ring_tid(&in->set.rings[i]);
    }
    for (int l = 0; l < w->n_legs; l++) w->leg_name[l] = in->cat.legs[l].name;
    if (latrec_csv_open(&w->csv, path, NULL) < 0) {
        const int e = errno;
        writer_free(w);
        errno = e;
        return -1;
    }
    static const char *const cols[] = { "t_ns", "ring", "component", "pid", "tid", "seq", "cpu",
                                        "stage", "stage_name", "leg", "aux", "aux2", NULL };
    for (int i = 0; cols[i]; i++) latrec_csv_str(&w->csv, cols[i]);
    if (w->wall) latrec_csv_str(&w->csv, "t_mono_ns");
    latrec_csv_end(&w->csv);
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->not_empty, NULL);
    pthread_cond_init(&w->not_full, NULL);
    w->threaded = pthread_create(&w->thread, NULL, writer_main, w) == 0;
    return 0;
}

/* The batch the pass fills next (waits while every batch is queued). */
static struct rec_batch *writer_batch(struct rec_writer *w)
{
    if (!w->threaded) return w->batch[0];
    pthread_mutex_lock(&w->mu);
    while (w->filled == REC_QUEUE) pthread_cond_wait(&w->not_full, &w->mu);
    pthread_mutex_unlock(&w->mu);
    return w->batch[w->prod % REC_QUEUE];
}

static void writer_push(struct rec_writer *w, struct rec_batch *b)
{
    if (!w->threaded) {
        write_rows(w, b);
        b->n = 0;
        return;
    }
    pthread_mutex_lock(&w->mu);
    w->prod++;
    w->filled++;
    pthread_cond_signal(&w->not_empty);
    pthread_mutex_unlock(&w->mu);
}

/* Write what is queued, stop the thread, close the file: 0, or -1 with
 * errno. */
static int writer_finish(struct rec_writer *w)
{
    if (w->threaded) {
        pthread_mutex_lock(&w->mu);
        w->done = 1;
        pthread_cond_signal(&w->not_empty);
        pthread_mutex_unlock(&w->mu);
        pthread_join(w->thread, NULL);
    }
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->not_empty);
    pthread_cond_destroy(&w->not_full);
    const int rc = latrec_csv_close(&w->csv);
    const int e = errno;
    writer_free(w);
    errno = e;
    return rc;
}

/* ---- resident memory ---------------------------------------------------------
 *
 * The rings are read through read-only shared mappings, and mapped pages
 * count as the process's resident memory. The merge reads every ring front
 * to back once, so the pages behind each ring's read position are done
 * with: drop them from the mapping (MADV_DONTNEED; the file and the page
 * cache keep them, a page touched again is simply mapped again), a window at
 * a time. Resident memory then follows the merge front, not the run size.
 */

#define DROP_WINDOW (1u << 15) /* records (1 MiB) between two drops of a ring */
#define PAGE_RECS   128u       /* records per 4 KiB page; the records start on a page */

/* Drop ring r's pages of write-order positions [*done, pos), whole pages
 * only; *done moves to the first position not dropped. */
static void drop_behind(const latrec_ring *r, uint64_t *done, uint64_t pos)
{
    uint64_t to = pos - ((r->start_slot + pos) & (PAGE_RECS - 1)); /* to a page start */
    if (r->entries < PAGE_RECS || to <= *done) return;
    for (uint64_t from = *done; from < to;) {
        const uint64_t slot = (r->start_slot + from) & r->mask;
        uint64_t run = r->entries - slot; /* up to the end of the ring, then from slot 0 */
        if (run > to - from) run = to - from;
        const uint64_t first = (slot + PAGE_RECS - 1) & ~(uint64_t)(PAGE_RECS - 1);
        const uint64_t end = slot + run; /* a page start, or the end of the ring */
        if (end > first)
            madvise((void *)(r->recs + first), (size_t)(end - first) * sizeof(latrec_rec), MADV_DONTNEED);
        from += run;
    }
    *done = to;
}

/* Records pass: records.csv (csv) and the instance consumers. */
static int convert_records(struct convert_pass *p, const char *records_path)
{
    latrec_input *in = p->in;
    struct rec_writer w;
    const int want_records = records_path != NULL;
    if (want_records && writer_start(&w, in, p->legs, records_path) < 0) return -1;
    latrec_input_totals tot;
    latrec_input_totals_get(in, &tot);

    uint64_t *dropped = calloc(in->set.n + 1, sizeof(*dropped)); /* per ring, see drop_behind() */
    latrec_merge m;
    if (!dropped || latrec_input_rewind(in, &m) < 0) {
        free(dropped);
        if (want_records) writer_finish(&w);
        return -1;
    }
    struct rec_batch *b = want_records ? writer_batch(&w) : NULL;
    if (b) b->n = 0;
    latrec_merged ev;
    uint64_t n = 0;
    while (latrec_input_next(in, &m, &ev)) {
        int leg = (int)ev.ring == in->sched_ring ? -1 : latrec_legs_feed(p->legs, ev.ring, &ev.rec);
        if (b) {
            b->ev[b->n] = ev;
            b->leg[b->n] = leg;
            if (++b->n == REC_BATCH) {
                writer_push(&w, b);
                b = writer_batch(&w);
                b->n = 0;
            }
        }
        if (ev.pos >= dropped[ev.ring] + DROP_WINDOW) drop_behind(&in->set.rings[ev.ring], &dropped[ev.ring], ev.pos);
        if ((++n & 0xFFFFF) == 0) progress(in, n, tot.valid);
    }
    if (n > 0xFFFFF) progress(in, tot.valid, tot.valid);
    if (b && b->n) writer_push(&w, b);
    latrec_legs_finish(p->legs);
    latrec_merge_free(&m);
    free(dropped);
    return want_records ? writer_finish(&w) : 0;
}

int latrec_cmd_convert(int argc, char **argv)
{
    static const struct argp_child children[] = { { &latrec_input_argp, 0, "Input:", 1 }, { 0 } };
    struct argp argp = { convert_options, parse_convert, "[DIR...]",
                         "Convert the rings of a run to CSV or to a trace-event timeline.\v"
                         "DIR is a run directory (default latrec.data) or any directory of .latrec "
                         "files; several DIRs (one per host) need --wall.\n\n"
                         "Exit status: 0 every ring read cleanly; 1 nothing could be read; 2 usage; "
                         "3 some rings were skipped (the rest was converted). See latrec-convert(1).",
                         children, 0, 0 };
    struct convert_opts o;
    memset(&o, 0, sizeof(o));
    o.quiet_secs = 2;
    argp_err_exit_status = LATREC_EXIT_USAGE;
    if (argp_parse(&argp, argc, argv, 0, 0, &o) != 0) return LATREC_EXIT_USAGE;
    if (o.input.n_dirs == 0) latrec_input_add_dir(&o.input, "latrec.data");
    if (o.watch) wait_quiet(&o.input, o.quiet_secs, o.timeout_secs);

    latrec_input in;
    if (latrec_input_open(&in, &o.input, "convert") != 0) {
        latrec_input_close(&in);
        return LATREC_EXIT_ERROR;
    }
    char outdir[4096];
    if (o.outdir) snprintf(outdir, sizeof(outdir), "%s", o.outdir);
    else snprintf(outdir, sizeof(outdir), "%s/csv", in.opts.dirs[0]);
    int rc = LATREC_EXIT_ERROR;
    struct convert_pass p = { &in, NULL, NULL, NULL };
    char path[4200];
    if (make_outdir(outdir) < 0) {
        fprintf(stderr, "latrec convert: %s: cannot create directory: %s\n", outdir, strerror(errno));
        goto out;
    }
    p.legs = latrec_legs_new(&in.cat, &in.set, in.ring_dir, 0, 0, on_instance, &p);
    if (!p.legs) {
        fprintf(stderr, "latrec convert: out of memory\n");
        goto out;
    }
    if (o.chrome) {
        snprintf(path, sizeof(path), "%s/trace.json", outdir);
        if (!(p.timeline = latrec_timeline_open(path, &in, p.legs))) {
            fprintf(stderr, "latrec convert: %s: %s\n", path, strerror(errno));
            goto out;
        }
    } else {
        p.tables = latrec_component_tables_new(&in, p.legs);
        if (!p.tables) {
            fprintf(stderr, "latrec convert: out of memory\n");
            goto out;
        }
    }
    snprintf(path, sizeof(path), "%s/records.csv", outdir);
    if (convert_records(&p, o.chrome ? NULL : path) < 0) {
        fprintf(stderr, "latrec convert: %s: %s\n", path, strerror(errno));
        goto out;
    }
    if (o.chrome) {
        if (latrec_timeline_close(p.timeline) < 0) {
            p.timeline = NULL;
            fprintf(stderr, "latrec convert: %s/trace.json: %s\n", outdir, strerror(errno));
            goto out;
        }
        p.timeline = NULL;
    } else {
        snprintf(path, sizeof(path), "%s/rings.csv", outdir);
        if (write_rings_csv(&in, path) < 0) {
            fprintf(stderr, "latrec convert: %s: %s\n", path, strerror(errno));
            goto out;
        }
        char err[4400];
        if (latrec_component_tables_write(p.tables, outdir, err, sizeof(err)) < 0) {
            fprintf(stderr, "latrec convert: %s\n", err);
            goto out;
        }
    }
    if (!in.opts.quiet) {
        latrec_input_totals t;
        latrec_input_totals_get(&in, &t);
        fprintf(stderr, "latrec convert: %zu rings (%zu skipped), %llu records", t.rings, t.rejected,
                (unsigned long long)in.records);
        if (t.dropped) fprintf(stderr, ", %llu dropped before the start stamp", (unsigned long long)t.dropped);
        fprintf(stderr, " -> %s\n", outdir);
        if (latrec_legs_guessed_processes(p.legs))
            fprintf(stderr, "latrec convert: rings without a pid (format v1/v2): one process per component assumed\n");
    }
    rc = in.n_rejected ? LATREC_EXIT_SKIPPED : LATREC_EXIT_OK;
out:
    if (p.timeline) latrec_timeline_close(p.timeline);
    latrec_component_tables_free(p.tables);
    latrec_legs_free(p.legs);
    latrec_input_close(&in);
    return rc;
}
