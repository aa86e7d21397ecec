/*
 * test_dsl_unsigned.c - the unsigned dtypes through DSL source (docs/dsl.md,
 * "Dtypes"): one test per compile-time rule.  UINT16 / UINT32 parameters take
 * an INT16 / INT32 argument in their place (a stand-in, the same bits) and
 * only those; UINT scalars hold 0 .. 2^bits - 1 (a constant cast saturates,
 * an annotated value out of range is an error); pl.random's default dtype is
 * UINT32; the unsigned dtypes print back as written; UINT4 and UINT64 stay
 * not supported.
 */
#include <stdlib.h>

#include "harness.h"
#include "dsl_compile.h"
#include "dsl_text.h"

#define HDR "import pypto.language as pl\n\n"
#define AT "    with pl.at(level=pl.Level.CORE_GROUP):\n"
/* an entry of an annotated UINT16 input and UINT32 output; the pl.at body is BODY (line 6 on) */
#define K(body) HDR "@pl.jit\ndef f(a: pl.Tensor[[4, 16], pl.UINT16], out: pl.Out[pl.Tensor[[4, 16], pl.UINT32]]):\n" AT body "    return out\n"

static pto_program *un_compile(const char *src, pto_dtype a, pto_dtype out)
{
    const pto_arg_spec args[] = {
        {.name = "a", .kind = PTO_ARG_TENSOR, .dtype = a, .rank = 2, .shape = {4, 16}},
        {.name = "out", .kind = PTO_ARG_TENSOR, .dtype = out, .rank = 2, .shape = {4, 16}},
    };
    return dsl_compile_with(src, "f", PTO_STAGE_LOWER, 0, args, 2);
}

static void test_unsigned_int16_and_int32_stand_in_for_annotated_uint16_and_uint32(void **s)
{
    (void)s;
    static const char *const want[] = {"a: pl.Tensor[[4, 16], pl.UINT16]", "out: pl.Out[pl.Tensor[[4, 16], pl.UINT32]]", NULL};
    const char *src = K("        pl.store(pl.cast(pl.load(a, [0, 0], [4, 16]), pl.UINT32), [0, 0], out)\n");
    pto_program *p = un_compile(src, PTO_DTYPE_INT16, PTO_DTYPE_INT32); /* torch's closest dtypes */
    dsl_expect_text_contains(p, want);
    pto_program_free(p);
    p = un_compile(src, PTO_DTYPE_UINT16, PTO_DTYPE_UINT32); /* numpy's own */
    dsl_expect_text_contains(p, want);
    pto_program_free(p);
    DSL_EXPECT_COMPILE_ERROR(un_compile(src, PTO_DTYPE_INT16, PTO_DTYPE_INT16), "TypeError",
                             "@pl.jit function 'f': argument 'out' has dtype INT16 but its annotation requires UINT32", 4, 41);
    DSL_EXPECT_COMPILE_ERROR(un_compile(src, PTO_DTYPE_UINT32, PTO_DTYPE_INT32), "TypeError",
                             "@pl.jit function 'f': argument 'a' has dtype UINT32 but its annotation requires UINT16", 4, 7);
}

static void test_unsigned_scalars_hold_zero_to_the_max(void **s)
{
    (void)s;
    static const char *const folded[] = {"y = pl.add(pl.add(pl.add(x, 0), 255), 4294967295)\n", NULL};
    pto_program *p = un_compile(K("        x = pl.load(a, [0, 0], [4, 16])\n"
                                  "        y = pl.add(pl.add(pl.add(x, pl.cast(-1, pl.UINT8)), pl.cast(300, pl.UINT8)), pl.cast(1099511627776, pl.UINT32))\n"
                                  "        pl.store(pl.cast(y, pl.UINT32), [0, 0], out)\n"),
                                PTO_DTYPE_UINT16, PTO_DTYPE_UINT32);
    dsl_expect_text_contains(p, folded);
    pto_program_free(p);
    DSL_EXPECT_COMPILE_ERROR(un_compile(K("        n: pl.Scalar[pl.UINT8] = 256\n"), PTO_DTYPE_UINT16, PTO_DTYPE_UINT32), "ParserTypeError",
                             "'n' = 256 does not fit pl.UINT8", 6, 34);
    DSL_EXPECT_COMPILE_ERROR(un_compile(K("        n: pl.Scalar[pl.UINT32] = -1\n"), PTO_DTYPE_UINT16, PTO_DTYPE_UINT32), "ParserTypeError",
                             "'n' = -1 does not fit pl.UINT32", 6, 35);
}

static void test_unsigned_random_defaults_to_uint32_and_prints_back(void **s)
{
    (void)s;
    static const char *const want[] = {"pl.tile.random(1, 2, 3, 4, 5, 6, [4, 16], dtype=pl.UINT32)", "pl.tile.arange(0, [1, 16], pl.UINT16)", NULL};
    pto_program *p = un_compile(K("        r = pl.tile.random(1, 2, 3, 4, 5, 6, [4, 16])\n"
                                  "        i = pl.tile.arange(0, [1, 16], pl.UINT16)\n"
                                  "        pl.store(r, [0, 0], out)\n        pl.store(i, [0, 0], a)\n"),
                                PTO_DTYPE_UINT16, PTO_DTYPE_UINT32);
    dsl_expect_text_contains(p, want);
    const pto_arg_spec args[] = {
        {.name = "a", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_UINT16, .rank = 2, .shape = {4, 16}},
        {.name = "out", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_UINT32, .rank = 2, .shape = {4, 16}},
    };
    dsl_expect_roundtrip_at(p, PTO_STAGE_LOWER, args, 2);
    pto_program_free(p);
}

static void test_unsigned_uint4_and_uint64_are_not_supported(void **s)
{
    (void)s;
    DSL_EXPECT_COMPILE_ERROR(un_compile(K("        x = pl.cast(pl.load(a, [0, 0], [4, 16]), pl.UINT64)\n"), PTO_DTYPE_UINT16, PTO_DTYPE_UINT32),
                             "UnsupportedFeatureError", "dtype pl.UINT64 is not supported in this version", 6, 50);
    DSL_EXPECT_COMPILE_ERROR(un_compile(K("        x = pl.create_tile([4, 16], pl.UINT4)\n"), PTO_DTYPE_UINT16, PTO_DTYPE_UINT32),
                             "UnsupportedFeatureError", "dtype pl.UINT4 is not supported in this version", 6, 37);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_unsigned_int16_and_int32_stand_in_for_annotated_uint16_and_uint32),
    cmocka_unit_test(test_unsigned_scalars_hold_zero_to_the_max),
    cmocka_unit_test(test_unsigned_random_defaults_to_uint32_and_prints_back),
    cmocka_unit_test(test_unsigned_uint4_and_uint64_are_not_supported),
};

PTO_TEST_MAIN(tests)
