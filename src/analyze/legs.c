/* Leg instances: key records by (process, leg, seq), end instances, discover
 * uncatalogued chains. */
#include "analyze/legs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CANDS 6
#define LATREC_UNLIKELY_(x) __builtin_expect(!!(x), 0)
#define DISC_HITS LATREC_MAX_CHAIN

struct cand {
    int16_t leg;
    int8_t  pos;   /* chain or extra position */
    int8_t  extra; /* 1: an extra of the leg */
};

struct node {
    struct node *prev, *next; /* open list, in order of creation */
    uint64_t gpos;            /* in grace: its entry's position in the queue */
    int      in_grace;
    int32_t  legkey;          /* leg index, or -(component + 1) for discovery */
    uint8_t  n_disc;
    uint8_t  disc_stage[DISC_HITS];
    int      n_slots;         /* hits allocated */
};

#define NODE_INST(n) ((latrec_instance *)((char *)(n) + sizeof(struct node)))

struct grace {
    struct node *node; /* NULL: a hole */
    uint64_t done_t;   /* when the last chain stage arrived */
    uint64_t hash;     /* the node's table key hash (to fetch its slot ahead) */
};

/* Fetch the nodes this many entries behind the grace queue's front. */
#define GRACE_AHEAD 8

/* A table slot: the key's hash (its home, and most misses told apart
 * without reading the node) and the node, which holds the key itself. */
struct slot {
    uint64_t hash;
    struct node *node; /* NULL: empty */
};

struct latrec_legs {
    /* Catalogs: catalog c's legs are legs[cat_base[c] .. cat_base[c + 1]);
     * discovered legs follow from n_cat_legs on. A ring's records are read
     * under its own catalog (ring_cat). */
    const latrec_catalog *cats[LATREC_LEGS_MAX_CATALOGS];
    int n_cats;
    int cat_base[LATREC_LEGS_MAX_CATALOGS + 1];
    int n_cat_legs;
    int *ring_cat;
    latrec_leg *legs;
    int *leg_cat;             /* catalog of every leg (cap_legs) */
    int n_legs, cap_legs;
    struct cand (*cands)[256][MAX_CANDS]; /* [catalog][stage] */
    uint8_t (*n_cands)[256];

    /* Modelling warnings: records of a stage in the chains of two legs, and
     * instances with two chain stages of one ring in the reverse order. */
    uint8_t (*n_chain_cands)[256];
    uint64_t (*shared_recs)[256];
    uint64_t *leg_reversed, *leg_ended; /* per catalog leg */
    uint8_t (*leg_reversed_pair)[2];    /* the first reversed pair seen */

    size_t n_rings;
    int *ring_component;
    uint32_t *ring_process;
    char (*components)[LATREC_NAME_MAX];
    int n_components;
    latrec_process *processes;
    uint32_t n_processes;
    int guessed;

    struct slot *table;
    size_t table_cap, n_open, max_open;
    unsigned table_shift; /* 64 - log2(table_cap) */
    struct node *head, *tail;
    /* Complete instances waiting for late extras, in order of completion:
     * a queue of (node, when its last chain stage arrived) read from the
     * front, so the nodes due next are known ahead and fetched from memory
     * before they are ended. An instance that leaves grace early leaves a
     * hole (node NULL); holes are dropped at the front, and the queue is
     * compacted when they outnumber the instances waiting. */
    struct grace *gq;
    uint64_t gq_head, gq_len, gq_cap; /* absolute position of the front; entries; a power of two */
    size_t n_grace;
    struct node *free_nodes[DISC_HITS + LATREC_MAX_EXTRAS + 1];
    uint64_t horizon, grace;
    uint64_t cut_horizon, cut_room; /* instances ended unfinished, by cause */

    /* Seq counters belong to a thread family: ring_role[ring] indexes the
     * ring's role (its name without the ".<tid>" suffix), and
     * leg_roles[leg * n_roles + role] says a leg was stamped by that role. */
    int *ring_role;
    int n_roles;
    uint8_t *leg_roles;

    latrec_emit_fn emit;
    void *ctx;
};

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

static void add_cand(latrec_legs *b, int c, unsigned stage, int leg, int pos, int extra)
{
    if (!extra) b->n_chain_cands[c][stage]++;
    if (b->n_cands[c][stage] == MAX_CANDS) return;
    struct cand *cd = &b->cands[c][stage][b->n_cands[c][stage]++];
    cd->leg = (int16_t)leg;
    cd->pos = (int8_t)pos;
    cd->extra = (int8_t)extra;
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
    b->leg_reversed_pair = calloc((size_t)total + 1, sizeof(*b->leg_reversed_pair));
    if (!b->legs || !b->leg_cat || !b->cands || !b->n_cands || !b->n_chain_cands || !b->shared_recs ||
        !b->leg_reversed || !b->leg_ended || !b->leg_reversed_pair)
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
                    for (int i = 0; i < leg->n_chain; i++) add_cand(b, c, leg->chain[i], g, i, 0);
                else
                    for (int i = 0; i < leg->n_extras; i++) add_cand(b, c, leg->extras[i], g, i, 1);
            }
    }
    b->cat_base[b->n_cats] = b->n_cat_legs = b->n_legs;
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
    b->n_rings = set->n;
    b->ring_cat = calloc(set->n + 1, sizeof(int));
    b->ring_component = calloc(set->n + 1, sizeof(int));
    b->ring_process = calloc(set->n + 1, sizeof(uint32_t));
    b->components = calloc(set->n + 1, sizeof(*b->components));
    b->processes = calloc(set->n + 1, sizeof(*b->processes));
    b->ring_role = calloc(set->n + 1, sizeof(int));
    b->table_cap = 1024;
    b->table_shift = 64 - 10;
    b->table = calloc(b->table_cap, sizeof(*b->table));
    if (!b->ring_cat || !b->ring_component || !b->ring_process || !b->components || !b->processes ||
        !b->ring_role || !b->table || index_catalogs(b) < 0) {
        latrec_legs_free(b);
        return NULL;
    }
    for (size_t i = 0; i < set->n; i++) index_ring(b, set, i, ring_cat, ring_dir);
    b->leg_roles = calloc((size_t)(b->n_cat_legs + 1) * (size_t)(b->n_roles + 1), 1);
    if (!b->leg_roles) {
        latrec_legs_free(b);
        return NULL;
    }
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
        grow(&b->processes, old, n, sizeof(*b->processes)) < 0 || grow(&b->ring_role, old, n, sizeof(*b->ring_role)) < 0)
        return -1;
    const int old_roles = b->n_roles;
    for (size_t i = old; i < n; i++) index_ring(b, set, i, ring_cat, ring_dir);
    b->n_rings = n;
    if (b->n_roles == old_roles) return 0;
    /* leg_roles rows are n_roles + 1 wide: copy each into the wider table */
    uint8_t *lr = calloc((size_t)(b->n_cat_legs + 1) * (size_t)(b->n_roles + 1), 1);
    if (!lr) {
        b->n_roles = old_roles; /* the new rings share the last role: a hint lost, nothing broken */
        for (size_t i = old; i < n; i++)
            if (b->ring_role[i] >= old_roles) b->ring_role[i] = old_roles ? old_roles - 1 : 0;
        return -1;
    }
    for (int l = 0; l <= b->n_cat_legs; l++)
        memcpy(lr + (size_t)l * (size_t)(b->n_roles + 1), b->leg_roles + (size_t)l * (size_t)(old_roles + 1),
               (size_t)old_roles + 1);
    free(b->leg_roles);
    b->leg_roles = lr;
    return 0;
}

void latrec_legs_free(latrec_legs *b)
{
    if (!b) return;
    for (struct node *n = b->head; n;) {
        struct node *next = n->next;
        free(n);
        n = next;
    }
    for (size_t i = 0; i < sizeof(b->free_nodes) / sizeof(b->free_nodes[0]); i++)
        for (struct node *n = b->free_nodes[i]; n;) {
            struct node *next = n->next;
            free(n);
            n = next;
        }
    free(b->legs);
    free(b->leg_cat);
    free(b->cands);
    free(b->n_cands);
    free(b->n_chain_cands);
    free(b->shared_recs);
    free(b->leg_reversed);
    free(b->leg_ended);
    free(b->leg_reversed_pair);
    free(b->ring_cat);
    free(b->ring_component);
    free(b->ring_process);
    free(b->components);
    free(b->processes);
    free(b->ring_role);
    free(b->leg_roles);
    free(b->table);
    free(b->gq);
    free(b);
}

/* ---- the open-instance table ---------------------------------------------- */

/* Fibonacci hashing: seq has 48 bits, process and leg go above it and into
 * its top, and the top bits of one product, where every input bit has
 * reached, are the home slot (home_of). */
static uint64_t hash_key(uint64_t seq, uint32_t process, int32_t legkey)
{
    return (seq ^ (uint64_t)process << 40 ^ (uint64_t)(uint32_t)legkey << 52) * 0x9E3779B97F4A7C15ull;
}

static inline size_t home_of(const latrec_legs *b, uint64_t hash) { return (size_t)(hash >> b->table_shift); }

static struct slot *find_slot(latrec_legs *b, uint64_t seq, uint32_t process, int32_t legkey)
{
    const size_t mask = b->table_cap - 1;
    const uint64_t h = hash_key(seq, process, legkey);
    for (size_t i = home_of(b, h);; i = (i + 1) & mask) {
        struct slot *s = &b->table[i];
        if (!s->node) return s;
        if (s->hash == h && s->node->legkey == legkey && NODE_INST(s->node)->seq == seq &&
            NODE_INST(s->node)->process == process)
            return s;
    }
}

static int grow_table(latrec_legs *b)
{
    struct slot *old = b->table;
    size_t old_cap = b->table_cap;
    struct slot *t = calloc(old_cap * 2, sizeof(*t));
    if (!t) return -1;
    b->table = t;
    b->table_cap = old_cap * 2;
    b->table_shift--;
    for (size_t i = 0; i < old_cap; i++) {
        if (!old[i].node) continue;
        size_t j = home_of(b, old[i].hash);
        while (t[j].node) j = (j + 1) & (b->table_cap - 1);
        t[j] = old[i];
    }
    free(old);
    return 0;
}

/* Remove a slot with backward-shift deletion (linear probing stays valid). */
static void remove_slot(latrec_legs *b, struct slot *s)
{
    size_t mask = b->table_cap - 1;
    size_t i = (size_t)(s - b->table);
    for (size_t j = (i + 1) & mask; b->table[j].node; j = (j + 1) & mask) {
        size_t home = home_of(b, b->table[j].hash);
        /* Move j back to i when its home is not within (i, j]. */
        if (((j - home) & mask) >= ((j - i) & mask)) {
            b->table[i] = b->table[j];
            i = j;
        }
    }
    b->table[i].node = NULL;
}

static struct node *new_node(latrec_legs *b, int n_slots)
{
    struct node *n = b->free_nodes[n_slots];
    if (n) {
        b->free_nodes[n_slots] = n->next;
    } else {
        n = malloc(sizeof(struct node) + sizeof(latrec_instance) + (size_t)n_slots * sizeof(latrec_hit));
        if (!n) return NULL;
    }
    memset(n, 0, sizeof(struct node) + sizeof(latrec_instance) + (size_t)n_slots * sizeof(latrec_hit));
    n->n_slots = n_slots;
    NODE_INST(n)->n_hits = n_slots;
    return n;
}

/* ---- ending instances ----------------------------------------------------- */

static int leg_name_taken(const latrec_legs *b, const char *name)
{
    for (int l = 0; l < b->n_legs; l++)
        if (strcmp(b->legs[l].name, name) == 0) return 1;
    return 0;
}

static int discovered_leg(latrec_legs *b, const struct node *n)
{
    const int cat_index = b->ring_cat[NODE_INST(n)->hits[0].ring];
    const latrec_catalog *cat = b->cats[cat_index];
    for (int l = b->n_cat_legs; l < b->n_legs; l++)
        if (b->leg_cat[l] == cat_index && b->legs[l].n_chain == n->n_disc &&
            memcmp(b->legs[l].chain, n->disc_stage, n->n_disc) == 0)
            return l;
    if (b->n_legs == b->cap_legs) {
        latrec_leg *legs = realloc(b->legs, (size_t)b->cap_legs * 2 * sizeof(*legs));
        if (!legs) return -1;
        b->legs = legs;
        int *lc = realloc(b->leg_cat, (size_t)b->cap_legs * 2 * sizeof(*lc));
        if (!lc) return -1;
        b->leg_cat = lc;
        b->cap_legs *= 2;
    }
    b->leg_cat[b->n_legs] = cat_index;
    latrec_leg *leg = &b->legs[b->n_legs];
    memset(leg, 0, sizeof(*leg));
    leg->discovered = 1;
    leg->n_chain = n->n_disc;
    memcpy(leg->chain, n->disc_stage, n->n_disc);
    /* Up to 16 stage names of up to 47 bytes (or longer, from a header)
     * joined by '>': appended with bounds; a name too long for a leg name
     * becomes "FIRST>..>LAST" below. */
    char name[LATREC_NAME_MAX * (LATREC_MAX_CHAIN + 1)] = "", buf[8];
    size_t len = 0;
    for (int i = 0; i < n->n_disc && len < sizeof(name) - 1; i++) {
        int w = snprintf(name + len, sizeof(name) - len, "%s%s", i ? ">" : "",
                         latrec_catalog_stage_name(cat, n->disc_stage[i], buf));
        len = w < 0 ? sizeof(name) - 1 : len + (size_t)w;
    }
    if (len >= LATREC_NAME_MAX) {
        char first[8], last[8];
        snprintf(name, sizeof(name), "%s>..>%s",
                 latrec_catalog_stage_name(cat, n->disc_stage[0], first),
                 latrec_catalog_stage_name(cat, n->disc_stage[n->n_disc - 1], last));
        name[LATREC_NAME_MAX - 8] = '\0';
    }
    snprintf(leg->name, sizeof(leg->name), "%s", name);
    for (int k = 2; leg_name_taken(b, leg->name); k++)
        snprintf(leg->name, sizeof(leg->name), "%.*s#%u", LATREC_NAME_MAX - 14, name, (unsigned)k % 100000u);
    return b->n_legs++;
}

/* Two chain stages stamped by one ring (one thread: its time order is its
 * program order) in the reverse of the chain's order: the catalog's chain
 * is out of order (across rings, a negative hop is a clock regression). */
static void note_reversed(latrec_legs *b, const latrec_leg *leg, const latrec_instance *inst)
{
    const int l = inst->leg;
    b->leg_ended[l]++;
    /* Stamps in chain order, the usual case: no pair is reversed. */
    uint64_t last = 0;
    int ordered = 1;
    for (int i = 0; i < leg->n_chain && ordered; i++) {
        const uint64_t t = inst->hits[i].t_ns;
        if (!t) continue;
        ordered = t >= last;
        last = t;
    }
    if (ordered) return;
    for (int i = 0; i < leg->n_chain; i++) {
        const latrec_hit *a = &inst->hits[i];
        if (!a->t_ns) continue;
        for (int j = i + 1; j < leg->n_chain; j++) {
            const latrec_hit *z = &inst->hits[j];
            if (!z->t_ns || z->ring != a->ring || z->t_ns >= a->t_ns) continue;
            if (!b->leg_reversed[l]++) {
                b->leg_reversed_pair[l][0] = leg->chain[i];
                b->leg_reversed_pair[l][1] = leg->chain[j];
            }
            return;
        }
    }
}

static void end_node(latrec_legs *b, struct node *n, struct slot *s)
{
    latrec_instance *inst = NODE_INST(n);
    if (n->legkey < 0) {
        int leg = discovered_leg(b, n);
        inst->leg = leg;
        inst->complete = 1;
        inst->n_hits = n->n_disc;
        inst->component = -n->legkey - 1;
        if (leg >= 0) b->emit(b->ctx, inst);
    } else {
        const latrec_leg *leg = &b->legs[inst->leg];
        int complete = 1, last = -1;
        for (int i = 0; i < leg->n_chain; i++) {
            if (inst->hits[i].t_ns) last = i;
            else complete = 0;
        }
        if (last < 0)
            for (int i = 0; i < leg->n_extras; i++)
                if (inst->hits[leg->n_chain + i].t_ns) last = leg->n_chain + i;
        inst->complete = complete;
        inst->component = b->ring_component[inst->hits[last].ring];
        note_reversed(b, leg, inst);
        b->emit(b->ctx, inst);
    }
    if (!s) s = find_slot(b, inst->seq, inst->process, n->legkey);
    remove_slot(b, s);
    if (n->in_grace) {
        b->gq[n->gpos & (b->gq_cap - 1)].node = NULL;
        b->n_grace--;
    }
    if (n->prev) n->prev->next = n->next;
    else b->head = n->next;
    if (n->next) n->next->prev = n->prev;
    else b->tail = n->prev;
    b->n_open--;
    n->next = b->free_nodes[n->n_slots];
    b->free_nodes[n->n_slots] = n;
}

void latrec_legs_finish(latrec_legs *b)
{
    while (b->head) end_node(b, b->head, NULL);
}

/* ---- feeding -------------------------------------------------------------- */

static struct node *open_node(latrec_legs *b, struct slot **sp, uint64_t seq, uint32_t process,
                              int32_t legkey, int n_slots, uint64_t t)
{
    if ((b->n_open + 1) * 2 > b->table_cap) {
        if (grow_table(b) < 0) return NULL;
        *sp = find_slot(b, seq, process, legkey);
    }
    struct node *n = new_node(b, n_slots);
    if (!n) return NULL;
    n->legkey = legkey;
    latrec_instance *inst = NODE_INST(n);
    inst->leg = legkey;
    inst->process = process;
    inst->seq = seq;
    inst->first_t = t;
    struct slot *s = *sp;
    s->hash = hash_key(seq, process, legkey);
    s->node = n;
    n->prev = b->tail;
    if (b->tail) b->tail->next = n;
    else b->head = n;
    b->tail = n;
    b->n_open++;
    return n;
}

static void set_hit(latrec_hit *h, uint32_t ring, const latrec_rec *rec)
{
    h->t_ns = rec->t_ns;
    h->aux = rec->aux;
    h->aux2 = rec->aux2;
    h->ring = ring;
    h->cpu = latrec_rec_cpu(rec->sc);
}

/* An instance cut short: not one already complete and waiting for late
 * extras, and not a discovery group (those have no last stage; the horizon
 * is how they normally end, and they count as complete). */
static int counts_as_evicted(const struct node *n)
{
    return !n->in_grace && n->legkey >= 0;
}

/* Ask for the node and table slot of the grace entry GRACE_AHEAD behind
 * the front: the node is about to be ended, and it was last touched a grace
 * period of records ago. (Inlined: a function that only prefetches looks
 * pure to the compiler, and calls to it vanish.) */
static inline __attribute__((always_inline)) void fetch_ahead(const latrec_legs *b)
{
    if (b->gq_len <= GRACE_AHEAD) return;
    const struct grace *g = &b->gq[(b->gq_head + GRACE_AHEAD) & (b->gq_cap - 1)];
    if (!g->node) return;
    const char *n = (const char *)g->node; /* the lines a leg of a few stages uses */
    for (size_t off = 0; off < sizeof(struct node) + sizeof(latrec_instance) + 6 * sizeof(latrec_hit); off += 64)
        __builtin_prefetch(n + off);
    __builtin_prefetch(&b->table[home_of(b, g->hash)]);
}

static void evict(latrec_legs *b, uint64_t now)
{
    while (b->gq_len) {
        const struct grace *g = &b->gq[b->gq_head & (b->gq_cap - 1)];
        if (g->node) {
            if (g->done_t + b->grace >= now) break;
            end_node(b, g->node, NULL); /* leaves a hole here */
        }
        b->gq_head++;
        b->gq_len--;
        fetch_ahead(b);
    }
    while (b->head && NODE_INST(b->head)->first_t + b->horizon < now) {
        b->cut_horizon += counts_as_evicted(b->head);
        end_node(b, b->head, NULL);
    }
}

/* Make room for one more open instance: at most max_open are ever open.
 * Ending a node moves table slots, so the caller looks its slot up again. */
static void make_room(latrec_legs *b)
{
    while (b->head && b->n_open >= b->max_open) {
        b->cut_room += counts_as_evicted(b->head);
        end_node(b, b->head, NULL);
    }
}

static int feed_discovery(latrec_legs *b, uint32_t ring, const latrec_rec *rec, unsigned stage, uint64_t seq,
                          uint32_t process)
{
    int32_t legkey = -(b->ring_component[ring] + 1);
    struct slot *s = find_slot(b, seq, process, legkey);
    struct node *n = s->node;
    if (n && (n->n_disc == DISC_HITS || memchr(n->disc_stage, (int)stage, n->n_disc))) {
        end_node(b, n, s);
        s = find_slot(b, seq, process, legkey);
        n = NULL;
    }
    if (!n && b->n_open >= b->max_open) {
        make_room(b);
        s = find_slot(b, seq, process, legkey);
    }
    if (!n && !(n = open_node(b, &s, seq, process, legkey, DISC_HITS, rec->t_ns))) return -2;
    set_hit(&NODE_INST(n)->hits[n->n_disc], ring, rec);
    n->disc_stage[n->n_disc++] = (uint8_t)stage;
    return -1;
}

/* 1 when instance n holds a stamp of a ring of role `role`. */
static int node_has_role(const latrec_legs *b, const struct node *n, int role)
{
    const latrec_instance *inst = NODE_INST(n);
    for (int i = 0; i < n->n_slots; i++)
        if (inst->hits[i].t_ns && b->ring_role[inst->hits[i].ring] == role) return 1;
    return 0;
}

/* The candidate leg of a record of `stage` on a ring of role `role`. A chain
 * stage goes to the first candidate with an open instance for the key, else
 * to the first candidate. An extra (DROP, SKIPPED) shares its seq counter
 * with the chain stages stamped by its thread family, and equal seqs of two
 * families are normal (libE3's outbound and inbound counters): it joins an
 * open instance only when that instance holds a stamp of the same role,
 * else it opens one of the first leg known to be stamped by that role, else
 * of the first leg without an open instance for the key. */
static const struct cand *pick_cand(latrec_legs *b, int cat, unsigned stage, uint64_t seq, uint32_t process,
                                    int role, struct slot **sp)
{
    const struct cand *cands = b->cands[cat][stage];
    const int n = b->n_cands[cat][stage];
    if (n == 1) { /* the usual stage: its one leg, open or not */
        *sp = find_slot(b, seq, process, cands[0].leg);
        return &cands[0];
    }
    int learned = -1, free_slot = -1;
    for (int i = 0; i < n; i++) {
        struct slot *s = find_slot(b, seq, process, cands[i].leg);
        if (s->node && (!cands[i].extra || n == 1 || node_has_role(b, s->node, role))) {
            *sp = s;
            return &cands[i];
        }
        if (!s->node && free_slot < 0) free_slot = i;
        if (!s->node && learned < 0 && cands[i].extra && b->leg_roles[cands[i].leg * (b->n_roles + 1) + role])
            learned = i;
    }
    int pick = cands[0].extra ? (learned >= 0 ? learned : free_slot >= 0 ? free_slot : 0) : 0;
    *sp = find_slot(b, seq, process, cands[pick].leg);
    return &cands[pick];
}

/* Drop the grace queue's holes: the entries keep their order, and each
 * node learns its new position. */
static void compact_grace(latrec_legs *b)
{
    const uint64_t mask = b->gq_cap - 1;
    uint64_t to = b->gq_head;
    for (uint64_t from = b->gq_head; from < b->gq_head + b->gq_len; from++) {
        struct grace g = b->gq[from & mask];
        if (!g.node) continue;
        g.node->gpos = to;
        b->gq[to++ & mask] = g;
    }
    b->gq_len = to - b->gq_head;
}

/* Room for one more grace entry: compact when holes are most of the queue,
 * else double it. 0, or -1 when out of memory. */
static int grace_room(latrec_legs *b)
{
    if (b->gq_len < b->gq_cap) return 0;
    if (b->gq_len >= 64 && b->n_grace < b->gq_len / 2) {
        compact_grace(b);
        return 0;
    }
    uint64_t cap = b->gq_cap ? b->gq_cap * 2 : 1024;
    struct grace *q = malloc(cap * sizeof(*q));
    if (!q) return -1;
    for (uint64_t p = b->gq_head; p < b->gq_head + b->gq_len; p++) q[p & (cap - 1)] = b->gq[p & (b->gq_cap - 1)];
    free(b->gq);
    b->gq = q;
    b->gq_cap = cap;
    return 0;
}

/* Put a complete-so-far instance on the grace queue: it waits there for
 * late extras, and for chain stages a clock regression across two rings
 * put after its last one in time order. 0, or -1 when out of memory. */
static int start_grace(latrec_legs *b, struct node *n, uint64_t t)
{
    if (grace_room(b) < 0) return -1;
    const latrec_instance *inst = NODE_INST(n);
    n->in_grace = 1;
    n->gpos = b->gq_head + b->gq_len++;
    b->gq[n->gpos & (b->gq_cap - 1)] = (struct grace){ n, t, hash_key(inst->seq, inst->process, n->legkey) };
    b->n_grace++;
    return 0;
}

int latrec_legs_feed(latrec_legs *b, uint32_t ring, const latrec_rec *rec)
{
    const unsigned stage = latrec_rec_stage(rec->sc);
    const uint64_t seq = latrec_rec_seq(rec->sc);
    const uint32_t process = b->ring_process[ring];
    if (b->head) evict(b, rec->t_ns);
    const int cat = b->ring_cat[ring];
    if (LATREC_UNLIKELY_(b->n_cands[cat][stage] == 0)) return feed_discovery(b, ring, rec, stage, seq, process);
    if (LATREC_UNLIKELY_(b->n_chain_cands[cat][stage] > 1)) b->shared_recs[cat][stage]++;

    const int role = b->ring_role[ring];
    struct slot *s;
    const struct cand *c = pick_cand(b, cat, stage, seq, process, role, &s);
    const latrec_leg *leg = &b->legs[c->leg];
    const int idx = c->extra ? leg->n_chain + c->pos : c->pos;
    struct node *n = s->node;
    if (n && NODE_INST(n)->hits[idx].t_ns) {
        end_node(b, n, s);
        s = find_slot(b, seq, process, c->leg);
        n = NULL;
    }
    if (!n && b->n_open >= b->max_open) {
        make_room(b);
        s = find_slot(b, seq, process, c->leg);
    }
    if (!n && !(n = open_node(b, &s, seq, process, c->leg, leg->n_chain + leg->n_extras, rec->t_ns)))
        return -2;
    b->leg_roles[c->leg * (b->n_roles + 1) + role] = 1;
    latrec_instance *inst = NODE_INST(n);
    set_hit(&inst->hits[idx], ring, rec);
    if (rec->t_ns < inst->first_t) inst->first_t = rec->t_ns;
    if (n->in_grace) {
        int all = 1;
        for (int i = 0; i < leg->n_chain + leg->n_extras; i++) all &= inst->hits[i].t_ns != 0;
        if (all) end_node(b, n, s);
    } else if (!c->extra && c->pos == leg->n_chain - 1) {
        int chain = 1;
        for (int i = 0; i < leg->n_chain - 1; i++) chain &= inst->hits[i].t_ns != 0;
        if (chain && leg->n_extras == 0) end_node(b, n, s);
        else if (start_grace(b, n, rec->t_ns) < 0) /* a late extra (WAIT_ENTER, DROP) or chain stage may follow */
            return -2;
    }
    return c->leg;
}

/* ---- queries -------------------------------------------------------------- */

const latrec_leg *latrec_legs_leg(const latrec_legs *b, int leg) { return &b->legs[leg]; }
int latrec_legs_n_legs(const latrec_legs *b) { return b->n_legs; }
const char *latrec_legs_component_name(const latrec_legs *b, int c) { return b->components[c]; }
int latrec_legs_n_components(const latrec_legs *b) { return b->n_components; }
int latrec_legs_ring_component(const latrec_legs *b, uint32_t ring) { return b->ring_component[ring]; }
const latrec_process *latrec_legs_process(const latrec_legs *b, uint32_t p) { return &b->processes[p]; }
uint32_t latrec_legs_ring_process(const latrec_legs *b, uint32_t ring) { return b->ring_process[ring]; }
int latrec_legs_guessed_processes(const latrec_legs *b) { return b->guessed; }
uint64_t latrec_legs_evicted(const latrec_legs *b) { return b->cut_horizon + b->cut_room; }
uint64_t latrec_legs_cut_horizon(const latrec_legs *b) { return b->cut_horizon; }
uint64_t latrec_legs_cut_room(const latrec_legs *b) { return b->cut_room; }
uint64_t latrec_legs_horizon(const latrec_legs *b) { return b->horizon; }

const latrec_catalog *latrec_legs_leg_catalog(const latrec_legs *b, int leg) { return b->cats[b->leg_cat[leg]]; }
int latrec_legs_leg_catalog_index(const latrec_legs *b, int leg) { return b->leg_cat[leg]; }
const latrec_catalog *latrec_legs_ring_catalog(const latrec_legs *b, uint32_t ring)
{
    return b->cats[b->ring_cat[ring]];
}
int latrec_legs_n_catalogs(const latrec_legs *b) { return b->n_cats; }
const latrec_catalog *latrec_legs_catalog(const latrec_legs *b, int c) { return b->cats[c]; }
int latrec_legs_n_catalog_legs(const latrec_legs *b) { return b->n_cat_legs; }

int latrec_legs_catalog_leg(const latrec_legs *b, int c, int local)
{
    if (c < 0 || c >= b->n_cats || local < 0 || local >= b->cats[c]->n_legs) return -1;
    return b->cat_base[c] + local;
}

/* The i-th stage in the chains of two legs of one catalog, or -1. */
static int shared_stage(const latrec_legs *b, int i, int *cat)
{
    for (int c = 0; c < b->n_cats; c++)
        for (int st = 0; st < 256; st++)
            if (b->n_chain_cands[c][st] > 1 && i-- == 0) {
                *cat = c;
                return st;
            }
    return -1;
}

int latrec_legs_warning(const latrec_legs *b, int i, char *buf, size_t len)
{
    int c;
    int st = shared_stage(b, i, &c);
    char nb[8], nb2[8];
    if (st >= 0) {
        const latrec_catalog *cat = b->cats[c];
        const char *legs_of[2] = { NULL, NULL };
        for (int k = 0, f = 0; k < b->n_cands[c][st] && f < 2; k++)
            if (!b->cands[c][st][k].extra) legs_of[f++] = b->legs[b->cands[c][st][k].leg].name;
        snprintf(buf, len, "catalog '%s': stage %s is in the chains of legs %s and %s%s: %llu records of it, "
                 "each given to one leg only",
                 cat->name, latrec_catalog_stage_name(cat, (unsigned)st, nb), legs_of[0], legs_of[1],
                 b->n_chain_cands[c][st] > 2 ? " (and more)" : "", (unsigned long long)b->shared_recs[c][st]);
        return 1;
    }
    for (c = 0; c < b->n_cats; c++)
        for (st = 0; st < 256; st++) i -= b->n_chain_cands[c][st] > 1;
    for (int l = 0; l < b->n_cat_legs; l++) {
        if (!b->leg_reversed[l] || i-- > 0) continue;
        const latrec_catalog *cat = b->cats[b->leg_cat[l]];
        snprintf(buf, len, "catalog '%s': leg %s: chain stages out of order in %llu of %llu instances (%s "
                 "stamped after %s by one thread, the chain says the reverse)",
                 cat->name, b->legs[l].name, (unsigned long long)b->leg_reversed[l],
                 (unsigned long long)b->leg_ended[l],
                 latrec_catalog_stage_name(cat, b->leg_reversed_pair[l][0], nb),
                 latrec_catalog_stage_name(cat, b->leg_reversed_pair[l][1], nb2));
        return 1;
    }
    return 0;
}

uint64_t latrec_instance_field(const latrec_legs *b, const latrec_instance *inst, unsigned stage,
                               unsigned field, int *present)
{
    const latrec_leg *leg = &b->legs[inst->leg];
    int idx = latrec_leg_chain_pos(leg, stage);
    if (idx < 0 && (idx = latrec_leg_extra_pos(leg, stage)) >= 0) idx += leg->n_chain;
    *present = idx >= 0 && idx < inst->n_hits && inst->hits[idx].t_ns != 0;
    if (!*present) return 0;
    if (field == LATREC_FIELD_SEQ) return inst->seq;
    return field == LATREC_FIELD_AUX ? inst->hits[idx].aux : inst->hits[idx].aux2;
}
