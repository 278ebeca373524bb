/* trace.json: names of the processes and threads, from run.json (the
 * program latrec launched), the rings (their components and roles) and the
 * scheduler's comm. Every (pid, tid) an event uses is named here. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/timeline_impl.h"

struct track {
    json_int_t pid, tid;
    uint32_t real_tid; /* for comm: 0 when the tid is made up */
    uint64_t when;     /* a time the thread was alive, ns */
    char name[256];    /* roles so far */
};

struct proc {
    json_int_t pid;
    uint32_t process; /* latrec's process index, or UINT32_MAX */
    char comps[256];
};

struct names {
    struct track *tr;
    size_t n_tr;
    struct proc *pr;
    size_t n_pr;
};

/* 1 when the ", "-separated list holds s. */
static int listed(const char *list, const char *s)
{
    const size_t n = strlen(s);
    for (const char *p = list; (p = strstr(p, s)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == '\0' || p[n] == ',')) return 1;
    return 0;
}

static void append(char *buf, size_t len, const char *sep, const char *s)
{
    size_t l = strlen(buf);
    if (l + 1 < len) snprintf(buf + l, len - l, "%s%s", l ? sep : "", s);
}

static struct track *track_at(struct names *n, json_int_t pid, json_int_t tid)
{
    for (size_t i = 0; i < n->n_tr; i++)
        if (n->tr[i].pid == pid && n->tr[i].tid == tid) return &n->tr[i];
    struct track *tr = &n->tr[n->n_tr++];
    memset(tr, 0, sizeof(*tr));
    tr->pid = pid;
    tr->tid = tid;
    return tr;
}

static struct proc *proc_at(struct names *n, json_int_t pid)
{
    for (size_t i = 0; i < n->n_pr; i++)
        if (n->pr[i].pid == pid) return &n->pr[i];
    struct proc *p = &n->pr[n->n_pr++];
    memset(p, 0, sizeof(*p));
    p->pid = pid;
    p->process = UINT32_MAX;
    return p;
}

static void collect(latrec_timeline *t, struct names *n)
{
    const latrec_input *in = t->in;
    for (size_t i = 0; i < in->set.n; i++) {
        const latrec_ring *r = &in->set.rings[i];
        if (r->status != LATREC_RING_OK || (int)i == in->sched_ring) continue;
        const uint32_t process = latrec_legs_ring_process(t->legs, (uint32_t)i);
        const json_int_t pid = tl_pid_of_process(t, process);
        struct proc *p = proc_at(n, pid);
        p->process = process;
        const int comp = latrec_legs_ring_component(t->legs, (uint32_t)i);
        const char *cname = comp >= 0 ? latrec_legs_component_name(t->legs, comp) : NULL;
        if (cname && !listed(p->comps, cname)) append(p->comps, sizeof(p->comps), ", ", cname);
        struct track *tr = track_at(n, pid, tl_tid_of_ring(t, (uint32_t)i));
        tr->real_tid = latrec_ring_tid(r);
        if (!tr->when) tr->when = r->min_t_ns;
        char role[128];
        latrec_input_ring_role(r, role, sizeof(role));
        append(tr->name, sizeof(tr->name), ", ", role);
    }
    for (size_t k = 0; k < t->n_th; k++) {
        const struct tl_sched_thread *th = &t->th[k];
        proc_at(n, th->pid);
        struct track *tr = track_at(n, th->pid, (json_int_t)th->tid);
        tr->real_tid = th->tid;
        if (!tr->when) tr->when = th->first_iv;
    }
}

static const char *comm_of(const latrec_timeline *t, uint32_t tid, uint64_t when)
{
    if (!t->sv.names || !tid) return NULL;
    const char *c = latrec_sched_comm(t->sv.names, tid, when);
    return c && c[0] ? c : NULL;
}

static void meta(latrec_timeline *t, const char *what, json_int_t pid, json_int_t tid, const char *name)
{
    json_t *ev = json_pack("{s:s, s:s, s:s, s:I, s:{s:o}}", "name", what, "cat", "__metadata", "ph", "M", "pid", pid,
                           "args", "name", tl_str(name));
    if (ev && tid >= 0) json_object_set_new(ev, "tid", json_integer(tid));
    tl_put(t, ev);
}

static void write_proc(latrec_timeline *t, const struct proc *p)
{
    char name[384];
    /* The program: run.json's for the process latrec launched, else the
     * comm its main thread first had (threads often rename themselves). */
    const char *comm = p->pid > 0 && p->pid < 1000000 ? comm_of(t, (uint32_t)p->pid, 0) : NULL;
    if (t->in->run_pid && p->pid == (json_int_t)t->in->run_pid && t->in->run_name[0])
        snprintf(name, sizeof(name), "%s", t->in->run_name);
    else if (comm) snprintf(name, sizeof(name), "%s", comm);
    else if (p->process != UINT32_MAX)
        snprintf(name, sizeof(name), "%s", latrec_legs_process(t->legs, p->process)->label);
    else snprintf(name, sizeof(name), "pid %lld", (long long)p->pid);
    if (p->comps[0]) {
        size_t l = strlen(name);
        snprintf(name + l, sizeof(name) - l, " [%s]", p->comps);
    }
    meta(t, "process_name", p->pid, -1, name);
}

static void write_thread(latrec_timeline *t, const struct track *tr)
{
    char name[384];
    /* A thread by the last name it had (after its exec, not the "latrec"
     * or "sh" it was forked as), of the generation alive when first used. */
    const int64_t gen = t->sv.names && tr->real_tid ? latrec_sched_gen_at(t->sv.names, tr->real_tid, tr->when) : -1;
    const char *last = gen >= 0 ? latrec_sched_thread_name(t->sv.names, tr->real_tid, (uint32_t)gen) : NULL;
    const char *comm = last && last[0] ? last : comm_of(t, tr->real_tid, tr->when);
    if (tr->name[0] && comm) snprintf(name, sizeof(name), "%s (%s)", tr->name, comm);
    else if (tr->name[0]) snprintf(name, sizeof(name), "%s", tr->name);
    else if (comm) snprintf(name, sizeof(name), "%s", comm);
    else snprintf(name, sizeof(name), "tid %lld", (long long)tr->tid);
    meta(t, "thread_name", tr->pid, tr->tid, name);
}

void tl_write_names(latrec_timeline *t)
{
    struct names n = { 0 };
    size_t cap = t->in->set.n + t->n_th + 1;
    n.tr = calloc(cap, sizeof(*n.tr));
    n.pr = calloc(cap, sizeof(*n.pr));
    if (!n.tr || !n.pr) {
        t->failed = ENOMEM;
        free(n.tr);
        free(n.pr);
        return;
    }
    collect(t, &n);
    for (size_t i = 0; i < n.n_pr; i++) write_proc(t, &n.pr[i]);
    for (size_t i = 0; i < n.n_tr; i++) write_thread(t, &n.tr[i]);
    free(n.tr);
    free(n.pr);
}
