/*
 * trace.c - the per-task trace (trace.h): a JSON array of Chrome trace
 * events.  The file starts with "[" and metadata events naming the process
 * and each executor; every flush appends the buffered task events; close
 * ends the array.  A process that dies mid-run leaves a file without the
 * closing "]", which the trace viewers accept.
 *
 * An event: {"name": <task name>, "cat": "task", "ph": "X", "ts": <start,
 * us since create>, "dur": <us>, "pid": 1, "tid": <executor>, "args":
 * {"task": "<ring>:<n>", as error messages print ids, "ring": <ring>}}; a block of an
 * SPMD task adds "block": <b>, "num_blocks": <n> to args (one event per block).
 */
#include <stdlib.h>
#include <string.h>

#include "runtime/trace.h"

#include "base/clock.h"
#include "runtime/format.h"
#include "runtime/rt.h"
#include "runtime/spare.h"
#include "runtime/warn.h"

const char *rt_trace_path(const pto_config *cfg)
{
    if (cfg && cfg->trace_path && cfg->trace_path[0]) return cfg->trace_path;
    const char *env = getenv("PTO_TRACE");
    return env && env[0] ? env : NULL;
}

int rt_trace_open(rt_trace *t, const char *path, int num_workers)
{
    t->file = fopen(path, "w");
    if (!t->file) return -1;
    t->t0 = base_now_ns();
    fputs("[\n{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"args\": {\"name\": \"libpto\"}}", t->file);
    for (int k = 0; k <= num_workers; k++) {
        fprintf(t->file, ",\n{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": %d, \"args\": {\"name\": ", k);
        if (k < num_workers) fprintf(t->file, "\"worker %d\"}}", k);
        else fputs("\"orchestrator\"}}", t->file);
    }
    return 0;
}

void rt_trace_record(rt_trace_buf *b, pto_task_id id, const char *name, uint64_t start_ns, uint64_t end_ns, uint32_t block,
                     uint32_t num_blocks)
{
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 1024;
        rt_trace_event *ev = realloc(b->ev, cap * sizeof *ev);
        if (!ev) {
            b->dropped++;
            return;
        }
        b->ev = ev, b->cap = cap;
    }
    rt_trace_event *e = &b->ev[b->n++];
    e->id = id, e->start_ns = start_ns, e->end_ns = end_ns, e->block = block, e->num_blocks = num_blocks;
    snprintf(e->name, sizeof e->name, "%s", name ? name : "-");
}

void rt_trace_flush(pto_runtime *rt)
{
    rt_trace *t = &rt->trace;
    if (!t->file) return;
    for (int k = 0, n = rt_executors(rt); k < n; k++) {
        rt_trace_buf *b = &rt->workers[k].trace;
        for (size_t i = 0; i < b->n; i++) {
            const rt_trace_event *e = &b->ev[i];
            char tid[32];
            rt_format_id(e->id, tid, sizeof tid);
            fputs(",\n{\"name\": ", t->file);
            rt_format_json_string(t->file, e->name);
            fprintf(t->file,
                    ", \"cat\": \"task\", \"ph\": \"X\", \"ts\": %.3f, \"dur\": %.3f, \"pid\": 1, \"tid\": %d, "
                    "\"args\": {\"task\": \"%s\", \"ring\": %d",
                    (double)(e->start_ns - t->t0) / 1e3, (double)(e->end_ns - e->start_ns) / 1e3, k, tid,
                    rt_task_ring(e->id));
            if (e->num_blocks > 1) fprintf(t->file, ", \"block\": %u, \"num_blocks\": %u", e->block, e->num_blocks);
            fputs("}}", t->file);
        }
        t->dropped += (uint64_t)b->dropped;
        b->n = 0, b->dropped = 0;
    }
    fflush(t->file);
}

void rt_trace_close(pto_runtime *rt)
{
    rt_trace *t = &rt->trace;
    if (t->file) {
        rt_trace_flush(rt);
        fputs("\n]\n", t->file);
        int bad = ferror(t->file) | (fclose(t->file) != 0);
        t->file = NULL;
        if (t->dropped || bad)
            rt_warn(&rt->cfg, PTO_WARNING_TRACE_INCOMPLETE, "warning: the task trace %s is incomplete: %llu event(s) lost to "
                    "memory%s", rt->trace_path, (unsigned long long)t->dropped, bad ? ", and writing it failed" : "");
    }
    for (int k = 0, n = rt->workers ? rt_executors(rt) : 0; k < n; k++) free(rt->workers[k].trace.ev);
}
