/*
 * gen_synthetic - write synthetic ALR1 rings from a text description, so the
 * CLI tests know every hop delta in advance.
 *
 *   gen_synthetic OUTDIR < SPEC
 *
 * SPEC, one directive per line ('#' starts a comment, fields separated by
 * blanks):
 *
 *   ring NAME [version=3] [pid=1000] [tid=N] [clock=20] [catalog=e3] [flags=0]
 *        a ring file OUTDIR/NAME.latrec with header name NAME; tid defaults
 *        to 1001 + the ring's index; clock is clock_ns_per_call (v2+);
 *        flags the v3 header's (1: the writer closed it cleanly)
 *   rec NAME STAGE SEQ T_NS [AUX [AUX2 [CPU]]]
 *        append one record to ring NAME; STAGE is an E3 stage name
 *        (ENQUEUE) or a number (0x21, 33)
 *   cal NAME TSC MONO_NS
 *        a calibration pair: ring NAME becomes a TSC ring ("ALRT",
 *        timebase 1) whose records' T_NS are TSC counts; pairs are stored
 *        in the order given (at most 128)
 *
 * Records keep the order given (a writer appends in time order; give each
 * ring's records in ascending t_ns unless a test wants a descent). Each ring
 * gets the smallest power-of-two capacity >= max(16, its records), so it
 * never wraps, and rec_count = its records. The t1 clock pair is set to the
 * ring's last record (v2+), as a closed ring has it.
 *
 * Exit status 0, or 1 with one line on stderr naming the SPEC line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "latrec/stages.h"
#include "ringgen.h"

#define MAX_RINGS 256

struct rec {
    uint64_t seq, t, aux, aux2;
    unsigned stage, cpu;
};

struct ring {
    char name[64];
    unsigned version, pid, tid, clock, flags;
    char catalog[32];
    struct rec *recs;
    size_t n, cap;
    uint64_t cal_tsc[128], cal_mono[128];
    unsigned n_cal;
};

static struct ring rings[MAX_RINGS];
static int n_rings;

static const struct {
    const char *name;
    unsigned id;
} stage_names[] = {
#define GEN_STAGE_(name, id) { #name, id },
    LATREC_E3_STAGES(GEN_STAGE_)
#undef GEN_STAGE_
};

static int parse_u64(const char *s, uint64_t *v)
{
    char *end;
    if (!s || !*s || *s == '-') return -1;
    errno = 0;
    *v = strtoull(s, &end, 0);
    return errno || *end ? -1 : 0;
}

static int parse_stage(const char *s, unsigned *id)
{
    for (size_t i = 0; i < sizeof(stage_names) / sizeof(stage_names[0]); i++)
        if (strcmp(stage_names[i].name, s) == 0) {
            *id = stage_names[i].id;
            return 0;
        }
    uint64_t v;
    if (parse_u64(s, &v) < 0 || v > 255) return -1;
    *id = (unsigned)v;
    return 0;
}

static struct ring *find_ring(const char *name)
{
    for (int i = 0; i < n_rings; i++)
        if (strcmp(rings[i].name, name) == 0) return &rings[i];
    return NULL;
}

/* "key=value" option of a ring line. */
static int ring_option(struct ring *r, const char *opt)
{
    const char *eq = strchr(opt, '=');
    if (!eq) return -1;
    size_t k = (size_t)(eq - opt);
    uint64_t v = 0;
    if (k == 7 && strncmp(opt, "catalog", 7) == 0) {
        snprintf(r->catalog, sizeof(r->catalog), "%s", eq + 1);
        return 0;
    }
    if (parse_u64(eq + 1, &v) < 0 || v > UINT32_MAX) return -1;
    if (k == 7 && strncmp(opt, "version", 7) == 0 && v >= 1 && v <= 3) r->version = (unsigned)v;
    else if (k == 3 && strncmp(opt, "pid", 3) == 0) r->pid = (unsigned)v;
    else if (k == 3 && strncmp(opt, "tid", 3) == 0) r->tid = (unsigned)v;
    else if (k == 5 && strncmp(opt, "clock", 5) == 0) r->clock = (unsigned)v;
    else if (k == 5 && strncmp(opt, "flags", 5) == 0) r->flags = (unsigned)v;
    else return -1;
    return 0;
}

static int write_ring(const struct ring *r, const char *dir)
{
    uint64_t entries = 16;
    while (entries < r->n) entries *= 2;
    ringgen g;
    if (ringgen_init(&g, r->version, entries, r->name) < 0) return -1;
    for (size_t i = 0; i < r->n; i++) {
        const struct rec *x = &r->recs[i];
        ringgen_stamp(&g, x->seq, x->cpu, x->stage, x->t, x->aux, x->aux2);
    }
    ringgen_set_u64(&g, RINGGEN_OFF_REC_COUNT, r->n);
    if (r->n_cal) ringgen_make_tsc(&g, r->cal_tsc, r->cal_mono, r->n_cal);
    if (r->version >= 2) {
        ringgen_set_u32(&g, RINGGEN_OFF_CLOCK_COST, r->clock);
        if (r->n) {
            uint64_t last = r->n_cal ? r->cal_mono[r->n_cal - 1] : r->recs[r->n - 1].t;
            ringgen_set_u64(&g, RINGGEN_OFF_T1_MONO, last);
            ringgen_set_u64(&g, RINGGEN_OFF_T1_REAL, RINGGEN_T0_REAL + (last - RINGGEN_T0_MONO));
        }
    }
    if (r->version >= 3) {
        ringgen_set_u32(&g, RINGGEN_OFF_PID, r->pid);
        ringgen_set_u32(&g, RINGGEN_OFF_TID, r->tid);
        ringgen_set_u32(&g, RINGGEN_OFF_FLAGS, r->flags);
        char cat[32] = { 0 };
        snprintf(cat, sizeof(cat), "%s", r->catalog);
        ringgen_set_bytes(&g, RINGGEN_OFF_CATALOG, cat, sizeof(cat));
    }
    char path[4200];
    snprintf(path, sizeof(path), "%s/%s.latrec", dir, r->name);
    int rc = ringgen_write(&g, path);
    ringgen_free(&g);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: gen_synthetic OUTDIR < SPEC\n");
        return 1;
    }
    const char *dir = argv[1];
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "gen_synthetic: %s: %s\n", dir, strerror(errno));
        return 1;
    }
    char line[1024];
    unsigned long lineno = 0;
    while (fgets(line, sizeof(line), stdin)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        char *tok[10];
        int nt = 0;
        for (char *s = strtok(line, " \t\r\n"); s && nt < 10; s = strtok(NULL, " \t\r\n")) tok[nt++] = s;
        if (nt == 0) continue;
        if (strcmp(tok[0], "ring") == 0 && nt >= 2) {
            if (n_rings == MAX_RINGS || find_ring(tok[1]) || strlen(tok[1]) >= sizeof(rings[0].name)) goto bad;
            struct ring *r = &rings[n_rings];
            snprintf(r->name, sizeof(r->name), "%s", tok[1]);
            r->version = 3;
            r->pid = 1000;
            r->tid = 1001u + (unsigned)n_rings;
            r->clock = 20;
            snprintf(r->catalog, sizeof(r->catalog), "e3");
            for (int i = 2; i < nt; i++)
                if (ring_option(r, tok[i]) < 0) goto bad;
            n_rings++;
        } else if (strcmp(tok[0], "rec") == 0 && nt >= 5 && nt <= 8) {
            struct ring *r = find_ring(tok[1]);
            struct rec x = { 0 };
            uint64_t cpu = 0;
            if (!r || parse_stage(tok[2], &x.stage) < 0 || parse_u64(tok[3], &x.seq) < 0 ||
                parse_u64(tok[4], &x.t) < 0 || (nt > 5 && parse_u64(tok[5], &x.aux) < 0) ||
                (nt > 6 && parse_u64(tok[6], &x.aux2) < 0) || (nt > 7 && (parse_u64(tok[7], &cpu) < 0 || cpu > 255)))
                goto bad;
            x.cpu = (unsigned)cpu;
            if (r->n == r->cap) {
                size_t cap = r->cap ? r->cap * 2 : 256;
                struct rec *p = realloc(r->recs, cap * sizeof(*p));
                if (!p) {
                    fprintf(stderr, "gen_synthetic: out of memory\n");
                    return 1;
                }
                r->recs = p;
                r->cap = cap;
            }
            r->recs[r->n++] = x;
        } else if (strcmp(tok[0], "cal") == 0 && nt == 4) {
            struct ring *r = find_ring(tok[1]);
            if (!r || r->n_cal == 128 || parse_u64(tok[2], &r->cal_tsc[r->n_cal]) < 0 ||
                parse_u64(tok[3], &r->cal_mono[r->n_cal]) < 0)
                goto bad;
            r->n_cal++;
        } else {
            goto bad;
        }
        continue;
    bad:
        fprintf(stderr, "gen_synthetic: line %lu: cannot parse this directive\n", lineno);
        return 1;
    }
    for (int i = 0; i < n_rings; i++) {
        if (write_ring(&rings[i], dir) < 0) {
            fprintf(stderr, "gen_synthetic: %s/%s.latrec: %s\n", dir, rings[i].name, strerror(errno));
            return 1;
        }
        free(rings[i].recs);
    }
    return 0;
}
