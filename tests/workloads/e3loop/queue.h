/*
 * queue.h - a bounded FIFO of fixed-size items between threads (mutex and
 * condition variable): the outbound queue of the RAN, the handler queue of
 * the dApp, the pending controls of the RAN's source threads.
 */
#ifndef E3LOOP_QUEUE_H
#define E3LOOP_QUEUE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

typedef struct e3loop_queue {
    pthread_mutex_t mu;
    pthread_cond_t  nonempty;
    uint8_t *slots;
    size_t   item, cap, head, len;
    int      closed;
} e3loop_queue;

/* cap items of `item` bytes. 0, or -1 out of memory. */
int e3loop_queue_init(e3loop_queue *q, size_t item, size_t cap);
void e3loop_queue_free(e3loop_queue *q);

/* Copy an item in. 0, or -1 when full or closed (nothing stored). */
int e3loop_queue_push(e3loop_queue *q, const void *item);

/* Copy the oldest item out, waiting up to timeout_ms. 1 with an item, 0 on
 * timeout, -1 when closed and empty. */
int e3loop_queue_pop(e3loop_queue *q, void *item, unsigned timeout_ms);

/* Non-blocking pop: 1 with an item, 0 when empty. */
int e3loop_queue_try_pop(e3loop_queue *q, void *item);

/* No more pushes; poppers drain what is left, then get -1. */
void e3loop_queue_close(e3loop_queue *q);

#endif
