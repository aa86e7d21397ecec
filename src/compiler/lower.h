/*
 * lower.h - stage 7: a verified program as the register-machine code of
 * program.h, which the executor interprets.
 */
#ifndef CC_LOWER_H
#define CC_LOWER_H

#include "base/arena.h"
#include "compiler/ir.h"
#include "compiler/program.h"

/* Lowers p (after stage 6) into *out, allocated in a.  Returns 0, or -1
 * after recording an InternalError in p->diags (a construct the earlier
 * stages should have removed, or out of memory). */
int cc_lower(const cc_ir_program *p, base_arena *a, cc_lowered **out);

/* Checks l against what the executor relies on (lower_check.c: operands
 * in range and of the right slot kind, registers of the dtype class their
 * instruction reads, jump targets, calls and submits matching their
 * callee, every slot written before it is read).  Returns 0, or -1 after
 * recording one InternalError "lowered program check: ..." in d. */
int cc_lower_check(const cc_lowered *l, cc_diags *d);

#endif
