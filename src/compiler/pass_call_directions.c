/*
 * pass_call_directions.c - DeriveCallDirections (docs/compiler.md,
 * "Directions", "Footprints").
 *
 * After the pass:
 *  - every tensor parameter of every InCore function has its direction: a
 *    declared one keeps it (a store to a declared In is P2), the others
 *    follow the usage rule (loads -> In, stores -> Out, both -> InOut;
 *    neither -> In); an atomic store reads and writes (InOut), and makes a
 *    declared Out InOut;
 *  - and its footprint box: per dimension [lo, hi) over the function's
 *    scalar parameters that the body never assigns, lo == NULL meaning the
 *    whole dimension (unknown, an implicit load, or no access at all);
 *  - every call of an InCore function has boxes, one per argument: tensor
 *    arguments the callee's box with its scalar parameters replaced by the
 *    call's scalar arguments, scalars rank 0;
 *  - every undeclared tensor parameter of an Orchestration or Opaque
 *    function has the union of the directions of the calls it is passed to.
 * Footprints: every access counts (also under if); scalar locals with one
 * dominating definition are substituted; loop variables are eliminated
 * innermost first over [first, last] of their loop (statically when the
 * coefficient's sign is a constant, else with min/max); a loop that may run
 * zero times keeps the formula and the runtime clamps the box.  The block
 * index (pl.get_block_idx(), DSL-V2-SPEC §7) is the variable of a loop
 * around the whole body over [0, pl.get_block_num() - 1]; the block count
 * stays a symbol in the kernel's boxes, replaced at each call by the call's
 * block count (1 for a plain call).  All
 * expressions stay folded (cc_ir_fold), so they print as `i*64+64`.
 */
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "compiler/ir_walk.h"
#include "compiler/passes.h"

typedef struct loop {
    const char *var;
    cc_ir_expr *first, *last; /* NULL: bounds unknown */
    int step_sign;            /* of a constant step; 0: not constant */
} loop;

typedef struct def {
    const char *name;
    cc_ir_expr *value; /* resolved; NULL: unknown */
} def;

typedef struct count {
    const char *name;
    uint32_t assigns, loops; /* assignments, loops with it as their variable */
} count;

/* The footprint of one tensor parameter while accesses are collected. */
typedef struct acc {
    uint8_t use;                   /* cc_dir bits */
    uint8_t touched;
    uint8_t atomic;                /* an atomic store (it reads the window: InOut even when declared Out) */
    uint8_t whole[CC_MAX_RANK];
    cc_ir_expr *lo[CC_MAX_RANK], *hi[CC_MAX_RANK];
    const cc_ir_expr *first_store;
} acc;

typedef struct kernel {
    cc_ir_program *p;
    cc_ir_func *f;
    acc *accs;               /* per parameter */
    count *counts;           /* per name assigned in the body */
    uint32_t ncounts;
    uint64_t counts_cap;
    loop *loops;             /* enclosing loops, innermost last */
    uint32_t nloops;
    uint64_t loops_cap;
    def *defs;               /* visible single definitions, innermost last */
    uint32_t ndefs;
    uint64_t defs_cap;
    const cc_ir_expr *alias_access; /* the first load or store through a tensor local that is no parameter's */
    const char **alias_names;       /* tensor locals that are a parameter's tensor (aliases()) ... */
    int32_t *alias_params;          /* ... that parameter (-1: none, or not one parameter on every path) */
    uint32_t naliases;
    int oom;
} kernel;

/* ---- expressions ----------------------------------------------------------------------------- */

/* Is e `x + c` or `x - c` with an integer c?  Then *x and *c (signed). */
static int plus_const(const cc_ir_expr *e, cc_ir_expr **x, int64_t *c)
{
    if (e->kind != CC_X_BINARY || (e->u.bin.op != CC_OP_ADD && e->u.bin.op != CC_OP_SUB) || !cc_ir_const_int(e->u.bin.r, c))
        return 0;
    if (e->u.bin.op == CC_OP_SUB) *c = (int64_t)(0 - (uint64_t)*c);
    return *x = e->u.bin.l, 1;
}

/* l op r, folded; (x + c1) + c2 becomes x + (c1 + c2). */
static cc_ir_expr *bin(kernel *k, cc_op op, cc_ir_expr *l, cc_ir_expr *r)
{
    cc_ir_expr *x;
    int64_t c1, c2;
    if (l && r && (op == CC_OP_ADD || op == CC_OP_SUB) && plus_const(l, &x, &c1) && cc_ir_const_int(r, &c2)) {
        uint64_t sum = op == CC_OP_ADD ? (uint64_t)c1 + (uint64_t)c2 : (uint64_t)c1 - (uint64_t)c2;
        l = x, r = cc_ir_int(k->p->arena, (int64_t)sum, r->span), op = CC_OP_ADD;
    }
    cc_ir_expr *e = cc_ir_fold(k->p->arena, cc_ir_binary(k->p->arena, op, l, r, l ? l->span : (cc_span){0}));
    if (!e) k->oom = 1;
    return e;
}

static cc_ir_expr *num(kernel *k, int64_t v)
{
    cc_ir_expr *e = cc_ir_int(k->p->arena, v, (cc_span){0});
    if (!e) k->oom = 1;
    return e;
}

/* A copy of e (NULL, and k->oom, when out of memory). */
static cc_ir_expr *copy(kernel *k, const cc_ir_expr *e)
{
    cc_ir_expr *c = cc_ir_expr_clone(k->p->arena, e);
    if (!c) k->oom = 1;
    return c;
}

static int expr_equal(const cc_ir_expr *a, const cc_ir_expr *b)
{
    if (a->kind != b->kind) return 0;
    switch (a->kind) {
    case CC_X_INT: return a->u.i == b->u.i;
    case CC_X_VAR: return !strcmp(a->u.name, b->u.name);
    case CC_X_BINARY: return a->u.bin.op == b->u.bin.op && expr_equal(a->u.bin.l, b->u.bin.l) && expr_equal(a->u.bin.r, b->u.bin.r);
    case CC_X_UNARY: return a->u.un.op == b->u.un.op && expr_equal(a->u.un.x, b->u.un.x);
    default: return 0;
    }
}

/* Is a == b + *d for an integer *d (both sides `x + c` forms of one x)? */
static int const_apart(const cc_ir_expr *a, const cc_ir_expr *b, int64_t *d)
{
    cc_ir_expr *xa, *xb;
    int64_t ca = 0, cb = 0;
    if (!plus_const(a, &xa, &ca)) xa = (cc_ir_expr *)a;
    if (!plus_const(b, &xb, &cb)) xb = (cc_ir_expr *)b;
    return expr_equal(xa, xb) && (*d = (int64_t)((uint64_t)ca - (uint64_t)cb), 1);
}

/* min/max of two bounds; one of them when they differ by a constant. */
static cc_ir_expr *extreme(kernel *k, cc_op op, cc_ir_expr *a, cc_ir_expr *b)
{
    int64_t d;
    if (!a || !b) return NULL;
    if (const_apart(a, b, &d)) return (d >= 0) == (op == CC_OP_MAX) ? a : b;
    return bin(k, op, a, b);
}

static cc_ir_expr *subst1(kernel *k, const cc_ir_expr *e, const char *name, cc_ir_expr *value)
{
    cc_ir_expr *r = cc_ir_expr_subst(k->p->arena, e, &name, &value, 1);
    if (!r) k->oom = 1;
    return r;
}

/* ---- what a name stands for at this point of the body ------------------------------------ */

static count counted(const kernel *k, const char *name)
{
    for (uint32_t i = 0; i < k->ncounts; i++)
        if (!strcmp(k->counts[i].name, name)) return k->counts[i];
    return (count){name, 0, 0};
}

static void count_assignment(kernel *k, const char *name, int loop)
{
    for (uint32_t i = 0; i < k->ncounts; i++)
        if (!strcmp(k->counts[i].name, name)) {
            k->counts[i].assigns += !loop, k->counts[i].loops += !!loop;
            return;
        }
    if (k->ncounts == k->counts_cap) {
        count *g = base_array_grow(k->counts, &k->counts_cap, sizeof *g, 16);
        if (!g) {
            k->oom = 1;
            return;
        }
        k->counts = g;
    }
    k->counts[k->ncounts++] = (count){name, !loop, !!loop};
}

/* The names s binds: assignment targets, a loop variable. */
static int count_stmt(cc_ir_stmt *s, void *ctx)
{
    kernel *k = ctx;
    for (uint32_t t = 0; s->kind == CC_I_ASSIGN && t < s->u.assign.ntargets; t++) count_assignment(k, s->u.assign.targets[t].name, 0);
    if (s->kind == CC_I_FOR) count_assignment(k, s->u.for_.var, 1);
    return 0;
}

/* The block index and count as symbols (names no program can write). */
#define BLOCK_IDX "pl.get_block_idx()"
#define BLOCK_NUM "pl.get_block_num()"

static cc_ir_expr *block_var(kernel *k, const char *name)
{
    cc_ir_expr *v = cc_ir_var(k->p->arena, name, (cc_type){.kind = CC_T_SCALAR, .dtype = CC_DT_INDEX}, (cc_span){0});
    if (!v) k->oom = 1;
    return v;
}


/* e over parameters, enclosing loop variables and integers; NULL: unknown
 * (or out of memory: k->oom). */
static cc_ir_expr *resolve(kernel *k, const cc_ir_expr *e)
{
    if (!e) return NULL;
    switch (e->kind) {
    case CC_X_INT: return num(k, e->u.i);
    case CC_X_VAR: {
        count c = counted(k, e->u.name);
        for (uint32_t i = k->nloops; i-- > 0;)
            if (!strcmp(k->loops[i].var, e->u.name)) return c.assigns ? NULL : copy(k, e);
        for (uint32_t i = k->ndefs; i-- > 0;)
            if (!strcmp(k->defs[i].name, e->u.name)) return k->defs[i].value;
        int pi = cc_ir_func_param(k->f, e->u.name);
        if (pi < 0 || k->f->params[pi].type.kind != CC_T_SCALAR || c.assigns || c.loops) return NULL;
        return copy(k, e);
    }
    case CC_X_BINARY:
        switch (e->u.bin.op) {
        case CC_OP_ADD: case CC_OP_SUB: case CC_OP_MUL: case CC_OP_FLOORDIV: case CC_OP_MOD: case CC_OP_MIN: case CC_OP_MAX: {
            cc_ir_expr *l = resolve(k, e->u.bin.l), *r = resolve(k, e->u.bin.r);
            return l && r ? bin(k, e->u.bin.op, l, r) : NULL;
        }
        default: return NULL;
        }
    case CC_X_UNARY: {
        cc_ir_expr *x = e->u.un.op == CC_OP_NEG ? resolve(k, e->u.un.x) : NULL;
        return x ? bin(k, CC_OP_SUB, num(k, 0), x) : NULL;
    }
    case CC_X_OP:
        if (e->u.op.op == CC_IR_GET_BLOCK_IDX) return block_var(k, BLOCK_IDX);
        if (e->u.op.op == CC_IR_GET_BLOCK_NUM) return block_var(k, BLOCK_NUM);
        return NULL;
    default: return NULL;
    }
}

/* ---- eliminating loop variables -------------------------------------------------------------- */

/* Is e affine in v?  Then *coef is v's coefficient (folded). */
static int affine(kernel *k, const cc_ir_expr *e, const char *v, cc_ir_expr **coef)
{
    if (!cc_ir_expr_uses(e, v)) return *coef = num(k, 0), 1;
    if (e->kind == CC_X_VAR) return *coef = num(k, 1), 1;
    if (e->kind != CC_X_BINARY) return 0;
    const cc_ir_expr *l = e->u.bin.l, *r = e->u.bin.r;
    cc_ir_expr *cl, *cr;
    switch (e->u.bin.op) {
    case CC_OP_ADD:
    case CC_OP_SUB:
        if (!affine(k, l, v, &cl) || !affine(k, r, v, &cr)) return 0;
        return *coef = bin(k, e->u.bin.op, cl, cr), 1;
    case CC_OP_MUL:
        if (cc_ir_expr_uses(l, v) && cc_ir_expr_uses(r, v)) return 0;
        if (cc_ir_expr_uses(l, v)) return affine(k, l, v, &cl) && (*coef = bin(k, CC_OP_MUL, cl, copy(k, r)), 1);
        return affine(k, r, v, &cr) && (*coef = bin(k, CC_OP_MUL, copy(k, l), cr), 1);
    default: return 0;
    }
}

/* A bound (lo when hi == 0) with the loop variable of l eliminated. */
static cc_ir_expr *eliminate(kernel *k, cc_ir_expr *e, const loop *l, int hi)
{
    cc_ir_expr *coef;
    int64_t c;
    if (!e || !cc_ir_expr_uses(e, l->var)) return e;
    if (!l->first || !affine(k, e, l->var, &coef) || !coef) return NULL;
    cc_ir_expr *at_first = subst1(k, e, l->var, l->first), *at_last = subst1(k, e, l->var, l->last);
    if (!cc_ir_const_int(coef, &c) || !l->step_sign) return extreme(k, hi ? CC_OP_MAX : CC_OP_MIN, at_first, at_last);
    int rising = (c >= 0) == (l->step_sign > 0); /* the bound grows from first to last */
    return rising == !hi ? at_first : at_last;
}

/* Constant bounds in this range fold without overflow. */
static int small(int64_t v) { return v > INT32_MIN && v < INT32_MAX; }

/* The loop variable's last value s + (T-1)*st, T = ceil((e-s)/st) = -((s-e)//st). */
static cc_ir_expr *loop_last(kernel *k, cc_ir_expr *s, cc_ir_expr *e, cc_ir_expr *st)
{
    int64_t a, b, d;
    if (!s || !e || !st || (cc_ir_const_int(st, &d) && d == 0)) return NULL;
    if (cc_ir_const_int(s, &a) && cc_ir_const_int(e, &b) && cc_ir_const_int(st, &d) && small(a) && small(b) && small(d))
        return num(k, a + (-cc_floordiv(a - b, d) - 1) * d);
    if (cc_ir_const_int(st, &d) && (d == 1 || d == -1)) return bin(k, d == 1 ? CC_OP_SUB : CC_OP_ADD, e, num(k, 1));
    cc_ir_expr *trips = bin(k, CC_OP_SUB, num(k, 0), bin(k, CC_OP_FLOORDIV, bin(k, CC_OP_SUB, s, e), st));
    return bin(k, CC_OP_ADD, copy(k, s), bin(k, CC_OP_MUL, bin(k, CC_OP_SUB, trips, num(k, 1)), st));
}

/* ---- accesses -------------------------------------------------------------------------------- */

static void merge(kernel *k, acc *a, uint32_t d, cc_ir_expr *lo, cc_ir_expr *hi)
{
    if (!lo || !hi) a->whole[d] = 1;
    if (a->whole[d]) return;
    a->lo[d] = a->touched ? extreme(k, CC_OP_MIN, a->lo[d], lo) : lo;
    a->hi[d] = a->touched ? extreme(k, CC_OP_MAX, a->hi[d], hi) : hi;
}

/* One load or store window of parameter a (offs, shapes: LIST; NULL shapes: the tile's). */
static void access(kernel *k, acc *a, const cc_type *t, const cc_ir_expr *offs, const cc_ir_expr *shapes, const cc_ir_expr *tile)
{
    for (uint32_t d = 0; d < t->rank; d++) {
        const cc_ir_expr *off = offs && offs->kind == CC_X_LIST && d < offs->u.list.n ? offs->u.list.items[d] : NULL;
        cc_ir_expr *ext = shapes && shapes->kind == CC_X_LIST && d < shapes->u.list.n ? resolve(k, shapes->u.list.items[d])
                        : !shapes && tile && d < tile->type.rank ? num(k, tile->type.shape[d]) : NULL;
        cc_ir_expr *lo = resolve(k, off), *hi = lo && ext ? bin(k, CC_OP_ADD, copy(k, lo), ext) : NULL;
        for (uint32_t i = k->nloops; i-- > 0;) {
            lo = eliminate(k, lo, &k->loops[i], 0);
            hi = eliminate(k, hi, &k->loops[i], 1);
        }
        merge(k, a, d, lo, hi);
    }
    a->touched = 1;
}

/* A LIST of n items, all NULL. */
static cc_ir_expr *list(kernel *k, uint32_t n)
{
    cc_ir_expr *l = cc_ir_expr_new(k->p->arena, CC_X_LIST, (cc_span){0});
    if (!l || !(l->u.list.items = base_arena_alloc(k->p->arena, n * sizeof *l->u.list.items))) return k->oom = 1, NULL;
    l->u.list.n = n;
    return l;
}

/* The window of one element of a tensor of type ty: offsets (the indices;
 * a flat index i on rank r: i // stride[d] % shape[d] per axis) and unit
 * extents.  A flat index into a tensor with a dynamic dimension: the whole tensor. */
static void element(kernel *k, acc *a, const cc_type *ty, const cc_ir_expr *idx)
{
    if (idx->kind != CC_X_LIST && cc_type_is_dynamic(ty)) {
        for (uint32_t d = 0; d < ty->rank; d++) a->whole[d] = 1;
        a->touched = 1;
        return;
    }
    cc_ir_expr *offs = idx->kind == CC_X_LIST ? (cc_ir_expr *)idx : list(k, ty->rank), *ones = list(k, ty->rank);
    if (!offs || !ones) return;
    int64_t stride = 1;
    for (uint32_t d = ty->rank; d-- > 0;) {
        ones->u.list.items[d] = num(k, 1);
        if (offs == idx) continue;
        cc_ir_expr *x = copy(k, idx);
        if (stride > 1) x = bin(k, CC_OP_FLOORDIV, x, num(k, stride));
        if (d > 0) x = bin(k, CC_OP_MOD, x, num(k, ty->shape[d]));
        offs->u.list.items[d] = x;
        stride *= ty->shape[d];
    }
    access(k, a, ty, offs, ones, NULL);
}


/* The extents a LOAD reads: its valid region (tile_load's rule: a constant
 * valid_shape entry below 0 or above the shape reads the shape; a runtime one
 * keeps the shape, a box the runtime clamps). */
static const cc_ir_expr *load_reads(kernel *k, const cc_ir_expr *e)
{
    const cc_ir_expr *shp = e->u.op.args[2], *valid = e->u.op.args[3];
    if (!valid || valid->kind != CC_X_LIST || shp->kind != CC_X_LIST || valid->u.list.n != shp->u.list.n) return shp;
    cc_ir_expr *r = copy(k, shp);
    if (!r) return shp;
    for (uint32_t d = 0; d < r->u.list.n; d++) {
        int64_t v, x;
        if (cc_ir_const_int(valid->u.list.items[d], &v) && cc_ir_const_int(shp->u.list.items[d], &x) && v >= 0 && v < x)
            r->u.list.items[d] = num(k, v);
    }
    return r;
}

/* ---- tensor locals that are a parameter's tensor ----------------------------------------------- */

#define ALIAS_UNSEEN (-2)

/* The parameter whose tensor v is: a parameter, an alias of one, or a pl.store into one (its
 * result is its target); -1: none; ALIAS_UNSEEN: an alias not settled yet. */
static int32_t tensor_param(const kernel *k, const cc_ir_expr *v)
{
    cc_dir dir;
    if (v->kind == CC_X_OP && v->u.op.op == CC_IR_STORE) v = cc_ir_tensor_access(v, &dir);
    if (!v || v->kind != CC_X_VAR) return -1;
    int pi = cc_ir_func_param(k->f, v->u.name);
    if (pi >= 0) return pi;
    for (uint32_t a = 0; a < k->naliases; a++)
        if (!strcmp(k->alias_names[a], v->u.name)) return k->alias_params[a];
    return -1;
}

typedef struct alias_round {
    kernel *k;
    int changed;
} alias_round;

/* One assignment's tensor targets, each settled against its value (tuple items pair up). */
static int alias_stmt(cc_ir_stmt *s, void *ctx)
{
    alias_round *r = ctx;
    kernel *k = r->k;
    if (s->kind != CC_I_ASSIGN) return 0;
    const cc_ir_expr *v = s->u.assign.value;
    for (uint32_t t = 0; t < s->u.assign.ntargets; t++) {
        if (s->u.assign.targets[t].type.kind != CC_T_TENSOR) continue;
        const cc_ir_expr *x = s->u.assign.ntargets == 1 ? v : v->kind == CC_X_LIST && t < v->u.list.n ? v->u.list.items[t] : NULL;
        int32_t c = x ? tensor_param(k, x) : -1;
        for (uint32_t a = 0; a < k->naliases; a++) {
            if (strcmp(k->alias_names[a], s->u.assign.targets[t].name)) continue;
            int32_t *cur = &k->alias_params[a], now = *cur == ALIAS_UNSEEN ? c : c == ALIAS_UNSEEN || c == *cur ? *cur : -1;
            if (now != *cur) *cur = now, r->changed = 1;
        }
    }
    return 0;
}

/* The tensor names assigned in the body, each ALIAS_UNSEEN. */
static int alias_names(cc_ir_stmt *s, void *ctx)
{
    kernel *k = ctx;
    for (uint32_t t = 0; s->kind == CC_I_ASSIGN && t < s->u.assign.ntargets && !k->oom; t++) {
        const cc_ir_target *g = &s->u.assign.targets[t];
        uint32_t a = 0;
        while (a < k->naliases && strcmp(k->alias_names[a], g->name)) a++;
        if (g->type.kind != CC_T_TENSOR || a < k->naliases || cc_ir_func_param(k->f, g->name) >= 0) continue;
        const char **n = realloc(k->alias_names, (k->naliases + 1) * sizeof *n);
        int32_t *pm = n ? realloc(k->alias_params, (k->naliases + 1) * sizeof *pm) : NULL;
        if (n) k->alias_names = n;
        if (!pm) return k->oom = 1;
        k->alias_params = pm, n[k->naliases] = g->name, pm[k->naliases++] = ALIAS_UNSEEN;
    }
    return 0;
}

/* Which tensor locals are one parameter's tensor on every path (`o = pl.store(t, off, out)`,
 * a loop carrying a parameter's tensor: init, yield and out), so their accesses are that
 * parameter's: the greatest solution, settled by rounds. */
static void aliases(kernel *k)
{
    cc_ir_block_each_stmt(&k->f->body, alias_names, k);
    alias_round r = {k, 1};
    for (uint32_t round = 0; r.changed && round <= k->naliases && !k->oom; round++) {
        r.changed = 0;
        cc_ir_block_each_stmt(&k->f->body, alias_stmt, &r);
    }
    for (uint32_t a = 0; a < k->naliases; a++)
        if (k->alias_params[a] == ALIAS_UNSEEN) k->alias_params[a] = -1;
}

/* An access of a tensor parameter (a load, store, element read or write): its use and its window. */
static void visit_op(kernel *k, const cc_ir_expr *e)
{
    cc_dir dir;
    const cc_ir_expr *t = cc_ir_tensor_access(e, &dir);
    int pi = t && t->kind == CC_X_VAR ? tensor_param(k, t) : -1;
    if (pi < 0 && t && !k->alias_access) k->alias_access = e;
    if (pi < 0 || k->f->params[pi].type.kind != CC_T_TENSOR) return;
    acc *a = &k->accs[pi];
    cc_ir_expr *const *arg = e->u.op.args;
    a->use |= dir;
    a->atomic |= e->u.op.op == CC_IR_STORE && e->u.op.atomic;
    if ((dir & CC_DIR_OUT) && !a->first_store) a->first_store = e;
    const cc_type *ty = &k->f->params[pi].type;
    if (cc_ir_op_info((cc_ir_op)e->u.op.op)->cls == CC_OPC_DIST) { /* a pld op's local tensor: the whole of it */
        for (uint32_t d = 0; d < ty->rank; d++) a->whole[d] = 1;
        a->touched = 1;
    } else if (e->u.op.op == CC_IR_READ || e->u.op.op == CC_IR_WRITE) {
        element(k, a, ty, arg[1]);
    } else if (e->u.op.op == CC_IR_LOAD && e->u.op.implicit) {
        for (uint32_t d = 0; d < ty->rank; d++) a->whole[d] = 1;
        a->touched = 1;
    } else if (e->u.op.op == CC_IR_LOAD) {
        access(k, a, ty, arg[1], load_reads(k, e), NULL);
    } else {
        access(k, a, ty, arg[1], arg[3], arg[0]);
    }
}

/* The loads and stores of e, those in an op's arguments before the op. */
static int visit(cc_ir_expr *e, void *ctx)
{
    cc_ir_expr_each_child(e, visit, ctx);
    if (e->kind == CC_X_OP) visit_op(ctx, e);
    return 0;
}

/* ---- the body -------------------------------------------------------------------------------- */

static void walk(kernel *k, const cc_ir_block *b);

/* Pushes item onto a stack (items, n, cap) of elem-sized entries. */
static void push(kernel *k, void **items, uint32_t *n, uint64_t *cap, size_t elem, const void *item)
{
    if (*n == *cap) {
        void *g = base_array_grow(*items, cap, elem, 8);
        if (!g) {
            k->oom = 1;
            return;
        }
        *items = g;
    }
    memcpy((char *)*items + (size_t)*n * elem, item, elem);
    (*n)++;
}

/* A for's loop over its variable's [first, last]. */
static void push_loop(kernel *k, const cc_ir_stmt *s)
{
    cc_ir_expr *start = s->u.for_.start ? resolve(k, s->u.for_.start) : num(k, 0);
    cc_ir_expr *step = s->u.for_.step ? resolve(k, s->u.for_.step) : num(k, 1);
    int64_t st;
    loop l = {s->u.for_.var, start, loop_last(k, start, resolve(k, s->u.for_.stop), step), 0};
    if (!l.last) l.first = NULL;
    if (cc_ir_const_int(step, &st)) l.step_sign = st > 0 ? 1 : -1;
    push(k, (void **)&k->loops, &k->nloops, &k->loops_cap, sizeof l, &l);
}

/* A single scalar definition of an assignment becomes visible. */
static void define(kernel *k, const cc_ir_stmt *s)
{
    const cc_ir_target *t = &s->u.assign.targets[0];
    count c = counted(k, t->name);
    if (s->u.assign.ntargets != 1 || t->type.kind != CC_T_SCALAR || c.assigns != 1 || c.loops ||
        cc_ir_func_param(k->f, t->name) >= 0)
        return;
    def d = {t->name, resolve(k, s->u.assign.value)};
    push(k, (void **)&k->defs, &k->ndefs, &k->defs_cap, sizeof d, &d);
}

/* Definitions made in a block that may not run (a branch, a loop body)
 * are not visible after it; a for's variable is visible in its body. */
static void walk_stmt(kernel *k, const cc_ir_stmt *s)
{
    cc_ir_stmt_each_expr(s, visit, k);
    if (s->kind == CC_I_ASSIGN) define(k, s);
    uint32_t n0 = k->nloops, d0 = k->ndefs;
    if (s->kind == CC_I_FOR) push_loop(k, s);
    cc_ir_block *kids[CC_IR_MAX_BLOCKS];
    for (uint32_t c = 0, n = cc_ir_stmt_blocks(s, kids); c < n && !k->oom; c++) {
        walk(k, kids[c]);
        if (cc_ir_stmt_flow(s) != CC_IR_FLOW_SEQ) k->ndefs = d0;
    }
    k->nloops = n0;
}

static void walk(kernel *k, const cc_ir_block *b)
{
    for (uint32_t i = 0; i < b->n && !k->oom; i++) walk_stmt(k, b->items[i]);
}

/* ---- one InCore function --------------------------------------------------------------------- */

static int oom(cc_ir_program *p, cc_span sp)
{
    cc_diag_oom(p->diags, sp, "out of memory while deriving directions");
    return -1;
}

/* Direction (P2 for a store to a declared In) and box of tensor parameter i. */
static int settle_param(kernel *k, uint32_t i)
{
    cc_ir_param *pm = &k->f->params[i];
    const acc *a = &k->accs[i];
    if (pm->type.window == CC_WIN_DT) pm->dir = CC_DIR_INOUT; /* window memory: always InOut, whole (DISTRIBUTED-SPEC §1.3) */
    if (!pm->declared) pm->dir = a->use ? a->use : CC_DIR_IN;
    if (pm->declared && pm->dir == CC_DIR_OUT && a->atomic) pm->dir = CC_DIR_INOUT;
    if (pm->declared && (pm->dir == CC_DIR_IN || pm->dir == CC_DIR_NONE) && a->first_store) {
        cc_diag_add(k->p->diags, CC_DIAG_PASS, a->first_store->span, NULL,
                    "kernel '%s' writes its In parameter '%s' (pl.%s at %s:%u); declare it pl.Out[...] or pl.InOut[...]",
                    k->f->name, pm->name, cc_ir_op_name((cc_ir_op)a->first_store->u.op.op), cc_diag_file(k->p->diags, a->first_store->span.line), cc_diag_line(k->p->diags, a->first_store->span.line));
        return -1;
    }
    pm->box = (cc_ir_box){.dir = pm->dir, .rank = pm->type.rank};
    for (uint32_t d = 0; d < pm->type.rank && a->touched && pm->type.window != CC_WIN_DT; d++)
        if (!a->whole[d]) pm->box.lo[d] = a->lo[d], pm->box.hi[d] = a->hi[d];
    return 0;
}

static int derive_kernel(cc_ir_program *p, cc_ir_func *f)
{
    kernel k = {.p = p, .f = f};
    int rc = 0;
    if (f->nparams && !(k.accs = calloc(f->nparams, sizeof *k.accs))) k.oom = 1;
    if (!k.oom) cc_ir_block_each_stmt(&f->body, count_stmt, &k);
    if (!k.oom) aliases(&k);
    loop blocks = {BLOCK_IDX, num(&k, 0), bin(&k, CC_OP_SUB, block_var(&k, BLOCK_NUM), num(&k, 1)), 1};
    if (!k.oom) push(&k, (void **)&k.loops, &k.nloops, &k.loops_cap, sizeof blocks, &blocks);
    if (!k.oom) walk(&k, &f->body);
    if (k.oom) rc = oom(p, f->span);
    if (!rc && k.alias_access) { /* a local naming a kernel's tensor hides its accesses from the footprint */
        cc_dir dir;
        const cc_ir_expr *t = cc_ir_tensor_access(k.alias_access, &dir);
        cc_diag_add(p->diags, CC_DIAG_UNSUPPORTED, t->span, "load and store the tensor through its own name",
                    "a tensor bound to another name ('%s') in kernel code is not supported in this version", t->u.name);
        rc = -1;
    }
    for (uint32_t i = 0; i < f->nparams && !rc; i++)
        if (f->params[i].type.kind == CC_T_TENSOR) rc = settle_param(&k, i);
    free(k.accs), free(k.counts), free(k.loops), free(k.defs), free(k.alias_names), free(k.alias_params);
    return rc;
}

/* ---- call sites ------------------------------------------------------------------------------ */

/* The boxes of one InCore call: the callee's, over the call's scalar arguments. */
static int fill_call(cc_ir_program *p, cc_ir_expr *call)
{
    const cc_ir_func *g = call->u.call.callee;
    uint32_t n = call->u.call.nargs < g->nparams ? call->u.call.nargs : g->nparams;
    const char **names = calloc(n + 1, sizeof *names);
    cc_ir_expr **values = calloc(n + 1, sizeof *values);
    cc_ir_box *boxes = n ? base_arena_alloc(p->arena, n * sizeof *boxes) : NULL;
    cc_ir_expr *one = call->u.call.blocks ? NULL : cc_ir_int(p->arena, 1, call->span);
    int rc = !names || !values || (n && !boxes) || (!call->u.call.blocks && !one);
    uint32_t ns = 0;
    if (!rc) names[ns] = BLOCK_NUM, values[ns++] = call->u.call.blocks ? call->u.call.blocks : one;
    for (uint32_t i = 0; i < n && !rc; i++)
        if (g->params[i].type.kind == CC_T_SCALAR) names[ns] = g->params[i].name, values[ns++] = call->u.call.args[i];
    for (uint32_t i = 0; i < n && !rc; i++) {
        const cc_ir_param *pm = &g->params[i];
        if (pm->type.kind != CC_T_TENSOR) continue;
        boxes[i] = (cc_ir_box){.dir = pm->dir, .rank = pm->box.rank};
        for (uint32_t d = 0; d < pm->box.rank && !rc; d++) {
            if (!pm->box.lo[d]) continue;
            boxes[i].lo[d] = cc_ir_expr_subst(p->arena, pm->box.lo[d], names, values, ns);
            boxes[i].hi[d] = cc_ir_expr_subst(p->arena, pm->box.hi[d], names, values, ns);
            rc = !boxes[i].lo[d] || !boxes[i].hi[d];
        }
    }
    free(names), free(values);
    if (rc) return oom(p, call->span);
    call->u.call.boxes = boxes;
    return 0;
}

static int fill_expr(cc_ir_expr *e, void *ctx)
{
    return e->kind == CC_X_CALL && e->u.call.callee && e->u.call.callee->kind == CC_FUNC_INCORE ? fill_call(ctx, e) : 0;
}

/* ---- control-plane parameters ---------------------------------------------------------------- */

typedef struct control_dirs {
    cc_ir_func *f;
    int changed;
} control_dirs;

/* What one call does to the parameters of f it is handed. */
static void control_call(const cc_ir_expr *call, void *ctx)
{
    control_dirs *c = ctx;
    const cc_ir_func *g = call->u.call.callee;
    for (uint32_t k = 0; k < call->u.call.nargs && k < g->nparams; k++) {
        const cc_ir_expr *a = call->u.call.args[k];
        while (a->kind == CC_X_OP && a->u.op.op == CC_IR_SLICE) a = a->u.op.args[0]; /* a view of it (a host's x[r]) */
        int i = a->kind == CC_X_VAR && a->type.kind == CC_T_TENSOR ? cc_ir_func_param(c->f, a->u.name) : -1;
        if (i < 0 || c->f->params[i].declared) continue;
        uint8_t d = (uint8_t)(c->f->params[i].dir | g->params[k].dir);
        if (d != c->f->params[i].dir) c->f->params[i].dir = d, c->changed = 1;
    }
    const cc_ir_expr *p = call->u.call.pred ? call->u.call.pred->u.list.items[0] : NULL; /* predicate=: read (D-pred) */
    int i = p && p->kind == CC_X_VAR ? cc_ir_func_param(c->f, p->u.name) : -1;
    if (i >= 0 && !c->f->params[i].declared && !(c->f->params[i].dir & CC_DIR_IN))
        c->f->params[i].dir = (uint8_t)(c->f->params[i].dir | CC_DIR_IN), c->changed = 1;
}

static int is_control(const cc_ir_func *f) { return f->kind == CC_FUNC_ORCHESTRATION || f->kind == CC_FUNC_OPAQUE; }

/* Undeclared tensor parameters of Orchestration and Opaque functions: the
 * union of what the calls they are passed to do with them (In, Out, both:
 * InOut), to a fixpoint across control-plane callers and callees; never
 * passed: In.  The caller (Python: the read-only check of docs/compiler.md, "Arguments") learns
 * which arguments the program writes. */
static void derive_control_params(cc_ir_program *p)
{
    for (uint32_t i = 0; i < p->nfuncs; i++)
        for (uint32_t k = 0; is_control(p->funcs[i]) && k < p->funcs[i]->nparams; k++)
            if (!p->funcs[i]->params[k].declared && p->funcs[i]->params[k].type.kind == CC_T_TENSOR) p->funcs[i]->params[k].dir = CC_DIR_NONE;
    int changed = 1;
    for (uint32_t round = 0; changed && round <= p->nfuncs; round++) {
        changed = 0;
        for (uint32_t i = 0; i < p->nfuncs; i++) {
            if (!is_control(p->funcs[i])) continue;
            control_dirs c = {p->funcs[i], 0};
            cc_ir_block_calls(&p->funcs[i]->body, control_call, &c);
            changed |= c.changed;
        }
    }
    for (uint32_t i = 0; i < p->nfuncs; i++)
        for (uint32_t k = 0; is_control(p->funcs[i]) && k < p->funcs[i]->nparams; k++)
            if (p->funcs[i]->params[k].type.kind == CC_T_TENSOR && !p->funcs[i]->params[k].dir) p->funcs[i]->params[k].dir = CC_DIR_IN;
}

int cc_pass_call_directions(cc_ir_program *p)
{
    for (uint32_t i = 0; i < p->nfuncs; i++)
        if (p->funcs[i]->kind == CC_FUNC_INCORE && derive_kernel(p, p->funcs[i])) return -1;
    for (uint32_t i = 0; i < p->nfuncs; i++)
        if (cc_ir_block_walk_exprs(&p->funcs[i]->body, fill_expr, p)) return -1;
    derive_control_params(p);
    return p->nfuncs && p->funcs[0]->host ? cc_pass_comm_domains(p) : 0;
}
