/*
 * harness.h - shared main() for the cmocka test files.
 *
 * ctest runs each test on its own: `test_file test_name` runs only that test;
 * with no argument the whole file runs.  Each file ends with
 * PTO_TEST_MAIN(tests) after its `static const struct CMUnitTest tests[]`.
 */
#ifndef PTO_TEST_HARNESS_H
#define PTO_TEST_HARNESS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#define PTO_TEST_MAIN(tests)                                                  \
    int main(int argc, char **argv)                                           \
    {                                                                         \
        if (argc > 1) cmocka_set_test_filter(argv[1]);                        \
        return cmocka_run_group_tests(tests, NULL, NULL);                     \
    }

#endif
