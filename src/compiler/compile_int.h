/*
 * compile_int.h - what the executor needs of a compiled program beyond
 * pto/compile.h: its lowered code.
 */
#ifndef CC_COMPILE_INT_H
#define CC_COMPILE_INT_H

#include "compiler/lower.h"
#include "pto/compile.h"

/* p's lowered program (owned by p), or NULL when p is NULL, did not reach
 * PTO_STAGE_LOWER or has errors. */
const cc_lowered *cc_program_lowered(const pto_program *p);

#endif
