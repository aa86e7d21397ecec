/*
 * stats_ranks.c - several scope-stats files side by side (a distributed
 * call's rank<r>/ files, docs/distributed.md "Output and stats"): one row
 * per resource and ring, one column per file with its peak, capacity and
 * use, then each file's status and suggested RunConfig.
 *
 * Invariants: a column's label is "rank <r>" when its path holds a
 * "rank<r>/" component, else its position (#1, #2, ...); every number is
 * the one ss_summary_build computed for that file alone, so a column reads
 * exactly as that file's own report does.
 */
#include <stdlib.h>
#include <string.h>

#include "stats_report.h"

/* "rank 3" for .../rank3/..., else "#<k+1>". */
static void ss_label(const char *path, int k, char *buf, size_t cap)
{
    for (const char *p = strstr(path, "rank"); p; p = strstr(p + 1, "rank")) {
        char *end;
        long r = strtol(p + 4, &end, 10);
        if (end > p + 4 && *end == '/' && (p == path || p[-1] == '/')) {
            snprintf(buf, cap, "rank %ld", r);
            return;
        }
    }
    snprintf(buf, cap, "#%d", k + 1);
}

int ss_ranks_write(FILE *out, const ss_data *d, const ss_summary *s, const char *const *paths, int n)
{
    char cell[64];
    fprintf(out, "%-22s", "resource / ring");
    for (int k = 0; k < n; k++) {
        ss_label(paths[k], k, cell, sizeof cell);
        fprintf(out, " %22s", cell);
    }
    fprintf(out, "\n");
    for (int res = 0; res < SS_NRES; res++)
        for (int ring = 0; ring < SS_RINGS; ring++) {
            snprintf(cell, sizeof cell, "%s %d", ss_summary_field(res), ring);
            fprintf(out, "%-22s", cell);
            for (int k = 0; k < n; k++) {
                if (!s[k].has_data[ring]) snprintf(cell, sizeof cell, "-");
                else
                    snprintf(cell, sizeof cell, "%lld/%lld (%.0f%%)", (long long)s[k].ring_peak[res][ring],
                             (long long)d[k].capacity[res][ring], 100.0 * s[k].use[res][ring]);
                fprintf(out, " %22s", cell);
            }
            fprintf(out, "\n");
        }
    for (int k = 0; k < n; k++) {
        char rc[1024];
        ss_label(paths[k], k, cell, sizeof cell);
        fprintf(out, "\n%s: %s (%s)\n", cell, ss_summary_status(&d[k]), paths[k]);
        for (int after = 0; after < 2; after++)
            if (ss_summary_runconfig(&s[k], after, rc, sizeof rc)) fprintf(out, "  %s%s\n", after ? "after rebalancing scopes: " : "", rc);
    }
    return ferror(out) ? SS_EINPUT : SS_OK;
}
