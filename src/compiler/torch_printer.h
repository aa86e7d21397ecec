/*
 * torch_printer.h - the post-pass IR as executable torch source
 * (pypto.debug.torch_codegen; DSL-V2-SPEC §2 I-tc): `import torch`, one
 * `def` per Orchestration function with its kernels nested in it as torch
 * ops.  Run on the caller's torch tensors it computes what the program
 * computes: element-wise ops and casts bit for bit, reductions and matmul
 * to rounding.  torch_printer.c says which ops translate.
 */
#ifndef CC_TORCH_PRINTER_H
#define CC_TORCH_PRINTER_H

#include "base/strbuf.h"
#include "compiler/ir.h"

/* Appends p's torch source to out; check_shapes adds an assert on every
 * tensor parameter's shape.  Returns 0, or -1 after reporting (p->diags)
 * the first op with no torch translation (out is then to be discarded);
 * out->oom tells of a failure. */
int cc_print_torch(const cc_ir_program *p, int check_shapes, base_strbuf *out);

#endif
