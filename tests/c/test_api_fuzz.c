/*
 * test_api_fuzz.c - random valid and invalid API calls (docs/runtime.md,
 * "Scopes" and "Errors").
 *
 * test_random_misuse_never_crashes: a seeded generator drives random valid
 * and invalid calls on runtimes with tiny task windows (4, 8 or 16 slots).
 * Every call must return exactly what a model of the rules predicts: -5 for a
 * certainly-invalid call, and for a valid one the capacity error the window
 * model says, else 0.  The latched error must match the return, and after
 * every pto_runtime_finish the runtime must run a one-task run cleanly.
 *
 * The model (section 5 and 6) keeps the open scopes with their task counts
 * and, per ring, the live tasks from the oldest one whose scope is still
 * open: those can never retire while the orchestrator waits (older tasks of
 * closed scopes always do: kernels never wait).  For a valid submit or
 * alloc, in the runtime's order: SCOPE_DEADLOCK iff the current scope (or the
 * root) already holds window - 1 tasks; HEAP_RING_DEADLOCK (V2) iff its
 * outputs exceed the ring's heap; FLOW_CONTROL_DEADLOCK (V1) iff those stuck
 * tasks already fill window - 1 slots; else it succeeds (perhaps after
 * waiting).  Heaps, dep pools and the tensormap are sized so that they never
 * run out (fz_config), and the stall bound is far above any wait, so no other
 * code may appear.  Outcomes are thus a function of the seed; the model's
 * count of successful submits must equal the runtime's.
 *
 * Kernels only touch bytes known to be in range (atomically: MANUAL scopes
 * leave user buffers unordered), never wait, and return 0, so a
 * SCHEDULER_TIMEOUT, TENSOR_WAIT_TIMEOUT or KERNEL_FAILED is a failure.
 * PTO_TEST_SEED sets the base seed (printed on failure); PTO_TEST_SCALE
 * scales the call count (default 1).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "e2e.h"

/* n scaled by PTO_TEST_SCALE (default 1: the whole test takes under a
 * second, a few under TSan), at least 1. */
static long scaled(long n)
{
    long m = (long)((double)n * test_scale(1.0));
    return m < 1 ? 1 : m;
}

static uint64_t mix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static uint64_t rn(uint64_t *s, uint64_t n) { return n ? mix64(s) % n : 0; }
static int pct(uint64_t *s, int p) { return (int)rn(s, 100) < p; }

enum { NBUF = 3, HIST = 64, NOUTS = 16 };
enum { MAXW = 16 };                   /* largest task window tried */
#define MAX_OUT_BYTES 200704ull       /* largest OUT arg fz_submit makes: 4096 bytes x 7 x 7 */
static const uint64_t g_buf_bytes[NBUF] = {256, 512, 1024};

/* The window model: open scopes (index 0 = the implicit root) and, per ring,
 * the scope of each live task from the oldest one still pinned by its open
 * scope (tasks of closed scopes before it retire on their own). */
typedef struct fz_model {
    uint64_t serial[PTO_MAX_SCOPE_DEPTH + 1]; /* of each open scope; unique per run */
    uint32_t ntasks[PTO_MAX_SCOPE_DEPTH + 1]; /* tasks each holds */
    uint64_t next_serial;
    uint64_t stuck[PTO_NUM_RINGS][MAXW]; /* scope serials, in ring order */
    int nstuck[PTO_NUM_RINGS];
} fz_model;

typedef struct fz {
    pto_runtime *rt;
    pto_config cfg;
    uint64_t s;
    int open, manual; /* explicit scopes open, MANUAL ones among them */
    int latched;      /* the code latched this run, 0 = none */
    char first[PTO_ERROR_MESSAGE_MAX];
    pto_task_id ids[HIST]; /* issued ids (submits and allocs, any run) */
    int nids;
    uint64_t next_local[PTO_NUM_RINGS]; /* above every local seen on the ring */
    struct {
        void *addr;
        pto_task_id owner;
    } outs[NOUTS]; /* runtime-made buffers (maybe stale): never touched */
    int nouts;
    unsigned char *bufs[NBUF];
    char modes[PTO_MAX_SCOPE_DEPTH + 2]; /* 'A'/'M' by depth */
    long calls, runs, by_code[128];
    long ok_submits, slow_submits; /* slow: over 50 us, i.e. waited for room */
    long model_ok;                 /* valid submits and allocs the model said succeed */
    long model_ok_submits;         /* ... of them submits */
    fz_model m;
    char op[320];
} fz;

static uint64_t g_base_seed;
static int g_rt_index;
static uint64_t g_rt_seed;

#define FZ_FAIL(f, ...)                                                                                      \
    do {                                                                                                     \
        print_error("random misuse: runtime %d seed 0x%llx (PTO_TEST_SEED=0x%llx), call %ld: %s\n",          \
                    g_rt_index, (unsigned long long)g_rt_seed, (unsigned long long)g_base_seed, (f)->calls,  \
                    (f)->op);                                                                                \
        print_error(__VA_ARGS__);                                                                            \
        fail();                                                                                              \
    } while (0)

static void fz_note_id(fz *f, pto_task_id id)
{
    f->ids[f->nids++ % HIST] = id;
    int r = (int)(id >> 32);
    uint64_t l = (uint32_t)id;
    if (l + 1 > f->next_local[r]) f->next_local[r] = l + 1;
}

static pto_task_id fz_issued(fz *f)
{
    int n = f->nids < HIST ? f->nids : HIST;
    return f->ids[rn(&f->s, (uint64_t)n)];
}

/* An id never issued: past every local seen (with a margin for ids the
 * runtime used without handing them out), on another ring, or the sentinel. */
static pto_task_id fz_never(fz *f)
{
    switch (rn(&f->s, 4)) {
    case 0: return e2e_task_id(4 + (int)rn(&f->s, 60), (uint32_t)rn(&f->s, 1000));
    case 1: return PTO_INVALID_TASK_ID;
    default: {
        int r = (int)rn(&f->s, PTO_NUM_RINGS);
        return e2e_task_id(r, (uint32_t)(f->next_local[r] + 100000 + rn(&f->s, 1000000)));
    }
    }
}

/* Last element's offset (elements) of v, or UINT64_MAX when it overflows. */
static uint64_t view_last(const pto_view *v)
{
    uint64_t last = (uint64_t)v->offset, t;
    for (uint32_t d = 0; d < v->ndims; d++) {
        if (__builtin_mul_overflow(v->shape[d] - 1, (uint64_t)v->strides[d], &t)) return UINT64_MAX;
        if (__builtin_add_overflow(last, t, &last)) return UINT64_MAX;
    }
    return last;
}

/* The runtime's rule: a view's bytes end below INT64_MAX. */
static int view_fits(const pto_view *v)
{
    uint64_t span = 0, step, end, bytes;
    for (uint32_t d = 0; d < v->ndims; d++)
        if (v->shape[d] && (__builtin_mul_overflow(v->shape[d] - 1, (uint64_t)v->strides[d], &step) ||
                            __builtin_add_overflow(span, step, &span)))
            return 0;
    return !__builtin_add_overflow((uint64_t)v->offset, span + 1, &end) &&
           !__builtin_mul_overflow(end, (uint64_t)v->elem_size, &bytes) && bytes <= INT64_MAX;
}

/* A valid non-OUT view; *safe: a user buffer fully in range, not empty (the
 * kernel may touch it). */
static pto_view fz_view(fz *f, int *safe)
{
    pto_view v;
    memset(&v, 0, sizeof v);
    *safe = 0;
    static const uint32_t es[5] = {1, 2, 4, 8, 3};
    v.elem_size = es[rn(&f->s, 5)];
    v.ndims = 1 + (uint32_t)(pct(&f->s, 90) ? rn(&f->s, 3) : rn(&f->s, 5));
    for (uint32_t d = 0; d < v.ndims; d++) v.shape[d] = pct(&f->s, 4) ? 0 : 1 + rn(&f->s, 4);
    int layout = (int)rn(&f->s, 10);
    int64_t st = 1;
    for (int d = (int)v.ndims - 1; d >= 0; d--) {
        if (layout < 6) { /* row-major, maybe padded */
            v.strides[d] = st;
            st *= (int64_t)(v.shape[d] + (pct(&f->s, 30) ? rn(&f->s, 3) : 0));
        } else if (layout < 9) {
            v.strides[d] = (int64_t)rn(&f->s, 9); /* zero and overlapping strides too */
        } else {
            static const int64_t weird[4] = {1ll << 20, 1ll << 40, INT64_MAX / 8, 12345};
            v.strides[d] = weird[rn(&f->s, 4)];
        }
    }
    v.offset = pct(&f->s, 97) ? (int64_t)rn(&f->s, 40) : (int64_t)(1ull << rn(&f->s, 48));
    v.owner = PTO_INVALID_TASK_ID;
    if (!view_fits(&v)) { /* weird strides past INT64_MAX bytes: make it valid */
        v.offset = 0;
        for (uint32_t d = 0; d < v.ndims; d++) v.strides[d] = 1;
    }
    int where = (int)rn(&f->s, 20);
    if (where < 15 || (where < 19 && f->nouts == 0)) {
        int b = (int)rn(&f->s, NBUF);
        v.addr = f->bufs[b];
        uint64_t last = view_last(&v), end;
        uint64_t n = view_count(&v);
        *safe = n > 0 && last != UINT64_MAX &&
                !__builtin_mul_overflow(last + 1, (uint64_t)v.elem_size, &end) && end <= g_buf_bytes[b];
    } else if (where < 19) {
        int k = (int)rn(&f->s, (uint64_t)(f->nouts < NOUTS ? f->nouts : NOUTS));
        v.addr = f->outs[k].addr;
        v.owner = f->outs[k].owner;
    } else {
        v.addr = (void *)(uintptr_t)(0x100000 + 4096 * rn(&f->s, 64)); /* a key only, never touched */
    }
    return v;
}

/* Makes a valid view invalid; returns what it did. */
static const char *fz_spoil_view(fz *f, pto_view *v)
{
    switch (rn(&f->s, 8)) {
    case 7: /* its bytes would end past INT64_MAX */
        v->elem_size = 8;
        v->offset = INT64_MAX - (int64_t)rn(&f->s, 16);
        return "past the address range";
    case 0: v->addr = NULL; return "addr NULL";
    case 1: v->ndims = pct(&f->s, 50) ? 0 : 6 + (uint32_t)rn(&f->s, 100); return "bad ndims";
    case 2: v->elem_size = 0; return "elem_size 0";
    case 3: v->strides[rn(&f->s, v->ndims)] = -1 - (int64_t)rn(&f->s, 5); return "negative stride";
    case 4: v->offset = pct(&f->s, 50) ? -1 : INT64_MIN; return "negative offset";
    case 5:
    case 6:
        v->owner = fz_never(f);
        return v->owner == PTO_INVALID_TASK_ID ? "no-op owner" : "owner never issued";
    }
    return "?";
}

/* ---- the window model --------------------------------------------------- */

/* Ring of the current scope: min(depth, 3); the root's is 0. */
static int fz_ring(const fz *f) { return f->open == 0 ? 0 : f->open - 1 < 3 ? f->open - 1 : 3; }

/* A new run: only the implicit root (serial 0) is open, every ring empty. */
static void fz_model_reset(fz *f)
{
    memset(&f->m, 0, sizeof f->m);
    f->m.next_serial = 1;
}

static int fz_scope_is_open(const fz *f, uint64_t serial)
{
    for (int i = 0; i <= f->open; i++)
        if (f->m.serial[i] == serial) return 1;
    return 0;
}

/* What a valid call asking for a task and s heap bytes on the current ring
 * must get (0: it succeeds, maybe after waiting), checked in the runtime's
 * order.  Drops the stuck list's prefix of closed scopes' tasks: those retire
 * while the orchestrator waits, and free their slots. */
static int fz_predict(fz *f, uint64_t s)
{
    int r = fz_ring(f);
    uint64_t w = f->cfg.runtime_env.ring_task_window[r];
    if (f->m.ntasks[f->open] >= w - 1) return PTO_SCOPE_DEADLOCK;
    if (s > f->cfg.runtime_env.ring_heap[r]) return PTO_HEAP_RING_DEADLOCK; /* V2 */
    int n = f->m.nstuck[r], k = 0;
    while (k < n && !fz_scope_is_open(f, f->m.stuck[r][k])) k++;
    memmove(f->m.stuck[r], f->m.stuck[r] + k, (size_t)(n - k) * sizeof f->m.stuck[r][0]);
    f->m.nstuck[r] = n - k;
    return (uint64_t)f->m.nstuck[r] >= w - 1 ? PTO_FLOW_CONTROL_DEADLOCK : 0; /* V1 */
}

/* A valid call the model admitted took a slot in the current scope. */
static void fz_model_task(fz *f)
{
    int r = fz_ring(f);
    if (f->m.nstuck[r] >= MAXW) FZ_FAIL(f, "model: more than %d live tasks on ring %d\n", MAXW, r);
    f->m.ntasks[f->open]++;
    f->m.stuck[r][f->m.nstuck[r]++] = f->m.serial[f->open];
    f->model_ok++;
}

/* Checks one call's outcome: want is the exact code it must get (0 =
 * success; PTO_INVALID_ARGS for a certainly invalid call of fn;
 * PTO_EXPLICIT_ORCH_FATAL for pto_runtime_fail; a capacity code the model
 * predicts, whose message must name the ring and the verdict).  After a
 * latch every call must return the latched code and leave its message. */
static void fz_check(fz *f, int rc, int want, const char *fn)
{
    const pto_error *e = pto_runtime_error(f->rt);
    f->calls++;
    if (f->latched) {
        if (rc != -f->latched || e->code != f->latched || strcmp(e->message, f->first) != 0)
            FZ_FAIL(f, "after latched %d: rc %d, code %d; message now:\n%s\nfirst message:\n%s\n", f->latched,
                    rc, e->code, e->message, f->first);
        return;
    }
    if (rc != -want)
        FZ_FAIL(f, "rc %d (%s), expected %d (%s); latched code %d; message:\n%s\n", rc, pto_status_name(rc),
                -want, pto_status_name(want), e->code, rc ? e->message : "");
    if (rc == 0) return;
    int code = want;
    if (e->code != code) FZ_FAIL(f, "rc %d but latched code %d; message:\n%s\n", rc, e->code, e->message);
    char missing[160];
    if (!e2e_has_fixed_lines(e->message, code, missing, sizeof missing))
        FZ_FAIL(f, "message lacks \"%s\":\n%s\n", missing, e->message);
    char head[128];
    const char *verdict = NULL;
    switch (code) {
    case PTO_INVALID_ARGS: snprintf(head, sizeof head, "\n  call: %s task=-", fn); break;
    case PTO_SCOPE_DEADLOCK:
        snprintf(head, sizeof head, "FATAL: Scope Deadlock Detected! (ring %d)\n", fz_ring(f));
        break;
    case PTO_HEAP_RING_DEADLOCK:
        snprintf(head, sizeof head, "FATAL: Task Allocator Deadlock - Heap Exhausted! ring=%d\n", fz_ring(f));
        verdict = "-> can never fit.";
        break;
    case PTO_FLOW_CONTROL_DEADLOCK:
        snprintf(head, sizeof head, "FATAL: Task Allocator Deadlock - Task Ring Full! ring=%d\n", fz_ring(f));
        verdict = "-> Provable head-of-line deadlock.";
        break;
    default: snprintf(head, sizeof head, "FATAL: "); break;
    }
    if (!strstr(e->message, head) || (verdict && !strstr(e->message, verdict)) ||
        (code == PTO_INVALID_ARGS && strncmp(e->message, "FATAL: Invalid Arguments! ", 26) != 0))
        FZ_FAIL(f, "%s message malformed (want \"%s\"%s%s):\n%s\n", pto_status_name(code), head,
                verdict ? " and " : "", verdict ? verdict : "", e->message);
    f->latched = code;
    f->by_code[code < 128 ? code : 127]++;
    snprintf(f->first, sizeof f->first, "%s", e->message);
}

static void fz_finish(fz *f)
{
    snprintf(f->op, sizeof f->op, "pto_runtime_finish (open %d, latched %d)", f->open, f->latched);
    int rc = pto_runtime_finish(f->rt);
    f->calls++;
    if (rc != -f->latched)
        FZ_FAIL(f, "pto_runtime_finish returned %d, latched %d\n%s\n", rc, f->latched,
                pto_runtime_error(f->rt)->message);
    if (pto_runtime_error(f->rt)->code != f->latched ||
        (f->latched && strcmp(pto_runtime_error(f->rt)->message, f->first)))
        FZ_FAIL(f, "after pto_runtime_finish the last error is %d:\n%s\n", pto_runtime_error(f->rt)->code,
                pto_runtime_error(f->rt)->message);
    char ctx[512];
    snprintf(ctx, sizeof ctx,
             "random misuse: runtime %d seed 0x%llx (PTO_TEST_SEED=0x%llx), call %ld, after %s", g_rt_index,
             (unsigned long long)g_rt_seed, (unsigned long long)g_base_seed, f->calls, f->op);
    char why[256];
    if (!e2e_rings_empty(f->rt, why, sizeof why)) FZ_FAIL(f, "%s\n", why);
    e2e_valid_run(f->rt, ctx);
    f->open = f->manual = f->latched = 0;
    fz_model_reset(f);
    f->runs++;
}

static uint64_t fz_max_heap(const fz *f)
{
    uint64_t h = 0;
    for (int r = 0; r < PTO_NUM_RINGS; r++)
        if (f->cfg.runtime_env.ring_heap[r] > h) h = f->cfg.runtime_env.ring_heap[r];
    return h;
}

/* n bytes aligned to 1024 (PTO_PACKED_OUTPUT_ALIGN); UINT64_MAX when that overflows. */
static uint64_t fz_packed(uint64_t n)
{
    const uint64_t a = PTO_PACKED_OUTPUT_ALIGN;
    return n > UINT64_MAX - a ? UINT64_MAX : (n + a - 1) / a * a;
}

/* Heap bytes a task asks for, as the runtime counts them: each OUT arg's
 * bytes aligned to 1024, summed; UINT64_MAX when that overflows. */
static uint64_t fz_request(const pto_task *t)
{
    uint64_t sum = 0;
    for (uint32_t i = 0; i < t->num_args; i++) {
        if (t->args[i].tag != PTO_ARG_OUT) continue;
        const pto_view *v = &t->args[i].view;
        uint64_t n = v->elem_size, b;
        for (uint32_t d = 0; d < v->ndims && n != UINT64_MAX; d++)
            if (__builtin_mul_overflow(n, v->shape[d], &n)) n = UINT64_MAX;
        b = fz_packed(n);
        sum = sum > UINT64_MAX - b ? UINT64_MAX : sum + b;
    }
    return sum;
}

static void fz_submit(fz *f)
{
    pto_arg args[40];
    uint64_t scalars[PTO_MAX_SCALAR_ARGS + 4];
    pto_dep deps[64];
    uint64_t mask = 0;
    /* Now and then the most a task may have: 32 args, 16 scalars, many deps. */
    uint32_t nargs = pct(&f->s, 3) ? PTO_MAX_TENSOR_ARGS : (uint32_t)rn(&f->s, 6);
    char what[128] = "";
    for (uint32_t i = 0; i < 40; i++) {
        int safe = 0;
        memset(&args[i], 0, sizeof args[i]);
        if (i < nargs && pct(&f->s, 8)) { /* OUT */
            args[i].tag = PTO_ARG_OUT;
            pto_view *v = &args[i].view;
            static const uint32_t es[4] = {1, 2, 4, 8};
            v->elem_size = es[rn(&f->s, 4)];
            v->ndims = 1 + (uint32_t)rn(&f->s, 3);
            for (uint32_t d = 0; d < v->ndims; d++) v->shape[d] = rn(&f->s, 8);
            int big = (int)rn(&f->s, 50);
            if (big == 0)
                v->shape[0] = fz_max_heap(f) / v->elem_size + 1; /* > any heap */
            else if (big == 1)
                v->ndims = 2, v->shape[0] = UINT64_MAX / 2, v->shape[1] = 4; /* overflows */
            else if (big < 4)
                v->shape[0] = 1 + rn(&f->s, 4096 / v->elem_size);
            safe = view_count(v) > 0 && big >= 2;
        } else {
            static const pto_arg_tag tags[4] = {PTO_ARG_IN, PTO_ARG_INOUT, PTO_ARG_OUTPUT_EXISTING,
                                                PTO_ARG_NO_DEP};
            args[i].tag = tags[rn(&f->s, 4)];
            args[i].view = fz_view(f, &safe);
        }
        if (safe && i < 64) mask |= 1ull << i;
    }
    uint32_t nsc = pct(&f->s, 3) ? PTO_MAX_SCALAR_ARGS : (uint32_t)rn(&f->s, 5);
    for (uint32_t i = 0; i < PTO_MAX_SCALAR_ARGS + 4; i++) scalars[i] = rn(&f->s, 1000);
    scalars[0] = mask;
    scalars[1] = pct(&f->s, 10) ? 100 + rn(&f->s, 300) : rn(&f->s, 20); /* spin us */
    uint32_t ndeps = !f->nids || pct(&f->s, 60) ? 0
                     : pct(&f->s, 5)            ? 1 + (uint32_t)rn(&f->s, 64)
                                                : 1 + (uint32_t)rn(&f->s, 4);
    for (uint32_t i = 0; i < 64; i++)
        deps[i] = (pto_dep){f->nids ? fz_issued(f) : 0, pct(&f->s, 50) ? PTO_DEP_WAIT : PTO_DEP_WAIT_RETAIN};
    pto_task t = {.kernel = pct(&f->s, 90) ? e2e_touch_kernel : NULL,
                  .name = pct(&f->s, 50) ? "fz" : NULL,
                  .args = args,
                  .num_args = nargs,
                  .scalars = scalars,
                  .num_scalars = nsc,
                  .deps = deps,
                  .num_deps = ndeps};
    int invalid = pct(&f->s, 3);
    const pto_task *tp = &t;
    if (invalid) {
        uint32_t i = nargs ? (uint32_t)rn(&f->s, nargs) : 0;
        switch (rn(&f->s, 11)) {
        case 0:
            tp = NULL;
            snprintf(what, sizeof what, "task NULL");
            break;
        case 1:
            t.num_args = 33 + (uint32_t)rn(&f->s, 7);
            snprintf(what, sizeof what, "num_args %u", t.num_args);
            break;
        case 2:
            t.num_scalars = PTO_MAX_SCALAR_ARGS + 1 + (uint32_t)rn(&f->s, 3);
            snprintf(what, sizeof what, "num_scalars %u", t.num_scalars);
            break;
        case 3:
            t.num_args = nargs ? nargs : 1, t.args = NULL;
            snprintf(what, sizeof what, "args NULL");
            break;
        case 4:
            t.num_scalars = nsc ? nsc : 1, t.scalars = NULL;
            snprintf(what, sizeof what, "scalars NULL");
            break;
        case 5:
            t.num_deps = ndeps ? ndeps : 1, t.deps = NULL;
            snprintf(what, sizeof what, "deps NULL");
            break;
        case 6:
            t.num_args = nargs ? nargs : 1;
            args[i].tag = (pto_arg_tag)(5 + rn(&f->s, 100));
            snprintf(what, sizeof what, "arg %u tag %d", i, (int)args[i].tag);
            break;
        case 7:
        case 8: {
            t.num_args = nargs ? nargs : 1;
            if (args[i].tag == PTO_ARG_OUT && pct(&f->s, 50)) {
                if (pct(&f->s, 50))
                    args[i].view.ndims = pct(&f->s, 50) ? 0 : 6;
                else
                    args[i].view.elem_size = 0;
                snprintf(what, sizeof what, "OUT arg %u bad ndims/elem_size", i);
            } else {
                if (args[i].tag == PTO_ARG_OUT) args[i].tag = PTO_ARG_IN;
                const char *how;
                do how = fz_spoil_view(f, &args[i].view);
                while (!strcmp(how, "no-op owner"));
                snprintf(what, sizeof what, "arg %u %s", i, how);
            }
            break;
        }
        default: { /* a bad explicit dependency, after valid ones */
            uint32_t k = (uint32_t)rn(&f->s, 4);
            if (f->nids && pct(&f->s, 40))
                deps[k] = (pto_dep){fz_issued(f), (pto_dep_kind)(2 + rn(&f->s, 50))};
            else
                deps[k].id = fz_never(f);
            t.deps = deps;
            t.num_deps = k + 1;
            snprintf(what, sizeof what, "dep %u %llx kind %d", k, (unsigned long long)deps[k].id,
                     (int)deps[k].kind);
            break;
        }
        }
    }
    if (tp && t.num_args > PTO_MAX_TENSOR_ARGS) /* the rest of the 40 are valid IN views */
        for (uint32_t i = nargs; i < 40; i++)
            if (args[i].tag == PTO_ARG_OUT) args[i].tag = PTO_ARG_IN;
    snprintf(f->op, sizeof f->op, "pto_task_submit %s: %u args (mask %llx), %u scalars, %u deps, depth %d%s",
             invalid ? what : "valid", t.num_args, (unsigned long long)mask, t.num_scalars, t.num_deps,
             f->open - 1, f->manual ? " MANUAL" : "");
    int want = PTO_INVALID_ARGS;
    if (!invalid) {
        uint64_t s = fz_request(tp);
        if (s <= f->cfg.runtime_env.ring_heap[fz_ring(f)] && s > PTO_MAX_TENSOR_ARGS * MAX_OUT_BYTES)
            FZ_FAIL(f, "a task of %llu bytes breaks the heap sizing of fz_config\n", (unsigned long long)s);
        want = f->latched ? 0 : fz_predict(f, s);
    }
    pto_task_id id = 7;
    uint64_t t0 = base_now_ns();
    int rc = pto_task_submit(f->rt, tp, &id);
    if (rc == 0) f->ok_submits++, f->slow_submits += base_now_ns() - t0 > 50000;
    if (rc == 0 && id == PTO_INVALID_TASK_ID) FZ_FAIL(f, "a submit returning 0 gave no id\n");
    if (rc != 0 && id != PTO_INVALID_TASK_ID)
        FZ_FAIL(f, "a failed submit gave id %llx\n", (unsigned long long)id);
    fz_check(f, rc, want, "pto_task_submit");
    if (rc == 0) {
        fz_model_task(f);
        f->model_ok_submits++;
        fz_note_id(f, id);
        for (uint32_t i = 0; i < t.num_args; i++)
            if (args[i].tag == PTO_ARG_OUT) {
                if (args[i].view.owner != id)
                    FZ_FAIL(f, "OUT arg %u owner %llx, task %llx\n", i,
                            (unsigned long long)args[i].view.owner, (unsigned long long)id);
                f->outs[f->nouts++ % NOUTS].addr = args[i].view.addr;
                f->outs[(f->nouts - 1) % NOUTS].owner = id;
            }
    }
}

static void fz_scope_begin(fz *f, int force_auto)
{
    pto_scope_mode m = f->manual ? (pct(&f->s, 90) ? PTO_SCOPE_MANUAL : PTO_SCOPE_AUTO)
                                 : (pct(&f->s, 75) ? PTO_SCOPE_AUTO : PTO_SCOPE_MANUAL);
    if (force_auto && !f->manual) m = PTO_SCOPE_AUTO;
    if (pct(&f->s, 1)) m = (pto_scope_mode)(2 + rn(&f->s, 10));
    int invalid = (m != PTO_SCOPE_AUTO && m != PTO_SCOPE_MANUAL) || (m == PTO_SCOPE_AUTO && f->manual) ||
                  f->open >= PTO_MAX_SCOPE_DEPTH;
    snprintf(f->op, sizeof f->op, "pto_scope_begin mode %d at open %d (manual %d)", (int)m, f->open,
             f->manual);
    int rc = pto_scope_begin(f->rt, m, pct(&f->s, 5) ? NULL : __FILE__, f->open);
    fz_check(f, rc, invalid ? PTO_INVALID_ARGS : 0, "pto_scope_begin");
    if (rc == 0) {
        f->modes[f->open++] = m == PTO_SCOPE_MANUAL ? 'M' : 'A';
        f->manual += m == PTO_SCOPE_MANUAL;
        f->m.serial[f->open] = f->m.next_serial++;
        f->m.ntasks[f->open] = 0;
    }
}

static void fz_scope_end(fz *f)
{
    snprintf(f->op, sizeof f->op, "pto_scope_end at open %d", f->open);
    int rc = pto_scope_end(f->rt);
    fz_check(f, rc, f->open == 0 ? PTO_INVALID_ARGS : 0, "pto_scope_end");
    if (rc == 0 && f->modes[--f->open] == 'M') f->manual--;
}

static void fz_alloc(fz *f)
{
    size_t bytes;
    int k = (int)rn(&f->s, 50);
    uint64_t heap = f->cfg.runtime_env.ring_heap[fz_ring(f)];
    if (k == 0)
        bytes = SIZE_MAX - rn(&f->s, 2000);
    else if (k == 1)
        bytes = heap + 1 + rn(&f->s, heap);
    else if (k == 2)
        bytes = 0;
    else
        bytes = 1 + rn(&f->s, pct(&f->s, 80) ? 1024 : 4096);
    snprintf(f->op, sizeof f->op, "pto_tensor_alloc %zu bytes at open %d", bytes, f->open);
    int want = f->latched ? 0 : fz_predict(f, fz_packed(bytes));
    pto_task_id id = 7;
    void *p;
    int rc = pto_tensor_alloc(f->rt, bytes, &p, &id);
    if (!p != (rc != 0)) FZ_FAIL(f, "alloc returned %d with address %p\n", rc, p);
    if (p && id == PTO_INVALID_TASK_ID) FZ_FAIL(f, "an alloc returning memory gave no id\n");
    if (!p && id != PTO_INVALID_TASK_ID) FZ_FAIL(f, "a failed alloc gave id %llx\n", (unsigned long long)id);
    if (p && ((uintptr_t)p % PTO_PACKED_OUTPUT_ALIGN) != 0) FZ_FAIL(f, "alloc %p is not 1024-aligned\n", p);
    int code = pto_runtime_error(f->rt)->code;
    if (!p && (code == 0 || (f->latched == 0 && code == PTO_INVALID_ARGS)))
        FZ_FAIL(f, "alloc returned NULL, latched code %d\n%s\n", code, pto_runtime_error(f->rt)->message);
    if (rc && rc != -code) FZ_FAIL(f, "alloc returned %d, latched code %d\n", rc, code);
    fz_check(f, rc, want, "pto_tensor_alloc");
    if (p) {
        fz_model_task(f);
        fz_note_id(f, id);
        f->outs[f->nouts++ % NOUTS].addr = p;
        f->outs[(f->nouts - 1) % NOUTS].owner = id;
    }
}

static void fz_wait(fz *f)
{
    int safe;
    pto_view v = fz_view(f, &safe);
    const pto_view *vp = &v;
    const char *how = "valid";
    if (pct(&f->s, 2))
        vp = NULL, how = "NULL";
    else if (pct(&f->s, 4))
        how = fz_spoil_view(f, &v);
    int invalid = vp == NULL || strcmp(how, "valid") != 0;
    if (!strcmp(how, "no-op owner")) invalid = 0, v.owner = PTO_INVALID_TASK_ID;
    int w = (int)rn(&f->s, 2);
    snprintf(f->op, sizeof f->op, "pto_view_wait %s for_write %d, ndims %u, at open %d", how, w, v.ndims,
             f->open);
    int rc = pto_view_wait(f->rt, vp, w);
    fz_check(f, rc, invalid ? PTO_INVALID_ARGS : 0, "pto_view_wait");
}

static void fz_runtime(fz *f, long ncalls)
{
    for (long c = 0; c < ncalls; c++) {
        uint64_t k = rn(&f->s, 1000);
        if (f->latched && pct(&f->s, 30)) {
            fz_finish(f);
        } else if (k < 450) {
            /* Mostly inside a scope: the root keeps its tasks until pto_runtime_finish. */
            if (f->open == 0 && pct(&f->s, 85))
                fz_scope_begin(f, 1);
            else
                fz_submit(f);
        } else if (k < 600) {
            fz_scope_begin(f, 0);
        } else if (k < 800) {
            if (f->open > 0 || pct(&f->s, 3)) fz_scope_end(f);
        } else if (k < 880) {
            fz_alloc(f);
        } else if (k < 975) {
            fz_wait(f);
        } else if (k < 990) {
            fz_finish(f);
        } else if (k < 992) {
            snprintf(f->op, sizeof f->op, "pto_runtime_fail at open %d", f->open);
            fz_check(f, pto_runtime_fail(f->rt, "fuzz %ld", f->calls), PTO_EXPLICIT_ORCH_FATAL, "");
        } else if (k < 993) {
            /* Dive to the depth limit (tasks at depth 63 share ring 3), then
             * maybe one more. */
            while (!f->latched && f->open < PTO_MAX_SCOPE_DEPTH) fz_scope_begin(f, 0);
            if (!f->latched && pct(&f->s, 50)) {
                fz_scope_begin(f, 0);
                if (!f->latched) FZ_FAIL(f, "a 65th nested scope opened\n");
            }
        }
    }
    fz_finish(f);
}

/* A runtime for seed *s: task windows 4, 8 or 16 (the model's subject);
 * everything else too big to run out, so the model needs no timing.  At most
 * L = sum(w - 1) <= 60 tasks are live, so a task has at most L edges (no
 * spill) and a ring's live consumers hold at most w x L dep-pool nodes; a
 * ring's heap holds at most w - 2 live tasks' outputs when a task is
 * admitted, plus less than one task's wasted at a wrap, and a task asks for
 * at most 32 x MAX_OUT_BYTES (fz_submit checks), so (w + 1) times that
 * always leaves room; tensormap entries stay far below 65536.  The stall
 * bound is far above any wait (kernels never wait), so a V3 is a failure. */
static pto_config fz_config(uint64_t *s)
{
    pto_config cfg;
    memset(&cfg, 0, sizeof cfg);
    uint64_t live = 0;
    for (int r = 0; r < PTO_NUM_RINGS; r++) {
        cfg.runtime_env.ring_task_window[r] = 4ull << rn(s, 3);
        live += cfg.runtime_env.ring_task_window[r] - 1;
    }
    for (int r = 0; r < PTO_NUM_RINGS; r++) {
        uint64_t w = cfg.runtime_env.ring_task_window[r], heap = 1024;
        while (heap < (w + 1) * PTO_MAX_TENSOR_ARGS * MAX_OUT_BYTES) heap <<= 1;
        cfg.runtime_env.ring_heap[r] = heap << rn(s, 2);
        cfg.runtime_env.ring_dep_pool[r] = w * live + rn(s, 64);
    }
    cfg.num_workers = 1 + (int)rn(s, 2);
    cfg.stall_timeout_ms = 10000;
    return cfg;
}

static void test_random_misuse_never_crashes(void **state)
{
    (void)state;
    const char *se = getenv("PTO_TEST_SEED");
    g_base_seed = se ? strtoull(se, NULL, 0) : 0x6d15c5e2025ull;
    long ncalls = scaled(2000);
    enum { NRT = 16 };
    fz *f = calloc(1, sizeof *f);
    assert_non_null(f);
    for (int b = 0; b < NBUF; b++) {
        f->bufs[b] = calloc(1, g_buf_bytes[b]);
        assert_non_null(f->bufs[b]);
    }
    long total_calls = 0, total_runs = 0, by_code[128] = {0}, ok_submits = 0, slow_submits = 0, model_ok = 0;
    uint64_t t0 = now_ms();
    for (int i = 0; i < NRT; i++) {
        g_rt_index = i;
        g_rt_seed = g_base_seed + (uint64_t)i * 0x100000001ull;
        uint64_t s = g_rt_seed;
        pto_config cfg = fz_config(&s);
        pto_runtime *rt = make_rt(&cfg);
        unsigned char *bufs[NBUF];
        memcpy(bufs, f->bufs, sizeof bufs);
        memset(f, 0, sizeof *f);
        memcpy(f->bufs, bufs, sizeof bufs);
        f->rt = rt;
        f->cfg = cfg;
        f->s = s;
        fz_model_reset(f);
        fz_runtime(f, ncalls);
        if (f->ok_submits != f->model_ok_submits)
            FZ_FAIL(f, "%ld submits succeeded, the model admitted %ld\n", f->ok_submits, f->model_ok_submits);
        model_ok += f->model_ok;
        total_calls += f->calls;
        total_runs += f->runs;
        ok_submits += f->ok_submits;
        slow_submits += f->slow_submits;
        for (int c = 0; c < 128; c++) by_code[c] += f->by_code[c];
        pto_runtime_destroy(rt);
    }
    print_message(
        "random misuse: %d runtimes, %ld calls, %ld runs, %llu ms; %ld tasks submitted (%ld waited), "
        "%ld slots taken; errors: scope %ld heap %ld flow %ld dep %ld invalid %ld orch %ld tensormap %ld\n",
        NRT, total_calls, total_runs, (unsigned long long)(now_ms() - t0), ok_submits, slow_submits, model_ok,
        by_code[1], by_code[2], by_code[3], by_code[4], by_code[5], by_code[9], by_code[11]);
    /* The calls reach every outcome the model predicts (the counts are a
     * function of the seed and the call count). */
    if (ncalls >= 1000) {
        assert_true(by_code[PTO_SCOPE_DEADLOCK] > 0 && by_code[PTO_HEAP_RING_DEADLOCK] > 0 &&
                    by_code[PTO_FLOW_CONTROL_DEADLOCK] > 0 && by_code[PTO_INVALID_ARGS] > 0);
        assert_true(ok_submits > total_calls / 10);
    }
    for (int b = 0; b < NBUF; b++) free(f->bufs[b]);
    free(f);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_random_misuse_never_crashes),
};

PTO_TEST_MAIN(tests)
