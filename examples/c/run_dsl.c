/*
 * run_dsl - compiles a DSL entry from a .py file and runs it from C, no
 * Python involved: the Memory page's `manual_placement` (or any entry
 * taking a, out: [256, 128] FP32) with out = a * 2 + 1 checked.
 *
 *   run_dsl FILE.py ENTRY [OUTPUT_DIR]   with OUTPUT_DIR, scope stats are written to
 *                                        OUTPUT_DIR/scope_stats/scope_stats.jsonl
 *
 * Prints where each ring's tasks went (from the runtime's usage counters)
 * and exits 0 when the result is a * 2 + 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "pto/compile.h"
#include "pto/run.h"
#include "pto/runtime.h"

enum { ROWS = 256, COLS = 128 };

int main(int argc, char **argv)
{
    if (argc < 3) return fprintf(stderr, "usage: run_dsl FILE.py ENTRY [OUTPUT_DIR]\n"), 2;
    size_t len;
    char *text = base_read_file(argv[1], &len);
    if (!text) return fprintf(stderr, "run_dsl: cannot read %s\n", argv[1]), 1;

    /* compile, specialized to a, out: [256, 128] FP32 */
    pto_arg_spec specs[] = {
        {.name = "a", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {ROWS, COLS}},
        {.name = "out", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {ROWS, COLS}},
    };
    pto_compile_options opts = {.filename = argv[1], .source = text, .source_len = len, .entry = argv[2], .args = specs, .nargs = 2};
    pto_program *prog;
    int rc = pto_compile(&opts, &prog);
    char msg[2048];
    for (size_t k = 0; k < pto_program_diag_count(prog); k++) pto_program_diag_format(prog, k, msg, sizeof msg), fprintf(stderr, "%s\n", msg);
    free(text);
    if (rc != 0) return pto_program_free(prog), 1;

    /* a runtime with default rings, scope stats if asked for */
    pto_config cfg = {0};
    if (argc > 3) cfg.enable_scope_stats = 1, cfg.output_prefix = argv[3];
    pto_runtime *rt;
    pto_error err;
    if (pto_runtime_create(&cfg, &rt, &err) != 0) return fprintf(stderr, "%s\n", err.message), pto_program_free(prog), 1;

    float *a = malloc(sizeof(float) * ROWS * COLS), *out = calloc((size_t)ROWS * COLS, sizeof(float));
    for (int i = 0; i < ROWS * COLS; i++) a[i] = (float)(i % 97) / 8.0f;
    pto_run_arg args[] = {
        {"a", {.kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .base = a, .rank = 2, .shape = {ROWS, COLS}}},
        {"out", {.kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .base = out, .rank = 2, .shape = {ROWS, COLS}}},
    };
    rc = pto_program_run(rt, prog, args, 2, &err);
    if (rc != 0) fprintf(stderr, "%s\n", err.message);
    int bad = 0;
    for (int i = 0; i < ROWS * COLS && !rc; i++) bad += out[i] != a[i] * 2.0f + 1.0f;
    if (!rc) printf("%s: out == a * 2 + 1 %s (%d of %d elements differ)\n", argv[2], bad ? "FAILED" : "holds", bad, ROWS * COLS);
    if (argc > 3) printf("scope stats: %s/scope_stats/scope_stats.jsonl\n", argv[3]);
    pto_runtime_destroy(rt);
    pto_program_free(prog);
    free(a), free(out);
    return rc || bad ? 1 : 0;
}
