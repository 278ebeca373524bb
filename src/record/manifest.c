/* run.json through jansson. */
#include "record/manifest.h"

#include "read/escape.h"
#include "read/input_file.h"
#include "read/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef LATREC_VERSION_TEXT
#define LATREC_VERSION_TEXT "unknown"
#endif

/* The command line being built: every byte kept, no length limit. */
struct cmdline {
    char  *buf;
    size_t len, cap;
    int    oom;
};

static void put(struct cmdline *c, const char *s, size_t n)
{
    if (c->oom) return;
    if (c->len + n + 1 > c->cap) {
        size_t cap = c->cap ? c->cap : 256;
        while (cap < c->len + n + 1) cap *= 2;
        char *b = realloc(c->buf, cap);
        if (!b) {
            c->oom = 1;
            return;
        }
        c->buf = b;
        c->cap = cap;
    }
    memcpy(c->buf + c->len, s, n);
    c->len += n;
    c->buf[c->len] = '\0';
}

/* Append arg shell-quoted (single quotes when needed). */
static void quote_append(struct cmdline *c, const char *arg)
{
    int plain = *arg != '\0';
    for (const char *p = arg; *p; p++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@%", *p)) plain = 0;
    if (c->len) put(c, " ", 1);
    if (plain) {
        put(c, arg, strlen(arg));
        return;
    }
    put(c, "'", 1);
    for (const char *p = arg; *p; p++) {
        if (*p == '\'') put(c, "'\\''", 4);
        else put(c, p, 1);
    }
    put(c, "'", 1);
}

/* One argument into argv_json, escaped when it is not UTF-8 (read/escape.h). */
static void add_arg(latrec_manifest *m, struct cmdline *c, const char *arg)
{
    quote_append(c, arg);
    size_t i = json_array_size(m->argv_json);
    if (latrec_utf8_valid(arg)) {
        json_array_append_new(m->argv_json, json_string(arg));
        return;
    }
    char *e = latrec_escape_bytes(arg);
    json_array_append_new(m->argv_json, json_string(e ? e : ""));
    free(e);
    if (!m->argv_escaped) m->argv_escaped = json_array();
    json_array_append_new(m->argv_escaped, json_integer((json_int_t)i));
}

/* The whole of /proc/<pid>/cmdline, malloc'd (*n bytes); NULL if unreadable. */
static char *read_cmdline(pid_t pid, size_t *n)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    size_t cap = 8192, len = 0;
    char *buf = malloc(cap + 1);
    ssize_t k;
    while (buf && (k = read(fd, buf + len, cap - len)) > 0) {
        len += (size_t)k;
        if (len == cap) {
            char *b = realloc(buf, 2 * cap + 1);
            if (!b) break;
            buf = b;
            cap *= 2;
        }
    }
    close(fd);
    if (!buf || !len) {
        free(buf);
        return NULL;
    }
    buf[len] = '\0';
    *n = len;
    return buf;
}

void latrec_manifest_init(latrec_manifest *m)
{
    struct cmdline c = { 0 };
    m->argv_json = json_array();
    m->argv_escaped = NULL;
    if (m->argv) {
        for (size_t i = 0; m->argv[i]; i++) add_arg(m, &c, m->argv[i]);
    } else {
        size_t n = 0;
        char *buf = read_cmdline(m->pid, &n);
        for (char *p = buf; p && p < buf + n; p += strlen(p) + 1) add_arg(m, &c, p);
        free(buf);
    }
    m->command = c.buf;
    m->command_cut = c.oom;
}

void latrec_manifest_free(latrec_manifest *m)
{
    json_decref(m->argv_json);
    json_decref(m->argv_escaped);
    free(m->command);
    m->argv_json = m->argv_escaped = NULL;
    m->command = NULL;
}

/* key: value, or its escaped form and "<key>_escaped": true (escape.h). */
void latrec_manifest_set_bytes(json_t *o, const char *key, const char *value)
{
    if (latrec_utf8_valid(value)) {
        json_object_set_new(o, key, json_string(value));
        return;
    }
    char *e = latrec_escape_bytes(value), flag[64];
    json_object_set_new(o, key, json_string(e ? e : ""));
    free(e);
    snprintf(flag, sizeof(flag), "%s_escaped", key);
    json_object_set_new(o, flag, json_true());
}

static json_t *stamp_json(const latrec_stamp *s, const char *instance)
{
    json_t *o = json_object();
    json_object_set_new(o, "mono_ns", json_integer((json_int_t)s->mono_ns));
    json_object_set_new(o, "marker", json_string(s->marker));
    json_object_set_new(o, "source", json_string("trace_marker"));
    if (instance) json_object_set_new(o, "instance", json_string(instance));
    return o;
}

static void set_ns(json_t *o, const char *key, uint64_t v)
{
    if (v) json_object_set_new(o, key, json_integer((json_int_t)v));
}

static json_t *host_json(json_t *o)
{
    char host[256] = "";
    gethostname(host, sizeof(host) - 1);
    json_object_set_new(o, "host", json_string(host));
    struct utsname u;
    if (uname(&u) == 0) {
        json_t *k = json_object();
        json_object_set_new(k, "sysname", json_string(u.sysname));
        json_object_set_new(k, "release", json_string(u.release));
        json_object_set_new(k, "version", json_string(u.version));
        json_object_set_new(k, "machine", json_string(u.machine));
        json_object_set_new(o, "kernel", k);
    }
    char boot[64] = "";
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
    if (f) {
        if (fgets(boot, sizeof(boot), f)) boot[strcspn(boot, "\n")] = '\0';
        fclose(f);
    }
    if (boot[0]) json_object_set_new(o, "boot_id", json_string(boot));
    return o;
}

int latrec_manifest_write(const char *run_dir, const latrec_manifest *m, char *err, size_t errlen)
{
    json_t *o = json_object();
    json_object_set_new(o, "format", json_string("latrec-run"));
    json_object_set_new(o, "version", json_integer(1));
    json_object_set_new(o, "latrec_version", json_string(LATREC_VERSION_TEXT));
    json_object_set_new(o, "run_id", json_string(m->run_id));
    json_object_set_new(o, "state", json_string(m->state));
    json_object_set_new(o, "mode", json_string(m->mode));
    latrec_manifest_set_bytes(o, "command", m->command ? m->command : "");
    if (m->command_cut) json_object_set_new(o, "command_cut", json_true()); /* out of memory building it */
    json_object_set_new(o, "argv", m->argv_json ? json_incref(m->argv_json) : json_array());
    if (m->argv_escaped) json_object_set(o, "argv_escaped", m->argv_escaped);
    char *cwd = getcwd(NULL, 0);
    if (cwd) latrec_manifest_set_bytes(o, "cwd", cwd);
    free(cwd);
    if (m->pid > 0) json_object_set_new(o, "pid", json_integer(m->pid));
    json_object_set_new(o, "latrec_pid", json_integer(getpid()));
    host_json(o);
    set_ns(o, "start_real_ns", m->start_real_ns);
    set_ns(o, "start_mono_ns", m->start_mono_ns);
    set_ns(o, "stop_real_ns", m->stop_real_ns);
    set_ns(o, "stop_mono_ns", m->stop_mono_ns);
    if (m->start.have) json_object_set_new(o, "start_stamp", stamp_json(&m->start, m->instance));
    if (m->stop.have) json_object_set_new(o, "stop_stamp", stamp_json(&m->stop, m->instance));
    json_t *tfs = json_object();
    json_object_set_new(tfs, "available", json_boolean(m->tracefs_ok));
    if (m->instance) json_object_set_new(tfs, "instance", json_string(m->instance));
    if (m->mounted_by_latrec) json_object_set_new(tfs, "mounted_by_latrec", json_true());
    if (m->tracefs_reason) json_object_set_new(tfs, "reason", json_string(m->tracefs_reason));
    json_object_set_new(o, "tracefs", tfs);
    if (m->rings_dir) latrec_manifest_set_bytes(o, "rings_dir", m->rings_dir);
    if (m->rings_tmp) latrec_manifest_set_bytes(o, "rings_tmp", m->rings_tmp);
    if (m->options) json_object_set(o, "options", m->options);
    if (m->launch) json_object_set(o, "launch", m->launch);
    if (m->collectors) json_object_set(o, "collectors", m->collectors);
    if (m->exit) json_object_set(o, "exit", m->exit);
    if (m->threshold) json_object_set(o, "threshold", m->threshold);

    /* Written aside and renamed over run.json: a reader never sees half a
     * file, and nothing in the run directory is followed (read/outfile.h;
     * the run directory is latrec's own, made by this run). */
    char path[4200];
    snprintf(path, sizeof(path), "%s/run.json", run_dir);
    int rc = 0;
    latrec_outfile out;
    if (latrec_outfile_open(&out, path, LATREC_OUT_OWN_DIR, err, errlen) < 0) {
        rc = -1;
    } else if (json_dumpf(o, out.f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0 || fputc('\n', out.f) == EOF) {
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        latrec_outfile_abort(&out);
        rc = -1;
    } else if (latrec_outfile_commit(&out, err, errlen) < 0) {
        rc = -1;
    }
    json_decref(o);
    return rc;
}

json_t *latrec_manifest_load(const char *run_dir, char *err, size_t errlen)
{
    char path[4200], *text = NULL;
    size_t len = 0;
    snprintf(path, sizeof(path), "%s/run.json", run_dir);
    if (latrec_input_file_read(path, LATREC_RUN_JSON_MAX, "run.json", &text, &len, err, errlen) < 0) return NULL;
    json_error_t jerr;
    json_t *j = json_loadb(text, len, 0, &jerr);
    if (!j) snprintf(err, errlen, "%s:%d: not a run manifest: %s", path, jerr.line, jerr.text);
    free(text);
    return j;
}

json_t *latrec_manifest_wait_status(int wstatus, int status)
{
    json_t *o = json_object();
    json_object_set_new(o, "status", json_integer(status));
    if (WIFEXITED(wstatus)) {
        json_object_set_new(o, "exited", json_true());
        json_object_set_new(o, "code", json_integer(WEXITSTATUS(wstatus)));
    } else if (WIFSIGNALED(wstatus)) {
        int sig = WTERMSIG(wstatus);
        char name[32];
        const char *abbrev = sigabbrev_np(sig);
        snprintf(name, sizeof(name), "SIG%s", abbrev ? abbrev : "UNKNOWN");
        json_object_set_new(o, "signaled", json_true());
        json_object_set_new(o, "signal", json_integer(sig));
        json_object_set_new(o, "signal_name", json_string(name));
        json_object_set_new(o, "core_dumped", json_boolean(WCOREDUMP(wstatus)));
    }
    return o;
}
