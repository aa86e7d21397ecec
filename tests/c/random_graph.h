/*
 * random_graph.h - random task graphs and their serial reference, shared by
 * the randomized end-to-end tests (test_e2e_random.c, test_e2e_backpressure.c).
 *
 * A graph is a list of actions (scope begin/end, submit) over a few small
 * uint64 buffers; every task runs one deterministic kernel (k_op) on random
 * 1-d or 2-d views.  run_serial executes the task list in order; run_graph
 * submits it to a runtime.  The generator only emits MANUAL-scope tasks whose
 * explicit dependencies make the result deterministic.  Three options are off
 * unless a caller sets them (so the other users' graphs stay as they were):
 * genopt.nd_views adds 3-d and 4-d boxes over the buffers, genopt.allow_alloc
 * adds pto_tensor_alloc buffers (OP_ALLOC) filled and read in their scope,
 * genopt.sweeps makes arguments walk tile by tile (the tensormap's runs).
 * rg_trusted sends the tasks through the executor's trusted submit instead.
 */
#ifndef PTO_TEST_RANDOM_GRAPH_H
#define PTO_TEST_RANDOM_GRAPH_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bits.h"
#include "base/prng.h"
#include "e2e.h"
#include "runtime/trusted.h"

/* ---- random numbers ---------------------------------------------------- */

static inline uint64_t rnd(uint64_t *s, uint64_t n) { return base_splitmix64(s) % n; }

/* ---- the one kernel (views: e2e.h's view_count and el) ----------------- */

enum { OP_FILL, OP_AXPY, OP_SUM, OP_SCALE, OP_PRODUCE, OP_CONSUME, OP_DUMMY, OP_ALLOC };

/* scalars: op, p, q, and (on the runtime only) a delay in ns before the
 * work, so tasks overlap and a missing edge shows.  All arithmetic wraps
 * (unsigned). */
static inline int k_op(const pto_kernel_args *a)
{
    uint64_t op = a->scalars[0], p = a->scalars[1], q = a->scalars[2];
    if (a->num_scalars > 3) spin_ns(a->scalars[3]);
    const pto_view *v0 = &a->views[0], *v1 = a->num_views > 1 ? &a->views[1] : NULL;
    uint64_t n0 = view_count(v0), n1 = v1 ? view_count(v1) : 0;
    switch (op) {
    case OP_FILL: /* OUTPUT_EXISTING v0 */
        for (uint64_t k = 0; k < n0; k++) *el(v0, k) = p + k * q;
        break;
    case OP_AXPY: /* INOUT v0, IN v1 */
        for (uint64_t k = 0; k < n0; k++) *el(v0, k) = *el(v0, k) * p + *el(v1, k % n1) + q;
        break;
    case OP_SUM: { /* IN v0, OUTPUT_EXISTING v1 */
        uint64_t s = 0;
        for (uint64_t k = 0; k < n0; k++) s += *el(v0, k) * (k + 1);
        for (uint64_t k = 0; k < n1; k++) *el(v1, k) = s + k * p;
        break;
    }
    case OP_SCALE: /* INOUT v0 */
        for (uint64_t k = 0; k < n0; k++) *el(v0, k) = *el(v0, k) * p + q;
        break;
    case OP_PRODUCE: /* IN v0, OUT v1 */
        for (uint64_t k = 0; k < n1; k++) *el(v1, k) = *el(v0, k % n0) * 5 + p + k;
        break;
    case OP_CONSUME: /* IN v0 (a created buffer), INOUT v1 */
        for (uint64_t k = 0; k < n1; k++) *el(v1, k) = *el(v1, k) * 7 + *el(v0, k % n0) * (k + 1) + p;
        break;
    default:
        return 99;
    }
    return 0;
}

/* ---- graphs ------------------------------------------------------------ */

#define MAXB 8
#define MAXT 224
#define MAXACT (4 * MAXT)
#define MAXOPEN 6 /* explicit depths 0..5 */
#define MAXVDIMS 4 /* dimensions of a view, at most */

typedef struct vspec {
    int res; /* buffer index, or MAXB + temp index */
    pto_arg_tag tag;
    uint32_t ndims;
    uint64_t shape[MAXVDIMS];
    int64_t strides[MAXVDIMS];
    int64_t offset;
} vspec;

typedef struct gtask {
    int op; /* OP_ALLOC: no kernel; pto_tensor_alloc of temp_len[temp] elements */
    int nargs;
    vspec a[2];
    uint64_t sc[4]; /* op, p, q, delay (runtime only) */
    int manual;
    int temp; /* temp created (OP_PRODUCE, OP_ALLOC), else -1 */
    int ndeps;
    int dep0; /* first entry in graph.deps */
} gtask;

enum { ACT_SUBMIT, ACT_BEGIN, ACT_END };
typedef struct action {
    int kind;
    int arg; /* task index, or scope mode */
} action;

typedef struct graph {
    int ntasks, nact, ntemps, ndeps;
    gtask t[MAXT];
    action act[MAXACT];
    uint64_t temp_len[MAXT];
    int deps[MAXT * MAXT];
    pto_dep_kind kinds[MAXT * MAXT];
} graph;

/* What the generator may do. */
typedef struct genopt {
    int nb, rows, cols;     /* buffers of rows x cols elements */
    uint64_t w[4];          /* task windows, to stay within */
    int max_open;           /* explicit scopes open at once, at most */
    int allow_root;         /* tasks outside any scope */
    int allow_manual;
    int max_scope_tasks;    /* tasks per scope, at most */
    uint64_t max_temp;      /* elements of an OUT buffer, at most */
    int max_view;           /* elements per view dimension, at most */
    int delay_pct;          /* share of tasks that spin a little first */
    int nd_views;           /* also 3-d and 4-d boxes (rows and cols even, cols % 4 == 0) */
    int allow_alloc;        /* also pto_tensor_alloc buffers */
    int sweeps;             /* each argument mostly the tile after the last task's (the tensormap's runs) */
} genopt;

typedef struct genstate {
    int delay_pct;
    int nopen, nmanual;
    struct {
        int mode, first, ntasks;
    } open[MAXOPEN];
    int root_first, root_tasks;
    int cnt[4];
    vspec last[2]; /* genopt.sweeps: the last task's views, where each sweep goes */
    int nlast, dir[2];
} genstate;

static inline int64_t v_lo(const vspec *v) { return v->offset; }

static inline int64_t v_hi(const vspec *v)
{
    int64_t h = v->offset + 1;
    for (uint32_t d = 0; d < v->ndims; d++) h += (int64_t)(v->shape[d] - 1) * v->strides[d];
    return h;
}

static inline int conflicts(const gtask *x, const gtask *y)
{
    for (int i = 0; i < x->nargs; i++)
        for (int j = 0; j < y->nargs; j++) {
            const vspec *a = &x->a[i], *b = &y->a[j];
            if (a->res != b->res) continue;
            if (a->tag == PTO_ARG_IN && b->tag == PTO_ARG_IN) continue;
            if (v_hi(a) <= v_lo(b) || v_hi(b) <= v_lo(a)) continue;
            return 1;
        }
    return 0;
}

/* A box of a buffer laid out as [rows, cols/4, 4] (3-d) or [rows/2, 2, cols/4, 4]
 * (4-d), row-major: same-layout boxes meet the runtime's per-dimension test. */
static inline vspec rand_nd_view(uint64_t *s, const genopt *o, int b, pto_arg_tag tag)
{
    vspec v;
    memset(&v, 0, sizeof v);
    v.res = b;
    v.tag = tag;
    uint64_t dims3[3] = {(uint64_t)o->rows, (uint64_t)o->cols / 4, 4};
    uint64_t dims4[4] = {(uint64_t)o->rows / 2, 2, (uint64_t)o->cols / 4, 4};
    v.ndims = rnd(s, 2) ? 3 : 4;
    const uint64_t *dims = v.ndims == 3 ? dims3 : dims4;
    int64_t stride = 1;
    for (int d = (int)v.ndims - 1; d >= 0; d--) {
        uint64_t lo = rnd(s, dims[d]), room = dims[d] - lo;
        v.shape[d] = 1 + rnd(s, room < (uint64_t)o->max_view ? room : (uint64_t)o->max_view);
        v.strides[d] = stride;
        v.offset += (int64_t)lo * stride;
        stride *= (int64_t)dims[d];
    }
    return v;
}

static inline vspec rand_view(uint64_t *s, const genopt *o, int b, pto_arg_tag tag)
{
    if (o->nd_views && rnd(s, 3) == 0) return rand_nd_view(s, o, b, tag);
    vspec v;
    memset(&v, 0, sizeof v);
    v.res = b;
    v.tag = tag;
    int kind = (int)rnd(s, 4);
    int mv = o->max_view;
    if (kind == 0) { /* 1-d range */
        int64_t nel = (int64_t)o->rows * o->cols;
        v.ndims = 1;
        v.offset = (int64_t)rnd(s, (uint64_t)nel);
        int64_t maxn = nel - v.offset < mv * 4 ? nel - v.offset : mv * 4;
        v.shape[0] = 1 + rnd(s, (uint64_t)maxn);
        v.strides[0] = 1;
    } else if (kind == 3 && o->rows >= 2) { /* every other row */
        int r0 = (int)rnd(s, (uint64_t)o->rows);
        int maxr = (o->rows - r0 + 1) / 2;
        if (maxr > mv) maxr = mv;
        int c0 = (int)rnd(s, (uint64_t)o->cols);
        int maxc = o->cols - c0 < mv ? o->cols - c0 : mv;
        v.ndims = 2;
        v.shape[0] = 1 + rnd(s, (uint64_t)maxr);
        v.shape[1] = 1 + rnd(s, (uint64_t)maxc);
        v.strides[0] = 2 * o->cols;
        v.strides[1] = 1;
        v.offset = (int64_t)r0 * o->cols + c0;
    } else { /* a 2-d box */
        int r0 = (int)rnd(s, (uint64_t)o->rows);
        int maxr = o->rows - r0 < mv ? o->rows - r0 : mv;
        int c0 = (int)rnd(s, (uint64_t)o->cols);
        int maxc = o->cols - c0 < mv ? o->cols - c0 : mv;
        v.ndims = 2;
        v.shape[0] = 1 + rnd(s, (uint64_t)maxr);
        v.shape[1] = 1 + rnd(s, (uint64_t)maxc);
        v.strides[0] = o->cols;
        v.strides[1] = 1;
        v.offset = (int64_t)r0 * o->cols + c0;
    }
    return v;
}

/* The tile after v in direction dir (genopt.sweeps): the next 1-d range, or
 * the 2-d box beside it (dir 0) or below it (dir 1, rows of one stride);
 * 0 if that leaves the buffer. */
static inline int next_tile(const genopt *o, vspec *v, int dir)
{
    int64_t nel = (int64_t)o->rows * o->cols;
    if (v->ndims == 1) {
        if (v->offset + 2 * (int64_t)v->shape[0] > nel) return 0;
        v->offset += (int64_t)v->shape[0];
        return 1;
    }
    if (v->ndims != 2) return 0;
    int64_t r = v->offset / o->cols, c = v->offset % o->cols;
    if (dir && v->strides[0] == o->cols) {
        if (r + 2 * (int64_t)v->shape[0] > o->rows) return 0;
        v->offset += (int64_t)v->shape[0] * o->cols;
        return 1;
    }
    if (c + 2 * (int64_t)v->shape[1] > o->cols) return 0;
    v->offset += (int64_t)v->shape[1];
    return 1;
}

/* genopt.sweeps: three times in four each argument of t continues the
 * sweep of the last task's argument at its place (its tag kept). */
static inline void sweep_args(uint64_t *s, const genopt *o, genstate *st, gtask *t)
{
    for (int j = 0; j < t->nargs && j < 2; j++) {
        vspec v = st->last[j];
        if (j < st->nlast && rnd(s, 4) && next_tile(o, &v, st->dir[j])) {
            v.tag = t->a[j].tag;
            t->a[j] = v;
        } else {
            st->dir[j] = (int)rnd(s, 2);
        }
        st->last[j] = t->a[j];
    }
    st->nlast = t->nargs;
}

/* A task of op with scalar p (its views and q are the caller's). */
static inline gtask new_task(int op, uint64_t p)
{
    gtask t;
    memset(&t, 0, sizeof t);
    t.op = op;
    t.temp = -1;
    t.sc[0] = (uint64_t)op;
    t.sc[1] = p;
    return t;
}

/* A task of op whose first view reads the created buffer tv (the second
 * view is the caller's). */
static inline gtask temp_reader(int op, vspec tv, uint64_t p)
{
    gtask t = new_task(op, p);
    t.nargs = 2;
    t.a[0] = tv;
    t.a[0].tag = PTO_ARG_IN;
    return t;
}

/* A new created buffer (OP_PRODUCE's OUT, OP_ALLOC's tensor) of at most
 * o->max_temp elements: its index in *tmp, the whole of it as a 1-d view. */
static inline vspec new_temp(graph *g, const genopt *o, uint64_t *s, int *tmp)
{
    *tmp = g->ntemps++;
    uint64_t len = 1 + rnd(s, o->max_temp);
    g->temp_len[*tmp] = len;
    vspec tv;
    memset(&tv, 0, sizeof tv);
    tv.res = MAXB + *tmp;
    tv.ndims = 1;
    tv.shape[0] = len;
    tv.strides[0] = 1;
    return tv;
}

static inline int cur_ring(const genstate *st) { return st->nopen == 0 ? 0 : (st->nopen - 1 < 3 ? st->nopen - 1 : 3); }

/* Can k more tasks go to the current scope without a capacity error?
 * Tasks from the oldest one an open scope pins onwards cannot retire. */
static inline int feasible(const genstate *st, const genopt *o, int k)
{
    int r = cur_ring(st);
    int oldest = -1;
    if (r == 0 && st->root_first >= 0) oldest = st->root_first;
    for (int i = 0; i < st->nopen; i++) {
        int ri = i < 3 ? i : 3;
        if (ri == r && st->open[i].first >= 0 && (oldest < 0 || st->open[i].first < oldest))
            oldest = st->open[i].first;
    }
    int pinned = oldest < 0 ? 0 : st->cnt[r] - oldest;
    if ((uint64_t)(pinned + k) > o->w[r] - 1) return 0;
    int in_scope = st->nopen ? st->open[st->nopen - 1].ntasks : st->root_tasks;
    if (st->nopen && in_scope + k > o->max_scope_tasks) return 0;
    return 1;
}

static inline void add_task(graph *g, genstate *st, gtask *t, uint64_t *s)
{
    int i = g->ntasks++;
    int r = cur_ring(st);
    t->manual = st->nmanual > 0;
    t->sc[3] = (int)rnd(s, 100) < st->delay_pct ? 1000 + rnd(s, 20000) : 0;
    t->ndeps = 0;
    t->dep0 = g->ndeps;
    for (int j = 0; j < i; j++) {
        if (!t->manual && !g->t[j].manual) continue;
        if (!conflicts(&g->t[j], t)) continue;
        g->deps[g->ndeps] = j;
        /* Either kind, on created buffers too: a view's owner stays alive
         * until the reader completes whatever the dependency kind. */
        g->kinds[g->ndeps] = rnd(s, 2) ? PTO_DEP_WAIT_RETAIN : PTO_DEP_WAIT;
        g->ndeps++;
        t->ndeps++;
    }
    g->t[i] = *t;
    g->act[g->nact++] = (action){ACT_SUBMIT, i};
    if (st->nopen) {
        if (st->open[st->nopen - 1].first < 0) st->open[st->nopen - 1].first = st->cnt[r];
        st->open[st->nopen - 1].ntasks++;
    } else {
        if (st->root_first < 0) st->root_first = st->cnt[r];
        st->root_tasks++;
    }
    st->cnt[r]++;
}

static inline void scope_end_act(graph *g, genstate *st)
{
    if (st->nopen <= 0 || st->nopen > MAXOPEN) return;
    st->nopen--;
    if (st->open[st->nopen].mode == PTO_SCOPE_MANUAL) st->nmanual--;
    g->act[g->nact++] = (action){ACT_END, 0};
}

static inline void scope_begin_act(graph *g, genstate *st, int mode)
{
    if (st->nopen < 0 || st->nopen >= MAXOPEN) return;
    st->open[st->nopen].mode = mode;
    st->open[st->nopen].first = -1;
    st->open[st->nopen].ntasks = 0;
    st->nopen++;
    if (mode == PTO_SCOPE_MANUAL) st->nmanual++;
    g->act[g->nact++] = (action){ACT_BEGIN, mode};
}

/* Appends up to target (<= MAXT) tasks (with scope actions) to g; closes
 * every scope it opened.  The state st starts empty for each call. */
static inline void gen_graph(graph *g, const genopt *o, uint64_t *s, int target)
{
    genstate st;
    memset(&st, 0, sizeof st);
    st.root_first = -1;
    st.delay_pct = o->delay_pct;
    memset(g, 0, offsetof(graph, t));
    while (g->ntasks < target - 2 && g->nact < MAXACT - 8) {
        int r = (int)rnd(s, 100);
        if (r < 10 && st.nopen < o->max_open) {
            int mode = st.nmanual ? PTO_SCOPE_MANUAL
                       : (o->allow_manual && rnd(s, 4) == 0 ? PTO_SCOPE_MANUAL : PTO_SCOPE_AUTO);
            scope_begin_act(g, &st, mode);
            continue;
        }
        if (r < 20 && st.nopen > 0) {
            scope_end_act(g, &st);
            continue;
        }
        if (st.nopen == 0 && !o->allow_root) {
            if (o->max_open == 0) break;
            scope_begin_act(g, &st, PTO_SCOPE_AUTO);
            continue;
        }
        int w = (int)rnd(s, 100);
        int op = w < 15 ? OP_FILL : w < 40 ? OP_AXPY : w < 55 ? OP_SUM : w < 70 ? OP_SCALE
               : w < 93 ? OP_PRODUCE : OP_DUMMY;
        if (o->allow_alloc && rnd(s, 8) == 0 && g->ntasks + 4 <= target) op = OP_ALLOC; /* up to 4 tasks */
        int extra = (op == OP_PRODUCE || op == OP_ALLOC) && rnd(s, 3) == 0; /* one more task on the created buffer */
        int k = op == OP_PRODUCE ? 2 + extra : op == OP_ALLOC ? 3 + extra : 1;
        if (!feasible(&st, o, k)) {
            /* end the scope, or go one deeper (another ring may have room) */
            if (st.nopen > 0 && (st.nopen == o->max_open || rnd(s, 2))) {
                scope_end_act(g, &st);
                continue;
            }
            if (st.nopen < o->max_open) {
                scope_begin_act(g, &st, st.nmanual ? PTO_SCOPE_MANUAL : PTO_SCOPE_AUTO);
                continue;
            }
            break;
        }
        gtask t = new_task(op, base_splitmix64(s) | 1);
        t.sc[2] = base_splitmix64(s);
        int b0 = (int)rnd(s, (uint64_t)o->nb), b1 = (int)rnd(s, (uint64_t)o->nb);
        switch (op) {
        case OP_FILL:
            t.nargs = 1;
            t.a[0] = rand_view(s, o, b0, PTO_ARG_OUTPUT_EXISTING);
            break;
        case OP_AXPY:
            t.nargs = 2;
            t.a[0] = rand_view(s, o, b0, PTO_ARG_INOUT);
            t.a[1] = rand_view(s, o, b1, PTO_ARG_IN);
            break;
        case OP_SUM:
            t.nargs = 2;
            t.a[0] = rand_view(s, o, b0, PTO_ARG_IN);
            t.a[1] = rand_view(s, o, b1, PTO_ARG_OUTPUT_EXISTING);
            break;
        case OP_SCALE:
            t.nargs = 1;
            t.a[0] = rand_view(s, o, b0, PTO_ARG_INOUT);
            break;
        case OP_DUMMY:
            t.nargs = 1;
            t.a[0] = rand_view(s, o, b0, rnd(s, 2) ? PTO_ARG_INOUT : PTO_ARG_IN);
            break;
        case OP_ALLOC: {
            /* the alloc, a fill of the whole buffer, maybe a rescale of it, a consumer */
            int tmp;
            vspec tv = new_temp(g, o, s, &tmp);
            t.temp = tmp;
            int alloc_task = g->ntasks;
            add_task(g, &st, &t, s);
            gtask f = new_task(OP_FILL, base_splitmix64(s));
            f.sc[2] = base_splitmix64(s);
            f.nargs = 1;
            f.a[0] = tv;
            f.a[0].tag = PTO_ARG_OUTPUT_EXISTING;
            add_task(g, &st, &f, s);
            if (rnd(s, 2)) { /* the buffer's owner as an explicit dependency too */
                g->deps[g->ndeps] = alloc_task;
                g->kinds[g->ndeps++] = rnd(s, 2) ? PTO_DEP_WAIT_RETAIN : PTO_DEP_WAIT;
                g->t[g->ntasks - 1].ndeps++;
            }
            if (extra) {
                gtask sc = new_task(OP_SCALE, base_splitmix64(s) | 1);
                sc.sc[2] = base_splitmix64(s);
                sc.nargs = 1;
                sc.a[0] = tv;
                sc.a[0].tag = PTO_ARG_INOUT;
                add_task(g, &st, &sc, s);
            }
            gtask c = temp_reader(OP_CONSUME, tv, base_splitmix64(s));
            c.a[1] = rand_view(s, o, b1, PTO_ARG_INOUT);
            add_task(g, &st, &c, s);
            continue;
        }
        case OP_PRODUCE: {
            int tmp;
            vspec tv = new_temp(g, o, s, &tmp);
            t.nargs = 2;
            t.temp = tmp;
            t.a[0] = rand_view(s, o, b0, PTO_ARG_IN);
            t.a[1] = tv;
            t.a[1].tag = PTO_ARG_OUT;
            add_task(g, &st, &t, s);
            /* its consumer, in the same scope */
            gtask c = temp_reader(OP_CONSUME, tv, base_splitmix64(s));
            c.a[1] = rand_view(s, o, b1, PTO_ARG_INOUT);
            add_task(g, &st, &c, s);
            if (extra) {
                gtask e = temp_reader(OP_SUM, tv, base_splitmix64(s));
                e.a[1] = rand_view(s, o, (int)rnd(s, (uint64_t)o->nb), PTO_ARG_OUTPUT_EXISTING);
                add_task(g, &st, &e, s);
            }
            continue;
        }
        }
        if (o->sweeps) sweep_args(s, o, &st, &t);
        add_task(g, &st, &t, s);
    }
    while (st.nopen > 0) scope_end_act(g, &st);
}

/* A random configuration: default rings, or tiny ones sized so the
 * generator's graphs can never hit a capacity error (see feasible()). */
static inline void rand_ring_config(uint64_t *s, pto_config *c)
{
    *c = cfg_rings(0, 0, 0, 1 + (int)rnd(s, 3), 10000);
    if (rnd(s, 5) < 2) return;
    static const uint64_t ws[3] = {4, 8, 16};
    uint64_t sum = 0;
    for (int r = 0; r < 4; r++) {
        c->runtime_env.ring_task_window[r] = ws[rnd(s, 3)];
        sum += c->runtime_env.ring_task_window[r] - 1;
    }
    for (int r = 0; r < 4; r++) {
        uint64_t w = c->runtime_env.ring_task_window[r];
        uint64_t h = base_next_pow2(2048 * w);
        c->runtime_env.ring_heap[r] = (h < 8192 ? 8192 : h) << rnd(s, 2);
        /* every live consumer may wait on every other live task */
        uint64_t d = 8 + rnd(s, 57), need = (w - 1) * sum;
        c->runtime_env.ring_dep_pool[r] = d > need ? d : need;
    }
}

/* ---- running a graph --------------------------------------------------- */

static inline pto_view make_view(const vspec *v, void *addr)
{
    pto_view pv;
    memset(&pv, 0, sizeof pv);
    pv.addr = addr;
    pv.elem_size = sizeof(uint64_t);
    pv.ndims = v->ndims;
    for (uint32_t d = 0; d < v->ndims; d++) {
        pv.shape[d] = v->shape[d];
        pv.strides[d] = v->strides[d];
    }
    pv.offset = v->offset;
    pv.owner = PTO_INVALID_TASK_ID;
    return pv;
}

/* The reference: every kernel in submit order, on bufs. */
static inline void run_serial(const graph *g, uint64_t **bufs)
{
    uint64_t *temps[MAXT];
    for (int i = 0; i < g->ntemps; i++) {
        temps[i] = calloc(g->temp_len[i], sizeof(uint64_t));
        assert_non_null(temps[i]);
    }
    for (int i = 0; i < g->ntasks; i++) {
        const gtask *t = &g->t[i];
        if (t->op == OP_DUMMY || t->op == OP_ALLOC) continue;
        pto_view views[2];
        for (int j = 0; j < t->nargs; j++) {
            const vspec *v = &t->a[j];
            views[j] = make_view(v, v->res >= MAXB ? (void *)temps[v->res - MAXB] : (void *)bufs[v->res]);
        }
        pto_kernel_args ka;
        memset(&ka, 0, sizeof ka);
        ka.num_views = (uint32_t)t->nargs;
        ka.views = views;
        ka.num_scalars = 3;
        ka.scalars = t->sc;
        assert_int_equal(k_op(&ka), 0);
    }
    for (int i = 0; i < g->ntemps; i++) free(temps[i]);
}

static char g_ctx[256]; /* printed on failure: which graph, seed, config */

static inline void fail_rt(pto_runtime *rt, const char *what, int rc)
{
    print_error("%s\n%s failed: %d\n%s\n", g_ctx, what, rc, pto_runtime_error(rt)->message);
    fail();
}

/* Set: run_graph submits every task with no PTO_ARG_OUT argument through the
 * executor's trusted submit (runtime/trusted.h: every view here is valid),
 * the rest through pto_task_submit. */
static int rg_trusted;

/* Submits g's actions to rt (pto_runtime_finish is the caller's). */
static inline void run_graph(pto_runtime *rt, const graph *g, uint64_t **bufs)
{
    static pto_task_id ids[MAXT];
    static pto_view temp_view[MAXT];
    static pto_dep deps[MAXT];
    for (int a = 0; a < g->nact; a++) {
        const action *ac = &g->act[a];
        int rc;
        if (ac->kind == ACT_BEGIN) {
            rc = pto_scope_begin(rt, (pto_scope_mode)ac->arg, "random", a);
            if (rc != 0) fail_rt(rt, "pto_scope_begin", rc);
            continue;
        }
        if (ac->kind == ACT_END) {
            rc = pto_scope_end(rt);
            if (rc != 0) fail_rt(rt, "pto_scope_end", rc);
            continue;
        }
        const gtask *t = &g->t[ac->arg];
        if (t->op == OP_ALLOC) {
            void *addr = NULL;
            rc = pto_tensor_alloc(rt, g->temp_len[t->temp] * sizeof(uint64_t), &addr, &ids[ac->arg]);
            if (rc != 0) fail_rt(rt, "pto_tensor_alloc", rc);
            temp_view[t->temp] = pto_view_1d(addr, sizeof(uint64_t), 0, g->temp_len[t->temp], ids[ac->arg]);
            continue;
        }
        pto_arg args[2];
        memset(args, 0, sizeof args);
        int has_out = 0;
        for (int j = 0; j < t->nargs; j++) {
            has_out |= t->a[j].tag == PTO_ARG_OUT;
            const vspec *v = &t->a[j];
            if (v->res < MAXB)
                args[j] = arg(v->tag, make_view(v, bufs[v->res]));
            else if (v->tag == PTO_ARG_OUT)
                args[j] = out_arg(v->shape[0]);
            else
                args[j] = arg(v->tag, temp_view[v->res - MAXB]);
        }
        for (int d = 0; d < t->ndeps; d++) {
            deps[d].id = ids[g->deps[t->dep0 + d]];
            deps[d].kind = g->kinds[t->dep0 + d];
        }
        pto_task task = {t->op == OP_DUMMY ? NULL : k_op, NULL, "op", args, (uint32_t)t->nargs,
                         t->sc, t->sc[3] ? 4 : 3, deps, (uint32_t)t->ndeps, 0};
        rc = rg_trusted && !has_out ? rt_task_submit_trusted(rt, &task, NULL, &ids[ac->arg])
                                    : pto_task_submit(rt, &task, &ids[ac->arg]);
        if (rc != 0) fail_rt(rt, "pto_task_submit", rc);
        if (t->temp >= 0) {
            const pto_view *ov = &args[1].view;
            if (!(ov->addr && ov->owner == ids[ac->arg] && ov->offset == 0 && ov->strides[0] == 1 &&
                  ov->ndims == 1 && ov->shape[0] == t->a[1].shape[0])) {
                print_error("%s\nOUT view not filled in: addr %p owner %llu offset %lld stride %lld\n",
                            g_ctx, ov->addr, (unsigned long long)ov->owner, (long long)ov->offset,
                            (long long)ov->strides[0]);
                fail();
            }
            temp_view[t->temp] = *ov;
        }
    }
}

#endif
