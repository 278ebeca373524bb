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

/* Rows into c (open, nothing written yet: the header row is written here)
 * for the rings of in under legs' components, processes and legs. NULL
 * when out of memory. in, legs and c must outlive it. */
latrec_records_csv *latrec_records_csv_new(const latrec_input *in, const latrec_legs *legs, latrec_csv *c);

/* n rows: ev[i], whose record went to catalog leg leg[i] (-1: none). */
void latrec_records_csv_rows(latrec_records_csv *w, const latrec_merged *ev, const int32_t *leg, size_t n);

void latrec_records_csv_free(latrec_records_csv *w);

#endif
