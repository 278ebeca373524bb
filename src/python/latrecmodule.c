/*
 * The `latrec` Python module: Python threads stamp stages into the same
 * per-thread rings as C code (latrec(3)'s per-thread layer).
 *
 * Binding. The module links liblatrec.so, so a Python thread's ring, the
 * process-wide seq counter, the output directory and the catalog name are
 * the very ones a C extension in the same process uses, and the library's
 * thread-exit and process-exit flushes cover Python threads too. The module
 * never touches latrec_tls: that variable has the initial-exec TLS model,
 * and a reference to it from a module that Python loads with dlopen() would
 * need a static TLS slot in the module itself. The module keeps its own
 * pointer to the calling thread's ring (module-local TLS, dynamic model,
 * dlopen-safe), filled from latrec_tls_open_as() by open_as(), and stamps
 * into it with the inline latrec_stamp() of <latrec/latrec.h>. On a thread
 * that has not called open_as() the calls go through the library's
 * out-of-line latrec_tstamp_fn() and friends, which read latrec_tls inside
 * liblatrec: a ring that C code opened on the thread gets the stamps, as it
 * would from C, and a thread with no ring stores nothing.
 *
 * Compiled without LATREC_ENABLE the same module is built with no liblatrec
 * dependency: every call checks its arguments the same way and stores
 * nothing (now(), seq_next() and ctx() return 0, open_as() False).
 *
 * Speed. Functions use METH_FASTCALL: positional arguments arrive as a C
 * array and are converted without building a tuple; keywords are parsed
 * only when the call passes some.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <pthread.h>
#include <string.h>

#include "latrec/latrec.h"

#ifndef LATREC_PY_VERSION
#define LATREC_PY_VERSION "0"
#endif

struct latrec_py_constant {
    const char *name;
    unsigned value;
    int is_stage;
};
#include "latrec_constants.h"

#ifdef LATREC_ENABLE
/* The calling thread's ring, NULL until open_as() on this thread. The
 * library owns the ring (freed at thread exit, when this slot dies too). */
static __thread latrec_t *py_ring;

/* A Python stamp is ~100 ns of interpreter work, much of it stores; one
 * store missing the cache (a ring line not yet owned) stalls them all once
 * the store buffer fills. The slot 8 records (4 lines) ahead is asked for
 * after each stamp, so its line is owned when the stamp reaches it: on a
 * ring larger than the caches this halves a stamp's cost (bench_python). */
#define PY_PREFETCH_AHEAD 8u
static inline void prefetch_ahead(const latrec_t *r)
{
    if (LATREC_LIKELY(r->enabled)) /* a closed ring's slots are unmapped */
        __builtin_prefetch(&r->recs[(r->idx + PY_PREFETCH_AHEAD) & r->mask], 1, 3);
}

/* A forked child's rings are dropped by the library; forget ours too. */
static void py_fork_child(void)
{
    py_ring = NULL;
}
static void register_atfork(void)
{
    pthread_atfork(NULL, NULL, py_fork_child);
}
#endif

/* ---- argument conversion ------------------------------------------------- */

/* An unsigned 64-bit argument: an int (or anything with __index__) in
 * 0..2**64-1. 0 or -1 with an exception set. */
static int u64_arg(const char *fn, const char *what, PyObject *o, uint64_t *v)
{
    if (LATREC_LIKELY(PyLong_CheckExact(o))) {
        const unsigned long long x = PyLong_AsUnsignedLongLong(o);
        if (LATREC_LIKELY(x != (unsigned long long)-1 || !PyErr_Occurred())) {
            *v = x;
            return 0;
        }
    } else {
        PyObject *i = PyNumber_Index(o);
        if (!i) return -1;
        const unsigned long long x = PyLong_AsUnsignedLongLong(i);
        Py_DECREF(i);
        if (x != (unsigned long long)-1 || !PyErr_Occurred()) {
            *v = x;
            return 0;
        }
    }
    if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
        PyErr_Clear();
        PyErr_Format(PyExc_OverflowError, "%s(): %s must be in 0..2**64-1", fn, what);
    }
    return -1;
}

/* Positional and keyword arguments of a FASTCALL|KEYWORDS call into out[]
 * (already holding the defaults), each converted by u64_arg(). names[] has
 * n_names entries, the first `required` of them without default. */
static int parse_u64s(const char *fn, const char *const names[], int n_names, int required, PyObject *const *args,
                      Py_ssize_t nargs, PyObject *kwnames, uint64_t out[])
{
    if (nargs > n_names) {
        PyErr_Format(PyExc_TypeError, "%s() takes at most %d arguments (%zd given)", fn, n_names, nargs);
        return -1;
    }
    unsigned seen = 0;
    for (Py_ssize_t i = 0; i < nargs; i++) {
        if (u64_arg(fn, names[i], args[i], &out[i]) < 0) return -1;
        seen |= 1u << i;
    }
    const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nkw; k++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, k);
        int i = 0;
        while (i < n_names && PyUnicode_CompareWithASCIIString(key, names[i]) != 0) i++;
        if (i == n_names) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", fn, key);
            return -1;
        }
        if (seen & (1u << i)) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", fn, names[i]);
            return -1;
        }
        if (u64_arg(fn, names[i], args[nargs + k], &out[i]) < 0) return -1;
        seen |= 1u << i;
    }
    for (int i = 0; i < required; i++) {
        if (!(seen & (1u << i))) {
            PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s' (pos %d)", fn, names[i], i + 1);
            return -1;
        }
    }
    return 0;
}

/* Positional-only fast path: nargs in required..n, no keywords. */
static inline int parse_positional(const char *fn, const char *const names[], int n, int required,
                                   PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, uint64_t out[])
{
    if (LATREC_LIKELY(!kwnames && nargs >= required && nargs <= n)) {
        for (Py_ssize_t i = 0; i < nargs; i++)
            if (LATREC_UNLIKELY(u64_arg(fn, names[i], args[i], &out[i]) < 0)) return -1;
        return 0;
    }
    return parse_u64s(fn, names, n, required, args, nargs, kwnames, out);
}

static int stage_ok(const char *fn, uint64_t stage)
{
    if (LATREC_LIKELY(stage <= 0xFF)) return 1;
    PyErr_Format(PyExc_ValueError, "%s(): stage %llu is not a stage id (0..255)", fn, (unsigned long long)stage);
    return 0;
}

/* ---- stamps --------------------------------------------------------------- */

PyDoc_STRVAR(stamp_doc, "stamp(seq, stage, aux=0, aux2=0)\n--\n\n"
                        "Store one record stamped now into the calling thread's ring.\n\n"
                        "seq keeps its low 48 bits, stage is a stage id 0..255 (the module's\n"
                        "constants for the E3 catalog, or your own catalog's ids), aux and aux2\n"
                        "are payload words 0..2**64-1. On a thread with no ring (no open_as()\n"
                        "here, no latrec_tls_open_as() by C code on it, or an open that failed)\n"
                        "the record goes nowhere.");

static PyObject *py_stamp(PyObject *mod, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = { "seq", "stage", "aux", "aux2" };
    uint64_t v[4] = { 0, 0, 0, 0 };
    (void)mod;
    if (parse_positional("stamp", names, 4, 2, args, nargs, kwnames, v) < 0) return NULL;
    if (!stage_ok("stamp", v[1])) return NULL;
#ifdef LATREC_ENABLE
    latrec_t *r = py_ring;
    if (LATREC_LIKELY(r != NULL)) {
        latrec_stamp(r, v[0], (uint8_t)v[1], v[2], v[3]);
        prefetch_ahead(r);
    } else {
        latrec_tstamp_fn(v[0], (uint8_t)v[1], v[2], v[3]);
    }
#endif
    Py_RETURN_NONE;
}

PyDoc_STRVAR(stamp_at_doc, "stamp_at(seq, stage, t_ns, aux=0, aux2=0)\n--\n\n"
                           "Store one record with a time taken earlier by now() on this thread (t_ns,\n"
                           "in the ring's timebase; 0 means now). Use it when the instant that\n"
                           "matters was read before a hand-off. Otherwise as stamp().");

static PyObject *py_stamp_at(PyObject *mod, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = { "seq", "stage", "t_ns", "aux", "aux2" };
    uint64_t v[5] = { 0, 0, 0, 0, 0 };
    (void)mod;
    if (parse_positional("stamp_at", names, 5, 3, args, nargs, kwnames, v) < 0) return NULL;
    if (!stage_ok("stamp_at", v[1])) return NULL;
#ifdef LATREC_ENABLE
    latrec_t *r = py_ring;
    if (LATREC_LIKELY(r != NULL)) {
        latrec_stamp_at(r, v[0], (uint8_t)v[1], v[3], v[4], v[2]);
        prefetch_ahead(r);
    } else {
        latrec_tstamp_at_fn(v[0], (uint8_t)v[1], v[3], v[4], v[2]);
    }
#endif
    Py_RETURN_NONE;
}

PyDoc_STRVAR(now_doc, "now()\n--\n\n"
                      "Now in the timebase of this thread's ring, the time a later stamp_at()\n"
                      "takes: CLOCK_MONOTONIC ns, or TSC counts when the ring is a TSC ring\n"
                      "(set_timebase(), LATREC_CLOCK); readers convert TSC rings to ns. 0 (no\n"
                      "clock read) in a build without LATREC_ENABLE.");

static PyObject *py_now(PyObject *mod, PyObject *unused)
{
    (void)mod;
    (void)unused;
#ifdef LATREC_ENABLE
    /* The thread's ring read here; latrec_tnow() would read latrec_tls. */
    const latrec_t *r = py_ring;
    if (LATREC_LIKELY(r != NULL)) return PyLong_FromUnsignedLongLong(latrec_ring_now(r));
#endif
    return PyLong_FromUnsignedLongLong(latrec_tnow_fn());
}

PyDoc_STRVAR(seq_next_doc, "seq_next()\n--\n\n"
                           "Next value of the process-wide sequence counter (1, 2, 3, ...), shared\n"
                           "with C code in the same process. 0 in a build without LATREC_ENABLE.");

static PyObject *py_seq_next(PyObject *mod, PyObject *unused)
{
    (void)mod;
    (void)unused;
    return PyLong_FromUnsignedLongLong(latrec_seq_next());
}

PyDoc_STRVAR(ctx_set_doc, "ctx_set(seq)\n--\n\n"
                          "Publish the seq of the message this thread is carrying, for code that\n"
                          "cannot be passed it (C code on the same thread reads it with\n"
                          "latrec_ctx()). Sticky until overwritten; kept only on a thread with a\n"
                          "ring.");

static PyObject *py_ctx_set(PyObject *mod, PyObject *arg)
{
    uint64_t seq;
    (void)mod;
    if (u64_arg("ctx_set", "seq", arg, &seq) < 0) return NULL;
#ifdef LATREC_ENABLE
    latrec_t *r = py_ring;
    if (r) {
        if (r->enabled) r->ctx_seq = seq;
    } else {
        latrec_ctx_set_fn(seq);
    }
#endif
    Py_RETURN_NONE;
}

PyDoc_STRVAR(ctx_doc, "ctx()\n--\n\n"
                      "The seq last published on this thread by ctx_set() (or latrec_ctx_set()\n"
                      "in C); 0 on a thread with no ring.");

static PyObject *py_ctx(PyObject *mod, PyObject *unused)
{
    (void)mod;
    (void)unused;
    uint64_t seq = 0;
#ifdef LATREC_ENABLE
    seq = py_ring ? py_ring->ctx_seq : latrec_ctx_fn();
#endif
    return PyLong_FromUnsignedLongLong(seq);
}

/* A str argument (or None, giving NULL) as UTF-8 without NUL, at most max
 * bytes when max > 0. 0 or -1 with an exception set. */
static int str_arg(const char *fn, const char *what, PyObject *o, Py_ssize_t max, const char **s)
{
    *s = NULL;
    if (o == Py_None) return 0;
    if (!PyUnicode_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s(): %s must be a str or None", fn, what);
        return -1;
    }
    Py_ssize_t len;
    const char *u = PyUnicode_AsUTF8AndSize(o, &len);
    if (!u) return -1;
    if ((Py_ssize_t)strlen(u) != len) {
        PyErr_Format(PyExc_ValueError, "%s(): %s contains a NUL character", fn, what);
        return -1;
    }
    if (max > 0 && len > max) {
        PyErr_Format(PyExc_ValueError, "%s(): %s must be at most %zd bytes, not %R", fn, what, max, o);
        return -1;
    }
    *s = u;
    return 0;
}

/* ---- rings and settings --------------------------------------------------- */

PyDoc_STRVAR(open_as_doc, "open_as(role=None)\n--\n\n"
                          "Open the calling thread's ring as <role>.<tid>.latrec (role None or\n"
                          "empty: the program name), sized by LATREC_ENTRIES_LOG2_<ROLE> or\n"
                          "LATREC_ENTRIES_LOG2 (default 2**18 records). Idempotent: a thread that\n"
                          "already has a ring (opened here or by C code on this thread) keeps it.\n"
                          "Returns True when the thread has a ring; False when it could not be\n"
                          "opened (said once on stderr; the thread's stamps then go nowhere) and\n"
                          "always in a build without LATREC_ENABLE. Every thread calls it for\n"
                          "itself: each Python thread stamps into its own ring, flushed when the\n"
                          "thread ends and at exit.");

static PyObject *py_open_as(PyObject *mod, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)mod;
    PyObject *role_obj = nargs > 0 ? args[0] : Py_None;
    const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    if (nargs + nkw > 1) {
        PyErr_SetString(PyExc_TypeError, "open_as() takes at most 1 argument");
        return NULL;
    }
    if (nkw == 1) {
        if (PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0), "role") != 0) {
            PyErr_Format(PyExc_TypeError, "open_as() got an unexpected keyword argument '%U'",
                         PyTuple_GET_ITEM(kwnames, 0));
            return NULL;
        }
        role_obj = args[0];
    }
    const char *role;
    if (str_arg("open_as", "role", role_obj, 0, &role) < 0) return NULL;
#ifdef LATREC_ENABLE
    latrec_t *r;
    /* Opening faults in the whole ring (milliseconds): let other threads run. */
    Py_BEGIN_ALLOW_THREADS r = latrec_tls_open_as(role);
    Py_END_ALLOW_THREADS py_ring = r;
    return PyBool_FromLong(r != NULL);
#else
    (void)role;
    Py_RETURN_FALSE;
#endif
}

/* A str, bytes or os.PathLike argument (or None) as a C string; *buf holds
 * the bytes object to release. 0 or -1 with an exception set. */
static int path_arg(PyObject *o, PyObject **buf, const char **s)
{
    *buf = NULL;
    *s = NULL;
    if (o == Py_None) return 0;
    if (!PyUnicode_FSConverter(o, buf)) return -1;
    *s = PyBytes_AS_STRING(*buf);
    return 0;
}

PyDoc_STRVAR(set_output_dir_doc, "set_output_dir(dir)\n--\n\n"
                                 "Directory the per-thread rings of this process are written to (str,\n"
                                 "bytes or path-like; created if missing). Call it before the first\n"
                                 "open_as(); rings already open stay where they are. None or '' returns to\n"
                                 "$LATREC_OUTPUT_DIR (set by `latrec record`), else the compiled-in\n"
                                 "default.");

static PyObject *py_set_output_dir(PyObject *mod, PyObject *arg)
{
    (void)mod;
    PyObject *buf;
    const char *dir;
    if (path_arg(arg, &buf, &dir) < 0) return NULL;
    latrec_set_output_dir(dir);
    Py_XDECREF(buf);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(set_catalog_doc, "set_catalog(name)\n--\n\n"
                              "Stage catalog name written into the header of rings opened from now on\n"
                              "(at most 31 bytes): `latrec report --catalog FILE` reads the stages and\n"
                              "legs of the catalog file that carries this name. None or '' restores\n"
                              "'e3', the built-in catalog these constants belong to.");

static PyObject *py_set_catalog(PyObject *mod, PyObject *arg)
{
    (void)mod;
    const char *name;
    if (str_arg("set_catalog", "name", arg, LATREC_CATALOG_LEN - 1, &name) < 0) return NULL;
    latrec_set_catalog(name);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(set_timebase_doc, "set_timebase(role, timebase)\n--\n\n"
                               "Timebase of the rings opened from now on for role (None: every role\n"
                               "without a choice of its own): TIMEBASE_MONO (CLOCK_MONOTONIC) or\n"
                               "TIMEBASE_TSC (a bare TSC read per stamp, where the TSC is invariant;\n"
                               "elsewhere the ring keeps the clock and says so once on stderr); None\n"
                               "drops the choice. Without one, LATREC_CLOCK_<ROLE> or LATREC_CLOCK\n"
                               "('tsc' or 'mono') decide, else the clock. Rings already open keep theirs.");

static PyObject *py_set_timebase(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    (void)mod;
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "set_timebase() takes 2 arguments (%zd given)", nargs);
        return NULL;
    }
    const char *role;
    if (str_arg("set_timebase", "role", args[0], 0, &role) < 0) return NULL;
    long timebase = -1;
    if (args[1] != Py_None) {
        timebase = PyLong_Check(args[1]) ? PyLong_AsLong(args[1]) : -2;
        if (timebase != LATREC_TIMEBASE_MONO && timebase != LATREC_TIMEBASE_TSC) {
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError,
                         "set_timebase(): timebase must be TIMEBASE_MONO, TIMEBASE_TSC or None, not %R", args[1]);
            return NULL;
        }
    }
    latrec_set_timebase(role, (int)timebase);
    Py_RETURN_NONE;
}

/* ---- the module ----------------------------------------------------------- */

#define FASTKW (METH_FASTCALL | METH_KEYWORDS)
static PyMethodDef latrec_methods[] = { { "open_as", (PyCFunction)(void (*)(void))py_open_as, FASTKW, open_as_doc },
                                        { "seq_next", py_seq_next, METH_NOARGS, seq_next_doc },
                                        { "stamp", (PyCFunction)(void (*)(void))py_stamp, FASTKW, stamp_doc },
                                        { "stamp_at", (PyCFunction)(void (*)(void))py_stamp_at, FASTKW, stamp_at_doc },
                                        { "now", py_now, METH_NOARGS, now_doc },
                                        { "ctx_set", py_ctx_set, METH_O, ctx_set_doc },
                                        { "ctx", py_ctx, METH_NOARGS, ctx_doc },
                                        { "set_output_dir", py_set_output_dir, METH_O, set_output_dir_doc },
                                        { "set_catalog", py_set_catalog, METH_O, set_catalog_doc },
                                        { "set_timebase", (PyCFunction)(void (*)(void))py_set_timebase, METH_FASTCALL,
                                          set_timebase_doc },
                                        { NULL, NULL, 0, NULL } };

PyDoc_STRVAR(latrec_doc, "Stage stamps from Python into latrec's per-thread rings.\n\n"
                         "The per-thread layer of latrec(3): each thread that calls open_as(role)\n"
                         "gets its own ring, <role>.<tid>.latrec, in the output directory\n"
                         "(set_output_dir(), else $LATREC_OUTPUT_DIR, which `latrec record` sets),\n"
                         "and stamp() stores one 32-byte record (seq, stage, aux, aux2, the time\n"
                         "and the cpu) into it, with no lock and no system call. Rings, the seq\n"
                         "counter and the catalog name are shared with C code in the same process.\n\n"
                         "    import latrec\n"
                         "    latrec.open_as('worker')\n"
                         "    seq = latrec.seq_next()\n"
                         "    latrec.stamp(seq, latrec.RECV)\n"
                         "    latrec.stamp(seq, latrec.DELIVER_DONE, 42)\n\n"
                         "Constants: every stage of the built-in E3 catalog (<latrec/stages.h>) by\n"
                         "name (RECORD_BEGIN, ...), also in the STAGES dict (name -> id); the DROP_*,\n"
                         "SKIP_* and OUT_* payload codes; TIMEBASE_MONO and TIMEBASE_TSC for\n"
                         "set_timebase(). ENABLED is False in a build without LATREC_ENABLE,\n"
                         "whose calls store nothing. See latrec(3).");

static struct PyModuleDef latrec_module = {
    PyModuleDef_HEAD_INIT, "latrec", latrec_doc, -1, latrec_methods, NULL, NULL, NULL, NULL
};

static int add_constants(PyObject *m)
{
    PyObject *stages = PyDict_New();
    if (!stages) return -1;
    const size_t n = sizeof(latrec_py_constants) / sizeof(latrec_py_constants[0]);
    for (size_t i = 0; i < n; i++) {
        const struct latrec_py_constant *c = &latrec_py_constants[i];
        if (PyModule_AddIntConstant(m, c->name, (long)c->value) < 0) goto fail;
        if (!c->is_stage) continue;
        PyObject *v = PyLong_FromUnsignedLong(c->value);
        if (!v || PyDict_SetItemString(stages, c->name, v) < 0) {
            Py_XDECREF(v);
            goto fail;
        }
        Py_DECREF(v);
    }
    if (PyModule_AddObject(m, "STAGES", stages) < 0) goto fail;
    return 0;
fail:
    Py_DECREF(stages);
    return -1;
}

PyMODINIT_FUNC PyInit_latrec(void)
{
#ifdef LATREC_ENABLE
    static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
    pthread_once(&atfork_once, register_atfork);
    const int enabled = 1;
#else
    const int enabled = 0;
#endif
    PyObject *m = PyModule_Create(&latrec_module);
    if (!m) return NULL;
    if (add_constants(m) < 0 || PyModule_AddIntConstant(m, "TIMEBASE_MONO", LATREC_TIMEBASE_MONO) < 0 ||
        PyModule_AddIntConstant(m, "TIMEBASE_TSC", LATREC_TIMEBASE_TSC) < 0 ||
        PyModule_AddObjectRef(m, "ENABLED", enabled ? Py_True : Py_False) < 0 ||
        PyModule_AddStringConstant(m, "__version__", LATREC_PY_VERSION) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
