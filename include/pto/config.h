/*
 * pto/config.h - sizing and behaviour of one runtime (the C side of RunConfig).
 *
 * Every ring field is an array indexed by ring 0..3; 0 means "keep the
 * compile-time default for that ring".  The same rule table validates a C
 * pto_config (pto_config_check, pto_runtime_create) and a Python RunConfig
 * (the pto_config_check_* helpers below), so both print the same messages.
 */
#ifndef PTO_CONFIG_H
#define PTO_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PTO_NUM_RINGS 4

#define PTO_DEFAULT_TASK_WINDOW 16384u
#define PTO_DEFAULT_HEAP 268435456ull
#define PTO_DEFAULT_DEP_POOL 16384u
#define PTO_DEFAULT_STALL_TIMEOUT_MS 2000
#define PTO_MAX_TASK_WINDOW 1073741824ull  /* 2^30 */
#define PTO_MAX_HEAP 1099511627776ull      /* 2^40 */
#define PTO_MAX_DEP_POOL 2147483647ull     /* INT32_MAX */
#define PTO_MAX_WORKERS 1024

/* What the library says besides errors, X(NAME, code, what it means).  Each
 * goes to pto_config.warning, or, without one, to stderr as one line. */
#define PTO_WARNING_LIST(X)                                                                  \
    X(RETIRED_ENV, 1, "a retired PTO2_RING_* variable is set and ignored (once per process)") \
    X(RING_SIZES, 2, "the effective ring sizes, at create (log_ring_sizes)")                  \
    X(SCOPES_LEFT_OPEN, 3, "pto_runtime_finish closed scopes left open (not after a fatal error)") \
    X(RING_BLOCKED, 4, "the orchestrator has waited over a second for room on a ring")        \
    X(STALL_REPORTED, 5, "pto_runtime_finish saw no progress: the run's error, at once")      \
    X(STALL_AFTER_FATAL, 6, "no progress after the run failed: waiting for running kernels")  \
    X(STATS_NOT_WRITTEN, 7, "the scope-stats file could not be written")                      \
    X(TRACE_INCOMPLETE, 8, "the task trace lost events (out of memory) or could not be written")

typedef enum pto_warning {
#define PTO_WARNING_ENUM_(name, code, text) PTO_WARNING_##name = code,
    PTO_WARNING_LIST(PTO_WARNING_ENUM_)
#undef PTO_WARNING_ENUM_
} pto_warning;

/* "RETIRED_ENV", ...; "UNKNOWN" for a code that is none. */
const char *pto_warning_name(int code);

/* Receives one warning: its code and its text (no trailing newline).  May be
 * called from any thread that runs the library's code. */
typedef void (*pto_warning_fn)(void *ctx, pto_warning code, const char *text);

/* Per-ring sizes; 0 keeps the ring's default. */
typedef struct pto_runtime_env {
    uint64_t ring_task_window[PTO_NUM_RINGS]; /* slots, power of 2 >= 4 */
    uint64_t ring_heap[PTO_NUM_RINGS];        /* bytes, power of 2 >= 1024 */
    uint64_t ring_dep_pool[PTO_NUM_RINGS];    /* entries, in [4, INT32_MAX] */
} pto_runtime_env;

typedef struct pto_config {
    pto_runtime_env runtime_env;
    int num_workers;           /* worker threads; 0 = one per online CPU */
    int stall_timeout_ms;      /* no-progress bound; 0 = 2000, -1 = never */
    int enable_scope_stats;    /* write <output_prefix>/scope_stats/scope_stats.jsonl */
    const char *output_prefix; /* directory for scope stats (required by them) */
    int log_ring_sizes;        /* print one "Ring buffer sizes:" line at create */
    pto_warning_fn warning;    /* receives every warning; NULL: print to stderr */
    void *warning_ctx;         /* its first argument */
    const char *trace_path;    /* per-task trace (Chrome trace-event JSON) written here;
                                * NULL: the PTO_TRACE environment variable, if set, else off */
} pto_config;

/* The three ring fields, for the per-value checks. */
typedef enum pto_ring_field {
    PTO_FIELD_RING_TASK_WINDOW = 0,
    PTO_FIELD_RING_HEAP = 1,
    PTO_FIELD_RING_DEP_POOL = 2
} pto_ring_field;

/* Name of a ring field as RunConfig spells it ("ring_task_window", ...). */
const char *pto_ring_field_name(pto_ring_field field);

/* Checks a whole configuration.  Returns 0, or -1 with the first failing
 * rule's message in msg (always NUL-terminated when len > 0). */
int pto_config_check(const pto_config *cfg, char *msg, size_t len);

/* Checks one value of a ring field, given as a scalar (entry = -1: 0 is
 * rejected) or as entry 0..3 of a 4-list (0 keeps the default; the list
 * form of the message, "ring_heap entries must ... (or 0 to keep default),
 * got 512").
 * is_int = 0 marks a value that is not an integer (Python bool or float);
 * it is rejected.  shown is how the value prints in the message (Python
 * repr); NULL prints value in decimal. */
int pto_config_check_ring_value(pto_ring_field field, int entry, int is_int,
                                int64_t value, const char *shown, char *msg,
                                size_t len);

/* Checks the length of a ring field given as a list (must be 4). */
int pto_config_check_ring_list_len(pto_ring_field field, size_t n, char *msg,
                                   size_t len);

/* Checks num_workers / stall_timeout_ms as a user wrote them (Python: the
 * stall timeout 0 is rejected; C passes 0 for "default" and never calls
 * this with 0).  is_int and shown as above. */
int pto_config_check_num_workers(int is_int, int64_t value, const char *shown,
                                 char *msg, size_t len);
int pto_config_check_stall_timeout(int is_int, int64_t value, const char *shown,
                                   char *msg, size_t len);

#ifdef __cplusplus
}
#endif
#endif
