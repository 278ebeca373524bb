/* Process-wide writer settings: output directory, ring sizing, catalog. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latrec/latrec.h"

#ifndef LATREC_DEFAULT_DIR
#define LATREC_DEFAULT_DIR "/tmp/latrec"
#endif

static pthread_mutex_t config_lock = PTHREAD_MUTEX_INITIALIZER;
static char output_dir[4096];
static char catalog[LATREC_CATALOG_LEN] = "e3";

void latrec_set_output_dir(const char *dir)
{
    pthread_mutex_lock(&config_lock);
    if (dir && strlen(dir) >= sizeof(output_dir)) {
        fprintf(stderr, "latrec: output directory too long (%zu bytes), ignored\n", strlen(dir));
    } else {
        snprintf(output_dir, sizeof(output_dir), "%s", dir ? dir : "");
    }
    pthread_mutex_unlock(&config_lock);
}

void latrec_set_catalog(const char *name)
{
    pthread_mutex_lock(&config_lock);
    snprintf(catalog, sizeof(catalog), "%s", name && *name ? name : "e3");
    pthread_mutex_unlock(&config_lock);
}

void latrec_catalog_name_(char *buf, size_t len)
{
    pthread_mutex_lock(&config_lock);
    snprintf(buf, len, "%s", catalog);
    pthread_mutex_unlock(&config_lock);
}

const char *latrec_resolve_dir_(const char *dir, char *buf, size_t len)
{
    int n;
    if (dir && *dir) {
        n = snprintf(buf, len, "%s", dir);
    } else {
        pthread_mutex_lock(&config_lock);
        const char *env = getenv("LATREC_OUTPUT_DIR");
        if (output_dir[0])
            n = snprintf(buf, len, "%s", output_dir);
        else if (env && *env)
            n = snprintf(buf, len, "%s", env);
        else
            n = snprintf(buf, len, "%s", LATREC_DEFAULT_DIR);
        pthread_mutex_unlock(&config_lock);
    }
    return (n < 0 || (size_t)n >= len) ? NULL : buf;
}

/* Warn once per variable name: a small list of names already reported. */
static int warned_before(const char *var)
{
    static char warned[16][96];
    static unsigned n_warned;
    int seen = 0;
    pthread_mutex_lock(&config_lock);
    for (unsigned i = 0; i < n_warned && !seen; i++)
        seen = strcmp(warned[i], var) == 0;
    if (!seen && n_warned < 16)
        snprintf(warned[n_warned++], sizeof(warned[0]), "%s", var);
    pthread_mutex_unlock(&config_lock);
    return seen;
}

/* 1 and *out set when the variable holds a valid size; 0 when unset or bad. */
static int size_from_env(const char *var, unsigned *out)
{
    const char *v = getenv(var);
    if (!v || !*v) return 0;
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || *end || end == v || x < LATREC_ENTRIES_LOG2_MIN || x > LATREC_ENTRIES_LOG2_MAX) {
        if (!warned_before(var))
            fprintf(stderr, "latrec: %s=%s is not a ring size (log2 of entries, %u..%u); ignored\n",
                    var, v, LATREC_ENTRIES_LOG2_MIN, LATREC_ENTRIES_LOG2_MAX);
        return 0;
    }
    *out = (unsigned)x;
    return 1;
}

unsigned latrec_entries_log2_for_(const char *role)
{
    char var[96] = "LATREC_ENTRIES_LOG2_";
    size_t n = strlen(var);
    for (const char *p = role; p && *p && n + 1 < sizeof(var); p++)
        var[n++] = isalnum((unsigned char)*p) ? (char)toupper((unsigned char)*p) : '_';
    var[n] = '\0';
    unsigned log2;
    if (role && *role && size_from_env(var, &log2)) return log2;
    if (size_from_env("LATREC_ENTRIES_LOG2", &log2)) return log2;
    return LATREC_ENTRIES_LOG2_DEFAULT;
}
