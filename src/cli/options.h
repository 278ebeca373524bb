/*
 * cli/options.h - option values every subcommand parses the same way.
 *
 * Durations, counts and numbers follow the one grammar of util/duration.h
 * and util/number.h; the ranges below are the data each option's --help
 * and man page state. A bad value is a usage error (argp_error: one line,
 * exit 2, or 125 for record).
 */
#ifndef LATREC_CLI_OPTIONS_H
#define LATREC_CLI_OPTIONS_H

#include <argp.h>
#include <stdint.h>

#include "util/duration.h"
#include "util/number.h"

/* --warm-up (report, hist): a unit is required; 0..8784h. */
extern const latrec_duration_opt latrec_opt_warmup;
/* --interval (report): a unit is required; 1us..8784h. */
extern const latrec_duration_opt latrec_opt_interval;
/* A --fail-over limit on a time figure: a unit is required. */
extern const latrec_duration_opt latrec_opt_gate_limit;

/* Parse or argp_error() with the parser's line. */
uint64_t latrec_arg_duration(struct argp_state *state, const latrec_duration_opt *opt, const char *arg);
uint64_t latrec_arg_count(struct argp_state *state, const latrec_count_opt *opt, const char *arg);

#endif
