/*
 * stats_file.h - one scope_stats.jsonl file, read and paired.
 *
 * The file is NDJSON, schema version 6 (pto/scope_stats.h): line 1 is the run's
 * metadata, every later line one scope boundary record.  Loading checks every
 * line, pairs each `end` with the latest unmatched `begin` of the same site
 * on the same ring, and keeps only the paired scopes, in the order they ended.
 * Invariants after ss_file_load returns SS_OK:
 *   - scopes[] is in end order; scope.ring_index counts 1.. per ring and
 *     scope.global_index counts 1.. over all rings;
 *   - every derived metric is >= 0 (a counter that went backwards reads 0);
 *   - peak[] holds the risk metric: the true peak when the file has peak_*
 *     keys, else the high water (reference runtime files).
 * Problems that still allow a report (a truncated tail, a scope left open, an
 * `end` without `begin`) become warnings[]; anything else fails the load with
 * one message, in the wording of docs/tools.md.
 */
#ifndef SS_STATS_FILE_H
#define SS_STATS_FILE_H

#include <stddef.h>
#include <stdint.h>

#define SS_RINGS 4

/* Status of every fallible ss_ function; the CLI's exit codes are these. */
enum ss_status {
    SS_OK = 0,
    SS_EINPUT = 1, /* the input file is unusable (or an output cannot be written) */
    SS_EUSAGE = 2  /* bad command line */
};

/* The three per-ring resources; SS_TENSORMAP is global and only a row. */
enum ss_resource { SS_TASK_WINDOW = 0, SS_HEAP = 1, SS_DEP_POOL = 2, SS_NRES = 3, SS_TENSORMAP = 3 };

/* "task_window", "heap", "dep_pool", "tensormap". */
const char *ss_resource_name(int resource);

/* One paired begin/end. */
typedef struct ss_scope {
    char *site;
    int depth, ring;
    long begin_line, end_line;     /* 1-based line numbers in the file */
    long ring_index;               /* 1-based end order on its ring */
    long global_index;             /* 1-based end order over all rings */
    int64_t high_water[SS_NRES];   /* end.X_end - begin.X_start */
    int64_t live_exit[SS_NRES];    /* end.X_end - end.X_start */
    int64_t alloc[SS_NRES];        /* end.X_end - begin.X_end */
    int64_t peak[SS_NRES];         /* risk metric: end.peak_X, or high water */
    int64_t tm_live;               /* end.tensormap */
    int64_t tm_peak;               /* end.peak_tensormap, or end.tensormap */
} ss_scope;

typedef struct ss_data {
    char *path;
    int fatal;
    int64_t dropped, total;
    int64_t capacity[SS_NRES][SS_RINGS]; /* from *_max; 0 in the file reads as the default */
    int64_t tm_capacity;
    int has_peaks;                       /* records carry peak_* keys */
    long records;                        /* scope records read (complete lines) */
    ss_scope *scopes;                    /* paired scopes, end order */
    size_t nscopes;
    uint64_t scopes_cap;
    long ring_scopes[SS_RINGS];          /* paired scopes per ring */
    char **warnings;                     /* one line each, without "\n" */
    size_t nwarnings;
    uint64_t warnings_cap;
} ss_data;

/* Reads and pairs path.  SS_OK fills *d (free it with ss_file_free);
 * SS_EINPUT writes the docs/tools.md message (no trailing newline) to err and leaves *d
 * empty.  Never prints. */
int ss_file_load(const char *path, ss_data *d, char *err, size_t errlen);

void ss_file_free(ss_data *d);

#endif
