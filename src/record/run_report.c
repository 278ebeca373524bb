/* latrec record: what a run says about itself - the pieces of run.json
 * (options, launch timings, collectors) and the summary line on stderr. */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "record/run.h"
#include "util/prog.h"

json_t *latrec_run_options_json(const latrec_run *r)
{
    const latrec_record_opts *o = r->o;
    const char *output = r->dir;
    uint64_t grace_ns = r->grace_ns;
    json_t *j = json_object();
    latrec_manifest_set_bytes(j, "output", output);
    json_object_set_new(j, "force", json_boolean(o->force));
    if (o->duration_ns) json_object_set_new(j, "duration_ns", json_integer((json_int_t)o->duration_ns));
    json_object_set_new(j, "grace_ns", json_integer((json_int_t)grace_ns));
    if (o->cpus_text) json_object_set_new(j, "cpus", json_string(o->cpus_text));
    if (o->sched) {
        json_t *p = json_object();
        json_object_set_new(p, "text", json_string(o->sched->text));
        json_object_set_new(p, "policy", json_string(latrec_sched_policy_name(o->sched->policy)));
        if (o->sched->policy == SCHED_OTHER) json_object_set_new(p, "nice", json_integer(o->sched->nice));
        if (o->sched->policy == SCHED_FIFO || o->sched->policy == SCHED_RR)
            json_object_set_new(p, "priority", json_integer(o->sched->prio));
        if (o->sched->policy == SCHED_DEADLINE) {
            json_object_set_new(p, "runtime_ns", json_integer((json_int_t)o->sched->runtime_ns));
            json_object_set_new(p, "period_ns", json_integer((json_int_t)o->sched->period_ns));
        }
        json_object_set_new(j, "priority", p);
    }
    if (o->entries_log2) json_object_set_new(j, "entries_log2", json_integer(o->entries_log2));
    if (o->n_roles) {
        json_t *roles = json_object();
        for (size_t i = 0; i < o->n_roles; i++)
            json_object_set_new(roles, o->roles[i].role, json_integer(o->roles[i].log2));
        json_object_set_new(j, "role_entries", roles);
    }
    if (o->lib_dir) latrec_manifest_set_bytes(j, "lib", o->lib_dir);
    if (o->rings_base) latrec_manifest_set_bytes(j, "rings_dir", o->rings_base);
    if (o->attach_pid) json_object_set_new(j, "pid", json_integer(o->attach_pid));
    if (o->attach_rings) latrec_manifest_set_bytes(j, "rings", o->attach_rings);
    json_object_set_new(j, "trace", json_boolean(o->trace));
    if (o->n_events) {
        json_t *ev = json_array();
        for (size_t i = 0; i < o->n_events; i++) json_array_append_new(ev, json_string(o->events[i]));
        json_object_set_new(j, "events", ev);
    }
    if (o->trace_buffer_kb) json_object_set_new(j, "trace_buffer_kb", json_integer((json_int_t)o->trace_buffer_kb));
    json_object_set_new(j, "sched", json_boolean(!o->no_sched));
    if (o->require_sched) json_object_set_new(j, "require_sched", json_true());
    if (o->sched_buffer) json_object_set_new(j, "sched_buffer", json_integer((json_int_t)o->sched_buffer));
    if (o->sched_tid) json_object_set_new(j, "tid", json_integer(o->sched_tid));
    if (o->stop_above) json_object_set_new(j, "stop_above", json_string(o->stop_above->spec));
    if (o->on_threshold) latrec_manifest_set_bytes(j, "on_threshold", o->on_threshold);
    return j;
}

static json_t *collectors_json(const latrec_run *r)
{
    json_t *all = json_object();
    for (size_t i = 0; i < r->n_coll; i++) {
        const latrec_collector *c = r->coll[i];
        json_t *o = c->ops->describe && c->state != LATREC_COLL_NEW ? c->ops->describe(c) : json_object();
        json_object_set_new(o, "ran", json_boolean(c->state == LATREC_COLL_ON || c->state == LATREC_COLL_DONE));
        if (c->state == LATREC_COLL_FAILED) json_object_set_new(o, "reason", json_string(c->error));
        if (c->state == LATREC_COLL_DONE) {
            json_object_set_new(o, "written", json_integer((json_int_t)c->counts.written));
            json_object_set_new(o, "records", json_integer((json_int_t)c->counts.records));
            json_object_set_new(o, "lost", json_integer((json_int_t)c->counts.lost));
            json_object_set_new(o, "dropped_before_start", json_integer((json_int_t)c->counts.dropped));
            if (c->counts.lost_lower_bound) json_object_set_new(o, "lost_lower_bound", json_true());
        }
        json_object_set_new(all, c->ops->name, o);
    }
    return all;
}

void latrec_run_write_manifest(latrec_run *r, const char *state)
{
    json_decref(r->collectors);
    r->collectors = collectors_json(r);
    r->man.state = state;
    r->man.options = r->options;
    r->man.launch = r->launch;
    r->man.collectors = r->collectors;
    r->man.exit = r->exit;
    json_decref(r->man.threshold);
    r->man.threshold = latrec_run_threshold_json(r);
    char err[512];
    if (latrec_manifest_write(r->dir, &r->man, err, sizeof(err)) < 0) {
        /* the rewrites at the end fail alike on a full disk: one line */
        if (strcmp(err, r->manifest_err) != 0) fprintf(stderr, "%s: %s\n", latrec_prog, err);
        snprintf(r->manifest_err, sizeof(r->manifest_err), "%s", err);
        r->failed = 1;
    }
}

json_t *latrec_run_launch_json(const latrec_run *r)
{
    if (r->o->attach_pid) return NULL;
    const latrec_launch *l = &r->child;
    const latrec_stamp *start = &r->man.start;
    json_t *j = json_object();
    if (l->ready_ns) json_object_set_new(j, "fork_to_ready_ns", json_integer((json_int_t)(l->ready_ns - l->fork_ns)));
    if (l->release_ns && l->ready_ns)
        json_object_set_new(j, "ready_to_release_ns", json_integer((json_int_t)(l->release_ns - l->ready_ns)));
    if (l->release_ns && start->have)
        json_object_set_new(j, "stamp_to_release_ns", json_integer((json_int_t)(l->release_ns - start->mono_ns)));
    if (l->exec_ns) json_object_set_new(j, "release_to_exec_ns", json_integer((json_int_t)(l->exec_ns - l->release_ns)));
    return j;
}

/* "3 rings could not be created (e3loop.ran x2: <reason>; ...)", and the
 * partial rings removed; "" when neither. */
static void failed_rings(const json_t *rj, char *out, size_t len)
{
    out[0] = '\0';
    size_t n = 0;
    json_int_t total = json_integer_value(json_object_get(rj, "failed_to_open"));
    if (total > 0) {
        n += (size_t)snprintf(out, len, "%lld ring%s could not be created (", (long long)total, total == 1 ? "" : "s");
        const json_t *roles = json_object_get(rj, "failed_to_open_roles");
        size_t i;
        const json_t *g;
        json_array_foreach(roles, i, g) {
            if (n >= len) break;
            n += (size_t)snprintf(out + n, len - n, "%s%s x%lld: %s", i ? "; " : "",
                                  json_string_value(json_object_get(g, "role")),
                                  (long long)json_integer_value(json_object_get(g, "rings")),
                                  json_string_value(json_object_get(g, "reason")));
        }
        if (n < len) n += (size_t)snprintf(out + n, len - n, ")");
    }
    json_int_t parts = json_integer_value(json_object_get(rj, "partial_removed"));
    if (parts > 0 && n < len)
        snprintf(out + n, len - n, "%s%lld partial ring%s removed (%.1f MiB: the command died while creating them)",
                 n ? "; " : "", (long long)parts, parts == 1 ? "" : "s",
                 (double)json_integer_value(json_object_get(rj, "partial_removed_bytes")) / (1 << 20));
}

/* What happened to the command, and latrec's exit status when it is not
 * the command's own: "the command exited 3", "the command died of SIGINT
 * (stopped at the end of -d: exit 0)", "the command exited 0; latrec
 * exits 125 (failed, see above)". */
static void what_happened(const latrec_run *r, int status, char *what, size_t len)
{
    char nb[16];
    int own = -1; /* the command's own status */
    if (r->o->attach_pid) {
        snprintf(what, len, "pid %d", (int)r->pid);
    } else if (!r->have_status && r->interrupted) {
        snprintf(what, len, "%s before the command ran", latrec_run_sig_name(r->interrupted, nb, sizeof(nb)));
        own = 128 + r->interrupted;
    } else if (!r->have_status) {
        snprintf(what, len, "the command did not run");
    } else if (WIFSIGNALED(r->wstatus)) {
        snprintf(what, len, "the command died of %s", latrec_run_sig_name(WTERMSIG(r->wstatus), nb, sizeof(nb)));
        own = 128 + WTERMSIG(r->wstatus);
    } else {
        snprintf(what, len, "the command exited %d", WEXITSTATUS(r->wstatus));
        own = WEXITSTATUS(r->wstatus);
    }
    size_t n = strlen(what);
    if (r->failed && status == LATREC_RECORD_EXIT_FAIL)
        snprintf(what + n, len - n, "; latrec exits %d (it failed: see above)", status);
    else if (r->crossed && status == LATREC_RECORD_EXIT_THRESHOLD)
        snprintf(what + n, len - n, " (%s --stop-above: exit %d)", r->cut_ns ? "stopped on" : "crossed",
                 status);
    else if (latrec_run_timed_stop(r))
        snprintf(what + n, len - n, " (stopped at the end of -d: exit %d)", status);
    else if (own >= 0 && own != status)
        snprintf(what + n, len - n, " (exit %d)", status);
}

void latrec_run_summary(const latrec_run *r, int status)
{
    const latrec_collector *rings = latrec_run_collector(r, "rings");
    const latrec_collector *trace = latrec_run_collector(r, "trace");
    const latrec_collector *sched = latrec_run_collector(r, "sched");
    char what[320];
    what_happened(r, status, what, sizeof(what));
    if (!rings || rings->state != LATREC_COLL_DONE) {
        fprintf(stderr, "%s: run in %s (rings not collected); %s\n", latrec_prog, r->dir_shown, what);
        return;
    }
    const json_t *rj = json_object_get(r->collectors, "rings");
    const json_t *d = json_object_get(rj, "rings");
    long long n = json_is_integer(d) ? json_integer_value(d) : 0;
    char failed[1024];
    failed_rings(rj, failed, sizeof(failed));
    if (n == 0) {
        fprintf(stderr, "%s: no rings (%s); run in %s; %s\n", latrec_prog,
                failed[0] ? failed : "the command wrote none: not instrumented?", r->dir_shown, what);
        return;
    }
    if (failed[0]) fprintf(stderr, "%s: %s\n", latrec_prog, failed);
    const latrec_collector_counts *c = &rings->counts;
    fprintf(stderr, "%s: %lld ring%s, %llu records (%llu%s lost, %llu dropped before the start stamp)", latrec_prog, n,
            n == 1 ? "" : "s", (unsigned long long)c->records, (unsigned long long)c->lost,
            c->lost_lower_bound ? "+" : "", (unsigned long long)c->dropped);
    if (trace && trace->state == LATREC_COLL_DONE)
        fprintf(stderr, ", %llu trace events", (unsigned long long)trace->counts.records);
    if (sched && sched->state == LATREC_COLL_DONE)
        fprintf(stderr, ", %llu scheduler records (%llu lost)", (unsigned long long)sched->counts.records,
                (unsigned long long)sched->counts.lost);
    fprintf(stderr, " in %s; %s\n", r->dir_shown, what);
    latrec_run_threshold_summary(r);
}
