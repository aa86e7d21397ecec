/*
 * scalar.h - the scalar instructions of the lowered machine, shared by the
 * orchestration interpreter (orch_vm.c) and the tile VM (tile_vm.c) so a
 * scalar computes the same on the orchestrator and on a worker.
 */
#ifndef EX_SCALAR_H
#define EX_SCALAR_H

#include <stdint.h>

#include "compiler/program.h"
#include "compiler/scalar_cast.h"

/* A register's 64 bits: int64 for the integer dtypes, BOOL and TASK_ID;
 * double for the float dtypes.  CAST is cc_scalar_cast, the rule the type
 * checker folds constants by. */
typedef cc_scalar ex_reg;

/* Executes in (CONST, MOV, CAST, BIN, UN or TRIPS) of procedure p on its
 * registers r.  Returns 0, or -1 with *why set: an integer division or
 * modulo by zero, a zero pl.range() step. */
int ex_scalar_step(const cc_lo_proc *p, ex_reg *r, const cc_lo_insn *in, const char **why);

/* The operations it is made of.  a <op> b in dtype (ints wrap to the
 * dtype; // and % floor like Python; compares and AND/OR give 0/1):
 * 0, or -1 for an integer division or modulo by zero. */
int ex_scalar_bin(cc_op op, cc_dtype dtype, ex_reg a, ex_reg b, ex_reg *out);
/* len(range(start, stop, step)); step != 0. */
int64_t ex_trips(int64_t start, int64_t stop, int64_t step);

/* Is register x, of dtype, zero (a false condition)? */
static inline int ex_reg_is_zero(ex_reg x, cc_dtype dtype) { return cc_dtype_is_float(dtype) ? x.f == 0 : x.i == 0; }

#endif
