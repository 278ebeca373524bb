/* Path instances: link ended leg instances through the joins of a path. */
#include "analyze/paths.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a small open-addressing map: (tag, scope, value) -> pointer -------- */

struct entry {
    uint64_t value;
    uint32_t scope, tag;
    void *ptr; /* NULL: empty */
};

struct map {
    struct entry *e;
    size_t cap, n;
};

/* By scope and value alone: the joins of one message, keyed alike, look
 * where its other joins' entries are (a line in cache, not one each). */
static size_t map_hash(uint32_t tag, uint32_t scope, uint64_t value)
{
    (void)tag;
    uint64_t h = value * 0x9E3779B97F4A7C15ull;
    h ^= (uint64_t)scope * 0xC2B2AE3D27D4EB4Full;
    h ^= h >> 31;
    return (size_t)h;
}

static struct entry *map_find(struct map *m, uint32_t tag, uint32_t scope, uint64_t value)
{
    size_t mask = m->cap - 1;
    for (size_t i = map_hash(tag, scope, value) & mask;; i = (i + 1) & mask) {
        struct entry *e = &m->e[i];
        if (!e->ptr || (e->value == value && e->scope == scope && e->tag == tag)) return e;
    }
}

static int map_init(struct map *m, size_t cap)
{
    m->cap = cap;
    m->n = 0;
    m->e = calloc(cap, sizeof(*m->e));
    return m->e ? 0 : -1;
}

/* Room for one more entry; entries move, so look up again after. */
static int map_reserve(struct map *m)
{
    if ((m->n + 1) * 2 <= m->cap) return 0;
    struct map big;
    if (map_init(&big, m->cap * 2) < 0) return -1;
    for (size_t i = 0; i < m->cap; i++)
        if (m->e[i].ptr) *map_find(&big, m->e[i].tag, m->e[i].scope, m->e[i].value) = m->e[i];
    big.n = m->n;
    free(m->e);
    *m = big;
    return 0;
}

/* Backward-shift deletion keeps linear probing valid. */
static void map_remove(struct map *m, struct entry *e)
{
    size_t mask = m->cap - 1, i = (size_t)(e - m->e);
    for (size_t j = (i + 1) & mask; m->e[j].ptr; j = (j + 1) & mask) {
        size_t home = map_hash(m->e[j].tag, m->e[j].scope, m->e[j].value) & mask;
        if (((j - home) & mask) >= ((j - i) & mask)) {
            m->e[i] = m->e[j];
            i = j;
        }
    }
    m->e[i].ptr = NULL;
    m->n--;
}

/* ---- pieces and fragments ------------------------------------------------- */

enum { LEFT = 0, RIGHT = 1 }; /* a piece's key to its predecessor / successor */

struct frag;

struct piece {
    struct frag *frag;
    int pos;
    int waits[2]; /* in the map, waiting on that side */
    int has_key[2];
    uint64_t key[2];
    uint32_t scope[2];
};

#define PIECE_INST(p) ((latrec_instance *)((char *)(p) + sizeof(struct piece)))

struct frag {
    struct frag *prev, *next; /* open list, oldest first */
    uint64_t opened;          /* stream time when its first piece came */
    int path, n;
    struct piece *at[LATREC_MAX_PATH_LEGS];
    unsigned dup_mask, horizon_mask; /* bit j: at the join into leg j */
};

struct tomb {
    uint64_t value;
    uint32_t scope, tag;
    int live, path, stop, counted; /* counted: as no partner at stop */
};

/* A path's use of a leg at position pos. need: the hit index an instance
 * must have stamped for its predecessor to join it (its key's stage), -1
 * when nothing is needed (the first leg, or a key of the seq), NEVER when
 * the leg has no such stage: an instance without it is unanchored at once. */
struct use {
    int path, pos, need;
};
#define NEVER (1 << 30)
#define NO_USE (-2)

/* The last completed instances of a path, sorted by start (they complete
 * nearly in start order, so inserting from the newest end is cheap). */
struct done {
    uint64_t start, end;
};
struct done_ring {
    struct done *d;
    size_t first, n; /* circular */
};

struct latrec_paths {
    const latrec_catalog *cat;
    const latrec_legs *legs;
    int leg_off; /* builder leg of its leg 0 */
    latrec_paths_opts opts;
    latrec_path_emit_fn emit;
    void *ctx;
    struct use (*uses)[LATREC_MAX_PATHS]; /* per catalog leg */
    int *n_uses;
    int *need_all; /* per catalog leg: the need of each of its uses when they share one, else -1; NO_USE: none */
    int *drop_hit; /* per catalog leg: hit index of its DROP stage, or -1 */
    int8_t (*key_hit)[LATREC_MAX_KEYS]; /* per catalog leg: hit index of each key's stage, or -1 */
    struct map wait, tombs;
    struct tomb *tomb;
    size_t tomb_next;
    struct frag *head, *tail;
    size_t n_open;
    /* Freed pieces (by hit count) and fragments, reused: no malloc per
     * instance once the stream runs. */
    struct piece *free_pieces[LATREC_MAX_CHAIN + LATREC_MAX_EXTRAS + 1];
    struct frag *free_frags;
    struct done_ring done[LATREC_MAX_PATHS];
    uint64_t now;
    latrec_path_counts counts[LATREC_MAX_PATHS];
};

static uint32_t tag_of(int path, int join, int side)
{
    return (uint32_t)(path * 64 + join * 2 + side);
}

const char *latrec_path_stop_name(int reason)
{
    static const char *const names[] = { "no_partner", "duplicate_key", "drop", "outside_horizon", "incomplete_leg" };
    return reason >= 0 && reason < LATREC_PATH_N_STOPS ? names[reason] : "?";
}

/* The catalog index of a builder leg (instances of this catalog only). */
static int local_leg(const latrec_paths *p, const latrec_instance *in)
{
    return in->leg - p->leg_off;
}

latrec_paths *latrec_paths_new_catalog(const latrec_legs *legs, int c, const latrec_paths_opts *opts,
                                       latrec_path_emit_fn emit, void *ctx)
{
    if (c < 0 || c >= latrec_legs_n_catalogs(legs)) return NULL;
    const latrec_catalog *cat = latrec_legs_catalog(legs, c);
    latrec_paths *p = latrec_paths_new(cat, legs, opts, emit, ctx);
    if (!p) return NULL;
    p->leg_off = cat->n_legs ? latrec_legs_catalog_leg(legs, c, 0) : 0;
    return p;
}

latrec_paths *latrec_paths_new(const latrec_catalog *cat, const latrec_legs *legs, const latrec_paths_opts *opts,
                               latrec_path_emit_fn emit, void *ctx)
{
    latrec_paths *p = calloc(1, sizeof(*p));
    if (!p) return NULL;
    p->cat = cat;
    p->legs = legs;
    if (opts) p->opts = *opts;
    if (!p->opts.horizon_ns) p->opts.horizon_ns = LATREC_PATHS_HORIZON_NS;
    if (!p->opts.max_open) p->opts.max_open = LATREC_PATHS_MAX_OPEN;
    p->emit = emit;
    p->ctx = ctx;
    size_t nl = (size_t)cat->n_legs + 1;
    p->uses = calloc(nl, sizeof(*p->uses));
    p->n_uses = calloc(nl, sizeof(int));
    p->need_all = calloc(nl, sizeof(int));
    p->drop_hit = calloc(nl, sizeof(int));
    p->key_hit = calloc(nl, sizeof(*p->key_hit));
    p->tomb = calloc(LATREC_PATHS_TOMBS, sizeof(*p->tomb));
    if (!p->uses || !p->n_uses || !p->need_all || !p->drop_hit || !p->key_hit || !p->tomb || map_init(&p->wait, 1024) < 0 ||
        map_init(&p->tombs, 1024) < 0) {
        latrec_paths_free(p);
        return NULL;
    }
    for (int l = 0; l < cat->n_legs; l++) {
        const latrec_leg *leg = &cat->legs[l];
        p->drop_hit[l] = -1;
        for (int i = 0; i < leg->n_chain + leg->n_extras; i++) {
            unsigned id = i < leg->n_chain ? leg->chain[i] : leg->extras[i - leg->n_chain];
            if (cat->stage_names[id] && strcmp(cat->stage_names[id], "DROP") == 0) p->drop_hit[l] = i;
        }
        for (int k = 0; k < LATREC_MAX_KEYS; k++) /* as latrec_instance_field() finds it */
            p->key_hit[l][k] = (int8_t)latrec_leg_hit_pos(leg, leg->keys[k].stage);
    }
    for (int k = 0; k < cat->n_paths; k++)
        for (int i = 0; i < cat->paths[k].n_legs; i++) {
            const int l = cat->paths[k].legs[i];
            int need = -1;
            if (i > 0) { /* what key_present() asks of an instance of l */
                const latrec_join *j = &cat->joins[cat->paths[k].joins[i]];
                const int key = j->leg_b == l ? j->key_b : j->key_a;
                if (key >= 0) need = p->key_hit[l][key] >= 0 ? p->key_hit[l][key] : NEVER;
            }
            p->uses[l][p->n_uses[l]++] = (struct use){ k, i, need };
        }
    for (int l = 0; l < cat->n_legs; l++) {
        p->need_all[l] = p->n_uses[l] ? p->uses[l][0].need : NO_USE;
        for (int u = 1; u < p->n_uses[l]; u++)
            if (p->uses[l][u].need != p->need_all[l]) p->need_all[l] = -1;
    }
    return p;
}

static void free_piece(latrec_paths *p, struct piece *pc)
{
    int n = PIECE_INST(pc)->n_hits;
    if (n < 0 || n > LATREC_MAX_CHAIN + LATREC_MAX_EXTRAS) {
        free(pc);
        return;
    }
    pc->frag = (struct frag *)p->free_pieces[n]; /* the free list's link */
    p->free_pieces[n] = pc;
}

static void free_frag(latrec_paths *p, struct frag *f)
{
    for (int i = 0, n = p->cat->paths[f->path].n_legs; i < n; i++) /* a piece is at one of its path's legs */
        if (f->at[i]) free_piece(p, f->at[i]);
    if (f->prev) f->prev->next = f->next;
    else p->head = f->next;
    if (f->next) f->next->prev = f->prev;
    else p->tail = f->prev;
    p->n_open--;
    f->next = p->free_frags;
    p->free_frags = f;
}

static struct piece *new_piece(latrec_paths *p, const latrec_instance *inst)
{
    size_t isz = sizeof(latrec_instance) + (size_t)inst->n_hits * sizeof(latrec_hit);
    struct piece *pc = NULL;
    int n = inst->n_hits;
    if (n >= 0 && n <= LATREC_MAX_CHAIN + LATREC_MAX_EXTRAS && (pc = p->free_pieces[n]))
        p->free_pieces[n] = (struct piece *)pc->frag;
    else if (!(pc = malloc(sizeof(*pc) + isz))) return NULL;
    memset(pc, 0, sizeof(*pc));
    memcpy(PIECE_INST(pc), inst, isz);
    return pc;
}

static struct frag *new_frag(latrec_paths *p)
{
    struct frag *f = p->free_frags;
    if (f) p->free_frags = f->next;
    else if (!(f = malloc(sizeof(*f)))) return NULL;
    memset(f, 0, sizeof(*f));
    return f;
}

void latrec_paths_free(latrec_paths *p)
{
    if (!p) return;
    while (p->head) free_frag(p, p->head);
    for (size_t i = 0; i < sizeof(p->free_pieces) / sizeof(p->free_pieces[0]); i++)
        while (p->free_pieces[i]) {
            struct piece *pc = p->free_pieces[i];
            p->free_pieces[i] = (struct piece *)pc->frag;
            free(pc);
        }
    while (p->free_frags) {
        struct frag *f = p->free_frags;
        p->free_frags = f->next;
        free(f);
    }
    free(p->uses);
    free(p->n_uses);
    free(p->need_all);
    free(p->drop_hit);
    free(p->key_hit);
    free(p->tomb);
    for (int i = 0; i < LATREC_MAX_PATHS; i++) free(p->done[i].d);
    free(p->wait.e);
    free(p->tombs.e);
    free(p);
}

const latrec_path_counts *latrec_paths_counts(const latrec_paths *p, int path)
{
    return &p->counts[path];
}
size_t latrec_paths_open(const latrec_paths *p)
{
    return p->n_open;
}

/* ---- leaving ----------------------------------------------------------------- */

static uint64_t piece_start(const struct piece *pc)
{
    const latrec_instance *in = PIECE_INST(pc);
    return in->n_hits > 0 && in->hits[0].t_ns ? in->hits[0].t_ns : in->first_t;
}

static void fill_instance(const latrec_paths *p, const struct frag *f, latrec_path_instance *pi)
{
    memset(pi, 0, sizeof(*pi));
    pi->path = f->path;
    pi->n_legs = p->cat->paths[f->path].n_legs;
    for (int i = 0; i < pi->n_legs; i++) pi->legs[i] = f->at[i] ? PIECE_INST(f->at[i]) : NULL;
    if (f->at[0]) pi->start_ns = piece_start(f->at[0]);
}

/* Remember the keys f still waits on, so a partner arriving after the
 * horizon is told apart from none. */
static void bury(latrec_paths *p, struct frag *f, int stop, int no_partner)
{
    for (int i = 0; i < LATREC_MAX_PATH_LEGS; i++) {
        struct piece *pc = f->at[i];
        for (int side = 0; pc && side < 2; side++) {
            if (!pc->waits[side]) continue;
            int join = side == LEFT ? pc->pos : pc->pos + 1;
            uint32_t tag = tag_of(f->path, join, side == LEFT ? 1 : 0);
            struct entry *e = map_find(&p->wait, tag, pc->scope[side], pc->key[side]);
            if (e->ptr == pc) map_remove(&p->wait, e);
            pc->waits[side] = 0;
            struct tomb *t = &p->tomb[p->tomb_next];
            if (t->live) { /* the oldest tomb goes (unless its key was buried again since) */
                struct entry *te = map_find(&p->tombs, t->tag, t->scope, t->value);
                if ((uintptr_t)te->ptr == p->tomb_next + 1) map_remove(&p->tombs, te);
            }
            if (map_reserve(&p->tombs) < 0) continue; /* the distinction is lost, the count is not */
            *t = (struct tomb){ pc->key[side],
                                pc->scope[side],
                                tag,
                                1,
                                f->path,
                                stop,
                                no_partner && side == RIGHT && pc->pos + 1 == stop };
            struct entry *te = map_find(&p->tombs, tag, t->scope, t->value);
            if (!te->ptr) p->tombs.n++;
            te->tag = tag;
            te->scope = t->scope;
            te->value = t->value;
            te->ptr = (void *)(uintptr_t)(p->tomb_next + 1);
            p->tomb_next = (p->tomb_next + 1) % LATREC_PATHS_TOMBS;
        }
    }
}

#define DONE_AT(r, i) ((r)->d[((r)->first + (i)) % LATREC_PATHS_DONE_WINDOW])

static void done_add(struct done_ring *r, uint64_t start, uint64_t end)
{
    if (!r->d && !(r->d = malloc(LATREC_PATHS_DONE_WINDOW * sizeof(*r->d)))) return; /* drops stay unresolved */
    if (r->n == LATREC_PATHS_DONE_WINDOW) {
        r->first = (r->first + 1) % LATREC_PATHS_DONE_WINDOW;
        r->n--;
    }
    size_t i = r->n++;
    for (; i > 0 && DONE_AT(r, i - 1).start > start; i--) DONE_AT(r, i) = DONE_AT(r, i - 1);
    DONE_AT(r, i) = (struct done){ start, end };
}

/* Drops as delay: the end of the first instance that started after `start`
 * and got through, or 0 (none in the window). */
static uint64_t next_through(const struct done_ring *r, uint64_t start)
{
    size_t lo = 0, hi = r->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (DONE_AT(r, mid).start <= start) lo = mid + 1;
        else hi = mid;
    }
    return lo < r->n ? DONE_AT(r, lo).end : 0;
}

static int has_drop(const latrec_paths *p, const struct piece *pc)
{
    const latrec_instance *in = PIECE_INST(pc);
    int dh = p->drop_hit[local_leg(p, in)];
    return dh >= 0 && dh < in->n_hits && in->hits[dh].t_ns != 0;
}

/* f leaves incomplete: count it where it stopped, emit it, free it. */
static void leave(latrec_paths *p, struct frag *f)
{
    latrec_path_counts *c = &p->counts[f->path];
    const latrec_path *path = &p->cat->paths[f->path];
    if (!f->at[0]) {
        c->unanchored++;
        bury(p, f, -1, 0);
        free_frag(p, f);
        return;
    }
    int stop = 0, reason;
    while (stop < path->n_legs && f->at[stop] && PIECE_INST(f->at[stop])->complete) stop++;
    if (stop == path->n_legs) stop = path->n_legs - 1; /* not reached: complete ones never leave here */
    struct piece *at = f->at[stop];
    if (at) {
        reason = has_drop(p, at) ? LATREC_PATH_DROP : LATREC_PATH_INCOMPLETE_LEG;
    } else if (stop > 0 && has_drop(p, f->at[stop - 1])) { /* complete, but dropped on its way out */
        reason = LATREC_PATH_DROP;
    } else if (f->dup_mask & (1u << stop)) {
        reason = LATREC_PATH_DUPLICATE;
    } else if (f->horizon_mask & (1u << stop)) {
        reason = LATREC_PATH_HORIZON;
    } else {
        reason = LATREC_PATH_NO_PARTNER;
    }
    c->stopped[stop][reason]++;
    c->incomplete++;
    latrec_path_instance pi;
    fill_instance(p, f, &pi);
    pi.stop_pos = stop;
    pi.stop_reason = reason;
    pi.delay_end_ns = next_through(&p->done[f->path], pi.start_ns);
    c->drops_delayed += pi.delay_end_ns != 0;
    if (p->emit) p->emit(p->ctx, &pi);
    bury(p, f, stop, reason == LATREC_PATH_NO_PARTNER);
    free_frag(p, f);
}

__attribute__((noinline)) static void evict(latrec_paths *p)
{
    while (p->head && p->head->opened + p->opts.horizon_ns < p->now) leave(p, p->head);
}

void latrec_paths_finish(latrec_paths *p)
{
    while (p->head) leave(p, p->head);
}

/* ---- linking ----------------------------------------------------------------- */

/* Every leg there: a complete instance (emitted) or one with an incomplete
 * leg (left). */
static void check_done(latrec_paths *p, struct frag *f)
{
    const latrec_path *path = &p->cat->paths[f->path];
    if (f->n < path->n_legs) return;
    for (int i = 0; i < path->n_legs; i++)
        if (!PIECE_INST(f->at[i])->complete) {
            leave(p, f);
            return;
        }
    latrec_path_instance pi;
    fill_instance(p, f, &pi);
    pi.complete = 1;
    const latrec_leg *last = &p->cat->legs[path->legs[path->n_legs - 1]];
    pi.end_ns = pi.legs[path->n_legs - 1]->hits[last->n_chain - 1].t_ns;
    p->counts[f->path].complete++;
    if (p->emit) p->emit(p->ctx, &pi);
    done_add(&p->done[f->path], pi.start_ns, pi.end_ns);
    free_frag(p, f);
}

/* Merge fragment b into a (the older one stays). */
static struct frag *merge(latrec_paths *p, struct frag *a, struct frag *b)
{
    if (a == b) return a;
    if (b->opened < a->opened) {
        struct frag *t = a;
        a = b;
        b = t;
    }
    for (int i = 0, n = p->cat->paths[b->path].n_legs; i < n; i++)
        if (b->at[i]) {
            a->at[i] = b->at[i];
            a->at[i]->frag = a;
            a->n++;
            b->at[i] = NULL;
        }
    a->dup_mask |= b->dup_mask;
    a->horizon_mask |= b->horizon_mask;
    free_frag(p, b);
    return a;
}

/* A tomb for the key pc looks for on `side`: its partner left before it
 * came. */
static void tomb_hit(latrec_paths *p, struct piece *pc, int side, uint32_t tag, int join)
{
    if (!p->tombs.n) return; /* nothing has left yet */
    struct entry *te = map_find(&p->tombs, tag, pc->scope[side], pc->key[side]);
    if (!te->ptr) return;
    struct tomb *t = &p->tomb[(uintptr_t)te->ptr - 1];
    if (t->counted) {
        p->counts[t->path].stopped[t->stop][LATREC_PATH_NO_PARTNER]--;
        p->counts[t->path].stopped[t->stop][LATREC_PATH_HORIZON]++;
    }
    t->live = 0;
    map_remove(&p->tombs, te);
    pc->frag->horizon_mask |= 1u << join;
}

/* Link pc on one side, or leave it waiting there. -1 when out of memory. */
static int link_side(latrec_paths *p, struct piece *pc, int side)
{
    const int path = pc->frag->path, join = side == LEFT ? pc->pos : pc->pos + 1;
    const uint32_t partner_tag = tag_of(path, join, side == LEFT ? 0 : 1);
    const uint32_t own_tag = tag_of(path, join, side == LEFT ? 1 : 0);
    struct entry *e = map_find(&p->wait, partner_tag, pc->scope[side], pc->key[side]);
    if (e->ptr) {
        struct piece *other = e->ptr;
        map_remove(&p->wait, e);
        other->waits[side == LEFT ? RIGHT : LEFT] = 0;
        p->counts[path].joined[join]++;
        merge(p, other->frag, pc->frag);
        return 0;
    }
    tomb_hit(p, pc, side, partner_tag, join);
    if (map_reserve(&p->wait) < 0) return -1;
    e = map_find(&p->wait, own_tag, pc->scope[side], pc->key[side]);
    if (e->ptr) { /* a duplicate key: the newer instance takes the place */
        struct piece *old = e->ptr;
        old->waits[side] = 0;
        old->frag->dup_mask |= 1u << join;
    } else {
        p->wait.n++;
    }
    *e = (struct entry){ pc->key[side], pc->scope[side], own_tag, pc };
    pc->waits[side] = 1;
    return 0;
}

/* Key `key` of instance in (of this catalog): latrec_instance_field() of
 * its stage and field, the stage's hit index known. */
static uint64_t key_value(const latrec_paths *p, const latrec_instance *in, int key, int *present)
{
    const int l = local_leg(p, in);
    return latrec_instance_hit_field(in, p->key_hit[l][key], p->cat->legs[l].keys[key].field, present);
}

/* The key of pc's instance for join j (side: which leg of the join it is). */
static void piece_key(latrec_paths *p, struct piece *pc, int side, const latrec_join *j, int leg_is_b)
{
    const latrec_instance *in = PIECE_INST(pc);
    int key = leg_is_b ? j->key_b : j->key_a;
    int present = 1;
    uint64_t v = in->seq;
    if (key >= 0) v = key_value(p, in, key, &present);
    pc->has_key[side] = present;
    pc->key[side] = v;
    if (!j->cross_process) pc->scope[side] = in->process + 1u;
    else pc->scope[side] = p->opts.cross_hosts ? 0u : (uint32_t)latrec_legs_process(p->legs, in->process)->dir + 1u;
}

/* Whether inst holds its side of join j (leg_is_b: it is the join's leg_b). */
static int key_present(const latrec_paths *p, const latrec_instance *inst, const latrec_join *j, int leg_is_b)
{
    int key = leg_is_b ? j->key_b : j->key_a, present = 1;
    if (key >= 0) key_value(p, inst, key, &present);
    return present;
}

/* Out of line: the feed it is called from stays small for the instances
 * that never get here. */
__attribute__((noinline)) static int add_piece(latrec_paths *p, int path_i, int pos, const latrec_instance *inst)
{
    const latrec_path *path = &p->cat->paths[path_i];
    while (p->head && p->n_open >= p->opts.max_open) {
        p->counts[p->head->path].cut_open++;
        leave(p, p->head);
    }
    if (pos > 0) { /* nothing can ever join it from the left: unanchored now, never held */
        const latrec_join *j = &p->cat->joins[path->joins[pos]];
        if (!key_present(p, inst, j, j->leg_b == local_leg(p, inst))) {
            p->counts[path_i].unanchored++;
            return 0;
        }
    }
    struct piece *pc = new_piece(p, inst);
    struct frag *f = pc ? new_frag(p) : NULL;
    if (!f) {
        free(pc);
        return -1;
    }
    pc->pos = pos;
    pc->frag = f;
    f->path = path_i;
    f->opened = p->now;
    f->at[pos] = pc;
    f->n = 1;
    f->prev = p->tail;
    if (p->tail) p->tail->next = f;
    else p->head = f;
    p->tail = f;
    p->n_open++;
    if (pos > 0) {
        const latrec_join *j = &p->cat->joins[path->joins[pos]];
        piece_key(p, pc, LEFT, j, j->leg_b == local_leg(p, inst));
    }
    if (pos + 1 < path->n_legs) {
        const latrec_join *j = &p->cat->joins[path->joins[pos + 1]];
        piece_key(p, pc, RIGHT, j, j->leg_b == local_leg(p, inst));
    }
    for (int side = 0; side < 2; side++)
        if (pc->has_key[side] && link_side(p, pc, side) < 0) return -1;
    check_done(p, pc->frag);
    return 0;
}

/* The uses of catalog leg l, one by one. */
__attribute__((noinline)) static int feed_uses(latrec_paths *p, unsigned l, const latrec_instance *inst)
{
    for (int u = 0; u < p->n_uses[l]; u++) {
        const struct use *us = &p->uses[l][u];
        /* as in latrec_paths_feed(), use by use */
        if (p->n_open < p->opts.max_open && us->need >= 0 &&
            !(us->need < inst->n_hits && inst->hits[us->need].t_ns != 0)) {
            p->counts[us->path].unanchored++;
            continue;
        }
        if (add_piece(p, us->path, us->pos, inst) < 0) return -1;
    }
    return 0;
}

/* Runs for every ended instance, mostly with nothing open and an instance
 * no path can take: what it costs then is the stream time and a look. */
int latrec_paths_feed(latrec_paths *p, const latrec_instance *inst)
{
    /* The stream time: the latest stamp fed (two running maxima). */
    uint64_t a = p->now, b = 0;
    int i = 0;
    for (; i + 1 < inst->n_hits; i += 2) {
        a = inst->hits[i].t_ns > a ? inst->hits[i].t_ns : a;
        b = inst->hits[i + 1].t_ns > b ? inst->hits[i + 1].t_ns : b;
    }
    if (i < inst->n_hits) a = inst->hits[i].t_ns > a ? inst->hits[i].t_ns : a;
    p->now = a > b ? a : b;
    if (p->head && p->head->opened + p->opts.horizon_ns < p->now) evict(p);
    /* The builder numbers a catalog's legs in one run from leg_off
     * (discovered legs come after every catalog's): in range is this
     * catalog's. */
    const unsigned l = (unsigned)local_leg(p, inst);
    if (l >= (unsigned)p->cat->n_legs) return 0;
    const int need = p->need_all[l];
    if (need == NO_USE) return 0;
    /* add_piece()'s first steps when no fragment has to leave for room:
     * an instance that lacks the key its predecessor joins by is
     * unanchored at once (here for every use when they need one key). */
    if (need >= 0 && p->n_open < p->opts.max_open && !(need < inst->n_hits && inst->hits[need].t_ns != 0)) {
        for (int u = 0; u < p->n_uses[l]; u++) p->counts[p->uses[l][u].path].unanchored++;
        return 0;
    }
    return feed_uses(p, l, inst);
}

/* ---- segments ------------------------------------------------------------------ */

int latrec_path_segments(const latrec_catalog *cat, const latrec_path *path, latrec_segment *out)
{
    int n = 0;
    char b1[8], b2[8];
    for (int i = 0; i < path->n_legs; i++) {
        const latrec_leg *leg = &cat->legs[path->legs[i]];
        for (int h = 0; h + 1 < leg->n_chain; h++, n++) {
            out[n] = (latrec_segment){ LATREC_SEG_HOP, i, i, leg->chain[h], leg->chain[h + 1], "", "", -1, -1 };
            snprintf(out[n].leg, sizeof(out[n].leg), "%s", leg->name);
        }
        if (i + 1 == path->n_legs) break;
        const latrec_leg *next = &cat->legs[path->legs[i + 1]];
        out[n] = (latrec_segment){
            LATREC_SEG_HANDOFF, i, i + 1, leg->chain[leg->n_chain - 1], next->chain[0], "", "", -1, -1
        };
        snprintf(out[n++].leg, sizeof(out[0].leg), "%s->%s", leg->name, next->name);
    }
    const latrec_leg *first = &cat->legs[path->legs[0]], *last = &cat->legs[path->legs[path->n_legs - 1]];
    out[n++] = (latrec_segment){
        LATREC_SEG_TOTAL, 0, path->n_legs - 1, first->chain[0], last->chain[last->n_chain - 1], "total", "", -1, -1
    };
    for (int s = 0; s + 1 < n; s++)
        snprintf(out[s].name, sizeof(out[s].name), "%s->%s", latrec_catalog_stage_name(cat, out[s].from, b1),
                 latrec_catalog_stage_name(cat, out[s].to, b2));
    for (int s = 0; s < n; s++) { /* looked up once: a value is read per segment of every instance */
        out[s].hit_from = latrec_leg_chain_pos(&cat->legs[path->legs[out[s].pos_from]], out[s].from);
        out[s].hit_to = latrec_leg_chain_pos(&cat->legs[path->legs[out[s].pos_to]], out[s].to);
    }
    return n;
}

int latrec_segment_value(const latrec_catalog *cat, const latrec_path *path, const latrec_path_instance *pi,
                         const latrec_segment *s, int64_t *ns, const latrec_hit **a, const latrec_hit **b)
{
    const latrec_instance *ia = pi->legs[s->pos_from], *ib = pi->legs[s->pos_to];
    *a = *b = NULL;
    if (!ia || !ib) return 0;
    (void)cat, (void)path; /* the chain positions are the segment's (latrec_path_segments) */
    const int ca = s->hit_from, cb = s->hit_to;
    if (ca < 0 || cb < 0 || !ia->hits[ca].t_ns || !ib->hits[cb].t_ns) return 0;
    *a = &ia->hits[ca];
    *b = &ib->hits[cb];
    *ns = (int64_t)((*b)->t_ns - (*a)->t_ns);
    return 1;
}
