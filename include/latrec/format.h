/*
 * latrec/format.h - the ALR1 ring file, as laid out on disk.
 *
 * A ring file is a 4096-byte header followed by `entries` records of 32 bytes
 * (`entries` a power of two). Everything is little-endian; 64-bit hosts only.
 * Record i lives in slot i & (entries - 1). The full contract, with the
 * reading rules, is latrec-format(5).
 *
 * Header offsets (bytes). v1 and v2 offsets are frozen; v3 adds fields inside
 * the pad and a v1/v2 reader parses a v3 file unchanged.
 *
 *   off  size type      field              meaning
 *     0     4 u32       magic              0x31524C41, "ALR1" as bytes
 *     4     4 u32       version            1, 2 (older writers); 3 (this one)
 *     8     8 u64       entries            capacity in records, power of two
 *    16     8 u64       rec_count          records ever written (see below)
 *    24     8 u64       t0_mono_ns         CLOCK_MONOTONIC at open
 *    32     8 u64       t0_real_ns         CLOCK_REALTIME at open, paired
 *    40    64 char[64]  name               "<role>.<tid>", NUL-padded
 *   --- v1 ends at 104 ---
 *   104     4 u32       rec_size           32 (0 in v1: treat as 32)
 *   108     4 u32       clock_ns_per_call  mean cost of one CLOCK_MONOTONIC
 *                                          read, ns: mean of 1000 reads at
 *                                          open (0 = not measured); a mean
 *                                          over 100 ns is re-measured, up to
 *                                          5 tries, and the lowest kept
 *   112     8 u64       t1_mono_ns         CLOCK_MONOTONIC at last heartbeat/close
 *   120     8 u64       t1_real_ns         CLOCK_REALTIME paired with t1_mono_ns
 *   --- v2 ends at 128 ---
 *   128     4 u32       pid                writer's process id (tgid)
 *   132     4 u32       tid                writer's thread id (0: explicit
 *                                          ring, not tied to one thread)
 *   136     4 u32       flags              LATREC_F_* below
 *   140     4 u32       clock_id           clock of t_ns: 1 = CLOCK_MONOTONIC
 *   144    16 u8[16]    boot_id            /proc/sys/kernel/random/boot_id as
 *                                          16 raw bytes (all zero: unknown);
 *                                          monotonic stamps of two boots
 *                                          never merge without wall mapping
 *   160    64 char[64]  host               host name at open, NUL-padded
 *   224    32 char[32]  catalog            stage catalog the ids refer to
 *                                          ("e3" by default), NUL-padded
 *   --- v3 base ends at 256; the timebase block follows (zero in a clock ring) ---
 *   256     4 u32       timebase           0 = clock: t_ns are ns of clock_id;
 *                                          1 = TSC: t_ns are TSC counts, read
 *                                          as clock_id ns through cal[]
 *   260     4 u32       cal_slots          slots of cal[] in use (0 in a clock
 *                                          ring; LATREC_CAL_SLOTS in a TSC one)
 *   264     8 u64       cal_taken          calibration pairs taken so far
 *   272   240 u8[240]   (zero)             reserved
 *   512  2048 cal[128]  {u64 tsc, u64 mono_ns} calibration pairs: the TSC and
 *                                          CLOCK_MONOTONIC read together (the
 *                                          clock between two TSC reads, tsc
 *                                          their midpoint). Pair k sits in slot
 *                                          k for k < 2 (two at open, >= 2 ms
 *                                          apart) and in slot 2 + (k - 2) mod
 *                                          (cal_slots - 2) after (heartbeat,
 *                                          close, exit flush): the open pairs
 *                                          and the newest ones stay. A slot
 *                                          with mono_ns 0 is empty (mono_ns is
 *                                          cleared first and stored last)
 *   --- the rest of the 4096 bytes is zero ---
 *
 * A TSC ring carries the magic "ALRT" (LATREC_MAGIC_TSC) instead of "ALR1",
 * so a reader that does not know the timebase rejects it (bad magic) rather
 * than reading cycles as nanoseconds: libE3's reader checks the magic and
 * rec_size but not the version, and latrec's readers before the timebase
 * block check the magic too. A clock ring is unchanged ("ALR1", timebase 0).
 * Conversion (latrec-format(5)): pairs sorted by tsc, each later pair
 * strictly later in both; between two pairs mono = m_a + floor((tsc - t_a) *
 * (m_b - m_a) / (t_b - t_a)) in exact 128-bit integer arithmetic; before the
 * first and after the last pair the same with the first-to-last rate.
 *
 * rec_count and loss. The writer stores rec_count exactly at heartbeat,
 * close and process exit, and also on the stamp path: a stamp whose write
 * index is a multiple of half the capacity, entries / 2 (every stamp when
 * entries is 2; no syscall, no lock), first stores that index, the records
 * written before it. So between flushes the header is at most entries / 2
 * behind the truth and never ahead of it, always less than one capacity,
 * and for a writer killed at any moment - even in the middle of a stamp -
 * the exact number written is
 *
 *   N = the smallest n >= rec_count with (n - 1) mod entries == newest slot
 *
 * where "newest slot" is the slot of the newest valid record (taking the
 * valid records in slot order: the one before the wrap point, or the last
 * valid one of an unwrapped ring). A refresh only at multiples of entries
 * would not do: killed in that window, the header would read one capacity
 * behind, and N and N - entries would look alike. Lost records
 * are max(0, N - entries).
 *
 * Record (32 bytes):
 *     0  u64  sc    seq (bits 0-47) | cpu (bits 48-55) | stage (bits 56-63)
 *     8  u64  t_ns  CLOCK_MONOTONIC ns (TSC counts in a TSC ring); stored last with release ordering;
 *                   nonzero <=> the record is valid. The writer zeroes a
 *                   slot's t_ns before overwriting its payload, so a slot
 *                   caught mid-write (writer killed, or a live reader) reads
 *                   as invalid, never as a mix of two records
 *    16  u64  aux   stage payload
 *    24  u64  aux2  stage payload
 */
#ifndef LATREC_FORMAT_H
#define LATREC_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LATREC_MAGIC         0x31524C41u /* "ALR1" read little-endian */
#define LATREC_MAGIC_SWAPPED 0x414C5231u /* the same bytes from a big-endian host */
#define LATREC_MAGIC_TSC     0x54524C41u /* "ALRT": a TSC ring (timebase 1) */
#define LATREC_MAGIC_TSC_SWAPPED 0x414C5254u
#define LATREC_VERSION       3u          /* version this project writes */
#define LATREC_HDR_LEN       4096
#define LATREC_REC_SIZE      32
#define LATREC_NAME_LEN      64
#define LATREC_HOST_LEN      64
#define LATREC_CATALOG_LEN   32
#define LATREC_SEQ_MASK      0x0000FFFFFFFFFFFFull

/* v3 header flags */
#define LATREC_F_CLEAN_CLOSE 0x1u /* closed by latrec_close or the exit flush */
#define LATREC_F_RSEQ_CPU    0x2u /* cpu ids read from the thread's rseq area */
#define LATREC_F_CACHED_CPU  0x4u /* cpu ids are the id cached at open */

#define LATREC_CLOCK_ID_MONOTONIC 1u

/* v3 timebase block */
#define LATREC_TIMEBASE_MONO 0u   /* t_ns are CLOCK_MONOTONIC ns */
#define LATREC_TIMEBASE_TSC  1u   /* t_ns are TSC counts (magic "ALRT") */
#define LATREC_CAL_SLOTS     128u /* calibration pair slots in the header */
#define LATREC_CAL_OPEN      2u   /* pairs taken at open (kept for good) */

typedef struct {
    uint64_t sc;   /* seq:48 (low) | cpu:8 | stage:8 (high byte) */
    uint64_t t_ns; /* CLOCK_MONOTONIC; released last: nonzero == valid */
    uint64_t aux;
    uint64_t aux2;
} latrec_rec;

/* One calibration pair of a TSC ring: the TSC and CLOCK_MONOTONIC at one
 * instant. mono_ns 0: empty slot. */
typedef struct {
    uint64_t tsc;
    uint64_t mono_ns;
} latrec_cal;

typedef struct {
    uint32_t magic, version;
    uint64_t entries;
    uint64_t rec_count;
    uint64_t t0_mono_ns;
    uint64_t t0_real_ns;
    char     name[LATREC_NAME_LEN];
    /* --- v2 --- */
    uint32_t rec_size;
    uint32_t clock_ns_per_call;
    uint64_t t1_mono_ns;
    uint64_t t1_real_ns;
    /* --- v3 --- */
    uint32_t pid;
    uint32_t tid;
    uint32_t flags;
    uint32_t clock_id;
    uint8_t  boot_id[16];
    char     host[LATREC_HOST_LEN];
    char     catalog[LATREC_CATALOG_LEN];
    /* --- v3 timebase block (offset 256) --- */
    uint32_t timebase;  /* LATREC_TIMEBASE_* */
    uint32_t cal_slots; /* slots of cal[] in use */
    uint64_t cal_taken; /* pairs taken so far */
    uint8_t  reserved[512 - 272];
    latrec_cal cal[LATREC_CAL_SLOTS]; /* offset 512 */
    uint8_t  pad[LATREC_HDR_LEN - 512 - LATREC_CAL_SLOTS * 16];
} latrec_hdr;

/* Field accessors for the record word. */
static inline uint64_t latrec_rec_seq(uint64_t sc)  { return sc & LATREC_SEQ_MASK; }
static inline unsigned latrec_rec_cpu(uint64_t sc)  { return (unsigned)((sc >> 48) & 0xFF); }
static inline unsigned latrec_rec_stage(uint64_t sc) { return (unsigned)(sc >> 56); }

#if defined(__cplusplus)
static_assert(sizeof(latrec_rec) == 32, "latrec_rec must stay 32 bytes");
static_assert(sizeof(latrec_hdr) == LATREC_HDR_LEN, "latrec_hdr must be 4 KiB");
#else
_Static_assert(sizeof(latrec_rec) == 32, "latrec_rec must stay 32 bytes");
_Static_assert(sizeof(latrec_hdr) == LATREC_HDR_LEN, "latrec_hdr must be 4 KiB");
_Static_assert(offsetof(latrec_hdr, timebase) == 256, "timebase block at 256");
_Static_assert(offsetof(latrec_hdr, cal) == 512, "calibration pairs at 512");
#endif

#ifdef __cplusplus
}
#endif
#endif /* LATREC_FORMAT_H */
