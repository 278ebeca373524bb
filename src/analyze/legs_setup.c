/* The leg builder's setup: its catalogs indexed, rings, roles and
 * processes; growing it when live rings join; freeing it. */
#include "analyze/legs_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- setup ---------------------------------------------------------------- */

uint32_t latrec_ring_tid(const latrec_ring *r)
{
    if (r->tid) return r->tid;
    const char *dot = strrchr(r->name, '.');
    if (!dot || !dot[1]) return 0;
    char *end;
    unsigned long v = strtoul(dot + 1, &end, 10);
    return *end ? 0 : (uint32_t)v;
}

static int component_index(latrec_legs *b, const char *name)
{
    for (int i = 0; i < b->n_components; i++)
        if (strcmp(b->components[i], name) == 0) return i;
    snprintf(b->components[b->n_components], LATREC_NAME_MAX, "%s", name);
    return b->n_components++;
}

static uint32_t process_index(latrec_legs *b, uint32_t pid, int dir, int comp)
{
    for (uint32_t i = 0; i < b->n_processes; i++) {
        const latrec_process *p = &b->processes[i];
        if (p->pid == pid && p->dir == dir && (pid || p->component == comp)) return i;
    }
    latrec_process *p = &b->processes[b->n_processes];
    p->pid = pid;
    p->dir = dir;
    p->component = pid ? -1 : comp;
    if (pid) snprintf(p->label, sizeof(p->label), "pid %u", pid);
    else snprintf(p->label, sizeof(p->label), "%s (no pid)", b->components[comp]);
    return b->n_processes++;
}

/* Length of a ring name's role: the name without a trailing ".<digits>"
 * ("libe3.outbound.42" -> "libe3.outbound", "libe3.pub" stays). */
static size_t role_len(const char *name)
{
    const char *dot = strrchr(name, '.');
    if (!dot || !dot[1] || strspn(dot + 1, "0123456789") != strlen(dot + 1)) return strlen(name);
    return (size_t)(dot - name);
}

static int role_index(latrec_legs *b, const latrec_ringset *set, size_t ring)
{
    const char *name = set->rings[ring].name[0] ? set->rings[ring].name : set->rings[ring].basename;
    size_t len = role_len(name);
    for (size_t j = 0; j < ring; j++) {
        const char *o = set->rings[j].name[0] ? set->rings[j].name : set->rings[j].basename;
        if (role_len(o) == len && strncmp(o, name, len) == 0) return b->ring_role[j];
    }
    return b->n_roles++;
}

static void add_cand(latrec_legs *b, int c, unsigned stage, int g, const latrec_leg *leg, int pos, int extra)
{
    if (!extra) b->n_chain_cands[c][stage]++;
    if (b->n_cands[c][stage] == MAX_CANDS) return;
    struct cand *cd = &b->cands[c][stage][b->n_cands[c][stage]++];
    cd->leg = (int16_t)g;
    cd->pos = (int8_t)pos;
    cd->extra = (int8_t)extra;
    cd->idx = (uint8_t)(extra ? leg->n_chain + pos : pos);
    cd->last = !extra && pos == leg->n_chain - 1;
    cd->n_slots = (uint8_t)(leg->n_chain + leg->n_extras);
    cd->no_extras = cd->last && leg->n_extras == 0;
    cd->all = (1u << cd->n_slots) - 1;
    cd->before = leg->n_chain ? (1u << (leg->n_chain - 1)) - 1 : 0;
}

/* Copy the catalogs' legs and index their stages: per catalog and stage,
 * the candidate legs, chain memberships first, then extras. */
static int index_catalogs(latrec_legs *b)
{
    int total = 0;
    for (int c = 0; c < b->n_cats; c++) total += b->cats[c]->n_legs;
    b->cap_legs = total + 64;
    b->legs = malloc((size_t)b->cap_legs * sizeof(*b->legs));
    b->leg_cat = malloc((size_t)b->cap_legs * sizeof(*b->leg_cat));
    b->cands = calloc((size_t)b->n_cats, sizeof(*b->cands));
    b->n_cands = calloc((size_t)b->n_cats, sizeof(*b->n_cands));
    b->n_chain_cands = calloc((size_t)b->n_cats, sizeof(*b->n_chain_cands));
    b->shared_recs = calloc((size_t)b->n_cats, sizeof(*b->shared_recs));
    b->leg_reversed = calloc((size_t)total + 1, sizeof(*b->leg_reversed));
    b->leg_ended = calloc((size_t)total + 1, sizeof(*b->leg_ended));
    b->leg_twice = calloc((size_t)total + 1, sizeof(*b->leg_twice));
    b->disc_ended = calloc((size_t)b->n_cats + 1, sizeof(*b->disc_ended));
    b->disc_twice = calloc((size_t)b->n_cats + 1, sizeof(*b->disc_twice));
    b->leg_reversed_pair = calloc((size_t)total + 1, sizeof(*b->leg_reversed_pair));
    if (!b->legs || !b->leg_cat || !b->cands || !b->n_cands || !b->n_chain_cands || !b->shared_recs ||
        !b->leg_reversed || !b->leg_ended || !b->leg_twice || !b->leg_reversed_pair || !b->disc_ended ||
        !b->disc_twice)
        return -1;
    for (int c = 0; c < b->n_cats; c++) {
        const latrec_catalog *cat = b->cats[c];
        b->cat_base[c] = b->n_legs;
        for (int l = 0; l < cat->n_legs; l++) {
            b->legs[b->n_legs] = cat->legs[l];
            b->leg_cat[b->n_legs++] = c;
        }
        for (int pass = 0; pass < 2; pass++)
            for (int l = 0; l < cat->n_legs; l++) {
                const latrec_leg *leg = &cat->legs[l];
                const int g = b->cat_base[c] + l;
                if (pass == 0)
                    for (int i = 0; i < leg->n_chain; i++) add_cand(b, c, leg->chain[i], g, leg, i, 0);
                else
                    for (int i = 0; i < leg->n_extras; i++) add_cand(b, c, leg->extras[i], g, leg, i, 1);
            }
    }
    b->cat_base[b->n_cats] = b->n_cat_legs = b->n_legs;
    uint8_t *first = malloc((size_t)b->n_cat_legs + 1);
    if (!first) return -1;
    for (int l = 0; l < b->n_cat_legs; l++) first[l] = b->legs[l].chain[0];
    b->view.first_stage = first;
    return 0;
}

/* Ring i's catalog, component, role and process. */
static void index_ring(latrec_legs *b, const latrec_ringset *set, size_t i, const int *ring_cat, const int *ring_dir)
{
    const latrec_ring *r = &set->rings[i];
    b->ring_cat[i] = ring_cat && ring_cat[i] >= 0 && ring_cat[i] < b->n_cats ? ring_cat[i] : 0;
    char comp[LATREC_NAME_MAX];
    latrec_catalog_component(b->cats[b->ring_cat[i]], r->name[0] ? r->name : r->basename, comp, sizeof(comp));
    b->ring_component[i] = component_index(b, comp);
    b->ring_role[i] = role_index(b, set, i);
    if (r->status != LATREC_RING_OK) return;
    uint32_t pid = r->version >= 3 ? r->pid : 0;
    if (!pid) b->guessed = 1;
    b->ring_process[i] = process_index(b, pid, ring_dir ? ring_dir[i] : 0, b->ring_component[i]);
}

latrec_legs *latrec_legs_new(const latrec_catalog *cat, const latrec_ringset *set,
                             const int *ring_dir, uint64_t horizon_ns, size_t max_open,
                             latrec_emit_fn emit, void *ctx)
{
    return latrec_legs_new_multi(&cat, 1, NULL, set, ring_dir, horizon_ns, max_open, emit, ctx);
}

latrec_legs *latrec_legs_new_multi(const latrec_catalog *const *cats, int n_cats, const int *ring_cat,
                                   const latrec_ringset *set, const int *ring_dir, uint64_t horizon_ns,
                                   size_t max_open, latrec_emit_fn emit, void *ctx)
{
    if (n_cats < 1 || n_cats > LATREC_LEGS_MAX_CATALOGS) return NULL;
    latrec_legs *b = calloc(1, sizeof(*b));
    if (!b) return NULL;
    for (int c = 0; c < n_cats; c++) b->cats[c] = cats[c];
    b->n_cats = n_cats;
    b->emit = emit;
    b->ctx = ctx;
    b->horizon = horizon_ns ? horizon_ns : LATREC_LEGS_HORIZON_NS;
    b->max_open = max_open ? max_open : 1000000;
    b->grace = LATREC_LEGS_GRACE_NS;
    b->hdue = UINT64_MAX;
    b->n_rings = set->n;
    b->ring_cat = calloc(set->n + 1, sizeof(int));
    b->ring_component = calloc(set->n + 1, sizeof(int));
    b->ring_process = calloc(set->n + 1, sizeof(uint32_t));
    b->components = calloc(set->n + 1, sizeof(*b->components));
    b->processes = calloc(set->n + 1, sizeof(*b->processes));
    b->ring_role = calloc(set->n + 1, sizeof(int));
    b->ring_fast = aligned_alloc(64, (set->n + 1) * sizeof(*b->ring_fast));
    b->ring_roles = calloc(set->n + 1, sizeof(*b->ring_roles));
    b->table_cap = 1024;
    b->table_shift = 64 - 10;
    b->table = latrec_legs_table_new(b->table_cap);
    if (!b->ring_cat || !b->ring_component || !b->ring_process || !b->components || !b->processes ||
        !b->ring_role || !b->ring_fast || !b->ring_roles || !b->table || index_catalogs(b) < 0) {
        latrec_legs_free(b);
        return NULL;
    }
    for (size_t i = 0; i < set->n; i++) index_ring(b, set, i, ring_cat, ring_dir);
    b->leg_roles_stride = (size_t)b->n_cat_legs + 1;
    b->leg_roles = calloc(b->leg_roles_stride * (size_t)(b->n_roles + 1), 1);
    b->wins = calloc((set->n + 1) * (size_t)b->n_cat_legs + 1, sizeof(*b->wins)); /* a process per ring at most */
    if (!b->leg_roles || !b->wins) {
        latrec_legs_free(b);
        return NULL;
    }
    latrec_legs_wins_init(b, 0, set->n + 1);
    for (size_t i = 0; i < set->n; i++) latrec_legs_ring_fast(b, i);
    return b;
}

/* *p grown from old + 1 to n + 1 elements of size sz, the new ones zero. */
static int grow(void *p, size_t old, size_t n, size_t sz)
{
    void *q = realloc(*(void **)p, (n + 1) * sz);
    if (!q) return -1;
    memset((char *)q + (old + 1) * sz, 0, (n - old) * sz);
    *(void **)p = q;
    return 0;
}

int latrec_legs_add_rings(latrec_legs *b, const latrec_ringset *set, const int *ring_cat, const int *ring_dir)
{
    const size_t old = b->n_rings, n = set->n;
    if (n <= old) return 0;
    /* one component and one process per ring at most, as in new_multi */
    if (grow(&b->ring_cat, old, n, sizeof(*b->ring_cat)) < 0 ||
        grow(&b->ring_component, old, n, sizeof(*b->ring_component)) < 0 ||
        grow(&b->ring_process, old, n, sizeof(*b->ring_process)) < 0 ||
        grow(&b->components, old, n, sizeof(*b->components)) < 0 ||
        grow(&b->processes, old, n, sizeof(*b->processes)) < 0 || grow(&b->ring_role, old, n, sizeof(*b->ring_role)) < 0 ||
        grow(&b->ring_fast, old, n, sizeof(*b->ring_fast)) < 0 || grow(&b->ring_roles, old, n, sizeof(*b->ring_roles)) < 0 ||
        grow(&b->wins, old, n, (size_t)b->n_cat_legs * sizeof(*b->wins)) < 0)
        return -1;
    latrec_legs_wins_init(b, old + 1, n + 1);
    const int old_roles = b->n_roles;
    for (size_t i = old; i < n; i++) index_ring(b, set, i, ring_cat, ring_dir);
    b->n_rings = n;
    int rc = 0;
    if (b->n_roles > old_roles) {
        /* leg_roles is a row per role: the new roles' rows, zero */
        uint8_t *lr = realloc(b->leg_roles, b->leg_roles_stride * (size_t)(b->n_roles + 1));
        if (!lr) {
            b->n_roles = old_roles; /* the new rings share the last role: a hint lost, nothing broken */
            for (size_t i = old; i < n; i++)
                if (b->ring_role[i] >= old_roles) b->ring_role[i] = old_roles ? old_roles - 1 : 0;
            rc = -1;
        } else {
            memset(lr + b->leg_roles_stride * (size_t)(old_roles + 1), 0,
                   b->leg_roles_stride * (size_t)(b->n_roles - old_roles));
            b->leg_roles = lr;
        }
    }
    for (size_t i = 0; i < n; i++) latrec_legs_ring_fast(b, i); /* leg_roles may have moved */
    return rc;
}

void latrec_legs_ring_fast(latrec_legs *b, size_t i)
{
    const int cat = b->ring_cat[i];
    struct ring_fast *f = &b->ring_fast[i];
    struct win *wins = b->wins + (size_t)b->ring_process[i] * (size_t)b->n_cat_legs;
    uint8_t *roles = b->ring_roles[i] = b->leg_roles + (size_t)b->ring_role[i] * b->leg_roles_stride;
    for (int st = 0; st < 256; st++) {
        const struct cand *c = &b->cands[cat][st][0];
        f->st[st] = b->n_cands[cat][st] == 1
                        ? (struct usual){ &wins[c->leg], c, &roles[c->leg], c->pos == 0 && !c->extra }
                        : (struct usual){ NULL, NULL, NULL, 0 };
    }
}

void latrec_legs_free(latrec_legs *b)
{
    if (!b) return;
    for (size_t i = 0; i < b->n_slabs; i++) free(b->slabs[i]);
    free(b->slabs);
    free(b->legs);
    free(b->leg_cat);
    for (int i = 0; i < b->n_retired; i++) free(b->retired[i]);
    free(b->cands);
    free(b->n_cands);
    free(b->n_chain_cands);
    free(b->shared_recs);
    free(b->leg_reversed);
    free(b->leg_ended);
    free(b->leg_twice);
    free(b->disc_ended);
    free(b->disc_twice);
    free(b->leg_reversed_pair);
    free(b->ring_cat);
    free(b->ring_component);
    free(b->ring_process);
    free(b->components);
    free(b->processes);
    free(b->ring_role);
    free(b->leg_roles);
    free(b->ring_fast);
    free(b->ring_roles);
    free(b->table);
    free(b->gq);
    free(b->oq);
    if (b->wins)
        for (size_t i = 0; i < (b->n_rings + 1) * (size_t)b->n_cat_legs; i++)
            if (b->wins[i].cap) free(b->wins[i].e);
    free(b->wins);
    free((void *)b->view.first_stage);
    free(b);
}
