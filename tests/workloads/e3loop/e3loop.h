/*
 * e3loop.h - the bundled E3 loop workload: a "RAN" process and a "dApp"
 * process, instrumented with liblatrec and the built-in E3 catalog.
 *
 * RAN (the process started):
 *   source threads (role "oai", --threads of them, each paced at --rate Hz
 *     with clock_nanosleep TIMER_ABSTIME): source leg RECORD_BEGIN ->
 *     PROCESS_BEGIN -> ENCODE_E3SM_BEGIN -> ENCODE_E3SM_DONE (+ WAIT_ENTER)
 *     keyed by the process's source counter; then emit: EMIT_ENTER and
 *     ENQUEUE keyed by latrec_seq_next() (EMIT_ENTER.aux = the source seq
 *     through latrec_ctx_set/latrec_ctx, aux2 = RAN function id);
 *   outbound thread (role "libe3.outbound"): DEQUEUE -> ENCODE_E3AP_DONE
 *     (aux = wire bytes) -> SEND_DONE (aux = message id) on the same seq;
 *   the main thread, as the control thread (role "oai.ctrl"):
 *     APPLY_CONTROL_DONE keyed by the control's id; the next source tick
 *     stamps LIVE_ON_AIR on that id. It also ends the run.
 * dApp (the same binary, exec'd with --dapp-fd):
 *   the main thread, as the inbound thread (role "libe3.inbound"): RECV (aux = bytes) ->
 *     DECODE_E3AP_DONE (aux = message id) keyed by its own latrec_seq_next(),
 *     DELIVER_BEGIN/DELIVER_DONE (aux = message id) around the delivery,
 *     which reads the seq back with latrec_ctx() and queues the message;
 *   handler thread (role "dapp"): DECODE_E3SM_BEGIN -> DECODE_E3SM_DONE ->
 *     PROCESS_DONE -> CREATE_OUTPUT (aux = control id) on the same seq, then
 *     sends the control back.
 * Every thread of both processes stamps, so each has a ring. The two
 * processes talk over one AF_UNIX SOCK_SEQPACKET socket pair.
 */
#ifndef E3LOOP_H
#define E3LOOP_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define E3LOOP_RAN_FUNCTION 2u   /* EMIT_ENTER.aux2 */
#define E3LOOP_MAX_THREADS 16
#define E3LOOP_MAX_PAYLOAD 60000u

typedef struct e3loop_cfg {
    double   rate_hz;      /* per source thread */
    double   duration_s;
    unsigned payload;      /* E3SM payload bytes per indication */
    unsigned threads;      /* source threads */
    unsigned queue;        /* outbound queue capacity */
    int      dapp_fd;      /* >= 0: this process is the dApp */
} e3loop_cfg;

/* Stop flag of the process, set by its main thread. */
extern atomic_int e3loop_stop;

/* The RAN: spawn the dApp, run until the duration ends or a stop signal;
 * returns the process exit status (a stop signal is re-raised by main). */
int e3loop_ran(const e3loop_cfg *cfg, int argc, char **argv, int *stop_sig);

/* The dApp on socket fd: until end-of-file. Returns the exit status. */
int e3loop_dapp(const e3loop_cfg *cfg);

/* CLOCK_MONOTONIC ns. */
uint64_t e3loop_now(void);

/* Heartbeat the calling thread's ring when 100 ms have passed since *last. */
void e3loop_heartbeat(uint64_t *last);

#endif
