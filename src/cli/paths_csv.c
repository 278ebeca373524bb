/* paths.csv: one row per path instance. */
#include "cli/paths_csv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/csv.h"

#define MAX_LEGS (LATREC_MAX_PATHS * LATREC_MAX_PATH_LEGS)
#define MAX_COLS_SEGS (LATREC_MAX_PATHS * LATREC_MAX_SEGS)

struct latrec_paths_csv {
    latrec_csv csv;
    const latrec_input *in;
    const latrec_legs *legs;
    int legs_u[MAX_LEGS], n_legs_u;         /* the union of the paths' legs (catalog indexes) */
    char (*seg_u)[2 * LATREC_NAME_MAX + 8]; /* the union of segment names */
    int n_seg_u;
    /* per path: leg position -> union leg; segment -> union segment column */
    int leg_col[LATREC_MAX_PATHS][LATREC_MAX_PATH_LEGS];
    int seg_col[LATREC_MAX_PATHS][LATREC_MAX_SEGS];
    latrec_segment segs[LATREC_MAX_PATHS][LATREC_MAX_SEGS];
    int n_segs[LATREC_MAX_PATHS];
    int64_t val[MAX_COLS_SEGS];
    uint8_t has[MAX_COLS_SEGS];
    uint64_t rows;
};

static int union_leg(latrec_paths_csv *w, int leg)
{
    for (int i = 0; i < w->n_legs_u; i++)
        if (w->legs_u[i] == leg) return i;
    w->legs_u[w->n_legs_u] = leg;
    return w->n_legs_u++;
}

static int union_seg(latrec_paths_csv *w, const char *name)
{
    for (int i = 0; i < w->n_seg_u; i++)
        if (strcmp(w->seg_u[i], name) == 0) return i;
    snprintf(w->seg_u[w->n_seg_u], sizeof(w->seg_u[0]), "%s", name);
    return w->n_seg_u++;
}

static void header(latrec_paths_csv *w)
{
    const latrec_catalog *cat = &w->in->cat;
    latrec_csv *c = &w->csv;
    static const char *const first[] = { "path", "complete", "stopped_at", "reason", "start_ns", "end_ns" };
    for (size_t i = 0; i < sizeof(first) / sizeof(first[0]); i++) latrec_csv_str(c, first[i]);
    char name[2 * LATREC_NAME_MAX + 16], buf[8];
    for (int i = 0; i < w->n_legs_u; i++) {
        const latrec_leg *leg = &cat->legs[w->legs_u[i]];
        snprintf(name, sizeof(name), "%s_pid", leg->name);
        latrec_csv_str(c, name);
        snprintf(name, sizeof(name), "%s_seq", leg->name);
        latrec_csv_str(c, name);
        for (int s = 0; s < leg->n_chain; s++) {
            snprintf(name, sizeof(name), "%s_ns", latrec_catalog_stage_name(cat, leg->chain[s], buf));
            latrec_csv_str(c, name);
        }
    }
    for (int i = 0; i < w->n_seg_u; i++) {
        const char *arrow = strstr(w->seg_u[i], "->");
        if (arrow) snprintf(name, sizeof(name), "%.*s__%s_us", (int)(arrow - w->seg_u[i]), w->seg_u[i], arrow + 2);
        else snprintf(name, sizeof(name), "%s_us", w->seg_u[i]);
        latrec_csv_str(c, name);
    }
    latrec_csv_str(c, "total_us");
    latrec_csv_str(c, "drops_as_delay_us");
    latrec_csv_end(c);
}

latrec_paths_csv *latrec_paths_csv_open(const char *path, const latrec_input *in, const latrec_legs *legs)
{
    latrec_paths_csv *w = calloc(1, sizeof(*w));
    if (w) w->seg_u = calloc(MAX_COLS_SEGS, sizeof(*w->seg_u));
    if (!w || !w->seg_u) {
        if (w) free(w);
        errno = ENOMEM;
        return NULL;
    }
    w->in = in;
    w->legs = legs;
    const latrec_catalog *cat = &in->cat;
    for (int k = 0; k < cat->n_paths; k++) {
        const latrec_path *p = &cat->paths[k];
        for (int i = 0; i < p->n_legs; i++) w->leg_col[k][i] = union_leg(w, p->legs[i]);
        w->n_segs[k] = latrec_path_segments(cat, p, w->segs[k]);
        for (int s = 0; s + 1 < w->n_segs[k]; s++) w->seg_col[k][s] = union_seg(w, w->segs[k][s].name);
    }
    if (latrec_csv_open(&w->csv, path, NULL) < 0) {
        int e = errno;
        free(w->seg_u);
        free(w);
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
    const latrec_catalog *cat = &w->in->cat;
    const latrec_path *path = &cat->paths[pi->path];
    latrec_csv *c = &w->csv;
    latrec_csv_str(c, path->name);
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
            if (w->leg_col[pi->path][k] == i) inst = pi->legs[k];
        leg_cells(w, &cat->legs[w->legs_u[i]], inst);
    }
    memset(w->has, 0, (size_t)w->n_seg_u);
    const int n = w->n_segs[pi->path];
    int64_t total = 0;
    int has_total = 0;
    for (int s = 0; s < n; s++) {
        const latrec_hit *a, *b;
        int64_t v;
        if (!latrec_segment_value(cat, path, pi, &w->segs[pi->path][s], &v, &a, &b)) continue;
        if (s + 1 == n) {
            total = v;
            has_total = 1;
        } else {
            w->val[w->seg_col[pi->path][s]] = v;
            w->has[w->seg_col[pi->path][s]] = 1;
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

int latrec_paths_csv_close(latrec_paths_csv *w, uint64_t *rows)
{
    if (rows) *rows = w->rows;
    int rc = latrec_csv_close(&w->csv);
    int e = errno;
    free(w->seg_u);
    free(w);
    errno = e;
    return rc;
}
