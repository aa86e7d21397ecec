/*
 * run.c - pto_program_run (pto/run.h): bind the arguments, run the
 * orchestration with the tile VM as every task's kernel, finish.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/program.h"
#include "exec/orch_vm.h"
#include "exec/tile_vm.h"
#include "pto/run.h"

int pto_program_run(pto_runtime *rt, const pto_program *p, const pto_run_arg *args, size_t nargs, pto_error *err)
{
    if (err) memset(err, 0, sizeof *err), err->ring = -1;
    if (!rt) {
        if (err) err->code = PTO_INVALID_ARGS, snprintf(err->message, sizeof err->message, "pto_program_run: runtime is NULL");
        return -PTO_INVALID_ARGS;
    }
    const cc_lowered *l = cc_program_lowered(p);
    uint32_t n = l && l->nprocs ? l->procs[0].nparams : 0;
    ex_value *params = calloc(n ? n : 1, sizeof *params);
    if (!params) {
        if (err) err->code = PTO_INVALID_ARGS, snprintf(err->message, sizeof err->message, "pto_program_run: out of memory");
        return -PTO_INVALID_ARGS;
    }
    int rc = ex_bind(l, args, nargs, params, err);
    if (rc == 0) {
        rc = ex_orch_run(rt, l, ex_tile_run, params, n);
        if (rc && err) *err = *pto_runtime_error(rt);
    }
    free(params);
    return rc;
}
