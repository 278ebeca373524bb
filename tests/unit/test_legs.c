/*
 * test_legs.c - leg instances built from synthetic rings with known deltas:
 * one leg over two threads of one process, equal seqs of two processes,
 * guessed processes for v1/v2 rings, seq reuse, horizon and max_open
 * eviction, DROP routing, late extras within the grace, an extra kept to
 * its own seq counter's instance, a negative last hop across two rings, the
 * default horizon's cut counted. The builder's index of open instances is
 * test_legs_index.c's, discovery of uncatalogued chains test_legs_discovery.c's.
 *
 * Rings are written byte by byte with ringgen.h into a directory per test,
 * read back with the reader (ringset + merge) and fed in time order, as
 * latrec convert does (legs_run.h). Every expected value is typed in from
 * the records written here.
 */
#define LEGS_TEST_ROOT LATREC_TEST_TMP "/legs"
#include "legs_run.h"


/* ---- (a) one leg on two threads of one process --------------------------------- */

static void test_two_threads_one_process(void **state)
{
    (void)state;
    const char *dir = test_dir("two_threads");
    /* producer thread: EMIT_ENTER (aux = source seq, aux2 = RAN function),
     * ENQUEUE; publisher thread: DEQUEUE, ENCODE_E3AP_DONE, SEND_DONE. */
    struct r prod[6], pub[9];
    for (uint64_t s = 1; s <= 3; s++) {
        uint64_t t = BASE + s * MS;
        prod[2 * (s - 1)] = (struct r){ s, EMIT_ENTER, t, 500 + s, 7 };
        prod[2 * (s - 1) + 1] = (struct r){ s, ENQUEUE, t + 40 + s, 0, 0 };
        pub[3 * (s - 1)] = (struct r){ s, DEQUEUE, t + 40 + s + 1000 * s + 7, 0, 0 };
        pub[3 * (s - 1) + 1] = (struct r){ s, ENCODE_E3AP_DONE, t + 40 + s + 1000 * s + 7 + 250, 184 + s, 0 };
        pub[3 * (s - 1) + 2] = (struct r){ s, SEND_DONE, t + 40 + s + 1000 * s + 7 + 250 + 3333 + s, 900 + s, 0 };
    }
    make_ring(dir, "oai.1001", 3, 1000, 1001, prod, 6);
    make_ring(dir, "libe3.outbound.1002", 3, 1000, 1002, pub, 9);
    const char *dirs[] = { dir };
    struct run r;
    run_open(&r, dirs, 1, 0, 0);
    run_feed(&r, 1);

    const uint32_t ra = ring_index(&r, "oai.1001"), rb = ring_index(&r, "libe3.outbound.1002");
    const uint32_t proc = latrec_legs_ring_process(r.legs, ra);
    assert_int_equal(latrec_legs_ring_process(r.legs, rb), proc);
    assert_int_equal(latrec_legs_process(r.legs, proc)->pid, 1000);
    assert_string_equal(latrec_legs_process(r.legs, proc)->label, "pid 1000");
    assert_int_equal(latrec_legs_guessed_processes(r.legs), 0);
    assert_int_equal(latrec_ring_tid(&r.set.rings[ra]), 1001);
    assert_int_equal(latrec_ring_tid(&r.set.rings[rb]), 1002);

    const int out = leg_of(&r, "outbound");
    assert_int_equal(r.n_inst, 3); /* one instance per seq, nothing else */
    assert_int_equal(latrec_legs_n_legs(r.legs), r.cat.n_legs);
    for (uint64_t s = 1; s <= 3; s++) {
        const latrec_instance *in = find_inst(&r, out, proc, s, 0);
        const uint64_t t = BASE + s * MS;
        assert_int_equal(in->complete, 1);
        assert_int_equal(in->n_hits, 6); /* 4 chain + EMIT_ENTER, DROP */
        assert_int_equal(in->first_t, t);
        /* chain: ENQUEUE on the producer, the rest on the publisher */
        assert_int_equal(in->hits[0].t_ns, t + 40 + s);
        assert_int_equal(in->hits[0].ring, ra);
        for (int i = 1; i < 4; i++) assert_int_equal(in->hits[i].ring, rb);
        assert_int_equal(in->hits[1].t_ns - in->hits[0].t_ns, 1000 * s + 7); /* ENQUEUE -> DEQUEUE */
        assert_int_equal(in->hits[2].t_ns - in->hits[1].t_ns, 250);          /* -> ENCODE_E3AP_DONE */
        assert_int_equal(in->hits[3].t_ns - in->hits[2].t_ns, 3333 + s);     /* -> SEND_DONE */
        assert_int_equal(in->hits[3].t_ns - in->hits[0].t_ns, 1000 * s + 7 + 250 + 3333 + s);
        assert_int_equal(in->hits[3].cpu, 3);
        /* extras: EMIT_ENTER present (aux = source seq), DROP absent */
        assert_int_equal(in->hits[4].t_ns, t);
        assert_int_equal(in->hits[4].ring, ra);
        assert_int_equal(in->hits[0].t_ns - in->hits[4].t_ns, 40 + s); /* EMIT_ENTER -> ENQUEUE */
        assert_int_equal(in->hits[5].t_ns, 0);
        int present;
        assert_int_equal(latrec_instance_field(r.legs, in, EMIT_ENTER, LATREC_FIELD_AUX, &present), 500 + s);
        assert_int_equal(present, 1);
        assert_int_equal(latrec_instance_field(r.legs, in, EMIT_ENTER, LATREC_FIELD_AUX2, &present), 7);
        assert_int_equal(latrec_instance_field(r.legs, in, SEND_DONE, LATREC_FIELD_AUX, &present), 900 + s);
        assert_int_equal(latrec_instance_field(r.legs, in, ENCODE_E3AP_DONE, LATREC_FIELD_AUX, &present), 184 + s);
        assert_int_equal(latrec_instance_field(r.legs, in, SEND_DONE, LATREC_FIELD_SEQ, &present), s);
        assert_int_equal(latrec_instance_field(r.legs, in, DROP, LATREC_FIELD_AUX2, &present), 0);
        assert_int_equal(present, 0);
        /* the component of the last chain stage's ring */
        assert_string_equal(latrec_legs_component_name(r.legs, in->component), "libe3");
    }
    /* every record went to the outbound leg */
    assert_int_equal(r.n_placed, 15);
    for (size_t i = 0; i < r.n_placed; i++) assert_int_equal(r.placed[i], out);
    assert_int_equal(latrec_legs_evicted(r.legs), 0);
    run_close(&r);
}

/* ---- (b) equal seqs of two processes never merge --------------------------------- */

static void put_outbound(struct r *v, uint64_t s, uint64_t t, uint64_t d1, uint64_t d2, uint64_t d3)
{
    v[0] = (struct r){ s, ENQUEUE, t, 0, 0 };
    v[1] = (struct r){ s, DEQUEUE, t + d1, 0, 0 };
    v[2] = (struct r){ s, ENCODE_E3AP_DONE, t + d1 + d2, 0, 0 };
    v[3] = (struct r){ s, SEND_DONE, t + d1 + d2 + d3, 0, 0 };
}

static void test_two_processes_equal_seqs(void **state)
{
    (void)state;
    const char *dir = test_dir("two_pids");
    struct r a[20], b[20];
    /* the same seqs 1..5 at interleaved times: B 10 ns after A */
    for (uint64_t s = 1; s <= 5; s++) {
        put_outbound(&a[4 * (s - 1)], s, BASE + s * MS, 100, 200, 300);
        put_outbound(&b[4 * (s - 1)], s, BASE + s * MS + 10, 111, 222, 333);
    }
    make_ring(dir, "libe3.outbound.11", 3, 1000, 11, a, 20);
    make_ring(dir, "libe3.outbound.21", 3, 2000, 21, b, 20);
    const char *dirs[] = { dir };
    struct run r;
    run_open(&r, dirs, 1, 0, 0);
    run_feed(&r, 1);
    const uint32_t ra = ring_index(&r, "libe3.outbound.11"), rb = ring_index(&r, "libe3.outbound.21");
    uint32_t pa = latrec_legs_ring_process(r.legs, ra), pb = latrec_legs_ring_process(r.legs, rb);
    assert_int_not_equal(pa, pb);
    assert_int_equal(latrec_legs_process(r.legs, pa)->pid, 1000);
    assert_int_equal(latrec_legs_process(r.legs, pb)->pid, 2000);
    const int out = leg_of(&r, "outbound");
    assert_int_equal(r.n_inst, 10);
    for (uint64_t s = 1; s <= 5; s++) {
        const latrec_instance *ia = find_inst(&r, out, pa, s, 0), *ib = find_inst(&r, out, pb, s, 0);
        assert_int_equal(ia->complete, 1);
        assert_int_equal(ib->complete, 1);
        for (int i = 0; i < 4; i++) {
            assert_int_equal(ia->hits[i].ring, ra);
            assert_int_equal(ib->hits[i].ring, rb);
        }
        assert_int_equal(ia->hits[0].t_ns, BASE + s * MS);
        assert_int_equal(ib->hits[0].t_ns, BASE + s * MS + 10);
        assert_int_equal(ia->hits[1].t_ns - ia->hits[0].t_ns, 100);
        assert_int_equal(ia->hits[2].t_ns - ia->hits[1].t_ns, 200);
        assert_int_equal(ia->hits[3].t_ns - ia->hits[2].t_ns, 300);
        assert_int_equal(ib->hits[1].t_ns - ib->hits[0].t_ns, 111);
        assert_int_equal(ib->hits[2].t_ns - ib->hits[1].t_ns, 222);
        assert_int_equal(ib->hits[3].t_ns - ib->hits[2].t_ns, 333);
    }
    run_close(&r);

    /* the same pid in two directories (two hosts) never merges either */
    char d1[512], d2[512];
    snprintf(d1, sizeof d1, "%s", test_dir("host1"));
    snprintf(d2, sizeof d2, "%s", test_dir("host2"));
    make_ring(d1, "libe3.outbound.11", 3, 1000, 11, a, 20);
    make_ring(d2, "libe3.outbound.11", 3, 1000, 11, b, 20);
    const char *two[] = { d1, d2 };
    run_open(&r, two, 2, 0, 0);
    run_feed(&r, 1);
    assert_int_equal(r.set.n, 2);
    pa = latrec_legs_ring_process(r.legs, 0);
    pb = latrec_legs_ring_process(r.legs, 1);
    assert_int_not_equal(pa, pb);
    assert_int_equal(latrec_legs_process(r.legs, pa)->dir, 0);
    assert_int_equal(latrec_legs_process(r.legs, pb)->dir, 1);
    assert_int_equal(r.n_inst, 10);
    for (uint64_t s = 1; s <= 5; s++) {
        assert_int_equal(find_inst(&r, out, pa, s, 0)->hits[3].t_ns - (BASE + s * MS), 600);
        assert_int_equal(find_inst(&r, out, pb, s, 0)->hits[3].t_ns - (BASE + s * MS + 10), 666);
    }
    run_close(&r);
}

/* ---- (c) v1/v2 rings: one process per component ---------------------------------- */

static void test_guessed_processes(void **state)
{
    (void)state;
    const char *dir = test_dir("guessed");
    /* libE3's early layout: ENQUEUE on libe3.enq.<tid> (v1), the rest on
     * libe3.pub (v2); a RAN ring oai.12 (v2) using the same seq 1. */
    struct r enq[1] = { { 1, ENQUEUE, BASE, 0, 5 } };
    struct r pub[3] = { { 1, DEQUEUE, BASE + 700, 0, 5 },
                        { 1, ENCODE_E3AP_DONE, BASE + 900, 120, 0 },
                        { 1, SEND_DONE, BASE + 1500, 42, 0 } };
    struct r oai[1] = { { 1, ENQUEUE, BASE + 100, 0, 0 } };
    make_ring(dir, "libe3.enq.11", 1, 0, 0, enq, 1);
    make_ring(dir, "libe3.pub", 2, 0, 0, pub, 3);
    make_ring(dir, "oai.12", 2, 0, 0, oai, 1);
    const char *dirs[] = { dir };
    struct run r;
    run_open(&r, dirs, 1, 0, 0);
    run_feed(&r, 1);
    assert_int_equal(latrec_legs_guessed_processes(r.legs), 1);
    const uint32_t re = ring_index(&r, "libe3.enq.11"), rp = ring_index(&r, "libe3.pub"),
                   ro = ring_index(&r, "oai.12");
    const uint32_t plib = latrec_legs_ring_process(r.legs, re);
    assert_int_equal(latrec_legs_ring_process(r.legs, rp), plib);
    const uint32_t poai = latrec_legs_ring_process(r.legs, ro);
    assert_int_not_equal(poai, plib);
    assert_int_equal(latrec_legs_process(r.legs, plib)->pid, 0);
    assert_string_equal(latrec_legs_process(r.legs, plib)->label, "libe3 (no pid)");
    assert_string_equal(latrec_legs_process(r.legs, poai)->label, "oai (no pid)");
    assert_string_equal(latrec_legs_component_name(r.legs, latrec_legs_process(r.legs, plib)->component), "libe3");
    assert_int_equal(latrec_ring_tid(&r.set.rings[re]), 11);
    assert_int_equal(latrec_ring_tid(&r.set.rings[rp]), 0);
    assert_int_equal(latrec_ring_tid(&r.set.rings[ro]), 12);

    const int out = leg_of(&r, "outbound");
    assert_int_equal(r.n_inst, 2);
    const latrec_instance *lib = find_inst(&r, out, plib, 1, 0);
    assert_int_equal(lib->complete, 1);
    assert_int_equal(lib->hits[0].ring, re);
    assert_int_equal(lib->hits[1].ring, rp);
    assert_int_equal(lib->hits[1].t_ns - lib->hits[0].t_ns, 700);
    assert_int_equal(lib->hits[2].t_ns - lib->hits[1].t_ns, 200);
    assert_int_equal(lib->hits[3].t_ns - lib->hits[2].t_ns, 600);
    const latrec_instance *o = find_inst(&r, out, poai, 1, 0);
    assert_int_equal(o->complete, 0);
    assert_int_equal(o->hits[0].t_ns, BASE + 100);
    assert_int_equal(o->hits[1].t_ns, 0);
    assert_string_equal(latrec_legs_component_name(r.legs, o->component), "oai");
    run_close(&r);
}

/* ---- (e) seq reuse ends the old instance --------------------------------------------- */

static void test_seq_reuse(void **state)
{
    (void)state;
    const char *dir = test_dir("reuse");
    struct r v[] = {
        { 5, ENQUEUE, BASE + 0, 0, 0 },
        { 5, DEQUEUE, BASE + 100, 0, 0 },
        { 5, ENQUEUE, BASE + 1000, 0, 0 }, /* seq 5 again: a new message */
        { 5, DEQUEUE, BASE + 1150, 0, 0 },
        { 5, ENCODE_E3AP_DONE, BASE + 1400, 0, 0 },
        { 5, SEND_DONE, BASE + 2000, 77, 0 },
        /* uncatalogued: A0 A1 A0 for seq 7 is two groups */
        { 7, 0xA0, BASE + 3000, 0, 0 },
        { 7, 0xA1, BASE + 3010, 0, 0 },
        { 7, 0xA0, BASE + 3100, 0, 0 },
    };
    make_ring(dir, "libe3.outbound.1", 3, 1000, 1, v, sizeof v / sizeof v[0]);
    const char *dirs[] = { dir };
    struct run r;
    run_open(&r, dirs, 1, 0, 0);
    run_feed(&r, 0);
    const int out = leg_of(&r, "outbound");
    /* the reuse ended the first instance at once; the first discovery
     * group ended when A0 came again */
    assert_int_equal(r.n_inst, 2);
    const latrec_instance *old = r.inst[0];
    assert_int_equal(old->leg, out);
    assert_int_equal(old->seq, 5);
    assert_int_equal(old->complete, 0);
    assert_int_equal(old->hits[0].t_ns, BASE);
    assert_int_equal(old->hits[1].t_ns, BASE + 100);
    assert_int_equal(old->hits[2].t_ns, 0);
    assert_int_equal(old->hits[3].t_ns, 0);
    assert_int_equal(r.inst[1]->leg, r.cat.n_legs);
    assert_int_equal(r.inst[1]->n_hits, 2);
    latrec_legs_finish(r.legs);
    assert_int_equal(r.n_inst, 4);
    const latrec_instance *neu = find_inst(&r, out, 0, 5, 2);
    assert_int_equal(neu->complete, 1);
    assert_int_equal(neu->hits[0].t_ns, BASE + 1000);
    assert_int_equal(neu->hits[1].t_ns - neu->hits[0].t_ns, 150);
    assert_int_equal(neu->hits[2].t_ns - neu->hits[1].t_ns, 250);
    assert_int_equal(neu->hits[3].t_ns - neu->hits[2].t_ns, 600);
    assert_int_equal(neu->hits[3].aux, 77);
    assert_string_equal(latrec_legs_leg(r.legs, r.cat.n_legs)->name, "0xA0>0xA1");
    assert_string_equal(latrec_legs_leg(r.legs, r.cat.n_legs + 1)->name, "0xA0");
    /* a reuse is not an eviction */
    assert_int_equal(latrec_legs_evicted(r.legs), 0);
    run_close(&r);
}

/* A node is reused once its instance ended: the next instance's absent
 * stages are all zero (stamp, keys, ring, cpu), not the last one's; a
 * record stamped 0 is written yet counts as absent. Records fed by hand. */
static void test_absent_hits_zero(void **state)
{
    (void)state;
    const char *dir = test_dir("absent");
    const struct r one[] = { { 1, ENQUEUE, BASE, 0, 0 } };
    make_ring(dir, "libe3.outbound.1", 3, 1000, 1, one, 1);
    const char *dirs[] = { dir };
    struct run r;
    run_open(&r, dirs, 1, 0, 0);
    const unsigned full[] = { EMIT_ENTER, ENQUEUE, DEQUEUE, ENCODE_E3AP_DONE, SEND_DONE };
    for (unsigned k = 0; k < 5; k++) {
        latrec_rec rec = { (uint64_t)full[k] << 56 | (uint64_t)5 << 48 | 1, BASE + 100 * k, 90 + k, 190 + k };
        assert_int_equal(latrec_legs_feed(r.legs, 0, &rec), leg_of(&r, "outbound"));
    }
    /* 20 ms on: seq 1's grace is over (ended, its node free), seq 3 opens
     * in that node; seq 2 gets a record stamped 0 */
    const latrec_rec later[] = {
        { (uint64_t)ENQUEUE << 56 | (uint64_t)6 << 48 | 3, BASE + 20 * MS, 11, 12 },
        { (uint64_t)DEQUEUE << 56 | (uint64_t)6 << 48 | 3, BASE + 20 * MS + 100, 21, 22 },
        { (uint64_t)ENQUEUE << 56 | (uint64_t)7 << 48 | 2, BASE + 20 * MS + 200, 31, 32 },
        { (uint64_t)DEQUEUE << 56 | (uint64_t)7 << 48 | 2, 0, 55, 56 },
    };
    latrec_legs_feed(r.legs, 0, &later[0]);
    assert_int_equal(r.n_inst, 1);
    for (int k = 1; k < 4; k++) latrec_legs_feed(r.legs, 0, &later[k]);
    latrec_legs_finish(r.legs);
    assert_int_equal(r.n_inst, 3);
    const latrec_instance *a = r.inst[0], *c = r.inst[1], *b = r.inst[2];
    assert_int_equal(a->seq, 1);
    assert_int_equal(a->complete, 1);
    assert_int_equal(a->n_hits, 6); /* 4 chain stages, EMIT_ENTER, DROP */
    assert_int_equal(a->hits[3].aux, 94);
    assert_int_equal(a->hits[4].t_ns, BASE);
    assert_int_equal(a->hits[4].aux2, 190);
    assert_int_equal(a->hits[4].cpu, 5);
    const latrec_hit zero = { 0 };
    assert_memory_equal(&a->hits[5], &zero, sizeof zero); /* no DROP */
    assert_int_equal(c->seq, 3);
    assert_int_equal(c->complete, 0);
    assert_int_equal(c->hits[1].aux, 21);
    assert_int_equal(c->hits[1].ring, 0);
    assert_int_equal(c->hits[1].cpu, 6);
    for (int i = 2; i < 6; i++) assert_memory_equal(&c->hits[i], &zero, sizeof zero);
    assert_int_equal(b->seq, 2);
    assert_int_equal(b->complete, 0);
    assert_int_equal(b->first_t, 0);
    assert_int_equal(b->hits[0].t_ns, BASE + 20 * MS + 200);
    assert_int_equal(b->hits[0].aux, 31);
    assert_int_equal(b->hits[1].t_ns, 0); /* stamped 0: absent, its keys kept */
    assert_int_equal(b->hits[1].aux, 55);
    assert_int_equal(b->hits[1].cpu, 7);
    for (int i = 2; i < 6; i++) assert_memory_equal(&b->hits[i], &zero, sizeof zero);
    run_close(&r);
}

/* ---- (f) horizon and max_open --------------------------------------------------------- */

static void test_horizon(void **state)
{
    (void)state;
    const char *dir = test_dir("horizon");
    struct r v[] = {
        { 1, ENQUEUE, BASE, 0, 0 },
        { 2, ENQUEUE, BASE + MS / 2, 0, 0 },
        { 3, ENQUEUE, BASE + 2 * MS, 0, 0 },      /* 1 and 2 are older than 1 ms */
        { 1, DEQUEUE, BASE + 2 * MS + 100, 0, 0 }, /* too late: a new instance */
        { 9, ENQUEUE, BASE + 10 * MS, 0, 0 },     /* ends 3 and 1 */
        { 9, DEQUEUE, BASE + 11 * MS, 0, 0 },     /* exactly the horizon: joins */
    };
    make_ring(dir, "libe3.outbound.1", 3, 1000, 1, v, sizeof v / sizeof v[0]);
    const char *dirs[] = { dir };
    struct run r;
    run_open(&r, dirs, 1, MS, 0);
    run_feed(&r, 0);
    const int out = leg_of(&r, "outbound");
    assert_int_equal(latrec_legs_evicted(r.legs), 4);
    assert_int_equal(r.n_inst, 4);
    const uint64_t want_seq[] = { 1, 2, 3, 1 };
    const uint64_t want_t[] = { BASE, BASE + MS / 2, BASE + 2 * MS, BASE + 2 * MS + 100 };
    for (int i = 0; i < 4; i++) {
        assert_int_equal(r.inst[i]->leg, out);
        assert_int_equal(r.inst[i]->seq, want_seq[i]);
        assert_int_equal(r.inst[i]->complete, 0);
        assert_int_equal(r.inst[i]->first_t, want_t[i]);
    }
    assert_int_equal(r.inst[3]->hits[0].t_ns, 0);
    assert_int_equal(r.inst[3]->hits[1].t_ns, BASE + 2 * MS + 100);
    latrec_legs_finish(r.legs);
    assert_int_equal(r.n_inst, 5);
    assert_int_equal(r.inst[4]->seq, 9);
    assert_int_equal(r.inst[4]->hits[1].t_ns - r.inst[4]->hits[0].t_ns, MS);
    /* finish is not an eviction */
    assert_int_equal(latrec_legs_evicted(r.legs), 4);
    run_close(&r);
}

static void test_max_open(void **state)
{
    (void)state;
    const char *dir = test_dir("max_open");
    struct r v[12];
    for (uint64_t s = 1; s <= 10; s++) v[s - 1] = (struct r){ s, ENQUEUE, BASE + s * 1000, 0, 0 };
    /* seq 10 completes: joins the open instance, no eviction */
    v[10] = (struct r){ 10, DEQUEUE, BASE + 20000, 0, 0 };
    /* one more key: the oldest open one (8) makes room */
    v[11] = (struct r){ 11, ENQUEUE, BASE + 21000, 0, 0 };
    make_ring(dir, "libe3.outbound.1", 3, 1000, 1, v, 12);
    const char *dirs[] = { dir };
    struct run r;
    run_open(&r, dirs, 1, 0, 3);
    run_feed(&r, 0);
    /* at most 3 open: seq 1..8 ended for room as 4..11 opened (oldest
     * first); 9, 10, 11 are open */
    assert_int_equal(r.n_inst, 8);
    assert_int_equal(latrec_legs_evicted(r.legs), 8);
    for (uint64_t s = 1; s <= 8; s++) {
        assert_int_equal(r.inst[s - 1]->seq, s);
        assert_int_equal(r.inst[s - 1]->complete, 0);
    }
    latrec_legs_finish(r.legs);
    assert_int_equal(r.n_inst, 11);
    assert_int_equal(r.inst[8]->seq, 9);
    assert_int_equal(r.inst[9]->seq, 10);
    assert_int_equal(r.inst[9]->hits[1].t_ns - r.inst[9]->hits[0].t_ns, 10000);
    assert_int_equal(r.inst[10]->seq, 11);
    assert_int_equal(latrec_legs_evicted(r.legs), 8);
    run_close(&r);

    /* a complete instance waiting for late extras ends for room uncounted */
    dir = test_dir("max_open_grace");
    struct r w[8];
    put_outbound(&w[0], 1, BASE, 10, 10, 10); /* complete, then in its grace */
    w[4] = (struct r){ 2, ENQUEUE, BASE + 100, 0, 0 };
    w[5] = (struct r){ 3, ENQUEUE, BASE + 200, 0, 0 }; /* room: ends 1 (complete) */
    w[6] = (struct r){ 4, ENQUEUE, BASE + 300, 0, 0 }; /* room: ends 2 (evicted) */
    w[7] = (struct r){ 2, DEQUEUE, BASE + 400, 0, 0 }; /* room: ends 3 (evicted); new 2 */
    make_ring(dir, "libe3.outbound.1", 3, 1000, 1, w, 8);
    const char *dirs2[] = { dir };
    run_open(&r, dirs2, 1, 0, 2);
    run_feed(&r, 1);
    assert_int_equal(latrec_legs_evicted(r.legs), 2);
    assert_int_equal(r.n_inst, 5);
    assert_int_equal(r.inst[0]->seq, 1);
    assert_int_equal(r.inst[0]->complete, 1);
    assert_int_equal(r.inst[1]->seq, 2);
    assert_int_equal(r.inst[2]->seq, 3);
    run_close(&r);
}

/* ---- (g) DROP goes to the leg with an open instance ----------------------------------- */

static void test_drop_routing(void **state)
{
    (void)state;
    const char *dir = test_dir("drop");
    struct r v[] = {
        { 7, RECV, BASE + 0, 64, 0 },          /* inbound 7 open */
        { 7, DROP, BASE + 10, 0, 4 },          /* -> inbound */
        { 8, SESSION_QUEUED, BASE + 20, 0, 0 }, /* session 8 open */
        { 8, DROP, BASE + 30, 0, 7 },          /* -> session */
        { 9, DROP, BASE + 40, 0, 1 },          /* none open -> inbound: stamped by this role */
        { 10, RECV, BASE + 50, 0, 0 },         /* inbound 10 and outbound 10 open */
        { 10, ENQUEUE, BASE + 60, 0, 0 },
        { 10, DROP, BASE + 70, 0, 3 },         /* first such leg: outbound */
        { 8, SESSION_POLLED, BASE + 80, 0, 0 },
    };
    make_ring(dir, "libe3.inbound.1", 3, 1000, 1, v, sizeof v / sizeof v[0]);
    const char *dirs[] = { dir };
    struct run r;
    run_open(&r, dirs, 1, 0, 0);
    run_feed(&r, 1);
    const int out = leg_of(&r, "outbound"), in = leg_of(&r, "inbound"), ses = leg_of(&r, "session");
    const int want[] = { in, in, ses, ses, in, in, out, out, ses };
    assert_int_equal(r.n_placed, 9);
    for (int i = 0; i < 9; i++) assert_int_equal(r.placed[i], want[i]);

    const latrec_instance *i7 = find_inst(&r, in, 0, 7, 0);
    assert_int_equal(i7->complete, 0);
    assert_int_equal(i7->hits[2].t_ns, BASE + 10); /* DROP: inbound's extra 0 */
    assert_int_equal(i7->hits[2].aux2, 4);
    const latrec_instance *s8 = find_inst(&r, ses, 0, 8, 0);
    assert_int_equal(s8->complete, 1);
    assert_int_equal(s8->hits[2].t_ns, BASE + 30);
    assert_int_equal(s8->hits[2].aux2, 7);
    assert_int_equal(s8->hits[1].t_ns - s8->hits[0].t_ns, 60);
    const latrec_instance *i9 = find_inst(&r, in, 0, 9, 0);
    assert_int_equal(i9->hits[2].t_ns, BASE + 40); /* inbound's extra 0 */
    for (int i = 0; i < 2; i++) assert_int_equal(i9->hits[i].t_ns, 0);
    const latrec_instance *o10 = find_inst(&r, out, 0, 10, 0);
    assert_int_equal(o10->hits[0].t_ns, BASE + 60);
    assert_int_equal(o10->hits[5].aux2, 3);
    const latrec_instance *i10 = find_inst(&r, in, 0, 10, 0);
    assert_int_equal(i10->hits[2].t_ns, 0);
    run_close(&r);
}

/* ---- (h) a late WAIT_ENTER within the grace ------------------------------------------- */

static void put_source(struct r *v, uint64_t s, uint64_t t)
{
    v[0] = (struct r){ s, RECORD_BEGIN, t, 0, 0 };
    v[1] = (struct r){ s, PROCESS_BEGIN, t + 73, 0, 0 };
    v[2] = (struct r){ s, ENCODE_E3SM_BEGIN, t + 73 + 69, 0, 0 };
    v[3] = (struct r){ s, ENCODE_E3SM_DONE, t + 73 + 69 + 81, 0, 0 };
}

static void test_late_extra(void **state)
{
    (void)state;
    const char *dir = test_dir("late");
    struct r v[22];
    const uint64_t t1 = BASE, t2 = BASE + 100 * MS, t3 = BASE + 200 * MS, t4 = BASE + 300 * MS;
    put_source(&v[0], 1, t1);
    v[4] = (struct r){ 1, WAIT_ENTER, t1 + 223 + 5029, 0, 0 };          /* 5 us late */
    put_source(&v[5], 2, t2);
    v[9] = (struct r){ 2, WAIT_ENTER, t2 + 223 + 20 * MS, 0, 0 };       /* past the grace */
    put_source(&v[10], 3, t3);
    v[14] = (struct r){ 3, SKIPPED, t3 + 223 + 10, 0, 3 };
    v[15] = (struct r){ 3, WAIT_ENTER, t3 + 223 + 20, 0, 0 };           /* all extras: ends */
    put_source(&v[16], 4, t4);
    v[20] = (struct r){ 4, WAIT_ENTER, t4 + 223 + LATREC_LEGS_GRACE_NS, 0, 0 }; /* at the edge */
    v[21] = (struct r){ 0, CONTEXT, t4 + 223 + LATREC_LEGS_GRACE_NS + 1, 0, 0 };
    make_ring(dir, "oai.1", 3, 1000, 1, v, 22);
    const char *dirs[] = { dir };
    struct run r;
    run_open(&r, dirs, 1, 0, 0);
    run_feed(&r, 0);
    const int src = leg_of(&r, "source");
    /* by now: 1 (grace over when seq 2 came), 2 (grace over when its late
     * WAIT_ENTER came), 3 (both extras), 4 (grace over at CONTEXT), then
     * CONTEXT itself (a one-stage leg without extras ends at once) */
    assert_int_equal(r.n_inst, 5);
    assert_int_equal(r.inst[4]->leg, leg_of(&r, "context"));
    assert_int_equal(r.inst[4]->complete, 1);
    const latrec_instance *i1 = r.inst[0];
    assert_int_equal(i1->seq, 1);
    assert_int_equal(i1->complete, 1);
    assert_int_equal(i1->hits[1].t_ns - i1->hits[0].t_ns, 73);
    assert_int_equal(i1->hits[2].t_ns - i1->hits[1].t_ns, 69);
    assert_int_equal(i1->hits[3].t_ns - i1->hits[2].t_ns, 81);
    assert_int_equal(i1->hits[4].t_ns - i1->hits[3].t_ns, 5029); /* ENCODE_E3SM_DONE -> WAIT_ENTER */
    assert_int_equal(i1->hits[5].t_ns, 0);
    const latrec_instance *i2 = r.inst[1];
    assert_int_equal(i2->seq, 2);
    assert_int_equal(i2->complete, 1);
    assert_int_equal(i2->hits[4].t_ns, 0);
    const latrec_instance *i3 = r.inst[2];
    assert_int_equal(i3->seq, 3);
    assert_int_equal(i3->hits[5].t_ns - i3->hits[3].t_ns, 10); /* SKIPPED */
    assert_int_equal(i3->hits[5].aux2, 3);
    assert_int_equal(i3->hits[4].t_ns - i3->hits[3].t_ns, 20);
    const latrec_instance *i4 = r.inst[3];
    assert_int_equal(i4->seq, 4);
    assert_int_equal(i4->hits[4].t_ns - i4->hits[3].t_ns, LATREC_LEGS_GRACE_NS);
    latrec_legs_finish(r.legs);
    /* the WAIT_ENTER past the grace is an instance of its own */
    assert_int_equal(r.n_inst, 6);
    const latrec_instance *late = find_inst(&r, src, 0, 2, 2);
    assert_int_equal(late->complete, 0);
    for (int i = 0; i < 4; i++) assert_int_equal(late->hits[i].t_ns, 0);
    assert_int_equal(late->hits[4].t_ns, t2 + 223 + 20 * MS);
    assert_string_equal(latrec_legs_component_name(r.legs, late->component), "oai");
    assert_ptr_equal(r.inst[5], late);
    assert_int_equal(latrec_legs_evicted(r.legs), 0);
    run_close(&r);
}

/* ---- (i) an extra belongs to its own seq counter's instance ------------------------ */

/* One dApp-like process: outbound seqs (control out) on oai.1 (EMIT_ENTER,
 * ENQUEUE) and libe3.outbound.2, inbound seqs on libe3.inbound.3. The two
 * counters give equal numbers; a DROP joins the instance of its own ring's
 * role, never the other leg's instance of the same seq. */
static void test_drop_seq_family(void **state)
{
    (void)state;
    const char *dir = test_dir("drop_family");
    struct r prod[] = {
        { 5, EMIT_ENTER, BASE + 0, 50, 0 },
        { 5, ENQUEUE, BASE + 10, 0, 0 },
        { 6, EMIT_ENTER, BASE + 2000, 60, 0 },
        { 6, ENQUEUE, BASE + 2010, 0, 0 },
        { 6, DROP, BASE + 2020, 0, 2 },         /* queue full: outbound 6 */
    };
    struct r in_ring[] = {
        { 5, RECV, BASE + 100, 64, 0 },          /* inbound 5 and outbound 5 open */
        { 5, DROP, BASE + 200, 0, 9 },           /* decode failed: inbound 5 */
        { 7, RECV, BASE + 300, 64, 0 },
        { 7, DECODE_E3AP_DONE, BASE + 400, 1, 0 },
        { 6, DROP, BASE + 2030, 0, 8 },          /* only outbound 6 open: a new inbound 6 */
    };
    struct r pub[] = {
        { 5, DEQUEUE, BASE + 1000, 0, 0 },
        { 5, ENCODE_E3AP_DONE, BASE + 1100, 0, 0 },
        { 5, SEND_DONE, BASE + 1200, 0, 0 },
    };
    make_ring(dir, "oai.1", 3, 1000, 1, prod, sizeof prod / sizeof prod[0]);
    make_ring(dir, "libe3.inbound.3", 3, 1000, 3, in_ring, sizeof in_ring / sizeof in_ring[0]);
    make_ring(dir, "libe3.outbound.2", 3, 1000, 2, pub, sizeof pub / sizeof pub[0]);
    const char *dirs[] = { dir };
    struct run r;
    run_open(&r, dirs, 1, 0, 0);
    run_feed(&r, 1);
    const int out = leg_of(&r, "outbound"), in = leg_of(&r, "inbound");
    const uint32_t rin = ring_index(&r, "libe3.inbound.3"), rprod = ring_index(&r, "oai.1");
    const uint32_t proc = latrec_legs_ring_process(r.legs, rin);

    const latrec_instance *o5 = find_inst(&r, out, proc, 5, 0);
    assert_int_equal(o5->complete, 1);
    assert_int_equal(o5->hits[5].t_ns, 0); /* the inbound DROP is not outbound 5's */
    assert_int_equal(o5->hits[3].t_ns - o5->hits[0].t_ns, 1190);
    const latrec_instance *i5 = find_inst(&r, in, proc, 5, 0);
    assert_int_equal(i5->hits[0].t_ns, BASE + 100);
    assert_int_equal(i5->hits[2].t_ns, BASE + 200); /* inbound's DROP */
    assert_int_equal(i5->hits[2].aux2, 9);
    assert_int_equal(i5->hits[2].ring, rin);

    const latrec_instance *o6 = find_inst(&r, out, proc, 6, 0);
    assert_int_equal(o6->hits[5].t_ns, BASE + 2020); /* the producer's DROP */
    assert_int_equal(o6->hits[5].ring, rprod);
    assert_int_equal(o6->hits[5].aux2, 2);
    const latrec_instance *i6 = find_inst(&r, in, proc, 6, 0);
    assert_int_equal(i6->hits[0].t_ns, 0);
    assert_int_equal(i6->hits[2].t_ns, BASE + 2030);
    assert_int_equal(i6->hits[2].aux2, 8);
    assert_int_equal(r.n_inst, 5); /* o5, i5, i7, o6, i6 */
    run_close(&r);
}

/* ---- (j) a negative last hop across two rings of one process ------------------------ */

/* apply_ctrl (no extras): APPLY_CONTROL_DONE on the control thread, LIVE_ON_AIR
 * on the slot thread. For seq 2 the slot thread's clock puts LIVE_ON_AIR 300 ns
 * before APPLY_CONTROL_DONE: one complete instance with a hop of -300 ns (a
 * clock regression), not two incomplete ones. */
static void test_negative_last_hop(void **state)
{
    (void)state;
    const char *dir = test_dir("neg_last");
    enum { APPLY_CONTROL_DONE = 0x48, LIVE_ON_AIR = 0x49 };
    struct r ctrl[] = {
        { 1, APPLY_CONTROL_DONE, BASE, 0, 0 },
        { 2, APPLY_CONTROL_DONE, BASE + MS, 0, 0 },
        { 3, APPLY_CONTROL_DONE, BASE + 2 * MS, 0, 0 },
    };
    struct r slot[] = {
        { 1, LIVE_ON_AIR, BASE + 500, 0, 0 },
        { 2, LIVE_ON_AIR, BASE + MS - 300, 0, 0 },
        { 3, LIVE_ON_AIR, BASE + 2 * MS + 700, 0, 0 },
    };
    make_ring(dir, "oai.ctrl.7", 3, 1000, 7, ctrl, 3);
    make_ring(dir, "oai.8", 3, 1000, 8, slot, 3);
    const char *dirs[] = { dir };
    struct run r;
    run_open(&r, dirs, 1, 0, 0);
    const int ac = leg_of(&r, "apply_ctrl");
    assert_int_equal(r.cat.legs[ac].chain[0], APPLY_CONTROL_DONE);
    assert_int_equal(r.cat.legs[ac].chain[1], LIVE_ON_AIR);
    assert_int_equal(r.cat.legs[ac].n_extras, 0);
    run_feed(&r, 1);
    assert_int_equal(r.n_inst, 3);
    const int64_t want[] = { 500, -300, 700 };
    for (uint64_t s = 1; s <= 3; s++) {
        const latrec_instance *in = find_inst(&r, ac, 0, s, 0);
        assert_int_equal(in->complete, 1);
        assert_int_equal((int64_t)(in->hits[1].t_ns - in->hits[0].t_ns), want[s - 1]);
        assert_int_equal(in->hits[0].ring, ring_index(&r, "oai.ctrl.7"));
        assert_int_equal(in->hits[1].ring, ring_index(&r, "oai.8"));
    }
    assert_int_equal(latrec_legs_evicted(r.legs), 0);
    run_close(&r);
}

/* ---- (k) the default horizon cuts a long instance, counted -------------------------- */

static void test_default_horizon_counted(void **state)
{
    (void)state;
    const char *dir = test_dir("long_instance");
    /* outbound seq 1 takes 12 s from ENQUEUE to SEND_DONE; CONTEXT records
     * move the stream on in between */
    struct r v[] = {
        { 1, ENQUEUE, BASE, 0, 0 },
        { 1, DEQUEUE, BASE + 1000, 0, 0 },
        { 0, CONTEXT, BASE + 6000 * MS, 0, 0 },
        { 0, CONTEXT, BASE + 11000 * MS, 0, 0 },
        { 1, ENCODE_E3AP_DONE, BASE + 12000 * MS, 0, 0 },
        { 1, SEND_DONE, BASE + 12000 * MS + 500, 0, 0 },
    };
    make_ring(dir, "libe3.outbound.1", 3, 1000, 1, v, sizeof v / sizeof v[0]);
    const char *dirs[] = { dir };
    struct run r;
    run_open(&r, dirs, 1, 0, 0);
    assert_int_equal(latrec_legs_horizon(r.legs), 10000 * MS);
    assert_int_equal(LATREC_LEGS_HORIZON_NS, 10000 * MS);
    run_feed(&r, 1);
    const int out = leg_of(&r, "outbound");
    /* cut at 10 s: two unfinished halves, and the cut is counted */
    assert_int_equal(count_leg(&r, out), 2);
    assert_int_equal(find_inst(&r, out, 0, 1, 1)->complete, 0);
    assert_int_equal(find_inst(&r, out, 0, 1, 2)->complete, 0);
    assert_int_equal(latrec_legs_cut_horizon(r.legs), 1);
    assert_int_equal(latrec_legs_cut_room(r.legs), 0);
    assert_int_equal(latrec_legs_evicted(r.legs), 1);
    run_close(&r);

    /* a 20 s horizon keeps it whole */
    run_open(&r, dirs, 1, 20000 * MS, 0);
    run_feed(&r, 1);
    assert_int_equal(count_leg(&r, out), 1);
    const latrec_instance *in = find_inst(&r, out, 0, 1, 0);
    assert_int_equal(in->complete, 1);
    assert_int_equal(in->hits[3].t_ns - in->hits[0].t_ns, 12000 * MS + 500);
    assert_int_equal(latrec_legs_cut_horizon(r.legs), 0);
    run_close(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_threads_one_process),
        cmocka_unit_test(test_two_processes_equal_seqs),
        cmocka_unit_test(test_guessed_processes),
        cmocka_unit_test(test_seq_reuse),
        cmocka_unit_test(test_absent_hits_zero),
        cmocka_unit_test(test_horizon),
        cmocka_unit_test(test_max_open),
        cmocka_unit_test(test_drop_routing),
        cmocka_unit_test(test_late_extra),
        cmocka_unit_test(test_drop_seq_family),
        cmocka_unit_test(test_negative_last_hop),
        cmocka_unit_test(test_default_horizon_counted),
    };
    return cmocka_run_group_tests(tests, legs_setup, NULL);
}
