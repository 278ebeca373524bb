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
    int key_hits[LATREC_MAX_KEYS]; /* key_hit() of each of the leg's keys */
    size_t len;                    /* bytes in buf, not yet in f */
    unsigned char *buf;            /* SPOOL_BUF bytes */
};

struct latrec_component_tables {
    const latrec_input *in;
    const latrec_legs *legs;
    struct spool *spools;
    size_t n, cap;
    size_t last;
    int failed;
};

/*
 * A spooled row, compact (about 30 bytes for a 4-stage leg instead of the
 * 200-odd bytes of the instance), LEB128 varints:
 *   seq, process, complete, mask of the hits present (bit i = hit i),
 *   t_ns of the first present hit, then for every other present hit the
 *   zigzag difference of its t_ns from that first one, then for every key
 *   of the leg whose stage is present (and whose field is not seq) its
 *   value. The leg (so the number of hits and the keys) is the spool's.
 */
#define SPOOL_BUF (64u << 10)
#define MAX_HITS (LATREC_MAX_CHAIN + LATREC_MAX_EXTRAS)

/* The most bytes a row takes: every varint 10 bytes long. */
#define ROW_MOST (10 * (5 + MAX_HITS + LATREC_MAX_KEYS))

static inline unsigned char *put_varint(unsigned char *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (unsigned char)((v & 0x7F) | 0x80);
        v >>= 7;
    }
    *p++ = (unsigned char)v;
    return p;
}

/* A spool read back through a buffer that holds a whole row whenever one
 * is left (spool_fill), so a row's varints are decoded from memory; past
 * the end of what was read it holds ROW_MOST zero bytes, so a row cut
 * short decodes (as zeros) without a check a byte and shows afterwards as
 * read past the end. */
struct spool_in {
    FILE *f;
    size_t pos, len;
    int eof;
    unsigned char buf[SPOOL_BUF + ROW_MOST];
};

static void spool_fill(struct spool_in *in)
{
    if (in->len - in->pos >= ROW_MOST || in->eof) return;
    memmove(in->buf, in->buf + in->pos, in->len - in->pos);
    in->len -= in->pos;
    in->pos = 0;
    while (in->len < SPOOL_BUF && !in->eof) {
        const size_t n = fread(in->buf + in->len, 1, SPOOL_BUF - in->len, in->f);
        in->eof = n == 0;
        in->len += n;
    }
    memset(in->buf + in->len, 0, ROW_MOST);
}

/* One varint (at most 10 bytes; -1 when longer). */
static inline int get_varint(struct spool_in *in, uint64_t *v)
{
    const unsigned char *p = in->buf + in->pos;
    uint64_t x = 0;
    for (unsigned i = 0; i < 10; i++) {
        const unsigned c = p[i];
        x |= (uint64_t)(c & 0x7F) << (7 * i);
        if (!(c & 0x80)) {
            in->pos += i + 1;
            *v = x;
            return 1;
        }
    }
    return -1;
}

static inline uint64_t zigzag(int64_t d) { return ((uint64_t)d << 1) ^ (uint64_t)(d >> 63); }
static inline int64_t unzigzag(uint64_t z) { return (int64_t)(z >> 1) ^ -(int64_t)(z & 1); }

/* Index of the hit holding key k's stage in leg, or -1. */
static int key_hit(const latrec_leg *leg, int k)
{
    int i = latrec_leg_chain_pos(leg, leg->keys[k].stage);
    if (i < 0 && (i = latrec_leg_extra_pos(leg, leg->keys[k].stage)) >= 0) i += leg->n_chain;
    return i;
}

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
    for (size_t i = 0; i < t->n; i++) {
        if (t->spools[i].f) fclose(t->spools[i].f);
        free(t->spools[i].buf);
    }
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
    unsigned char *buf = f ? malloc(SPOOL_BUF) : NULL;
    if (!buf) {
        if (f) fclose(f);
        return NULL;
    }
    t->spools[t->n] = (struct spool){ .component = component, .leg = leg, .f = f, .buf = buf };
    const latrec_leg *l = latrec_legs_leg(t->legs, leg);
    for (int k = 0; k < l->n_keys && k < LATREC_MAX_KEYS; k++) t->spools[t->n].key_hits[k] = key_hit(l, k);
    t->last = t->n;
    return &t->spools[t->n++];
}

/* The buffered rows into the spool file (a failed write shows in ferror). */
static void spool_flush(struct spool *s)
{
    if (s->len) fwrite(s->buf, 1, s->len, s->f);
    s->len = 0;
}

void latrec_component_tables_add(latrec_component_tables *t, const latrec_instance *inst)
{
    struct spool *s = spool_for(t, inst->component, inst->leg);
    if (!s) {
        t->failed = errno ? errno : ENOMEM;
        return;
    }
    const latrec_leg *leg = latrec_legs_leg(t->legs, inst->leg);
    const int n_hits = inst->n_hits < MAX_HITS ? inst->n_hits : MAX_HITS;
    uint64_t mask = 0, base = 0;
    for (int i = n_hits; i-- > 0;)
        if (inst->hits[i].t_ns) {
            mask |= 1ull << i;
            base = inst->hits[i].t_ns;
        }
    unsigned char row[ROW_MOST], *p = row;
    p = put_varint(p, inst->seq);
    p = put_varint(p, inst->process);
    p = put_varint(p, (uint64_t)(inst->complete != 0));
    p = put_varint(p, mask);
    p = put_varint(p, base);
    int first = 1;
    for (int i = 0; i < n_hits; i++) {
        if (!(mask >> i & 1)) continue;
        if (!first) p = put_varint(p, zigzag((int64_t)(inst->hits[i].t_ns - base)));
        first = 0;
    }
    for (int k = 0; k < leg->n_keys; k++) {
        const int h = s->key_hits[k];
        if (h < 0 || h >= n_hits || !(mask >> h & 1) || leg->keys[k].field == LATREC_FIELD_SEQ) continue;
        p = put_varint(p, leg->keys[k].field == LATREC_FIELD_AUX ? inst->hits[h].aux : inst->hits[h].aux2);
    }
    const size_t n = (size_t)(p - row);
    if (s->len + n > SPOOL_BUF) spool_flush(s);
    memcpy(s->buf + s->len, row, n);
    s->len += n;
    s->rows++; /* write errors show at latrec_component_tables_write() */
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

/* Hit index of stage s in leg, or -1. */
static int stage_hit(const latrec_leg *leg, unsigned s)
{
    int i = latrec_leg_chain_pos(leg, s);
    if (i < 0 && (i = latrec_leg_extra_pos(leg, s)) >= 0) i += leg->n_chain;
    return i;
}

/* What one column shows for the rows of one leg. */
struct cell {
    int kind; /* COL_*, or -1: always empty for this leg */
    int a, b; /* hit indexes (stage, hop from/to); key: index into the leg's keys */
};

static int write_component(latrec_component_tables *t, int comp, const char *path)
{
    struct columns stages = { 0 }, hops = { 0 }, keys = { 0 };
    struct cell *plan = NULL;
    struct spool_in *in = NULL;
    int rc = -1;
    latrec_csv c;
    int opened = 0;
    /* Legs of this component in leg order. */
    int n_legs = latrec_legs_n_legs(t->legs);
    for (int l = 0; l < n_legs; l++)
        for (size_t i = 0; i < t->n; i++)
            if (t->spools[i].component == comp && t->spools[i].leg == l &&
                leg_columns(&stages, &hops, &keys, latrec_legs_leg_catalog(t->legs, l), latrec_legs_leg(t->legs, l),
                            l) < 0)
                goto out;
    if (latrec_csv_open(&c, path, NULL) < 0) goto out;
    opened = 1;
    latrec_csv_str(&c, "leg");
    latrec_csv_str(&c, "pid");
    latrec_csv_str(&c, "seq");
    latrec_csv_str(&c, "complete");
    const struct columns *all[3] = { &stages, &hops, &keys };
    size_t n_cols = 0;
    for (int g = 0; g < 3; g++)
        for (size_t i = 0; i < all[g]->n; i++, n_cols++) latrec_csv_str(&c, all[g]->c[i].name);
    latrec_csv_end(&c);
    if (n_cols && !(plan = calloc(n_cols, sizeof(*plan)))) goto out;
    if (!(in = malloc(sizeof(*in)))) goto out;

    for (int l = 0; l < n_legs; l++) {
        struct spool *s = NULL;
        for (size_t i = 0; i < t->n; i++)
            if (t->spools[i].component == comp && t->spools[i].leg == l) s = &t->spools[i];
        if (!s) continue;
        const latrec_leg *leg = latrec_legs_leg(t->legs, l);
        const int n_hits = leg->n_chain + leg->n_extras;
        /* The column plan of this leg: which hit (or key) each column shows.
         * A key column shared by name by several legs shows each leg's own
         * key (msg_id is SEND_DONE.aux for outbound, DECODE_E3AP_DONE.aux
         * for inbound). */
        size_t ci = 0;
        for (int g = 0; g < 3; g++)
            for (size_t i = 0; i < all[g]->n; i++, ci++) {
                const struct column *col = &all[g]->c[i];
                struct cell *p = &plan[ci];
                p->kind = -1;
                if (col->kind == COL_STAGE) {
                    if ((p->a = stage_hit(leg, col->a)) >= 0) p->kind = COL_STAGE;
                } else if (col->kind == COL_HOP || (col->kind == COL_TOTAL && col->leg == l)) {
                    p->a = stage_hit(leg, col->a);
                    p->b = stage_hit(leg, col->b);
                    if (p->a >= 0 && p->b >= 0) p->kind = COL_HOP;
                } else if (col->kind == COL_KEY) {
                    for (int k = 0; k < leg->n_keys; k++)
                        if (strcmp(leg->keys[k].column, col->name) == 0) {
                            p->kind = COL_KEY;
                            p->a = k;
                            break;
                        }
                }
            }
        int key_hits[LATREC_MAX_KEYS];
        for (int k = 0; k < leg->n_keys; k++) key_hits[k] = key_hit(leg, k);

        latrec_fmt_hi stamp_hi = LATREC_FMT_HI_INIT; /* the stages' stamps share their leading digits */
        char leg_field[2 * LATREC_NAME_MAX + 3];
        const size_t leg_len = latrec_csv_field(leg->name, leg_field, sizeof(leg_field));
        FILE *f = s->f;
        spool_flush(s);
        if (fflush(f) != 0 || ferror(f)) goto out; /* spooling failed (errno kept) */
        rewind(f);
        *in = (struct spool_in){ .f = f };
        uint64_t seq, process, complete, mask, base;
        while (spool_fill(in), in->pos < in->len) {
            uint64_t ts[MAX_HITS] = { 0 }, kv[LATREC_MAX_KEYS];
            int kp[LATREC_MAX_KEYS] = { 0 };
            if (get_varint(in, &seq) != 1 || get_varint(in, &process) != 1 || get_varint(in, &complete) != 1 ||
                get_varint(in, &mask) != 1 || get_varint(in, &base) != 1 || mask >> n_hits)
                goto bad;
            int first = 1;
            for (int i = 0; i < n_hits; i++) {
                if (!(mask >> i & 1)) continue;
                uint64_t z = 0;
                if (!first && get_varint(in, &z) != 1) goto bad;
                ts[i] = base + (uint64_t)unzigzag(z);
                first = 0;
            }
            for (int k = 0; k < leg->n_keys; k++) {
                const int h = key_hits[k];
                if (h < 0 || !(mask >> h & 1)) continue;
                kp[k] = 1;
                if (leg->keys[k].field == LATREC_FIELD_SEQ) kv[k] = seq;
                else if (get_varint(in, &kv[k]) != 1) goto bad;
            }
            if (in->pos > in->len) goto bad; /* the spool ended inside the row */
            const latrec_process *proc = latrec_legs_process(t->legs, (uint32_t)process);
            /* the row in place: the quoted leg name, then at most 26 bytes a cell */
            char *o = latrec_csv_reserve(&c, leg_len + 4 + 26 * (n_cols + 3));
            memcpy(o, leg_field, leg_len);
            o += leg_len;
            *o++ = ',';
            if (proc->pid) o = latrec_fmt_u64(o, proc->pid);
            *o++ = ',';
            o = latrec_fmt_u64(o, seq);
            *o++ = ',';
            o = latrec_fmt_u64(o, complete);
            for (size_t i = 0; i < n_cols; i++) {
                const struct cell *p = &plan[i];
                *o++ = ',';
                switch (p->kind) {
                case COL_STAGE:
                    if (ts[p->a]) o = latrec_fmt_u64_hi(o, ts[p->a], &stamp_hi);
                    break;
                case COL_HOP:
                    if (ts[p->a] && ts[p->b]) o = latrec_fmt_us(o, (int64_t)(ts[p->b] - ts[p->a]));
                    break;
                case COL_KEY:
                    if (kp[p->a]) o = latrec_fmt_u64(o, kv[p->a]);
                    break;
                default: break;
                }
            }
            *o++ = '\n';
            latrec_csv_commit(&c, o);
        }
        if (ferror(f)) goto bad;
    }
    rc = 0;
    goto out;
bad:
    errno = EIO;
out:
    if (opened) {
        const int e = errno;
        if (latrec_csv_close(&c) < 0) rc = -1;
        else errno = e;
    }
    free(plan);
    free(in);
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
        /* The component is a ring name's role (from a file header) or a
         * catalog's name for it: a '/' in it would name another directory,
         * and "rings.csv"/"records.csv" are taken. */
        char file[LATREC_NAME_MAX + 8], path[4200];
        snprintf(file, sizeof(file), "%s", latrec_legs_component_name(t->legs, comp));
        for (char *c = file; *c; c++)
            if (*c == '/') *c = '_';
        if (strcmp(file, "rings") == 0 || strcmp(file, "records") == 0)
            strcat(file, "_legs");
        snprintf(path, sizeof(path), "%s/%s.csv", outdir, file);
        if (write_component(t, comp, path) < 0) {
            snprintf(err, errlen, "%s: %s", path, latrec_outfile_strerror(errno));
            return -1;
        }
    }
    return 0;
}
