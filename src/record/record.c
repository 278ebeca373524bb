/* latrec record: the sequence of a run (see record.h) - prepare, launch,
 * wait, finish. */
#include "record/record.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "record/env.h"
#include "record/guard.h"
#include "record/proctree.h"
#include "record/run.h"
#include "record/rundir.h"
#include "read/escape.h"
#include "util/prog.h"

extern char **environ;

#define GRACE_DEFAULT_NS 2000000000ull
#define MARK_TIMEOUT_MS 2000u

uint64_t latrec_run_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t latrec_run_real_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

const char *latrec_run_sig_name(int sig, char *buf, size_t len)
{
    const char *a = sigabbrev_np(sig);
    snprintf(buf, len, "SIG%s", a ? a : "?");
    return buf;
}

static void make_run_id(latrec_run *r)
{
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    char ts[32];
    strftime(ts, sizeof(ts), "%Y%m%d-%H%M%S", &tm);
    snprintf(r->run_id, sizeof(r->run_id), "%s-%d", ts, (int)getpid());
}

static int take_stamp(latrec_run *r, const char *what, latrec_stamp *s)
{
    if (!r->tfs) return -1;
    char err[512];
    snprintf(s->marker, sizeof(s->marker), "latrec-%s %s", what, r->run_id);
    if (latrec_tracefs_mark(r->tfs, s->marker, MARK_TIMEOUT_MS, &s->mono_ns, err, sizeof(err)) < 0) {
        fprintf(stderr, "%s: no %s stamp: %s\n", latrec_prog, what, err);
        if (!r->tfs_reason[0]) snprintf(r->tfs_reason, sizeof(r->tfs_reason), "%s", err);
        return -1;
    }
    s->have = 1;
    return 0;
}

/* ---- the run --------------------------------------------------------------- */

static int build_env(latrec_run *r, latrec_env *env, char *err, size_t errlen)
{
    const latrec_record_opts *o = r->o;
    if (latrec_env_init(env, environ) < 0) goto oom;
    if (latrec_env_set(env, "LATREC_OUTPUT_DIR", r->rings_src) < 0) goto oom;
    if (r->failure_log[0] && latrec_env_set(env, "LATREC_FAILURE_LOG", r->failure_log) < 0) goto oom;
    char num[16];
    if (o->entries_log2) {
        snprintf(num, sizeof(num), "%u", o->entries_log2);
        if (latrec_env_set(env, "LATREC_ENTRIES_LOG2", num) < 0) goto oom;
    }
    for (size_t i = 0; i < o->n_roles; i++) {
        char var[160];
        if (latrec_env_role_var(o->roles[i].role, var, sizeof(var)) < 0) {
            snprintf(err, errlen, "--role-entries %s: role name too long", o->roles[i].role);
            return -1;
        }
        snprintf(num, sizeof(num), "%u", o->roles[i].log2);
        if (latrec_env_set(env, var, num) < 0) goto oom;
    }
    if (o->lib_dir) {
        char abs[PATH_MAX];
        const char *lib = realpath(o->lib_dir, abs) ? abs : o->lib_dir;
        if (latrec_env_prepend_path(env, "LD_LIBRARY_PATH", lib) < 0) goto oom;
    }
    return 0;
oom:
    snprintf(err, errlen, "out of memory");
    return -1;
}

static int prepare_rings(latrec_run *r, char *err, size_t errlen)
{
    const latrec_record_opts *o = r->o;
    char abs[PATH_MAX];
    if (!realpath(r->dir, abs)) {
        snprintf(err, errlen, "%s: %s", r->dir, strerror(errno));
        return -1;
    }
    if (o->attach_pid) {
        if (o->attach_rings) snprintf(r->rings_src, sizeof(r->rings_src), "%s", o->attach_rings);
        else if (latrec_proc_ring_dir(r->pid, r->rings_src, sizeof(r->rings_src)) < 0) {
            snprintf(err, errlen, "pid %d: cannot tell where it writes its rings (no mapped .latrec file, no "
                                  "LATREC_OUTPUT_DIR); name the directory with --rings", (int)r->pid);
            return -1;
        }
        return latrec_rundir_rings_link(r->dir, NULL, err, errlen);
    }
    int tmpfs;
    char note[512];
    if (latrec_rundir_rings_tmp(o->rings_base, r->run_id, r->rings_tmp, sizeof(r->rings_tmp), &tmpfs, note,
                                sizeof(note), err, errlen) < 0)
        return -1;
    if (note[0] && !o->quiet) fprintf(stderr, "%s: %s\n", latrec_prog, note);
    if (r->rings_tmp[0]) {
        snprintf(r->rings_src, sizeof(r->rings_src), "%s", r->rings_tmp);
        return latrec_rundir_rings_link(r->dir, r->rings_tmp, err, errlen);
    }
    snprintf(r->rings_src, sizeof(r->rings_src), "%s/rings", abs);
    return latrec_rundir_rings_link(r->dir, NULL, err, errlen);
}

/* Before the rings: where the program's library says which rings it could
 * not create (launch mode; an attached process has its own environment). */
static int prepare_failure_log(latrec_run *r, char *err, size_t errlen)
{
    char note[4400];
    if (r->o->attach_pid) return 0;
    if (latrec_rundir_failure_log(r->dir, r->failure_log, sizeof(r->failure_log), note, sizeof(note), err,
                                  errlen) < 0)
        return -1;
    if (note[0] && !r->o->quiet) fprintf(stderr, "%s: %s\n", latrec_prog, note);
    return 0;
}

int latrec_run_timed_stop(const latrec_run *r)
{
    return !r->o->attach_pid && r->have_status && r->level > 0 && r->stopped_by &&
           strcmp(r->stopped_by, "duration") == 0;
}

static int status_of(const latrec_run *r)
{
    if (r->failed) return LATREC_RECORD_EXIT_FAIL;
    if (r->crossed) return LATREC_RECORD_EXIT_THRESHOLD;
    if (r->o->attach_pid) return 0;
    if (r->child.fail_stage) return latrec_launch_exit_code(&r->child);
    if (!r->have_status) return r->interrupted ? 128 + r->interrupted : LATREC_RECORD_EXIT_FAIL;
    if (latrec_run_timed_stop(r)) return 0;
    if (WIFEXITED(r->wstatus)) return WEXITSTATUS(r->wstatus);
    if (WIFSIGNALED(r->wstatus)) return 128 + WTERMSIG(r->wstatus);
    return LATREC_RECORD_EXIT_FAIL;
}

/* The run's own ring directory when the rings collector did not bring the
 * rings home (it never started, or failed): partial rings removed, the
 * directory removed when empty (DIR/rings then becomes an empty directory,
 * not a dangling link), else said where the rings are. Nothing latrec made
 * outlives the run unreported. */
static void cleanup_rings_tmp(latrec_run *r)
{
    const latrec_collector *rings = latrec_run_collector(r, "rings");
    if (rings && rings->state == LATREC_COLL_DONE) return;
    char path[4200];
    struct stat st;
    snprintf(path, sizeof(path), "%s/%s", r->dir, LATREC_RING_FAILURE_LOG);
    if (r->failure_log[0] && stat(path, &st) == 0 && st.st_size == 0) unlink(path);
    if (!r->rings_tmp[0] || lstat(r->rings_tmp, &st) != 0) return;
    unsigned parts = latrec_rundir_remove_parts(r->rings_tmp, NULL);
    char shown[4 * 4096 + 4];
    latrec_text_safe(r->rings_tmp, shown, sizeof(shown));
    if (parts && !r->o->quiet)
        fprintf(stderr, "%s: %s: removed %u partial ring%s (the command died while creating them)\n", latrec_prog,
                shown, parts, parts == 1 ? "" : "s");
    snprintf(path, sizeof(path), "%s/rings", r->dir);
    if (rmdir(r->rings_tmp) == 0) {
        if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && unlink(path) == 0) mkdir(path, 0755);
        r->man.rings_dir = "rings";
    } else {
        fprintf(stderr, "%s: the rings stay in %s (%s/rings points there): not brought into the run directory\n",
                latrec_prog, shown, r->dir_shown);
    }
}

/* Stop stamp, collectors, final manifest, summary. Returns the status. */
static int finish(latrec_run *r, const char *error)
{
    r->man.stop_real_ns = latrec_run_real_ns();
    r->man.stop_mono_ns = latrec_run_mono_ns();
    if (r->tfs && r->man.start.have) take_stamp(r, "stop", &r->man.stop);
    latrec_run_stop_collectors(r);
    cleanup_rings_tmp(r);
    if (r->coll[0] && r->coll[0]->state == LATREC_COLL_DONE) r->man.rings_dir = "rings"; /* coll[0]: rings */
    int status = status_of(r);
    json_decref(r->exit);
    if (r->have_status) {
        r->exit = latrec_manifest_wait_status(r->wstatus, status);
    } else {
        r->exit = json_object();
        json_object_set_new(r->exit, "status", json_integer(status));
    }
    if (r->child.fail_stage == LATREC_LAUNCH_EXEC) {
        json_object_set_new(r->exit, "exec_failed", json_true());
        json_object_set_new(r->exit, "errno", json_integer(r->child.fail_errno));
    }
    if (error) json_object_set_new(r->exit, "error", json_string(error));
    if (r->stopped_by) json_object_set_new(r->exit, "stopped_by", json_string(r->stopped_by));
    json_decref(r->launch);
    r->launch = latrec_run_launch_json(r);
    const char *state = r->failed || error ? "failed" : "finished";
    latrec_run_write_manifest(r, state);
    if (r->crossed) {
        /* the explanation reads the finished run (sched.latrec, or
         * run.json's word on why there is none); --on-threshold sees the
         * run whole, its exit written after */
        latrec_run_threshold_explain(r);
        latrec_run_write_manifest(r, state);
        if (latrec_run_threshold_action(r) == 0 && r->action_ran) latrec_run_write_manifest(r, state);
    }
    status = status_of(r); /* the manifest may have failed */
    if (!r->o->quiet) latrec_run_summary(r, status);
    return status;
}


/* The run's tracefs instance; without one the run goes on, unstamped. */
static void open_tracefs(latrec_run *r)
{
    const latrec_record_opts *o = r->o;
    const char *systems[40];
    size_t ns = 0;
    if (o->trace) systems[ns++] = "sched";
    char sysbuf[32][64];
    for (size_t i = 0; i < o->n_events && ns < 33; i++) {
        snprintf(sysbuf[i], sizeof(sysbuf[i]), "%.*s", (int)strcspn(o->events[i], ":"), o->events[i]);
        systems[ns++] = sysbuf[i];
    }
    systems[ns] = NULL;
    char notes[1024], err[1024];
    r->tfs = latrec_tracefs_open(r->run_id, systems, notes, sizeof(notes), err, sizeof(err));
    if (!o->quiet)
        for (char *line = strtok(notes, "\n"); line; line = strtok(NULL, "\n"))
            fprintf(stderr, "%s: %s\n", latrec_prog, line);
    if (!r->tfs) {
        snprintf(r->tfs_reason, sizeof(r->tfs_reason), "%s", err);
        /* a note under -q (run.json keeps the reason), unless -t or -e asked for the instance */
        if (!o->quiet || o->trace || o->n_events)
            fprintf(stderr, "%s: no start stamp: %s; recording the rings without one\n", latrec_prog, err);
    } else {
        latrec_guard_set_instance(latrec_tracefs_dir(r->tfs));
    }
}

/* The run directory could not be prepared (no ring directory, no failure
 * log): remove what this run made in it, and it, so that nothing without a
 * run.json is left behind; a previous run kept as DIR.old stays. */
static void undo_rundir(latrec_run *r)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/rings", r->dir);
    struct stat st;
    if (lstat(path, &st) == 0) S_ISLNK(st.st_mode) ? unlink(path) : rmdir(path);
    if (r->rings_tmp[0]) rmdir(r->rings_tmp);
    if (r->failure_log[0]) unlink(r->failure_log);
    if (rmdir(r->dir) != 0 && errno != ENOENT)
        fprintf(stderr, "%s: %s: cannot remove: %s\n", latrec_prog, r->dir_shown, strerror(errno));
}

/* Signals, the scheduler collector, the run directory, the ring directory,
 * the tracefs instance, every collector, the first run.json. 0, or -1 when
 * the run cannot go on (*status set: said, and finished when a run
 * directory exists). */
static int prepare(latrec_run *r, int *status)
{
    const latrec_record_opts *o = r->o;
    char err[4608];
    *status = LATREC_RECORD_EXIT_FAIL;
    if (latrec_run_setup_signals(r) < 0) {
        fprintf(stderr, "%s: signalfd: %s\n", latrec_prog, strerror(errno));
        return -1;
    }
    if (!o->attach_pid) prctl(PR_SET_CHILD_SUBREAPER, 1);
    if (o->attach_pid) {
        r->pid = o->attach_pid;
        if (kill(r->pid, 0) != 0 && errno == ESRCH) {
            fprintf(stderr, "%s: pid %d: no such process\n", latrec_prog, (int)r->pid);
            return -1;
        }
    }
    if (latrec_run_make_collectors(r, 1, err, sizeof(err)) < 0) {
        latrec_text_say(stderr, latrec_prog, err);
        return -1;
    }
    int rotated;
    if (latrec_rundir_create(r->dir, o->force, o->quiet, &rotated, &r->lock_fd, err, sizeof(err)) < 0) {
        latrec_text_say(stderr, latrec_prog, err);
        return -1;
    }
    if (rotated && !o->quiet)
        fprintf(stderr, "%s: kept the previous %s as %s.old\n", latrec_prog, r->dir_shown, r->dir_shown);
    if (prepare_failure_log(r, err, sizeof(err)) < 0 || prepare_rings(r, err, sizeof(err)) < 0) {
        latrec_text_say(stderr, latrec_prog, err);
        undo_rundir(r);
        return -1;
    }
    open_tracefs(r);
    if (latrec_run_make_collectors(r, 0, err, sizeof(err)) < 0) {
        latrec_text_say(stderr, latrec_prog, err);
        r->failed = 1;
        *status = finish(r, err);
        return -1;
    }
    r->options = latrec_run_options_json(r);
    r->man.run_id = r->run_id;
    r->man.mode = o->attach_pid ? "attach" : "launch";
    r->man.argv = o->attach_pid ? NULL : o->argv;
    r->man.pid = r->pid;
    r->man.instance = r->tfs ? latrec_tracefs_name(r->tfs) : NULL;
    r->man.tracefs_ok = r->tfs != NULL;
    r->man.mounted_by_latrec = r->tfs && latrec_tracefs_mounted_here(r->tfs);
    r->man.tracefs_reason = r->tfs_reason[0] ? r->tfs_reason : NULL;
    r->man.rings_dir = r->rings_src;
    r->man.rings_tmp = r->rings_tmp[0] ? r->rings_tmp : NULL;
    latrec_manifest_init(&r->man);
    latrec_run_write_manifest(r, "recording");
    if (r->failed) {
        *status = finish(r, "cannot write run.json");
        undo_rundir(r); /* (a full disk) no run directory without its run.json */
        return -1;
    }
    return 0;
}

/* The command forked and held at its barrier, every collector on, the
 * start stamp, the release. 0, or -1 with *status (finished). */
static int launch(latrec_run *r, int *status)
{
    const latrec_record_opts *o = r->o;
    char err[4608];
    latrec_env env = { 0 };
    if (!o->attach_pid) {
        int rc = build_env(r, &env, err, sizeof(err));
        latrec_launch_opts lo = { o->argv, env.vars, o->cpus, o->sched, &r->old_mask };
        if (rc == 0 && latrec_launch_start(&r->child, &lo, err, sizeof(err)) < 0) {
            rc = -1;
            char line[4608 + 4096];
            snprintf(line, sizeof(line), "%s: %s", o->argv[0], err);
            latrec_text_say(stderr, latrec_prog, line);
        } else if (rc < 0) {
            latrec_text_say(stderr, latrec_prog, err);
        }
        latrec_env_free(&env);
        if (rc < 0) {
            r->failed = 1;
            *status = finish(r, err);
            return -1;
        }
        r->pid = r->child.pid;
        r->man.pid = r->pid;
        latrec_guard_set_child(r->pid);
    }
    latrec_run_start_collectors(r);
    int tty, sig;
    if (latrec_run_read_signals(r, &sig, &tty)) r->interrupted = sig;
    if (!r->interrupted && r->tfs && take_stamp(r, "start", &r->man.start) == 0)
        latrec_run_tell_start(r, r->man.start.mono_ns);
    r->man.start_real_ns = latrec_run_real_ns();
    r->man.start_mono_ns = latrec_run_mono_ns();
    if (!r->interrupted && latrec_run_read_signals(r, &sig, &tty)) r->interrupted = sig;
    if (r->interrupted) {
        char nb[16];
        r->stopped_by = latrec_run_stop_name(r->interrupted);
        fprintf(stderr, "%s: %s before the command started: not running it\n", latrec_prog,
                latrec_run_sig_name(r->interrupted, nb, sizeof(nb)));
        latrec_launch_abort(&r->child);
        latrec_guard_set_child(0);
        *status = finish(r, NULL);
        return -1;
    }
    if (!o->attach_pid && latrec_launch_release(&r->child, o->argv[0], err, sizeof(err)) < 0) {
        latrec_text_say(stderr, latrec_prog, err);
        int st;
        while (waitpid(r->pid, &st, 0) < 0 && errno == EINTR) {}
        latrec_guard_set_child(0);
        *status = finish(r, err);
        return -1;
    }
    json_decref(r->launch);
    r->launch = latrec_run_launch_json(r);
    latrec_run_write_manifest(r, "recording");
    return 0;
}

int latrec_record_run(const latrec_record_opts *o)
{
    latrec_run *r = calloc(1, sizeof(*r));
    if (!r) {
        fprintf(stderr, "%s: out of memory\n", latrec_prog);
        return LATREC_RECORD_EXIT_FAIL;
    }
    r->o = o;
    r->sfd = -1;
    r->lock_fd = -1;
    r->child.barrier_wr = r->child.status_rd = -1;
    r->grace_ns = o->grace_ns ? o->grace_ns : GRACE_DEFAULT_NS;
    latrec_guard_install();
    make_run_id(r);
    snprintf(r->dir, sizeof(r->dir), "%s", o->output ? o->output : "latrec.data");
    for (size_t n = strlen(r->dir); n > 1 && r->dir[n - 1] == '/'; n--) r->dir[n - 1] = '\0';
    latrec_text_safe(r->dir, r->dir_shown, sizeof(r->dir_shown));

    int status;
    if (prepare(r, &status) == 0 && launch(r, &status) == 0) {
        latrec_run_threshold_start(r);
        latrec_run_wait(r);
        if (!o->attach_pid) latrec_run_stop_leftovers(r);
        latrec_run_threshold_end(r);
        status = finish(r, NULL);
    }
    latrec_run_threshold_free(r);
    latrec_run_destroy_collectors(r);
    latrec_tracefs_close(r->tfs);
    latrec_guard_clear();
    latrec_manifest_free(&r->man);
    json_decref(r->options);
    json_decref(r->launch);
    json_decref(r->collectors);
    json_decref(r->exit);
    if (r->sfd >= 0) close(r->sfd);
    if (r->lock_fd >= 0) close(r->lock_fd); /* the run directory is free again */
    free(r);
    return status;
}
