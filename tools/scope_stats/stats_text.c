/*
 * stats_text.c - the terminal summary: header, top peaks, verdicts, suggested
 * sizes (docs/tools.md, "The summary", in that order).  Column widths follow the content so
 * long sites stay aligned; numbers print in full (paste-able).
 */
#include <stdio.h>
#include <string.h>

#include "stats_report.h"
#include "stats_utf8.h"

#define SS_COLS 9

static void ss_sizes(FILE *out, const char *name, const int64_t v[SS_RINGS])
{
    fprintf(out, "%s=[%lld, %lld, %lld, %lld]", name, (long long)v[0], (long long)v[1],
            (long long)v[2], (long long)v[3]);
}

static void ss_header(FILE *out, const ss_data *d, const ss_summary *s)
{
    fprintf(out, "Scope stats: %s\n", d->path);
    fprintf(out, "  records:       %ld (metadata total %lld, dropped %lld)\n", d->records,
            (long long)d->total, (long long)d->dropped);
    fprintf(out, "  paired scopes: %ld (ring 0: %ld, ring 1: %ld, ring 2: %ld, ring 3: %ld)\n",
            s->paired, d->ring_scopes[0], d->ring_scopes[1], d->ring_scopes[2],
            d->ring_scopes[3]);
    fprintf(out, "  status:        %s\n", ss_summary_status(d));
    fprintf(out, "  risk metric:   %s\n", ss_summary_risk_metric(d));
    fprintf(out, "  ring sizes:    ");
    for (int res = 0; res < SS_NRES; res++) {
        ss_sizes(out, ss_resource_name(res), d->capacity[res]);
        fputc(' ', out);
    }
    fprintf(out, "tensormap=%lld\n", (long long)d->tm_capacity);
}

static void ss_row_cells(const ss_peak_row *row, char cells[SS_COLS][96])
{
    snprintf(cells[0], 96, "%s", ss_resource_name(row->resource));
    if (row->ring < 0)
        snprintf(cells[1], 96, "-");
    else
        snprintf(cells[1], 96, "%d", row->ring);
    snprintf(cells[2], 96, "%lld", (long long)row->peak);
    snprintf(cells[3], 96, "%lld", (long long)row->high_water);
    snprintf(cells[4], 96, "%lld", (long long)row->capacity);
    snprintf(cells[5], 96, "%.2f", 100.0 * row->use);
    snprintf(cells[6], 96, "%s", row->cls);
    ss_utf8_copy(cells[7], 96, row->scope->site);
    snprintf(cells[8], 96, "%ld", row->scope_index);
}

static void ss_top_peaks(FILE *out, const ss_summary *s)
{
    static const char *const head[SS_COLS] = {"resource", "ring", "peak", "high_water",
                                              "capacity", "use%", "class", "site", "scope#"};
    char cells[SS_MAX_ROWS][SS_COLS][96];
    int width[SS_COLS];
    fprintf(out, "\nTop peaks (use = risk metric / capacity; tensormap scope# counts all rings)\n");
    if (!s->nrows) {
        fprintf(out, "  (no paired scopes)\n");
        return;
    }
    for (int c = 0; c < SS_COLS; c++) width[c] = (int)strlen(head[c]);
    for (int i = 0; i < s->nrows; i++) {
        ss_row_cells(&s->rows[i], cells[i]);
        for (int c = 0; c < SS_COLS; c++)
            if ((int)strlen(cells[i][c]) > width[c]) width[c] = (int)strlen(cells[i][c]);
    }
    fprintf(out, " ");
    for (int c = 0; c < SS_COLS; c++) {
        if (c == SS_COLS - 1)
            fprintf(out, " %s", head[c]);
        else
            fprintf(out, c >= 2 && c <= 5 ? " %*s" : " %-*s", width[c], head[c]);
    }
    fputc('\n', out);
    for (int i = 0; i < s->nrows; i++) {
        fprintf(out, " ");
        /* numbers right-aligned, words left-aligned */
        for (int c = 0; c < SS_COLS; c++) {
            int right = c >= 2 && c <= 5;
            if (c == SS_COLS - 1)
                fprintf(out, " %s", cells[i][c]);
            else
                fprintf(out, right ? " %*s" : " %-*s", width[c], cells[i][c]);
        }
        fputc('\n', out);
    }
}

static void ss_verdicts(FILE *out, const ss_summary *s)
{
    fprintf(out, "\nVerdicts\n");
    if (!s->nverdicts) fprintf(out, "  none: no ring is pinned, imbalanced or oversized\n");
    for (int i = 0; i < s->nverdicts; i++) fprintf(out, "  - %s\n", s->verdicts[i].text);
}

/* One paste block: RunConfig line, C lines, lower-bound marks. */
static void ss_paste_block(FILE *out, const ss_summary *s, int after)
{
    char buf[1024];
    if (!ss_summary_runconfig(s, after, buf, sizeof buf)) return;
    if (after) fprintf(out, "after rebalancing scopes:\n");
    fprintf(out, "  %s\n", buf);
    for (int res = 0; res < SS_NRES; res++) {
        if (s->imbalanced[res] != after) continue;
        ss_summary_runtime_env(s, res, buf, sizeof buf);
        fprintf(out, "  %s\n", buf);
    }
    for (int res = 0; res < SS_NRES; res++)
        for (int r = 0; r < SS_RINGS; r++)
            if (s->imbalanced[res] == after && s->lower_bound[res][r])
                fprintf(out, "  %s[%d] = %llu (lower bound: rerun to confirm)\n",
                        ss_summary_field(res), r, (unsigned long long)s->suggested[res][r]);
}

static void ss_suggested(FILE *out, const ss_summary *s)
{
    fprintf(out, "\nSuggested sizes (headroom %.2f; 0 keeps the ring's default)\n", s->headroom);
    ss_paste_block(out, s, 0);
    ss_paste_block(out, s, 1);
}

int ss_text_write(FILE *out, const ss_data *d, const ss_summary *s)
{
    ss_header(out, d, s);
    ss_top_peaks(out, s);
    ss_verdicts(out, s);
    ss_suggested(out, s);
    return fflush(out) == 0 && !ferror(out) ? SS_OK : SS_EINPUT;
}
