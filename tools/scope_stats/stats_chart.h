/*
 * stats_chart.h - one 900x300 inline SVG chart of per-scope values.
 *
 * Structure (stable, the browser test counts it):
 *   <svg class="chart" data-resource=".." data-ring=".." data-kind=".."
 *        data-scopes="N" data-series="K" ...>
 * with exactly N x K elements of class "pt" (a circle, or a rect for bar
 * series), each holding a <title> that names the metric, the scope #, the
 * value and the site.  The peak mark and the capacity line are not "pt".
 * Rules (docs/tools.md, "The page"): x = scope index with ~6 integer ticks; y from 0 to
 * 1.1 x the largest value drawn with ~6 ticks; the capacity line is drawn
 * only when it is within 2x of the largest series value.
 */
#ifndef SS_STATS_CHART_H
#define SS_STATS_CHART_H

#include <stdint.h>
#include <stdio.h>

#define SS_CHART_W 900
#define SS_CHART_H 300
#define SS_CHART_MAX_SERIES 3

/* One drawn point: scopes first..last (equal unless buckets were merged). */
typedef struct ss_point {
    double y;         /* in display units (MiB for the heap) */
    int64_t raw;      /* the value in the file's unit (bytes for the heap) */
    long first, last; /* scope # range */
    const char *site; /* site of the scope that gave y */
} ss_point;

typedef struct ss_series {
    const char *name;   /* "High water", shown in legend and hover */
    const char *cls;    /* CSS class of its colour, e.g. "s-hw" */
    const ss_point *pts;
    int bars;           /* bars instead of a line with points */
} ss_series;

typedef struct ss_chart {
    const char *resource; /* data-resource */
    int ring;             /* data-ring; -1 prints "all" */
    const char *kind;     /* data-kind: "pressure", "alloc", "tensormap" */
    const char *unit;     /* display unit: "slots", "MiB", "entries" */
    const char *x_label;
    long scopes;          /* paired scopes the chart covers (data-scopes) */
    size_t n;             /* points per series (== scopes unless merged) */
    ss_series series[SS_CHART_MAX_SERIES];
    int nseries;
    int peak_series;      /* whose largest point gets the peak mark */
    double capacity;      /* display units; < 0: none */
} ss_chart;

/* 1 if the capacity line is drawn (within 2x of the largest series value). */
int ss_chart_draws_capacity(const ss_chart *c);

/* Writes the <svg>.  SS_OK, or SS_EINPUT on a write error. */
int ss_chart_write(FILE *out, const ss_chart *c);

/* Writes s with &, <, >, " and ' escaped. */
void ss_html_text(FILE *out, const char *s);

#endif
