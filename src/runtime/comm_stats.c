/*
 * comm_stats.c - <dir>/comm_stats.json of one rank's distributed call
 * (comm_stats.h; DISTRIBUTED-SPEC §2.7).
 *
 * The file is one JSON object: version, rank, world, backends (one entry
 * per comm domain this rank is in, keyed by its world ranks "[0, 1]"),
 * per_peer (one entry per world rank, this one included: self traffic is
 * counted too), collectives (only the ops the call used), waits, wait_ms,
 * spare_threads_peak (the spare threads the rank's runtime has started, spare.h), window_bytes
 * and phase_us.  Counters are read once, after every task completed.
 */
#include "runtime/comm_stats.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/comm.h"
#include "runtime/format.h"
#include "runtime/rt.h"
#include "runtime/stats.h"
#include "runtime/warn.h"

static const char *const cs_kinds[RT_CS_NKINDS] = {"put", "acc", "get", "remote_load", "remote_store"};
static const char *const cs_colls[RT_CS_NCOLLS] = {"barrier", "allreduce", "broadcast", "allgather", "reduce_scatter", "all_to_all"};
static const char *const cs_phases[RT_CS_NPHASES] = {"entry_check", "domains", "window_alloc", "inputs", "run", "results", "release"};

static unsigned long long cs_load(const _Atomic uint64_t *v) { return atomic_load_explicit(v, memory_order_relaxed); }

static void cs_backends(FILE *f, const rt_comm_call *c)
{
    fputs("\"backends\": {", f);
    for (uint32_t d = 0, first = 1; c && d < c->ndomains; d++) {
        const rt_comm_domain *dm = &c->domains[d];
        if (dm->rank < 0 || !dm->backend) continue; /* a domain of other ranks */
        fprintf(f, "%s\"[", first ? "" : ", ");
        for (int i = 0; i < dm->n; i++) fprintf(f, "%s%d", i ? ", " : "", dm->ranks[i]);
        fputs("]\": ", f);
        rt_format_json_string(f, dm->backend);
        first = 0;
    }
    fputs("}", f);
}

static int cs_dump(FILE *f, const rt_comm_stats *s, const rt_comm_call *c, int rank, int world, int spares)
{
    fprintf(f, "{\"version\": 1, \"rank\": %d, \"world\": %d, ", rank, world);
    cs_backends(f, c);
    fputs(", \"per_peer\": [", f);
    for (int p = 0; p < world && p < RT_CS_MAX_PEERS; p++) {
        fprintf(f, "%s{\"peer\": %d", p ? ", " : "", p);
        for (int k = 0; k < RT_CS_NKINDS; k++)
            fprintf(f, ", \"%s_ops\": %llu, \"%s_bytes\": %llu", cs_kinds[k], cs_load(&s->ops[p][k]), cs_kinds[k], cs_load(&s->bytes[p][k]));
        fprintf(f, ", \"notify_ops\": %llu}", cs_load(&s->notifies[p]));
    }
    fputs("], \"collectives\": {", f);
    for (int k = 0, first = 1; k < RT_CS_NCOLLS; k++) {
        if (!s->coll_ops[k]) continue;
        fprintf(f, "%s\"%s\": {\"ops\": %llu, \"bytes\": %llu}", first ? "" : ", ", cs_colls[k], (unsigned long long)s->coll_ops[k],
                (unsigned long long)s->coll_bytes[k]);
        first = 0;
    }
    fprintf(f, "}, \"waits\": %llu, \"wait_ms\": %.3f, \"spare_threads_peak\": %d, \"window_bytes\": %llu, \"phase_us\": {",
            cs_load(&s->waits), (double)cs_load(&s->wait_ns) / 1e6, spares, (unsigned long long)s->window_bytes);
    for (int k = 0; k < RT_CS_NPHASES; k++) fprintf(f, "%s\"%s\": %.1f", k ? ", " : "", cs_phases[k], (double)s->phase_ns[k] / 1e3);
    fputs("}}\n", f);
    return ferror(f) ? -1 : 0;
}

void rt_cs_write(pto_runtime *rt, const rt_comm_stats *s, const rt_comm_call *c, const char *dir, int rank, int world)
{
    size_t n = strlen(dir) + sizeof "/comm_stats.json.tmp";
    char *path = malloc(n), *tmp = malloc(n);
    FILE *f = NULL;
    int ok = path && tmp;
    if (ok) {
        snprintf(path, n, "%s/comm_stats.json", dir);
        snprintf(tmp, n, "%s.tmp", path);
        ok = rt_stats_mkdirs(path) == 0 && (f = fopen(tmp, "w")) != NULL;
    } else {
        errno = ENOMEM;
    }
    if (ok) ok = cs_dump(f, s, c, rank, world, atomic_load(&rt->spare_count)) == 0;
    if (f && fclose(f) != 0) ok = 0;
    if (ok) ok = rename(tmp, path) == 0;
    if (!ok) {
        rt_warn(pto_runtime_config(rt), PTO_WARNING_STATS_NOT_WRITTEN, "warning: comm stats: cannot write %s/comm_stats.json: %s", dir,
                strerror(errno));
        if (tmp) remove(tmp);
    }
    free(path), free(tmp);
}
