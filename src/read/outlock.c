/* One command at a time writes into an output directory: an flock on its
 * .latrec-lock (outfile.h). */
#include "read/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* The lock file of dfd, opened (created when absent, never followed) and
 * locked: the fd, or -1 with errno (EWOULDBLOCK: another command holds it).
 * A lock taken on a file whose name went meanwhile (its holder removed it
 * on release) is let go and taken again on the file the name holds now. */
static int lock_take(int dfd)
{
    for (int k = 0; k < 100; k++) {
        int fd = openat(dfd, LATREC_OUT_LOCK, O_RDONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
        if (fd < 0) return -1;
        struct stat st, now;
        if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
            close(fd);
            errno = EINVAL;
            return -1;
        }
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            const int e = errno;
            close(fd);
            errno = e;
            return -1;
        }
        if (fstatat(dfd, LATREC_OUT_LOCK, &now, AT_SYMLINK_NOFOLLOW) == 0 && now.st_dev == st.st_dev &&
            now.st_ino == st.st_ino)
            return fd;
        close(fd);
    }
    errno = EWOULDBLOCK;
    return -1;
}

/* The lock held now, for a signal that ends the process
 * (latrec_outdir_unlock_on_signal): set whole before it is marked held. */
static struct {
    volatile sig_atomic_t held;
    int fd, dfd;
} sig_lock;

/* The lock file's name still on the file held by fd, an empty file of one
 * name (what a lock makes): only then is it removed. Async-signal-safe. */
static int lock_removable(int fd, int dfd)
{
    struct stat st, now;
    return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0 && st.st_nlink == 1 &&
           fstatat(dfd, LATREC_OUT_LOCK, &now, AT_SYMLINK_NOFOLLOW) == 0 && now.st_dev == st.st_dev &&
           now.st_ino == st.st_ino;
}

void latrec_outdir_unlock_on_signal(void)
{
    if (sig_lock.held && lock_removable(sig_lock.fd, sig_lock.dfd)) unlinkat(sig_lock.dfd, LATREC_OUT_LOCK, 0);
}

int latrec_outdir_lock(const char *dir, latrec_outlock *l, char *err, size_t errlen)
{
    l->fd = l->dfd = -1;
    l->dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (l->dfd < 0) {
        snprintf(err, errlen, "%s: %s", dir, strerror(errno));
        return -1;
    }
    l->fd = lock_take(l->dfd);
    if (l->fd >= 0) {
        if (!sig_lock.held) {
            sig_lock.fd = l->fd;
            sig_lock.dfd = l->dfd;
            __atomic_signal_fence(__ATOMIC_SEQ_CST);
            sig_lock.held = 1;
        }
        return 0;
    }
    const int e = errno;
    if (e == EACCES || e == EPERM || e == EROFS || e == ENOSPC || e == EDQUOT) {
        /* no file can be made there: nothing to guard, and the output
         * itself says why it cannot be written */
        close(l->dfd);
        l->dfd = -1;
        return 0;
    }
    const char *slash = dir[0] && dir[strlen(dir) - 1] == '/' ? "" : "/";
    if (e == EWOULDBLOCK)
        snprintf(err, errlen,
                 "%s: another latrec is writing into it (it holds %s%s" LATREC_OUT_LOCK
                 "); wait for it to end, or write elsewhere",
                 dir, dir, slash);
    else
        snprintf(err, errlen, "%s%s" LATREC_OUT_LOCK ": cannot lock the directory with it: %s", dir, slash,
                 e == ELOOP    ? "a symbolic link, not followed"
                 : e == EINVAL ? "not a regular file"
                               : strerror(e));
    close(l->dfd);
    l->dfd = -1;
    errno = e;
    return -1;
}

void latrec_outdir_unlock(latrec_outlock *l)
{
    if (l->fd >= 0) {
        if (sig_lock.held && sig_lock.fd == l->fd) {
            sig_lock.held = 0;
            __atomic_signal_fence(__ATOMIC_SEQ_CST);
        }
        /* removed while still held: never a file that has other names */
        if (lock_removable(l->fd, l->dfd)) unlinkat(l->dfd, LATREC_OUT_LOCK, 0);
        close(l->fd);
    }
    if (l->dfd >= 0) close(l->dfd);
    l->fd = l->dfd = -1;
}
