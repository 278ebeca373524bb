/* e3loop's dApp process: the inbound thread and the handler thread. */
#define _GNU_SOURCE 1
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <latrec/latrec.h>

#include "e3loop.h"
#include "hops.h"
#include "queue.h"
#include "wire.h"

struct in_item {
    uint64_t seq;      /* the inbound seq, read back with latrec_ctx() */
    uint64_t msg_id;
    uint64_t checksum;
    uint32_t len;
    uint32_t pad;
    uint8_t  payload[];
};

struct dapp {
    const e3loop_cfg *cfg;
    int sock;
    e3loop_queue handler_q;
    struct in_item *deliver_buf;
    atomic_uint_fast64_t ctrl_id;
    atomic_int bad;
};

/* The dApp's indication callback, called synchronously by the inbound
 * thread: the seq of the message comes through latrec_ctx(). */
static void on_indication(struct dapp *d, const e3loop_hdr *h, const uint8_t *payload)
{
    struct in_item *it = d->deliver_buf;
    it->seq = latrec_ctx();
    it->msg_id = h->msg_id;
    it->checksum = h->value;
    it->len = h->payload_len;
    memcpy(it->payload, payload, h->payload_len);
    if (e3loop_queue_push(&d->handler_q, it) < 0) latrec_tstamp(it->seq, LATREC_DROP, h->msg_id, LATREC_DROP_NO_HANDLER);
}

/* The inbound loop (libE3's receive thread), on the dApp's main thread. */
static void inbound_main(struct dapp *d)
{
    pthread_setname_np(pthread_self(), "libe3-in");
    latrec_tls_open_as("libe3.inbound");
    size_t cap = sizeof(e3loop_hdr) + E3LOOP_MAX_PAYLOAD;
    uint8_t *buf = malloc(cap);
    uint64_t hb = e3loop_now();
    for (;;) {
        struct pollfd pf = { d->sock, POLLIN, 0 };
        int p = poll(&pf, 1, 100);
        e3loop_heartbeat(&hb);
        if (p == 0 || (p < 0 && errno == EINTR)) continue;
        ssize_t n = recv(d->sock, buf, cap, 0);
        if (n == 0) break; /* the RAN is done */
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            fprintf(stderr, "e3loop-dapp: recv: %s\n", strerror(errno));
            break;
        }
        uint64_t seq = latrec_seq_next();
        e3loop_stamp(seq, LATREC_RECV, (uint64_t)n, 0);
        e3loop_hdr h;
        if (e3loop_wire_get(buf, (size_t)n, &h) < 0 || h.type != E3LOOP_IND || h.payload_len > d->cfg->payload) {
            latrec_tstamp(seq, LATREC_DROP, 0, LATREC_DROP_DECODE);
            atomic_fetch_add(&d->bad, 1);
            continue;
        }
        e3loop_stamp(seq, LATREC_DECODE_E3AP_DONE, h.msg_id, 0);
        e3loop_stamp(seq, LATREC_DELIVER_BEGIN, h.msg_id, 0);
        latrec_ctx_set(seq);
        on_indication(d, &h, buf + sizeof(e3loop_hdr));
        e3loop_stamp(seq, LATREC_DELIVER_DONE, h.msg_id, 0);
    }
    e3loop_queue_close(&d->handler_q);
    free(buf);
}

static void *handler_main(void *arg)
{
    struct dapp *d = arg;
    pthread_setname_np(pthread_self(), "dapp-handler");
    latrec_tls_open_as("dapp");
    struct in_item *it = malloc(sizeof(*it) + E3LOOP_MAX_PAYLOAD);
    uint8_t out[sizeof(e3loop_hdr)];
    uint64_t hb = e3loop_now();
    for (;;) {
        int rc = e3loop_queue_pop(&d->handler_q, it, 100);
        e3loop_heartbeat(&hb);
        if (rc < 0) break;
        if (rc == 0) continue;
        e3loop_stamp(it->seq, LATREC_DECODE_E3SM_BEGIN, it->msg_id, 0);
        uint64_t sum = e3loop_sm_checksum(it->payload, it->len);
        e3loop_stamp(it->seq, LATREC_DECODE_E3SM_DONE, it->len, 0);
        if (sum != it->checksum) atomic_fetch_add(&d->bad, 1);
        uint64_t energy = 0; /* the "inference": mean sample value decides the gain */
        for (uint32_t i = 0; i < it->len; i++) energy += it->payload[i];
        uint64_t decision = it->len ? (energy / it->len) & 0xff : 0;
        e3loop_stamp(it->seq, LATREC_PROCESS_DONE, decision, 0);
        uint64_t cid = atomic_fetch_add(&d->ctrl_id, 1) + 1;
        e3loop_hdr h = { E3LOOP_MAGIC, E3LOOP_CTRL, E3LOOP_RAN_FUNCTION, cid, it->msg_id, decision, 0, 0 };
        size_t n = e3loop_wire_put(out, sizeof(out), &h, NULL);
        e3loop_stamp(it->seq, LATREC_CREATE_OUTPUT, cid, it->msg_id);
        if (send(d->sock, out, n, MSG_NOSIGNAL) != (ssize_t)n && errno != EPIPE)
            fprintf(stderr, "e3loop-dapp: send: %s\n", strerror(errno));
    }
    free(it);
    return NULL;
}

int e3loop_dapp(const e3loop_cfg *cfg)
{
    struct dapp d;
    memset(&d, 0, sizeof(d));
    d.cfg = cfg;
    d.sock = cfg->dapp_fd;
    prctl(PR_SET_NAME, "e3loop-dapp"); /* the process; its main thread becomes libe3-in */
    /* The RAN decides when the loop ends (it closes its end of the socket):
     * a terminal ^C reaching both processes must not cut the dApp short. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    d.deliver_buf = malloc(sizeof(struct in_item) + E3LOOP_MAX_PAYLOAD);
    if (!d.deliver_buf || e3loop_queue_init(&d.handler_q, sizeof(struct in_item) + cfg->payload, cfg->queue) < 0) {
        fprintf(stderr, "e3loop-dapp: out of memory\n");
        return 1;
    }
    pthread_t h;
    pthread_create(&h, NULL, handler_main, &d);
    inbound_main(&d);
    pthread_join(h, NULL);
    close(d.sock);
    e3loop_queue_free(&d.handler_q);
    free(d.deliver_buf);
    int bad = atomic_load(&d.bad);
    if (bad) fprintf(stderr, "e3loop-dapp: %d malformed or corrupted indications\n", bad);
    return bad ? 1 : 0;
}
