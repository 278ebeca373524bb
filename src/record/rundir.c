/* Run directory: creation with .old rotation, tmpfs ring directory, moving
 * the rings into place at the end. */
#include "record/rundir.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "read/outfile.h"
#include "record/manifest.h"
#include "util/prog.h"

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Entries a run directory may hold; anything else stops -f. */
static int known_top(const char *name)
{
    static const char *const known[] = { "run.json", "run.json.tmp", LATREC_RING_FAILURE_LOG, "trace.txt", "trace.txt.part",
                                         "trace.dat", "sched.latrec", "sched.latrec.part", NULL };
    for (int i = 0; known[i]; i++)
        if (strcmp(name, known[i]) == 0) return 1;
    return strncmp(name, ".run.json.", 10) == 0; /* a manifest being written (read/outfile.h) */
}

/* -f's walk over a run directory. Pass 0 checks every entry (name and file
 * type) and deletes nothing; pass 1 deletes what pass 0 allowed. Allowed:
 * the files record writes (regular files), rings/ (a symbolic link, or a
 * directory of regular *.latrec / *.part files), the files convert wrote
 * into DIR (listed in DIR/.latrec-output) and directories convert made
 * there (every entry listed in their .latrec-output). */
struct walk {
    const char *dir;
    int   doit;
    char *err;
    size_t errlen;
};

static int walk_fail(struct walk *w, const char *path, const char *why)
{
    snprintf(w->err, w->errlen, "%s: %s; -f deleted nothing and leaves %s alone", path, why, w->dir);
    return -1;
}

static int io_fail(struct walk *w, const char *path)
{
    snprintf(w->err, w->errlen, "%s: %s", path, strerror(errno));
    return -1;
}

/* The files of an output directory that its marker does not list: the
 * marker itself (marked: there is one), and the empty lock file a convert
 * killed while writing leaves (read/outfile.h), before its marker too. */
static int out_meta(const char *name, const struct stat *st, int marked)
{
    return (marked && !strcmp(name, LATREC_OUT_MARKER)) || (!strcmp(name, LATREC_OUT_LOCK) && st->st_size == 0);
}

/* A subdirectory of DIR: rings/ (ring files only) or a directory latrec
 * convert made (every entry listed in its marker). */
static int walk_sub(struct walk *w, const char *path, int rings)
{
    int dfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0) return io_fail(w, path);
    DIR *d = fdopendir(dfd);
    if (!d) {
        close(dfd);
        return io_fail(w, path);
    }
    int rc = 0;
    struct dirent *e;
    char sub[4800];
    while (rc == 0 && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
        if (w->doit) { /* everything was checked in pass 0 */
            if (unlinkat(dfd, e->d_name, 0) != 0) rc = io_fail(w, sub);
            continue;
        }
        struct stat st;
        if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            rc = io_fail(w, sub);
        else if (!S_ISREG(st.st_mode))
            rc = walk_fail(w, sub, S_ISDIR(st.st_mode) ? "a directory" : "not a regular file");
        else if (rings && !ends_with(e->d_name, ".latrec") && !ends_with(e->d_name, ".part"))
            rc = walk_fail(w, sub, "not a ring");
        else if (!rings && !out_meta(e->d_name, &st, 1) && !latrec_outdir_lists(dfd, e->d_name))
            rc = walk_fail(w, sub, "not written by latrec (not listed in " LATREC_OUT_MARKER ")");
    }
    closedir(d);
    if (rc == 0 && w->doit && rmdir(path) != 0) rc = io_fail(w, path);
    return rc;
}

static int walk_top(struct walk *w)
{
    int dfd = open(w->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0) return io_fail(w, w->dir);
    DIR *d = fdopendir(dfd);
    if (!d) {
        close(dfd);
        return io_fail(w, w->dir);
    }
    int marked = faccessat(dfd, LATREC_OUT_MARKER, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
    int rc = 0;
    struct dirent *e;
    char path[4400];
    while (rc == 0 && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(path, sizeof(path), "%s/%s", w->dir, e->d_name);
        struct stat st;
        if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            rc = io_fail(w, path);
        } else if (S_ISDIR(st.st_mode)) {
            /* .rings.new: the final move's staging directory, left when latrec died during it */
            int rings = strcmp(e->d_name, "rings") == 0 || strcmp(e->d_name, ".rings.new") == 0;
            int fd = openat(dfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            int own = fd >= 0 && faccessat(fd, LATREC_OUT_MARKER, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
            if (fd >= 0) close(fd);
            if (!w->doit && !rings && !own) rc = walk_fail(w, path, "a directory latrec did not make");
            else rc = walk_sub(w, path, rings);
        } else if (w->doit) { /* everything was checked in pass 0 */
            if (unlinkat(dfd, e->d_name, 0) != 0) rc = io_fail(w, path);
        } else if (strcmp(e->d_name, "rings") == 0 && S_ISLNK(st.st_mode)) {
            continue; /* the link to the ring directory of a run (its target is left) */
        } else if (!S_ISREG(st.st_mode)) {
            rc = walk_fail(w, path, S_ISLNK(st.st_mode) ? "a symbolic link" : "not a regular file");
        } else if (!known_top(e->d_name) && !latrec_outdir_lists(dfd, e->d_name) && !out_meta(e->d_name, &st, marked)) {
            rc = walk_fail(w, path, "not written by latrec");
        }
    }
    closedir(d);
    return rc;
}

/* Remove the run directory `dir`, checking first - names and file types,
 * everything - that it holds only what latrec wrote. */
static int remove_rundir(const char *dir, char *err, size_t errlen)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/run.json", dir);
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
        DIR *d = opendir(dir);
        int empty = 1;
        struct dirent *e;
        while (d && (e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) empty = 0;
        if (d) closedir(d);
        if (!empty) {
            snprintf(err, errlen, "%s: not a latrec run directory (no run.json); -f replaces only "
                                  "run directories", dir);
            return -1;
        }
    }
    struct walk w = { dir, 0, err, errlen };
    if (walk_top(&w) < 0) return -1;
    w.doit = 1;
    if (walk_top(&w) < 0) return -1;
    if (rmdir(dir) != 0) {
        snprintf(err, errlen, "%s: %s", dir, strerror(errno));
        return -1;
    }
    return 0;
}

/* One line on the run that holds `dir` locked, from its run.json:
 * "latrec pid 123, run 20261201-090000-123: ./ran --rate 10". */
static void describe_holder(const char *dir, char *out, size_t outlen)
{
    char err[256];
    json_t *run = latrec_manifest_load(dir, err, sizeof(err));
    const json_t *pid = json_object_get(run, "latrec_pid");
    const char *id = json_string_value(json_object_get(run, "run_id"));
    const char *cmd = json_string_value(json_object_get(run, "command"));
    if (json_is_integer(pid))
        snprintf(out, outlen, "latrec pid %lld, run %s: %.300s", (long long)json_integer_value(pid), id ? id : "?",
                 cmd && *cmd ? cmd : "-p");
    else
        snprintf(out, outlen, "%s", run ? "a latrec without its pid in run.json" : "run.json not written yet");
    json_decref(run);
}

/* Lock `dir` (flock LOCK_EX on the directory itself): the fd, or -1 with
 * errno (EWOULDBLOCK: another run holds it). */
static int lock_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return -1;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

/* An existing `dir`: refused when a run holds it; said when its run never
 * finished (latrec was killed: run.json still says "recording"). */
static int check_previous(const char *dir, int quiet, char *err, size_t errlen)
{
    int fd = lock_dir(dir);
    if (fd < 0 && errno == EWOULDBLOCK) {
        char who[512];
        describe_holder(dir, who, sizeof(who));
        snprintf(err, errlen, "%s: in use by a running latrec record (%s); wait for it to end, or use "
                              "another -o", dir, who);
        return -1;
    }
    if (fd < 0) return 0; /* not lockable here: rotation says what is wrong */
    char why[256];
    json_t *run = latrec_manifest_load(dir, why, sizeof(why));
    const char *state = json_string_value(json_object_get(run, "state"));
    if (!quiet && state && (strcmp(state, "recording") == 0 || strcmp(state, "running") == 0)) {
        char who[512], cmd[96] = "";
        describe_holder(dir, who, sizeof(who));
        const json_t *pid = json_object_get(run, "pid");
        if (json_is_integer(pid) && json_integer_value(pid) > 0) /* PR_SET_PDEATHSIG should have ended it */
            snprintf(cmd, sizeof(cmd), "; its command, pid %lld, %s", (long long)json_integer_value(pid),
                     kill((pid_t)json_integer_value(pid), 0) == 0 || errno == EPERM ? "still exists (check it)"
                                                                                   : "is gone");
        fprintf(stderr,
                "%s: %s: its run never finished (%s; latrec ended without finalising it, "
                "killed?%s); see latrec report %s\n",
                latrec_prog, dir, who, cmd, dir);
    }
    json_decref(run);
    close(fd);
    return 0;
}

int latrec_rundir_create(const char *dir_in, int force, int quiet, int *rotated, int *lock_fd, char *err,
                         size_t errlen)
{
    char dir[4096], old[4100], parent[4096];
    snprintf(dir, sizeof(dir), "%s", dir_in);
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/') dir[--len] = '\0';
    *rotated = 0;
    *lock_fd = -1;
    /* Two runs starting at once into the same DIR: the parent directory's
     * lock orders them, so one rotates or creates DIR and locks it before
     * the other looks. */
    snprintf(parent, sizeof(parent), "%s", dir);
    char *slash = strrchr(parent, '/');
    if (!slash) snprintf(parent, sizeof(parent), ".");
    else if (slash == parent) parent[1] = '\0';
    else *slash = '\0';
    int pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    /* held for milliseconds by another record; never wait forever for a
     * lock someone else keeps on the parent (then go on without it) */
    for (int k = 0; pfd >= 0 && flock(pfd, LOCK_EX | LOCK_NB) != 0 && k < 500; k++) {
        struct timespec nap = { 0, 10000000 };
        nanosleep(&nap, NULL);
    }
    int rc = -1;
    struct stat st;
    if (lstat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) {
            snprintf(err, errlen, "%s: exists and is not a directory", dir);
            goto out;
        }
        if (check_previous(dir, quiet, err, errlen) < 0) goto out;
        snprintf(old, sizeof(old), "%s.old", dir);
        if (lstat(old, &st) != 0 && errno == ENOENT) {
            if (rename(dir, old) != 0) {
                snprintf(err, errlen, "%s: cannot rename to %s: %s", dir, old, strerror(errno));
                goto out;
            }
            *rotated = 1;
        } else if (!force) {
            snprintf(err, errlen, "%s: exists and %s exists too (never deleted); move %s away, or use "
                                  "-f to replace %s", dir, old, old, dir);
            goto out;
        } else if (remove_rundir(dir, err, errlen) < 0) {
            goto out;
        }
    } else if (errno != ENOENT) {
        snprintf(err, errlen, "%s: %s", dir, strerror(errno));
        goto out;
    }
    if (mkdir(dir, 0755) != 0) {
        snprintf(err, errlen, "%s: cannot create: %s", dir, strerror(errno));
        goto out;
    }
    if ((*lock_fd = lock_dir(dir)) < 0) {
        snprintf(err, errlen, "%s: cannot lock: %s", dir, strerror(errno));
        goto out;
    }
    rc = 0;
out:
    if (pfd >= 0) close(pfd); /* and its lock */
    return rc;
}

int latrec_rundir_rings_tmp(const char *base, const char *run_id, char *out, size_t outlen,
                            int *tmpfs, char *note, size_t notelen, char *err, size_t errlen)
{
    struct statfs sf;
    *tmpfs = 0;
    note[0] = '\0';
    if (!base) {
        if (statfs("/dev/shm", &sf) != 0 || sf.f_type != TMPFS_MAGIC) {
            snprintf(note, notelen, "/dev/shm is not tmpfs: the rings are written straight into the "
                                    "run directory (writeback may fault them again)");
            out[0] = '\0';
            return 0;
        }
        base = "/dev/shm";
    } else if (mkdir(base, 0755) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "%s: cannot create: %s", base, strerror(errno));
        return -1;
    }
    char abs[PATH_MAX]; /* absolute: the command may change directory */
    if (!realpath(base, abs)) {
        snprintf(err, errlen, "%s: %s", base, strerror(errno));
        return -1;
    }
    if ((size_t)snprintf(out, outlen, "%s/latrec-%s", abs, run_id) >= outlen) {
        snprintf(err, errlen, "%s: path too long", base);
        return -1;
    }
    if (mkdir(out, 0700) != 0) {
        snprintf(err, errlen, "%s: cannot create: %s", out, strerror(errno));
        return -1;
    }
    *tmpfs = statfs(out, &sf) == 0 && sf.f_type == TMPFS_MAGIC;
    if (!*tmpfs)
        snprintf(note, notelen, "%s is not on tmpfs: writeback may fault the rings again", out);
    return 0;
}

int latrec_rundir_failure_log(const char *dir, char *out, size_t outlen, char *note, size_t notelen, char *err,
                              size_t errlen)
{
    char abs[PATH_MAX];
    note[0] = '\0';
    if (!realpath(dir, abs) || (size_t)snprintf(out, outlen, "%s/%s", abs, LATREC_RING_FAILURE_LOG) >= outlen) {
        snprintf(err, errlen, "%s: %s", dir, realpath(dir, abs) ? "path too long" : strerror(errno));
        return -1;
    }
    int fd = open(out, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot create: %s", out, strerror(errno));
        return -1;
    }
    if (fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 256 << 10) != 0)
        snprintf(note, notelen, "%s: no room reserved (%s): rings that cannot be created on a full filesystem "
                                "may go uncounted", out, strerror(errno));
    close(fd);
    return 0;
}

unsigned latrec_rundir_remove_parts(const char *dir, uint64_t *bytes)
{
    DIR *d = dir ? opendir(dir) : NULL;
    unsigned n = 0;
    if (bytes) *bytes = 0;
    if (!d) return 0;
    struct dirent *e;
    struct stat st;
    while ((e = readdir(d))) {
        if (!ends_with(e->d_name, ".part")) continue;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) continue;
        if (unlinkat(dirfd(d), e->d_name, 0) == 0) {
            n++;
            if (bytes) *bytes += (uint64_t)st.st_size;
        }
    }
    closedir(d);
    return n;
}

int latrec_rundir_rings_link(const char *dir, const char *target, char *err, size_t errlen)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/rings", dir);
    if (target ? symlink(target, path) : mkdir(path, 0755)) {
        snprintf(err, errlen, "%s: cannot create: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* 1 when the n bytes at p are all zero. */
static int all_zero(const char *p, size_t n)
{
    return n == 0 || (p[0] == 0 && memcmp(p, p + 1, n - 1) == 0);
}

/* Bytes [off, off + len) of sfd to the same offsets of dfd, a page of
 * zeros left a hole (not written): 0, -1 with errno, or 1 when sfd ended
 * first (the file shrank: *end where). */
static int copy_range(int sfd, int dfd, off_t off, off_t len, off_t *end)
{
    enum { PAGE = 4096 };
    char buf[1 << 16];
    while (len > 0) {
        ssize_t n = pread(sfd, buf, sizeof(buf) < (size_t)len ? sizeof(buf) : (size_t)len, off);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return -1;
        if (n == 0) { /* the file shrank */
            *end = off;
            return 1;
        }
        for (ssize_t k = 0; k < n;) {
            const size_t step = (size_t)(n - k) < PAGE ? (size_t)(n - k) : PAGE;
            if (all_zero(buf + k, step)) {
                k += (ssize_t)step;
                continue;
            }
            ssize_t w = pwrite(dfd, buf + k, step, off + k);
            if (w < 0 && errno == EINTR) continue;
            if (w < 0) return -1;
            k += w;
        }
        off += n;
        len -= n;
    }
    return 0;
}

/* Copy src to dst (created O_EXCL), sparse: only the source's data
 * (lseek's SEEK_DATA and SEEK_HOLE; all of it where its filesystem cannot
 * say) is read, and only its pages that are not all zero are written. A
 * ring's slots its writer never stamped (its writer faults them in as
 * zeros) then take no room, and a reader's guess does not read them
 * (read/ring.h). 0 or -errno. */
static int copy_file(int sfd, int ddirfd, const char *dname)
{
    int dfd = openat(ddirfd, dname, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (dfd < 0) return -errno;
    struct stat st;
    if (fstat(sfd, &st) != 0) goto fail;
    off_t end = st.st_size;
    for (off_t at = 0; at < end;) {
        off_t data = lseek(sfd, at, SEEK_DATA);
        if (data < 0 && errno == ENXIO) break; /* a hole to the end */
        off_t hole = data >= at ? lseek(sfd, data, SEEK_HOLE) : -1;
        if (data < at || hole <= data) { /* not said: the rest is data */
            data = at;
            hole = end;
        }
        if (hole > end) hole = end;
        const int rc = copy_range(sfd, dfd, data, hole - data, &end);
        if (rc < 0) goto fail;
        if (rc > 0) break;
        at = hole;
    }
    if (ftruncate(dfd, end) != 0) goto fail; /* the holes at the end, or where it shrank */
    if (close(dfd) != 0) {
        int e = errno;
        unlinkat(ddirfd, dname, 0);
        return -e;
    }
    return 0;
fail:;
    int e = errno;
    close(dfd);
    unlinkat(ddirfd, dname, 0);
    return -e;
}

/* The rings of src brought into `stage` (renamed, or copied across
 * filesystems); names[] records each, copied[] how. Stops at the first
 * that cannot be brought: -1 with that line printed. */
struct staged {
    char (*names)[256];
    unsigned char *copied;
    size_t n, cap;
};

static int stage_one(int sdir, int ddir, const char *name, const char *spath, const char *rings, struct staged *sg)
{
    if (sg->n == sg->cap) {
        size_t cap = sg->cap ? 2 * sg->cap : 64;
        char (*nn)[256] = realloc(sg->names, cap * sizeof(*nn));
        if (nn) sg->names = nn;
        unsigned char *nc = nn ? realloc(sg->copied, cap) : NULL;
        if (!nc) {
            fprintf(stderr, "%s: %s: out of memory\n", latrec_prog, spath);
            return -1;
        }
        sg->copied = nc;
        sg->cap = cap;
    }
    int copied = 0;
    if (renameat2(sdir, name, ddir, name, RENAME_NOREPLACE) != 0) {
        if (errno != EXDEV) {
            fprintf(stderr, "%s: %s: cannot move into %s: %s\n", latrec_prog, spath, rings, strerror(errno));
            return -1;
        }
        int sfd = openat(sdir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        char part[300];
        snprintf(part, sizeof(part), "%s.part", name);
        int rc = sfd < 0 ? -errno : copy_file(sfd, ddir, part);
        if (sfd >= 0) close(sfd);
        if (rc == 0 && renameat2(ddir, part, ddir, name, RENAME_NOREPLACE) != 0) {
            rc = -errno;
            unlinkat(ddir, part, 0);
        }
        if (rc < 0) {
            fprintf(stderr, "%s: %s: cannot copy into %s: %s\n", latrec_prog, spath, rings, strerror(-rc));
            return -1;
        }
        copied = 1;
    }
    snprintf(sg->names[sg->n], sizeof(sg->names[0]), "%s", name);
    sg->copied[sg->n++] = (unsigned char)copied;
    return 0;
}

/* Move mode, all or nothing: every ring goes into DIR/.rings.new, which
 * then takes the place of the DIR/rings link. When one cannot be brought
 * (ENOSPC while copying to another filesystem), those already brought go
 * back, DIR/rings keeps pointing at src where every ring still is, and
 * st->failed counts them all (run.json names src; report follows the link). */
static int collect_move(const char *dir, const char *src, latrec_collect_stats *st, char *err, size_t errlen)
{
    char rings[4200], stage[4200], spath[4500];
    snprintf(rings, sizeof(rings), "%s/rings", dir);
    snprintf(stage, sizeof(stage), "%s/.rings.new", dir);
    DIR *d = opendir(src);
    if (!d) {
        snprintf(err, errlen, "%s: %s", src, strerror(errno));
        return -1;
    }
    if (mkdir(stage, 0755) != 0) {
        snprintf(err, errlen, "%s: cannot create: %s", stage, strerror(errno));
        closedir(d);
        return -1;
    }
    int sdir = dirfd(d), ddir = open(stage, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct staged sg = { 0 };
    unsigned rings_seen = 0;
    int bad = ddir < 0;
    struct dirent *e;
    struct stat sb;
    while (!bad && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        if (!ends_with(e->d_name, ".latrec") || fstatat(sdir, e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISREG(sb.st_mode)) {
            st->left++;
            continue;
        }
        rings_seen++;
        snprintf(spath, sizeof(spath), "%s/%s", src, e->d_name);
        bad = stage_one(sdir, ddir, e->d_name, spath, rings, &sg) < 0;
    }
    if (bad) { /* back to src: the link keeps leading to every ring */
        for (size_t i = 0; i < sg.n; i++)
            if (sg.copied[i]) unlinkat(ddir, sg.names[i], 0);
            else if (renameat2(ddir, sg.names[i], sdir, sg.names[i], RENAME_NOREPLACE) != 0)
                fprintf(stderr, "%s: %s/%s: cannot put back into %s: %s\n", latrec_prog, stage, sg.names[i], src,
                        strerror(errno));
        while ((e = readdir(d)))
            if (ends_with(e->d_name, ".latrec")) rings_seen++;
        st->failed = rings_seen;
        if (rmdir(stage) != 0) fprintf(stderr, "%s: %s: cannot remove: %s\n", latrec_prog, stage, strerror(errno));
    } else if ((lstat(rings, &sb) == 0 && (S_ISLNK(sb.st_mode) ? unlink(rings) : rmdir(rings)) != 0) ||
               rename(stage, rings) != 0) {
        snprintf(err, errlen, "%s: cannot take the place of %s: %s", stage, rings, strerror(errno));
        bad = -1;
    } else {
        for (size_t i = 0; i < sg.n; i++) {
            if (!sg.copied[i]) {
                st->moved++;
                continue;
            }
            st->copied++;
            if (unlinkat(sdir, sg.names[i], 0) != 0)
                fprintf(stderr, "%s: %s/%s: copied, but cannot remove: %s\n", latrec_prog, src, sg.names[i],
                        strerror(errno));
        }
    }
    if (ddir >= 0) close(ddir);
    closedir(d);
    free(sg.names);
    free(sg.copied);
    if (bad < 0) return -1;
    if (!bad && st->left == 0 && rmdir(src) != 0 && errno != ENOENT)
        fprintf(stderr, "%s: %s: cannot remove: %s\n", latrec_prog, src, strerror(errno));
    return 0;
}

int latrec_rundir_collect(const char *dir, const char *src, int move, latrec_ring_filter filter,
                          void *ctx, latrec_collect_stats *st, char *err, size_t errlen)
{
    memset(st, 0, sizeof(*st));
    if (move && !filter) return collect_move(dir, src, st, err, errlen);
    char rings[4200];
    snprintf(rings, sizeof(rings), "%s/rings", dir);
    struct stat sb;
    if (lstat(rings, &sb) == 0 && S_ISLNK(sb.st_mode) && unlink(rings) != 0) {
        snprintf(err, errlen, "%s: %s", rings, strerror(errno));
        return -1;
    }
    if (mkdir(rings, 0755) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "%s: cannot create: %s", rings, strerror(errno));
        return -1;
    }
    int ddir = open(rings, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (ddir < 0) {
        snprintf(err, errlen, "%s: %s", rings, strerror(errno));
        return -1;
    }
    DIR *d = opendir(src);
    if (!d) {
        snprintf(err, errlen, "%s: %s", src, strerror(errno));
        close(ddir);
        return -1;
    }
    int sdir = dirfd(d);
    struct dirent *e;
    char spath[4200], part[300];
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(spath, sizeof(spath), "%s/%s", src, e->d_name);
        if (!ends_with(e->d_name, ".latrec") || fstatat(sdir, e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISREG(sb.st_mode)) {
            st->left++;
            continue;
        }
        if (filter && !filter(ctx, spath, e->d_name)) {
            st->skipped++;
            continue;
        }
        if (move && renameat2(sdir, e->d_name, ddir, e->d_name, RENAME_NOREPLACE) == 0) {
            st->moved++;
            continue;
        }
        if (move && errno != EXDEV) {
            fprintf(stderr, "%s: %s: cannot move into %s: %s\n", latrec_prog, spath, rings, strerror(errno));
            st->failed++;
            continue;
        }
        int sfd = openat(sdir, e->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (sfd < 0) {
            fprintf(stderr, "%s: %s: %s\n", latrec_prog, spath, strerror(errno));
            st->failed++;
            continue;
        }
        snprintf(part, sizeof(part), "%s.part", e->d_name);
        int rc = copy_file(sfd, ddir, part);
        close(sfd);
        if (rc == 0 && renameat2(ddir, part, ddir, e->d_name, RENAME_NOREPLACE) != 0) {
            rc = -errno;
            unlinkat(ddir, part, 0);
        }
        if (rc < 0) {
            fprintf(stderr, "%s: %s: cannot copy into %s: %s\n", latrec_prog, spath, rings, strerror(-rc));
            st->failed++;
            continue;
        }
        st->copied++;
        if (move && unlinkat(sdir, e->d_name, 0) != 0)
            fprintf(stderr, "%s: %s: copied, but cannot remove: %s\n", latrec_prog, spath, strerror(errno));
    }
    closedir(d);
    close(ddir);
    if (move && st->left == 0 && st->failed == 0 && st->skipped == 0 && rmdir(src) != 0 && errno != ENOENT)
        fprintf(stderr, "%s: %s: cannot remove: %s\n", latrec_prog, src, strerror(errno));
    return 0;
}
