/* One limit on single instances (judge.h). */
#include "engine/judge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/hops.h"
#include "analyze/path_index.h"
#include "analyze/paths.h"

#define MAX_TABLES 64

struct latrec_judge {
    latrec_gate gate;
    uint64_t since_ns;
    latrec_engine *e;
    int path_gate;                              /* the gate names a path of the run */
    const latrec_leg_table *tables[MAX_TABLES]; /* tables of the gate's leg, */
    int hops[MAX_TABLES];                       /* and the gate's hop in each */
    int n_tables;
    int named, crossed;
    latrec_judge_hit hit;
    int n_segs, segs_path; /* segments of the path, once seen (path + 1) */
    latrec_segment segs[LATREC_MAX_SEGS];
};

latrec_judge *latrec_judge_new(const latrec_gate *gate, uint64_t since_ns)
{
    latrec_judge *j = calloc(1, sizeof(*j));
    if (!j) return NULL;
    j->gate = *gate;
    j->since_ns = since_ns;
    return j;
}

void latrec_judge_free(latrec_judge *j)
{
    free(j);
}

/* The gate names run path k: by the name shown or CATALOG:NAME. */
static int names_path(const latrec_judge *j, const latrec_path_index *ix, int k)
{
    return latrec_gate_names_path(&j->gate, latrec_path_index_name(ix, k)) ||
           latrec_gate_names_path(&j->gate, latrec_path_index_qualified(ix, k));
}

void latrec_judge_attach(latrec_judge *j, latrec_engine *e, latrec_pass_opts *po)
{
    j->e = e;
    const latrec_path_index *ix = latrec_engine_input(e)->paths; /* every catalog's paths */
    const char *path = NULL;
    for (int k = 0; k < latrec_path_index_n(ix) && !path; k++)
        if (names_path(j, ix, k)) path = latrec_path_index_name(ix, k);
    j->path_gate = path != NULL;
    if (!po) return;
    if (path) {
        po->paths = 1;
        po->path = path;
        po->no_legs = 1;
    } else {
        po->component = j->gate.component;
        po->leg = j->gate.leg;
    }
}

void latrec_judge_table(latrec_judge *j, const latrec_leg_table *t)
{
    if (j->path_gate || j->n_tables == MAX_TABLES ||
        !latrec_gate_names_leg(&j->gate, t->component_name, t->legdef.name))
        return;
    for (int h = 0; h < t->n_hops; h++)
        if (strcmp(t->hops[h].name, j->gate.row) == 0) {
            j->tables[j->n_tables] = t;
            j->hops[j->n_tables++] = h;
            j->named = 1;
        }
}

static void fill_row(const latrec_judge *j, latrec_judge_row *r, const char *name, int64_t ns, const latrec_hit *a,
                     const latrec_hit *b)
{
    const latrec_input *in = latrec_engine_input(j->e);
    snprintf(r->name, sizeof(r->name), "%s", name);
    r->ns = ns;
    r->t_a = a ? a->t_ns : 0;
    r->t_b = b ? b->t_ns : 0;
    r->tid_a = a ? latrec_ring_tid(&in->set.rings[a->ring]) : 0;
    r->tid_b = b ? latrec_ring_tid(&in->set.rings[b->ring]) : 0;
}

static void fill_ident(latrec_judge *j, const latrec_instance *inst, const latrec_hit *b)
{
    const latrec_input *in = latrec_engine_input(j->e);
    latrec_judge_hit *h = &j->hit;
    h->seq = inst->seq;
    h->start_ns = inst->first_t;
    h->pid = latrec_legs_process(latrec_pass_legs(latrec_engine_pass(j->e)), inst->process)->pid;
    snprintf(h->ring, sizeof(h->ring), "%s", b ? in->set.rings[b->ring].name : "");
}

int latrec_judge_value(latrec_judge *j, const latrec_leg_table *t, int hop, int64_t ns, const latrec_instance *inst)
{
    int k = 0;
    while (k < j->n_tables && j->tables[k] != t) k++;
    if (k == j->n_tables || hop != j->hops[k] || (double)ns <= j->gate.limit || inst->first_t < j->since_ns ||
        j->crossed)
        return 0;
    latrec_judge_hit *h = &j->hit;
    const latrec_hit *a, *b;
    latrec_hop_hits(&t->legdef, inst, &t->hops[hop], &a, &b);
    snprintf(h->component, sizeof(h->component), "%s", t->component_name);
    snprintf(h->name, sizeof(h->name), "%s", t->legdef.name);
    fill_row(j, &h->row, t->hops[hop].name, ns, a, b);
    fill_ident(j, inst, b);
    /* the hop that took the most but the total, for the explanation */
    int worst = -1;
    int64_t wv = 0, v;
    uint32_t ring;
    for (int i = 0; i < t->n_hops; i++) {
        if (!latrec_hop_value(&t->legdef, inst, &t->hops[i], &v, &ring)) continue;
        if (t->hops[i].total) {
            h->has_total = 1;
            h->total_ns = v;
        } else if (worst < 0 || v > wv) {
            worst = i;
            wv = v;
        }
    }
    if (worst < 0) worst = hop;
    latrec_hop_hits(&t->legdef, inst, &t->hops[worst], &a, &b);
    latrec_hop_value(&t->legdef, inst, &t->hops[worst], &wv, &ring);
    fill_row(j, &h->worst, t->hops[worst].name, wv, a, b);
    return j->crossed = 1;
}

int latrec_judge_path(latrec_judge *j, const latrec_path_instance *pi)
{
    const latrec_path_index *ix = latrec_engine_input(j->e)->paths; /* pi->path: run-wide */
    /* an incomplete instance names the path too (the run has it, as the
     * report lists it), but only a complete one has a value */
    if (!j->path_gate || pi->start_ns < j->since_ns || j->crossed || pi->path < 0 ||
        pi->path >= latrec_path_index_n(ix) || !names_path(j, ix, pi->path))
        return 0;
    if (j->segs_path != pi->path + 1) {
        j->n_segs = latrec_path_index_segments(ix, pi->path, j->segs);
        j->segs_path = pi->path + 1;
    }
    int s = -1, worst = -1;
    for (int k = 0; k < j->n_segs; k++)
        if (strcmp(j->segs[k].name, j->gate.row) == 0) s = k;
    if (s < 0) return 0;
    j->named = 1;
    if (!pi->complete) return 0;
    const latrec_hit *a, *b;
    int64_t v, wv = 0, tv;
    if (!latrec_path_index_segment_value(ix, pi, &j->segs[s], &v, &a, &b) || (double)v <= j->gate.limit) return 0;
    latrec_judge_hit *h = &j->hit;
    h->path = 1;
    snprintf(h->name, sizeof(h->name), "%s", latrec_path_index_name(ix, pi->path));
    fill_row(j, &h->row, j->segs[s].name, v, a, b);
    fill_ident(j, pi->legs[0], b ? b : a);
    h->start_ns = pi->start_ns;
    for (int k = 0; k < j->n_segs; k++) {
        if (!latrec_path_index_segment_value(ix, pi, &j->segs[k], &tv, &a, &b)) continue;
        if (j->segs[k].kind == LATREC_SEG_TOTAL) {
            h->has_total = 1;
            h->total_ns = tv;
        } else if (worst < 0 || tv > wv) {
            worst = k;
            wv = tv;
        }
    }
    if (worst < 0) worst = s;
    latrec_path_index_segment_value(ix, pi, &j->segs[worst], &wv, &a, &b);
    fill_row(j, &h->worst, j->segs[worst].name, wv, a, b);
    return j->crossed = 1;
}

int latrec_judge_crossed(const latrec_judge *j, latrec_judge_hit *hit)
{
    if (!j->crossed) return 0;
    *hit = j->hit;
    return 1;
}

int latrec_judge_named(const latrec_judge *j)
{
    return j->named;
}
