/*
 * _C_mpi.c - pypto._C_mpi: the MPI session of a pypto process
 * (DISTRIBUTED-SPEC §2.2, §4.3).  Imported lazily by pypto._dist at the
 * first distributed compile or call under mpirun, so `import pypto` never
 * loads libmpi.
 *
 * This module carries its own copy of libpto; the copy that runs the calls
 * is pypto._C's.  So the transport is registered through pypto._C's capsule
 * "pypto._C.comm_register", whose pointer is libpto's rt_comm_register
 * (void (*)(const rt_comm_ops *, void *)), never through this module's copy.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "pto/mpi.h"

typedef void (*comm_register_fn)(const void *ops, void *session);

/* pypto.runtime's exception for err: DistributedUnavailableError for MPI
 * below SERIALIZED (§3 row 8), PTORuntimeError(message, code) otherwise. */
static PyObject *mpi_raise(const pto_error *err)
{
    PyObject *errors = PyImport_ImportModule("pypto._errors");
    if (!errors) return NULL;
    const char *name = err->code == PTO_INVALID_ARGS ? "DistributedUnavailableError" : "PTORuntimeError";
    PyObject *cls = PyObject_GetAttrString(errors, name);
    Py_DECREF(errors);
    if (!cls) return NULL;
    PyObject *exc = PyObject_CallFunction(cls, "si", err->message, err->code);
    if (exc) PyErr_SetObject(cls, exc);
    Py_XDECREF(exc);
    Py_DECREF(cls);
    return NULL;
}

static PyObject *mpi_init(PyObject *self, PyObject *args)
{
    (void)self;
    static int registered;
    const char *call = NULL;
    if (!PyArg_ParseTuple(args, "|z", &call)) return NULL;
    comm_register_fn reg = (comm_register_fn)PyCapsule_Import("pypto._C.comm_register", 0);
    if (!reg) return NULL;
    pto_dist_info info;
    pto_error err;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = pto_dist_start(MPI_COMM_WORLD, call, &info, &err);
    Py_END_ALLOW_THREADS
    if (rc < 0) return mpi_raise(&err);
    if (!registered) {
        void *session;
        const void *ops = pto_dist_transport(&session);
        reg(ops, session);
        registered = 1;
    }
    return Py_BuildValue("(iiidi)", info.rank, info.size, info.local_size, info.start_time, info.mask_sharers);
}

static PyMethodDef mpi_methods[] = {
    {"init", mpi_init, METH_VARARGS,
     "init(call=None) -> (rank, size, local_size, rank0_start_time, mask_sharers): starts the process's MPI "
     "session (once; later calls return the same; bounded by PTO_DIST_ENTRY_TIMEOUT_S, whose timeout names "
     "call, \"call #<k> of '<f>'\") and registers its transport with pypto._C. mask_sharers: the "
     "local ranks whose CPU affinity mask equals this rank's (D18)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef mpi_module = {
    PyModuleDef_HEAD_INIT, "pypto._C_mpi", "pypto's MPI session (DISTRIBUTED-SPEC §2.2).", -1, mpi_methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__C_mpi(void) { return PyModule_Create(&mpi_module); }
