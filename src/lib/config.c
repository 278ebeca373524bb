/* Process-wide writer settings: output directory, ring sizing, timebase,
 * catalog. */
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

static void role_var(char *var, size_t len, const char *prefix, const char *role);

unsigned latrec_entries_log2_for_(const char *role)
{
    char var[96];
    role_var(var, sizeof(var), "LATREC_ENTRIES_LOG2_", role);
    unsigned log2;
    if (role && *role && size_from_env(var, &log2)) return log2;
    if (size_from_env("LATREC_ENTRIES_LOG2", &log2)) return log2;
    return LATREC_ENTRIES_LOG2_DEFAULT;
}

/* Environment variable name for a role: PREFIX then the role upper-cased,
 * every non-alphanumeric as '_'. */
static void role_var(char *var, size_t len, const char *prefix, const char *role)
{
    size_t n = (size_t)snprintf(var, len, "%s", prefix);
    for (const char *p = role; p && *p && n + 1 < len; p++)
        var[n++] = isalnum((unsigned char)*p) ? (char)toupper((unsigned char)*p) : '_';
    var[n < len ? n : len - 1] = '\0';
}

/* Timebases chosen with latrec_set_timebase(): role "" is the process-wide
 * choice. */
enum { TB_CHOICES = 16 };
static struct {
    char role[LATREC_NAME_LEN];
    int  timebase;
} tb_choice[TB_CHOICES];
static unsigned n_tb_choice;

void latrec_set_timebase(const char *role, int timebase)
{
    if (!role) role = "";
    if (timebase != -1 && timebase != LATREC_TIMEBASE_MONO && timebase != LATREC_TIMEBASE_TSC) {
        fprintf(stderr, "latrec: timebase %d for role '%s' is not one (0 mono, 1 tsc); ignored\n",
                timebase, role);
        return;
    }
    if (strlen(role) >= LATREC_NAME_LEN) {
        fprintf(stderr, "latrec: timebase for role '%s': role too long; ignored\n", role);
        return;
    }
    pthread_mutex_lock(&config_lock);
    unsigned i = 0;
    while (i < n_tb_choice && strcmp(tb_choice[i].role, role) != 0) i++;
    if (timebase == -1) {
        if (i < n_tb_choice) tb_choice[i] = tb_choice[--n_tb_choice];
    } else if (i < n_tb_choice || n_tb_choice < TB_CHOICES) {
        if (i == n_tb_choice) snprintf(tb_choice[n_tb_choice++].role, LATREC_NAME_LEN, "%s", role);
        tb_choice[i].timebase = timebase;
    } else {
        fprintf(stderr, "latrec: timebase for role '%s': %d role choices already; ignored\n", role,
                TB_CHOICES);
    }
    pthread_mutex_unlock(&config_lock);
}

/* The timebase chosen by API for this role: its own choice, else the
 * process-wide one, else -1. */
static int chosen_timebase(const char *role)
{
    int own = -1, any = -1;
    pthread_mutex_lock(&config_lock);
    for (unsigned i = 0; i < n_tb_choice; i++) {
        if (!tb_choice[i].role[0]) any = tb_choice[i].timebase;
        else if (role[0] && strcmp(tb_choice[i].role, role) == 0) own = tb_choice[i].timebase;
    }
    pthread_mutex_unlock(&config_lock);
    return own >= 0 ? own : any;
}

/* The timebase in a variable: 1 and *out set, or 0 when unset or unknown. */
static int timebase_from_env(const char *var, unsigned *out)
{
    const char *v = getenv(var);
    if (!v || !*v) return 0;
    if (strcmp(v, "tsc") == 0) *out = LATREC_TIMEBASE_TSC;
    else if (strcmp(v, "mono") == 0 || strcmp(v, "monotonic") == 0) *out = LATREC_TIMEBASE_MONO;
    else {
        if (!warned_before(var))
            fprintf(stderr, "latrec: %s=%s is not a clock (tsc or mono); ignored\n", var, v);
        return 0;
    }
    return 1;
}

unsigned latrec_timebase_for_(const char *role, char *source, size_t len)
{
    if (!role) role = "";
    const int tb = chosen_timebase(role);
    if (tb >= 0) {
        snprintf(source, len, "latrec_set_timebase");
        return (unsigned)tb;
    }
    char var[96];
    role_var(var, sizeof(var), "LATREC_CLOCK_", role);
    unsigned out;
    if (role[0] && timebase_from_env(var, &out)) {
        snprintf(source, len, "%s", var);
        return out;
    }
    if (timebase_from_env("LATREC_CLOCK", &out)) {
        snprintf(source, len, "LATREC_CLOCK");
        return out;
    }
    snprintf(source, len, "default");
    return LATREC_TIMEBASE_MONO;
}
