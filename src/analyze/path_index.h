/*
 * analyze/path_index.h - the paths of a whole run: every catalog's paths
 * numbered run-wide, named, and assembled.
 *
 * A run reads each ring under its own catalog (latrec_legs_new_multi()),
 * and every catalog may declare paths. The index numbers them run-wide in
 * the builder's catalog order: catalog c's path k is run path base[c] + k
 * (catalog 0 first, so with one catalog a run path index is the catalog's).
 * It is the one place that says, for the whole run, how many paths there
 * are, each one's definition and catalog, its segments, its name and, once
 * assembling, its counts.
 *
 * Names: a path is shown by the name its catalog gives it ("e3/loop",
 * "request"). Only when two catalogs of the run define the same name is
 * each of those paths shown qualified by its catalog, CATALOG:NAME
 * ("pipe:request", "alt:request"), the way perf qualifies an event with its
 * PMU only when two PMUs have it. A lookup accepts the shown name, and
 * CATALOG:NAME always (so a gate or a script keeps working when another
 * catalog joins the run); a bare name that two catalogs define is
 * ambiguous.
 *
 * Assembly: one path assembler per catalog that has paths
 * (latrec_paths_new_catalog()), every one fed the same ended leg instances;
 * each path instance reaches the caller's emit with pi->path the run-wide
 * index.
 */
#ifndef LATREC_ANALYZE_PATH_INDEX_H
#define LATREC_ANALYZE_PATH_INDEX_H

#include <stddef.h>

#include "analyze/catalog.h"
#include "analyze/legs.h"
#include "analyze/paths.h"

/* Paths a run can hold: LATREC_MAX_PATHS per catalog. */
#define LATREC_RUN_MAX_PATHS (LATREC_LEGS_MAX_CATALOGS * LATREC_MAX_PATHS)
/* A path's name as shown or qualified: "CATALOG:NAME" and its NUL. */
#define LATREC_PATH_NAME_MAX (32 + LATREC_NAME_MAX)

enum { LATREC_PATH_NONE = -1, LATREC_PATH_AMBIGUOUS = -2 };

typedef struct latrec_path_index latrec_path_index;

/* The index over cats[0 .. n_cats) (borrowed: they must outlive it; at most
 * LATREC_LEGS_MAX_CATALOGS, NULL entries have no paths). NULL when out of
 * memory. */
latrec_path_index *latrec_path_index_new(const latrec_catalog *const *cats, int n_cats);

/* The index over the catalogs of builder legs, assembling: one assembler
 * per catalog with paths (opts as latrec_paths_new()), emit called with
 * pi->path the run-wide index. NULL when out of memory. */
latrec_path_index *latrec_path_index_assemble(const latrec_legs *legs, const latrec_paths_opts *opts,
                                              latrec_path_emit_fn emit, void *ctx);

void latrec_path_index_free(latrec_path_index *ix);

/* Paths in the run (every catalog's). */
int latrec_path_index_n(const latrec_path_index *ix);
/* Run path of catalog c's path k, or -1 when out of range. */
int latrec_path_index_of(const latrec_path_index *ix, int c, int k);
/* Catalog index of run path `path`, its catalog and its definition (the
 * catalog's; its leg indexes are the catalog's). */
int latrec_path_index_catalog_index(const latrec_path_index *ix, int path);
const latrec_catalog *latrec_path_index_catalog(const latrec_path_index *ix, int path);
const latrec_path *latrec_path_index_path(const latrec_path_index *ix, int path);
/* Its name as shown (qualified only when ambiguous, see above) and always
 * qualified ("e3:e3/loop"; what to match a run's path against another
 * run's, e.g. a baseline's). */
const char *latrec_path_index_name(const latrec_path_index *ix, int path);
const char *latrec_path_index_qualified(const latrec_path_index *ix, int path);
/* Name of leg position pos of path (its catalog's leg). */
const char *latrec_path_index_leg_name(const latrec_path_index *ix, int path, int pos);

/* Run path of a name: the shown name, or CATALOG:NAME. -1
 * (LATREC_PATH_NONE) when no path has it, -2 (LATREC_PATH_AMBIGUOUS) for
 * a bare name two catalogs define. */
int latrec_path_index_find(const latrec_path_index *ix, const char *name);
/* The shown names, ", " between ("none" when there are none), truncated
 * with "..." to fit len. */
void latrec_path_index_list(const latrec_path_index *ix, char *buf, size_t len);
/* The qualified names of the paths a bare name matches, ", " between. */
void latrec_path_index_candidates(const latrec_path_index *ix, const char *name, char *buf, size_t len);

/* Segments of run path `path` (latrec_path_segments()) and a segment's
 * value in one of its instances (latrec_segment_value()). */
int latrec_path_index_segments(const latrec_path_index *ix, int path, latrec_segment *out);
int latrec_path_index_segment_value(const latrec_path_index *ix, const latrec_path_instance *pi,
                                    const latrec_segment *s, int64_t *ns, const latrec_hit **a, const latrec_hit **b);

/* Assembling index: feed an ended leg instance to every assembler (0, or
 * -1 when out of memory: latrec_paths_feed()); end every open fragment;
 * the counts of run path `path` (NULL when not assembling); fragments open
 * over all assemblers. */
int latrec_path_index_feed(latrec_path_index *ix, const latrec_instance *inst);
void latrec_path_index_finish(latrec_path_index *ix);
const latrec_path_counts *latrec_path_index_counts(const latrec_path_index *ix, int path);
size_t latrec_path_index_open(const latrec_path_index *ix);

#endif
