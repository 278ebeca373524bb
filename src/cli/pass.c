/* One analysis pass over a run. */
#include "cli/pass.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/stats.h"

struct latrec_pass {
    latrec_input *in;
    latrec_pass_opts opts;
    latrec_pass_sinks sinks;
    latrec_legs *legs;
    latrec_leg_table **tables;
    int n_tables, cap_tables;
    latrec_leg_table **index; /* [component * index_legs + leg], grown on demand */
    int index_comps, index_legs;
    uint64_t begin, warm_skipped;
    int failed;
};

static int selected(const latrec_pass *p, int component, int leg)
{
    if (p->opts.component && strcmp(p->opts.component, latrec_legs_component_name(p->legs, component)) != 0)
        return 0;
    if (p->opts.leg && strcmp(p->opts.leg, latrec_legs_leg(p->legs, leg)->name) != 0) return 0;
    return 1;
}

/* The table of (component, leg), created on first use; NULL when not
 * selected or on failure. */
static latrec_leg_table *table_for(latrec_pass *p, int component, int leg)
{
    int n_comp = latrec_legs_n_components(p->legs), n_legs = latrec_legs_n_legs(p->legs);
    if (component >= p->index_comps || leg >= p->index_legs) {
        int nc = n_comp, nl = n_legs + 16;
        latrec_leg_table **idx = calloc((size_t)nc * (size_t)nl, sizeof(*idx));
        if (!idx) {
            p->failed = 1;
            return NULL;
        }
        for (int c = 0; c < p->index_comps; c++)
            for (int l = 0; l < p->index_legs; l++) idx[c * nl + l] = p->index[c * p->index_legs + l];
        free(p->index);
        p->index = idx;
        p->index_comps = nc;
        p->index_legs = nl;
    }
    latrec_leg_table **slot = &p->index[component * p->index_legs + leg];
    if (*slot) return *slot;
    if (!selected(p, component, leg)) return NULL;
    const latrec_leg *def = latrec_legs_leg(p->legs, leg);
    latrec_leg_table *t = calloc(1, sizeof(*t));
    if (!t) {
        p->failed = 1;
        return NULL;
    }
    t->component = component;
    t->leg = leg;
    t->legdef = *def;
    snprintf(t->component_name, sizeof(t->component_name), "%s", latrec_legs_component_name(p->legs, component));
    t->n_hops = latrec_leg_hops(&p->in->cat, def, &p->opts.hops, t->hops);
    if (p->opts.hops.n && t->n_hops == 0) {
        free(t);
        return NULL; /* the selection names no hop of this leg: not shown */
    }
    if (p->n_tables == p->cap_tables) {
        int cap = p->cap_tables ? p->cap_tables * 2 : 16;
        latrec_leg_table **tt = realloc(p->tables, (size_t)cap * sizeof(*tt));
        if (!tt) {
            free(t);
            p->failed = 1;
            return NULL;
        }
        p->tables = tt;
        p->cap_tables = cap;
    }
    if (p->sinks.table_new && p->sinks.table_new(p->sinks.ctx, t) < 0) {
        free(t);
        p->failed = 1;
        return NULL;
    }
    p->tables[p->n_tables++] = t;
    *slot = t;
    return t;
}

static void on_instance(void *ctx, const latrec_instance *inst)
{
    latrec_pass *p = ctx;
    if (inst->first_t < p->begin + p->opts.warmup_ns) {
        p->warm_skipped++;
        return;
    }
    latrec_leg_table *t = table_for(p, inst->component, inst->leg);
    if (!t) return;
    t->instances++;
    t->complete += inst->complete != 0;
    const latrec_leg *leg = latrec_legs_leg(p->legs, inst->leg);
    for (int h = 0; h < t->n_hops; h++) {
        int64_t v;
        uint32_t ring;
        if (!latrec_hop_value(leg, inst, &t->hops[h], &v, &ring)) continue;
        /* A real hop shorter than the clock cost calibrates to 0, not to a
         * clock regression: regressions are judged on the raw hop. */
        if (p->opts.calibrate && v >= 0) {
            v = latrec_calibrate(v, p->in->set.rings[ring].clock_ns_per_call);
            if (v < 0) v = 0;
        }
        p->sinks.value(p->sinks.ctx, t, h, v, inst);
    }
    if (p->sinks.instance) p->sinks.instance(p->sinks.ctx, t, inst);
}

latrec_pass *latrec_pass_run(latrec_input *in, const latrec_pass_opts *opts, const latrec_pass_sinks *sinks)
{
    latrec_pass *p = calloc(1, sizeof(*p));
    if (!p) {
        fprintf(stderr, "latrec: out of memory\n");
        return NULL;
    }
    p->in = in;
    p->opts = *opts;
    p->sinks = *sinks;
    latrec_input_totals tot;
    latrec_input_totals_get(in, &tot);
    p->begin = in->have_start && in->start_ns > tot.first_t ? in->start_ns : tot.first_t;
    p->legs = latrec_legs_new(&in->cat, &in->set, in->ring_dir, 0, 0, on_instance, p);
    latrec_merge m;
    if (!p->legs || latrec_input_rewind(in, &m) < 0) {
        if (!p->legs) fprintf(stderr, "latrec: out of memory\n");
        latrec_pass_free(p);
        return NULL;
    }
    latrec_merged ev;
    while (latrec_input_next(in, &m, &ev)) {
        if ((int)ev.ring == in->sched_ring) continue;
        int leg = latrec_legs_feed(p->legs, ev.ring, &ev.rec);
        if (leg >= 0 && p->sinks.first_stage && latrec_legs_leg(p->legs, leg)->chain[0] == latrec_rec_stage(ev.rec.sc) &&
            ev.rec.t_ns >= p->begin + p->opts.warmup_ns) {
            latrec_leg_table *t = table_for(p, latrec_legs_ring_component(p->legs, ev.ring), leg);
            if (t) p->sinks.first_stage(p->sinks.ctx, t, ev.rec.t_ns);
        }
    }
    latrec_legs_finish(p->legs);
    latrec_merge_free(&m);
    if (p->failed) {
        fprintf(stderr, "latrec: out of memory\n");
        latrec_pass_free(p);
        return NULL;
    }
    return p;
}

latrec_leg_table **latrec_pass_tables(latrec_pass *p, int *n)
{
    *n = p->n_tables;
    return p->tables;
}

latrec_legs *latrec_pass_legs(latrec_pass *p) { return p->legs; }
uint64_t latrec_pass_warmup_skipped(const latrec_pass *p) { return p->warm_skipped; }
uint64_t latrec_pass_begin(const latrec_pass *p) { return p->begin; }

void latrec_pass_free(latrec_pass *p)
{
    if (!p) return;
    for (int i = 0; i < p->n_tables; i++) free(p->tables[i]);
    free(p->tables);
    free(p->index);
    latrec_legs_free(p->legs);
    free(p);
}
