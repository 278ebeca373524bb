/* Output files written to a temporary name and renamed over latrec's own
 * files only (outfile.h). */
#include "read/outfile.h"

#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#define MARKER_HEAD "# latrec output directory: latrec wrote the files listed below and may replace them\n"

/* dfd's marker: the names it lists, NUL-separated, in a malloc'd buffer
 * (*n bytes); NULL when there is none (or it is not a regular file). */
static char *marker_read(int dfd, size_t *n)
{
    int fd = openat(dfd, LATREC_OUT_MARKER, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return NULL;
    struct stat st;
    char *buf = NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size < (1 << 20) &&
        (buf = malloc((size_t)st.st_size + 1))) {
        ssize_t got = pread(fd, buf, (size_t)st.st_size, 0);
        if (got < 0) got = 0;
        buf[got] = '\0';
        for (ssize_t i = 0; i < got; i++)
            if (buf[i] == '\n') buf[i] = '\0';
        *n = (size_t)got;
    }
    close(fd);
    return buf;
}

int latrec_outdir_lists(int dfd, const char *name)
{
    struct stat st;
    if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) return 0;
    size_t n = 0;
    char *buf = marker_read(dfd, &n);
    int found = 0;
    for (size_t i = 0; buf && i < n && !found; i += strlen(buf + i) + 1)
        found = buf[i] != '#' && strcmp(buf + i, name) == 0;
    free(buf);
    return found;
}

/* The marker's size before a name was added to it, so that the name can
 * be taken out again (marker_undo); or one of these. */
typedef long long marker_mark;
#define MARKER_NONE (-1LL) /* there was no marker: it was created */
#define MARKER_KEPT (-2LL) /* nothing was added (listed already, or a run directory) */

/* "DIR/.latrec-output: cannot list NAME in it: REASON" (DIR: o->path's
 * directory part, as given). */
static void marker_error(const latrec_outfile *o, int e, char *err, size_t errlen)
{
    const char *why = e == ELOOP ? "a symbolic link, not followed" : e == EINVAL ? "not a regular file" : strerror(e);
    snprintf(err, errlen, "%.*s%s: cannot list %s in it: %s", (int)(strlen(o->path) - strlen(o->name)), o->path,
             LATREC_OUT_MARKER, o->name, why);
}

/* Whether dfd's marker can take a name: absent (it is created beside the
 * files), or a regular file latrec may write. 0, or -1 with errno (ELOOP:
 * a symbolic link; EINVAL: not a regular file). Checked before any data
 * is written, so that a marker that would refuse the name fails the
 * command at once instead of after the whole output. */
static int marker_usable(int dfd)
{
    struct stat st;
    if (fstatat(dfd, LATREC_OUT_MARKER, &st, AT_SYMLINK_NOFOLLOW) != 0) return errno == ENOENT ? 0 : -1;
    if (S_ISLNK(st.st_mode)) errno = ELOOP;
    else if (!S_ISREG(st.st_mode)) errno = EINVAL;
    else if (faccessat(dfd, LATREC_OUT_MARKER, W_OK, AT_EACCESS) == 0) return 0;
    return -1;
}

/* List name in dfd's marker (nothing when it is listed already). 0, or -1
 * with errno, the marker as it was. */
static int marker_add(int dfd, const char *name, marker_mark *mark)
{
    *mark = MARKER_KEPT;
    if (latrec_outdir_lists(dfd, name)) return 0;
    int fd = openat(dfd, LATREC_OUT_MARKER, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    const int fresh = fd >= 0;
    if (fd < 0 && errno == EEXIST) fd = openat(dfd, LATREC_OUT_MARKER, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    *mark = fresh ? MARKER_NONE : (marker_mark)st.st_size;
    char line[sizeof(MARKER_HEAD) + 300];
    const int len = snprintf(line, sizeof(line), "%s%s\n", fresh ? MARKER_HEAD : "", name);
    const ssize_t w = write(fd, line, (size_t)len);
    const int e = w < 0 ? errno : ENOSPC; /* a short write: the filesystem is full */
    if (w != len && !fresh) {
        const int cut = ftruncate(fd, (off_t)*mark); /* back to its size: a shorter size needs no room */
        (void)cut;
    }
    close(fd);
    if (w == len) return 0;
    if (fresh) unlinkat(dfd, LATREC_OUT_MARKER, 0);
    *mark = MARKER_KEPT;
    errno = e;
    return -1;
}

/* Take out what marker_add added (mark), the marker as it was before. */
static void marker_undo(int dfd, marker_mark mark)
{
    if (mark == MARKER_KEPT) return;
    if (mark == MARKER_NONE) {
        unlinkat(dfd, LATREC_OUT_MARKER, 0);
        return;
    }
    const int fd = openat(dfd, LATREC_OUT_MARKER, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return;
    const int cut = ftruncate(fd, (off_t)mark); /* a shorter size needs no room: fails only on an I/O error */
    (void)cut;
    close(fd);
}

/* 1 when `name` may be replaced, 0 when it is absent, -1 (errno EEXIST)
 * when it exists and is not latrec's. */
static int may_replace(const latrec_outfile *o, char *err, size_t errlen)
{
    struct stat st;
    if (fstatat(o->dfd, o->name, &st, AT_SYMLINK_NOFOLLOW) != 0) return errno == ENOENT ? 0 : -1;
    const char *why = NULL;
    if (S_ISLNK(st.st_mode)) why = "a symbolic link";
    else if (!S_ISREG(st.st_mode)) why = "not a regular file";
    else if (!(o->flags & LATREC_OUT_OWN_DIR) && !latrec_outdir_lists(o->dfd, o->name))
        why = "not written by latrec (its directory's " LATREC_OUT_MARKER " does not list it)";
    if (!why) return 1;
    snprintf(err, errlen, "%s: exists and is %s: left alone; move it away or write elsewhere", o->path, why);
    errno = EEXIST;
    return -1;
}

/* The temporaries open now, so that a signal that ends the process does not
 * leave them behind (latrec_outfile_unlink_on_signal). A slot is written
 * whole before it is marked used, and cleared before its name goes away;
 * the handler reads only used slots and calls unlinkat(), which is
 * async-signal-safe. Beyond LATREC_OUT_TMP_SLOTS open at once the extra
 * ones are not covered (convert holds one per component table until its
 * set is placed, plus three). */
#define LATREC_OUT_TMP_SLOTS 256
static struct tmp_slot {
    volatile sig_atomic_t used;
    int  dfd;
    char tmp[280];
} tmp_slots[LATREC_OUT_TMP_SLOTS];

static void tmp_register(const latrec_outfile *o)
{
    for (int i = 0; i < LATREC_OUT_TMP_SLOTS; i++) {
        if (tmp_slots[i].used) continue;
        tmp_slots[i].dfd = o->dfd;
        memcpy(tmp_slots[i].tmp, o->tmp, sizeof(o->tmp));
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        tmp_slots[i].used = 1;
        return;
    }
}

static void tmp_unregister(const latrec_outfile *o)
{
    for (int i = 0; i < LATREC_OUT_TMP_SLOTS; i++)
        if (tmp_slots[i].used && tmp_slots[i].dfd == o->dfd && !strcmp(tmp_slots[i].tmp, o->tmp)) {
            tmp_slots[i].used = 0;
            __atomic_signal_fence(__ATOMIC_SEQ_CST);
        }
}

static void unlink_tmps_and_die(int sig)
{
    for (int i = 0; i < LATREC_OUT_TMP_SLOTS; i++)
        if (tmp_slots[i].used) unlinkat(tmp_slots[i].dfd, tmp_slots[i].tmp, 0);
    latrec_outdir_unlock_on_signal();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Catch sig for the temporaries' sake unless it is ignored or caught. */
static void catch_default(int sig)
{
    struct sigaction old, sa;
    if (sigaction(sig, NULL, &old) != 0 || old.sa_handler != SIG_DFL) return; /* ignored or caught: kept */
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = unlink_tmps_and_die;
    sigfillset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
}

void latrec_outfile_unlink_on_signal(void)
{
    /* every signal whose default action ends the process without a fault
     * behind it: a CPU limit (SIGXCPU) or timeout -s ALRM ends a convert as
     * surely as ^C does */
    static const int sigs[] = { SIGINT,  SIGTERM, SIGHUP,    SIGQUIT, SIGPIPE, SIGALRM, SIGUSR1,
                                SIGUSR2, SIGXCPU, SIGVTALRM, SIGPROF, SIGIO,   SIGPWR };
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) catch_default(sigs[i]);
    for (int s = SIGRTMIN; s <= SIGRTMAX; s++) catch_default(s);
    /* a file-size limit: the write fails with EFBIG and the command names
     * the file and removes its temporary, instead of dying of SIGXFSZ */
    struct sigaction old;
    if (sigaction(SIGXFSZ, NULL, &old) == 0 && old.sa_handler == SIG_DFL) signal(SIGXFSZ, SIG_IGN);
}

int latrec_outfile_open(latrec_outfile *o, const char *path, unsigned flags, char *err, size_t errlen)
{
    memset(o, 0, sizeof(*o));
    o->dfd = -1;
    o->flags = flags;
    snprintf(o->path, sizeof(o->path), "%s", path);
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    char dir[4200];
    snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) + (slash == path) : 1, slash ? path : ".");
    if (!*base || strlen(base) >= sizeof(o->name) - 16) {
        snprintf(err, errlen, "%s: not a file name", path);
        errno = EINVAL;
        return -1;
    }
    snprintf(o->name, sizeof(o->name), "%s", base);
    o->dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (o->dfd < 0) {
        snprintf(err, errlen, "%s: %s", dir, strerror(errno));
        return -1;
    }
    if (may_replace(o, err, errlen) < 0) goto fail;
    if (!(flags & LATREC_OUT_OWN_DIR) && marker_usable(o->dfd) < 0) {
        marker_error(o, errno, err, errlen);
        goto fail;
    }
    int fd = -1;
    for (int k = 0; k < 100 && fd < 0; k++) {
        unsigned rnd = 0;
        if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd)) rnd = (unsigned)getpid() * 2654435761u + (unsigned)k;
        snprintf(o->tmp, sizeof(o->tmp), ".%s.%06x", o->name, rnd & 0xffffff);
        fd = openat(o->dfd, o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
        int e = errno;
        snprintf(err, errlen, "%s: cannot create a temporary file beside it: %s", path, strerror(e));
        if (fd >= 0) {
            close(fd);
            unlinkat(o->dfd, o->tmp, 0);
        }
        errno = e;
        goto fail;
    }
    tmp_register(o);
    return 0;
fail:;
    int e = errno;
    close(o->dfd);
    o->dfd = -1;
    errno = e;
    return -1;
}

int latrec_outfile_finish(latrec_outfile *o, char *err, size_t errlen)
{
    if (!o->f) return 0; /* finished already */
    int e = 0;
    /* registered until renamed or removed: a signal during the flush below
     * (a large buffer) removes it; one after the rename finds no such name */
    if (fflush(o->f) != 0) e = errno;
    if (fclose(o->f) != 0 && !e) e = errno;
    o->f = NULL;
    if (!e) return 0;
    snprintf(err, errlen, "%s: %s", o->path, strerror(e));
    latrec_outfile_abort(o);
    errno = e;
    return -1;
}

static int same_dir(int a, int b)
{
    struct stat sa, sb;
    return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Rename finished file o into place: over latrec's own file (rep) by an
 * exchange, so that the old file waits under the temporary name until every
 * file of the set is in place (and can go back); else without replacing
 * anything. *swapped says which. 0, or -1 with errno. */
static int rename_in(latrec_outfile *o, int rep, int *swapped)
{
    *swapped = 0;
    if (rep) {
        if (renameat2(o->dfd, o->tmp, o->dfd, o->name, RENAME_EXCHANGE) == 0) {
            *swapped = 1;
            return 0;
        }
        /* a filesystem without exchanges: replaced at once, as before */
        if (errno == EINVAL) return renameat2(o->dfd, o->tmp, o->dfd, o->name, 0);
        if (errno != ENOENT) return -1; /* gone meanwhile: placed as a new one */
    }
    return renameat2(o->dfd, o->tmp, o->dfd, o->name, RENAME_NOREPLACE);
}

/* Take back the renames of f[0..placed), in reverse: each new file back to
 * its temporary name, and an old file it was exchanged with back under its
 * name (both then as before place_all). */
static void rename_back(latrec_outfile *const *f, const int *swapped, size_t placed)
{
    for (size_t i = placed; i-- > 0;)
        (void)renameat2(f[i]->dfd, f[i]->name, f[i]->dfd, f[i]->tmp, swapped[i] ? RENAME_EXCHANGE : RENAME_NOREPLACE);
}

/* Rename the finished files f[0..n) into place, each listed in its
 * directory's marker first, so that a file in place is always one the
 * marker lists (a marker that refuses the name leaves the file unplaced,
 * not unlisted). Every name is checked and listed before the first
 * rename: a refusal there places none of them. A rename refused after
 * that (a file that appeared meanwhile) takes the ones before it back out
 * of place (the files they replaced back in) and every name out of the
 * marker again: none is placed. Every temporary not renamed, and every old
 * file replaced, is removed. 0, or -1 with errno and err. */
static int place_all(latrec_outfile *const *f, size_t n, char *err, size_t errlen)
{
    marker_mark *mark = malloc(n * sizeof(*mark));
    int *rep = malloc(n * sizeof(*rep)), *swapped = malloc(n * sizeof(*swapped));
    size_t listed = 0, placed = 0;
    int e = 0;
    if (!mark || !rep || !swapped) {
        snprintf(err, errlen, "%s: out of memory", f[0]->path);
        e = ENOMEM;
    }
    for (size_t i = 0; i < n && !e; i++) /* two of one name: the second would replace the first */
        for (size_t j = 0; j < i && !e; j++)
            if (!strcmp(f[i]->name, f[j]->name) && same_dir(f[i]->dfd, f[j]->dfd)) {
                snprintf(err, errlen, "%s: written twice by one command (a latrec bug): none placed", f[i]->path);
                e = EEXIST;
            }
    for (size_t i = 0; i < n && !e; i++) {
        rep[i] = may_replace(f[i], err, errlen); /* again: it may have changed meanwhile */
        if (rep[i] < 0 && (e = errno) != EEXIST) snprintf(err, errlen, "%s: %s", f[i]->path, strerror(e));
    }
    for (; listed < n && !e; listed++) {
        if (f[listed]->flags & LATREC_OUT_OWN_DIR) mark[listed] = MARKER_KEPT;
        else if (marker_add(f[listed]->dfd, f[listed]->name, &mark[listed]) < 0)
            marker_error(f[listed], e = errno, err, errlen);
    }
    for (; placed < n && !e; placed++)
        if (rename_in(f[placed], rep[placed], &swapped[placed]) != 0) {
            e = errno;
            snprintf(err, errlen, "%s: cannot rename into place: %s", f[placed]->path, strerror(e));
            rename_back(f, swapped, placed);
            placed = 0;
            break;
        }
    for (size_t i = 0; i < placed; i++) { /* all in place: the old files go */
        latrec_outfile *o = f[i];
        if (swapped[i]) unlinkat(o->dfd, o->tmp, 0);
        tmp_unregister(o);
        close(o->dfd);
        o->dfd = -1;
    }
    /* the names not placed out of the marker again, in reverse: each back to its size before */
    for (size_t i = listed; i-- > placed;) marker_undo(f[i]->dfd, mark[i]);
    for (size_t i = placed; i < n; i++) latrec_outfile_abort(f[i]);
    free(mark);
    free(rep);
    free(swapped);
    errno = e;
    return e ? -1 : 0;
}

int latrec_outfile_commit(latrec_outfile *o, char *err, size_t errlen)
{
    if (!o->f) return -1;
    if (latrec_outfile_finish(o, err, errlen) < 0) return -1;
    return place_all(&o, 1, err, errlen);
}

int latrec_outset_add(latrec_outset *s, latrec_outfile *o)
{
    if (s->n == s->cap) {
        const size_t cap = s->cap ? 2 * s->cap : 8;
        latrec_outfile **f = realloc(s->f, cap * sizeof(*f));
        if (!f) return -1;
        s->f = f;
        s->cap = cap;
    }
    s->f[s->n++] = o;
    return 0;
}

static void outset_free(latrec_outset *s)
{
    for (size_t i = 0; i < s->n; i++) free(s->f[i]);
    free(s->f);
    memset(s, 0, sizeof(*s));
}

int latrec_outset_place(latrec_outset *s, char *err, size_t errlen)
{
    int rc = 0;
    for (size_t i = 0; i < s->n && rc == 0; i++) rc = latrec_outfile_finish(s->f[i], err, errlen);
    if (rc == 0 && s->n) rc = place_all(s->f, s->n, err, errlen);
    const int e = errno;
    if (rc < 0)
        for (size_t i = 0; i < s->n; i++) latrec_outfile_abort(s->f[i]);
    outset_free(s);
    errno = e;
    return rc;
}

void latrec_outset_abort(latrec_outset *s)
{
    for (size_t i = 0; i < s->n; i++) latrec_outfile_abort(s->f[i]);
    outset_free(s);
}

void latrec_outfile_abort(latrec_outfile *o)
{
    if (o->f) fclose(o->f);
    o->f = NULL;
    if (o->dfd >= 0) {
        unlinkat(o->dfd, o->tmp, 0);
        tmp_unregister(o); /* after the unlink: a signal before it removes it */
        close(o->dfd);
    }
    o->dfd = -1;
}

char *latrec_outset_stale(const latrec_outset *s, const char *suffix, size_t *n)
{
    *n = 0;
    if (!s->n) return NULL;
    const int dfd = s->f[0]->dfd;
    const size_t slen = strlen(suffix);
    size_t len = 0;
    char *buf = marker_read(dfd, &len), *out = NULL;
    size_t used = 0;
    for (size_t i = 0; buf && i < len; i += strlen(buf + i) + 1) {
        const char *name = buf + i;
        const size_t nl = strlen(name);
        struct stat st;
        if (name[0] == '#' || nl <= slen || strcmp(name + nl - slen, suffix) != 0) continue;
        /* a name latrec gives its files has no '/': one that has (../x.csv,
         * /abs/x.csv, sub/x.csv, through a link) names a file outside the
         * directory or in a subdirectory, never one of its files */
        if (strchr(name, '/')) continue;
        int ours = 0; /* written by this set */
        for (size_t k = 0; k < s->n && !ours; k++) ours = strcmp(s->f[k]->name, name) == 0;
        if (ours || fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) continue;
        /* listed twice (a marker an older writer appended to twice): once */
        int seen = 0;
        for (size_t k = 0; k < used && !seen; k += strlen(out + k) + 1) seen = strcmp(out + k, name) == 0;
        if (seen) continue;
        char *grown = realloc(out, used + nl + 1);
        if (!grown) {
            free(out);
            free(buf);
            *n = 0;
            return NULL;
        }
        out = grown;
        memcpy(out + used, name, nl + 1);
        used += nl + 1;
        (*n)++;
    }
    free(buf);
    return out;
}

/* 1 when name is one of the n NUL-separated names. */
static int among(const char *names, size_t n, const char *name)
{
    for (size_t k = 0; k < n; k++, names += strlen(names) + 1)
        if (strcmp(names, name) == 0) return 1;
    return 0;
}

/* dfd's marker without the n names: written whole to a temporary beside it
 * and renamed over it. 0, or -1 with errno (the marker as it was). */
static int marker_drop(int dfd, const char *names, size_t n)
{
    size_t len = 0;
    char *buf = marker_read(dfd, &len);
    if (!buf) {
        errno = errno ? errno : EINVAL;
        return -1;
    }
    latrec_outfile reg = { .dfd = dfd }; /* the temporary, for the signal handler (latrec_outfile_unlink_on_signal) */
    char *const tmp = reg.tmp;
    int fd = -1;
    for (int k = 0; k < 100 && fd < 0; k++) {
        unsigned rnd = 0;
        if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd)) rnd = (unsigned)getpid() + (unsigned)k;
        snprintf(tmp, sizeof(reg.tmp), "%s.%06x", LATREC_OUT_MARKER, rnd & 0xffffff);
        fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd >= 0) tmp_register(&reg);
    int e = fd < 0 ? errno : 0;
    for (size_t i = 0; !e && i < len; i += strlen(buf + i) + 1) {
        const char *line = buf + i;
        if (line[0] != '#' && among(names, n, line)) continue;
        const size_t ll = strlen(line);
        buf[i + ll] = '\n'; /* the line with its end, then back */
        if (write(fd, line, ll + 1) != (ssize_t)(ll + 1)) e = errno ? errno : ENOSPC;
        buf[i + ll] = '\0';
    }
    if (fd >= 0 && close(fd) != 0 && !e) e = errno;
    if (!e && renameat(dfd, tmp, dfd, LATREC_OUT_MARKER) != 0) e = errno;
    if (e && fd >= 0) unlinkat(dfd, tmp, 0);
    if (fd >= 0) tmp_unregister(&reg);
    free(buf);
    errno = e;
    return e ? -1 : 0;
}

int latrec_outdir_remove(const char *dir, const char *names, size_t n, char *err, size_t errlen)
{
    if (!n) return 0;
    const int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) {
        snprintf(err, errlen, "%s: %s", dir, strerror(errno));
        return -1;
    }
    int rc = 0;
    if (marker_drop(dfd, names, n) < 0) {
        snprintf(err, errlen, "%s/%s: cannot take %s out of it: %s; not removed", dir, LATREC_OUT_MARKER, names,
                 strerror(errno));
        rc = -1;
    }
    const char *name = names;
    for (size_t k = 0; k < n && rc == 0; k++, name += strlen(name) + 1) {
        struct stat st;
        if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
            continue; /* gone, or not a file */
        if (unlinkat(dfd, name, 0) != 0 && errno != ENOENT) {
            snprintf(err, errlen, "%s/%s: cannot remove: %s", dir, name, strerror(errno));
            rc = -1;
        }
    }
    close(dfd);
    return rc;
}

int latrec_outdir_make(const char *dir, char *err, size_t errlen)
{
    char buf[4096];
    if (!*dir) { /* (the walk below starts past the first byte) */
        snprintf(err, errlen, "an empty directory name");
        errno = ENOENT;
        return -1;
    }
    if (snprintf(buf, sizeof(buf), "%s", dir) >= (int)sizeof(buf)) {
        snprintf(err, errlen, "%.200s...: path too long", dir);
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = buf + 1;; p++) {
        if (*p && *p != '/') continue;
        char c = *p;
        *p = '\0';
        struct stat st;
        if (mkdir(buf, 0755) != 0 && errno != EEXIST) {
            snprintf(err, errlen, "%s: cannot create directory: %s", buf, strerror(errno));
            return -1;
        }
        if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode)) {
            snprintf(err, errlen, "%s: exists and is not a directory", buf);
            errno = ENOTDIR;
            return -1;
        }
        *p = c;
        if (!c) break;
    }
    return 0;
}
