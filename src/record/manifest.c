/* run.json through jansson. */
#include "record/manifest.h"

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

/* Append arg to buf shell-quoted (single quotes when needed). */
static void quote_append(char *buf, size_t len, const char *arg)
{
    size_t used = strlen(buf);
    int plain = *arg != '\0';
    for (const char *p = arg; *p; p++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@%", *p)) plain = 0;
    if (used && used + 1 < len) buf[used++] = ' ', buf[used] = '\0';
    if (plain) {
        snprintf(buf + used, len - used, "%s", arg);
        return;
    }
    if (used + 1 < len) buf[used++] = '\'';
    for (const char *p = arg; *p && used + 5 < len; p++) {
        if (*p == '\'') {
            memcpy(buf + used, "'\\''", 4);
            used += 4;
        } else {
            buf[used++] = *p;
        }
    }
    if (used + 1 < len) buf[used++] = '\'';
    buf[used < len ? used : len - 1] = '\0';
}

void latrec_manifest_init(latrec_manifest *m)
{
    m->command[0] = '\0';
    m->argv_json = json_array();
    if (m->argv) {
        for (size_t i = 0; m->argv[i]; i++) {
            quote_append(m->command, sizeof(m->command), m->argv[i]);
            json_array_append_new(m->argv_json, json_string(m->argv[i]));
        }
        return;
    }
    char path[64], buf[8192];
    snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)m->pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0) return;
    buf[n] = '\0';
    for (char *p = buf; p < buf + n; p += strlen(p) + 1) {
        quote_append(m->command, sizeof(m->command), p);
        json_array_append_new(m->argv_json, json_string(p));
    }
}

void latrec_manifest_free(latrec_manifest *m)
{
    json_decref(m->argv_json);
    m->argv_json = NULL;
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
    json_object_set_new(o, "command", json_string(m->command));
    json_object_set(o, "argv", m->argv_json ? m->argv_json : json_array());
    char cwd[4096];
    if (getcwd(cwd, sizeof(cwd))) json_object_set_new(o, "cwd", json_string(cwd));
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
    if (m->rings_dir) json_object_set_new(o, "rings_dir", json_string(m->rings_dir));
    if (m->rings_tmp) json_object_set_new(o, "rings_tmp", json_string(m->rings_tmp));
    if (m->options) json_object_set(o, "options", m->options);
    if (m->launch) json_object_set(o, "launch", m->launch);
    if (m->collectors) json_object_set(o, "collectors", m->collectors);
    if (m->exit) json_object_set(o, "exit", m->exit);

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
