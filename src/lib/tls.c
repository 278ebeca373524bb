/* Per-thread rings: one ring per writer thread, a registry for the flush at
 * thread exit and process exit, and the process-wide seq counter. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "config.h"
#include "latrec/latrec.h"

/* The ring of every thread that has none: always closed, never written. */
static latrec_t closed_ring;

__thread latrec_t *latrec_tls __attribute__((tls_model("initial-exec"))) = &closed_ring;

/* A failed open is said once and not retried on this thread. */
static __thread int open_failed;

struct tls_ring {
    latrec_t ring;
    struct tls_ring *prev, *next;
};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tls_ring *registry;
static pthread_key_t thread_key;
static pthread_once_t setup_once = PTHREAD_ONCE_INIT;
static uint64_t seq_counter;

static void unlink_ring(struct tls_ring *t)
{
    if (t->prev) t->prev->next = t->next;
    else registry = t->next;
    if (t->next) t->next->prev = t->prev;
}

/* Thread exit: flush and close this thread's ring. */
static void thread_exit(void *arg)
{
    struct tls_ring *t = arg;
    latrec_tls = &closed_ring;
    pthread_mutex_lock(&registry_lock);
    unlink_ring(t);
    pthread_mutex_unlock(&registry_lock);
    latrec_close(&t->ring);
    free(t);
}

/* Process exit: flush every ring still open (threads still running keep
 * their mapping; only the header is refreshed). A ring its thread closed by
 * hand (latrec_close(latrec_tls)) is already flushed and unmapped. */
static void process_exit(void)
{
    pthread_mutex_lock(&registry_lock);
    for (struct tls_ring *t = registry; t; t = t->next) {
        if (!t->ring.enabled) continue;
        latrec_heartbeat(&t->ring);
        ((latrec_hdr *)t->ring.map)->flags |= LATREC_F_CLEAN_CLOSE;
    }
    pthread_mutex_unlock(&registry_lock);
}

/* Forked child: the parent's rings are not ours. Drop them without touching
 * their headers; the child's threads open their own. */
static void fork_child(void)
{
    pthread_mutex_init(&registry_lock, NULL);
    struct tls_ring *t = registry;
    registry = NULL;
    while (t) {
        struct tls_ring *next = t->next;
        munmap(t->ring.map, t->ring.map_len);
        free(t);
        t = next;
    }
    pthread_setspecific(thread_key, NULL);
    latrec_tls = &closed_ring;
    open_failed = 0;
}

static void setup(void)
{
    pthread_key_create(&thread_key, thread_exit);
    atexit(process_exit);
    pthread_atfork(NULL, NULL, fork_child);
}

latrec_t *latrec_tls_open_as(const char *role)
{
    if (latrec_tls->enabled) return latrec_tls;
    if (open_failed) return NULL;
    pthread_once(&setup_once, setup);

    if (!role || !*role) role = program_invocation_short_name;
    char name[LATREC_NAME_LEN];
    int n = snprintf(name, sizeof(name), "%s.%d", role, (int)gettid());
    if (n < 0 || (size_t)n >= sizeof(name)) {
        fprintf(stderr, "latrec: role '%s' too long for a ring name (%d bytes max with the tid)\n",
                role, LATREC_NAME_LEN - 1);
        open_failed = 1;
        return NULL;
    }
    for (char *p = name; *p; p++)
        if (*p == '/') *p = '_';

    /* latrec_t is cache-line aligned: so is its allocation (calloc is not) */
    struct tls_ring *t = NULL;
    if (posix_memalign((void **)&t, _Alignof(struct tls_ring), sizeof(*t)) == 0)
        memset(t, 0, sizeof(*t));
    else
        t = NULL;
    if (!t || latrec_open_in(&t->ring, NULL, name, latrec_entries_log2_for_(role)) != 1) {
        if (!t) fprintf(stderr, "latrec: ring %s: out of memory\n", name);
        free(t);
        open_failed = 1;
        return NULL;
    }
    pthread_mutex_lock(&registry_lock);
    t->next = registry;
    if (registry) registry->prev = t;
    registry = t;
    pthread_mutex_unlock(&registry_lock);
    pthread_setspecific(thread_key, t);
    latrec_tls = &t->ring;
    return latrec_tls;
}

latrec_t *latrec_tls_open(void)
{
    return latrec_tls_open_as(NULL);
}

uint64_t latrec_seq_next(void)
{
    return __atomic_add_fetch(&seq_counter, 1, __ATOMIC_RELAXED);
}
