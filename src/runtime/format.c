/*
 * format.c - task ids and scope sites as every message prints them (see
 * format.h).
 */
#include "runtime/format.h"

#include <stdio.h>
#include <string.h>

#include "pto/scope_stats.h"
#include "runtime/task.h"

void rt_format_id(pto_task_id id, char *out, size_t n)
{
    if (id == PTO_INVALID_TASK_ID) snprintf(out, n, "-");
    else snprintf(out, n, "%d:%u", rt_task_ring(id), rt_task_local(id));
}

rt_where rt_format_where(const char *file, int line, int depth)
{
    rt_where w;
    if (depth < 0 || !file) {
        snprintf(w.site, sizeof w.site, "%s", PTO_SCOPE_STATS_ROOT_SITE);
        snprintf(w.depth, sizeof w.depth, "root");
        return w;
    }
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    snprintf(w.site, sizeof w.site, "%.31s:%d", base, line);
    snprintf(w.depth, sizeof w.depth, "%d", depth);
    return w;
}

void rt_format_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
        else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
        else fputc(*p, f);
    }
    fputc('"', f);
}
