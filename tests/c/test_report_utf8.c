/*
 * test_report_utf8.c - the report's warnings stay well-formed UTF-8 whatever
 * bytes the file holds (docs/tools.md: the page is UTF-8).  Found by
 * tests/fuzz/fuzz_stats.c: a cut-off last record's site is raw text, never
 * validated, and warnings, verdicts and the summary's site column were cut
 * by bytes.
 *
 * test_cut_record_site_keeps_whole_utf8_characters: the site of a cut-off
 * record keeps only its whole, valid UTF-8 characters (an invalid byte ends
 * it; the 127-byte limit never splits a character).
 * test_long_warning_is_cut_between_utf8_characters: a warning longer than
 * its buffer (an end without begin for a long site) is cut between
 * characters.
 * test_summary_site_cell_is_cut_between_utf8_characters: the text
 * summary's site column (95 bytes) never splits a character.
 * test_verdict_is_cut_between_utf8_characters: a verdict naming long sites
 * (1023 bytes at most) is cut between characters.
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

/* One begin or end record on ring with task_window_end tw (the other counters 0). */
static void record(char *body, size_t cap, const char *site, const char *phase, int ring, int tw)
{
    size_t n = strlen(body);
    snprintf(body + n, cap - n,
             "{\"site\": \"%s\", \"phase\": \"%s\", \"depth\": %d, \"ring\": %d, \"task_window_start\": %d, "
             "\"task_window_end\": %d, \"heap_start\": 0, \"heap_end\": 0, \"dep_pool_start\": 1, "
             "\"dep_pool_end\": 1, \"tensormap\": 0}\n",
             site, phase, ring, ring, tw, tw);
}

/* n copies of the two-byte character U+00E9 after prefix. */
static void long_site(char *out, const char *prefix, int n)
{
    strcpy(out, prefix);
    for (int i = 0; i < n; i++) strcat(out, "\xc3\xa9");
}

static void test_summary_site_cell_is_cut_between_utf8_characters(void **state)
{
    (void)state;
    char dir[64], site[256], body[4096] = "";
    ru_tempdir(dir, sizeof dir);
    long_site(site, "", 60); /* 120 bytes: the 95-byte cell ends inside the 48th */
    record(body, sizeof body, site, "begin", 0, 0);
    record(body, sizeof body, site, "end", 0, 3);
    ss_data d;
    load_raw(dir, body, &d);
    ss_summary s;
    assert_int_equal(ss_summary_build(&d, 1.5, &s), SS_OK);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    assert_int_equal(ss_text_write(f, &d, &s), SS_OK);
    assert_int_equal(fclose(f), 0);
    if (!utf8_ok(text)) print_error("not UTF-8:\n%s\n", text);
    assert_true(utf8_ok(text));
    long_site(site, " ", 47);
    assert_non_null(strstr(text, site));
    free(text);
    ss_file_free(&d);
    rmdir(dir);
}

static void test_verdict_is_cut_between_utf8_characters(void **state)
{
    (void)state;
    char dir[64], site[1024];
    ru_tempdir(dir, sizeof dir);
    /* Ring 0 at 15 of 16 slots in three scopes with 400-character sites,
     * ring 1 idle: an imbalance verdict lists the three sites.  A one- or
     * two-letter prefix on the first site puts the cut at both parities. */
    for (int extra = 0; extra < 2; extra++) {
        static char body[16384];
        body[0] = '\0';
        for (int k = 0; k < 3; k++) {
            char prefix[8];
            snprintf(prefix, sizeof prefix, "%c%s", 'a' + k, extra && k == 0 ? "x" : "");
            long_site(site, prefix, 400);
            record(body, sizeof body, site, "begin", 0, 0);
            record(body, sizeof body, site, "end", 0, 15);
        }
        record(body, sizeof body, "idle.py:1", "begin", 1, 0);
        record(body, sizeof body, "idle.py:1", "end", 1, 0);
        ss_data d;
        load_raw(dir, body, &d);
        ss_summary s;
        assert_int_equal(ss_summary_build(&d, 1.5, &s), SS_OK);
        int imbalance = 0;
        for (int i = 0; i < s.nverdicts; i++) {
            if (!utf8_ok(s.verdicts[i].text)) print_error("verdict %d not UTF-8: %s\n", i, s.verdicts[i].text);
            assert_true(utf8_ok(s.verdicts[i].text));
            imbalance += s.verdicts[i].kind == SS_V_IMBALANCE && strlen(s.verdicts[i].text) >= 1020;
        }
        assert_int_equal(imbalance, 1);
        ss_file_free(&d);
    }
    rmdir(dir);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_cut_record_site_keeps_whole_utf8_characters),
    cmocka_unit_test(test_long_warning_is_cut_between_utf8_characters),
    cmocka_unit_test(test_summary_site_cell_is_cut_between_utf8_characters),
    cmocka_unit_test(test_verdict_is_cut_between_utf8_characters),
};

PTO_TEST_MAIN(tests)
