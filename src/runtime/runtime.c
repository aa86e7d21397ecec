/*
 * runtime.c - a runtime's life: create, finish, destroy, and the calls that
 * are neither scopes nor submits (wait_view, report_fatal, introspection).
 *
 * pto_runtime_finish ends a run: it closes scopes left open, waits for every task
 * (a stall is reported as SCHEDULER_TIMEOUT after stall_timeout_ms, while
 * kernels still running are waited for), releases the implicit root, waits
 * for every ring to drain, and returns the latched status, clearing it.
 * Only a graph that can never finish (nothing running, nothing runnable)
 * keeps its latch.
 */
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/api.h"
#include "runtime/config.h"
#include "runtime/diagnose.h"
#include "runtime/error.h"
#include "runtime/format.h"
#include "runtime/progress.h"
#include "runtime/reserve.h"
#include "runtime/scope.h"
#include "runtime/stats.h"
#include "runtime/spare.h"
#include "runtime/wait.h"
#include "runtime/warn.h"
#include "runtime/worker.h"

static void rt_free(pto_runtime *rt)
{
    for (int r = 0; r < PTO_NUM_RINGS; r++) rt_ring_destroy(&rt->rings[r]);
    rt_tm_destroy(&rt->tm);
    if (rt->ready.cells) rt_ready_queue_destroy(&rt->ready);
    rt_unreserve(rt->scope_tasks, (uint64_t)rt->scope_tasks_cap * sizeof(pto_task_id));
    free(rt->edges);
    free(rt->stats.recs);
    rt_trace_close(rt);
    free(rt->workers);
    free(rt->trace_path);
    free(rt->output_prefix);
    pthread_mutex_destroy(&rt->spare_lock);
    rt_deferred_destroy(&rt->deferred);
    free(rt);
}

/* RESERVE_FAILED at create: formatted like every latched message.  ring -1
 * is an array every ring shares (ring=all); those grow with the sum of the
 * task windows, except the tensormap's fixed pool. */
static pto_runtime *rt_reserve_failed(pto_runtime *rt, int ring, const rt_reserve_failure *f,
                                      pto_error *err)
{
    char header[96], details[256], hint[256];
    if (ring >= 0) {
        snprintf(header, sizeof header, "FATAL: Ring Reservation Failed! ring=%d", ring);
        snprintf(hint, sizeof hint,
                 "lower ring_heap (runtime_env.ring_heap) or ring_task_window "
                 "(runtime_env.ring_task_window) for ring %d, or raise the address-space limit",
                 ring);
    } else {
        snprintf(header, sizeof header, "FATAL: Ring Reservation Failed! ring=all");
        snprintf(hint, sizeof hint,
                 "the arrays every ring shares grow with the sum of ring_task_window "
                 "(runtime_env.ring_task_window): lower it, or raise the address-space limit");
    }
    snprintf(details, sizeof details, "could not reserve %llu bytes for the %s (mmap: %s)",
             (unsigned long long)f->bytes, f->what, strerror(f->err_no));
    if (err) rt_error_format(err, PTO_RESERVE_FAILED, ring, header, details, hint);
    rt_free(rt);
    return NULL;
}

static pto_runtime *rt_runtime_create(const pto_config *cfg, pto_error *err)
{
    char msg[512];
    pto_config resolved;
    rt_config_warn_retired_env(cfg);
    if (rt_config_resolve(cfg, &resolved, msg, sizeof msg) != 0) {
        char header[600];
        snprintf(header, sizeof header, "FATAL: Invalid Arguments! %s", msg);
        if (err)
            rt_error_format(err, PTO_INVALID_ARGS, -1, header, "call: pto_runtime_create",
                            "fix the configuration as the message says (RunConfig checks the same "
                            "rules)");
        return NULL;
    }
    pto_runtime *rt = calloc(1, sizeof *rt);
    if (!rt) {
        if (err)
            rt_error_format(err, PTO_RESERVE_FAILED, -1,
                            "FATAL: Ring Reservation Failed! out of memory for the runtime object",
                            "call: pto_runtime_create", "free memory, or lower the ring sizes");
        return NULL;
    }
    pthread_mutex_init(&rt->spare_lock, NULL);
    rt_deferred_init(&rt->deferred);
    rt->cfg = resolved;
    if (resolved.output_prefix) {
        rt->output_prefix = strdup(resolved.output_prefix);
        rt->cfg.output_prefix = rt->output_prefix;
    }
    rt->scopes[0] = (rt_scope){.start = 0, .depth = -1, .ring = 0, .mode = PTO_SCOPE_AUTO};
    rt->num_scopes = 1;
    rt->submitting = PTO_INVALID_TASK_ID;
    rt->error.ring = -1;
    rt->last_error.ring = -1;

    uint64_t total_window = 0;
    for (int r = 0; r < PTO_NUM_RINGS; r++) {
        rt_reserve_failure f;
        const pto_runtime_env *env = &resolved.runtime_env;
        if (rt_ring_init(&rt->rings[r], r, (uint32_t)env->ring_task_window[r], env->ring_heap[r],
                         env->ring_dep_pool[r], 0, &f) != 0)
            return rt_reserve_failed(rt, r, &f, err);
        total_window += env->ring_task_window[r];
    }
    /* The arrays every ring shares, each reported as itself when refused. */
    int e = 0;
    rt_reserve_failure f = {NULL, 0, 0};
    uint64_t scope_bytes = total_window * sizeof(pto_task_id), ready_cap = base_next_pow2(total_window);
    rt->scope_tasks_cap = (uint32_t)total_window;
    if (!(rt->scope_tasks = rt_reserve(scope_bytes, &e)))
        f = (rt_reserve_failure){"scope task list", scope_bytes, e};
    else if (rt_tm_init(&rt->tm, rt->rings, &e) != 0)
        f = (rt_reserve_failure){"tensormap", rt->tm.failed_bytes, e};
    else if (rt_ready_queue_init(&rt->ready, ready_cap, &e) != 0)
        f = (rt_reserve_failure){"ready queue", ready_cap * sizeof(rt_ready_cell), e};
    if (f.what) return rt_reserve_failed(rt, -1, &f, err);
    rt->num_workers = resolved.num_workers;
    rt->orch_helps = resolved.num_workers < sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t mask;
    int cpus = sched_getaffinity(0, sizeof mask, &mask) == 0 ? CPU_COUNT(&mask) : (int)sysconf(_SC_NPROCESSORS_ONLN);
    rt->shared_core = cpus < sysconf(_SC_NPROCESSORS_ONLN) && resolved.num_workers + 1 > cpus;
    rt->workers = calloc((size_t)rt->num_workers + 1 + PTO_MAX_SPARE_WAITERS, sizeof *rt->workers);
    if (rt->workers) { /* the orchestrator's executor slot */
        rt_worker *o = &rt->workers[rt->num_workers];
        o->rt = rt;
        o->index = rt->num_workers;
        atomic_store(&o->running, PTO_INVALID_TASK_ID);
    }
    const char *trace = rt_trace_path(&resolved);
    if (rt->workers && trace) {
        rt->trace_path = strdup(trace);
        rt->cfg.trace_path = rt->trace_path;
        if (!rt->trace_path || rt_trace_open(&rt->trace, trace, rt->num_workers) != 0) {
            char header[600];
            snprintf(header, sizeof header, "FATAL: Invalid Arguments! cannot open the trace file '%s': %s", trace,
                     strerror(errno));
            if (err)
                rt_error_format(err, PTO_INVALID_ARGS, -1, header, "call: pto_runtime_create",
                                "set trace_path (or PTO_TRACE) to a file in a writable directory, or unset it");
            rt_free(rt);
            return NULL;
        }
    }
    if (!rt->workers || rt_worker_start_all(rt) != 0) {
        char details[96];
        snprintf(details, sizeof details, "call: pto_runtime_create num_workers=%d", resolved.num_workers);
        if (err)
            rt_error_format(err, PTO_RESERVE_FAILED, -1,
                            "FATAL: Ring Reservation Failed! could not start the worker threads", details,
                            "lower num_workers (the process may be out of threads or memory)");
        rt_free(rt);
        return NULL;
    }
    if (resolved.log_ring_sizes) rt_config_log_sizes(&rt->cfg);
    if (err) *err = (pto_error){.code = 0, .ring = -1};
    return rt;
}

int pto_runtime_create(const pto_config *cfg, pto_runtime **rt, pto_error *err)
{
    pto_error local;
    if (!rt) return -PTO_INVALID_ARGS;
    *rt = rt_runtime_create(cfg, err ? err : &local);
    return *rt ? 0 : -(err ? err : &local)->code;
}

/* Latches SCHEDULER_TIMEOUT for a finish that saw no progress. */
static int rt_fail_scheduler_timeout(pto_runtime *rt, const rt_census *c, uint64_t stalled_ms)
{
    const char *cls = c->running ? "S1:running-stalled"
                      : c->ready ? "S3:ready-but-all-idle"
                      : c->waiting ? "S4:dependency-deadlock"
                                   : "unknown:accounting/corruption";
    int detail = c->running ? 1 : c->ready ? 3 : c->waiting ? 4 : 99;
    char header[96], details[2048], hint[512], id[32];
    size_t len = 0;
    rt_format_id(c->longest, id, sizeof id);
    snprintf(header, sizeof header, "FATAL: Scheduler Timeout! no progress for %llu ms",
             (unsigned long long)stalled_ms);
    base_appendf(details, sizeof details, &len,
               "PTO scheduler timeout sub_class=%s (detail=%d) completed=%llu/%llu running=%llu "
               "ready=%llu waiting=%llu orch_done=1 stuck_task_id=%s stuck_worker=%d\n",
               cls, detail, (unsigned long long)(c->completed - rt->orch_completed),
               (unsigned long long)rt->submitted, (unsigned long long)c->running,
               (unsigned long long)c->ready, (unsigned long long)c->waiting, id, c->longest_worker);
    for (int r = 0; r < PTO_NUM_RINGS; r++) rt_diagnose_task_line(rt, r, details, sizeof details, &len);
    snprintf(hint, sizeof hint,
             "S1: task %s (%s) has run for %llu ms; raise stall_timeout_ms if it is legitimately "
             "slow (-1 disables the bound); other sub-classes are runtime bugs, report them",
             id, c->longest_kernel, (unsigned long long)c->longest_ms);
    return rt_error_fail(rt, PTO_SCHEDULER_TIMEOUT, -1, header, details, hint);
}

/* Waits until every handed-out task completed.  No progress for
 * stall_timeout_ms is reported at once (SCHEDULER_TIMEOUT, or, after an
 * earlier fatal, a warning), but kernels still running are waited for: a
 * thread cannot be cancelled, and returning under them would leave the
 * runtime unusable.  With nothing running (S3/S4) no wait can help: returns
 * 1, and the runtime stays latched. */
static int rt_all_done(pto_runtime *rt)
{
    return rt_progress_executed(rt) == rt->submitted;
}

static int rt_wait_all_completed(pto_runtime *rt)
{
    rt_wait w;
    int reported = 0;
    rt_worker *self = &rt->workers[rt->num_workers];
    rt_wait_begin(rt, &w);
    atomic_store(&rt->finish_target, rt->submitted);
    atomic_store(&rt->finish_waiting, 1);
    for (;;) {
        pto_task_id id;
        /* Help: with a core the workers leave free, run ready tasks here
         * rather than sleep beside them.  (Not otherwise: a kernel running on
         * this thread could not be watched by the stall bound.) */
        if (rt->orch_helps && rt_worker_wait_ready(rt, self, &id, rt_all_done, 10000000ull)) {
            while (id != PTO_INVALID_TASK_ID) id = rt_worker_execute(rt, self, id);
            continue;
        }
        if (rt_all_done(rt)) break;
        if (!rt->orch_helps) { /* every executor may be busy: test deferred tasks here too */
            uint32_t seq = atomic_load(&rt->ready_seq);
            int deferred = rt_deferred_poll(rt, self, NULL) || atomic_load(&rt->deferred.count);
            if (!rt_all_done(rt)) rt_futex_wait(&rt->ready_seq, seq, deferred ? 1000000ull : 10000000ull);
        }
        uint64_t stalled_ms;
        if (rt_wait_stalled(rt, &w, &stalled_ms) && !reported) {
            rt_census c;
            char id_text[32];
            rt_diagnose_census(rt, &c);
            rt_format_id(c.longest, id_text, sizeof id_text);
            int earlier = rt_error_latched(rt);
            reported = 1;
            if (!earlier) {
                rt_fail_scheduler_timeout(rt, &c, stalled_ms);
                rt_warn(&rt->cfg, PTO_WARNING_STALL_REPORTED, "%s", rt->error.message);
            } else if (c.running) {
                rt_warn(&rt->cfg, PTO_WARNING_STALL_AFTER_FATAL,
                        "warning: pto_runtime_finish: the run failed (%s); waiting for %llu running "
                        "kernel(s), longest task %s (%s) for %llu ms",
                        pto_status_name(earlier), (unsigned long long)c.running, id_text,
                        c.longest_kernel, (unsigned long long)c.longest_ms);
            }
            if (!c.running) {
                atomic_store(&rt->finish_waiting, 0);
                return 1;
            }
        }
    }
    atomic_store(&rt->finish_waiting, 0);
    return 0;
}

/* After the root is released every ring drains: the last releases are in
 * flight on workers that are finishing their bookkeeping. */
static int rt_drained(pto_runtime *rt)
{
    for (int r = 0; r < PTO_NUM_RINGS; r++) {
        rt_ring *ring = &rt->rings[r];
        rt_ring_advance(ring);
        if (atomic_load(&ring->last_alive) != atomic_load(&ring->cur)) return 0;
    }
    return 1;
}

/* Every task completed and every scope is released, so each ring drains as
 * soon as the last releases land.  One that does not within the stall bound
 * (10 s if unbounded) means broken bookkeeping: reported, never a hang. */
static int rt_wait_drained(pto_runtime *rt)
{
    uint64_t start = base_now_ns();
    uint64_t bound_ms = rt->cfg.stall_timeout_ms >= 0 ? (uint64_t)rt->cfg.stall_timeout_ms : 10000;
    while (!rt_drained(rt)) {
        uint64_t waited_ms = (base_now_ns() - start) / 1000000;
        if (waited_ms >= bound_ms) {
            rt_census c;
            rt_diagnose_census(rt, &c);
            rt_fail_scheduler_timeout(rt, &c, waited_ms);
            return 1;
        }
        if (waited_ms) rt_futex_wait(&rt->rings[0].last_alive, atomic_load(&rt->rings[0].last_alive), 1000000ull);
    }
    return 0;
}

int pto_runtime_finish(pto_runtime *rt)
{
    if (!rt) return -PTO_INVALID_ARGS;
    rt_api_enter(rt);
    int open = rt->num_scopes - 1;
    if (open > 0) {
        /* after a fatal error the scopes around the failure stay open by design: closing
         * them is cleanup, not a mistake of the caller's to warn about */
        if (!rt_error_latched(rt))
            rt_warn(&rt->cfg, PTO_WARNING_SCOPES_LEFT_OPEN,
                    "warning: pto_runtime_finish closed %d scope(s) left open", open);
        while (rt->num_scopes > 1) rt_scope_release(rt);
    }
    if (rt_wait_all_completed(rt)) {
        /* Tasks that can never run: keep the latch and the root. */
        rt->last_error = rt->error;
        return -rt_error_latched(rt);
    }
    rt_scope_release(rt); /* the implicit root */
    if (rt_wait_drained(rt)) {
        rt->last_error = rt->error;
        return -rt_error_latched(rt);
    }
    rt_stats_write(rt);
    rt_trace_flush(rt);
    rt->run_open = 0;
    int st = rt_error_latched(rt);
    while (st && !atomic_load_explicit(&rt->error_ready, memory_order_acquire)) rt_cpu_relax();
    rt->last_error = st ? rt->error : (pto_error){.code = 0, .ring = -1};
    rt->error = (pto_error){.code = 0, .ring = -1};
    atomic_store(&rt->error_ready, 0);
    atomic_store(&rt->status, 0);
    rt->submitted = 0;
    rt->orch_completed = 0;
    for (int k = 0, n = rt_executors(rt); k < n; k++) atomic_store(&rt->workers[k].completed, 0);
    return -st;
}

void pto_runtime_destroy(pto_runtime *rt)
{
    if (!rt) return;
    pto_runtime_finish(rt);
    rt_worker_stop_all(rt);
    rt_free(rt);
}

int pto_runtime_failed(const pto_runtime *rt) { return rt ? rt_error_latched(rt) : PTO_INVALID_ARGS; }

const pto_error *pto_runtime_error(const pto_runtime *rt)
{
    static const pto_error no_runtime = {
        PTO_INVALID_ARGS, -1,
        "FATAL: Invalid Arguments! pto_runtime_error: runtime is NULL\n"
        "PTO runtime failed: error_code=5 runtime_status=-5\n"
        "error detail: error_code=5 INVALID_ARGS - a bad call\n"
        "error hint: pass the runtime pto_runtime_create returned"};
    if (!rt) return &no_runtime;
    pto_runtime *m = (pto_runtime *)rt;
    if (rt_error_latched(m)) {
        while (!atomic_load_explicit(&m->error_ready, memory_order_acquire)) rt_cpu_relax();
        return &m->error;
    }
    return &m->last_error;
}

int pto_runtime_fail(pto_runtime *rt, const char *fmt, ...)
{
    char text[1024], header[1100], details[256];
    if (!rt) return -PTO_INVALID_ARGS;
    rt_stats_run_open(rt); /* a run may fail in its very first call */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    const rt_scope *s = rt_scope_current(rt);
    rt_where at = rt_format_where(s->file, s->line, s->depth);
    snprintf(header, sizeof header, "FATAL: Orchestration Reported Fatal: %s", text);
    snprintf(details, sizeof details, "at: scope=%s depth=%s ring=%d", at.site, at.depth, s->ring);
    return rt_api_leave(rt, rt_error_fail(rt, PTO_EXPLICIT_ORCH_FATAL, s->ring, header, details,
                                          "reported by the orchestration code itself; no RunConfig "
                                          "field helps"));
}

int pto_ring_usage_get(const pto_runtime *crt, int ring, pto_ring_usage *out)
{
    if (!crt || ring < 0 || ring >= PTO_NUM_RINGS || !out) return -PTO_INVALID_ARGS;
    pto_runtime *rt = (pto_runtime *)crt;
    rt_ring *r = &rt->rings[ring];
    rt_ring_reclaim(r);
    *out = (pto_ring_usage){
        .task_window = rt_ring_live(r), .task_window_peak = r->task_peak,
        .task_window_cap = r->window,
        .heap = rt_heap_used(&r->heap), .heap_peak = r->heap_peak, .heap_cap = r->heap.size,
        .dep_pool = rt_pool_used(&r->deps), .dep_pool_peak = r->dep_peak, .dep_pool_cap = r->deps.cap,
    };
    return 0;
}

const pto_config *pto_runtime_config(const pto_runtime *rt)
{
    return rt ? &rt->cfg : NULL;
}

void *pto_view_at(const pto_view *v, const uint64_t *idx)
{
    int64_t e = v->offset;
    for (uint32_t d = 0; d < v->ndims; d++) e += (int64_t)idx[d] * v->strides[d];
    return (char *)v->addr + e * (int64_t)v->elem_size;
}
