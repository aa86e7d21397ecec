/*
 * torch_ops.c - one IR op as a torch expression (torch_printer.c prints
 * the statements and functions around it; torch_int.h).
 *
 * Invariants:
 *  - Only ops whose torch form computes what the tile VM computes are
 *    translated: element-wise ops and casts to a float dtype bit for bit
 *    (a scalar operand is converted to the result's dtype first, as the VM
 *    does), reductions and matmul (FP32 accumulation, rounded once) to
 *    rounding.  Every other op, and a translated one in a form outside
 *    that (shapes=, drop_dims=, an integer division, a cast to an integer
 *    dtype, a narrowed operand where the VM's rule is not a crop), is the Unsup text
 *    `torch_codegen: '<op>' has no torch translation in this version` at the op;
 *    an op giving a UINT16 or UINT32 value (no torch 1.13 dtype) is
 *    `torch_codegen: dtype pl.UINT32 ('<op>') has no torch translation ...`.
 *  - The first error stops the print; the caller discards the text.
 */
#include <string.h>

#include "compiler/names.h"
#include "compiler/torch_int.h"

static const char *torch_dtype(uint8_t dt)
{
    switch ((cc_dtype)dt) {
    case CC_DT_FP32: return "torch.float32";
    case CC_DT_FP16: return "torch.float16";
    case CC_DT_BF16: return "torch.bfloat16";
    case CC_DT_INT32: return "torch.int32";
    case CC_DT_INT8: return "torch.int8";
    case CC_DT_INT16: return "torch.int16";
    case CC_DT_UINT8: return "torch.uint8";
    case CC_DT_BOOL: return "torch.bool";
    default: return "torch.int64"; /* INDEX, INT64 (UINT16, UINT32: refused by tp_op) */
    }
}

static int is_array(const cc_ir_expr *e) { return e->type.kind == CC_T_TILE || e->type.kind == CC_T_TENSOR; }

/* A scalar operand as a 0-d tensor of the result's dtype (the VM converts it so). */
static void operand(tp *t, const cc_ir_expr *e, uint8_t dtype)
{
    if (is_array(e)) return tp_expr(t, e);
    base_strbuf_puts(t->out, "torch.tensor(");
    tp_expr(t, e);
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

void tp_shape_list(tp *t, const cc_type *ty)
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
void tp_padded(tp *t, const cc_ir_expr *x, const cc_type *shape, int mode, uint8_t dt)
{
    base_strbuf_puts(t->out, "(lambda x, S, v: " PAD_TO("x") ")(");
    tp_expr(t, x);
    base_strbuf_puts(t->out, ", ");
    tp_shape_list(t, shape);
    base_strbuf_puts(t->out, ", ");
    pad_value(t, mode, dt);
    base_strbuf_puts(t->out, ")");
}

/* A row or column vector operand: with its zero pad when narrowed (the VM reads it). */
static void vector(tp *t, const cc_ir_expr *v)
{
    if (partial(v)) tp_padded(t, v, &v->type, 1, v->type.dtype);
    else tp_expr(t, v);
}

/* The arguments `x, v)` of a lambda over a tile and a row or column vector. */
static void tile_and_vector(tp *t, const cc_ir_expr *x, const cc_ir_expr *v)
{
    tp_expr(t, x);
    base_strbuf_puts(t->out, ", ");
    vector(t, v);
    base_strbuf_puts(t->out, ")");
}

static void args2(tp *t, const cc_ir_expr *x, const cc_ir_expr *y)
{
    tp_expr(t, x);
    base_strbuf_puts(t->out, ", ");
    tp_expr(t, y);
    base_strbuf_puts(t->out, ")");
}

void tp_op(tp *t, const cc_ir_expr *e)
{
    cc_ir_op o = (cc_ir_op)e->u.op.op;
    cc_ir_expr *const *a = e->u.op.args;
    base_strbuf *out = t->out;
    const char *fn;
    int dim;
    uint8_t dt = e->type.dtype;
    if ((dt == CC_DT_UINT16 || dt == CC_DT_UINT32) && e->type.kind != CC_T_VOID) { /* torch 1.13 has no such dtype */
        if (!t->failed)
            cc_diag_add(t->d, CC_DIAG_UNSUPPORTED, e->span, NULL, "torch_codegen: dtype pl.%s ('%s') has no torch translation in this version",
                        cc_dtype_name((cc_dtype)dt), cc_ir_op_name(o));
        t->failed = 1;
        return;
    }
    if (o == CC_IR_GET_BLOCK_IDX || o == CC_IR_GET_BLOCK_NUM) { /* the kernel's SPMD parameters (def) */
        base_strbuf_puts(out, o == CC_IR_GET_BLOCK_IDX ? "_block" : "_nblocks");
        return;
    }
    if ((fn = binary_fn(e))) {
        int expand = cc_ir_op_info(o)->cls != CC_OPC_BINARY;
        if (o == CC_IR_DIV && !cc_dtype_is_float(dt)) return tp_no_translation(t, e);
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
        tp_expr(t, a[0]);
        base_strbuf_puts(out, ")");
        return;
    }
    if ((fn = reduce_fn(o, &dim))) {
        /* sums and products accumulate in FP32 (integers: wrapping, as int64 then cut); arg-extrema are INT32 */
        int acc = !strcmp(fn, "torch.sum") || !strcmp(fn, "torch.prod"), arg = dt != a[0]->type.dtype;
        base_strbuf_printf(out, "%s((", fn);
        tp_expr(t, a[0]);
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
        tp_expr(t, a[0]);
        base_strbuf_puts(out, ", ");
        tp_expr(t, a[1]);
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
        tp_expr(t, a[sa]);
        base_strbuf_puts(out, ", ");
        operand(t, a[sb], dt);
        base_strbuf_puts(out, ", ");
        tp_expr(t, a[sc]);
        base_strbuf_puts(out, ")");
        return;
    }
    case CC_IR_GATHER: /* src (with its zero pad) flattened, read at the indices; a negative one fails as one past the end */
        base_strbuf_puts(out, "(lambda s, i: s.reshape(-1)[torch.where(i < 0, s.numel(), i.long())])(");
        vector(t, a[0]);
        base_strbuf_puts(out, ", ");
        tp_expr(t, a[1]);
        base_strbuf_puts(out, ")");
        return;
    case CC_IR_GATHER_MASK: { /* the pattern's columns of each row, the bits read as the result's dtype */
        int64_t stride, phase;
        cc_mask_pattern_step(e->u.op.mode, &stride, &phase);
        base_strbuf_printf(out, "(lambda s: s[:, %lld::%lld].clone())(", (long long)phase, (long long)stride);
        vector(t, a[0]);
        base_strbuf_printf(out, ")%s%s%s", e->u.op.dtype != 255 ? ".view(" : "", e->u.op.dtype != 255 ? torch_dtype(e->u.op.dtype) : "",
                           e->u.op.dtype != 255 ? ")" : "");
        return;
    }
    case CC_IR_SCATTER_MASK: { /* a copy of dst with src's columns at the pattern's positions */
        int64_t stride, phase;
        cc_mask_pattern_step(e->u.op.mode, &stride, &phase);
        base_strbuf_printf(out, "(lambda d, s: (lambda o: (o.__setitem__((slice(None), slice(%lld, None, %lld)), s), o)[1])(d.clone()))(",
                           (long long)phase, (long long)stride);
        return args2(t, a[0], a[1]);
    }
    case CC_IR_GATHER_DIM: /* per row: src (with its zero pad) read at each index's column; a negative one fails as one past the end */
        base_strbuf_puts(out, "(lambda s, i: torch.gather(s, 1, torch.where(i < 0, s.shape[1], i.long())))(");
        vector(t, a[0]);
        base_strbuf_puts(out, ", ");
        tp_expr(t, a[2]);
        base_strbuf_puts(out, ")");
        return;
    case CC_IR_MGATHER: { /* mem (with its zero pad) read flat or by rows at each index, under gather_oob's policy */
        int elem = e->u.op.mode & 1, oob = e->u.op.mode >> 1;
        static const char *const at[] = {"v[torch.where(i < 0, n, i)]", "v[i.clamp(0, n - 1)]", "v[i %% n]",
                                         "torch.where(((i >= 0) & (i < n))%s, v[i.clamp(0, n - 1)], torch.zeros((), dtype=v.dtype))"};
        base_strbuf_puts(out, "(lambda m, i: (lambda v, i: (lambda n: ");
        base_strbuf_printf(out, at[oob & 3], elem ? "" : "[:, None]");
        base_strbuf_printf(out, ")(v.shape[0]))(%s))(", elem ? "m.reshape(-1), i.long()" : "m, i.reshape(-1).long()");
        vector(t, a[0]);
        base_strbuf_puts(out, ", ");
        tp_expr(t, a[1]);
        base_strbuf_puts(out, ")");
        return;
    }
    case CC_IR_RSQRT: /* the VM's: sqrt, then a division */
        base_strbuf_puts(out, "torch.reciprocal(torch.sqrt(");
        tp_expr(t, a[0]);
        base_strbuf_puts(out, "))");
        return;
    case CC_IR_ROW_EXPAND_EXPDIF:
        base_strbuf_puts(out, "(lambda x, y: torch.exp(torch.sub(x, y[tuple(slice(0, p) for p in x.shape[:-1])])))(");
        return tile_and_vector(t, a[0], a[1]);
    case CC_IR_EXPAND_CLONE: /* the input broadcast over the target's shape */
        base_strbuf_puts(out, "(lambda x, y: x.expand(y.shape).clone())(");
        return args2(t, a[0], a[1]);
    case CC_IR_COL_EXPAND_EXPDIF:
        base_strbuf_puts(out, "(lambda x, y: torch.exp(torch.sub(x, y[..., :x.shape[-1]])))(");
        return tile_and_vector(t, a[0], a[1]);
    case CC_IR_ROW_EXPAND:
    case CC_IR_COL_EXPAND: /* the vector broadcast over the target's valid region */
        base_strbuf_printf(out, "(lambda x, y: y[tuple(slice(0, p) for p in x.shape[:-1])]%s.expand(x.shape).clone())(",
                           o == CC_IR_COL_EXPAND ? "[..., :x.shape[-1]]" : "");
        return tile_and_vector(t, a[0], a[1]);
    case CC_IR_EXPANDS:
        base_strbuf_puts(out, "torch.full_like(");
        tp_expr(t, a[0]);
        base_strbuf_puts(out, ", ");
        tp_expr(t, a[1]);
        base_strbuf_puts(out, ")");
        return;
    case CC_IR_CAST:
        if (!cc_dtype_is_float(e->u.op.dtype) || !is_array(a[0]) || e->u.op.mode == CC_CAST_ODD) return tp_no_translation(t, e); /* torch has no round-to-odd */
        base_strbuf_puts(out, "(");
        tp_expr(t, a[0]);
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
        if (e->type.rank != 2) return tp_no_translation(t, e);
        if (bias) base_strbuf_puts(out, "(lambda m, c: m + c[:, :m.shape[1]])(");
        if (plus)
            base_strbuf_printf(out, "(lambda c, i, m: (m[" "tuple(slice(0, min(p, q)) for p, q in zip(m.shape, c.shape))] "
                                    "+ (0 if i else c[tuple(slice(0, min(p, q)) for p, q in zip(c.shape, m.shape))].to(%s))"
                                    ").to(%s))(", acc, torch_dtype(dt));
        if (plus) {
            tp_expr(t, a[0]);
            base_strbuf_puts(out, ", ");
            if (o == CC_IR_MATMUL_ACC && a[3]) tp_expr(t, a[3]);
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
        tp_shape_list(t, &e->type);
        base_strbuf_puts(out, "))(");
        tp_expr(t, a[0]);
        base_strbuf_puts(out, ")");
        return;
    case CC_IR_TRI: { /* over the valid region: tril keeps j <= i + d, triu j >= i + d */
        cc_type v = e->type;
        for (unsigned d = 0; a[2] && d < 2; d++)
            if (!cc_ir_const_int(a[2]->u.list.items[d], &v.shape[d])) return tp_no_translation(t, e);
        base_strbuf_printf(out, "(lambda d: torch.%s(torch.ones(", e->u.op.mode ? "triu" : "tril");
        tp_shape_list(t, &v);
        base_strbuf_printf(out, ", dtype=torch.int64), diagonal=d).to(%s))(", torch_dtype(dt));
        tp_expr(t, a[0]);
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
        tp_shape_list(t, &e->type);
        base_strbuf_puts(out, ")[");
        for (unsigned d = 0; d < e->type.rank; d++) { /* the valid region */
            int64_t v = e->type.shape[d];
            if (a[7] && !cc_ir_const_int(a[7]->u.list.items[d], &v)) return tp_no_translation(t, e);
            base_strbuf_printf(out, "%s0:%lld", d ? ", " : "", (long long)v);
        }
        base_strbuf_puts(out, "].clone())[-1])(");
        tp_exprs(t, a, 6);
        base_strbuf_puts(out, ")");
        return;
    }
    case CC_IR_REINTERPRET_VIEW: /* the bytes of a fully valid tile */
        if (partial(a[0])) return tp_no_translation(t, e);
        base_strbuf_puts(out, "(");
        tp_expr(t, a[0]);
        base_strbuf_printf(out, ").contiguous().view(%s).reshape(", torch_dtype(dt));
        tp_shape_list(t, &e->type);
        base_strbuf_puts(out, ")");
        return;
    case CC_IR_LOAD: /* the valid region: valid_shape= narrows, clamp= cuts at the edge */
        if (a[0]->type.rank != e->type.rank || !tp_window_ok(a[1], e->type.rank) ||
            (a[3] && (a[3]->kind != CC_X_LIST || a[3]->u.list.n != e->type.rank)))
            return tp_no_translation(t, e);
        tp_window(t, a[0], a[1], e->type.shape, e->type.rank, a[3], NULL);
        base_strbuf_puts(out, ".clone()");
        return;
    case CC_IR_SLICE: /* a tile's: its valid region shifted and cut (Python's slicing), then cut to valid_shape;
                       * a view's valid region (orch_vm.h) has no torch counterpart: a cut view would not alias */
        if (a[4] || !tp_window_ok(a[2], a[0]->type.rank) || a[0]->type.rank != e->type.rank || (a[3] && a[0]->type.kind == CC_T_TENSOR) ||
            (a[3] && (a[3]->kind != CC_X_LIST || a[3]->u.list.n != e->type.rank)))
            return tp_no_translation(t, e);
        if (a[3]) base_strbuf_puts(out, "(");
        tp_window(t, a[0], a[2], e->type.shape, e->type.rank, NULL, NULL);
        if (a[3]) {
            base_strbuf_puts(out, ")[");
            for (uint32_t d = 0; d < a[3]->u.list.n; d++) {
                base_strbuf_puts(out, d ? ", :" : ":");
                tp_expr(t, a[3]->u.list.items[d]);
            }
            base_strbuf_puts(out, "]");
        }
        if (a[0]->type.kind == CC_T_TILE) base_strbuf_puts(out, ".clone()");
        return;
    case CC_IR_FILLPAD:
    case CC_IR_FILLPAD_EXPAND:
        return tp_padded(t, a[0], &e->type, e->u.op.mode, dt);
    case CC_IR_SET_VALIDSHAPE: /* zeros where the region grows */
        base_strbuf_puts(out, "(lambda x, S, v, r, c: " PAD_TO("x") "[:r, :c])(");
        tp_expr(t, a[0]);
        base_strbuf_puts(out, ", ");
        tp_shape_list(t, &e->type);
        base_strbuf_puts(out, ", 0, ");
        args2(t, a[1], a[2]);
        return;
    case CC_IR_CONCAT: /* each source with its zero pad */
        if (e->type.rank != 2) return tp_no_translation(t, e);
        base_strbuf_puts(out, "torch.cat([");
        tp_padded(t, a[0], &a[0]->type, 1, dt);
        base_strbuf_puts(out, ", ");
        tp_padded(t, a[1], &a[1]->type, 1, dt);
        base_strbuf_puts(out, "], dim=1)");
        return;
    case CC_IR_MOVE:
        return tp_expr(t, a[0]);
    case CC_IR_CREATE_TILE:
    case CC_IR_CREATE_TENSOR:
    case CC_IR_FULL: {
        const cc_ir_expr *v = o == CC_IR_FULL || o == CC_IR_CREATE_TENSOR ? a[1] : NULL;
        base_strbuf_puts(out, v ? "torch.full(" : "torch.zeros(");
        tp_shape_list(t, &e->type);
        if (v) base_strbuf_puts(out, ", "), tp_expr(t, v);
        base_strbuf_printf(out, ", dtype=%s)", torch_dtype(dt));
        return;
    }
    case CC_IR_RESHAPE:
        if (partial(a[0])) { /* the padded tile reshaped, cut to the box its valid elements land in */
            base_strbuf_puts(out, "(lambda x, S, T: (lambda P: (lambda r, m: r[tuple(slice(0, int(m.nonzero()[:, d].max()) + 1 "
                                  "if m.any() else 0) for d in range(len(T)))].clone())(torch.nn.functional.pad(x, P)"
                                  ".reshape(T), torch.nn.functional.pad(torch.ones_like(x), P).reshape(T)))([w for p, s in "
                                  "reversed(list(zip(x.shape, S))) for w in (0, s - p)]))(");
            tp_expr(t, a[0]);
            base_strbuf_puts(out, ", ");
            tp_shape_list(t, &a[0]->type);
            base_strbuf_puts(out, ", ");
            tp_shape_list(t, &e->type);
            base_strbuf_puts(out, ")");
            return;
        }
        base_strbuf_puts(out, "torch.reshape(");
        tp_expr(t, a[0]);
        base_strbuf_puts(out, ", ");
        tp_shape_list(t, &e->type);
        base_strbuf_puts(out, ")");
        return;
    case CC_IR_TRANSPOSE:
    case CC_IR_TRANSPOSE_VIEW:
        base_strbuf_puts(out, "torch.transpose(");
        tp_expr(t, a[0]);
        base_strbuf_printf(out, ", %d, %d).contiguous()", e->u.op.mode & 15, e->u.op.mode >> 4);
        return;
    case CC_IR_READ: { /* a tile's element outside its valid region reads 0 */
        int tile = a[0]->type.kind == CC_T_TILE;
        if (a[1]->kind != CC_X_LIST) { /* the flat row-major index over the shape: one index per axis */
            int64_t stride = 1;
            const cc_type *ty = &a[0]->type;
            base_strbuf_puts(out, "(lambda x, j: x[tuple(j)].item() if all(p < q for p, q in zip(j, x.shape)) else 0)(");
            tp_expr(t, a[0]);
            base_strbuf_puts(out, ", [");
            for (int d = ty->rank; d-- > 0;) stride *= ty->shape[d];
            for (unsigned d = 0; d < ty->rank; d++) {
                stride /= ty->shape[d];
                base_strbuf_puts(out, d ? ", " : "");
                tp_expr(t, a[1]);
                base_strbuf_printf(out, " // %lld %% %lld", (long long)stride, (long long)ty->shape[d]);
            }
            base_strbuf_puts(out, "])");
            return;
        }
        if (!tile || !partial(a[0])) {
            tp_expr(t, a[0]);
            base_strbuf_puts(out, "[");
            tp_exprs(t, a[1]->u.list.items, a[1]->u.list.n);
            base_strbuf_puts(out, "].item()");
            return;
        }
        base_strbuf_puts(out, "(lambda x, j: x[tuple(j)].item() if all(p < q for p, q in zip(j, x.shape)) else 0)(");
        args2(t, a[0], a[1]);
        return;
    }
    default:
        return tp_no_translation(t, e);
    }
}
