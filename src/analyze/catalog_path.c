/* Finding a ring's named catalog; the run directory's copy of a catalog. */
#include "analyze/catalog_path.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/catalog.h"
#include "read/input_file.h"
#include "read/outfile.h"


int latrec_catalog_name_ok(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > 31 || name[0] == '.') return 0;
    return strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") == n;
}

/* DIR/NAME.catalog when it is a regular file (following links: reading is
 * harmless); 1 when found. */
static int try_dir(const char *dir, const char *name, char *path, size_t len)
{
    if (!dir[0]) return 0;
    int w = snprintf(path, len, "%s/%s.catalog", dir, name);
    struct stat st;
    return w > 0 && (size_t)w < len && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static void add_searched(char *s, size_t len, const char *place)
{
    size_t used = strlen(s);
    if (used < len) snprintf(s + used, len - used, "%s%s", used ? ", " : "", place);
}

int latrec_catalog_find(const char *name, const char *const *run_dirs, int n_dirs, char *path, size_t len,
                        char *searched, size_t searched_len)
{
    char dir[4200];
    if (searched_len) searched[0] = '\0';
    if (!latrec_catalog_name_ok(name)) {
        add_searched(searched, searched_len, "nowhere: not a file name");
        return -1;
    }
    for (int d = 0; d < n_dirs; d++) {
        snprintf(dir, sizeof(dir), "%s/" LATREC_RUN_CATALOGS, run_dirs[d]);
        if (try_dir(dir, name, path, len)) return 0;
        add_searched(searched, searched_len, dir);
    }
    const char *env = getenv("LATREC_CATALOG_PATH");
    if (env && *env) {
        for (const char *p = env; *p;) {
            size_t n = strcspn(p, ":");
            snprintf(dir, sizeof(dir), "%.*s", (int)(n < 4000 ? n : 4000), p);
            if (try_dir(dir, name, path, len)) return 0;
            p += n;
            if (*p == ':') p++;
        }
        add_searched(searched, searched_len, "$LATREC_CATALOG_PATH");
    } else {
        add_searched(searched, searched_len, "$LATREC_CATALOG_PATH (unset)");
    }
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    if (xdg && xdg[0] == '/') snprintf(dir, sizeof(dir), "%s/latrec/catalogs", xdg);
    else if (home && home[0] == '/') snprintf(dir, sizeof(dir), "%s/.config/latrec/catalogs", home);
    else dir[0] = '\0';
    if (try_dir(dir, name, path, len)) return 0;
    if (dir[0]) add_searched(searched, searched_len, dir);
    /* the installed tree, found from the running program (a relocated or
     * DESTDIR install), then where it was configured to go */
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    char *slash = n > 0 ? (exe[n] = '\0', strrchr(exe, '/')) : NULL;
    if (slash) {
        *slash = '\0';
        snprintf(dir, sizeof(dir), "%s/../share/latrec/catalogs", exe);
        if (try_dir(dir, name, path, len)) return 0;
        add_searched(searched, searched_len, dir);
    }
    if (try_dir(LATREC_CATALOG_DATADIR, name, path, len)) return 0;
    add_searched(searched, searched_len, LATREC_CATALOG_DATADIR);
    return -1;
}

/* ---- the run directory's copy ------------------------------------------------ */

/* Write `name` in dir through read/outfile.h (a new file, or latrec's own,
 * listed in the directory's marker so record -f knows it). */
static int write_new(const char *dir, const char *name, const char *data, size_t len, char *err, size_t errlen)
{
    char path[4600];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    latrec_outfile o;
    if (latrec_outfile_open(&o, path, 0, err, errlen) < 0) return -1;
    if (fwrite(data, 1, len, o.f) != len) {
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        latrec_outfile_abort(&o);
        return -1;
    }
    return latrec_outfile_commit(&o, err, errlen);
}

/* The catalogs directory of the run: created, or an existing directory
 * (never a symbolic link). Returns an O_DIRECTORY fd, or -1. */
static int open_catalogs_dir(const char *run_dir, char *dir, size_t dirlen, char *err, size_t errlen)
{
    snprintf(dir, dirlen, "%s/" LATREC_RUN_CATALOGS, run_dir);
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "%s: cannot create: %s", dir, strerror(errno));
        return -1;
    }
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) snprintf(err, errlen, "%s: not a directory latrec made: %s", dir, strerror(errno));
    return fd;
}

/* Copy the header of one stages-from line (path relative to src_dir) into
 * dirfd as a new file; its new name into out. */
static int copy_header(int dirfd, const char *dir, const char *src_dir, const char *hdr, char *out, size_t outlen,
                       char *err, size_t errlen)
{
    char path[8400];
    if (hdr[0] == '/') snprintf(path, sizeof(path), "%s", hdr);
    else snprintf(path, sizeof(path), "%s/%s", src_dir, hdr);
    char *text;
    size_t len;
    if (latrec_input_file_read(path, LATREC_HEADER_FILE_MAX, "C header", &text, &len, err, errlen) != 0) return -1;
    const char *base = strrchr(hdr, '/');
    base = base ? base + 1 : hdr;
    int rc = -1;
    for (int k = 1; k < 100; k++) { /* two headers of one base name: "2-stages.h" */
        if (k == 1) snprintf(out, outlen, "%s", base);
        else snprintf(out, outlen, "%d-%s", k, base);
        if (faccessat(dirfd, out, F_OK, AT_SYMLINK_NOFOLLOW) == 0) continue;
        rc = write_new(dir, out, text, len, err, errlen);
        break;
    }
    free(text);
    return rc;
}

/* The catalog text with its stages-from lines pointing at the copies. */
static char *rewrite(const char *text, int dirfd, const char *dir, const char *src_dir, size_t *out_len, char *err,
                     size_t errlen)
{
    size_t cap = strlen(text) * 2 + 4096, n = 0;
    char *out = malloc(cap);
    if (!out) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    for (const char *line = text; *line;) {
        size_t ll = strcspn(line, "\n");
        char buf[4096], *w[4];
        snprintf(buf, sizeof(buf), "%.*s", (int)(ll < sizeof(buf) - 1 ? ll : sizeof(buf) - 1), line);
        char *hash = strchr(buf, '#');
        if (hash) *hash = '\0';
        int nw = 0;
        for (char *t = strtok(buf, " \t\r"); t && nw < 4; t = strtok(NULL, " \t\r")) w[nw++] = t;
        char piece[4400];
        int plen;
        if (nw >= 2 && nw <= 3 && strcmp(w[0], "stages-from") == 0) {
            char copy[300];
            if (copy_header(dirfd, dir, src_dir, w[1], copy, sizeof(copy), err, errlen) < 0) {
                free(out);
                return NULL;
            }
            plen =
                snprintf(piece, sizeof(piece), "stages-from %s%s%s\n", copy, nw == 3 ? " " : "", nw == 3 ? w[2] : "");
        } else {
            plen = snprintf(piece, sizeof(piece), "%.*s\n", (int)(ll < 4096 ? ll : 4096), line);
        }
        if (plen > 0 && n + (size_t)plen < cap) {
            memcpy(out + n, piece, (size_t)plen);
            n += (size_t)plen;
        }
        line += ll;
        if (*line == '\n') line++;
    }
    *out_len = n;
    return out;
}

int latrec_catalog_copy(const char *src, const char *run_dir, char *name, size_t name_len, char *err, size_t errlen)
{
    latrec_catalog cat;
    if (latrec_catalog_load(&cat, src, err, errlen) < 0) return -1;
    snprintf(name, name_len, "%s", cat.name);
    latrec_catalog_free(&cat);
    if (!latrec_catalog_name_ok(name)) {
        snprintf(err, errlen, "%s: catalog name '%s' is not a file name (letters, digits, _ - .)", src, name);
        return -1;
    }
    char *text;
    size_t len;
    if (latrec_input_file_read(src, LATREC_CATALOG_FILE_MAX, "catalog file", &text, &len, err, errlen) != 0) return -1;
    char src_dir[4096], dir[4200], file[64];
    const char *slash = strrchr(src, '/');
    if (slash) snprintf(src_dir, sizeof(src_dir), "%.*s", (int)(slash - src), src);
    else snprintf(src_dir, sizeof(src_dir), ".");
    if (slash == src) snprintf(src_dir, sizeof(src_dir), "/");
    int rc = -1, dirfd = open_catalogs_dir(run_dir, dir, sizeof(dir), err, errlen);
    char *copy = NULL;
    size_t copy_len = 0;
    if (dirfd >= 0 && (copy = rewrite(text, dirfd, dir, src_dir, &copy_len, err, errlen))) {
        snprintf(file, sizeof(file), "%s.catalog", name);
        rc = write_new(dir, file, copy, copy_len, err, errlen);
    }
    if (dirfd >= 0) close(dirfd);
    free(copy);
    free(text);
    return rc;
}
