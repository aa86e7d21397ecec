/*
 * torch_printer.c - the post-pass IR as executable torch source
 * (pypto.debug.torch_codegen, DSL-V2-SPEC §2 I-tc; docs/dsl.md,
 * "Introspection and tools").
 *
 * Output: `import torch`, then one `def <name>(<params>):` per
 * Orchestration function, in the program's order.  Each holds, first, a
 * nested def per InCore function it calls (the kernel's body as torch ops),
 * then its own statements.  Values: a tensor is the caller's torch tensor
 * (written in place: a store, an assemble into a tensor, a write); a tile
 * is a torch tensor of its valid region (the tile VM's prefix box; the
 * VM's zeros outside it are left out, and put back where an op reads them:
 * fillpad, concat, matmul's K), never written in place (a load clones its
 * window, an assemble into a tile clones the tile first); a scalar is a
 * Python number; a TaskId is None.  Where a valid region may be smaller
 * than the shape (cc_type.partial) the op is a lambda applied to its
 * operands, so each is computed once.  Scopes and grouping pl.at bodies
 * are transparent; deps= are dropped (Python runs in order).  An SPMD
 * kernel (one that reads the block index or count) takes `_block=0,
 * _nblocks=1`, and a call of n blocks runs it for each block in order.
 *
 * Invariants:
 *  - Only ops whose torch form computes what the tile VM computes are
 *    translated: element-wise ops and casts to a float dtype bit for bit
 *    (a scalar operand is converted to the result's dtype first, as the VM
 *    does), reductions and matmul (FP32 accumulation, rounded once) to
 *    rounding.  Every other op, and a translated one in a form outside
 *    that (shapes=, drop_dims=, an integer division, a cast to an integer
 *    dtype, a narrowed operand where the VM's rule is not a crop), is the Unsup text
 *    `torch_codegen: '<op>' has no torch translation in this version` at the op.
 *  - The first error stops the print; the caller discards the text.
 */
#include "compiler/torch_printer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/strmap.h"
#include "compiler/ir_walk.h"
#include "compiler/names.h"
#include "compiler/printer.h"

typedef struct tp {
    base_strbuf *out;
    cc_diags *d;
    const cc_ir_program *p;
    int failed;
    base_strmap narrowed; /* the function's tile variables whose valid region may be smaller than their
                           * shape (cc_type.partial is not joined across a loop's back edge: a swap
                           * in a loop body moves a narrowed tile into a name typed full) */
    int changed;
} tp;

static const char *torch_dtype(uint8_t dt)
{
    switch ((cc_dtype)dt) {
    case CC_DT_FP32: return "torch.float32";
    case CC_DT_FP16: return "torch.float16";
    case CC_DT_BF16: return "torch.bfloat16";
    case CC_DT_INT32: return "torch.int32";
    case CC_DT_INT8: return "torch.int8";
    case CC_DT_INT16: return "torch.int16";
    case CC_DT_BOOL: return "torch.bool";
    default: return "torch.int64"; /* INDEX, INT64 */
    }
}

static void no_translation(tp *t, const cc_ir_expr *e)
{
    if (t->failed) return;
    t->failed = 1;
    cc_diag_add(t->d, CC_DIAG_UNSUPPORTED, e->span, NULL, "torch_codegen: '%s' has no torch translation in this version",
                cc_ir_op_name((cc_ir_op)e->u.op.op));
}

static void expr(tp *t, const cc_ir_expr *e);

static void exprs(tp *t, cc_ir_expr *const *xs, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++) {
        if (k) base_strbuf_puts(t->out, ", ");
        expr(t, xs[k]);
    }
}

static int is_array(const cc_ir_expr *e) { return e->type.kind == CC_T_TILE || e->type.kind == CC_T_TENSOR; }

/* A window of x: x[o0:o0 + e0, ...] (offsets a LIST); extent d is
 * ext->u.list.items[d] (ext a LIST), else `<named>.shape[d]` (named not
 * NULL), else shape[d].  Python's slicing cuts the window at x's edge
 * (clamp=). */
static void window(tp *t, const cc_ir_expr *x, const cc_ir_expr *offs, const int64_t *shape, unsigned rank,
                   const cc_ir_expr *ext, const char *named)
{
    expr(t, x);
    base_strbuf_puts(t->out, "[");
    for (unsigned d = 0; d < rank; d++) {
        const cc_ir_expr *o = offs->u.list.items[d];
        int64_t c, n;
        int fixed = !ext && !named;
        if (ext && cc_ir_const_int(ext->u.list.items[d], &n)) fixed = 1;
        else n = shape[d];
        if (d) base_strbuf_puts(t->out, ", ");
        if (cc_ir_const_int(o, &c) && fixed) {
            base_strbuf_printf(t->out, "%lld:%lld", (long long)c, (long long)(c + n));
            continue;
        }
        expr(t, o);
        base_strbuf_puts(t->out, ":");
        expr(t, o);
        base_strbuf_puts(t->out, " + ");
        if (fixed) base_strbuf_printf(t->out, "%lld", (long long)n);
        else if (ext) expr(t, ext->u.list.items[d]);
        else base_strbuf_printf(t->out, "%s.shape[%u]", named, d);
    }
    base_strbuf_puts(t->out, "]");
}

/* Is the window of offsets offs over an array of rank rank expressible (one offset per axis)? */
static int window_ok(const cc_ir_expr *offs, unsigned rank)
{
    return offs && offs->kind == CC_X_LIST && offs->u.list.n == rank;
}

/* Does e read a narrowed variable? */
typedef struct reads_ctx {
    const base_strmap *narrowed;
    int found;
} reads_ctx;

static int reads_narrowed(cc_ir_expr *e, void *ctx)
{
    reads_ctx *c = ctx;
    if (e->kind == CC_X_VAR && e->type.kind == CC_T_TILE && base_strmap_get(c->narrowed, e->u.name) >= 0) c->found = 1;
    return c->found;
}

/* May the tile e have a valid region smaller than its shape? */
static int narrowed(const base_strmap *m, const cc_ir_expr *e)
{
    if (e->type.kind != CC_T_TILE) return 0;
    if (e->type.partial) return 1;
    reads_ctx c = {m, 0};
    cc_ir_expr_walk(e, reads_narrowed, &c);
    return c.found;
}

/* Marks the targets of s that a narrowed value reaches. */
static int mark_narrowed(cc_ir_stmt *s, void *ctx)
{
    tp *t = ctx;
    if (s->kind != CC_I_ASSIGN) return 0;
    const cc_ir_expr *v = s->u.assign.value;
    for (uint32_t k = 0; k < s->u.assign.ntargets; k++) {
        const cc_ir_expr *x = s->u.assign.ntargets == 1 ? v : v->kind == CC_X_LIST && k < v->u.list.n ? v->u.list.items[k] : NULL;
        const char *name = s->u.assign.targets[k].name;
        if (!x || base_strmap_get(&t->narrowed, name) >= 0 || !narrowed(&t->narrowed, x)) continue;
        if (base_strmap_put(&t->narrowed, name, 1) != 0) t->out->oom = 1;
        t->changed = 1;
    }
    return 0;
}

#define partial(e) narrowed(&t->narrowed, (e))

/* `(lambda <params>: <body>)(` ... the caller prints the arguments and `)`. */
#define CROP_TO(x, y) x "[tuple(slice(0, min(p, q)) for p, q in zip(" x ".shape, " y ".shape))]"
/* x padded with value v (a Python expression) to the shape list S. */
#define PAD_TO(x) "torch.nn.functional.pad(" x ", [w for p, s in reversed(list(zip(" x ".shape, S))) for w in (0, s - p)], value=v)"

/* A scalar operand as a 0-d tensor of the result's dtype (the VM converts it so). */
static void operand(tp *t, const cc_ir_expr *e, uint8_t dtype)
{
    if (is_array(e)) return expr(t, e);
    base_strbuf_puts(t->out, "torch.tensor(");
    expr(t, e);
    base_strbuf_printf(t->out, ", dtype=%s)", torch_dtype(dtype));
}

/* The comparisons of pl.cmp's cmp_type 0 .. 5: 1 where it holds, else 0, in the operands' dtype. */
static const char *const cmp_fn[] = {
    "(lambda x, y: (x == y).to(x.dtype))", "(lambda x, y: (x != y).to(x.dtype))", "(lambda x, y: (x < y).to(x.dtype))",
    "(lambda x, y: (x <= y).to(x.dtype))", "(lambda x, y: (x > y).to(x.dtype))",  "(lambda x, y: (x >= y).to(x.dtype))",
};

/* A shift count outside [0, bits) shifts every bit out (tile/tile.h). */
#define SHIFT_BITS "x.element_size() * 8"

/* The torch callable of an element-wise binary op e (valid: the intersection), or NULL. */
static const char *binary_fn(const cc_ir_expr *e)
{
    cc_ir_op op = (cc_ir_op)e->u.op.op;
    switch (op) {
    case CC_IR_ADD: case CC_IR_ROW_EXPAND_ADD: case CC_IR_COL_EXPAND_ADD: return "torch.add";
    case CC_IR_SUB: case CC_IR_ROW_EXPAND_SUB: case CC_IR_COL_EXPAND_SUB: return "torch.sub";
    case CC_IR_MUL: case CC_IR_ROW_EXPAND_MUL: case CC_IR_COL_EXPAND_MUL: return "torch.mul";
    case CC_IR_DIV: case CC_IR_ROW_EXPAND_DIV: case CC_IR_COL_EXPAND_DIV: return "torch.div";
    case CC_IR_MAXIMUM: case CC_IR_ROW_EXPAND_MAX: case CC_IR_COL_EXPAND_MAX: return "torch.maximum";
    case CC_IR_MINIMUM: case CC_IR_ROW_EXPAND_MIN: case CC_IR_COL_EXPAND_MIN: return "torch.minimum";
    case CC_IR_REM: /* the floored remainder; a float one as the VM's: fmod moved by y when the signs differ */
        return !cc_dtype_is_float(e->type.dtype) ? "torch.remainder"
                                                 : "(lambda x, y: (lambda r: torch.where((r != 0) & ((r < 0) != (y < 0)), r + y, r))(torch.fmod(x, y)))";
    case CC_IR_FMOD: return "torch.fmod";
    case CC_IR_AND: return "torch.bitwise_and";
    case CC_IR_OR: return "torch.bitwise_or";
    case CC_IR_XOR: return "torch.bitwise_xor";
    case CC_IR_CMP: return cmp_fn[e->u.op.mode];
    case CC_IR_PRELU: return "(lambda x, y: torch.where(x > 0, x, x * y))";
    case CC_IR_LRELU: return "(lambda x, y: torch.maximum(x, x * y))";
    case CC_IR_SHL:
        return "(lambda x, y: torch.where((y >= 0) & (y < " SHIFT_BITS "), torch.bitwise_left_shift(x, y.clamp(0, " SHIFT_BITS
               " - 1)), 0))";
    case CC_IR_SHR: /* arithmetic: a count past the width leaves 0 or -1, as bits - 1 does */
        return "(lambda x, y: torch.bitwise_right_shift(x, torch.where((y < 0) | (y >= " SHIFT_BITS "), " SHIFT_BITS " - 1, y)))";
    default: return NULL;
    }
}

static const char *unary_fn(cc_ir_op op)
{
    switch (op) {
    case CC_IR_EXP: return "torch.exp";
    case CC_IR_NEG: return "torch.neg";
    case CC_IR_SQRT: return "torch.sqrt";
    case CC_IR_ABS: return "torch.abs";
    case CC_IR_RELU: return "torch.relu";
    case CC_IR_LOG: return "torch.log";
    case CC_IR_RECIP: return "torch.reciprocal";
    case CC_IR_SIN: return "torch.sin";
    case CC_IR_COS: return "torch.cos";
    case CC_IR_NOT: return "torch.bitwise_not";
    default: return NULL;
    }
}

/* torch.<fn>(x, dim=<dim>, keepdim=True) (.values for amax/amin need none). */
static const char *reduce_fn(cc_ir_op op, int *dim)
{
    *dim = -1;
    switch (op) {
    case CC_IR_ROW_SUM: return "torch.sum";
    case CC_IR_ROW_MAX: return "torch.amax";
    case CC_IR_ROW_MIN: return "torch.amin";
    case CC_IR_ROW_PROD: return "torch.prod";
    case CC_IR_ROW_ARGMAX: return "torch.argmax"; /* the first extremum's index, as the VM's */
    case CC_IR_ROW_ARGMIN: return "torch.argmin";
    default: break;
    }
    *dim = -2;
    switch (op) {
    case CC_IR_COL_SUM: return "torch.sum";
    case CC_IR_COL_MAX: return "torch.amax";
    case CC_IR_COL_MIN: return "torch.amin";
    case CC_IR_COL_PROD: return "torch.prod";
    case CC_IR_COL_ARGMAX: return "torch.argmax";
    case CC_IR_COL_ARGMIN: return "torch.argmin";
    default: return NULL;
    }
}

static void shape_list(tp *t, const cc_type *ty)
{
    base_strbuf_puts(t->out, "[");
    for (unsigned d = 0; d < ty->rank; d++) base_strbuf_printf(t->out, "%s%lld", d ? ", " : "", (long long)ty->shape[d]);
    base_strbuf_puts(t->out, "]");
}

/* The value a pl.PadValue pads with in dtype dt. */
static void pad_value(tp *t, int mode, uint8_t dt)
{
    const char *name = cc_pad_value_name(mode);
    if (!strcmp(name, "zero")) return base_strbuf_puts(t->out, "0");
    int max = !strcmp(name, "max");
    if (cc_dtype_is_float(dt)) return base_strbuf_puts(t->out, max ? "float(\"inf\")" : "float(\"-inf\")");
    base_strbuf_printf(t->out, "torch.iinfo(%s).%s", torch_dtype(dt), max ? "max" : "min");
}

/* x padded with the pad value of mode to shape (PAD_TO). */
static void padded(tp *t, const cc_ir_expr *x, const cc_type *shape, int mode, uint8_t dt)
{
    base_strbuf_puts(t->out, "(lambda x, S, v: " PAD_TO("x") ")(");
    expr(t, x);
    base_strbuf_puts(t->out, ", ");
    shape_list(t, shape);
    base_strbuf_puts(t->out, ", ");
    pad_value(t, mode, dt);
    base_strbuf_puts(t->out, ")");
}

/* A row or column vector operand: with its zero pad when narrowed (the VM reads it). */
static void vector(tp *t, const cc_ir_expr *v)
{
    if (partial(v)) padded(t, v, &v->type, 1, v->type.dtype);
    else expr(t, v);
}

/* The arguments `x, v)` of a lambda over a tile and a row or column vector. */
static void tile_and_vector(tp *t, const cc_ir_expr *x, const cc_ir_expr *v)
{
    expr(t, x);
    base_strbuf_puts(t->out, ", ");
    vector(t, v);
    base_strbuf_puts(t->out, ")");
}

static void args2(tp *t, const cc_ir_expr *x, const cc_ir_expr *y)
{
    expr(t, x);
    base_strbuf_puts(t->out, ", ");
    expr(t, y);
    base_strbuf_puts(t->out, ")");
}

static void op(tp *t, const cc_ir_expr *e)
{
    cc_ir_op o = (cc_ir_op)e->u.op.op;
    cc_ir_expr *const *a = e->u.op.args;
    base_strbuf *out = t->out;
    const char *fn;
    int dim;
    uint8_t dt = e->type.dtype;
    if (o == CC_IR_GET_BLOCK_IDX || o == CC_IR_GET_BLOCK_NUM) { /* the kernel's SPMD parameters (def) */
        base_strbuf_puts(out, o == CC_IR_GET_BLOCK_IDX ? "_block" : "_nblocks");
        return;
    }
    if ((fn = binary_fn(e))) {
        int expand = cc_ir_op_info(o)->cls != CC_OPC_BINARY;
        if (o == CC_IR_DIV && !cc_dtype_is_float(dt)) return no_translation(t, e);
        if (!is_array(a[1]) || (!partial(a[0]) && !partial(a[1]))) {
            base_strbuf_printf(out, "%s(", fn);
            operand(t, a[0], dt);
            base_strbuf_puts(out, ", ");
            operand(t, a[1], dt);
            base_strbuf_puts(out, ")");
            return;
        }
        if (expand) { /* the tile's valid region; the vector (with its zero pad) cut to it */
            base_strbuf_printf(out, "(lambda x, y: %s(x, y[tuple(slice(0, p) for p in x.shape[:-1])]%s))(", fn,
                               o >= CC_IR_COL_EXPAND_ADD && o <= CC_IR_COL_EXPAND_MIN ? "[..., :x.shape[-1]]" : "");
            return tile_and_vector(t, a[0], a[1]);
        } base_strbuf_printf(out, "(lambda x, y: %s(" CROP_TO("x", "y") ", " CROP_TO("y", "x") "))(", fn);
        return args2(t, a[0], a[1]);
    }
    if ((fn = unary_fn(o))) {
        base_strbuf_printf(out, "%s(", fn);
        expr(t, a[0]);
        base_strbuf_puts(out, ")");
        return;
    }
    if ((fn = reduce_fn(o, &dim))) {
        /* sums and products accumulate in FP32 (integers: wrapping, as int64 then cut); arg-extrema are INT32 */
        int acc = !strcmp(fn, "torch.sum") || !strcmp(fn, "torch.prod"), arg = dt != a[0]->type.dtype;
        base_strbuf_printf(out, "%s((", fn);
        expr(t, a[0]);
        if (acc) base_strbuf_printf(out, ").to(%s", cc_dtype_is_float(dt) ? "torch.float32" : "torch.int64");
        base_strbuf_printf(out, "), dim=%d, keepdim=True)", dim);
        if (acc || arg) base_strbuf_printf(out, ".to(%s)", torch_dtype(dt));
        return;
    }
    switch (o) {
    case CC_IR_PART_ADD:
    case CC_IR_PART_MUL:
    case CC_IR_PART_MAX:
    case CC_IR_PART_MIN: { /* over the box holding both regions: f where both are valid, else the valid one, else 0 */
        static const char *const part_fn[] = {"torch.add", "torch.mul", "torch.maximum", "torch.minimum"};
        base_strbuf_puts(out, "(lambda x, y, f, P: (lambda S: (lambda X, Y, MX, MY: torch.where(MX & MY, f(X, Y), "
                              "torch.where(MX, X, Y)))(P(x, S, 0), P(y, S, 0), P(torch.ones_like(x, dtype=torch.bool), S, False), "
                              "P(torch.ones_like(y, dtype=torch.bool), S, False)))([max(p, q) for p, q in zip(x.shape, y.shape)]))(");
        expr(t, a[0]);
        base_strbuf_puts(out, ", ");
        expr(t, a[1]);
        base_strbuf_printf(out, ", %s, lambda x, S, v: " PAD_TO("x") ")", part_fn[o - CC_IR_PART_ADD]);
        return;
    }
    case CC_IR_SEL:
    case CC_IR_SELS:
    case CC_IR_ADDC:
    case CC_IR_SUBC: { /* f(a, b, c) over the intersection (b may be a scalar); addc/subc: FP16/BF16 through FP32 */
        int sa, sb, sc;
        cc_ir_op_ternary_slots(o, &sa, &sb, &sc);
        int fl = cc_dtype_is_float(dt);
        const char *f = o == CC_IR_SEL || o == CC_IR_SELS ? "lambda m, b, c: torch.where(m != 0, c, b)"
                        : o == CC_IR_ADDC ? (fl ? "lambda a, b, c: (a.to(torch.float32) + b + c).to(a.dtype)" : "lambda a, b, c: a + b + c")
                                          : (fl ? "lambda a, b, c: (a.to(torch.float32) - b - c).to(a.dtype)" : "lambda a, b, c: a - b - c");
        base_strbuf_printf(out, "(lambda f, *v: (lambda S: f(*[u[S] if u.dim() else u for u in v]))(tuple(slice(0, min(p)) for p in "
                                "zip(*[u.shape for u in v if u.dim()]))))(%s, ", f);
        expr(t, a[sa]);
        base_strbuf_puts(out, ", ");
        operand(t, a[sb], dt);
        base_strbuf_puts(out, ", ");
        expr(t, a[sc]);
        base_strbuf_puts(out, ")");
        return;
    }
    case CC_IR_GATHER: /* src (with its zero pad) flattened, read at the indices; a negative one fails as one past the end */
        base_strbuf_puts(out, "(lambda s, i: s.reshape(-1)[torch.where(i < 0, s.numel(), i.long())])(");
        vector(t, a[0]);
        base_strbuf_puts(out, ", ");
        expr(t, a[1]);
        base_strbuf_puts(out, ")");
        return;
    case CC_IR_RSQRT: /* the VM's: sqrt, then a division */
        base_strbuf_puts(out, "torch.reciprocal(torch.sqrt(");
        expr(t, a[0]);
        base_strbuf_puts(out, "))");
        return;
    case CC_IR_ROW_EXPAND_EXPDIF:
        base_strbuf_puts(out, "(lambda x, y: torch.exp(torch.sub(x, y[tuple(slice(0, p) for p in x.shape[:-1])])))(");
        return tile_and_vector(t, a[0], a[1]);
    case CC_IR_ROW_EXPAND:
    case CC_IR_COL_EXPAND: /* the vector broadcast over the target's valid region */
        base_strbuf_printf(out, "(lambda x, y: y[tuple(slice(0, p) for p in x.shape[:-1])]%s.expand(x.shape).clone())(",
                           o == CC_IR_COL_EXPAND ? "[..., :x.shape[-1]]" : "");
        return tile_and_vector(t, a[0], a[1]);
    case CC_IR_EXPANDS:
        base_strbuf_puts(out, "torch.full_like(");
        expr(t, a[0]);
        base_strbuf_puts(out, ", ");
        expr(t, a[1]);
        base_strbuf_puts(out, ")");
        return;
    case CC_IR_CAST:
        if (!cc_dtype_is_float(e->u.op.dtype) || !is_array(a[0])) return no_translation(t, e);
        base_strbuf_puts(out, "(");
        expr(t, a[0]);
        base_strbuf_printf(out, ").to(%s)", torch_dtype(e->u.op.dtype));
        return;
    case CC_IR_MATMUL: /* valid [lhs rows, rhs columns]; K: the shorter (the rest is the zero pad) */
    case CC_IR_GEMV:
    case CC_IR_MATMUL_BIAS: /* + the bias row (with its zero pad) over the product's columns */
    case CC_IR_GEMV_BIAS:
    case CC_IR_GEMV_ACC:
    case CC_IR_MATMUL_ACC: { /* + acc over the intersection; init_cond true: the product alone */
        const char *acc = cc_dtype_is_float(dt) ? "torch.float32" : "torch.int64";
        int plus = cc_ir_op_info(o)->cls == CC_OPC_MATMUL_ACC, bias = cc_ir_op_info(o)->cls == CC_OPC_MATMUL_BIAS;
        if (e->type.rank != 2) return no_translation(t, e);
        if (bias) base_strbuf_puts(out, "(lambda m, c: m + c[:, :m.shape[1]])(");
        if (plus)
            base_strbuf_printf(out, "(lambda c, i, m: (m[" "tuple(slice(0, min(p, q)) for p, q in zip(m.shape, c.shape))] "
                                    "+ (0 if i else c[tuple(slice(0, min(p, q)) for p, q in zip(c.shape, m.shape))].to(%s))"
                                    ").to(%s))(", acc, torch_dtype(dt));
        if (plus) {
            expr(t, a[0]);
            base_strbuf_puts(out, ", ");
            if (o == CC_IR_MATMUL_ACC && a[3]) expr(t, a[3]);
            else base_strbuf_puts(out, "False");
            base_strbuf_puts(out, ", ");
        }
        base_strbuf_printf(out, "(lambda x, y: torch.matmul(x[:, :min(x.shape[1], y.shape[0])].to(%s), "
                                "y[:min(x.shape[1], y.shape[0])].to(%s))%s%s%s)(", acc, acc, plus ? "" : ".to(",
                           plus ? "" : torch_dtype(dt), plus ? "" : ")");
        args2(t, a[plus], a[plus + 1]);
        if (plus) base_strbuf_puts(out, ")");
        if (bias) base_strbuf_puts(out, ", "), vector(t, a[2]), base_strbuf_puts(out, ")");
        return;
    }
    case CC_IR_ARANGE: /* int64 arithmetic, wrapped to the dtype once */
        base_strbuf_printf(out, "(lambda s: (s %s torch.arange(%lld, dtype=torch.int64)).to(%s).reshape(", e->u.op.mode ? "-" : "+",
                           (long long)(e->type.shape[e->type.rank - 1]), torch_dtype(dt));
        shape_list(t, &e->type);
        base_strbuf_puts(out, "))(");
        expr(t, a[0]);
        base_strbuf_puts(out, ")");
        return;
    case CC_IR_TRI: { /* over the valid region: tril keeps j <= i + d, triu j >= i + d */
        cc_type v = e->type;
        for (unsigned d = 0; a[2] && d < 2; d++)
            if (!cc_ir_const_int(a[2]->u.list.items[d], &v.shape[d])) return no_translation(t, e);
        base_strbuf_printf(out, "(lambda d: torch.%s(torch.ones(", e->u.op.mode ? "triu" : "tril");
        shape_list(t, &v);
        base_strbuf_printf(out, ", dtype=torch.int64), diagonal=d).to(%s))(", torch_dtype(dt));
        expr(t, a[0]);
        base_strbuf_puts(out, ")");
        return;
    }
    case CC_IR_RANDOM: { /* Philox4x32 on int64 tensors (tile_generate.c): 32x32-bit products split in 16-bit halves */
        int64_t n = 1;
        for (unsigned d = 0; d < e->type.rank; d++) n *= e->type.shape[d];
        base_strbuf_printf(out, "(lambda k0, k1, c0, c1, c2, c3: (M := 0xFFFFFFFF, i := torch.arange(%lld, dtype=torch.int64), "
                                "t := (c0 & M) + i // 4, x0 := t & M, t := (c1 & M) + (t >> 32), x1 := t & M, t := (c2 & M) + (t >> 32), "
                                "x2 := t & M, x3 := ((c3 & M) + (t >> 32)) & M, [(p1 := 0xD251 * x0, p0 := 0x1F53 * x0, "
                                "l0 := p0 + ((p1 & 0xFFFF) << 16), h0 := (p1 >> 16) + (l0 >> 32), q1 := 0xCD9E * x2, q0 := 0x8D57 * x2, "
                                "l1 := q0 + ((q1 & 0xFFFF) << 16), h1 := (q1 >> 16) + (l1 >> 32), x0 := h1 ^ x1 ^ ((k0 + r * 0x9E3779B9) & M), "
                                "x1 := l1 & M, x2 := h0 ^ x3 ^ ((k1 + r * 0xBB67AE85) & M), x3 := l0 & M) for r in range(%d)], w := i %% 4, "
                                "o := torch.where(w == 0, x0, torch.where(w == 1, x1, torch.where(w == 2, x2, x3))), "
                                "(o - ((o >> 31) << 32)).to(torch.int32).reshape(",
                           (long long)n, e->u.op.mode);
        shape_list(t, &e->type);
        base_strbuf_puts(out, ")[");
        for (unsigned d = 0; d < e->type.rank; d++) { /* the valid region */
            int64_t v = e->type.shape[d];
            if (a[7] && !cc_ir_const_int(a[7]->u.list.items[d], &v)) return no_translation(t, e);
            base_strbuf_printf(out, "%s0:%lld", d ? ", " : "", (long long)v);
        }
        base_strbuf_puts(out, "].clone())[-1])(");
        exprs(t, a, 6);
        base_strbuf_puts(out, ")");
        return;
    }
    case CC_IR_REINTERPRET_VIEW: /* the bytes of a fully valid tile */
        if (partial(a[0])) return no_translation(t, e);
        base_strbuf_puts(out, "(");
        expr(t, a[0]);
        base_strbuf_printf(out, ").contiguous().view(%s).reshape(", torch_dtype(dt));
        shape_list(t, &e->type);
        base_strbuf_puts(out, ")");
        return;
    case CC_IR_LOAD: /* the valid region: valid_shape= narrows, clamp= cuts at the edge */
        if (a[0]->type.rank != e->type.rank || !window_ok(a[1], e->type.rank) ||
            (a[3] && (a[3]->kind != CC_X_LIST || a[3]->u.list.n != e->type.rank)))
            return no_translation(t, e);
        window(t, a[0], a[1], e->type.shape, e->type.rank, a[3], NULL);
        base_strbuf_puts(out, ".clone()");
        return;
    case CC_IR_SLICE: /* a tile's: its valid region shifted and cut (Python's slicing), then cut to valid_shape */
        if (a[4] || !window_ok(a[2], a[0]->type.rank) || a[0]->type.rank != e->type.rank ||
            (a[3] && (a[3]->kind != CC_X_LIST || a[3]->u.list.n != e->type.rank)))
            return no_translation(t, e);
        if (a[3]) base_strbuf_puts(out, "(");
        window(t, a[0], a[2], e->type.shape, e->type.rank, NULL, NULL);
        if (a[3]) {
            base_strbuf_puts(out, ")[");
            for (uint32_t d = 0; d < a[3]->u.list.n; d++) {
                base_strbuf_puts(out, d ? ", :" : ":");
                expr(t, a[3]->u.list.items[d]);
            }
            base_strbuf_puts(out, "]");
        }
        if (a[0]->type.kind == CC_T_TILE) base_strbuf_puts(out, ".clone()");
        return;
    case CC_IR_FILLPAD:
    case CC_IR_FILLPAD_EXPAND:
        return padded(t, a[0], &e->type, e->u.op.mode, dt);
    case CC_IR_SET_VALIDSHAPE: /* zeros where the region grows */
        base_strbuf_puts(out, "(lambda x, S, v, r, c: " PAD_TO("x") "[:r, :c])(");
        expr(t, a[0]);
        base_strbuf_puts(out, ", ");
        shape_list(t, &e->type);
        base_strbuf_puts(out, ", 0, ");
        args2(t, a[1], a[2]);
        return;
    case CC_IR_CONCAT: /* each source with its zero pad */
        if (e->type.rank != 2) return no_translation(t, e);
        base_strbuf_puts(out, "torch.cat([");
        padded(t, a[0], &a[0]->type, 1, dt);
        base_strbuf_puts(out, ", ");
        padded(t, a[1], &a[1]->type, 1, dt);
        base_strbuf_puts(out, "], dim=1)");
        return;
    case CC_IR_MOVE:
        return expr(t, a[0]);
    case CC_IR_CREATE_TILE:
    case CC_IR_CREATE_TENSOR:
    case CC_IR_FULL: {
        const cc_ir_expr *v = o == CC_IR_FULL || o == CC_IR_CREATE_TENSOR ? a[1] : NULL;
        base_strbuf_puts(out, v ? "torch.full(" : "torch.zeros(");
        shape_list(t, &e->type);
        if (v) base_strbuf_puts(out, ", "), expr(t, v);
        base_strbuf_printf(out, ", dtype=%s)", torch_dtype(dt));
        return;
    }
    case CC_IR_RESHAPE:
        if (partial(a[0])) { /* the padded tile reshaped, cut to the box its valid elements land in */
            base_strbuf_puts(out, "(lambda x, S, T: (lambda P: (lambda r, m: r[tuple(slice(0, int(m.nonzero()[:, d].max()) + 1 "
                                  "if m.any() else 0) for d in range(len(T)))].clone())(torch.nn.functional.pad(x, P)"
                                  ".reshape(T), torch.nn.functional.pad(torch.ones_like(x), P).reshape(T)))([w for p, s in "
                                  "reversed(list(zip(x.shape, S))) for w in (0, s - p)]))(");
            expr(t, a[0]);
            base_strbuf_puts(out, ", ");
            shape_list(t, &a[0]->type);
            base_strbuf_puts(out, ", ");
            shape_list(t, &e->type);
            base_strbuf_puts(out, ")");
            return;
        }
        base_strbuf_puts(out, "torch.reshape(");
        expr(t, a[0]);
        base_strbuf_puts(out, ", ");
        shape_list(t, &e->type);
        base_strbuf_puts(out, ")");
        return;
    case CC_IR_TRANSPOSE:
    case CC_IR_TRANSPOSE_VIEW:
        base_strbuf_puts(out, "torch.transpose(");
        expr(t, a[0]);
        base_strbuf_printf(out, ", %d, %d).contiguous()", e->u.op.mode & 15, e->u.op.mode >> 4);
        return;
    case CC_IR_READ: { /* a tile's element outside its valid region reads 0 */
        int tile = a[0]->type.kind == CC_T_TILE;
        if (a[1]->kind != CC_X_LIST) { /* the flat row-major index over the shape: one index per axis */
            int64_t stride = 1;
            const cc_type *ty = &a[0]->type;
            base_strbuf_puts(out, "(lambda x, j: x[tuple(j)].item() if all(p < q for p, q in zip(j, x.shape)) else 0)(");
            expr(t, a[0]);
            base_strbuf_puts(out, ", [");
            for (int d = ty->rank; d-- > 0;) stride *= ty->shape[d];
            for (unsigned d = 0; d < ty->rank; d++) {
                stride /= ty->shape[d];
                base_strbuf_puts(out, d ? ", " : "");
                expr(t, a[1]);
                base_strbuf_printf(out, " // %lld %% %lld", (long long)stride, (long long)ty->shape[d]);
            }
            base_strbuf_puts(out, "])");
            return;
        }
        if (!tile || !partial(a[0])) {
            expr(t, a[0]);
            base_strbuf_puts(out, "[");
            exprs(t, a[1]->u.list.items, a[1]->u.list.n);
            base_strbuf_puts(out, "].item()");
            return;
        }
        base_strbuf_puts(out, "(lambda x, j: x[tuple(j)].item() if all(p < q for p, q in zip(j, x.shape)) else 0)(");
        args2(t, a[0], a[1]);
        return;
    }
    default:
        return no_translation(t, e);
    }
}

/* Does e read the block index or count (an SPMD kernel)? */
static int reads_block(cc_ir_expr *e, void *ctx)
{
    (void)ctx;
    return e->kind == CC_X_OP && (e->u.op.op == CC_IR_GET_BLOCK_IDX || e->u.op.op == CC_IR_GET_BLOCK_NUM);
}

/* A call: the callee by name; pl.submit's results end with a TaskId (None).
 * A call of n blocks (SPMD) runs the kernel once per block, in block order,
 * and gives the last run's results (every run returns the same buffers). */
static void call(tp *t, const cc_ir_expr *e)
{
    const cc_ir_func *f = e->u.call.callee;
    if (e->u.call.submit) base_strbuf_puts(t->out, f->nresults > 1 ? "(*" : "(");
    if (e->u.call.blocks) base_strbuf_puts(t->out, "[");
    base_strbuf_printf(t->out, "%s(", f->name);
    exprs(t, e->u.call.args, e->u.call.nargs);
    if (e->u.call.blocks) {
        int spmd = cc_ir_block_walk_exprs((cc_ir_block *)&f->body, reads_block, NULL);
        base_strbuf_printf(t->out, "%s) for _n in [", spmd ? (e->u.call.nargs ? ", _block=_b, _nblocks=_n" : "_block=_b, _nblocks=_n") : "");
        expr(t, e->u.call.blocks);
        base_strbuf_puts(t->out, "] for _b in range(_n)][-1]");
    } else {
        base_strbuf_puts(t->out, ")");
    }
    if (e->u.call.submit) base_strbuf_puts(t->out, f->nresults ? ", None)" : ", None)[1]");
}

static void expr(tp *t, const cc_ir_expr *e)
{
    base_strbuf *out = t->out;
    switch (e->kind) {
    case CC_X_INT: base_strbuf_printf(out, e->u.i < 0 ? "(%lld)" : "%lld", (long long)e->u.i); break;
    case CC_X_FLOAT: /* negative ones in parentheses: (-2.0) ** 2 */
        if (isnan(e->u.f) || isinf(e->u.f)) {
            base_strbuf_puts(out, isnan(e->u.f) ? "float(\"nan\")" : e->u.f < 0 ? "float(\"-inf\")" : "float(\"inf\")");
            break;
        }
        if (signbit(e->u.f)) base_strbuf_puts(out, "(");
        cc_print_float(e->u.f, out);
        if (signbit(e->u.f)) base_strbuf_puts(out, ")");
        break;
    case CC_X_BOOL: base_strbuf_puts(out, e->u.i ? "True" : "False"); break;
    case CC_X_STR: cc_print_str(e->u.str, strlen(e->u.str), out); break;
    case CC_X_VAR: base_strbuf_puts(out, e->u.name); break;
    case CC_X_BINARY:
        if (cc_op_prec(e->u.bin.op) == CC_PREC_ATOM) base_strbuf_printf(out, "%s(", cc_op_text(e->u.bin.op));
        else base_strbuf_puts(out, "(");
        expr(t, e->u.bin.l);
        base_strbuf_printf(out, cc_op_prec(e->u.bin.op) == CC_PREC_ATOM ? ", " : " %s ", cc_op_text(e->u.bin.op));
        expr(t, e->u.bin.r);
        base_strbuf_puts(out, ")");
        break;
    case CC_X_UNARY:
        base_strbuf_printf(out, "(%s", e->u.un.op == CC_OP_NOT ? "not " : cc_op_text(e->u.un.op));
        expr(t, e->u.un.x);
        base_strbuf_puts(out, ")");
        break;
    case CC_X_LIST:
        base_strbuf_puts(out, "[");
        exprs(t, e->u.list.items, e->u.list.n);
        base_strbuf_puts(out, "]");
        break;
    case CC_X_OP: op(t, e); break;
    case CC_X_CALL: call(t, e); break;
    }
}

/* ---- statements ------------------------------------------------------------------------- */

static void indent(tp *t, int depth)
{
    for (int k = 0; k < depth; k++) base_strbuf_puts(t->out, "    ");
}

static void block(tp *t, const cc_ir_block *b, int depth);

/* A store, an assemble or a write: the array written in place (a tile
 * assembled into is copied first); returns the expression naming the result. */
static int in_place(tp *t, const cc_ir_expr *v, const char *target, int depth)
{
    if (v->kind != CC_X_OP) return 0;
    cc_ir_op o = (cc_ir_op)v->u.op.op;
    cc_ir_expr *const *a = v->u.op.args;
    const cc_ir_expr *dst, *src, *offs;
    if (o == CC_IR_STORE) dst = a[2], src = a[0], offs = a[1];
    else if (o == CC_IR_ASSEMBLE) dst = a[0], src = a[1], offs = a[2];
    else if (o == CC_IR_WRITE) dst = a[0], src = a[2], offs = a[1];
    else return 0;
    if ((o == CC_IR_STORE && a[3]) || (o == CC_IR_ASSEMBLE && dst->type.kind == CC_T_TILE && !target) ||
        (o != CC_IR_WRITE && (!window_ok(offs, dst->type.rank) || src->type.rank != dst->type.rank))) {
        no_translation(t, v);
        return 1;
    }
    int copy = dst->type.kind == CC_T_TILE;
    /* the source's extents are its value's: a store writes its valid region, an assemble
     * into a tile the whole source (its zero pad too) */
    int narrow = o != CC_IR_WRITE && partial(src);
    if (narrow) {
        base_strbuf_puts(t->out, "_v = ");
        if (copy) padded(t, src, &src->type, 1, src->type.dtype);
        else expr(t, src);
        base_strbuf_puts(t->out, "\n");
        indent(t, depth);
    }
    if (copy && partial(dst)) { /* valid: the prefix box holding the target's and the written box; zeros added */
        base_strbuf_puts(t->out, "_t = ");
        expr(t, dst);
        base_strbuf_printf(t->out, "\n");
        indent(t, depth);
        base_strbuf_printf(t->out, "%s = (lambda x, S, v: " PAD_TO("x") ")(_t, ", target);
        shape_list(t, &dst->type);
        base_strbuf_puts(t->out, ", 0)[tuple(slice(0, max(p, a + b)) for p, a, b in zip(_t.shape, ");
        expr(t, offs);
        base_strbuf_puts(t->out, narrow ? ", _v.shape))].clone()\n" : ", ");
        if (!narrow) shape_list(t, &src->type), base_strbuf_puts(t->out, "))].clone()\n");
        indent(t, depth);
    } else if (copy) {
        base_strbuf_printf(t->out, "%s = (", target);
        expr(t, dst);
        base_strbuf_puts(t->out, ").clone()\n");
        indent(t, depth);
    }
    cc_ir_expr named = *dst;
    if (copy) named.kind = CC_X_VAR, named.u.name = target;
    if (o == CC_IR_WRITE) {
        expr(t, &named);
        base_strbuf_puts(t->out, "[");
        if (offs->kind == CC_X_LIST) exprs(t, offs->u.list.items, offs->u.list.n);
        else expr(t, offs);
        base_strbuf_puts(t->out, "] = ");
        expr(t, src);
    } else { /* atomic=pl.AtomicType.Add adds into the window */
        window(t, &named, offs, src->type.shape, src->type.rank, NULL, narrow ? "_v" : NULL);
        base_strbuf_puts(t->out, o == CC_IR_STORE && v->u.op.atomic ? " += " : " = ");
        if (narrow) base_strbuf_puts(t->out, "_v");
        else expr(t, src);
        if (src->type.kind == CC_T_TENSOR) base_strbuf_puts(t->out, ".clone()"); /* a view may overlap the window */
    }
    base_strbuf_puts(t->out, "\n");
    if (target && !copy && !(dst->kind == CC_X_VAR && !strcmp(dst->u.name, target))) {
        indent(t, depth);
        base_strbuf_printf(t->out, "%s = ", target);
        expr(t, dst);
        base_strbuf_puts(t->out, "\n");
    }
    return 1;
}

/* `<kw> <cond>:` at depth, then body one level in (if, while). */
static void headed(tp *t, int depth, const char *kw, const cc_ir_expr *cond, const cc_ir_block *body)
{
    indent(t, depth);
    base_strbuf_printf(t->out, "%s ", kw);
    expr(t, cond);
    base_strbuf_puts(t->out, ":\n");
    block(t, body, depth + 1);
}

static void stmt(tp *t, const cc_ir_stmt *s, int depth)
{
    base_strbuf *out = t->out;
    if (t->failed) return;
    switch (s->kind) {
    case CC_I_ASSIGN: {
        const cc_ir_expr *v = s->u.assign.value;
        indent(t, depth);
        if (s->u.assign.ntargets == 1 && in_place(t, v, s->u.assign.targets[0].name, depth)) return;
        for (uint32_t k = 0; k < s->u.assign.ntargets; k++)
            base_strbuf_printf(out, "%s%s", k ? ", " : "", s->u.assign.targets[k].name);
        base_strbuf_puts(out, " = ");
        if (s->u.assign.ntargets > 1 && v->kind == CC_X_LIST) exprs(t, v->u.list.items, v->u.list.n);
        else expr(t, v);
        base_strbuf_puts(out, "\n");
        return;
    }
    case CC_I_EXPR:
        indent(t, depth);
        if (in_place(t, s->u.expr, NULL, depth)) return;
        expr(t, s->u.expr);
        base_strbuf_puts(out, "\n");
        return;
    case CC_I_FOR:
        indent(t, depth);
        base_strbuf_printf(out, "for %s in range(", s->u.for_.var);
        expr(t, s->u.for_.start);
        base_strbuf_puts(out, ", ");
        expr(t, s->u.for_.stop);
        base_strbuf_puts(out, ", ");
        expr(t, s->u.for_.step);
        base_strbuf_puts(out, "):\n");
        return block(t, &s->u.for_.body, depth + 1);
    case CC_I_WHILE: return headed(t, depth, "while", s->u.while_.cond, &s->u.while_.body);
    case CC_I_IF:
        headed(t, depth, "if", s->u.if_.cond, &s->u.if_.then);
        if (!s->u.if_.orelse.n) return;
        indent(t, depth);
        base_strbuf_puts(out, "else:\n");
        return block(t, &s->u.if_.orelse, depth + 1);
    case CC_I_SCOPE: /* transparent */
        for (uint32_t k = 0; k < s->u.scope.body.n; k++) stmt(t, s->u.scope.body.items[k], depth);
        return;
    case CC_I_AT: /* a grouping level, transparent (kernel bodies are outlined) */
        if (s->u.at.as_name) indent(t, depth), base_strbuf_printf(out, "%s = None\n", s->u.at.as_name);
        for (uint32_t k = 0; k < s->u.at.body.n; k++) stmt(t, s->u.at.body.items[k], depth);
        return;
    case CC_I_RETURN:
        indent(t, depth);
        base_strbuf_puts(out, s->u.ret.n ? "return " : "return");
        exprs(t, s->u.ret.values, s->u.ret.n);
        base_strbuf_puts(out, "\n");
        return;
    }
}

static void block(tp *t, const cc_ir_block *b, int depth)
{
    size_t before = t->out->len;
    for (uint32_t k = 0; k < b->n; k++) stmt(t, b->items[k], depth);
    if (t->out->len == before) indent(t, depth), base_strbuf_puts(t->out, "pass\n");
}

/* ---- functions ----------------------------------------------------------------------------- */

/* Marks in seen[] (by function index) the InCore functions a body calls. */
typedef struct seen_ctx {
    const cc_ir_program *p;
    uint8_t *seen;
} seen_ctx;

static int callees(cc_ir_expr *e, void *ctx)
{
    seen_ctx *c = ctx;
    if (e->kind == CC_X_CALL && e->u.call.callee->kind == CC_FUNC_INCORE)
        for (uint32_t k = 0; k < c->p->nfuncs; k++)
            if (c->p->funcs[k] == e->u.call.callee) c->seen[k] = 1;
    return 0;
}

static void def(tp *t, const cc_ir_func *f, int depth, int check_shapes)
{
    if (f->kind == CC_FUNC_INCORE) { /* its narrowed tile variables, to a fixpoint */
        base_strmap_free(&t->narrowed);
        t->narrowed = (base_strmap){0};
        do t->changed = 0, cc_ir_block_each_stmt(&f->body, mark_narrowed, t);
        while (t->changed && !t->out->oom);
    }
    indent(t, depth);
    base_strbuf_printf(t->out, "def %s(", f->name);
    for (uint32_t k = 0; k < f->nparams; k++) base_strbuf_printf(t->out, "%s%s", k ? ", " : "", f->params[k].name);
    if (f->kind == CC_FUNC_INCORE && cc_ir_block_walk_exprs((cc_ir_block *)&f->body, reads_block, NULL)) /* an SPMD kernel: call */
        base_strbuf_printf(t->out, "%s_block=0, _nblocks=1", f->nparams ? ", " : "");
    base_strbuf_puts(t->out, "):\n");
    for (uint32_t k = 0; check_shapes && k < f->nparams; k++) {
        const cc_ir_param *p = &f->params[k];
        if (p->type.kind != CC_T_TENSOR) continue;
        indent(t, depth + 1);
        base_strbuf_printf(t->out, "assert tuple(%s.shape) == (", p->name);
        for (unsigned d = 0; d < p->type.rank; d++)
            base_strbuf_printf(t->out, "%s%lld", d ? ", " : "", (long long)p->type.shape[d]);
        base_strbuf_printf(t->out, "%s), \"%s: shape \" + str(tuple(%s.shape))\n", p->type.rank == 1 ? "," : "", p->name, p->name);
    }
    if (f->kind == CC_FUNC_ORCHESTRATION) {
        uint8_t *seen = calloc(t->p->nfuncs + 1, 1);
        if (!seen) {
            t->out->oom = 1;
            return;
        }
        seen_ctx c = {t->p, seen};
        cc_ir_block_walk_exprs(&f->body, callees, &c);
        for (uint32_t k = 0; k < t->p->nfuncs && !t->failed; k++)
            if (seen[k]) def(t, t->p->funcs[k], depth + 1, check_shapes);
        free(seen);
    }
    block(t, &f->body, depth + 1);
}

int cc_print_torch(const cc_ir_program *p, int check_shapes, base_strbuf *out)
{
    tp t = {.out = out, .d = p->diags, .p = p};
    base_strbuf_puts(out, "import torch\n");
    for (uint32_t k = 0; k < p->nfuncs && !t.failed; k++) {
        if (p->funcs[k]->kind != CC_FUNC_ORCHESTRATION) continue;
        base_strbuf_puts(out, "\n\n");
        def(&t, p->funcs[k], 0, check_shapes);
    }
    base_strmap_free(&t.narrowed);
    return t.failed ? -1 : 0;
}
