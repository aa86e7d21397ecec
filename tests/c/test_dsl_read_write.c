/*
 * test_dsl_read_write.c - pl.read and pl.write of docs/dsl.md, "Operations"
 * through DSL source: the accepted forms with their printed text (the
 * direction pl.write gives a parameter, one-element footprints), the round
 * trip, and every compile-time error with its exact message, class and
 * line:col.
 */
#include <stdlib.h>

#include "harness.h"
#include "dsl_compile.h"
#include "dsl_text.h"

#define HDR "import pypto.language as pl\n\n"
#define AT "    with pl.at(level=pl.Level.CORE_GROUP):\n"
#define SIG "@pl.jit\ndef f(a: pl.Tensor, out: pl.Tensor, cfg: pl.Tensor, n: pl.Scalar[pl.INDEX]):\n"
/* an entry whose pl.at body (line 6 on, indent 8) is BODY */
#define K(body) HDR SIG AT body "    return out\n"
#define LOAD "        t = pl.load(a, [0, 0], [4, 8])\n"

static const pto_arg_spec rw_args[] = {
    {.name = "a", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {4, 8}},
    {.name = "out", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {4, 8}},
    {.name = "cfg", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_INT32, .rank = 1, .shape = {3}},
    {.name = "n", .kind = PTO_ARG_SCALAR, .value = {.kind = PTO_VALUE_INT, .i = 2}},
};
#define RW_NARGS (sizeof rw_args / sizeof rw_args[0])

static pto_program *rw_compile(const char *src)
{
    return dsl_compile_with(src, "f", PTO_STAGE_ALL, 0, rw_args, RW_NARGS);
}

#define RW_ERROR(src, cls, msg, line, col) DSL_EXPECT_COMPILE_ERROR(rw_compile(src), cls, msg, line, col)

/* Reads of a tile (full and flat indices, constant and run-time) and of a
 * kernel Tensor in scalar arithmetic (n is specialized: a constant); the
 * printed program parses back to itself. */
static void test_read_accepted_forms_print_and_round_trip(void **s)
{
    (void)s;
    static const char *const want[] = {"v = pl.read(t, [1, 2]) + pl.read(t, 9) * 2.0\n", "c = pl.read(cfg, [1])\n",
                                       "w = pl.read(t, [c, 2])\n", "cfg: pl.Tensor[[3], pl.INT32]", NULL};
    pto_program *p = rw_compile(K(LOAD "        v = pl.read(t, [1, 2]) + pl.read(t, 9) * 2.0\n        c = pl.read(cfg, (1,))\n"
                                       "        w = pl.read(t, [c, n])\n        pl.store(pl.mul(t, v + w), [0, 0], out)\n"));
    dsl_expect_text_contains(p, want);
    dsl_expect_roundtrip(p, rw_args, RW_NARGS);
    pto_program_free(p);
}

/* A parameter only written by pl.write is Out, read and written InOut
 * (the printed direction); the footprint is the elements' box (a flat
 * index: its row and column; in a loop, not affine: the whole tensor). */
static void test_write_makes_the_parameter_out_or_inout(void **s)
{
    (void)s;
    static const char *const out_only[] = {"self.f_incore_0(a, out)  # a: In [1:2, 3:4]; out: Out [2:4, 5:8]\n",
                                           "out: pl.Out[pl.Tensor[[4, 8], pl.FP32]]", "pl.write(out, [2, 5], x)\n", "pl.write(out, 31, x)\n", NULL};
    pto_program *p = rw_compile(K("        x = pl.read(a, [1, 3])\n        pl.write(out, [2, 5], x)\n        pl.write(out, 31, x)\n"));
    dsl_expect_text_contains(p, out_only);
    dsl_expect_roundtrip(p, rw_args, RW_NARGS);
    pto_program_free(p);
    static const char *const inout[] = {"out: pl.InOut[pl.Tensor[[4, 8], pl.FP32]]", "self.f_incore_0(out)  # out: InOut [0:4, 0:8]\n", NULL};
    p = rw_compile(K("        for i in pl.range(3):\n            out = pl.write(out, 8 * i + 7, pl.read(out, [i, 0]) + 1.0)\n"));
    dsl_expect_text_contains(p, inout);
    dsl_expect_roundtrip(p, rw_args, RW_NARGS);
    pto_program_free(p);
    static const char *const mixed[] = {"# a: In [0:4, 0:8]; out: Out [0:4, 0:8]", NULL};
    p = rw_compile(K(LOAD "        pl.store(t, [0, 0], out)\n        pl.write(out, [3, 7], 0)\n"));
    dsl_expect_text_contains(p, mixed);
    pto_program_free(p);
}

static void test_read_errors(void **s)
{
    (void)s;
    RW_ERROR(K(LOAD "        v = pl.read(t, [1])\n"), "InvalidOperationError", "pl.read: expected 2 indices for a rank-2 tile, got 1", 7, 24);
    RW_ERROR(K("        v = pl.read(cfg, [0, 1])\n"), "InvalidOperationError", "pl.read: expected 1 indices for a rank-1 tensor, got 2",
             6, 26);
    RW_ERROR(K(LOAD "        v = pl.read(t, [1, 8])\n"), "InvalidOperationError",
             "pl.read: index 8 is out of range for dimension 1 of extent 8", 7, 28);
    RW_ERROR(K(LOAD "        v = pl.read(t, [-1, 0])\n"), "InvalidOperationError",
             "pl.read: index -1 is out of range for dimension 0 of extent 4", 7, 25);
    RW_ERROR(K(LOAD "        v = pl.read(t, 32)\n"), "InvalidOperationError",
             "pl.read: index 32 is out of range for dimension 0 of extent 32", 7, 24);
    RW_ERROR(K("        v = pl.read(a, [n + 2, 0])\n"), "InvalidOperationError",
             "pl.read: index 4 is out of range for dimension 0 of extent 4", 6, 25);
    RW_ERROR(K(LOAD "        v = pl.read(t, [1.0, 0])\n"), "ParserTypeError", "pl.read indices must be integer scalars", 7, 25);
    RW_ERROR(K(LOAD "        v = pl.read(t, 1.5)\n"), "ParserTypeError",
             "pl.read indices must be a list of integer scalars or one flat integer index, got pl.Scalar[pl.FP32]", 7, 24);
    RW_ERROR(K("        v = pl.read(n, [0])\n"), "ParserTypeError", "pl.read expects a Tile or a Tensor, got pl.Scalar[pl.INDEX]", 6, 21);
    RW_ERROR(K(LOAD "        v = pl.read(t)\n"), "ParserTypeError", "pl.read() missing required argument 'indices'", 7, 13);
}

static void test_write_errors(void **s)
{
    (void)s;
    RW_ERROR(K("        pl.write(out, [4, 0], 1.0)\n"), "InvalidOperationError",
             "pl.write: index 4 is out of range for dimension 0 of extent 4", 6, 24);
    RW_ERROR(K("        pl.write(out, [0], 1.0)\n"), "InvalidOperationError", "pl.write: expected 2 indices for a rank-2 tensor, got 1", 6, 23);
    RW_ERROR(K(LOAD "        pl.write(t, [0, 0], 1.0)\n"), "ParserTypeError", "pl.write expects a Tensor, got pl.Tile[[4, 8], pl.FP32]", 7, 18);
    RW_ERROR(K("        pl.write(cfg, [0], 1.5)\n"), "ParserTypeError", "pl.write: float scalar 1.5 into an INT32 tensor; convert it with pl.cast",
             6, 28);
    RW_ERROR(K(LOAD "        pl.write(out, [0, 0], t)\n"), "ParserTypeError", "pl.write value must be a scalar, got pl.Tile[[4, 8], pl.FP32]", 7, 31);
    RW_ERROR(K("        pl.write(out, [0, 0])\n"), "ParserTypeError", "pl.write() missing required argument 'value'", 6, 9);
    /* a declared In parameter of an InCore function written by pl.write */
    RW_ERROR(HDR "@pl.jit.incore\ndef k(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n    pl.write(a, [0, 0], 1.0)\n    return out\n\n" SIG
                 "    k(a, out)\n    return out\n",
             "PassError", "kernel 'k' writes its In parameter 'a' (pl.write at k.py:5); declare it pl.Out[...] or pl.InOut[...]", 5, 5);
}

/* pl.tile.read / pl.tensor.read / pl.tensor.write spell the same ops (printed
 * pl.read, pl.write), restricted to Tile / Tensor operands; pl.write has no
 * pl.tile spelling. */
static void test_read_write_namespace_spellings(void **s)
{
    (void)s;
    static const char *const want[] = {"v = pl.read(t, [0, 1])\n", "pl.write(out, [0, 0], v + pl.read(cfg, [2]))\n", NULL};
    pto_program *p = rw_compile(K(LOAD "        v = pl.tile.read(t, [0, 1])\n        pl.tensor.write(out, [0, 0], v + pl.tensor.read(cfg, [2]))\n"));
    dsl_expect_text_contains(p, want);
    pto_program_free(p);
    RW_ERROR(K("        v = pl.tile.read(cfg, [0])\n"), "ParserTypeError", "pl.tile.read expects Tile operands, got pl.Tensor[[3], pl.INT32]", 6, 26);
    RW_ERROR(K(LOAD "        v = pl.tensor.read(t, [0, 0])\n"), "ParserTypeError", "pl.tensor.read expects Tensor operands, got pl.Tile[[4, 8], pl.FP32]",
             7, 28);
    RW_ERROR(K("        pl.tile.write(out, [0, 0], 1.0)\n"), "UndefinedVariableError", "pl.tile.write is not a pl.tile op; use pl.write", 6, 9);
}

/* Element access on the orchestrator (DSL-V2-SPEC §1.7) compiles, written
 * there or reaching it through an Inline function (test_dsl_orch_views.c
 * has its rules, test_exec_orch_views.c its waits). */
static void test_read_write_in_orchestration_compiles(void **s)
{
    (void)s;
    static const char *const srcs[] = {
        HDR SIG "    v = pl.read(cfg, [0])\n    return out\n",
        HDR SIG "    pl.write(out, [0, 0], 1.0)\n    return out\n",
        HDR "@pl.jit.inline\ndef h(x: pl.Tensor):\n    pl.write(x, [0, 0], 1.0)\n\n" SIG "    h(out)\n    return out\n",
    };
    for (size_t k = 0; k < sizeof srcs / sizeof srcs[0]; k++) {
        pto_program *p = rw_compile(srcs[k]);
        dsl_expect_ok(p);
        pto_program_free(p);
    }
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_read_accepted_forms_print_and_round_trip),
    cmocka_unit_test(test_write_makes_the_parameter_out_or_inout),
    cmocka_unit_test(test_read_errors),
    cmocka_unit_test(test_write_errors),
    cmocka_unit_test(test_read_write_namespace_spellings),
    cmocka_unit_test(test_read_write_in_orchestration_compiles),
};

PTO_TEST_MAIN(tests)
