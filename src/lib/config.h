/*
 * Process-wide writer settings: where rings go and how large per-thread
 * rings are. Internal to liblatrec.
 */
#ifndef LATREC_LIB_CONFIG_H
#define LATREC_LIB_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "latrec/format.h"

/* Resolve the ring directory into buf: `dir` when non-empty, else the one set
 * by latrec_set_output_dir(), else $LATREC_OUTPUT_DIR, else the compiled-in
 * LATREC_DEFAULT_DIR. Returns buf, or NULL when the result does not fit. */
const char *latrec_resolve_dir_(const char *dir, char *buf, size_t len);

/* Ring size (log2 of entries) for a per-thread ring of this role:
 * LATREC_ENTRIES_LOG2_<ROLE>, else LATREC_ENTRIES_LOG2, else the default.
 * An unparsable or out-of-range value (outside 12..28) is reported once per
 * variable on stderr and the next source is used. */
unsigned latrec_entries_log2_for_(const char *role);

/* The catalog name set by latrec_set_catalog() ("e3" by default), copied
 * into buf (NUL-terminated). */
void latrec_catalog_name_(char *buf, size_t len);

/* Timebase requested for a ring of this role (LATREC_TIMEBASE_*): the
 * latrec_set_timebase() choice for the role, else the process-wide one, else
 * LATREC_CLOCK_<ROLE>, else LATREC_CLOCK, else CLOCK_MONOTONIC. `source`
 * gets what decided ("LATREC_CLOCK_DAPP", "latrec_set_timebase", ...). */
unsigned latrec_timebase_for_(const char *role, char *source, size_t len);

/* 1 when TSC rings may be used here (invariant TSC); else 0 with *why set
 * to one clause saying why not. Decided once per process. */
int latrec_tsc_usable_(const char **why);

/* One (TSC, CLOCK_MONOTONIC) pair taken together (see tsc.c). */
void latrec_tsc_pair_(uint64_t *tsc, uint64_t *mono_ns);

/* Take a pair and store it as the header's next calibration pair. */
void latrec_tsc_store_pair_(latrec_hdr *h);

#endif
