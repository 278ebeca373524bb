/*
 * engine/judge.h - one limit on single instances (analyze/gate.h, instance
 * form: 'libe3/outbound:total>500us', 'e3/loop:total>2ms'), judged on every
 * instance a pass ends: record's and top's --stop-above.
 *
 *   latrec_judge *j = latrec_judge_new(&gate, since_ns);
 *   e = latrec_engine_open(..., LATREC_ENGINE_LIVE);
 *   latrec_judge_attach(j, e, &pass_opts);   (selects the gate's leg or path)
 *   ... the caller's pass sinks call latrec_judge_table / _value / _path ...
 *   if (latrec_judge_crossed(j, &hit)) ...
 *
 * The first instance whose value of the gate's hop (or path segment) is
 * over the limit is kept; later ones are not judged. Times are
 * CLOCK_MONOTONIC ns (the pass clock without --wall), values ns as the
 * pass gives them (record and top do not calibrate).
 */
#ifndef LATREC_ENGINE_JUDGE_H
#define LATREC_ENGINE_JUDGE_H

#include <stdint.h>

#include "analyze/gate.h"
#include "engine/engine.h"

#define LATREC_JUDGE_ROW_MAX (2 * LATREC_NAME_MAX + 8)

/* One hop (or segment) of the instance: its value and its two stamps. */
typedef struct latrec_judge_row {
    char name[LATREC_JUDGE_ROW_MAX];
    int64_t ns;
    uint64_t t_a, t_b;     /* the stamps of its first and second stage */
    uint32_t tid_a, tid_b; /* the threads that stamped them */
} latrec_judge_row;

/* The instance that crossed the limit. */
typedef struct latrec_judge_hit {
    int path;                        /* 1: a path instance, 0: a leg instance */
    char component[LATREC_NAME_MAX]; /* a leg's component ("" for a path) */
    char name[LATREC_JUDGE_ROW_MAX]; /* the leg, or the path's name */
    char ring[256];                  /* the ring that stamped the row's second stage */
    uint32_t pid;                    /* the process (0: unknown) */
    uint64_t seq;                    /* the instance's seq (a path: its first leg's) */
    latrec_judge_row row;            /* the gate's row */
    latrec_judge_row worst;          /* the row but the total that took the most (--explain's) */
    int64_t total_ns;                /* the total, when has_total */
    int has_total;
    uint64_t start_ns; /* the instance's first stamp */
} latrec_judge_hit;

typedef struct latrec_judge latrec_judge;

/* A judge of gate (copied); instances that began before since_ns are not
 * judged (record: the start stamp). NULL when out of memory. */
latrec_judge *latrec_judge_new(const latrec_gate *gate, uint64_t since_ns);
void latrec_judge_free(latrec_judge *j);

/* Before latrec_engine_start: the engine whose pass the sinks see. When
 * po is not NULL, narrow it to what the gate needs: the path when a
 * catalog of the run has one of the gate's name, shown or CATALOG:NAME
 * (analyze/path_index.h; paths on, no leg tables), else the gate's
 * COMPONENT/LEG. */
void latrec_judge_attach(latrec_judge *j, latrec_engine *e, latrec_pass_opts *po);

/* From the pass sinks (engine/pass.h): a new table, a hop value, a path
 * instance. 1 when that instance crossed the limit (it is the hit). */
void latrec_judge_table(latrec_judge *j, const latrec_leg_table *t);
int latrec_judge_value(latrec_judge *j, const latrec_leg_table *t, int hop, int64_t ns, const latrec_instance *inst);
int latrec_judge_path(latrec_judge *j, const latrec_path_instance *pi);

/* 1 with *hit once an instance crossed the limit. */
int latrec_judge_crossed(const latrec_judge *j, latrec_judge_hit *hit);
/* 1 once a leg table or path instance of the gate's name and row was seen. */
int latrec_judge_named(const latrec_judge *j);

#endif
