/*
 * cli/paths_csv.h - paths.csv: one row per path instance (latrec convert).
 *
 * Columns: path (as the report names it, analyze/path_index.h), complete
 * (1/0), stopped_at (the leg where an incomplete instance stopped, else
 * empty), reason (latrec_path_stop_name(), else empty), start_ns, end_ns
 * (empty when incomplete); then for every leg of the paths of every
 * catalog of the run (each once, in path order) <leg>_pid (empty when the
 * process was guessed), <leg>_seq and <STAGE>_ns for each of its chain
 * stages; then <A>__<B>_us for every segment (every hop and hand-off of the
 * paths, each once per catalog), total_us and drops_as_delay_us (an
 * incomplete instance's latency until the next one got through, see
 * analyze/paths.h). A leg, stage or segment name that the paths of two
 * catalogs use gets its catalog in front: pipe:ingest_pid, pipe:RX_ns,
 * pipe:RX__TX_us. A path's row leaves the columns of legs and segments it
 * lacks empty.
 * Times are on the run's clock (--wall: CLOCK_REALTIME), durations us with
 * three decimals (ns precision), rows in the order instances ended.
 */
#ifndef LATREC_CLI_PATHS_CSV_H
#define LATREC_CLI_PATHS_CSV_H

#include "analyze/paths.h"
#include "engine/input.h"
#include "read/outfile.h"

typedef struct latrec_paths_csv latrec_paths_csv;

/* Create path (written aside, renamed at close or handed to set there,
 * cli/csv.h) and write the header. NULL with errno and err (one line
 * naming the file and the reason) on failure. */
latrec_paths_csv *latrec_paths_csv_open(const char *path, const latrec_input *in, const latrec_legs *legs,
                                        latrec_outset *set, char *err, size_t errlen);
void latrec_paths_csv_add(latrec_paths_csv *w, const latrec_path_instance *pi);
/* Close (rename into place, or to the set); rows written in *rows. 0, or
 * -1 with errno and err. */
int latrec_paths_csv_close(latrec_paths_csv *w, uint64_t *rows, char *err, size_t errlen);
/* Drop it: the file is removed. */
void latrec_paths_csv_abort(latrec_paths_csv *w);

#endif
