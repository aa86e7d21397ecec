/*
 * torch_int.h - what the torch printer's two files share (torch_printer.c:
 * statements, functions and operands; torch_ops.c: one op as a torch
 * expression).  Internal to pypto.debug.torch_codegen.
 */
#ifndef CC_TORCH_INT_H
#define CC_TORCH_INT_H

#include <stdint.h>

#include "base/strbuf.h"
#include "base/strmap.h"
#include "compiler/ir.h"

typedef struct tp {
    base_strbuf *out;
    cc_diags *d;
    const cc_ir_program *p;
    int failed;
    base_strmap narrowed; /* the function's tile variables whose valid region may be smaller than their
                           * shape (cc_type.partial is not joined across a loop's back edge: a swap
                           * in a loop body moves a narrowed tile into a name typed full) */
    int changed;
} tp;

/* `(lambda <params>: <body>)(` ... the caller prints the arguments and `)`. */
#define CROP_TO(x, y) x "[tuple(slice(0, min(p, q)) for p, q in zip(" x ".shape, " y ".shape))]"
/* x padded with value v (a Python expression) to the shape list S. */
#define PAD_TO(x) "torch.nn.functional.pad(" x ", [w for p, s in reversed(list(zip(" x ".shape, S))) for w in (0, s - p)], value=v)"
#define partial(e) tp_narrowed(&t->narrowed, (e))

/* Reports e as an op with no torch translation; the print stops. */
void tp_no_translation(tp *t, const cc_ir_expr *e);
void tp_expr(tp *t, const cc_ir_expr *e);
/* xs, comma-separated. */
void tp_exprs(tp *t, cc_ir_expr *const *xs, uint32_t n);
/* x's window at offs (a LIST): extent d is ext's item d (ext a LIST), else
 * `<named>.shape[d]` (named not NULL), else shape[d] (torch_printer.c). */
void tp_window(tp *t, const cc_ir_expr *x, const cc_ir_expr *offs, const int64_t *shape, unsigned rank,
               const cc_ir_expr *ext, const char *named);
/* Are offs rank offsets a window can take? */
int tp_window_ok(const cc_ir_expr *offs, unsigned rank);
/* May e (a tile) have a valid region smaller than its shape, given the narrowed names m? */
int tp_narrowed(const base_strmap *m, const cc_ir_expr *e);
/* torch_ops.c: the op e (CC_X_OP). */
void tp_op(tp *t, const cc_ir_expr *e);
/* A list of ty's extents ("[16, 32]"). */
void tp_shape_list(tp *t, const cc_type *ty);
/* x padded with the pad value of mode (a pl.PadValue) to shape (PAD_TO). */
void tp_padded(tp *t, const cc_ir_expr *x, const cc_type *shape, int mode, uint8_t dt);

#endif
