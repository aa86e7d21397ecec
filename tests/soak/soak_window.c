/*
 * soak_window.c - constant-memory soak: millions of tasks through 4-slot task
 * windows, small heaps and small dependency pools on all four rings.
 *
 * One iteration opens nested scopes down to depth 4 (rings 0, 1, 2, 3, 3),
 * allocates two buffers with pto_tensor_alloc (rings 0 and 2) and one OUT
 * buffer (ring 3), and submits eight tasks chained through four user-memory
 * accumulators: read-after-write, write-after-write and write-after-read on
 * the accumulators and on the allocated buffers, a 2-d box task over a 4x4
 * view, and on odd iterations MANUAL scopes at depths 2..4 whose order comes
 * from explicit dependencies only.  No ring ever holds more than w - 1 = 3
 * live tasks, so every iteration leans on back-pressure and reclamation.
 *
 * Iterations run in batches; after each batch pto_runtime_finish must return
 * 0 with every ring empty, and the accumulators must equal a serial run of
 * the same iterations (the same kernels called in submit order on reference
 * memory).  All arithmetic wraps (uint64), so results compare exactly.
 *
 * Memory: resident set size (current, /proc/self/statm, and peak,
 * getrusage) is sampled once warm-up is over (10% of the tasks or of the
 * time bound) and at the end; growth beyond SOAK_RSS_SLACK fails the run.
 *
 * Usage: soak_window [--tasks N] [--seconds S] [--batch ITERATIONS]
 * (or PTO_SOAK_TASKS / PTO_SOAK_SECONDS).  Prints one summary line; exits 0
 * on success, 1 with a message naming the batch and value otherwise.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/prng.h"
#include "pto/runtime.h"

#define ACC_LEN 16                      /* elements per accumulator (a 4x4 box for the 2-d task) */
#define ACC_BYTES (ACC_LEN * sizeof(uint64_t))
#define TASKS_PER_ITERATION 10          /* 8 submits + 2 pto_tensor_alloc hidden tasks */
#define SOAK_RSS_SLACK (2u << 20)       /* bytes of RSS growth tolerated after warm-up */
#define SOAK_WINDOW 4
#define SOAK_HEAP 4096
#define SOAK_DEP_POOL 32

/* ---- kernels: all wrap, all deterministic ------------------------------ */

static uint64_t *elem(const pto_view *v, uint64_t k)
{
    int64_t off = v->offset;
    for (int d = (int)v->ndims - 1; d >= 0; d--) {
        off += (int64_t)(k % v->shape[d]) * v->strides[d];
        k /= v->shape[d];
    }
    return (uint64_t *)v->addr + off;
}

static uint64_t count(const pto_view *v)
{
    uint64_t n = 1;
    for (uint32_t d = 0; d < v->ndims; d++) n *= v->shape[d];
    return n;
}

/* views: src (IN), dst; scalars a, b, c: dst[k] = dst[k] * a + src[k % n] * b + c + k
 * (dst is not read when a == 0: it may be fresh heap memory). */
static int k_mix(const pto_kernel_args *x)
{
    const pto_view *src = &x->views[0], *dst = &x->views[1];
    uint64_t a = x->scalars[0], b = x->scalars[1], c = x->scalars[2], ns = count(src);
    for (uint64_t k = 0; k < count(dst); k++) {
        uint64_t old = a ? *elem(dst, k) * a : 0;
        *elem(dst, k) = old + *elem(src, k % ns) * b + c + k;
    }
    return 0;
}

/* views: dst (OUTPUT_EXISTING); scalars c: dst[k] = c ^ (k << 7) */
static int k_set(const pto_kernel_args *x)
{
    const pto_view *dst = &x->views[0];
    for (uint64_t k = 0; k < count(dst); k++) *elem(dst, k) = x->scalars[0] ^ (k << 7);
    return 0;
}

/* ---- one iteration, submitted to a runtime or run serially ------------- */

/* Where an iteration goes: rt set = the runtime, with the accumulators in
 * acc; rt NULL = the serial reference, run at once on acc and scratch. */
typedef struct sink {
    pto_runtime *rt;
    uint64_t *acc[4];
    uint64_t scratch[3][ACC_LEN];         /* the reference's A, B and OUT buffers */
    pto_task_id last_writer[4];           /* of each accumulator, this batch */
    pto_task_id last_reader0, last_reader3; /* T1 (reads acc0), T7 (reads acc3) */
    const char *failed;                   /* the call that failed, or NULL */
    int rc;
} sink;

static pto_view vec(void *addr, pto_task_id owner)
{
    return pto_view_1d(addr, sizeof(uint64_t), 0, ACC_LEN, owner);
}

/* acc[1] as a 4x4 row-major matrix, rows r0..r0+1, columns c0..c0+1 */
static pto_view box(uint64_t *acc, int r0, int c0)
{
    return pto_view_2d(acc, sizeof(uint64_t), r0 * 4 + c0, 2, 2, 4, PTO_INVALID_TASK_ID);
}

static void check(sink *s, int rc, const char *what)
{
    if (rc != 0 && !s->failed) {
        s->failed = what;
        s->rc = rc;
    }
}

static void scope_begin(sink *s, pto_scope_mode mode)
{
    if (s->rt) check(s, pto_scope_begin(s->rt, mode, __FILE__, __LINE__), "pto_scope_begin");
}

static void scope_end(sink *s)
{
    if (s->rt) check(s, pto_scope_end(s->rt), "pto_scope_end");
}

/* A buffer of ACC_LEN elements: from the ring heap, or scratch[which]. */
static void *alloc(sink *s, int which, pto_task_id *id)
{
    *id = PTO_INVALID_TASK_ID;
    if (!s->rt) return s->scratch[which];
    void *p = NULL;
    check(s, pto_tensor_alloc(s->rt, ACC_BYTES, &p, id), "pto_tensor_alloc");
    return p;
}

/* Submits (or runs) one task; deps naming PTO_INVALID_TASK_ID are left out.
 * An OUT arg in the reference gets scratch[2]. */
static pto_task_id task(sink *s, pto_kernel_fn fn, pto_arg *args, uint32_t nargs, const uint64_t *sc,
                        const pto_task_id *dep_ids, uint32_t ndeps)
{
    if (!s->rt) {
        pto_view views[2];
        for (uint32_t i = 0; i < nargs; i++) {
            views[i] = args[i].view;
            if (args[i].tag == PTO_ARG_OUT) views[i] = vec(s->scratch[2], PTO_INVALID_TASK_ID);
        }
        pto_kernel_args ka = {.num_views = nargs, .views = views, .num_scalars = 3, .scalars = sc};
        check(s, fn(&ka), "reference kernel");
        args[nargs - 1].view = views[nargs - 1];
        return PTO_INVALID_TASK_ID;
    }
    pto_dep deps[4];
    uint32_t n = 0;
    for (uint32_t i = 0; i < ndeps; i++)
        if (dep_ids[i] != PTO_INVALID_TASK_ID) deps[n++] = (pto_dep){dep_ids[i], i % 2 ? PTO_DEP_WAIT : PTO_DEP_WAIT_RETAIN};
    pto_task t = {.kernel = fn, .name = "soak", .args = args, .num_args = nargs, .scalars = sc, .num_scalars = 3,
                  .deps = deps, .num_deps = n};
    pto_task_id id = PTO_INVALID_TASK_ID;
    check(s, pto_task_submit(s->rt, &t, &id), "pto_task_submit");
    return id;
}

static pto_arg targ(pto_arg_tag tag, pto_view v)
{
    pto_arg a = {tag, v};
    return a;
}

static void iteration(sink *s, uint64_t i)
{
    uint64_t r = i * 0x9E3779B97F4A7C15ull;
    uint64_t p = base_splitmix64(&r) | 1, q = base_splitmix64(&r);
    pto_scope_mode inner = i % 2 ? PTO_SCOPE_MANUAL : PTO_SCOPE_AUTO;
    uint64_t **acc = s->acc;
    scope_begin(s, PTO_SCOPE_AUTO); /* depth 0, ring 0: alloc A, T1, T8 */
    pto_task_id a_id, b_id;
    uint64_t *A = alloc(s, 0, &a_id);
    /* T1: A := f(acc0) - RAW on acc0 (T8 of the last iteration) */
    pto_arg a1[2] = {targ(PTO_ARG_IN, vec(acc[0], PTO_INVALID_TASK_ID)), targ(PTO_ARG_OUTPUT_EXISTING, vec(A, a_id))};
    pto_task_id t1 = task(s, k_mix, a1, 2, (uint64_t[]){0, p, q}, (pto_task_id[]){s->last_writer[0]}, 1);
    s->last_reader0 = t1;
    scope_begin(s, PTO_SCOPE_AUTO); /* depth 1, ring 1: T2, T3 */
    /* T2: acc1 := acc1 * 3 + A + p - RAW on A, RAW/WAW on acc1 */
    pto_arg a2[2] = {targ(PTO_ARG_IN, vec(A, a_id)), targ(PTO_ARG_INOUT, vec(acc[1], PTO_INVALID_TASK_ID))};
    s->last_writer[1] = task(s, k_mix, a2, 2, (uint64_t[]){3, 1, p}, (pto_task_id[]){s->last_writer[1]}, 1);
    /* T3: a 2x2 box of acc1 from another 2x2 box of it (both move each iteration) */
    pto_arg a3[2] = {targ(PTO_ARG_IN, box(acc[1], (int)(i % 3), (int)(i % 2) * 2)),
                     targ(PTO_ARG_INOUT, box(acc[1], (int)(i / 3 % 3), (int)(i / 2 % 3)))};
    s->last_writer[1] = task(s, k_mix, a3, 2, (uint64_t[]){5, 7, i}, (pto_task_id[]){s->last_writer[1]}, 1);
    scope_begin(s, inner); /* depth 2, ring 2: alloc B, T4 */
    uint64_t *B = alloc(s, 1, &b_id);
    /* T4: B := g(A); in MANUAL only explicit edges order it after T1 */
    pto_arg a4[2] = {targ(PTO_ARG_IN, vec(A, a_id)), targ(PTO_ARG_OUTPUT_EXISTING, vec(B, b_id))};
    pto_task_id t4 = task(s, k_mix, a4, 2, (uint64_t[]){0, q | 1, i}, (pto_task_id[]){t1, b_id}, 2);
    scope_begin(s, inner); /* depth 3, ring 3: T5, T6 */
    /* T5: OUT tmp := h(B) */
    pto_arg a5[2] = {targ(PTO_ARG_IN, vec(B, b_id)), {PTO_ARG_OUT, {.elem_size = 8, .ndims = 1, .shape = {ACC_LEN}}}};
    pto_task_id t5 = task(s, k_mix, a5, 2, (uint64_t[]){0, 11, p}, (pto_task_id[]){t4}, 1);
    /* T6: acc3 := acc3 * p + tmp - WAR after the last T7 (invisible to discovery when MANUAL) */
    pto_arg a6[2] = {targ(PTO_ARG_IN, a5[1].view), targ(PTO_ARG_INOUT, vec(acc[3], PTO_INVALID_TASK_ID))};
    s->last_writer[3] = task(s, k_mix, a6, 2, (uint64_t[]){p, 1, 0}, (pto_task_id[]){t5, s->last_writer[3], s->last_reader3}, 3);
    scope_begin(s, inner); /* depth 4, ring 3: T7 */
    /* T7: acc2 := acc2 * 2 + acc3 - RAW on acc3, WAW on acc2 */
    pto_arg a7[2] = {targ(PTO_ARG_IN, vec(acc[3], PTO_INVALID_TASK_ID)),
                     targ(PTO_ARG_INOUT, vec(acc[2], PTO_INVALID_TASK_ID))};
    s->last_writer[2] = s->last_reader3 = task(s, k_mix, a7, 2, (uint64_t[]){2, 1, q},
                                               (pto_task_id[]){s->last_writer[3], s->last_writer[2]}, 2);
    scope_end(s);
    scope_end(s);
    scope_end(s);
    scope_end(s);
    /* T8: acc0 := set(i) - WAR after T1's read, WAW after the last T8 */
    pto_arg a8[1] = {targ(PTO_ARG_OUTPUT_EXISTING, vec(acc[0], PTO_INVALID_TASK_ID))};
    s->last_writer[0] = task(s, k_set, a8, 1, (uint64_t[]){q ^ i, 0, 0},
                             (pto_task_id[]){s->last_reader0, s->last_writer[0]}, 2);
    scope_end(s);
}

/* ---- measurement ------------------------------------------------------- */

static uint64_t rss_now(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long size = 0, resident = 0;
    if (f) {
        if (fscanf(f, "%lu %lu", &size, &resident) != 2) resident = 0;
        fclose(f);
    }
    return (uint64_t)resident * (uint64_t)sysconf(_SC_PAGESIZE);
}

static uint64_t rss_peak(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (uint64_t)ru.ru_maxrss * 1024u;
}

static double mib(uint64_t bytes) { return (double)bytes / (1024.0 * 1024.0); }

/* Prints "soak_window: FAIL: <message>" to stderr; returns 1 (the exit status). */
static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "soak_window: FAIL: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    return 1;
}

static uint64_t arg_u64(int argc, char **argv, const char *flag, const char *env, uint64_t dflt)
{
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], flag) == 0) return strtoull(argv[i + 1], NULL, 0);
    const char *e = getenv(env);
    return e && *e ? strtoull(e, NULL, 0) : dflt;
}

int main(int argc, char **argv)
{
    uint64_t target = arg_u64(argc, argv, "--tasks", "PTO_SOAK_TASKS", 10000000);
    uint64_t seconds = arg_u64(argc, argv, "--seconds", "PTO_SOAK_SECONDS", 600);
    uint64_t batch = arg_u64(argc, argv, "--batch", "PTO_SOAK_BATCH", 1024);
    if (batch == 0 || seconds == 0)
        return fail("--batch and --seconds must be positive (got %llu, %llu)", (unsigned long long)batch,
                    (unsigned long long)seconds);
    pto_config cfg;
    memset(&cfg, 0, sizeof cfg);
    for (int ring = 0; ring < PTO_NUM_RINGS; ring++) {
        cfg.runtime_env.ring_task_window[ring] = SOAK_WINDOW;
        cfg.runtime_env.ring_heap[ring] = SOAK_HEAP;
        cfg.runtime_env.ring_dep_pool[ring] = SOAK_DEP_POOL;
    }
    cfg.num_workers = 2;
    cfg.stall_timeout_ms = 30000;
    pto_error err;
    pto_runtime *rt = NULL;
    if (pto_runtime_create(&cfg, &rt, &err) != 0) return fail("pto_runtime_create: code %d: %s", err.code, err.message);

    static uint64_t acc[4][ACC_LEN], ref_acc[4][ACC_LEN];
    static sink run, ref;
    for (int k = 0; k < 4; k++) {
        run.acc[k] = acc[k];
        ref.acc[k] = ref_acc[k];
        for (int e = 0; e < ACC_LEN; e++) acc[k][e] = ref_acc[k][e] = (uint64_t)(k * 1000 + e);
    }
    run.rt = rt;

    uint64_t iterations = (target + TASKS_PER_ITERATION - 1) / TASKS_PER_ITERATION, done = 0;
    uint64_t t0 = base_now_ns(), deadline = t0 + seconds * 1000000000ull;
    uint64_t warm_at = iterations / 10, warm_ns = t0 + seconds * 100000000ull;
    uint64_t warm_rss = 0, warm_peak = 0, batches = 0;
    int warm = 0, rc = 0;
    while (done < iterations && base_now_ns() < deadline) {
        uint64_t n = iterations - done < batch ? iterations - done : batch;
        for (int k = 0; k < 4; k++) run.last_writer[k] = PTO_INVALID_TASK_ID;
        run.last_reader0 = run.last_reader3 = PTO_INVALID_TASK_ID;
        for (uint64_t i = done; i < done + n && !run.failed; i++) iteration(&run, i);
        int frc = pto_runtime_finish(rt);
        if (run.failed || frc != 0) {
            rc = fail("%s returned %d in batch %llu", run.failed ? run.failed : "pto_runtime_finish",
                      run.failed ? run.rc : frc, (unsigned long long)batches);
            fprintf(stderr, "%s\n", pto_runtime_error(rt)->message);
            break;
        }
        for (int ring = 0; ring < PTO_NUM_RINGS; ring++) {
            pto_ring_usage u;
            pto_ring_usage_get(rt, ring, &u);
            if (u.task_window || u.heap || u.dep_pool) {
                rc = fail("ring %d not empty after pto_runtime_finish (batch %llu)", ring, (unsigned long long)batches);
                break;
            }
        }
        for (uint64_t i = done; i < done + n; i++) iteration(&ref, i);
        for (int k = 0; k < 4 && !rc; k++)
            for (int e = 0; e < ACC_LEN; e++)
                if (acc[k][e] != ref_acc[k][e]) {
                    rc = fail("accumulator %d element %d differs from the serial run", k, e);
                    fprintf(stderr, "batch %llu (iterations %llu..%llu): runtime 0x%llx, serial 0x%llx\n",
                            (unsigned long long)batches, (unsigned long long)done,
                            (unsigned long long)(done + n - 1), (unsigned long long)acc[k][e],
                            (unsigned long long)ref_acc[k][e]);
                    break;
                }
        if (rc) break;
        done += n;
        batches++;
        if (!warm && (done >= warm_at || base_now_ns() >= warm_ns)) {
            warm = 1;
            warm_rss = rss_now();
            warm_peak = rss_peak();
        }
    }
    double secs = (double)(base_now_ns() - t0) / 1e9;
    uint64_t end_rss = rss_now(), end_peak = rss_peak();
    uint64_t tasks = done * TASKS_PER_ITERATION;
    printf("soak_window: %llu tasks (%llu iterations, %llu batches) in %.2f s, %.0f tasks/s; "
           "RSS %.1f MiB (after warm-up %.1f MiB), peak RSS %.1f MiB (after warm-up %.1f MiB)\n",
           (unsigned long long)tasks, (unsigned long long)done, (unsigned long long)batches, secs,
           secs > 0 ? (double)tasks / secs : 0.0, mib(end_rss), mib(warm_rss), mib(end_peak), mib(warm_peak));
    for (int ring = 0; ring < PTO_NUM_RINGS; ring++) {
        pto_ring_usage u;
        pto_ring_usage_get(rt, ring, &u);
        printf("  ring %d peaks: task window %llu/%llu, heap %llu/%llu B, dep pool %llu/%llu\n", ring,
               (unsigned long long)u.task_window_peak, (unsigned long long)u.task_window_cap,
               (unsigned long long)u.heap_peak, (unsigned long long)u.heap_cap,
               (unsigned long long)u.dep_pool_peak, (unsigned long long)u.dep_pool_cap);
    }
    pto_runtime_destroy(rt);
    if (rc) return rc;
    if (!warm) return fail("the run ended before warm-up was over (%llu iterations of %llu): raise --seconds",
                           (unsigned long long)done, (unsigned long long)iterations);
    if (end_rss > warm_rss + SOAK_RSS_SLACK || end_peak > warm_peak + SOAK_RSS_SLACK)
        return fail("resident set grew after warm-up: current %+lld KiB, peak %+lld KiB (slack %u KiB)",
                    ((long long)end_rss - (long long)warm_rss) / 1024,
                    ((long long)end_peak - (long long)warm_peak) / 1024, SOAK_RSS_SLACK / 1024);
    return 0;
}
