/*
 * test_paths.c - path instances assembled from synthetic rings where every
 * segment is known by construction.
 *
 * A user catalog "pipe" (written here, through the `path` directive) has
 * three legs a, b, c: a in process 100, b and c in process 200; a -> b
 * joins across processes by aux (A_OUT.aux = B_IN.aux), b -> c inside the
 * process by aux2 (B_OUT.aux2 = C_IN.aux2). Message m's segments are typed
 * in below (seg_*), so every emitted instance is checked segment by
 * segment, and the segments against the total. Planted defects: a missing
 * partner, a DROP, a duplicate key, a partner beyond the horizon, a c
 * instance in a third process (a process join must not take it). The E3
 * catalog's "e3/loop" is checked over two processes as e3loop stamps it;
 * two directories (hosts) join only with cross_hosts; max_open bounds the
 * open fragments.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyze/catalog.h"
#include "analyze/legs.h"
#include "analyze/paths.h"
#include "read/merge.h"
#include "read/ringset.h"
#include "ringgen.h"

#define TMPDIR LATREC_TEST_TMP "/paths"
#define BASE 2000000000ull
#define MS 1000000ull

enum { A_IN = 1, A_OUT, B_IN, B_OUT, C_IN, C_OUT, P_DROP };

struct r {
    uint64_t seq;
    unsigned stage;
    uint64_t t, aux, aux2;
};

struct ring {
    char name[32];
    uint32_t pid, tid;
    struct r recs[256];
    size_t n;
};

static char dirbuf[512];

static const char *test_dir(const char *name)
{
    snprintf(dirbuf, sizeof dirbuf, TMPDIR "/%s", name);
    char cmd[1100];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dirbuf, dirbuf);
    assert_int_equal(system(cmd), 0);
    return dirbuf;
}

static void put(struct ring *g, uint64_t seq, unsigned stage, uint64_t t, uint64_t aux, uint64_t aux2)
{
    assert_true(g->n < sizeof g->recs / sizeof g->recs[0]);
    g->recs[g->n++] = (struct r){ seq, stage, t, aux, aux2 };
}

static int by_time(const void *a, const void *b)
{
    const struct r *x = a, *y = b;
    return x->t < y->t ? -1 : x->t > y->t;
}

static void write_ring(const char *dir, struct ring *g)
{
    qsort(g->recs, g->n, sizeof g->recs[0], by_time);
    uint64_t entries = 16;
    while (entries < g->n) entries *= 2;
    ringgen rg;
    assert_int_equal(ringgen_init(&rg, 3, entries, g->name), 0);
    ringgen_set_u32(&rg, RINGGEN_OFF_PID, g->pid);
    ringgen_set_u32(&rg, RINGGEN_OFF_TID, g->tid);
    ringgen_set_bytes(&rg, RINGGEN_OFF_CATALOG, "pipe", 5);
    for (size_t i = 0; i < g->n; i++)
        ringgen_stamp(&rg, g->recs[i].seq, 1, g->recs[i].stage, g->recs[i].t, g->recs[i].aux, g->recs[i].aux2);
    ringgen_set_u64(&rg, RINGGEN_OFF_REC_COUNT, g->n);
    char path[700];
    snprintf(path, sizeof path, "%s/%s.latrec", dir, g->name);
    assert_int_equal(ringgen_write(&rg, path), 0);
    ringgen_free(&rg);
}

/* ---- assembling ------------------------------------------------------------- */

struct got {
    latrec_path_instance pi;
    int64_t seg[LATREC_MAX_SEGS];
    int has[LATREC_MAX_SEGS];
    uint64_t seq0;                 /* the first leg's seq */
    int dir[LATREC_MAX_PATH_LEGS]; /* each leg's directory (host), -1: not reached */
};

struct run {
    latrec_catalog cat;
    latrec_ringset set;
    latrec_legs *legs;
    latrec_paths *paths;
    latrec_segment segs[LATREC_MAX_SEGS];
    int n_segs, path;
    struct got got[64];
    size_t n_got;
    int ring_dir[64];
    size_t max_open_seen; /* the most fragments open after a feed */
};

static void on_path(void *ctx, const latrec_path_instance *pi)
{
    struct run *r = ctx;
    if (pi->path != r->path) return;
    assert_true(r->n_got < sizeof r->got / sizeof r->got[0]);
    struct got *g = &r->got[r->n_got++];
    memset(g, 0, sizeof(*g));
    g->pi = *pi;
    g->seq0 = pi->legs[0] ? pi->legs[0]->seq : 0;
    for (int i = 0; i < LATREC_MAX_PATH_LEGS; i++)
        g->dir[i] = i < pi->n_legs && pi->legs[i] ? latrec_legs_process(r->legs, pi->legs[i]->process)->dir : -1;
    const latrec_path *path = &r->cat.paths[pi->path];
    for (int s = 0; s < r->n_segs; s++) {
        const latrec_hit *a, *b;
        g->has[s] = latrec_segment_value(&r->cat, path, pi, &r->segs[s], &g->seg[s], &a, &b);
    }
    for (int i = 0; i < LATREC_MAX_PATH_LEGS; i++) g->pi.legs[i] = NULL; /* not valid after the call */
}

static void on_leg(void *ctx, const latrec_instance *inst)
{
    struct run *r = ctx;
    assert_int_equal(latrec_paths_feed(r->paths, inst), 0);
    if (latrec_paths_open(r->paths) > r->max_open_seen) r->max_open_seen = latrec_paths_open(r->paths);
}

/* Assemble the rings of dirs (catalog_text written into dirs[0], NULL: the
 * E3 catalog) under opts. */
static void run_paths_in(struct run *r, const char *const *dirs, size_t ndirs, const char *catalog_text,
                         const latrec_paths_opts *opts, const char *path_name)
{
    const char *dir = dirs[0];
    memset(r, 0, sizeof(*r));
    char err[256], path[700];
    if (catalog_text) {
        snprintf(path, sizeof path, "%s/pipe.catalog", dir);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(catalog_text, f);
        fclose(f);
        assert_int_equal(latrec_catalog_load(&r->cat, path, err, sizeof err), 0);
    } else {
        assert_int_equal(latrec_catalog_e3(&r->cat), 0);
    }
    r->path = latrec_catalog_path(&r->cat, path_name);
    assert_true(r->path >= 0);
    assert_int_equal(latrec_ringset_open(&r->set, dirs, ndirs, err, sizeof err), 0);
    for (size_t i = 0; i < r->set.n; i++)
        for (size_t d = 0; d < ndirs; d++)
            if (strncmp(r->set.rings[i].path, dirs[d], strlen(dirs[d])) == 0 &&
                r->set.rings[i].path[strlen(dirs[d])] == '/')
                r->ring_dir[i] = (int)d;
    r->legs = latrec_legs_new(&r->cat, &r->set, r->ring_dir, 0, 0, on_leg, r);
    assert_non_null(r->legs);
    r->paths = latrec_paths_new(&r->cat, r->legs, opts, on_path, r);
    assert_non_null(r->paths);
    r->n_segs = latrec_path_segments(&r->cat, &r->cat.paths[r->path], r->segs);
    latrec_merge m;
    assert_int_equal(latrec_merge_init(&m, r->set.rings, r->set.n, 0, err, sizeof err), 0);
    latrec_merged ev;
    while (latrec_merge_next(&m, &ev)) assert_true(latrec_legs_feed(r->legs, ev.ring, &ev.rec) >= -1);
    latrec_merge_free(&m);
    latrec_legs_finish(r->legs);
    latrec_paths_finish(r->paths);
    assert_int_equal(latrec_paths_open(r->paths), 0);
}

static void run_paths(struct run *r, const char *dir, const char *catalog_text, uint64_t horizon, const char *path_name)
{
    const char *dirs[] = { dir };
    const latrec_paths_opts o = { horizon, 0, 0 };
    run_paths_in(r, dirs, 1, catalog_text, &o, path_name);
}

static void run_close(struct run *r)
{
    latrec_paths_free(r->paths);
    latrec_legs_free(r->legs);
    latrec_ringset_close(&r->set);
    latrec_catalog_free(&r->cat);
}

static const struct got *find_got(const struct run *r, uint64_t seq0, int complete)
{
    for (size_t i = 0; i < r->n_got; i++)
        if (r->got[i].seq0 == seq0 && r->got[i].pi.complete == complete) return &r->got[i];
    fail_msg("no %s instance with first seq %llu", complete ? "complete" : "incomplete", (unsigned long long)seq0);
    return NULL;
}

/* ---- the pipe: three legs, two processes ------------------------------------- */

static const char pipe_catalog[] = "catalog pipe\n"
                                   "stage 1 A_IN\nstage 2 A_OUT\nstage 3 B_IN\nstage 4 B_OUT\n"
                                   "stage 5 C_IN\nstage 6 C_OUT\nstage 7 DROP\n"
                                   "leg a A_IN A_OUT\nextra a DROP\n"
                                   "leg b B_IN B_OUT\nleg c C_IN C_OUT\n"
                                   "key a out_id A_OUT.aux\nkey b in_id B_IN.aux\n"
                                   "key b out_id B_OUT.aux2\nkey c in_id C_IN.aux2\n"
                                   "join a.out_id b.in_id cross\n"
                                   "join b.out_id c.in_id process\n"
                                   "path pipe/abc a b c\n";

/* Message m's segments, ns. */
static uint64_t seg_a(uint64_t m)
{
    return 1000 + m;
} /* A_IN -> A_OUT */
static uint64_t seg_ab(uint64_t m)
{
    return 20000 + 7 * m;
} /* hand-off A_OUT -> B_IN */
static uint64_t seg_b(uint64_t m)
{
    return 3000 + 2 * m;
} /* B_IN -> B_OUT */
static uint64_t seg_bc(uint64_t m)
{
    return 4000 + m;
} /* hand-off B_OUT -> C_IN */
static uint64_t seg_c(uint64_t m)
{
    return 500 + 3 * m;
} /* C_IN -> C_OUT */

/* Message m starting at t with key k (a: seq m; b: seq 50 + m; c: seq 70 + m). */
static void put_a(struct ring *a, uint64_t m, uint64_t t, uint64_t k)
{
    put(a, m, A_IN, t, 0, 0);
    put(a, m, A_OUT, t + seg_a(m), 100 + k, 0);
}

static uint64_t put_b(struct ring *b, uint64_t m, uint64_t t, uint64_t k)
{
    uint64_t tb = t + seg_a(m) + seg_ab(m);
    put(b, 50 + m, B_IN, tb, 100 + k, 0);
    put(b, 50 + m, B_OUT, tb + seg_b(m), 0, 900 + k);
    return tb + seg_b(m);
}

static void put_c(struct ring *c, uint64_t m, uint64_t tb_out, uint64_t k)
{
    put(c, 70 + m, C_IN, tb_out + seg_bc(m), 0, 900 + k);
    put(c, 70 + m, C_OUT, tb_out + seg_bc(m) + seg_c(m), 0, 0);
}

/* The pipe's four rings in dir: m 1..11 through a, b and c (see the
 * comments for what happens to each). */
static void write_pipe_rings(const char *dir)
{
    static struct ring a = { "a.101", 100, 101, { { 0 } }, 0 }, b = { "b.201", 200, 201, { { 0 } }, 0 },
                       c = { "c.202", 200, 202, { { 0 } }, 0 }, c3 = { "c.301", 300, 301, { { 0 } }, 0 };
    /* m 1..5: complete */
    for (uint64_t m = 1; m <= 5; m++) {
        uint64_t t = BASE + m * MS;
        put_a(&a, m, t, m);
        put_c(&c, m, put_b(&b, m, t, m), m);
    }
    /* m 6: no b instance for its key: stops at b, no partner */
    put_a(&a, 6, BASE + 6 * MS, 6);
    /* m 7: a dropped (DROP, no A_OUT): stops at a, drop */
    put(&a, 7, A_IN, BASE + 7 * MS, 0, 0);
    put(&a, 7, P_DROP, BASE + 7 * MS + 10, 0, 1);
    /* m 8 and 9 carry the same key 8; b comes 30 ms later (after both a
     * ended): 8 is displaced (duplicate key), 9 completes */
    put_a(&a, 8, BASE + 8 * MS, 8);
    put_a(&a, 9, BASE + 9 * MS, 8);
    put_c(&c, 9, put_b(&b, 9, BASE + 39 * MS, 8), 8); /* its hand-off a -> b is 30 ms longer */
    /* m 10: its b comes 300 ms later, past the 100 ms horizon */
    put_a(&a, 10, BASE + 60 * MS, 10);
    put_c(&c, 10, put_b(&b, 10, BASE + 360 * MS, 10), 10);
    /* m 11: complete, 400 ms in; and a c with m 11's key in process 300:
     * the process join b -> c must not take it */
    put_a(&a, 11, BASE + 400 * MS, 11);
    put_c(&c, 11, put_b(&b, 11, BASE + 400 * MS, 11), 11);
    put_c(&c3, 11, BASE + 400 * MS + 100, 11);
    write_ring(dir, &a);
    write_ring(dir, &b);
    write_ring(dir, &c);
    write_ring(dir, &c3);
}

/* The complete instances: each segment exactly, adding up to the total. */
static void check_pipe_complete(struct run *r, const latrec_path_counts *n)
{
    assert_int_equal(n->complete, 7); /* 1..5, 9, 11 */
    const uint64_t done[] = { 1, 2, 3, 4, 5, 9, 11 };
    for (size_t i = 0; i < sizeof done / sizeof done[0]; i++) {
        uint64_t m = done[i];
        const struct got *g = find_got(r, m, 1);
        const uint64_t want[5] = { seg_a(m), seg_ab(m) + (m == 9 ? 30 * MS : 0), seg_b(m), seg_bc(m), seg_c(m) };
        int64_t sum = 0;
        for (int s = 0; s < 5; s++) {
            assert_true(g->has[s]);
            assert_int_equal(g->seg[s], want[s]);
            sum += g->seg[s];
        }
        assert_true(g->has[5]);
        assert_int_equal(g->seg[5], sum); /* the segments add up to the total */
        assert_int_equal(g->pi.end_ns - g->pi.start_ns, sum);
    }
    /* m 9 started at its own A_IN (the displaced 8 did not take its b) */
    assert_int_equal(find_got(r, 9, 1)->pi.start_ns, BASE + 9 * MS);
}

/* The instances that stopped: where, why, and the drops' delay. */
static void check_pipe_stopped(struct run *r, const latrec_path_counts *n)
{
    const struct got *g6 = find_got(r, 6, 0), *g7 = find_got(r, 7, 0), *g8 = find_got(r, 8, 0),
                     *g10 = find_got(r, 10, 0);
    assert_int_equal(g6->pi.stop_pos, 1);
    assert_int_equal(g6->pi.stop_reason, LATREC_PATH_NO_PARTNER);
    assert_int_equal(g7->pi.stop_pos, 0);
    assert_int_equal(g7->pi.stop_reason, LATREC_PATH_DROP);
    assert_int_equal(g8->pi.stop_pos, 1);
    assert_int_equal(g8->pi.stop_reason, LATREC_PATH_DUPLICATE);
    assert_int_equal(g10->pi.stop_pos, 1);
    /* counted as no partner when it left, moved when its partner came */
    assert_int_equal(n->stopped[1][LATREC_PATH_NO_PARTNER], 1);
    assert_int_equal(n->stopped[1][LATREC_PATH_HORIZON], 1);
    assert_int_equal(n->stopped[1][LATREC_PATH_DUPLICATE], 1);
    assert_int_equal(n->stopped[0][LATREC_PATH_DROP], 1);
    assert_int_equal(n->incomplete, 4);
    /* unanchored: m 10's b+c (partner gone), process 300's c */
    assert_int_equal(n->unanchored, 2);
    /* links made per join: a -> b for 1..5, 9, 11; b -> c also for 10 */
    assert_int_equal(n->joined[1], 7);
    assert_int_equal(n->joined[2], 8);

    /* drops as delay: 6, 7 and 8 run until 9 got through; 10 left (at
     * the horizon) before 11 got through: unresolved */
    const uint64_t end9 = find_got(r, 9, 1)->pi.end_ns;
    assert_int_equal(g6->pi.delay_end_ns, end9);
    assert_int_equal(g7->pi.delay_end_ns, end9);
    assert_int_equal(g8->pi.delay_end_ns, end9);
    assert_int_equal(g10->pi.delay_end_ns, 0);
    assert_int_equal(n->drops_delayed, 3);
}

static void test_pipe(void **state)
{
    (void)state;
    const char *dir = test_dir("pipe");
    write_pipe_rings(dir);

    static struct run r;
    run_paths(&r, dir, pipe_catalog, 100 * MS, "pipe/abc");
    assert_int_equal(r.cat.n_paths, 1);
    assert_string_equal(r.cat.paths[0].name, "pipe/abc");
    /* segments: a's hop, a->b, b's hop, b->c, c's hop, total */
    assert_int_equal(r.n_segs, 6);
    assert_string_equal(r.segs[0].name, "A_IN->A_OUT");
    assert_string_equal(r.segs[1].name, "A_OUT->B_IN");
    assert_string_equal(r.segs[1].leg, "a->b");
    assert_int_equal(r.segs[1].kind, LATREC_SEG_HANDOFF);
    assert_string_equal(r.segs[3].name, "B_OUT->C_IN");
    assert_string_equal(r.segs[5].name, "total");

    const latrec_path_counts *n = latrec_paths_counts(r.paths, 0);
    check_pipe_complete(&r, n);
    check_pipe_stopped(&r, n);
    run_close(&r);
}

/* A path directive naming two legs without a join, or a leg twice. */
static void test_path_directive_errors(void **state)
{
    (void)state;
    const char *dir = test_dir("directive");
    const char *bad[] = {
        "stage 1 X\nstage 2 Y\nleg x X\nleg y Y\npath p x y\n",
        "stage 1 X\nstage 2 Y\nleg x X\nleg y Y\njoin x.seq y.seq\npath p x y x\n",
        "stage 1 X\nleg x X\npath p x nope\n",
    };
    const char *why[] = { "no join between x and y", "leg twice in one path", "unknown leg" };
    const char *line[] = { ":5: path: ", ":6: path: ", ":3: path: " };
    for (size_t i = 0; i < 3; i++) {
        char path[700], err[256];
        snprintf(path, sizeof path, "%s/bad%zu.catalog", dir, i);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(bad[i], f);
        fclose(f);
        latrec_catalog cat;
        assert_int_equal(latrec_catalog_load(&cat, path, err, sizeof err), -1);
        assert_non_null(strstr(err, why[i]));
        assert_non_null(strstr(err, line[i]));
    }
}

/* ---- e3/loop as e3loop stamps it ------------------------------------------------ */

enum {
    RECORD_BEGIN = 0x10,
    PROCESS_BEGIN = 0x11,
    ENCODE_E3SM_BEGIN = 0x18,
    ENCODE_E3SM_DONE = 0x19,
    DECODE_E3SM_BEGIN = 0x1A,
    DECODE_E3SM_DONE = 0x1B,
    EMIT_ENTER = 0x20,
    ENQUEUE = 0x21,
    DEQUEUE = 0x22,
    ENCODE_E3AP_DONE = 0x23,
    SEND_DONE = 0x24,
    RECV = 0x25,
    DECODE_E3AP_DONE = 0x26,
    DELIVER_BEGIN = 0x27,
    DELIVER_DONE = 0x28,
    PROCESS_DONE = 0x40,
    CREATE_OUTPUT = 0x41,
    APPLY_CONTROL_DONE = 0x48,
    LIVE_ON_AIR = 0x49,
    WAIT_ENTER = 0x70,
};

static void test_e3_loop(void **state)
{
    (void)state;
    const char *dir = test_dir("e3loop");
    static struct ring src = { "oai.11", 10, 11, { { 0 } }, 0 }, out = { "libe3.outbound.12", 10, 12, { { 0 } }, 0 },
                       ctl = { "oai.ctrl.10", 10, 10, { { 0 } }, 0 }, in = { "libe3.inbound.20", 20, 20, { { 0 } }, 0 },
                       dapp = { "dapp.21", 20, 21, { { 0 } }, 0 };
    for (uint64_t m = 1; m <= 20; m++) {
        uint64_t t = BASE + m * MS, s = m, o = 100 + m, id = 500 + m, inseq = 30 + m, cid = 700 + m;
        /* source seq s; outbound seq o (EMIT_ENTER.aux = s); msg id; inbound seq; control id */
        put(&src, s, RECORD_BEGIN, t, 0, 0);
        put(&src, s, PROCESS_BEGIN, t + 100, 0, 0);
        put(&src, s, ENCODE_E3SM_BEGIN, t + 300, 0, 0);
        put(&src, s, ENCODE_E3SM_DONE, t + 400, 256, 0);
        put(&src, o, EMIT_ENTER, t + 450, s, 2);
        put(&src, o, ENQUEUE, t + 500, 0, 0);
        put(&src, s, WAIT_ENTER, t + 520, 0, 0);
        put(&out, o, DEQUEUE, t + 2000, 0, 0);
        put(&out, o, ENCODE_E3AP_DONE, t + 2100, 300, 0);
        put(&out, o, SEND_DONE, t + 5000, id, 0);
        put(&in, inseq, RECV, t + 9000 + 10 * m, 300, 0);
        put(&in, inseq, DECODE_E3AP_DONE, t + 9100 + 10 * m, id, 0);
        put(&in, inseq, DELIVER_BEGIN, t + 9150 + 10 * m, id, 0);
        put(&in, inseq, DELIVER_DONE, t + 9400 + 10 * m, id, 0);
        put(&dapp, inseq, DECODE_E3SM_BEGIN, t + 12000, id, 0);
        put(&dapp, inseq, DECODE_E3SM_DONE, t + 12500, 256, 0);
        put(&dapp, inseq, PROCESS_DONE, t + 13000, 7, 0);
        put(&dapp, inseq, CREATE_OUTPUT, t + 13100, cid, id);
        put(&ctl, cid, APPLY_CONTROL_DONE, t + 20000, id, 7);
        put(&ctl, cid, LIVE_ON_AIR, t + 400000, 7, 0);
    }
    write_ring(dir, &src);
    write_ring(dir, &out);
    write_ring(dir, &ctl);
    write_ring(dir, &in);
    write_ring(dir, &dapp);

    static struct run r;
    run_paths(&r, dir, NULL, 0, "e3/loop");
    const int loop = r.path;
    assert_true(latrec_catalog_path(&r.cat, "e3/indication") >= 0);
    assert_int_equal(latrec_paths_counts(r.paths, latrec_catalog_path(&r.cat, "e3/indication"))->complete, 20);
    const latrec_path_counts *n = latrec_paths_counts(r.paths, loop);
    assert_int_equal(n->complete, 20);
    assert_int_equal(n->incomplete, 0);
    assert_int_equal(n->unanchored, 0);
    /* every loop instance is complete, its segments add up, and the
     * dApp-side segments hold the stamped values */
    size_t seen = 0;
    for (size_t i = 0; i < r.n_got; i++) {
        const struct got *g = &r.got[i];
        if (g->pi.path != loop) continue;
        seen++;
        int64_t sum = 0;
        for (int s = 0; s + 1 < r.n_segs; s++) {
            assert_true(g->has[s]);
            sum += g->seg[s];
        }
        assert_int_equal(sum, g->seg[r.n_segs - 1]);
        assert_int_equal(sum, 400000);
    }
    assert_int_equal(seen, 20);
    /* segments in order: source's 3 hops, source->outbound, outbound's 3,
     * outbound->inbound, inbound's 1, inbound->consume, consume's 3,
     * consume->apply_ctrl, apply_ctrl's 1, total */
    assert_int_equal(r.n_segs, 3 + 1 + 3 + 1 + 1 + 1 + 3 + 1 + 1 + 1);
    assert_string_equal(r.segs[3].name, "ENCODE_E3SM_DONE->ENQUEUE");
    assert_string_equal(r.segs[7].name, "SEND_DONE->RECV");
    assert_string_equal(r.segs[7].leg, "outbound->inbound");
    assert_string_equal(r.segs[9].name, "DECODE_E3AP_DONE->DECODE_E3SM_BEGIN");
    assert_string_equal(r.segs[13].name, "CREATE_OUTPUT->APPLY_CONTROL_DONE");
    assert_int_equal(r.got[0].seg[13], 20000 - 13100);
    assert_int_equal(r.got[0].seg[7], 9000 + 10 * r.got[0].seq0 - 5000);
    run_close(&r);
}

/* Two directories (two hosts): a on one, b and c on the other. The cross
 * join a -> b matches across directories only with cross_hosts (--wall
 * with several hosts); the process join b -> c never leaves its process. */
static void test_cross_hosts(void **state)
{
    (void)state;
    char d1[600], d2[600];
    snprintf(d1, sizeof d1, "%s", test_dir("host1"));
    snprintf(d2, sizeof d2, "%s", test_dir("host2"));
    static struct ring a = { "a.101", 100, 101, { { 0 } }, 0 }, b = { "b.201", 200, 201, { { 0 } }, 0 },
                       c = { "c.202", 200, 202, { { 0 } }, 0 };
    for (uint64_t m = 1; m <= 5; m++) {
        uint64_t t = BASE + m * MS;
        put_a(&a, m, t, m);
        put_c(&c, m, put_b(&b, m, t, m), m);
    }
    write_ring(d1, &a);
    write_ring(d2, &b);
    write_ring(d2, &c);
    const char *dirs[] = { d1, d2 };
    for (int cross = 0; cross < 2; cross++) {
        static struct run r;
        const latrec_paths_opts o = { 0, 0, cross };
        run_paths_in(&r, dirs, 2, pipe_catalog, &o, "pipe/abc");
        const latrec_path_counts *n = latrec_paths_counts(r.paths, 0);
        assert_int_equal(n->complete, cross ? 5 : 0);
        assert_int_equal(n->incomplete, cross ? 0 : 5);
        if (!cross) assert_int_equal(n->stopped[1][LATREC_PATH_NO_PARTNER], 5);
        assert_int_equal(r.n_got, 5); /* complete, or incomplete at b */
        for (size_t i = 0; i < r.n_got; i++) {
            /* the legs' hosts: a on directory 0, b and c on directory 1 */
            assert_int_equal(r.got[i].dir[0], 0);
            assert_int_equal(r.got[i].dir[1], cross ? 1 : -1);
            assert_int_equal(r.got[i].dir[2], cross ? 1 : -1);
            if (cross) assert_int_equal(r.got[i].seg[1], seg_ab(r.got[i].seq0));
        }
        run_close(&r);
    }
}

/* max_open bounds the open fragments: the oldest leaves, counted. */
static void test_max_open(void **state)
{
    (void)state;
    const char *dir = test_dir("max_open");
    static struct ring a = { "a.101", 100, 101, { { 0 } }, 0 };
    for (uint64_t m = 1; m <= 10; m++) put_a(&a, m, BASE + m * MS, m); /* no b ever */
    write_ring(dir, &a);
    const char *dirs[] = { dir };
    static struct run r;
    const latrec_paths_opts o = { 0, 3, 0 };
    run_paths_in(&r, dirs, 1, pipe_catalog, &o, "pipe/abc");
    const latrec_path_counts *n = latrec_paths_counts(r.paths, 0);
    assert_true(r.max_open_seen <= 3);
    assert_int_equal(n->cut_open, 7);
    assert_int_equal(n->incomplete, 10);
    assert_int_equal(n->stopped[1][LATREC_PATH_NO_PARTNER], 10);
    run_close(&r);
}

/* ---- two catalogs in one run ------------------------------------------------ */

struct mixed {
    latrec_legs *legs;
    latrec_paths *paths;
    const latrec_catalog *cat;
    latrec_segment segs[LATREC_MAX_SEGS];
    int n_segs;
    uint64_t complete_total[5], n_complete;
};

static struct mixed *mixed_e3, *mixed_pipe;

static void on_mixed_path(void *ctx, const latrec_path_instance *pi)
{
    struct mixed *x = ctx;
    if (!pi->complete) return;
    x->n_complete++;
    const latrec_hit *a, *b;
    int64_t v = 0;
    int n = latrec_path_segments(x->cat, &x->cat->paths[pi->path], x->segs);
    assert_true(latrec_segment_value(x->cat, &x->cat->paths[pi->path], pi, &x->segs[n - 1], &v, &a, &b));
    uint64_t m = pi->legs[0]->seq;
    if (m >= 1 && m <= 5) x->complete_total[m - 1] = (uint64_t)v;
    x->n_segs = n;
}

static void on_mixed_leg(void *ctx, const latrec_instance *inst)
{
    (void)ctx;
    assert_int_equal(latrec_paths_feed(mixed_e3->paths, inst), 0);
    assert_int_equal(latrec_paths_feed(mixed_pipe->paths, inst), 0);
}

/* E3 rings and rings of the user catalog "pipe" in one directory, read by
 * one builder (E3 catalog 0, pipe catalog 1): pipe's path is assembled by
 * its own assembler, its legs found past E3's in the builder, while the E3
 * ring stamps the same raw stage ids under E3's names. */
static void test_two_catalogs(void **state)
{
    (void)state;
    const char *dir = test_dir("mixed");
    static struct ring a = { "a.101", 100, 101, { { 0 } }, 0 }, b = { "b.201", 200, 201, { { 0 } }, 0 },
                       c = { "c.202", 200, 202, { { 0 } }, 0 }, e3 = { "oai.11", 10, 11, { { 0 } }, 0 };
    for (uint64_t m = 1; m <= 5; m++) {
        uint64_t t = BASE + m * MS;
        put_a(&a, m, t, m);
        put_c(&c, m, put_b(&b, m, t, m), m);
        for (unsigned st = A_IN; st <= C_OUT; st++) put(&e3, m, st, t + 10 * st, 100 + m, 900 + m);
    }
    write_ring(dir, &a);
    write_ring(dir, &b);
    write_ring(dir, &c);
    write_ring(dir, &e3);

    static latrec_catalog e3cat, pipecat;
    char err[256], path[700];
    assert_int_equal(latrec_catalog_e3(&e3cat), 0);
    snprintf(path, sizeof path, "%s/pipe.catalog", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(pipe_catalog, f);
    fclose(f);
    assert_int_equal(latrec_catalog_load(&pipecat, path, err, sizeof err), 0);
    const char *dirs[] = { dir };
    latrec_ringset set;
    assert_int_equal(latrec_ringset_open(&set, dirs, 1, err, sizeof err), 0);
    assert_int_equal(set.n, 4);
    int ring_cat[4];
    for (size_t i = 0; i < set.n; i++) ring_cat[i] = strstr(set.rings[i].path, "/oai.") ? 0 : 1;
    const latrec_catalog *cats[] = { &e3cat, &pipecat };
    static struct mixed xe, xp;
    memset(&xe, 0, sizeof xe);
    memset(&xp, 0, sizeof xp);
    mixed_e3 = &xe;
    mixed_pipe = &xp;
    latrec_legs *legs = latrec_legs_new_multi(cats, 2, ring_cat, &set, NULL, 0, 0, on_mixed_leg, NULL);
    assert_non_null(legs);
    assert_true(latrec_legs_catalog_leg(legs, 1, 0) >= e3cat.n_legs); /* pipe's legs come after E3's */
    const latrec_paths_opts o = { 100 * MS, 0, 0 };
    xe.cat = &e3cat;
    xp.cat = &pipecat;
    assert_null(latrec_paths_new_catalog(legs, 2, &o, on_mixed_path, &xp));
    assert_non_null(xe.paths = latrec_paths_new_catalog(legs, 0, &o, on_mixed_path, &xe));
    assert_non_null(xp.paths = latrec_paths_new_catalog(legs, 1, &o, on_mixed_path, &xp));
    latrec_merge m;
    assert_int_equal(latrec_merge_init(&m, set.rings, set.n, 0, err, sizeof err), 0);
    latrec_merged ev;
    while (latrec_merge_next(&m, &ev)) assert_true(latrec_legs_feed(legs, ev.ring, &ev.rec) >= -1);
    latrec_merge_free(&m);
    latrec_legs_finish(legs);
    latrec_paths_finish(xe.paths);
    latrec_paths_finish(xp.paths);

    const latrec_path_counts *n = latrec_paths_counts(xp.paths, 0);
    assert_int_equal(n->complete, 5);
    assert_int_equal(n->incomplete, 0);
    assert_int_equal(n->unanchored, 0);
    assert_int_equal(xp.n_segs, 6);
    for (uint64_t k = 1; k <= 5; k++)
        assert_int_equal(xp.complete_total[k - 1], seg_a(k) + seg_ab(k) + seg_b(k) + seg_bc(k) + seg_c(k));
    /* the E3 assembler never takes a pipe leg: no E3 path instance here */
    assert_int_equal(xe.n_complete, 0);
    for (int k = 0; k < e3cat.n_paths; k++) assert_int_equal(latrec_paths_counts(xe.paths, k)->complete, 0);

    latrec_paths_free(xe.paths);
    latrec_paths_free(xp.paths);
    latrec_legs_free(legs);
    latrec_ringset_close(&set);
    latrec_catalog_free(&e3cat);
    latrec_catalog_free(&pipecat);
}

int main(void)
{
    mkdir(LATREC_TEST_TMP, 0755);
    mkdir(TMPDIR, 0755);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pipe),     cmocka_unit_test(test_path_directive_errors),
        cmocka_unit_test(test_e3_loop),  cmocka_unit_test(test_cross_hosts),
        cmocka_unit_test(test_max_open), cmocka_unit_test(test_two_catalogs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
