/*
 * _C_config.c - RunConfig.__post_init__'s rules (docs/runconfig.md) in
 * their order.  The ring, num_workers and stall rules and messages are the
 * library's (pto_config_check_* in pto/config.h), so C and Python users read
 * the same text; the rules only RunConfig has (platform, DFX levels,
 * device_id, distributed_config) live here.  Python values are judged here:
 * is_int = int and not bool; messages show the value's repr.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <string.h>

#include "pto/config.h"

PyObject *py_config_check(PyObject *mod, PyObject *fields);
PyObject *py_dist_config_check(PyObject *mod, PyObject *fields);

static int cfg_is_int(PyObject *v) { return PyLong_Check(v) && !PyBool_Check(v); }

/* An int (not bool) >= 0. */
static int cfg_is_nonneg_int(PyObject *v)
{
    if (!cfg_is_int(v)) return 0;
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    return overflow > 0 || (!overflow && x >= 0);
}

/* fields[name]; a borrowed reference, Py_None when absent. */
static PyObject *cfg_get(PyObject *fields, const char *name)
{
    PyObject *v = PyDict_GetItemString(fields, name);
    return v ? v : Py_None;
}

static int cfg_set(PyObject *out, const char *name, PyObject *v)
{
    if (!v) return -1;
    int rc = PyDict_SetItemString(out, name, v);
    Py_DECREF(v);
    return rc;
}

/* Raises cls with "<fmt> ... got <repr(v)>"-style text built by the caller. */
static int cfg_fail_repr(PyObject *cls, const char *prefix, PyObject *v)
{
    PyObject *r = PyObject_Repr(v);
    if (!r) return -1;
    PyErr_Format(cls, "%s%U", prefix, r);
    Py_DECREF(r);
    return -1;
}

/* A Python int as the int64 the C rule sees: values past int64 keep their
 * verdict (a huge power of two is "too large", anything else fails the phrase). */
static int cfg_int64(PyObject *v, int64_t *out)
{
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (x == -1 && PyErr_Occurred()) return -1;
    if (overflow < 0) {
        *out = INT64_MIN;
    } else if (overflow > 0) {
        PyObject *one = PyLong_FromLong(1), *m1 = one ? PyNumber_Subtract(v, one) : NULL;
        PyObject *and = m1 ? PyNumber_And(v, m1) : NULL;
        int pow2 = and ? PyObject_Not(and) : -1;
        Py_XDECREF(one), Py_XDECREF(m1), Py_XDECREF(and);
        if (pow2 < 0) return -1;
        *out = pow2 ? (int64_t)1 << 62 : ((int64_t)1 << 62) + 1;
    } else {
        *out = x;
    }
    return 0;
}

/* One value through a pto_config_check_* helper (kind: ring field, or -1
 * num_workers, -2 stall timeout). */
static int cfg_check_value(int kind, int entry, PyObject *v)
{
    int is_int = cfg_is_int(v);
    int64_t x = 0;
    if (is_int && cfg_int64(v, &x)) return -1;
    PyObject *r = PyObject_Repr(v);
    const char *shown = r ? PyUnicode_AsUTF8(r) : NULL;
    if (!shown) return Py_XDECREF(r), -1;
    char msg[512];
    int rc = kind >= 0   ? pto_config_check_ring_value((pto_ring_field)kind, entry, is_int, x, shown, msg, sizeof msg)
           : kind == -1 ? pto_config_check_num_workers(is_int, x, shown, msg, sizeof msg)
                        : pto_config_check_stall_timeout(is_int, x, shown, msg, sizeof msg);
    Py_DECREF(r);
    if (rc) PyErr_SetString(PyExc_ValueError, msg);
    return rc ? -1 : 0;
}

/* A ring field: None, a scalar, or a list/tuple of 4 (stored back as a list). */
static int cfg_ring(PyObject *fields, PyObject *out, pto_ring_field f)
{
    const char *name = pto_ring_field_name(f);
    PyObject *v = cfg_get(fields, name);
    if (v == Py_None) return cfg_set(out, name, Py_NewRef(Py_None));
    if (PyList_Check(v) || PyTuple_Check(v)) {
        PyObject *list = PySequence_List(v);
        if (!list) return -1;
        char msg[512];
        Py_ssize_t n = PyList_GET_SIZE(list);
        if (pto_config_check_ring_list_len(f, (size_t)n, msg, sizeof msg)) {
            PyErr_SetString(PyExc_ValueError, msg);
            return Py_DECREF(list), -1;
        }
        for (Py_ssize_t k = 0; k < n; k++)
            if (cfg_check_value((int)f, (int)k, PyList_GET_ITEM(list, k))) return Py_DECREF(list), -1;
        return cfg_set(out, name, list);
    }
    if (cfg_check_value((int)f, -1, v)) return -1;
    return cfg_set(out, name, Py_NewRef(v));
}

static int cfg_platform(PyObject *fields, PyObject *out)
{
    static const char *const ok[] = {"a2a3sim", "a2a3", "a5sim", "a5"};
    PyObject *p = cfg_get(fields, "platform");
    const char *s = PyUnicode_Check(p) ? PyUnicode_AsUTF8(p) : NULL;
    if (PyErr_Occurred()) return -1;
    for (int k = 0; s && k < 4; k++)
        if (!strcmp(s, ok[k])) {
            if (cfg_set(out, "platform", Py_NewRef(p))) return -1;
            /* 3. backend_type from the platform. */
            return cfg_set(out, "backend_type", PyUnicode_FromString(s[1] == '5' ? "Ascend950" : "Ascend910B"));
        }
    PyErr_Format(PyExc_ValueError, "Invalid platform '%S'. Expected 'a2a3sim', 'a2a3', 'a5sim', or 'a5'.", p);
    return -1;
}

/* An int level in [lo, hi]; bool -> bool_true / 0.  Returns the level or -1. */
static long cfg_level(PyObject *v, long bool_true, long lo, long hi, const char *range_prefix)
{
    if (PyBool_Check(v)) return v == Py_True ? bool_true : 0;
    if (cfg_is_int(v)) {
        int overflow = 0;
        long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (!overflow && x >= lo && x <= hi) return (long)x;
    }
    cfg_fail_repr(PyExc_ValueError, range_prefix, v);
    return -1;
}

/* Is v a pypto.ir.distributed_compiled_program.DistributedConfig?  -1 with an
 * exception set when that module cannot be imported. */
static int cfg_is_dist_config(PyObject *v)
{
    PyObject *mod = PyImport_ImportModule("pypto.ir.distributed_compiled_program");
    if (!mod) return -1;
    PyObject *cls = PyObject_GetAttrString(mod, "DistributedConfig");
    Py_DECREF(mod);
    if (!cls) return -1;
    int is = PyObject_IsInstance(v, cls);
    Py_DECREF(cls);
    return is;
}

/* DistributedConfig's field rules, in upstream's order and words (DISTRIBUTED-SPEC §1.4):
 * fields has device_ids (a list), num_sub_workers and aicpu_thread_num (ints). */
PyObject *py_dist_config_check(PyObject *mod, PyObject *fields)
{
    (void)mod;
    PyObject *ids = cfg_get(fields, "device_ids");
    PyObject *seq = PySequence_Fast(ids, "DistributedConfig.device_ids must be a list of ints");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    int bad = n == 0, neg = 0, dup = 0;
    for (Py_ssize_t i = 0; i < n && !bad; i++) {
        PyObject *d = PySequence_Fast_GET_ITEM(seq, i);
        if (!cfg_is_int(d)) {
            Py_DECREF(seq);
            return cfg_fail_repr(PyExc_TypeError, "DistributedConfig.device_ids must be ints, got ", ids), NULL;
        }
        int64_t x = 0;
        if (cfg_int64(d, &x) < 0 || x < 0) neg = 1;
        for (Py_ssize_t j = 0; j < i; j++) {
            int eq = PyObject_RichCompareBool(d, PySequence_Fast_GET_ITEM(seq, j), Py_EQ);
            if (eq < 0) return Py_DECREF(seq), NULL;
            dup |= eq;
        }
    }
    Py_DECREF(seq);
    if (bad) return PyErr_SetString(PyExc_ValueError, "DistributedConfig.device_ids must not be empty"), NULL;
    if (neg) return cfg_fail_repr(PyExc_ValueError, "DistributedConfig.device_ids must be non-negative device indices, got ", ids), NULL;
    if (dup) return cfg_fail_repr(PyExc_ValueError, "DistributedConfig.device_ids must be distinct, got ", ids), NULL;
    int64_t subs = 0, aicpu = 0;
    PyObject *s = cfg_get(fields, "num_sub_workers"), *a = cfg_get(fields, "aicpu_thread_num");
    if (!cfg_is_int(s) || cfg_int64(s, &subs) < 0 || subs < 0)
        return cfg_fail_repr(PyExc_ValueError, "DistributedConfig.num_sub_workers must be non-negative, got ", s), NULL;
    if (!cfg_is_int(a) || cfg_int64(a, &aicpu) < 0 || aicpu < 0 || aicpu == 1)
        return cfg_fail_repr(PyExc_ValueError,
                             "DistributedConfig.aicpu_thread_num must be 0 (architecture default) or at least 2, got ", a), NULL;
    Py_RETURN_NONE;
}

PyObject *py_config_check(PyObject *mod, PyObject *fields)
{
    (void)mod;
    if (!PyDict_Check(fields)) return PyErr_Format(PyExc_TypeError, "config_check expects a dict");
    PyObject *out = PyDict_New();
    if (!out) return NULL;

    /* 2-3. platform, backend_type. */
    if (cfg_platform(fields, out)) goto fail;

    /* 4. swimlane. */
    PyObject *sw = cfg_get(fields, "enable_chip_swimlane");
    if (!PyBool_Check(sw) && !cfg_is_int(sw)) {
        PyErr_Format(PyExc_TypeError, "enable_chip_swimlane must be an int collection level (0-4) or a bool, got %s",
                     Py_TYPE(sw)->tp_name);
        goto fail;
    }
    long swimlane = cfg_level(sw, 4, 0, 4, "enable_chip_swimlane must be a collection level in [0, 4], got ");
    if (swimlane < 0 || cfg_set(out, "enable_chip_swimlane", PyLong_FromLong(swimlane))) goto fail;

    /* 5. dump_args, pmu. */
    long dump = cfg_level(cfg_get(fields, "enable_dump_args"), 1, 0, 2, "enable_dump_args must be a level in [0, 2], got ");
    if (dump < 0 || cfg_set(out, "enable_dump_args", PyLong_FromLong(dump))) goto fail;
    PyObject *pmu = cfg_get(fields, "enable_pmu");
    if (!cfg_is_nonneg_int(pmu)) {
        cfg_fail_repr(PyExc_ValueError, "enable_pmu must be a non-negative int, got ", pmu);
        goto fail;
    }
    if (cfg_set(out, "enable_pmu", Py_NewRef(pmu))) goto fail;

    /* 6. any DFX flag forces save_kernels. */
    int dep_gen = PyObject_IsTrue(cfg_get(fields, "enable_dep_gen"));
    int stats = PyObject_IsTrue(cfg_get(fields, "enable_scope_stats"));
    int save = PyObject_IsTrue(cfg_get(fields, "save_kernels"));
    int pmu_on = PyObject_IsTrue(pmu);
    if (dep_gen < 0 || stats < 0 || save < 0 || pmu_on < 0) goto fail;
    int dfx = swimlane > 0 || dump > 0 || pmu_on || dep_gen || stats;
    if (cfg_set(out, "save_kernels", PyBool_FromLong(save || dfx)) ||
        cfg_set(out, "any_dfx", PyBool_FromLong(dfx)))
        goto fail;

    /* 7. rings, in field order; then the runtime's worker and stall rules. */
    for (int f = PTO_FIELD_RING_TASK_WINDOW; f <= PTO_FIELD_RING_DEP_POOL; f++)
        if (cfg_ring(fields, out, (pto_ring_field)f)) goto fail;
    static const char *const rt_fields[2] = {"num_workers", "stall_timeout_ms"};
    for (int k = 0; k < 2; k++) {
        PyObject *v = cfg_get(fields, rt_fields[k]);
        if (v != Py_None && cfg_check_value(-1 - k, -1, v)) goto fail;
        if (cfg_set(out, rt_fields[k], Py_NewRef(v))) goto fail;
    }

    /* 8. device_id. */
    PyObject *dev = cfg_get(fields, "device_id");
    if (!cfg_is_nonneg_int(dev)) {
        cfg_fail_repr(PyExc_ValueError, "device_id must be a non-negative int, got ", dev);
        goto fail;
    }
    if (cfg_set(out, "device_id", Py_NewRef(dev))) goto fail;

    /* 9. distributed_config: None or a DistributedConfig (DISTRIBUTED-SPEC §1.4). */
    PyObject *dc = cfg_get(fields, "distributed_config");
    if (dc != Py_None) {
        int is = cfg_is_dist_config(dc);
        if (is < 0) goto fail;
        if (!is) {
            PyErr_Format(PyExc_TypeError, "distributed_config must be a DistributedConfig or None, got %s",
                         Py_TYPE(dc)->tp_name);
            goto fail;
        }
    }
    return out;
fail:
    Py_DECREF(out);
    return NULL;
}
