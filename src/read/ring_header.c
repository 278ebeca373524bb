/*
 * ring_header.c - a ring file's header: read from the file, validated and
 * copied into the ring's fields (rules in ring.h, layout in
 * latrec-format(5)); the rejection and warning lines every part of the
 * reader gives.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "read/ring_impl.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Header byte offsets, from the contract (format.h documents the same). */
#define OFF_MAGIC      0
#define OFF_VERSION    4
#define OFF_ENTRIES    8
#define OFF_REC_COUNT  16
#define OFF_T0_MONO    24
#define OFF_T0_REAL    32
#define OFF_NAME       40
#define OFF_REC_SIZE   104
#define OFF_CLOCK_COST 108
#define OFF_T1_MONO    112
#define OFF_T1_REAL    120
#define OFF_PID        128
#define OFF_TID        132
#define OFF_FLAGS      136
#define OFF_CLOCK_ID   140
#define OFF_BOOT_ID    144
#define OFF_HOST       160
#define OFF_CATALOG    224
#define OFF_TIMEBASE   256
#define OFF_CAL_SLOTS  260
#define OFF_CAL_TAKEN  264
#define OFF_CAL        512

static uint32_t get_u32(const unsigned char *b, size_t off)
{
    uint32_t v;
    memcpy(&v, b + off, sizeof v);
    return v;
}

static uint64_t get_u64(const unsigned char *b, size_t off)
{
    uint64_t v;
    memcpy(&v, b + off, sizeof v);
    return v;
}

int latrec_ring_reject(latrec_ring *r, const char *fmt, ...)
                       {
                       va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->error, sizeof r->error, fmt, ap);
    va_end(ap);
    r->status = LATREC_RING_REJECTED;
    return -1;
}

void latrec_ring_warn(latrec_ring *r, const char *fmt, ...)
                      {
                      if (r->warning[0])
                      return; /* keep the first remark */
                      va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->warning, sizeof r->warning, fmt, ap);
    va_end(ap);
}


/* Copy a fixed-width NUL-padded field, always terminating dst (dst has
 * room for len + 1 bytes). */
static void copy_str(char *dst, const unsigned char *src, size_t len)
{
    size_t n = strnlen((const char *)src, len);
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static int read_full(int fd, unsigned char *buf, size_t len)
{
    size_t got = 0;
    while (got < len) {
        ssize_t n = pread(fd, buf + got, len - got, (off_t)got);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (n == 0) {
            errno = EIO;
            return -1;
        }
        got += (size_t)n;
    }
    return 0;
}

/* The timebase block: a TSC ring ("ALRT", version 3, timebase 1) gets its
 * conversion map; any other combination is not a ring this reader can
 * time. 0 or -1 (rejected). */
static int parse_timebase(latrec_ring *r, const unsigned char *h)
{
    const int tsc_magic = r->magic == LATREC_MAGIC_TSC;
    if (!tsc_magic) {
        if (r->timebase != LATREC_TIMEBASE_MONO)
            return latrec_ring_reject(r, "timebase %u under the ALR1 magic (a TSC ring says ALRT)",
                                      (unsigned)r->timebase);
        return 0;
    }
    if (r->version < 3)
        return latrec_ring_reject(r, "TSC ring (ALRT) of version %u (3 needed)", (unsigned)r->version);
    if (r->timebase != LATREC_TIMEBASE_TSC)
        return latrec_ring_reject(r, "unknown timebase %u", (unsigned)r->timebase);
    r->cal_taken = get_u64(h, OFF_CAL_TAKEN);
    latrec_cal raw[LATREC_CAL_SLOTS];
    memcpy(raw, h + OFF_CAL, sizeof raw);
    r->tsc = malloc(sizeof *r->tsc);
    if (!r->tsc)
        return latrec_ring_reject(r, "out of memory");
    if (latrec_tsc_map_build(r->tsc, raw, get_u32(h, OFF_CAL_SLOTS)) != 0)
        return latrec_ring_reject(r, "TSC ring with %u usable calibration pairs (2 needed)",
                                  (unsigned)r->tsc->n);
    if (r->tsc->dropped)
        latrec_ring_warn(r, "%u TSC calibration pairs out of order, ignored", (unsigned)r->tsc->dropped);
    return 0;
}

/* Validate the header copy `h` of a file of `size` bytes and fill the
 * header fields of r. 0 when it describes a ring, -1 (rejected) otherwise. */
static int parse_header(latrec_ring *r, const unsigned char *h, uint64_t size)
{
    r->magic = get_u32(h, OFF_MAGIC);
    if (r->magic == LATREC_MAGIC_SWAPPED || r->magic == LATREC_MAGIC_TSC_SWAPPED)
        return latrec_ring_reject(r, "byte-swapped ring (written on an opposite-endian host)");
    if (r->magic != LATREC_MAGIC && r->magic != LATREC_MAGIC_TSC)
        return latrec_ring_reject(r, "bad magic 0x%08X (not a latrec ring)", (unsigned)r->magic);

    r->version = get_u32(h, OFF_VERSION);
    if (r->version < 1 || r->version > 3)
        return latrec_ring_reject(r, "unsupported version %u", (unsigned)r->version);

    r->entries = get_u64(h, OFF_ENTRIES);
    if (r->entries == 0)
        return latrec_ring_reject(r, "entries is zero");
    if (r->entries & (r->entries - 1))
        return latrec_ring_reject(r, "entries %llu is not a power of two",
                                  (unsigned long long)r->entries);
    if (r->entries > LATREC_MAX_ENTRIES)
        return latrec_ring_reject(r, "absurd entries %llu (more than 2^32)",
                                  (unsigned long long)r->entries);

    r->rec_size = get_u32(h, OFF_REC_SIZE);
    if (r->version == 1) {
        if (r->rec_size == 0)
            r->rec_size = LATREC_REC_SIZE;
    }
    if (r->rec_size != LATREC_REC_SIZE)
        return latrec_ring_reject(r, "rec_size %u, expected %u", (unsigned)r->rec_size,
                                  (unsigned)LATREC_REC_SIZE);

    if (memchr(h + OFF_NAME, '\0', LATREC_NAME_LEN) == NULL)
        return latrec_ring_reject(r, "name is not NUL-terminated (%d bytes)", LATREC_NAME_LEN);
    copy_str(r->name, h + OFF_NAME, LATREC_NAME_LEN);

    uint64_t need = (uint64_t)LATREC_HDR_LEN + r->entries * LATREC_REC_SIZE;
    if (size < need)
        return latrec_ring_reject(r, "truncated: header says %llu entries (%llu bytes) but "
                                  "the file has %llu bytes",
                                  (unsigned long long)r->entries, (unsigned long long)need,
                                  (unsigned long long)size);

    r->rec_count = get_u64(h, OFF_REC_COUNT);
    r->t0_mono_ns = get_u64(h, OFF_T0_MONO);
    r->t0_real_ns = get_u64(h, OFF_T0_REAL);
    if (r->version >= 2) {
        r->clock_ns_per_call = get_u32(h, OFF_CLOCK_COST);
        r->t1_mono_ns = get_u64(h, OFF_T1_MONO);
        r->t1_real_ns = get_u64(h, OFF_T1_REAL);
    }
    if (r->version >= 3) {
        r->pid = get_u32(h, OFF_PID);
        r->tid = get_u32(h, OFF_TID);
        r->flags = get_u32(h, OFF_FLAGS);
        r->clock_id = get_u32(h, OFF_CLOCK_ID);
        memcpy(r->boot_id, h + OFF_BOOT_ID, sizeof r->boot_id);
        copy_str(r->host, h + OFF_HOST, LATREC_HOST_LEN);
        copy_str(r->catalog, h + OFF_CATALOG, LATREC_CATALOG_LEN);
        r->timebase = get_u32(h, OFF_TIMEBASE);
    }
    if (parse_timebase(r, h) != 0)
        return -1;
    /* The clock the stamps are on once read (a TSC ring's converts through
     * its pairs to clock_id): anything but CLOCK_MONOTONIC cannot be merged
     * with the other rings or compared with the start stamp. 0 is a writer
     * that did not say (versions 1 and 2 have no field): monotonic. */
    if (r->clock_id != 0 && r->clock_id != LATREC_CLOCK_ID_MONOTONIC)
        return latrec_ring_reject(r, "clock_id %u: stamps not on CLOCK_MONOTONIC (%u), not comparable with the "
                                  "other rings",
                                  (unsigned)r->clock_id, (unsigned)LATREC_CLOCK_ID_MONOTONIC);
    return 0;
}

int latrec_ring_read_header(latrec_ring *r, int fd)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return latrec_ring_reject(r, "%s", strerror(errno));
    if (!S_ISREG(st.st_mode))
        return latrec_ring_reject(r, "not a regular file");
    r->file_size = (uint64_t)st.st_size;
    if (r->file_size < LATREC_HDR_LEN)
        return latrec_ring_reject(r, "shorter than a header: %llu bytes",
                                  (unsigned long long)r->file_size);

    unsigned char h[LATREC_HDR_LEN];
    if (read_full(fd, h, sizeof h) != 0)
        return latrec_ring_reject(r, "read: %s", strerror(errno));
    return parse_header(r, h, r->file_size);
}
