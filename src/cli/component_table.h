/*
 * cli/component_table.h - <component>.csv: one row per leg instance.
 *
 * Columns: leg, pid (empty when the process was guessed), seq, complete,
 * then <STAGE>_ns for every stage of the component's legs (chain, then
 * extras), <A>__<B>_us for every hop (chain hops, then extra hops),
 * <leg>_total_us for legs of two or more stages, then the key columns
 * (origin_seq, msg_id, ...). A column name appears once even when several
 * legs share the stage, hop or key. Durations are us with three decimals
 * (ns precision) and may be negative (a clock regression). Rows are grouped
 * by leg in catalog order, then in the order instances ended.
 *
 * Rows are spooled to anonymous temporary files while the records stream
 * (memory does not grow with the run) and written out by
 * latrec_component_tables_write() once every leg of a component is known;
 * a component whose instances are all of one leg has its rows written
 * into its file as they end instead (component_table.c: "streamed").
 */
#ifndef LATREC_CLI_COMPONENT_TABLE_H
#define LATREC_CLI_COMPONENT_TABLE_H

#include <stddef.h>

#include "analyze/legs.h"
#include "engine/input.h"
#include "read/outfile.h"

typedef struct latrec_component_tables latrec_component_tables;

/* The tables of <outdir>/<component>.csv, each handed to set when written
 * (cli/csv.h). NULL when out of memory. */
latrec_component_tables *latrec_component_tables_new(const latrec_input *in, const latrec_legs *legs,
                                                     const char *outdir, latrec_outset *set);
/* One ended instance: its row, or spooled. */
void latrec_component_tables_add(latrec_component_tables *t, const latrec_instance *inst);
/* Write <outdir>/<component>.csv for every component with rows. 0, or -1
 * with one line in err ("PATH: REASON", or the marker's). */
int latrec_component_tables_write(latrec_component_tables *t, char *err, size_t errlen);
void latrec_component_tables_free(latrec_component_tables *t);

#endif
