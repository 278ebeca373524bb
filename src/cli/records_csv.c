/* records.csv rows (see records_csv.h). */
#include "cli/records_csv.h"

#include <stdlib.h>
#include <string.h>

/* A piece of a row, quoted, with its commas. Its storage has at least
 * PIECE_COPY bytes, so a short piece is copied with one fixed-size memcpy
 * (a few vector moves) instead of a call. */
#define PIECE_COPY 64

struct piece {
    size_t n;
    char *s; /* NULL: not made yet (a stage piece is made at its first row) */
};

struct latrec_records_csv {
    const latrec_input *in;
    latrec_csv *c;
    size_t n_rings;
    int n_legs, wall;
    struct piece *ring;  /* per ring: ",ring,component,pid,tid," */
    struct piece *stage; /* per ring and stage id (256 a ring): "stage,stage_name," */
    struct piece *leg;   /* per catalog leg, then one for none: "leg," or "," */
};

/* The fields f[0..n) quoted, each followed by a comma, after a comma when
 * lead is set. 0, or -1 when out of memory. */
static int make_piece(struct piece *p, int lead, const char *const *f, int n)
{
    size_t cap = 1, k = 0;
    for (int i = 0; i < n; i++) cap += 2 * strlen(f[i]) + 3;
    char *s = malloc(cap > PIECE_COPY ? cap : PIECE_COPY);
    if (!s) return -1;
    if (lead) s[k++] = ',';
    for (int i = 0; i < n; i++) {
        k += latrec_csv_field(f[i], s + k, cap - k);
        s[k++] = ',';
    }
    p->s = s;
    p->n = k;
    return 0;
}

static inline char *put_piece(char *out, const struct piece *p)
{
    if (p->n <= PIECE_COPY) memcpy(out, p->s, PIECE_COPY);
    else memcpy(out, p->s, p->n);
    return out + p->n;
}

static const struct piece *stage_piece(latrec_records_csv *w, uint32_t ring, unsigned stage)
{
    struct piece *p = &w->stage[(size_t)ring * 256 + stage];
    if (__builtin_expect(p->s == NULL, 0)) {
        char id[8], namebuf[8];
        char *end = latrec_fmt_u64(id, stage);
        *end = '\0';
        const char *f[2] = { id, latrec_input_stage_name(w->in, ring, stage, namebuf) };
        if (make_piece(p, 0, f, 2) < 0) { /* out of memory: the row still gets its stage */
            static const char none[PIECE_COPY] = ",,";
            static const struct piece empty = { 2, (char *)none };
            return &empty;
        }
    }
    return p;
}

latrec_records_csv *latrec_records_csv_new(const latrec_input *in, const latrec_legs *legs, latrec_csv *c)
{
    latrec_records_csv *w = calloc(1, sizeof(*w));
    if (!w) return NULL;
    w->in = in;
    w->c = c;
    w->n_rings = in->set.n;
    w->wall = in->opts.wall;
    w->n_legs = latrec_legs_n_catalog_legs(legs);
    w->ring = calloc(w->n_rings + 1, sizeof(*w->ring));
    w->stage = calloc((w->n_rings + 1) * 256, sizeof(*w->stage));
    w->leg = calloc((size_t)w->n_legs + 1, sizeof(*w->leg));
    int ok = w->ring && w->stage && w->leg;
    for (size_t i = 0; ok && i < w->n_rings; i++) {
        const latrec_ring *r = &in->set.rings[i];
        char pid[24] = "", tid[24];
        const uint32_t p = r->status == LATREC_RING_OK
                               ? latrec_legs_process(legs, latrec_legs_ring_process(legs, (uint32_t)i))->pid
                               : 0;
        if (p) *latrec_fmt_u64(pid, p) = '\0';
        *latrec_fmt_u64(tid, latrec_ring_tid(r)) = '\0';
        const char *f[4] = { r->name, latrec_legs_component_name(legs, latrec_legs_ring_component(legs, (uint32_t)i)),
                             pid, tid };
        ok = make_piece(&w->ring[i], 1, f, 4) == 0;
    }
    for (int l = 0; ok && l <= w->n_legs; l++) {
        const char *f[1] = { l < w->n_legs ? latrec_input_leg_name(legs, l) : "" };
        ok = make_piece(&w->leg[l], 0, f, 1) == 0;
    }
    if (!ok) {
        latrec_records_csv_free(w);
        return NULL;
    }
    static const char *const cols[] = { "t_ns",  "ring",       "component", "pid", "tid",  "seq", "cpu",
                                        "stage", "stage_name", "leg",       "aux", "aux2", NULL };
    for (int i = 0; cols[i]; i++) latrec_csv_str(c, cols[i]);
    if (w->wall) latrec_csv_str(c, "t_mono_ns");
    latrec_csv_end(c);
    return w;
}

void latrec_records_csv_rows(latrec_records_csv *w, const latrec_merged *ev, const int32_t *leg, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const latrec_merged *e = &ev[i];
        const uint32_t r = e->ring;
        const unsigned stage = latrec_rec_stage(e->rec.sc);
        const int l = leg[i] >= 0 && leg[i] < w->n_legs ? leg[i] : w->n_legs;
        const struct piece *sp = stage_piece(w, r, stage);
        /* six numbers of at most 20 digits and their commas, the pieces,
         * the newline, and room for the last piece's fixed-size copy */
        char *p = latrec_csv_reserve(w->c, 6 * 21 + w->ring[r].n + sp->n + w->leg[l].n + 1 + PIECE_COPY);
        p = latrec_fmt_u64(p, e->t_ns);
        p = put_piece(p, &w->ring[r]);
        p = latrec_fmt_u64(p, latrec_rec_seq(e->rec.sc));
        *p++ = ',';
        p = latrec_fmt_u64(p, latrec_rec_cpu(e->rec.sc));
        *p++ = ',';
        p = put_piece(p, sp);
        p = put_piece(p, &w->leg[l]);
        p = latrec_fmt_u64(p, e->rec.aux);
        *p++ = ',';
        p = latrec_fmt_u64(p, e->rec.aux2);
        if (w->wall) {
            *p++ = ',';
            p = latrec_fmt_u64(p, e->rec.t_ns);
        }
        *p++ = '\n';
        latrec_csv_commit(w->c, p);
    }
}

void latrec_records_csv_free(latrec_records_csv *w)
{
    if (!w) return;
    for (size_t i = 0; w->ring && i < w->n_rings; i++) free(w->ring[i].s);
    for (size_t i = 0; w->stage && i < w->n_rings * 256; i++) free(w->stage[i].s);
    for (int l = 0; w->leg && l <= w->n_legs; l++) free(w->leg[l].s);
    free(w->ring);
    free(w->stage);
    free(w->leg);
    free(w);
}
