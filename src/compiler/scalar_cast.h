/*
 * scalar_cast.h - one scalar value converted from one dtype to another:
 * the single rule behind pl.cast of a scalar (folded by the type checker
 * when the value is a constant, run by both VMs otherwise, exec/scalar.c)
 * and behind the value of a specialized scalar argument (typecheck.c).
 * It is the tile cast's rule (tile/tile_cast.c) applied to one value, so a
 * scalar and a tile element convert alike.  A float register's double is
 * the exact value (a Python float argument too); FP16/BF16 values are
 * exact in it.
 */
#ifndef CC_SCALAR_CAST_H
#define CC_SCALAR_CAST_H

#include <stdint.h>

#include "compiler/ir.h"

/* A scalar's 64 bits: int64 for the integer dtypes, BOOL and TASK_ID;
 * double for the float dtypes (FP16/BF16 values are exact in it). */
typedef union cc_scalar {
    int64_t i;
    double f;
    uint64_t u;
} cc_scalar;

/* The range of integer dtype d: INT32, INT8; BOOL 0..1; INDEX and TASK_ID int64. */
void cc_dtype_int_range(cc_dtype d, int64_t *lo, int64_t *hi);

/* a, of dtype from, as dtype to:
 *  - to a float dtype: the nearest value, ties to even, in one rounding
 *    (past the largest finite value: inf; NaN stays NaN);
 *  - float to an integer dtype: NaN -> 0, else rounded by mode and
 *    saturated to to's range;
 *  - integer to integer: saturated;
 *  - to BOOL: a != 0. */
cc_scalar cc_scalar_cast(cc_dtype from, cc_dtype to, cc_cast_mode mode, cc_scalar a);

/* Does a, of dtype from, convert to dtype to within its range?  An integer
 * dtype: a is an integer in the range (a float never fits one); a float
 * dtype: the value rounds to a finite one (an inf or NaN given stays what
 * it is). */
int cc_scalar_fits(cc_dtype from, cc_dtype to, cc_scalar a);

/* Is e a constant scalar (an int, bool or float literal node)?  Then *v is its value. */
int cc_scalar_of(const cc_ir_expr *e, cc_scalar *v);
/* The constant of dtype d holding v (a float, bool or int literal node), in a; NULL when out of memory. */
cc_ir_expr *cc_scalar_expr(base_arena *a, cc_dtype d, cc_scalar v, cc_span sp);

#endif
