/* latrec record: options (argp) -> record/record.h. */
#include <argp.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyze/catalog.h"
#include "analyze/catalog_path.h"
#include "analyze/gate.h"
#include "cli/commands.h"
#include "engine/input.h"
#include "read/escape.h"
#include "cli/options.h"
#include "record/coll_sched.h"
#include "record/priority.h"
#include "record/record.h"
#include "util/duration.h"
#include "util/number.h"

#define MAX_ROLES 64
#define MAX_EVENTS 32

enum {
    OPT_RINGS = 0x500,
    OPT_ENTRIES,
    OPT_ROLE_ENTRIES,
    OPT_LIB,
    OPT_RINGS_DIR,
    OPT_GRACE,
    OPT_TRACE_BUFFER,
    OPT_NO_SCHED,
    OPT_REQUIRE_SCHED,
    OPT_SCHED_BUFFER,
    OPT_TID,
    OPT_CATALOG,
    OPT_STOP_ABOVE,
    OPT_ON_THRESHOLD,
};

struct record_cli {
    latrec_record_opts o;
    latrec_role_size roles[MAX_ROLES];
    const char *events[MAX_EVENTS];
    cpu_set_t cpus;
    latrec_sched sched;
    int cmd_index;
    const char *catalog; /* --catalog FILE: copied into the run directory */
    latrec_gate stop_above;
};

static const struct argp_option record_options[] = {
    { 0, 0, 0, 0, "Run directory:", 1 },
    { "output", 'o', "DIR", 0, "Run directory (default latrec.data); an existing one is kept as DIR.old", 1 },
    { "force", 'f', 0, 0, "When DIR.old exists too, replace DIR (a run directory) instead of stopping; "
                          "DIR.old is never deleted", 1 },
    { "quiet", 'q', 0, 0, "No notes and no summary on stderr (errors are still printed)", 1 },
    { "catalog", OPT_CATALOG, "FILE", 0, "Keep stage catalog FILE (and the headers its stages-from lines "
                                         "read) in DIR/catalogs/, where the analysis finds it by the name "
                                         "the rings give", 1 },
    { 0, 0, 0, 0, "The command:", 2 },
    { "duration", 'd', "TIME", 0, "Stop after TIME (a bare number is seconds; or 500ms, 2m, 1h): SIGINT, then SIGTERM and "
                                  "SIGKILL after the grace period", 2 },
    { "grace", OPT_GRACE, "TIME", 0, "Wait this long between stop signals (a bare number is seconds; default 2s)", 2 },
    { "cpus", 'c', "LIST", 0, "Run the command on these cpus (e.g. 0-2,5)", 2 },
    { "priority", 'P', "o:NICE|r:PRIO|f:PRIO|d:RUNTIME:PERIOD", 0,
      "Scheduling policy of the command, rtla's syntax (e.g. f:80, d:500us:1ms; a bare RUNTIME or PERIOD is ns)", 2 },
    { "lib", OPT_LIB, "DIR", 0, "Prepend DIR to LD_LIBRARY_PATH (an instrumented liblatrec build)", 2 },
    { 0, 0, 0, 0, "Rings:", 3 },
    { "entries-log2", OPT_ENTRIES, "N", 0, "Records per ring 2^N (12..28; sets LATREC_ENTRIES_LOG2)", 3 },
    { "role-entries", OPT_ROLE_ENTRIES, "ROLE=N", 0, "2^N records for rings of ROLE (sets "
                                                     "LATREC_ENTRIES_LOG2_<ROLE>); repeatable", 3 },
    { "rings-dir", OPT_RINGS_DIR, "DIR", 0, "Write the rings under DIR/latrec-<run-id>/ during the run "
                                            "(default /dev/shm, tmpfs); moved into the run directory at the end", 3 },
    { 0, 0, 0, 0, "Attach:", 4 },
    { "pid", 'p', "PID", 0, "Record a running process instead of launching a command; ends with -d, "
                            "SIGINT or the process's exit", 4 },
    { "rings", OPT_RINGS, "DIR", 0, "With -p: the directory its rings are in (default: found from "
                                    "/proc/PID/maps or its LATREC_OUTPUT_DIR)", 4 },
    { 0, 0, 0, 0, "tracefs:", 5 },
    { "trace", 't', 0, 0, "Keep sched_switch and sched_wakeup of the command's threads in the run's "
                          "tracefs instance and save them as trace.txt", 5 },
    { "event", 'e', "SYSTEM:EVENT", 0, "Another event for -t (implies -t); repeatable", 5 },
    { "trace-buffer-size", OPT_TRACE_BUFFER, "KB", 0, "Per-cpu buffer of the instance for -t", 5 },
    { 0, 0, 0, 0, "Scheduler (BPF):", 6 },
    { "no-sched", OPT_NO_SCHED, 0, 0, "Do not record the scheduler (no sched.latrec)", 6 },
    { "require-sched", OPT_REQUIRE_SCHED, 0, 0, "Exit 125 before running the command if the scheduler "
                                                "cannot be recorded (not root, no BPF)", 6 },
    { "sched-buffer", OPT_SCHED_BUFFER, "SIZE", 0, "BPF ring buffer for scheduler events (default 8M; "
                                                   "K, M, G suffixes; rounded up to a power of two)", 6 },
    { "tid", OPT_TID, "TID", 0, "Scheduler events of this one thread only (attaches to its process, "
                                "like -p)", 6 },
    { 0, 0, 0, 0, "Stop on a threshold:", 7 },
    { "stop-above", OPT_STOP_ABOVE, "SPEC", 0, "Stop the run at the first instance over a limit, e.g. "
                                               "'libe3/outbound:total>500us' or 'e3/loop:total>2ms' (quoted); "
                                               "exit 193 (see latrec-record(1))", 7 },
    { "on-threshold", OPT_ON_THRESHOLD, "CMD", 0, "With --stop-above: run CMD once (/bin/sh -c) when the limit "
                                                  "was crossed, the instance in LATREC_THRESHOLD_* variables", 7 },
    { 0 }
};

static const char record_doc[] =
    "Run COMMAND with its rings in a run directory, one start stamp for every collector.\v"
    "The command is held at a barrier until the run's tracefs instance (latrec-<run-id>, clock mono) "
    "exists and the start stamp 'latrec-start <run-id>' is written into its trace_marker and read back; "
    "the analysis drops every record stamped before it. The command gets LATREC_OUTPUT_DIR (its rings "
    "go to a tmpfs directory of the run's own and are moved into DIR/rings at the end) and otherwise "
    "the caller's environment. The scheduler events of the command's process tree (switches, wakeups, "
    "migrations, forks, execs, exits) are saved as DIR/sched.latrec through BPF when latrec may load "
    "it (root, or CAP_BPF and CAP_PERFMON); otherwise one line says why and the rings are recorded "
    "alone. SIGINT and SIGTERM are passed to the command; each repeat escalates "
    "to SIGTERM, then SIGKILL. Exit status: the command's (128+N when it died of signal N); 0 when -d "
    "stopped it (its own status stays in run.json and the summary); 125 when "
    "latrec fails, 126 when the command cannot be executed, 127 when it is not found; 193 when an "
    "instance crossed the --stop-above limit. See latrec-record(1).";

/* "8M", "65536", "512K", "1G" (binary units) -> bytes, rounded up to a
 * power of two in the collector's range. -1 when not a size in range. */
static int parse_sched_buffer(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *s == '-') return -1;
    unsigned long long mul = 1;
    if (*end == 'k' || *end == 'K') mul = 1ull << 10, end++;
    else if (*end == 'm' || *end == 'M') mul = 1ull << 20, end++;
    else if (*end == 'g' || *end == 'G') mul = 1ull << 30, end++;
    if (mul > 1 && *end == 'i') end++;
    if (*end == 'B' || *end == 'b') end++;
    if (*end || v > (1ull << 40) / mul) return -1;
    v *= mul;
    if (v < LATREC_SCHED_BUFFER_MIN || v > LATREC_SCHED_BUFFER_MAX) return -1;
    size_t p = LATREC_SCHED_BUFFER_MIN;
    while (p < v) p <<= 1;
    *out = p;
    return 0;
}

/* -d and --grace: the one duration grammar, a bare number in seconds (as
 * their --help says, and as rtla's -d). */
static const latrec_duration_opt duration_opt = { "-d", "s", 1, 8784 * 3600000000000ull };
static const latrec_duration_opt grace_opt = { "--grace", "s", 1, 3600000000000ull };

static void parse_time(struct argp_state *state, const latrec_duration_opt *opt, const char *s, uint64_t *ns)
{
    char err[256];
    if (latrec_duration_parse(opt, s, ns, err, sizeof(err)) < 0) argp_error(state, "%s", err);
}

static long parse_long(struct argp_state *state, const char *opt, const char *s, long lo, long hi)
{
    const latrec_count_opt range = { opt, (uint64_t)lo, (uint64_t)hi };
    char err[256];
    uint64_t v;
    if (latrec_count_parse(&range, s, &v, err, sizeof(err)) < 0) argp_error(state, "%s", err);
    return (long)v;
}

/* --role-entries ROLE=N (N: log2 of the ring's entries, 12..28). */
static void role_entries(struct argp_state *state, struct record_cli *c, char *arg)
{
    latrec_record_opts *o = &c->o;
    char *eq = strrchr(arg, '=');
    if (!eq || eq == arg) argp_error(state, "--role-entries: '%s' is not ROLE=N", arg);
    if (o->n_roles == MAX_ROLES) argp_error(state, "--role-entries: more than %d roles", MAX_ROLES);
    *eq = '\0';
    c->roles[o->n_roles].role = arg;
    c->roles[o->n_roles].log2 = (unsigned)parse_long(state, "--role-entries", eq + 1, 12, 28);
    o->n_roles++;
}

/* --stop-above SPEC: the --fail-over grammar, on a single instance. */
static void stop_above(struct argp_state *state, struct record_cli *c, const char *arg)
{
    latrec_record_opts *o = &c->o;
    char err[256];
    if (latrec_gate_parse(&c->stop_above, arg, LATREC_GATE_INSTANCE, err, sizeof(err)) < 0) {
        if (err[0]) argp_error(state, "--stop-above '%s': %s", arg, err);
        argp_error(state, "--stop-above takes 'COMPONENT/LEG:HOP>LIMIT' or 'PATH:SEGMENT>LIMIT' (e.g. "
                          "--stop-above 'libe3/outbound:total>500us', --stop-above 'e3/loop:total>2ms'), "
                          "not '%s'", arg);
    }
    o->stop_above = &c->stop_above;
}

/* The options together, once all are parsed: what goes with -p, --tid,
 * a command, --no-sched. */
static void check_options(struct argp_state *state, struct record_cli *c)
{
    latrec_record_opts *o = &c->o;
    if (o->sched_tid) {
        pid_t tg = latrec_sched_tgid_of(o->sched_tid);
        if (c->cmd_index > 0) argp_error(state, "--tid names a running thread: it takes no command");
        if (tg < 0) argp_error(state, "--tid %d: no such thread", (int)o->sched_tid);
        if (o->attach_pid && o->attach_pid != tg)
            argp_error(state, "--tid %d is a thread of process %d, not of -p %d", (int)o->sched_tid, (int)tg,
                       (int)o->attach_pid);
        o->attach_pid = tg;
    }
    if (!o->attach_pid && c->cmd_index <= 0)
        argp_error(state, "no command given (latrec record [OPTION...] -- COMMAND [ARGS...], or -p PID)");
    if (o->attach_pid && c->cmd_index > 0) argp_error(state, "-p takes no command");
    if (!o->attach_pid && o->attach_rings) argp_error(state, "--rings is for -p; --rings-dir places a "
                                                             "launched command's rings");
    if (o->attach_pid && (o->cpus || o->sched || o->lib_dir || o->entries_log2 || o->n_roles || o->rings_base))
        argp_error(state, "-c, -P, --lib, --entries-log2, --role-entries and --rings-dir apply to a "
                          "launched command, not to -p");
    if (o->on_threshold && !o->stop_above) argp_error(state, "--on-threshold needs --stop-above");
    if (o->no_sched && (o->require_sched || o->sched_buffer || o->sched_tid))
        argp_error(state, "--no-sched goes with none of --require-sched, --sched-buffer, --tid");
}

static error_t parse_record(int key, char *arg, struct argp_state *state)
{
    struct record_cli *c = state->input;
    latrec_record_opts *o = &c->o;
    char err[256];
    switch (key) {
    case 'o': o->output = latrec_arg_out_dir(state, "-o", arg); break;
    case 'f': o->force = 1; break;
    case 'q': o->quiet = 1; break;
    case 'd': parse_time(state, &duration_opt, arg, &o->duration_ns); break;
    case OPT_GRACE: parse_time(state, &grace_opt, arg, &o->grace_ns); break;
    case 'c':
        if (latrec_cpulist_parse(arg, &c->cpus, err, sizeof(err)) < 0) argp_error(state, "-c: %s", err);
        o->cpus = &c->cpus;
        o->cpus_text = arg;
        break;
    case 'P':
        if (latrec_sched_parse(arg, &c->sched, err, sizeof(err)) < 0) argp_error(state, "-P: %s", err);
        o->sched = &c->sched;
        break;
    case OPT_LIB: o->lib_dir = latrec_arg_name(state, "--lib", "directory", arg); break;
    case OPT_ENTRIES:
        o->entries_log2 = (unsigned)parse_long(state, "--entries-log2", arg, 12, 28);
        break;
    case OPT_ROLE_ENTRIES: role_entries(state, c, arg); break;
    case OPT_RINGS_DIR: o->rings_base = latrec_arg_name(state, "--rings-dir", "directory", arg); break;
    case 'p':
        o->attach_pid = (pid_t)parse_long(state, "-p", arg, 1, 0x7fffffff);
        break;
    case OPT_RINGS: o->attach_rings = latrec_arg_name(state, "--rings", "directory", arg); break;
    case 't': o->trace = 1; break;
    case 'e': {
        const char *colon = strchr(arg, ':');
        if (!colon || colon == arg || !colon[1] || strchr(colon + 1, ':') || strchr(arg, '/'))
            argp_error(state, "-e: '%s' is not SYSTEM:EVENT (e.g. irq:irq_handler_entry)", arg);
        if (o->n_events == MAX_EVENTS) argp_error(state, "-e: more than %d events", MAX_EVENTS);
        c->events[o->n_events++] = arg;
        o->trace = 1;
        break;
    }
    case OPT_TRACE_BUFFER:
        o->trace_buffer_kb = (size_t)parse_long(state, "--trace-buffer-size", arg, 4, 64L * 1024 * 1024);
        break;
    case OPT_NO_SCHED: o->no_sched = 1; break;
    case OPT_REQUIRE_SCHED: o->require_sched = 1; break;
    case OPT_SCHED_BUFFER:
        if (parse_sched_buffer(arg, &o->sched_buffer) < 0)
            argp_error(state, "--sched-buffer: '%s' is not a size from 4K to 1G (e.g. 64K, 8M)", arg);
        break;
    case OPT_TID:
        o->sched_tid = (pid_t)parse_long(state, "--tid", arg, 1, 0x7fffffff);
        break;
    case OPT_CATALOG: { /* a catalog that does not load stops the run before it starts */
        latrec_catalog cat;
        char safe[4 * sizeof(err) + 4];
        if (latrec_catalog_load(&cat, latrec_arg_name(state, "--catalog", "file", arg), err, sizeof(err)) < 0)
            argp_failure(state, LATREC_RECORD_EXIT_FAIL, 0, "%s", latrec_text_safe(err, safe, sizeof(safe)));
        latrec_catalog_free(&cat);
        c->catalog = arg;
        o->catalog = arg;
        break;
    }
    case OPT_STOP_ABOVE: stop_above(state, c, arg); break;
    case OPT_ON_THRESHOLD: o->on_threshold = arg; break;
    case ARGP_KEY_ARG:
        /* the command starts here; everything after it is its own */
        c->cmd_index = state->next - 1;
        state->next = state->argc;
        break;
    case ARGP_KEY_END: check_options(state, c); break;
    default: return ARGP_ERR_UNKNOWN;
    }
    return 0;
}

/* record --catalog: the copy goes into a run directory that was made (its
 * run.json is there). A copy that fails fails the record (125). */
static int keep_catalog(const struct record_cli *c, int status)
{
    const char *dir = c->o.output ? c->o.output : "latrec.data";
    char run_json[4200], name[64], err[1024];
    snprintf(run_json, sizeof(run_json), "%s/run.json", dir);
    struct stat st;
    if (lstat(run_json, &st) != 0) return status;
    if (latrec_catalog_copy(c->catalog, dir, name, sizeof(name), err, sizeof(err)) < 0) {
        fprintf(stderr, "latrec record: --catalog: %s\n", err);
        return status ? status : LATREC_RECORD_EXIT_FAIL;
    }
    if (!c->o.quiet)
        fprintf(stderr, "latrec record: catalog '%s' kept as %s/catalogs/%s.catalog\n", name, dir, name);
    return status;
}

int latrec_cmd_record(int argc, char **argv)
{
    struct record_cli *c = calloc(1, sizeof(*c));
    char **args = calloc((size_t)argc + 1, sizeof(char *));
    if (!c || !args) {
        free(c);
        free(args);
        fprintf(stderr, "latrec record: out of memory\n");
        return LATREC_RECORD_EXIT_FAIL;
    }
    for (int i = 0; i < argc; i++) args[i] = argv[i];
    args[0] = "latrec record";
    c->o.roles = c->roles;
    c->o.events = c->events;
    static const struct argp_child children[] = { { &latrec_help_argp, 0, 0, -1 }, { 0 } };
    struct argp argp = { record_options, parse_record, "-- COMMAND [ARGS...]\n-p PID",
                         record_doc, children, 0, 0 };
    argp_err_exit_status = LATREC_RECORD_EXIT_FAIL;
    int status;
    if (argp_parse(&argp, argc, args, ARGP_IN_ORDER, 0, c) != 0) {
        status = LATREC_RECORD_EXIT_FAIL;
    } else {
        if (c->cmd_index > 0) c->o.argv = args + c->cmd_index;
        status = latrec_record_run(&c->o);
        if (c->catalog) status = keep_catalog(c, status);
    }
    free(args);
    free(c);
    return status;
}
