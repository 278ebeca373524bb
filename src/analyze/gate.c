/* A limit on a hop or a segment: --fail-over and --stop-above (gate.h). */
#include "analyze/gate.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/duration.h"
#include "util/number.h"

static const latrec_duration_opt gate_limit = { "limit", NULL, 0, UINT64_MAX };

static int copy_field(char *dst, size_t len, const char *src)
{
    size_t n = strlen(src);
    if (n >= len) return -1;
    memcpy(dst, src, n + 1);
    return 0;
}

/* count|min|max|mean|stddev|skewness|outliers|regressions|pNN: a gate on
 * any other name is a malformed spec (usage error), not a missing figure. */
static int figure_known(const char *f)
{
    static const char *const names[] = {
        "count", "min", "max", "mean", "stddev", "skewness", "outliers", "regressions"
    };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(f, names[i]) == 0) return 1;
    if (f[0] != 'p' || !f[1]) return 0;
    char *end;
    double p = strtod(f + 1, &end);
    if (*end || p < 0 || p > 100 || !isdigit((unsigned char)f[1])) return 0;
    /* Spelt as the column names it ("p99.9", not "p99.90"). */
    char canon[40];
    return strcmp(latrec_number_format(p, canon, sizeof(canon)), f + 1) == 0;
}

/* The comparison of the instance form: the last '<' or '>' that is not
 * the head of a hop's arrow ("A->B>100us"). NULL when none. */
static char *instance_op(char *s)
{
    char *op = NULL;
    for (char *q = s; *q; q++)
        if ((*q == '>' && (q == s || q[-1] != '-')) || *q == '<') op = q;
    return op;
}

static int parse_limit(latrec_gate *g, const char *limit, char *err, size_t errlen)
{
    const char *f = g->figure;
    int plain = strcmp(f, "count") == 0 || strcmp(f, "skewness") == 0 || strcmp(f, "outliers") == 0 ||
                strcmp(f, "regressions") == 0;
    if (plain) {
        if (latrec_number_parse(limit, -1e18, 1e18, &g->limit) < 0) {
            snprintf(err, errlen, "the limit of %s is a plain number, not '%s'", f, limit);
            return -1;
        }
        return 0;
    }
    uint64_t ns;
    if (latrec_duration_parse(&gate_limit, limit, &ns, err, errlen) < 0) return -1;
    g->limit = (double)ns;
    return 0;
}

/* NAME, the text before ROW: COMPONENT/LEG or a path's name split at its
 * first '/', or a qualified path name without one (pipe:request: component
 * "path"). 0, or -1 when it is neither. */
static int parse_name(latrec_gate *g, char *name)
{
    char *slash = strchr(name, '/');
    if (!slash && !strchr(name, ':')) return -1;
    if (slash) *slash = '\0';
    return copy_field(g->component, sizeof(g->component), slash ? name : "path") < 0 ||
                   copy_field(g->leg, sizeof(g->leg), slash ? slash + 1 : name) < 0
               ? -1
               : 0;
}

int latrec_gate_parse(latrec_gate *g, const char *spec, int form, char *err, size_t errlen)
{
    err[0] = '\0';
    memset(g, 0, sizeof(*g));
    snprintf(g->spec, sizeof(g->spec), "%s", spec);
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", spec);
    /* ROW, FIGURE and LIMIT hold no ':', a path's name may (CATALOG:NAME,
     * analyze/path_index.h): the colons that part them are the last ones. */
    char *last = strrchr(buf, ':'), *before = NULL;
    for (char *c = buf; last && c < last; c++)
        if (*c == ':') before = c;
    char *c1 = form == LATREC_GATE_INSTANCE ? last : before, *op;
    if (!c1) return -1;
    if (form == LATREC_GATE_INSTANCE) {
        if (!(op = instance_op(c1 + 1))) return -1;
        char fig[16];
        if (before && (size_t)(op - c1 - 1) < sizeof(fig)) { /* ...:ROW:FIGURE>LIMIT */
            snprintf(fig, sizeof(fig), "%.*s", (int)(op - c1 - 1), c1 + 1);
            if (figure_known(fig)) {
                snprintf(err, errlen, "one instance has no figure: COMPONENT/LEG:HOP>LIMIT or PATH:SEGMENT>LIMIT "
                                      "(e.g. 'libe3/outbound:total>500us')");
                return -1;
            }
        }
        if (*op == '<') {
            snprintf(err, errlen, "an instance is judged over a limit: '>' only");
            return -1;
        }
    } else {
        char *c2 = last;
        if (!(op = strpbrk(c2 + 1, "<>"))) return -1;
        *c2 = *op = '\0';
        if (copy_field(g->figure, sizeof(g->figure), c2 + 1) < 0) return -1;
        if (!figure_known(g->figure)) return -1;
    }
    g->over = form == LATREC_GATE_INSTANCE ? 1 : spec[op - buf] == '>';
    *op = *c1 = '\0';
    if (copy_field(g->hop, sizeof(g->hop), c1 + 1) < 0 || parse_name(g, buf) < 0) return -1;
    snprintf(g->row, sizeof(g->row), "%s", g->hop);
    char *us = strstr(g->row, "__");
    if (us) { /* the CSV spelling A__B */
        us[0] = '-';
        us[1] = '>';
    }
    if (parse_limit(g, op + 1, err, errlen) < 0) return -1;
    return g->component[0] && g->leg[0] && g->hop[0] ? 0 : -1;
}

int latrec_gate_names_leg(const latrec_gate *g, const char *component, const char *leg)
{
    return strcmp(component, g->component) == 0 && strcmp(leg, g->leg) == 0;
}

int latrec_gate_names_path(const latrec_gate *g, const char *name)
{
    if (strcmp(g->component, "path") == 0 && strcmp(name, g->leg) == 0) return 1;
    size_t n = strlen(g->component);
    return strncmp(name, g->component, n) == 0 && name[n] == '/' && strcmp(name + n + 1, g->leg) == 0;
}
