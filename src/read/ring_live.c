/*
 * ring_live.c - follow a ring its writer is still stamping (read/ring.h:
 * latrec_ring_poll).
 */
#include "read/ring.h"

#define OFF_REC_COUNT 16
#define OFF_FLAGS     136

/* A slot's stamp as CLOCK_MONOTONIC ns (0: empty or being written). */
static inline uint64_t slot_t(const latrec_ring *r, uint64_t index)
{
    uint64_t t = __atomic_load_n(&r->recs[index & r->mask].t_ns, __ATOMIC_ACQUIRE);
    return t && r->tsc ? latrec_tsc_to_mono(r->tsc, t) : t;
}

/* The header's rec_count now, without what it said at open beyond the
 * records there (rc_excess: a count no writer stored; its slots empty,
 * looked at one by one they were the whole ring's). */
static uint64_t rc_load(const latrec_ring *r, const uint64_t *rcp)
{
    const uint64_t rc = __atomic_load_n(rcp, __ATOMIC_ACQUIRE);
    return rc > r->rc_excess ? rc - r->rc_excess : 0;
}

/* The write index of cursor position 0, from what the open derived: the
 * newest record is at index written - 1, slot newest_slot. */
static uint64_t base_index(const latrec_ring *r)
{
    if (!r->valid) return 0; /* nothing written: position p is index p, slot p */
    return r->written - ((r->newest_slot - r->start_slot) & r->mask) - 1;
}

/* The ring's figures once w records are known written. lost and valid
 * stay as at open: what was overwritten later is the cursor's lapped. */
static void follow(latrec_ring *r, uint64_t w, uint64_t rec_count, uint64_t first, uint64_t newest, uint64_t max_t)
{
    if (w > r->written) r->written = w;
    r->wrapped |= r->written > r->entries;
    if (rec_count > r->rec_count) r->rec_count = rec_count;
    if (max_t > r->max_t_ns) r->max_t_ns = max_t;
    if (!r->min_t_ns) r->min_t_ns = first;
    r->last_t_ns = newest;
}

/* What one look at the slots found: the write index w, the newest stamp,
 * the largest, the first new one; `busy`: slot w is being written; `full`:
 * the look stopped at its limit, not at the writer. */
struct look {
    uint64_t w, newest, max_t, first;
    int busy, full;
};

/* Look from `end` (what was seen so far) for the writer, rec_count rc
 * read just before, at most `span` slots past max(end, rc). */
static struct look look_at(const latrec_ring *r, uint64_t rc, uint64_t end, uint64_t span)
{
    struct look l = { 0, 0, r->max_t_ns, 0, 0, 0 };
    /* Below rec_count every record is written: only their largest stamp
     * is wanted (the bound latrec_ring_next checks). The oldest still there
     * is a ring behind rec_count. */
    uint64_t k = rc > end + r->entries ? rc - r->entries : end;
    uint64_t prev = k == end && end > r->live_base ? r->last_t_ns : 0;
    for (; k < rc; k++) {
        const uint64_t t = slot_t(r, k);
        if (!t) continue;
        if (!l.first) l.first = t;
        prev = t;
        if (t > l.max_t) l.max_t = t;
    }
    /* Above it, a slot is the next record while its stamp does not go back. */
    const uint64_t limit = k + span;
    for (; k < limit; k++) {
        const uint64_t t = slot_t(r, k);
        if (!t || t < prev) {
            l.busy = t == 0;
            break;
        }
        if (!l.first) l.first = t;
        prev = t;
        if (t > l.max_t) l.max_t = t;
    }
    l.full = k == limit;
    l.w = k;
    l.newest = prev;
    return l;
}

/* A writer faster than the look: take rec_count itself as the write index
 * (the record before it is still there while rec_count has not moved).
 * 0 when even that raced. */
static int quick_look(const latrec_ring *r, const uint64_t *rcp, struct look *l, uint64_t *rc)
{
    for (int tries = 0; tries < 8; tries++) {
        const uint64_t a = rc_load(r, rcp);
        const uint64_t t = a ? slot_t(r, a - 1) : 0;
        if (rc_load(r, rcp) != a || !t) continue;
        *l = (struct look){ a, t, t > r->max_t_ns ? t : r->max_t_ns, t, 0, 0 };
        *rc = a;
        return 1;
    }
    return 0;
}

uint64_t latrec_ring_poll(latrec_ring *r, latrec_cursor *c)
{
    if (r->status != LATREC_RING_OK || r->multi_writer || !r->recs || c->pos < r->iter_len) return 0;
    if (!r->live_init) {
        r->live_base = base_index(r);
        r->live_init = 1;
    }
    const unsigned char *h = r->map;
    const uint64_t *rcp = (const uint64_t *)(const void *)(h + OFF_REC_COUNT);
    const int v3 = r->version >= 3;
    if (v3)
        r->live_closed = (__atomic_load_n((const uint32_t *)(const void *)(h + OFF_FLAGS), __ATOMIC_ACQUIRE) &
                          LATREC_F_CLEAN_CLOSE) != 0;
    const uint64_t base = r->live_base, end = base + r->iter_len;
    /* A v3 writer is at most half a ring past rec_count (a stamp at a
     * multiple of half a ring stores its index, the records before it,
     * then writes: latrec-format(5)). A look is sound
     * when it found the writer within that and rec_count did not move
     * while it ran (the writer moved less than half a ring): the writer was
     * then never a ring ahead of a slot looked at, so no slot was taken for
     * the record a ring before it. Else look again; a writer faster than
     * every look is taken at rec_count. Older writers do not refresh
     * rec_count: their stamps alone say where they are. */
    const uint64_t half = r->entries / 2 ? r->entries / 2 : 1;
    uint64_t rc = rc_load(r, rcp);
    struct look l;
    int sound = 0;
    for (int tries = 0; tries < 4 && !sound; tries++) {
        l = look_at(r, v3 ? rc : 0, end, v3 ? half + 1 : r->entries);
        const uint64_t again = v3 ? rc_load(r, rcp) : 0;
        sound = !v3 || (again == rc && !l.full);
        rc = again;
    }
    if (!sound && !quick_look(r, rcp, &l, &rc)) return 0;
    if (l.w <= end) return 0;
    r->iter_len = l.w - base;
    follow(r, l.w, rc, l.first, l.newest, l.max_t);
    /* Overwritten before read: from the cursor to the oldest record still
     * there (the one after it when its slot is being rewritten now); a
     * slot of that range rewritten since holds a stamp above max_t_ns and
     * is counted lapped when visited. */
    const uint64_t oldest = l.w >= r->entries ? l.w - r->entries + (uint64_t)l.busy : 0;
    if (oldest > end) {
        c->lapped += oldest - end;
        c->pos = oldest - base;
    }
    return l.w - end;
}
