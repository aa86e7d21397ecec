/*
 * compile_int.h - what the executor needs from a compiled program beyond
 * the public pto/compile.h: its lowered form.
 */
#ifndef CC_COMPILE_INT_H
#define CC_COMPILE_INT_H

#include "compiler/program.h"
#include "pto/compile.h"

/* p's lowered program, owned by p; NULL when p is NULL or a stage failed
 * (or the compile stopped before lowering). */
const cc_lowered *cc_program_lowered(const pto_program *p);

#endif
