/* The options shared by the subcommands (cli/options.h). */
#include "cli/options.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"

#define HOURS_8784 (8784ull * 3600000000000ull) /* a leap year */

const latrec_duration_opt latrec_opt_warmup = { "--warm-up", NULL, 0, HOURS_8784 };
const latrec_duration_opt latrec_opt_interval = { "--interval", NULL, 1000, HOURS_8784 };

uint64_t latrec_arg_duration(struct argp_state *state, const latrec_duration_opt *opt, const char *arg)
{
    char err[256];
    uint64_t ns = 0;
    if (latrec_duration_parse(opt, arg, &ns, err, sizeof(err)) < 0) argp_error(state, "%s", err);
    return ns;
}

uint64_t latrec_arg_count(struct argp_state *state, const latrec_count_opt *opt, const char *arg)
{
    char err[256];
    uint64_t v = 0;
    if (latrec_count_parse(opt, arg, &v, err, sizeof(err)) < 0) argp_error(state, "%s", err);
    return v;
}

const char *latrec_arg_name(struct argp_state *state, const char *opt, const char *what, const char *arg)
{
    if (!*arg) argp_error(state, "%s: an empty %s name", opt, what);
    const size_t n = strlen(arg);
    if (n >= PATH_MAX) argp_error(state, "%s: a %s name of %zu bytes (at most %d)", opt, what, n, PATH_MAX - 1);
    return arg;
}

const char *latrec_arg_out_file(struct argp_state *state, const char *opt, const char *arg)
{
    latrec_arg_name(state, opt, "file", arg);
    return strcmp(arg, "-") == 0 ? NULL : arg;
}

const char *latrec_arg_out_dir(struct argp_state *state, const char *opt, const char *arg)
{
    if (strcmp(arg, "-") == 0)
        argp_error(state, "%s -: standard output cannot take a directory (a directory named '-' is ./-)", opt);
    return latrec_arg_name(state, opt, "directory", arg);
}

void latrec_arg_dir(struct argp_state *state, latrec_input_opts *o, const char *arg)
{
    if (latrec_input_add_dir(o, latrec_arg_name(state, "DIR", "directory", arg)) < 0)
        argp_error(state, "too many directories");
}

int latrec_arg_choice(struct argp_state *state, const char *name, const latrec_choice *table, const char *arg)
{
    int v = 0;
    if (strcmp(arg, "help") == 0) { /* the list, for people and the completion */
        for (const latrec_choice *c = table; c->name; c++) printf("%s\t%s\n", c->name, c->doc ? c->doc : "");
        exit(LATREC_EXIT_OK);
    }
    if (latrec_choice_parse(table, arg, &v) < 0) {
        char names[256];
        argp_error(state, "%s must be %s, not '%s'", name, latrec_choice_list(table, -1, names, sizeof(names)), arg);
    }
    return v;
}

/* ---- selection ------------------------------------------------------------ */

enum { OPT_COMPONENT = 0x700, OPT_LEG, OPT_HOP, OPT_WARMUP, OPT_CALIBRATE };

/* clang-format off */
static const struct argp_option select_options[] = {
    { "component", OPT_COMPONENT, "NAME", 0, "Only this component (a name the run holds)", 0 },
    { "leg", OPT_LEG, "NAME", 0, "Only this leg (a name of the catalog or the run)", 0 },
    { "hop", OPT_HOP, "A:B", 0, "Only the hop from stage A to stage B (any two stages of a leg); repeatable", 0 },
    { "warm-up", OPT_WARMUP, "DURATION", 0, "Ignore instances that start in the first DURATION of the run "
                                            "(with its unit, e.g. 500ms)", 0 },
    { "calibrate", OPT_CALIBRATE, 0, 0, "Subtract each ring's measured clock cost from every hop", 0 },
    { 0 }
};
/* clang-format on */

static error_t parse_select(int key, char *arg, struct argp_state *state)
{
    latrec_select_opts *s = state->input;
    switch (key) {
    case OPT_COMPONENT: s->pass.component = arg; break;
    case OPT_LEG: s->pass.leg = arg; break;
    case OPT_HOP:
        if (!strchr(arg, ':')) argp_error(state, "--hop takes A:B, not '%s'", arg);
        if (s->n_hop_specs == LATREC_MAX_HOP_SPECS)
            argp_error(state, "--hop: at most %d, '%s' is one more", LATREC_MAX_HOP_SPECS, arg);
        s->hop_specs[s->n_hop_specs++] = arg;
        break;
    case OPT_WARMUP: s->pass.warmup_ns = latrec_arg_duration(state, &latrec_opt_warmup, arg); break;
    case OPT_CALIBRATE: s->pass.calibrate = 1; break;
    default: return ARGP_ERR_UNKNOWN;
    }
    return 0;
}

struct argp latrec_select_argp = { select_options, parse_select, 0, 0, 0, 0, 0 };

int latrec_select_resolve(latrec_select_opts *s, const latrec_input *in, const char *cmd)
{
    return latrec_hop_specs_resolve(&s->pass.hops, in, s->hop_specs, s->n_hop_specs, cmd);
}

int latrec_select_any(const latrec_select_opts *s)
{
    return s->pass.component || s->pass.leg || s->n_hop_specs;
}

/* ---- output --------------------------------------------------------------- */

enum { OPT_UNIT = 0x780, OPT_FORMAT };

/* clang-format off */
static const struct argp_option output_options[] = {
    { "unit", OPT_UNIT, "UNIT", 0, NULL, 0 },   /* doc: the units table (output_help) */
    { "format", OPT_FORMAT, "FMT", 0, NULL, 0 }, /* doc: the command's format table */
    { 0 }
};
/* clang-format on */

static error_t parse_output(int key, char *arg, struct argp_state *state)
{
    latrec_output_opts *o = state->input;
    switch (key) {
    case OPT_UNIT:
        latrec_units_parse(latrec_unit_choices[latrec_arg_choice(state, "--unit", latrec_unit_choices, arg)].name,
                           &o->units);
        break;
    case OPT_FORMAT: o->format = latrec_arg_choice(state, "--format", o->formats, arg); break;
    default: return ARGP_ERR_UNKNOWN;
    }
    return 0;
}

/* The --unit and --format lines of --help, made from their tables. */
static char *output_help(int key, const char *text, void *input)
{
    const latrec_output_opts *o = input;
    char names[256], *doc = NULL;
    if (key == OPT_UNIT) {
        latrec_choice_list(latrec_unit_choices, LATREC_UNIT_DEFAULT, names, sizeof(names));
        if (asprintf(&doc, "%s, for every time figure", names) < 0) doc = NULL;
    } else if (key == OPT_FORMAT && o && o->formats) {
        latrec_choice_list(o->formats, 0, names, sizeof(names));
        if (asprintf(&doc, "%s ('--format=help' lists them)", names) < 0) doc = NULL;
    }
    return doc ? doc : (char *)text;
}

struct argp latrec_output_argp = { output_options, parse_output, 0, 0, 0, output_help, 0 };

void latrec_output_init(latrec_output_opts *o, const latrec_choice *formats)
{
    o->formats = formats;
    o->format = formats[0].value;
    latrec_units_parse(latrec_unit_choices[LATREC_UNIT_DEFAULT].name, &o->units);
}

/* ---- -h ------------------------------------------------------------------- */

/* clang-format off */
static const struct argp_option help_options[] = {
    /* Group -1: listed with argp's own -?, --help. */
    { 0, 'h', 0, 0, "Give this help list (as --help)", -1 },
    { 0 }
};
/* clang-format on */

static error_t parse_help(int key, char *arg, struct argp_state *state)
{
    (void)arg;
    if (key != 'h') return ARGP_ERR_UNKNOWN;
    argp_state_help(state, state->out_stream, ARGP_HELP_STD_HELP);
    return 0;
}

struct argp latrec_help_argp = { help_options, parse_help, 0, 0, 0, 0, 0 };

const struct argp_child latrec_analysis_children[] = { { &latrec_input_argp, 0, "Input:", 1 },
                                                       { &latrec_select_argp, 0, "Selection:", 2 },
                                                       { &latrec_output_argp, 0, "Output:", 3 },
                                                       { &latrec_help_argp, 0, 0, -1 },
                                                       { 0 } };

void latrec_analysis_inputs(struct argp_state *state, latrec_input_opts *input, latrec_select_opts *sel,
                            latrec_output_opts *out)
{
    state->child_inputs[0] = input;
    state->child_inputs[1] = sel;
    state->child_inputs[2] = out;
}
