/*
 * scalar.h - the language's scalar arithmetic on values: one scalar of a
 * dtype, its conversion to another dtype, and every scalar operator.  The
 * one implementation: the type checker and cc_ir_fold fold constants with
 * it, both VMs (exec/scalar.c) run it, so a folded expression and the same
 * expression computed at run time agree bit for bit (docs/dsl.md, "Scalar
 * arithmetic").  A leaf of the compiler: it includes only types.h, so the
 * executor reads it without the IR.
 *
 * Values: int64 for the integer dtypes, BOOL (0/1) and TASK_ID; double for
 * the float dtypes.  A float value holds what it was given (a literal's
 * written value) until an operation computes it: every operation computes
 * in double and rounds its result to FP32 once.
 *
 * Conversions are the tile cast's rule (tile/tile_cast.c) applied to one
 * value, so a scalar and a tile element convert alike.
 */
#ifndef CC_SCALAR_H
#define CC_SCALAR_H

#include <stdint.h>

#include "compiler/types.h"

/* A scalar's 64 bits: int64 for the integer dtypes, BOOL and TASK_ID;
 * double for the float dtypes (FP16/BF16 values are exact in it). */
typedef union cc_scalar {
    int64_t i;
    double f;
    uint64_t u;
} cc_scalar;

/* The range of integer dtype d: INT32, INT16, INT8; UINT32, UINT16, UINT8 from 0; BOOL 0..1; INDEX, INT64 and TASK_ID int64. */
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

/* a, of dtype from, read as an operand of dtype to, as the VMs read a
 * register: converted (cc_scalar_cast, mode round) when one dtype is a
 * float and the other not; else as it is, since the integer dtypes share
 * int64 and the float dtypes double (an FP32 operand is not rounded). */
cc_scalar cc_scalar_operand(cc_dtype from, cc_dtype to, cc_scalar a);

/* Python's a // b of integers (b != 0): the quotient rounded toward
 * negative infinity; INT64_MIN // -1 wraps to INT64_MIN. */
int64_t cc_floordiv(int64_t a, int64_t b);

/* The dtype binary operator op computes in when its operands have dtypes l
 * and r (each converted to it first, by cc_scalar_cast): FP32 when either
 * is a float or op is /, else INDEX (INT32, INT8 and BOOL widen, as FP16
 * and BF16 do to FP32). */
cc_dtype cc_scalar_bin_dtype(cc_op op, cc_dtype l, cc_dtype r);
/* The dtype of its result: BOOL for the compares and and/or, else the
 * dtype it computes in. */
cc_dtype cc_scalar_bin_result(cc_op op, cc_dtype l, cc_dtype r);

/* a <op> b, both of dtype (the dtype the operator computes in):
 *  - integers wrap to dtype's width; // and % floor like Python (the
 *    remainder takes the divisor's sign); / truncates (the type checker
 *    rejects it for integers; it is the tile op's rule);
 *  - floats: + - * / min max, // and % as Python's divmod (a float
 *    divisor of 0: a / b and NaN, as numpy), rounded to FP32;
 *  - compares and and/or give 0/1 (a float is true when != 0);
 *  - & | ^ on integers' two's complement bits; << and >> as Python's
 *    (>> floors), << wrapped: a count of 64 or more shifts every bit out.
 * Returns 0, or -1 for an integer division or modulo by zero or a negative
 * shift count (cc_scalar_bin_failure says which). */
int cc_scalar_bin(cc_op op, cc_dtype dtype, cc_scalar a, cc_scalar b, cc_scalar *out);
/* cc_scalar_bin's + - * and < of two INDEX operands, the arithmetic of loops and
 * boxes, inline (cc_scalar_bin runs it too): 1 with *out set, or 0 for any other
 * op or dtype. */
static inline int cc_scalar_bin_index(cc_op op, cc_dtype dtype, cc_scalar a, cc_scalar b, cc_scalar *out)
{
    if (dtype != CC_DT_INDEX) return 0;
    switch (op) {
    case CC_OP_ADD: out->u = a.u + b.u; return 1; /* wraps: INDEX is int64 */
    case CC_OP_SUB: out->u = a.u - b.u; return 1;
    case CC_OP_MUL: out->u = a.u * b.u; return 1;
    case CC_OP_LT: out->i = a.i < b.i; return 1;
    default: return 0;
    }
}
/* What makes integer op fail: "integer division by zero", "integer modulo by zero", "negative shift count". */
const char *cc_scalar_bin_failure(cc_op op);

/* <op> a, a of dtype: NEG in dtype (integers wrap; a float is negated
 * exactly), NOT (1 when a is 0 or 0.0, else 0), POS (a), INVERT (~a, integers). */
cc_scalar cc_scalar_un(cc_op op, cc_dtype dtype, cc_scalar a);

/* Is a, of dtype, zero (a false condition)? */
static inline int cc_scalar_is_zero(cc_scalar a, cc_dtype dtype) { return cc_dtype_is_float(dtype) ? a.f == 0 : a.i == 0; }

#endif
