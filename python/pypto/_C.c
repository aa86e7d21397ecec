/*
 * _C.c - pypto's C extension: the compiler (pto/compile.h) and RunConfig's
 * validation rules (pto/config.h plus the RunConfig-only rules of
 * docs/runconfig.md) for the Python shim.
 *
 *   compile(source, filename, first_line, first_column, entry, function, constants, args,
 *           stop_after, *, entry_line=0, signature=0, keep_stages=False, print_prefix=None,
 *           print_concise=False, print_function=None, emit_torch=0, modules=[], imports=[])
 *           -> (Program, [diagnostic, ...])
 *       constants: [(name, value)]; int/float/bool/str become values, any
 *       other object an OBJECT named by its type.  args: [("tensor", name,
 *       dtype name, shape)], [("scalar", name, value)] or [("runtime", name,
 *       None)] (a run-time scalar, pl.RUNTIME).  stop_after: a
 *       stage name or None.  entry_line: pto_compile_options's (a nested
 *       entry).  A diagnostic is (class, message, hint, file,
 *       line, column, end_line, end_column, is_warning, formatted).
 *   signature, keep_stages, print_*, emit_torch: pto_compile_options's.
 *   modules: [(filename, text, constants[, entry_line])] the other modules (numbered
 *       from 1); imports: [(in, name, module, function)] (pto_import).
 *   text(program) -> the program's printed text after the last stage run.
 *   signature(program) -> ([(name, dtype name, shape, direction)], nresults):
 *       the compiled entry's parameters (pto_program_param; direction None
 *       for a scalar) and how many values it returns.
 *   stage_texts(program) -> [(n, name, text)]: the texts keep_stages kept,
 *       numbered from 1 (parse) in pipeline order.
 *   functions(program) -> a @pl.program entry's functions as written
 *       (pto_program_functions): (name, func_type, params, return types)
 *       per function, params (name, type text, direction) with None for
 *       what is absent.
 *   entries(program) -> the file's entries (pto_program_entry), in file order.
 *   function(program) -> (name or None, n): a @pl.program's method the
 *       compile goes through (pto_program_function) and how many
 *       Orchestration methods it has.
 *   config_check(fields: dict) -> dict of normalized values; raises the
 *       first violated rule's ValueError / TypeError (in docs/runconfig.md's order).
 *   run(program, who, specs, buffers, fields[, runtime]) -> None: runs the
 *       program (_C_run.c, which says more, also of runtime_new and
 *       runtime_close); the GIL is released while it runs.
 *   language_names(), language_pld_names() -> ((name, status, kind), ...) and language_enums()
 *       -> ((enum, ((member, value), ...)), ...): pypto.language's names
 *       and IntEnums (pto/language.h), which the package builds from these.
 *   pto_dtypes: the public pto_dtype names, by value (pto/compile.h).
 *   pto_dtype_stand_ins: {parameter dtype: the dtype of a tensor that binds to
 *       it in its place} ({"UINT16": "INT16", ...}, pto/compile.h).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "pto/compile.h"
#include "pto/config.h"
#include "pto/language.h"
#include "pto/version.h"

/* ---- Program ----------------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    pto_program *prog;
} py_program;

static void py_program_dealloc(py_program *self)
{
    pto_program_free(self->prog);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyTypeObject py_program_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "pypto._C.Program",
    .tp_basicsize = sizeof(py_program),
    .tp_dealloc = (destructor)py_program_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "a compiled (or failed) DSL program",
};

/* The pto_program of a Program object (also _C_run.c); NULL with TypeError otherwise. */
const pto_program *py_program_get(PyObject *o);
const pto_program *py_program_get(PyObject *o)
{
    if (!PyObject_TypeCheck(o, &py_program_type)) return PyErr_Format(PyExc_TypeError, "expected a pypto._C.Program"), NULL;
    return ((py_program *)o)->prog;
}

/* ---- compile ----------------------------------------------------------------------------- */

static const char *const py_dtype_names[] = {
#define PY_DTYPE_NAME_(n, size) #n,
    PTO_DTYPE_LIST(PY_DTYPE_NAME_)
#undef PY_DTYPE_NAME_
};

/* A Python value as a pto_value; strings stay owned by obj (also _C_run.c). */
int py_value(PyObject *obj, pto_value *v);
int py_value(PyObject *obj, pto_value *v)
{
    memset(v, 0, sizeof *v);
    if (PyBool_Check(obj)) {
        v->kind = PTO_VALUE_BOOL, v->i = obj == Py_True;
    } else if (PyLong_Check(obj)) {
        int overflow = 0;
        long long i = PyLong_AsLongLongAndOverflow(obj, &overflow);
        if (overflow) {
            PyErr_SetString(PyExc_OverflowError, "integer constant does not fit in 64 bits");
            return -1;
        }
        if (i == -1 && PyErr_Occurred()) return -1;
        v->kind = PTO_VALUE_INT, v->i = i;
    } else if (PyFloat_Check(obj)) {
        v->kind = PTO_VALUE_FLOAT, v->f = PyFloat_AsDouble(obj);
    } else if (PyUnicode_Check(obj)) {
        v->kind = PTO_VALUE_STR;
        if (!(v->s = PyUnicode_AsUTF8(obj))) return -1;
    } else {
        v->kind = PTO_VALUE_OBJECT, v->s = Py_TYPE(obj)->tp_name;
        const char *dot = strrchr(v->s, '.');
        if (dot) v->s = dot + 1;
    }
    return 0;
}

static const char *py_opt_str(PyObject *o)
{
    return o == Py_None ? NULL : PyUnicode_AsUTF8(o);
}

static int py_constants(PyObject *list, pto_constant *out, Py_ssize_t n)
{
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *item = PyList_GET_ITEM(list, k);
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 2) {
            PyErr_SetString(PyExc_TypeError, "constants must be (name, value) tuples");
            return -1;
        }
        if (!(out[k].name = PyUnicode_AsUTF8(PyTuple_GET_ITEM(item, 0)))) return -1;
        if (py_value(PyTuple_GET_ITEM(item, 1), &out[k].value)) return -1;
    }
    return 0;
}

/* An argument spec tuple as a pto_arg_spec (also _C_run.c); strings stay owned by item. */
int py_arg(PyObject *item, pto_arg_spec *sp);
int py_arg(PyObject *item, pto_arg_spec *sp)
{
    memset(sp, 0, sizeof *sp);
    const char *kind;
    if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) < 3 || !(kind = PyUnicode_AsUTF8(PyTuple_GET_ITEM(item, 0)))) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "an argument spec must be a tuple");
        return -1;
    }
    if (!(sp->name = PyUnicode_AsUTF8(PyTuple_GET_ITEM(item, 1)))) return -1;
    if (!strcmp(kind, "scalar")) {
        sp->kind = PTO_ARG_SCALAR;
        return py_value(PyTuple_GET_ITEM(item, 2), &sp->value);
    }
    if (!strcmp(kind, "runtime")) { /* ("runtime", name, None): pl.RUNTIME */
        sp->kind = PTO_ARG_SCALAR, sp->value.kind = PTO_VALUE_RUNTIME;
        return 0;
    }
    const char *dt;
    PyObject *shape;
    if (strcmp(kind, "tensor") || PyTuple_GET_SIZE(item) != 4 || !(dt = PyUnicode_AsUTF8(PyTuple_GET_ITEM(item, 2))) ||
        !PyTuple_Check(shape = PyTuple_GET_ITEM(item, 3))) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "bad tensor argument spec");
        return -1;
    }
    sp->kind = PTO_ARG_TENSOR;
    int found = 0;
    for (size_t k = 0; k < sizeof py_dtype_names / sizeof py_dtype_names[0]; k++)
        if (!strcmp(py_dtype_names[k], dt)) sp->dtype = (pto_dtype)k, found = 1;
    if (!found) {
        PyErr_Format(PyExc_ValueError, "unknown dtype '%s'", dt);
        return -1;
    }
    Py_ssize_t r = PyTuple_GET_SIZE(shape);
    /* Rank outside 1..4 goes to the compiler, which names the parameter. */
    sp->rank = r > 4 ? 5 : (int)r;
    for (Py_ssize_t d = 0; d < r && d < 4; d++) {
        sp->shape[d] = PyLong_AsLongLong(PyTuple_GET_ITEM(shape, d));
        if (sp->shape[d] == -1 && PyErr_Occurred()) return -1;
    }
    return 0;
}

static PyObject *py_opt_text(const char *s) { return s ? PyUnicode_FromString(s) : Py_NewRef(Py_None); }

static PyObject *py_diags(pto_program *prog)
{
    size_t n = pto_program_diag_count(prog);
    PyObject *list = PyList_New((Py_ssize_t)n);
    if (!list) return NULL;
    size_t cap = 1 << 16;
    char *buf = PyMem_Malloc(cap);
    if (!buf) return Py_DECREF(list), PyErr_NoMemory();
    for (size_t k = 0; k < n; k++) {
        const pto_diagnostic *d = pto_program_diag(prog, k);
        size_t len = pto_program_diag_format(prog, k, buf, cap);
        if (len >= cap) len = cap - 1;
        PyObject *t = Py_BuildValue("(sNNNiiiiNs#)", d->cls, py_opt_text(d->message), py_opt_text(d->hint),
                                    py_opt_text(d->filename), d->line, d->column, d->end_line, d->end_column,
                                    PyBool_FromLong(d->is_warning), buf, (Py_ssize_t)len);
        if (!t) return PyMem_Free(buf), Py_DECREF(list), NULL;
        PyList_SET_ITEM(list, (Py_ssize_t)k, t);
    }
    PyMem_Free(buf);
    return list;
}

/* The other modules and the imports of a compile: strings stay owned by
 * the lists, the arrays are PyMem's (freed by py_modules_free). */
typedef struct py_modules {
    pto_module *mods;
    pto_constant **consts;
    Py_ssize_t n;
    pto_import *imports;
} py_modules;

static void py_modules_free(py_modules *m)
{
    for (Py_ssize_t k = 0; m->consts && k < m->n; k++) PyMem_Free(m->consts[k]);
    PyMem_Free(m->consts), PyMem_Free(m->mods), PyMem_Free(m->imports);
}

static int py_read_modules(PyObject *modules, PyObject *imports, py_modules *out, pto_compile_options *o)
{
    Py_ssize_t n = PyList_GET_SIZE(modules), ni = PyList_GET_SIZE(imports);
    out->mods = PyMem_Calloc((size_t)n + 1, sizeof *out->mods);
    out->consts = PyMem_Calloc((size_t)n + 1, sizeof *out->consts);
    out->imports = PyMem_Calloc((size_t)ni + 1, sizeof *out->imports);
    out->n = n;
    if (!out->mods || !out->consts || !out->imports) return PyErr_NoMemory(), -1;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *item = PyList_GET_ITEM(modules, k), *text, *cs;
        const char *file;
        int entry_line = 0;
        if (!PyArg_ParseTuple(item, "sUO!|i;a module must be (filename, text, constants[, entry_line])", &file, &text, &PyList_Type, &cs,
                              &entry_line))
            return -1;
        out->mods[k].entry_line = entry_line;
        Py_ssize_t len, nc = PyList_GET_SIZE(cs);
        if (!(out->mods[k].source = PyUnicode_AsUTF8AndSize(text, &len))) return -1;
        if (!(out->consts[k] = PyMem_Calloc((size_t)nc + 1, sizeof **out->consts))) return PyErr_NoMemory(), -1;
        if (py_constants(cs, out->consts[k], nc)) return -1;
        out->mods[k].filename = file, out->mods[k].source_len = (size_t)len;
        out->mods[k].constants = out->consts[k], out->mods[k].nconstants = (size_t)nc;
    }
    for (Py_ssize_t k = 0; k < ni; k++) {
        pto_import *im = &out->imports[k];
        if (!PyArg_ParseTuple(PyList_GET_ITEM(imports, k), "IsIs;an import must be (in, name, module, function)", &im->in,
                              &im->name, &im->module, &im->function))
            return -1;
    }
    o->modules = out->mods, o->nmodules = (size_t)n, o->imports = out->imports, o->nimports = (size_t)ni;
    return 0;
}

static PyObject *py_compile(PyObject *mod, PyObject *args, PyObject *kw)
{
    (void)mod;
    PyObject *source, *entry, *function, *constants, *specs, *stop, *modules = NULL, *imports = NULL;
    const char *filename;
    int first_line, first_column, entry_line = 0, signature = 0, keep_stages = 0, concise = 0, torch = 0;
    const char *prefix = NULL, *alone = NULL;
    static char *kws[] = {"source", "filename", "first_line", "first_column", "entry", "function", "constants", "args", "stop_after",
                          "entry_line", "signature", "keep_stages", "print_prefix", "print_concise", "print_function", "emit_torch",
                          "modules", "imports", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "UsiiOOO!O!O|$iipzpziO!O!", kws, &source, &filename, &first_line, &first_column, &entry,
                                     &function, &PyList_Type, &constants, &PyList_Type, &specs, &stop, &entry_line, &signature,
                                     &keep_stages, &prefix, &concise, &alone, &torch, &PyList_Type, &modules, &PyList_Type, &imports))
        return NULL;
    pto_compile_options o = {.filename = filename, .first_line = first_line, .first_column = first_column,
                             .entry_line = entry_line, .signature = signature, .keep_stages = keep_stages,
                             .print_prefix = prefix, .print_concise = concise, .print_function = alone, .emit_torch = torch};
    Py_ssize_t len;
    if (!(o.source = PyUnicode_AsUTF8AndSize(source, &len))) return NULL;
    o.source_len = (size_t)len;
    if ((entry != Py_None && !(o.entry = py_opt_str(entry))) || (function != Py_None && !(o.function = py_opt_str(function))))
        return NULL;
    if (stop != Py_None) {
        const char *s = PyUnicode_AsUTF8(stop);
        if (!s) return NULL;
        int st = pto_stage_lookup(s);
        if (st < 0) return PyErr_Format(PyExc_ValueError, "unknown stage '%s'", s);
        o.stop_after = st;
    }
    Py_ssize_t nc = PyList_GET_SIZE(constants), na = PyList_GET_SIZE(specs);
    pto_constant *cs = PyMem_Calloc((size_t)nc + 1, sizeof *cs);
    pto_arg_spec *as = PyMem_Calloc((size_t)na + 1, sizeof *as);
    PyObject *result = NULL, *none = PyList_New(0);
    py_modules mods = {0};
    if (!cs || !as || !none) {
        if (!PyErr_Occurred()) PyErr_NoMemory();
        goto done;
    }
    if (py_read_modules(modules ? modules : none, imports ? imports : none, &mods, &o)) goto done;
    if (py_constants(constants, cs, nc)) goto done;
    for (Py_ssize_t k = 0; k < na; k++)
        if (py_arg(PyList_GET_ITEM(specs, k), &as[k])) goto done;
    o.constants = cs, o.nconstants = (size_t)nc, o.args = as, o.nargs = (size_t)na;

    pto_program *prog = NULL;
    int rc = pto_compile(&o, &prog);
    if (rc < 0 || !prog) {
        pto_program_free(prog);
        PyErr_NoMemory();
        goto done;
    }
    py_program *h = PyObject_New(py_program, &py_program_type);
    if (!h) {
        pto_program_free(prog);
        goto done;
    }
    h->prog = prog;
    PyObject *diags = py_diags(prog);
    if (!diags) {
        Py_DECREF(h);
        goto done;
    }
    result = Py_BuildValue("(NN)", (PyObject *)h, diags);
done:
    py_modules_free(&mods);
    Py_XDECREF(none);
    PyMem_Free(cs);
    PyMem_Free(as);
    return result;
}

static PyObject *py_text(PyObject *mod, PyObject *arg)
{
    (void)mod;
    if (!PyObject_TypeCheck(arg, &py_program_type)) return PyErr_Format(PyExc_TypeError, "expected a pypto._C.Program");
    return PyUnicode_FromString(pto_program_text(((py_program *)arg)->prog));
}

static PyObject *py_function(PyObject *mod, PyObject *arg)
{
    (void)mod;
    if (!PyObject_TypeCheck(arg, &py_program_type)) return PyErr_Format(PyExc_TypeError, "expected a pypto._C.Program");
    unsigned n;
    const char *f = pto_program_function(((py_program *)arg)->prog, &n);
    return Py_BuildValue("(zI)", f, n);
}

/* ((name, func_type, ((name, type, direction), ...), (return type, ...)), ...) */
static PyObject *py_functions(PyObject *mod, PyObject *arg)
{
    (void)mod;
    if (!PyObject_TypeCheck(arg, &py_program_type)) return PyErr_Format(PyExc_TypeError, "expected a pypto._C.Program");
    const pto_function_info *fs;
    size_t n = pto_program_functions(((py_program *)arg)->prog, &fs);
    PyObject *t = PyTuple_New((Py_ssize_t)n);
    for (size_t k = 0; t && k < n; k++) {
        PyObject *params = PyTuple_New((Py_ssize_t)fs[k].nparams), *rets = PyTuple_New((Py_ssize_t)fs[k].nreturns);
        for (size_t j = 0; params && j < fs[k].nparams; j++) {
            const pto_param_info *p = &fs[k].params[j];
            PyObject *row = Py_BuildValue("(szz)", p->name, p->type, p->direction);
            if (!row) Py_CLEAR(params);
            else PyTuple_SET_ITEM(params, (Py_ssize_t)j, row);
        }
        for (size_t j = 0; rets && j < fs[k].nreturns; j++) {
            PyObject *s = PyUnicode_FromString(fs[k].return_types[j]);
            if (!s) Py_CLEAR(rets);
            else PyTuple_SET_ITEM(rets, (Py_ssize_t)j, s);
        }
        PyObject *row = params && rets ? Py_BuildValue("(ssNN)", fs[k].name, fs[k].func_type, params, rets) : NULL;
        if (!row) {
            Py_XDECREF(params), Py_XDECREF(rets);
            return Py_DECREF(t), NULL;
        }
        PyTuple_SET_ITEM(t, (Py_ssize_t)k, row);
    }
    return t;
}

static PyObject *py_entries(PyObject *mod, PyObject *arg)
{
    (void)mod;
    if (!PyObject_TypeCheck(arg, &py_program_type)) return PyErr_Format(PyExc_TypeError, "expected a pypto._C.Program");
    size_t n = 0;
    while (pto_program_entry(((py_program *)arg)->prog, n)) n++;
    PyObject *t = PyTuple_New((Py_ssize_t)n);
    for (size_t k = 0; t && k < n; k++) {
        PyObject *s = PyUnicode_FromString(pto_program_entry(((py_program *)arg)->prog, k));
        if (!s) return Py_DECREF(t), NULL;
        PyTuple_SET_ITEM(t, (Py_ssize_t)k, s);
    }
    return t;
}

static PyObject *py_listing(PyObject *mod, PyObject *arg)
{
    (void)mod;
    if (!PyObject_TypeCheck(arg, &py_program_type)) return PyErr_Format(PyExc_TypeError, "expected a pypto._C.Program");
    return PyUnicode_FromString(pto_program_listing(((py_program *)arg)->prog));
}

static const char *const py_directions[] = {NULL, "In", "Out", "InOut"};

static PyObject *py_signature(PyObject *mod, PyObject *arg)
{
    (void)mod;
    const pto_program *p = py_program_get(arg);
    if (!p) return NULL;
    PyObject *params = PyList_New(0);
    pto_param pp;
    for (size_t i = 0; params && pto_program_param(p, i, &pp); i++) {
        PyObject *shape = PyTuple_New(pp.rank);
        for (int d = 0; shape && d < pp.rank; d++) PyTuple_SET_ITEM(shape, d, PyLong_FromLongLong(pp.shape[d]));
        PyObject *row = shape ? Py_BuildValue("(ssNz)", pp.name, py_dtype_names[pp.dtype], shape,
                                              py_directions[pp.direction & 3]) : NULL;
        if (!row || PyList_Append(params, row) < 0) Py_CLEAR(params);
        Py_XDECREF(row);
    }
    return params ? Py_BuildValue("(Ni)", params, pto_program_nresults(p)) : NULL;
}

static PyObject *py_stage_texts(PyObject *mod, PyObject *arg)
{
    (void)mod;
    const pto_program *p = py_program_get(arg);
    if (!p) return NULL;
    PyObject *list = PyList_New(0);
    for (int s = PTO_STAGE_PARSE; list && s < PTO_STAGE_LOWER; s++) {
        const char *text = pto_program_stage_text(p, (pto_stage)s);
        PyObject *row = text ? Py_BuildValue("(iss)", s - PTO_STAGE_SYNTAX, pto_stage_name((pto_stage)s), text) : NULL;
        if (text && (!row || PyList_Append(list, row) < 0)) Py_CLEAR(list);
        Py_XDECREF(row);
    }
    return list;
}

/* ---- the language's names and enums (pto/language.h) -------------------------------------- */

/* ((name, status, kind), ...) of one of the name tables. */
static PyObject *py_name_table(size_t n, pto_lang_name (*at)(size_t))
{
    PyObject *t = PyTuple_New((Py_ssize_t)n);
    for (size_t k = 0; t && k < n; k++) {
        pto_lang_name x = at(k);
        PyObject *row = Py_BuildValue("(sss)", x.name, x.status, x.kind);
        if (!row) return Py_DECREF(t), NULL;
        PyTuple_SET_ITEM(t, (Py_ssize_t)k, row);
    }
    return t;
}

static PyObject *py_language_names(PyObject *mod, PyObject *unused)
{
    (void)mod, (void)unused;
    return py_name_table(pto_lang_name_count(), pto_lang_name_at);
}

static PyObject *py_language_pld_names(PyObject *mod, PyObject *unused)
{
    (void)mod, (void)unused;
    return py_name_table(pto_lang_pld_name_count(), pto_lang_pld_name_at);
}

static PyObject *py_language_enums(PyObject *mod, PyObject *unused)
{
    (void)mod, (void)unused;
    size_t n;
    const pto_lang_enum *e = pto_lang_enums(&n);
    PyObject *t = PyTuple_New((Py_ssize_t)n);
    for (size_t k = 0; t && k < n; k++) {
        PyObject *members = PyTuple_New((Py_ssize_t)e[k].count);
        for (size_t m = 0; members && m < e[k].count; m++) {
            PyObject *row = Py_BuildValue("(si)", e[k].members[m].name, e[k].members[m].value);
            if (!row) Py_CLEAR(members);
            else PyTuple_SET_ITEM(members, (Py_ssize_t)m, row);
        }
        PyObject *row = members ? Py_BuildValue("(sN)", e[k].name, members) : NULL;
        if (!row) return Py_DECREF(t), NULL;
        PyTuple_SET_ITEM(t, (Py_ssize_t)k, row);
    }
    return t;
}

/* ---- config_check ------------------------------------------------------------------------ */

PyObject *py_config_check(PyObject *mod, PyObject *fields); /* _C_config.c */
PyObject *py_dist_config_check(PyObject *mod, PyObject *fields); /* _C_config.c */
PyObject *py_run(PyObject *mod, PyObject *args);               /* _C_run.c */
PyObject *py_runtime_new(PyObject *mod, PyObject *fields);     /* _C_run.c */
PyObject *py_runtime_close(PyObject *mod, PyObject *rt);       /* _C_run.c */
PyObject *py_comm_register_capsule(void);                      /* _C_run.c */
int py_runtime_ready(void);                                    /* _C_run.c */

static PyMethodDef py_methods[] = {
    {"compile", (PyCFunction)(void (*)(void))py_compile, METH_VARARGS | METH_KEYWORDS,
     "compile(source, filename, first_line, first_column, entry, function, constants, args, stop_after, *, entry_line=0, "
     "signature=0, keep_stages=False, print_prefix=None, print_concise=False, print_function=None, emit_torch=0)"},
    {"signature", py_signature, METH_O, "signature(program) -> ([(name, dtype, shape, direction or None), ...], number of results)"},
    {"stage_texts", py_stage_texts, METH_O, "stage_texts(program) -> [(number from 1 = parse, stage name, text), ...] kept by keep_stages"},
    {"text", py_text, METH_O, "text(program) -> the printed program after the last stage that ran"},
    {"function", py_function, METH_O, "function(program) -> (the method a program compiles through or None, Orchestration methods)"},
    {"functions", py_functions, METH_O, "functions(program) -> ((name, func_type, ((name, type, direction), ...), (return type, ...)), ...)"},
    {"entries", py_entries, METH_O, "entries(program) -> the file's @pl.jit functions and @pl.program classes, in file order"},
    {"listing", py_listing, METH_O, "listing(program) -> the lowered program's listing"},
    {"config_check", py_config_check, METH_O, "config_check(fields) -> normalized fields, or raises"},
    {"dist_config_check", py_dist_config_check, METH_O, "dist_config_check(fields): DistributedConfig's rules, or raises"},
    {"run", py_run, METH_VARARGS, "run(program, who, specs, buffers, fields[, runtime]) -> None, or raises"},
    {"runtime_new", py_runtime_new, METH_O, "runtime_new(fields) -> Runtime: a runtime of its own (a ChipWorker's)"},
    {"runtime_close", py_runtime_close, METH_O, "runtime_close(runtime) -> None: destroys it (idempotent)"},
    {"language_names", py_language_names, METH_NOARGS, "language_names() -> ((name, status, kind), ...): every pl name"},
    {"language_pld_names", py_language_pld_names, METH_NOARGS,
     "language_pld_names() -> ((name, status, kind), ...): every pld name (\"tensor.put\", \"world_size\")"},
    {"language_enums", py_language_enums, METH_NOARGS, "language_enums() -> ((enum, ((member, value), ...)), ...)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef py_module = {PyModuleDef_HEAD_INIT, "pypto._C", "pypto's C extension", -1, py_methods,
                                       NULL, NULL, NULL, NULL};

#define PY_STAND_IN_FMT_(p, a) "ss"
#define PY_STAND_IN_ARGS_(p, a) , #p, #a

PyMODINIT_FUNC PyInit__C(void)
{
    if (PyType_Ready(&py_program_type) < 0 || py_runtime_ready() < 0) return NULL;
    PyObject *m = PyModule_Create(&py_module);
    if (!m) return NULL;
    if (PyModule_AddObjectRef(m, "Program", (PyObject *)&py_program_type) < 0) return Py_DECREF(m), NULL;
    if (PyModule_AddStringConstant(m, "version", pto_version_string()) < 0) return Py_DECREF(m), NULL;
    PyObject *dtypes = PyTuple_New(sizeof py_dtype_names / sizeof py_dtype_names[0]);
    for (size_t k = 0; dtypes && k < sizeof py_dtype_names / sizeof py_dtype_names[0]; k++) {
        PyObject *name = PyUnicode_FromString(py_dtype_names[k]);
        if (!name) Py_CLEAR(dtypes);
        else PyTuple_SET_ITEM(dtypes, (Py_ssize_t)k, name);
    }
    int rc = dtypes ? PyModule_AddObjectRef(m, "pto_dtypes", dtypes) : -1;
    Py_XDECREF(dtypes);
    if (rc < 0) return Py_DECREF(m), NULL;
    PyObject *stand = Py_BuildValue("{" PTO_DTYPE_STAND_IN_LIST(PY_STAND_IN_FMT_) "}" PTO_DTYPE_STAND_IN_LIST(PY_STAND_IN_ARGS_));
    rc = stand ? PyModule_AddObjectRef(m, "pto_dtype_stand_ins", stand) : -1;
    Py_XDECREF(stand);
    if (rc < 0) return Py_DECREF(m), NULL;
    PyObject *comm = py_comm_register_capsule(); /* _C_run.c: pypto._C_mpi registers its transport through it */
    rc = comm ? PyModule_AddObjectRef(m, "comm_register", comm) : -1;
    Py_XDECREF(comm);
    if (rc < 0) return Py_DECREF(m), NULL;
    return m;
}
