/*
 * analyze/gate.h - a limit on a leg's hop or a path's segment: the one
 * grammar of report's --fail-over and of record's and top's --stop-above.
 *
 *   figure form (--fail-over):   NAME:ROW:FIGURE>LIMIT   or <LIMIT
 *   instance form (--stop-above): NAME:ROW>LIMIT
 *
 * NAME is COMPONENT/LEG (libe3/outbound), a path named with a slash
 * (e3/loop) or path/PATH for any path name, or a path qualified by its
 * catalog (pipe:request, e3:e3/loop; analyze/path_index.h); ROW is total, inter-arrival, a
 * hop or segment A->B (also A__B, as CSV spells it); FIGURE is count, min,
 * max, mean, stddev, skewness, outliers, regressions or pNN (spelt as its
 * column: p99, p99.9). LIMIT is a duration with a unit (util/duration.h)
 * for time figures and for every instance, a plain number for count,
 * skewness, outliers and regressions. The instance form judges each
 * instance's value of ROW on its own, and only '>' (a value over the
 * limit).
 */
#ifndef LATREC_ANALYZE_GATE_H
#define LATREC_ANALYZE_GATE_H

#include <stddef.h>

#include "analyze/catalog.h"

enum { LATREC_GATE_FIGURE = 0, LATREC_GATE_INSTANCE = 1 };

typedef struct latrec_gate {
    char spec[256]; /* as given */
    char component[LATREC_NAME_MAX], leg[LATREC_NAME_MAX];
    char hop[2 * LATREC_NAME_MAX + 8]; /* ROW as given */
    char row[2 * LATREC_NAME_MAX + 8]; /* ROW with A__B written A->B */
    char figure[16];                   /* "" in the instance form */
    int over;                          /* 1: crossed when value > limit; 0: when < limit */
    double limit;                      /* ns, or a plain number for count / skewness / outliers / regressions */
} latrec_gate;

/* Parse spec in form (LATREC_GATE_*). 0, or -1: with why in err when the
 * limit or the form is at fault, else err "" (a malformed spec: the caller
 * states the grammar). */
int latrec_gate_parse(latrec_gate *g, const char *spec, int form, char *err, size_t errlen);

/* 1 when the gate names leg LEG of component COMPONENT. */
int latrec_gate_names_leg(const latrec_gate *g, const char *component, const char *leg);

/* 1 when the gate names the path called name ("e3/loop" as COMPONENT/LEG,
 * or path/NAME; a path answers to its shown and its qualified name, so ask
 * for both). */
int latrec_gate_names_path(const latrec_gate *g, const char *name);

#endif
