/*
 * test_compile_api_edges.c - pto/compile.h's public calls at their edges
 * (docs/dsl.md, "Using the compiler from C"): pto_compile without options
 * or with a length but no text, the program accessors with a NULL program
 * or an index past the diagnostics, stage names past the last stage.
 *
 * Invariants: one test per rule; every call is made through the public
 * header only, and a failed pto_compile leaves no program behind.
 */
#include <stdint.h>
#include <string.h>

#include "harness.h"
#include "pto/compile.h"

static void test_compile_without_options_or_text_fails_and_returns_no_program(void **s)
{
    (void)s;
    pto_program *p = (pto_program *)&p; /* must be overwritten */
    assert_int_equal(pto_compile(NULL, &p), -1);
    assert_null(p);
    pto_compile_options o = {.filename = "k.py", .source = NULL, .source_len = 3, .entry = "f"};
    p = (pto_program *)&p;
    assert_int_equal(pto_compile(&o, &p), -1);
    assert_null(p);
}

static void test_program_accessors_answer_for_null_and_past_the_end(void **s)
{
    (void)s;
    char buf[16] = "x";
    assert_int_equal(pto_program_diag_count(NULL), 0);
    assert_null(pto_program_diag(NULL, 0));
    assert_int_equal(pto_program_diag_format(NULL, 0, buf, sizeof buf), 0);
    assert_string_equal(buf, "");
    assert_string_equal(pto_program_text(NULL), "");
    assert_string_equal(pto_program_listing(NULL), "");
    assert_null(pto_program_entry(NULL, 0));
    const char *src = "import pypto.language as pl\n\nx = (\n";
    pto_compile_options o = {.filename = "k.py", .source = src, .source_len = strlen(src), .entry = "f"};
    pto_program *p = NULL;
    assert_int_equal(pto_compile(&o, &p), 1);
    size_t n = pto_program_diag_count(p);
    assert_true(n >= 1);
    assert_null(pto_program_diag(p, n));
    strcpy(buf, "x");
    assert_int_equal(pto_program_diag_format(p, n, buf, sizeof buf), 0);
    assert_string_equal(buf, "");
    assert_int_equal(pto_program_diag_format(p, n, buf, 0), 0);
    pto_program_free(p);
    pto_program_free(NULL);
}

static void test_stage_names_round_trip_and_unknown_ones_are_refused(void **s)
{
    (void)s;
    for (int k = PTO_STAGE_SYNTAX; k < PTO_STAGE_COUNT; k++) assert_int_equal(pto_stage_lookup(pto_stage_name((pto_stage)k)), k);
    assert_string_equal(pto_stage_name((pto_stage)PTO_STAGE_COUNT), "?");
    assert_string_equal(pto_stage_name((pto_stage)-1), "?");
    assert_true(pto_stage_lookup("no-such-stage") < 0);
    assert_true(pto_stage_lookup(NULL) < 0);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_compile_without_options_or_text_fails_and_returns_no_program),
    cmocka_unit_test(test_program_accessors_answer_for_null_and_past_the_end),
    cmocka_unit_test(test_stage_names_round_trip_and_unknown_ones_are_refused),
};

PTO_TEST_MAIN(tests)
