/*
 * record/env.h - the environment a launched command gets: the caller's, with
 * the ring directory, the ring sizing and an optional library directory set.
 */
#ifndef LATREC_RECORD_ENV_H
#define LATREC_RECORD_ENV_H

#include <stddef.h>

typedef struct latrec_env {
    char **vars; /* NULL-terminated "NAME=value" strings, all owned */
    size_t n, cap;
} latrec_env;

/* Copy of `base` (NULL-terminated, e.g. environ). 0, or -1 out of memory. */
int latrec_env_init(latrec_env *e, char *const *base);

/* Set NAME=value, replacing an existing NAME. 0, or -1 out of memory. */
int latrec_env_set(latrec_env *e, const char *name, const char *value);

/* Current value of NAME, or NULL. */
const char *latrec_env_get(const latrec_env *e, const char *name);

/* Prepend dir to the ':'-separated list in NAME (e.g. LD_LIBRARY_PATH). */
int latrec_env_prepend_path(latrec_env *e, const char *name, const char *dir);

/* The per-role sizing variable of the writer library for `role`:
 * "LATREC_ENTRIES_LOG2_" + role upper-cased, every non-alphanumeric byte as
 * '_' ("libe3.outbound" -> LATREC_ENTRIES_LOG2_LIBE3_OUTBOUND). Returns 0, or
 * -1 when it does not fit in len. */
int latrec_env_role_var(const char *role, char *out, size_t len);

void latrec_env_free(latrec_env *e);

#endif
