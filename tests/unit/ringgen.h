/*
 * ringgen.h - write synthetic ALR1 ring files byte by byte, for tests.
 *
 * Header-only and independent of both the writer library and
 * include/latrec/format.h: every offset below is typed in from the contract
 * (ring-format.md), and every integer is stored little-endian one byte at a
 * time, so a test built on it also checks the structs in format.h.
 *
 * Typical use:
 *
 *     ringgen g;
 *     ringgen_init(&g, 2, 16, "oai.42");          // v2, 16 entries, name
 *     for (int i = 0; i < 20; i++)                // 20 stamps: wraps once
 *         ringgen_stamp(&g, i + 1, 0, 0x21, 1000 + i, 0, 0);
 *     ringgen_set_u64(&g, RINGGEN_OFF_REC_COUNT, 20);
 *     ringgen_write(&g, path);                    // header + 16 records
 *     ringgen_free(&g);
 *
 * ringgen_init() fills: magic, version, entries, rec_count 0, t0 pair
 * (RINGGEN_T0_MONO / RINGGEN_T0_REAL), name; for v2+ rec_size 32 and
 * clock_ns_per_call 20; for v3 pid 1000, tid 1001, clock_id 1, catalog
 * "e3". Anything else is set with ringgen_set_u32/u64/bytes at the
 * RINGGEN_OFF_* offsets. All functions return 0 on success, -1 on failure
 * (allocation, I/O: errno set).
 */
#ifndef LATREC_TESTS_RINGGEN_H
#define LATREC_TESTS_RINGGEN_H

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Header offsets (bytes), per ring-format.md. */
#define RINGGEN_HDR_LEN          4096
#define RINGGEN_REC_LEN          32
#define RINGGEN_OFF_MAGIC        0
#define RINGGEN_OFF_VERSION      4
#define RINGGEN_OFF_ENTRIES      8
#define RINGGEN_OFF_REC_COUNT    16
#define RINGGEN_OFF_T0_MONO      24
#define RINGGEN_OFF_T0_REAL      32
#define RINGGEN_OFF_NAME         40  /* char[64] */
#define RINGGEN_OFF_REC_SIZE     104
#define RINGGEN_OFF_CLOCK_COST   108
#define RINGGEN_OFF_T1_MONO      112
#define RINGGEN_OFF_T1_REAL      120
#define RINGGEN_OFF_PID          128
#define RINGGEN_OFF_TID          132
#define RINGGEN_OFF_FLAGS        136
#define RINGGEN_OFF_CLOCK_ID     140
#define RINGGEN_OFF_BOOT_ID      144 /* u8[16] */
#define RINGGEN_OFF_HOST         160 /* char[64] */
#define RINGGEN_OFF_CATALOG      224 /* char[32] */
#define RINGGEN_OFF_TIMEBASE     256 /* u32: 0 clock, 1 TSC */
#define RINGGEN_OFF_CAL_SLOTS    260
#define RINGGEN_OFF_CAL_TAKEN    264
#define RINGGEN_OFF_CAL          512 /* {u64 tsc, u64 mono_ns}[128] */

#define RINGGEN_MAGIC            0x31524C41u
#define RINGGEN_MAGIC_TSC        0x54524C41u /* "ALRT" */
#define RINGGEN_T0_MONO          1000000000ull           /* 1 s after boot */
#define RINGGEN_T0_REAL          1795950000000000000ull  /* late 2026 */

typedef struct ringgen {
    uint8_t *buf;     /* header + entries records, zero-filled at init */
    size_t   len;     /* bytes in buf */
    uint64_t entries; /* capacity */
    uint64_t next;    /* write index for ringgen_stamp() */
} ringgen;

/* Store v at byte offset off, little-endian, byte by byte. */
static inline void ringgen_put_le(uint8_t *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline void ringgen_set_u32(ringgen *g, size_t off, uint32_t v)
{
    ringgen_put_le(g->buf + off, v, 4);
}

static inline void ringgen_set_u64(ringgen *g, size_t off, uint64_t v)
{
    ringgen_put_le(g->buf + off, v, 8);
}

/* Copy n raw bytes to offset off (names, boot id). */
static inline void ringgen_set_bytes(ringgen *g, size_t off, const void *p, size_t n)
{
    memcpy(g->buf + off, p, n);
}

/* Allocate a zeroed ring of `entries` records (header + entries * 32
 * bytes, so keep it small; for a bad entries value, init with a small one
 * and overwrite RINGGEN_OFF_ENTRIES) and fill the standard header fields. */
static inline int ringgen_init(ringgen *g, uint32_t version, uint64_t entries,
                               const char *name)
{
    memset(g, 0, sizeof *g);
    g->entries = entries;
    g->len = RINGGEN_HDR_LEN + (size_t)entries * RINGGEN_REC_LEN;
    g->buf = calloc(1, g->len);
    if (!g->buf)
        return -1;
    ringgen_set_u32(g, RINGGEN_OFF_MAGIC, RINGGEN_MAGIC);
    ringgen_set_u32(g, RINGGEN_OFF_VERSION, version);
    ringgen_set_u64(g, RINGGEN_OFF_ENTRIES, entries);
    ringgen_set_u64(g, RINGGEN_OFF_T0_MONO, RINGGEN_T0_MONO);
    ringgen_set_u64(g, RINGGEN_OFF_T0_REAL, RINGGEN_T0_REAL);
    size_t n = strlen(name);
    ringgen_set_bytes(g, RINGGEN_OFF_NAME, name, n < 63 ? n : 63);
    if (version >= 2) {
        ringgen_set_u32(g, RINGGEN_OFF_REC_SIZE, RINGGEN_REC_LEN);
        ringgen_set_u32(g, RINGGEN_OFF_CLOCK_COST, 20);
    }
    if (version >= 3) {
        ringgen_set_u32(g, RINGGEN_OFF_PID, 1000);
        ringgen_set_u32(g, RINGGEN_OFF_TID, 1001);
        ringgen_set_u32(g, RINGGEN_OFF_CLOCK_ID, 1);
        ringgen_set_bytes(g, RINGGEN_OFF_CATALOG, "e3", 2);
    }
    return 0;
}

/* Make g a TSC ring ("ALRT", timebase 1, 128 pair slots) holding the n
 * calibration pairs tsc[i] <-> mono[i] in slots 0..n-1. Record times are
 * then TSC counts. */
static inline void ringgen_make_tsc(ringgen *g, const uint64_t *tsc, const uint64_t *mono,
                                    unsigned n)
{
    ringgen_set_u32(g, RINGGEN_OFF_MAGIC, RINGGEN_MAGIC_TSC);
    ringgen_set_u32(g, RINGGEN_OFF_TIMEBASE, 1);
    ringgen_set_u32(g, RINGGEN_OFF_CAL_SLOTS, 128);
    ringgen_set_u64(g, RINGGEN_OFF_CAL_TAKEN, n);
    for (unsigned i = 0; i < n && i < 128; i++) {
        ringgen_set_u64(g, RINGGEN_OFF_CAL + 16 * i, tsc[i]);
        ringgen_set_u64(g, RINGGEN_OFF_CAL + 16 * i + 8, mono[i]);
    }
}

/* Write one record into `slot` (taken modulo entries when entries is a
 * power of two): sc = seq (low 48 bits) | cpu << 48 | stage << 56. */
static inline void ringgen_set_rec(ringgen *g, uint64_t slot, uint64_t seq,
                                   unsigned cpu, unsigned stage, uint64_t t_ns,
                                   uint64_t aux, uint64_t aux2)
{
    uint8_t *p = g->buf + RINGGEN_HDR_LEN + (size_t)slot * RINGGEN_REC_LEN;
    uint64_t sc = (seq & 0x0000FFFFFFFFFFFFull) | ((uint64_t)(cpu & 0xFF) << 48) |
                  ((uint64_t)(stage & 0xFF) << 56);
    ringgen_put_le(p, sc, 8);
    ringgen_put_le(p + 8, t_ns, 8);
    ringgen_put_le(p + 16, aux, 8);
    ringgen_put_le(p + 24, aux2, 8);
}

/* Append one record like a writer: record g->next goes to slot
 * next & (entries - 1), then next++. rec_count is not touched. */
static inline void ringgen_stamp(ringgen *g, uint64_t seq, unsigned cpu,
                                 unsigned stage, uint64_t t_ns, uint64_t aux,
                                 uint64_t aux2)
{
    ringgen_set_rec(g, g->next & (g->entries - 1), seq, cpu, stage, t_ns, aux, aux2);
    g->next++;
}

/* Write the first `len` bytes of the ring to `path` (created or truncated,
 * mode 0644). len may be below or above g->len (zero bytes pad beyond). */
static inline int ringgen_write_len(const ringgen *g, const char *path, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    size_t n = len < g->len ? len : g->len, done = 0;
    while (done < n) {
        ssize_t w = write(fd, g->buf + done, n - done);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            close(fd);
            return -1;
        }
        done += (size_t)w;
    }
    if (len > g->len && ftruncate(fd, (off_t)len) != 0) {
        close(fd);
        return -1;
    }
    return close(fd);
}

/* Write the whole ring (header + entries records) to `path`. */
static inline int ringgen_write(const ringgen *g, const char *path)
{
    return ringgen_write_len(g, path, g->len);
}

static inline void ringgen_free(ringgen *g)
{
    free(g->buf);
    memset(g, 0, sizeof *g);
}

#endif /* LATREC_TESTS_RINGGEN_H */
