/*
 * Per-thread rings (latrec_tls_open_as / latrec_tls_open / latrec_tstamp /
 * latrec_ctx / latrec_seq_next): file naming, idempotence, the flush at
 * thread exit and at process exit, fork, failed opens. The main thread of
 * this binary never opens a ring; rings are opened on helper threads and in
 * children, and read back from the files.
 */
#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <latrec/latrec.h>

#include "test_writer_util.h"

static void tls_path(char *out, size_t len, const char *dir, const char *role, pid_t tid)
{
    snprintf(out, len, "%s/%s.%d.latrec", dir, role, (int)tid);
}

/* Run this binary in a child as `<self> MODE ARG`; its wait status. */
static int run_self(const char *mode, const char *arg, pid_t *pid_out)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        char *argv[] = {"test_writer_tls", (char *)mode, (char *)arg, NULL};
        execv("/proc/self/exe", argv);
        _exit(127);
    }
    if (pid_out) *pid_out = pid;
    int st = 0;
    waitpid(pid, &st, 0);
    return st;
}

/* ---- two threads, one role ---------------------------------------------- */

struct twin {
    pthread_barrier_t *opened, *checked;
    pid_t      tid;
    latrec_t  *first, *again, *again_null, *again_other;
    uint64_t   n;
};

static void *twin_main(void *p)
{
    struct twin *t = p;
    t->tid = gettid();
    t->first = latrec_tls_open_as("twin");
    pthread_barrier_wait(t->opened); /* both rings open at once */
    t->again = latrec_tls_open_as("twin");
    t->again_null = latrec_tls_open();
    t->again_other = latrec_tls_open_as("other.role");
    for (uint64_t i = 0; i < t->n; i++) latrec_tstamp(i, 0x21, (uint64_t)t->tid, i);
    pthread_barrier_wait(t->checked);
    return NULL;
}

static void test_two_threads_same_role_get_two_files_and_reopen_is_idempotent(void **state)
{
    (void)state;
    char dir[512];
    tw_tmpdir(dir, sizeof(dir), "twin");
    latrec_set_output_dir(dir);
    pthread_barrier_t opened, checked;
    pthread_barrier_init(&opened, NULL, 2);
    pthread_barrier_init(&checked, NULL, 2);
    struct twin a = {&opened, &checked, 0, NULL, NULL, NULL, NULL, 11};
    struct twin b = {&opened, &checked, 0, NULL, NULL, NULL, NULL, 17};
    pthread_t ta, tb;
    assert_int_equal(pthread_create(&ta, NULL, twin_main, &a), 0);
    assert_int_equal(pthread_create(&tb, NULL, twin_main, &b), 0);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    latrec_set_output_dir(NULL);
    pthread_barrier_destroy(&opened);
    pthread_barrier_destroy(&checked);

    assert_non_null(a.first);
    assert_non_null(b.first);
    assert_ptr_not_equal(a.first, b.first);
    assert_ptr_equal(a.again, a.first);
    assert_ptr_equal(a.again_null, a.first);
    assert_ptr_equal(a.again_other, a.first);
    assert_ptr_equal(b.again, b.first);
    assert_int_not_equal(a.tid, b.tid);

    /* Exactly two files, <role>.<tid>.latrec, each with its thread's records. */
    assert_int_equal(tw_count_files(dir, NULL), 2);
    const struct twin *tw[2] = {&a, &b};
    for (int k = 0; k < 2; k++) {
        char path[700];
        tls_path(path, sizeof(path), dir, "twin", tw[k]->tid);
        struct tw_ring ring;
        assert_int_equal(tw_read_ring(path, &ring), 0);
        char name[64];
        snprintf(name, sizeof(name), "twin.%d", (int)tw[k]->tid);
        assert_string_equal(ring.h.name, name);
        assert_int_equal(ring.h.tid, (uint32_t)tw[k]->tid);
        assert_int_equal(ring.h.pid, (uint32_t)getpid());
        assert_int_equal(ring.h.rec_count, tw[k]->n);
        assert_int_equal(tw_valid_count(&ring), tw[k]->n);
        for (uint64_t i = 0; i < tw[k]->n; i++) {
            assert_int_equal(ring.slots[i].seq, i);
            assert_int_equal(ring.slots[i].aux, (uint64_t)tw[k]->tid);
            assert_int_equal(ring.slots[i].aux2, i);
        }
        tw_free_ring(&ring);
    }
    tw_rm_rf(dir);
}

/* ---- flush at thread exit ----------------------------------------------- */

struct exiter {
    const char *role;
    uint64_t    n;
    pid_t       tid;
    int         opened;
    uint64_t    last_t;
};

static void *exiter_main(void *p)
{
    struct exiter *e = p;
    e->tid = gettid();
    e->opened = latrec_tls_open_as(e->role) != NULL;
    for (uint64_t i = 0; i < e->n; i++) latrec_tstamp(i + 1, 0x22, i, 0);
    e->last_t = tw_mono_ns();
    return NULL;
}

static void test_ring_is_flushed_and_marked_clean_at_thread_exit(void **state)
{
    (void)state;
    char dir[512], path[700];
    tw_tmpdir(dir, sizeof(dir), "texit");
    latrec_set_output_dir(dir);
    struct exiter e = {"texit", 37, 0, 0, 0};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, exiter_main, &e), 0);
    pthread_join(t, NULL);
    const uint64_t after_join = tw_mono_ns();
    latrec_set_output_dir(NULL);
    assert_true(e.opened);

    tls_path(path, sizeof(path), dir, "texit", e.tid);
    struct tw_ring ring;
    assert_int_equal(tw_read_ring(path, &ring), 0);
    assert_int_equal(ring.h.rec_count, 37); /* exact, below the first boundary */
    assert_int_equal(ring.h.flags & TW_F_CLEAN_CLOSE, TW_F_CLEAN_CLOSE);
    assert_true(ring.h.t1_mono >= e.last_t && ring.h.t1_mono <= after_join);
    assert_int_equal(tw_valid_count(&ring), 37);
    for (uint64_t i = 0; i < 37; i++) assert_int_equal(ring.slots[i].seq, i + 1);
    tw_free_ring(&ring);
    tw_rm_rf(dir);
}

static void test_many_threads_are_all_flushed_at_thread_exit(void **state)
{
    (void)state;
    enum { NT = 48 };
    char dir[512];
    tw_tmpdir(dir, sizeof(dir), "many");
    latrec_set_output_dir(dir);
    setenv("LATREC_ENTRIES_LOG2_MANY", "12", 1);
    static struct exiter e[NT];
    pthread_t t[NT];
    for (int i = 0; i < NT; i++) {
        e[i] = (struct exiter){"many", (uint64_t)(i * 97 + 1), 0, 0, 0};
        assert_int_equal(pthread_create(&t[i], NULL, exiter_main, &e[i]), 0);
    }
    for (int i = 0; i < NT; i++) pthread_join(t[i], NULL);
    unsetenv("LATREC_ENTRIES_LOG2_MANY");
    latrec_set_output_dir(NULL);
    assert_int_equal(tw_count_files(dir, ".latrec"), NT);
    for (int i = 0; i < NT; i++) {
        char path[700];
        assert_true(e[i].opened);
        tls_path(path, sizeof(path), dir, "many", e[i].tid);
        struct tw_hdr h;
        assert_int_equal(tw_read_hdr(path, &h), 0);
        assert_int_equal(h.entries, 4096);
        assert_int_equal(h.rec_count, e[i].n);
        assert_int_equal(h.flags & TW_F_CLEAN_CLOSE, TW_F_CLEAN_CLOSE);
    }
    tw_rm_rf(dir);
}

/* ---- flush at process exit ---------------------------------------------- */

struct side {
    pthread_mutex_t lock;
    pthread_cond_t  cond;
    int             ready;
};

static void *side_main(void *p)
{
    struct side *s = p;
    latrec_tls_open_as("exitside");
    for (uint64_t i = 0; i < 13; i++) latrec_tstamp(i, 0x23, i, 0);
    pthread_mutex_lock(&s->lock);
    s->ready = 1;
    pthread_cond_signal(&s->cond);
    pthread_mutex_unlock(&s->lock);
    for (;;) pause(); /* still running when main returns */
    return NULL;
}

/* The child program: run as `<self> --return-from-main DIR`. Its main thread
 * and a second thread (still running) stamp; main returns. */
static int child_return_from_main(const char *dir)
{
    latrec_set_output_dir(dir);
    if (!latrec_tls_open_as("exitmain")) return 3;
    for (uint64_t i = 0; i < 21; i++) latrec_tstamp(i, 0x24, i, 0);
    static struct side s = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
    pthread_t t;
    if (pthread_create(&t, NULL, side_main, &s) != 0) return 4;
    pthread_mutex_lock(&s.lock);
    while (!s.ready) pthread_cond_wait(&s.cond, &s.lock);
    pthread_mutex_unlock(&s.lock);
    return 0;
}

static void test_rings_are_flushed_when_main_returns(void **state)
{
    (void)state;
    char dir[512];
    tw_tmpdir(dir, sizeof(dir), "pexit");
    pid_t pid = 0;
    int st = run_self("--return-from-main", dir, &pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);

    char mainp[700], sidep[700];
    assert_int_equal(tw_find_file(dir, "exitmain.", ".latrec", mainp, sizeof(mainp)), 0);
    assert_int_equal(tw_find_file(dir, "exitside.", ".latrec", sidep, sizeof(sidep)), 0);
    struct tw_ring m, s;
    assert_int_equal(tw_read_ring(mainp, &m), 0);
    assert_int_equal(tw_read_ring(sidep, &s), 0);
    assert_int_equal(m.h.pid, (uint32_t)pid);
    assert_int_equal(m.h.tid, (uint32_t)pid); /* the main thread */
    assert_int_equal(s.h.pid, (uint32_t)pid);
    assert_int_not_equal(s.h.tid, (uint32_t)pid);
    assert_int_equal(m.h.rec_count, 21);
    assert_int_equal(s.h.rec_count, 13);
    assert_int_equal(m.h.flags & TW_F_CLEAN_CLOSE, TW_F_CLEAN_CLOSE);
    assert_int_equal(s.h.flags & TW_F_CLEAN_CLOSE, TW_F_CLEAN_CLOSE);
    assert_int_equal(tw_valid_count(&m), 21);
    assert_int_equal(tw_valid_count(&s), 13);
    assert_true(m.h.t1_mono >= m.slots[20].t_ns);
    assert_true(s.h.t1_mono >= s.slots[12].t_ns);
    tw_free_ring(&m);
    tw_free_ring(&s);
    tw_rm_rf(dir);
}

/* ---- failed opens, threads with no ring ----------------------------------- */

static int failed_tls_child(void *p)
{
    latrec_set_output_dir((const char *)p);
    if (latrec_tls_open_as("nowhere") != NULL) return 10;
    if (latrec_tls_open_as("nowhere") != NULL) return 11; /* not retried, not said again */
    if (latrec_tls_open() != NULL) return 12;
    for (int i = 0; i < 1000; i++) latrec_tstamp((uint64_t)i, 0x10, 1, 2);
    latrec_tstamp_at(1, 0x11, 1, 2, 3);
    latrec_ctx_set(9);
    if (latrec_ctx() != 0) return 13;
    return 0;
}

static void test_failed_tls_open_returns_null_says_once_and_stamps_nothing(void **state)
{
    (void)state;
    char dir[512], file[600];
    tw_tmpdir(dir, sizeof(dir), "tlsfail");
    snprintf(file, sizeof(file), "%s/plainfile", dir);
    int fd = open(file, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "x\n", 2), 2);
    close(fd);
    char err[4096];
    int st = tw_run_child(failed_tls_child, file, err, sizeof(err));
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    assert_int_equal(tw_count_lines(err), 1);
    assert_non_null(strstr(err, file));
    assert_int_equal(tw_count_files(dir, NULL), 1);
    char buf[16];
    assert_int_equal(tw_slurp(file, buf, sizeof(buf)), 2);
    tw_rm_rf(dir);
}

struct noring {
    int      enabled;
    uint64_t ctx;
    uint64_t tnow;
};

static void *noring_main(void *p)
{
    struct noring *n = p;
    n->enabled = latrec_tls->enabled;
    for (int i = 0; i < 100; i++) latrec_tstamp((uint64_t)i, 0x10, 0, 0);
    latrec_tstamp_at(1, 0x10, 0, 0, 5);
    latrec_ctx_set(1234);
    n->ctx = latrec_ctx();
    n->tnow = latrec_tnow();
    return NULL;
}

static void test_thread_without_ring_stamps_nothing_and_ctx_reads_zero(void **state)
{
    (void)state;
    char dir[512];
    tw_tmpdir(dir, sizeof(dir), "noring");
    latrec_set_output_dir(dir);
    struct noring n = {-1, 1, 0};
    const uint64_t before = tw_mono_ns();
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, noring_main, &n), 0);
    pthread_join(t, NULL);
    const uint64_t after = tw_mono_ns();
    latrec_set_output_dir(NULL);
    assert_int_equal(n.enabled, 0);
    assert_int_equal(n.ctx, 0);
    assert_true(n.tnow >= before && n.tnow <= after);
    assert_int_equal(tw_count_files(dir, NULL), 0);
    tw_rm_rf(dir);
}

struct ctxarg {
    uint64_t set, got_before_other, got_after_other;
    pthread_barrier_t *b;
};

static void *ctx_main(void *p)
{
    struct ctxarg *c = p;
    latrec_tls_open_as("ctx");
    latrec_ctx_set(c->set);
    c->got_before_other = latrec_ctx();
    pthread_barrier_wait(c->b);
    pthread_barrier_wait(c->b);
    c->got_after_other = latrec_ctx();
    /* EMIT_ENTER.aux carries the producer's seq, the libE3 join convention */
    latrec_tstamp(latrec_ctx() + 1000, LATREC_EMIT_ENTER, latrec_ctx(), 7);
    return NULL;
}

static void test_ctx_is_sticky_per_thread(void **state)
{
    (void)state;
    char dir[512];
    tw_tmpdir(dir, sizeof(dir), "ctx");
    latrec_set_output_dir(dir);
    pthread_barrier_t b;
    pthread_barrier_init(&b, NULL, 2);
    struct ctxarg x = {111, 0, 0, &b}, y = {222, 0, 0, &b};
    pthread_t tx, ty;
    assert_int_equal(pthread_create(&tx, NULL, ctx_main, &x), 0);
    assert_int_equal(pthread_create(&ty, NULL, ctx_main, &y), 0);
    pthread_join(tx, NULL);
    pthread_join(ty, NULL);
    pthread_barrier_destroy(&b);
    latrec_set_output_dir(NULL);
    assert_int_equal(x.got_before_other, 111);
    assert_int_equal(x.got_after_other, 111);
    assert_int_equal(y.got_before_other, 222);
    assert_int_equal(y.got_after_other, 222);
    assert_int_equal(tw_count_files(dir, ".latrec"), 2);
    char path[700];
    assert_int_equal(tw_find_file(dir, "ctx.", ".latrec", path, sizeof(path)), 0);
    struct tw_ring r;
    assert_int_equal(tw_read_ring(path, &r), 0);
    assert_int_equal(tw_valid_count(&r), 1);
    assert_int_equal(r.slots[0].stage, 0x20);
    assert_int_equal(r.slots[0].seq, r.slots[0].aux + 1000);
    assert_true(r.slots[0].aux == 111 || r.slots[0].aux == 222);
    tw_free_ring(&r);
    tw_rm_rf(dir);
}

static void *progname_main(void *p)
{
    *(pid_t *)p = gettid();
    latrec_tls_open();
    latrec_tstamp(5, 0x10, 0, 0);
    return NULL;
}

static void test_tls_open_without_role_uses_program_name(void **state)
{
    (void)state;
    char dir[512], path[700];
    tw_tmpdir(dir, sizeof(dir), "progname");
    latrec_set_output_dir(dir);
    pid_t tid = 0;
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, progname_main, &tid), 0);
    pthread_join(t, NULL);
    latrec_set_output_dir(NULL);
    tls_path(path, sizeof(path), dir, program_invocation_short_name, tid);
    struct tw_hdr h;
    assert_int_equal(tw_read_hdr(path, &h), 0);
    assert_int_equal(h.rec_count, 1);
    tw_rm_rf(dir);
}

/* ---- seq counter ----------------------------------------------------------- */

enum { SEQ_THREADS = 4, SEQ_PER = 20000 };
static uint64_t seq_seen[SEQ_THREADS][SEQ_PER];

static void *seq_main(void *p)
{
    uint64_t *out = p;
    for (int i = 0; i < SEQ_PER; i++) out[i] = latrec_seq_next();
    return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Run as `<self> --seq`: a fresh process, so the counter starts untouched. */
static int child_seq(void)
{
    if (latrec_seq_next() != 1) return 20;
    if (latrec_seq_next() != 2) return 21;
    pthread_t t[SEQ_THREADS];
    for (int i = 0; i < SEQ_THREADS; i++)
        if (pthread_create(&t[i], NULL, seq_main, seq_seen[i]) != 0) return 22;
    for (int i = 0; i < SEQ_THREADS; i++) pthread_join(t[i], NULL);
    static uint64_t all[SEQ_THREADS * SEQ_PER];
    memcpy(all, seq_seen, sizeof(all));
    qsort(all, SEQ_THREADS * SEQ_PER, sizeof(all[0]), cmp_u64);
    for (int i = 0; i < SEQ_THREADS * SEQ_PER; i++)
        if (all[i] != (uint64_t)i + 3) return 23; /* 3..N+2, each exactly once */
    for (int k = 0; k < SEQ_THREADS; k++)
        for (int i = 1; i < SEQ_PER; i++)
            if (seq_seen[k][i] <= seq_seen[k][i - 1]) return 24; /* increasing per thread */
    return 0;
}

static void test_seq_next_starts_at_1_and_is_unique_across_threads(void **state)
{
    (void)state;
    int st = run_self("--seq", NULL, NULL);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
}

/* ---- fork --------------------------------------------------------------------- */

struct forker {
    pid_t child;
    int   child_status;
};

static void *forker_main(void *p)
{
    struct forker *f = p;
    latrec_tls_open_as("forkparent");
    for (uint64_t i = 0; i < 3; i++) latrec_tstamp(i, 0x10, 1, 0);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int rc = 0;
        if (latrec_tls->enabled) rc = 30;                      /* no ring inherited */
        latrec_tstamp(99, 0x10, 99, 99);                        /* goes nowhere */
        if (!rc && !latrec_tls_open_as("forkchild")) rc = 31;
        for (uint64_t i = 0; i < 5; i++) latrec_tstamp(i, 0x11, 2, 0);
        exit(rc); /* the exit flush marks the child's ring, not the parent's */
    }
    f->child = pid;
    waitpid(pid, &f->child_status, 0);
    latrec_tstamp(3, 0x10, 1, 0);
    return NULL;
}

/* Run as `<self> --fork-from-ring-thread DIR` (a fresh process: a child
 * forked from a non-main thread has none of the test runner's state). A
 * thread with a ring forks; exit status 0 when the child exited 0. */
static int child_fork_from_ring_thread(const char *dir)
{
    latrec_set_output_dir(dir);
    struct forker f = {0, -1};
    pthread_t t;
    if (pthread_create(&t, NULL, forker_main, &f) != 0) return 32;
    pthread_join(t, NULL);
    return WIFEXITED(f.child_status) ? WEXITSTATUS(f.child_status) : 33;
}

static void test_forked_child_opens_its_own_ring_and_leaves_the_parents_alone(void **state)
{
    (void)state;
    char dir[512];
    tw_tmpdir(dir, sizeof(dir), "fork");
    pid_t pid = 0;
    int st = run_self("--fork-from-ring-thread", dir, &pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);

    char pp[700], cp[700];
    assert_int_equal(tw_count_files(dir, NULL), 2);
    assert_int_equal(tw_find_file(dir, "forkparent.", ".latrec", pp, sizeof(pp)), 0);
    assert_int_equal(tw_find_file(dir, "forkchild.", ".latrec", cp, sizeof(cp)), 0);
    struct tw_ring p, c;
    assert_int_equal(tw_read_ring(pp, &p), 0);
    assert_int_equal(tw_read_ring(cp, &c), 0);
    assert_int_equal(p.h.pid, (uint32_t)pid);
    assert_int_not_equal(p.h.tid, (uint32_t)pid); /* the helper thread */
    assert_int_equal(p.h.rec_count, 4);
    assert_int_equal(tw_valid_count(&p), 4);
    for (uint64_t i = 0; i < 4; i++) {
        assert_int_equal(p.slots[i].seq, i);
        assert_int_equal(p.slots[i].aux, 1);
    }
    assert_int_not_equal(c.h.pid, (uint32_t)pid);
    assert_int_equal(c.h.tid, c.h.pid); /* the forking thread is the child's main thread */
    assert_int_equal(c.h.rec_count, 5);
    assert_int_equal(c.h.flags & TW_F_CLEAN_CLOSE, TW_F_CLEAN_CLOSE);
    assert_int_equal(tw_valid_count(&c), 5);
    for (uint64_t i = 0; i < 5; i++) assert_int_equal(c.slots[i].aux, 2);
    tw_free_ring(&p);
    tw_free_ring(&c);
    tw_rm_rf(dir);
}

/* A thread that closes its own ring by hand and reopens: the process still
 * exits cleanly, both files are complete. */
static int closed_by_hand_child(void *p)
{
    latrec_set_output_dir((const char *)p);
    latrec_t *r = latrec_tls_open_as("byhand");
    if (!r) return 40;
    latrec_tstamp(1, 0x10, 0, 0);
    latrec_close(r);
    latrec_tstamp(2, 0x10, 0, 0); /* closed: nothing */
    latrec_t *again = latrec_tls_open_as("byhand");
    if (!again || !again->enabled) return 41;
    latrec_tstamp(3, 0x10, 0, 0);
    latrec_tstamp(4, 0x10, 0, 0);
    return 0; /* exit(): the process-exit flush walks both registered rings */
}

static void test_ring_closed_by_hand_then_reopened_survives_process_exit(void **state)
{
    (void)state;
    char dir[512], err[4096];
    tw_tmpdir(dir, sizeof(dir), "byhand");
    int st = tw_run_child(closed_by_hand_child, dir, err, sizeof(err));
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    assert_string_equal(err, "");
    assert_int_equal(tw_count_files(dir, ".latrec"), 2);
    char p0[700], p1[700];
    assert_int_equal(tw_find_file(dir, "byhand.", "-1.latrec", p1, sizeof(p1)), 0);
    snprintf(p0, sizeof(p0), "%.*s.latrec", (int)(strlen(p1) - strlen("-1.latrec")), p1);
    struct tw_hdr h0, h1;
    assert_int_equal(tw_read_hdr(p0, &h0), 0);
    assert_int_equal(tw_read_hdr(p1, &h1), 0);
    assert_int_equal(h0.rec_count, 1);
    assert_int_equal(h1.rec_count, 2);
    assert_int_equal(h0.flags & TW_F_CLEAN_CLOSE, TW_F_CLEAN_CLOSE);
    assert_int_equal(h1.flags & TW_F_CLEAN_CLOSE, TW_F_CLEAN_CLOSE);
    tw_rm_rf(dir);
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "--return-from-main") == 0) return child_return_from_main(argv[2]);
    if (argc >= 2 && strcmp(argv[1], "--seq") == 0) return child_seq();
    if (argc >= 3 && strcmp(argv[1], "--fork-from-ring-thread") == 0)
        return child_fork_from_ring_thread(argv[2]);

    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_threads_same_role_get_two_files_and_reopen_is_idempotent),
        cmocka_unit_test(test_ring_is_flushed_and_marked_clean_at_thread_exit),
        cmocka_unit_test(test_many_threads_are_all_flushed_at_thread_exit),
        cmocka_unit_test(test_rings_are_flushed_when_main_returns),
        cmocka_unit_test(test_failed_tls_open_returns_null_says_once_and_stamps_nothing),
        cmocka_unit_test(test_thread_without_ring_stamps_nothing_and_ctx_reads_zero),
        cmocka_unit_test(test_ctx_is_sticky_per_thread),
        cmocka_unit_test(test_tls_open_without_role_uses_program_name),
        cmocka_unit_test(test_seq_next_starts_at_1_and_is_unique_across_threads),
        cmocka_unit_test(test_forked_child_opens_its_own_ring_and_leaves_the_parents_alone),
        cmocka_unit_test(test_ring_closed_by_hand_then_reopened_survives_process_exit),
    };
    return cmocka_run_group_tests_name("writer_tls", tests, NULL, NULL);
}
