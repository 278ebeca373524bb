/*
 * cli/options.h - the options every subcommand parses the same way, as argp
 * children, and the option values they share.
 *
 *   latrec_input_argp   (cli/input_argp.c) the directories, catalog, --wall, -q
 *   latrec_select_argp  --component, --leg, --hop, --warm-up, --calibrate
 *   latrec_output_argp  --unit, --format (the command's own format table)
 *   latrec_help_argp    -h, the same as --help
 *
 * Durations, counts and numbers follow the one grammar of util/duration.h
 * and util/number.h; the ranges below are the data each option's --help
 * and man page state. A bad value is a usage error (argp_error: one line,
 * exit 2, or 125 for record). A choice (--unit, --format) is a table: its
 * --help line is made from it, and "--unit=help" / "--format=help" print
 * it (name TAB line), which the bash completion reads.
 */
#ifndef LATREC_CLI_OPTIONS_H
#define LATREC_CLI_OPTIONS_H

#include <argp.h>
#include <stdint.h>

#include "engine/figures.h"
#include "engine/input.h"
#include "engine/pass.h"
#include "util/duration.h"
#include "util/number.h"

/* The directories, catalog, clock and horizons (engine/input.h opts). */
extern struct argp latrec_input_argp;
/* What --help says of -q instead of "No progress or summary on stderr",
 * and of --threads instead of report's text, for a command whose options
 * do otherwise (latrec top); NULL keeps the text (call before argp_parse;
 * the texts stay the caller's). */
void latrec_input_docs(const char *quiet, const char *threads);

/* --warm-up (report, hist): a unit is required; 0..8784h. */
extern const latrec_duration_opt latrec_opt_warmup;
/* --interval (report): a unit is required; 1us..8784h. */
extern const latrec_duration_opt latrec_opt_interval;

/* Parse or argp_error() with the parser's line. */
uint64_t latrec_arg_duration(struct argp_state *state, const latrec_duration_opt *opt, const char *arg);
uint64_t latrec_arg_count(struct argp_state *state, const latrec_count_opt *opt, const char *arg);

/* A file or directory name an option takes (opt: "-o", "--catalog"...;
 * what: "file" or "directory"): arg, or argp_error() "OPT: an empty
 * directory name" when it is "" (which names nothing, and left its message
 * naming nothing: "latrec: : cannot create"), "OPT: a directory name of N
 * bytes (at most 4095)" past PATH_MAX (a buffer cut it short: convert
 * wrote into the directory its first 4095 bytes named). Every option and
 * operand that takes a name goes through here. */
const char *latrec_arg_name(struct argp_state *state, const char *opt, const char *what, const char *arg);
/* The FILE an option writes (report's -o): checked as latrec_arg_name;
 * "-" is standard output: NULL. */
const char *latrec_arg_out_file(struct argp_state *state, const char *opt, const char *arg);
/* The DIR an option writes into (-o of convert, record, top): checked as
 * latrec_arg_name; "-" is argp_error(): standard output holds no directory,
 * and a directory named "-" would pass for it. */
const char *latrec_arg_out_dir(struct argp_state *state, const char *opt, const char *arg);
/* A DIR operand or -i DIR: checked as latrec_arg_name ("DIR"), added to o
 * (argp_error past LATREC_MAX_DIRS). */
void latrec_arg_dir(struct argp_state *state, latrec_input_opts *o, const char *arg);

/* "--NAME=help": print the table (name TAB doc) and exit 0; else the value
 * of arg in it, or argp_error() listing the names. */
int latrec_arg_choice(struct argp_state *state, const char *name, const latrec_choice *table, const char *arg);

#define LATREC_MAX_HOP_SPECS 16

/* What to analyse (report, hist). The child's input: a latrec_select_opts. */
typedef struct latrec_select_opts {
    latrec_pass_opts pass;                       /* component, leg, warmup_ns, calibrate */
    const char *hop_specs[LATREC_MAX_HOP_SPECS]; /* --hop A:B as given */
    int n_hop_specs;
} latrec_select_opts;

extern struct argp latrec_select_argp;

/* Check the --hop specs against the run's catalogs (a pair some catalog
 * names both stages of; each leg reads it under its own catalog) into
 * s->pass.hops. 0, or -1 with one line ("latrec CMD: --hop A:B: unknown
 * stage ..."). */
int latrec_select_resolve(latrec_select_opts *s, const latrec_input *in, const char *cmd);

/* Any --component, --leg or --hop given. */
int latrec_select_any(const latrec_select_opts *s);

/* How to print (report, hist). The child's input: a latrec_output_opts,
 * with formats (default first: value 0) set before argp_parse. */
typedef struct latrec_output_opts {
    const latrec_choice *formats; /* the command's table */
    int format;                   /* its value */
    latrec_units units;           /* --unit (default us) */
} latrec_output_opts;

extern struct argp latrec_output_argp;

/* Defaults: the first format, microseconds. */
void latrec_output_init(latrec_output_opts *o, const latrec_choice *formats);

/* -h: the same as --help (rtla, perf and bcc's tools take it). */
extern struct argp latrec_help_argp;

/* The children of every analysis command (report, hist, top), in --help
 * order: Input, Selection, Output, then -h. */
extern const struct argp_child latrec_analysis_children[];
/* At ARGP_KEY_INIT: hand those children their option structs. */
void latrec_analysis_inputs(struct argp_state *state, latrec_input_opts *input, latrec_select_opts *sel,
                            latrec_output_opts *out);

#endif
