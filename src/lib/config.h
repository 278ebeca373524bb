/*
 * Process-wide writer settings: where rings go and how large per-thread
 * rings are. Internal to liblatrec.
 */
#ifndef LATREC_LIB_CONFIG_H
#define LATREC_LIB_CONFIG_H

#include <stddef.h>

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

#endif
