/* Out-of-line calls for FFI callers (ctypes, Rust, Go): the header's inline
 * stamp path as exported functions. Each is the inline call, nothing more. */
#include <stdlib.h>
#include <string.h>

#include "latrec/latrec.h"

latrec_t *latrec_alloc(void)
{
    void *p = NULL;
    if (posix_memalign(&p, _Alignof(latrec_t), sizeof(latrec_t)) != 0) return NULL;
    memset(p, 0, sizeof(latrec_t));
    return p;
}

void latrec_free(latrec_t *r)
{
    if (!r) return;
    latrec_close(r);
    free(r);
}

void latrec_stamp_fn(latrec_t *r, uint64_t seq, uint8_t stage, uint64_t aux, uint64_t aux2)
{
    latrec_stamp(r, seq, stage, aux, aux2);
}

void latrec_stamp_at_fn(latrec_t *r, uint64_t seq, uint8_t stage, uint64_t aux, uint64_t aux2, uint64_t t_ns)
{
    latrec_stamp_at(r, seq, stage, aux, aux2, t_ns);
}

void latrec_tstamp_fn(uint64_t seq, uint8_t stage, uint64_t aux, uint64_t aux2)
{
    latrec_tstamp(seq, stage, aux, aux2);
}

void latrec_tstamp_at_fn(uint64_t seq, uint8_t stage, uint64_t aux, uint64_t aux2, uint64_t t_ns)
{
    latrec_tstamp_at(seq, stage, aux, aux2, t_ns);
}

uint64_t latrec_tnow_fn(void)
{
    return latrec_tnow();
}

uint64_t latrec_ring_now_fn(const latrec_t *r)
{
    return latrec_ring_now(r);
}

void latrec_ctx_set_fn(uint64_t seq)
{
    latrec_ctx_set(seq);
}

uint64_t latrec_ctx_fn(void)
{
    return latrec_ctx();
}
