/* A pass's three stages on threads, batch by batch, in order. */
#include "engine/pipeline.h"

#include <pthread.h>
#include <stdint.h>

enum { T_MERGE = 1, T_FEED = 2, T_APPLY = 4 };

struct pipe {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    const latrec_pipe_stages *s;
    void *const *batches;
    uint64_t n_batches;
    /* Batches done by each stage (batch k is batches[k % n_batches]);
     * end: the number of batches, once merge has found the stream's end. */
    uint64_t merged, fed, applied, end;
    int merging, feeding, failed, waiting;
    int roles_left; /* stages of threads that could not be started */
};

struct worker {
    struct pipe *p;
    int roles;
};

/* The next task for a thread that can do `roles`, or 0. Stage 2 first
 * (its thread does nothing else while it can). While stage 2's thread is
 * idle it makes the record batches, and the caller's thread keeps to
 * stage 3; while it feeds, the caller makes a batch first when stage 2 is
 * about to run dry, else stage 3, else a batch. So whichever of stage 2
 * and stage 3 is the heavier, the lighter one's thread makes most of the
 * record batches. */
static int pick(const struct pipe *p, int roles)
{
    const int can_merge =
        (roles & T_MERGE) && !p->merging && p->merged < p->end && p->merged - p->applied < p->n_batches;
    const int can_apply = (roles & T_APPLY) && p->applied < p->fed;
    const int leave_merge = (roles & T_APPLY) && !(roles & T_FEED) && !p->feeding; /* to stage 2's thread */
    if ((roles & T_FEED) && !p->feeding && p->fed < p->merged) return T_FEED;
    if (can_apply && leave_merge) return T_APPLY;
    if (can_merge && !leave_merge && p->merged - p->fed < 2) return T_MERGE;
    if (can_apply) return T_APPLY;
    return can_merge && !leave_merge ? T_MERGE : 0;
}

/* Run one task, p->mu held (and held again on return). */
static void run_task(struct pipe *p, int task)
{
    uint64_t k;
    int r;
    if (task == T_MERGE) {
        k = p->merged;
        p->merging = 1;
    } else if (task == T_FEED) {
        k = p->fed;
        p->feeding = 1;
    } else {
        k = p->applied;
    }
    void *b = p->batches[k % p->n_batches];
    const int last = k + 1 == p->end;
    pthread_mutex_unlock(&p->mu);
    if (task == T_MERGE) r = p->s->merge(p->s->ctx, b);
    else if (task == T_FEED) r = p->s->feed(p->s->ctx, b, last);
    else r = p->s->apply(p->s->ctx, b);
    pthread_mutex_lock(&p->mu);
    if (r < 0) p->failed = 1;
    if (task == T_MERGE) {
        p->merging = 0;
        p->merged++;
        if (r == 0) p->end = p->merged;
    } else if (task == T_FEED) {
        p->feeding = 0;
        p->fed++;
    } else {
        p->applied++;
    }
    if (p->waiting) pthread_cond_broadcast(&p->cv);
}

static void work(struct pipe *p, int roles)
{
    pthread_mutex_lock(&p->mu);
    while (!p->failed && p->applied < p->end) {
        const int task = pick(p, roles | (roles & T_APPLY ? p->roles_left : 0));
        if (task) {
            run_task(p, task);
            continue;
        }
        p->waiting++;
        pthread_cond_wait(&p->cv, &p->mu);
        p->waiting--;
    }
    if (p->waiting) pthread_cond_broadcast(&p->cv); /* the end, or a failure: the others stop too */
    pthread_mutex_unlock(&p->mu);
}

static void *worker_main(void *arg)
{
    const struct worker *w = arg;
    work(w->p, w->roles);
    return NULL;
}

int latrec_pipe_run(const latrec_pipe_stages *s, void *const *batches, int n_batches, int n_threads)
{
    struct pipe p = { .s = s, .batches = batches, .n_batches = (uint64_t)n_batches, .end = UINT64_MAX };
    if (n_threads > 3) n_threads = 3; /* one stage per thread at most */
    if (pthread_mutex_init(&p.mu, NULL) != 0) return -1;
    if (pthread_cond_init(&p.cv, NULL) != 0) {
        pthread_mutex_destroy(&p.mu);
        return -1;
    }
    /* Thread 1 feeds (and merges when it would wait), thread 2 merges. */
    static const int roles[3] = { T_APPLY | T_MERGE, T_FEED | T_MERGE, T_MERGE };
    struct worker w[3];
    pthread_t th[3];
    int started[3] = { 0, 0, 0 };
    for (int i = 1; i < 3; i++) {
        w[i] = (struct worker){ &p, roles[i] };
        if (i < n_threads) started[i] = pthread_create(&th[i], NULL, worker_main, &w[i]) == 0;
    }
    if (!started[1]) p.roles_left = T_FEED; /* stage 2 is left to the caller (thread 2 never reads this) */
    work(&p, roles[0]);
    for (int i = 1; i < 3; i++)
        if (started[i]) pthread_join(th[i], NULL);
    pthread_cond_destroy(&p.cv);
    pthread_mutex_destroy(&p.mu);
    return p.failed ? -1 : 0;
}
