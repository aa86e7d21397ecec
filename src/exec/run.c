/*
 * run.c - pto_program_run (pto/run.h): bind the arguments, run the
 * orchestration with the tile VM as every task's kernel, finish (a host
 * program: one distributed call, host_interp.h).  Errors
 * found before the runtime runs anything (no runtime, memory for the
 * arguments or the interpreter's frames) are reported here; every other
 * is the runtime's latched error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/program.h"
#include "exec/host_interp.h"
#include "exec/orch_vm.h"
#include "exec/tile_vm.h"
#include "pto/run.h"

static int run_error(pto_error *err, int code, const char *what)
{
    if (err) err->code = code, snprintf(err->message, sizeof err->message, "pto_program_run: %s", what);
    return -code;
}

int pto_program_run(pto_runtime *rt, const pto_program *p, const pto_run_arg *args, size_t nargs, pto_error *err)
{
    return pto_program_run_dist(rt, p, args, nargs, NULL, err);
}

int pto_program_run_dist(pto_runtime *rt, const pto_program *p, const pto_run_arg *args, size_t nargs, const pto_run_dist *dist,
                         pto_error *err)
{
    if (err) memset(err, 0, sizeof *err), err->ring = -1;
    if (!rt) return run_error(err, PTO_INVALID_ARGS, "runtime is NULL");
    const cc_lowered *l = cc_program_lowered(p);
    uint32_t n = l && l->nprocs ? l->procs[0].nparams : 0;
    ex_value *params = calloc(n ? n : 1, sizeof *params);
    if (!params) return run_error(err, PTO_OUT_OF_MEMORY, "out of memory for the arguments");
    int rc = ex_bind(l, args, nargs, params, err);
    if (rc == 0 && l->procs[0].kind == CC_LO_HOST) {
        rc = ex_host_run(rt, l, params, n, dist, err);
    } else if (rc == 0) {
        rc = ex_orch_run(rt, l, ex_tile_run, params, n);
        if (rc == -PTO_OUT_OF_MEMORY) run_error(err, PTO_OUT_OF_MEMORY, "out of memory for the interpreter's frames");
        else if (rc && err) *err = *pto_runtime_error(rt);
    }
    free(params);
    return rc;
}
