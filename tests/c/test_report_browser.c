/*
 * test_report_browser.c - the report page in a real browser (docs/tools.md,
 * "The page").
 *
 * Headless Chromium (Debian's `chromium`, see scripts/install-deps.sh) loads
 * the page from disk with name resolution mapped to nothing.  Checks: the
 * page requests nothing (the net log holds no request made on behalf of the
 * file:// page; the browser's own background traffic has no file:// origin
 * and is ignored), no console message (the page has no script, so any is an
 * error or a failed load), one pressure + one alloc chart per resource x ring
 * with data plus one tensormap chart, and points = paired scopes x series.
 * The same checker must flag a canary page that fetches and logs, so a blind
 * checker cannot pass.  The screenshot stays in build/test-artifacts/.
 * A missing chromium fails the test.
 */
#include "harness.h"

#include <jansson.h>
#include <sys/stat.h>

#include "base/file.h"
#include "proc.h"
#include "reportutil.h"

#define ART SS_ARTIFACT_DIR

/* Loads file://page in headless Chromium, network off.  mode: "--dump-dom"
 * (DOM to out) or a --screenshot=... flag.  Returns chromium's status. */
static int chromium(const char *page, const char *mode, const char *tag)
{
    char profile[600], netlog[640], out[600], err[600], url[700], dir[700];
    snprintf(profile, sizeof profile, "%s/chromium-profile-%s", ART, tag);
    snprintf(netlog, sizeof netlog, "--log-net-log=%s/%s.netlog.json", ART, tag);
    snprintf(out, sizeof out, "%s/%s.out", ART, tag);
    snprintf(err, sizeof err, "%s/%s.log", ART, tag);
    snprintf(url, sizeof url, "file://%s", page);
    snprintf(dir, sizeof dir, "--user-data-dir=%s", profile);
    char *clean[] = {"rm", "-rf", profile, NULL};
    proc_run(clean, "/dev/null", "/dev/null");
    char *argv[] = {"timeout", "60", "chromium", "--headless=new", "--no-sandbox",
                    "--disable-gpu", "--no-first-run", "--no-default-browser-check",
                    "--disable-background-networking", "--disable-component-update",
                    "--disable-sync", "--disable-extensions", "--hide-scrollbars", dir,
                    "--host-resolver-rules=MAP * ~NOTFOUND", netlog, "--enable-logging=stderr",
                    "--v=0", "--window-size=1280,4000", (char *)mode, url, NULL};
    int rc = proc_run(argv, out, err);
    proc_run(clean, "/dev/null", "/dev/null");
    return rc;
}

/* Problems a page load showed: console lines and requests made for the
 * page (initiator file:// / opaque origin) to anything but file:. */
static int page_problems(const char *tag, char *why, size_t len)
{
    char path[600];
    int bad = 0;
    why[0] = '\0';
    snprintf(path, sizeof path, "%s/%s.log", ART, tag);
    char *log = base_read_file(path, NULL);
    assert_non_null(log);
    for (char *l = strtok(log, "\n"); l; l = strtok(NULL, "\n"))
        if (strstr(l, "CONSOLE") || strstr(l, "Uncaught")) {
            bad++;
            snprintf(why + strlen(why), len - strlen(why), "console: %.200s\n", l);
        }
    free(log);
    snprintf(path, sizeof path, "%s/%s.netlog.json", ART, tag);
    json_error_t je;
    json_t *nl = json_load_file(path, 0, &je);
    if (!nl) fail_msg("net log %s unreadable: %s", path, je.text);
    json_t *types = json_object_get(json_object_get(nl, "constants"), "logEventTypes");
    json_int_t start = json_integer_value(json_object_get(types, "URL_REQUEST_START_JOB"));
    assert_true(start > 0);
    size_t i;
    json_t *ev;
    json_array_foreach(json_object_get(nl, "events"), i, ev) {
        if (json_integer_value(json_object_get(ev, "type")) != start) continue;
        json_t *p = json_object_get(ev, "params");
        const char *url = json_string_value(json_object_get(p, "url"));
        const char *init = json_string_value(json_object_get(p, "initiator"));
        const char *nik = json_string_value(json_object_get(p, "network_isolation_key"));
        int for_page = (init && !strcmp(init, "null")) || (nik && strstr(nik, "file://"));
        if (for_page && url && strncmp(url, "file:", 5)) {
            bad++;
            snprintf(why + strlen(why), len - strlen(why), "request: %.200s\n", url);
        }
    }
    json_decref(nl);
    return bad;
}

/* In dom, the chart with these data-* attributes: its count (must be 1),
 * its "pt" elements and their <title>s. */
static int find_chart(const char *dom, const char *res, const char *ring, const char *kind,
                      int *pts, int *titles, long *scopes, int *series)
{
    char head[256];
    int found = 0;
    snprintf(head, sizeof head,
             "<svg class=\"chart\" data-resource=\"%s\" data-ring=\"%s\" data-kind=\"%s\"", res,
             ring, kind);
    for (const char *p = strstr(dom, head); p; p = strstr(p + 1, head)) {
        found++;
        const char *end = strstr(p, "</svg>");
        assert_non_null(end);
        assert_int_equal(sscanf(p + strlen(head), " data-scopes=\"%ld\" data-series=\"%d\"",
                                scopes, series),
                         2);
        *pts = *titles = 0;
        for (const char *q = strstr(p, "class=\"pt "); q && q < end; q = strstr(q + 1, "class=\"pt "))
            (*pts)++;
        for (const char *q = strstr(p, "<title>"); q && q < end; q = strstr(q + 1, "<title>"))
            (*titles)++;
    }
    return found;
}

static int count(const char *s, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

static void test_report_html_browser(void **state)
{
    (void)state;
    char jsonl[600], html[600], out[600], err[600], why[4096];
    mkdir(ART, 0755);

    /* chromium must be there: a missing browser is a failure, not a skip */
    char *version[] = {"timeout", "60", "chromium", "--version", NULL};
    snprintf(out, sizeof out, "%s/chromium-version.txt", ART);
    if (proc_run(version, out, "/dev/null") != 0)
        fail_msg("chromium is not installed or does not run: scripts/install-deps.sh installs it");

    /* rings 0, 1 and 3 with data (3, 4 and 3 paired scopes), ring 2 idle */
    static const long long tw[4] = {64, 64, 64, 64};
    static const struct { const char *ring; long scopes; } rings[3] = {{"0", 3}, {"1", 4}, {"3", 3}};
    ru_file t;
    ru_open(&t, ART, "report.jsonl", 6, 0, 0, 20, tw, NULL, NULL, 1);
    ru_begin(&t, "(root):0", 0);
    ru_scope(&t, "model.py:12", 0, 40, 3 << 20, 30, 12);
    ru_scope(&t, "model.py:12", 0, 52, 5 << 20, 41, 15);
    ru_begin(&t, "model.py:30", 1);
    for (int i = 0; i < 3; i++) {
        ru_begin(&t, "model.py:34", 3);
        ru_alloc(&t, 3, 6 + i, (1 + i) << 18, 4, 3);
        ru_record(&t, "model.py:34", "end", 3, 3, NULL);
        ru_drain(&t, 3, 3);
    }
    ru_alloc(&t, 1, 20, 8 << 20, 9, 2);
    ru_record(&t, "model.py:30", "end", 1, 1, NULL);
    ru_drain(&t, 1, 2);
    ru_scope(&t, "model.py:44", 1, 9, 1 << 20, 3, 4);
    ru_scope(&t, "model.py:44", 1, 11, 1 << 20, 3, 4);
    ru_scope(&t, "model.py:44", 1, 13, 2 << 20, 5, 4);
    ru_record(&t, "(root):0", "end", 0, 0, NULL);
    ru_close(&t);
    snprintf(jsonl, sizeof jsonl, "%s/report.jsonl", ART);
    snprintf(html, sizeof html, "%s/report.html", ART);

    /* the built binary writes the page; nothing in it can point elsewhere */
    char *tool[] = {SS_TOOL_PATH, jsonl, "--html", html, NULL};
    snprintf(out, sizeof out, "%s/report.txt", ART);
    snprintf(err, sizeof err, "%s/report.err", ART);
    assert_int_equal(proc_run(tool, out, err), 0);
    char *page = base_read_file(html, NULL);
    assert_non_null(page);
    static const char *const never[] = {"<script", "http:", "https:", "url(", "src=", "href=",
                                        "@import", "<link", "<img", "<iframe"};
    for (size_t i = 0; i < sizeof never / sizeof *never; i++)
        if (strstr(page, never[i])) fail_msg("the page contains \"%s\"", never[i]);
    free(page);

    /* loaded in the browser: nothing fetched, nothing logged */
    assert_int_equal(chromium(html, "--dump-dom", "report"), 0);
    if (page_problems("report", why, sizeof why)) fail_msg("report page:\n%s", why);
    snprintf(out, sizeof out, "%s/report.out", ART);
    char *dom = base_read_file(out, NULL);
    assert_non_null(dom);
    assert_non_null(strstr(dom, "</html>"));

    /* one chart pair per resource x ring with data; points = scopes x series */
    static const char *const res[3] = {"task_window", "heap", "dep_pool"};
    int pts, titles, series;
    long scopes;
    for (int r = 0; r < 3; r++)
        for (int k = 0; k < 3; k++) {
            assert_int_equal(find_chart(dom, res[r], rings[k].ring, "pressure", &pts, &titles,
                                        &scopes, &series), 1);
            assert_int_equal(scopes, rings[k].scopes);
            assert_int_equal(series, 3);
            assert_int_equal(pts, rings[k].scopes * 3);
            assert_int_equal(titles, pts);
            assert_int_equal(find_chart(dom, res[r], rings[k].ring, "alloc", &pts, &titles,
                                        &scopes, &series), 1);
            assert_int_equal(pts, rings[k].scopes);
            assert_int_equal(titles, pts);
        }
    assert_int_equal(count(dom, "data-ring=\"2\" data-kind="), 0);
    assert_int_equal(find_chart(dom, "tensormap", "all", "tensormap", &pts, &titles, &scopes,
                                &series), 1);
    assert_int_equal(scopes, 10);
    assert_int_equal(pts, 10 * series);
    assert_int_equal(count(dom, "<svg class=\"chart\""), 3 * 3 * 2 + 1);
    assert_non_null(strstr(dom, "<title>True peak, scope #2: 52 slots, site model.py:12</title>"));
    free(dom);

    /* the checker is not blind: a page that fetches and logs is flagged */
    char canary[600];
    snprintf(canary, sizeof canary, "%s/canary.html", ART);
    FILE *f = fopen(canary, "w");
    assert_non_null(f);
    fprintf(f, "<!DOCTYPE html><html><body><img src=\"http://canary.invalid/x.png\">"
               "<script>console.error('canary');</script></body></html>\n");
    fclose(f);
    assert_int_equal(chromium(canary, "--dump-dom", "canary"), 0);
    assert_true(page_problems("canary", why, sizeof why) >= 2);
    assert_non_null(strstr(why, "request: http://canary.invalid/x.png"));
    assert_non_null(strstr(why, "console:"));

    /* the screenshot is kept for people to look at */
    char shot[640];
    snprintf(shot, sizeof shot, "--screenshot=%s/report.png", ART);
    assert_int_equal(chromium(html, shot, "screenshot"), 0);
    if (page_problems("screenshot", why, sizeof why)) fail_msg("report page:\n%s", why);
    snprintf(out, sizeof out, "%s/report.png", ART);
    struct stat st;
    assert_int_equal(stat(out, &st), 0);
    assert_true(st.st_size > 20000);
    char *png = base_read_file(out, NULL);
    assert_int_equal(memcmp(png, "\x89PNG", 4), 0);
    free(png);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_report_html_browser),
};

PTO_TEST_MAIN(tests)
