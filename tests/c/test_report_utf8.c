/*
 * test_report_utf8.c - the report's warnings stay well-formed UTF-8 whatever
 * bytes the file holds (docs/tools.md: the page is UTF-8).  Found by
 * tests/fuzz/fuzz_stats.c: a cut-off last record's site is raw text, never
 * validated, and warnings are cut by bytes.
 *
 * test_cut_record_site_keeps_whole_utf8_characters: the site of a cut-off
 * record keeps only its whole, valid UTF-8 characters (an invalid byte ends
 * it; the 127-byte limit never splits a character).
 * test_long_warning_is_cut_between_utf8_characters: a warning longer than
 * its buffer (an end without begin for a long site) is cut between
 * characters.
 */
#include "harness.h"
#include "reportutil.h"

/* 1 if s is well-formed UTF-8. */
static int utf8_ok(const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    while (*s) {
        unsigned c = *s, cp, min;
        int k;
        if (c < 0x80) {
            s++;
            continue;
        }
        if ((c & 0xE0) == 0xC0) k = 1, cp = c & 0x1F, min = 0x80;
        else if ((c & 0xF0) == 0xE0) k = 2, cp = c & 0x0F, min = 0x800;
        else if ((c & 0xF8) == 0xF0) k = 3, cp = c & 0x07, min = 0x10000;
        else return 0;
        for (int j = 1; j <= k; j++) {
            if ((s[j] & 0xC0) != 0x80) return 0;
            cp = cp << 6 | (s[j] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
        s += k + 1;
    }
    return 1;
}

/* Writes the metadata line and then body (raw) to dir/name; loads it. */
static void load_raw(const char *dir, const char *body, ss_data *d)
{
    char path[600], err[1024];
    snprintf(path, sizeof path, "%s/scope_stats.jsonl", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"version\": 6, \"fatal\": true, \"dropped\": 0, \"total\": 1, \"task_window_max\": [16, 16, 16, 16], "
          "\"heap_max\": [1024, 1024, 1024, 1024], \"dep_pool_max\": [16, 16, 16, 16], \"tensormap_max\": 65536}\n",
          f);
    fputs(body, f);
    assert_int_equal(fclose(f), 0);
    int rc = ss_file_load(path, d, err, sizeof err);
    if (rc != SS_OK) print_error("load failed: %s\n", err);
    assert_int_equal(rc, SS_OK);
    unlink(path);
}

static void test_cut_record_site_keeps_whole_utf8_characters(void **state)
{
    (void)state;
    char dir[64];
    ru_tempdir(dir, sizeof dir);
    ss_data d;

    /* Invalid bytes: the site reads up to them. */
    load_raw(dir, "{\"site\": \"k\xff\xfe.py:1\", \"phase\": \"beg", &d);
    assert_int_equal(d.nwarnings, 1);
    assert_true(utf8_ok(d.warnings[0]));
    assert_non_null(strstr(d.warnings[0], "run ended inside scope k (no end record)"));
    ss_file_free(&d);

    /* 100 two-byte characters: 63 fit in the 127 bytes, the 64th is not split. */
    char body[512] = "{\"site\": \"";
    for (int i = 0; i < 100; i++) strcat(body, "\xc3\xa9");
    strcat(body, "\", \"phase\": \"be");
    load_raw(dir, body, &d);
    assert_int_equal(d.nwarnings, 1);
    if (!utf8_ok(d.warnings[0])) print_error("not UTF-8: %s\n", d.warnings[0]);
    assert_true(utf8_ok(d.warnings[0]));
    char want[256] = "inside scope ";
    for (int i = 0; i < 63; i++) strcat(want, "\xc3\xa9");
    strcat(want, " (no end record)");
    assert_non_null(strstr(d.warnings[0], want));
    ss_file_free(&d);
    rmdir(dir);
}

static void test_long_warning_is_cut_between_utf8_characters(void **state)
{
    (void)state;
    char dir[64];
    ru_tempdir(dir, sizeof dir);
    /* An end without begin for a 1200-byte site; the odd-length prefix
     * "warning: <dir>/scope_stats.jsonl:2: end without begin for " is tried
     * at both parities by a one-character longer site. */
    for (int extra = 0; extra < 2; extra++) {
        char body[4096] = "{\"site\": \"";
        if (extra) strcat(body, "x");
        for (int i = 0; i < 600; i++) strcat(body, "\xc3\xa9");
        strcat(body, "\", \"phase\": \"end\", \"depth\": 0, \"ring\": 0, \"task_window_start\": 0, "
                     "\"task_window_end\": 0, \"heap_start\": 0, \"heap_end\": 0, \"dep_pool_start\": 1, "
                     "\"dep_pool_end\": 1, \"tensormap\": 0}\n");
        ss_data d;
        load_raw(dir, body, &d);
        assert_true(d.nwarnings >= 1);
        assert_non_null(strstr(d.warnings[0], "end without begin for "));
        if (!utf8_ok(d.warnings[0])) print_error("not UTF-8 (site %s): %s\n", extra ? "x + 600" : "600", d.warnings[0]);
        assert_true(utf8_ok(d.warnings[0]));
        assert_true(strlen(d.warnings[0]) >= 1020);
        ss_file_free(&d);
    }
    rmdir(dir);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_cut_record_site_keeps_whole_utf8_characters),
    cmocka_unit_test(test_long_warning_is_cut_between_utf8_characters),
};

PTO_TEST_MAIN(tests)
