/*
 * fuzz_ring.c - libFuzzer target for the ring reader.
 *
 * Each input is written to a memfd and opened as a ring file: header
 * validation, derivation (wrap, loss), a full write-order pass, the wall
 * clock map and a one-ring merge. Invariants the reader promises are
 * checked; a violation aborts, so the fuzzer reports it. The same file
 * opened by the guess (read/ring.h) and read as a pass reads it (the
 * guess checked, the ring scanned when it does not hold) must give the
 * scan's fields and records.
 *
 * An input of at least 4096 bytes is the ring file itself. A shorter one
 * (from 100 bytes) is compact, so mutations land on bytes that matter: its
 * first 640 bytes are the header's first 640 (base fields, timebase block,
 * 8 calibration pairs), zero filled to 4096, and the rest follows as the
 * records (corpus/compact_* are such seeds).
 *
 *   fuzz_ring -max_total_time=60 tests/fuzz/corpus
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "read/merge.h"
#include "read/ring.h"
#include "read/wallclock.h"

#include "fuzz_check.h"

static int memfd = -1;

static void check_ring(const latrec_ring *r)
{
    CHECK(r->status == LATREC_RING_OK);
    CHECK(r->error[0] == '\0');
    CHECK(r->entries > 0 && (r->entries & (r->entries - 1)) == 0);
    CHECK(r->valid <= r->entries);
    CHECK(r->start_slot < r->entries && r->newest_slot < r->entries);
    CHECK(r->iter_len <= r->entries);
    CHECK(r->significant_descents <= r->descents + 1);
    /* A wrapped ring is full, or full but for the slot being written. */
    CHECK(!(r->wrapped && r->valid + 1 < r->entries));
    CHECK(!(r->wrapped && r->multi_writer));
    /* counts saturate at LATREC_COUNT_MAX, as a lower bound */
    CHECK(r->written <= LATREC_COUNT_MAX && r->lost <= LATREC_COUNT_MAX);
    CHECK(r->lost <= r->written);
    if (r->written == LATREC_COUNT_MAX || r->lost == LATREC_COUNT_MAX)
        CHECK(r->lost_lower_bound); /* saturated: no exact relation left */
    else if (r->valid + 1 == r->entries && r->wrapped)
        CHECK(r->lost == r->written - r->valid);
    else
        CHECK(r->lost == (r->written > r->entries ? r->written - r->entries : 0) ||
              r->multi_writer);
    CHECK(r->written >= r->valid);
    CHECK(r->valid + r->torn <= r->entries);

    latrec_cursor c;
    latrec_rec rec;
    uint64_t n = 0, stages[256] = {0};
    latrec_ring_cursor_init(&c);
    while (latrec_ring_next(r, &c, &rec)) {
        CHECK(rec.t_ns != 0);
        CHECK(rec.t_ns >= r->min_t_ns && rec.t_ns <= r->max_t_ns);
        CHECK(latrec_rec_seq(rec.sc) >= r->min_seq &&
              latrec_rec_seq(rec.sc) <= r->max_seq);
        if (n == 0)
            CHECK(memcmp(&rec, &r->first_rec, sizeof rec) == 0);
        stages[latrec_rec_stage(rec.sc)]++;
        n++;
    }
    CHECK(n == r->valid);
    if (n)
        CHECK(memcmp(&rec, &r->last_rec, sizeof rec) == 0);
    CHECK(memcmp(stages, r->stage_counts, sizeof stages) == 0);
    CHECK(latrec_ring_next(r, &c, &rec) == 0);

    latrec_wallmap wm;
    if (latrec_wallmap_init(&wm, r, NULL, 0) == 0) {
        uint64_t a = latrec_wallmap_apply(&wm, r->min_t_ns);
        uint64_t b = latrec_wallmap_apply(&wm, r->max_t_ns);
        CHECK(a <= b); /* the map never decreases */
        (void)latrec_wallmap_apply(&wm, 0);
        (void)latrec_wallmap_apply(&wm, UINT64_MAX);
    }

    for (unsigned flags = 0; flags <= LATREC_MERGE_WALL; flags++) {
        latrec_merge m;
        latrec_merged out;
        if (latrec_merge_init(&m, r, 1, flags, NULL, 0) == 0) {
            uint64_t k = 0;
            while (latrec_merge_next(&m, &out)) {
                CHECK(out.ring == 0 && out.pos < r->iter_len);
                k++;
            }
            CHECK(k == r->valid);
        }
        latrec_merge_free(&m);
    }
}

/* g (opened by the guess) read as a pass reads it against s (scanned):
 * the guess checked, and scanned when it does not hold; then every field
 * the scan derives and every record the same. */
static void check_guess(latrec_ring *g, const latrec_ring *s)
{
    latrec_cursor c;
    latrec_rec rec;
    uint64_t n = 0, prev = 0;
    int in_order = 1;
    latrec_ring_cursor_init(&c);
    while (latrec_ring_next(g, &c, &rec)) {
        in_order &= rec.t_ns >= prev;
        prev = rec.t_ns;
        n++;
    }
    if (g->derived == LATREC_RING_GUESSED && !(in_order && latrec_ring_guess_holds(g, n, c.lapped)))
        latrec_ring_rescan(g);
    CHECK(g->derived != LATREC_RING_GUESSED);
    CHECK(g->valid == s->valid && g->torn == s->torn && g->wrapped == s->wrapped);
    CHECK(g->descents == s->descents && g->significant_descents == s->significant_descents);
    CHECK(g->multi_writer == s->multi_writer && g->start_slot == s->start_slot);
    CHECK(g->newest_slot == s->newest_slot && g->iter_len == s->iter_len);
    CHECK(g->written == s->written && g->lost == s->lost && g->lost_lower_bound == s->lost_lower_bound);
    CHECK(memcmp(&g->first_rec, &s->first_rec, sizeof s->first_rec) == 0);
    CHECK(memcmp(&g->last_rec, &s->last_rec, sizeof s->last_rec) == 0);
    CHECK(g->min_t_ns == s->min_t_ns && g->max_t_ns == s->max_t_ns);
    CHECK(strcmp(g->warning, s->warning) == 0);
    latrec_cursor a, b;
    latrec_rec x, y;
    latrec_ring_cursor_init(&a);
    latrec_ring_cursor_init(&b);
    for (;;) {
        const int got = latrec_ring_next(g, &a, &x);
        CHECK(got == latrec_ring_next(s, &b, &y));
        if (!got) break;
        CHECK(memcmp(&x, &y, sizeof x) == 0 && a.pos == b.pos);
    }
}

static void put_at(const uint8_t *p, size_t n, size_t off)
{
    size_t done = 0;
    while (done < n) {
        ssize_t w = pwrite(memfd, p + done, n - done, (off_t)(off + done));
        CHECK(w > 0);
        done += (size_t)w;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (memfd < 0) {
        memfd = memfd_create("fuzz_ring", MFD_CLOEXEC);
        CHECK(memfd >= 0);
    }
    CHECK(ftruncate(memfd, 0) == 0);
    if (size >= 100 && size < 4096 && size > 640) {
        put_at(data, 640, 0);
        put_at(data + 640, size - 640, 4096);
    } else if (size >= 100 && size < 4096) {
        put_at(data, size, 0);
        CHECK(ftruncate(memfd, 4096) == 0);
    } else {
        put_at(data, size, 0);
    }

    latrec_ring r, g;
    if (latrec_ring_open_fd(&r, memfd, "fuzz.latrec") == 0) {
        check_ring(&r);
        CHECK(latrec_ring_open_fd_guess(&g, memfd, "fuzz.latrec") == 0);
        check_guess(&g, &r);
        latrec_ring_close(&g);
    } else {
        CHECK(r.status == LATREC_RING_REJECTED);
        CHECK(r.error[0] != '\0');
        CHECK(r.recs == NULL && r.map == NULL);
    }
    latrec_ring_close(&r);
    return 0;
}
