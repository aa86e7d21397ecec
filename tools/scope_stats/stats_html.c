/*
 * stats_html.c - `--html OUT`: one self-contained page (docs/tools.md, "The page").
 *
 * Order: header with status chip, formula guide, top peaks with use bars,
 * verdicts, suggested RunConfig, then per resource (task window in slots,
 * heap in MiB, dep pool in entries) one panel per ring with data holding a
 * "Resource pressure" and an "Alloc per scope" chart, then one global
 * tensormap panel.  Inline CSS and SVG only: no script, no URL, nothing to
 * fetch.  A ring with more than SS_HTML_MAX_POINTS scopes is drawn in buckets
 * of consecutive scopes, each point the bucket's largest value.
 */
#include <stdlib.h>
#include <string.h>

#include "stats_chart.h"
#include "stats_report.h"
#include "stats_style.h"

#define SS_HTML_MAX_POINTS 1000

enum ss_metric { SS_M_HW, SS_M_LIVE, SS_M_PEAK, SS_M_ALLOC, SS_M_TM_LIVE, SS_M_TM_PEAK };

static const char *const ss_titles[SS_NRES] = {"Task window", "Heap", "Dep pool"};
static const char *const ss_display_units[SS_NRES] = {"slots", "MiB", "entries"};
static const char *const ss_kind_words[] = {"Constraint", "Imbalance", "Oversized",
                                            "Lower bound"};
static const char *const ss_kind_css[] = {"constraint", "imbalance", "oversized",
                                          "lower_bound"};

static int64_t ss_metric(const ss_scope *s, int metric, int res)
{
    switch (metric) {
    case SS_M_HW: return s->high_water[res];
    case SS_M_LIVE: return s->live_exit[res];
    case SS_M_PEAK: return s->peak[res];
    case SS_M_ALLOC: return s->alloc[res];
    case SS_M_TM_LIVE: return s->tm_live;
    default: return s->tm_peak;
    }
}

/* A table cell's value: bytes in B/KiB/MiB/GiB, counts as they are. */
static void ss_amount(char *buf, size_t len, int res, int64_t v)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double x = (double)v;
    int u = 0;
    if (res != SS_HEAP) {
        snprintf(buf, len, "%lld", (long long)v);
        return;
    }
    while (x >= 1024 && u < 4) x /= 1024, u++;
    if (u == 0)
        snprintf(buf, len, "%lld B", (long long)v);
    else
        snprintf(buf, len, "%.2f %s", x, units[u]);
}

/* Points of one metric over the scopes of ring (-1: all), bucketed. */
static size_t ss_points(const ss_data *d, int ring, int metric, int res, ss_point *pts)
{
    long count = ring < 0 ? (long)d->nscopes : d->ring_scopes[ring];
    long bucket = (count + SS_HTML_MAX_POINTS - 1) / SS_HTML_MAX_POINTS;
    size_t n = 0;
    long in_bucket = 0;
    if (bucket < 1) bucket = 1;
    for (size_t i = 0; i < d->nscopes; i++) {
        const ss_scope *s = &d->scopes[i];
        if (ring >= 0 && s->ring != ring) continue;
        long idx = ring < 0 ? s->global_index : s->ring_index;
        int64_t v = ss_metric(s, metric, res);
        if (in_bucket == 0) {
            pts[n++] = (ss_point){0, v, idx, idx, s->site};
        } else if (v > pts[n - 1].raw) {
            pts[n - 1].raw = v;
            pts[n - 1].site = s->site;
        }
        pts[n - 1].last = idx;
        if (++in_bucket == bucket) in_bucket = 0;
    }
    for (size_t i = 0; i < n; i++)
        pts[i].y = res == SS_HEAP && metric < SS_M_TM_LIVE ? (double)pts[i].raw / 1048576.0
                                                           : (double)pts[i].raw;
    return n;
}

static void ss_head(FILE *out, const ss_data *d)
{
    fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                 "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                 "<title>Scope stats: ");
    ss_html_text(out, d->path);
    fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<main>\n", ss_style_css);
}

static void ss_fact(FILE *out, const char *label, const char *value)
{
    fprintf(out, "<div class=\"fact\"><span>%s</span><b>%s</b></div>", label, value);
}

static void ss_header(FILE *out, const ss_data *d, const ss_summary *s)
{
    const char *chip = d->fatal ? "danger" : d->dropped > 0 ? "warn" : "ok";
    char buf[64];
    fprintf(out, "<header class=\"card\">\n<div class=\"titlebar\"><h1>Scope stats</h1>"
                 "<span class=\"chip %s\" id=\"status\">%s</span></div>\n<div class=\"path\">",
            chip, ss_summary_status(d));
    ss_html_text(out, d->path);
    fprintf(out, "</div>\n<div class=\"facts\">");
    snprintf(buf, sizeof buf, "%ld", d->records);
    ss_fact(out, "records", buf);
    snprintf(buf, sizeof buf, "%ld", s->paired);
    ss_fact(out, "paired scopes", buf);
    snprintf(buf, sizeof buf, "%lld", (long long)d->dropped);
    ss_fact(out, "dropped", buf);
    ss_fact(out, "risk metric", d->has_peaks ? "true peak" : "high water");
    fprintf(out, "</div>\n<p class=\"muted\">Risk metric: %s.</p>\n", ss_summary_risk_metric(d));
    fprintf(out, "<table class=\"sizes\"><tr><th>configured size</th>");
    for (int r = 0; r < SS_RINGS; r++) fprintf(out, "<th class=\"num\">ring %d</th>", r);
    fprintf(out, "</tr>\n<tr><td>paired scopes</td>");
    for (int r = 0; r < SS_RINGS; r++) fprintf(out, "<td class=\"num\">%ld</td>", d->ring_scopes[r]);
    fprintf(out, "</tr>\n");
    for (int res = 0; res < SS_NRES; res++) {
        if (res == SS_HEAP)
            fprintf(out, "<tr><td>heap</td>");
        else
            fprintf(out, "<tr><td>%s (%s)</td>", ss_resource_name(res), ss_summary_unit(res));
        for (int r = 0; r < SS_RINGS; r++) {
            ss_amount(buf, sizeof buf, res, d->capacity[res][r]);
            fprintf(out, "<td class=\"num\">%s</td>", buf);
        }
        fprintf(out, "</tr>\n");
    }
    fprintf(out, "<tr><td>tensormap (entries, global)</td><td class=\"num\" colspan=\"4\">%lld"
                 "</td></tr></table>\n",
            (long long)d->tm_capacity);
    if (d->nwarnings) {
        fprintf(out, "<ul class=\"warnings\">");
        for (size_t i = 0; i < d->nwarnings; i++) {
            fprintf(out, "<li>");
            ss_html_text(out, d->warnings[i]);
            fprintf(out, "</li>");
        }
        fprintf(out, "</ul>\n");
    }
    fprintf(out, "</header>\n");
}

static void ss_guide(FILE *out)
{
    fprintf(out,
            "<section class=\"card\" id=\"guide\"><h2>How to read the numbers</h2>\n"
            "<p class=\"muted\">Per paired begin/end record of a scope; X is task_window, heap "
            "or dep_pool, counted on the scope's own ring (the tensormap is global).</p>\n"
            "<table><tr><th>Metric</th><th>Formula</th><th>Reading</th></tr>\n"
            "<tr><td>High water</td><td><code>end.X_end - begin.X_start</code></td><td>upper "
            "bound: backlog at entry + all allocated in the scope; exceeds capacity for "
            "streaming scopes</td></tr>\n"
            "<tr><td>Live at exit</td><td><code>end.X_end - end.X_start</code>; tensormap "
            "<code>end.tensormap</code></td><td>in [0, capacity]; high = something long-lived "
            "is pinned</td></tr>\n"
            "<tr><td>Alloc per scope</td><td><code>end.X_end - begin.X_end</code></td><td>the "
            "scope's throughput</td></tr>\n"
            "<tr><td>True peak</td><td><code>end.peak_X</code></td><td>the risk metric (files "
            "without peak keys: high water; tensormap <code>end.tensormap</code>)</td></tr>\n"
            "</table>\n<p class=\"muted\">Use = risk metric / capacity: &ge; 80%% "
            "<span class=\"cls danger\">danger</span>, &ge; 50%% <span class=\"cls warn\">warn"
            "</span>, else <span class=\"cls ok\">ok</span>.</p></section>\n");
}

static void ss_peaks(FILE *out, const ss_summary *s)
{
    char peak[64], hw[64], cap[64];
    fprintf(out, "<section class=\"card\" id=\"top-peaks\"><h2>Top peaks</h2>\n");
    if (!s->nrows) {
        fprintf(out, "<p class=\"muted\">No paired scopes in this file.</p></section>\n");
        return;
    }
    fprintf(out, "<table><tr><th>resource</th><th class=\"num\">ring</th><th class=\"num\">peak"
                 "</th><th class=\"num\">high water</th><th class=\"num\">capacity</th>"
                 "<th>use</th><th>class</th><th>site</th><th class=\"num\">scope #</th></tr>\n");
    for (int i = 0; i < s->nrows; i++) {
        const ss_peak_row *row = &s->rows[i];
        double width = row->use > 1 ? 100 : 100 * row->use;
        ss_amount(peak, sizeof peak, row->resource, row->peak);
        ss_amount(hw, sizeof hw, row->resource, row->high_water);
        ss_amount(cap, sizeof cap, row->resource, row->capacity);
        fprintf(out, "<tr><td>%s</td><td class=\"num\">", ss_resource_name(row->resource));
        if (row->ring < 0)
            fprintf(out, "all");
        else
            fprintf(out, "%d", row->ring);
        fprintf(out, "</td><td class=\"num\">%s</td><td class=\"num\">%s</td><td class=\"num\">%s"
                     "</td><td><div class=\"use\"><div class=\"bar\"><span class=\"%s\" "
                     "style=\"width:%.1f%%\"></span></div>%.2f%%</div></td><td><span class=\"cls "
                     "%s\">%s</span></td><td class=\"site\">",
                peak, hw, cap, row->cls, width, 100 * row->use, row->cls, row->cls);
        ss_html_text(out, row->scope->site);
        fprintf(out, "</td><td class=\"num\">%ld</td></tr>\n", row->scope_index);
    }
    fprintf(out, "</table>\n<p class=\"muted\">Sorted by use, highest first. The tensormap's "
                 "scope # counts the scopes of all rings in end order.</p></section>\n");
}

static void ss_verdicts(FILE *out, const ss_summary *s)
{
    fprintf(out, "<section class=\"card\" id=\"verdicts\"><h2>Verdicts</h2>\n");
    if (!s->nverdicts)
        fprintf(out, "<p class=\"muted\">None: no ring is pinned, imbalanced or oversized.</p>\n");
    for (int i = 0; i < s->nverdicts; i++) {
        const ss_verdict *v = &s->verdicts[i];
        fprintf(out, "<div class=\"verdict %s\"><b>%s</b>", ss_kind_css[v->kind],
                ss_kind_words[v->kind]);
        ss_html_text(out, v->text);
        fprintf(out, "</div>\n");
    }
    fprintf(out, "</section>\n");
}

static void ss_paste(FILE *out, const ss_summary *s, int after)
{
    char buf[1024];
    if (!ss_summary_runconfig(s, after, buf, sizeof buf)) return;
    if (after) fprintf(out, "<h3>after rebalancing scopes:</h3>\n");
    fprintf(out, "<pre class=\"runconfig\">%s", buf);
    for (int res = 0; res < SS_NRES; res++)
        for (int r = 0; r < SS_RINGS; r++)
            if (s->imbalanced[res] == after && s->lower_bound[res][r])
                fprintf(out, "\n<span class=\"c\"># %s[%d] = %llu (lower bound: rerun to "
                             "confirm)</span>",
                        ss_summary_field(res), r, (unsigned long long)s->suggested[res][r]);
    fprintf(out, "</pre>\n<pre class=\"runtime-env\"><span class=\"c\">/* pto_config cfg = "
                 "{ ... */</span>");
    for (int res = 0; res < SS_NRES; res++) {
        if (s->imbalanced[res] != after) continue;
        ss_summary_runtime_env(s, res, buf, sizeof buf);
        fprintf(out, "\n%s", buf);
    }
    fprintf(out, "</pre>\n");
}

static void ss_suggested(FILE *out, const ss_summary *s)
{
    fprintf(out, "<section class=\"card\" id=\"suggested\"><h2>Suggested RunConfig</h2>\n"
                 "<p class=\"muted\">Headroom %.2f; 0 keeps the ring's default (no data on that "
                 "ring). Paste into Python, or the C lines into a <code>pto_config</code> "
                 "initializer.</p>\n",
            s->headroom);
    ss_paste(out, s, 0);
    ss_paste(out, s, 1);
    fprintf(out, "</section>\n");
}

/* One chart in a figure with its caption. */
static void ss_figure(FILE *out, const char *title, const ss_chart *c, const char *unit_word)
{
    fprintf(out, "<figure><figcaption>%s <small>", title);
    if (c->capacity >= 0 && !ss_chart_draws_capacity(c)) {
        if (!strcmp(c->unit, "MiB"))
            fprintf(out, "capacity %.2f MiB, not drawn: more than 2x the largest value",
                    c->capacity);
        else
            fprintf(out, "capacity %.0f %s, not drawn: more than 2x the largest value",
                    c->capacity, unit_word);
    } else if (c->capacity >= 0) {
        fprintf(out, "dashed line: capacity");
    }
    fprintf(out, "</small></figcaption>\n");
    ss_chart_write(out, c);
    fprintf(out, "</figure>\n");
}

static int ss_ring_panel(FILE *out, const ss_data *d, int res, int ring)
{
    size_t cap = d->ring_scopes[ring] < SS_HTML_MAX_POINTS ? (size_t)d->ring_scopes[ring]
                                                          : SS_HTML_MAX_POINTS;
    ss_point *pts = malloc(4 * (cap ? cap : 1) * sizeof *pts);
    if (!pts) return SS_EINPUT;
    char xl[64], title[128];
    snprintf(xl, sizeof xl, "scope # on ring %d (order in which scopes ended)", ring);
    ss_chart c = {ss_resource_name(res), ring, "pressure", ss_display_units[res], xl,
                  d->ring_scopes[ring], 0, {{0}}, 0, 0, 0};
    c.n = ss_points(d, ring, SS_M_HW, res, pts);
    c.series[c.nseries++] = (ss_series){"High water", "s-hw", pts, 0};
    ss_points(d, ring, SS_M_LIVE, res, pts + cap);
    c.series[c.nseries++] = (ss_series){"Live at exit", "s-live", pts + cap, 0};
    if (d->has_peaks) {
        ss_points(d, ring, SS_M_PEAK, res, pts + 2 * cap);
        c.peak_series = c.nseries;
        c.series[c.nseries++] = (ss_series){"True peak", "s-peak", pts + 2 * cap, 0};
    }
    c.capacity = res == SS_HEAP ? (double)d->capacity[res][ring] / 1048576.0
                                : (double)d->capacity[res][ring];
    fprintf(out, "<div class=\"panel\" data-resource=\"%s\" data-ring=\"%d\"><h3>Ring %d "
                 "&middot; %ld scope%s</h3>\n",
            ss_resource_name(res), ring, ring, d->ring_scopes[ring],
            d->ring_scopes[ring] == 1 ? "" : "s");
    snprintf(title, sizeof title, "Resource pressure");
    ss_figure(out, title, &c, ss_summary_unit(res));
    ss_chart a = c;
    a.kind = "alloc";
    a.nseries = 1;
    a.peak_series = 0;
    a.capacity = -1;
    ss_points(d, ring, SS_M_ALLOC, res, pts + 3 * cap);
    a.series[0] = (ss_series){"Alloc per scope", "s-alloc", pts + 3 * cap, 1};
    ss_figure(out, "Alloc per scope", &a, ss_summary_unit(res));
    fprintf(out, "</div>\n");
    free(pts);
    return SS_OK;
}

static int ss_resource_section(FILE *out, const ss_data *d, int res)
{
    fprintf(out, "<section class=\"card resource\" id=\"%s\"><h2>%s <span class=\"muted\">(%s)"
                 "</span></h2>\n",
            ss_resource_name(res), ss_titles[res], ss_display_units[res]);
    int any = 0;
    for (int r = 0; r < SS_RINGS; r++) {
        if (!d->ring_scopes[r]) continue;
        any = 1;
        if (ss_ring_panel(out, d, res, r)) return SS_EINPUT;
    }
    if (!any) fprintf(out, "<p class=\"muted\">No paired scopes on any ring.</p>\n");
    fprintf(out, "</section>\n");
    return SS_OK;
}

static int ss_tensormap_section(FILE *out, const ss_data *d)
{
    fprintf(out, "<section class=\"card resource\" id=\"tensormap\"><h2>Tensormap <span "
                 "class=\"muted\">(entries, global)</span></h2>\n");
    if (!d->nscopes) {
        fprintf(out, "<p class=\"muted\">No paired scopes.</p></section>\n");
        return SS_OK;
    }
    size_t cap = d->nscopes < SS_HTML_MAX_POINTS ? d->nscopes : SS_HTML_MAX_POINTS;
    ss_point *pts = malloc(2 * cap * sizeof *pts);
    if (!pts) return SS_EINPUT;
    ss_chart c = {"tensormap", -1, "tensormap", "entries",
                  "scope # over all rings (order in which scopes ended)", (long)d->nscopes,
                  0, {{0}}, 0, 0, (double)d->tm_capacity};
    c.n = ss_points(d, -1, SS_M_TM_LIVE, 0, pts);
    c.series[c.nseries++] = (ss_series){"Live entries", "s-tm", pts, 0};
    if (d->has_peaks) {
        ss_points(d, -1, SS_M_TM_PEAK, 0, pts + cap);
        c.peak_series = c.nseries;
        c.series[c.nseries++] = (ss_series){"True peak", "s-peak", pts + cap, 0};
    }
    fprintf(out, "<div class=\"panel\" data-resource=\"tensormap\" data-ring=\"all\">\n");
    ss_figure(out, "Live entries", &c, "entries");
    fprintf(out, "</div></section>\n");
    free(pts);
    return SS_OK;
}

int ss_html_write(FILE *out, const ss_data *d, const ss_summary *s)
{
    ss_head(out, d);
    ss_header(out, d, s);
    ss_guide(out);
    ss_peaks(out, s);
    ss_verdicts(out, s);
    ss_suggested(out, s);
    for (int res = 0; res < SS_NRES; res++)
        if (ss_resource_section(out, d, res)) return SS_EINPUT;
    if (ss_tensormap_section(out, d)) return SS_EINPUT;
    fprintf(out, "<footer>pto-scope-stats &middot; self-contained page: inline CSS and SVG, "
                 "nothing fetched</footer>\n</main>\n</body>\n</html>\n");
    return fflush(out) == 0 && !ferror(out) ? SS_OK : SS_EINPUT;
}
