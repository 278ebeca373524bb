/* records.csv rows (see records_csv.h). */
#include "cli/records_csv.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* A piece of a row, quoted, with its commas. Its storage has at least
 * PIECE_COPY bytes, so a short piece is copied with one fixed-size memcpy
 * of 16, 32 or 64 bytes (one to four vector moves) instead of a call. */
#define PIECE_COPY 64

struct piece {
    size_t n;
    char *s; /* NULL: not made yet (a stage piece is made at its first row) */
};

/* Rows wait in batches that go round a fixed ring of REC_QUEUE buffers:
 * the caller fills one while the writer thread formats the ones before
 * it, so rows come out in the order added. */
#define REC_BATCH 8192
#define REC_QUEUE 6

/* What a row shows of a merged record, 48 bytes. */
struct rec_row {
    uint64_t t_ns;   /* the merge key */
    latrec_rec rec;  /* as stored */
    uint32_t ring;
    int32_t leg;     /* builder leg, or -1 */
};

struct rec_batch {
    size_t n;
    struct rec_row row[REC_BATCH];
};

struct latrec_records_csv {
    const latrec_input *in;
    latrec_csv *c;
    latrec_csv csv;
    struct rec_batch *batch[REC_QUEUE];
    struct rec_batch *fill; /* the caller's batch: batch[filled % REC_QUEUE] */
    /* batches handed to the writer and written; filled - written < REC_QUEUE */
    uint64_t filled, written;
    int threaded, done;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t room;   /* the caller waits for a written batch */
    pthread_cond_t ready;  /* the writer waits for a filled batch */
    size_t n_rings;
    int n_legs, wall;
    size_t row_most;     /* the most bytes a row takes, with the pieces' fixed-size copies */
    struct piece *ring;  /* per ring: ",ring,component,pid,tid," */
    struct piece *stage; /* per ring and stage id (256 a ring): "stage,stage_name," */
    struct piece *leg;   /* per catalog leg, then one for none: "leg," or "," */
    latrec_fmt_hi t_hi, mono_hi; /* t_ns's and t_mono_ns's leading digits (writer thread) */
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
    if (p->n <= 16) memcpy(out, p->s, 16);
    else if (p->n <= 32) memcpy(out, p->s, 32);
    else if (p->n <= PIECE_COPY) memcpy(out, p->s, PIECE_COPY);
    else memcpy(out, p->s, p->n);
    return out + p->n;
}

static const struct piece *stage_piece(latrec_records_csv *w, uint32_t ring, unsigned stage)
{
    struct piece *p = &w->stage[(size_t)ring * 256 + stage];
    if (__builtin_expect(p->s == NULL, 0)) {
        char id[24], namebuf[8];
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

/* The pieces and the header row into w->c. 0, or -1 when out of memory. */
static int rows_init(latrec_records_csv *w, const latrec_input *in, const latrec_legs *legs)
{
    latrec_csv *c = w->c;
    const latrec_fmt_hi hi0 = LATREC_FMT_HI_INIT;
    w->t_hi = w->mono_hi = hi0;
    w->in = in;
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
    if (!ok) return -1;
    /* six numbers of at most 20 digits and their commas, the pieces (a
     * stage's: its id, its name quoted, two commas), the newline, and room
     * for the last piece's fixed-size copy and the last number's 8-byte
     * store */
    size_t ring_most = 0, leg_most = 0;
    for (size_t i = 0; i < w->n_rings; i++)
        if (w->ring[i].n > ring_most) ring_most = w->ring[i].n;
    for (int l = 0; l <= w->n_legs; l++)
        if (w->leg[l].n > leg_most) leg_most = w->leg[l].n;
    w->row_most = 6 * 21 + ring_most + 2 * LATREC_NAME_MAX + 8 + leg_most + 1 + PIECE_COPY + 8;
    static const char *const cols[] = { "t_ns",  "ring",       "component", "pid", "tid",  "seq", "cpu",
                                        "stage", "stage_name", "leg",       "aux", "aux2", NULL };
    for (int i = 0; cols[i]; i++) latrec_csv_str(c, cols[i]);
    if (w->wall) latrec_csv_str(c, "t_mono_ns");
    latrec_csv_end(c);
    return 0;
}

static void rows_write(latrec_records_csv *w, const struct rec_batch *b)
{
    latrec_fmt_hi *t_hi = &w->t_hi, *mono_hi = &w->mono_hi;
    for (size_t i = 0; i < b->n; i++) {
        const struct rec_row *e = &b->row[i];
        const uint32_t r = e->ring;
        const unsigned stage = latrec_rec_stage(e->rec.sc);
        const int l = e->leg >= 0 && e->leg < w->n_legs ? e->leg : w->n_legs;
        const struct piece *sp = stage_piece(w, r, stage);
        char *p = latrec_csv_reserve(w->c, w->row_most);
        p = latrec_fmt_u64_hi(p, e->t_ns, t_hi);
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
            p = latrec_fmt_u64_hi(p, e->rec.t_ns, mono_hi);
        }
        *p++ = '\n';
        latrec_csv_commit(w->c, p);
    }
}

static void sync_destroy(latrec_records_csv *w)
{
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->room);
    pthread_cond_destroy(&w->ready);
}

/* Without a writer thread: the batch out now, in the caller's. */
static void write_here(latrec_records_csv *w)
{
    rows_write(w, w->fill);
    w->fill->n = 0;
}

static void rows_free(latrec_records_csv *w)
{
    for (size_t i = 0; w->ring && i < w->n_rings; i++) free(w->ring[i].s);
    for (size_t i = 0; w->stage && i < w->n_rings * 256; i++) free(w->stage[i].s);
    for (int l = 0; w->leg && l <= w->n_legs; l++) free(w->leg[l].s);
    free(w->ring);
    free(w->stage);
    free(w->leg);
    for (int i = 0; i < REC_QUEUE; i++) free(w->batch[i]);
    if (w->threaded) sync_destroy(w);
    free(w);
}

static void *writer_main(void *arg)
{
    latrec_records_csv *w = arg;
    for (;;) {
        pthread_mutex_lock(&w->mu);
        while (w->written == w->filled && !w->done) pthread_cond_wait(&w->ready, &w->mu);
        if (w->written == w->filled) {
            pthread_mutex_unlock(&w->mu);
            return NULL;
        }
        const struct rec_batch *b = w->batch[w->written % REC_QUEUE];
        pthread_mutex_unlock(&w->mu);
        rows_write(w, b);
        pthread_mutex_lock(&w->mu);
        w->written++;
        pthread_cond_signal(&w->room);
        pthread_mutex_unlock(&w->mu);
    }
}

latrec_records_csv *latrec_records_csv_open(const char *path, const latrec_input *in, const latrec_legs *legs,
                                            latrec_outset *set, char *err, size_t errlen)
{
    latrec_records_csv *w = calloc(1, sizeof(*w));
    if (!w) {
        snprintf(err, errlen, "%s: out of memory", path);
        errno = ENOMEM;
        return NULL;
    }
    int ok = 1;
    for (int i = 0; ok && i < REC_QUEUE; i++) ok = (w->batch[i] = malloc(sizeof(struct rec_batch))) != NULL;
    if (!ok) {
        rows_free(w);
        snprintf(err, errlen, "%s: out of memory", path);
        errno = ENOMEM;
        return NULL;
    }
    if (latrec_csv_open(&w->csv, path, set, err, errlen) < 0) {
        const int e = errno;
        rows_free(w);
        errno = e;
        return NULL;
    }
    w->c = &w->csv;
    if (rows_init(w, in, legs) < 0) {
        latrec_csv_abort(&w->csv);
        rows_free(w);
        snprintf(err, errlen, "%s: out of memory", path);
        errno = ENOMEM;
        return NULL;
    }
    w->fill = w->batch[0];
    w->fill->n = 0; /* malloc's: the first batch starts empty too */
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->room, NULL);
    pthread_cond_init(&w->ready, NULL);
    w->threaded = 1;
    if (pthread_create(&w->thread, NULL, writer_main, w) != 0) { /* the rows then go out in the caller's thread */
        sync_destroy(w);
        w->threaded = 0;
    }
    return w;
}

/* The full batch to the writer; the next one to fill. */
static void hand_over(latrec_records_csv *w)
{
    if (!w->threaded) {
        write_here(w);
        return;
    }
    pthread_mutex_lock(&w->mu);
    w->filled++;
    pthread_cond_signal(&w->ready);
    while (w->filled - w->written == REC_QUEUE) pthread_cond_wait(&w->room, &w->mu);
    pthread_mutex_unlock(&w->mu);
    w->fill = w->batch[w->filled % REC_QUEUE];
    w->fill->n = 0;
}

void latrec_records_csv_add(latrec_records_csv *w, const latrec_merged *ev, int leg)
{
    struct rec_batch *b = w->fill;
    struct rec_row *row = &b->row[b->n];
    /* field by field: ev is often built just before the call (the pass on
     * threads), and a load wider than the stores that wrote it cannot take
     * its bytes from them (store forwarding) but waits for them to retire */
    uint64_t t_ns = ev->t_ns, stamped = ev->rec.t_ns, sc = ev->rec.sc, aux = ev->rec.aux, aux2 = ev->rec.aux2;
    __asm__("" : "+r"(t_ns), "+r"(stamped), "+r"(sc), "+r"(aux), "+r"(aux2)); /* kept as scalar loads */
    row->t_ns = t_ns;
    row->rec.t_ns = stamped;
    row->rec.sc = sc;
    row->rec.aux = aux;
    row->rec.aux2 = aux2;
    row->ring = ev->ring;
    row->leg = leg;
    if (++b->n == REC_BATCH) hand_over(w);
}

/* Every row added written; the writer thread ended. */
static void drain(latrec_records_csv *w)
{
    if (!w->threaded) {
        write_here(w);
        return;
    }
    pthread_mutex_lock(&w->mu);
    if (w->fill->n) w->filled++;
    w->done = 1;
    pthread_cond_signal(&w->ready);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
    w->fill->n = 0;
}

int latrec_records_csv_close(latrec_records_csv *w, char *err, size_t errlen)
{
    drain(w);
    const int rc = latrec_csv_close(&w->csv, err, errlen);
    const int e = errno;
    rows_free(w);
    errno = e;
    return rc;
}

void latrec_records_csv_abort(latrec_records_csv *w)
{
    if (!w) return;
    if (w->threaded) { /* rows handed over are written, then dropped with the file */
        pthread_mutex_lock(&w->mu);
        w->done = 1;
        pthread_cond_signal(&w->ready);
        pthread_mutex_unlock(&w->mu);
        pthread_join(w->thread, NULL);
    }
    latrec_csv_abort(&w->csv);
    rows_free(w);
}
