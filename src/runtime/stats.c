/*
 * scope_stats.c - per-scope samples of ring use, written as NDJSON
 * (docs/runtime.md, "Scope stats"; pto/scope_stats.h): <output_prefix>/scope_stats/scope_stats.jsonl, line 1
 * the run's metadata, then one record per scope boundary, oldest first.
 *
 * A begin record is sampled after the push, an end record before the
 * release; each first reclaims the ring up to its watermark.  True peaks:
 * every allocation raises the ring's running scope_peak (rt_ring_note_peaks,
 * tensormap: tm_peak); a scope's begin saves the running peak and restarts
 * it at the current use, its end reports it and folds it back into the
 * saved one, so an enclosing scope on the same ring includes its children.
 * After a fatal the records freeze: open scopes keep only their begin.
 * Orchestrator only; pto_runtime_set_scope_stats switches them between
 * runs.  With stats off every scope boundary costs one branch (allocations
 * keep the ring's running peaks either way: three compares).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "runtime/stats.h"

#include "pto/scope_stats.h"
#include "runtime/format.h"
#include "runtime/ring.h"
#include "runtime/warn.h"

static rt_use rt_use_max(rt_use a, rt_use b)
{
    return (rt_use){a.task_window > b.task_window ? a.task_window : b.task_window,
                    a.heap > b.heap ? a.heap : b.heap,
                    a.dep_pool > b.dep_pool ? a.dep_pool : b.dep_pool};
}

static void rt_stats_record_add(pto_runtime *rt, const rt_scope *s, int end, rt_use peak, uint64_t peak_tm)
{
    rt_stats *st = &rt->stats;
    st->total++;
    if (st->n == st->cap) {
        rt_stats_record *r = base_array_grow(st->recs, &st->cap, sizeof *r, 1024);
        if (!r) {
            st->dropped++;
            return;
        }
        st->recs = r;
    }
    rt_ring *ring = &rt->rings[s->ring];
    rt_stats_record *r = &st->recs[st->n++];
    *r = (rt_stats_record){
        .file = s->depth < 0 ? NULL : s->file,
        .line = s->line,
        .depth = s->depth < 0 ? 0 : s->depth,
        .ring = s->ring,
        .end = end,
        .tw_start = ring->reclaimed_at, /* the snapshot the heap and pool tails use */
        .tw_end = atomic_load(&ring->cur),
        .heap_start = rt_heap_reclaim_total(&ring->heap),
        .heap_end = rt_heap_alloc_total(&ring->heap),
        .dep_start = ring->deps.tail,
        .dep_end = ring->deps.top,
        .tensormap = rt->tm.used,
        .peak = peak,
        .peak_tm = peak_tm,
    };
}

void rt_stats_begin(pto_runtime *rt, rt_scope *s)
{
    if (!rt->cfg.enable_scope_stats) return;
    rt_ring *ring = &rt->rings[s->ring];
    rt_use now = rt_ring_use(ring);
    s->saved_peak = ring->scope_peak;
    s->saved_tm_peak = rt->tm_peak;
    ring->scope_peak = now;
    rt->tm_peak = rt->tm.used;
    if (!rt->stats.fatal) rt_stats_record_add(rt, s, 0, now, rt->tm.used);
}

void rt_stats_end(pto_runtime *rt, rt_scope *s)
{
    /* Off, or a pto_runtime_finish of a run that never started: nothing to say. */
    if (!rt->cfg.enable_scope_stats || !rt->run_open) return;
    rt_ring *ring = &rt->rings[s->ring];
    rt_ring_reclaim(ring);
    if (!rt->stats.fatal) rt_stats_record_add(rt, s, 1, ring->scope_peak, rt->tm_peak);
    ring->scope_peak = rt_use_max(s->saved_peak, ring->scope_peak);
    if (s->saved_tm_peak > rt->tm_peak) rt->tm_peak = s->saved_tm_peak;
}

void rt_stats_run_open(pto_runtime *rt)
{
    if (rt->run_open) return;
    rt->run_open = 1;
    rt->stats.n = rt->stats.total = rt->stats.dropped = 0;
    rt->stats.fatal = rt->stats.written = 0;
    rt_stats_begin(rt, &rt->scopes[0]);
}

int pto_runtime_set_scope_stats(pto_runtime *rt, const char *output_prefix)
{
    if (!rt || rt->run_open || (output_prefix && !output_prefix[0])) return -PTO_INVALID_ARGS;
    char *copy = NULL;
    if (output_prefix && !(copy = strdup(output_prefix))) return -PTO_INVALID_ARGS;
    free(rt->output_prefix);
    rt->output_prefix = copy;
    rt->cfg.output_prefix = copy;
    rt->cfg.enable_scope_stats = copy != NULL;
    return 0;
}

int rt_stats_mkdirs(char *path)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        int rc = mkdir(path, 0777);
        *p = '/';
        if (rc != 0 && errno != EEXIST) return -1;
    }
    return 0;
}

static void rt_json_site(FILE *f, const rt_stats_record *r)
{
    rt_where at = rt_format_where(r->file, r->line, r->file ? r->depth : -1);
    rt_format_json_string(f, at.site);
}

static void rt_json_ring_array(FILE *f, const char *key, const uint64_t *v)
{
    fprintf(f, ", \"%s_max\": [%llu, %llu, %llu, %llu]", key, (unsigned long long)v[0],
            (unsigned long long)v[1], (unsigned long long)v[2], (unsigned long long)v[3]);
}

#define RT_SS_NAME_(r) #r,
static const char *const rt_ss_resources[] = {PTO_SCOPE_STATS_RESOURCES(RT_SS_NAME_)};
#undef RT_SS_NAME_

static int rt_stats_dump(pto_runtime *rt, FILE *f)
{
    const rt_stats *st = &rt->stats;
    const pto_runtime_env *env = &rt->cfg.runtime_env;
    const uint64_t *sizes[] = {env->ring_task_window, env->ring_heap, env->ring_dep_pool};
    fprintf(f, "{\"version\": %d, \"fatal\": %s, \"dropped\": %llu, \"total\": %llu",
            PTO_SCOPE_STATS_VERSION, st->fatal ? "true" : "false", (unsigned long long)st->dropped,
            (unsigned long long)st->total);
    for (int k = 0; k < 3; k++) rt_json_ring_array(f, rt_ss_resources[k], sizes[k]);
    fprintf(f, ", \"tensormap_max\": %d}\n", PTO_TENSORMAP_POOL_SIZE);
    for (uint64_t i = 0; i < st->n; i++) {
        const rt_stats_record *r = &st->recs[i];
        const uint64_t start[] = {r->tw_start, r->heap_start, r->dep_start};
        const uint64_t end[] = {r->tw_end, r->heap_end, r->dep_end};
        const uint64_t peak[] = {r->peak.task_window, r->peak.heap, r->peak.dep_pool};
        fputs("{\"site\": ", f);
        rt_json_site(f, r);
        fprintf(f, ", \"phase\": \"%s\", \"depth\": %d, \"ring\": %d", r->end ? "end" : "begin",
                r->depth, r->ring);
        for (int k = 0; k < 3; k++)
            fprintf(f, ", \"%s_start\": %llu, \"%s_end\": %llu", rt_ss_resources[k],
                    (unsigned long long)start[k], rt_ss_resources[k], (unsigned long long)end[k]);
        fprintf(f, ", \"tensormap\": %llu", (unsigned long long)r->tensormap);
        for (int k = 0; k < 3; k++)
            fprintf(f, ", \"peak_%s\": %llu", rt_ss_resources[k], (unsigned long long)peak[k]);
        fprintf(f, ", \"peak_tensormap\": %llu}\n", (unsigned long long)r->peak_tm);
    }
    return ferror(f) ? -1 : 0;
}

void rt_stats_write(pto_runtime *rt)
{
    if (!rt->cfg.enable_scope_stats || !rt->run_open || rt->stats.written) return;
    rt->stats.written = 1;
    const char *prefix = rt->cfg.output_prefix;
    size_t n = strlen(prefix) + sizeof PTO_SCOPE_STATS_PATH + 1;
    char *path = malloc(n), *tmp = malloc(n + 8);
    if (!path || !tmp) {
        free(path), free(tmp);
        rt_warn(&rt->cfg, PTO_WARNING_STATS_NOT_WRITTEN, "warning: scope stats: cannot write %s/%s: %s",
                prefix, PTO_SCOPE_STATS_PATH, strerror(ENOMEM));
        return;
    }
    snprintf(path, n, "%s/%s", prefix, PTO_SCOPE_STATS_PATH);
    snprintf(tmp, n + 8, "%s.tmp", path);
    FILE *f = NULL;
    int ok = rt_stats_mkdirs(path) == 0 && (f = fopen(tmp, "w")) != NULL;
    if (ok) ok = rt_stats_dump(rt, f) == 0;
    if (f && fclose(f) != 0) ok = 0;
    if (ok) ok = rename(tmp, path) == 0;
    if (!ok) {
        rt_warn(&rt->cfg, PTO_WARNING_STATS_NOT_WRITTEN, "warning: scope stats: cannot write %s: %s",
                path, strerror(errno));
        remove(tmp);
    }
    free(path);
    free(tmp);
}

void rt_stats_freeze(pto_runtime *rt)
{
    if (rt->stats.fatal) return;
    rt->stats.fatal = 1;
    rt_stats_write(rt);
}
