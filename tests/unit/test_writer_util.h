/*
 * test_writer_util.h - helpers shared by the writer tests: an independent ALR1
 * reader (raw bytes at the offsets documented in <latrec/format.h>, decoded
 * little-endian by hand; it never uses latrec_hdr / latrec_rec), per-test
 * temp directories under LATREC_TEST_TMP, forked children with captured
 * stderr, and CPU pinning.
 */
#ifndef TEST_WRITER_UTIL_H
#define TEST_WRITER_UTIL_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifndef LATREC_TEST_TMP
#error "LATREC_TEST_TMP must be defined by the build (latrec_unit_test)"
#endif

/* Raw layout constants, restated from the format documentation (deliberately
 * not taken from <latrec/format.h>, so a wrong constant there is caught). */
#define TW_HDR_LEN        4096u
#define TW_REC_LEN        32u
#define TW_MAGIC_BYTES    "ALR1"
#define TW_SEQ_MASK       0x0000FFFFFFFFFFFFull
#define TW_F_CLEAN_CLOSE  0x1u
#define TW_F_RSEQ_CPU     0x2u
#define TW_F_CACHED_CPU   0x4u

/* Header fields, as decoded from the file. Strings are NUL-terminated copies
 * of the NUL-padded fields. */
struct tw_hdr {
    uint8_t  raw[TW_HDR_LEN];
    uint32_t magic, version;
    uint64_t entries, rec_count, t0_mono, t0_real;
    char     name[65];
    uint32_t rec_size, clock_ns_per_call;
    uint64_t t1_mono, t1_real;
    uint32_t pid, tid, flags, clock_id;
    uint8_t  boot_id[16];
    char     host[65];
    char     catalog[33];
};

/* One record slot, decoded. */
struct tw_rec {
    uint64_t sc, t_ns, aux, aux2;
    uint64_t seq;
    unsigned cpu, stage;
};

/* A whole ring file. */
struct tw_ring {
    struct tw_hdr  h;
    uint64_t       file_size;
    uint64_t       nslots; /* == h.entries when the file is complete */
    struct tw_rec *slots;
};

uint32_t tw_le32(const uint8_t *p);
uint64_t tw_le64(const uint8_t *p);
void     tw_decode_rec(const uint8_t *b, struct tw_rec *out);

/* 0 on success, -1 (errno set) when the file cannot be read or is short. */
int  tw_read_hdr(const char *path, struct tw_hdr *h);
int  tw_read_ring(const char *path, struct tw_ring *r);
void tw_free_ring(struct tw_ring *r);

/* Number of slots with t_ns != 0. */
uint64_t tw_valid_count(const struct tw_ring *r);

/* Slot of the newest valid record: taking the valid records in slot order,
 * the one before the (single) strict t_ns descent, or the last valid one
 * when there is none. -1 when the ring holds no valid record. */
long tw_newest_slot(const struct tw_ring *r);

/* The documented recovery: the smallest n >= rec_count with
 * (n - 1) mod entries == newest. */
uint64_t tw_count_formula(uint64_t rec_count, uint64_t entries, uint64_t newest);

/* Clocks read by the test itself. */
uint64_t tw_mono_ns(void);
uint64_t tw_real_ns(void);

/* A fresh empty directory LATREC_TEST_TMP/<program>-<tag>-<pid>; out gets its
 * path. Fails the test when it cannot be made. */
void tw_tmpdir(char *out, size_t len, const char *tag);
/* Remove a tree without following symlinks (used on the test's own dirs). */
void tw_rm_rf(const char *path);

/* Regular-or-symlink entries of dir whose name ends in suffix (NULL: all). */
int tw_count_files(const char *dir, const char *suffix);
/* First entry of dir whose name starts with prefix and ends with suffix;
 * 0 and its full path in out, or -1. */
int tw_find_file(const char *dir, const char *prefix, const char *suffix, char *out, size_t len);

/* Run fn(arg) in a forked child whose stderr goes into a pipe; the child
 * exits with exit(fn(arg)) so atexit handlers run. The captured stderr (NUL-
 * terminated, truncated to err_len - 1) goes to err. Returns the wait status. */
int tw_run_child(int (*fn)(void *), void *arg, char *err, size_t err_len);
/* Lines in s ('\n'-terminated, plus an unterminated tail). */
int tw_count_lines(const char *s);

/* Pin the calling thread to the CPU it runs on; returns that CPU. The old
 * mask is saved in old when non-NULL. */
int  tw_pin_here(cpu_set_t *old);
void tw_unpin(const cpu_set_t *old);

/* Remove every LATREC_* variable from the environment (a forked child's
 * settings start clean). */
void tw_clean_env(void);

/* Read a whole small text file into buf (NUL-terminated); length or -1. */
long tw_slurp(const char *path, char *buf, size_t len);

#endif
