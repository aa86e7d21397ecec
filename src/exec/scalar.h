/*
 * scalar.h - the scalar instructions of the lowered machine, shared by the
 * orchestration interpreter (orch_vm.c) and the tile VM (tile_vm.c) so a
 * scalar computes the same on the orchestrator and on a worker.  The
 * arithmetic itself is the compiler's (compiler/scalar.h), the one the
 * constant folder uses, so a folded expression and the same expression
 * run here agree bit for bit.
 */
#ifndef EX_SCALAR_H
#define EX_SCALAR_H

#include <stdint.h>

#include "compiler/program.h"
#include "compiler/scalar.h"

/* A register's 64 bits: int64 for the integer dtypes, BOOL and TASK_ID;
 * double for the float dtypes. */
typedef cc_scalar ex_reg;

/* CONST: rdst = u.imm, the 64 bits of .i or .f alike. */
static inline void ex_const(ex_reg *r, const cc_lo_insn *in) { r[in->dst].u = (uint64_t)in->u.imm.i; }

/* Executes in (CONST, MOV, CAST, BIN, UN or TRIPS) of procedure p on its
 * registers r: CAST is cc_scalar_cast, BIN cc_scalar_bin, UN cc_scalar_un.
 * Returns 0, or -1 with *why set: an integer division or modulo by zero, a
 * zero pl.range() step. */
int ex_scalar_step(const cc_lo_proc *p, ex_reg *r, const cc_lo_insn *in, const char **why);

/* len(range(start, stop, step)); step != 0. */
int64_t ex_trips(int64_t start, int64_t stop, int64_t step);

#endif
