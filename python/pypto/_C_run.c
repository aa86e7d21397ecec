/*
 * _C_run.c - pypto._C.run: one call of a compiled program (docs/compiler.md, "One call from Python"
 * step 3) on this process's runtime.
 *
 *   run(program, who, specs, buffers, fields) -> None
 *       specs: the argument specs the program was compiled with (in
 *       parameter order; scalars carry their value).  buffers: the shim's
 *       records (name, object, base address, byte offset, nbytes, writable)
 *       for the tensors.  fields: the validated RunConfig's runtime fields,
 *       {"ring_task_window", "ring_heap", "ring_dep_pool": None, an int or
 *       a list of 4 (0 = default); "num_workers", "stall_timeout_ms": None
 *       or an int; "output_prefix": None, or the directory that receives
 *       scope_stats/scope_stats.jsonl (scope stats on)}.
 *
 * A tensor the program writes (its entry parameter's direction after the
 * directions pass is Out or InOut) must be writable: ValueError "<who>:
 * argument '<p>' is read-only but the kernel writes it".  A failed run
 * raises pypto.runtime.PTORuntimeError(message, code=, ring=) with the
 * runtime's full message; the runtime is reusable after it.
 *
 *   run(program, who, specs, buffers, fields, runtime) -> None: the same on
 *       runtime (a Runtime; its sizes are its own, the fields' ring and
 *       worker entries are not read; "output_prefix" is: scope stats are
 *       this call's, switched on the runtime before it runs).
 *   runtime_new(fields) -> Runtime: a runtime of its own, sized by fields
 *       (as run's), for a pypto.runtime.ChipWorker; runtime_close(rt)
 *       destroys it (idempotent; a closed one runs nothing).
 *
 * A @pl.jit.host program runs as one distributed call (DISTRIBUTED-SPEC
 * §2.1): fields then also hold the shim's "device_ids" (one int per rank),
 * "dist_call" (the process's distributed call number), "rank" and "world"
 * (as the shim saw them; the world must be the registered transport's) and
 * "comm_stats_dir" (None, or the directory that receives comm_stats.json).
 * comm_register_capsule() gives the capsule "pypto._C.comm_register", the
 * runtime's pto_comm_register_entry (rt_comm_register), through which pypto._C_mpi
 * registers its transport with this extension's libpto.
 *
 * Without a Runtime, one runtime is kept per process and reused while the
 * effective sizes and options of a call match its own; otherwise it is
 * replaced.  Calls are serialized process-wide by a mutex, taken with the
 * GIL released; the GIL stays released while the program runs.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pto/compile.h"
#include "pto/config.h"
#include "pto/run.h"
#include "pto/runtime.h"

PyObject *py_run(PyObject *mod, PyObject *args);
PyObject *py_runtime_new(PyObject *mod, PyObject *fields);
PyObject *py_runtime_close(PyObject *mod, PyObject *rt);
int py_runtime_ready(void);
PyObject *py_comm_register_capsule(void);
int py_arg(PyObject *item, pto_arg_spec *sp);          /* _C.c */
const pto_program *py_program_get(PyObject *o);       /* _C.c */

static const uint32_t run_elem_size[] = {
#define RUN_DTYPE_SIZE_(n, size) size,
    PTO_DTYPE_LIST(RUN_DTYPE_SIZE_)
#undef RUN_DTYPE_SIZE_
};

/* ---- the process's runtime ------------------------------------------------------------- */

static pthread_mutex_t run_lock = PTHREAD_MUTEX_INITIALIZER;
static pto_runtime *run_rt;     /* guarded by run_lock */
static pto_config run_rt_cfg;   /* what run_rt was created from; output_prefix owned */

static const uint64_t run_ring_default[3] = {PTO_DEFAULT_TASK_WINDOW, PTO_DEFAULT_HEAP, PTO_DEFAULT_DEP_POOL};

static uint64_t run_effective(int field, uint64_t v) { return v ? v : run_ring_default[field]; }

static uint64_t *run_ring_array(pto_config *c, int field)
{
    return field == 0 ? c->runtime_env.ring_task_window : field == 1 ? c->runtime_env.ring_heap : c->runtime_env.ring_dep_pool;
}

/* Whether a runtime made from a serves a call asking for b. */
static int run_same_config(pto_config *a, pto_config *b)
{
    for (int f = 0; f < 3; f++)
        for (int r = 0; r < PTO_NUM_RINGS; r++)
            if (run_effective(f, run_ring_array(a, f)[r]) != run_effective(f, run_ring_array(b, f)[r])) return 0;
    int sa = a->stall_timeout_ms ? a->stall_timeout_ms : PTO_DEFAULT_STALL_TIMEOUT_MS;
    int sb = b->stall_timeout_ms ? b->stall_timeout_ms : PTO_DEFAULT_STALL_TIMEOUT_MS;
    if (a->num_workers != b->num_workers || sa != sb || !a->enable_scope_stats != !b->enable_scope_stats) return 0;
    return !a->enable_scope_stats || !strcmp(a->output_prefix, b->output_prefix);
}

/* Under run_lock: a runtime for cfg in run_rt (reused or replaced). */
static int run_runtime_for(pto_config *cfg, pto_error *err)
{
    if (run_rt && run_same_config(&run_rt_cfg, cfg)) return 0;
    pto_runtime_destroy(run_rt);
    run_rt = NULL;
    free((char *)run_rt_cfg.output_prefix);
    memset(&run_rt_cfg, 0, sizeof run_rt_cfg);
    int rc = pto_runtime_create(cfg, &run_rt, err);
    if (rc) return rc;
    run_rt_cfg = *cfg;
    if (cfg->output_prefix && !(run_rt_cfg.output_prefix = strdup(cfg->output_prefix))) {
        pto_runtime_destroy(run_rt);
        run_rt = NULL;
        memset(&run_rt_cfg, 0, sizeof run_rt_cfg);
        err->code = PTO_OUT_OF_MEMORY, err->ring = -1;
        snprintf(err->message, sizeof err->message, "pypto: out of memory");
        return -PTO_OUT_OF_MEMORY;
    }
    return 0;
}

/* ---- a runtime of its own (a ChipWorker's) ------------------------------------------------ */

typedef struct {
    PyObject_HEAD
    pto_runtime *rt; /* NULL once closed; destroyed under run_lock */
} py_runtime;

static void py_runtime_free(py_runtime *self)
{
    if (!self->rt) return;
    Py_BEGIN_ALLOW_THREADS
    pthread_mutex_lock(&run_lock);
    pto_runtime_destroy(self->rt);
    self->rt = NULL;
    pthread_mutex_unlock(&run_lock);
    Py_END_ALLOW_THREADS
}

static void py_runtime_dealloc(py_runtime *self)
{
    py_runtime_free(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyTypeObject py_runtime_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "pypto._C.Runtime",
    .tp_basicsize = sizeof(py_runtime),
    .tp_dealloc = (destructor)py_runtime_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "a runtime owned by one ChipWorker",
};

int py_runtime_ready(void) { return PyType_Ready(&py_runtime_type); }

/* ---- fields -> pto_config -------------------------------------------------------------- */

static int run_u64(PyObject *v, uint64_t *out)
{
    unsigned long long x = PyLong_AsUnsignedLongLong(v);
    if (x == (unsigned long long)-1 && PyErr_Occurred()) return -1;
    *out = x;
    return 0;
}

static int run_ring_field(PyObject *fields, int field, pto_config *cfg)
{
    PyObject *v = PyDict_GetItemString(fields, pto_ring_field_name((pto_ring_field)field));
    uint64_t *dst = run_ring_array(cfg, field);
    if (!v || v == Py_None) return 0;
    if (PyList_Check(v)) {
        if (PyList_GET_SIZE(v) != PTO_NUM_RINGS) {
            PyErr_Format(PyExc_ValueError, "%s: expected 4 entries", pto_ring_field_name((pto_ring_field)field));
            return -1;
        }
        for (int r = 0; r < PTO_NUM_RINGS; r++)
            if (run_u64(PyList_GET_ITEM(v, r), &dst[r])) return -1;
        return 0;
    }
    uint64_t x;
    if (run_u64(v, &x)) return -1;
    for (int r = 0; r < PTO_NUM_RINGS; r++) dst[r] = x;
    return 0;
}

static int run_int_field(PyObject *fields, const char *name, int *out)
{
    PyObject *v = PyDict_GetItemString(fields, name);
    if (!v || v == Py_None) return 0;
    long x = PyLong_AsLong(v);
    if (x == -1 && PyErr_Occurred()) return -1;
    *out = (int)x;
    return 0;
}

static int run_config(PyObject *fields, pto_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    for (int f = 0; f < 3; f++)
        if (run_ring_field(fields, f, cfg)) return -1;
    if (run_int_field(fields, "num_workers", &cfg->num_workers) ||
        run_int_field(fields, "stall_timeout_ms", &cfg->stall_timeout_ms))
        return -1;
    PyObject *prefix = PyDict_GetItemString(fields, "output_prefix");
    if (prefix && prefix != Py_None) {
        if (!(cfg->output_prefix = PyUnicode_AsUTF8(prefix))) return -1;
        cfg->enable_scope_stats = 1;
    }
    return 0;
}

/* ---- arguments ------------------------------------------------------------------------- */

/* The buffer record named name, borrowed; NULL with an error when absent. */
static PyObject *run_buffer(PyObject *buffers, const char *name)
{
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(buffers); k++) {
        PyObject *rec = PyList_GET_ITEM(buffers, k);
        if (!PyTuple_Check(rec) || PyTuple_GET_SIZE(rec) != 6) break;
        const char *n = PyUnicode_AsUTF8(PyTuple_GET_ITEM(rec, 0));
        if (!n) return NULL;
        if (!strcmp(n, name)) return rec;
    }
    PyErr_Format(PyExc_TypeError, "pypto._C.run: no buffer record (name, object, base, offset, nbytes, writable) for '%s'",
                 name);
    return NULL;
}

static int run_tensor_arg(const pto_program *prog, const char *who, const pto_arg_spec *sp, PyObject *buffers,
                          pto_run_arg *out)
{
    PyObject *rec = run_buffer(buffers, sp->name);
    if (!rec) return -1;
    unsigned long long base = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(rec, 2));
    long long off = PyLong_AsLongLong(PyTuple_GET_ITEM(rec, 3));
    int writable = PyObject_IsTrue(PyTuple_GET_ITEM(rec, 5));
    if (PyErr_Occurred() || writable < 0) return -1;
    if (!writable && pto_program_writes(prog, sp->name)) {
        PyErr_Format(PyExc_ValueError, "%s: argument '%s' is read-only but the kernel writes it", who, sp->name);
        return -1;
    }
    uint32_t es = run_elem_size[sp->dtype];
    if (off < 0 || off % es) {
        PyErr_Format(PyExc_ValueError, "%s: argument '%s' starts %lld bytes into its storage, not on an element boundary",
                     who, sp->name, off);
        return -1;
    }
    out->name = sp->name;
    out->value.kind = PTO_ARG_TENSOR;
    out->value.dtype = sp->dtype;
    out->value.base = (void *)(uintptr_t)base;
    out->value.rank = sp->rank;
    memcpy(out->value.shape, sp->shape, sizeof out->value.shape);
    out->value.offset = off / es; /* strides all 0: contiguous (the shim's rule) */
    return 0;
}

/* ---- a distributed call --------------------------------------------------------------- */

/* fields' "device_ids" and "dist_call" into *d (with room in ids for 64), "rank" (this process's,
 * for the error's origin) into *rank; 0 when fields have none (not a distributed call), 1 when
 * they do, -1 with an exception set. */
static int run_dist(PyObject *fields, pto_run_dist *d, int64_t *ids, int *rank)
{
    PyObject *v = PyDict_GetItemString(fields, "device_ids");
    memset(d, 0, sizeof *d);
    if (!v || v == Py_None) return 0;
    PyObject *seq = PySequence_Fast(v, "fields['device_ids'] must be a sequence of ints");
    if (!seq) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n < 1 || n > 64) return Py_DECREF(seq), PyErr_Format(PyExc_ValueError, "fields['device_ids'] has %zd entries (1 to 64)", n), -1;
    for (Py_ssize_t k = 0; k < n; k++) {
        ids[k] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, k));
        if (ids[k] == -1 && PyErr_Occurred()) return Py_DECREF(seq), -1;
    }
    Py_DECREF(seq);
    int call = 0, world = (int)n;
    *rank = 0;
    if (run_int_field(fields, "dist_call", &call) || run_int_field(fields, "world", &world) || run_int_field(fields, "rank", rank))
        return -1;
    if (world != n) return PyErr_Format(PyExc_ValueError, "fields['world'] is %d but device_ids has %zd entries", world, n), -1;
    d->device_ids = ids, d->ndevice_ids = (size_t)n, d->call = (uint64_t)call;
    PyObject *dir = PyDict_GetItemString(fields, "comm_stats_dir");
    if (dir && dir != Py_None && !(d->comm_stats_dir = PyUnicode_AsUTF8(dir))) return -1;
    return 1;
}

PyObject *py_comm_register_capsule(void) { return PyCapsule_New(pto_comm_register_entry(), "pypto._C.comm_register", NULL); }

/* ---- errors ---------------------------------------------------------------------------- */

/* A distributed call's origin (DISTRIBUTED-SPEC §3): the rank where the failure began and its
 * code there.  A REMOTE_FAILED message names it on its first detail line ("  rank <o> ...")
 * and carries the origin's own "error_code=<c>" after it (none when the origin left the job). */
static void run_origin(const pto_error *err, int rank, int *origin, int *code)
{
    *origin = rank, *code = err->code;
    if (err->code != PTO_REMOTE_FAILED) return;
    const char *line = strstr(err->message, "\n  rank ");
    *code = -1;
    if (!line) return;
    *origin = (int)strtol(line + 8, NULL, 10);
    const char *c = strstr(line, "error_code=");
    if (c) *code = (int)strtol(c + 11, NULL, 10);
}

/* Raises PTORuntimeError(message, code=, ring=[, rank=, origin_code=, origin_name=]); rank >= 0:
 * a distributed call's failure on this rank. */
static void run_raise(const pto_error *err, int rank)
{
    PyObject *mod = PyImport_ImportModule("pypto.runtime");
    PyObject *cls = mod ? PyObject_GetAttrString(mod, "PTORuntimeError") : NULL;
    Py_XDECREF(mod);
    if (!cls) return;
    PyObject *a = Py_BuildValue("(s)", err->message);
    PyObject *kw = Py_BuildValue("{s:i,s:N}", "code", err->code, "ring",
                                 err->ring >= 0 ? PyLong_FromLong(err->ring) : Py_NewRef(Py_None));
    if (kw && rank >= 0) {
        int origin, code;
        run_origin(err, rank, &origin, &code);
        PyObject *o = PyLong_FromLong(origin), *c = code >= 0 ? PyLong_FromLong(code) : Py_NewRef(Py_None),
                 *nm = code >= 0 ? PyUnicode_FromString(pto_status_name(code)) : Py_NewRef(Py_None);
        if (!o || !c || !nm || PyDict_SetItemString(kw, "rank", o) || PyDict_SetItemString(kw, "origin_code", c) ||
            PyDict_SetItemString(kw, "origin_name", nm))
            Py_CLEAR(kw);
        Py_XDECREF(o), Py_XDECREF(c), Py_XDECREF(nm);
    }
    PyObject *exc = a && kw ? PyObject_Call(cls, a, kw) : NULL;
    Py_XDECREF(a), Py_XDECREF(kw), Py_DECREF(cls);
    if (exc) PyErr_SetObject((PyObject *)Py_TYPE(exc), exc), Py_DECREF(exc);
}

/* ---- run ------------------------------------------------------------------------------- */

PyObject *py_runtime_new(PyObject *mod, PyObject *fields)
{
    (void)mod;
    if (!PyDict_Check(fields)) return PyErr_Format(PyExc_TypeError, "runtime_new(fields): fields must be a dict");
    pto_config cfg;
    if (run_config(fields, &cfg)) return NULL;
    py_runtime *self = PyObject_New(py_runtime, &py_runtime_type);
    if (!self) return NULL;
    self->rt = NULL;
    pto_error err;
    memset(&err, 0, sizeof err);
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = pto_runtime_create(&cfg, &self->rt, &err);
    Py_END_ALLOW_THREADS
    if (rc) {
        Py_DECREF(self);
        run_raise(&err, -1);
        return NULL;
    }
    return (PyObject *)self;
}

PyObject *py_runtime_close(PyObject *mod, PyObject *rt)
{
    (void)mod;
    if (!PyObject_TypeCheck(rt, &py_runtime_type)) return PyErr_Format(PyExc_TypeError, "expected a pypto._C.Runtime");
    py_runtime_free((py_runtime *)rt);
    Py_RETURN_NONE;
}

PyObject *py_run(PyObject *mod, PyObject *args)
{
    (void)mod;
    PyObject *handle, *specs, *buffers, *fields, *own = Py_None;
    const char *who;
    if (!PyArg_ParseTuple(args, "OsO!O!O!|O", &handle, &who, &PyList_Type, &specs, &PyList_Type, &buffers, &PyDict_Type,
                          &fields, &own))
        return NULL;
    if (own != Py_None && !PyObject_TypeCheck(own, &py_runtime_type))
        return PyErr_Format(PyExc_TypeError, "expected a pypto._C.Runtime");
    py_runtime *rt_own = own != Py_None ? (py_runtime *)own : NULL;
    const pto_program *prog = py_program_get(handle);
    if (!prog) return NULL;
    Py_ssize_t n = PyList_GET_SIZE(specs);
    pto_config cfg;
    pto_run_dist dist;
    int64_t ids[64];
    if (run_config(fields, &cfg)) return NULL;
    int rank = -1, is_dist = run_dist(fields, &dist, ids, &rank);
    if (is_dist < 0) return NULL;
    pto_run_arg *ra = PyMem_Calloc((size_t)n + 1, sizeof *ra);
    pto_error *err = PyMem_Calloc(1, sizeof *err);
    PyObject *result = NULL;
    if (!ra || !err) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        pto_arg_spec sp;
        if (py_arg(PyList_GET_ITEM(specs, k), &sp)) goto done;
        if (sp.kind == PTO_ARG_SCALAR) {
            ra[k].name = sp.name, ra[k].value.kind = PTO_ARG_SCALAR, ra[k].value.value = sp.value;
        } else if (run_tensor_arg(prog, who, &sp, buffers, &ra[k])) {
            goto done;
        }
    }
    int rc;
    Py_BEGIN_ALLOW_THREADS
    pthread_mutex_lock(&run_lock);
    if (rt_own) {
        /* this call's choice of scope stats, on the worker's runtime (between runs: it has none open) */
        rc = rt_own->rt ? pto_runtime_set_scope_stats(rt_own->rt, cfg.output_prefix) : -1;
        if (rc == 0) rc = pto_program_run_dist(rt_own->rt, prog, ra, (size_t)n, is_dist ? &dist : NULL, err);
        else { /* the shim never runs on a closed worker; a caller of _C that does gets this */
            err->code = PTO_INVALID_ARGS, err->ring = -1;
            snprintf(err->message, sizeof err->message, rt_own->rt ? "pypto: scope stats could not be switched on "
                     "the worker's runtime (a run is open, or no memory)" : "pypto: the runtime was closed");
        }
    } else {
        rc = run_runtime_for(&cfg, err);
        if (rc == 0) rc = pto_program_run_dist(run_rt, prog, ra, (size_t)n, is_dist ? &dist : NULL, err);
    }
    pthread_mutex_unlock(&run_lock);
    Py_END_ALLOW_THREADS
    if (rc == 0) result = Py_NewRef(Py_None);
    else run_raise(err, is_dist ? rank : -1);
done:
    PyMem_Free(ra);
    PyMem_Free(err);
    return result;
}
