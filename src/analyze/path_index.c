/* The paths of a whole run: numbered, named and assembled per catalog. */
#include "analyze/path_index.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct run_path {
    int cat, k;
    char shown[LATREC_PATH_NAME_MAX];
    char qualified[LATREC_PATH_NAME_MAX];
};

/* What an assembler's emit needs to renumber its instances. */
struct thunk {
    latrec_path_index *ix;
    int cat;
};

struct latrec_path_index {
    int n_cats, n;
    const latrec_catalog *cats[LATREC_LEGS_MAX_CATALOGS];
    int base[LATREC_LEGS_MAX_CATALOGS];
    struct run_path paths[LATREC_RUN_MAX_PATHS];
    /* assembling */
    latrec_paths *asm_[LATREC_LEGS_MAX_CATALOGS];
    latrec_paths *fed[LATREC_LEGS_MAX_CATALOGS]; /* asm_'s non-NULL ones, in order: what feed walks */
    int n_fed;
    struct thunk th[LATREC_LEGS_MAX_CATALOGS];
    latrec_path_emit_fn emit;
    void *ctx;
};

/* Number and name the catalogs' paths: a name two catalogs define is shown
 * qualified. */
static void index_paths(latrec_path_index *ix)
{
    for (int c = 0; c < ix->n_cats; c++) {
        const latrec_catalog *cat = ix->cats[c];
        ix->base[c] = ix->n;
        for (int k = 0; cat && k < cat->n_paths && ix->n < LATREC_RUN_MAX_PATHS; k++) {
            struct run_path *p = &ix->paths[ix->n++];
            p->cat = c;
            p->k = k;
            snprintf(p->qualified, sizeof(p->qualified), "%s:%s", cat->name, cat->paths[k].name);
        }
    }
    for (int g = 0; g < ix->n; g++) {
        struct run_path *p = &ix->paths[g];
        const char *bare = ix->cats[p->cat]->paths[p->k].name;
        int twice = 0;
        for (int o = 0; o < ix->n && !twice; o++)
            twice =
                ix->paths[o].cat != p->cat && strcmp(ix->cats[ix->paths[o].cat]->paths[ix->paths[o].k].name, bare) == 0;
        snprintf(p->shown, sizeof(p->shown), "%s", twice ? p->qualified : bare);
    }
}

latrec_path_index *latrec_path_index_new(const latrec_catalog *const *cats, int n_cats)
{
    latrec_path_index *ix = calloc(1, sizeof(*ix));
    if (!ix) return NULL;
    ix->n_cats = n_cats < LATREC_LEGS_MAX_CATALOGS ? n_cats : LATREC_LEGS_MAX_CATALOGS;
    for (int c = 0; c < ix->n_cats; c++) ix->cats[c] = cats[c];
    index_paths(ix);
    return ix;
}

static void renumber(void *ctx, const latrec_path_instance *pi)
{
    const struct thunk *t = ctx;
    latrec_path_instance run = *pi;
    run.path = t->ix->base[t->cat] + pi->path;
    t->ix->emit(t->ix->ctx, &run);
}

latrec_path_index *latrec_path_index_assemble(const latrec_legs *legs, const latrec_paths_opts *opts,
                                              latrec_path_emit_fn emit, void *ctx)
{
    const latrec_catalog *cats[LATREC_LEGS_MAX_CATALOGS];
    const int n_cats = latrec_legs_n_catalogs(legs);
    for (int c = 0; c < n_cats && c < LATREC_LEGS_MAX_CATALOGS; c++) cats[c] = latrec_legs_catalog(legs, c);
    latrec_path_index *ix = latrec_path_index_new(cats, n_cats);
    if (!ix) return NULL;
    ix->emit = emit;
    ix->ctx = ctx;
    for (int c = 0; c < ix->n_cats; c++) {
        if (!ix->cats[c] || !ix->cats[c]->n_paths) continue;
        ix->th[c] = (struct thunk){ ix, c };
        if (!(ix->asm_[c] = latrec_paths_new_catalog(legs, c, opts, renumber, &ix->th[c]))) {
            latrec_path_index_free(ix);
            return NULL;
        }
        ix->fed[ix->n_fed++] = ix->asm_[c];
    }
    return ix;
}

void latrec_path_index_free(latrec_path_index *ix)
{
    if (!ix) return;
    for (int c = 0; c < ix->n_cats; c++) latrec_paths_free(ix->asm_[c]);
    free(ix);
}

int latrec_path_index_n(const latrec_path_index *ix)
{
    return ix ? ix->n : 0;
}

int latrec_path_index_of(const latrec_path_index *ix, int c, int k)
{
    if (c < 0 || c >= ix->n_cats || !ix->cats[c] || k < 0 || k >= ix->cats[c]->n_paths) return -1;
    const int g = ix->base[c] + k;
    return g < ix->n ? g : -1;
}

int latrec_path_index_catalog_index(const latrec_path_index *ix, int path)
{
    return ix->paths[path].cat;
}

const latrec_catalog *latrec_path_index_catalog(const latrec_path_index *ix, int path)
{
    return ix->cats[ix->paths[path].cat];
}

const latrec_path *latrec_path_index_path(const latrec_path_index *ix, int path)
{
    return &ix->cats[ix->paths[path].cat]->paths[ix->paths[path].k];
}

const char *latrec_path_index_name(const latrec_path_index *ix, int path)
{
    return ix->paths[path].shown;
}
const char *latrec_path_index_qualified(const latrec_path_index *ix, int path)
{
    return ix->paths[path].qualified;
}

const char *latrec_path_index_leg_name(const latrec_path_index *ix, int path, int pos)
{
    return latrec_path_index_catalog(ix, path)->legs[latrec_path_index_path(ix, path)->legs[pos]].name;
}

int latrec_path_index_find(const latrec_path_index *ix, const char *name)
{
    if (!ix || !name) return LATREC_PATH_NONE;
    for (int g = 0; g < ix->n; g++)
        if (strcmp(ix->paths[g].shown, name) == 0) return g;
    for (int g = 0; g < ix->n; g++)
        if (strcmp(ix->paths[g].qualified, name) == 0) return g;
    for (int g = 0; g < ix->n; g++)
        if (strcmp(latrec_path_index_path(ix, g)->name, name) == 0) return LATREC_PATH_AMBIGUOUS;
    return LATREC_PATH_NONE;
}

/* names (qualified, or shown) of the paths `bare` matches (every path when
 * NULL), ", " between. */
static void list_names(const latrec_path_index *ix, const char *bare, char *buf, size_t len)
{
    size_t used = 0;
    if (!len) return;
    buf[0] = '\0';
    for (int g = 0; ix && g < ix->n; g++) {
        if (bare && strcmp(latrec_path_index_path(ix, g)->name, bare) != 0) continue;
        int w = snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
                         bare ? ix->paths[g].qualified : ix->paths[g].shown);
        if (w < 0 || (size_t)w >= len - used) {
            if (len > 4) memcpy(buf + len - 4, "...", 4);
            return;
        }
        used += (size_t)w;
    }
    if (!used) snprintf(buf, len, "none");
}

void latrec_path_index_list(const latrec_path_index *ix, char *buf, size_t len)
{
    list_names(ix, NULL, buf, len);
}

void latrec_path_index_candidates(const latrec_path_index *ix, const char *name, char *buf, size_t len)
{
    list_names(ix, name, buf, len);
}

int latrec_path_index_segments(const latrec_path_index *ix, int path, latrec_segment *out)
{
    return latrec_path_segments(latrec_path_index_catalog(ix, path), latrec_path_index_path(ix, path), out);
}

int latrec_path_index_segment_value(const latrec_path_index *ix, const latrec_path_instance *pi,
                                    const latrec_segment *s, int64_t *ns, const latrec_hit **a, const latrec_hit **b)
{
    (void)ix; /* the segment knows its stages' places (latrec_path_segments) */
    return latrec_segment_value(NULL, NULL, pi, s, ns, a, b);
}

__attribute__((noinline)) static int feed_every(latrec_path_index *ix, const latrec_instance *inst)
{
    int rc = 0;
    for (int i = 0; i < ix->n_fed; i++)
        if (latrec_paths_feed(ix->fed[i], inst) < 0) rc = -1;
    return rc;
}

int latrec_path_index_feed(latrec_path_index *ix, const latrec_instance *inst)
{
    if (ix->n_fed == 1) return latrec_paths_feed(ix->fed[0], inst); /* the usual run: one catalog's paths */
    return feed_every(ix, inst);
}

void latrec_path_index_finish(latrec_path_index *ix)
{
    for (int c = 0; c < ix->n_cats; c++)
        if (ix->asm_[c]) latrec_paths_finish(ix->asm_[c]);
}

const latrec_path_counts *latrec_path_index_counts(const latrec_path_index *ix, int path)
{
    if (!ix || path < 0 || path >= ix->n || !ix->asm_[ix->paths[path].cat]) return NULL;
    return latrec_paths_counts(ix->asm_[ix->paths[path].cat], ix->paths[path].k);
}

size_t latrec_path_index_open(const latrec_path_index *ix)
{
    size_t n = 0;
    for (int c = 0; c < ix->n_cats; c++)
        if (ix->asm_[c]) n += latrec_paths_open(ix->asm_[c]);
    return n;
}
