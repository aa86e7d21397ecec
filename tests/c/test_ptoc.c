/*
 * test_ptoc.c - the compiler driver as a user runs it (docs/tools.md,
 * "ptoc"): `lower` prints what pto_compile prints, `--after` and
 * `--listing` choose what, `check` prints every diagnostic with exit
 * status 1, bad usage exits 2; and the seed script with random byte
 * mutations goes through `ptoc check` with exit status 0 or 1, never a
 * signal.
 */
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "dsl_compile.h"
#include "dsl_examples.h"
#include "base/file.h"
#include "proc.h"

#define DIR PTO_TEST_ARTIFACTS
#define SHAPES "--shape", "a=256x128:fp32", "--shape", "out=256x128:fp32"

static void write_file(const char *path, const char *text, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, n, f), n);
    fclose(f);
}

/* DIR/ptoc-<pid>-<name>: ctest runs these tests as parallel processes. */
static const char *path(const char *name)
{
    static char buf[4][512];
    static int next;
    char *p = buf[next++ % 4];
    mkdir(DIR, 0755);
    snprintf(p, sizeof buf[0], "%s/ptoc-%ld-%s", DIR, (long)getpid(), name);
    return p;
}

static const char *seed_file(void)
{
    const char *p = path("seed.py");
    write_file(p, dsl_seed_script, strlen(dsl_seed_script));
    return p;
}

/* Runs ptoc with args; *out and *err get its output (free them). */
static int ptoc(char **out, char **err, char *const *args)
{
    char *argv[32] = {PTOC_PATH};
    int n = 1;
    for (; args[n - 1] && n < 31; n++) argv[n] = args[n - 1];
    argv[n] = NULL;
    char o[512], e[512];
    snprintf(o, sizeof o, "%s", path("out"));
    snprintf(e, sizeof e, "%s", path("err"));
    int rc = proc_run(argv, o, e);
    *out = base_read_file(o, NULL);
    *err = base_read_file(e, NULL);
    assert_non_null(*out);
    assert_non_null(*err);
    return rc;
}

static void test_ptoc_lower_prints_the_compiled_program(void **s)
{
    (void)s;
    char *out, *err;
    char *args[] = {"lower", (char *)seed_file(), "--func", "manual_placement", SHAPES, NULL};
    assert_int_equal(ptoc(&out, &err, args), 0);
    pto_program *p = dsl_compile(dsl_seed_script, "manual_placement", PTO_STAGE_ALL);
    assert_string_equal(out, pto_program_text(p));
    assert_non_null(strstr(out, "# a: In [i*64:i*64+64, 0:128]; out: Out [i*64:i*64+64, 0:128]"));
    assert_string_equal(err, "");
    pto_program_free(p);
    free(out), free(err);
}

static void test_ptoc_after_and_listing_choose_the_output(void **s)
{
    (void)s;
    char *out, *err;
    char *parse[] = {"lower", (char *)seed_file(), "--func", "scaled", SHAPES, "--after", "parse", NULL};
    assert_int_equal(ptoc(&out, &err, parse), 0);
    assert_non_null(strstr(out, "with pl.at(level=pl.Level.CORE_GROUP):"));
    free(out), free(err);
    char *listing[] = {"lower", (char *)seed_file(), "--func", "scaled", SHAPES, "--listing", NULL};
    assert_int_equal(ptoc(&out, &err, listing), 0);
    assert_non_null(strstr(out, "SUBMIT"));
    assert_non_null(strstr(out, "SCOPE_BEGIN AUTO"));
    free(out), free(err);
}

static void test_ptoc_check_prints_diagnostics_and_exits_1(void **s)
{
    (void)s;
    const char *bad = "import pypto.language as pl\n\n@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                      "    with pl.scope(1):\n        pass\n    return out\n";
    char file[512], want[1024];
    snprintf(file, sizeof file, "%s", path("bad.py"));
    write_file(file, bad, strlen(bad));
    char *out, *err;
    char *args[] = {"check", file, SHAPES, NULL};
    assert_int_equal(ptoc(&out, &err, args), 1);
    snprintf(want, sizeof want, "%s:5:10: error: pl.scope() takes only a 'mode=' keyword, not positional arguments\n"
                                "    with pl.scope(1):\n         ^^^^^^^^^^^\n", file);
    assert_non_null(strstr(err, want));
    assert_string_equal(out, "");
    free(out), free(err);
    char *good[] = {"check", (char *)seed_file(), SHAPES, NULL};
    assert_int_equal(ptoc(&out, &err, good), 0);
    assert_string_equal(err, "");
    free(out), free(err);
}

static void test_ptoc_check_names_entries_it_cannot_specialize(void **s)
{
    (void)s;
    char *out, *err;
    char *args[] = {"check", (char *)seed_file(), NULL};
    assert_int_equal(ptoc(&out, &err, args), 0);
    assert_non_null(strstr(err, "ptoc: note: 'manual_placement' checked without shapes (pass --shape)"));
    assert_non_null(strstr(err, "ptoc: note: 'scaled' checked without shapes (pass --shape)"));
    free(out), free(err);
}

static void test_ptoc_bad_usage_exits_2(void **s)
{
    (void)s;
    char *out, *err;
    char *cases[][8] = {
        {"lower", (char *)seed_file(), NULL},                                     /* no --func */
        {"run", (char *)seed_file(), NULL},                                       /* no such command */
        {"lower", (char *)seed_file(), "--func", "scaled", "--after", "nope", NULL}, /* no such stage */
        {"lower", (char *)seed_file(), "--func", "scaled", "--shape", "a=0x4:fp32", NULL},
        {"lower", (char *)seed_file(), "--func", "scaled", "--shape", "a=4x4:fp64", NULL},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        assert_int_equal(ptoc(&out, &err, cases[k]), 2);
        assert_non_null(strstr(err, "usage: ptoc lower"));
        free(out), free(err);
    }
}

static void test_ptoc_const_and_scalar_reach_the_compile(void **s)
{
    (void)s;
    char *out, *err;
    char *args[] = {"lower", (char *)seed_file(), "--func", "scaled", SHAPES, "--const", "N=2", "--after", "parse", NULL};
    assert_int_equal(ptoc(&out, &err, args), 0);
    assert_non_null(strstr(out, "for i in pl.range(2):"));
    free(out), free(err);
}

/* Random byte mutations of the seed script through `ptoc check`: a result
 * or diagnostics, never a crash (the in-process run over thousands of
 * inputs is test_dsl_roundtrip's; this one covers the driver). */
static void test_ptoc_check_mutations_exit_0_or_1(void **s)
{
    (void)s;
    size_t len = strlen(dsl_seed_script);
    char *buf = malloc(len);
    assert_non_null(buf);
    uint64_t seed = 0xc0ffee;
    char file[512];
    snprintf(file, sizeof file, "%s", path("mutant.py"));
    for (size_t iter = len; iter < len + 150; iter++) {
        size_t n = dsl_mutant(buf, dsl_seed_script, len, iter, &seed);
        write_file(file, buf, n);
        char *out, *err;
        char *args[] = {"check", file, SHAPES, NULL};
        int rc = ptoc(&out, &err, args);
        if (rc != 0 && rc != 1) fprintf(stderr, "ptoc check exited %d on:\n%.*s\n%s\n", rc, (int)n, buf, err);
        assert_true(rc == 0 || rc == 1);
        free(out), free(err);
    }
    free(buf);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_ptoc_lower_prints_the_compiled_program),
    cmocka_unit_test(test_ptoc_after_and_listing_choose_the_output),
    cmocka_unit_test(test_ptoc_check_prints_diagnostics_and_exits_1),
    cmocka_unit_test(test_ptoc_check_names_entries_it_cannot_specialize),
    cmocka_unit_test(test_ptoc_bad_usage_exits_2),
    cmocka_unit_test(test_ptoc_const_and_scalar_reach_the_compile),
    cmocka_unit_test(test_ptoc_check_mutations_exit_0_or_1),
};

PTO_TEST_MAIN(tests)
