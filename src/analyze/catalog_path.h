/*
 * analyze/catalog_path.h - where a ring's named catalog is found, and the
 * copy of a catalog that `latrec record --catalog FILE` keeps in the run
 * directory.
 *
 * A ring names its catalog (v3 header field, e.g. "pipe"). The catalog file
 * NAME.catalog is looked for, in this order:
 *   1. DIR/catalogs/ of each run directory given (record --catalog put it
 *      there);
 *   2. every directory of LATREC_CATALOG_PATH (colon-separated);
 *   3. $XDG_CONFIG_HOME/latrec/catalogs ($HOME/.config when unset);
 *   4. the installed share/latrec/catalogs: BINDIR/../share/latrec/catalogs
 *      of the running program, then LATREC_CATALOG_DATADIR (the configured
 *      install prefix's).
 * The built-in "e3" catalog is the fallback for the name "e3" only.
 * A name is a file name: letters, digits, '_', '-', '.', not starting with
 * '.', at most 31 bytes; any other name is never looked up.
 */
#ifndef LATREC_ANALYZE_CATALOG_PATH_H
#define LATREC_ANALYZE_CATALOG_PATH_H

#include <stddef.h>

#ifndef LATREC_CATALOG_DATADIR
#define LATREC_CATALOG_DATADIR "/usr/local/share/latrec/catalogs"
#endif

/* The run directory's subdirectory of catalog copies. */
#define LATREC_RUN_CATALOGS "catalogs"

/* 1 when `name` may name a catalog file (see above). */
int latrec_catalog_name_ok(const char *name);

/* Find NAME.catalog (order above; run_dirs[0..n_dirs) for step 1). Returns
 * 0 with the file's path in path, or -1 (not found, or a name that is not
 * a file name) with the places searched in `searched` ("run/catalogs,
 * $LATREC_CATALOG_PATH (unset), ~/.config/latrec/catalogs, ..."). */
int latrec_catalog_find(const char *name, const char *const *run_dirs, int n_dirs, char *path, size_t len,
                        char *searched, size_t searched_len);

/* Copy catalog file `src` into RUN_DIR/catalogs/NAME.catalog, NAME being the
 * catalog's own name (its `catalog` line, else the file's base name), with
 * every header its stages-from lines read copied beside it and those lines
 * pointing at the copies. The catalog is loaded first: a catalog that does
 * not load is not copied. Files are created new (never overwritten, no
 * symbolic link followed). Returns 0 with the name in name (>= 32 bytes),
 * or -1 with one line in err. */
int latrec_catalog_copy(const char *src, const char *run_dir, char *name, size_t name_len, char *err, size_t errlen);

#endif
