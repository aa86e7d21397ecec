/*
 * test_memory_spaces.c - docs/dsl.md, "Memory spaces" through DSL source:
 * pl.load's target_memory= (Vec or Mat), pl.move and pl.create_tile with
 * their accepted forms (printed text, the round trip) and every error row
 * with its exact message, class and line:col.
 */
#include <stdlib.h>

#include "harness.h"
#include "dsl_compile.h"
#include "dsl_text.h"

#define HDR "import pypto.language as pl\n\n"
#define AT "    with pl.at(level=pl.Level.CORE_GROUP):\n"
/* an entry with parameters PARAMS whose pl.at body (line 6 on, indent 8) is BODY */
#define KP(params, body) HDR "@pl.jit\ndef f(" params "):\n" AT body "    return out\n"
#define K(body) KP("a: pl.Tensor, out: pl.Out[pl.Tensor]", body)
#define LOAD_T "        t = pl.load(a, [0, 0], [64, 128])\n"

static const pto_arg_spec mem_args[] = {
    {.name = "a", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {256, 128}},
    {.name = "w", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {128, 64}},
    {.name = "out", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {256, 128}},
    {.name = "n", .kind = PTO_ARG_SCALAR, .value = {.kind = PTO_VALUE_INT, .i = 5}},
};
#define NARGS (sizeof mem_args / sizeof mem_args[0])

static pto_program *mem_compile(const char *src) { return dsl_compile_with(src, "f", PTO_STAGE_LOWER, 0, mem_args, NARGS); }

#define MEM_ERROR(src, cls, msg, line, col) DSL_EXPECT_COMPILE_ERROR(mem_compile(src), cls, msg, line, col)

/* src compiles, its post-pass text contains every string of want, and the
 * printed program compiles back to itself. */
static void mem_expect_ok(const char *src, const char *const *want)
{
    pto_program *p = mem_compile(src);
    dsl_expect_text_contains(p, want);
    dsl_expect_roundtrip(p, mem_args, NARGS);
    pto_program_free(p);
}

/* ---- pl.load(..., target_memory=) ------------------------------------------------------- */

static void test_mem_load_target_vec_or_mat(void **s)
{
    (void)s;
    static const char *const want[] = {"t = pl.load(a, [0, 0], [64, 128], cache=pl.CachePolicy.DEFAULT)\n",
                                       "u = pl.load(a, [64, 0], [64, 128], target_memory=pl.Mem.Mat, cache=pl.CachePolicy.DEFAULT)\n",
                                       "v = pl.load(a, [128, 0], [64, 128], target_memory=pl.Mem.Mat, cache=pl.CachePolicy.DEFAULT)\n",
                                       NULL};
    mem_expect_ok(K("        t = pl.load(a, [0, 0], [64, 128], target_memory=pl.Mem.Vec)\n"
                    "        u = pl.load(a, [64, 0], [64, 128], target_memory=pl.Mem.Mat)\n"
                    "        v = pl.load(a, [128, 0], [64, 128], target_memory=pl.MemorySpace.Mat)\n"
                    "        pl.store(pl.add(pl.add(t, u), v), [0, 0], out)\n"),
                  want);
}

static void test_mem_load_target_other_spaces(void **s)
{
    (void)s;
    static const char *const spaces[] = {"Left", "Right", "Acc", "Bias", "DDR"};
    char src[512], msg[160];
    for (size_t k = 0; k < sizeof spaces / sizeof spaces[0]; k++) {
        snprintf(src, sizeof src, K("        t = pl.load(a, [0, 0], [64, 128], target_memory=pl.Mem.%s)\n"), spaces[k]);
        snprintf(msg, sizeof msg, "target_memory for tile.load must be MemorySpace.Vec or MemorySpace.Mat, got MemorySpace.%s", spaces[k]);
        MEM_ERROR(src, "InvalidOperationError", msg, 6, 57);
    }
    MEM_ERROR(K("        t = pl.load(a, [0, 0], [64, 128], target_memory=pl.Mem.LeftScale)\n"), "UnsupportedFeatureError",
              "pl.Mem.LeftScale is Ascend-specific: it uses the A5 micro-scaling formats and their fixed layouts; it has no meaning on the CPU backend",
              6, 57);
    MEM_ERROR(K("        t = pl.load(a, [0, 0], [64, 128], target_memory=1)\n"), "ParserTypeError",
              "pl.load target_memory= must be a pl.Mem member", 6, 57);
}

/* ---- pl.move ---------------------------------------------------------------------------- */

static void test_mem_move_accepted(void **s)
{
    (void)s;
    static const char *const want[] = {"l = pl.move(m, target_memory=pl.Mem.Left)\n", "r = pl.move(wm, target_memory=pl.Mem.Right)\n",
                                       "c = pl.matmul(l, r)\n", "v = pl.move(c, target_memory=pl.Mem.Vec)\n",
                                       "b = pl.move(c, target_memory=pl.Mem.Mat)\n", "x = pl.move(t, target_memory=pl.Mem.Bias)\n",
                                       "pl.store(c, [0, 0], out)\n", NULL};
    mem_expect_ok(KP("a: pl.Tensor, w: pl.Tensor, out: pl.Out[pl.Tensor]",
                     "        m = pl.load(a, [0, 0], [64, 128], target_memory=pl.Mem.Mat)\n"
                     "        wm = pl.load(w, [0, 0], [128, 64], target_memory=pl.Mem.Mat)\n"
                     "        l = pl.move(m, target_memory=pl.Mem.Left)\n"
                     "        r = pl.move(wm, pl.MemorySpace.Right)\n"
                     "        c = pl.matmul(l, r)\n"
                     "        v = pl.move(c, target_memory=pl.Mem.Vec)\n"
                     "        b = pl.move(tile=c, target_memory=pl.Mem.Mat)\n"
                     "        t = pl.load(a, [0, 0], [64, 64])\n"
                     "        x = pl.move(t, target_memory=pl.Mem.Bias)\n"
                     "        pl.store(c, [0, 0], out)\n"
                     "        pl.store(pl.add(pl.add(v, b), x), [64, 0], out)\n"),
                  want);
}

static void test_mem_move_errors(void **s)
{
    (void)s;
    MEM_ERROR(K(LOAD_T "        m = pl.move(t, target_memory=pl.Mem.Acc)\n"), "InvalidOperationError",
              "pl.move: target_memory must be an on-chip space other than Acc, got MemorySpace.Acc", 7, 38);
    MEM_ERROR(K(LOAD_T "        m = pl.move(t, target_memory=pl.Mem.DDR)\n"), "InvalidOperationError",
              "pl.move: target_memory must be an on-chip space other than Acc, got MemorySpace.DDR", 7, 38);
    MEM_ERROR(K(LOAD_T "        m = pl.move(a, target_memory=pl.Mem.Left)\n"), "InvalidOperationError",
              "pl.move: source must be a tile, got pl.Tensor[[256, 128], pl.FP32]; load it with pl.load(..., target_memory=pl.Mem.Mat)", 7,
              21);
    MEM_ERROR(K(LOAD_T "        m = pl.move(t, pl.Mem.Left, blayout=pl.NZ)\n"), "UnsupportedFeatureError",
              "blayout= is Ascend-specific: it selects a hardware fractal layout; it has no meaning on the CPU backend", 7, 37);
    MEM_ERROR(K(LOAD_T "        m = pl.move(t, pl.Mem.Left, slayout=None)\n"), "UnsupportedFeatureError",
              "slayout= is Ascend-specific: it selects a hardware fractal layout; it has no meaning on the CPU backend", 7, 37);
    MEM_ERROR(K(LOAD_T "        m = pl.move(t)\n"), "ParserTypeError", "pl.move() missing required argument 'target_memory'", 7, 13);
}

/* ---- pl.create_tile --------------------------------------------------------------------- */

static void test_mem_create_tile_accepted(void **s)
{
    (void)s;
    static const char *const want[] = {"z = pl.create_tile([64, 128], pl.FP32)\n",
                                       "m = pl.create_tile([64, 128], pl.FP32, target_memory=pl.Mem.Mat)\n",
                                       "l = pl.create_tile([64, 128], pl.FP32, transpose=True, target_memory=pl.Mem.Left)\n",
                                       "r = pl.create_tile([64, 128], pl.FP32, transpose=False)\n",
                                       "b = pl.create_tile([64, 128], pl.FP32, target_memory=pl.Mem.Bias)\n", NULL};
    mem_expect_ok(K(LOAD_T "        z = pl.create_tile([64, 128], pl.FP32)\n"
                           "        m = pl.create_tile(shape=[64, 128], dtype=pl.FP32, target_memory=pl.Mem.Mat)\n"
                           "        l = pl.create_tile([64, 128], pl.FP32, pl.Mem.Left, True)\n"
                           "        r = pl.create_tile([64, 128], pl.FP32, transpose=False)\n"
                           "        b = pl.create_tile([64, 128], pl.FP32, target_memory=pl.Mem.Bias, transpose=None)\n"
                           "        pl.store(pl.add(pl.add(pl.add(pl.add(pl.add(t, z), m), l), r), b), [0, 0], out)\n"),
                  want);
}

static void test_mem_create_tile_errors(void **s)
{
    (void)s;
    MEM_ERROR(K("        for i in pl.range(2):\n            z = pl.create_tile([16, i], pl.FP32)\n"), "ParserTypeError",
              "pl.create_tile: shape element 1 must be a compile-time constant (ConstInt)", 7, 37);
    MEM_ERROR(K("        z = pl.create_tile([16, 0], pl.FP32)\n"), "InvalidOperationError",
              "pl.create_tile: shape element 1 must be positive, got 0", 6, 33);
    MEM_ERROR(K("        z = pl.create_tile([16, 8], pl.BOOL)\n"), "ParserTypeError",
              "a tile dtype must be FP32, FP16, BF16, INT64, INT32, INT16, INT8, UINT32, UINT16 or UINT8", 6, 37);
    MEM_ERROR(K("        z = pl.create_tile([16, 16], pl.FP32, target_memory=pl.Mem.DDR)\n"), "InvalidOperationError",
              "pl.create_tile: target_memory cannot be MemorySpace.DDR; use pl.create_tensor", 6, 61);
    MEM_ERROR(K("        z = pl.create_tile([16, 16], pl.FP32, target_memory=pl.Mem.LeftScale)\n"), "UnsupportedFeatureError",
              "pl.Mem.LeftScale is Ascend-specific: it uses the A5 micro-scaling formats and their fixed layouts; it has no meaning on the CPU backend",
              6, 61);
    static const char *const values[] = {"1", "n > 1", "pl.Mem.Vec"};
    char src[512];
    for (size_t k = 0; k < sizeof values / sizeof values[0]; k++) {
        snprintf(src, sizeof src, KP("a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar", "        z = pl.create_tile([16, 16], pl.FP32, transpose=%s)\n"),
                 values[k]);
        MEM_ERROR(src, "ParserSyntaxError", "pl.create_tile() transpose must be None or a boolean literal", 6, 57);
    }
    MEM_ERROR(HDR "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n    z = pl.create_tile([16, 16], pl.FP32)\n    return out\n",
              "InvalidOperationError", "Misplaced tile op 'pl.create_tile' in Orchestration function 'f' (should be inside InCore block)", 5, 9);
}

/* The lowered kernel: a move is a TCOPY, a create_tile a TOP without operands. */
static void test_mem_lowered_forms(void **s)
{
    (void)s;
    pto_program *p = mem_compile(K(LOAD_T "        m = pl.move(t, target_memory=pl.Mem.Mat)\n"
                                          "        z = pl.create_tile([64, 128], pl.FP32, target_memory=pl.Mem.Left)\n"
                                          "        pl.store(pl.add(m, z), [0, 0], out)\n"));
    dsl_expect_ok(p);
    const char *lo = pto_program_listing(p);
    if (!lo || !strstr(lo, "TCOPY") || !strstr(lo, "TCREATE_TILE v")) {
        fprintf(stderr, "lowered:\n%s\n", lo ? lo : "(none)");
        fail();
    }
    pto_program_free(p);
}

/* ---- pl.Tile annotations on assignments --------------------------------------------------- */

static void test_mem_tile_annotation_accepted(void **s)
{
    (void)s;
    static const char *const want[] = {"x = pl.load(a, [0, 0], [64, 128], target_memory=pl.Mem.Mat, cache=pl.CachePolicy.DEFAULT)\n",
                                       "y = pl.add(x, x)\n", "z: pl.Tile[[64, 128], pl.FP32, pl.Mem.Left] = pl.add(x, y)\n", "u = z\n",
                                       "c = pl.matmul(", NULL};
    mem_expect_ok(KP("a: pl.Tensor, w: pl.Tensor, out: pl.Out[pl.Tensor]",
                     "        x: pl.Tile[[64, 128], pl.FP32, pl.Mem.Mat] = pl.load(a, [0, 0], [64, 128], target_memory=pl.Mem.Mat)\n"
                     "        y: pl.Tile[[64, 128], pl.FP32] = pl.add(x, x)\n"
                     "        z: pl.Tile[[64, 128], pl.FP32, pl.MemorySpace.Left] = pl.add(x, y)\n"
                     "        u: pl.Tile[[64, 128], pl.FP32, pl.Mem.Left] = z\n"
                     "        c: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.matmul(u, pl.load(w, [0, 0], [128, 64]))\n"
                     "        pl.store(u, [0, 0], out)\n        pl.store(c, [64, 0], out)\n"),
                  want);
}

static void test_mem_tile_annotation_mismatch(void **s)
{
    (void)s;
    MEM_ERROR(K(LOAD_T "        x: pl.Tile[[64, 64], pl.FP32] = t\n"), "ParserTypeError",
              "annotation pl.Tile[[64, 64], pl.FP32] does not match the value's type pl.Tile[[64, 128], pl.FP32]", 7, 12);
    MEM_ERROR(K(LOAD_T "        x: pl.Tile[[64, 128], pl.FP16] = pl.exp(t)\n"), "ParserTypeError",
              "annotation pl.Tile[[64, 128], pl.FP16] does not match the value's type pl.Tile[[64, 128], pl.FP32]", 7, 12);
    MEM_ERROR(K("        x: pl.Tile[[64, 128], pl.FP32, pl.Mem.Mat] = pl.load(a, [0, 0], [64, 128])\n"), "ParserTypeError",
              "annotation pl.Tile[[64, 128], pl.FP32, pl.Mem.Mat] does not match the value's type pl.Tile[[64, 128], pl.FP32]", 6, 12);
    MEM_ERROR(K(LOAD_T "        m = pl.move(t, target_memory=pl.Mem.Left)\n        x: pl.Tile[[64, 128], pl.FP32, pl.Mem.Right] = m\n"),
              "ParserTypeError",
              "annotation pl.Tile[[64, 128], pl.FP32, pl.Mem.Right] does not match the value's type pl.Tile[[64, 128], pl.FP32, pl.Mem.Left]", 8,
              12);
    MEM_ERROR(K("        n = 3\n        x: pl.Tile[[64, 128], pl.FP32] = n\n"), "ParserTypeError",
              "annotation pl.Tile[[64, 128], pl.FP32] does not match the value's type pl.Scalar[pl.INDEX]", 7, 12);
    MEM_ERROR(K(LOAD_T "        x: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec, pl.Mem.Mat] = t\n"), "ParserTypeError",
              "pl.Tile annotation takes at most one MemRef, one MemorySpace and one TileView", 7, 52);
}

/* ---- pl.MemRef inside pl.Tile: a hint, validated, no effect ------------------------------ */

#define LOOP_T "        for i in pl.range(2):\n            t = pl.load(a, [i * 64, 0], [64, 128])\n"

static void test_mem_memref_accepted(void **s)
{
    (void)s;
    static const char *const want[] = {"x = pl.exp(t)\n", NULL};
    mem_expect_ok(K(LOOP_T "            x: pl.Tile[[64, 128], pl.FP32, pl.MemRef(\"ub\", slots=2)[i % 2], pl.Mem.Vec] = pl.exp(t)\n"
                           "            y: pl.Tile[[64, 128], pl.FP32, pl.MemRef(), pl.Mem.Vec] = x\n"
                           "            z: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec, pl.MemRef(name=None, slots=1)] = y\n"
                           "            pl.store(z, [i * 64, 0], out)\n"),
                  want);
}

static void test_mem_memref_errors(void **s)
{
    (void)s;
    MEM_ERROR(K(LOOP_T "            x: pl.Tile[[64, 128], pl.FP32, pl.MemRef(\"ub\", slots=0), pl.Mem.Vec] = t\n"), "ParserTypeError",
              "pl.MemRef slots must be a positive integer constant, got 0", 8, 66);
    MEM_ERROR(K(LOOP_T "            x: pl.Tile[[64, 128], pl.FP32, pl.MemRef(slots=2)[1.5], pl.Mem.Vec] = t\n"), "ParserTypeError",
              "pl.MemRef index must be an integer scalar, got pl.Scalar[pl.FP32]", 8, 63);
    MEM_ERROR(K(LOOP_T "            x: pl.Tile[[64, 128], pl.FP32, pl.MemRef()] = t\n"), "ParserTypeError",
              "Tile annotation with MemRef must also specify an explicit MemorySpace", 8, 16);
    MEM_ERROR(K(LOOP_T "            x: pl.Tile[[64, 128], pl.FP32, pl.MemRef(), pl.MemRef(), pl.Mem.Vec] = t\n"), "ParserTypeError",
              "pl.Tile annotation takes at most one MemRef, one MemorySpace and one TileView", 8, 57);
    MEM_ERROR(K(LOOP_T "            x: pl.Tile[[64, 128], pl.FP32, pl.MemRef(0, 0, 512), pl.Mem.Vec] = t\n"), "UnsupportedFeatureError",
              "pl.MemRef(<base or addr>, <offset>, <size>) is Ascend-specific: it fixes an on-chip address; it has no meaning on the CPU backend", 8,
              44);
}

/* ---- pl.TileView inside pl.Tile: a hint; valid_shape= equals the value's valid region ------- */

#define VLOAD "pl.load(a, [0, 0], [64, 128], valid_shape=[48, 128])"

static void test_mem_tileview_accepted(void **s)
{
    (void)s;
    static const char *const want[] = {"x = pl.load(a, [0, 0], [64, 128], valid_shape=[48, 128], cache=pl.CachePolicy.DEFAULT)\n",
                                       "y = pl.exp(t)\n", "z = pl.exp(y)\n", NULL};
    mem_expect_ok(K(LOAD_T "        x: pl.Tile[[64, 128], pl.FP32, pl.TileView(valid_shape=[48, 128])] = " VLOAD "\n"
                           "        y: pl.Tile[[64, 128], pl.FP32, pl.TileView(valid_shape=[64, 128], pad=pl.PadValue.zero)] = pl.exp(t)\n"
                           "        z: pl.Tile[[64, 128], pl.FP32, pl.MemRef(\"ub\"), pl.Mem.Vec, pl.TileView(fractal=512)] = pl.exp(y)\n"
                           "        w: pl.Tile[[64, 128], pl.FP32, pl.TileView(valid_shape=[16, 128])] = pl.exp(x)\n" /* not constant */
                           "        pl.store(x, [0, 0], out)\n        pl.store(z, [64, 0], out)\n        pl.store(w, [128, 0], out)\n"),
                  want);
}

static void test_mem_tileview_errors(void **s)
{
    (void)s;
    MEM_ERROR(K("        x: pl.Tile[[64, 128], pl.FP32, pl.TileView(valid_shape=[32, 128])] = " VLOAD "\n"), "ParserTypeError",
              "annotation pl.Tile[[64, 128], pl.FP32, pl.TileView(valid_shape=[32, 128])] does not match the value's type "
              "pl.Tile[[64, 128], pl.FP32, pl.TileView(valid_shape=[48, 128])]",
              6, 12);
    MEM_ERROR(K(LOAD_T "        x: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[64, 64])] = t\n"), "ParserTypeError",
              "annotation pl.Tile[[64, 128], pl.FP32, pl.TileView(valid_shape=[64, 64])] does not match the value's type "
              "pl.Tile[[64, 128], pl.FP32, pl.TileView(valid_shape=[64, 128])]",
              7, 12);
    MEM_ERROR(K(LOAD_T "        x: pl.Tile[[64, 128], pl.FP32, pl.TileView(), pl.TileView()] = t\n"), "ParserTypeError",
              "pl.Tile annotation takes at most one MemRef, one MemorySpace and one TileView", 7, 55);
    MEM_ERROR(K(LOAD_T "        x: pl.Tile[[64, 128], pl.FP32, pl.TileView(blayout=pl.NZ)] = t\n"), "UnsupportedFeatureError",
              "blayout= is Ascend-specific: it selects a hardware fractal layout; it has no meaning on the CPU backend", 7, 52);
    MEM_ERROR(K(LOAD_T "        x: pl.Tile[[64, 128], pl.FP32, pl.TileView(slayout=1)] = t\n"), "UnsupportedFeatureError",
              "slayout= is Ascend-specific: it selects a hardware fractal layout; it has no meaning on the CPU backend", 7, 52);
    MEM_ERROR(K(LOAD_T "        x: pl.Tile[[64, 128], pl.FP32, pl.TileView(shape=[1])] = t\n"), "ParserTypeError",
              "pl.TileView() got an unexpected keyword argument 'shape'", 7, 52);
    MEM_ERROR(K(LOAD_T "        x: pl.Tile[[64, 128], pl.FP32, pl.TileView([64, 128])] = t\n"), "ParserTypeError",
              "pl.TileView() takes keyword arguments only", 7, 52);
    MEM_ERROR(K(LOAD_T "        x: pl.Tile[[64, 128], pl.FP32, pl.TileView(valid_shape=[64])] = t\n"), "ParserTypeError",
              "pl.TileView valid_shape has 1 entries for a rank-2 tile", 7, 64);
}

/* ---- pl.Tile on an inline function's parameters and result ------------------------------- */

/* inline g(x, y) (line 3) called from f's pl.at body */
#define INL(sig, body, call) HDR "@pl.jit.inline\ndef g(" sig "\n" body "\n" "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n" AT \
    LOAD_T "        pl.store(" call ", [0, 0], out)\n    return out\n"

static void test_mem_tile_annotation_of_inline_signature(void **s)
{
    (void)s;
    static const char *const want[] = {"g_value: pl.Tile[[64, 128], pl.FP32, pl.Mem.Mat] = pl.add(x, t)\n", NULL};
    mem_expect_ok(INL("x: pl.Tile[[64, 128], pl.FP32], y: pl.Tile[[64, 128], pl.FP32, pl.TileView(valid_shape=[64, 128])]) -> "
                      "pl.Tile[[64, 128], pl.FP32, pl.Mem.Mat]:",
                      "    return pl.add(x, y)\n", "g(pl.exp(t), t)"),
                  want);
    MEM_ERROR(INL("x: pl.Tile[[64, 64], pl.FP32]):", "    return x\n", "g(t)"), "ParserTypeError",
              "annotation pl.Tile[[64, 64], pl.FP32] does not match the value's type pl.Tile[[64, 128], pl.FP32]", 4, 10);
    MEM_ERROR(INL("x: pl.Tile[[64, 128], pl.FP32, pl.Mem.Mat]):", "    return x\n", "g(t)"), "ParserTypeError",
              "annotation pl.Tile[[64, 128], pl.FP32, pl.Mem.Mat] does not match the value's type pl.Tile[[64, 128], pl.FP32]", 4, 10);
    MEM_ERROR(INL("x) -> pl.Tile[[64, 128], pl.FP16]:", "    return pl.exp(x)\n", "g(t)"), "ParserTypeError",
              "annotation pl.Tile[[64, 128], pl.FP16] does not match the value's type pl.Tile[[64, 128], pl.FP32]", 4, 13);
    MEM_ERROR(INL("x: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec, pl.Mem.Mat]):", "    return x\n", "g(t)"), "ParserTypeError",
              "pl.Tile annotation takes at most one MemRef, one MemorySpace and one TileView", 4, 50);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_mem_tile_annotation_of_inline_signature),
    cmocka_unit_test(test_mem_tileview_accepted),
    cmocka_unit_test(test_mem_tileview_errors),
    cmocka_unit_test(test_mem_memref_accepted),
    cmocka_unit_test(test_mem_memref_errors),
    cmocka_unit_test(test_mem_tile_annotation_accepted),
    cmocka_unit_test(test_mem_tile_annotation_mismatch),
    cmocka_unit_test(test_mem_load_target_vec_or_mat),
    cmocka_unit_test(test_mem_load_target_other_spaces),
    cmocka_unit_test(test_mem_move_accepted),
    cmocka_unit_test(test_mem_move_errors),
    cmocka_unit_test(test_mem_create_tile_accepted),
    cmocka_unit_test(test_mem_create_tile_errors),
    cmocka_unit_test(test_mem_lowered_forms),
};

PTO_TEST_MAIN(tests)
