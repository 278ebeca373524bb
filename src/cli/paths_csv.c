/* paths.csv: one row per path instance. */
#include "cli/paths_csv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/csv.h"

#define MAX_LEGS (LATREC_RUN_MAX_PATHS * LATREC_MAX_PATH_LEGS)
#define MAX_COLS_SEGS (LATREC_RUN_MAX_PATHS * LATREC_MAX_SEGS)

/* A leg of some catalog (catalog index, leg index in it). */
struct cat_leg {
    int cat, leg;
};

/* Per run path: leg position -> union leg; segment -> union segment column. */
struct csv_path {
    int leg_col[LATREC_MAX_PATH_LEGS];
    int seg_col[LATREC_MAX_SEGS];
    latrec_segment segs[LATREC_MAX_SEGS];
    int n_segs;
};

struct latrec_paths_csv {
    latrec_csv csv;
    const latrec_input *in;
    const latrec_path_index *ix;
    const latrec_legs *legs;
    struct cat_leg legs_u[MAX_LEGS]; /* the union of the paths' legs */
    int n_legs_u;
    char (*seg_u)[2 * LATREC_NAME_MAX + 8]; /* the union of segment names, per catalog */
    int *seg_u_cat;
    int n_seg_u;
    struct csv_path *pp; /* per run path */
    int64_t val[MAX_COLS_SEGS];
    uint8_t has[MAX_COLS_SEGS];
    uint64_t rows;
};

static const latrec_catalog *cat_of(const latrec_paths_csv *w, int c)
{
    return w->in->cats[c];
}

static int union_leg(latrec_paths_csv *w, int cat, int leg)
{
    for (int i = 0; i < w->n_legs_u; i++)
        if (w->legs_u[i].cat == cat && w->legs_u[i].leg == leg) return i;
    w->legs_u[w->n_legs_u] = (struct cat_leg){ cat, leg };
    return w->n_legs_u++;
}

static int union_seg(latrec_paths_csv *w, int cat, const char *name)
{
    for (int i = 0; i < w->n_seg_u; i++)
        if (w->seg_u_cat[i] == cat && strcmp(w->seg_u[i], name) == 0) return i;
    snprintf(w->seg_u[w->n_seg_u], sizeof(w->seg_u[0]), "%s", name);
    w->seg_u_cat[w->n_seg_u] = cat;
    return w->n_seg_u++;
}

/* 1 when a leg of another catalog than cat in the union has a leg named
 * `leg` (stage < 0) or a chain stage named by stage id `stage` of cat. */
static int clashes(const latrec_paths_csv *w, int cat, const char *leg, int stage)
{
    char b1[8], b2[8];
    const char *want = stage < 0 ? leg : latrec_catalog_stage_name(cat_of(w, cat), (unsigned)stage, b1);
    for (int i = 0; i < w->n_legs_u; i++) {
        if (w->legs_u[i].cat == cat) continue;
        const latrec_catalog *oc = cat_of(w, w->legs_u[i].cat);
        const latrec_leg *ol = &oc->legs[w->legs_u[i].leg];
        if (stage < 0 && strcmp(ol->name, want) == 0) return 1;
        for (int s = 0; stage >= 0 && s < ol->n_chain; s++)
            if (strcmp(latrec_catalog_stage_name(oc, ol->chain[s], b2), want) == 0) return 1;
    }
    return 0;
}

/* A column name, CATALOG: in front when another catalog's paths use the
 * same name (latrec-format(5)). */
static void col_name(const latrec_paths_csv *w, int cat, int clash, const char *name, const char *suffix, char *buf,
                     size_t len)
{
    if (clash) snprintf(buf, len, "%s:%s%s", cat_of(w, cat)->name, name, suffix);
    else snprintf(buf, len, "%s%s", name, suffix);
}

static void header(latrec_paths_csv *w)
{
    latrec_csv *c = &w->csv;
    static const char *const first[] = { "path", "complete", "stopped_at", "reason", "start_ns", "end_ns" };
    for (size_t i = 0; i < sizeof(first) / sizeof(first[0]); i++) latrec_csv_str(c, first[i]);
    char name[LATREC_PATH_NAME_MAX + 2 * LATREC_NAME_MAX + 16], buf[8];
    for (int i = 0; i < w->n_legs_u; i++) {
        const int k = w->legs_u[i].cat;
        const latrec_catalog *cat = cat_of(w, k);
        const latrec_leg *leg = &cat->legs[w->legs_u[i].leg];
        const int clash = clashes(w, k, leg->name, -1);
        col_name(w, k, clash, leg->name, "_pid", name, sizeof(name));
        latrec_csv_str(c, name);
        col_name(w, k, clash, leg->name, "_seq", name, sizeof(name));
        latrec_csv_str(c, name);
        for (int s = 0; s < leg->n_chain; s++) {
            col_name(w, k, clashes(w, k, NULL, leg->chain[s]), latrec_catalog_stage_name(cat, leg->chain[s], buf),
                     "_ns", name, sizeof(name));
            latrec_csv_str(c, name);
        }
    }
    for (int i = 0; i < w->n_seg_u; i++) {
        int clash = 0;
        for (int o = 0; o < w->n_seg_u && !clash; o++)
            clash = w->seg_u_cat[o] != w->seg_u_cat[i] && strcmp(w->seg_u[o], w->seg_u[i]) == 0;
        char seg[2 * LATREC_NAME_MAX + 16];
        const char *arrow = strstr(w->seg_u[i], "->");
        if (arrow) snprintf(seg, sizeof(seg), "%.*s__%s", (int)(arrow - w->seg_u[i]), w->seg_u[i], arrow + 2);
        else snprintf(seg, sizeof(seg), "%s", w->seg_u[i]);
        col_name(w, w->seg_u_cat[i], clash, seg, "_us", name, sizeof(name));
        latrec_csv_str(c, name);
    }
    latrec_csv_str(c, "total_us");
    latrec_csv_str(c, "drops_as_delay_us");
    latrec_csv_end(c);
}

static void csv_free(latrec_paths_csv *w)
{
    free(w->seg_u);
    free(w->seg_u_cat);
    free(w->pp);
    free(w);
}

latrec_paths_csv *latrec_paths_csv_open(const char *path, const latrec_input *in, const latrec_legs *legs,
                                        latrec_outset *set, char *err, size_t errlen)
{
    const int n = latrec_path_index_n(in->paths);
    latrec_paths_csv *w = calloc(1, sizeof(*w));
    if (w) {
        w->seg_u = calloc(MAX_COLS_SEGS, sizeof(*w->seg_u));
        w->seg_u_cat = calloc(MAX_COLS_SEGS, sizeof(*w->seg_u_cat));
        w->pp = calloc((size_t)n + 1, sizeof(*w->pp));
    }
    if (!w || !w->seg_u || !w->seg_u_cat || !w->pp) {
        if (w) csv_free(w);
        snprintf(err, errlen, "%s: out of memory", path);
        errno = ENOMEM;
        return NULL;
    }
    w->in = in;
    w->ix = in->paths;
    w->legs = legs;
    for (int k = 0; k < n; k++) {
        const latrec_path *p = latrec_path_index_path(w->ix, k);
        const int cat = latrec_path_index_catalog_index(w->ix, k);
        struct csv_path *pp = &w->pp[k];
        for (int i = 0; i < p->n_legs; i++) pp->leg_col[i] = union_leg(w, cat, p->legs[i]);
        pp->n_segs = latrec_path_index_segments(w->ix, k, pp->segs);
        for (int s = 0; s + 1 < pp->n_segs; s++) pp->seg_col[s] = union_seg(w, cat, pp->segs[s].name);
    }
    if (latrec_csv_open(&w->csv, path, set, err, errlen) < 0) {
        int e = errno;
        csv_free(w);
        errno = e;
        return NULL;
    }
    header(w);
    return w;
}

/* One leg's columns: pid, seq, its chain stages' times. */
static void leg_cells(latrec_paths_csv *w, const latrec_leg *leg, const latrec_instance *inst)
{
    latrec_csv *c = &w->csv;
    if (!inst) {
        for (int s = 0; s < leg->n_chain + 2; s++) latrec_csv_empty(c);
        return;
    }
    const latrec_process *proc = latrec_legs_process(w->legs, inst->process);
    if (proc->pid) latrec_csv_u64(c, proc->pid);
    else latrec_csv_empty(c);
    latrec_csv_u64(c, inst->seq);
    for (int s = 0; s < leg->n_chain; s++) {
        if (s < inst->n_hits && inst->hits[s].t_ns) latrec_csv_u64(c, inst->hits[s].t_ns);
        else latrec_csv_empty(c);
    }
}

void latrec_paths_csv_add(latrec_paths_csv *w, const latrec_path_instance *pi)
{
    const latrec_catalog *cat = latrec_path_index_catalog(w->ix, pi->path);
    const latrec_path *path = latrec_path_index_path(w->ix, pi->path);
    const struct csv_path *pp = &w->pp[pi->path];
    latrec_csv *c = &w->csv;
    latrec_csv_str(c, latrec_path_index_name(w->ix, pi->path));
    latrec_csv_u64(c, pi->complete != 0);
    if (pi->complete) {
        latrec_csv_empty(c);
        latrec_csv_empty(c);
    } else {
        latrec_csv_str(c, cat->legs[path->legs[pi->stop_pos]].name);
        latrec_csv_str(c, latrec_path_stop_name(pi->stop_reason));
    }
    latrec_csv_u64(c, pi->start_ns);
    if (pi->complete) latrec_csv_u64(c, pi->end_ns);
    else latrec_csv_empty(c);
    for (int i = 0; i < w->n_legs_u; i++) {
        const latrec_instance *inst = NULL;
        for (int k = 0; k < path->n_legs; k++)
            if (pp->leg_col[k] == i) inst = pi->legs[k];
        leg_cells(w, &cat_of(w, w->legs_u[i].cat)->legs[w->legs_u[i].leg], inst);
    }
    memset(w->has, 0, (size_t)w->n_seg_u);
    const int n = pp->n_segs;
    int64_t total = 0;
    int has_total = 0;
    for (int s = 0; s < n; s++) {
        const latrec_hit *a, *b;
        int64_t v;
        if (!latrec_path_index_segment_value(w->ix, pi, &pp->segs[s], &v, &a, &b)) continue;
        if (s + 1 == n) {
            total = v;
            has_total = 1;
        } else {
            w->val[pp->seg_col[s]] = v;
            w->has[pp->seg_col[s]] = 1;
        }
    }
    for (int i = 0; i < w->n_seg_u; i++) {
        if (w->has[i]) latrec_csv_us(c, w->val[i]);
        else latrec_csv_empty(c);
    }
    if (has_total && pi->complete) latrec_csv_us(c, total);
    else latrec_csv_empty(c);
    if (!pi->complete && pi->delay_end_ns) latrec_csv_us(c, (int64_t)(pi->delay_end_ns - pi->start_ns));
    else latrec_csv_empty(c);
    latrec_csv_end(c);
    w->rows++;
}

int latrec_paths_csv_close(latrec_paths_csv *w, uint64_t *rows, char *err, size_t errlen)
{
    if (rows) *rows = w->rows;
    int rc = latrec_csv_close(&w->csv, err, errlen);
    int e = errno;
    csv_free(w);
    errno = e;
    return rc;
}

void latrec_paths_csv_abort(latrec_paths_csv *w)
{
    if (!w) return;
    latrec_csv_abort(&w->csv);
    csv_free(w);
}
