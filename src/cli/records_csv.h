/*
 * cli/records_csv.h - records.csv: one row per merged record.
 *
 * Columns: t_ns, ring, component, pid, tid, seq, cpu, stage, stage_name,
 * leg, aux, aux2, and t_mono_ns with --wall (t_ns is then the wall-clock
 * merge key). What is the same for every record of a ring (its name,
 * component, pid and tid), of a stage of a ring's catalog (the stage and
 * its name) and of a leg is formatted and quoted once; a row is then
 * numbers (cli/csv.h's table formatting) and copies of those pieces,
 * formatted in place in the CSV buffer.
 */
#ifndef LATREC_CLI_RECORDS_CSV_H
#define LATREC_CLI_RECORDS_CSV_H

#include <stddef.h>
#include <stdint.h>

#include "cli/csv.h"
#include "engine/input.h"

typedef struct latrec_records_csv latrec_records_csv;

/* records.csv at path (written aside, cli/csv.h: renamed at close, or
 * handed to set there) with its header row, for the rings of in under
 * legs' components, processes and legs. NULL with errno and err (one line
 * naming the file and the reason) when it cannot be opened or out of
 * memory. in and legs must outlive it. */
latrec_records_csv *latrec_records_csv_open(const char *path, const latrec_input *in, const latrec_legs *legs,
                                            latrec_outset *set, char *err, size_t errlen);

/* One row: ev as the merge gave it, whose record went to the builder's leg
 * leg (-1: none). Rows are kept in batches and formatted and written, in
 * the order added, on a thread of the writer's own (in the caller's when no
 * thread can be started); there only what was fixed at open is read of in
 * and legs. */
void latrec_records_csv_add(latrec_records_csv *w, const latrec_merged *ev, int leg);

/* Every row added written, the file closed and renamed into place (or
 * handed to the set), the writer freed. 0, or -1 with errno and err when
 * any write failed. */
int latrec_records_csv_close(latrec_records_csv *w, char *err, size_t errlen);

/* Drop it: the file is removed, nothing more is written. NULL is fine. */
void latrec_records_csv_abort(latrec_records_csv *w);

#endif
