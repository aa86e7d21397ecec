/*
 * tc_pld.c - the type checker's half of the distributed surface
 * (DISTRIBUTED-SPEC §1): pld names (`import pypto.language.distributed as
 * pld`) resolved to their ops, the pld enums, the DistributedTensor
 * annotation, and the host ops: pld.world_size(), window buffers and their
 * views, host collectives.  The kernel ops are tc_pld_kernel.c's.
 *
 * Invariants: every pld call becomes one CC_OPC_DIST op node (ops.h's
 * CC_IR_PLD_OP_LIST) or is reported with the spec's text at the user's
 * span; window buffers are TENSOR values of window CC_WIN_BUFFER that
 * only pld.window reads; a window view is a TENSOR of window CC_WIN_DT.
 * The domains of the buffers and the device forms of dispatches are
 * InferCommDomains' (pass_comm_domains.c), not checked here.
 */
#include "compiler/tc.h"

#include <stdio.h>
#include <string.h>

#include "compiler/names.h"
#include "compiler/printer.h"

/* ---- names ------------------------------------------------------------------------------ */

static int tp_path_append(const tc *t, const cc_expr *e, char *buf, size_t cap, size_t *len)
{
    if (e->kind == CC_E_NAME) return !strcmp(e->u.name, t->pld) && !tc_is_local(t, e->u.name) && (*len = 0, 1);
    if (e->kind != CC_E_ATTR || !tp_path_append(t, e->u.attr.value, buf, cap, len)) return 0;
    int n = snprintf(buf + *len, cap - *len, "%s%s", *len ? "." : "", e->u.attr.name);
    if (n < 0 || (size_t)n >= cap - *len) return 0;
    *len += (size_t)n;
    return 1;
}

const char *tc_pld_path(const tc *t, const cc_expr *e)
{
    char buf[128];
    size_t len = 0;
    if (e->kind != CC_E_ATTR || !t->pld || !tp_path_append(t, e, buf, sizeof buf, &len)) return NULL;
    return base_arena_strndup(t->a, buf, len);
}

int tc_is_dt_annotation(const tc *t, const cc_expr *head)
{
    return head->kind == CC_E_ATTR && head->u.attr.value->kind == CC_E_NAME && t->pld && !strcmp(head->u.attr.value->u.name, t->pld) &&
           !strcmp(head->u.attr.name, "DistributedTensor");
}

int tc_pld_enum(tc *t, const cc_expr *e, const char *enum_name)
{
    e = tc_module_constant_ast(t, e);
    if (!strcmp(enum_name, "AtomicType") && tc_enum_value(t, e, "AtomicType") >= 0) return tc_enum_value(t, e, "AtomicType");
    if (e->kind != CC_E_ATTR || e->u.attr.value->kind != CC_E_ATTR) return -1;
    const cc_expr *en = e->u.attr.value;
    if (en->u.attr.value->kind != CC_E_NAME || strcmp(en->u.attr.value->u.name, t->pld) || strcmp(en->u.attr.name, enum_name)) return -1;
    return cc_pl_enum_value(enum_name, e->u.attr.name);
}

void *tc_host_forbidden(tc *t, cc_span sp, const char *construct)
{
    return tc_err(t, CC_DIAG_INVALID_OP, sp, NULL,
                  "%s is not allowed in a @pl.jit.host function; put it in the per-device @pl.jit function it dispatches", construct);
}

const char *tc_kind_word(const tc *t)
{
    if (t->c.host) return "Host";
    if (t->c.plane == TC_KERNEL && t->c.f->kind != CC_FUNC_INCORE) return "InCore"; /* a pl.at body */
    return cc_func_kind_name((cc_func_kind)t->c.f->kind);
}

/* ---- arguments ------------------------------------------------------------------------------ */

int tc_pld_bind(tc *t, const cc_expr *call, const char *op, const char *const *params, uint32_t np, tc_args *a)
{
    memset(a, 0, sizeof *a);
    if (call->u.call.nargs > np)
        return tc_err(t, CC_DIAG_PY_TYPE, call->u.call.args[np]->span, NULL, "%s() takes at most %u positional arguments, got %u", op, np,
                      call->u.call.nargs), 0;
    for (uint32_t k = 0; k < call->u.call.nargs; k++) a->v[k] = call->u.call.args[k];
    for (uint32_t k = 0; k < call->u.call.nkws; k++) {
        const cc_keyword *kw = &call->u.call.kws[k];
        uint32_t j = 0;
        while (j < np && strcmp(params[j] + (params[j][0] == '?'), kw->name)) j++;
        if (j == np || a->v[j])
            return tc_err(t, CC_DIAG_PY_TYPE, kw->name_span, NULL, "%s() got an unexpected keyword argument '%s'", op, kw->name), 0;
        a->v[j] = kw->value;
    }
    for (uint32_t k = 0; k < np; k++)
        if (!a->v[k] && params[k][0] != '?')
            return tc_err(t, CC_DIAG_PY_TYPE, call->span, NULL, "%s() missing required argument '%s'", op, params[k]), 0;
    return 1;
}

/* tc_pld_bind under the name pld.<path>. */
static int tp_bind(tc *t, const cc_expr *call, const char *path, const char *const *params, uint32_t np, tc_args *a)
{
    char op[96];
    snprintf(op, sizeof op, "pld.%s", path);
    return tc_pld_bind(t, call, op, params, np, a);
}

cc_ir_expr *tc_pld_dt(tc *t, const cc_expr *e, const char *what)
{
    cc_ir_expr *x = tc_expr(t, e);
    if (!x) return NULL;
    if (x->type.kind != CC_T_TENSOR || x->type.window != CC_WIN_DT) {
        char ty[96];
        cc_type_format(&x->type, ty, sizeof ty);
        return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "%s must be a DistributedTensor (window-bound), got %s", what, ty);
    }
    return x;
}

/* "... can only be called in HOST orchestration context (...); current function level: <L>". */
static void *tp_host_only(tc *t, cc_span sp, const char *what)
{
    return tc_err(t, CC_DIAG_SYNTAX, sp, NULL,
                  "%s can only be called in HOST orchestration context (not inside InCore / SPMD scopes); current function level: %s", what,
                  t->c.plane == TC_KERNEL ? "CORE_GROUP" : "CHIP");
}

static cc_ir_expr *tp_op(tc *t, cc_ir_op op, cc_span sp)
{
    cc_ir_expr *x = cc_ir_op_new(t->a, op, sp);
    return x ? x : tc_oom(t);
}

/* ---- host ops ------------------------------------------------------------------------------ */

/* Is e computable at call entry: constants, pld.world_size(), argument extents? */
static int tp_entry_computable(const cc_ir_expr *e)
{
    switch (e->kind) {
    case CC_X_INT: return 1;
    case CC_X_BINARY: return tp_entry_computable(e->u.bin.l) && tp_entry_computable(e->u.bin.r);
    case CC_X_UNARY: return tp_entry_computable(e->u.un.x);
    case CC_X_OP: return e->u.op.op == CC_IR_WORLD_SIZE || (e->u.op.op == CC_IR_TENSOR_DIM && e->u.op.args[0]->kind == CC_X_VAR);
    default: return 0;
    }
}

static cc_ir_expr *tp_world_size(tc *t, const cc_expr *call, const char *path)
{
    if (!t->c.host) return tp_host_only(t, call->span, "pld.system.world_size()");
    tc_args a;
    if (!tp_bind(t, call, path, NULL, 0, &a)) return NULL;
    cc_ir_expr *x = tp_op(t, CC_IR_WORLD_SIZE, call->span);
    if (x) x->type = (cc_type){.kind = CC_T_SCALAR, .dtype = CC_DT_INDEX};
    return x;
}

static const char *tp_text(tc *t, const cc_ir_expr *e)
{
    base_strbuf b = {0};
    cc_print_expr(e, 0, &b);
    const char *s = b.oom ? "?" : base_arena_strndup(t->a, base_strbuf_str(&b), strlen(base_strbuf_str(&b)));
    base_strbuf_free(&b);
    return s ? s : "?";
}

/* One size entry (the byte count, or shape dimension i >= 0): entry-computable, positive when constant. */
static int tp_size_entry(tc *t, cc_ir_expr *e, int i, int64_t *v)
{
    static const char *const op = "pld.tensor.alloc_window_buffer";
    *v = 0;
    if (e->type.kind != CC_T_SCALAR || cc_dtype_is_float((cc_dtype)e->type.dtype) || !tp_entry_computable(e))
        return tc_err(t, CC_DIAG_PASS, e->span, NULL,
                      "%s size must be computable at call entry (constants, pld.world_size(), argument shapes), got %s", op, tp_text(t, e)), 0;
    if (cc_ir_const_int(e, v) && *v <= 0) {
        if (i >= 0) return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "%s shape dimension[%d] is %lld; all dimensions must be positive", op, i, (long long)*v), 0;
        return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "%s size is %lld; it must be positive", op, (long long)*v), 0;
    }
    return 1;
}

static cc_ir_expr *tp_alloc(tc *t, const cc_expr *call, const char *path)
{
    static const char *const op = "pld.tensor.alloc_window_buffer";
    static const char *const params[] = {"size", "?dtype", "?name"};
    if (!t->c.host) return tp_host_only(t, call->span, "pld.tensor.alloc_window_buffer()");
    if (call != t->c.whole_call || !t->c.assign_name)
        return tc_err(t, CC_DIAG_SYNTAX, call->span, NULL, "%s must appear as the RHS of a simple assignment (its result must be bound to a named variable)", op);
    if (t->c.branches)
        return tc_err(t, CC_DIAG_PASS, call->span, NULL, "%s must be at the top level of the @pl.jit.host body (not inside a loop or branch)", op);
    for (uint32_t k = 0; k < t->nwinbufs; k++)
        if (!strcmp(t->winbufs[k], t->c.assign_name))
            return tc_err(t, CC_DIAG_SYNTAX, call->span, NULL, "%s name '%s' is already declared in this program", op, t->c.assign_name);
    tc_args a;
    if (!tp_bind(t, call, path, params, 3, &a)) return NULL;
    if (a.v[2] && a.v[2]->kind != CC_E_STRING) return tc_err(t, CC_DIAG_PY_TYPE, a.v[2]->span, NULL, "%s name= must be a string", op);
    const cc_expr *size = tc_module_constant_ast(t, a.v[0]);
    int shaped = size->kind == CC_E_LIST || size->kind == CC_E_TUPLE;
    if (shaped && !a.v[1])
        return tc_err(t, CC_DIAG_TYPE, call->span, NULL, "%s requires dtype= when the first argument is a shape (list / tuple of per-rank dimensions)", op);
    cc_ir_expr *x = tp_op(t, CC_IR_ALLOC_WINDOW, call->span), *s = x ? tc_expr(t, size) : NULL;
    if (!s) return NULL;
    s->span = a.v[0]->span;
    x->u.op.args[0] = s, x->u.op.dtype = 255;
    x->type = (cc_type){.kind = CC_T_TENSOR, .window = CC_WIN_BUFFER, .dtype = CC_DT_UINT8, .rank = 1};
    if (shaped) {
        int dt = tc_tensor_dtype_arg(t, a.v[1], "pld.tensor.alloc_window_buffer's dtype");
        if (dt < 0) return NULL;
        if (s->u.list.n < 1 || s->u.list.n > CC_MAX_RANK)
            return tc_err(t, CC_DIAG_TYPE, s->span, NULL, "%s shape must have 1 to 4 dimensions, got %u", op, s->u.list.n);
        x->u.op.dtype = (uint8_t)dt, x->type.dtype = (uint8_t)dt, x->type.rank = (uint8_t)s->u.list.n;
        for (uint32_t d = 0; d < s->u.list.n; d++)
            if (!tp_size_entry(t, s->u.list.items[d], (int)d, &x->type.shape[d])) return NULL;
    } else {
        if (a.v[1] && tc_dtype_arg(t, a.v[1], "pld.tensor.alloc_window_buffer's dtype") < 0) return NULL;
        if (a.v[1]) return tc_err(t, CC_DIAG_TYPE, a.v[1]->span, NULL, "%s takes dtype= only with a shape (a byte count has no dtype)", op);
        if (!tp_size_entry(t, s, -1, &x->type.shape[0])) return NULL;
    }
    if (t->nwinbufs < TC_MAX_WINBUFS) t->winbufs[t->nwinbufs++] = t->c.assign_name;
    return x;
}

static cc_ir_expr *tp_window(tc *t, const cc_expr *call, const char *path)
{
    static const char *const params[] = {"buf", "shape", "?dtype"};
    if (!t->c.host) return tp_host_only(t, call->span, "pld.tensor.window()");
    tc_args a;
    if (!tp_bind(t, call, path, params, 3, &a)) return NULL;
    cc_ir_expr *buf = tc_expr(t, a.v[0]);
    if (!buf) return NULL;
    if (buf->kind != CC_X_VAR || buf->type.kind != CC_T_TENSOR || buf->type.window != CC_WIN_BUFFER) {
        char ty[96];
        cc_type_format(&buf->type, ty, sizeof ty);
        return tc_err(t, CC_DIAG_TYPE, a.v[0]->span, NULL, "pld.tensor.window expects a pld.alloc_window_buffer buffer, got %s", ty);
    }
    if (!a.v[2]) return tc_err(t, CC_DIAG_PY_TYPE, call->span, NULL, "pld.tensor.window() missing required argument 'dtype'");
    int dt = tc_tensor_dtype_arg(t, a.v[2], "pld.tensor.window's dtype");
    if (dt < 0) return NULL;
    cc_ir_expr *shp = tc_list_of(t, a.v[1], "shapes");
    if (!shp) return NULL;
    uint32_t n = shp->u.list.n;
    if (n > CC_MAX_RANK) return tc_err(t, CC_DIAG_INVALID_OP, a.v[1]->span, NULL, "pld.tensor.window: rank %u is above 4", n);
    cc_ir_expr *x = tp_op(t, CC_IR_WINDOW, call->span);
    if (!x) return NULL;
    x->u.op.args[0] = buf, x->u.op.args[1] = shp, x->u.op.dtype = (uint8_t)dt;
    x->type = (cc_type){.kind = CC_T_TENSOR, .window = CC_WIN_DT, .dtype = (uint8_t)dt, .rank = (uint8_t)n};
    for (uint32_t d = 0; d < n; d++) { /* constants, or pld.world_size() (a dimension P binds) */
        const cc_ir_expr *e = shp->u.list.items[d];
        if (e->kind == CC_X_OP && e->u.op.op == CC_IR_WORLD_SIZE) {
            if (!(x->type.shape[d] = tc_world_dim(t, e->span, &x->type.dyn[d]))) return NULL;
        } else if (!cc_ir_const_int(e, &x->type.shape[d])) {
            return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "pld.tensor.window shapes must be compile-time constants or pld.world_size()");
        } else if (x->type.shape[d] <= 0) {
            return tc_err(t, CC_DIAG_INVALID_OP, e->span, NULL, "pld.tensor.window: shape entry %u must be positive, got %lld", d,
                          (long long)x->type.shape[d]);
        }
    }
    return x;
}

/* A host collective's signal: a rank-1 (allreduce: or rank-2) INT32 DistributedTensor. */
static int tp_signal(tc *t, const char *op, const cc_ir_expr *s, int rank2_ok)
{
    if (s->type.rank != 1 && !(rank2_ok && s->type.rank == 2))
        return tc_err(t, CC_DIAG_TYPE, s->span, NULL, "%s signal must be a rank-1 DistributedTensor, got rank %u", op, s->type.rank), 0;
    if (s->type.dtype != CC_DT_INT32)
        return tc_err(t, CC_DIAG_TYPE, s->span, NULL, "%s signal must have INT32 element type, got %s", op, cc_dtype_name((cc_dtype)s->type.dtype)), 0;
    return 1;
}

/* A pld.ReduceOp argument (NULL: Sum) into *v. */
static int tp_reduce_op(tc *t, const char *op, const cc_expr *e, int *v)
{
    *v = e ? tc_pld_enum(t, e, "ReduceOp") : 0;
    if (*v < 0) return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "%s op must be a pld.ReduceOp member", op), 0;
    return 1;
}

static cc_ir_expr *tp_collective(tc *t, const cc_expr *call, const char *path, cc_ir_op op)
{
    char name[64];
    snprintf(name, sizeof name, "pld.%s", path);
    if (t->c.plane == TC_KERNEL && op != CC_IR_BARRIER)
        return tc_err(t, CC_DIAG_UNSUPPORTED, call->span, NULL, "in-kernel pld.tensor.%s is not supported in this version", path + strlen("tensor."));
    if (!t->c.host) return tp_host_only(t, call->span, name);
    static const char *const ar[] = {"data", "?signal", "?op", "?mode", "?core_num"}, *const bc[] = {"data", "signal", "?root"},
                             *const ag[] = {"stage", "data", "signal"}, *const rs[] = {"data", "signal", "?op"}, *const br[] = {"signal"};
    const char *const *params = op == CC_IR_ALLREDUCE ? ar : op == CC_IR_BROADCAST ? bc : op == CC_IR_REDUCE_SCATTER ? rs : op == CC_IR_BARRIER ? br : ag;
    uint32_t np = op == CC_IR_ALLREDUCE ? 5 : op == CC_IR_BARRIER ? 1 : 3, nwin = cc_ir_op_info(op)->nslots - (op == CC_IR_BROADCAST);
    tc_args a;
    if (!tp_bind(t, call, path, params, np, &a)) return NULL;
    cc_ir_expr *x = tp_op(t, op, call->span);
    if (!x) return NULL;
    for (uint32_t k = 0; k < nwin; k++)
        if (a.v[k] && !(x->u.op.args[k] = tc_pld_dt(t, a.v[k], k == nwin - 1 && op != CC_IR_ALLREDUCE ? "signal" : "data"))) return NULL;
    cc_ir_expr *sig = op == CC_IR_ALLREDUCE || op == CC_IR_BARRIER ? x->u.op.args[op == CC_IR_ALLREDUCE] : x->u.op.args[nwin - 1];
    if (sig && !tp_signal(t, name, sig, op == CC_IR_ALLREDUCE)) return NULL;
    x->type = x->u.op.args[op == CC_IR_ALLGATHER || op == CC_IR_ALL_TO_ALL]->type; /* the window it updates: data (a barrier's signal) */
    int rop = 0;
    if (op == CC_IR_ALLREDUCE || op == CC_IR_REDUCE_SCATTER) {
        if (!tp_reduce_op(t, name, a.v[2], &rop)) return NULL;
        x->u.op.mode = (uint8_t)rop;
    }
    if (op == CC_IR_BROADCAST && a.v[2]) {
        if (!(x->u.op.args[2] = tc_expr(t, a.v[2]))) return NULL;
        if (x->u.op.args[2]->type.kind != CC_T_SCALAR || cc_dtype_is_float((cc_dtype)x->u.op.args[2]->type.dtype))
            return tc_err(t, CC_DIAG_TYPE, a.v[2]->span, NULL, "%s root= must be an integer scalar", name);
    }
    if (op != CC_IR_ALLREDUCE) return x;
    if (!sig && t->c.branches)
        return tc_err(t, CC_DIAG_PASS, call->span, NULL,
                      "pld.tensor.allreduce without an explicit signal is not supported inside a for/while loop; allocate a signal window and pass it");
    const cc_expr *mode = a.v[3];
    int ring = mode && mode->kind == CC_E_STRING && !strcmp(mode->u.str.text, "ring");
    if (mode && !ring && !(mode->kind == CC_E_STRING && !strcmp(mode->u.str.text, "mesh")))
        return tc_err(t, CC_DIAG_VALUE, mode->span, NULL, "%s mode must be \"mesh\" or \"ring\"", name);
    int64_t cores = 1;
    if (a.v[4] && (!tc_const_int(t, a.v[4], &cores, "core_num") || cores < 1))
        return t->d->errors ? NULL : tc_err(t, CC_DIAG_VALUE, a.v[4]->span, NULL, "%s core_num must be >= 1, got %lld", name, (long long)cores);
    cc_dtype dt = (cc_dtype)x->u.op.args[0]->type.dtype;
    int ok = ring ? dt == CC_DT_FP32 && rop == 0 : dt == CC_DT_FP32 || dt == CC_DT_FP16 || dt == CC_DT_BF16;
    if (!ok)
        return tc_err(t, CC_DIAG_TYPE, call->span, NULL, "pld.tensor.allreduce %s does not support %s/%s", ring ? "ring" : "mesh", cc_dtype_name(dt),
                      cc_reduce_op_name(rop));
    x->u.op.implicit = (uint8_t)ring;
    return x;
}

/* ---- the entry ------------------------------------------------------------------------------ */

cc_ir_expr *tc_pld_call(tc *t, const cc_expr *call, const char *path)
{
    enum { CC_IR_NONE = CC_IR_OP_COUNT }; /* a row that is no op */
    static const struct { const char *path; uint16_t op; uint8_t spelling, later; } rows[] = {
#define TP_ROW_(p, op, sp, st, k) {p, CC_IR_##op, sp, CC_PL_##st == CC_PL_LATER},
        CC_PLD_NAME_LIST(TP_ROW_)
#undef TP_ROW_
    };
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        if (strcmp(rows[k].path, path)) continue;
        if (rows[k].later) return tc_err(t, CC_DIAG_UNSUPPORTED, call->span, NULL, "pld.%s is not supported in this version", path);
        if (rows[k].op == CC_IR_NONE) break; /* an enum, an annotation, a namespace: not callable */
        cc_ir_op op = (cc_ir_op)rows[k].op;
        switch (op) {
        case CC_IR_WORLD_SIZE: return tp_world_size(t, call, path);
        case CC_IR_ALLOC_WINDOW: return tp_alloc(t, call, path);
        case CC_IR_WINDOW: return tp_window(t, call, path);
        case CC_IR_ALLREDUCE: case CC_IR_BROADCAST: case CC_IR_ALLGATHER: case CC_IR_REDUCE_SCATTER: case CC_IR_ALL_TO_ALL:
            return tp_collective(t, call, path, op);
        case CC_IR_BARRIER:
            if (t->c.plane != TC_KERNEL) return tp_collective(t, call, path, op);
            return tc_pld_kernel_op(t, call, op, 0);
        default: return tc_pld_kernel_op(t, call, op, rows[k].spelling);
        }
    }
    return tc_err(t, CC_DIAG_UNDEFINED, call->u.call.fn->span, NULL, "pld.%s is not a name of pypto.language.distributed", path);
}
