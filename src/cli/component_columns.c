/* <component>.csv's columns: which stage, hop, total and key columns a
 * component's legs give, and the text of a row under them
 * (component_table_impl.h). */
#include "cli/component_table_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>




static int add_column(struct ct_columns *cols, const char *name, int kind, unsigned a, unsigned b, unsigned field,
                      int leg)
{
    for (size_t i = 0; i < cols->n; i++)
        if (strcmp(cols->c[i].name, name) == 0) return 0;
    if (cols->n == cols->cap) {
        size_t cap = cols->cap ? cols->cap * 2 : 64;
        struct ct_column *c = realloc(cols->c, cap * sizeof(*c));
        if (!c) return -1;
        cols->c = c;
        cols->cap = cap;
    }
    struct ct_column *c = &cols->c[cols->n++];
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

static int leg_columns(struct ct_columns *stages, struct ct_columns *hops, struct ct_columns *keys,
                       const latrec_catalog *cat, const latrec_leg *leg, int li)
{
    char name[2 * LATREC_NAME_MAX + 8], buf[8];
    int rc = 0;
    for (int i = 0; i < leg->n_chain + leg->n_extras; i++) {
        unsigned s = i < leg->n_chain ? leg->chain[i] : leg->extras[i - leg->n_chain];
        snprintf(name, sizeof(name), "%s_ns", latrec_catalog_stage_name(cat, s, buf));
        rc |= add_column(stages, name, CT_COL_STAGE, s, 0, 0, -1);
    }
    for (int i = 0; i + 1 < leg->n_chain; i++) {
        hop_name(cat, leg->chain[i], leg->chain[i + 1], name, sizeof(name));
        rc |= add_column(hops, name, CT_COL_HOP, leg->chain[i], leg->chain[i + 1], 0, -1);
    }
    for (int i = 0; i < leg->n_extra_hops; i++) {
        hop_name(cat, leg->extra_hops[i].from, leg->extra_hops[i].to, name, sizeof(name));
        rc |= add_column(hops, name, CT_COL_HOP, leg->extra_hops[i].from, leg->extra_hops[i].to, 0, -1);
    }
    if (leg->n_chain >= 2) {
        snprintf(name, sizeof(name), "%s_total_us", leg->name);
        rc |= add_column(hops, name, CT_COL_TOTAL, leg->chain[0], leg->chain[leg->n_chain - 1], 0, li);
    }
    for (int i = 0; i < leg->n_keys; i++)
        rc |= add_column(keys, leg->keys[i].column, CT_COL_KEY, leg->keys[i].stage, 0, leg->keys[i].field, -1);
    return rc;
}

int ct_stage_hit(const latrec_leg *leg, unsigned s)
{
    int i = latrec_leg_chain_pos(leg, s);
    if (i < 0 && (i = latrec_leg_extra_pos(leg, s)) >= 0) i += leg->n_chain;
    return i;
}



int ct_layout_add_leg(struct ct_layout *lo, const latrec_legs *legs, int l)
{
    if (leg_columns(&lo->stages, &lo->hops, &lo->keys, latrec_legs_leg_catalog(legs, l), latrec_legs_leg(legs, l),
                    l) < 0)
        return -1;
    lo->n_cols = lo->stages.n + lo->hops.n + lo->keys.n;
    return 0;
}

void ct_layout_free(struct ct_layout *lo)
{
    free(lo->stages.c);
    free(lo->hops.c);
    free(lo->keys.c);
    memset(lo, 0, sizeof(*lo));
}

void ct_layout_header(latrec_csv *c, const struct ct_layout *lo)
{
    latrec_csv_str(c, "leg");
    latrec_csv_str(c, "pid");
    latrec_csv_str(c, "seq");
    latrec_csv_str(c, "complete");
    const struct ct_columns *all[3] = { &lo->stages, &lo->hops, &lo->keys };
    for (int g = 0; g < 3; g++)
        for (size_t i = 0; i < all[g]->n; i++) latrec_csv_str(c, all[g]->c[i].name);
    latrec_csv_end(c);
}


/* 0, or -1 out of memory. */
int ct_leg_out_make(struct ct_leg_out *out, const struct ct_layout *lo, const latrec_leg *leg, int l)
{
    memset(out, 0, sizeof(*out));
    const latrec_fmt_hi hi0 = LATREC_FMT_HI_INIT;
    out->stamp_hi = hi0;
    out->n_cols = lo->n_cols;
    out->n_stages = lo->stages.n;
    out->n_hops = lo->hops.n;
    out->field_len = latrec_csv_field(leg->name, out->field, sizeof(out->field));
    if (lo->n_cols && !(out->plan = calloc(lo->n_cols, sizeof(*out->plan)))) return -1;
    /* The column plan of this leg: which hit (or key) each column shows.
     * A key column shared by name by several legs shows each leg's own key
     * (msg_id is SEND_DONE.aux for outbound, DECODE_E3AP_DONE.aux for
     * inbound). */
    const struct ct_columns *all[3] = { &lo->stages, &lo->hops, &lo->keys };
    size_t ci = 0;
    for (int g = 0; g < 3; g++)
        for (size_t i = 0; i < all[g]->n; i++, ci++) {
            const struct ct_column *col = &all[g]->c[i];
            struct ct_cell *p = &out->plan[ci];
            p->kind = -1;
            p->a = p->b = g < 2 ? CT_MAX_HITS : LATREC_MAX_KEYS; /* a row's slot that is always empty */
            if (col->kind == CT_COL_STAGE) {
                const int a = ct_stage_hit(leg, col->a);
                if (a >= 0) *p = (struct ct_cell){ CT_COL_STAGE, a, 0 };
            } else if (col->kind == CT_COL_HOP || (col->kind == CT_COL_TOTAL && col->leg == l)) {
                const int a = ct_stage_hit(leg, col->a), b = ct_stage_hit(leg, col->b);
                if (a >= 0 && b >= 0) *p = (struct ct_cell){ CT_COL_HOP, a, b };
            } else if (col->kind == CT_COL_KEY) {
                for (int k = 0; k < leg->n_keys; k++)
                    if (strcmp(leg->keys[k].column, col->name) == 0) {
                        p->kind = CT_COL_KEY;
                        p->a = k;
                        break;
                    }
            }
        }
    return 0;
}


/* The row in place: the quoted leg name, then at most 26 bytes a cell. */
void ct_put_row(latrec_csv *c, struct ct_leg_out *out, const struct ct_row_vals *v)
{
    char *o = latrec_csv_reserve(c, out->field_len + 4 + 26 * (out->n_cols + 3) + 8);
    memcpy(o, out->field, out->field_len);
    o += out->field_len;
    *o++ = ',';
    if (v->pid) o = latrec_fmt_u64(o, v->pid);
    *o++ = ',';
    o = latrec_fmt_u64(o, v->seq);
    *o++ = ',';
    o = latrec_fmt_u64(o, v->complete);
    /* the plan's groups in turn, each cell one test (a cell this leg
     * does not show reads the empty slot) */
    const struct ct_cell *p = out->plan, *const hops = p + out->n_stages, *const keys = hops + out->n_hops,
                      *const end = p + out->n_cols;
    for (; p < hops; p++) {
        *o++ = ',';
        if (v->ts[p->a]) o = latrec_fmt_u64_hi(o, v->ts[p->a], &out->stamp_hi);
    }
    for (; p < keys; p++) {
        *o++ = ',';
        if (v->ts[p->a] && v->ts[p->b]) o = latrec_fmt_us(o, (int64_t)(v->ts[p->b] - v->ts[p->a]));
    }
    for (; p < end; p++) {
        *o++ = ',';
        if (v->kp[p->a]) o = latrec_fmt_u64(o, v->kv[p->a]);
    }
    *o++ = '\n';
    latrec_csv_commit(c, o);
}
