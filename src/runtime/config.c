/*
 * config.c - the configuration rule table, validation and resolution.
 *
 * One static table, rt_config_rules, holds every rule of docs/runtime.md
 * ("Sizing"): a
 * row per field with its bounds, its power-of-two flag and the phrase that
 * follows "must" in its message.  pto_config_check (C structs), the
 * pto_config_check_* helpers (Python RunConfig) and rt_config_resolve all
 * check through that table, so each message is spelled once and C and Python
 * print the same text.  Rows are checked in table order; the first failure
 * is reported.
 *
 * Message forms, for a range row:
 *   scalar:      "<name> must <phrase><unit>, got <v>"
 *   list entry:  "<name> entries must <phrase><unit> (or 0 to keep default), got <v>
 *                 at <name>[<i>]"
 * A row whose phrase does not state its upper bound (ring_task_window,
 * ring_heap) reports a value over it with the rule "be <= <max><unit>" in
 * the same two forms, so an over-large list entry reads
 * "ring_heap entries must be <= 1099511627776 (bytes per ring) (or 0 to keep
 * default), got <v>".
 *
 * Values are carried as sign + magnitude so that a C uint64_t entry above
 * INT64_MAX and a Python int64 below zero are both compared and printed
 * exactly.
 *
 * The only mutable state is one once-per-process flag per retired
 * PTO2_RING_* variable: the warning concerns the process environment, not
 * one runtime.
 */
#include "runtime/config.h"

#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pto/runtime.h"
#include "runtime/warn.h"

/* Row indices; the three ring rows share the values of pto_ring_field. */
enum {
    RT_CONFIG_TASK_WINDOW = PTO_FIELD_RING_TASK_WINDOW,
    RT_CONFIG_HEAP = PTO_FIELD_RING_HEAP,
    RT_CONFIG_DEP_POOL = PTO_FIELD_RING_DEP_POOL,
    RT_CONFIG_NUM_WORKERS,
    RT_CONFIG_STALL_TIMEOUT,
    RT_CONFIG_SCOPE_STATS,
    RT_CONFIG_NUM_ROWS
};

#define RT_CONFIG_NUM_RING_FIELDS 3

typedef struct rt_config_rule {
    const char *name;        /* field name, as RunConfig spells it */
    uint64_t min;            /* smallest accepted value */
    uint64_t max;            /* largest accepted value */
    int pow2;                /* value must be a power of 2 */
    int allow_never;         /* -1 is accepted too (stall: never time out) */
    int phrase_states_max;   /* over max gets the phrase, not "be <= max" */
    const char *phrase;      /* follows "must" (for the scope-stats row: "requires") */
    const char *unit;        /* appended to the phrase and to "be <= max" */
    uint64_t def;            /* compile-time default (ring rows and stall) */
    const char *retired_env; /* retired environment variable (ring rows) */
} rt_config_rule;

static const rt_config_rule rt_config_rules[RT_CONFIG_NUM_ROWS] = {
    [RT_CONFIG_TASK_WINDOW] = {"ring_task_window", 4, PTO_MAX_TASK_WINDOW, 1, 0, 0,
                               "be a power of 2 >= 4", "", PTO_DEFAULT_TASK_WINDOW,
                               "PTO2_RING_TASK_WINDOW"},
    [RT_CONFIG_HEAP] = {"ring_heap", 1024, PTO_MAX_HEAP, 1, 0, 0, "be a power of 2 >= 1024",
                        " (bytes per ring)", PTO_DEFAULT_HEAP, "PTO2_RING_HEAP"},
    [RT_CONFIG_DEP_POOL] = {"ring_dep_pool", 4, PTO_MAX_DEP_POOL, 0, 0, 1,
                            "be in [4, INT32_MAX]", "", PTO_DEFAULT_DEP_POOL,
                            "PTO2_RING_DEP_POOL"},
    /* Default: online CPUs, computed in rt_config_resolve. */
    [RT_CONFIG_NUM_WORKERS] = {"num_workers", 1, PTO_MAX_WORKERS, 0, 0, 1, "be in [1, 1024]",
                               "", 0, NULL},
    /* INT_MAX: the C field is an int; the phrase covers it ("positive"). */
    [RT_CONFIG_STALL_TIMEOUT] = {"stall_timeout_ms", 1, INT_MAX, 0, 1, 1,
                                 "be a positive number of milliseconds or -1 (never)", "",
                                 PTO_DEFAULT_STALL_TIMEOUT_MS, NULL},
    [RT_CONFIG_SCOPE_STATS] = {"enable_scope_stats", 0, 0, 0, 0, 0,
                               "output_prefix (the directory that receives "
                               "scope_stats/scope_stats.jsonl)",
                               "", 0, NULL},
};

static int rt_config_fail(char *msg, size_t len, const char *fmt, ...)
{
    if (msg && len > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, len, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static void rt_config_clear(char *msg, size_t len)
{
    if (msg && len > 0) msg[0] = '\0';
}

static const rt_config_rule *rt_config_ring_rule(pto_ring_field field)
{
    if ((int)field < 0 || (int)field >= RT_CONFIG_NUM_RING_FIELDS) return NULL;
    return &rt_config_rules[field];
}

static int rt_config_unknown_field(pto_ring_field field, char *msg, size_t len)
{
    return rt_config_fail(msg, len, "unknown ring field %d (expected 0..%d)", (int)field,
                          RT_CONFIG_NUM_RING_FIELDS - 1);
}

/*
 * Checks one value, given as negative + magnitude, against a range row.
 * entry >= 0: that entry of a 4-list, where an integer 0 keeps the default
 * (a non-int, Python bool/float, is rejected before that test, so False is
 * no sentinel), with the list template of docs/runconfig.md, "Ring sizes"; entry < 0: a scalar.
 */
static int rt_config_check_row(const rt_config_rule *r, int entry, int is_int, int negative,
                               uint64_t mag, const char *shown, char *msg, size_t len)
{
    int over_max = 0, is_entry = entry >= 0;
    if (is_int) {
        if (is_entry && mag == 0) return 0;
        if (negative) {
            if (r->allow_never && mag == 1) return 0;
        } else if (mag >= r->min && (!r->pow2 || (mag & (mag - 1)) == 0)) {
            if (mag <= r->max) return 0;
            over_max = !r->phrase_states_max;
        }
    }

    char value[32];
    if (!shown) {
        snprintf(value, sizeof value, "%s%" PRIu64, negative ? "-" : "", mag);
        shown = value;
    }
    char rule[128];
    if (over_max)
        snprintf(rule, sizeof rule, "be <= %" PRIu64 "%s", r->max, r->unit);
    else
        snprintf(rule, sizeof rule, "%s%s", r->phrase, r->unit);
    return rt_config_fail(msg, len, "%s%s must %s%s, got %s", r->name,
                          is_entry ? " entries" : "", rule,
                          is_entry ? " (or 0 to keep default)" : "", shown);
}

/* Same, for a signed value. */
static int rt_config_check_signed(const rt_config_rule *r, int entry, int is_int,
                                  int64_t value, const char *shown, char *msg, size_t len)
{
    int negative = value < 0;
    /* Magnitude by unsigned negation: defined for INT64_MIN too. */
    uint64_t mag = negative ? (uint64_t)0 - (uint64_t)value : (uint64_t)value;
    return rt_config_check_row(r, entry, is_int, negative, mag, shown, msg, len);
}

const char *pto_ring_field_name(pto_ring_field field)
{
    const rt_config_rule *r = rt_config_ring_rule(field);
    return r ? r->name : NULL;
}

int pto_config_check_ring_value(pto_ring_field field, int entry, int is_int, int64_t value,
                                const char *shown, char *msg, size_t len)
{
    rt_config_clear(msg, len);
    const rt_config_rule *r = rt_config_ring_rule(field);
    if (!r) return rt_config_unknown_field(field, msg, len);
    if (entry >= PTO_NUM_RINGS)
        return rt_config_fail(msg, len, "%s has no entry %d (rings 0..%d)", r->name, entry,
                              PTO_NUM_RINGS - 1);
    return rt_config_check_signed(r, entry, is_int, value, shown, msg, len);
}

int pto_config_check_ring_list_len(pto_ring_field field, size_t n, char *msg, size_t len)
{
    rt_config_clear(msg, len);
    const rt_config_rule *r = rt_config_ring_rule(field);
    if (!r) return rt_config_unknown_field(field, msg, len);
    if (n == PTO_NUM_RINGS) return 0;
    return rt_config_fail(msg, len,
                          "%s must have exactly %d entries (one per scope-depth ring), got %zu",
                          r->name, PTO_NUM_RINGS, n);
}

int pto_config_check_num_workers(int is_int, int64_t value, const char *shown, char *msg,
                                 size_t len)
{
    rt_config_clear(msg, len);
    return rt_config_check_signed(&rt_config_rules[RT_CONFIG_NUM_WORKERS], -1, is_int, value,
                                  shown, msg, len);
}

int pto_config_check_stall_timeout(int is_int, int64_t value, const char *shown, char *msg,
                                   size_t len)
{
    rt_config_clear(msg, len);
    return rt_config_check_signed(&rt_config_rules[RT_CONFIG_STALL_TIMEOUT], -1, is_int, value,
                                  shown, msg, len);
}

int pto_config_check(const pto_config *cfg, char *msg, size_t len)
{
    rt_config_clear(msg, len);
    if (!cfg) return 0;

    const uint64_t *rings[RT_CONFIG_NUM_RING_FIELDS] = {
        cfg->runtime_env.ring_task_window, cfg->runtime_env.ring_heap,
        cfg->runtime_env.ring_dep_pool};
    for (int f = 0; f < RT_CONFIG_NUM_RING_FIELDS; f++)
        for (int i = 0; i < PTO_NUM_RINGS; i++)
            if (rt_config_check_row(&rt_config_rules[f], i, 1, 0, rings[f][i], NULL, msg, len))
                return -1;

    /* C spells "default" as 0 for these two; Python never passes 0 here. */
    if (cfg->num_workers != 0 &&
        rt_config_check_signed(&rt_config_rules[RT_CONFIG_NUM_WORKERS], -1, 1, cfg->num_workers,
                               NULL, msg, len))
        return -1;
    if (cfg->stall_timeout_ms != 0 &&
        rt_config_check_signed(&rt_config_rules[RT_CONFIG_STALL_TIMEOUT], -1, 1,
                               cfg->stall_timeout_ms, NULL, msg, len))
        return -1;

    const rt_config_rule *stats = &rt_config_rules[RT_CONFIG_SCOPE_STATS];
    if (cfg->enable_scope_stats && (!cfg->output_prefix || !cfg->output_prefix[0]))
        return rt_config_fail(msg, len, "%s requires %s", stats->name, stats->phrase);
    return 0;
}

static int rt_config_online_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1) return 1;
    return n > PTO_MAX_WORKERS ? PTO_MAX_WORKERS : (int)n;
}

int rt_config_resolve(const pto_config *in, pto_config *out, char *msg, size_t len)
{
    static const pto_config rt_config_zero;
    if (!in) in = &rt_config_zero;
    if (pto_config_check(in, msg, len)) return -1;

    *out = *in;
    uint64_t *rings[RT_CONFIG_NUM_RING_FIELDS] = {
        out->runtime_env.ring_task_window, out->runtime_env.ring_heap,
        out->runtime_env.ring_dep_pool};
    for (int f = 0; f < RT_CONFIG_NUM_RING_FIELDS; f++)
        for (int i = 0; i < PTO_NUM_RINGS; i++)
            if (rings[f][i] == 0) rings[f][i] = rt_config_rules[f].def;
    if (out->num_workers == 0) out->num_workers = rt_config_online_cpus();
    if (out->stall_timeout_ms == 0)
        out->stall_timeout_ms = (int)rt_config_rules[RT_CONFIG_STALL_TIMEOUT].def;
    return 0;
}

void rt_config_warn_retired_env(const pto_config *cfg)
{
    /* Set by the first caller that sees the variable; never cleared. */
    static atomic_flag rt_config_warned[RT_CONFIG_NUM_RING_FIELDS] = {
        ATOMIC_FLAG_INIT, ATOMIC_FLAG_INIT, ATOMIC_FLAG_INIT};
    for (int f = 0; f < RT_CONFIG_NUM_RING_FIELDS; f++) {
        const rt_config_rule *r = &rt_config_rules[f];
        if (!getenv(r->retired_env)) continue;
        if (atomic_flag_test_and_set(&rt_config_warned[f])) continue;
        rt_warn(cfg, PTO_WARNING_RETIRED_ENV,
                "warning: %s is no longer read and is ignored; size the rings with RunConfig "
                "%s (runtime_env.%s)",
                r->retired_env, r->name, r->name);
    }
}

#define RT_CONFIG_RING_FMT "[%" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 "]"
#define RT_CONFIG_RING_ARGS(v) (v)[0], (v)[1], (v)[2], (v)[3]

void rt_config_log_sizes(const pto_config *resolved)
{
    const pto_runtime_env *env = &resolved->runtime_env;
    rt_warn(resolved, PTO_WARNING_RING_SIZES,
            "Ring buffer sizes: task_window=" RT_CONFIG_RING_FMT " heap=" RT_CONFIG_RING_FMT
            " dep_pool=" RT_CONFIG_RING_FMT " tensormap=%d workers=%d stall_timeout_ms=%d",
            RT_CONFIG_RING_ARGS(env->ring_task_window), RT_CONFIG_RING_ARGS(env->ring_heap),
            RT_CONFIG_RING_ARGS(env->ring_dep_pool), PTO_TENSORMAP_POOL_SIZE,
            resolved->num_workers, resolved->stall_timeout_ms);
}
