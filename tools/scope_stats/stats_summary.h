/*
 * stats_summary.h - what the report says about one file: the top peaks, the
 * verdicts and the suggested ring sizes (docs/tools.md, "The summary").  Pure arithmetic
 * on an ss_data; every writer (text, JSON, HTML) prints the same summary.
 */
#ifndef SS_STATS_SUMMARY_H
#define SS_STATS_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "stats_file.h"

#define SS_DEFAULT_HEADROOM 1.5
#define SS_MAX_ROWS (SS_NRES * SS_RINGS + 1)
#define SS_MAX_VERDICTS (2 * SS_NRES * SS_RINGS + SS_NRES + 1)

/* One row of the top-peaks table: a resource on one ring, or the tensormap. */
typedef struct ss_peak_row {
    int resource;          /* enum ss_resource; SS_TENSORMAP for the global row */
    int ring;              /* -1 for the tensormap */
    int64_t peak;          /* largest risk metric on that ring */
    int64_t high_water;    /* the peak scope's high water (tensormap: live at exit) */
    int64_t capacity;      /* configured size */
    double use;            /* peak / capacity */
    const char *cls;       /* "danger" (>= 0.8), "warn" (>= 0.5), "ok" */
    const ss_scope *scope; /* first scope that reached the peak */
    long scope_index;      /* its index on the ring (tensormap: over all rings) */
} ss_peak_row;

enum ss_verdict_kind { SS_V_CONSTRAINT, SS_V_IMBALANCE, SS_V_OVERSIZED, SS_V_LOWER_BOUND };

typedef struct ss_verdict {
    int kind;     /* enum ss_verdict_kind */
    int resource; /* -1 for the lower-bound verdict */
    int ring;     /* -1 when no single ring applies */
    char text[1024];
} ss_verdict;

typedef struct ss_summary {
    double headroom;
    long paired;                           /* paired scopes */
    int has_data[SS_RINGS];                /* the ring has a paired scope */
    int64_t ring_peak[SS_NRES][SS_RINGS];  /* largest risk metric per ring */
    double use[SS_NRES][SS_RINGS];
    ss_peak_row rows[SS_MAX_ROWS];         /* sorted by use, highest first */
    int nrows;
    ss_verdict verdicts[SS_MAX_VERDICTS];
    int nverdicts;
    int pinned[SS_NRES][SS_RINGS];         /* constraint verdict on that ring */
    int imbalanced[SS_NRES];               /* an imbalance verdict on the resource */
    uint64_t suggested[SS_NRES][SS_RINGS]; /* 0 = keep the default (no data) */
    int lower_bound[SS_NRES][SS_RINGS];    /* pinned or fatal: rerun to confirm */
} ss_summary;

/* Fills *s.  headroom must be >= 1.0 (SS_EUSAGE otherwise). */
int ss_summary_build(const ss_data *d, double headroom, ss_summary *s);

/* "Fatal", "Dropped records" or "Healthy: no fatal, no dropped". */
const char *ss_summary_status(const ss_data *d);

/* What the use ratio is computed from, in words. */
const char *ss_summary_risk_metric(const ss_data *d);

/* "ring_task_window", "ring_heap", "ring_dep_pool". */
const char *ss_summary_field(int resource);

/* "slots", "bytes", "entries", "entries". */
const char *ss_summary_unit(int resource);

/* `RunConfig(ring_x=[a, b, c, d], ...)` over the resources whose imbalanced
 * flag equals after_rebalancing; returns how many fields it holds (0: buf is
 * empty). */
int ss_summary_runconfig(const ss_summary *s, int after_rebalancing, char *buf, size_t len);

/* `.runtime_env.ring_x = {a, b, c, d},` for one resource (a designated
 * initializer line for a pto_config). */
void ss_summary_runtime_env(const ss_summary *s, int resource, char *buf, size_t len);

#endif
