/* What a pass tells its user besides figures: the leg builder's modelling
 * warnings, the path joins that matched nothing, the horizon's cuts, and
 * the checks of --hop and --path names against the run (engine/pass.h). */
#include <stdio.h>
#include <string.h>

#include "engine/pass.h"
#include "util/prog.h"

void latrec_pass_print_warnings(const latrec_legs *legs)
{
    char line[512];
    for (int i = 0; latrec_legs_warning(legs, i, line, sizeof(line)); i++)
        fprintf(stderr, "%s: %s\n", latrec_prog, line);
}

/* "ingest.request = answer.request" */
static void join_text(const latrec_catalog *cat, const latrec_join *j, char *buf, size_t len)
{
    const latrec_leg *a = &cat->legs[j->leg_a], *b = &cat->legs[j->leg_b];
    snprintf(buf, len, "%s.%s = %s.%s", a->name, j->key_a < 0 ? "seq" : a->keys[j->key_a].column, b->name,
             j->key_b < 0 ? "seq" : b->keys[j->key_b].column);
}

void latrec_pass_print_join_warnings(const latrec_path_index *paths)
{
    for (int k = 0; k < latrec_path_index_n(paths); k++) {
        const latrec_catalog *cat = latrec_path_index_catalog(paths, k);
        const latrec_path *path = latrec_path_index_path(paths, k);
        const latrec_path_counts *c = latrec_path_index_counts(paths, k);
        /* none of the later legs stamped at all (a program that stamps the
         * first leg only): nothing the join could have matched */
        if (!c || c->complete || !c->unanchored) continue;
        /* The first join that linked no two instances, with instances
         * stopped at its leg (an incomplete leg instance that did join is
         * not this join's fault). */
        for (int i = 1; i < path->n_legs; i++) {
            uint64_t here = 0;
            for (int r = 0; r < LATREC_PATH_N_STOPS; r++) here += c->stopped[i][r];
            if (c->joined[i]) continue;
            if (!here) break;
            char jt[2 * LATREC_NAME_MAX * 2 + 16];
            join_text(cat, &cat->joins[path->joins[i]], jt, sizeof(jt));
            fprintf(stderr,
                    "%s: catalog '%s': path %s: join %s matched nothing (%llu path instances stopped "
                    "there, %llu instances of later legs never joined)\n",
                    latrec_prog, cat->name, path->name, jt, (unsigned long long)here,
                    (unsigned long long)c->unanchored);
            break;
        }
    }
}

void latrec_pass_cut_note(const latrec_legs *legs, char *buf, size_t len)
{
    const double h = (double)latrec_legs_horizon(legs) / 1e9;
    int w = snprintf(buf, len, "%g s, %llu instances cut unfinished by it", h,
                     (unsigned long long)latrec_legs_cut_horizon(legs));
    if (latrec_legs_cut_room(legs) && w >= 0 && (size_t)w < len)
        snprintf(buf + w, len - (size_t)w, "; %llu more ended unfinished for room (too many open)",
                 (unsigned long long)latrec_legs_cut_room(legs));
}

int latrec_hop_specs_resolve(latrec_hop_select *hops, const latrec_input *in, const char *const *specs, int n,
                             const char *cmd)
{
    for (int i = 0; i < n; i++)
        if (latrec_hop_select_add(hops, in->cats, in->n_cats, specs[i]) < 0) {
            fprintf(stderr,
                    "latrec %s: --hop %s: unknown stage (stages are named as in a catalog of the run, "
                    "or by id like 0x21)\n",
                    cmd, specs[i]);
            return -1;
        }
    return 0;
}

int latrec_pass_names_resolve(latrec_hop_select *hops, latrec_input *in, const char *const *specs, int n,
                              const char *path, const char *cmd)
{
    latrec_hop_select scratch;
    memset(&scratch, 0, sizeof(scratch));
    int bad = 0;
    for (int i = 0; i < n && !bad; i++) bad = latrec_hop_select_add(&scratch, in->cats, in->n_cats, specs[i]) < 0;
    if (!bad && path) bad = latrec_path_index_find(in->paths, path) < 0;
    if (bad) (void)latrec_input_settle(in, NULL);
    if (latrec_hop_specs_resolve(hops, in, specs, n, cmd) < 0) return -1;
    return path ? latrec_path_check_name(in, path, cmd) : 0;
}

int latrec_path_check_name(const latrec_input *in, const char *name, const char *cmd)
{
    const int k = latrec_path_index_find(in->paths, name);
    if (k >= 0) return 0;
    char names[1024];
    if (k == LATREC_PATH_AMBIGUOUS) {
        latrec_path_index_candidates(in->paths, name, names, sizeof(names));
        fprintf(stderr,
                "latrec %s: --path %s: several catalogs of this run have a path of that name: name it with "
                "its catalog (%s)\n",
                cmd, name, names);
    } else {
        latrec_path_index_list(in->paths, names, sizeof(names));
        fprintf(stderr, "latrec %s: --path %s: no such path in this run (paths: %s)\n", cmd, name, names);
    }
    return -1;
}
