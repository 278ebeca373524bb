/* Leg instances: key records by (process, leg, seq), end instances, discover
 * uncatalogued chains. */
#include "analyze/legs_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Twice the room for legs. Another thread may be reading the leg table
 * (engine/pipeline.h: the pass's stage 3 reads the definition of every
 * leg an instance it was handed has): the old arrays stay as they are
 * until latrec_legs_free, and the new ones are published by release
 * stores (latrec_legs_leg loads them by acquire). 0, or -1. */
static int grow_legs(latrec_legs *b)
{
    const size_t cap = (size_t)b->cap_legs * 2;
    if (b->n_retired + 2 > LATREC_LEGS_RETIRED) return -1;
    latrec_leg *legs = malloc(cap * sizeof(*legs));
    int *lc = malloc(cap * sizeof(*lc));
    if (!legs || !lc) {
        free(legs);
        free(lc);
        return -1;
    }
    memcpy(legs, b->legs, (size_t)b->n_legs * sizeof(*legs));
    memcpy(lc, b->leg_cat, (size_t)b->n_legs * sizeof(*lc));
    b->retired[b->n_retired++] = b->legs;
    b->retired[b->n_retired++] = b->leg_cat;
    __atomic_store_n(&b->legs, legs, __ATOMIC_RELEASE);
    __atomic_store_n(&b->leg_cat, lc, __ATOMIC_RELEASE);
    b->cap_legs = (int)cap;
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
    if (b->n_legs == b->cap_legs && grow_legs(b) < 0) return -1;
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
    __atomic_store_n(&b->n_legs, b->n_legs + 1, __ATOMIC_RELEASE); /* the leg is written */
    return b->n_legs - 1;
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
