/* <component>.csv writer. */
#include "cli/component_table.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/component_table_impl.h"
#include "cli/csv.h"
#include "read/escape.h"

struct spool {
    int component, leg;
    FILE *f;
    uint64_t rows;
    int key_hits[LATREC_MAX_KEYS]; /* key_hit() of each of the leg's keys */
    size_t len;                    /* bytes in buf, not yet in f */
    unsigned char *buf;            /* SPOOL_BUF bytes */
    int err;                       /* the first failed write's errno, or 0 */
};

struct stream; /* a component's rows straight into its file, below */

struct latrec_component_tables {
    const latrec_input *in;
    const latrec_legs *legs;
    char outdir[4096];
    latrec_outset *set; /* where each file goes when closed */
    const char *spool_dir; /* where the spools are: $TMPDIR, else /tmp (for messages) */
    struct spool *spools;
    size_t n, cap;
    size_t last;
    struct stream *streams; /* per component */
    int n_streams;
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

/* The most bytes a row takes: every varint 10 bytes long. */
#define ROW_MOST (10 * (5 + CT_MAX_HITS + LATREC_MAX_KEYS))

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
static int key_hit(const latrec_leg *leg, int k) { return ct_stage_hit(leg, leg->keys[k].stage); }

latrec_component_tables *latrec_component_tables_new(const latrec_input *in, const latrec_legs *legs,
                                                     const char *outdir, latrec_outset *set)
{
    latrec_component_tables *t = calloc(1, sizeof(*t));
    if (!t) return NULL;
    t->in = in;
    t->legs = legs;
    t->set = set;
    const char *tmp = getenv("TMPDIR");
    t->spool_dir = tmp && *tmp ? tmp : P_tmpdir;
    snprintf(t->outdir, sizeof(t->outdir), "%s", outdir);
    return t;
}

/* An anonymous file in dir, read and written (gone when closed); NULL
 * with errno. tmpfile() would take /tmp whatever $TMPDIR says. */
static FILE *spool_file(const char *dir)
{
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) { /* no O_TMPFILE there */
        char path[4200];
        snprintf(path, sizeof(path), "%s/.latrec-spool.XXXXXX", dir);
        if ((fd = mkostemp(path, O_CLOEXEC)) >= 0) unlink(path);
    }
    FILE *f = fd >= 0 ? fdopen(fd, "w+") : NULL;
    if (!f && fd >= 0) {
        const int e = errno;
        close(fd);
        errno = e;
    }
    return f;
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
    FILE *f = spool_file(t->spool_dir);
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

/* The buffered rows into the spool file (the first failed write kept in s->err). */
static void spool_flush(struct spool *s)
{
    if (s->len && fwrite(s->buf, 1, s->len, s->f) != s->len && !s->err) s->err = errno ? errno : EIO;
    s->len = 0;
}

static void spool_add(latrec_component_tables *t, const latrec_instance *inst)
{
    struct spool *s = spool_for(t, inst->component, inst->leg);
    if (!s) {
        t->failed = errno ? errno : ENOMEM;
        return;
    }
    const latrec_leg *leg = latrec_legs_leg(t->legs, inst->leg);
    const int n_hits = inst->n_hits < CT_MAX_HITS ? inst->n_hits : CT_MAX_HITS;
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

/* The columns of comp's legs that have spools, or of only_leg alone (>= 0).
 * 0, or -1 out of memory. */
static int layout_make(const latrec_component_tables *t, int comp, int only_leg, struct ct_layout *lo)
{
    memset(lo, 0, sizeof(*lo));
    const int n_legs = latrec_legs_n_legs(t->legs);
    for (int l = 0; l < n_legs; l++) {
        int has = l == only_leg;
        for (size_t i = 0; only_leg < 0 && !has && i < t->n; i++)
            has = t->spools[i].component == comp && t->spools[i].leg == l;
        if (has && ct_layout_add_leg(lo, t->legs, l) < 0) {
            ct_layout_free(lo);
            return -1;
        }
    }
    return 0;
}

/* The spool's rows of one leg as CSV rows. 0, or -1 with errno. */
static int spool_rows(const latrec_component_tables *t, struct spool *s, struct spool_in *in, latrec_csv *c,
                      struct ct_leg_out *out)
{
    const latrec_leg *leg = latrec_legs_leg(t->legs, s->leg);
    const int n_hits = leg->n_chain + leg->n_extras;
    FILE *f = s->f;
    spool_flush(s);
    if (fflush(f) != 0 && !s->err) s->err = errno;
    if (s->err || ferror(f)) { /* spooling failed */
        errno = s->err ? s->err : EIO;
        return -1;
    }
    rewind(f);
    *in = (struct spool_in){ .f = f };
    uint64_t process, mask, base;
    while (spool_fill(in), in->pos < in->len) {
        struct ct_row_vals v;
        memset(v.ts, 0, sizeof(v.ts));
        memset(v.kp, 0, sizeof(v.kp));
        if (get_varint(in, &v.seq) != 1 || get_varint(in, &process) != 1 || get_varint(in, &v.complete) != 1 ||
            get_varint(in, &mask) != 1 || get_varint(in, &base) != 1 || mask >> n_hits)
            goto bad;
        int first = 1;
        for (int i = 0; i < n_hits; i++) {
            if (!(mask >> i & 1)) continue;
            uint64_t z = 0;
            if (!first && get_varint(in, &z) != 1) goto bad;
            v.ts[i] = base + (uint64_t)unzigzag(z);
            first = 0;
        }
        for (int k = 0; k < leg->n_keys; k++) {
            const int h = s->key_hits[k];
            if (h < 0 || !(mask >> h & 1)) continue;
            v.kp[k] = 1;
            if (leg->keys[k].field == LATREC_FIELD_SEQ) v.kv[k] = v.seq;
            else if (get_varint(in, &v.kv[k]) != 1) goto bad;
        }
        if (in->pos > in->len) goto bad; /* the spool ended inside the row */
        v.pid = latrec_legs_process(t->legs, (uint32_t)process)->pid;
        ct_put_row(c, out, &v);
    }
    if (ferror(f)) goto bad;
    return 0;
bad:
    errno = EIO;
    return -1;
}

/* ---- a component of one leg, streamed -------------------------------------
 *
 * A component's columns are only known once every leg of it is (its file
 * is written at the end). But a component whose instances are all of one
 * leg (the common case at scale: a thread pool of one pipeline) needs no
 * spool: from its first instance on its rows go straight into its file
 * under the columns of that leg alone. When an instance of another leg
 * comes, the stream stops: that file is kept aside as it is, the rows from
 * then on are spooled, and at the end the rows of that file are read back
 * (their stamps and keys) and written under the component's columns before
 * the leg's spooled ones.
 */

enum { STREAM_NONE, STREAM_ON, STREAM_OFF };

struct stream {
    int state, leg;
    int text;              /* csv open: ON, or OFF with the rows streamed before */
    latrec_csv csv;
    struct ct_layout lo;      /* the columns of leg alone */
    struct ct_leg_out out;
    int key_hits[LATREC_MAX_KEYS];
};

static void stream_free(struct stream *st)
{
    if (st->text) latrec_csv_abort(&st->csv);
    st->text = 0;
    ct_layout_free(&st->lo);
    free(st->out.plan);
    st->out.plan = NULL;
}

/* <outdir>/<component>.csv */
static void component_path(const latrec_component_tables *t, int comp, char *path, size_t len)
{
    /* The component is a ring name's role (from a file header) or a
     * catalog's name for it: its control characters and bytes that are not
     * UTF-8 are escaped as in every message (a file name is shown by ls and
     * said in convert's messages), a '/' in it would name another
     * directory, and "rings.csv", "records.csv" and "paths.csv" are taken. */
    char file[4 * LATREC_NAME_MAX + 8];
    latrec_text_safe(latrec_legs_component_name(t->legs, comp), file, sizeof(file) - 8);
    for (char *c = file; *c; c++)
        if (*c == '/') *c = '_';
    if (strcmp(file, "rings") == 0 || strcmp(file, "records") == 0 || strcmp(file, "paths") == 0) strcat(file, "_legs");
    snprintf(path, len, "%s/%s.csv", t->outdir, file);
}

static struct stream *stream_for(latrec_component_tables *t, int comp)
{
    if (comp >= t->n_streams) {
        const int n = comp + 8;
        struct stream *ss = realloc(t->streams, (size_t)n * sizeof(*ss));
        if (!ss) return NULL;
        memset(ss + t->n_streams, 0, (size_t)(n - t->n_streams) * sizeof(*ss));
        t->streams = ss;
        t->n_streams = n;
    }
    return &t->streams[comp];
}

/* The first instance of a component: its file opens under inst's leg's
 * columns (else the component is spooled, and the error shows at write). */
static void stream_start(latrec_component_tables *t, struct stream *st, const latrec_instance *inst)
{
    char path[4200], err[4400];
    const latrec_leg *leg = latrec_legs_leg(t->legs, inst->leg);
    st->state = STREAM_OFF;
    st->leg = inst->leg;
    component_path(t, inst->component, path, sizeof(path));
    if (layout_make(t, inst->component, inst->leg, &st->lo) < 0 ||
        ct_leg_out_make(&st->out, &st->lo, leg, inst->leg) < 0 ||
        latrec_csv_open(&st->csv, path, t->set, err, sizeof(err)) < 0) {
        stream_free(st);
        return;
    }
    for (int k = 0; k < leg->n_keys && k < LATREC_MAX_KEYS; k++) st->key_hits[k] = key_hit(leg, k);
    st->text = 1;
    st->state = STREAM_ON;
    ct_layout_header(&st->csv, &st->lo);
}

/* An instance of another leg: the rows so far stay in the file aside. */
static void stream_stop(latrec_component_tables *t, struct stream *st, int comp)
{
    st->state = STREAM_OFF;
    latrec_csv_flush(&st->csv);
    if (fflush(st->csv.f) != 0 && !st->csv.error) {
        st->csv.error = 1;
        st->csv.err_no = errno;
    }
    if (!spool_for(t, comp, st->leg)) t->failed = errno ? errno : ENOMEM; /* the leg keeps its place */
}

static void stream_row(const latrec_component_tables *t, struct stream *st, const latrec_instance *inst)
{
    const latrec_leg *leg = latrec_legs_leg(t->legs, inst->leg);
    const int n_hits = inst->n_hits < CT_MAX_HITS ? inst->n_hits : CT_MAX_HITS;
    struct ct_row_vals v;
    v.seq = inst->seq;
    v.complete = inst->complete != 0;
    v.pid = latrec_legs_process(t->legs, inst->process)->pid;
    const int leg_hits = leg->n_chain + leg->n_extras; /* what the plan shows */
    for (int i = 0; i < leg_hits && i < CT_MAX_HITS; i++) v.ts[i] = i < n_hits ? inst->hits[i].t_ns : 0;
    v.ts[CT_MAX_HITS] = 0;
    v.kp[LATREC_MAX_KEYS] = 0;
    for (int k = 0; k < leg->n_keys; k++) {
        const int h = st->key_hits[k];
        v.kp[k] = h >= 0 && h < n_hits && v.ts[h];
        if (!v.kp[k]) continue;
        v.kv[k] = leg->keys[k].field == LATREC_FIELD_SEQ   ? inst->seq
                  : leg->keys[k].field == LATREC_FIELD_AUX ? inst->hits[h].aux
                                                           : inst->hits[h].aux2;
    }
    ct_put_row(&st->csv, &st->out, &v);
}

/* A decimal number of a cell; 0 when empty; -1 when not digits. */
static int cell_u64(const char *s, size_t n, uint64_t *v)
{
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        x = x * 10 + (uint64_t)(s[i] - '0');
    }
    *v = x;
    return 0;
}

/* A streamed row read back into its values (the cells stream_row wrote:
 * the leg, pid, seq, complete, then the stamps and keys by the plan of
 * the leg alone; hops are derived again). 0, or -1 when it is not one. */
static int stream_parse(const struct stream *st, const char *line, size_t len, struct ct_row_vals *v)
{
    const struct ct_leg_out *out = &st->out;
    if (len < out->field_len + 1 || memcmp(line, out->field, out->field_len) != 0 || line[out->field_len] != ',')
        return -1;
    memset(v->ts, 0, sizeof(v->ts));
    memset(v->kp, 0, sizeof(v->kp));
    size_t pos = out->field_len + 1;
    for (size_t i = 0; i < 3 + out->n_cols; i++) {
        size_t end = pos;
        while (end < len && line[end] != ',') end++;
        if ((end == len) != (i + 1 == 3 + out->n_cols)) return -1; /* one cell a column */
        uint64_t x = 0;
        const struct ct_cell *p = i >= 3 ? &out->plan[i - 3] : NULL;
        const int number = !p || p->kind == CT_COL_STAGE || p->kind == CT_COL_KEY;
        if (number && cell_u64(line + pos, end - pos, &x) < 0) return -1;
        if (i == 0) v->pid = (uint32_t)x;
        else if (i == 1) v->seq = x;
        else if (i == 2) v->complete = x;
        else if (p->kind == CT_COL_STAGE) v->ts[p->a] = x;
        else if (p->kind == CT_COL_KEY && end > pos) {
            v->kp[p->a] = 1;
            v->kv[p->a] = x;
        }
        pos = end + 1;
    }
    return 0;
}

/* The streamed rows, under the component's columns. 0, or -1 with errno. */
static int stream_rows(struct stream *st, latrec_csv *c, struct ct_leg_out *out)
{
    if (st->csv.error) {
        errno = st->csv.err_no;
        return -1;
    }
    const int fd = openat(st->csv.out->dfd, st->csv.out->tmp, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (!f) {
        const int e = errno;
        if (fd >= 0) close(fd);
        errno = e;
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int rc = 0, header = 1;
    while (rc == 0 && (n = getline(&line, &cap, f)) > 0) {
        struct ct_row_vals v;
        if (header) {
            header = 0;
            continue;
        }
        if (line[n - 1] != '\n' || stream_parse(st, line, (size_t)n - 1, &v) < 0) {
            errno = EIO;
            rc = -1;
            break;
        }
        ct_put_row(c, out, &v);
    }
    if (rc == 0 && ferror(f)) rc = -1;
    const int e = errno;
    free(line);
    fclose(f);
    errno = e;
    return rc;
}

/* ---- writing ---------------------------------------------------------------- */

/* 0, or -1 with err: "PATH: REASON" (or the marker's line). */
static int write_component(latrec_component_tables *t, int comp, const char *path, char *err, size_t errlen)
{
    struct ct_layout lo;
    struct ct_leg_out out = { 0 };
    struct spool_in *in = NULL;
    struct stream *st = comp < t->n_streams ? &t->streams[comp] : NULL;
    int rc = -1;
    latrec_csv c;
    int opened = 0;
    if (layout_make(t, comp, -1, &lo) < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (latrec_csv_open(&c, path, t->set, err, errlen) < 0) goto out;
    opened = 1;
    ct_layout_header(&c, &lo);
    if (!(in = malloc(sizeof(*in)))) goto out;
    /* Legs of this component in leg order. */
    const int n_legs = latrec_legs_n_legs(t->legs);
    for (int l = 0; l < n_legs; l++) {
        struct spool *s = NULL;
        for (size_t i = 0; i < t->n; i++)
            if (t->spools[i].component == comp && t->spools[i].leg == l) s = &t->spools[i];
        if (!s) continue;
        free(out.plan);
        if (ct_leg_out_make(&out, &lo, latrec_legs_leg(t->legs, l), l) < 0) goto out;
        if (st && st->text && st->leg == l && stream_rows(st, &c, &out) < 0) goto out;
        if (spool_rows(t, s, in, &c, &out) < 0) {
            snprintf(err, errlen, "%s: its rows spooled in %s: %s", path, t->spool_dir, strerror(errno));
            latrec_csv_abort(&c);
            opened = 0;
            goto out;
        }
    }
    rc = 0;
out:
    if (opened && rc < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        latrec_csv_abort(&c);
    } else if (opened && latrec_csv_close(&c, err, errlen) < 0) {
        rc = -1;
    }
    free(out.plan);
    free(in);
    ct_layout_free(&lo);
    return rc;
}

int latrec_component_tables_write(latrec_component_tables *t, char *err, size_t errlen)
{
    if (t->failed) {
        snprintf(err, errlen, "%s: cannot spool rows there: %s", t->spool_dir, strerror(t->failed));
        return -1;
    }
    int n_comp = latrec_legs_n_components(t->legs);
    for (int comp = 0; comp < n_comp; comp++) {
        char path[4200];
        struct stream *st = comp < t->n_streams ? &t->streams[comp] : NULL;
        component_path(t, comp, path, sizeof(path));
        if (st && st->state == STREAM_ON) { /* one leg: its file is complete */
            st->text = 0;
            if (latrec_csv_close(&st->csv, err, errlen) < 0) return -1;
            continue;
        }
        int any = 0;
        for (size_t i = 0; i < t->n; i++) any |= t->spools[i].component == comp;
        if (!any) continue;
        const int w = write_component(t, comp, path, err, errlen);
        if (st) stream_free(st); /* the streamed rows are in the file now */
        if (w < 0) return -1;
    }
    return 0;
}

void latrec_component_tables_add(latrec_component_tables *t, const latrec_instance *inst)
{
    struct stream *st = stream_for(t, inst->component);
    if (!st) {
        t->failed = ENOMEM;
        return;
    }
    if (st->state == STREAM_NONE) stream_start(t, st, inst);
    else if (st->state == STREAM_ON && inst->leg != st->leg) stream_stop(t, st, inst->component);
    if (st->state == STREAM_ON) stream_row(t, st, inst);
    else spool_add(t, inst);
}

void latrec_component_tables_free(latrec_component_tables *t)
{
    if (!t) return;
    for (size_t i = 0; i < t->n; i++) {
        if (t->spools[i].f) fclose(t->spools[i].f);
        free(t->spools[i].buf);
    }
    free(t->spools);
    for (int i = 0; i < t->n_streams; i++) stream_free(&t->streams[i]);
    free(t->streams);
    free(t);
}
