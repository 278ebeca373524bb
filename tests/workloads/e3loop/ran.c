/* e3loop's RAN process: source threads, the outbound thread, the control
 * thread; spawns the dApp. */
#define _GNU_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <latrec/latrec.h>

#include "e3loop.h"
#include "hops.h"
#include "queue.h"
#include "wire.h"

struct out_item {
    uint64_t oseq;     /* outbound seq (latrec_seq_next at EMIT_ENTER) */
    uint64_t src_seq;  /* the source's seq, from latrec_ctx() */
    uint64_t checksum;
    uint8_t  payload[];
};

struct ran;

struct source_arg {
    struct ran *r;
    unsigned idx;
};

struct ran {
    const e3loop_cfg *cfg;
    int sock;
    e3loop_queue out_q;   /* struct out_item + payload */
    e3loop_queue live_q;  /* control ids waiting for LIVE_ON_AIR */
    atomic_uint_fast64_t src_seq, msg_id, control_value;
    pthread_t src[E3LOOP_MAX_THREADS], out;
    struct source_arg args[E3LOOP_MAX_THREADS];
};

/* emit(): what a RAN calls to hand an indication to libE3. */
static void emit(struct ran *r, struct out_item *it)
{
    uint64_t oseq = latrec_seq_next();
    it->oseq = oseq;
    it->src_seq = latrec_ctx();
    e3loop_stamp(oseq, LATREC_EMIT_ENTER, it->src_seq, E3LOOP_RAN_FUNCTION);
    e3loop_stamp(oseq, LATREC_ENQUEUE, 0, 0);
    if (e3loop_queue_push(&r->out_q, it) < 0) latrec_tstamp(oseq, LATREC_DROP, 0, LATREC_DROP_QUEUE_PUSH);
}

static void *source_main(void *arg)
{
    struct source_arg *a = arg;
    struct ran *r = a->r;
    const unsigned len = r->cfg->payload;
    char name[16];
    snprintf(name, sizeof(name), "oai-src%u", a->idx);
    pthread_setname_np(pthread_self(), name);
    prctl(PR_SET_TIMERSLACK, 1UL); /* wake at the tick, not up to 50 us later */
    latrec_tls_open_as("oai");
    struct out_item *it = calloc(1, sizeof(*it) + len);
    uint8_t *samples = calloc(1, len ? len : 1);
    if (!it || !samples) {
        fprintf(stderr, "e3loop: out of memory\n");
        atomic_store(&e3loop_stop, 1);
        free(it);
        free(samples);
        return NULL;
    }
    const uint64_t period = (uint64_t)(1e9 / r->cfg->rate_hz);
    uint64_t next = e3loop_now(), hb = next;
    while (!atomic_load(&e3loop_stop)) {
        uint64_t ctrl;
        while (e3loop_queue_try_pop(&r->live_q, &ctrl) == 1)
            e3loop_stamp(ctrl, LATREC_LIVE_ON_AIR, atomic_load(&r->control_value), 0);

        uint64_t seq = atomic_fetch_add(&r->src_seq, 1) + 1;
        e3loop_stamp(seq, LATREC_RECORD_BEGIN, a->idx, 0);
        e3loop_sm_encode(samples, len, seq);            /* capture */
        e3loop_stamp(seq, LATREC_PROCESS_BEGIN, 0, 0);
        uint8_t gain = (uint8_t)atomic_load(&r->control_value);
        for (unsigned i = 0; i < len; i++) samples[i] ^= gain; /* process with the applied control */
        e3loop_stamp(seq, LATREC_ENCODE_E3SM_BEGIN, 0, 0);
        memcpy(it->payload, samples, len);                /* encode */
        it->checksum = e3loop_sm_checksum(it->payload, len);
        e3loop_stamp(seq, LATREC_ENCODE_E3SM_DONE, len, 0);
        latrec_ctx_set(seq);
        emit(r, it);
        e3loop_stamp(seq, LATREC_WAIT_ENTER, 0, 0);
        e3loop_heartbeat(&hb);

        next += period;
        uint64_t now = e3loop_now();
        if (next + period < now) next = now; /* fell behind: no burst to catch up */
        struct timespec ts = { (time_t)(next / 1000000000u), (long)(next % 1000000000u) };
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {}
    }
    free(it);
    free(samples);
    return NULL;
}

static void *outbound_main(void *arg)
{
    struct ran *r = arg;
    const unsigned len = r->cfg->payload;
    pthread_setname_np(pthread_self(), "libe3-out");
    latrec_tls_open_as("libe3.outbound");
    struct out_item *it = calloc(1, sizeof(*it) + len);
    size_t cap = sizeof(e3loop_hdr) + len;
    uint8_t *buf = malloc(cap);
    uint64_t hb = e3loop_now();
    for (;;) {
        int rc = e3loop_queue_pop(&r->out_q, it, 100);
        e3loop_heartbeat(&hb);
        if (rc < 0) break;
        if (rc == 0) continue;
        e3loop_stamp(it->oseq, LATREC_DEQUEUE, 0, 0);
        uint64_t id = atomic_fetch_add(&r->msg_id, 1) + 1;
        e3loop_hdr h = { E3LOOP_MAGIC, E3LOOP_IND, E3LOOP_RAN_FUNCTION, id, it->src_seq, it->checksum, len, 0 };
        size_t n = e3loop_wire_put(buf, cap, &h, it->payload);
        e3loop_stamp(it->oseq, LATREC_ENCODE_E3AP_DONE, n, 0);
        e3loop_hop(LATREC_SEND_DONE);
        if (send(r->sock, buf, n, MSG_NOSIGNAL) != (ssize_t)n) {
            latrec_tstamp(it->oseq, LATREC_DROP, id, LATREC_DROP_SEND);
            if (errno == EPIPE || errno == ECONNRESET) {
                fprintf(stderr, "e3loop: the dApp is gone (send: %s)\n", strerror(errno));
                atomic_store(&e3loop_stop, 1);
            }
            continue;
        }
        latrec_tstamp(it->oseq, LATREC_SEND_DONE, id, 0);
    }
    free(it);
    free(buf);
    return NULL;
}

/* Apply one control from the dApp: the gain the source threads use from
 * their next tick, when they stamp LIVE_ON_AIR on its id. */
static void apply_control(struct ran *r, const uint8_t *buf, ssize_t n)
{
    e3loop_hdr h;
    if (e3loop_wire_get(buf, (size_t)n, &h) < 0 || h.type != E3LOOP_CTRL) return;
    atomic_store(&r->control_value, h.value);
    e3loop_stamp(h.msg_id, LATREC_APPLY_CONTROL_DONE, h.ref_id, h.value);
    e3loop_queue_push(&r->live_q, &h.msg_id);
}

static pid_t spawn_dapp(int fd, int argc, char **argv)
{
    char **av = calloc((size_t)argc + 3, sizeof(char *));
    char fdarg[16];
    if (!av) return -1;
    snprintf(fdarg, sizeof(fdarg), "%d", fd);
    for (int i = 0; i < argc; i++) av[i] = argv[i];
    av[argc] = "--dapp-fd";
    av[argc + 1] = fdarg;
    pid_t pid = fork();
    if (pid == 0) {
        execv("/proc/self/exe", av);
        fprintf(stderr, "e3loop: cannot start the dApp: /proc/self/exe: %s\n", strerror(errno));
        _exit(127);
    }
    free(av);
    return pid;
}

/* The outbound thread and cfg->threads source threads. */
static void start_threads(struct ran *r)
{
    pthread_create(&r->out, NULL, outbound_main, r);
    for (unsigned i = 0; i < r->cfg->threads; i++) {
        r->args[i].r = r;
        r->args[i].idx = i;
        pthread_create(&r->src[i], NULL, source_main, &r->args[i]);
    }
}

/* The end: the sources and the outbound thread stopped, the sending side
 * closed (the dApp sees end-of-file, finishes, closes). */
static void stop_threads(struct ran *r)
{
    atomic_store(&e3loop_stop, 1);
    for (unsigned i = 0; i < r->cfg->threads; i++) pthread_join(r->src[i], NULL);
    e3loop_queue_close(&r->out_q);
    pthread_join(r->out, NULL);
    shutdown(r->sock, SHUT_WR);
}

/* How long to wait for the dApp: 100 ms, or up to the end of the run. */
static int poll_ms(uint64_t end, int stopping)
{
    int wait_ms = 100;
    if (!stopping && end) {
        uint64_t now = e3loop_now();
        uint64_t left = now < end ? (end - now) / 1000000u + 1 : 0;
        if (left < (uint64_t)wait_ms) wait_ms = (int)left;
    }
    return wait_ms;
}

/* The main thread is the RAN's control thread: it applies the dApp's
 * controls until the end (duration or a stop signal), then stops the
 * sources and the outbound thread, closes its sending side and applies
 * what still comes until the dApp closes the socket. The first stop
 * signal goes to *stop_sig. */
static void control_loop(struct ran *r, const sigset_t *stopset, int *stop_sig)
{
    const e3loop_cfg *cfg = r->cfg;
    int sfd = signalfd(-1, stopset, SFD_CLOEXEC);
    pthread_setname_np(pthread_self(), "oai-ctrl");
    latrec_tls_open_as("oai.ctrl");
    uint8_t buf[sizeof(e3loop_hdr) + 64];
    uint64_t end = cfg->duration_s > 0 ? e3loop_now() + (uint64_t)(cfg->duration_s * 1e9) : 0;
    uint64_t hb = e3loop_now();
    int stopping = 0;
    for (;;) {
        if (!stopping && (atomic_load(&e3loop_stop) || (end && e3loop_now() >= end))) {
            stopping = 1;
            stop_threads(r);
        }
        struct pollfd pf[2] = { { r->sock, POLLIN, 0 }, { sfd, POLLIN, 0 } };
        int p = poll(pf, sfd >= 0 ? 2 : 1, poll_ms(end, stopping));
        e3loop_heartbeat(&hb);
        if (p <= 0) continue;
        if (sfd >= 0 && (pf[1].revents & POLLIN)) {
            struct signalfd_siginfo si;
            if (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si) && !*stop_sig) *stop_sig = (int)si.ssi_signo;
            atomic_store(&e3loop_stop, 1);
        }
        if (!(pf[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        ssize_t n = recv(r->sock, buf, sizeof(buf), MSG_DONTWAIT);
        if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
            if (stopping) break; /* the dApp is done */
            if (n < 0) fprintf(stderr, "e3loop: recv: %s\n", strerror(errno));
            else fprintf(stderr, "e3loop: the dApp closed the connection early\n");
            atomic_store(&e3loop_stop, 1);
            continue;
        }
        if (n > 0) apply_control(r, buf, n);
    }
    if (sfd >= 0) close(sfd);
}

int e3loop_ran(const e3loop_cfg *cfg, int argc, char **argv, int *stop_sig)
{
    struct ran r;
    memset(&r, 0, sizeof(r));
    r.cfg = cfg;
    *stop_sig = 0;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) != 0) {
        fprintf(stderr, "e3loop: socketpair: %s\n", strerror(errno));
        return 1;
    }
    fcntl(sv[0], F_SETFD, FD_CLOEXEC);
    r.sock = sv[0];
    sigset_t stopset;
    sigemptyset(&stopset);
    sigaddset(&stopset, SIGINT);
    sigaddset(&stopset, SIGTERM);
    sigaddset(&stopset, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &stopset, NULL); /* every thread inherits it; main reads them (signalfd) */

    pid_t dapp = spawn_dapp(sv[1], argc, argv);
    close(sv[1]);
    if (dapp < 0) {
        fprintf(stderr, "e3loop: fork: %s\n", strerror(errno));
        return 1;
    }
    if (e3loop_queue_init(&r.out_q, sizeof(struct out_item) + cfg->payload, cfg->queue) < 0 ||
        e3loop_queue_init(&r.live_q, sizeof(uint64_t), 4096) < 0) {
        fprintf(stderr, "e3loop: out of memory\n");
        kill(dapp, SIGKILL);
        return 1;
    }
    start_threads(&r);
    control_loop(&r, &stopset, stop_sig);
    int st = 0;
    while (waitpid(dapp, &st, 0) < 0 && errno == EINTR) {}
    close(r.sock);
    e3loop_queue_free(&r.out_q);
    e3loop_queue_free(&r.live_q);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "e3loop: the dApp (pid %d) failed (wait status 0x%x)\n", (int)dapp, st);
        return 1;
    }
    return 0;
}
