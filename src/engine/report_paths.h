/*
 * engine/report_paths.h - the report's path tables: per path of any catalog of
 * the run (analyze/path_index.h), a row per segment (every hop of every
 * leg, every hand-off between two legs), the end-to-end total and the total with drops counted as delay, each with the
 * figures of a leg table and the scheduler's split over the thread that
 * stamped the segment's second stage; the slowest instances and what the
 * scheduler did in their slowest segment; the incomplete ones counted where
 * they stopped.
 *
 * Path figures are raw stamp differences (no --calibrate), so for every
 * instance the segments add up exactly to the total. Used by report_build.c
 * (two passes, like the leg tables: the second only for exact outlier
 * counts or --drop-outliers).
 */
#ifndef LATREC_ENGINE_REPORT_PATHS_H
#define LATREC_ENGINE_REPORT_PATHS_H

#include "analyze/paths.h"
#include "engine/report_model.h"
#include "engine/sched_view.h"

typedef struct latrec_rpaths latrec_rpaths;

/* A row's split (means per instance) from the sums of its instances
 * (report_model.c, shared by leg and path rows). */
void latrec_report_split_fill(latrec_report_split *s, const latrec_sched_acc *a);

/* State for every path of the run (in->paths, run-wide indexes); sv
 * (borrowed) may have no model. */
latrec_rpaths *latrec_rpaths_new(const latrec_report_request *req, const latrec_input *in, const latrec_sched_view *sv);
void latrec_rpaths_free(latrec_rpaths *rp);
/* Every path's figures forgotten (the pass starts over). */
void latrec_rpaths_reset(latrec_rpaths *rp);

/* A path instance of pass 1 (figures, split, slowest) or pass 2 (exact
 * outliers, --drop-outliers). */
void latrec_rpaths_add(latrec_rpaths *rp, const latrec_path_instance *pi, int pass_no);

/* After pass 1: figures and outlier fences. 1 when a second pass would make
 * outlier counts exact. */
int latrec_rpaths_close_first(latrec_rpaths *rp);
/* Before pass 2: columns emptied for --drop-outliers. */
void latrec_rpaths_open_second(latrec_rpaths *rp);
/* After pass 2: exact outliers, figures without them for --drop-outliers. */
void latrec_rpaths_close_second(latrec_rpaths *rp);

/* After pass 1: the splits --explain will ask about (every segment of
 * each instance it explains) told to the scheduler's view
 * (latrec_sched_view_want). 0, or -1 out of memory. */
int latrec_rpaths_want_explained(const latrec_rpaths *rp);

/* Append one table per path that had an instance to m->tables, matched to
 * base (NULL: no baseline) by path (catalog and name: CATALOG:NAME) and row
 * name. Tables are named as latrec_path_index_name() shows the path.
 * counts: the pass's assembled paths; legs its builder (process labels);
 * begin the run's beginning.
 * 0, or -1 when out of memory. */
int latrec_rpaths_build(latrec_rpaths *rp, const latrec_rpaths *base, const latrec_path_index *counts, uint64_t begin,
                        const latrec_legs *legs, latrec_report *m);

#endif
