/* Helpers of the writer tests; see test_writer_util.h. */
#include "test_writer_util.h"

#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

uint32_t tw_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint64_t tw_le64(const uint8_t *p)
{
    return (uint64_t)tw_le32(p) | (uint64_t)tw_le32(p + 4) << 32;
}

void tw_decode_rec(const uint8_t *b, struct tw_rec *out)
{
    out->sc = tw_le64(b + 0);
    out->t_ns = tw_le64(b + 8);
    out->aux = tw_le64(b + 16);
    out->aux2 = tw_le64(b + 24);
    out->seq = out->sc & TW_SEQ_MASK;
    out->cpu = (unsigned)((out->sc >> 48) & 0xFF);
    out->stage = (unsigned)(out->sc >> 56);
}

static void copy_str(char *dst, const uint8_t *src, size_t n)
{
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static int pread_all(int fd, void *buf, size_t len, off_t off)
{
    size_t got = 0;
    while (got < len) {
        ssize_t n = pread(fd, (char *)buf + got, len - got, off + (off_t)got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            if (n == 0) errno = EIO;
            return -1;
        }
        got += (size_t)n;
    }
    return 0;
}

static void decode_hdr(struct tw_hdr *h)
{
    const uint8_t *b = h->raw;
    h->magic = tw_le32(b + 0);
    h->version = tw_le32(b + 4);
    h->entries = tw_le64(b + 8);
    h->rec_count = tw_le64(b + 16);
    h->t0_mono = tw_le64(b + 24);
    h->t0_real = tw_le64(b + 32);
    copy_str(h->name, b + 40, 64);
    h->rec_size = tw_le32(b + 104);
    h->clock_ns_per_call = tw_le32(b + 108);
    h->t1_mono = tw_le64(b + 112);
    h->t1_real = tw_le64(b + 120);
    h->pid = tw_le32(b + 128);
    h->tid = tw_le32(b + 132);
    h->flags = tw_le32(b + 136);
    h->clock_id = tw_le32(b + 140);
    memcpy(h->boot_id, b + 144, 16);
    copy_str(h->host, b + 160, 64);
    copy_str(h->catalog, b + 224, 32);
}

int tw_read_hdr(const char *path, struct tw_hdr *h)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return -1;
    int rc = pread_all(fd, h->raw, TW_HDR_LEN, 0);
    close(fd);
    if (rc == 0) decode_hdr(h);
    return rc;
}

int tw_read_ring(const char *path, struct tw_ring *r)
{
    memset(r, 0, sizeof(*r));
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || pread_all(fd, r->h.raw, TW_HDR_LEN, 0) != 0) {
        close(fd);
        return -1;
    }
    decode_hdr(&r->h);
    r->file_size = (uint64_t)st.st_size;
    if (r->h.entries == 0 || r->h.entries > (1ull << 30) ||
        r->file_size < TW_HDR_LEN + r->h.entries * TW_REC_LEN) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    const size_t len = (size_t)r->h.entries * TW_REC_LEN;
    uint8_t *buf = malloc(len);
    r->slots = calloc((size_t)r->h.entries, sizeof(*r->slots));
    if (!buf || !r->slots || pread_all(fd, buf, len, TW_HDR_LEN) != 0) {
        free(buf);
        free(r->slots);
        r->slots = NULL;
        close(fd);
        return -1;
    }
    close(fd);
    r->nslots = r->h.entries;
    for (uint64_t i = 0; i < r->nslots; i++) tw_decode_rec(buf + i * TW_REC_LEN, &r->slots[i]);
    free(buf);
    return 0;
}

void tw_free_ring(struct tw_ring *r)
{
    free(r->slots);
    r->slots = NULL;
    r->nslots = 0;
}

uint64_t tw_valid_count(const struct tw_ring *r)
{
    uint64_t n = 0;
    for (uint64_t i = 0; i < r->nslots; i++) n += r->slots[i].t_ns != 0;
    return n;
}

long tw_newest_slot(const struct tw_ring *r)
{
    /* Valid records in slot order (invalid slots skipped, e.g. the one a
     * killed writer was overwriting): the newest precedes the first descent. */
    long prev = -1;
    for (uint64_t i = 0; i < r->nslots; i++) {
        if (r->slots[i].t_ns == 0) continue;
        if (prev >= 0 && r->slots[i].t_ns < r->slots[prev].t_ns) return prev;
        prev = (long)i;
    }
    return prev;
}

uint64_t tw_count_formula(uint64_t rec_count, uint64_t entries, uint64_t newest)
{
    /* n - 1 == newest (mod entries), n >= rec_count, smallest such n. */
    const uint64_t mask = entries - 1;
    return rec_count + ((newest + 1 - rec_count) & mask);
}

uint64_t tw_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t tw_real_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (flag == FTW_DP) rmdir(path);
    else unlink(path);
    return 0;
}

void tw_rm_rf(const char *path)
{
    nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

void tw_tmpdir(char *out, size_t len, const char *tag)
{
    extern char *program_invocation_short_name;
    mkdir(LATREC_TEST_TMP, 0755);
    int n = snprintf(out, len, "%s/%s-%s-%d", LATREC_TEST_TMP, program_invocation_short_name, tag,
                     (int)getpid());
    assert_true(n > 0 && (size_t)n < len);
    tw_rm_rf(out);
    if (mkdir(out, 0755) != 0) fail_msg("mkdir %s: %s", out, strerror(errno));
}

static int has_suffix(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

int tw_count_files(const char *dir, const char *suffix)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        if (!suffix || has_suffix(e->d_name, suffix)) n++;
    }
    closedir(d);
    return n;
}

int tw_find_file(const char *dir, const char *prefix, const char *suffix, char *out, size_t len)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    int rc = -1;
    for (struct dirent *e; rc != 0 && (e = readdir(d));) {
        if (strncmp(e->d_name, prefix, strlen(prefix)) != 0) continue;
        if (suffix && !has_suffix(e->d_name, suffix)) continue;
        snprintf(out, len, "%s/%s", dir, e->d_name);
        rc = 0;
    }
    closedir(d);
    return rc;
}

int tw_run_child(int (*fn)(void *), void *arg, char *err, size_t err_len)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(p[0]);
        dup2(p[1], STDERR_FILENO);
        close(p[1]);
        exit(fn(arg));
    }
    close(p[1]);
    size_t got = 0;
    char sink[256];
    for (;;) {
        char *dst = got + 1 < err_len ? err + got : sink;
        size_t room = got + 1 < err_len ? err_len - 1 - got : sizeof(sink);
        ssize_t n = read(p[0], dst, room);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        if (dst == err + got) got += (size_t)n;
    }
    close(p[0]);
    if (err_len) err[got] = '\0';
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    return status;
}

int tw_count_lines(const char *s)
{
    int n = 0;
    for (const char *p = s; *p; p++) n += *p == '\n';
    if (*s && s[strlen(s) - 1] != '\n') n++;
    return n;
}

int tw_pin_here(cpu_set_t *old)
{
    if (old) sched_getaffinity(0, sizeof(*old), old);
    int cpu = sched_getcpu();
    assert_true(cpu >= 0);
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    assert_int_equal(sched_setaffinity(0, sizeof(set), &set), 0);
    /* The move (if any) happens at the next scheduling point. */
    sched_yield();
    cpu = sched_getcpu();
    return cpu;
}

void tw_unpin(const cpu_set_t *old)
{
    sched_setaffinity(0, sizeof(*old), old);
}

long tw_slurp(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    size_t got = 0;
    while (got + 1 < len) {
        ssize_t n = read(fd, buf + got, len - 1 - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
    }
    close(fd);
    buf[got] = '\0';
    return (long)got;
}

/* Remove every LATREC_* variable the child may have inherited. */
void tw_clean_env(void)
{
    extern char **environ;
    for (int again = 1; again;) {
        again = 0;
        for (char **e = environ; e && *e; e++) {
            if (strncmp(*e, "LATREC_", 7) != 0) continue;
            char name[256];
            size_t n = strcspn(*e, "=");
            if (n >= sizeof(name)) continue;
            memcpy(name, *e, n);
            name[n] = '\0';
            unsetenv(name);
            again = 1;
            break;
        }
    }
}
