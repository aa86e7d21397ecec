/*
 * test_version.c - the library's version (pto/version.h): pto_version()
 * encodes the three numbers the header sets, and pto_version_string()
 * spells them, exactly as PTO_VERSION_STRING does.
 */
#include <stdio.h>

#include "harness.h"
#include "pto/runtime.h"

static void test_version_number_encodes_major_minor_patch(void **state)
{
    (void)state;
    assert_int_equal(pto_version(), PTO_VERSION_MAJOR * 10000 + PTO_VERSION_MINOR * 100 + PTO_VERSION_PATCH);
}

static void test_version_string_spells_the_header_numbers(void **state)
{
    (void)state;
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", PTO_VERSION_MAJOR, PTO_VERSION_MINOR, PTO_VERSION_PATCH);
    assert_string_equal(pto_version_string(), want);
    assert_string_equal(PTO_VERSION_STRING, want);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_version_number_encodes_major_minor_patch),
    cmocka_unit_test(test_version_string_spells_the_header_numbers),
};

PTO_TEST_MAIN(tests)
