/*
 * dim_expr.h - dimensions computed from DynVars: the `N * 2` of
 * pl.Tensor[[N * 2, 64], pl.FP32] (DSL-V2-SPEC §5 DY; docs/dsl.md,
 * "Dynamic shapes").
 *
 * Invariants: a derived dimension is the shape entry CC_DIM_DYN(sym) with
 * sym from CC_DIM_DERIVED0 on, one per distinct expression of a compile
 * (equal code, equal symbol), its text in type.dyn; its value is its
 * postfix code over DynVar extents and constants (Python's integer + - *
 * // %).  Everything that takes a dynamic dimension takes it (a kernel gets
 * the argument's extent); where its DynVars are known the extent is checked
 * against the code: each call of an entry (exec/bind.c), each task of a
 * kernel (exec/tile_vm.c).
 */
#ifndef CC_DIM_EXPR_H
#define CC_DIM_EXPR_H

#include <stdint.h>

#include "compiler/types.h"

#define CC_DIM_EXPR_MAX 16 /* code items of one expression */
#define CC_DIM_DERIVED0 ((int64_t)1 << 19)
#define CC_DIM_IS_DERIVED(v) ((v) <= CC_DIM_DYN(CC_DIM_DERIVED0) && (v) > CC_DIM_DYN(CC_DIM_RUNTIME0))

typedef enum cc_dx_op { CC_DX_CONST, CC_DX_DIM, CC_DX_ADD, CC_DX_SUB, CC_DX_MUL, CC_DX_FLOORDIV, CC_DX_MOD } cc_dx_op;

typedef struct cc_dx_item {
    uint8_t op;       /* cc_dx_op */
    int64_t v;        /* CONST: the value; DIM: the DynVar's shape entry */
    const char *name; /* DIM: the DynVar's name */
} cc_dx_item;

typedef struct cc_dim_expr {
    int64_t dim;      /* its shape entry, CC_DIM_DYN(sym) */
    const char *text; /* "N * 2" */
    uint8_t n;
    cc_dx_item code[CC_DIM_EXPR_MAX];
} cc_dim_expr;

/* The derived dimension of shape entry dim among dims[0..n), or NULL. */
const cc_dim_expr *cc_dim_expr_find(const cc_dim_expr *dims, uint32_t n, int64_t dim);

/* e's value, each DynVar's extent from extent(ctx, its shape entry, &v) (1: known, 0: not):
 * 1 with *out set; 0 when a DynVar is not known, on a division by zero or an overflow. */
int cc_dim_expr_eval(const cc_dim_expr *e, int (*extent)(void *ctx, int64_t dim, int64_t *v), void *ctx, int64_t *out);

#endif
