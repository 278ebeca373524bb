/*
 * cli/component_table_impl.h - what the parts of the <component>.csv writer
 * share (component_table.c: the tables, their spools and streamed files;
 * component_columns.c: a component's columns and the text of a row under
 * them). Not an interface: cli/component_table.h is.
 */
#ifndef LATREC_CLI_COMPONENT_TABLE_IMPL_H
#define LATREC_CLI_COMPONENT_TABLE_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/legs.h"
#include "cli/csv.h"

/* The hits of an instance a row shows: its leg's chain, then its extras. */
#define CT_MAX_HITS (LATREC_MAX_CHAIN + LATREC_MAX_EXTRAS)

enum ct_col_kind { CT_COL_STAGE, CT_COL_HOP, CT_COL_TOTAL, CT_COL_KEY };

struct ct_column {
    char name[2 * LATREC_NAME_MAX + 8];
    int kind;
    uint8_t a, b;  /* stage, or hop from/to */
    uint8_t field; /* key field */
    int leg;       /* the leg of a total column */
};

struct ct_columns {
    struct ct_column *c;
    size_t n, cap;
};

/* What one column shows for the rows of one leg. */
struct ct_cell {
    int kind; /* CT_COL_*, or -1: always empty for this leg */
    int a, b; /* hit indexes (stage, hop from/to); key: index into the leg's keys */
};

/* A component's columns: stages, hops, keys, each once, in leg order. */
struct ct_layout {
    struct ct_columns stages, hops, keys;
    size_t n_cols;
};

/* How leg l's rows are written under a layout. */
struct ct_leg_out {
    struct ct_cell *plan; /* n_cols: the stage cells, the hop cells, the key cells */
    size_t n_cols, n_stages, n_hops;
    char field[2 * LATREC_NAME_MAX + 3]; /* the leg's name as a field */
    size_t field_len;
    latrec_fmt_hi stamp_hi; /* the stages' stamps share their leading digits */
};

/* One row's values: stamps by hit (0: absent), keys (kp: present); the
 * last of each is the empty slot of the cells a leg does not show. */
struct ct_row_vals {
    uint64_t seq, complete;
    uint32_t pid; /* 0: guessed, empty */
    uint64_t ts[CT_MAX_HITS + 1];
    uint64_t kv[LATREC_MAX_KEYS + 1];
    int kp[LATREC_MAX_KEYS + 1];
};

/* Hit index of stage s in leg (chain, then extras), or -1. */
int ct_stage_hit(const latrec_leg *leg, unsigned s);

/* Add leg l's columns to lo (each name once: a stage, hop or key two legs
 * share is one column). 0, or -1 out of memory (lo to be freed). */
int ct_layout_add_leg(struct ct_layout *lo, const latrec_legs *legs, int l);
void ct_layout_free(struct ct_layout *lo);
/* The header row: leg, pid, seq, complete, then lo's columns. */
void ct_layout_header(latrec_csv *c, const struct ct_layout *lo);

/* How leg l's rows fill lo's columns. 0, or -1 out of memory. */
int ct_leg_out_make(struct ct_leg_out *out, const struct ct_layout *lo, const latrec_leg *leg, int l);
/* One row of v's values, written in place into c. */
void ct_put_row(latrec_csv *c, struct ct_leg_out *out, const struct ct_row_vals *v);

#endif
