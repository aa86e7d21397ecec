/*
 * pass_comm_domains.c - InferCommDomains (passes.h 3b; DISTRIBUTED-SPEC
 * §1.2 "device of a DT-passing dispatch", §1.5 "comm domain"), for the
 * host function of a host program.
 *
 * Each window buffer's rank set is the union, over the dispatches that
 * pass a view of it, of [0, N) for a dispatch at `device=r` inside
 * `for r in pl.range(N)` (N a constant or pld.world_size()) and {k} for a
 * constant `device=k`.  The result lands in the buffer's ALLOC_WINDOW
 * node (ops.h: domain_n, the largest constant N or the pld.world_size()
 * node, which covers every other N at run time; domain_ranks, a LIST of the
 * constant ranks); such a dispatch is marked comm.  Errors: the device
 * forms (compat texts), a buffer never viewed (dead) or never passed to a
 * dispatch, a collective's windows not distinct buffers of one domain.
 *
 * Invariants: only ALLOC_WINDOW's domain slots and CALL's comm flag change;
 * the first error stops the pass (-1).
 */
#include "compiler/ir_walk.h"
#include "compiler/passes.h"
#include "compiler/printer.h"

#include <stdlib.h>
#include <string.h>

#define CD_MAX_BUFS 64
#define CD_MAX_RANKS 8
#define CD_MAX_VIEWS 256
#define CD_MAX_LOOPS 32
#define CD_MAX_COLLS 64

typedef struct cd_buf {
    const char *name;
    cc_ir_expr *alloc;
    int64_t n;          /* the largest constant N (-1: none) */
    cc_ir_expr *world;  /* a pld.world_size() N (NULL: none) */
    int64_t ranks[CD_MAX_RANKS];
    uint32_t nranks;
    uint8_t viewed, consumed;
} cd_buf;

typedef struct cd_ctx {
    cc_ir_program *p;
    cd_buf bufs[CD_MAX_BUFS];
    uint32_t nbufs;
    struct { const char *name; uint32_t buf; } views[CD_MAX_VIEWS];
    uint32_t nviews;
    const cc_ir_stmt *loops[CD_MAX_LOOPS];
    uint32_t nloops;
    const cc_ir_expr *colls[CD_MAX_COLLS];
    uint32_t ncolls;
    int failed;
} cd_ctx;

static int cd_err(cd_ctx *c, cc_span sp, const char *fmt, const char *arg, long long v)
{
    if (!c->failed) cc_diag_add(c->p->diags, CC_DIAG_PASS, sp, NULL, fmt, arg ? arg : "", v);
    c->failed = 1;
    return -1;
}

static int cd_buf_of_name(const cd_ctx *c, const char *name)
{
    for (uint32_t k = 0; k < c->nbufs; k++)
        if (!strcmp(c->bufs[k].name, name)) return (int)k;
    return -1;
}

/* The buffer a DistributedTensor value views, or -1. */
static int cd_buf_of(const cd_ctx *c, const cc_ir_expr *v)
{
    if (v->kind == CC_X_OP && v->u.op.op == CC_IR_WINDOW) return cd_buf_of_name(c, v->u.op.args[0]->u.name);
    if (v->kind != CC_X_VAR) return -1;
    for (uint32_t k = c->nviews; k-- > 0;)
        if (!strcmp(c->views[k].name, v->u.name)) return (int)c->views[k].buf;
    return -1;
}

/* The rank loop whose variable device names, or NULL. */
static const cc_ir_stmt *cd_loop_of(const cd_ctx *c, const cc_ir_expr *device)
{
    for (uint32_t k = c->nloops; device->kind == CC_X_VAR && k-- > 0;)
        if (!strcmp(c->loops[k]->u.for_.var, device->u.name)) return c->loops[k];
    return NULL;
}

static const char *cd_text(cd_ctx *c, const cc_ir_expr *e)
{
    base_strbuf b = {0};
    cc_print_expr(e, 0, &b);
    const char *s = b.oom ? NULL : base_arena_strndup(c->p->arena, base_strbuf_str(&b), strlen(base_strbuf_str(&b)));
    base_strbuf_free(&b);
    return s ? s : "?";
}

/* A dispatch: the buffers its window views name join the ranks its device gives. */
static int cd_dispatch(cd_ctx *c, cc_ir_expr *call)
{
    int used[CD_MAX_BUFS] = {0}, any = 0;
    for (uint32_t k = 0; k < call->u.call.nargs; k++) {
        const cc_ir_expr *a = call->u.call.args[k];
        if (a->type.kind != CC_T_TENSOR || a->type.window != CC_WIN_DT) continue;
        int b = cd_buf_of(c, a);
        if (b >= 0) used[b] = any = 1;
    }
    if (!any || !call->u.call.device) return 0;
    call->u.call.comm = 1;
    const cc_ir_expr *dev = call->u.call.device;
    const cc_ir_stmt *loop = cd_loop_of(c, dev);
    int64_t k = -1, start, step, stop = -1;
    cc_ir_expr *world = NULL;
    if (loop) {
        if (!cc_ir_const_int(loop->u.for_.step, &step) || step != 1)
            return cd_err(c, loop->span, "MaterializeCommDomainScopes: non-unit-step loop is not supported (step=%s)", cd_text(c, loop->u.for_.step), 0);
        const cc_ir_expr *e = loop->u.for_.stop;
        if (e->kind == CC_X_OP && e->u.op.op == CC_IR_WORLD_SIZE) world = (cc_ir_expr *)e;
        if (!cc_ir_const_int(loop->u.for_.start, &start) || start != 0 || (!world && (!cc_ir_const_int(e, &stop) || stop < 0)))
            return cd_err(c, loop->span, "%sMaterializeCommDomainScopes: device=r loop range must be [0, N) with N>=0", NULL, 0);
    } else if (!cc_ir_const_int(dev, &k) || k < 0) {
        return cd_err(c, dev->span, "device= of a dispatch that passes windows must be a rank-loop variable or a constant, got %s", cd_text(c, dev), 0);
    }
    for (uint32_t b = 0; b < c->nbufs; b++) {
        cd_buf *f = &c->bufs[b];
        if (!used[b]) continue;
        f->consumed = 1;
        if (world) f->world = world;
        if (stop > f->n) f->n = stop;
        uint32_t j = 0;
        while (k >= 0 && j < f->nranks && f->ranks[j] != k) j++;
        if (k >= 0 && j == f->nranks) {
            if (f->nranks == CD_MAX_RANKS)
                return cd_err(c, dev->span, "%sa window buffer is passed to dispatches on more than %lld constant devices", NULL, CD_MAX_RANKS);
            f->ranks[f->nranks++] = k;
        }
    }
    return 0;
}

static int cd_expr(cc_ir_expr *e, void *ctx)
{
    cd_ctx *c = ctx;
    if (e->kind == CC_X_CALL && e->u.call.callee && e->u.call.callee->kind != CC_FUNC_INCORE) return cd_dispatch(c, e);
    if (e->kind == CC_X_OP && e->u.op.op == CC_IR_WINDOW) {
        int b = cd_buf_of_name(c, e->u.op.args[0]->u.name);
        if (b >= 0) c->bufs[b].viewed = 1;
    }
    if (e->kind == CC_X_OP && (e->u.op.op == CC_IR_ALLGATHER || e->u.op.op == CC_IR_ALL_TO_ALL || e->u.op.op == CC_IR_REDUCE_SCATTER ||
                               e->u.op.op == CC_IR_BROADCAST || e->u.op.op == CC_IR_ALLREDUCE) && c->ncolls < CD_MAX_COLLS)
        c->colls[c->ncolls++] = e;
    return 0;
}

static void cd_block(cd_ctx *c, cc_ir_block *b);

static void cd_stmt(cd_ctx *c, cc_ir_stmt *s)
{
    if (s->kind == CC_I_ASSIGN && s->u.assign.ntargets == 1) {
        const cc_ir_expr *v = s->u.assign.value;
        if (v->kind == CC_X_OP && v->u.op.op == CC_IR_ALLOC_WINDOW && c->nbufs < CD_MAX_BUFS)
            c->bufs[c->nbufs++] = (cd_buf){.name = s->u.assign.targets[0].name, .alloc = (cc_ir_expr *)v, .n = -1};
    }
    if (cc_ir_stmt_walk_exprs(s, cd_expr, c)) return; /* any depth: a view written inline as a dispatch argument */
    if (s->kind == CC_I_ASSIGN && s->u.assign.ntargets == 1 && s->u.assign.targets[0].type.window == CC_WIN_DT && c->nviews < CD_MAX_VIEWS) {
        int b = cd_buf_of(c, s->u.assign.value);
        if (b >= 0) c->views[c->nviews].name = s->u.assign.targets[0].name, c->views[c->nviews++].buf = (uint32_t)b;
    }
    int loop = s->kind == CC_I_FOR && c->nloops < CD_MAX_LOOPS;
    if (loop) c->loops[c->nloops++] = s;
    cc_ir_block *kids[CC_IR_MAX_BLOCKS];
    for (uint32_t k = 0, n = cc_ir_stmt_blocks(s, kids); k < n && !c->failed; k++) cd_block(c, kids[k]);
    if (loop) c->nloops--;
}

static void cd_block(cd_ctx *c, cc_ir_block *b)
{
    for (uint32_t k = 0; k < b->n && !c->failed; k++) cd_stmt(c, b->items[k]);
}

/* Do buffers a and b have one rank set? */
static int cd_same_domain(const cd_buf *a, const cd_buf *b)
{
    if ((a->world != NULL) != (b->world != NULL) || a->n != b->n || a->nranks != b->nranks) return 0;
    for (uint32_t k = 0; k < a->nranks; k++) {
        uint32_t j = 0;
        while (j < b->nranks && b->ranks[j] != a->ranks[k]) j++;
        if (j == b->nranks) return 0;
    }
    return 1;
}

/* A collective's windows: distinct buffers of one domain. */
static int cd_collective(cd_ctx *c, const cc_ir_expr *e)
{
    int bs[3], n = 0;
    for (uint32_t k = 0; k < cc_ir_op_nslots((cc_ir_op)e->u.op.op); k++) {
        const cc_ir_expr *a = e->u.op.args[k];
        if (a && a->type.kind == CC_T_TENSOR && a->type.window == CC_WIN_DT) bs[n++] = cd_buf_of(c, a);
    }
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (bs[i] < 0 || bs[j] < 0 || bs[i] == bs[j] || !cd_same_domain(&c->bufs[bs[i]], &c->bufs[bs[j]]))
                return cd_err(c, e->span, "%s windows must be distinct buffers of one comm domain", cc_ir_op_name((cc_ir_op)e->u.op.op), 0);
    return 0;
}

/* The domain into the buffer's ALLOC_WINDOW node. */
static int cd_fill(cd_ctx *c, cd_buf *b)
{
    base_arena *a = c->p->arena;
    cc_ir_expr **args = b->alloc->u.op.args;
    if (b->world) args[1] = b->world;
    else if (b->n >= 0 && !(args[1] = cc_ir_int(a, b->n, b->alloc->span))) return -1;
    if (!b->nranks) return 0;
    cc_ir_expr *l = cc_ir_expr_new(a, CC_X_LIST, b->alloc->span);
    if (!l || !(l->u.list.items = base_arena_alloc(a, b->nranks * sizeof *l->u.list.items))) return -1;
    l->type = (cc_type){.kind = CC_T_LIST}, l->u.list.n = b->nranks;
    for (uint32_t k = 0; k < b->nranks; k++)
        if (!(l->u.list.items[k] = cc_ir_int(a, b->ranks[k], b->alloc->span))) return -1;
    args[2] = l;
    return 0;
}

int cc_pass_comm_domains(cc_ir_program *p)
{
    cd_ctx *c = calloc(1, sizeof *c);
    if (!c) return cc_diag_oom(p->diags, (cc_span){0}, "out of memory while inferring comm domains"), -1;
    c->p = p;
    cc_ir_func *f = p->funcs[0];
    cd_block(c, &f->body);
    for (uint32_t k = 0; k < c->nbufs && !c->failed; k++) {
        cd_buf *b = &c->bufs[k];
        if (!b->viewed)
            cd_err(c, b->alloc->span, "pld.tensor.alloc_window_buffer '%s' has no pld.tensor.window materialisation (dead allocation)", b->name, 0);
        else if (!b->consumed)
            cd_err(c, b->alloc->span, "pld.tensor.alloc_window_buffer '%s' is not consumed by any chip_orch dispatch", b->name, 0);
        else if (cd_fill(c, b))
            c->failed = 1, cc_diag_oom(p->diags, b->alloc->span, "out of memory while inferring comm domains");
    }
    for (uint32_t k = 0; k < c->ncolls && !c->failed; k++) cd_collective(c, c->colls[k]);
    int rc = c->failed ? -1 : 0;
    free(c);
    return rc;
}
