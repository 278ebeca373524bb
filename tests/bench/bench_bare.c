/*
 * bench_bare.c - the reference an analysis is measured against: a bare C
 * pass over the same rings, written for speed and nothing else.
 *
 *   bench_bare DIR
 *
 * Maps every *.latrec file of DIR, validates its header (magic, version,
 * power-of-two entries, record size, file size), then per process (the v3
 * pid) reads its rings side by side in chunks, files every valid record's
 * time under its seq and stage in a small direct-mapped table, and
 * histograms the deltas between consecutive stages of each seq (log2
 * buckets, one histogram per stage pair). That is the least any per-hop
 * latency figure needs: every record read once, every message's stages
 * brought together, every hop counted. It leans on what the benchmark's
 * rings guarantee (one seq counter per process, a seq's stages close in
 * time), which a general reader cannot.
 *
 * Prints one line: "bare: R rings, N records, H hops, S s, X M records/s".
 * What it does not do (and the analysis does): wrap recovery, loss, the
 * start-stamp filter, catalogs, time order, percentiles beyond log2
 * buckets, output.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "latrec/format.h"

#define MAX_RINGS  1024
#define MAX_STAGES 5 /* stage positions a seq may hold */

struct ring {
    const latrec_hdr *hdr;
    const latrec_rec *rec;
    size_t            map_len;
    uint32_t          pid;
};

struct slot {
    uint64_t seq; /* 0: empty (seqs start at 1) */
    uint64_t t[MAX_STAGES];
};

static uint64_t hist[256][64]; /* [stage pair][log2 bucket] */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int open_ring(const char *dir, const char *name, struct ring *r)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || (size_t)st.st_size < sizeof(latrec_hdr)) {
        if (fd >= 0) close(fd);
        return -1;
    }
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED) return -1;
    const latrec_hdr *h = m;
    uint64_t n = h->entries;
    int ok = h->magic == LATREC_MAGIC && h->version >= 1 && h->version <= 3 && n && !(n & (n - 1)) &&
             n <= (1ull << 32) && (h->version == 1 || h->rec_size == 0 || h->rec_size == LATREC_REC_SIZE) &&
             (uint64_t)st.st_size >= sizeof(latrec_hdr) + n * sizeof(latrec_rec);
    if (!ok) {
        munmap(m, (size_t)st.st_size);
        return -1;
    }
    madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
    r->hdr = h;
    r->rec = (const latrec_rec *)((const char *)m + sizeof(latrec_hdr));
    r->map_len = (size_t)st.st_size;
    r->pid = h->version >= 3 ? h->pid : 0;
    return 0;
}

static int by_pid(const void *a, const void *b)
{
    const struct ring *x = a, *y = b;
    return x->pid < y->pid ? -1 : x->pid > y->pid;
}

#define TAB_LOG2 16   /* seqs in flight a process may have: 64 Ki */
#define CHUNK    4096 /* records taken from each ring in turn */

/* Histogram the stage deltas of one seq's slot and empty it. */
static uint64_t flush(struct slot *s)
{
    uint64_t hops = 0;
    for (int p = 0; p + 1 < MAX_STAGES; p++) {
        uint64_t a = s->t[p], b = s->t[p + 1];
        if (!a || !b) continue;
        uint64_t d = b > a ? b - a : 0;
        hist[p][d ? 63 - __builtin_clzll(d) : 0]++;
        hops++;
    }
    memset(s, 0, sizeof *s);
    return hops;
}

/* One process: its rings are read side by side, CHUNK records of each in
 * turn, so the seqs in flight stay in a small direct-mapped table (a seq's
 * stages sit close in time in every ring); a slot is histogrammed when a
 * newer seq needs it, and at the end. */
static uint64_t pass_process(const struct ring *r, int n, const int8_t *pos, uint64_t *records)
{
    static struct slot tab[1u << TAB_LOG2];
    uint64_t at[MAX_RINGS] = { 0 }, hops = 0;
    for (int busy = 1; busy;) {
        busy = 0;
        for (int i = 0; i < n; i++) {
            const latrec_rec *rec = r[i].rec;
            uint64_t e = r[i].hdr->entries, k = at[i], stop = k + CHUNK < e ? k + CHUNK : e;
            for (; k < stop; k++) {
                uint64_t t = rec[k].t_ns;
                if (!t) continue;
                uint64_t sc = rec[k].sc, seq = sc & LATREC_SEQ_MASK;
                int p = pos[sc >> 56];
                (*records)++;
                if (p < 0 || !seq) continue;
                struct slot *s = &tab[seq & ((1u << TAB_LOG2) - 1)];
                if (s->seq != seq) {
                    if (s->seq) hops += flush(s);
                    s->seq = seq;
                }
                s->t[p] = t;
            }
            at[i] = k;
            busy |= k < e;
        }
    }
    for (uint64_t h = 0; h < (1u << TAB_LOG2); h++)
        if (tab[h].seq) hops += flush(&tab[h]);
    return hops;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: bench_bare DIR\n");
        return 2;
    }
    /* The E3 outbound chain the benchmark rings carry, in order. */
    int8_t pos[256];
    memset(pos, -1, sizeof pos);
    static const unsigned chain[] = { 0x20, 0x21, 0x22, 0x23, 0x24 };
    for (unsigned i = 0; i < sizeof chain / sizeof chain[0]; i++) pos[chain[i]] = (int8_t)i;

    double t0 = now();
    static struct ring rings[MAX_RINGS];
    int n = 0;
    DIR *d = opendir(argv[1]);
    if (!d) {
        perror(argv[1]);
        return 1;
    }
    struct dirent *de;
    while ((de = readdir(d)) && n < MAX_RINGS) {
        size_t l = strlen(de->d_name);
        if (l > 7 && strcmp(de->d_name + l - 7, ".latrec") == 0 && open_ring(argv[1], de->d_name, &rings[n]) == 0)
            n++;
    }
    closedir(d);
    qsort(rings, (size_t)n, sizeof rings[0], by_pid);
    uint64_t records = 0, hops = 0;
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && rings[j].pid == rings[i].pid) j++;
        hops += pass_process(&rings[i], j - i, pos, &records);
        i = j;
    }
    for (int i = 0; i < n; i++) munmap((void *)rings[i].hdr, rings[i].map_len);
    double s = now() - t0;
    uint64_t check = 0;
    for (int p = 0; p < 256; p++)
        for (int b = 0; b < 64; b++) check += hist[p][b];
    printf("bare: %d rings, %llu records, %llu hops, %.3f s, %.1f M records/s\n", n, (unsigned long long)records,
           (unsigned long long)check, s, s > 0 ? (double)records / s / 1e6 : 0.0);
    return hops == check ? 0 : 1;
}
