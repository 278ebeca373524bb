/* --stop-above: the watcher thread (threshold.h). */
#include "record/threshold.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "engine/engine.h"

/* How long the thread waits when the rings hold nothing new. */
#define IDLE_WAIT_NS 2000000L
#define STEP_BUDGET (1u << 16)

struct latrec_threshold {
    latrec_threshold_opts o;
    char run_dir[4096], rings_dir[4200], catalog[4096];
    latrec_engine *e;
    pthread_t thread;
    int efd;
    atomic_int ending;  /* the command has ended: read the rest and stop */
    atomic_int crossed; /* the judge has its hit */
    latrec_judge *judge;
    uint64_t detected_ns;
    char error[512];
};

static void nap(long ns)
{
    struct timespec ts = { 0, ns };
    nanosleep(&ts, NULL);
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A ring the command wrote: NAME.latrec (not a .part being created). */
static int has_ring(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    int found = 0;
    struct dirent *de;
    while (!found && (de = readdir(d))) {
        size_t n = strlen(de->d_name);
        found = n > 7 && strcmp(de->d_name + n - 7, ".latrec") == 0;
    }
    closedir(d);
    return found;
}

static void announce(latrec_threshold *t)
{
    t->detected_ns = mono_ns();
    atomic_store(&t->crossed, 1);
    uint64_t one = 1;
    if (write(t->efd, &one, sizeof(one)) < 0) { /* an eventfd write of 1 cannot fail short of overflow */
    }
}

/* ---- the pass's sinks: the judge's ------------------------------------------ */

static int on_table(void *ctx, latrec_leg_table *lt)
{
    latrec_threshold *t = ctx;
    latrec_judge_table(t->judge, lt);
    return 0;
}

static void on_value(void *ctx, latrec_leg_table *lt, int hop, int64_t ns, const latrec_instance *inst)
{
    latrec_threshold *t = ctx;
    if (latrec_judge_value(t->judge, lt, hop, ns, inst)) announce(t);
}

static void on_path(void *ctx, const latrec_path_instance *pi)
{
    latrec_threshold *t = ctx;
    if (latrec_judge_path(t->judge, pi)) announce(t);
}

/* ---- the thread ------------------------------------------------------------ */

static int open_engine(latrec_threshold *t)
{
    latrec_input_opts io;
    memset(&io, 0, sizeof(io));
    latrec_input_add_dir(&io, t->run_dir);
    io.catalog_path = t->catalog[0] ? t->catalog : NULL;
    io.quiet = 1;
    if (!(t->e = latrec_engine_open(&io, "record --stop-above", LATREC_ENGINE_LIVE))) {
        snprintf(t->error, sizeof(t->error), "the run's rings could not be opened (see above)");
        return -1;
    }
    latrec_pass_opts po;
    memset(&po, 0, sizeof(po));
    latrec_judge_attach(t->judge, t->e, &po);
    latrec_pass_sinks sinks = { .ctx = t, .table_new = on_table, .value = on_value, .path_instance = on_path };
    if (latrec_engine_start(t->e, &po, &sinks) < 0) {
        snprintf(t->error, sizeof(t->error), "the analysis could not start (see above)");
        return -1;
    }
    return 0;
}

static void *watch(void *arg)
{
    latrec_threshold *t = arg;
    while (!t->e) { /* the engine opens on the first ring the command makes */
        int end = atomic_load(&t->ending);
        if (has_ring(t->rings_dir)) {
            if (open_engine(t) < 0) return NULL;
        } else if (end) {
            return NULL;
        } else {
            nap(IDLE_WAIT_NS * 5);
        }
    }
    while (!atomic_load(&t->crossed)) {
        int end = atomic_load(&t->ending);
        int r = latrec_engine_step(t->e, STEP_BUDGET);
        if (r == LATREC_ENGINE_ERROR) {
            snprintf(t->error, sizeof(t->error), "the analysis failed (see above)");
            return NULL;
        }
        if (r == LATREC_ENGINE_MORE) continue;
        /* IDLE, or END (live, the engine's word for "nothing now" too):
         * once the command has ended, everything is read: end the open
         * instances */
        if (end) {
            latrec_engine_finish(t->e);
            return NULL;
        }
        nap(IDLE_WAIT_NS);
    }
    return NULL;
}

latrec_threshold *latrec_threshold_start(const latrec_threshold_opts *o, char *err, size_t errlen)
{
    latrec_threshold *t = calloc(1, sizeof(*t));
    if (!t) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    t->o = *o;
    if (!(t->judge = latrec_judge_new(o->gate, o->since_ns))) {
        snprintf(err, errlen, "out of memory");
        free(t);
        return NULL;
    }
    snprintf(t->run_dir, sizeof(t->run_dir), "%s", o->dir);
    snprintf(t->rings_dir, sizeof(t->rings_dir), "%s", o->rings_dir);
    if (o->catalog) snprintf(t->catalog, sizeof(t->catalog), "%s", o->catalog);
    if ((t->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
        snprintf(err, errlen, "eventfd: %s", strerror(errno));
        latrec_judge_free(t->judge);
        free(t);
        return NULL;
    }
    int rc = pthread_create(&t->thread, NULL, watch, t);
    if (rc != 0) {
        snprintf(err, errlen, "cannot start the watcher thread: %s", strerror(rc));
        close(t->efd);
        latrec_judge_free(t->judge);
        free(t);
        return NULL;
    }
    return t;
}

int latrec_threshold_fd(const latrec_threshold *t)
{
    return t->efd;
}

void latrec_threshold_end(latrec_threshold *t)
{
    if (!t || atomic_exchange(&t->ending, 2) == 2) return;
    pthread_join(t->thread, NULL);
}

int latrec_threshold_crossed(latrec_threshold *t, latrec_judge_hit *hit, uint64_t *detected_ns)
{
    if (!atomic_load(&t->crossed)) return 0;
    *detected_ns = t->detected_ns;
    return latrec_judge_crossed(t->judge, hit);
}

int latrec_threshold_named(const latrec_threshold *t)
{
    return latrec_judge_named(t->judge);
}
const char *latrec_threshold_error(const latrec_threshold *t)
{
    return t->error;
}

void latrec_threshold_free(latrec_threshold *t)
{
    if (!t) return;
    latrec_threshold_end(t);
    latrec_engine_close(t->e);
    latrec_judge_free(t->judge);
    close(t->efd);
    free(t);
}
