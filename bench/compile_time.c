/*
 * compile_time.c - C1: the DSL compiler's CPU time per compile of each
 * seed example, through pto/compile.h (what ptoc and Python run), every
 * stage including lowering.  One row per example on stdout:
 *
 *   {"bench": "C1", "case": "manual_placement", "system": "ours", "metric": "compile_us", "value": 87.3}
 *
 *   bench_compile FILE ENTRY [FILE ENTRY ...]
 *
 * Each entry is compiled up to MAX_COMPILES times after one warm-up (fewer,
 * at least MIN_COMPILES, once they took MAX_SECONDS of CPU); the value is
 * the process CPU time over those compiles divided by their number.  Every
 * compile must succeed (the run is verified, not just timed).  The tensor
 * arguments a, out are [256, 128] FP32 (the page's N*TR x TC).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/file.h"
#include "pto/compile.h"

/* Compiles per entry: 200, or fewer (at least 5) once they took 2 s of CPU
 * (the large unrolled programs). */
enum { MIN_COMPILES = 5, MAX_COMPILES = 200 };
#define MAX_SECONDS 2.0

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int compile_once(const char *file, const char *text, size_t len, const char *entry)
{
    static const pto_arg_spec args[] = {
        {.name = "a", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {256, 128}},
        {.name = "out", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {256, 128}},
    };
    pto_compile_options o = {.filename = file, .source = text, .source_len = len, .entry = entry, .args = args, .nargs = 2};
    pto_program *p;
    int rc = pto_compile(&o, &p);
    if (rc != 0) {
        char msg[1024];
        for (size_t k = 0; k < pto_program_diag_count(p); k++)
            pto_program_diag_format(p, k, msg, sizeof msg), fprintf(stderr, "%s\n", msg);
    }
    pto_program_free(p);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc % 2 == 0) return fprintf(stderr, "usage: bench_compile FILE ENTRY [FILE ENTRY ...]\n"), 2;
    for (int k = 1; k + 1 < argc; k += 2) {
        size_t len;
        char *text = base_read_file(argv[k], &len);
        if (!text) return fprintf(stderr, "bench_compile: cannot read %s\n", argv[k]), 1;
        if (compile_once(argv[k], text, len, argv[k + 1]) != 0) return free(text), 1;
        double t0 = cpu_seconds(), t = 0;
        int n = 0;
        while (n < MIN_COMPILES || (n < MAX_COMPILES && t < MAX_SECONDS)) {
            if (compile_once(argv[k], text, len, argv[k + 1]) != 0) return free(text), 1;
            n++, t = cpu_seconds() - t0;
        }
        double us = t * 1e6 / n;
        printf("{\"bench\": \"C1\", \"case\": \"%s\", \"system\": \"ours\", \"metric\": \"compile_us\", \"value\": %.2f}\n",
               argv[k + 1], us);
        free(text);
    }
    return 0;
}
