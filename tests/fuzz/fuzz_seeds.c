/*
 * fuzz_seeds.c - writes the seed corpora of the fuzz harnesses (make fuzz
 * runs it; nothing it writes is committed):
 *   OUT/compile/  each program of tests/c/dsl_corpus.h and each DSL file
 *                 named on the command line, once per entry it defines and
 *                 per stop stage, with fuzz_dsl_input.h's header and the
 *                 corpus's argument specs (a, out: [256, 128] FP32; w:
 *                 [128, 128]);
 *   OUT/stats/    a scope_stats.jsonl the runtime wrote for a small run,
 *                 whole and cut mid-line;
 *   OUT/config/   default, small and invalid configs;
 *   OUT/api/      call sequences: nested scopes of submits, MANUAL scopes,
 *                 allocs, waits, finishes, and some pseudo-random bytes.
 * Usage: fuzz_seeds OUT [FILE.py...].  Exit 0, or 1 naming what failed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/prng.h"
#include "dsl_corpus.h"
#include "fuzz_dsl_input.h"
#include "pto/runtime.h"

static const char *g_out;

static void die(const char *what, const char *arg)
{
    fprintf(stderr, "fuzz_seeds: %s %s: %s\n", what, arg ? arg : "", strerror(errno));
    exit(1);
}

static void make_dir(const char *path)
{
    if (mkdir(path, 0755) != 0 && errno != EEXIST) die("cannot create directory", path);
}

/* Writes OUT/kind/name from a header and a body. */
static void write_seed(const char *kind, const char *name, const void *head, size_t nhead, const void *body,
                       size_t nbody)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", g_out, kind);
    make_dir(path);
    snprintf(path, sizeof path, "%s/%s/%s", g_out, kind, name);
    FILE *f = fopen(path, "wb");
    if (!f) die("cannot write", path);
    if ((nhead && fwrite(head, 1, nhead, f) != nhead) || (nbody && fwrite(body, 1, nbody, f) != nbody) ||
        fclose(f) != 0)
        die("cannot write", path);
}

/* ---- compile ------------------------------------------------------------ */

/* fuzz_dsl_input.h's header: entry index (0xFF none), the stop byte, and the
 * three corpus argument specs. */
static size_t compile_header(uint8_t *h, int entry, uint8_t stop)
{
    size_t n = 0;
    h[n++] = entry < 0 ? 0xFF : (uint8_t)entry;
    h[n++] = 0xFF;      /* function: none */
    h[n++] = stop;
    h[n++] = 0;         /* skip nothing */
    h[n++] = 3 << 4;    /* no constants, three args */
    h[n++] = 0;         /* line 1, column 0 */
    static const struct { uint8_t name; int16_t rows, cols; } specs[3] = {{0, 256, 128}, {1, 256, 128}, {2, 128, 128}};
    for (int i = 0; i < 3; i++) {
        h[n++] = specs[i].name;
        h[n++] = 1 << 3; /* tensor, FP32, rank 2 */
        int16_t shape[4] = {specs[i].rows, specs[i].cols, 0, 0};
        for (int d = 0; d < 4; d++) h[n++] = (uint8_t)shape[d], h[n++] = (uint8_t)((uint16_t)shape[d] >> 8);
        for (int k = 0; k < 9; k++) h[n++] = 0;
    }
    return n;
}

static void compile_seeds(const char *tag, const char *text, size_t len)
{
    char names[FUZZ_DSL_MAX_NAMES][FUZZ_DSL_NAME_LEN];
    int n = fuzz_dsl_scan_names(text, len, names);
    static const uint8_t stops[] = {0, 0x80 + PTO_STAGE_SYNTAX, 0x80 + PTO_STAGE_PARSE, 0x80 + PTO_STAGE_SCOPES, 0x80 + PTO_STAGE_CACHE};
    uint8_t head[128];
    char name[256];
    for (int e = -1; e < n; e++)
        for (size_t s = 0; s < sizeof stops; s++) {
            if (e < 0 && s > 0) continue;
            size_t nh = compile_header(head, e, stops[s]);
            snprintf(name, sizeof name, "%s-%s-stop%u", tag, e < 0 ? "none" : names[e], (unsigned)stops[s]);
            write_seed("compile", name, head, nh, text, len);
        }
}

static void compile_file_seeds(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) die("cannot read", path);
    static char text[1 << 20];
    size_t len = fread(text, 1, sizeof text, f);
    fclose(f);
    const char *base = strrchr(path, '/');
    char tag[128];
    snprintf(tag, sizeof tag, "file-%s", base ? base + 1 : path);
    compile_seeds(tag, text, len);
}

/* ---- stats -------------------------------------------------------------- */

static int seed_kernel(const pto_kernel_args *a)
{
    (void)a;
    return 0;
}

static void stats_seeds(void)
{
    char dir[] = "/tmp/pto-fuzz-seeds-XXXXXX";
    if (!mkdtemp(dir)) die("cannot create a temporary directory", dir);
    pto_config cfg;
    memset(&cfg, 0, sizeof cfg);
    for (int r = 0; r < PTO_NUM_RINGS; r++) {
        cfg.runtime_env.ring_task_window[r] = 64;
        cfg.runtime_env.ring_heap[r] = 1 << 16;
        cfg.runtime_env.ring_dep_pool[r] = 256;
    }
    cfg.num_workers = 1;
    cfg.enable_scope_stats = 1;
    cfg.output_prefix = dir;
    pto_runtime *rt;
    pto_error err;
    if (pto_runtime_create(&cfg, &rt, &err) != 0) {
        fprintf(stderr, "fuzz_seeds: pto_runtime_create: %s\n", err.message);
        exit(1);
    }
    static uint64_t buf[256];
    for (int outer = 0; outer < 3; outer++) {
        pto_scope_begin(rt, PTO_SCOPE_AUTO, "seed.c", 10 + outer);
        for (int depth = 0; depth < 4; depth++) {
            pto_scope_begin(rt, depth == 3 ? PTO_SCOPE_MANUAL : PTO_SCOPE_AUTO, "seed.c", 20 + depth);
            for (int k = 0; k < 3 + depth; k++) {
                pto_arg a[2] = {{PTO_ARG_INOUT, pto_view_1d(buf, 8, k * 8, 8, PTO_INVALID_TASK_ID)},
                                {PTO_ARG_OUT, {NULL, 8, 1, {16 << depth}, {1}, 0, 0}}};
                pto_task t = {seed_kernel, NULL, "seed", a, 2, NULL, 0, NULL, 0, 0};
                pto_task_submit(rt, &t, NULL);
            }
            void *addr;
            pto_tensor_alloc(rt, 4096, &addr, NULL);
        }
        for (int depth = 0; depth < 4; depth++) pto_scope_end(rt);
        pto_scope_end(rt);
    }
    if (pto_runtime_finish(rt) != 0) {
        fprintf(stderr, "fuzz_seeds: the seed run failed: %s\n", pto_runtime_error(rt)->message);
        exit(1);
    }
    pto_runtime_destroy(rt);
    char path[4096];
    snprintf(path, sizeof path, "%s/scope_stats/scope_stats.jsonl", dir);
    FILE *f = fopen(path, "rb");
    if (!f) die("cannot read", path);
    static char text[1 << 20];
    size_t len = fread(text, 1, sizeof text, f);
    fclose(f);
    write_seed("stats", "run", NULL, 0, text, len);
    write_seed("stats", "run-cut", NULL, 0, text, len * 2 / 3);
    const char *nl = memchr(text, '\n', len);
    if (nl) write_seed("stats", "run-header", NULL, 0, text, (size_t)(nl - text) + 1);
    unlink(path);
    snprintf(path, sizeof path, "%s/scope_stats", dir);
    rmdir(path);
    rmdir(dir);
}

/* ---- config and api ----------------------------------------------------- */

static void config_seeds(void)
{
    uint8_t seed[64];
    memset(seed, 0, sizeof seed);
    write_seed("config", "defaults", NULL, 0, seed, sizeof seed);
    /* mode 1 (create), every ring field from the edge table: window 4, heap 1024, pool 4. */
    seed[0] = 1;
    for (int r = 0; r < PTO_NUM_RINGS; r++) seed[1 + 3 * r] = 4, seed[2 + 3 * r] = 8, seed[3 + 3 * r] = 4;
    seed[13] = 1, seed[14] = 1; /* num_workers: small 1 */
    seed[15] = 1, seed[16] = 100; /* stall 100 ms */
    seed[17] = 0x08;              /* log_ring_sizes */
    write_seed("config", "small-create", NULL, 0, seed, 32);
    seed[2] = 200; /* a ring heap from raw edge values */
    write_seed("config", "bad-heap", NULL, 0, seed, sizeof seed);
}

static void api_seeds(void)
{
    /* rings: windows 16, heaps 64 KiB, pools 256; then ops (fuzz_api.c's op % 16). */
    static const uint8_t nested[] = {
        0xAA, 0xAA, 0xAA,
        0, 0,                                      /* begin AUTO */
        4, 1, 0, 1, 5, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 3, 7, 0, 0, 3, 9, 0, /* AXPY */
        4, 5, 1, 2, 40, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 9, 0, 0,      /* PRODUCE */
        0, 1,                                      /* begin MANUAL */
        4, 6, 1, 2, 0, 7, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 1, 3, 5, 0, 0, 0,    /* CONSUME */
        10, 3,                                     /* alloc 1024 */
        2,                                         /* end */
        11, 0, 0, 0, 63,                           /* wait */
        13, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        9, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 28, /* invalid */
        15,                                        /* finish */
        4, 3, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        2, 15};
    write_seed("api", "nested", NULL, 0, nested, sizeof nested);
    uint64_t s = 0x5eed;
    for (int k = 0; k < 8; k++) {
        uint8_t bytes[600];
        size_t n = 64 + 64 * (size_t)k;
        for (size_t i = 0; i < n; i++) bytes[i] = (uint8_t)base_splitmix64(&s);
        char name[32];
        snprintf(name, sizeof name, "random-%d", k);
        write_seed("api", name, NULL, 0, bytes, n);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s OUT [FILE.py...]  (writes the fuzz harnesses' seed corpora)\n", argv[0]);
        return 2;
    }
    g_out = argv[1];
    make_dir(g_out);
    for (size_t i = 0; i < DSL_CORPUS_N; i++) {
        char tag[64];
        snprintf(tag, sizeof tag, "corpus%zu", i);
        compile_seeds(tag, dsl_corpus[i].text, strlen(dsl_corpus[i].text));
    }
    for (int i = 2; i < argc; i++) compile_file_seeds(argv[i]);
    stats_seeds();
    config_seeds();
    api_seeds();
    printf("fuzz_seeds: wrote the seed corpora under %s\n", g_out);
    return 0;
}
