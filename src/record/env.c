/* The launched command's environment. */
#include "record/env.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

static int push(latrec_env *e, char *s)
{
    if (e->n + 2 > e->cap) {
        size_t cap = e->cap ? e->cap * 2 : 64;
        while (cap < e->n + 2) cap *= 2;
        char **v = realloc(e->vars, cap * sizeof(*v));
        if (!v) return -1;
        e->vars = v;
        e->cap = cap;
    }
    e->vars[e->n++] = s;
    e->vars[e->n] = NULL;
    return 0;
}

int latrec_env_init(latrec_env *e, char *const *base)
{
    memset(e, 0, sizeof(*e));
    e->vars = calloc(64, sizeof(*e->vars));
    if (!e->vars) return -1;
    e->cap = 64;
    for (size_t i = 0; base && base[i]; i++) {
        char *s = strdup(base[i]);
        if (!s || push(e, s) < 0) {
            free(s);
            latrec_env_free(e);
            return -1;
        }
    }
    return 0;
}

static ssize_t find(const latrec_env *e, const char *name)
{
    size_t len = strlen(name);
    for (size_t i = 0; i < e->n; i++)
        if (strncmp(e->vars[i], name, len) == 0 && e->vars[i][len] == '=') return (ssize_t)i;
    return -1;
}

const char *latrec_env_get(const latrec_env *e, const char *name)
{
    ssize_t i = find(e, name);
    return i < 0 ? NULL : e->vars[i] + strlen(name) + 1;
}

int latrec_env_set(latrec_env *e, const char *name, const char *value)
{
    char *s;
    if (asprintf(&s, "%s=%s", name, value) < 0) return -1;
    ssize_t i = find(e, name);
    if (i >= 0) {
        free(e->vars[i]);
        e->vars[i] = s;
        return 0;
    }
    if (push(e, s) < 0) {
        free(s);
        return -1;
    }
    return 0;
}

int latrec_env_prepend_path(latrec_env *e, const char *name, const char *dir)
{
    const char *old = latrec_env_get(e, name);
    if (!old || !*old) return latrec_env_set(e, name, dir);
    char *v;
    if (asprintf(&v, "%s:%s", dir, old) < 0) return -1;
    int rc = latrec_env_set(e, name, v);
    free(v);
    return rc;
}

int latrec_env_role_var(const char *role, char *out, size_t len)
{
    int n = snprintf(out, len, "LATREC_ENTRIES_LOG2_");
    if (n < 0 || (size_t)n >= len) return -1;
    size_t i = (size_t)n;
    for (const char *p = role; *p; p++) {
        if (i + 1 >= len) return -1;
        out[i++] = isalnum((unsigned char)*p) ? (char)toupper((unsigned char)*p) : '_';
    }
    out[i] = '\0';
    return 0;
}

void latrec_env_free(latrec_env *e)
{
    for (size_t i = 0; i < e->n; i++) free(e->vars[i]);
    free(e->vars);
    memset(e, 0, sizeof(*e));
}
