/*
 * format.h - how messages print task ids and scope sites, and how the
 * files the runtime writes quote text.  A leaf: used by the error,
 * diagnosis, worker, scope-stats and trace modules alike.
 */
#ifndef RT_FORMAT_H
#define RT_FORMAT_H

#include <stddef.h>
#include <stdio.h>

#include "pto/runtime.h"

/* s as a JSON string: quoted, '"' and '\\' escaped, control bytes as \\u00XX. */
void rt_format_json_string(FILE *f, const char *s);

/* "<ring>:<local>", or "-" for PTO_INVALID_TASK_ID. */
void rt_format_id(pto_task_id id, char *out, size_t n);

/* The scope a message names: its site "<basename>:<line>" (basename cut to
 * 31 chars; "(root):0" for the implicit root, depth < 0) and its depth
 * ("root" or the number). */
typedef struct rt_where {
    char site[48];
    char depth[16];
} rt_where;
rt_where rt_format_where(const char *file, int line, int depth);

#endif
