/*
 * stats_summary.c - top peaks, verdicts and suggested sizes (docs/tools.md, "The summary").
 *
 * Use = risk metric / configured size.  Verdicts look at the three per-ring
 * resources only (the tensormap has a fixed, compile-time size, so no
 * RunConfig field to suggest); its row still shows in the top-peaks table.
 * Suggested sizes are clamped to the RunConfig maxima so that the pasted line
 * always passes pto_config_check.
 */
#include "stats_summary.h"

#include "base/bits.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pto/config.h"
#include "stats_utf8.h"

static const char *const ss_fields[SS_NRES] = {"ring_task_window", "ring_heap", "ring_dep_pool"};
static const char *const ss_units[SS_NRES + 1] = {"slots", "bytes", "entries", "entries"};
static const uint64_t ss_field_max[SS_NRES] = {PTO_MAX_TASK_WINDOW, PTO_MAX_HEAP,
                                               PTO_MAX_DEP_POOL};

const char *ss_summary_field(int resource)
{
    return resource >= 0 && resource < SS_NRES ? ss_fields[resource] : "?";
}

const char *ss_summary_unit(int resource)
{
    return resource >= 0 && resource <= SS_TENSORMAP ? ss_units[resource] : "?";
}

const char *ss_summary_status(const ss_data *d)
{
    if (d->fatal) return "Fatal";
    if (d->dropped > 0) return "Dropped records";
    return "Healthy: no fatal, no dropped";
}

const char *ss_summary_risk_metric(const ss_data *d)
{
    return d->has_peaks ? "true peak (peak_* keys)"
                        : "high water (no peak_* keys in this file: an upper bound, "
                          "not the true peak)";
}

static const char *ss_class(double use)
{
    return use >= 0.8 ? "danger" : use >= 0.5 ? "warn" : "ok";
}

/* ceil(peak x F), forgiving the rounding noise of F (5000 x 1.1 is 5500). */
static uint64_t ss_scaled(int64_t peak, double f)
{
    double x = (double)peak * f, r = nearbyint(x);
    if (fabs(x - r) <= 1e-9 * (x > 1 ? x : 1)) return (uint64_t)r;
    return (uint64_t)ceil(x);
}

static uint64_t ss_formula(int res, int64_t peak, double f)
{
    uint64_t scaled = ss_scaled(peak, f), v;
    switch (res) {
    case SS_TASK_WINDOW:
        v = scaled > 4 ? scaled : 4;
        if ((uint64_t)peak + 2 > v) v = (uint64_t)peak + 2;
        return base_next_pow2(v);
    case SS_HEAP:
        return base_next_pow2(scaled > 1024 ? scaled : 1024);
    default:
        return scaled > 4 ? scaled : 4;
    }
}

/* Per ring: the largest risk metric and the first scope that reached it. */
static void ss_ring_peaks(const ss_data *d, ss_summary *s, const ss_scope *at[SS_NRES][SS_RINGS])
{
    for (size_t i = 0; i < d->nscopes; i++) {
        const ss_scope *sc = &d->scopes[i];
        s->has_data[sc->ring] = 1;
        for (int res = 0; res < SS_NRES; res++)
            if (!at[res][sc->ring] || sc->peak[res] > s->ring_peak[res][sc->ring]) {
                s->ring_peak[res][sc->ring] = sc->peak[res];
                at[res][sc->ring] = sc;
            }
    }
}

static void ss_rows(const ss_data *d, ss_summary *s, const ss_scope *at[SS_NRES][SS_RINGS])
{
    for (int res = 0; res < SS_NRES; res++)
        for (int r = 0; r < SS_RINGS; r++) {
            if (!s->has_data[r]) continue;
            int64_t cap = d->capacity[res][r];
            s->use[res][r] = cap ? (double)s->ring_peak[res][r] / (double)cap : 0;
            s->rows[s->nrows++] = (ss_peak_row){
                res, r, s->ring_peak[res][r], at[res][r]->high_water[res], cap, s->use[res][r],
                ss_class(s->use[res][r]), at[res][r], at[res][r]->ring_index};
        }
    if (d->nscopes) {
        const ss_scope *best = &d->scopes[0];
        for (size_t i = 1; i < d->nscopes; i++)
            if (d->scopes[i].tm_peak > best->tm_peak) best = &d->scopes[i];
        double use = d->tm_capacity ? (double)best->tm_peak / (double)d->tm_capacity : 0;
        s->rows[s->nrows++] = (ss_peak_row){SS_TENSORMAP, -1, best->tm_peak, best->tm_live,
                                            d->tm_capacity, use, ss_class(use), best,
                                            best->global_index};
    }
    /* Insertion sort: stable, so equal uses keep resource-then-ring order. */
    for (int i = 1; i < s->nrows; i++) {
        ss_peak_row row = s->rows[i];
        int j = i;
        for (; j > 0 && s->rows[j - 1].use < row.use; j--) s->rows[j] = s->rows[j - 1];
        s->rows[j] = row;
    }
}

static ss_verdict *ss_verdict_add(ss_summary *s, int kind, int res, int ring)
{
    ss_verdict *v = &s->verdicts[s->nverdicts++];
    *v = (ss_verdict){.kind = kind, .resource = res, .ring = ring};
    return v;
}

/* Appends printf output to a verdict's text. */
static void ss_append(ss_verdict *v, const char *fmt, ...)
{
    size_t used = strlen(v->text);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(v->text + used, sizeof v->text - used, fmt, ap);
    va_end(ap);
    if (n > 0 && used + (size_t)n >= sizeof v->text) /* cut: not inside a site's character */
        ss_utf8_cut_end(v->text, sizeof v->text - 1);
}

static void ss_constraints(const ss_data *d, ss_summary *s)
{
    for (int res = 0; res < SS_NRES; res++)
        for (int r = 0; r < SS_RINGS; r++) {
            if (!s->has_data[r]) continue;
            int64_t usable = d->capacity[res][r] - (res == SS_TASK_WINDOW ? 1 : 0);
            if ((double)s->ring_peak[res][r] < 0.99 * (double)usable) continue;
            s->pinned[res][r] = 1;
            ss_append(ss_verdict_add(s, SS_V_CONSTRAINT, res, r),
                      "%s on ring %d is pinned at capacity: that ring is the constraint",
                      ss_resource_name(res), r);
        }
}

/* The top 3 distinct sites by peak on one ring. */
static int ss_top_sites(const ss_data *d, int res, int ring, const ss_scope *top[3])
{
    int n = 0;
    for (size_t i = 0; i < d->nscopes; i++) {
        const ss_scope *sc = &d->scopes[i];
        if (sc->ring != ring || sc->peak[res] <= 0) continue;
        int k = 0;
        while (k < n && strcmp(top[k]->site, sc->site)) k++;
        if (k < n) {
            if (sc->peak[res] <= top[k]->peak[res]) continue;
        } else if (n < 3) {
            k = n++;
        } else if (sc->peak[res] > top[2]->peak[res]) {
            k = 2;
        } else {
            continue;
        }
        for (; k > 0 && top[k - 1]->peak[res] < sc->peak[res]; k--) top[k] = top[k - 1];
        top[k] = sc;
    }
    return n;
}

static void ss_imbalance(const ss_data *d, ss_summary *s)
{
    for (int res = 0; res < SS_NRES; res++)
        for (int hot = 0; hot < SS_RINGS; hot++) {
            if (!s->has_data[hot] || s->use[res][hot] < 0.8) continue;
            char idle[32] = "";
            for (int r = 0; r < SS_RINGS; r++)
                if (r != hot && (!s->has_data[r] || s->use[res][r] < 0.1))
                    snprintf(idle + strlen(idle), sizeof idle - strlen(idle), "%s%d",
                             idle[0] ? ", " : "", r);
            if (!idle[0]) continue;
            s->imbalanced[res] = 1;
            ss_verdict *v = ss_verdict_add(s, SS_V_IMBALANCE, res, hot);
            ss_append(v,
                      "ring %d carries %s at %.2f%% while ring(s) %s are idle: rebalance scopes "
                      "before enlarging anything",
                      hot, ss_resource_name(res), 100.0 * s->use[res][hot], idle);
            const ss_scope *top[3];
            int n = ss_top_sites(d, res, hot, top);
            for (int k = 0; k < n; k++)
                ss_append(v, "%s%s (%lld)", k ? ", " : "; top sites by peak: ", top[k]->site,
                          (long long)top[k]->peak[res]);
        }
}

static void ss_oversized(const ss_data *d, ss_summary *s)
{
    int any = 0;
    for (int r = 0; r < SS_RINGS; r++) any |= s->has_data[r];
    if (!any) return;
    for (int res = 0; res < SS_NRES; res++) {
        double most = 0;
        uint64_t save = 0;
        int small = 1;
        for (int r = 0; r < SS_RINGS && small; r++) {
            if (!s->has_data[r]) continue;
            small = s->use[res][r] < 0.1;
            if (s->use[res][r] > most) most = s->use[res][r];
            if ((uint64_t)d->capacity[res][r] > s->suggested[res][r])
                save += (uint64_t)d->capacity[res][r] - s->suggested[res][r];
        }
        if (!small) continue;
        ss_verdict *v = ss_verdict_add(s, SS_V_OVERSIZED, res, -1);
        ss_append(v, "%s never exceeds %.2f%% on any ring: smaller rings would save ",
                  ss_resource_name(res), 100.0 * most);
        if (res == SS_HEAP)
            ss_append(v, "%llu bytes (%.2f MiB)", (unsigned long long)save,
                      (double)save / 1048576.0);
        else if (res == SS_DEP_POOL)
            /* 16-byte dep node + 8-byte spill edge per entry (docs/runtime.md, "The ring model") */
            ss_append(v, "%llu entries (%llu bytes)", (unsigned long long)save,
                      (unsigned long long)save * 24u);
        else
            ss_append(v, "%llu slots", (unsigned long long)save);
        ss_append(v, " of reservation");
    }
}

static void ss_suggest(const ss_data *d, ss_summary *s)
{
    for (int res = 0; res < SS_NRES; res++)
        for (int r = 0; r < SS_RINGS; r++) {
            if (!s->has_data[r]) continue;
            uint64_t v = ss_formula(res, s->ring_peak[res][r], s->headroom);
            if (s->pinned[res][r] || d->fatal) {
                uint64_t twice = 2 * (uint64_t)d->capacity[res][r];
                if (twice > v) v = twice;
                s->lower_bound[res][r] = 1;
            }
            s->suggested[res][r] = v > ss_field_max[res] ? ss_field_max[res] : v;
        }
}

int ss_summary_build(const ss_data *d, double headroom, ss_summary *s)
{
    const ss_scope *at[SS_NRES][SS_RINGS] = {{0}};
    *s = (ss_summary){.headroom = headroom, .paired = (long)d->nscopes};
    if (!(headroom >= 1.0) || !isfinite(headroom)) return SS_EUSAGE;
    ss_ring_peaks(d, s, at);
    ss_rows(d, s, at);
    ss_constraints(d, s);
    ss_imbalance(d, s);
    ss_suggest(d, s);
    ss_oversized(d, s);
    if (d->fatal || d->dropped > 0)
        ss_append(ss_verdict_add(s, SS_V_LOWER_BOUND, -1, -1),
                  "peaks are lower bounds: rerun after resizing");
    return SS_OK;
}

static void ss_list(const uint64_t v[SS_RINGS], const char *open, const char *close, char *buf,
                    size_t len)
{
    snprintf(buf, len, "%s%llu, %llu, %llu, %llu%s", open, (unsigned long long)v[0],
             (unsigned long long)v[1], (unsigned long long)v[2], (unsigned long long)v[3], close);
}

int ss_summary_runconfig(const ss_summary *s, int after_rebalancing, char *buf, size_t len)
{
    int n = 0;
    size_t used = 0;
    buf[0] = '\0';
    for (int res = 0; res < SS_NRES; res++) {
        if (s->imbalanced[res] != after_rebalancing) continue;
        char list[128];
        ss_list(s->suggested[res], "[", "]", list, sizeof list);
        used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%s=%s",
                                 n ? ", " : "RunConfig(", ss_fields[res], list);
        n++;
    }
    if (n && used < len) snprintf(buf + used, len - used, ")");
    return n;
}

void ss_summary_runtime_env(const ss_summary *s, int resource, char *buf, size_t len)
{
    char list[128];
    ss_list(s->suggested[resource], "{", "}", list, sizeof list);
    snprintf(buf, len, ".runtime_env.%s = %s,", ss_fields[resource], list);
}
