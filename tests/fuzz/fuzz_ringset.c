/*
 * fuzz_ringset.c - libFuzzer target for the directory reader: several
 * rings and run.json in one run directory, read as report, hist and
 * convert read it (engine/input.c over read/ringset.c): open, a full pass
 * in time order with the start-stamp filter, the totals.
 *
 * An input is up to five pieces separated by the 8 bytes "#LATREC#":
 *   piece 0      DIR/run.json (absent when the piece is empty)
 *   pieces 1..3  DIR/rings/r1.latrec .. r3.latrec
 *   piece 4      DIR/sched.latrec
 * A ring piece is compact: its first 640 bytes are the header's first 640
 * (the base fields, the timebase block and 8 calibration pairs), zero
 * filled to 4096, and the rest of the piece follows as the records. The
 * seeds (corpus_ringset/) are made by make_seeds.py.
 *
 *   fuzz_ringset -close_fd_mask=2 -max_total_time=20 corpus_ringset
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/input.h"

#include "fuzz_tmpdir.h"

#include "fuzz_check.h"
#define SEP "#LATREC#"
#define SEP_LEN 8
#define HDR_PIECE 640
#define HDR_LEN 4096

static const char *dir;
static char rings[96];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    dir = fuzz_tmpdir();
    snprintf(rings, sizeof rings, "%s/rings", dir);
    CHECK(mkdir(rings, 0755) == 0);
    return 0;
}

static void put(const char *path, const uint8_t *a, size_t n, const uint8_t *b, size_t m, size_t gap_to)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    CHECK(fd >= 0);
    CHECK(n == 0 || write(fd, a, n) == (ssize_t)n);
    if (gap_to > n) CHECK(ftruncate(fd, (off_t)gap_to) == 0 && lseek(fd, (off_t)gap_to, SEEK_SET) == (off_t)gap_to);
    CHECK(m == 0 || write(fd, b, m) == (ssize_t)m);
    close(fd);
}

static void put_ring(const char *path, const uint8_t *p, size_t n)
{
    if (n <= HDR_PIECE) put(path, p, n, NULL, 0, n < 100 ? n : HDR_LEN); /* a tiny piece stays short */
    else put(path, p, HDR_PIECE, p + HDR_PIECE, n - HDR_PIECE, HDR_LEN);
}

static void check_pass(latrec_input *in)
{
    latrec_merge m;
    latrec_merged x;
    if (latrec_input_rewind(in, &m) != 0) return;
    /* The merge keeps each ring's write order (a stamp_at inversion stays
     * where it is), so the output is in time order when no ring descends. */
    uint64_t n = 0, prev = 0, descents = 0;
    uint64_t *next_pos = calloc(in->set.n + 1, sizeof *next_pos);
    CHECK(next_pos);
    for (size_t i = 0; i < in->set.n; i++) descents += in->set.rings[i].descents;
    while (latrec_input_next(in, &m, &x)) {
        CHECK(x.ring < in->set.n && in->set.rings[x.ring].status == LATREC_RING_OK);
        CHECK(x.rec.t_ns != 0);
        CHECK(x.pos >= next_pos[x.ring]); /* each ring in its write order */
        next_pos[x.ring] = x.pos + 1;
        if (!in->opts.wall && descents == 0) CHECK(x.t_ns >= prev);
        prev = x.t_ns;
        n++;
    }
    free(next_pos);
    latrec_merge_free(&m);
    latrec_input_totals t;
    latrec_input_totals_get(in, &t);
    /* A ring whose header names the scheduler's catalog is the run's
     * scheduler data, wherever it lies: counted under t.sched, not t.rings. */
    const size_t sched = t.sched.present ? 1 : 0;
    CHECK(t.rings + sched == in->set.n_ok && t.rings + sched + t.rejected == in->set.n);
    CHECK(t.lost <= LATREC_COUNT_MAX && t.valid <= LATREC_COUNT_MAX);
    CHECK(n == in->records + in->sched_records);
    /* every valid record is delivered or dropped before its start stamp */
    CHECK(t.valid == LATREC_COUNT_MAX || t.sched.valid == LATREC_COUNT_MAX ||
          n + t.dropped + t.sched.dropped == t.valid + t.sched.valid);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *piece[5] = { 0 };
    size_t len[5] = { 0 };
    size_t k = 0, start = 0;
    for (size_t i = 0; k < 5; i++) {
        int end = i + SEP_LEN > size;
        if (end || memcmp(data + i, SEP, SEP_LEN) == 0) {
            piece[k] = data + start;
            len[k++] = (end ? size : i) - start;
            if (end) break;
            start = i + SEP_LEN;
            i = start - 1;
        }
    }
    char path[160];
    snprintf(path, sizeof path, "%s/run.json", dir);
    if (len[0]) put(path, piece[0], len[0], NULL, 0, 0);
    else unlink(path);
    for (int r = 1; r <= 3; r++) {
        snprintf(path, sizeof path, "%s/r%d.latrec", rings, r);
        if (r < (int)k) put_ring(path, piece[r], len[r]);
        else unlink(path);
    }
    snprintf(path, sizeof path, "%s/sched.latrec", dir);
    if (k == 5) put_ring(path, piece[4], len[4]);
    else unlink(path);

    for (int wall = 0; wall <= 1; wall++) {
        latrec_input_opts o;
        memset(&o, 0, sizeof o);
        latrec_input_add_dir(&o, dir);
        o.quiet = 1;
        o.wall = wall;
        latrec_input in;
        if (latrec_input_open(&in, &o, "fuzz") == 0) check_pass(&in);
        latrec_input_close(&in);
    }
    return 0;
}
