/*
 * legs_run.h - what the leg builder's tests share: E3 stage ids, rings
 * written byte by byte with ringgen.h into a directory per test (below
 * LEGS_TEST_ROOT, which each test file defines before including this), and
 * a builder run over them (ringset + merge, fed in time order as latrec
 * convert does) that keeps a copy of every emitted instance.
 */
#ifndef TEST_LEGS_RUN_H
#define TEST_LEGS_RUN_H

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
#include "read/merge.h"
#include "read/ringset.h"
#include "ringgen.h"

#ifndef LEGS_TEST_ROOT
#error "define LEGS_TEST_ROOT (a directory below LATREC_TEST_TMP) before legs_run.h"
#endif

/* E3 stage ids, typed in from ring-format.md */
enum {
    RECORD_BEGIN = 0x10, PROCESS_BEGIN = 0x11, ENCODE_E3SM_BEGIN = 0x18, ENCODE_E3SM_DONE = 0x19,
    EMIT_ENTER = 0x20, ENQUEUE = 0x21, DEQUEUE = 0x22, ENCODE_E3AP_DONE = 0x23, SEND_DONE = 0x24,
    RECV = 0x25, DECODE_E3AP_DONE = 0x26, SESSION_QUEUED = 0x2B, SESSION_POLLED = 0x2C, DROP = 0x2F,
    WAIT_ENTER = 0x70, SKIPPED = 0x71, CONTEXT = 0x72,
};

#define BASE 2000000000ull /* 1 s after the rings' t0 */
#define MS   1000000ull

struct r {
    uint64_t seq;
    unsigned stage;
    uint64_t t;
    uint64_t aux, aux2;
};

/* ---- writing rings ------------------------------------------------------------ */

static char legs_dirbuf[512];

static inline const char *test_dir(const char *name)
{
    snprintf(legs_dirbuf, sizeof legs_dirbuf, LEGS_TEST_ROOT "/%s", name);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", legs_dirbuf);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(mkdir(legs_dirbuf, 0755), 0);
    return legs_dirbuf;
}

/* Ring `name` (file <dir>/<name>.latrec) holding recs in write order; v3
 * rings carry pid/tid. cpu of every record: 3. */
static inline void make_ring(const char *dir, const char *name, unsigned version, uint32_t pid, uint32_t tid,
                      const struct r *recs, size_t n)
{
    uint64_t entries = 16;
    while (entries < n) entries *= 2;
    ringgen g;
    assert_int_equal(ringgen_init(&g, version, entries, name), 0);
    if (version >= 3) {
        ringgen_set_u32(&g, RINGGEN_OFF_PID, pid);
        ringgen_set_u32(&g, RINGGEN_OFF_TID, tid);
    }
    for (size_t i = 0; i < n; i++)
        ringgen_stamp(&g, recs[i].seq, 3, recs[i].stage, recs[i].t, recs[i].aux, recs[i].aux2);
    ringgen_set_u64(&g, RINGGEN_OFF_REC_COUNT, n);
    char path[700];
    snprintf(path, sizeof path, "%s/%s.latrec", dir, name);
    assert_int_equal(ringgen_write(&g, path), 0);
    ringgen_free(&g);
}

/* ---- running the builder ------------------------------------------------------ */

struct run {
    latrec_catalog cat;
    latrec_ringset set;
    int ring_dir[64];
    latrec_legs *legs;
    latrec_instance **inst; /* copies of the emitted instances, in emit order */
    size_t n_inst, cap_inst;
    int placed[4096];       /* feed result per record, in merge order */
    unsigned placed_stage[4096];
    size_t n_placed;
};

static inline void on_emit(void *ctx, const latrec_instance *inst)
{
    struct run *r = ctx;
    if (r->n_inst == r->cap_inst) {
        r->cap_inst = r->cap_inst ? 2 * r->cap_inst : 64;
        r->inst = realloc(r->inst, r->cap_inst * sizeof(*r->inst));
        assert_non_null(r->inst);
    }
    size_t size = sizeof(latrec_instance) + (size_t)inst->n_hits * sizeof(latrec_hit);
    latrec_instance *copy = malloc(size);
    assert_non_null(copy);
    memcpy(copy, inst, size);
    r->inst[r->n_inst++] = copy;
}

/* Load dirs under catalog cat (moved into the run, freed by run_close;
 * NULL: e3) and create the builder. */
static inline void run_open_with(struct run *r, latrec_catalog *cat, const char *const *dirs, size_t ndirs,
                                 uint64_t horizon, size_t max_open)
{
    memset(r, 0, sizeof(*r));
    if (cat) r->cat = *cat;
    else assert_int_equal(latrec_catalog_e3(&r->cat), 0);
    char err[256];
    assert_int_equal(latrec_ringset_open(&r->set, dirs, ndirs, err, sizeof err), 0);
    assert_int_equal(r->set.n_ok, r->set.n);
    for (size_t i = 0; i < r->set.n; i++)
        for (size_t d = 0; d < ndirs; d++)
            if (strncmp(r->set.rings[i].path, dirs[d], strlen(dirs[d])) == 0 &&
                r->set.rings[i].path[strlen(dirs[d])] == '/')
                r->ring_dir[i] = (int)d;
    r->legs = latrec_legs_new(&r->cat, &r->set, r->ring_dir, horizon, max_open, on_emit, r);
    assert_non_null(r->legs);
}

static inline void run_open(struct run *r, const char *const *dirs, size_t ndirs, uint64_t horizon, size_t max_open)
{
    run_open_with(r, NULL, dirs, ndirs, horizon, max_open);
}

/* Feed every record in time order; finish when asked. */
static inline void run_feed(struct run *r, int finish)
{
    latrec_merge m;
    char err[256];
    assert_int_equal(latrec_merge_init(&m, r->set.rings, r->set.n, 0, err, sizeof err), 0);
    latrec_merged ev;
    while (latrec_merge_next(&m, &ev)) {
        int leg = latrec_legs_feed(r->legs, ev.ring, &ev.rec);
        assert_true(leg >= -1);
        assert_true(r->n_placed < sizeof r->placed / sizeof r->placed[0]);
        r->placed_stage[r->n_placed] = latrec_rec_stage(ev.rec.sc);
        r->placed[r->n_placed++] = leg;
    }
    latrec_merge_free(&m);
    if (finish) latrec_legs_finish(r->legs);
}

static inline void run_close(struct run *r)
{
    for (size_t i = 0; i < r->n_inst; i++) free(r->inst[i]);
    free(r->inst);
    latrec_legs_free(r->legs);
    latrec_ringset_close(&r->set);
    latrec_catalog_free(&r->cat);
}

static inline int leg_of(const struct run *r, const char *name)
{
    int l = latrec_catalog_leg(&r->cat, name);
    assert_true(l >= 0);
    return l;
}

static inline uint32_t ring_index(const struct run *r, const char *name)
{
    for (size_t i = 0; i < r->set.n; i++)
        if (strcmp(r->set.rings[i].name, name) == 0) return (uint32_t)i;
    fail_msg("no ring %s", name);
    return 0;
}

/* The emitted instance of (leg, process, seq); fails unless exactly one
 * matches when `nth` is 0; nth > 0 picks the nth match (1-based). */
static inline const latrec_instance *find_inst(const struct run *r, int leg, uint32_t process, uint64_t seq, int nth)
{
    const latrec_instance *found = NULL;
    int k = 0;
    for (size_t i = 0; i < r->n_inst; i++) {
        const latrec_instance *in = r->inst[i];
        if (in->leg != leg || in->process != process || in->seq != seq) continue;
        k++;
        if (nth == 0) {
            if (found) fail_msg("two instances of leg %d process %u seq %llu", leg, process, (unsigned long long)seq);
            found = in;
        } else if (k == nth) {
            return in;
        }
    }
    if (!found) fail_msg("no instance %d of leg %d process %u seq %llu", nth, leg, process, (unsigned long long)seq);
    return found;
}

static inline size_t count_leg(const struct run *r, int leg)
{
    size_t n = 0;
    for (size_t i = 0; i < r->n_inst; i++) n += r->inst[i]->leg == leg;
    return n;
}

/* The test file's root, made empty. */
static inline int legs_setup(void **state)
{
    (void)state;
    mkdir(LATREC_TEST_TMP, 0755);
    if (system("rm -rf '" LEGS_TEST_ROOT "'") != 0) return -1;
    return mkdir(LEGS_TEST_ROOT, 0755);
}

#endif
