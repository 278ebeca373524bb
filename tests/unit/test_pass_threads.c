/* A pass on threads (engine/pipeline.h) makes the calls a pass on one
 * thread makes, in the same order, with the same values: every sink call of
 * a run over ringgen rings is logged with 1, 2 and 3 threads (and through
 * latrec_engine_run) and the logs, tables and builder counts must be equal.
 * The rings span many batches: 4 processes (each an oai and a
 * libe3.outbound thread) stamping the outbound leg with extras, messages
 * that never complete (cut by the leg horizon, or ended by a seq reuse),
 * and from mid-run on an app thread stamping 80 chains of stage ids no
 * catalog names: 80 discovered legs, the first of them made while the
 * record stream is half read, more than the leg table first has room for. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "engine/engine.h"
#include "engine/pass.h"
#include "latrec/stages.h"
#include "ringgen.h"

#define T0 2000000000ull
#define PROCS 4
#define MSGS 5000     /* per process, 20 us apart */
#define SEQ_WRAP 2000 /* seqs repeat: an open instance of the same seq ends */
#define CHAINS 80     /* discovered legs */
#define HORIZON 20000000ull

static char dir[512];
static int descent; /* write_rings: each libe3.outbound ring stamps once a minute ahead, mid-run */
static const char *kinds[3] = { "oai", "libe3.outbound", "app" };

static int ring_path(char *buf, size_t len, int p, int k)
{
    return snprintf(buf, len, "%s/%s.%d.latrec", dir, kinds[k], 100 + 10 * p + k);
}

/* Message i of process p at T0 + i * 20 us + p * 3 us: ENQUEUE on oai,
 * DEQUEUE (+2..2.5 us), ENCODE_E3AP_DONE, SEND_DONE on libe3.outbound;
 * every 13th has a DROP extra, every 17th no SEND_DONE; from i = MSGS / 2
 * on, the app thread stamps chain i % CHAINS: two ids of 0xC0..0xC7 and
 * 0xD0..0xD9, 100 ns apart. */
static int write_rings(void **state)
{
    (void)state;
    snprintf(dir, sizeof(dir), "%s/pass_threads.%d", LATREC_TEST_TMP, (int)getpid());
    mkdir(LATREC_TEST_TMP, 0755);
    if (mkdir(dir, 0755) != 0) return -1;
    int rc = 0;
    for (int p = 0; p < PROCS && rc == 0; p++) {
        ringgen g[3];
        for (int k = 0; k < 3; k++) {
            char name[64];
            snprintf(name, sizeof(name), "%s.%d", kinds[k], 100 + 10 * p + k);
            if (ringgen_init(&g[k], 3, 1u << 15, name) < 0) return -1;
            ringgen_set_u32(&g[k], RINGGEN_OFF_PID, 5000 + (uint32_t)p);
            ringgen_set_u32(&g[k], RINGGEN_OFF_TID, 100 + 10 * (uint32_t)p + (uint32_t)k);
        }
        for (uint64_t i = 1; i <= MSGS; i++) {
            const uint64_t t = T0 + i * 20000 + (uint64_t)p * 3000, seq = i % SEQ_WRAP + 1;
            const uint64_t d = t + 2000 + (i * 7919) % 500;
            ringgen_stamp(&g[0], seq, 0, LATREC_ENQUEUE, t, 0, 0);
            ringgen_stamp(&g[1], seq, 1, LATREC_DEQUEUE, d, 0, 0);
            ringgen_stamp(&g[1], seq, 1, LATREC_ENCODE_E3AP_DONE, d + 900 + i % 11, 64, 0);
            if (i % 17) ringgen_stamp(&g[1], seq, 1, LATREC_SEND_DONE, d + 1500 + i % 7, 0, 0);
            if (i % 13 == 0) ringgen_stamp(&g[1], seq, 1, LATREC_DROP, d + 1700, 0, 0);
            if (i >= MSGS / 2) {
                const unsigned c = (unsigned)(i % CHAINS);
                ringgen_stamp(&g[2], i, 0, 0xC0 + c / 10, t + 100, 0, 0);
                ringgen_stamp(&g[2], i, 0, 0xD0 + c % 10, t + 200, 0, 0);
            }
            if (descent && i == MSGS * 3 / 4) ringgen_stamp(&g[1], 1000000 + i, 0, 0xC0, t + 60000000000ull, 0, 0);
        }
        for (int k = 0; k < 3; k++) {
            char path[600];
            ringgen_set_u64(&g[k], RINGGEN_OFF_REC_COUNT, g[k].next);
            ring_path(path, sizeof(path), p, k);
            rc |= ringgen_write(&g[k], path);
            ringgen_free(&g[k]);
        }
    }
    return rc;
}

static int remove_rings(void **state)
{
    (void)state;
    char path[600];
    for (int p = 0; p < PROCS; p++)
        for (int k = 0; k < 3; k++) {
            ring_path(path, sizeof(path), p, k);
            unlink(path);
        }
    rmdir(dir);
    return 0;
}

/* One sink call. */
struct call {
    int kind; /* 0 table_new, 1 value, 2 instance, 3 first_stage, 4 path_instance */
    int table, hop, leg, complete, n_hits;
    uint32_t process;
    uint64_t seq, t, first_t;
    int64_t v;
    uint64_t hits; /* a digest of the hits */
};

struct log {
    struct call *c;
    size_t n, cap;
    int tables;
    char names[256][2 * LATREC_NAME_MAX + 2];
    size_t first_disc_table; /* call index of the first discovered leg's table */
    size_t values_before;    /* value calls before it */
    size_t values;
};

static struct call *add(struct log *l, int kind)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 4096;
        l->c = realloc(l->c, l->cap * sizeof(*l->c));
        assert_non_null(l->c);
    }
    struct call *c = &l->c[l->n++];
    memset(c, 0, sizeof(*c));
    c->kind = kind;
    return c;
}

static uint64_t digest(const latrec_instance *inst)
{
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < inst->n_hits; i++) {
        const latrec_hit *x = &inst->hits[i];
        const uint64_t w[4] = { x->t_ns, x->aux, x->aux2, (uint64_t)x->ring << 32 | x->cpu };
        for (int k = 0; k < 4; k++) h = (h ^ w[k]) * 1099511628211ull;
    }
    return h;
}

static int table_new(void *ctx, latrec_leg_table *t)
{
    struct log *l = ctx;
    assert_true(l->tables < 256);
    if (t->legdef.discovered && !l->first_disc_table) {
        l->first_disc_table = l->n;
        l->values_before = l->values;
    }
    snprintf(l->names[l->tables], sizeof(l->names[0]), "%s/%s", t->component_name, t->legdef.name);
    struct call *c = add(l, 0);
    c->table = l->tables;
    c->leg = t->leg;
    c->hop = t->n_hops;
    t->user = (void *)(intptr_t)l->tables++;
    return 0;
}

static void on_value(void *ctx, latrec_leg_table *t, int hop, int64_t ns, const latrec_instance *inst)
{
    struct log *l = ctx;
    struct call *c = add(l, 1);
    l->values++;
    c->table = (int)(intptr_t)t->user;
    c->hop = hop;
    c->v = ns;
    c->seq = inst->seq;
    c->process = inst->process;
}

static void on_instance(void *ctx, latrec_leg_table *t, const latrec_instance *inst)
{
    struct call *c = add(ctx, 2);
    c->table = (int)(intptr_t)t->user;
    c->leg = inst->leg;
    c->process = inst->process;
    c->seq = inst->seq;
    c->complete = inst->complete;
    c->first_t = inst->first_t;
    c->n_hits = inst->n_hits;
    c->hits = digest(inst);
}

static void on_first_stage(void *ctx, latrec_leg_table *t, uint64_t t_ns)
{
    struct call *c = add(ctx, 3);
    c->table = (int)(intptr_t)t->user;
    c->t = t_ns;
}

static void on_path(void *ctx, const latrec_path_instance *pi)
{
    struct call *c = add(ctx, 4);
    c->table = pi->path;
    c->complete = pi->complete;
    c->t = pi->start_ns;
    c->first_t = pi->end_ns;
    c->hop = pi->stop_pos * 16 + pi->stop_reason;
    c->n_hits = pi->n_legs;
    for (int i = 0; i < pi->n_legs; i++) c->hits = c->hits * 31 + (pi->legs[i] ? digest(pi->legs[i]) : 7);
}

/* What a run gave, beyond the calls. */
struct result {
    struct log log;
    int n_tables, n_legs, n_cat_legs;
    uint64_t instances[256], complete[256];
    uint64_t cut_horizon, cut_room, warm_skipped, fed;
};

/* The rings' directory on `threads` threads, the leg horizon HORIZON; no
 * pass option yet. */
static void options(latrec_input_opts *io, latrec_pass_opts *po, int threads)
{
    memset(io, 0, sizeof(*io));
    io->quiet = 1;
    io->threads = threads;
    io->leg_horizon_ns = HORIZON;
    latrec_input_add_dir(io, dir);
    memset(po, 0, sizeof(*po));
}

static void run(struct result *r, int threads, int engine)
{
    latrec_input_opts io;
    latrec_pass_opts po;
    options(&io, &po, threads);
    po.warmup_ns = 1000000;
    po.paths = 1;
    memset(r, 0, sizeof(*r));
    latrec_pass_sinks sinks = { .ctx = &r->log,
                                .table_new = table_new,
                                .value = on_value,
                                .instance = on_instance,
                                .first_stage = on_first_stage,
                                .path_instance = on_path };
    latrec_input in, *inp = &in;
    latrec_engine *e = NULL;
    latrec_pass *p;
    if (engine) {
        assert_non_null(e = latrec_engine_open(&io, "test", 0));
        assert_int_equal(latrec_engine_start(e, &po, &sinks), 0);
        assert_int_equal(latrec_engine_run(e), 0);
        p = latrec_engine_pass(e);
        inp = latrec_engine_input(e);
    } else {
        assert_int_equal(latrec_input_open(&in, &io, "test"), 0);
        assert_non_null(p = latrec_pass_run(&in, &po, &sinks));
    }
    assert_int_equal(inp->set.n, PROCS * 3);
    latrec_leg_table **t = latrec_pass_tables(p, &r->n_tables);
    for (int i = 0; i < r->n_tables; i++) {
        assert_int_equal((int)(intptr_t)t[i]->user, i);
        r->instances[i] = t[i]->instances;
        r->complete[i] = t[i]->complete;
    }
    const latrec_legs *legs = latrec_pass_legs(p);
    r->n_legs = latrec_legs_n_legs(legs);
    r->n_cat_legs = latrec_legs_n_catalog_legs(legs);
    r->cut_horizon = latrec_legs_cut_horizon(legs);
    r->cut_room = latrec_legs_cut_room(legs);
    r->warm_skipped = latrec_pass_warmup_skipped(p);
    r->fed = latrec_pass_fed(p);
    if (engine) {
        latrec_engine_close(e);
    } else {
        latrec_pass_free(p);
        latrec_input_close(&in);
    }
}

static void same(const struct result *a, const struct result *b, const char *what)
{
    assert_int_equal(a->log.n, b->log.n);
    for (size_t i = 0; i < a->log.n; i++)
        if (memcmp(&a->log.c[i], &b->log.c[i], sizeof(a->log.c[i])) != 0)
            fail_msg("%s: sink call %zu differs (kind %d and %d)", what, i, a->log.c[i].kind, b->log.c[i].kind);
    assert_int_equal(a->n_tables, b->n_tables);
    for (int i = 0; i < a->n_tables; i++) {
        assert_string_equal(a->log.names[i], b->log.names[i]);
        assert_true(a->instances[i] == b->instances[i] && a->complete[i] == b->complete[i]);
    }
    assert_int_equal(a->n_legs, b->n_legs);
    assert_true(a->cut_horizon == b->cut_horizon && a->cut_room == b->cut_room);
    assert_true(a->warm_skipped == b->warm_skipped && a->fed == b->fed);
}

static uint64_t sum_instances(const struct result *r, const char *name)
{
    uint64_t n = 0;
    for (int i = 0; i < r->n_tables; i++)
        if (strcmp(r->log.names[i], name) == 0) n += r->instances[i];
    return n;
}

static void threads_give_the_figures_of_one(void **state)
{
    (void)state;
    static struct result one, two, three, eng;
    run(&one, 1, 0);
    /* The run is what the rings say (counted apart from the pass): every
     * record fed, 80 legs discovered (beyond the table's first room of the
     * catalog's legs + 64), the first of them after thousands of values. */
    const uint64_t recs = (uint64_t)PROCS * (MSGS * 3 + (MSGS - MSGS / 17) + MSGS / 13 + 2 * (MSGS - MSGS / 2 + 1));
    assert_true(one.fed == recs);
    assert_int_equal(one.n_legs - one.n_cat_legs, CHAINS);
    assert_true(one.log.first_disc_table > 0 && one.log.values_before > 20000);
    assert_true(one.cut_horizon > 0);
    /* One outbound instance per message but the warm-up's: the run begins
     * at T0 + 20 us, messages 1..50 of each process start before + 1 ms. */
    assert_true(one.warm_skipped == PROCS * 50ull);
    assert_true(sum_instances(&one, "libe3/outbound") == (uint64_t)PROCS * (MSGS - 50));
    run(&two, 2, 0);
    same(&one, &two, "2 threads");
    run(&three, 3, 0);
    same(&one, &three, "3 threads");
    run(&eng, 2, 1);
    same(&one, &eng, "the engine on 2 threads");
    free(one.log.c);
    free(two.log.c);
    free(three.log.c);
    free(eng.log.c);
}

/* A sink that fails mid-run (no room for the first discovered leg's
 * table) ends the pass on every thread count: NULL, the calls up to the
 * failure those of one thread, the other threads stopped and joined (no
 * hang; ASan: nothing leaks). */
static int table_new_fails_on_discovered(void *ctx, latrec_leg_table *t)
{
    struct log *l = ctx;
    if (!t->legdef.discovered) return table_new(ctx, t);
    if (!l->first_disc_table) l->first_disc_table = l->n;
    return -1;
}

static void a_failing_sink_ends_the_pass(void **state)
{
    (void)state;
    struct log l[4];
    memset(l, 0, sizeof(l));
    for (int threads = 1; threads <= 3; threads++) {
        latrec_input_opts io;
        latrec_pass_opts po;
        options(&io, &po, threads);
        latrec_pass_sinks sinks = { .ctx = &l[threads],
                                    .table_new = table_new_fails_on_discovered,
                                    .value = on_value,
                                    .instance = on_instance,
                                    .first_stage = on_first_stage };
        latrec_input in;
        assert_int_equal(latrec_input_open(&in, &io, "test"), 0);
        assert_null(latrec_pass_run(&in, &po, &sinks));
        latrec_input_close(&in);
        assert_true(l[threads].first_disc_table > 20000); /* the outbound instances before it */
    }
    for (int threads = 2; threads <= 3; threads++) {
        assert_true(l[threads].first_disc_table == l[1].first_disc_table);
        assert_memory_equal(l[threads].c, l[1].c, l[1].first_disc_table * sizeof(struct call));
    }
    for (int threads = 1; threads <= 3; threads++) free(l[threads].c);
}

/* A ring that is not single-writer: a stamp a minute ahead mid-run, then
 * the run goes on. One thread flushes the discovered legs' waiting
 * first-stage stamps at that record (all of them are a horizon behind it);
 * on threads they must go out there too, not at the next event's lower
 * stamp. (Before: the inter-arrival rows of `report --threads 2` differed
 * from --threads 1's on such a ring.) */
static void a_stamp_far_ahead_flushes_as_on_one_thread(void **state)
{
    remove_rings(state);
    descent = 1;
    assert_int_equal(write_rings(state), 0);
    static struct result one, two;
    run(&one, 1, 0);
    const uint64_t per_proc = MSGS * 3 + (MSGS - MSGS / 17) + MSGS / 13 + 2 * (MSGS - MSGS / 2 + 1);
    assert_true(one.fed == (uint64_t)PROCS * (per_proc + 1)); /* the stamp far ahead read too */
    run(&two, 2, 0);
    same(&one, &two, "2 threads, a stamp far ahead");
    free(one.log.c);
    free(two.log.c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(threads_give_the_figures_of_one),
        cmocka_unit_test(a_failing_sink_ends_the_pass),
        cmocka_unit_test(a_stamp_far_ahead_flushes_as_on_one_thread),
    };
    return cmocka_run_group_tests(tests, write_rings, remove_rings);
}
