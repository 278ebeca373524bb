/*
 * latrec/latrec.h - the latrec writer: per-thread, lock-free, mmap-backed
 * stage-stamp rings.
 *
 * A stamp is one CLOCK_MONOTONIC read (or one rdtsc in a TSC ring, see
 * latrec_set_timebase()), the cpu id, and the record's four
 * stores into a pre-faulted shared mapping (the slot invalidated and its
 * payload stored before the clock read, the time after it, all in one cache
 * line): no syscall, no allocation, no lock, no formatting. Records are 32
 * bytes (seq:48 | cpu:8 | stage:8, t_ns, aux, aux2); a ring file is a 4 KiB
 * header and `entries` records. The on-disk layout, every header offset and
 * the loss rule are in <latrec/format.h> and latrec-format(5); stage ids of
 * the built-in E3 catalog in <latrec/stages.h>.
 *
 * Source-compatible with libE3's latrec.h: the same types (latrec_t,
 * latrec_rec, latrec_hdr), functions, parameters and LATREC_<STAGE>,
 * LATREC_DROP_*, LATREC_SKIP_*, LATREC_OUT_* constants.
 *
 * Build-time gate. With LATREC_ENABLE defined (the library's CMake target
 * exports it as a PUBLIC compile definition, and latrec.pc's Cflags carry it)
 * every function below is real. Without it, every one is an inline no-op
 * with no link dependency on liblatrec. There is no runtime on/off switch.
 *
 * Where rings go: latrec_open_in's `dir`; else latrec_set_output_dir(); else
 * the environment variable LATREC_OUTPUT_DIR; else the compiled-in
 * LATREC_DEFAULT_DIR. The directory is created if missing.
 *
 * Ring size of the per-thread layer: LATREC_ENTRIES_LOG2_<ROLE> (role upper-
 * cased, every non-alphanumeric as '_'), else LATREC_ENTRIES_LOG2, else 18
 * (256 Ki records, 8 MiB). Valid values 12..28; an unparsable or out-of-range
 * value is reported once on stderr and the next source is used.
 *
 * Timebase: CLOCK_MONOTONIC, or the TSC for a role chosen by
 * latrec_set_timebase(), LATREC_CLOCK_<ROLE> or LATREC_CLOCK (invariant TSC
 * only; readers convert its stamps to CLOCK_MONOTONIC ns).
 *
 * Shared library: only the LATREC_API declarations below are exported
 * (version LATREC_0), including out-of-line stamp calls for FFI callers.
 *
 * Safety: a ring is built as <name>.latrec.part (O_EXCL, never through a
 * symlink), its header written, its blocks allocated and its pages faulted,
 * then renamed into place without replacing anything: when <name>.latrec
 * already exists (same role and tid, e.g. tid reuse across runs) the new ring
 * becomes <name>-1.latrec, -2, ... A ring that cannot be opened leaves its
 * writer stamping into nothing and says why once on stderr; latrec never
 * stops the host program.
 *
 * 64-bit hosts only (a 32-bit host could tear the t_ns store).
 */
#ifndef LATREC_LATREC_H
#define LATREC_LATREC_H

#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE) && \
    !defined(_DEFAULT_SOURCE) && !defined(_XOPEN_SOURCE)
#define _GNU_SOURCE 1
#endif

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "latrec/format.h"
#include "latrec/stages.h"

#if !defined(CLOCK_MONOTONIC)
#error "latrec.h: CLOCK_MONOTONIC undeclared - build with -std=gnu11 or define _POSIX_C_SOURCE >= 199309L before any system header"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- portability --------------------------------------------------------- */

#define LATREC_STORE_RELEASE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define LATREC_STORE_RELAXED(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define LATREC_LOAD_ACQUIRE(p)     __atomic_load_n((p), __ATOMIC_ACQUIRE)
/* prefetchw where the compiler targets it (-mprfchw, -march= of a core that
 * has it), else prefetcht0: both leave the line in this core's cache. */
#define LATREC_PREFETCH_W(p)       __builtin_prefetch((p), 1, 3)
#define LATREC_LIKELY(x)           __builtin_expect(!!(x), 1)
#define LATREC_UNLIKELY(x)         __builtin_expect(!!(x), 0)

/* What liblatrec exports. The library is built with hidden visibility and a
 * symbol version script (LATREC_0), so its dynamic symbol table holds the
 * functions and the one variable declared LATREC_API in this header and
 * nothing else; the list is in latrec(3), EXPORTED SYMBOLS. */
#if defined(__GNUC__)
#define LATREC_API __attribute__((visibility("default")))
#else
#define LATREC_API
#endif

/* The cpu id of a stamp. Where glibc registers rseq (2.35 and later) the
 * kernel keeps the current cpu in the thread's rseq area, one load away from
 * the thread pointer: that is what the stamp reads. Where rseq is not
 * registered (the area says so with a negative id) the stamp falls back to
 * sched_getcpu(). Without <sys/rseq.h> it uses the id cached at open
 * (latrec_refresh_cpu() renews it). The ring header's flags say which. */
#if defined(__linux__) && defined(__has_include)
#if __has_include(<sys/rseq.h>) && (defined(__x86_64__) || defined(__aarch64__))
#include <sys/rseq.h>
#if defined(RSEQ_SIG)
#define LATREC_HAVE_RSEQ_CPU 1
#endif
#endif
#endif
#ifndef LATREC_HAVE_RSEQ_CPU
#define LATREC_HAVE_RSEQ_CPU 0
#endif

#if defined(__linux__)
#if defined(__cplusplus)
extern int sched_getcpu(void) noexcept;
#else
extern int sched_getcpu(void);
#endif
#endif

/* Measured clock cost above which opening a ring warns (a vDSO read is tens
 * of ns; a syscall fallback several hundred). */
#define LATREC_CLOCK_SLOW_NS 100u

/* Default per-thread ring size, and the bounds of the sizing variables. */
#define LATREC_ENTRIES_LOG2_DEFAULT 18u
#define LATREC_ENTRIES_LOG2_MIN     12u
#define LATREC_ENTRIES_LOG2_MAX     28u

/* One ring, written by one thread at a time. 64 bytes, aligned to a cache
 * line: two rings stamped by two threads never share a line (a latrec_t on
 * the heap wants aligned_alloc(64, ...) or latrec_alloc()). */
typedef struct __attribute__((aligned(64))) {
    latrec_rec *recs;     /* the record slots, after the header            */
    uint64_t    idx;      /* records written so far (next write index)      */
    uint64_t    mask;     /* entries - 1                                    */
    void       *map;      /* the whole mapping; the header is at its start  */
    size_t      map_len;  /* bytes mapped: 4096 + entries * 32              */
    int         enabled;  /* 1 while open                                   */
    uint32_t    cpu;      /* cpu id cached at open (fallback for stamps)    */
    uint64_t    ctx_seq;  /* see latrec_ctx_set()                           */
    uint32_t    timebase; /* LATREC_TIMEBASE_MONO, or _TSC: what t_ns counts */
    uint32_t    reserved_;
} latrec_t;

/* CLOCK_MONOTONIC now, ns. */
static inline uint64_t latrec_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* CLOCK_REALTIME now, ns. */
static inline uint64_t latrec_real_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* CLOCK_MONOTONIC and CLOCK_REALTIME as one pair, ns, as a ring header's
 * (t0_mono_ns, t0_real_ns) and (t1_mono_ns, t1_real_ns) want them: the
 * realtime read between two monotonic reads, the tightest of 7 tries,
 * *mono_ns at its midpoint (error under half that window, ~20 ns). Two
 * plain reads are off by however long the thread was interrupted between
 * them (tens of microseconds now and then on a virtual machine), and that
 * error moves every stamp the ring maps to the wall clock. */
static inline void latrec_clock_pair(uint64_t *mono_ns, uint64_t *real_ns)
{
    uint64_t a = latrec_now_ns();
    *real_ns = latrec_real_ns();
    uint64_t best = latrec_now_ns() - a;
    *mono_ns = a + best / 2;
    for (int k = 1; k < 7; k++) {
        a = latrec_now_ns();
        const uint64_t r = latrec_real_ns();
        const uint64_t b = latrec_now_ns();
        if (b - a >= best) continue;
        best = b - a;
        *mono_ns = a + best / 2;
        *real_ns = r;
    }
}

/* The time-stamp counter (x86-64: rdtsc; elsewhere there is no TSC ring and
 * this reads CLOCK_MONOTONIC). Only a TSC ring's stamps are in these units. */
static inline uint64_t latrec_rdtsc(void)
{
#if defined(__x86_64__)
    return __builtin_ia32_rdtsc();
#else
    return latrec_now_ns();
#endif
}

/* Now in the timebase of ring r: TSC counts for a TSC ring, else
 * CLOCK_MONOTONIC ns. This is the time latrec_stamp_at(r, ...) expects. */
static inline uint64_t latrec_ring_now(const latrec_t *r)
{
#if defined(__x86_64__)
    if (r->timebase == LATREC_TIMEBASE_TSC) return __builtin_ia32_rdtsc();
#else
    (void)r;
#endif
    return latrec_now_ns();
}

/* Re-read the cpu id cached in the ring (used by stamps only where neither
 * rseq nor a cheap sched_getcpu is available). Off the hot path. */
static inline void latrec_refresh_cpu(latrec_t *r)
{
#if defined(__linux__)
    const int cpu = sched_getcpu();
    if (cpu >= 0) r->cpu = (uint32_t)cpu;
#else
    (void)r;
#endif
}

/* Where a stamp reads the cpu id: on x86-64 with rseq, the offset of the
 * rseq area's cpu_id from the thread pointer (the fs base), taken into a
 * register once (a loop hoists it) so that the stamp's cpu read is one
 * %fs-relative load, not two dependent ones (the clock read's ordered
 * counter read waits for the stamp's loads before it: a chain of two costs
 * every stamp of a tight loop ~1.5 ns). Elsewhere 0, unused. */
static inline ptrdiff_t latrec_cpu_loc_(void)
{
#if LATREC_HAVE_RSEQ_CPU && defined(__x86_64__)
    ptrdiff_t off = __rseq_offset + (ptrdiff_t)offsetof(struct rseq, cpu_id);
    __asm__("" : "+r"(off)); /* materialised here, not after the clock read */
    return off;
#else
    return 0;
#endif
}

/* The low 8 bits of the cpu the calling thread runs on (what a record
 * keeps), for a stamp into r (loc from latrec_cpu_loc_()). The id is read
 * unsigned and cut to 8 bits with no sign extension (one instruction fewer,
 * and it measured one cycle less on a stamp: see latrec_fill_()). */
static inline uint64_t latrec_cpu_at_(const latrec_t *r, ptrdiff_t loc)
{
#if LATREC_HAVE_RSEQ_CPU && defined(__x86_64__)
    uint32_t cpu;
    __asm__ __volatile__("movl %%fs:(%1), %0" : "=r"(cpu) : "r"(loc));
    if (LATREC_LIKELY((int32_t)cpu >= 0)) return (uint8_t)cpu;
    (void)r;
    return (uint8_t)sched_getcpu();
#elif LATREC_HAVE_RSEQ_CPU
    (void)loc;
    const volatile struct rseq *rs = (const volatile struct rseq *)
        ((const char *)__builtin_thread_pointer() + __rseq_offset);
    const uint32_t cpu = rs->cpu_id;
    if (LATREC_LIKELY((int32_t)cpu >= 0)) return (uint8_t)cpu;
    (void)r;
    return (uint8_t)sched_getcpu();
#else
    (void)loc;
    return (uint8_t)r->cpu;
#endif
}

/* The low 8 bits of the cpu the calling thread runs on, for a stamp into r. */
static inline uint64_t latrec_cpu_(const latrec_t *r)
{
    return latrec_cpu_at_(r, latrec_cpu_loc_());
}

/* How far ahead of the slot being written a stamp prefetches for writing,
 * in records: 64 (2 KiB, 32 lines), far enough for the line to be owned
 * by the time the stamps reach it. A stamp into a ring larger than the
 * caches otherwise waits on that line's read-for-ownership every other
 * stamp; the next slot is too near (it is nearly always in the line being
 * written: prefetching it measured slower). bench_stamp, 2^22-record ring:
 * 1.11-1.12x a clock read with no distance, 1.07x at 32, 64 or 128; a ring
 * that stays in cache pays one prefetch that hits. */
#ifndef LATREC_PREFETCH_AHEAD
#define LATREC_PREFETCH_AHEAD 64u
#endif

/* A stamp in two halves around its clock read, so that after the read only
 * the time's own store remains (the clock's ordered counter read waits for
 * every instruction before it; what is left after it is the stamp's cost).
 *
 * latrec_fill_(): slot i & mask of ring r gets the record's payload (seq,
 * cpu, stage, aux, aux2); its old t_ns is zeroed first. latrec_publish_():
 * the new t_ns (nonzero) is stored last with release ordering, then the
 * write index. A writer killed between the two leaves that slot invalid
 * (never the new payload under the old timestamp), and a live reader that
 * loads t_ns, the payload, then t_ns again (acquire fence between) and sees
 * the same nonzero value read one whole record.
 *
 * The header's rec_count is refreshed in latrec_fill_() too, when the
 * stamp's index i is a multiple of half the capacity: it is then set to i,
 * the records written before this one (see the loss rule in
 * <latrec/format.h>). Done here, with the mask already loaded, nothing
 * after the clock read loads a field of r: bench_stamp measured 1.082x ->
 * 1.066x a clock read on a 2^22-record ring (gcc; clang 1.072x -> 1.056x),
 * with the unsigned cpu id above. */
static inline latrec_rec *latrec_fill_(latrec_t *r, uint64_t i, uint64_t seq, uint8_t stage,
                                       uint64_t aux, uint64_t aux2, ptrdiff_t cpu_loc)
{
    const uint64_t mask = r->mask;
    latrec_rec    *rec  = &r->recs[i & mask];
    /* past the ring's end near a wrap: a prefetch never faults */
    LATREC_PREFETCH_W((const void *)((uintptr_t)rec + LATREC_PREFETCH_AHEAD * sizeof(latrec_rec)));
    /* every entries/2 records: keeps the header's count at most entries/2
     * behind, even for a writer killed at any point of a stamp */
    if (LATREC_UNLIKELY((i & (mask >> 1)) == 0))
        LATREC_STORE_RELEASE(&((latrec_hdr *)r->map)->rec_count, i);
    const uint64_t sc = (seq & LATREC_SEQ_MASK) | (latrec_cpu_at_(r, cpu_loc) << 48) | ((uint64_t)stage << 56);
    LATREC_STORE_RELAXED(&rec->t_ns, 0);     /* invalidate the slot ...       */
    __atomic_thread_fence(__ATOMIC_RELEASE); /* ... before its payload changes */
    rec->sc   = sc;
    rec->aux  = aux;
    rec->aux2 = aux2;
    return rec;
}

static inline void latrec_publish_(latrec_t *r, latrec_rec *rec, uint64_t i, uint64_t t_ns)
{
    LATREC_STORE_RELEASE(&rec->t_ns, t_ns);
    LATREC_STORE_RELAXED(&r->idx, i + 1);
}

/* Store one record with a timestamp taken earlier (t_ns from
 * latrec_ring_now(r), or latrec_tnow() for the thread's ring; 0 means "now";
 * a clock ring also takes latrec_now_ns(), a TSC ring only TSC counts). Use
 * it when the instant that matters was read before a handoff: stamping
 * afterwards could order the producer's record after the consumer's. seq
 * keeps its low 48 bits, the cpu id its low 8. The stores are those of
 * latrec_fill_() and latrec_publish_() above. No-op on a closed ring. */
static inline void latrec_stamp_at(latrec_t *r, uint64_t seq, uint8_t stage,
                                   uint64_t aux, uint64_t aux2, uint64_t t_ns)
{
    if (LATREC_UNLIKELY(!r->enabled)) return;
    const uint64_t i   = r->idx;
    latrec_rec    *rec = latrec_fill_(r, i, seq, stage, aux, aux2, latrec_cpu_loc_());
    latrec_publish_(r, rec, i, t_ns ? t_ns : latrec_ring_now(r));
}

/* Store one record stamped now: CLOCK_MONOTONIC, or the TSC in a TSC ring.
 * Same rules as latrec_stamp_at(); the clock is read only when the ring is
 * open. */
static inline void latrec_stamp(latrec_t *r, uint64_t seq, uint8_t stage,
                                uint64_t aux, uint64_t aux2)
{
    if (LATREC_UNLIKELY(!r->enabled)) return;
    const uint64_t i   = r->idx;
    latrec_rec    *rec = latrec_fill_(r, i, seq, stage, aux, aux2, latrec_cpu_loc_());
    latrec_publish_(r, rec, i, latrec_ring_now(r));
}

#ifdef LATREC_ENABLE

/* Open a ring as <dir>/<name>.latrec with 2^entries_log2 records (1..30).
 * Its timebase is the one chosen for its role (the name without a trailing
 * ".<digits>"; see latrec_set_timebase()).
 * dir NULL or empty: the output directory order above. name is "<role>.<tid>"
 * by convention; at most 63 bytes, no '/'. The header's v3 fields are filled
 * (pid, tid of the caller, host, boot id, catalog from
 * latrec_set_catalog()); clock_ns_per_call is the mean of 1000 clock reads at
 * open. The whole mapping is faulted in before this returns (tens of ms for
 * large rings). Returns 1 on success; -1 on error, with one line on stderr
 * naming the file and the reason, and r left closed (stamps do nothing). */
LATREC_API int latrec_open_in(latrec_t *r, const char *dir, const char *name, unsigned entries_log2);

/* latrec_open_in(r, NULL, name, entries_log2). */
LATREC_API int latrec_open(latrec_t *r, const char *name, unsigned entries_log2);

/* Refresh rec_count (exact) and the t1 clock pair in the header. */
LATREC_API void latrec_heartbeat(latrec_t *r);

/* Heartbeat, mark the ring cleanly closed, unmap. The file stays. */
LATREC_API void latrec_close(latrec_t *r);

/* Stage catalog name written into rings opened from now on (v3 header field,
 * at most 31 bytes). NULL or empty restores "e3". */
LATREC_API void latrec_set_catalog(const char *name);

/* Timebase of the rings opened from now on (both layers): for `role` (NULL
 * or empty: every role without a choice of its own), LATREC_TIMEBASE_MONO or
 * LATREC_TIMEBASE_TSC; -1 drops the choice. Without one the environment
 * decides: LATREC_CLOCK_<ROLE> (role upper-cased, every non-alphanumeric as
 * '_'), else LATREC_CLOCK, each "tsc" or "mono" (an unknown value is said
 * once on stderr and the next source used); else CLOCK_MONOTONIC.
 * A TSC ring stamps a bare rdtsc and the reader converts it to
 * CLOCK_MONOTONIC ns through (TSC, monotonic) pairs the header carries (two
 * at open, one at each heartbeat and at close). TSC rings need an invariant
 * TSC (constant_tsc and nonstop_tsc in /proc/cpuinfo, else CPUID's invariant
 * TSC bit); elsewhere the ring stamps CLOCK_MONOTONIC and one stderr line
 * says so. Opening a TSC ring takes >= 2 ms more (its two open pairs). At
 * most 16 role choices are kept; more are refused with a stderr line. */
LATREC_API void latrec_set_timebase(const char *role, int timebase);

/* ---- per-thread rings ---------------------------------------------------- */

/* Ring of the calling thread. Never NULL: a closed ring until the thread
 * calls latrec_tls_open*(), so a stamp before that costs one predictable
 * branch and stores nothing. */
LATREC_API extern __thread latrec_t *latrec_tls __attribute__((tls_model("initial-exec")));

/* Directory the per-thread rings are written to, for the whole process. Call
 * before the first latrec_tls_open*(); rings already open are unaffected.
 * NULL or empty returns to LATREC_OUTPUT_DIR / LATREC_DEFAULT_DIR. This
 * chooses where, never whether. */
LATREC_API void latrec_set_output_dir(const char *dir);

/* Open the calling thread's ring as <role>.<tid> (role NULL or empty: the
 * program name), sized by the LATREC_ENTRIES_LOG2* variables. Idempotent: a
 * thread that already has a ring gets it back. Returns the ring, or NULL when
 * it could not be opened (said once on stderr; the thread then stamps into
 * nothing and later calls do not retry). The ring is flushed (rec_count, t1
 * pair, clean-close flag) when the thread exits and at process exit, for
 * every thread, with no cap on their number. A forked child starts with no
 * ring on its thread and opens its own. */
LATREC_API latrec_t *latrec_tls_open_as(const char *role);
LATREC_API latrec_t *latrec_tls_open(void);

/* Next value of the process-wide sequence counter: 1, 2, 3, ... */
LATREC_API uint64_t latrec_seq_next(void);

/* Stamp into the calling thread's ring. */
static inline void latrec_tstamp(uint64_t seq, uint8_t stage, uint64_t aux, uint64_t aux2)
{
    latrec_stamp(latrec_tls, seq, stage, aux, aux2);
}

/* Stamp into the calling thread's ring with a timestamp taken earlier by
 * latrec_tnow() (0 means now). */
static inline void latrec_tstamp_at(uint64_t seq, uint8_t stage, uint64_t aux,
                                    uint64_t aux2, uint64_t t_ns)
{
    latrec_stamp_at(latrec_tls, seq, stage, aux, aux2, t_ns);
}

/* A timestamp for a later latrec_tstamp_at() on this thread, in its ring's
 * timebase (CLOCK_MONOTONIC ns; TSC counts when the ring is a TSC ring).
 * Compiled out (returns 0, reads no clock) without LATREC_ENABLE. */
static inline uint64_t latrec_tnow(void) { return latrec_ring_now(latrec_tls); }

/* Publish the seq of the message this thread is carrying, for code whose
 * signature cannot receive it (a producer before an emit whose EMIT_ENTER.aux
 * joins its leg to the outbound leg; a handler called synchronously). Sticky
 * until overwritten; a thread with no ring keeps nothing and latrec_ctx()
 * reads 0 there. */
static inline void latrec_ctx_set(uint64_t seq)
{
    latrec_t *r = latrec_tls;
    if (r->enabled) r->ctx_seq = seq;
}
static inline uint64_t latrec_ctx(void) { return latrec_tls->ctx_seq; }

/* ---- out-of-line calls, for FFI callers ----------------------------------
 * The inline calls above as exported functions, for callers that cannot use
 * this header's inline code (Python ctypes, Rust, Go): same arguments, same
 * rules, plus a function call. A C program keeps the inline calls (faster).
 * latrec_alloc() gives a zeroed, closed latrec_t with the type's alignment
 * (NULL when out of memory), for callers that cannot size or align one
 * themselves; latrec_free() closes it if open and frees it. */
LATREC_API latrec_t *latrec_alloc(void);
LATREC_API void latrec_free(latrec_t *r);
LATREC_API void latrec_stamp_fn(latrec_t *r, uint64_t seq, uint8_t stage, uint64_t aux,
                                uint64_t aux2);
LATREC_API void latrec_stamp_at_fn(latrec_t *r, uint64_t seq, uint8_t stage, uint64_t aux,
                                   uint64_t aux2, uint64_t t_ns);
LATREC_API void latrec_tstamp_fn(uint64_t seq, uint8_t stage, uint64_t aux, uint64_t aux2);
LATREC_API void latrec_tstamp_at_fn(uint64_t seq, uint8_t stage, uint64_t aux, uint64_t aux2,
                                    uint64_t t_ns);
LATREC_API uint64_t latrec_tnow_fn(void);
LATREC_API uint64_t latrec_ring_now_fn(const latrec_t *r);
LATREC_API void latrec_ctx_set_fn(uint64_t seq);
LATREC_API uint64_t latrec_ctx_fn(void);

#else /* !LATREC_ENABLE: true no-op stubs, no link dependency */

static inline int latrec_open_in(latrec_t *r, const char *dir, const char *name, unsigned l)
{
    (void)dir; (void)name; (void)l;
    r->enabled = 0;
    return 0;
}
static inline int latrec_open(latrec_t *r, const char *name, unsigned l)
{
    (void)name; (void)l;
    r->enabled = 0;
    return 0;
}
static inline void latrec_heartbeat(latrec_t *r) { (void)r; }
static inline void latrec_close(latrec_t *r) { (void)r; }
static inline void latrec_set_catalog(const char *name) { (void)name; }
static inline void latrec_set_output_dir(const char *dir) { (void)dir; }
static inline latrec_t *latrec_tls_open_as(const char *role) { (void)role; return (latrec_t *)0; }
static inline latrec_t *latrec_tls_open(void) { return (latrec_t *)0; }
static inline uint64_t latrec_seq_next(void) { return 0; }
static inline void latrec_tstamp(uint64_t seq, uint8_t stage, uint64_t aux, uint64_t aux2)
{
    (void)seq; (void)stage; (void)aux; (void)aux2;
}
static inline void latrec_tstamp_at(uint64_t seq, uint8_t stage, uint64_t aux,
                                    uint64_t aux2, uint64_t t_ns)
{
    (void)seq; (void)stage; (void)aux; (void)aux2; (void)t_ns;
}
static inline uint64_t latrec_tnow(void) { return 0; }
static inline void latrec_ctx_set(uint64_t seq) { (void)seq; }
static inline uint64_t latrec_ctx(void) { return 0; }
static inline latrec_t *latrec_alloc(void) { return (latrec_t *)0; }
static inline void latrec_free(latrec_t *r) { (void)r; }
static inline void latrec_stamp_fn(latrec_t *r, uint64_t seq, uint8_t stage, uint64_t aux,
                                   uint64_t aux2)
{
    (void)r; (void)seq; (void)stage; (void)aux; (void)aux2;
}
static inline void latrec_stamp_at_fn(latrec_t *r, uint64_t seq, uint8_t stage, uint64_t aux,
                                      uint64_t aux2, uint64_t t_ns)
{
    (void)r; (void)seq; (void)stage; (void)aux; (void)aux2; (void)t_ns;
}
static inline void latrec_tstamp_fn(uint64_t seq, uint8_t stage, uint64_t aux, uint64_t aux2)
{
    (void)seq; (void)stage; (void)aux; (void)aux2;
}
static inline void latrec_tstamp_at_fn(uint64_t seq, uint8_t stage, uint64_t aux,
                                       uint64_t aux2, uint64_t t_ns)
{
    (void)seq; (void)stage; (void)aux; (void)aux2; (void)t_ns;
}
static inline uint64_t latrec_tnow_fn(void) { return 0; }
static inline uint64_t latrec_ring_now_fn(const latrec_t *r) { (void)r; return 0; }
static inline void latrec_set_timebase(const char *role, int timebase)
{
    (void)role; (void)timebase;
}
static inline void latrec_ctx_set_fn(uint64_t seq) { (void)seq; }
static inline uint64_t latrec_ctx_fn(void) { return 0; }

#endif /* LATREC_ENABLE */

#ifdef __cplusplus
}
#endif
#endif /* LATREC_LATREC_H */
