/* Run directory: creation with .old rotation, tmpfs ring directory, moving
 * the rings into place at the end. */
#include "record/rundir.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Entries a run directory may hold; anything else stops -f. */
static int known_top(const char *name)
{
    static const char *const known[] = { "run.json", "run.json.tmp", "trace.txt", "trace.txt.part",
                                         "trace.dat", "sched.latrec", "sched.latrec.part", NULL };
    for (int i = 0; known[i]; i++)
        if (strcmp(name, known[i]) == 0) return 1;
    return 0;
}

/* Remove the run directory `dir`, checking first that it holds only what
 * record writes. */
static int remove_rundir(const char *dir, char *err, size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/run.json", dir);
    struct stat st;
    if (lstat(path, &st) != 0) {
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
    for (int pass = 0; pass < 2; pass++) { /* pass 0 checks, pass 1 deletes */
        DIR *d = opendir(dir);
        if (!d) {
            snprintf(err, errlen, "%s: %s", dir, strerror(errno));
            return -1;
        }
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
            if (strcmp(e->d_name, "rings") == 0) {
                if (lstat(path, &st) != 0) continue;
                if (S_ISLNK(st.st_mode)) {
                    if (pass && unlink(path) != 0) goto fail;
                    continue;
                }
                if (!S_ISDIR(st.st_mode)) goto unknown;
                DIR *r = opendir(path);
                if (!r) goto fail;
                struct dirent *re;
                char rpath[4400];
                while ((re = readdir(r))) {
                    if (!strcmp(re->d_name, ".") || !strcmp(re->d_name, "..")) continue;
                    snprintf(rpath, sizeof(rpath), "%s/%s", path, re->d_name);
                    if (!ends_with(re->d_name, ".latrec") && !ends_with(re->d_name, ".part")) {
                        snprintf(err, errlen, "%s: not a ring; -f leaves %s alone", rpath, dir);
                        closedir(r);
                        closedir(d);
                        return -1;
                    }
                    if (pass && unlink(rpath) != 0) {
                        snprintf(err, errlen, "%s: %s", rpath, strerror(errno));
                        closedir(r);
                        closedir(d);
                        return -1;
                    }
                }
                closedir(r);
                if (pass && rmdir(path) != 0) goto fail;
                continue;
            }
            if (!known_top(e->d_name)) goto unknown;
            if (pass && unlink(path) != 0) goto fail;
            continue;
        unknown:
            snprintf(err, errlen, "%s: not written by latrec record; -f leaves %s alone", path, dir);
            closedir(d);
            return -1;
        fail:
            snprintf(err, errlen, "%s: %s", path, strerror(errno));
            closedir(d);
            return -1;
        }
        closedir(d);
    }
    if (rmdir(dir) != 0) {
        snprintf(err, errlen, "%s: %s", dir, strerror(errno));
        return -1;
    }
    return 0;
}

int latrec_rundir_create(const char *dir_in, int force, int *rotated, char *err, size_t errlen)
{
    char dir[4096], old[4100];
    snprintf(dir, sizeof(dir), "%s", dir_in);
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/') dir[--len] = '\0';
    *rotated = 0;
    struct stat st;
    if (lstat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) {
            snprintf(err, errlen, "%s: exists and is not a directory", dir);
            return -1;
        }
        snprintf(old, sizeof(old), "%s.old", dir);
        if (lstat(old, &st) != 0 && errno == ENOENT) {
            if (rename(dir, old) != 0) {
                snprintf(err, errlen, "%s: cannot rename to %s: %s", dir, old, strerror(errno));
                return -1;
            }
            *rotated = 1;
        } else if (!force) {
            snprintf(err, errlen, "%s: exists and %s exists too (never deleted); move %s away, or use "
                                  "-f to replace %s", dir, old, old, dir);
            return -1;
        } else if (remove_rundir(dir, err, errlen) < 0) {
            return -1;
        }
    } else if (errno != ENOENT) {
        snprintf(err, errlen, "%s: %s", dir, strerror(errno));
        return -1;
    }
    if (mkdir(dir, 0755) != 0) {
        snprintf(err, errlen, "%s: cannot create: %s", dir, strerror(errno));
        return -1;
    }
    return 0;
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

/* Copy src to dst (created O_EXCL). 0 or -errno. */
static int copy_file(int sfd, int ddirfd, const char *dname)
{
    int dfd = openat(ddirfd, dname, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (dfd < 0) return -errno;
    struct stat st;
    if (fstat(sfd, &st) != 0) goto fail;
    off_t left = st.st_size;
    int use_cfr = 1;
    char buf[1 << 16];
    while (left > 0) {
        ssize_t n;
        if (use_cfr) {
            n = copy_file_range(sfd, NULL, dfd, NULL, (size_t)left, 0);
            if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP)) {
                use_cfr = 0;
                continue;
            }
            if (n < 0) goto fail;
        } else {
            n = read(sfd, buf, sizeof(buf) < (size_t)left ? sizeof(buf) : (size_t)left);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) goto fail;
            for (ssize_t off = 0; off < n;) {
                ssize_t w = write(dfd, buf + off, (size_t)(n - off));
                if (w < 0 && errno == EINTR) continue;
                if (w < 0) goto fail;
                off += w;
            }
        }
        if (n == 0) break; /* the file shrank */
        left -= n;
    }
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

int latrec_rundir_collect(const char *dir, const char *src, int move, latrec_ring_filter filter,
                          void *ctx, latrec_collect_stats *st, char *err, size_t errlen)
{
    memset(st, 0, sizeof(*st));
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
            fprintf(stderr, "latrec: %s: cannot move into %s: %s\n", spath, rings, strerror(errno));
            st->failed++;
            continue;
        }
        int sfd = openat(sdir, e->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (sfd < 0) {
            fprintf(stderr, "latrec: %s: %s\n", spath, strerror(errno));
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
            fprintf(stderr, "latrec: %s: cannot copy into %s: %s\n", spath, rings, strerror(-rc));
            st->failed++;
            continue;
        }
        st->copied++;
        if (move && unlinkat(sdir, e->d_name, 0) != 0)
            fprintf(stderr, "latrec: %s: copied, but cannot remove: %s\n", spath, strerror(errno));
    }
    closedir(d);
    close(ddir);
    if (move && st->left == 0 && st->failed == 0 && st->skipped == 0 && rmdir(src) != 0 && errno != ENOENT)
        fprintf(stderr, "latrec: %s: cannot remove: %s\n", src, strerror(errno));
    return 0;
}
