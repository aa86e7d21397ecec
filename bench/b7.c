/*
 * b7.c - B7: four FP32 kernels written in the DSL the way upstream's
 * examples write them (softmax over rows, RMSNorm, a two-layer FFN,
 * single-head attention), compiled from DSL text (pto/compile.h) and run
 * from C (pto/run.h), checked against torch's result.
 *
 *   bench_b7 info                         the configuration line
 *   bench_b7 b7 softmax ROWS COLS         rows call_us, gbps, compile_us of system "ours"
 *   bench_b7 b7 rmsnorm ROWS COLS
 *   bench_b7 b7 ffn ROWS WIDTH HIDDEN     call_us, gflops, compile_us
 *   bench_b7 b7 attention SEQ HEAD
 *
 * PTO_BENCH_NO_ZERO_FILL=1: rows of system "ours-no-zero-fill", the same
 * run with §0.1's zero-fill of reused heap bytes switched off (the cost
 * note; only attention allocates: its Kt).
 *
 * Kernels (b7_source): tile-level code, one pl.at per block of TR rows
 * inside a pl.range loop, so the blocks are tasks that spread over both
 * threads.  Blocking: softmax and RMSNorm bench_band_rows (a row band of
 * about 128 KiB, at least 8 bands); FFN 128 rows (fewer at small sizes: at
 * least 8 blocks), each block loads all of W1 and W2 and runs
 * matmul -> SiLU (x * recip(1 + exp(-x))) -> matmul; attention 64 query
 * rows (at least 8 blocks) against all of K and V: the whole [TR, SEQ]
 * score tile (no online softmax: at SEQ 1024 it is 256 KiB),
 * Q_blk @ Kt * SCALE, row softmax, @ V, where Kt = transpose_view(K) is
 * written once, by a task of its own, into a pl.create_tensor [HEAD, SEQ].
 *
 * Inputs: input j's element i is ((i * 37 + j * 11) % 101 - 50) * scale in
 * FP32, the same in b7_torch.py.  The reference is torch's output, written
 * by `b7_torch.py ref` to $BENCH_B7_REFS/CASE.f32 before any timing; every
 * run (the warm-up and each timed one) must match it elementwise:
 * |ours - ref| <= rtol * (|ref| + mean |ref|), rtol 1e-5 for softmax and
 * RMSNorm, 1e-4 for FFN and attention; a mismatch fails the benchmark.
 * After the timed runs the output of a runtime with 2 workers (3 threads)
 * must equal the timed one's bit for bit (§0.2: any worker count, the same
 * bits).
 *
 * Timing: compile_us is pto_compile's process CPU time (the first call's
 * compile, reported apart); then one verified warm-up run, then timed runs (about
 * 0.5 s, 5 to MAX_RUNS), each one pto_program_run (dispatch included);
 * the value is their median.  gbps counts the tensor read once and written
 * once (2 * rows * cols * 4 bytes); gflops counts the matmuls only (FFN
 * 4 * rows * width * hidden, attention 4 * seq * seq * head).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pto/compile.h"
#include "pto/run.h"
#include "pto/runtime.h"

#include "dsl_util.h"
#include "runtime/ring.h"

enum { MAX_RUNS = 200, MAX_IN = 3 };

static const char b7_source[] =
    "import pypto.language as pl\n"
    "\n"
    "N, TR, C, H, S, D = 1, 1, 1, 1, 1, 1\n"
    "INV_C, EPS, SCALE = 1.0, 1e-6, 1.0\n"
    "\n"
    "\n"
    "@pl.jit\n"
    "def softmax(x: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
    "    for i in pl.range(N):\n"
    "        with pl.at(level=pl.Level.CORE_GROUP):\n"
    "            t = pl.load(x, [i * TR, 0], [TR, C])\n"
    "            e = pl.exp(pl.row_expand_sub(t, pl.row_max(t)))\n"
    "            pl.store(pl.row_expand_div(e, pl.row_sum(e)), [i * TR, 0], out)\n"
    "    return out\n"
    "\n"
    "\n"
    "@pl.jit\n"
    "def rmsnorm(x: pl.Tensor, w: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
    "    for i in pl.range(N):\n"
    "        with pl.at(level=pl.Level.CORE_GROUP):\n"
    "            t = pl.load(x, [i * TR, 0], [TR, C])\n"
    "            g = pl.load(w, [0, 0], [1, C])\n"
    "            r = pl.rsqrt(pl.add(pl.mul(pl.row_sum(pl.mul(t, t)), INV_C), EPS))\n"
    "            pl.store(pl.col_expand_mul(pl.row_expand_mul(t, r), g), [i * TR, 0], out)\n"
    "    return out\n"
    "\n"
    "\n"
    "@pl.jit\n"
    "def ffn(x: pl.Tensor, w1: pl.Tensor, w2: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
    "    for i in pl.range(N):\n"
    "        with pl.at(level=pl.Level.CORE_GROUP):\n"
    "            h = pl.matmul(pl.load(x, [i * TR, 0], [TR, C]), pl.load(w1, [0, 0], [C, H]))\n"
    "            s = pl.mul(h, pl.recip(pl.add(pl.exp(pl.neg(h)), 1.0)))\n"
    "            pl.store(pl.matmul(s, pl.load(w2, [0, 0], [H, C])), [i * TR, 0], out)\n"
    "    return out\n"
    "\n"
    "\n"
    "@pl.jit\n"
    "def attention(q: pl.Tensor, k: pl.Tensor, v: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
    "    kt = pl.create_tensor([D, S], dtype=pl.FP32)\n"
    "    with pl.at(level=pl.Level.CORE_GROUP):\n"
    "        pl.store(pl.transpose_view(pl.load(k, [0, 0], [S, D])), [0, 0], kt)\n"
    "    for i in pl.range(N):\n"
    "        with pl.at(level=pl.Level.CORE_GROUP):\n"
    "            s = pl.mul(pl.matmul(pl.load(q, [i * TR, 0], [TR, D]), pl.load(kt, [0, 0], [D, S])), SCALE)\n"
    "            e = pl.exp(pl.row_expand_sub(s, pl.row_max(s)))\n"
    "            p = pl.row_expand_div(e, pl.row_sum(e))\n"
    "            pl.store(pl.matmul(p, pl.load(v, [0, 0], [S, D])), [i * TR, 0], out)\n"
    "    return out\n";

/* One kernel at one size: its inputs' shapes, the output's, the blocking. */
typedef struct problem {
    const char *kernel, *rate; /* "gbps" or "gflops" */
    char cas[48];
    int nin;
    const char *names[MAX_IN];
    int64_t shape[MAX_IN + 1][2]; /* inputs, then out */
    double scale, rtol, work;     /* input scale; tolerance; bytes or flops per run */
    int n, tr, c, h, s, d;        /* the module constants N, TR, C, H, S, D */
} problem;

static void die(const char *what)
{
    bench_die("bench_b7", what);
}

/* Rows per block: at most cap, at least 8 blocks where rows allow, dividing rows. */
static int block_rows(int rows, int cap)
{
    int tr = cap;
    while (tr > 1 && (rows / tr < 8 || rows % tr)) tr /= 2;
    return tr;
}

static void usage(void)
{
    fprintf(stderr, "usage: bench_b7 info | b7 softmax|rmsnorm ROWS COLS | b7 ffn ROWS WIDTH HIDDEN | "
                    "b7 attention SEQ HEAD\n");
    exit(2);
}

static problem problem_of(int argc, char **argv)
{
    problem p;
    memset(&p, 0, sizeof p);
    p.kernel = argv[2];
    int a = argc > 3 ? atoi(argv[3]) : 0, b = argc > 4 ? atoi(argv[4]) : 0, c = argc > 5 ? atoi(argv[5]) : 0;
    int two = argc == 5 && a > 0 && b > 0, three = argc == 6 && a > 0 && b > 0 && c > 0;
    if ((!strcmp(p.kernel, "softmax") || !strcmp(p.kernel, "rmsnorm")) && two) {
        int rms = p.kernel[0] == 'r';
        p.rate = "gbps", p.nin = 1 + rms, p.names[0] = "x", p.names[1] = "w";
        p.shape[0][0] = a, p.shape[0][1] = b, p.shape[1][0] = 1, p.shape[1][1] = b;
        p.shape[p.nin][0] = a, p.shape[p.nin][1] = b;
        p.scale = rms ? 0.02 : 0.1, p.rtol = 1e-5, p.work = 2.0 * a * b * 4;
        p.tr = bench_band_rows(a, b), p.n = a / p.tr, p.c = b;
        snprintf(p.cas, sizeof p.cas, "%s_r%d_c%d", p.kernel, a, b);
    } else if (!strcmp(p.kernel, "ffn") && three) {
        p.rate = "gflops", p.nin = 3, p.names[0] = "x", p.names[1] = "w1", p.names[2] = "w2";
        int64_t sh[4][2] = {{a, b}, {b, c}, {c, b}, {a, b}};
        memcpy(p.shape, sh, sizeof sh);
        p.scale = 0.01, p.rtol = 1e-4, p.work = 4.0 * a * b * c;
        p.tr = block_rows(a, 128), p.n = a / p.tr, p.c = b, p.h = c;
        snprintf(p.cas, sizeof p.cas, "ffn_r%d_c%d_h%d", a, b, c);
    } else if (!strcmp(p.kernel, "attention") && two) {
        p.rate = "gflops", p.nin = 3, p.names[0] = "q", p.names[1] = "k", p.names[2] = "v";
        for (int i = 0; i < 4; i++) p.shape[i][0] = a, p.shape[i][1] = b;
        p.scale = 0.01, p.rtol = 1e-4, p.work = 4.0 * a * a * b;
        p.tr = block_rows(a, 64), p.n = a / p.tr, p.s = a, p.d = b;
        snprintf(p.cas, sizeof p.cas, "attention_s%d_d%d", a, b);
    } else {
        usage();
    }
    return p;
}

static size_t elems(const problem *p, int i)
{
    return (size_t)(p->shape[i][0] * p->shape[i][1]);
}

/* ---- data and the check -------------------------------------------------------- */

typedef struct data {
    float *in[MAX_IN], *out, *ref;
    double ref_scale; /* mean |ref| */
} data;

static float *alloc_floats(size_t n)
{
    float *f = aligned_alloc(64, (n * sizeof(float) + 63) / 64 * 64);
    if (!f) die("out of memory");
    return f;
}

static data data_make(const problem *p)
{
    data d;
    memset(&d, 0, sizeof d);
    for (int j = 0; j < p->nin; j++) {
        size_t n = elems(p, j);
        d.in[j] = alloc_floats(n);
        for (size_t i = 0; i < n; i++)
            d.in[j][i] = (float)((int)((i * 37 + (size_t)j * 11) % 101) - 50) * (float)p->scale;
    }
    size_t n = elems(p, p->nin);
    d.out = alloc_floats(n), d.ref = alloc_floats(n);
    char path[4096];
    const char *dir = getenv("BENCH_B7_REFS");
    snprintf(path, sizeof path, "%s/%s.f32", dir ? dir : ".", p->cas);
    FILE *f = fopen(path, "rb");
    size_t got = f ? fread(d.ref, sizeof(float), n, f) : 0;
    if (f) fclose(f);
    if (got != n) fprintf(stderr, "bench_b7: %s: no torch reference of %zu floats\n", path, n), exit(1);
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += fabs((double)d.ref[i]);
    d.ref_scale = sum / (double)n;
    return d;
}

static void data_free(const problem *p, data *d)
{
    for (int j = 0; j < p->nin; j++) free(d->in[j]);
    free(d->out), free(d->ref);
}

/* out must match torch's result; out is then poisoned (NaN) so that the
 * next check sees only what the next run wrote. */
static void verify(const problem *p, data *d, const char *who)
{
    size_t n = elems(p, p->nin);
    for (size_t i = 0; i < n; i++) {
        double o = d->out[i], r = d->ref[i];
        if (!(fabs(o - r) <= p->rtol * (fabs(r) + d->ref_scale))) {
            fprintf(stderr, "bench_b7: %s %s: out[%zu] = %.9g, torch %.9g (rtol %g)\n", p->cas, who, i, o, r, p->rtol);
            exit(1);
        }
    }
    memset(d->out, 0xff, n * sizeof(float));
}

/* ---- compile and run ---------------------------------------------------------- */

static pto_program *compile(const problem *p)
{
    pto_arg_spec specs[MAX_IN + 1];
    for (int i = 0; i <= p->nin; i++)
        specs[i] = (pto_arg_spec){.name = i < p->nin ? p->names[i] : "out", .kind = PTO_ARG_TENSOR,
                                  .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {p->shape[i][0], p->shape[i][1]}};
    pto_constant consts[] = {
        {"N", {.kind = PTO_VALUE_INT, .i = p->n}},
        {"TR", {.kind = PTO_VALUE_INT, .i = p->tr}},
        {"C", {.kind = PTO_VALUE_INT, .i = p->c}},
        {"H", {.kind = PTO_VALUE_INT, .i = p->h}},
        {"S", {.kind = PTO_VALUE_INT, .i = p->s}},
        {"D", {.kind = PTO_VALUE_INT, .i = p->d}},
        {"INV_C", {.kind = PTO_VALUE_FLOAT, .f = p->c ? 1.0 / p->c : 1.0}},
        {"EPS", {.kind = PTO_VALUE_FLOAT, .f = 1e-6}},
        {"SCALE", {.kind = PTO_VALUE_FLOAT, .f = p->d ? 1.0 / sqrt((double)p->d) : 1.0}},
    };
    pto_compile_options o = {.filename = "b7.py", .source = b7_source, .source_len = sizeof b7_source - 1,
                             .entry = p->kernel, .constants = consts, .nconstants = sizeof consts / sizeof consts[0],
                             .args = specs, .nargs = (size_t)p->nin + 1};
    return bench_compile(&o);
}

static double run(pto_runtime *rt, const pto_program *prog, const problem *p, data *d)
{
    pto_run_arg args[MAX_IN + 1];
    for (int i = 0; i <= p->nin; i++) {
        pto_arg_value v = {.kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2,
                           .shape = {p->shape[i][0], p->shape[i][1]}};
        v.base = i < p->nin ? d->in[i] : d->out;
        args[i] = (pto_run_arg){i < p->nin ? p->names[i] : "out", v};
    }
    pto_error err;
    double t0 = bench_now();
    if (pto_program_run(rt, prog, args, (size_t)p->nin + 1, &err)) fprintf(stderr, "%s\n", err.message), die("run failed");
    return bench_now() - t0;
}

/* The output of a runtime with 2 workers must be the bits of `timed`. */
static void same_bits_on_2_workers(const pto_program *prog, const problem *p, data *d, const float *timed)
{
    pto_config c;
    memset(&c, 0, sizeof c);
    c.num_workers = 2;
    c.stall_timeout_ms = -1;
    pto_runtime *rt;
    pto_error err;
    if (pto_runtime_create(&c, &rt, &err)) fprintf(stderr, "%s\n", err.message), die("runtime create failed");
    run(rt, prog, p, d);
    if (memcmp(d->out, timed, elems(p, p->nin) * sizeof(float)))
        fprintf(stderr, "bench_b7: %s: 2 workers give other bits than %d\n", p->cas, bench_workers()), exit(1);
    pto_runtime_destroy(rt);
}

/* The process's CPU time (§13: compile time is CPU time). */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int b7(const problem *p)
{
    const char *sys = getenv("PTO_BENCH_NO_ZERO_FILL") ? "ours-no-zero-fill" : "ours";
    rt_heap_zero_fill_skipped = strcmp(sys, "ours") != 0;
    data d = data_make(p);
    double t0 = cpu_now();
    pto_program *prog = compile(p);
    double compile_s = cpu_now() - t0;
    pto_runtime *rt = bench_runtime(NULL);
    double warm = run(rt, prog, p, &d);
    verify(p, &d, "warm-up");
    int runs = (int)(0.5 / (warm > 1e-9 ? warm : 1e-9));
    runs = runs < 5 ? 5 : runs > MAX_RUNS ? MAX_RUNS : runs;
    double t[MAX_RUNS];
    size_t n = elems(p, p->nin);
    float *timed = alloc_floats(n);
    for (int r = 0; r < runs; r++) {
        t[r] = run(rt, prog, p, &d);
        if (r == runs - 1) memcpy(timed, d.out, n * sizeof(float));
        verify(p, &d, "timed run");
    }
    same_bits_on_2_workers(prog, p, &d, timed);
    double med = bench_median(t, runs);
    bench_row("B7", p->cas, sys, "call_us", med * 1e6);
    bench_row("B7", p->cas, sys, p->rate, p->work / med / 1e9);
    bench_row("B7", p->cas, sys, "compile_us", compile_s * 1e6);
    free(timed);
    pto_runtime_destroy(rt);
    pto_program_free(prog);
    data_free(p, &d);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "info")) {
        printf("{\"system\": \"ours (B7)\", \"config\": \"B7: pto_compile + pto_program_run of tile-level DSL "
               "kernels (one pl.at per row block), tile VM kernels, matmul via single-threaded OpenBLAS; libpto: "
               "%d worker + the orchestrator (calling thread); no pinning; default ring sizes\"}\n",
               bench_workers());
        return 0;
    }
    if (argc < 3 || strcmp(argv[1], "b7")) usage();
    problem p = problem_of(argc, argv);
    return b7(&p);
}
