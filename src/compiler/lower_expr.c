/*
 * lower_expr.c - the builder of one procedure (instructions, registers,
 * slots and tiles, the names that own them) and scalar expressions.
 *
 * A scalar expression becomes instructions that leave its value in a
 * register: a variable is its own register, anything else a fresh
 * temporary.  Integer and float operands are never mixed in one
 * instruction: a CAST converts first (int with float promotes to the
 * float dtype, as the type checker typed it).
 */
#include <string.h>

#include "base/array.h"
#include "compiler/lower_int.h"

static const char *const lo_opcode_names[] = {
#define CC_LO_OPCODE_NAME_(n) #n,
    CC_LO_OPCODE_LIST(CC_LO_OPCODE_NAME_)
#undef CC_LO_OPCODE_NAME_
};

const char *cc_lo_opcode_name(cc_lo_opcode c) { return (unsigned)c < CC_LO_OPCODE_COUNT ? lo_opcode_names[c] : "?"; }

/* ---- the builder ---------------------------------------------------------------------- */

int lo_internal(lo_b *b, cc_span sp, const char *what)
{
    if (!b->x->failed)
        cc_diag_add(b->x->p->diags, CC_DIAG_INTERNAL, sp, NULL,
                    "%s reached lowering (internal compiler error; please report)", what);
    b->x->failed = 1;
    return -1;
}

int lo_oom(lo_b *b, cc_span sp)
{
    if (!b->x->failed) cc_diag_oom(b->x->p->diags, sp, "out of memory while lowering");
    b->x->failed = 1;
    return -1;
}

void *lo_alloc(lo_b *b, size_t n, size_t elem, cc_span sp)
{
    if (!n || b->x->failed) return NULL;
    void *m = base_arena_alloc(b->x->a, n * elem);
    if (!m) lo_oom(b, sp);
    return m;
}

cc_lo_insn *lo_emit(lo_b *b, cc_lo_opcode code, cc_span sp)
{
    if (b->x->failed) return NULL;
    if (b->ncode == b->capcode) {
        cc_lo_insn *q = base_array_grow(b->code, &b->capcode, sizeof *q, 64);
        if (!q) return lo_oom(b, sp), NULL;
        b->code = q;
    }
    cc_lo_insn *in = &b->code[b->ncode++];
    memset(in, 0, sizeof *in);
    if (!sp.line) sp = b->at;
    /* the file's column, as a diagnostic prints it: the text may be dedented
     * (pto_compile_options.first_column); run-time errors cite it */
    const cc_diags *d = b->x->p->diags;
    uint32_t shift = d && sp.col && cc_diag_source(d, sp.line) == d->src ? d->col_offset : 0; /* another module's is its file's */
    in->code = (uint8_t)code, in->line = sp.line, in->col = sp.col + shift;
    in->dst = in->a = in->b = in->c = -1;
    return in;
}

cc_lo_kind lo_kind_of(const cc_type *t)
{
    return t->kind == CC_T_TENSOR ? CC_LO_TENSOR : t->kind == CC_T_TILE ? CC_LO_TILE : CC_LO_REG;
}

int32_t lo_new(lo_b *b, cc_lo_kind k, const char *name, cc_type t)
{
    if (b->x->failed) return -1;
    if (b->nslots[k] == b->capslots[k]) {
        cc_lo_slot *q = base_array_grow(b->slots[k], &b->capslots[k], sizeof *q, 16);
        if (!q) return lo_oom(b, b->f->span);
        b->slots[k] = q;
    }
    b->slots[k][b->nslots[k]] = (cc_lo_slot){.name = name, .type = t};
    return (int32_t)b->nslots[k]++;
}

int32_t lo_var(lo_b *b, const char *name, cc_type t)
{
    int64_t head = base_strmap_get(&b->name_index, name);
    for (int64_t k = head; k >= 0; k = b->names[k].next)
        if (cc_type_equal(&b->names[k].type, &t)) return b->names[k].index;
    int32_t index = lo_new(b, lo_kind_of(&t), name, t);
    if (index < 0) return -1;
    if (t.kind == CC_T_ARRAY) { /* its n slots, consecutive TASK_ID registers (lower_array.c) */
        const cc_type tid = {.kind = CC_T_SCALAR, .dtype = CC_DT_TASK_ID};
        b->slots[CC_LO_REG][index].type = tid;
        for (int64_t k = 1; k < t.shape[0]; k++)
            if (lo_new(b, CC_LO_REG, name, tid) < 0) return -1;
    }
    if (b->nnames == b->capnames) {
        lo_name *q = base_array_grow(b->names, &b->capnames, sizeof *q, 16);
        if (!q) return lo_oom(b, b->f->span);
        b->names = q;
    }
    if (base_strmap_put(&b->name_index, name, b->nnames) != 0) return lo_oom(b, b->f->span);
    b->names[b->nnames++] = (lo_name){name, t, index, (int32_t)head};
    return index;
}

/* ---- scalar expressions ------------------------------------------------------------------ */

static cc_type lo_scalar_type(int dtype) { return (cc_type){.kind = CC_T_SCALAR, .dtype = (uint8_t)dtype}; }

static int lo_reg_dtype(const lo_b *b, int32_t r) { return r < 0 ? CC_DT_INDEX : b->slots[CC_LO_REG][r].type.dtype; }

/* Does a value of dtype from need a CAST to be read as dtype to?  Integer
 * dtypes share int64 registers, float dtypes double registers. */
static int lo_needs_cast(int from, int to) { return cc_dtype_is_float((cc_dtype)from) != cc_dtype_is_float((cc_dtype)to); }

static void lo_cast(lo_b *b, int32_t dst, int32_t src, int dtype, cc_cast_mode mode, cc_span sp)
{
    cc_lo_insn *in = lo_emit(b, CC_LO_CAST, sp);
    if (in) in->dst = dst, in->a = src, in->dtype = (uint8_t)dtype, in->mode = (uint8_t)mode;
}

int32_t lo_scalar(lo_b *b, const cc_ir_expr *e, int dtype)
{
    if (b->x->failed) return -1;
    if (e->kind == CC_X_VAR && lo_kind_of(&e->type) == CC_LO_REG) {
        int32_t r = lo_var(b, e->u.name, e->type);
        if (dtype < 0 || !lo_needs_cast(e->type.dtype, dtype)) return r;
        int32_t t = lo_new(b, CC_LO_REG, NULL, lo_scalar_type(dtype));
        lo_cast(b, t, r, dtype, CC_CAST_ROUND, e->span);
        return t;
    }
    int32_t t = lo_new(b, CC_LO_REG, NULL, lo_scalar_type(dtype < 0 ? e->type.dtype : dtype));
    if (t >= 0) lo_scalar_into(b, e, t);
    return t;
}

static void lo_binary(lo_b *b, const cc_ir_expr *e, int32_t dst)
{
    int dt = cc_scalar_bin_dtype(e->u.bin.op, (cc_dtype)e->u.bin.l->type.dtype, (cc_dtype)e->u.bin.r->type.dtype);
    int32_t l = lo_scalar(b, e->u.bin.l, dt), r = lo_scalar(b, e->u.bin.r, dt);
    cc_lo_insn *in = lo_emit(b, CC_LO_BIN, e->span);
    if (in) in->op = (uint8_t)e->u.bin.op, in->dtype = (uint8_t)dt, in->dst = dst, in->a = l, in->b = r;
}

static void lo_unary(lo_b *b, const cc_ir_expr *e, int32_t dst)
{
    int dt = e->u.un.op == CC_OP_NOT ? -1 : e->type.dtype;
    int32_t x = lo_scalar(b, e->u.un.x, dt);
    cc_lo_insn *in = lo_emit(b, CC_LO_UN, e->span);
    /* NEG computes in its result's dtype (-INT8 is int64, as the type checker typed it) */
    if (in) in->op = (uint8_t)e->u.un.op, in->dtype = (uint8_t)(dt < 0 ? lo_reg_dtype(b, x) : dt), in->dst = dst, in->a = x;
}

/* A constant into dst, read as dst's dtype as a variable is (cc_scalar_operand: a CAST across classes). */
static void lo_const(lo_b *b, const cc_ir_expr *e, int32_t dst)
{
    int dt = lo_reg_dtype(b, dst);
    cc_scalar v;
    if (!cc_scalar_of(e, &v)) return (void)lo_internal(b, e->span, "a constant of another type");
    cc_lo_insn *in = lo_emit(b, CC_LO_CONST, e->span);
    if (!in) return;
    in->dst = dst, in->dtype = (uint8_t)dt;
    v = cc_scalar_operand((cc_dtype)e->type.dtype, (cc_dtype)dt, v);
    if (cc_dtype_is_float((cc_dtype)dt)) in->u.imm.f = v.f;
    else in->u.imm.i = v.i;
}

void lo_scalar_into(lo_b *b, const cc_ir_expr *e, int32_t dst)
{
    if (b->x->failed) return;
    int want = lo_reg_dtype(b, dst);
    if (e->kind == CC_X_INT || e->kind == CC_X_BOOL || e->kind == CC_X_FLOAT) return lo_const(b, e, dst);
    if (e->kind == CC_X_VAR) {
        int32_t r = lo_var(b, e->u.name, e->type);
        if (r == dst || r < 0) return;
        if (lo_needs_cast(e->type.dtype, want)) return lo_cast(b, dst, r, want, CC_CAST_ROUND, e->span);
        cc_lo_insn *in = lo_emit(b, CC_LO_MOV, e->span);
        if (in) in->dst = dst, in->a = r;
        return;
    }
    if (lo_needs_cast(e->type.dtype, want)) return lo_cast(b, dst, lo_scalar(b, e, -1), want, CC_CAST_ROUND, e->span);
    if (e->kind == CC_X_BINARY) return lo_binary(b, e, dst);
    if (e->kind == CC_X_UNARY) return lo_unary(b, e, dst);
    if (e->kind == CC_X_OP && e->u.op.op == CC_IR_CAST && e->type.kind == CC_T_SCALAR)
        return lo_cast(b, dst, lo_scalar(b, e->u.op.args[0], -1), e->u.op.dtype, (cc_cast_mode)e->u.op.mode, e->span);
    if (e->kind == CC_X_OP && e->u.op.op == CC_IR_READ) return lo_read_into(b, e, dst);
    if (e->kind == CC_X_OP && cc_ir_op_info((cc_ir_op)e->u.op.op)->cls == CC_OPC_BLOCK) {
        cc_lo_insn *in = lo_emit(b, CC_LO_BLOCK, e->span);
        if (in) in->dst = dst, in->dtype = CC_DT_INDEX, in->mode = e->u.op.op == CC_IR_GET_BLOCK_NUM;
        return;
    }
    if (e->kind == CC_X_OP && e->u.op.op == CC_IR_TENSOR_DIM) { /* pl.tensor.dim of a dynamic dimension */
        const cc_ir_expr *x = e->u.op.args[0];
        if (x->kind != CC_X_VAR) return (void)lo_internal(b, x->span, "a tensor operand that is not a variable");
        int32_t t = lo_var(b, x->u.name, x->type);
        cc_lo_insn *in = lo_emit(b, CC_LO_DIM, e->span);
        if (in) in->dst = dst, in->a = t, in->dtype = CC_DT_INDEX, in->u.imm.i = e->u.op.args[1]->u.i;
        return;
    }
    if (e->kind == CC_X_ARRAY && e->u.list.aop == CC_ARR_GET) return lo_array_get_into(b, e, dst);
    if (lo_is_dist(e)) return lo_dist_scalar_into(b, e, dst);
    lo_internal(b, e->span, "a non-scalar value in a scalar expression");
}

void lo_index_list(lo_b *b, const cc_ir_expr *e, int32_t *out, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++) out[k] = -1;
    if (!e) return;
    if (e->kind != CC_X_LIST || e->u.list.n != n) {
        lo_internal(b, e->span, "a list that is not a literal of the tensor's rank");
        return;
    }
    for (uint32_t k = 0; k < n; k++) out[k] = lo_scalar(b, e->u.list.items[k], CC_DT_INDEX);
}
