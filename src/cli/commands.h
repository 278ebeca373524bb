/*
 * cli/commands.h - the subcommands of latrec(1) and their exit statuses.
 *
 * report, hist and convert:
 *   0  every ring read cleanly
 *   1  nothing could be read, or an option or output was wrong: a
 *      --component, --leg, --hop stage or --path the run does not hold
 *   2  usage error (bad option)
 *   3  some rings were skipped (malformed); output was written from the rest
 *   4  report only: a --fail-over limit was crossed
 * top: as report when it watches a directory; as record when it launches a
 * command (latrec record's own status).
 * record: the command's own status (128+signal when it died of one); 125 when
 * latrec itself fails, 126 when the command cannot be executed, 127 when it
 * is not found, 193 when an instance crossed --stop-above (record/record.h).
 */
#ifndef LATREC_CLI_COMMANDS_H
#define LATREC_CLI_COMMANDS_H

enum {
    LATREC_EXIT_OK = 0,
    LATREC_EXIT_ERROR = 1,
    LATREC_EXIT_USAGE = 2,
    LATREC_EXIT_SKIPPED = 3,
    LATREC_EXIT_GATE = 4,
};

int latrec_cmd_record(int argc, char **argv);
int latrec_cmd_report(int argc, char **argv);
int latrec_cmd_hist(int argc, char **argv);
int latrec_cmd_convert(int argc, char **argv);
int latrec_cmd_top(int argc, char **argv);

extern const char *latrec_version_string;

#endif
