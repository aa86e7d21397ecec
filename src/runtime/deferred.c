/*
 * deferred.c - DEFERRED tasks (see deferred.h).
 *
 * A tester holds `lock` while it runs the tests (each may enter MPI), then
 * completes what it removed after dropping it.  The stall clock of an entry
 * restarts whenever the runtime's progress (any completion, any watermark
 * move) changed since the last test: a deferred task expires only when
 * nothing at all happened for stall_timeout_ms.
 */
#include <stdio.h>

#include "runtime/deferred.h"

#include "runtime/error.h"
#include "runtime/format.h"
#include "runtime/progress.h"
#include "runtime/spare.h"
#include "runtime/task_state.h"
#include "runtime/worker.h"

#define RT_DEFERRED_POLL_NS 100000ull /* a worker between tasks tests at most this often */

void rt_deferred_init(rt_deferred *d)
{
    atomic_store(&d->count, 0);
    atomic_store(&d->poller, -1);
    atomic_store(&d->seq, 0);
    pthread_mutex_init(&d->lock, NULL);
}

void rt_deferred_destroy(rt_deferred *d) { pthread_mutex_destroy(&d->lock); }

static void rt_deferred_expire(pto_runtime *rt, const rt_deferred_task *t, uint64_t waited_ms)
{
    char header[96], details[320], id[32];
    const rt_slot *s = rt_ring_slot(&rt->rings[rt_task_ring(t->id)], rt_task_local(t->id));
    rt_format_id(t->id, id, sizeof id);
    snprintf(header, sizeof header, "FATAL: Communication Wait Timeout! task=%s", id);
    snprintf(details, sizeof details, "deferred task '%s' not complete after %llu ms (stall_timeout_ms=%d)",
             s->name ? s->name : "-", (unsigned long long)waited_ms, rt->cfg.stall_timeout_ms);
    rt_error_fail(rt, PTO_COMM_WAIT_TIMEOUT, -1, header, details,
                  "the work the task posted never completed; raise stall_timeout_ms only if it is legitimately slow");
}

/* One test of t at now with the runtime's progress p: 1 when t is over (done, failed or
 * abandoned: it may complete), 0 while it is not. */
static int rt_deferred_test(pto_runtime *rt, rt_deferred_task *t, uint64_t now, uint64_t p)
{
    pto_error err = {0};
    if (rt_error_latched(rt)) {
        t->test(t->arg, PTO_DEFER_ABANDON, &err);
        return 1;
    }
    if (p != t->progress) t->progress = p, t->since_ns = now;
    uint64_t waited_ms = (now - t->since_ns) / 1000000u;
    int expired = rt->cfg.stall_timeout_ms >= 0 && waited_ms >= (uint64_t)rt->cfg.stall_timeout_ms;
    int rc = t->test(t->arg, expired ? PTO_DEFER_EXPIRED : PTO_DEFER_POLL, &err);
    if (rc < 0) rt_error_latch(rt, &err);
    else if (rc == 0 && expired) rt_deferred_expire(rt, t, waited_ms);
    else if (rc == 0) return 0;
    return 1;
}

int rt_deferred_poll(pto_runtime *rt, rt_worker *w, pto_task_id *run)
{
    rt_deferred *d = &rt->deferred;
    if (!atomic_load(&d->count) || pthread_mutex_trylock(&d->lock)) return 0;
    pto_task_id over[PTO_MAX_DEFERRED];
    int n = 0;
    uint64_t now = base_now_ns(), p = rt_progress_total(rt);
    for (int i = 0; i < atomic_load_explicit(&d->count, memory_order_relaxed);) {
        rt_deferred_task *t = &d->tasks[i];
        if (!rt_deferred_test(rt, t, now, p)) {
            i++;
            continue;
        }
        over[n++] = t->id;
        *t = d->tasks[atomic_fetch_sub(&d->count, 1) - 1];
        atomic_fetch_add(&d->seq, 1);
        atomic_fetch_sub(&rt->comm_waits, 1);
    }
    pthread_mutex_unlock(&d->lock);
    for (int i = 0; i < n; i++) {
        pto_task_id next = rt_worker_complete(rt, w, over[i]);
        if (next == PTO_INVALID_TASK_ID) continue;
        if (run && *run == PTO_INVALID_TASK_ID) *run = next; /* ours to run: no wake-up of another executor */
        else rt_task_push_ready(rt, next);
    }
    return n;
}

int rt_deferred_has(pto_runtime *rt, pto_task_id id)
{
    rt_deferred *d = &rt->deferred;
    int has = 0;
    if (!atomic_load(&d->count) || pthread_mutex_trylock(&d->lock)) return 0;
    for (int i = 0; i < atomic_load_explicit(&d->count, memory_order_relaxed); i++) has |= d->tasks[i].id == id;
    pthread_mutex_unlock(&d->lock);
    return has;
}

void rt_deferred_between_tasks(pto_runtime *rt, rt_worker *w, pto_task_id *run)
{
    if (!atomic_load_explicit(&rt->deferred.count, memory_order_relaxed)) return;
    uint64_t now = base_now_ns();
    if (now < w->defer_next_ns) return;
    w->defer_next_ns = now + RT_DEFERRED_POLL_NS;
    rt_deferred_poll(rt, w, run);
}

int rt_deferred_idle(pto_runtime *rt, rt_worker *w, uint64_t *park_ns, pto_task_id *run)
{
    rt_deferred *d = &rt->deferred;
    int holder = atomic_load(&d->poller);
    if (!atomic_load(&d->count)) {
        if (holder == w->index) atomic_store(&d->poller, -1);
        return 0;
    }
    if (holder != w->index && (holder >= 0 || !atomic_compare_exchange_strong(&d->poller, &holder, w->index))) return 0;
    *run = PTO_INVALID_TASK_ID;
    if (rt_deferred_poll(rt, w, run)) return *run != PTO_INVALID_TASK_ID ? 3 : 1;
    /* the backoff counts from the table's last change, whoever made it: a tester that only
     * watched others complete and defer must not sleep through the next one */
    uint32_t seq = atomic_load(&d->seq);
    if (holder != w->index || seq != w->defer_seq) w->defer_seq = seq, w->defer_b = base_backoff_begin();
    uint64_t now = base_now_ns();
    if (!base_backoff_sleeping(&w->defer_b, now)) {
        if (base_backoff_spinning(&w->defer_b, now)) rt_cpu_relax();
        else sched_yield();
        return 1;
    }
    uint64_t ns = base_backoff_next_sleep_us(&w->defer_b) * 1000u;
    if (!*park_ns || ns < *park_ns) *park_ns = ns;
    return 2;
}

void rt_deferred_busy(pto_runtime *rt, rt_worker *w)
{
    rt_deferred *d = &rt->deferred;
    int me = w->index;
    if (atomic_load_explicit(&d->poller, memory_order_relaxed) == me) atomic_compare_exchange_strong(&d->poller, &me, -1);
    /* Tasks deferred and no tester: a parked executor takes the role (seq_cst: pairs with its count-in). */
    if (atomic_load(&d->count) && atomic_load(&d->poller) < 0 && atomic_load(&rt->parked)) {
        atomic_fetch_add(&rt->ready_seq, 1);
        rt_futex_wake(&rt->ready_seq, 1);
    }
}

/* Tests t on this thread, with the blocking-op backoff b: until it is over, or (whole = 0)
 * only through the spin phase.  Once the wait reaches its sleep phase it hands its executor
 * slot to a spare, as a blocking comm wait does.  Returns 1 when t is over. */
static int rt_deferred_here(pto_runtime *rt, rt_deferred_task *t, base_backoff *b, int whole)
{
    int over, blocked = 0;
    for (;;) {
        uint64_t now = base_now_ns();
        if ((over = rt_deferred_test(rt, t, now, rt_progress_total(rt))) || (!whole && !base_backoff_spinning(b, now))) break;
        if (!blocked && base_backoff_sleeping(b, now)) rt_spare_block(rt, 1), blocked = 1;
        base_backoff_pause(b, now);
    }
    if (blocked) rt_spare_block(rt, 0);
    return over;
}

int pto_task_defer(const pto_kernel_args *a, pto_defer_test test, void *arg)
{
    pto_runtime *rt = a ? (pto_runtime *)a->runtime : NULL;
    if (!rt || !test || a->worker < 0 || a->worker >= rt_executors(rt) || a->num_blocks > 1) return -PTO_INVALID_ARGS;
    rt_worker *w = &rt->workers[a->worker];
    if (atomic_load(&w->running) != a->task_id || w->deferred) return -PTO_INVALID_ARGS;
    rt_deferred_task t = {.id = a->task_id, .test = test, .arg = arg, .since_ns = base_now_ns(), .progress = rt_progress_total(rt)};
    /* Tested here through the spin phase first: work that ends within it (a small collective)
     * completes as a plain task, without a hand-off to a tester and its wake-ups. */
    base_backoff b = base_backoff_begin();
    if (rt_deferred_here(rt, &t, &b, 0)) return 0;
    rt_deferred *d = &rt->deferred;
    pthread_mutex_lock(&d->lock);
    int n = atomic_load(&d->count);
    if (n < PTO_MAX_DEFERRED) {
        d->tasks[n] = t;
        atomic_fetch_add(&rt->comm_waits, 1);
        atomic_store(&d->count, n + 1);
        atomic_fetch_add(&d->seq, 1);
        w->deferred = 1;
    }
    pthread_mutex_unlock(&d->lock);
    if (w->deferred) return 0;
    /* The table is full: wait here. */
    atomic_fetch_add(&rt->comm_waits, 1);
    rt_deferred_here(rt, &t, &b, 1);
    atomic_fetch_sub(&rt->comm_waits, 1);
    return 0;
}
