/*
 * pass_outline_incore.c - OutlineIncoreScopes (docs/compiler.md, "Outlining";
 * rows 1-2).
 *
 * After the pass:
 *  - no pl.at(CORE_GROUP) remains in control-plane code; each became an
 *    InCore function (outlined = 1, span of the pl.at) placed after the
 *    kernels already made for its function, and one call carrying the
 *    pl.at's span: EXPR(call), or a submit (deps= or `as`) whose TaskId is
 *    assigned to the `as` name;
 *  - kernel parameters are the captured tensors, then the crossings (T-x,
 *    DSL-V2-SPEC §1.6: names the body binds to tensor-level values only and
 *    code after it reads; each an Out parameter `<n>_out` stored whole at the
 *    kernel's end, allocated `<n> = pl.create_tensor(...)` before the call),
 *    then the captured scalars, each in order of first use (crossings: of
 *    first binding); a name is captured where the body reads it while the
 *    body has not definitely assigned it yet;
 *  - tensor parameters carry the usage direction (declared = 0); the
 *    pl.at's cache declarations belong to the kernel;
 *  - every Opaque function called from control-plane code is Orchestration.
 * Errors: a captured TaskId (ParserTypeError), a tile or scalar assigned in the body
 * and read after it, misplaced or conflicting pl.set_cache_policy.  The pass stops at the first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/strmap.h"
#include "compiler/ir_walk.h"
#include "compiler/passes.h"

/* ---- a growing list of pointers (scratch, on the heap) ------------------------------- */

typedef struct vec {
    const void **v;
    uint32_t n;
    uint64_t cap;
} vec;

static int vec_push(vec *x, const void *item)
{
    if (x->n == x->cap) {
        const void **g = base_array_grow(x->v, &x->cap, sizeof *x->v, 8);
        if (!g) return -1;
        x->v = g;
    }
    x->v[x->n++] = item;
    return 0;
}

static int names_has(const vec *x, const char *name)
{
    for (uint32_t k = 0; k < x->n; k++)
        if (!strcmp(x->v[k], name)) return 1;
    return 0;
}

/* ---- capture: what the body reads before assigning it ---------------------------------- */

typedef struct capture {
    vec defined;              /* names definitely assigned so far (may repeat) */
    vec tensors, scalars;     /* first-use VAR nodes */
    vec others;               /* captured TaskIds and non-scalar values (errors) */
    const cc_ir_expr *bad;    /* the first of others */
} capture;

static int cap_var(cc_ir_expr *e, void *ctx)
{
    capture *c = ctx;
    if (e->kind != CC_X_VAR || names_has(&c->defined, e->u.name)) return 0;
    vec *into = e->type.kind == CC_T_TENSOR ? &c->tensors : &c->scalars;
    for (uint32_t k = 0; k < into->n; k++)
        if (!strcmp(((const cc_ir_expr *)into->v[k])->u.name, e->u.name)) return 0;
    if (e->type.kind != CC_T_TENSOR && (e->type.kind != CC_T_SCALAR || e->type.dtype == CC_DT_TASK_ID)) {
        if (!c->bad) c->bad = e;
        return vec_push(&c->others, e);
    }
    return vec_push(into, e);
}

static int cap_block(capture *c, const cc_ir_block *b);

/* Exactly one of the blocks runs: after it, only the names every one of
 * them assigned are definitely assigned. */
static int cap_branches(capture *c, cc_ir_block *const *kids, uint32_t n)
{
    uint32_t n0 = c->defined.n;
    vec common = {0}, next = {0};
    int rc = 0;
    for (uint32_t b = 0; b < n && !rc; b++) {
        rc = cap_block(c, kids[b]);
        next.n = 0;
        for (uint32_t k = n0; k < c->defined.n && !rc; k++)
            if (!b || names_has(&common, c->defined.v[k])) rc = vec_push(&next, c->defined.v[k]);
        vec t = common;
        common = next, next = t;
        c->defined.n = n0;
    }
    for (uint32_t k = 0; k < common.n && !rc; k++) rc = vec_push(&c->defined, common.v[k]);
    free(common.v), free(next.v);
    return rc;
}

static int cap_stmt(capture *c, const cc_ir_stmt *s)
{
    uint32_t n0 = c->defined.n;
    int rc = cc_ir_stmt_walk_exprs(s, cap_var, c);
    for (uint32_t k = 0; s->kind == CC_I_ASSIGN && k < s->u.assign.ntargets && !rc; k++)
        rc = vec_push(&c->defined, s->u.assign.targets[k].name);
    if (!rc && s->kind == CC_I_FOR) rc = vec_push(&c->defined, s->u.for_.var);
    cc_ir_block *kids[CC_IR_MAX_BLOCKS];
    uint32_t n = cc_ir_stmt_blocks(s, kids);
    cc_ir_flow flow = cc_ir_stmt_flow(s);
    if (flow == CC_IR_FLOW_BRANCH) return rc || cap_branches(c, kids, n);
    for (uint32_t b = 0; b < n && !rc; b++) rc = cap_block(c, kids[b]);
    if (flow == CC_IR_FLOW_LOOP) c->defined.n = n0; /* a loop may run zero times; its variable ends with it */
    return rc;
}

static int cap_block(capture *c, const cc_ir_block *b)
{
    for (uint32_t i = 0; i < b->n; i++)
        if (cap_stmt(c, b->items[i])) return -1;
    return 0;
}

/* ---- usage directions ----------------------------------------------------------------------- */

typedef struct usage {
    const char *name;
    uint8_t dir; /* cc_dir bits */
} usage;

static int usage_op(cc_ir_expr *e, void *ctx)
{
    usage *u = ctx;
    cc_dir dir;
    const cc_ir_expr *t = cc_ir_tensor_access(e, &dir);
    if (t && t->kind == CC_X_VAR && !strcmp(t->u.name, u->name)) u->dir |= dir;
    return 0;
}

/* The usage rule: loads -> In, stores -> Out, both -> InOut; neither -> In. */
static cc_dir usage_dir(const cc_ir_block *body, const char *name)
{
    usage u = {name, CC_DIR_NONE};
    cc_ir_block_walk_exprs(body, usage_op, &u);
    return u.dir ? (cc_dir)u.dir : CC_DIR_IN;
}

/* ---- live after the pl.at ------------------------------------------------------------------ */

/* Where the walk stands: statement i of block b, owned by owner (NULL: the function body). */
typedef struct frame {
    const cc_ir_block *b;
    uint32_t i;
    const cc_ir_stmt *owner;
    const struct frame *up;
} frame;

/* The first statement that may read n after the statement fr stands at,
 * following the function's control flow outward (loop back-edges too). */
static const cc_ir_stmt *read_after(const frame *fr, const char *n)
{
    cc_ir_reader at;
    for (; fr; fr = fr->up) {
        cc_ir_reach r = cc_ir_scan_reads(fr->b, fr->i + 1, fr->b->n, n, &at);
        if (r == CC_IR_REACH_READ) return at.stmt;
        if (r == CC_IR_REACH_KILLED) return NULL;
        const cc_ir_stmt *loop = fr->owner;
        if (!loop || (loop->kind != CC_I_FOR && loop->kind != CC_I_WHILE)) continue;
        if (loop->kind == CC_I_WHILE && cc_ir_expr_uses(loop->u.while_.cond, n)) return loop;
        if (cc_ir_scan_reads(fr->b, 0, fr->i + 1, n, &at) == CC_IR_REACH_READ) return at.stmt;
    }
    return NULL;
}

/* ---- names the body assigns --------------------------------------------------------------- */

static int add_targets(cc_ir_stmt *s, void *ctx)
{
    vec *names = ctx;
    for (uint32_t k = 0; s->kind == CC_I_ASSIGN && k < s->u.assign.ntargets; k++)
        if (!names_has(names, s->u.assign.targets[k].name) && vec_push(names, s->u.assign.targets[k].name)) return -1;
    return 0;
}

/* Fails (returns 1) at an assignment of the name ctx that is not `x = pl.store(..., x)` or `x = pl.write(x, ...)`. */
static int not_self_store(cc_ir_stmt *s, void *ctx)
{
    const char *n = ctx;
    if (s->kind != CC_I_ASSIGN) return 0;
    for (uint32_t k = 0; k < s->u.assign.ntargets; k++) {
        if (strcmp(s->u.assign.targets[k].name, n)) continue;
        const cc_ir_expr *v = s->u.assign.value;
        cc_dir dir;
        const cc_ir_expr *t = cc_ir_tensor_access(v, &dir);
        if (s->u.assign.ntargets != 1 || !t || !(dir & CC_DIR_OUT) || t->kind != CC_X_VAR || strcmp(t->u.name, n)) return 1;
    }
    return 0;
}

/* Fails (returns 1) at an assignment of the name ctx to anything but a
 * tensor-level value (a tile computed from Tensor operands only). */
static int not_tensor_level(cc_ir_stmt *s, void *ctx)
{
    const char *n = ctx;
    for (uint32_t k = 0; s->kind == CC_I_ASSIGN && k < s->u.assign.ntargets; k++) {
        const cc_type *ty = &s->u.assign.targets[k].type;
        if (!strcmp(s->u.assign.targets[k].name, n) && (ty->kind != CC_T_TILE || !ty->from_tensors)) return 1;
    }
    return 0;
}

/* ---- one pl.at ------------------------------------------------------------------------------- */

typedef struct outliner {
    cc_ir_program *p;
    cc_ir_func *f;
    uint32_t k;         /* CORE_GROUP pl.ats of f so far */
    uint32_t insert_at; /* where f's next kernel goes in p->funcs */
    base_strmap readers; /* names f may read outside a kernel body: only these can be live after one */
    base_strmap *names;  /* every function's name (kernel names avoid them) */
} outliner;

static int put_name(base_strmap *r, const cc_ir_expr *var) { return base_strmap_put(r, var->u.name, 1) != 0 ? -1 : 0; }

static int put_reader(cc_ir_expr *e, void *ctx) { return e->kind == CC_X_VAR ? put_name(ctx, e) : 0; }

/* The readers of b: names read by control-plane code, and names a
 * CORE_GROUP body captures (reads before assigning).  A name outside this
 * set cannot be read after the body that assigns it, so the live-after scan
 * skips it: the check costs what the program's reads cost, once. */
static int collect_readers(base_strmap *r, const cc_ir_block *b)
{
    for (uint32_t i = 0; i < b->n; i++) {
        const cc_ir_stmt *s = b->items[i];
        cc_ir_block *kids[CC_IR_MAX_BLOCKS];
        int rc = cc_ir_stmt_walk_exprs(s, put_reader, r);
        if (!rc && s->kind == CC_I_AT && s->u.at.level == CC_LEVEL_CORE_GROUP) {
            capture c = {0};
            rc = cap_block(&c, &s->u.at.body);
            for (uint32_t k = 0; k < c.tensors.n && !rc; k++) rc = put_name(r, c.tensors.v[k]);
            for (uint32_t k = 0; k < c.scalars.n && !rc; k++) rc = put_name(r, c.scalars.v[k]);
            for (uint32_t k = 0; k < c.others.n && !rc; k++) rc = put_name(r, c.others.v[k]);
            free(c.defined.v), free(c.tensors.v), free(c.scalars.v), free(c.others.v);
        } else {
            for (uint32_t c = 0, n = cc_ir_stmt_blocks(s, kids); c < n && !rc; c++) rc = collect_readers(r, kids[c]);
        }
        if (rc) return -1;
    }
    return 0;
}

static int oom(cc_ir_program *p, cc_span sp)
{
    cc_diag_oom(p->diags, sp, "out of memory while outlining");
    return -1;
}

/* The live-after rule: a name assigned in the body (other than a captured tensor
 * rebound to itself by pl.store or pl.write) and read after the pl.at is an
 * error, unless the body binds it to tensor-level values only: then it
 * crosses (T-x, DSL-V2-SPEC §1.6) and joins *cross, in order of first binding. */
static int check_live_after(outliner *o, const frame *fr, const capture *c, vec *cross)
{
    cc_ir_program *p = o->p;
    const cc_ir_block *body = &fr->b->items[fr->i]->u.at.body;
    vec assigned = {0};
    int rc = cc_ir_block_each_stmt(body, add_targets, &assigned) ? oom(p, fr->b->items[fr->i]->span) : 0;
    for (uint32_t k = 0; k < assigned.n && !rc; k++) {
        const char *n = assigned.v[k];
        if (base_strmap_get(&o->readers, n) < 0) continue;
        int tensor = 0;
        for (uint32_t t = 0; t < c->tensors.n; t++) tensor |= !strcmp(((const cc_ir_expr *)c->tensors.v[t])->u.name, n);
        if (tensor && !cc_ir_block_each_stmt(body, not_self_store, (void *)n)) continue;
        const cc_ir_stmt *reader = read_after(fr, n);
        if (!reader) continue;
        if (!tensor && !cc_ir_block_each_stmt(body, not_tensor_level, (void *)n)) {
            if (vec_push(cross, n)) rc = oom(p, fr->b->items[fr->i]->span);
            continue;
        }
        cc_diag_add(p->diags, CC_DIAG_PASS, reader->span, NULL,
                    "'%s' is assigned inside a pl.at(level=pl.Level.CORE_GROUP) body and read after it; "
                    "a kernel hands back only the tensors it stores to", n);
        rc = -1;
    }
    free(assigned.v);
    return rc;
}

/* pl.set_cache_policy's pass errors against the kernel's tensor parameters. */
static int check_cache_decls(cc_ir_program *p, const cc_ir_stmt *at, const cc_ir_func *k)
{
    for (uint32_t d = 0; d < at->u.at.ndecls; d++) {
        const cc_ir_cache_decl *decl = &at->u.at.decls[d];
        int i = cc_ir_func_param(k, decl->tensor);
        if (i < 0 || k->params[i].type.kind != CC_T_TENSOR) {
            cc_diag_add(p->diags, CC_DIAG_PASS, decl->span, NULL,
                        "pl.set_cache_policy(...) references tensor '%s', which is not captured by the scope body",
                        decl->tensor);
            return -1;
        }
        if (decl->policy == CC_CACHE_BYPASS && (k->params[i].dir & CC_DIR_OUT)) {
            cc_diag_add(p->diags, CC_DIAG_PASS, decl->span, NULL,
                        "pl.set_cache_policy(%s, CachePolicy.BYPASS) is not allowed on a tensor this scope writes (%s). "
                        "A bypassing read of bytes the same kernel writes is a coherency bug.",
                        decl->tensor, cc_dir_name((cc_dir)k->params[i].dir));
            return -1;
        }
    }
    return 0;
}

/* `<f>_incore_<k>` or the name hint, made unique with `_<n>`. */
static const char *kernel_name(outliner *o, const cc_ir_stmt *at)
{
    const char *hint = at->u.at.name_hint;
    size_t cap = strlen(hint ? hint : o->f->name) + 48;
    char *base = base_arena_alloc(o->p->arena, cap), *name = base_arena_alloc(o->p->arena, cap);
    if (!base || !name) return NULL;
    if (hint) snprintf(base, cap, "%s", hint);
    else snprintf(base, cap, "%s_incore_%u", o->f->name, o->k);
    snprintf(name, cap, "%s", base);
    for (unsigned n = 1; base_strmap_get(o->names, name) >= 0; n++) snprintf(name, cap, "%s_%u", base, n);
    return base_strmap_put(o->names, name, 1) == 0 ? name : NULL;
}

/* A crossing name (T-x): its tensor type, the kernel's Out parameter for it. */
typedef struct crossing {
    const char *name;  /* in the body: the value; after the pl.at: the tensor */
    const char *param; /* the kernel's Out parameter */
    cc_type type;      /* the tensor's */
    cc_span span;      /* the first binding */
} crossing;

typedef struct first_bind {
    const char *name;
    const cc_ir_target *t;
} first_bind;

static int find_first(cc_ir_stmt *s, void *ctx)
{
    first_bind *fb = ctx;
    for (uint32_t k = 0; s->kind == CC_I_ASSIGN && k < s->u.assign.ntargets && !fb->t; k++)
        if (!strcmp(s->u.assign.targets[k].name, fb->name)) fb->t = &s->u.assign.targets[k];
    return fb->t != NULL;
}

static int names_used(cc_ir_stmt *s, void *ctx)
{
    if (s->kind == CC_I_FOR && base_strmap_put(ctx, s->u.for_.var, 1) != 0) return -1;
    for (uint32_t k = 0; s->kind == CC_I_ASSIGN && k < s->u.assign.ntargets; k++)
        if (base_strmap_put(ctx, s->u.assign.targets[k].name, 1) != 0) return -1;
    return 0;
}

/* The crossings of the body: types from the first bindings, parameter names
 * `<n>_out` made unique against the body's names and the captured ones. */
static crossing *make_crossings(outliner *o, const cc_ir_stmt *at, const capture *c, const vec *cross)
{
    base_arena *a = o->p->arena;
    crossing *x = base_arena_alloc(a, (cross->n ? cross->n : 1) * sizeof *x);
    base_strmap used = {0};
    int bad = !x || cc_ir_block_each_stmt(&at->u.at.body, names_used, &used);
    for (uint32_t k = 0; k < c->tensors.n && !bad; k++) bad = base_strmap_put(&used, ((const cc_ir_expr *)c->tensors.v[k])->u.name, 1) != 0;
    for (uint32_t k = 0; k < c->scalars.n && !bad; k++) bad = base_strmap_put(&used, ((const cc_ir_expr *)c->scalars.v[k])->u.name, 1) != 0;
    for (uint32_t k = 0; k < cross->n && !bad; k++) {
        first_bind fb = {cross->v[k], NULL};
        cc_ir_block_each_stmt(&at->u.at.body, find_first, &fb);
        size_t cap = strlen(fb.name) + 24;
        char *pn = base_arena_alloc(a, cap);
        if (!pn) break;
        snprintf(pn, cap, "%s_out", fb.name);
        for (unsigned u = 1; base_strmap_get(&used, pn) >= 0; u++) snprintf(pn, cap, "%s_out_%u", fb.name, u);
        bad = base_strmap_put(&used, pn, 1) != 0;
        x[k] = (crossing){fb.name, pn, fb.t->type, fb.t->span};
        x[k].type.kind = CC_T_TENSOR, x[k].type.partial = 0, x[k].type.mem = 0, x[k].type.from_tensors = 0;
    }
    base_strmap_free(&used);
    return bad ? NULL : x;
}

/* [0, ..., 0] or the shape of ty, as a LIST of constants. */
static cc_ir_expr *const_list(base_arena *a, const cc_type *ty, int shape, cc_span sp)
{
    cc_ir_expr *l = cc_ir_expr_new(a, CC_X_LIST, sp);
    if (!l || !(l->u.list.items = base_arena_alloc(a, ty->rank * sizeof *l->u.list.items))) return NULL;
    l->type = (cc_type){.kind = CC_T_LIST};
    l->u.list.n = ty->rank;
    for (uint32_t d = 0; d < ty->rank; d++)
        if (!(l->u.list.items[d] = cc_ir_int(a, shape ? ty->shape[d] : 0, sp))) return NULL;
    return l;
}

/* The kernel's body: the pl.at's, then `pl.store(<n>, [0, ...], <n>_out)` per crossing. */
static int kernel_body(base_arena *a, const cc_ir_stmt *at, const crossing *x, uint32_t nx, cc_ir_block *out)
{
    const cc_ir_block *b = &at->u.at.body;
    if (!nx) return *out = *b, 0;
    cc_ir_stmt **items = base_arena_alloc(a, (b->n + nx) * sizeof *items);
    if (!items) return -1;
    memcpy(items, b->items, b->n * sizeof *items);
    for (uint32_t k = 0; k < nx; k++) {
        cc_type tile = x[k].type;
        tile.kind = CC_T_TILE, tile.from_tensors = 1;
        cc_ir_expr *st = cc_ir_op_new(a, CC_IR_STORE, at->span);
        cc_ir_stmt *s = cc_ir_stmt_new(a, CC_I_EXPR, at->span);
        if (!st || !s || !(st->u.op.args[0] = cc_ir_var(a, x[k].name, tile, at->span)) ||
            !(st->u.op.args[1] = const_list(a, &x[k].type, 0, at->span)) ||
            !(st->u.op.args[2] = cc_ir_var(a, x[k].param, x[k].type, at->span)))
            return -1;
        st->type = x[k].type;
        s->u.expr = st;
        items[b->n + k] = s;
    }
    out->items = items, out->n = b->n + nx;
    return 0;
}

static cc_ir_func *make_kernel(outliner *o, const cc_ir_stmt *at, const capture *c, const crossing *x, uint32_t nx)
{
    base_arena *a = o->p->arena;
    cc_ir_func *k = base_arena_alloc(a, sizeof *k);
    uint32_t nt = c->tensors.n, np = nt + nx + c->scalars.n;
    if (!k || !(k->name = kernel_name(o, at))) return NULL;
    if (np && !(k->params = base_arena_alloc(a, np * sizeof *k->params))) return NULL;
    k->span = at->span;
    k->kind = CC_FUNC_INCORE;
    k->auto_scope = 1;
    k->level = CC_LEVEL_CORE_GROUP;
    k->outlined = 1;
    k->nparams = np;
    if (kernel_body(a, at, x, nx, &k->body)) return NULL;
    for (uint32_t i = 0; i < np; i++) {
        cc_ir_param *pm = &k->params[i];
        if (i >= nt && i < nt + nx) {
            const crossing *cx = &x[i - nt];
            pm->name = cx->param, pm->type = cx->type, pm->span = cx->span, pm->dir = CC_DIR_OUT;
            continue;
        }
        const cc_ir_expr *v = i < nt ? c->tensors.v[i] : c->scalars.v[i - nt - nx];
        pm->name = v->u.name, pm->type = v->type, pm->span = v->span;
        if (v->type.kind == CC_T_TENSOR) pm->dir = (uint8_t)usage_dir(&at->u.at.body, v->u.name);
    }
    k->decls = at->u.at.decls;
    k->ndecls = at->u.at.ndecls;
    k->opts = at->u.at.opts;
    return k;
}

/* `k(args)`, or a submit with the pl.at's deps, as `tid = ...` under `as tid`;
 * a crossing's argument is the tensor named as its value. */
static cc_ir_stmt *make_call(base_arena *a, const cc_ir_stmt *at, cc_ir_func *k, const crossing *x, uint32_t nx, uint32_t nt)
{
    cc_ir_expr *call = cc_ir_expr_new(a, CC_X_CALL, at->span);
    if (!call || (k->nparams && !(call->u.call.args = base_arena_alloc(a, k->nparams * sizeof *call->u.call.args))))
        return NULL;
    call->u.call.callee = k;
    call->u.call.nargs = k->nparams;
    for (uint32_t i = 0; i < k->nparams; i++) {
        const char *n = i >= nt && i < nt + nx ? x[i - nt].name : k->params[i].name;
        if (!(call->u.call.args[i] = cc_ir_var(a, n, k->params[i].type, at->span))) return NULL;
    }
    const cc_type tid = {.kind = CC_T_SCALAR, .dtype = CC_DT_TASK_ID};
    call->type = (cc_type){.kind = CC_T_VOID};
    if (at->u.at.has_deps || at->u.at.as_name) {
        call->u.call.submit = 1;
        call->u.call.deps = at->u.at.deps;
        call->u.call.ndeps = at->u.at.ndeps;
        call->type = tid;
    }
    cc_ir_stmt *s = cc_ir_stmt_new(a, at->u.at.as_name ? CC_I_ASSIGN : CC_I_EXPR, at->span);
    if (!s) return NULL;
    if (!at->u.at.as_name) return s->u.expr = call, s;
    if (!(s->u.assign.targets = base_arena_alloc(a, sizeof *s->u.assign.targets))) return NULL;
    s->u.assign.targets[0] = (cc_ir_target){at->u.at.as_name, tid, at->span};
    s->u.assign.ntargets = 1;
    s->u.assign.value = call;
    return s;
}

/* `<n> = pl.create_tensor(shape, dtype)` at the pl.at, for a crossing. */
static cc_ir_stmt *make_alloc(base_arena *a, const cc_ir_stmt *at, const crossing *x)
{
    cc_ir_expr *c = cc_ir_op_new(a, CC_IR_CREATE_TENSOR, at->span);
    cc_ir_stmt *s = cc_ir_stmt_new(a, CC_I_ASSIGN, at->span);
    if (!c || !s || !(c->u.op.args[0] = const_list(a, &x->type, 1, at->span)) ||
        !(s->u.assign.targets = base_arena_alloc(a, sizeof *s->u.assign.targets)))
        return NULL;
    c->u.op.dtype = x->type.dtype;
    c->type = x->type;
    s->u.assign.targets[0] = (cc_ir_target){x->name, x->type, at->span};
    s->u.assign.ntargets = 1;
    s->u.assign.value = c;
    return s;
}

/* Replaces the statement fr stands at by the allocations, then the call
 * (fr->i moves to the call). */
static int splice_call(base_arena *a, frame *fr, const cc_ir_stmt *at, const crossing *x, uint32_t nx, cc_ir_stmt *call)
{
    cc_ir_block *b = (cc_ir_block *)fr->b;
    if (!nx) return b->items[fr->i] = call, 0;
    cc_ir_stmt **items = base_arena_alloc(a, (b->n + nx) * sizeof *items);
    if (!items) return -1;
    memcpy(items, b->items, fr->i * sizeof *items);
    for (uint32_t k = 0; k < nx; k++)
        if (!(items[fr->i + k] = make_alloc(a, at, &x[k]))) return -1;
    items[fr->i + nx] = call;
    memcpy(items + fr->i + nx + 1, b->items + fr->i + 1, (b->n - fr->i - 1) * sizeof *items);
    b->items = items, b->n += nx;
    fr->i += nx;
    return 0;
}

static int outline_at(outliner *o, frame *fr)
{
    cc_ir_program *p = o->p;
    cc_ir_stmt *at = fr->b->items[fr->i];
    capture c = {0};
    vec cross = {0};
    int rc = cap_block(&c, &at->u.at.body) ? oom(p, at->span) : 0;
    if (!rc && c.bad) {
        if (c.bad->type.kind == CC_T_SCALAR)
            cc_diag_add(p->diags, CC_DIAG_TYPE, c.bad->span, NULL, "a TaskId can only be passed in deps=");
        else
            cc_diag_add(p->diags, CC_DIAG_PASS, c.bad->span, NULL,
                        "'%s' cannot cross a pl.at(level=pl.Level.CORE_GROUP) boundary; only tensors and scalars can",
                        c.bad->u.name);
        rc = -1;
    }
    rc = rc || check_live_after(o, fr, &c, &cross);
    crossing *x = rc ? NULL : make_crossings(o, at, &c, &cross);
    if (!rc && !x) rc = oom(p, at->span);
    cc_ir_func *k = rc ? NULL : make_kernel(o, at, &c, x, cross.n);
    if (!rc && !k) rc = oom(p, at->span);
    rc = rc || check_cache_decls(p, at, k);
    cc_ir_stmt *call = rc ? NULL : make_call(p->arena, at, k, x, cross.n, c.tensors.n);
    if (!rc && (!call || !cc_ir_program_add_func(p, k, o->insert_at) || splice_call(p->arena, fr, at, x, cross.n, call)))
        rc = oom(p, at->span);
    free(c.defined.v), free(c.tensors.v), free(c.scalars.v), free(c.others.v), free(cross.v);
    if (rc) return -1;
    o->insert_at++;
    o->k++;
    return 0;
}

/* ---- functions ------------------------------------------------------------------------------- */

static int outline_block(outliner *o, cc_ir_block *b, const cc_ir_stmt *owner, const frame *up)
{
    frame fr = {b, 0, owner, up};
    for (; fr.i < b->n; fr.i++) {
        cc_ir_stmt *s = b->items[fr.i];
        cc_ir_block *kids[CC_IR_MAX_BLOCKS];
        if (s->kind == CC_I_AT && s->u.at.level == CC_LEVEL_CORE_GROUP) {
            if (outline_at(o, &fr)) return -1;
            continue;
        }
        for (uint32_t c = 0, n = cc_ir_stmt_blocks(s, kids); c < n; c++)
            if (outline_block(o, kids[c], s, &fr)) return -1;
    }
    return 0;
}

static int is_control_plane(const cc_ir_func *f) { return f->kind == CC_FUNC_ORCHESTRATION || f->kind == CC_FUNC_OPAQUE; }

static int promote_callee(cc_ir_expr *e, void *ctx)
{
    (void)ctx;
    if (e->kind == CC_X_CALL && e->u.call.callee && e->u.call.callee->kind == CC_FUNC_OPAQUE)
        e->u.call.callee->kind = CC_FUNC_ORCHESTRATION;
    return 0;
}

int cc_pass_outline_incore(cc_ir_program *p)
{
    base_strmap names = {0};
    for (uint32_t i = 0; i < p->nfuncs; i++)
        if (base_strmap_put(&names, p->funcs[i]->name, 1) != 0) return base_strmap_free(&names), oom(p, p->funcs[i]->span);
    int rc = 0;
    for (uint32_t i = 0; i < p->nfuncs && !rc; i++) {
        cc_ir_func *f = p->funcs[i];
        if (!is_control_plane(f)) continue;
        /* kernels are appended; the printer's order is the call graph's (cc_ir_program_order) */
        outliner o = {p, f, 0, p->nfuncs, {0}, &names};
        rc = collect_readers(&o.readers, &f->body) ? oom(p, f->span) : outline_block(&o, &f->body, NULL, NULL);
        base_strmap_free(&o.readers);
    }
    base_strmap_free(&names);
    if (rc) return -1;
    for (uint32_t i = 0; i < p->nfuncs; i++)
        if (is_control_plane(p->funcs[i])) cc_ir_block_walk_exprs(&p->funcs[i]->body, promote_callee, NULL);
    return 0;
}
