/* The scheduler collector: bpf/sched.bpf.c through its libbpf skeleton,
 * drained into a spool, saved as sched.latrec (see coll_sched.h). */
#include "record/coll_sched.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analyze/sched_catalog.h"
#include "latrec/format.h"
#include "latrec/latrec.h" /* latrec_now_ns, latrec_clock_pair */
#include "latrec_bpf_config.h" /* LATREC_HAVE_BPF_SKEL or LATREC_BPF_MISSING (bpf/CMakeLists.txt) */
#include "record/proctree.h"
#include "record/sched_live.h"
#include "record/sched_spool.h"

#ifdef LATREC_HAVE_BPF_SKEL
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "sched.skel.h"
#include "sched_stats.h"
#endif

#define SCHED_FILE "sched.latrec"

struct sched_priv {
    latrec_sched_opts o;
    size_t   buffer_bytes;
    char     path[4200];
    latrec_spool *spool;
    char     spool_error[4400];
    latrec_sched_live *live; /* sched.latrec while the run goes on (NULL: not published) */
    char live_error[4400];   /* why not */
    uint64_t live_published, live_late;
    uint64_t t0_mono, t0_real;
    uint64_t start_ns;
    int      have_start;
    size_t   targets;          /* processes (or threads) made targets at start */
    uint64_t events;           /* records read from the ring buffer */
    uint64_t drain_dropped;    /* of those, stamped before the start stamp */
    uint64_t after_stop;       /* left out: stamped after the stop stamp */
    uint64_t kernel_dropped, untracked, spurious;
    uint64_t unseen[3];        /* events never seen: switch-in, switch-out, wakeup */
    uint64_t *lost_cpu;        /* per possible CPU, at stop */
    int      ncpus;
    uint64_t runs, write_ns;
    int      stopped;
#ifdef LATREC_HAVE_BPF_SKEL
    struct latrec_sched_bpf *skel;
    struct ring_buffer *rb;
#endif
};

pid_t latrec_sched_tgid_of(pid_t tid)
{
    char path[64], line[256];
    snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
    FILE *f = fopen(path, "re");
    if (!f) return -1;
    pid_t tgid = -1;
    while (fgets(line, sizeof(line), f))
        if (strncmp(line, "Tgid:", 5) == 0) {
            tgid = (pid_t)strtol(line + 5, NULL, 10);
            break;
        }
    fclose(f);
    return tgid > 0 ? tgid : -1;
}

/* /proc/sys/kernel/random/boot_id as 16 raw bytes (zero when unreadable). */
static void read_boot_id(uint8_t out[16])
{
    memset(out, 0, 16);
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
    if (!f) return;
    char s[64];
    if (fgets(s, sizeof(s), f)) {
        int n = 0;
        for (const char *p = s; *p && n < 32; p++) {
            int v = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 : -1;
            if (v < 0) continue;
            out[n / 2] = (uint8_t)(out[n / 2] | (n % 2 ? v : v << 4));
            n++;
        }
        if (n != 32) memset(out, 0, 16);
    }
    fclose(f);
}

/* ---- the BPF side ------------------------------------------------------------ */

#ifdef LATREC_HAVE_BPF_SKEL

static char libbpf_last[256]; /* libbpf's last warning, for a failed load */

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
    if (level == LIBBPF_WARN) {
        vsnprintf(libbpf_last, sizeof(libbpf_last), fmt, ap);
        libbpf_last[strcspn(libbpf_last, "\n")] = '\0';
    }
    return 0;
}

static int on_record(void *ctx, void *data, size_t size)
{
    latrec_collector *c = ctx;
    struct sched_priv *p = c->priv;
    if (size < sizeof(latrec_rec)) return 0;
    latrec_rec r;
    memcpy(&r, data, sizeof(r));
    p->events++;
    if (p->have_start && r.t_ns < p->start_ns) {
        p->drain_dropped++;
        return 0;
    }
    if (p->spool && !p->spool_error[0]) latrec_spool_add(p->spool, &r, p->spool_error, sizeof(p->spool_error));
    if (p->live) latrec_sched_live_add(p->live, &r);
    return 0;
}

/* Open, size, load and attach; the ring buffer mapped. 0, or -1 (err). */
static int bpf_setup(latrec_collector *c, char *err, size_t errlen)
{
    struct sched_priv *p = c->priv;
    libbpf_set_print(libbpf_quiet);
    libbpf_last[0] = '\0';
    if (access("/sys/kernel/btf/vmlinux", R_OK) != 0) {
        snprintf(err, errlen, "the kernel has no BTF (/sys/kernel/btf/vmlinux: %s)", strerror(errno));
        return -1;
    }
    p->ncpus = libbpf_num_possible_cpus();
    if (p->ncpus <= 0) {
        snprintf(err, errlen, "/sys/devices/system/cpu/possible: cannot count the CPUs");
        return -1;
    }
    p->skel = latrec_sched_bpf__open();
    if (!p->skel) {
        snprintf(err, errlen, "opening the BPF program: %s", strerror(errno));
        return -1;
    }
    p->skel->rodata->filter_mode = p->o.tid ? LATREC_SCHED_BY_TID : LATREC_SCHED_BY_TGID;
    int e = bpf_map__set_max_entries(p->skel->maps.events, (uint32_t)p->buffer_bytes);
    if (!e) e = bpf_map__set_max_entries(p->skel->maps.waiting, (uint32_t)p->ncpus);
    if (e) {
        snprintf(err, errlen, "sizing the BPF maps: %s", strerror(-e));
        return -1;
    }
    e = latrec_sched_bpf__load(p->skel);
    if (e) {
        e = e < 0 ? -e : e;
        if (e == EPERM || e == EACCES)
            snprintf(err, errlen, "loading the BPF program: %s (needs root, or CAP_BPF and CAP_PERFMON)",
                     strerror(e));
        else
            snprintf(err, errlen, "loading the BPF program: %s%s%s", strerror(e), libbpf_last[0] ? "; " : "",
                     libbpf_last);
        return -1;
    }
    e = latrec_sched_bpf__attach(p->skel);
    if (e) {
        snprintf(err, errlen, "attaching the BPF program to the sched tracepoints: %s%s%s", strerror(e < 0 ? -e : e),
                 libbpf_last[0] ? "; " : "", libbpf_last);
        return -1;
    }
    p->rb = ring_buffer__new(bpf_map__fd(p->skel->maps.events), on_record, c, NULL);
    if (!p->rb) {
        snprintf(err, errlen, "mapping the BPF ring buffer (%zu bytes): %s", p->buffer_bytes, strerror(errno));
        return -1;
    }
    return 0;
}

static int bpf_add_target(struct sched_priv *p, int tid_map, uint32_t id, char *err, size_t errlen)
{
    uint8_t one = 1;
    struct bpf_map *m = tid_map ? p->skel->maps.target_tids : p->skel->maps.target_tgids;
    if (bpf_map__update_elem(m, &id, sizeof(id), &one, sizeof(one), BPF_ANY) != 0) {
        snprintf(err, errlen, "%s: adding %u: %s", tid_map ? "target_tids" : "target_tgids", id, strerror(errno));
        return -1;
    }
    return 0;
}

static void bpf_told_start(struct sched_priv *p, uint64_t start_ns)
{
    __atomic_store_n(&p->skel->bss->start_ns, start_ns, __ATOMIC_RELEASE);
}

static void bpf_drain(struct sched_priv *p)
{
    while (ring_buffer__consume(p->rb) > 0) {}
}

/* Detach, drain what is left, read the per-CPU counters. */
static int bpf_finish(struct sched_priv *p, char *err, size_t errlen)
{
    latrec_sched_bpf__detach(p->skel);
    bpf_drain(p);
    size_t n = (size_t)p->ncpus;
    struct latrec_sched_stats *v = calloc(n, sizeof(*v));
    p->lost_cpu = calloc(n, sizeof(uint64_t));
    uint32_t key = 0;
    if (!v || !p->lost_cpu) {
        free(v);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (bpf_map__lookup_elem(p->skel->maps.stats, &key, sizeof(key), v, n * sizeof(*v), 0) != 0) {
        snprintf(err, errlen, "reading the BPF counters (map stats): %s", strerror(errno));
        free(v);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        p->lost_cpu[i] = v[i].lost;
        p->kernel_dropped += v[i].dropped;
        p->untracked += v[i].untracked;
        p->spurious += v[i].spurious;
        p->unseen[0] += v[i].unseen_in;
        p->unseen[1] += v[i].unseen_out;
        p->unseen[2] += v[i].unseen_wakeup;
    }
    free(v);
    return 0;
}

static void bpf_teardown(struct sched_priv *p)
{
    ring_buffer__free(p->rb);
    p->rb = NULL;
    latrec_sched_bpf__destroy(p->skel);
    p->skel = NULL;
}

#else /* built without the skeleton */

static int bpf_setup(latrec_collector *c, char *err, size_t errlen)
{
    (void)c;
    snprintf(err, errlen, "built without the BPF collector: %s", LATREC_BPF_MISSING);
    return -1;
}

static int bpf_add_target(struct sched_priv *p, int tid_map, uint32_t id, char *err, size_t errlen)
{
    (void)p, (void)tid_map, (void)id;
    snprintf(err, errlen, "built without the BPF collector: %s", LATREC_BPF_MISSING);
    return -1;
}

static void bpf_told_start(struct sched_priv *p, uint64_t start_ns) { (void)p, (void)start_ns; }
static void bpf_drain(struct sched_priv *p) { (void)p; }
static int bpf_finish(struct sched_priv *p, char *err, size_t errlen)
{
    (void)p;
    snprintf(err, errlen, "built without the BPF collector: %s", LATREC_BPF_MISSING);
    return -1;
}
static void bpf_teardown(struct sched_priv *p) { (void)p; }

#endif

/* ---- the collector ----------------------------------------------------------- */

/* sched.latrec's header: the live ring's and the final file's. */
static void fill_header(const struct sched_priv *p, latrec_hdr *h)
{
    memset(h, 0, sizeof(*h));
    snprintf(h->name, sizeof(h->name), "%s", LATREC_SCHED_RING);
    snprintf(h->catalog, sizeof(h->catalog), "%s", LATREC_SCHED_CATALOG);
    gethostname(h->host, sizeof(h->host) - 1);
    read_boot_id(h->boot_id);
    h->pid = (uint32_t)getpid();
    h->tid = 0;
    h->clock_id = LATREC_CLOCK_ID_MONOTONIC;
    h->t0_mono_ns = p->t0_mono;
    h->t0_real_ns = p->t0_real;
}

/* The live ring (sched_live.h); without it the run still gets its
 * sched.latrec at the end, run.json says why there was none meanwhile. */
static void live_open(struct sched_priv *p)
{
    latrec_hdr *h = malloc(sizeof(*h));
    if (!h) {
        snprintf(p->live_error, sizeof(p->live_error), "out of memory");
        return;
    }
    fill_header(p, h);
    if (latrec_sched_live_open(&p->live, p->path, h, p->live_error, sizeof(p->live_error)) < 0) p->live = NULL;
    free(h);
}

/* The live ring closed at stop, everything up to the stop stamp in it. */
static void live_end(struct sched_priv *p, uint64_t stop_ns)
{
    if (!p->live) return;
    latrec_sched_live_publish(p->live, stop_ns + 1);
    latrec_sched_live_close(p->live);
    p->live_published = latrec_sched_live_published(p->live);
    p->live_late = latrec_sched_live_late(p->live);
}

static int sched_start(latrec_collector *c, const latrec_collect_ctx *x, char *err, size_t errlen)
{
    struct sched_priv *p = c->priv;
    snprintf(p->path, sizeof(p->path), "%s/%s", x->run_dir, SCHED_FILE);
    if (latrec_spool_open(&p->spool, x->run_dir, err, errlen) < 0) return -1;
    latrec_clock_pair(&p->t0_mono, &p->t0_real);
    live_open(p);
    if (p->o.tid) {
        if (bpf_add_target(p, 1, (uint32_t)p->o.tid, err, errlen) < 0) return -1;
        p->targets = 1;
        return 0;
    }
    /* the launched child; or the attached process (its tgid) and its tree */
    pid_t root = x->pid;
    if (x->attach) {
        pid_t tg = latrec_sched_tgid_of(x->pid);
        if (tg > 0) root = tg;
    }
    latrec_pidlist l = { 0 };
    if (latrec_pidlist_add(&l, root) < 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    /* The program adds the children of targets from here on; a second scan
     * catches a process forked by one not yet in the map at the first. */
    int rc = bpf_add_target(p, 0, (uint32_t)root, err, errlen);
    size_t done = 1;
    for (int pass = 0; x->attach && pass < 2 && rc == 0; pass++) {
        latrec_proc_descendants(root, &l);
        for (; done < l.n && rc == 0; done++) rc = bpf_add_target(p, 0, (uint32_t)l.pids[done], err, errlen);
    }
    p->targets = l.n;
    latrec_pidlist_free(&l);
    return rc;
}

static void sched_told_start(latrec_collector *c, uint64_t start_ns)
{
    struct sched_priv *p = c->priv;
    p->start_ns = start_ns;
    p->have_start = 1;
    bpf_told_start(p, start_ns);
}

/* Drain, then publish what is older than the window: the clock is read
 * before the drain, so every record stamped before it is in hand (the
 * program submits each record as it stamps it), up to the reordering the
 * window covers. */
static void sched_poll(latrec_collector *c)
{
    struct sched_priv *p = c->priv;
    const uint64_t now = latrec_now_ns();
    bpf_drain(p);
    if (p->live && now > LATREC_SCHED_LIVE_WINDOW_NS)
        latrec_sched_live_publish(p->live, now - LATREC_SCHED_LIVE_WINDOW_NS);
}

static int sched_stop(latrec_collector *c, uint64_t stop_ns, char *err, size_t errlen)
{
    struct sched_priv *p = c->priv;
    p->stopped = 1;
    const int drained = bpf_finish(p, err, errlen);
    live_end(p, stop_ns); /* readers stop waiting for it either way */
    if (drained < 0) return -1;
    if (p->spool_error[0]) {
        snprintf(err, errlen, "%s", p->spool_error);
        return -1;
    }
    uint64_t t_write = latrec_now_ns();
    latrec_hdr *h = malloc(sizeof(*h));
    if (!h) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    fill_header(p, h);
    h->flags = LATREC_F_CLEAN_CLOSE;
    latrec_clock_pair(&h->t1_mono_ns, &h->t1_real_ns);
    uint64_t kept = 0;
    const int replace = p->live && latrec_sched_live_is(p->live, p->path);
    int rc = latrec_spool_finish(p->spool, p->path, h, stop_ns, replace, &kept, &p->after_stop, err, errlen);
    free(h);
    p->runs = latrec_spool_runs(p->spool);
    p->write_ns = latrec_now_ns() - t_write;
    if (rc < 0) return -1;
    uint64_t lost = 0;
    for (int i = 0; i < p->ncpus; i++) lost += p->lost_cpu[i];
    c->counts.records = kept;
    c->counts.lost = lost;
    c->counts.dropped = p->kernel_dropped + p->drain_dropped + p->after_stop;
    c->counts.written = p->events + lost + p->kernel_dropped;
    return 0;
}

static json_t *sched_describe(const latrec_collector *c)
{
    const struct sched_priv *p = c->priv;
    json_t *o = json_object();
    if (c->state == LATREC_COLL_FAILED && !p->stopped) return o;
    json_object_set_new(o, "file", json_string(SCHED_FILE));
    json_object_set_new(o, "buffer_bytes", json_integer((json_int_t)p->buffer_bytes));
    json_object_set_new(o, "poll_ms", json_integer(LATREC_SCHED_POLL_MS));
    json_object_set_new(o, "filter", json_string(p->o.tid ? "thread" : "process tree"));
    if (p->o.tid) json_object_set_new(o, "tid", json_integer(p->o.tid));
    json_object_set_new(o, "targets_at_start", json_integer((json_int_t)p->targets));
    if (!p->stopped) return o;
    json_object_set_new(o, "events", json_integer((json_int_t)p->events));
    json_t *per = json_array();
    for (int i = 0; p->lost_cpu && i < p->ncpus; i++) json_array_append_new(per, json_integer((json_int_t)p->lost_cpu[i]));
    json_object_set_new(o, "lost_per_cpu", per);
    json_object_set_new(o, "dropped_before_start_kernel", json_integer((json_int_t)p->kernel_dropped));
    json_object_set_new(o, "dropped_before_start_drain", json_integer((json_int_t)p->drain_dropped));
    json_object_set_new(o, "dropped_after_stop", json_integer((json_int_t)p->after_stop));
    json_object_set_new(o, "untracked_threads", json_integer((json_int_t)p->untracked));
    json_object_set_new(o, "wakeups_not_recorded", json_integer((json_int_t)p->spurious));
    json_t *unseen = json_object();
    json_object_set_new(unseen, "switch_in", json_integer((json_int_t)p->unseen[0]));
    json_object_set_new(unseen, "switch_out", json_integer((json_int_t)p->unseen[1]));
    json_object_set_new(unseen, "wakeup", json_integer((json_int_t)p->unseen[2]));
    json_object_set_new(o, "events_not_seen", unseen);
    json_t *live = json_object();
    if (p->live) {
        json_object_set_new(live, "entries", json_integer((json_int_t)1 << LATREC_SCHED_LIVE_LOG2));
        json_object_set_new(live, "window_ms", json_integer((json_int_t)(LATREC_SCHED_LIVE_WINDOW_NS / 1000000)));
        json_object_set_new(live, "published", json_integer((json_int_t)p->live_published));
        json_object_set_new(live, "late", json_integer((json_int_t)p->live_late));
    } else {
        json_object_set_new(live, "reason", json_string(p->live_error[0] ? p->live_error : "not started"));
    }
    json_object_set_new(o, "live", live);
    json_object_set_new(o, "spool_runs", json_integer((json_int_t)p->runs));
    json_object_set_new(o, "write_ns", json_integer((json_int_t)p->write_ns));
    return o;
}

static void sched_destroy(latrec_collector *c)
{
    struct sched_priv *p = c->priv;
    if (p) {
        bpf_teardown(p);
        latrec_spool_close(p->spool);
        latrec_sched_live_free(p->live);
        free(p->lost_cpu);
        free(p);
    }
    free(c);
}

static const latrec_collector_ops sched_ops = {
    .name = "sched",
    .poll_ms = LATREC_SCHED_POLL_MS,
    .start = sched_start,
    .told_start = sched_told_start,
    .poll = sched_poll,
    .stop = sched_stop,
    .describe = sched_describe,
    .destroy = sched_destroy,
};

latrec_collector *latrec_coll_sched_new(const latrec_sched_opts *o)
{
    latrec_collector *c = calloc(1, sizeof(*c));
    struct sched_priv *p = calloc(1, sizeof(*p));
    if (!c || !p) {
        free(c);
        free(p);
        return NULL;
    }
    p->o = *o;
    p->buffer_bytes = o->buffer_bytes ? o->buffer_bytes : LATREC_SCHED_BUFFER_DEFAULT;
    c->ops = &sched_ops;
    c->priv = p;
    if (o->disabled) {
        snprintf(c->error, sizeof(c->error), "not recorded (--no-sched)");
        c->state = LATREC_COLL_FAILED;
    } else if (bpf_setup(c, c->error, sizeof(c->error)) < 0) {
        bpf_teardown(p);
        c->state = LATREC_COLL_FAILED;
    }
    return c;
}
