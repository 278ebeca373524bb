/* Option values shared by the subcommands (cli/options.h). */
#include "cli/options.h"

#define HOURS_8784 (8784ull * 3600000000000ull) /* a leap year */

const latrec_duration_opt latrec_opt_warmup = { "--warm-up", NULL, 0, HOURS_8784 };
const latrec_duration_opt latrec_opt_interval = { "--interval", NULL, 1000, HOURS_8784 };
const latrec_duration_opt latrec_opt_gate_limit = { "limit", NULL, 0, UINT64_MAX };

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
