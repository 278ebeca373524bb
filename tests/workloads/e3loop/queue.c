/* Bounded FIFO between threads. */
#include "queue.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int e3loop_queue_init(e3loop_queue *q, size_t item, size_t cap)
{
    memset(q, 0, sizeof(*q));
    q->slots = calloc(cap, item ? item : 1);
    if (!q->slots) return -1;
    q->item = item;
    q->cap = cap;
    pthread_mutex_init(&q->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&q->nonempty, &ca);
    pthread_condattr_destroy(&ca);
    return 0;
}

void e3loop_queue_free(e3loop_queue *q)
{
    pthread_mutex_destroy(&q->mu);
    pthread_cond_destroy(&q->nonempty);
    free(q->slots);
    memset(q, 0, sizeof(*q));
}

int e3loop_queue_push(e3loop_queue *q, const void *item)
{
    pthread_mutex_lock(&q->mu);
    int rc = -1;
    if (!q->closed && q->len < q->cap) {
        memcpy(q->slots + ((q->head + q->len) % q->cap) * q->item, item, q->item);
        q->len++;
        rc = 0;
        pthread_cond_signal(&q->nonempty);
    }
    pthread_mutex_unlock(&q->mu);
    return rc;
}

static void take(e3loop_queue *q, void *item)
{
    memcpy(item, q->slots + q->head * q->item, q->item);
    q->head = (q->head + 1) % q->cap;
    q->len--;
}

int e3loop_queue_pop(e3loop_queue *q, void *item, unsigned timeout_ms)
{
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += timeout_ms / 1000;
    until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&q->mu);
    int rc = 0;
    while (q->len == 0 && !q->closed)
        if (pthread_cond_timedwait(&q->nonempty, &q->mu, &until) == ETIMEDOUT) break;
    if (q->len) {
        take(q, item);
        rc = 1;
    } else if (q->closed) {
        rc = -1;
    }
    pthread_mutex_unlock(&q->mu);
    return rc;
}

int e3loop_queue_try_pop(e3loop_queue *q, void *item)
{
    pthread_mutex_lock(&q->mu);
    int rc = 0;
    if (q->len) {
        take(q, item);
        rc = 1;
    }
    pthread_mutex_unlock(&q->mu);
    return rc;
}

void e3loop_queue_close(e3loop_queue *q)
{
    pthread_mutex_lock(&q->mu);
    q->closed = 1;
    pthread_cond_broadcast(&q->nonempty);
    pthread_mutex_unlock(&q->mu);
}
