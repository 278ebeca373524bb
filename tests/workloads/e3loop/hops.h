/*
 * hops.h - planted delays: --sleep-hop and --spin-hop.
 *
 * "STAGE:TIME[/EVERY]" delays the hop that ends at STAGE (an E3 stage name,
 * any case: dequeue, encode_e3ap_done, recv, ...) by TIME (ns, us, ms, s)
 * on every EVERY-th message (default every one): the thread that stamps
 * STAGE sleeps (clock_nanosleep) or spins (busy loop on the clock) just
 * before stamping it, after the work that precedes the stamp.
 * "dequeue:10ms" makes the outbound thread hold each message 10 ms after
 * taking it off the queue and before stamping DEQUEUE, so ENQUEUE -> DEQUEUE
 * grows by 10 ms (and the queue backs up when 10 ms exceeds the period).
 */
#ifndef E3LOOP_HOPS_H
#define E3LOOP_HOPS_H

#include <stdint.h>

/* Parse one option; spin 1 for --spin-hop. 0, or -1 with a message on
 * stderr. */
int e3loop_hop_parse(const char *arg, int spin);

/* Apply the delay planted before `stage`, if any. */
void e3loop_hop(uint8_t stage);

/* Stamp `stage` into the calling thread's ring after its planted delay. */
void e3loop_stamp(uint64_t seq, uint8_t stage, uint64_t aux, uint64_t aux2);

#endif
