/* latrec report: per component and leg, a table of hop latencies. */
#include <argp.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/gate.h"
#include "analyze/stats.h"
#include "cli/commands.h"
#include "engine/figures.h"
#include "engine/input.h"
#include "cli/options.h"
#include "engine/pass.h"
#include "cli/report_format.h"
#include "read/escape.h"
#include "read/outfile.h"

enum { OPT_TOP = 0x500, OPT_PCT, OPT_FAIL, OPT_BASELINE, OPT_DROP_OUTLIERS, OPT_INTERVAL, OPT_EXPLAIN, OPT_PATH };

#define MAX_GATES 32


struct report_opts {
    latrec_input_opts input;
    latrec_select_opts sel;
    latrec_output_opts out;
    int top;
    double pct[LATREC_MAX_PCT];
    int n_pct;
    latrec_gate gates[MAX_GATES];
    int n_gates;
    const char *baseline;
    int drop_outliers;
    uint64_t interval_ns;
    int explain;
    const char *output; /* -o FILE, NULL: standard output */
};

static const struct argp_option report_options[] = {
    { "top", OPT_TOP, "N", 0, "Also list the N slowest instances of each leg", 0 },
    { "path", OPT_PATH, "NAME", 0, "Only the path NAME (e.g. e3/loop; CATALOG:NAME, e.g. pipe:request, when two "
                                   "catalogs of the run define NAME): its segments, no leg tables (without "
                                   "--component, --leg, --hop every catalog's paths are shown); --path=help lists "
                                   "the run's paths", 0 },
    { "percentiles", OPT_PCT, "LIST", 0, "Percentiles to show (default 50,90,99,99.9,99.99)", 0 },
    { "fail-over", OPT_FAIL, "SPEC", 0, "Exit 4 when a figure crosses a limit, e.g. "
                                        "'libe3/outbound:total:p99>200us' (quoted); repeatable (see latrec-report(1))", 0 },
    { "baseline", OPT_BASELINE, "DIR", 0, "Compare with the run in DIR: baseline value and change per figure", 0 },
    { "output", 'o', "FILE", 0, "Write the report to FILE (default, and '-': standard output; never over a "
                                "file latrec did not write)", 0 },
    { "drop-outliers", OPT_DROP_OUTLIERS, 0, 0, "Leave outliers out of every other figure", 0 },
    { "explain", OPT_EXPLAIN, "N", 0, "Tell the N slowest instances of each leg in a sentence each: which "
                                      "hop took the time and what the scheduler did meanwhile", 0 },
    { "interval", OPT_INTERVAL, "DURATION", 0, "Also a time series: per interval (with its unit, e.g. "
                                               "100ms) and leg, count, rate, p50/p99 of the total, bytes", 0 },
    { 0 }
};

static const latrec_count_opt top_opt = { "--top", 0, 10000 };
static const latrec_count_opt explain_opt = { "--explain", 0, 1000 };

static error_t parse_report(int key, char *arg, struct argp_state *state)
{
    struct report_opts *o = state->input;
    switch (key) {
    case ARGP_KEY_INIT:
        latrec_analysis_inputs(state, &o->input, &o->sel, &o->out);
        break;
    case OPT_PATH: o->sel.pass.path = arg; break;
        break;
    case OPT_TOP: o->top = (int)latrec_arg_count(state, &top_opt, arg); break;
    case OPT_PCT:
        if ((o->n_pct = latrec_parse_percentiles(arg, o->pct, LATREC_MAX_PCT)) < 0)
            argp_error(state, "--percentiles takes a list like 50,99,99.9 (0..100, at most 16), not '%s'", arg);
        break;
    case OPT_FAIL: {
        char why[200];
        if (o->n_gates == MAX_GATES) argp_error(state, "--fail-over: at most %d gates", MAX_GATES);
        if (latrec_gate_parse(&o->gates[o->n_gates], arg, LATREC_GATE_FIGURE, why, sizeof(why)) < 0) {
            if (why[0]) argp_error(state, "--fail-over '%s': %s", arg, why);
            else
                argp_error(state, "--fail-over takes 'COMPONENT/LEG:HOP:FIGURE>LIMIT' or "
                                  "'PATH:SEGMENT:FIGURE>LIMIT' (e.g. --fail-over 'libe3/outbound:total:p99>200us', "
                                  "--fail-over 'e3/loop:total:p99>2ms'), not '%s'", arg);
        }
        o->n_gates++;
        break;
    }
    case OPT_BASELINE: o->baseline = latrec_arg_name(state, "--baseline", "directory", arg); break;
    case 'o': o->output = latrec_arg_out_file(state, "-o", arg); break;
    case OPT_DROP_OUTLIERS: o->drop_outliers = 1; break;
    case OPT_EXPLAIN: o->explain = (int)latrec_arg_count(state, &explain_opt, arg); break;
    case OPT_INTERVAL: o->interval_ns = latrec_arg_duration(state, &latrec_opt_interval, arg); break;
    case ARGP_KEY_ARG: latrec_arg_dir(state, &o->input, arg); break;
    default: return ARGP_ERR_UNKNOWN;
    }
    return 0;
}

/* ---- gates --------------------------------------------------------------------- */

/* The gate names table t: COMPONENT/LEG of a leg; a path by its name as
 * shown or qualified, CATALOG:NAME (analyze/gate.h, analyze/path_index.h). */
static int gate_names(const latrec_report_table *t, const latrec_gate *g)
{
    if (t->kind != LATREC_TABLE_PATH) return latrec_gate_names_leg(g, t->component, t->name);
    return latrec_gate_names_path(g, t->name) || (t->qualified && latrec_gate_names_path(g, t->qualified));
}

/* A gate naming a path by a bare name that the paths of several catalogs
 * have: 1 with their qualified names in buf. */
static int gate_ambiguous(const latrec_report *m, const latrec_gate *g, char *buf, size_t len)
{
    int n = 0;
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < m->n_tables; i++) {
        const char *q = m->tables[i].qualified, *colon = q ? strchr(q, ':') : NULL;
        if (m->tables[i].kind != LATREC_TABLE_PATH || !colon || !latrec_gate_names_path(g, colon + 1)) continue;
        int w = snprintf(buf + used, len - used, "%s%s", n++ ? ", " : "", q);
        if (w > 0 && (size_t)w < len - used) used += (size_t)w;
    }
    return n > 1;
}

/* 0 passed, 1 crossed (printed), -1 the gate names nothing (printed);
 * selected: --component, --leg, --hop or --path narrowed the tables. */
static int check_gate(const latrec_report *m, const latrec_gate *g, int selected)
{
    const char *hop = g->row;
    for (int i = 0; i < m->n_tables; i++) {
        const latrec_report_table *t = &m->tables[i];
        if (!gate_names(t, g)) continue;
        int h = -1;
        int gaps = strcmp(hop, "inter-arrival") == 0 || strcmp(hop, "interarrival") == 0;
        for (int k = 0; k < t->n_rows && h < 0; k++)
            if (gaps ? t->rows[k].kind == LATREC_ROW_GAPS
                     : t->rows[k].kind == LATREC_ROW_HOP && strcmp(t->rows[k].name, hop) == 0)
                h = k;
        if (h < 0) break;
        const latrec_figures *f = &t->rows[h].fig;
        double v = 0;
        int has = 1, time = 0, h_count = strcmp(g->figure, "count") == 0 || strcmp(g->figure, "outliers") == 0 ||
                                         strcmp(g->figure, "regressions") == 0;
        char buf[32];
        if (strcmp(g->figure, "count") == 0) v = (double)f->count;
        else if (strcmp(g->figure, "outliers") == 0) v = (double)f->outliers, has = f->outliers_known;
        else if (strcmp(g->figure, "regressions") == 0) v = (double)f->regressions;
        else {
            int idx = -1;
            for (int k = 0; k < f->n; k++)
                if (strcmp(latrec_figure_name(k, m->pct, m->n_pct, buf, sizeof(buf)), g->figure) == 0) idx = k;
            if (idx < 0) {
                fprintf(stderr, "latrec report: --fail-over %s: no figure '%s'\n", g->spec, g->figure);
                return -1;
            }
            has = f->has[idx];
            v = f->v[idx];
            time = latrec_report_is_time(m, idx);
        }
        if (!has) {
            /* A gate that cannot be judged fails: say why. */
            if (f->count && strcmp(g->figure, "outliers") == 0)
                fprintf(stderr, "latrec report: %s: no value (fewer than %u chunks of %u samples for the "
                                "outlier rule): failed\n", g->spec, LATREC_OUTLIER_MIN_CHUNKS, LATREC_OUTLIER_CHUNK);
            else
                fprintf(stderr, "latrec report: %s: no value (%s): failed\n", g->spec,
                        f->count ? "too few samples for this figure" : "no complete instance");
            return 1;
        }
        int crossed = g->over ? v > g->limit : v < g->limit;
        if (crossed) {
            char vb[64], lb[64];
            if (h_count) { /* count, outliers, regressions: whole numbers */
                snprintf(vb, sizeof(vb), "%.0f", v);
                snprintf(lb, sizeof(lb), "%g", g->limit);
            } else {
                latrec_report_fmt_value(vb, sizeof(vb), v, time, &m->units);
                latrec_report_fmt_value(lb, sizeof(lb), g->limit, time, &m->units);
            }
            fprintf(stderr, "latrec report: %s/%s:%s:%s = %s%s %s %s%s: limit crossed\n", g->component, g->leg,
                    g->hop, g->figure, vb, time ? m->units.name : "", g->over ? ">" : "<", lb,
                    time ? m->units.name : "");
        }
        return crossed;
    }
    char names[512];
    if (gate_ambiguous(m, g, names, sizeof(names)))
        fprintf(stderr,
                "latrec report: --fail-over %s: several catalogs of this run have a path of that name: name it "
                "with its catalog (%s)\n",
                g->spec, names);
    else
        fprintf(stderr, "latrec report: --fail-over %s: no such component/leg/hop or path/segment in this run%s\n",
                g->spec, selected ? " (or left out by --component, --leg, --hop or --path)" : "");
    return -1;
}

/* --path=help: the paths of every catalog of the run, "NAME<TAB>LEG->LEG..."
 * a line (for people and the completion), NAME as report shows it
 * (CATALOG:NAME when two catalogs define NAME). */
static int list_paths(const latrec_input_opts *opts)
{
    latrec_input in;
    if (latrec_input_open(&in, opts, "report") != 0) return LATREC_EXIT_ERROR;
    for (int k = 0; k < latrec_path_index_n(in.paths); k++) {
        printf("%s\t", latrec_path_index_name(in.paths, k));
        for (int i = 0; i < latrec_path_index_path(in.paths, k)->n_legs; i++)
            printf("%s%s", i ? "->" : "", latrec_path_index_leg_name(in.paths, k, i));
        printf("\n");
    }
    latrec_input_close(&in);
    return LATREC_EXIT_OK;
}

/* The report to FILE through read/outfile.h (a temporary name renamed into
 * place; never over a file latrec did not write), or to standard output
 * (whose failure main.c says: stdout_status). */
static int write_report(const latrec_report *m, const latrec_report_format *f, const char *path)
{
    if (!path) {
        f->write(m, stdout);
        return 0;
    }
    latrec_outfile of;
    latrec_outlock lock;
    char err[4400], dir[4200];
    const char *slash = strrchr(path, '/');
    snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) + (slash == path) : 1, slash ? path : ".");
    /* FILE's directory held while it is written: another latrec placing
     * files there at once is refused, never mixed with this one */
    if (latrec_outdir_lock(dir, &lock, err, sizeof(err)) < 0 ||
        latrec_outfile_open(&of, path, 0, err, sizeof(err)) < 0) {
        latrec_outdir_unlock(&lock);
        latrec_text_say(stderr, "latrec report", err);
        return -1;
    }
    f->write(m, of.f);
    if (ferror(of.f)) {
        /* the flush meets the failing write again and says why */
        int e = fflush(of.f) != 0 ? errno : 0;
        char line[4400];
        snprintf(line, sizeof(line), "%s: %s", path, e ? strerror(e) : "write error");
        latrec_text_say(stderr, "latrec report", line);
        latrec_outfile_abort(&of);
        latrec_outdir_unlock(&lock);
        return -1;
    }
    const int rc = latrec_outfile_commit(&of, err, sizeof(err));
    latrec_outdir_unlock(&lock);
    if (rc < 0) latrec_text_say(stderr, "latrec report", err);
    return rc < 0 ? -1 : 0;
}

/* ---- main ------------------------------------------------------------------------ */

int latrec_cmd_report(int argc, char **argv)
{
    struct argp argp = { report_options, parse_report, "[DIR...]",
                         "Per component and leg, a table of hop latencies: count, min, percentiles, max, "
                         "mean, stddev, skewness, outliers and clock regressions; then per catalog path "
                         "(one message end to end), a row per segment: every hop and every hand-off.\v"
                         "DIR is a run directory (default latrec.data) or any directory of .latrec files. "
                         "Percentiles are exact up to 2048 samples per column, then within 0.1%.\n\n"
                         "Exit status: 0 success; 1 nothing could be read, the output could not be written, "
                         "or a name the run does not hold (the message lists those it does); 2 usage; "
                         "3 some rings (of the run or the baseline) were skipped; 4 a --fail-over limit was "
                         "crossed; 141 standard output's reader went away. "
                         "See latrec-report(1).",
                         latrec_analysis_children, 0, 0 };
    struct report_opts o;
    memset(&o, 0, sizeof(o));
    static const double default_pct[] = { 50, 90, 99, 99.9, 99.99 };
    memcpy(o.pct, default_pct, sizeof(default_pct));
    o.n_pct = 5;
    /* --format's table: the report's writers (report_model.h). */
    static latrec_choice formats[LATREC_REPORT_MAX_FORMATS + 1];
    for (int i = 0; i < LATREC_REPORT_MAX_FORMATS && latrec_report_formats[i].name; i++)
        formats[i] = (latrec_choice){ latrec_report_formats[i].name, i, latrec_report_formats[i].summary };
    latrec_output_init(&o.out, formats);
    argp_err_exit_status = LATREC_EXIT_USAGE;
    if (argp_parse(&argp, argc, argv, 0, 0, &o) != 0) return LATREC_EXIT_USAGE;
    latrec_outfile_unlink_on_signal();
    if (o.sel.pass.path && strcmp(o.sel.pass.path, "help") == 0) return list_paths(&o.input);
    /* Percentiles a gate names are computed even when not listed. */
    for (int g = 0; g < o.n_gates; g++) {
        if (o.gates[g].figure[0] != 'p') continue;
        double p = strtod(o.gates[g].figure + 1, NULL);
        int have = 0;
        for (int i = 0; i < o.n_pct; i++) have |= o.pct[i] == p;
        if (have) continue;
        if (o.n_pct == LATREC_MAX_PCT) {
            fprintf(stderr, "latrec report: --fail-over %s: %s is not among the %d --percentiles listed, the most a report holds\n",
                    o.gates[g].spec, o.gates[g].figure, LATREC_MAX_PCT);
            return LATREC_EXIT_USAGE;
        }
        o.pct[o.n_pct++] = p;
    }

    /* Paths unless legs, components or hops were selected; --path picks one. */
    o.sel.pass.paths = o.sel.pass.path || !latrec_select_any(&o.sel);
    o.sel.pass.no_legs = o.sel.pass.path && !latrec_select_any(&o.sel);
    latrec_report_request req = {
        .pass = o.sel.pass, .hop_specs = o.sel.hop_specs, .n_hop_specs = o.sel.n_hop_specs, .top = o.top,
        .explain = o.explain, .pct = o.pct, .n_pct = o.n_pct, .units = o.out.units,
        .drop_outliers = o.drop_outliers, .interval_ns = o.interval_ns, .baseline = o.baseline,
    };
    const latrec_report_format *format = &latrec_report_formats[o.out.format];
    if (format->write == latrec_report_write_html) {
        /* The page's charts: distributions, a time series, the slowest
         * instances explained (5 unless --top / --explain say). */
        req.dists = 1;
        req.auto_interval = 1;
        if (!o.top && !o.explain) req.explain = 5;
    }
    latrec_report m;
    o.input.guess = 1; /* the first pass checks what the guess gave (engine/input.h), or starts over */
    int rc = latrec_report_build(&m, &o.input, &req);
    if (rc == 0) {
        if (write_report(&m, format, o.output) < 0) rc = LATREC_EXIT_ERROR;
        int crossed = 0, bad = 0;
        for (int g = 0; g < o.n_gates; g++) {
            int c = check_gate(&m, &o.gates[g], o.sel.pass.path || latrec_select_any(&o.sel));
            crossed |= c > 0;
            bad |= c < 0;
        }
        if (rc == 0) rc = bad ? LATREC_EXIT_ERROR : crossed ? LATREC_EXIT_GATE : m.n_rejected ? LATREC_EXIT_SKIPPED : LATREC_EXIT_OK;
    }
    latrec_report_free(&m);
    return rc;
}
