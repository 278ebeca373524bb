/* cli/input_argp.c - the options every analysis subcommand takes
 * (latrec_input_argp): directories, catalog, clock, horizons, threads, -q. They
 * fill an engine/input.h latrec_input_opts. */
#include "cli/options.h"
#include "engine/input.h"

#include <stdlib.h>
#include <string.h>

enum { OPT_CATALOG = 0x300, OPT_STAGES, OPT_STAGE_PREFIX, OPT_WALL, OPT_LEG_HORIZON, OPT_PATH_HORIZON, OPT_ALIGN,
       OPT_THREADS };

static const struct argp_option input_options[] = {
    { "input", 'i', "DIR", 0, "Read the rings of DIR (a run directory or any directory of "
                              ".latrec files); repeatable, like positional DIRs", 1 },
    { "catalog", OPT_CATALOG, "FILE", 0, "Stage catalog file (stages, legs, extras, keys, joins); "
                                         "overrides what the rings name", 1 },
    { "stages", OPT_STAGES, "HEADER", 0, "Read stage ids from a C header's enum", 1 },
    { "stage-prefix", OPT_STAGE_PREFIX, "PREFIX", 0, "Enumerator prefix for --stages (e.g. MYAPP_)", 1 },
    { "wall", OPT_WALL, 0, 0, "Order and print times on CLOCK_REALTIME, mapped per ring (needed "
                              "to combine hosts or boots)", 1 },
    { "align", OPT_ALIGN, 0, 0, "With --wall and the run directories of several hosts: shift each host's "
                                "clock by the offset estimated from paths that go there and back (NTP's "
                                "estimate), instead of trusting its realtime pairs", 1 },
    { "leg-horizon", OPT_LEG_HORIZON, "DURATION", 0, "An instance open longer than this (stream time) "
                                                     "ends unfinished, counted in the header (default 10s)", 1 },
    { "path-horizon", OPT_PATH_HORIZON, "DURATION", 0, "A path instance whose legs have not all joined "
                                                       "this long after its first one leaves incomplete, "
                                                       "counted where it stopped (default 10s)", 1 },
    { "threads", OPT_THREADS, "N", 0, "Read a finished run on N threads (1..64; default 2 when two CPUs are "
                                      "online, else 1; convert: 1): the record stream, the leg builder and the figures "
                                      "in a pipeline; the output is the same for every N", 1 },
    { "quiet", 'q', 0, 0, "No progress or summary on stderr", 1 },
    { 0 }
};


/* --leg-horizon and --path-horizon: a unit is required (the one grammar of
 * util/duration.h); 1ns..8784h. */
static const latrec_duration_opt leg_horizon_opt = { "--leg-horizon", NULL, 1, 8784ull * 3600000000000ull };
static const latrec_duration_opt path_horizon_opt = { "--path-horizon", NULL, 1, 8784ull * 3600000000000ull };
static const latrec_count_opt threads_opt = { "--threads", 1, 64 };

static error_t parse_input(int key, char *arg, struct argp_state *state)
{
    latrec_input_opts *o = state->input;
    switch (key) {
    case 'i': latrec_arg_dir(state, o, arg); break;
    case OPT_CATALOG: o->catalog_path = latrec_arg_name(state, "--catalog", "file", arg); break;
    case OPT_STAGES: o->stages_header = latrec_arg_name(state, "--stages", "file", arg); break;
    case OPT_STAGE_PREFIX: o->stage_prefix = arg; break;
    case OPT_WALL: o->wall = 1; break;
    case OPT_ALIGN: o->align = 1; break;
    case OPT_LEG_HORIZON:
        o->leg_horizon_ns = latrec_arg_duration(state, &leg_horizon_opt, arg);
        break;
    case OPT_PATH_HORIZON:
        o->path_horizon_ns = latrec_arg_duration(state, &path_horizon_opt, arg);
        break;
    case OPT_THREADS: o->threads = (int)latrec_arg_count(state, &threads_opt, arg); break;
    case 'q': o->quiet = 1; break;
    default: return ARGP_ERR_UNKNOWN;
    }
    return 0;
}

/* -q's and --threads' texts in --help, when the command's options do
 * otherwise (latrec top). */
static const char *quiet_doc, *threads_doc;

void latrec_input_docs(const char *quiet, const char *threads)
{
    quiet_doc = quiet;
    threads_doc = threads;
}

static char *input_help(int key, const char *text, void *input)
{
    (void)input;
    const char *doc = key == 'q' ? quiet_doc : key == OPT_THREADS ? threads_doc : NULL;
    if (doc && text) return strdup(doc); /* argp frees what it did not pass */
    return (char *)text;
}

struct argp latrec_input_argp = { input_options, parse_input, 0, 0, 0, input_help, 0 };
