/*
 * reportutil.h - helpers for the report tool's tests: write crafted
 * scope_stats.jsonl files (pto/scope_stats.h) into a temp directory, and run the
 * CLI in-process with its output captured.  Include after harness.h.
 */
#ifndef PTO_REPORTUTIL_H
#define PTO_REPORTUTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stats_report.h"

/* Per ring: task_window start/end, heap start/end, dep_pool start/end. */
typedef struct ru_file {
    FILE *f;
    char path[512];
    int peaks;               /* write the 4 peak_* keys */
    long long ctr[4][6];
    long long tensormap;
} ru_file;

static inline void ru_tempdir(char *dir, size_t len)
{
    snprintf(dir, len, "/tmp/pto_report_XXXXXX");
    if (!mkdtemp(dir)) fail_msg("mkdtemp failed");
}

/* Opens dir/name and writes the metadata line (sizes: NULL = defaults). */
static inline void ru_open(ru_file *t, const char *dir, const char *name, int version, int fatal,
                           long long dropped, long long total, const long long *tw,
                           const long long *heap, const long long *dep, int peaks)
{
    static const long long dtw[4] = {16384, 16384, 16384, 16384};
    static const long long dheap[4] = {268435456, 268435456, 268435456, 268435456};
    static const long long ddep[4] = {16384, 16384, 16384, 16384};
    memset(t, 0, sizeof *t);
    for (int r = 0; r < 4; r++) t->ctr[r][4] = t->ctr[r][5] = 1; /* dep pool counts from 1 */
    tw = tw ? tw : dtw;
    heap = heap ? heap : dheap;
    dep = dep ? dep : ddep;
    t->peaks = peaks;
    snprintf(t->path, sizeof t->path, "%s/%s", dir, name);
    t->f = fopen(t->path, "w");
    assert_non_null(t->f);
    fprintf(t->f,
            "{\"version\": %d, \"fatal\": %s, \"dropped\": %lld, \"total\": %lld, "
            "\"task_window_max\": [%lld, %lld, %lld, %lld], \"heap_max\": [%lld, %lld, %lld, "
            "%lld], \"dep_pool_max\": [%lld, %lld, %lld, %lld], \"tensormap_max\": 65536}\n",
            version, fatal ? "true" : "false", dropped, total, tw[0], tw[1], tw[2], tw[3],
            heap[0], heap[1], heap[2], heap[3], dep[0], dep[1], dep[2], dep[3]);
}

/* One record with the ring's current counters; peak NULL = live values. */
static inline void ru_record(ru_file *t, const char *site, const char *phase, int depth,
                             int ring, const long long *peak)
{
    const long long *c = t->ctr[ring];
    fprintf(t->f,
            "{\"site\": \"%s\", \"phase\": \"%s\", \"depth\": %d, \"ring\": %d, "
            "\"task_window_start\": %lld, \"task_window_end\": %lld, \"heap_start\": %lld, "
            "\"heap_end\": %lld, \"dep_pool_start\": %lld, \"dep_pool_end\": %lld, "
            "\"tensormap\": %lld",
            site, phase, depth, ring, c[0], c[1], c[2], c[3], c[4], c[5], t->tensormap);
    if (t->peaks)
        fprintf(t->f,
                ", \"peak_task_window\": %lld, \"peak_heap\": %lld, \"peak_dep_pool\": %lld, "
                "\"peak_tensormap\": %lld",
                peak ? peak[0] : c[1] - c[0], peak ? peak[1] : c[3] - c[2],
                peak ? peak[2] : c[5] - c[4], peak ? peak[3] : t->tensormap);
    fprintf(t->f, "}\n");
}

static inline void ru_begin(ru_file *t, const char *site, int depth)
{
    ru_record(t, site, "begin", depth, depth < 3 ? depth : 3, NULL);
}

/* Allocates (tasks, bytes, edges) on a ring and adds tensormap entries. */
static inline void ru_alloc(ru_file *t, int ring, long long tasks, long long bytes,
                            long long edges, long long tm)
{
    t->ctr[ring][1] += tasks;
    t->ctr[ring][3] += bytes;
    t->ctr[ring][5] += edges;
    t->tensormap += tm;
}

/* Retires everything allocated on the ring and drops tensormap entries. */
static inline void ru_drain(ru_file *t, int ring, long long tm)
{
    t->ctr[ring][0] = t->ctr[ring][1];
    t->ctr[ring][2] = t->ctr[ring][3];
    t->ctr[ring][4] = t->ctr[ring][5];
    t->tensormap -= tm;
}

/* A scope that allocates (tasks, bytes, edges, tm), peaks there, ends, drains. */
static inline void ru_scope(ru_file *t, const char *site, int depth, long long tasks,
                            long long bytes, long long edges, long long tm)
{
    int ring = depth < 3 ? depth : 3;
    ru_begin(t, site, depth);
    ru_alloc(t, ring, tasks, bytes, edges, tm);
    ru_record(t, site, "end", depth, ring, NULL);
    ru_drain(t, ring, tm);
}

static inline void ru_close(ru_file *t)
{
    assert_int_equal(fclose(t->f), 0);
    t->f = NULL;
}

/* Runs the CLI in-process; *out and *err receive malloc'd text. */
static inline int ru_cli(char **out, char **err, const char *a1, const char *a2,
                         const char *a3, const char *a4, const char *a5)
{
    char *argv[7] = {(char *)"pto-scope-stats", (char *)a1, (char *)a2, (char *)a3,
                     (char *)a4, (char *)a5, NULL};
    int argc = 1;
    while (argc < 6 && argv[argc]) argc++;
    size_t no, ne;
    FILE *fo = open_memstream(out, &no), *fe = open_memstream(err, &ne);
    assert_non_null(fo);
    assert_non_null(fe);
    int rc = ss_cli_run(argc, argv, fo, fe);
    fclose(fo);
    fclose(fe);
    return rc;
}

/* Loads and summarizes path, failing the test on any load error. */
static inline void ru_summarize(const char *path, double headroom, ss_data *d, ss_summary *s)
{
    char err[1024];
    int rc = ss_file_load(path, d, err, sizeof err);
    if (rc) fail_msg("load failed: %s", err);
    assert_int_equal(ss_summary_build(d, headroom, s), SS_OK);
}

#endif
