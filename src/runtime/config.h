/*
 * config.h - validation and resolution of a pto_config (internal).
 *
 * One rule table, in config.c, serves pto_config_check, pto_runtime_create
 * and the Python RunConfig: every message is spelled once.
 */
#ifndef RT_CONFIG_H
#define RT_CONFIG_H

#include "pto/config.h"

/* Validates in (NULL = all defaults) and writes the effective configuration
 * to out: every ring entry non-zero, num_workers >= 1 (0 -> online CPUs),
 * stall_timeout_ms resolved (0 -> 2000; -1 kept = never).  output_prefix is
 * copied as a pointer (the caller duplicates it if it must outlive in).
 * Returns 0, or -1 with the first failing rule's message in msg. */
int rt_config_resolve(const pto_config *in, pto_config *out, char *msg, size_t len);

/* Warns once per process (through cfg, which may be NULL) about each retired
 * PTO2_RING_* variable that is set (they are never read for sizing). */
void rt_config_warn_retired_env(const pto_config *cfg);

/* Says the one "Ring buffer sizes: ..." line for a resolved config. */
void rt_config_log_sizes(const pto_config *resolved);

#endif
