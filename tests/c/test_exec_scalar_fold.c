/*
 * test_exec_scalar_fold.c - one scalar arithmetic (compiler/scalar.h): a
 * constant expression the compiler folds and the same expression computed
 * at run time give the same 64 bits, for operands of every dtype (INT32,
 * INT8, INDEX, FP32, FP16, BF16, BOOL, and mixed), every operator (+ - *
 * / // % min max, the compares, and/or, & | ^ << >>, unary -, ~ and not), and the named
 * floor-division cases (-4 // 2, -4 % 2, 6 // -3, -7 // 2, 7 % -2).
 *
 * How: per operand pair A, B one program calls a kernel once per operator,
 * passing the result as a task scalar: folded, `self.kI(out, 3, A // B)`;
 * at run time, `x = A`, `y = B`, `self.kI(out, 3, x // y)` (locals are
 * registers: the orchestration interpreter computes).  A recording kernel
 * (ex_orch_run's run_kernel) keeps each task's scalar bits.  The folded
 * program must have folded every arithmetic operator whose result is
 * finite (no BIN or UN left for it); compares, and/or and not stay as
 * written and run in both.  Integer division by zero is a compile or run
 * error (tested elsewhere), so no case divides an integer by zero.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/program.h"
#include "exec/orch_vm.h"
#include "harness.h"
#include "dsl_compile.h"

/* ---- operands and operators ------------------------------------------------------------------- */

typedef struct val {
    cc_dtype dt;
    int64_t i; /* integer dtypes, BOOL */
    double f;  /* float dtypes: the literal, before pl.cast rounds it */
} val;

#define I(d, v) ((val){CC_DT_##d, (v), 0})
#define F(d, v) ((val){CC_DT_##d, 0, (v)})

/* The DSL spelling of v. */
static void literal(char *buf, size_t cap, val v)
{
    char num[64];
    if (cc_dtype_is_float(v.dt)) {
        snprintf(num, sizeof num, "%.17g", v.f);
        if (!strpbrk(num, ".en")) strcat(num, ".0");
    } else if (v.i == INT64_MIN) {
        snprintf(num, sizeof num, "(-9223372036854775807 - 1)");
    } else {
        snprintf(num, sizeof num, "%lld", (long long)v.i);
    }
    switch (v.dt) {
    case CC_DT_INDEX: case CC_DT_FP32: snprintf(buf, cap, "%s", num); break;
    case CC_DT_BOOL: snprintf(buf, cap, "%s", v.i ? "True" : "False"); break;
    default: snprintf(buf, cap, "pl.cast(%s, pl.%s)", num, cc_dtype_name(v.dt)); break;
    }
}

typedef struct opdef {
    cc_op op;
    const char *fmt; /* binary: two %s; unary: one */
} opdef;

static const opdef ops[] = {
    {CC_OP_ADD, "%s + %s"}, {CC_OP_SUB, "%s - %s"}, {CC_OP_MUL, "%s * %s"}, {CC_OP_DIV, "%s / %s"},
    {CC_OP_FLOORDIV, "%s // %s"}, {CC_OP_MOD, "%s %% %s"}, {CC_OP_MIN, "min(%s, %s)"}, {CC_OP_MAX, "max(%s, %s)"},
    {CC_OP_EQ, "%s == %s"}, {CC_OP_NE, "%s != %s"}, {CC_OP_LT, "%s < %s"}, {CC_OP_LE, "%s <= %s"},
    {CC_OP_GT, "%s > %s"}, {CC_OP_GE, "%s >= %s"}, {CC_OP_AND, "%s and %s"}, {CC_OP_OR, "%s or %s"},
    {CC_OP_NEG, "-%s"}, {CC_OP_NOT, "not %s"},
    {CC_OP_BITAND, "%s & %s"}, {CC_OP_BITOR, "%s | %s"}, {CC_OP_BITXOR, "%s ^ %s"}, {CC_OP_LSHIFT, "%s << %s"},
    {CC_OP_RSHIFT, "%s >> %s"}, {CC_OP_INVERT, "~%s"},
};
#define NOPS (sizeof ops / sizeof ops[0])

static int is_unary(cc_op op) { return op == CC_OP_NEG || op == CC_OP_NOT || op == CC_OP_INVERT; }
static int gives_bool(cc_op op) { return (op >= CC_OP_EQ && op <= CC_OP_OR) || op == CC_OP_NOT; }

/* The kernel that takes op's result: kB (BOOL), kF (FP32) or kI (INDEX). */
static char kernel_of(cc_op op, val a, val b)
{
    if (gives_bool(op)) return 'B';
    int fl = cc_dtype_is_float(a.dt) || (!is_unary(op) && cc_dtype_is_float(b.dt));
    return fl || op == CC_OP_DIV ? 'F' : 'I';
}

/* Does the case exist?  / of integers is a type error, an integer // or % by zero an error;
 * a bitwise operator of a float is a type error, a negative shift count an error. */
static int runs(cc_op op, val a, val b)
{
    int ints = !cc_dtype_is_float(a.dt) && (is_unary(op) || !cc_dtype_is_float(b.dt));
    if (op == CC_OP_DIV && ints) return 0;
    if (op >= CC_OP_BITOR) return ints && !((op == CC_OP_LSHIFT || op == CC_OP_RSHIFT) && b.i < 0);
    return !((op == CC_OP_FLOORDIV || op == CC_OP_MOD) && ints && b.i == 0);
}

/* ---- the programs ------------------------------------------------------------------------------ */

static const char kernels[] =
    "    @pl.function(type=pl.FunctionType.InCore)\n"
    "    def k%c(self, out: pl.InOut[pl.Tensor[[8, 8], pl.FP32]], i: pl.Scalar[pl.INDEX], s: pl.Scalar[pl.%s]):\n"
    "        t = pl.load(out, [0, 0], [8, 8])\n"
    "        out = pl.store(t, [0, 0], out)\n"
    "        return out\n\n";

/* The program for A, B: folded (the literals in every expression) or at run time (x, y). */
static void program(char *buf, size_t cap, val a, val b, int at_run_time)
{
    char la[96], lb[96], expr[256];
    literal(la, sizeof la, a), literal(lb, sizeof lb, b);
    size_t n = (size_t)snprintf(buf, cap,
                                "import pypto.language as pl\n\n@pl.program\nclass P:\n"
                                "    @pl.function(type=pl.FunctionType.Orchestration)\n"
                                "    def orch(self, out: pl.Out[pl.Tensor[[8, 8], pl.FP32]]):\n");
    if (at_run_time) n += (size_t)snprintf(buf + n, cap - n, "        x = %s\n        y = %s\n", la, lb);
    const char *xa = at_run_time ? "x" : la, *xb = at_run_time ? "y" : lb;
    for (size_t k = 0; k < NOPS; k++) {
        if (!runs(ops[k].op, a, b)) continue;
        if (is_unary(ops[k].op)) snprintf(expr, sizeof expr, ops[k].fmt, xa);
        else snprintf(expr, sizeof expr, ops[k].fmt, xa, xb);
        n += (size_t)snprintf(buf + n, cap - n, "        out = self.k%c(out, %zu, %s)\n", kernel_of(ops[k].op, a, b), k, expr);
    }
    n += (size_t)snprintf(buf + n, cap - n, "        return out\n\n");
    n += (size_t)snprintf(buf + n, cap - n, kernels, 'I', "INDEX");
    n += (size_t)snprintf(buf + n, cap - n, kernels, 'F', "FP32");
    n += (size_t)snprintf(buf + n, cap - n, kernels, 'B', "BOOL");
    assert_true(n < cap);
}

/* ---- running ----------------------------------------------------------------------------------- */

static pthread_mutex_t rec_mu = PTHREAD_MUTEX_INITIALIZER;
static uint64_t rec[NOPS];
static int have[NOPS];

static int record_kernel(const cc_lowered *l, const cc_lo_proc *k, const pto_kernel_args *a)
{
    (void)l, (void)k;
    pthread_mutex_lock(&rec_mu);
    if (a->num_scalars >= 2 && a->scalars[0] < NOPS) rec[a->scalars[0]] = a->scalars[1], have[a->scalars[0]] = 1;
    pthread_mutex_unlock(&rec_mu);
    return 0;
}

static pto_runtime *g_rt;

/* Compiles and runs one program; bits[k] gets operator k's result, *left
 * the BIN and UN instructions the orchestration runs. */
static void run_program(const char *src, uint64_t *bits, int *got, uint32_t *left)
{
    pto_program *p = dsl_compile_with(src, "P", PTO_STAGE_ALL, 0, NULL, 0);
    const cc_lowered *l = cc_program_lowered(p);
    if (!l) {
        fprintf(stderr, "%s", src);
        dsl_dump_diags(p);
        fail_msg("the program did not compile");
    }
    *left = 0;
    for (uint32_t i = 0; i < l->procs[0].ncode; i++) *left += l->procs[0].code[i].code == CC_LO_BIN || l->procs[0].code[i].code == CC_LO_UN;
    float out[64] = {0};
    pto_run_arg arg = {"out", {.kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .base = out, .rank = 2, .shape = {8, 8}}};
    ex_value params[1];
    pto_error err;
    assert_int_equal(ex_bind(l, &arg, 1, params, &err), 0);
    memset(have, 0, sizeof have);
    if (ex_orch_run(g_rt, l, record_kernel, params, 1)) fail_msg("%s\n%s", src, pto_runtime_error(g_rt)->message);
    memcpy(bits, rec, sizeof rec), memcpy(got, have, sizeof have);
    pto_program_free(p);
}

/* Folds and runs every operator on A, B: the bits agree, and every
 * arithmetic result that is finite was folded.  Returns the results. */
static void fold_and_run(val a, val b, uint64_t *out)
{
    static char src[16384];
    uint64_t folded[NOPS], ran[NOPS];
    int fgot[NOPS], rgot[NOPS];
    uint32_t fleft, rleft, want_left = 0;
    program(src, sizeof src, a, b, 0);
    run_program(src, folded, fgot, &fleft);
    program(src, sizeof src, a, b, 1);
    run_program(src, ran, rgot, &rleft);
    char la[96], lb[96];
    literal(la, sizeof la, a), literal(lb, sizeof lb, b);
    for (size_t k = 0; k < NOPS; k++) {
        if (!runs(ops[k].op, a, b)) continue;
        if (!fgot[k] || !rgot[k]) fail_msg("%s, %s: operator %zu did not reach its kernel", la, lb, k);
        char expr[256];
        if (is_unary(ops[k].op)) snprintf(expr, sizeof expr, ops[k].fmt, la);
        else snprintf(expr, sizeof expr, ops[k].fmt, la, lb);
        if (folded[k] != ran[k])
            fail_msg("%s: folded %#llx, at run time %#llx", expr, (unsigned long long)folded[k], (unsigned long long)ran[k]);
        double f;
        memcpy(&f, &ran[k], sizeof f);
        int finite = kernel_of(ops[k].op, a, b) != 'F' || isfinite(f);
        want_left += gives_bool(ops[k].op) || !finite;
        out[k] = ran[k];
    }
    if (fleft != want_left) fail_msg("%s, %s: %u scalar instructions left after folding, want %u", la, lb, fleft, want_left);
    assert_true(rleft >= want_left);
}

static void each_pair(const val (*pairs)[2], size_t n)
{
    pto_error err;
    assert_int_equal(pto_runtime_create(NULL, &g_rt, &err), 0);
    uint64_t out[NOPS];
    for (size_t k = 0; k < n; k++) fold_and_run(pairs[k][0], pairs[k][1], out);
    pto_runtime_destroy(g_rt);
}

#define EACH_PAIR(...)                                                  \
    do {                                                                \
        static const val pairs_[][2] = {__VA_ARGS__};                   \
        each_pair(pairs_, sizeof pairs_ / sizeof pairs_[0]);           \
    } while (0)

/* ---- rules --------------------------------------------------------------------------------------- */

/* Integer operand pairs: mixed signs, exact and inexact quotients, zero. */
#define INT_PAIRS(D)                                                                               \
    {I(D, -4), I(D, 2)}, {I(D, -4), I(D, -2)}, {I(D, 6), I(D, -3)}, {I(D, -7), I(D, 2)}, {I(D, 7), I(D, -2)}, \
    {I(D, 7), I(D, 3)}, {I(D, -7), I(D, -3)}, {I(D, 0), I(D, 5)}, {I(D, 5), I(D, 0)}

static void test_fold_and_run_agree_for_index(void **state)
{
    (void)state;
    EACH_PAIR(INT_PAIRS(INDEX), {I(INDEX, INT64_MIN), I(INDEX, -1)}, {I(INDEX, INT64_MAX), I(INDEX, 1)},
              {I(INDEX, INT64_MAX), I(INDEX, 2)});
}

static void test_fold_and_run_agree_for_int32(void **state)
{
    (void)state;
    EACH_PAIR(INT_PAIRS(INT32), {I(INT32, INT32_MIN), I(INT32, -1)}, {I(INT32, INT32_MAX), I(INT32, INT32_MAX)});
}

static void test_fold_and_run_agree_for_int8(void **state)
{
    (void)state;
    EACH_PAIR(INT_PAIRS(INT8), {I(INT8, -128), I(INT8, -1)}, {I(INT8, 127), I(INT8, 100)});
}

static void test_fold_and_run_agree_for_bool(void **state)
{
    (void)state;
    EACH_PAIR({I(BOOL, 1), I(BOOL, 0)}, {I(BOOL, 1), I(BOOL, 1)}, {I(BOOL, 0), I(BOOL, 1)}, {I(BOOL, 0), I(BOOL, 0)});
}

/* Shift counts at and past the width (every bit out; >> of a negative floors to -1), the sign
 * bit shifted out, and bit patterns for & | ^ ~. */
static void test_fold_and_run_agree_for_shifts_and_bits(void **state)
{
    (void)state;
    EACH_PAIR({I(INDEX, -5), I(INDEX, 63)}, {I(INDEX, 1), I(INDEX, 64)}, {I(INDEX, -1), I(INDEX, 70)}, {I(INDEX, INT64_MIN), I(INDEX, 1)},
              {I(INDEX, 0x5555), I(INDEX, 0x3333)}, {I(INDEX, 3), I(INDEX, 62)}, {I(INT32, -7), I(INT8, 3)}, {I(BOOL, 1), I(INDEX, 5)});
}

/* Float pairs: FP32 rounding per operation (0.1 + 0.2), Python's divmod
 * signs, an overflow to inf and a zero divisor (left to the run: no
 * literal), signed zeros, a subnormal. */
#define FLOAT_PAIRS(D)                                                                              \
    {F(D, 0.1), F(D, 0.2)}, {F(D, -7.5), F(D, 2.0)}, {F(D, 7.5), F(D, -2.0)}, {F(D, 1.0), F(D, 0.1)},   \
    {F(D, -4.0), F(D, 2.0)}, {F(D, 6.0), F(D, -3.0)}, {F(D, 3.0), F(D, 7.0)}, {F(D, 1.5), F(D, 0.0)},  \
    {F(D, -0.0), F(D, 0.0)}

static void test_fold_and_run_agree_for_fp32(void **state)
{
    (void)state;
    EACH_PAIR(FLOAT_PAIRS(FP32), {F(FP32, 1e30), F(FP32, 1e10)}, {F(FP32, 16777217.0), F(FP32, 1.0)},
              {F(FP32, 1e-45), F(FP32, 0.5)});
}

static void test_fold_and_run_agree_for_fp16(void **state)
{
    (void)state;
    EACH_PAIR(FLOAT_PAIRS(FP16), {F(FP16, 65504.0), F(FP16, 2.0)}, {F(FP16, 0.0001), F(FP16, 3.0)});
}

static void test_fold_and_run_agree_for_bf16(void **state)
{
    (void)state;
    EACH_PAIR(FLOAT_PAIRS(BF16), {F(BF16, 3.0e38), F(BF16, 10.0)});
}

/* Operands of two dtypes convert to the one the operator computes in first
 * (16777217 is not an FP32 value: it rounds before the add). */
static void test_fold_and_run_agree_for_mixed_dtypes(void **state)
{
    (void)state;
    EACH_PAIR({I(INDEX, 16777217), F(FP32, 0.5)}, {I(INT8, -7), F(FP32, 2.0)}, {I(BOOL, 1), F(FP32, 0.25)},
              {F(FP16, 0.1), I(INDEX, 3)}, {I(INT32, -7), I(INDEX, 2)}, {F(BF16, 1.5), I(INT8, -2)},
              {I(INDEX, 9007199254740993), F(FP32, 1.0)}, {F(FP16, 0.1), F(BF16, 0.1)}, {I(BOOL, 1), I(INT8, -3)});
}

/* The values themselves, folded as at run time: Python's floor. */
static void test_fold_and_run_floor_division_and_modulo_with_mixed_signs_and_exact_quotients(void **state)
{
    (void)state;
    static const struct { int64_t a, b, q, r; } cases[] = {
        {-4, 2, -2, 0}, {6, -3, -2, 0}, {-7, 2, -4, 1}, {7, -2, -4, -1}, {-4, -2, 2, 0}, {7, 3, 2, 1},
    };
    pto_error err;
    assert_int_equal(pto_runtime_create(NULL, &g_rt, &err), 0);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        uint64_t out[NOPS];
        fold_and_run(I(INDEX, cases[k].a), I(INDEX, cases[k].b), out);
        assert_int_equal((int64_t)out[4], cases[k].q); /* ops[4]: // */
        assert_int_equal((int64_t)out[5], cases[k].r); /* ops[5]: % */
    }
    pto_runtime_destroy(g_rt);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_fold_and_run_agree_for_index),
    cmocka_unit_test(test_fold_and_run_agree_for_int32),
    cmocka_unit_test(test_fold_and_run_agree_for_int8),
    cmocka_unit_test(test_fold_and_run_agree_for_bool),
    cmocka_unit_test(test_fold_and_run_agree_for_shifts_and_bits),
    cmocka_unit_test(test_fold_and_run_agree_for_fp32),
    cmocka_unit_test(test_fold_and_run_agree_for_fp16),
    cmocka_unit_test(test_fold_and_run_agree_for_bf16),
    cmocka_unit_test(test_fold_and_run_agree_for_mixed_dtypes),
    cmocka_unit_test(test_fold_and_run_floor_division_and_modulo_with_mixed_signs_and_exact_quotients),
};

PTO_TEST_MAIN(tests)
