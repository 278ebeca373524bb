/*
 * ring_window.c - give back ring pages behind the cursor, keep whole-folio
 * faults from mapping far ahead of it (rules in ring_window.h).
 */
#include "read/ring_window.h"

#include <sys/mman.h>
#include <unistd.h>

/* Which pages of a range: every page it touches (OUTWARD), or those up to
 * the page holding its end (BEHIND: the pages of slots already read, the
 * page of the first one too, so that no page is left behind between two
 * moves; it may hold older records, or at the start of a wrapped ring the
 * newest, which a later read simply maps again). */
enum shape { BEHIND, OUTWARD };

static uintptr_t page_size(void)
{
    static uintptr_t size;
    if (!size) {
        const long s = sysconf(_SC_PAGESIZE);
        size = s > 0 ? (uintptr_t)s : 4096;
    }
    return size;
}

/* advice over slots [s0, s1) of r (no wrap), within the mapping. */
static void advise_slots(const latrec_ring *r, uint64_t s0, uint64_t s1, int advice, enum shape shape)
{
    const uintptr_t page = page_size();
    const uintptr_t lo = (uintptr_t)r->map, hi = lo + r->map_len;
    uintptr_t a = (uintptr_t)(r->recs + s0), b = (uintptr_t)(r->recs + s1);
    if (shape == BEHIND) {
        a &= ~(page - 1);
        b &= ~(page - 1);
    } else {
        a &= ~(page - 1);
        b = (b + page - 1) & ~(page - 1);
    }
    if (a < lo) a = lo;
    if (b > hi) b = hi & ~(page - 1);
    if (b > a) madvise((void *)a, b - a, advice);
}

/* advice over write-order positions [from, to) of r: one or two slot runs
 * (the positions go round the end of the ring). */
static void advise(const latrec_ring *r, uint64_t from, uint64_t to, int advice, enum shape shape)
{
    if (to > r->iter_len) to = r->iter_len;
    if (from >= to) return;
    const uint64_t slot = (r->start_slot + from) & r->mask;
    const uint64_t run = r->entries - slot < to - from ? r->entries - slot : to - from;
    advise_slots(r, slot, slot + run, advice, shape);
    if (run < to - from) advise_slots(r, 0, to - from - run, advice, shape);
}

void latrec_ring_window_start(const latrec_ring *r, latrec_ring_window *w)
{
    w->done = w->from = w->to = w->next = 0;
    if (r->status != LATREC_RING_OK || !r->recs) {
        w->next = UINT64_MAX;
        return;
    }
    latrec_ring_window_move(r, w, 0);
}

void latrec_ring_window_move(const latrec_ring *r, latrec_ring_window *w, uint64_t pos)
{
    if (r->status != LATREC_RING_OK || !r->recs) {
        w->next = UINT64_MAX;
        return;
    }
    if (pos > w->done) {
        advise(r, w->done, pos, MADV_DONTNEED, BEHIND);
        w->done = pos;
    }
    if (w->to > w->from) advise(r, w->from, w->to, MADV_NORMAL, OUTWARD);
    w->from = pos;
    w->to = pos + LATREC_RING_WINDOW_RECS;
    advise(r, w->from, w->to, MADV_SEQUENTIAL, OUTWARD);
    w->next = pos + LATREC_RING_WINDOW_STEP;
}

void latrec_ring_window_end(const latrec_ring *r, latrec_ring_window *w)
{
    if (r->status == LATREC_RING_OK && r->recs) {
        if (w->to > w->from) advise(r, w->from, w->to, MADV_NORMAL, OUTWARD);
        advise(r, 0, r->iter_len, MADV_DONTNEED, OUTWARD);
    }
    w->done = w->from = w->to = 0;
    w->next = UINT64_MAX;
}
