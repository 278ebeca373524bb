/*
 * soak - stamp flat out into one ring for a while and count the stamps that
 * took longer than they should.
 *
 *   soak --seconds S --dir DIR [--log2 N] [--cpu N]
 *
 * Opens DIR/soak.<pid>.latrec with 2^N entries (default 20, 32 MiB), then
 * for S seconds: t = latrec_tnow(); latrec_stamp_at(ring, ..., t). The gap
 * between two consecutive clock reads is one stamp plus the loop around it;
 * a gap above 1 us is counted as a slow stamp (every record's aux carries
 * the gap before it, so the ring itself shows where the slow ones were).
 * Minor/major page faults and context switches come from getrusage() deltas
 * over the stamping loop only (the ring is pre-faulted at open, before it).
 *
 * Output, one line:
 *   soak dir=DIR fs=TYPE seconds=S log2=N stamps=X ns_per_stamp=M over_1us=K
 *        max_ns=G minflt=F majflt=J nvcsw=V nivcsw=I
 * Exit status 0, or 1 when the ring cannot be opened, 2 on usage errors.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <latrec/latrec.h>

static const char *fs_name(const char *dir)
{
    struct statfs s;
    if (statfs(dir, &s) != 0) return "unknown";
    switch ((unsigned long)s.f_type) {
    case 0xEF53: return "ext4";
    case 0x01021994: return "tmpfs";
    case 0x58465342: return "xfs";
    case 0x9123683E: return "btrfs";
    case 0x794C7630: return "overlayfs";
    case 0x6969: return "nfs";
    case 0x2FC12FC1: return "zfs";
    case 0xF2F52010: return "f2fs";
    default: return "other";
    }
}

static void usage(void)
{
    fprintf(stderr, "usage: soak --seconds S --dir DIR [--log2 N] [--cpu N]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    double seconds = -1;
    const char *dir = NULL;
    unsigned log2 = 20;
    int cpu = -1;
    const uint64_t threshold = 1000; /* ns */
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc) usage();
        if (strcmp(argv[i], "--seconds") == 0) seconds = atof(argv[++i]);
        else if (strcmp(argv[i], "--dir") == 0) dir = argv[++i];
        else if (strcmp(argv[i], "--log2") == 0) log2 = (unsigned)atoi(argv[++i]);
        else if (strcmp(argv[i], "--cpu") == 0) cpu = atoi(argv[++i]);
        else usage();
    }
    if (seconds <= 0 || !dir || log2 < 1 || log2 > 30) usage();

    if (cpu < 0) cpu = sched_getcpu();
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof(set), &set) != 0)
        fprintf(stderr, "soak: cannot pin to cpu %d: %s (running unpinned)\n", cpu, strerror(errno));

    char name[64];
    snprintf(name, sizeof(name), "soak.%d", (int)getpid());
    latrec_t ring;
    if (latrec_open_in(&ring, dir, name, log2) != 1) return 1;

    struct rusage ru0, ru1;
    getrusage(RUSAGE_SELF, &ru0);
    const uint64_t start = latrec_tnow();
    const uint64_t end = start + (uint64_t)(seconds * 1e9);
    uint64_t prev = start, n = 0, over = 0, max_gap = 0, gap = 0, t;
    do {
        t = latrec_tnow();
        gap = t - prev;
        prev = t;
        if (__builtin_expect(gap > threshold, 0)) over++;
        if (gap > max_gap) max_gap = gap;
        latrec_stamp_at(&ring, n, LATREC_ENQUEUE, gap, 0, t);
        n++;
    } while (t < end);
    getrusage(RUSAGE_SELF, &ru1);
    latrec_close(&ring);

    const double elapsed = (double)(t - start);
    printf("soak dir=%s fs=%s seconds=%.0f log2=%u stamps=%llu ns_per_stamp=%.2f over_1us=%llu "
           "max_ns=%llu minflt=%ld majflt=%ld nvcsw=%ld nivcsw=%ld\n",
           dir, fs_name(dir), seconds, log2, (unsigned long long)n, elapsed / (double)n,
           (unsigned long long)over, (unsigned long long)max_gap, ru1.ru_minflt - ru0.ru_minflt,
           ru1.ru_majflt - ru0.ru_majflt, ru1.ru_nvcsw - ru0.ru_nvcsw, ru1.ru_nivcsw - ru0.ru_nivcsw);
    return 0;
}
