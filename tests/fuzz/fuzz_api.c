/*
 * fuzz_api.c - libFuzzer harness for the runtime's C API (pto/runtime.h):
 * the input decodes into a call sequence (scope begin/end in either mode,
 * task submits with views over three small buffers and OUT buffers, every
 * arg tag and dependency kind, explicit deps, pto_tensor_alloc,
 * pto_view_wait, pto_runtime_fail, pto_runtime_finish, and certainly
 * invalid calls) run on a one-worker runtime with tiny rings.  Kernels are
 * random_graph.h's deterministic k_op; the successful submits of a run
 * are replayed serially (random_graph.h's run_serial) as the reference.
 *
 * Rules every input must keep (a broken one aborts):
 *   - a certainly invalid call returns -PTO_INVALID_ARGS, pto_runtime_fail
 *     -PTO_EXPLICIT_ORCH_FATAL; a valid call 0 or a capacity error
 *     (scope/heap/flow-control deadlock, dep pool, tensormap); once an
 *     error is latched every call returns it, and its message has the fixed
 *     lines of docs/runtime.md, "Errors";
 *   - a failed submit hands out PTO_INVALID_TASK_ID, a successful one an id;
 *   - pto_runtime_finish returns the latched code (0 for a clean run) and
 *     leaves every ring empty;
 *   - after a clean run the buffers equal the serial reference; after
 *     pto_view_wait in a run without MANUAL tasks, the waited-for view
 *     already holds the reference's values.
 * MANUAL-scope tasks get explicit deps on every earlier conflicting task
 * (as random_graph.h's generator does), so every clean run is
 * deterministic.  The stall bound is short: a hang ends as an error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "random_graph.h"

#define FZ_CHECK(cond, ...)                                                        \
    do {                                                                           \
        if (!(cond)) {                                                             \
            fprintf(stderr, "fuzz_api: rule broken: %s\n  ", #cond);               \
            fprintf(stderr, __VA_ARGS__);                                          \
            fputc('\n', stderr);                                                   \
            abort();                                                               \
        }                                                                          \
    } while (0)

enum {
    NB = 3, ROWS = 8, COLS = 8, NEL = ROWS * COLS, /* user buffers */
    MAX_ACTIONS = 400,
    RUN_TASKS = MAXT - 4,                          /* tasks per run before a forced finish */
    NIDS = 64, NALLOCS = 8,
    STALL_MS = 2000
};

/* One open scope: its mode and the serial that marks its temps and allocs live. */
typedef struct fz_scope {
    int manual;
    uint64_t serial;
} fz_scope;

typedef struct fz_alloc {
    void *addr;
    size_t bytes;
    pto_task_id owner;
    uint64_t serial; /* scope it lives in */
} fz_alloc;

typedef struct fz_state {
    pto_runtime *rt;
    fuzz_input in;
    uint64_t *bufs[NB], *ref[NB], *start[NB]; /* runtime's, reference's, at run start */
    graph g;                                  /* this run's successful submits */
    pto_view temp_view[MAXT];
    uint64_t temp_serial[MAXT];
    pto_task_id task_id[MAXT];
    fz_scope open[PTO_MAX_SCOPE_DEPTH + 1];
    int nopen, nmanual, manual_tasks;
    uint64_t next_serial;
    int latched;
    char first[PTO_ERROR_MESSAGE_MAX];
    pto_task_id ids[NIDS];
    int nids;
    uint32_t next_local[PTO_NUM_RINGS];
    fz_alloc allocs[NALLOCS];
    int nallocs;
    int step;
} fz_state;

static fz_state S;

static int fz_capacity_code(int code)
{
    return code == PTO_SCOPE_DEADLOCK || code == PTO_HEAP_RING_DEADLOCK || code == PTO_FLOW_CONTROL_DEADLOCK ||
           code == PTO_DEP_POOL_OVERFLOW || code == PTO_TENSORMAP_OVERFLOW;
}

/* Checks rc of a call; want < 0: a valid call (0 or a capacity error),
 * else the exact code an invalid call must get. */
static void fz_expect(fz_state *s, int rc, int want, const char *what)
{
    const pto_error *e = pto_runtime_error(s->rt);
    if (s->latched) {
        FZ_CHECK(rc == -s->latched && e->code == s->latched && strcmp(e->message, s->first) == 0,
                 "step %d %s: after latched %d got rc %d, code %d:\n%s", s->step, what, s->latched, rc, e->code,
                 e->message);
        return;
    }
    if (want < 0)
        FZ_CHECK(rc == 0 || (rc < 0 && fz_capacity_code(-rc)), "step %d %s (valid): rc %d %s:\n%s", s->step, what,
                 rc, pto_status_name(rc), rc ? e->message : "");
    else
        FZ_CHECK(rc == -want, "step %d %s: rc %d %s, expected %d %s:\n%s", s->step, what, rc, pto_status_name(rc),
                 -want, pto_status_name(want), rc ? e->message : "");
    if (rc == 0) return;
    char missing[160];
    FZ_CHECK(e->code == -rc, "step %d %s: rc %d but latched code %d", s->step, what, rc, e->code);
    FZ_CHECK(e2e_has_fixed_lines(e->message, e->code, missing, sizeof missing),
             "step %d %s: message lacks \"%s\":\n%s", s->step, what, missing, e->message);
    s->latched = e->code;
    snprintf(s->first, sizeof s->first, "%s", e->message);
}

static void fz_note_id(fz_state *s, pto_task_id id)
{
    s->ids[s->nids++ % NIDS] = id;
    int r = (int)(id >> 32);
    if (r >= 0 && r < PTO_NUM_RINGS && (uint32_t)id + 1 > s->next_local[r]) s->next_local[r] = (uint32_t)id + 1;
}

static int fz_serial_open(const fz_state *s, uint64_t serial)
{
    for (int i = 0; i <= s->nopen; i++)
        if (s->open[i].serial == serial) return 1;
    return 0;
}

/* ---- views -------------------------------------------------------------- */

/* A valid view over user buffer res: a 1-d range, a 2-d box or every other row. */
static vspec fz_view(fuzz_input *in, int res, pto_arg_tag tag)
{
    vspec v;
    memset(&v, 0, sizeof v);
    v.res = res;
    v.tag = tag;
    uint8_t kind = fuzz_u8(in);
    uint8_t a = fuzz_u8(in), b = fuzz_u8(in);
    if (kind % 3 == 0) {
        v.ndims = 1;
        v.offset = a % NEL;
        v.shape[0] = 1 + b % (uint64_t)(NEL - v.offset);
        v.strides[0] = 1;
        return v;
    }
    int r0 = a % ROWS, c0 = (a >> 4) % COLS;
    int every_other = kind % 3 == 2;
    int maxr = every_other ? (ROWS - r0 + 1) / 2 : ROWS - r0;
    v.ndims = 2;
    v.shape[0] = 1 + b % (uint64_t)maxr;
    v.shape[1] = 1 + (b >> 4) % (uint64_t)(COLS - c0);
    v.strides[0] = every_other ? 2 * COLS : COLS;
    v.strides[1] = 1;
    v.offset = (int64_t)r0 * COLS + c0;
    return v;
}

/* ---- calls -------------------------------------------------------------- */

/* Opens a scope; rare = 1 lets the operand byte pick an invalid mode (a
 * bad value, or AUTO inside MANUAL), else the mode is kept valid. */
static void fz_begin(fz_state *s, int rare)
{
    uint8_t b = fuzz_u8(&s->in);
    pto_scope_mode mode = rare && (b & 0x40) ? (pto_scope_mode)(2 + b % 5) : (pto_scope_mode)(b & 1);
    if (!rare && s->nmanual) mode = PTO_SCOPE_MANUAL;
    int invalid = (mode != PTO_SCOPE_AUTO && mode != PTO_SCOPE_MANUAL) || (mode == PTO_SCOPE_AUTO && s->nmanual) ||
                  s->nopen >= PTO_MAX_SCOPE_DEPTH;
    int rc = pto_scope_begin(s->rt, mode, b & 0x80 ? NULL : "fuzz_api", s->step);
    fz_expect(s, rc, invalid ? PTO_INVALID_ARGS : 0, "pto_scope_begin");
    if (rc != 0) return;
    s->nopen++;
    s->open[s->nopen].manual = mode == PTO_SCOPE_MANUAL;
    s->open[s->nopen].serial = s->next_serial++;
    s->nmanual += mode == PTO_SCOPE_MANUAL;
}

static void fz_end(fz_state *s)
{
    int rc = pto_scope_end(s->rt);
    fz_expect(s, rc, s->nopen == 0 ? PTO_INVALID_ARGS : 0, "pto_scope_end");
    if (rc != 0) return;
    s->nmanual -= s->open[s->nopen].manual;
    s->nopen--;
}

/* A live temp (its scope still open), or -1. */
static int fz_live_temp(fz_state *s, uint8_t pick)
{
    for (int k = 0; k < s->g.ntemps; k++) {
        int t = (pick + k) % s->g.ntemps;
        if (fz_serial_open(s, s->temp_serial[t])) return t;
    }
    return -1;
}

/* Decodes a valid task of the reference's ops into t. */
static void fz_decode_task(fz_state *s, gtask *t)
{
    fuzz_input *in = &s->in;
    uint8_t opb = fuzz_u8(in);
    int b0 = fuzz_u8(in) % NB, b1 = fuzz_u8(in) % NB;
    int op = opb % 7;
    int temp = op == OP_CONSUME ? fz_live_temp(s, fuzz_u8(in)) : -1;
    if (op == OP_CONSUME && temp < 0) op = OP_PRODUCE;
    *t = new_task(op, fuzz_u64(in) | 1);
    t->sc[2] = fuzz_u64(in);
    t->sc[3] = opb & 0x80 ? 2000 : 0; /* a short spin: the orchestrator runs ahead */
    switch (op) {
    case OP_FILL:
        t->nargs = 1;
        t->a[0] = fz_view(in, b0, PTO_ARG_OUTPUT_EXISTING);
        break;
    case OP_AXPY:
        t->nargs = 2;
        t->a[0] = fz_view(in, b0, PTO_ARG_INOUT);
        t->a[1] = fz_view(in, b1, PTO_ARG_IN);
        break;
    case OP_SUM:
        t->nargs = 2;
        t->a[0] = fz_view(in, b0, PTO_ARG_IN);
        t->a[1] = fz_view(in, b1, PTO_ARG_OUTPUT_EXISTING);
        break;
    case OP_SCALE:
        t->nargs = 1;
        t->a[0] = fz_view(in, b0, PTO_ARG_INOUT);
        break;
    case OP_DUMMY: {
        static const pto_arg_tag tags[4] = {PTO_ARG_IN, PTO_ARG_INOUT, PTO_ARG_OUTPUT_EXISTING, PTO_ARG_NO_DEP};
        t->nargs = 1 + (opb >> 3) % 2;
        t->a[0] = fz_view(in, b0, tags[(opb >> 4) % 4]);
        t->a[1] = fz_view(in, b1, tags[(opb >> 5) % 4]);
        break;
    }
    case OP_PRODUCE: {
        t->nargs = 2;
        t->a[0] = fz_view(in, b0, PTO_ARG_IN);
        memset(&t->a[1], 0, sizeof t->a[1]);
        t->a[1].res = MAXB + s->g.ntemps; /* the temp this submit makes, if it succeeds */
        t->a[1].tag = PTO_ARG_OUT;
        t->a[1].ndims = 1;
        t->a[1].shape[0] = 1 + fuzz_u8(in) % 64;
        t->a[1].strides[0] = 1;
        break;
    }
    default: { /* OP_CONSUME */
        t->nargs = 2;
        memset(&t->a[0], 0, sizeof t->a[0]);
        t->a[0].res = MAXB + temp;
        t->a[0].tag = PTO_ARG_IN;
        t->a[0].ndims = 1;
        t->a[0].shape[0] = s->g.temp_len[temp];
        t->a[0].strides[0] = 1;
        t->a[1] = fz_view(in, b1, PTO_ARG_INOUT);
        break;
    }
    }
}

/* Makes a valid submit certainly invalid, as the operand byte says: a NULL
 * task or args, too many args or scalars, a bad tag, a bad view (NULL
 * address, bad ndims, elem_size 0, negative stride or offset, bytes past
 * INT64_MAX, an owner never issued; an OUT arg gets a bad ndims or
 * elem_size instead), or a bad explicit dependency (never issued, or a bad
 * kind) after the valid ones.  deps has room for one more.  Returns what it
 * did. */
static const char *fz_spoil(fz_state *s, pto_task *task, const pto_task **tp, pto_dep *deps)
{
    uint8_t how = fuzz_u8(&s->in);
    pto_arg *a = &task->args[how % task->num_args];
    pto_view *v = &a->view;
    int is_out = a->tag == PTO_ARG_OUT;
    switch ((how >> 2) % 14) {
    case 0:
        *tp = NULL;
        return "task NULL";
    case 1: /* the extra args are copies of a valid non-OUT one */
        for (uint32_t k = task->num_args; k < PTO_MAX_TENSOR_ARGS + 1u + how % 4; k++)
            task->args[k] = task->args[0];
        task->num_args = PTO_MAX_TENSOR_ARGS + 1u + how % 4;
        return "too many args";
    case 2:
        task->num_scalars = PTO_MAX_SCALAR_ARGS + 1;
        return "too many scalars";
    case 3:
        task->args = NULL;
        return "args NULL";
    case 4:
        a->tag = (pto_arg_tag)(5 + how % 50);
        return "bad tag";
    case 5:
        if (is_out) v->ndims = 0;
        else v->addr = NULL;
        return "addr NULL (OUT: ndims 0)";
    case 6:
        v->ndims = is_out || (how & 1) ? 6 + how % 90u : 0;
        return "bad ndims";
    case 7:
        v->elem_size = 0;
        return "elem_size 0";
    case 8:
        if (is_out) v->elem_size = 0;
        else v->strides[0] = -1 - how % 4;
        return "negative stride (OUT: elem_size 0)";
    case 9:
        if (is_out) v->ndims = 0;
        else v->offset = how & 1 ? -1 : INT64_MIN;
        return "negative offset (OUT: ndims 0)";
    case 10:
        if (is_out) {
            v->ndims = 7;
        } else {
            v->elem_size = 8;
            v->offset = INT64_MAX - how % 16;
        }
        return "bytes past INT64_MAX (OUT: ndims 7)";
    case 11:
        if (is_out) v->elem_size = 0;
        else v->owner = e2e_task_id(4 + how % 50, how);
        return "owner never issued (OUT: elem_size 0)";
    case 12: /* past every local issued on a ring, or on a ring that does not exist */
        deps[task->num_deps].id = how & 1 ? e2e_task_id(5 + how % 40, 1)
                                          : e2e_task_id(how % 4, s->next_local[how % 4] + 100000u);
        deps[task->num_deps].kind = PTO_DEP_WAIT;
        task->num_deps++;
        return "dep never issued";
    default:
        deps[task->num_deps].id = s->nids ? s->ids[0] : PTO_INVALID_TASK_ID - 1;
        deps[task->num_deps].kind = s->nids ? (pto_dep_kind)(2 + how % 60) : PTO_DEP_WAIT;
        task->num_deps++;
        return "bad dep kind (or a dep on no ring)";
    }
}

/* Submits a decoded task; spoil = 1 makes it certainly invalid (fz_spoil). */
static void fz_submit(fz_state *s, int spoil)
{
    gtask t;
    fz_decode_task(s, &t);
    t.manual = s->nmanual > 0;
    int idx = s->g.ntasks;
    /* Explicit deps: every earlier conflicting task when either is MANUAL,
     * and up to two issued ids (any run) of either kind. */
    static pto_dep deps[MAXT + 4];
    uint32_t ndeps = 0;
    for (int j = 0; j < idx; j++)
        if ((t.manual || s->g.t[j].manual) && conflicts(&s->g.t[j], &t))
            deps[ndeps++] = (pto_dep){s->task_id[j], (pto_dep_kind)(fuzz_u8(&s->in) & 1)};
    uint8_t extra = fuzz_u8(&s->in);
    for (int k = 0; k < extra % 3 && s->nids; k++)
        deps[ndeps++] = (pto_dep){s->ids[fuzz_u8(&s->in) % (s->nids < NIDS ? s->nids : NIDS)],
                                  (pto_dep_kind)((extra >> 2) & 1)};

    pto_arg args[PTO_MAX_TENSOR_ARGS + 8];
    memset(args, 0, sizeof args);
    for (int j = 0; j < t.nargs; j++) {
        const vspec *v = &t.a[j];
        if (v->res < MAXB) args[j] = arg(v->tag, make_view(v, s->bufs[v->res]));
        else if (v->tag == PTO_ARG_OUT) args[j] = out_arg(v->shape[0]);
        else args[j] = arg(v->tag, s->temp_view[v->res - MAXB]);
    }
    /* Now and then a DUMMY also names an alloc'd buffer (key only, never touched). */
    if (t.op == OP_DUMMY && s->nallocs && (extra & 0x80)) {
        const fz_alloc *a = &s->allocs[(extra >> 3) % s->nallocs];
        if (fz_serial_open(s, a->serial)) {
            args[t.nargs] = arg(PTO_ARG_INOUT, pto_view_1d(a->addr, 8, 0, a->bytes / 8 ? a->bytes / 8 : 1, a->owner));
            if (a->bytes < 8) args[t.nargs].view.elem_size = 1, args[t.nargs].view.shape[0] = a->bytes;
            t.nargs++;
        }
    }
    /* Room for more scalars than allowed: a rejected count must not read past them. */
    uint64_t scalars[PTO_MAX_SCALAR_ARGS + 4] = {0};
    memcpy(scalars, t.sc, sizeof t.sc);
    pto_task task = {t.op == OP_DUMMY ? NULL : k_op, NULL, "fz", args, (uint32_t)t.nargs, scalars,
                     t.sc[3] ? 4 : 3, deps, ndeps, 0};
    const pto_task *tp = &task;
    char what[96] = "pto_task_submit";
    if (spoil) snprintf(what, sizeof what, "pto_task_submit (%s)", fz_spoil(s, &task, &tp, deps));
    pto_task_id id = 12345;
    int rc = pto_task_submit(s->rt, tp, &id);
    if (rc) FZ_CHECK(id == PTO_INVALID_TASK_ID, "step %d: a failed submit (%d) gave id %llx", s->step, rc,
                     (unsigned long long)id);
    else FZ_CHECK(id != PTO_INVALID_TASK_ID, "step %d: a submit returning 0 gave no id", s->step);
    fz_expect(s, rc, spoil ? PTO_INVALID_ARGS : -1, what);
    if (rc != 0) return;
    fz_note_id(s, id);
    /* The reference records only what it can replay: user-buffer and temp views. */
    if (t.nargs > 2) t.nargs = 2;
    t.ndeps = 0;
    if (t.op == OP_PRODUCE) {
        int tmp = s->g.ntemps++;
        const pto_view *ov = &args[1].view;
        FZ_CHECK(ov->addr && ov->owner == id && ov->offset == 0 && ov->ndims == 1 && ov->strides[0] == 1 &&
                     ov->shape[0] == t.a[1].shape[0],
                 "step %d: OUT view not filled in", s->step);
        s->g.temp_len[tmp] = t.a[1].shape[0];
        s->temp_view[tmp] = *ov;
        s->temp_serial[tmp] = s->open[s->nopen].serial;
        t.temp = tmp;
    }
    s->task_id[idx] = id;
    s->g.t[s->g.ntasks++] = t;
    s->manual_tasks += t.manual;
}

static void fz_alloc_call(fz_state *s)
{
    static const size_t sizes[] = {1, 8, 1000, 1024, 1025, 4096, 65536, 1u << 21};
    uint8_t b = fuzz_u8(&s->in);
    size_t bytes = sizes[b % 8];
    void *addr = (void *)1;
    pto_task_id id = 7;
    int rc = pto_tensor_alloc(s->rt, bytes, &addr, b & 0x80 ? NULL : &id);
    fz_expect(s, rc, -1, "pto_tensor_alloc");
    if (rc != 0) {
        FZ_CHECK(addr == NULL, "step %d: a failed alloc left addr %p", s->step, addr);
        return;
    }
    FZ_CHECK(addr && ((uintptr_t)addr % PTO_PACKED_OUTPUT_ALIGN) == 0, "step %d: alloc gave %p", s->step, addr);
    if (b & 0x80) return;
    fz_note_id(s, id);
    s->allocs[s->nallocs < NALLOCS ? s->nallocs++ : b % NALLOCS] =
        (fz_alloc){addr, bytes, id, s->open[s->nopen].serial};
}

/* The serial reference of this run's tasks so far, on a copy of the run's start. */
static void fz_reference(fz_state *s, uint64_t **out)
{
    for (int b = 0; b < NB; b++) memcpy(out[b], s->start[b], NEL * sizeof(uint64_t));
    run_serial(&s->g, out);
}

static void fz_view_wait(fz_state *s)
{
    uint8_t b = fuzz_u8(&s->in);
    int for_write = b & 1;
    pto_view v;
    int user = 1;
    vspec spec = fz_view(&s->in, (b >> 1) % NB, PTO_ARG_IN);
    if ((b & 0x80) && s->nallocs) {
        const fz_alloc *a = &s->allocs[(b >> 3) % s->nallocs];
        if (!fz_serial_open(s, a->serial)) return;
        v = pto_view_1d(a->addr, 1, 0, a->bytes, a->owner);
        user = 0;
    } else {
        v = make_view(&spec, s->bufs[spec.res]);
    }
    int rc = pto_view_wait(s->rt, &v, for_write);
    fz_expect(s, rc, 0, "pto_view_wait");
    if (rc != 0 || !user || s->manual_tasks) return;
    fz_reference(s, s->ref);
    pto_view rv = make_view(&spec, s->ref[spec.res]);
    for (uint64_t k = 0; k < view_count(&v); k++)
        FZ_CHECK(*el(&v, k) == *el(&rv, k), "step %d: after pto_view_wait element %llu of buffer %d is %llx, the "
                 "reference says %llx", s->step, (unsigned long long)k, spec.res,
                 (unsigned long long)*el(&v, k), (unsigned long long)*el(&rv, k));
}

static void fz_fail_call(fz_state *s)
{
    int rc = pto_runtime_fail(s->rt, "fuzz_api: orchestration failed at step %d", s->step);
    fz_expect(s, rc, PTO_EXPLICIT_ORCH_FATAL, "pto_runtime_fail");
}

/* Ends the run: finish, the rings empty, the buffers checked (clean run) or
 * taken as the next run's start. */
static void fz_finish(fz_state *s)
{
    int rc = pto_runtime_finish(s->rt);
    const pto_error *e = pto_runtime_error(s->rt);
    FZ_CHECK(rc == -s->latched, "step %d: pto_runtime_finish returned %d, latched %d:\n%s", s->step, rc,
             s->latched, e->message);
    FZ_CHECK(e->code == s->latched, "step %d: after finish the last error is %d, latched %d", s->step, e->code,
             s->latched);
    char why[256];
    FZ_CHECK(e2e_rings_empty(s->rt, why, sizeof why), "step %d: %s", s->step, why);
    if (!s->latched) {
        fz_reference(s, s->ref);
        for (int b = 0; b < NB; b++)
            for (int k = 0; k < NEL; k++)
                FZ_CHECK(s->bufs[b][k] == s->ref[b][k], "step %d: buffer %d element %d is %llx, the reference "
                         "says %llx (%d tasks, %d MANUAL)", s->step, b, k, (unsigned long long)s->bufs[b][k],
                         (unsigned long long)s->ref[b][k], s->g.ntasks, s->manual_tasks);
    }
    for (int b = 0; b < NB; b++) memcpy(s->start[b], s->bufs[b], NEL * sizeof(uint64_t));
    memset(&s->g, 0, offsetof(graph, t));
    s->nopen = s->nmanual = s->manual_tasks = s->latched = 0;
    s->nallocs = 0;
    s->open[0].serial = s->next_serial++;
}

static void fz_on_warning(void *ctx, pto_warning code, const char *text)
{
    (void)ctx;
    FZ_CHECK(text && text[0], "warning %d without text", (int)code);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_state *s = &S;
    uint64_t *saved[3][NB];
    memcpy(saved[0], s->bufs, sizeof s->bufs);
    memcpy(saved[1], s->ref, sizeof s->ref);
    memcpy(saved[2], s->start, sizeof s->start);
    memset(s, 0, sizeof *s);
    for (int b = 0; b < NB; b++) {
        s->bufs[b] = saved[0][b] ? saved[0][b] : malloc(NEL * sizeof(uint64_t));
        s->ref[b] = saved[1][b] ? saved[1][b] : malloc(NEL * sizeof(uint64_t));
        s->start[b] = saved[2][b] ? saved[2][b] : malloc(NEL * sizeof(uint64_t));
        FZ_CHECK(s->bufs[b] && s->ref[b] && s->start[b], "out of memory");
        for (int k = 0; k < NEL; k++) s->bufs[b][k] = s->start[b][k] = (uint64_t)(b * 1000 + k);
    }
    s->in = (fuzz_input){data, size};

    /* The rings: 2 bits per ring and field. */
    static const uint64_t windows[4] = {4, 16, 64, 256}, heaps[4] = {1024, 4096, 65536, 1u << 20},
                          pools[4] = {4, 64, 1024, 16384};
    uint8_t wb = fuzz_u8(&s->in), hb = fuzz_u8(&s->in), pb = fuzz_u8(&s->in);
    pto_config cfg;
    memset(&cfg, 0, sizeof cfg);
    for (int r = 0; r < PTO_NUM_RINGS; r++) {
        cfg.runtime_env.ring_task_window[r] = windows[(wb >> (2 * r)) & 3];
        cfg.runtime_env.ring_heap[r] = heaps[(hb >> (2 * r)) & 3];
        cfg.runtime_env.ring_dep_pool[r] = pools[(pb >> (2 * r)) & 3];
    }
    cfg.num_workers = 1;
    cfg.stall_timeout_ms = STALL_MS;
    cfg.warning = fz_on_warning;
    pto_error err;
    int rc = pto_runtime_create(&cfg, &s->rt, &err);
    FZ_CHECK(rc == 0, "pto_runtime_create: %d: %s", rc, err.message);
    s->open[0].serial = s->next_serial++;

    while (!fuzz_empty(&s->in) && s->step < MAX_ACTIONS) {
        s->step++;
        if (s->g.ntasks >= RUN_TASKS || s->g.ntemps >= MAXT - 1) {
            fz_finish(s);
            continue;
        }
        /* Calls that latch an error (invalid ones, pto_runtime_fail) are
         * rare, so most runs end clean and are checked against the reference. */
        uint8_t op = fuzz_u8(&s->in);
        int rare = op >= 0xF0;
        switch (op % 16) {
        case 0: case 1: fz_begin(s, rare); break;
        case 2: case 3:
            if (s->nopen || rare) fz_end(s);
            else fz_begin(s, 0);
            break;
        case 4: case 5: case 6: case 7: case 8: case 9: fz_submit(s, 0); break;
        case 10: fz_alloc_call(s); break;
        case 11: case 12: fz_view_wait(s); break;
        case 13: if (rare) fz_fail_call(s); else fz_submit(s, 0); break;
        case 14: if (rare) fz_submit(s, 1); else fz_submit(s, 0); break;
        default: fz_finish(s); break;
        }
    }
    fz_finish(s);
    pto_runtime_destroy(s->rt);
    s->rt = NULL;
    return 0;
}
