/* <component>.csv writer. */
#include "cli/component_table.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/csv.h"

struct spool {
    int component, leg;
    FILE *f;
    uint64_t rows;
};

struct latrec_component_tables {
    const latrec_input *in;
    const latrec_legs *legs;
    struct spool *spools;
    size_t n, cap;
    size_t last;
    int failed;
};

/* A spooled row: the instance header, then its hits. */
struct row_head {
    uint32_t process;
    uint32_t complete;
    uint64_t seq;
    uint32_t n_hits;
    uint32_t pad;
};

latrec_component_tables *latrec_component_tables_new(const latrec_input *in, const latrec_legs *legs)
{
    latrec_component_tables *t = calloc(1, sizeof(*t));
    if (!t) return NULL;
    t->in = in;
    t->legs = legs;
    return t;
}

void latrec_component_tables_free(latrec_component_tables *t)
{
    if (!t) return;
    for (size_t i = 0; i < t->n; i++)
        if (t->spools[i].f) fclose(t->spools[i].f);
    free(t->spools);
    free(t);
}

static struct spool *spool_for(latrec_component_tables *t, int component, int leg)
{
    if (t->last < t->n && t->spools[t->last].component == component && t->spools[t->last].leg == leg)
        return &t->spools[t->last];
    for (size_t i = 0; i < t->n; i++)
        if (t->spools[i].component == component && t->spools[i].leg == leg) return &t->spools[t->last = i];
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 16;
        struct spool *s = realloc(t->spools, cap * sizeof(*s));
        if (!s) return NULL;
        t->spools = s;
        t->cap = cap;
    }
    FILE *f = tmpfile();
    if (!f) return NULL;
    t->spools[t->n] = (struct spool){ component, leg, f, 0 };
    t->last = t->n;
    return &t->spools[t->n++];
}

void latrec_component_tables_add(latrec_component_tables *t, const latrec_instance *inst)
{
    struct spool *s = spool_for(t, inst->component, inst->leg);
    if (!s) {
        t->failed = errno ? errno : ENOMEM;
        return;
    }
    struct row_head h = { inst->process, (uint32_t)inst->complete, inst->seq, (uint32_t)inst->n_hits, 0 };
    if (fwrite(&h, sizeof(h), 1, s->f) != 1 ||
        fwrite(inst->hits, sizeof(latrec_hit), (size_t)inst->n_hits, s->f) != (size_t)inst->n_hits)
        t->failed = errno ? errno : EIO;
    s->rows++;
}

/* ---- columns of one component --------------------------------------------- */

enum col_kind { COL_STAGE, COL_HOP, COL_TOTAL, COL_KEY };

struct column {
    char name[2 * LATREC_NAME_MAX + 8];
    int kind;
    uint8_t a, b;  /* stage, or hop from/to */
    uint8_t field; /* key field */
    int leg;       /* the leg of a total column */
};

struct columns {
    struct column *c;
    size_t n, cap;
};

static int add_column(struct columns *cols, const char *name, int kind, unsigned a, unsigned b, unsigned field,
                      int leg)
{
    for (size_t i = 0; i < cols->n; i++)
        if (strcmp(cols->c[i].name, name) == 0) return 0;
    if (cols->n == cols->cap) {
        size_t cap = cols->cap ? cols->cap * 2 : 64;
        struct column *c = realloc(cols->c, cap * sizeof(*c));
        if (!c) return -1;
        cols->c = c;
        cols->cap = cap;
    }
    struct column *c = &cols->c[cols->n++];
    snprintf(c->name, sizeof(c->name), "%s", name);
    c->kind = kind;
    c->a = (uint8_t)a;
    c->b = (uint8_t)b;
    c->field = (uint8_t)field;
    c->leg = leg;
    return 0;
}

static int hop_name(const latrec_catalog *cat, unsigned a, unsigned b, char *out, size_t len)
{
    char ba[8], bb[8];
    return snprintf(out, len, "%s__%s_us", latrec_catalog_stage_name(cat, a, ba),
                    latrec_catalog_stage_name(cat, b, bb));
}

static int leg_columns(struct columns *stages, struct columns *hops, struct columns *keys,
                       const latrec_catalog *cat, const latrec_leg *leg, int li)
{
    char name[2 * LATREC_NAME_MAX + 8], buf[8];
    int rc = 0;
    for (int i = 0; i < leg->n_chain + leg->n_extras; i++) {
        unsigned s = i < leg->n_chain ? leg->chain[i] : leg->extras[i - leg->n_chain];
        snprintf(name, sizeof(name), "%s_ns", latrec_catalog_stage_name(cat, s, buf));
        rc |= add_column(stages, name, COL_STAGE, s, 0, 0, -1);
    }
    for (int i = 0; i + 1 < leg->n_chain; i++) {
        hop_name(cat, leg->chain[i], leg->chain[i + 1], name, sizeof(name));
        rc |= add_column(hops, name, COL_HOP, leg->chain[i], leg->chain[i + 1], 0, -1);
    }
    for (int i = 0; i < leg->n_extra_hops; i++) {
        hop_name(cat, leg->extra_hops[i].from, leg->extra_hops[i].to, name, sizeof(name));
        rc |= add_column(hops, name, COL_HOP, leg->extra_hops[i].from, leg->extra_hops[i].to, 0, -1);
    }
    if (leg->n_chain >= 2) {
        snprintf(name, sizeof(name), "%s_total_us", leg->name);
        rc |= add_column(hops, name, COL_TOTAL, leg->chain[0], leg->chain[leg->n_chain - 1], 0, li);
    }
    for (int i = 0; i < leg->n_keys; i++)
        rc |= add_column(keys, leg->keys[i].column, COL_KEY, leg->keys[i].stage, 0, leg->keys[i].field, -1);
    return rc;
}

/* t_ns of stage s in a row of leg (0 when absent). */
static const latrec_hit *row_hit(const latrec_leg *leg, const latrec_hit *hits, unsigned s)
{
    int i = latrec_leg_chain_pos(leg, s);
    if (i < 0 && (i = latrec_leg_extra_pos(leg, s)) >= 0) i += leg->n_chain;
    return i >= 0 && hits[i].t_ns ? &hits[i] : NULL;
}

static int write_component(latrec_component_tables *t, int comp, const char *path)
{
    const latrec_catalog *cat = &t->in->cat;
    struct columns stages = { 0 }, hops = { 0 }, keys = { 0 };
    int rc = -1;
    latrec_csv c;
    int opened = 0;
    /* Legs of this component in leg order. */
    int n_legs = latrec_legs_n_legs(t->legs);
    for (int l = 0; l < n_legs; l++)
        for (size_t i = 0; i < t->n; i++)
            if (t->spools[i].component == comp && t->spools[i].leg == l &&
                leg_columns(&stages, &hops, &keys, cat, latrec_legs_leg(t->legs, l), l) < 0)
                goto out;
    if (latrec_csv_open(&c, path, NULL) < 0) goto out;
    opened = 1;
    latrec_csv_str(&c, "leg");
    latrec_csv_str(&c, "pid");
    latrec_csv_str(&c, "seq");
    latrec_csv_str(&c, "complete");
    const struct columns *all[3] = { &stages, &hops, &keys };
    for (int g = 0; g < 3; g++)
        for (size_t i = 0; i < all[g]->n; i++) latrec_csv_str(&c, all[g]->c[i].name);
    latrec_csv_end(&c);

    latrec_hit hits[LATREC_MAX_CHAIN + LATREC_MAX_EXTRAS];
    for (int l = 0; l < n_legs; l++) {
        struct spool *s = NULL;
        for (size_t i = 0; i < t->n; i++)
            if (t->spools[i].component == comp && t->spools[i].leg == l) s = &t->spools[i];
        if (!s) continue;
        const latrec_leg *leg = latrec_legs_leg(t->legs, l);
        rewind(s->f);
        struct row_head h;
        while (fread(&h, sizeof(h), 1, s->f) == 1) {
            if (h.n_hits > sizeof(hits) / sizeof(hits[0]) ||
                fread(hits, sizeof(latrec_hit), h.n_hits, s->f) != h.n_hits) {
                errno = EIO;
                goto out;
            }
            const latrec_process *proc = latrec_legs_process(t->legs, h.process);
            latrec_csv_str(&c, leg->name);
            if (proc->pid) latrec_csv_u64(&c, proc->pid);
            else latrec_csv_empty(&c);
            latrec_csv_u64(&c, h.seq);
            latrec_csv_u64(&c, h.complete);
            for (int g = 0; g < 3; g++)
                for (size_t i = 0; i < all[g]->n; i++) {
                    const struct column *col = &all[g]->c[i];
                    const latrec_hit *a = row_hit(leg, hits, col->a);
                    const latrec_hit *b = col->kind == COL_HOP || col->kind == COL_TOTAL ? row_hit(leg, hits, col->b) : NULL;
                    int mine = col->kind != COL_TOTAL || col->leg == l;
                    if (!a || !mine) latrec_csv_empty(&c);
                    else if (col->kind == COL_STAGE) latrec_csv_u64(&c, a->t_ns);
                    else if (col->kind == COL_KEY)
                        latrec_csv_u64(&c, col->field == LATREC_FIELD_SEQ ? h.seq
                                           : col->field == LATREC_FIELD_AUX ? a->aux : a->aux2);
                    else if (b) latrec_csv_us(&c, (int64_t)(b->t_ns - a->t_ns));
                    else latrec_csv_empty(&c);
                }
            latrec_csv_end(&c);
        }
    }
    rc = 0;
out:
    if (opened && latrec_csv_close(&c) < 0) rc = -1;
    free(stages.c);
    free(hops.c);
    free(keys.c);
    return rc;
}

int latrec_component_tables_write(latrec_component_tables *t, const char *outdir, char *err, size_t errlen)
{
    if (t->failed) {
        snprintf(err, errlen, "spooling rows: %s", strerror(t->failed));
        return -1;
    }
    int n_comp = latrec_legs_n_components(t->legs);
    for (int comp = 0; comp < n_comp; comp++) {
        int any = 0;
        for (size_t i = 0; i < t->n; i++) any |= t->spools[i].component == comp;
        if (!any) continue;
        char path[4200];
        snprintf(path, sizeof(path), "%s/%s.csv", outdir, latrec_legs_component_name(t->legs, comp));
        if (write_component(t, comp, path) < 0) {
            snprintf(err, errlen, "%s: %s", path, strerror(errno));
            return -1;
        }
    }
    return 0;
}
