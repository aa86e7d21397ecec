/*
 * test_dsl_atomic.c - the compile-time rules of atomic=pl.AtomicType.Add on
 * pl.assemble into a Tensor in kernel code (DSL-V2-SPEC §1.5, §12 P2-06)
 * and on pl.store: the accepted forms printed back (print -> parse ->
 * print byte-identical), the target parameter printed InOut, the lowered
 * STORE adding (`+=`), and each error's exact text, class and line:col
 * (values and run-time behaviour: tests/python/test_atomic_assemble.py and
 * test_tile_store_add.c).
 */
#include <stdlib.h>

#include "harness.h"
#include "dsl_compile.h"
#include "dsl_text.h"

#define HDR "import pypto.language as pl\n\n"
#define AT "    with pl.at(level=pl.Level.CORE_GROUP):\n"
#define SIG "(a: pl.Tensor, out: pl.Out[pl.Tensor], bo: pl.Out[pl.Tensor], q: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]):\n"
/* an entry whose pl.at body (line 6 on, indent 8) is BODY */
#define K(body) HDR "@pl.jit\ndef f" SIG AT body "    return out\n"
/* t: a [16, 16] FP32 tile of a (line 6) */
#define LOAD_T "        t = pl.load(a, [0, 0], [16, 16])\n"

static const pto_arg_spec at_args[] = {
    {.name = "a", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {16, 64}},
    {.name = "out", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {16, 16}},
    {.name = "bo", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_BOOL, .rank = 2, .shape = {16, 16}},
    {.name = "q", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_INT64, .rank = 2, .shape = {16, 16}},
    {.name = "n", .kind = PTO_ARG_SCALAR, .value = {.kind = PTO_VALUE_INT, .i = 4}},
};
#define AT_NARGS (sizeof at_args / sizeof at_args[0])

static pto_program *at_compile(const char *src) { return dsl_compile_with(src, "f", PTO_STAGE_LOWER, 0, at_args, AT_NARGS); }

#define AT_ERROR(src, cls, msg, line, col) DSL_EXPECT_COMPILE_ERROR(at_compile(src), cls, msg, line, col)

static void expect_accepted(const char *src, const char *const *want)
{
    pto_program *p = at_compile(src);
    dsl_expect_text_contains(p, want);
    dsl_expect_roundtrip(p, at_args, AT_NARGS);
    pto_program_free(p);
}

/* Split-K: a pl.range loop of pl.at bodies, each adding its K slice into
 * out; printed back with atomic=, the kernel's out InOut, the call's box. */
static void test_atomic_assemble_prints_back_and_target_is_inout(void **s)
{
    (void)s;
    static const char *const want[] = {"out = pl.assemble(out, part, [0, 0], atomic=pl.AtomicType.Add)\n",
                                       "out: pl.InOut[pl.Tensor[[16, 16], pl.FP32]]", "# a: In [0:16, k*16:k*16+16]; out: InOut [0:16, 0:16]",
                                       NULL};
    expect_accepted(HDR "@pl.jit\ndef f" SIG "    for k in pl.range(n):\n        with pl.at(level=pl.Level.CORE_GROUP):\n            k0 = k * 16\n"
                        "            part = a[:, k0:k0 + 16]\n"
                        "            out = pl.assemble(out, part, [0, 0], atomic=pl.AtomicType.Add)\n"
                        "    return out\n",
                    want);
}

/* atomic=pl.AtomicType.None_ is the default: a plain store, target Out. */
static void test_atomic_none_is_a_plain_assemble(void **s)
{
    (void)s;
    static const char *const want[] = {"out = pl.assemble(out, t, [0, 0])\n", "out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]", NULL};
    expect_accepted(K(LOAD_T "        out = pl.assemble(out, t, [0, 0], atomic=pl.AtomicType.None_)\n"), want);
}

/* pl.store takes atomic= too (upstream's tile.store): the same STORE. */
static void test_atomic_store_prints_back_and_target_is_inout(void **s)
{
    (void)s;
    static const char *const want[] = {"pl.store(t, [0, 0], out, atomic=pl.AtomicType.Add)\n", "out: pl.InOut[pl.Tensor[[16, 16], pl.FP32]]",
                                       NULL};
    expect_accepted(K(LOAD_T "        pl.store(t, [0, 0], out, atomic=pl.AtomicType.Add)\n"), want);
}

/* An InCore function's declared pl.Out target of an atomic store reads it: InOut. */
static void test_atomic_makes_a_declared_out_inout(void **s)
{
    (void)s;
    static const char *const want[] = {"def k(self, t: pl.Tensor[[16, 64], pl.FP32], o: pl.InOut[pl.Tensor[[16, 16], pl.FP32]]",
                                       "out = self.k(a, out)  # a: In [0:16, 0:16]; out: InOut [0:16, 0:16]", NULL};
    expect_accepted(HDR "@pl.jit.incore\ndef k(t: pl.Tensor, o: pl.Out[pl.Tensor]):\n"
                        "    o = pl.assemble(o, pl.load(t, [0, 0], [16, 16]), [0, 0], atomic=pl.AtomicType.Add)\n    return o\n\n"
                        "@pl.jit\ndef f" SIG "    out = k(a, out)\n    return out\n",
                    want);
}

/* The lowered STORE adds (`+=`), after the element-wise op that is not
 * computed into the window (an atomic STORE is never direct). */
static void test_atomic_store_lowers_to_an_adding_store(void **s)
{
    (void)s;
    pto_program *p = at_compile(K(LOAD_T "        out = pl.assemble(out, pl.mul(t, t), [0, 0], atomic=pl.AtomicType.Add)\n"));
    dsl_expect_ok(p);
    const char *listing = pto_program_listing(p);
    assert_non_null(strstr(listing, "t1 InOut [r5:r6, r7:r8]] scalars=[] @5:10"));
    assert_non_null(strstr(listing, "TMUL v1 = v0, v0 FP32 @7:32\n"));
    assert_non_null(strstr(listing, "STORE t1[r2, r3] += v1 @7:15\n"));
    pto_program_free(p);
}

/* atomic= takes a pl.AtomicType member only (Type, at the value). */
static void test_atomic_value_must_be_an_atomic_type(void **s)
{
    (void)s;
    static const char msg[] = "pl.assemble atomic= must be pl.AtomicType.None_ or pl.AtomicType.Add";
    AT_ERROR(K(LOAD_T "        out = pl.assemble(out, t, [0, 0], atomic=True)\n"), "ParserTypeError", msg, 7, 50);
    AT_ERROR(K(LOAD_T "        out = pl.assemble(out, t, [0, 0], atomic=pl.AtomicType.Sub)\n"), "ParserTypeError", msg, 7, 50);
    AT_ERROR(K(LOAD_T "        out = pl.assemble(out, t, [0, 0], atomic=pl.PadValue.zero)\n"), "ParserTypeError", msg, 7, 50);
    AT_ERROR(K(LOAD_T "        pl.store(t, [0, 0], out, atomic=1)\n"), "ParserTypeError",
             "pl.store atomic= must be pl.AtomicType.None_ or pl.AtomicType.Add", 7, 41);
}

/* Only the dtypes that add: BOOL, INT64 -> the §1.5 text, at the source. */
static void test_atomic_dtype_must_add(void **s)
{
    (void)s;
    AT_ERROR(K("        b = pl.load(bo, [0, 0], [16, 16])\n        bo = pl.assemble(bo, b, [0, 0], atomic=pl.AtomicType.Add)\n"),
             "ParserTypeError", "pl.assemble with atomic=AtomicType.Add requires an fp32/bf16/fp16/int32/int16/int8/uint32/uint16/uint8 tile, got BOOL", 7, 30);
    AT_ERROR(K("        w = pl.load(q, [0, 0], [16, 16])\n        q = pl.assemble(q, w, [0, 0], atomic=pl.AtomicType.Add)\n"),
             "ParserTypeError", "pl.assemble with atomic=AtomicType.Add requires an fp32/bf16/fp16/int32/int16/int8/uint32/uint16/uint8 tile, got INT64", 7, 28);
    AT_ERROR(K("        b = pl.load(bo, [0, 0], [16, 16])\n        pl.store(b, [0, 0], bo, atomic=pl.AtomicType.Add)\n"), "ParserTypeError",
             "pl.store with atomic=AtomicType.Add requires an fp32/bf16/fp16/int32/int16/int8/uint32/uint16/uint8 tile, got BOOL", 7, 18);
}

/* A Tile or a kernel-local tensor target is on chip (Invalid, at the target). */
static void test_atomic_target_must_be_global_memory(void **s)
{
    (void)s;
    static const char msg[] = "tensor.assemble with atomic=AtomicType.Add requires a global-memory destination (a function output tensor), "
                              "but this assemble targets an on-chip tile";
    AT_ERROR(K(LOAD_T "        r = pl.assemble(t, t, [0, 0], atomic=pl.AtomicType.Add)\n"), "InvalidOperationError", msg, 7, 25);
    AT_ERROR(K(LOAD_T "        z = pl.create_tensor([16, 16], pl.FP32)\n        z = pl.assemble(z, t, [0, 0], atomic=pl.AtomicType.Add)\n"),
             "InvalidOperationError", msg, 8, 25);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_atomic_assemble_prints_back_and_target_is_inout),
    cmocka_unit_test(test_atomic_none_is_a_plain_assemble),
    cmocka_unit_test(test_atomic_store_prints_back_and_target_is_inout),
    cmocka_unit_test(test_atomic_makes_a_declared_out_inout),
    cmocka_unit_test(test_atomic_store_lowers_to_an_adding_store),
    cmocka_unit_test(test_atomic_value_must_be_an_atomic_type),
    cmocka_unit_test(test_atomic_dtype_must_add),
    cmocka_unit_test(test_atomic_target_must_be_global_memory),
};

PTO_TEST_MAIN(tests)
