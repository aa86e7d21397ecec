/*
 * tile_vm.c - the tile VM (tile_vm.h): a flat switch over the kernel's
 * instructions; scalar ops on 64-bit registers, tile ops handed to
 * pto_tile once per instruction.
 *
 * Invariants: registers hold int64 for integer dtypes (BOOL 0/1, values
 * wrapped to their dtype's width) and double for float dtypes; every tile
 * has its static shape and dtype from kernel->tiles and points into the
 * thread's workspace; nothing is allocated per task once the workspace is
 * big enough for the kernel.
 */
#include "exec/tile_vm.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tile/tile.h"

_Static_assert((int)TILE_FP32 == (int)CC_DT_FP32 && (int)TILE_INT8 == (int)CC_DT_INT8, "tile dtypes mirror cc_dtype");
_Static_assert(CC_IR_MINIMUM - CC_IR_ADD == TILE_MIN && CC_IR_RELU - CC_IR_EXP == TILE_RELU, "tile ops mirror cc_ir_op");

typedef union vm_reg { int64_t i; double f; } vm_reg;

typedef struct vm_ws {
    char *mem;
    size_t cap;
    tile_scratch scratch;
} vm_ws;

static pthread_key_t vm_key;
static pthread_once_t vm_key_once = PTHREAD_ONCE_INIT;
static _Thread_local vm_ws *vm_tls;

static void vm_ws_free(void *p)
{
    vm_ws *w = p;
    free(w->mem);
    tile_scratch_free(&w->scratch);
    free(w);
}

static void vm_key_make(void) { (void)pthread_key_create(&vm_key, vm_ws_free); }

static vm_ws *vm_ws_get(size_t need)
{
    if (!vm_tls) {
        pthread_once(&vm_key_once, vm_key_make);
        vm_tls = calloc(1, sizeof *vm_tls);
        if (!vm_tls) return NULL;
        pthread_setspecific(vm_key, vm_tls);
    }
    if (vm_tls->cap < need) {
        char *m = realloc(vm_tls->mem, need);
        if (!m) return NULL;
        vm_tls->mem = m, vm_tls->cap = need;
    }
    return vm_tls;
}

typedef struct vm {
    const cc_lowered *l;
    const cc_lo_proc *k;
    const pto_kernel_args *args;
    vm_reg *r;
    tile *v;
    int32_t *tmap;        /* tensor slot -> view index, -1: none */
    tile_tensor *tensors; /* per view */
    tile_scratch *scratch;
    char msg[512];
} vm;

static int vm_fail(vm *m, const cc_lo_insn *in, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int vm_fail(vm *m, const cc_lo_insn *in, const char *fmt, ...)
{
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(m->msg, sizeof m->msg, fmt, ap);
        va_end(ap);
    }
    if (m->args->message && m->args->message_len)
        snprintf(m->args->message, m->args->message_len, "%s (at %s:%u)", m->msg, m->l->file ? m->l->file : "-",
                 in ? in->line : m->k->line);
    return -1;
}

static int vm_is_float(uint8_t dt) { return dt == CC_DT_FP32 || dt == CC_DT_FP16 || dt == CC_DT_BF16; }

/* An integer result wrapped to its dtype's width. */
static int64_t vm_wrap(uint64_t v, uint8_t dt)
{
    switch (dt) {
    case CC_DT_INT32: return (int32_t)(uint32_t)v;
    case CC_DT_INT8: return (int8_t)(uint8_t)v;
    case CC_DT_BOOL: return v != 0;
    default: return (int64_t)v;
    }
}

/* A float value rounded to a float dtype's precision. */
static double vm_round_float(double x, uint8_t dt)
{
    tile in = {.data = &(float){(float)x}, .dtype = TILE_FP32, .rank = 1, .shape = {1}, .valid = {1}};
    if (dt == CC_DT_FP32) return (float)x;
    uint16_t h;
    tile out = {.data = &h, .dtype = dt, .rank = 1, .shape = {1}, .valid = {1}};
    float f;
    tile back = {.data = &f, .dtype = TILE_FP32, .rank = 1, .shape = {1}, .valid = {1}};
    tile_cast(&out, &in, TILE_RINT, NULL, 0);
    tile_cast(&back, &out, TILE_RINT, NULL, 0);
    return f;
}

/* Scalar pl.cast: float -> int by mode, saturating, NaN -> 0. */
static vm_reg vm_cast(vm_reg a, uint8_t from, uint8_t to, uint8_t mode)
{
    vm_reg o;
    if (vm_is_float(to)) {
        o.f = vm_round_float(vm_is_float(from) ? a.f : (double)a.i, to);
        return o;
    }
    double lo = to == CC_DT_INT8 ? -128.0 : to == CC_DT_INT32 ? -2147483648.0 : -9223372036854775808.0;
    double hi = to == CC_DT_INT8 ? 127.0 : to == CC_DT_INT32 ? 2147483647.0 : 9223372036854774784.0;
    if (to == CC_DT_BOOL) {
        o.i = vm_is_float(from) ? a.f != 0 : a.i != 0;
        return o;
    }
    if (!vm_is_float(from)) {
        o.i = a.i < lo ? (int64_t)lo : (double)a.i > hi && to != CC_DT_INDEX && to != CC_DT_TASK_ID ? (int64_t)hi : a.i;
        return o;
    }
    double x = a.f != a.f ? 0 : a.f;
    switch (mode) {
    case CC_CAST_ROUND: x = round(x); break;
    case CC_CAST_RINT: x = nearbyint(x); break;
    case CC_CAST_FLOOR: x = floor(x); break;
    case CC_CAST_CEIL: x = ceil(x); break;
    default: x = trunc(x); break;
    }
    o.i = x < lo ? (int64_t)lo : x > hi ? (int64_t)hi : (int64_t)x;
    return o;
}

static int64_t vm_floordiv(int64_t a, int64_t b)
{
    if (b == -1) return (int64_t)(0 - (uint64_t)a);
    int64_t q = a / b;
    return q - ((a % b != 0) && ((a < 0) != (b < 0)));
}

static int vm_bin(vm *m, const cc_lo_insn *in)
{
    vm_reg a = m->r[in->a], b = m->r[in->b], *d = &m->r[in->dst];
    uint8_t dt = in->dtype;
    cc_op op = (cc_op)in->op;
    if (op >= CC_OP_EQ && op <= CC_OP_GE) {
        int lt = vm_is_float(dt) ? a.f < b.f : a.i < b.i, eq = vm_is_float(dt) ? a.f == b.f : a.i == b.i;
        int gt = vm_is_float(dt) ? a.f > b.f : a.i > b.i;
        d->i = op == CC_OP_EQ ? eq : op == CC_OP_NE ? !eq : op == CC_OP_LT ? lt : op == CC_OP_LE ? lt || eq : op == CC_OP_GT ? gt : gt || eq;
        return 0;
    }
    if (op == CC_OP_AND || op == CC_OP_OR) {
        d->i = op == CC_OP_AND ? a.i && b.i : a.i || b.i;
        return 0;
    }
    if (vm_is_float(dt)) {
        double x = a.f, y = b.f, q;
        switch (op) {
        case CC_OP_ADD: d->f = x + y; break;
        case CC_OP_SUB: d->f = x - y; break;
        case CC_OP_MUL: d->f = x * y; break;
        case CC_OP_DIV: d->f = x / y; break;
        case CC_OP_FLOORDIV: d->f = floor(x / y); break;
        case CC_OP_MOD: q = fmod(x, y); d->f = q != 0 && ((q < 0) != (y < 0)) ? q + y : q; break;
        case CC_OP_MIN: d->f = x < y ? x : y; break;
        case CC_OP_MAX: d->f = x > y ? x : y; break;
        default: return vm_fail(m, in, "internal error: BIN op %d on floats", op);
        }
        return 0;
    }
    int64_t x = a.i, y = b.i;
    uint64_t r;
    switch (op) {
    case CC_OP_ADD: r = (uint64_t)x + (uint64_t)y; break;
    case CC_OP_SUB: r = (uint64_t)x - (uint64_t)y; break;
    case CC_OP_MUL: r = (uint64_t)x * (uint64_t)y; break;
    case CC_OP_DIV: case CC_OP_FLOORDIV: case CC_OP_MOD:
        if (y == 0) return vm_fail(m, in, "integer division by zero");
        if (op == CC_OP_DIV) r = y == -1 ? 0 - (uint64_t)x : (uint64_t)(x / y);
        else if (op == CC_OP_FLOORDIV) r = (uint64_t)vm_floordiv(x, y);
        else r = y == -1 ? 0 : (uint64_t)(x - vm_floordiv(x, y) * y);
        break;
    case CC_OP_MIN: r = (uint64_t)(x < y ? x : y); break;
    case CC_OP_MAX: r = (uint64_t)(x > y ? x : y); break;
    default: return vm_fail(m, in, "internal error: BIN op %d on integers", op);
    }
    d->i = vm_wrap(r, dt);
    return 0;
}

static int vm_trips(vm *m, const cc_lo_insn *in)
{
    int64_t a = m->r[in->a].i, b = m->r[in->b].i, c = m->r[in->c].i;
    if (c == 0) return vm_fail(m, in, "pl.range() step must be non-zero");
    __int128 span = c > 0 ? (__int128)b - a : (__int128)a - b, step = c > 0 ? c : -(__int128)c;
    m->r[in->dst].i = span <= 0 ? 0 : (int64_t)((span + step - 1) / step);
    return 0;
}

/* Offsets (and extents: -1 stays -1) of a LOAD/STORE from its registers. */
static void vm_mem_regs(const vm *m, const cc_lo_insn *in, int64_t *off, int64_t *ext)
{
    for (int d = 0; d < in->u.mem.rank; d++) {
        off[d] = m->r[in->u.mem.off[d]].i;
        ext[d] = in->u.mem.ext[d] < 0 ? -1 : m->r[in->u.mem.ext[d]].i;
    }
}

static const tile_tensor *vm_tensor(vm *m, int32_t slot)
{
    int32_t k = slot >= 0 && (uint32_t)slot < m->k->ntensors ? m->tmap[slot] : -1;
    return k < 0 ? NULL : &m->tensors[k];
}

static int vm_top(vm *m, const cc_lo_insn *in)
{
    tile *d = &m->v[in->dst], *a = &m->v[in->a];
    cc_ir_op op = (cc_ir_op)in->op;
    int rc;
    if (op >= CC_IR_ADD && op <= CC_IR_MINIMUM) {
        tile_binop bop = (tile_binop)(op - CC_IR_ADD);
        if (in->b_scalar) {
            vm_reg r = m->r[in->b];
            int rf = vm_is_float(m->k->regs[in->b].type.dtype);
            tile_scalar s;
            if (tile_dtype_is_float((tile_dtype)a->dtype)) s.f = rf ? r.f : (double)r.i;
            else s.i = rf ? (int64_t)r.f : r.i;
            rc = tile_binary_scalar(d, a, s, bop, m->msg, sizeof m->msg);
        } else {
            rc = tile_binary(d, a, &m->v[in->b], bop, m->msg, sizeof m->msg);
        }
    } else if (op >= CC_IR_EXP && op <= CC_IR_RELU) {
        rc = tile_unary(d, a, (tile_unop)(op - CC_IR_EXP), m->msg, sizeof m->msg);
    } else if (op == CC_IR_ROW_SUM || op == CC_IR_ROW_MAX) {
        rc = (op == CC_IR_ROW_SUM ? tile_row_sum : tile_row_max)(d, a, m->msg, sizeof m->msg);
    } else if (op == CC_IR_CAST) {
        rc = tile_cast(d, a, (tile_round)in->mode, m->msg, sizeof m->msg);
    } else if (op == CC_IR_MATMUL) {
        rc = tile_matmul(d, a, &m->v[in->b], m->scratch, m->msg, sizeof m->msg);
    } else {
        return vm_fail(m, in, "internal error: tile op %d", op);
    }
    return rc ? vm_fail(m, in, NULL) : 0;
}

static int vm_exec(vm *m)
{
    const cc_lo_proc *k = m->k;
    for (uint32_t pc = 0; pc < k->ncode;) {
        const cc_lo_insn *in = &k->code[pc++];
        switch ((cc_lo_opcode)in->code) {
        case CC_LO_CONST: m->r[in->dst].i = in->u.imm.i; if (vm_is_float(in->dtype)) m->r[in->dst].f = in->u.imm.f; break;
        case CC_LO_MOV: m->r[in->dst] = m->r[in->a]; break;
        case CC_LO_CAST: m->r[in->dst] = vm_cast(m->r[in->a], k->regs[in->a].type.dtype, in->dtype, in->mode); break;
        case CC_LO_BIN: if (vm_bin(m, in)) return -1; break;
        case CC_LO_UN:
            if (in->op == CC_OP_NOT) m->r[in->dst].i = !m->r[in->a].i;
            else if (vm_is_float(in->dtype)) m->r[in->dst].f = -m->r[in->a].f;
            else m->r[in->dst].i = vm_wrap(0 - (uint64_t)m->r[in->a].i, in->dtype);
            break;
        case CC_LO_TRIPS: if (vm_trips(m, in)) return -1; break;
        case CC_LO_JUMP: pc = in->u.target; break;
        case CC_LO_JUMP_IF_FALSE: {
            vm_reg c = m->r[in->a];
            if (vm_is_float(k->regs[in->a].type.dtype) ? c.f == 0 : c.i == 0) pc = in->u.target;
            break;
        }
        case CC_LO_RETURN: return 0;
        case CC_LO_ALIAS: m->tmap[in->dst] = m->tmap[in->a]; break;
        case CC_LO_LOAD: {
            const tile_tensor *t = vm_tensor(m, in->a);
            if (!t) return vm_fail(m, in, "internal error: LOAD from tensor slot %d without an argument", in->a);
            int64_t off[CC_MAX_RANK], ext[CC_MAX_RANK];
            vm_mem_regs(m, in, off, ext);
            if (tile_load(&m->v[in->dst], t, off, ext, in->u.mem.clamp, m->msg, sizeof m->msg)) return vm_fail(m, in, NULL);
            break;
        }
        case CC_LO_STORE: {
            const tile_tensor *t = vm_tensor(m, in->a);
            if (!t) return vm_fail(m, in, "internal error: STORE to tensor slot %d without an argument", in->a);
            int64_t off[CC_MAX_RANK], ext[CC_MAX_RANK];
            vm_mem_regs(m, in, off, ext);
            if (tile_store(t, off, &m->v[in->b], ext, m->msg, sizeof m->msg)) return vm_fail(m, in, NULL);
            break;
        }
        case CC_LO_TOP: if (vm_top(m, in)) return -1; break;
        case CC_LO_TCOPY: {
            tile *d = &m->v[in->dst], *a = &m->v[in->a];
            memcpy(d->data, a->data, (size_t)tile_bytes(a));
            memcpy(d->valid, a->valid, sizeof d->valid);
            break;
        }
        default: return vm_fail(m, in, "internal error: %s in a tile program", cc_lo_opcode_name((cc_lo_opcode)in->code));
        }
    }
    return 0;
}

#define VM_ALIGN(x) (((x) + 63) & ~(size_t)63)

/* Binds parameters: scalar registers, tensor views (origins, whole shapes). */
static int vm_bind(vm *m)
{
    const cc_lo_proc *k = m->k;
    const pto_kernel_args *a = m->args;
    uint32_t nscal = 0, nten = 0, ranks = 0;
    for (uint32_t i = 0; i < k->nparams; i++) {
        if (k->params[i].kind == CC_LO_REG) nscal++;
        else if (k->params[i].kind == CC_LO_TENSOR) nten++, ranks += k->tensors[k->params[i].index].type.rank;
    }
    if (a->num_views != nten || a->num_scalars != nscal + 2 * ranks)
        return vm_fail(m, NULL, "kernel '%s' expects %u views and %u scalars (%u parameters, then box origins and extents), got %u and %u",
                       k->name, nten, nscal + 2 * ranks, nscal, a->num_views, a->num_scalars);
    for (uint32_t t = 0; t < k->ntensors; t++) m->tmap[t] = -1;
    uint32_t si = 0, vi = 0, oi = nscal, ni = nscal + ranks;
    for (uint32_t i = 0; i < k->nparams; i++) {
        cc_lo_ref p = k->params[i];
        if (p.kind == CC_LO_REG) {
            memcpy(&m->r[p.index], &a->scalars[si++], sizeof(vm_reg));
            continue;
        }
        if (p.kind != CC_LO_TENSOR) continue;
        const cc_type *ty = &k->tensors[p.index].type;
        const pto_view *v = &a->views[vi];
        tile_tensor *t = &m->tensors[vi];
        if (v->ndims != ty->rank || v->elem_size != tile_dtype_size((tile_dtype)ty->dtype))
            return vm_fail(m, NULL, "kernel '%s' tensor argument %u: a view of rank %u and %u-byte elements for %s", k->name, vi,
                           v->ndims, v->elem_size, k->tensors[p.index].name ? k->tensors[p.index].name : "-");
        t->addr = v->addr, t->dtype = ty->dtype, t->rank = ty->rank, t->base = v->offset;
        for (int d = 0; d < ty->rank; d++) {
            t->strides[d] = v->strides[d];
            t->base -= (int64_t)a->scalars[oi++] * v->strides[d];
            t->shape[d] = (int64_t)a->scalars[ni++];
        }
        m->tmap[p.index] = (int32_t)vi++;
    }
    return 0;
}

int ex_tile_run(const cc_lowered *l, const cc_lo_proc *kernel, const pto_kernel_args *args)
{
    vm m = {.l = l, .k = kernel, .args = args};
    size_t regs = VM_ALIGN(kernel->nregs * sizeof(vm_reg)), tiles = VM_ALIGN(kernel->ntiles * sizeof(tile));
    size_t tmap = VM_ALIGN(kernel->ntensors * sizeof(int32_t)), tens = VM_ALIGN(args->num_views * sizeof(tile_tensor));
    size_t need = regs + tiles + tmap + tens;
    for (uint32_t i = 0; i < kernel->ntiles; i++) {
        const cc_type *ty = &kernel->tiles[i].type;
        tile t = {.dtype = ty->dtype, .rank = ty->rank};
        memcpy(t.shape, ty->shape, sizeof t.shape);
        need += VM_ALIGN((size_t)tile_bytes(&t));
    }
    vm_ws *w = vm_ws_get(need);
    if (!w) return vm_fail(&m, NULL, "kernel '%s': out of memory for a %zu-byte tile workspace", kernel->name, need);
    char *p = w->mem;
    m.r = (vm_reg *)p, p += regs;
    m.v = (tile *)p, p += tiles;
    m.tmap = (int32_t *)p, p += tmap;
    m.tensors = (tile_tensor *)p, p += tens;
    m.scratch = &w->scratch;
    for (uint32_t i = 0; i < kernel->ntiles; i++) {
        const cc_type *ty = &kernel->tiles[i].type;
        tile *t = &m.v[i];
        memset(t, 0, sizeof *t);
        t->dtype = ty->dtype, t->rank = ty->rank, t->data = p;
        memcpy(t->shape, ty->shape, sizeof t->shape);
        memcpy(t->valid, ty->shape, sizeof t->valid);
        p += VM_ALIGN((size_t)tile_bytes(t));
    }
    if (vm_bind(&m)) return -1;
    return vm_exec(&m);
}
