/* latrec: dispatch to a subcommand. */
#include <argp.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "util/prog.h"

const char *latrec_version_string = "latrec " LATREC_VERSION_TEXT;
const char *argp_program_version = "latrec " LATREC_VERSION_TEXT;
const char *argp_program_bug_address = NULL;

struct subcommand {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
    int stdout_checked; /* its standard output checked here (stdout_status); record and top see to their own */
};

static const struct subcommand subcommands[] = {
    { "record", latrec_cmd_record, "Run a command with its rings in a run directory (and the scheduler watched)", 0 },
    { "report", latrec_cmd_report, "Per-leg hop latency tables of a run", 1 },
    { "hist", latrec_cmd_hist, "Latency histograms of a run, in rtla's layout", 1 },
    { "convert", latrec_cmd_convert, "Rings to CSV (rings, records, per component) or a Perfetto timeline", 1 },
    { "top", latrec_cmd_top, "The figures of a run while it is recorded, every interval", 0 },
};

/* Whether what the command printed reached standard output: a write that
 * failed (no space left, an I/O error) is one line and exit 1, as a file
 * that cannot be written is; a reader that went away (a pipe closed, with
 * SIGPIPE ignored so that it did not end the process) is 141, the status
 * SIGPIPE gives, as top exits then. Otherwise the command's rc. */
static int stdout_status(const char *cmd, int rc)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout)) return rc;
    const int e = errno;
    if (e == EPIPE) return 128 + SIGPIPE;
    fprintf(stderr, "latrec %s: standard output: %s\n", cmd, e ? strerror(e) : "write error");
    return rc == LATREC_EXIT_USAGE ? rc : LATREC_EXIT_ERROR;
}

static const char doc[] =
    "latrec -- where time goes inside a low-latency pipeline\v"
    "Commands:\n"
    "  record   Run a command with its rings in a run directory (and the\n"
    "           scheduler watched)\n"
    "  report   Per-leg hop latency tables of a run\n"
    "  hist     Latency histograms of a run, in rtla's layout\n"
    "  convert  Rings to CSV (rings, records, per component) or a Perfetto timeline\n"
    "  top      The figures of a run while it is recorded, every interval\n"
    "\n"
    "'latrec COMMAND --help' shows a command's options. See latrec(1).";

static error_t parse_top(int key, char *arg, struct argp_state *state)
{
    (void)arg;
    switch (key) {
    case ARGP_KEY_ARG:
        /* The first non-option is the subcommand: stop here. */
        *(int *)state->input = state->next - 1;
        state->next = state->argc;
        return 0;
    case ARGP_KEY_NO_ARGS:
        argp_usage(state);
        return 0;
    default:
        return ARGP_ERR_UNKNOWN;
    }
}

int main(int argc, char **argv)
{
    static const struct argp_child children[] = { { &latrec_help_argp, 0, 0, -1 }, { 0 } };
    struct argp top = { 0, parse_top, "COMMAND [ARGS...]", doc, children, 0, 0 };
    argp_err_exit_status = LATREC_EXIT_USAGE;
    int cmd_index = -1;
    argp_parse(&top, argc, argv, ARGP_IN_ORDER, 0, &cmd_index);
    if (cmd_index < 0 || cmd_index >= argc) return LATREC_EXIT_USAGE;
    const char *name = argv[cmd_index];
    for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
        if (strcmp(name, subcommands[i].name) == 0) {
            /* argp names the program after argv[0]: "latrec report". */
            static char prog[32];
            snprintf(prog, sizeof(prog), "latrec %s", subcommands[i].name);
            argv[cmd_index] = prog;
            latrec_prog = prog; /* and every line on standard error begins with it */
            const int rc = subcommands[i].run(argc - cmd_index, argv + cmd_index);
            return subcommands[i].stdout_checked ? stdout_status(subcommands[i].name, rc) : rc;
        }
    fprintf(stderr, "%s: '%s' is not a latrec command; see 'latrec --help'\n", latrec_prog, name);
    return LATREC_EXIT_USAGE;
}
