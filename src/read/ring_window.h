/*
 * read/ring_window.h - a pass's resident ring pages, bounded per ring.
 *
 * A ring is read through one shared mapping of the whole file, and every
 * mapped page counts in the reader's resident memory (RSS). A pass reads
 * each ring front to back once, so the pages behind its cursor are done
 * with, and the pages far ahead of it are not needed yet. Two things keep
 * a ring's mapped pages near its cursor:
 *
 *  - behind: every LATREC_RING_WINDOW_STEP records the pages before the
 *    cursor are dropped from the mapping (MADV_DONTNEED: the file and the
 *    page cache keep them; a page touched again is simply mapped again);
 *  - ahead: a fault maps a whole large page-cache folio (up to 2 MiB) when
 *    the folio lies inside the faulting mapping (Linux >= 6.18 fault-around
 *    does), which would keep up to 2 MiB per ring mapped ahead of the
 *    cursor whatever is dropped behind it. The LATREC_RING_WINDOW_RECS
 *    records from the cursor on are therefore marked sequential
 *    (MADV_SEQUENTIAL: readahead as for a sequential reader), which makes
 *    them a mapping of their own: no folio reaching past it is mapped
 *    whole, and a fault maps at most the kernel's fault-around (64 KiB)
 *    within it. The window moves with the cursor; the part it leaves goes
 *    back to normal.
 *
 * A ring then holds at most about LATREC_RING_WINDOW_STEP records behind
 * its cursor plus one fault-around ahead of it: about 0.3 MiB, whatever the
 * ring's size (every page behind is given back, also the one a move's
 * position falls in, so nothing piles up between moves). The advice is only advice: a failed madvise() changes no
 * record that is read, and any slot may still be read anywhere.
 * Positions are write-order positions (read/ring.h: latrec_cursor.pos).
 */
#ifndef LATREC_READ_RING_WINDOW_H
#define LATREC_READ_RING_WINDOW_H

#include <stdint.h>

#include "read/ring.h"

#define LATREC_RING_WINDOW_RECS (1u << 14) /* 512 KiB of records marked sequential */
#define LATREC_RING_WINDOW_STEP (1u << 13) /* records between two moves (256 KiB) */

typedef struct latrec_ring_window {
    uint64_t done;     /* positions before this one were given back */
    uint64_t from, to; /* the positions marked sequential (from == to: none) */
    uint64_t next;     /* the position at which the window moves again */
} latrec_ring_window;

/* Start: nothing given back, the window at position 0 (before the pass
 * reads the ring's first record, so no fault maps a whole folio there). */
void latrec_ring_window_start(const latrec_ring *r, latrec_ring_window *w);

/* Give back the pages behind position pos and move the window to pos. */
void latrec_ring_window_move(const latrec_ring *r, latrec_ring_window *w, uint64_t pos);

/* The pass is at position pos of r: moves the window when due (one
 * comparison otherwise; call it for every record). */
static inline void latrec_ring_window_at(const latrec_ring *r, latrec_ring_window *w, uint64_t pos)
{
    if (__builtin_expect(pos >= w->next, 0)) latrec_ring_window_move(r, w, pos);
}

/* End of a pass: the window back to normal and every page given back;
 * *w is left as latrec_ring_window_start would not leave it (none marked). */
void latrec_ring_window_end(const latrec_ring *r, latrec_ring_window *w);

#endif
