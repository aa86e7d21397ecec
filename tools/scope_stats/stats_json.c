/*
 * stats_json.c - `--json`: the summary as one object with the keys header,
 * top_peaks, verdicts and suggested, built and printed with jansson.  Field
 * names follow the terminal columns; use_pct has 2 decimals like the table.
 */
#include <jansson.h>
#include <math.h>

#include "stats_report.h"

static const char *const ss_kinds[] = {"constraint", "imbalance", "oversized", "lower_bound"};

static json_t *ss_ints(const int64_t v[SS_RINGS])
{
    json_t *a = json_array();
    for (int r = 0; r < SS_RINGS; r++) json_array_append_new(a, json_integer(v[r]));
    return a;
}

static json_t *ss_header(const ss_data *d, const ss_summary *s)
{
    json_t *h = json_object(), *w = json_array(), *rings = json_array();
    json_object_set_new(h, "file", json_string(d->path));
    json_object_set_new(h, "records", json_integer(d->records));
    json_object_set_new(h, "total", json_integer(d->total));
    json_object_set_new(h, "dropped", json_integer(d->dropped));
    json_object_set_new(h, "fatal", json_boolean(d->fatal));
    json_object_set_new(h, "paired_scopes", json_integer(s->paired));
    for (int r = 0; r < SS_RINGS; r++) json_array_append_new(rings, json_integer(d->ring_scopes[r]));
    json_object_set_new(h, "paired_scopes_per_ring", rings);
    json_object_set_new(h, "status", json_string(ss_summary_status(d)));
    json_object_set_new(h, "risk_metric", json_string(d->has_peaks ? "true_peak" : "high_water"));
    json_object_set_new(h, "risk_metric_text", json_string(ss_summary_risk_metric(d)));
    for (int res = 0; res < SS_NRES; res++) {
        char key[32];
        snprintf(key, sizeof key, "%s_max", ss_resource_name(res));
        json_object_set_new(h, key, ss_ints(d->capacity[res]));
    }
    json_object_set_new(h, "tensormap_max", json_integer(d->tm_capacity));
    for (size_t i = 0; i < d->nwarnings; i++) json_array_append_new(w, json_string(d->warnings[i]));
    json_object_set_new(h, "warnings", w);
    return h;
}

static json_t *ss_rows(const ss_summary *s)
{
    json_t *a = json_array();
    for (int i = 0; i < s->nrows; i++) {
        const ss_peak_row *row = &s->rows[i];
        json_t *o = json_object();
        json_object_set_new(o, "resource", json_string(ss_resource_name(row->resource)));
        json_object_set_new(o, "ring", row->ring < 0 ? json_null() : json_integer(row->ring));
        json_object_set_new(o, "peak", json_integer(row->peak));
        json_object_set_new(o, "high_water", json_integer(row->high_water));
        json_object_set_new(o, "capacity", json_integer(row->capacity));
        json_object_set_new(o, "use_pct", json_real(round(row->use * 10000.0) / 100.0));
        json_object_set_new(o, "class", json_string(row->cls));
        json_object_set_new(o, "site", json_string(row->scope->site));
        json_object_set_new(o, "scope", json_integer(row->scope_index));
        json_array_append_new(a, o);
    }
    return a;
}

static json_t *ss_verdicts(const ss_summary *s)
{
    json_t *a = json_array();
    for (int i = 0; i < s->nverdicts; i++) {
        const ss_verdict *v = &s->verdicts[i];
        json_t *o = json_object();
        json_object_set_new(o, "kind", json_string(ss_kinds[v->kind]));
        json_object_set_new(o, "resource",
                            v->resource < 0 ? json_null() : json_string(ss_resource_name(v->resource)));
        json_object_set_new(o, "ring", v->ring < 0 ? json_null() : json_integer(v->ring));
        json_object_set_new(o, "text", json_string(v->text));
        json_array_append_new(a, o);
    }
    return a;
}

static json_t *ss_suggested(const ss_summary *s)
{
    json_t *o = json_object(), *lower = json_object(), *after = json_array(), *env = json_array();
    char buf[1024];
    json_object_set_new(o, "headroom", json_real(s->headroom));
    for (int res = 0; res < SS_NRES; res++) {
        json_t *v = json_array(), *lb = json_array();
        for (int r = 0; r < SS_RINGS; r++) {
            json_array_append_new(v, json_integer((json_int_t)s->suggested[res][r]));
            json_array_append_new(lb, json_boolean(s->lower_bound[res][r]));
        }
        json_object_set_new(o, ss_summary_field(res), v);
        json_object_set_new(lower, ss_summary_field(res), lb);
        if (s->imbalanced[res]) json_array_append_new(after, json_string(ss_summary_field(res)));
        ss_summary_runtime_env(s, res, buf, sizeof buf);
        json_array_append_new(env, json_string(buf));
    }
    json_object_set_new(o, "lower_bound", lower);
    json_object_set_new(o, "after_rebalancing", after);
    ss_summary_runconfig(s, 0, buf, sizeof buf);
    json_object_set_new(o, "run_config", json_string(buf));
    ss_summary_runconfig(s, 1, buf, sizeof buf);
    json_object_set_new(o, "run_config_after_rebalancing", json_string(buf));
    json_object_set_new(o, "runtime_env", env);
    return o;
}

int ss_json_write(FILE *out, const ss_data *d, const ss_summary *s)
{
    json_t *root = json_object();
    json_object_set_new(root, "header", ss_header(d, s));
    json_object_set_new(root, "top_peaks", ss_rows(s));
    json_object_set_new(root, "verdicts", ss_verdicts(s));
    json_object_set_new(root, "suggested", ss_suggested(s));
    int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    json_decref(root);
    if (rc == 0) fputc('\n', out);
    return rc == 0 && fflush(out) == 0 && !ferror(out) ? SS_OK : SS_EINPUT;
}
