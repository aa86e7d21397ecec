/*
 * test_dsl_dtypes.c - SC-dtype and SC-cast (DSL-V2-SPEC §9) through DSL
 * source: INT64, INT16 and BOOL tensors in annotations, arguments and
 * pl.create_tensor; BOOL tiles load, store, move and cast, and every other
 * op refuses them at the op ("pl.<op> does not accept BOOL tiles; cast
 * first"), the view and shape ops included; scalar casts to and from INDEX
 * and INT64.
 */
#include <stdlib.h>

#include "harness.h"
#include "dsl_compile.h"
#include "dsl_text.h"

#define HDR "import pypto.language as pl\n\n"
#define AT "    with pl.at(level=pl.Level.CORE_GROUP):\n"
/* an entry whose pl.at body (line 6 on, indent 8) is BODY; b is a BOOL tensor */
#define K(body) HDR "@pl.jit\ndef f(b: pl.Tensor, q: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INT64]):\n" AT body "    return out\n"
#define LOAD "        t = pl.load(b, [0, 0], [16, 16])\n"

static const pto_arg_spec dt_args[] = {
    {.name = "b", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_BOOL, .rank = 2, .shape = {16, 16}},
    {.name = "q", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_INT64, .rank = 2, .shape = {16, 16}},
    {.name = "out", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_INT16, .rank = 2, .shape = {16, 16}},
    {.name = "n", .kind = PTO_ARG_SCALAR, .value = {.kind = PTO_VALUE_INT, .i = 5}},
};

static pto_program *dt_compile(const char *src)
{
    return dsl_compile_with(src, "f", PTO_STAGE_LOWER, 0, dt_args, sizeof dt_args / sizeof dt_args[0]);
}

#define DT_ERROR(src, cls, msg, line, col) DSL_EXPECT_COMPILE_ERROR(dt_compile(src), cls, msg, line, col)

static void test_sc_dtype_bool_load_move_cast_store_and_int_tensors_accepted(void **s)
{
    (void)s;
    static const char *const want[] = {"m = pl.move(t, target_memory=pl.Mem.Vec)\n", "c = pl.cast(m, pl.INT16)\n",
                                       "w = pl.add(pl.load(q, [0, 0], [16, 16], cache=pl.CachePolicy.DEFAULT), 5)\n", "pl.store(pl.cast(w, pl.BOOL), [0, 0], b)\n", NULL};
    pto_program *p = dt_compile(K(LOAD "        m = pl.move(t, target_memory=pl.Mem.Vec)\n        c = pl.cast(m, pl.INT16)\n"
                                       "        w = pl.add(pl.load(q, [0, 0], [16, 16]), n)\n"
                                       "        pl.store(pl.cast(w, pl.BOOL), [0, 0], b)\n        pl.store(c, [0, 0], out)\n"));
    dsl_expect_text_contains(p, want);
    pto_program_free(p);
    static const char *const ct[] = {"x = pl.create_tensor([4, 4], pl.INT64)\n", "y = pl.create_tensor([4, 4], pl.BOOL)\n", NULL};
    p = dt_compile(HDR "@pl.jit\ndef f(b: pl.Tensor[[16, 16], pl.BOOL], q: pl.Tensor[[16, 16], pl.INT64], out: pl.Out[pl.Tensor[[16, 16], pl.INT16]], "
                       "n: pl.Scalar[pl.INT64]):\n"
                       "    x = pl.create_tensor([4, 4], pl.INT64)\n    y = pl.create_tensor([4, 4], dtype=pl.BOOL)\n    return out\n");
    dsl_expect_text_contains(p, ct);
    pto_program_free(p);
}

static void test_sc_dtype_bool_tile_in_other_ops_is_type_error_at_the_op(void **s)
{
    (void)s;
    static const struct { const char *body, *op; int col; } rows[] = {
        {"        u = pl.add(t, t)\n", "add", 13},
        {"        u = t + t\n", "add", 13},
        {"        u = pl.mul(t, 2)\n", "mul", 13},
        {"        u = pl.neg(t)\n", "neg", 13},
        {"        u = pl.row_sum(t)\n", "row_sum", 13},
        {"        u = pl.col_max(t)\n", "col_max", 13},
        {"        u = pl.row_expand_add(t, pl.load(b, [0, 0], [16, 1]))\n", "row_expand_add", 13},
        {"        u = pl.expands(t, 1)\n", "expands", 13},
        {"        u = pl.matmul(t, t)\n", "matmul", 13},
        {"        u = pl.concat(t, t)\n", "concat", 13},
        {"        u = pl.fillpad(t)\n", "fillpad", 13},
        {"        u = pl.reshape(t, [256])\n", "reshape", 13},
        {"        u = pl.fillpad_expand(t, [32, 32])\n", "fillpad_expand", 13},
        {"        u = pl.transpose(t, 0, 1)\n", "transpose", 13},
        {"        u = pl.tile.transpose_view(t)\n", "transpose_view", 13},
        {"        u = pl.set_validshape(t, 4, 4)\n", "set_validshape", 13},
        {"        u = pl.slice(t, [4, 4], [0, 0])\n", "slice", 13},
        {"        u = pl.tile.assemble(t, t, (0, 0))\n", "assemble", 13},
    };
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        char src[512], msg[96];
        snprintf(src, sizeof src, K(LOAD "%s"), rows[k].body);
        snprintf(msg, sizeof msg, "pl.%s does not accept BOOL tiles; cast first", rows[k].op);
        DT_ERROR(src, "ParserTypeError", msg, 7, rows[k].col);
    }
}

static void test_sc_dtype_texts_list_the_new_dtypes(void **s)
{
    (void)s;
    DT_ERROR(K("        z = pl.create_tile([16, 8], pl.BOOL)\n"), "ParserTypeError",
             "a tile dtype must be FP32, FP16, BF16, INT64, INT32, INT16, INT8, UINT32, UINT16 or UINT8", 6, 37);
    DT_ERROR(HDR "@pl.jit\ndef f(b: pl.Tensor[[16, 16], pl.TASK_ID], q: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INT64]):\n    return out\n",
             "ParserTypeError", "the tensor annotation's dtype must be a pl dtype (pl.FP32, pl.FP16, pl.BF16, pl.INT64, pl.INT32, pl.INT16, pl.INT8, pl.UINT32, pl.UINT16, pl.UINT8, pl.BOOL, pl.INDEX)",
             4, 30);
    DT_ERROR(HDR "@pl.jit\ndef f(b: pl.Tensor[[16, 16], pl.INT32], q: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INT64]):\n    return out\n",
             "TypeError", "@pl.jit function 'f': argument 'b' has dtype BOOL but its annotation requires INT32", 4, 7);
}

static void test_sc_cast_scalars_to_and_from_index_and_int64(void **s)
{
    (void)s;
    pto_program *p = dt_compile(K("        for k in pl.range(n):\n            i = pl.cast(n, pl.INDEX)\n            w = pl.cast(i * 3, pl.INT64)\n"
                                  "            h = pl.cast(w, pl.INT16)\n"
                                  "            pl.store(pl.add(pl.load(out, [0, 0], [16, 16]), h), [0, 0], out)\n"));
    dsl_expect_ok(p);
    pto_program_free(p);
    /* constants fold, saturating to the target's range */
    static const char *const folded[] = {"pl.store(pl.add(pl.load(out, [0, 0], [16, 16], cache=pl.CachePolicy.DEFAULT), 32767), [0, 0], out)\n", NULL};
    p = dt_compile(K("        pl.store(pl.add(pl.load(out, [0, 0], [16, 16]), pl.cast(pl.cast(100000, pl.INT64), pl.INT16)), [0, 0], out)\n"));
    dsl_expect_text_contains(p, folded);
    pto_program_free(p);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_sc_dtype_bool_load_move_cast_store_and_int_tensors_accepted),
    cmocka_unit_test(test_sc_dtype_bool_tile_in_other_ops_is_type_error_at_the_op),
    cmocka_unit_test(test_sc_dtype_texts_list_the_new_dtypes),
    cmocka_unit_test(test_sc_cast_scalars_to_and_from_index_and_int64),
};

PTO_TEST_MAIN(tests)
