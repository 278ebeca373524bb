/*
 * shrink_guard.c - SIGBUS on a ring mapping past the file's end becomes
 * zero pages and a recorded cut (rules in shrink_guard.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "read/shrink_guard.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The table is a list of fixed blocks that are never freed or moved, so
 * the handler can walk it at any moment with atomic loads only. Adders
 * take a mutex; the handler never does. */
#define BLOCK_SLOTS 64

struct slot {
    uintptr_t start; /* 0 = free; atomic */
    size_t len;      /* written before start is published */
    uint64_t cut;    /* lowest replaced offset, UINT64_MAX = none; atomic */
};

struct block {
    struct slot slots[BLOCK_SLOTS];
    struct block *next; /* atomic */
    uint32_t base;      /* handle of slots[0] */
};

static struct block *head; /* atomic */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct sigaction previous;
static uintptr_t page_mask;

static void pass_on(int sig, siginfo_t *si, void *uc)
{
    if (previous.sa_flags & SA_SIGINFO) {
        previous.sa_sigaction(sig, si, uc);
        return;
    }
    if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
        previous.sa_handler(sig);
        return;
    }
    /* Default action: restore it; returning repeats the fault, which now
     * ends the process as it would have without the guard. */
    signal(sig, SIG_DFL);
}

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
    uintptr_t a = (uintptr_t)si->si_addr;
    for (struct block *b = __atomic_load_n(&head, __ATOMIC_ACQUIRE); b;
         b = __atomic_load_n(&b->next, __ATOMIC_ACQUIRE)) {
        for (int i = 0; i < BLOCK_SLOTS; i++) {
            struct slot *s = &b->slots[i];
            uintptr_t start = __atomic_load_n(&s->start, __ATOMIC_ACQUIRE);
            if (!start || a < start || a - start >= s->len) continue;
            uintptr_t page = a & ~page_mask;
            size_t rest = start + s->len - page;
            if (mmap((void *)page, rest, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
                break;
            uint64_t off = page - start, old = __atomic_load_n(&s->cut, __ATOMIC_RELAXED);
            while (off < old && !__atomic_compare_exchange_n(&s->cut, &old, off, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
                ;
            return;
        }
    }
    pass_on(sig, si, uc);
}

static void init_page(void)
{
    long ps = sysconf(_SC_PAGESIZE);
    page_mask = (uintptr_t)(ps > 0 ? ps : 4096) - 1;
}

/* Put the handler in place unless it is: a program (or a test harness)
 * that set its own SIGBUS handler since gets it back as the one faults
 * outside the rings are passed on to. Called with the lock held. */
static int install(void)
{
    struct sigaction cur;
    if (sigaction(SIGBUS, NULL, &cur) != 0) return 0;
    if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_sigbus) return 1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    return sigaction(SIGBUS, &sa, &previous) == 0;
}

static struct slot *slot_of(uint32_t handle)
{
    if (handle == 0) return NULL;
    for (struct block *b = __atomic_load_n(&head, __ATOMIC_ACQUIRE); b; b = __atomic_load_n(&b->next, __ATOMIC_ACQUIRE))
        if (handle - 1 >= b->base && handle - 1 < b->base + BLOCK_SLOTS) return &b->slots[handle - 1 - b->base];
    return NULL;
}

uint32_t latrec_shrink_guard_add(const void *map, size_t len)
{
    pthread_once(&once, init_page);
    if (!map || !len) return 0;
    pthread_mutex_lock(&lock);
    if (!install()) {
        pthread_mutex_unlock(&lock);
        return 0;
    }
    struct block *last = NULL;
    uint32_t handle = 0;
    for (struct block *b = head; b && !handle; last = b, b = b->next)
        for (int i = 0; i < BLOCK_SLOTS; i++)
            if (!b->slots[i].start) {
                handle = b->base + (uint32_t)i + 1;
                break;
            }
    if (!handle) {
        struct block *nb = calloc(1, sizeof *nb);
        if (nb) {
            nb->base = last ? last->base + BLOCK_SLOTS : 0;
            __atomic_store_n(last ? &last->next : &head, nb, __ATOMIC_RELEASE);
            handle = nb->base + 1;
        }
    }
    struct slot *s = slot_of(handle);
    if (s) {
        s->len = len;
        __atomic_store_n(&s->cut, UINT64_MAX, __ATOMIC_RELAXED);
        __atomic_store_n(&s->start, (uintptr_t)map, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&lock);
    return s ? handle : 0;
}

void latrec_shrink_guard_remove(uint32_t handle)
{
    struct slot *s = slot_of(handle);
    if (!s) return;
    pthread_mutex_lock(&lock);
    __atomic_store_n(&s->start, 0, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&lock);
}

uint64_t latrec_shrink_guard_cut(uint32_t handle)
{
    struct slot *s = slot_of(handle);
    return s ? __atomic_load_n(&s->cut, __ATOMIC_ACQUIRE) : UINT64_MAX;
}
