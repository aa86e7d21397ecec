/*
 * printer.c - IR back to DSL text, the printed form of docs/dsl.md, "What
 * the compiler does".
 *
 * Invariants:
 *  - Every line written ends in '\n' and nothing follows the last one, so
 *    the text ends with exactly one newline; indentation is 4 spaces a level.
 *  - An expression is parenthesized only where Python's precedence or left
 *    associativity would parse it differently (comparisons do not chain, so
 *    both operands of one are parenthesized when they are comparisons).
 *  - Compact mode drops every space except those around and/or/not.
 *  - Only what the IR holds prints: absent optional slots (NULL) and unset
 *    attributes (dtype 255, CC_CACHE_UNSET, cast mode ROUND) print nothing.
 *  - The printer only reads the IR; failures are out->oom.
 */
#include "compiler/printer.h"
#include "compiler/names.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- literals ------------------------------------------------------------------------- */

/* Python's repr of a finite double: the shortest digits that read back as v,
 * fixed notation for exponents -4..15, else d.ddde+XX. */
static void print_finite(double v, base_strbuf *out)
{
    char buf[40], digits[24];
    int prec = 0;
    do snprintf(buf, sizeof buf, "%.*e", prec++, v);
    while (strtod(buf, NULL) != v);
    size_t n = 0;
    const char *c = buf + (buf[0] == '-');
    for (; *c != 'e'; c++)
        if (*c != '.') digits[n++] = *c;
    int exp = atoi(c + 1);
    while (n > 1 && digits[n - 1] == '0') n--;
    digits[n] = 0;
    if (signbit(v)) base_strbuf_puts(out, "-");
    if (exp < -4 || exp >= 16) {
        base_strbuf_printf(out, "%c%s%s", digits[0], n > 1 ? "." : "", digits + 1);
        base_strbuf_printf(out, "e%+03d", exp);
    } else if (exp < 0) {
        base_strbuf_printf(out, "0.%.*s%s", -exp - 1, "000", digits);
    } else {
        for (int k = 0; k <= exp; k++) base_strbuf_putn(out, (size_t)k < n ? &digits[k] : "0", 1);
        base_strbuf_printf(out, ".%s", (size_t)exp + 1 < n ? digits + exp + 1 : "0");
    }
}

void cc_print_float(double v, base_strbuf *out)
{
    if (isnan(v)) base_strbuf_puts(out, "nan");
    else if (isinf(v)) base_strbuf_puts(out, v < 0 ? "-inf" : "inf");
    else print_finite(v, out);
}

void cc_print_str(const char *s, size_t len, base_strbuf *out)
{
    base_strbuf_puts(out, "\"");
    for (const unsigned char *c = (const unsigned char *)s, *end = c + len; c < end; c++) {
        switch (*c) {
        case '"': base_strbuf_puts(out, "\\\""); break;
        case '\\': base_strbuf_puts(out, "\\\\"); break;
        case '\n': base_strbuf_puts(out, "\\n"); break;
        case '\r': base_strbuf_puts(out, "\\r"); break;
        case '\t': base_strbuf_puts(out, "\\t"); break;
        default:
            if (*c < 0x20 || *c == 0x7f) base_strbuf_printf(out, "\\x%02x", *c);
            else base_strbuf_putn(out, (const char *)c, 1);
        }
    }
    base_strbuf_puts(out, "\"");
}

/* ---- expressions ---------------------------------------------------------------------- */

int cc_op_prec(cc_op op)
{
    switch (op) {
    case CC_OP_OR: return CC_PREC_OR;
    case CC_OP_AND: return CC_PREC_AND;
    case CC_OP_NOT: return CC_PREC_NOT;
    case CC_OP_EQ: case CC_OP_NE: case CC_OP_LT: case CC_OP_LE: case CC_OP_GT: case CC_OP_GE: return CC_PREC_CMP;
    case CC_OP_ADD: case CC_OP_SUB: return CC_PREC_ADD;
    case CC_OP_BITOR: return CC_PREC_BITOR;
    case CC_OP_BITXOR: return CC_PREC_BITXOR;
    case CC_OP_BITAND: return CC_PREC_BITAND;
    case CC_OP_LSHIFT: case CC_OP_RSHIFT: return CC_PREC_SHIFT;
    case CC_OP_NEG: case CC_OP_POS: case CC_OP_INVERT: return CC_PREC_UNARY;
    case CC_OP_MIN: case CC_OP_MAX: return CC_PREC_ATOM;
    default: return CC_PREC_MUL;
    }
}

/* A negative literal binds as a unary minus does. */
static int expr_prec(const cc_ir_expr *e)
{
    switch (e->kind) {
    case CC_X_BINARY: return cc_op_prec(e->u.bin.op);
    case CC_X_UNARY: return cc_op_prec(e->u.un.op);
    case CC_X_INT: return e->u.i < 0 ? CC_PREC_UNARY : CC_PREC_ATOM;
    case CC_X_FLOAT: return !isnan(e->u.f) && signbit(e->u.f) ? CC_PREC_UNARY : CC_PREC_ATOM;
    default: return CC_PREC_ATOM;
    }
}

static const char *sep(int compact) { return compact ? "," : ", "; }

/* e, in parentheses when it binds looser than min_prec. */
static void print_operand(const cc_ir_expr *e, int min_prec, int compact, base_strbuf *out)
{
    int paren = expr_prec(e) < min_prec;
    if (paren) base_strbuf_puts(out, "(");
    cc_print_expr(e, compact, out);
    if (paren) base_strbuf_puts(out, ")");
}

static void print_exprs(cc_ir_expr *const *xs, uint32_t n, int compact, base_strbuf *out)
{
    for (uint32_t k = 0; k < n; k++) {
        if (k) base_strbuf_puts(out, sep(compact));
        cc_print_expr(xs[k], compact, out);
    }
}

static void print_binary(const cc_ir_expr *e, int compact, base_strbuf *out)
{
    cc_op op = e->u.bin.op;
    int p = cc_op_prec(op);
    if (p == CC_PREC_ATOM) { /* min / max */
        base_strbuf_printf(out, "%s(", cc_op_text(op));
        cc_print_expr(e->u.bin.l, compact, out);
        base_strbuf_puts(out, sep(compact));
        cc_print_expr(e->u.bin.r, compact, out);
        base_strbuf_puts(out, ")");
        return;
    }
    print_operand(e->u.bin.l, p + (p == CC_PREC_CMP), compact, out);
    base_strbuf_printf(out, compact && p > CC_PREC_AND ? "%s" : " %s ", cc_op_text(op));
    print_operand(e->u.bin.r, p + 1, compact, out);
}

static void print_unary(const cc_ir_expr *e, int compact, base_strbuf *out)
{
    int is_not = e->u.un.op == CC_OP_NOT;
    base_strbuf_puts(out, is_not ? "not " : cc_op_text(e->u.un.op));
    print_operand(e->u.un.x, cc_op_prec(e->u.un.op), compact, out);
}

/* pl.<op>(required slots, positional attributes, optional slots as
 * keywords, keyword attributes): the op table's slot names; absent slots
 * are left out. */
/* A LOAD written pl.slice(tensor, shape, offset[, valid_shape=][, clamp=True]),
 * a STORE written pl.assemble(tensor, source, offset[, atomic=pl.AtomicType.Add]). */
static void print_spelled_window(const cc_ir_expr *e, int compact, base_strbuf *out)
{
    cc_ir_expr *const *arg = e->u.op.args;
    const char *s = sep(compact);
    int load = e->u.op.op == CC_IR_LOAD;
    base_strbuf_puts(out, load ? "pl.slice(" : "pl.assemble(");
    cc_print_expr(arg[load ? 0 : 2], compact, out);
    base_strbuf_puts(out, s);
    cc_print_expr(arg[load ? 2 : 0], compact, out);
    base_strbuf_puts(out, s);
    cc_print_expr(arg[1], compact, out);
    if (load && arg[3]) {
        base_strbuf_printf(out, "%svalid_shape=", s);
        cc_print_expr(arg[3], compact, out);
    }
    if (load && e->u.op.clamp) base_strbuf_printf(out, "%sclamp=True", s);
    if (!load && e->u.op.atomic) base_strbuf_printf(out, "%satomic=pl.AtomicType.%s", s, cc_atomic_type_name(e->u.op.atomic));
    base_strbuf_puts(out, ")");
}

static void print_op(const cc_ir_expr *e, int compact, base_strbuf *out)
{
    if ((e->u.op.op == CC_IR_LOAD || e->u.op.op == CC_IR_STORE) && e->u.op.mode == CC_IR_SPELLED_WINDOW)
        return print_spelled_window(e, compact, out);
    const cc_op_info *row = cc_ir_op_info((cc_ir_op)e->u.op.op);
    if (row->cls == CC_OPC_DIST) return cc_print_pld_op(e, compact, out);
    int tile_spelled = row->cls == CC_OPC_GENERATE && e->u.op.op != CC_IR_TRI && !e->type.from_tensors; /* pl.tile.arange */
    const char *name = row->name;
    if (e->u.op.op == CC_IR_GATHER_DIM || e->u.op.op == CC_IR_SCATTER_DIM) name += strlen("tensor."); /* pl.gather(x, -1, index): the per-row form by its integer dim */
    base_strbuf_printf(out, "pl.%s%s(", tile_spelled ? "tile." : "", name);
    int first = 1;
    for (uint32_t k = 0; k <= row->nslots; k++) {
        if (k == row->nreq) cc_print_op_attrs(e, 1, compact, out);
        if (k == row->nslots || !e->u.op.args[k]) continue;
        if (!first) base_strbuf_puts(out, sep(compact));
        if (k >= row->nreq) base_strbuf_printf(out, "%s=", row->slots[k]);
        cc_print_expr(e->u.op.args[k], compact, out);
        first = 0;
    }
    cc_print_op_attrs(e, 0, compact, out);
    base_strbuf_puts(out, ")");
}

/* A call's arguments, pl.no_dep(x) where the argument is NO_DEP. */
static void print_args(const cc_ir_expr *e, int compact, base_strbuf *out)
{
    for (uint32_t k = 0; k < e->u.call.nargs; k++) {
        int nd = e->u.call.nodep && e->u.call.nodep[k];
        if (k) base_strbuf_puts(out, sep(compact));
        if (nd) base_strbuf_puts(out, "pl.no_dep(");
        cc_print_expr(e->u.call.args[k], compact, out);
        if (nd) base_strbuf_puts(out, ")");
    }
}

/* `, allow_early_resolve=True` when written (v: 0 not written, 1 False, 2 True). */
static void print_early(uint8_t v, int compact, base_strbuf *out)
{
    if (v) base_strbuf_printf(out, "%sallow_early_resolve=%s", sep(compact), v == 2 ? "True" : "False");
}

static void print_call(const cc_ir_expr *e, int compact, base_strbuf *out)
{
    if (cc_ir_is_dummy(e)) {
        base_strbuf_puts(out, "pl.system.task_dummy(deps=[");
        print_exprs(e->u.call.deps, e->u.call.ndeps, compact, out);
        base_strbuf_puts(out, "])");
        return;
    }
    if (!e->u.call.submit) {
        base_strbuf_printf(out, "self.%s(", e->u.call.callee->name);
        print_args(e, compact, out);
        if (e->u.call.device) base_strbuf_printf(out, "%sdevice=", sep(compact)), cc_print_expr(e->u.call.device, compact, out);
        base_strbuf_puts(out, ")");
        return;
    }
    base_strbuf_printf(out, "pl.%s(self.%s", e->u.call.blocks ? "spmd_submit" : "submit", e->u.call.callee->name);
    if (e->u.call.nargs) base_strbuf_puts(out, sep(compact));
    print_args(e, compact, out);
    if (e->u.call.blocks) {
        base_strbuf_printf(out, "%score_num=", sep(compact));
        cc_print_expr(e->u.call.blocks, compact, out);
        if (e->u.call.sync_start) base_strbuf_printf(out, "%ssync_start=True", sep(compact));
    }
    if (e->u.call.ndeps) {
        base_strbuf_printf(out, "%sdeps=[", sep(compact));
        print_exprs(e->u.call.deps, e->u.call.ndeps, compact, out);
        base_strbuf_puts(out, "]");
    }
    if (e->u.call.pred) { /* predicate=(t[i, j] <op> k) */
        const cc_ir_expr *p = e->u.call.pred;
        base_strbuf_printf(out, "%spredicate=(", sep(compact));
        cc_print_expr(p->u.list.items[0], compact, out);
        base_strbuf_puts(out, "[");
        print_exprs(p->u.list.items + 1, p->u.list.n - 1, compact, out);
        base_strbuf_printf(out, "] %s %lld)", cc_op_text((cc_op)e->u.call.pred_op), (long long)e->u.call.pred_k);
    }
    print_early(e->u.call.early, compact, out);
    base_strbuf_puts(out, ")");
}

void cc_print_expr(const cc_ir_expr *e, int compact, base_strbuf *out)
{
    switch (e->kind) {
    case CC_X_INT: base_strbuf_printf(out, "%lld", (long long)e->u.i); break;
    case CC_X_FLOAT: cc_print_float(e->u.f, out); break;
    case CC_X_BOOL: base_strbuf_puts(out, e->u.i ? "True" : "False"); break;
    case CC_X_STR: cc_print_str(e->u.str, strlen(e->u.str), out); break;
    case CC_X_VAR: base_strbuf_puts(out, e->u.name); break;
    case CC_X_BINARY: print_binary(e, compact, out); break;
    case CC_X_UNARY: print_unary(e, compact, out); break;
    case CC_X_LIST:
        base_strbuf_puts(out, "[");
        print_exprs(e->u.list.items, e->u.list.n, compact, out);
        base_strbuf_puts(out, "]");
        break;
    case CC_X_OP: print_op(e, compact, out); break;
    case CC_X_CALL: print_call(e, compact, out); break;
    case CC_X_ARRAY: /* a SET prints as its statement (print_assign) */
        if (e->u.list.aop == CC_ARR_CREATE) base_strbuf_printf(out, "pl.array.create(%lld, pl.TASK_ID)", (long long)e->type.shape[0]);
        else {
            cc_print_expr(e->u.list.items[0], compact, out);
            base_strbuf_puts(out, "[");
            cc_print_expr(e->u.list.items[1], compact, out);
            base_strbuf_puts(out, "]");
        }
        break;
    }
}

/* ---- statements ----------------------------------------------------------------------- */

static void indent(int depth, base_strbuf *out)
{
    for (int k = 0; k < depth; k++) base_strbuf_puts(out, "    ");
}

/* "  # a: In [lo:hi, lo:hi]; ..." after a statement whose value is an InCore
 * call with footprints; a whole dimension prints as 0:<extent>. */
static void print_footprints(const cc_ir_expr *v, base_strbuf *out)
{
    if (v->kind != CC_X_CALL || !v->u.call.boxes || v->u.call.callee->kind != CC_FUNC_INCORE) return;
    const char *lead = "  # ";
    for (uint32_t k = 0; k < v->u.call.nargs; k++) {
        const cc_ir_expr *arg = v->u.call.args[k];
        const cc_ir_box *box = &v->u.call.boxes[k];
        if (arg->type.kind != CC_T_TENSOR) continue;
        base_strbuf_puts(out, lead);
        lead = "; ";
        cc_print_expr(arg, 1, out);
        base_strbuf_printf(out, ": %s [", cc_dir_name(box->dir));
        for (unsigned d = 0; d < box->rank; d++) {
            if (d) base_strbuf_puts(out, ", ");
            if (!box->lo[d] && CC_DIM_IS_DYN(arg->type.shape[d])) {
                base_strbuf_printf(out, "0:%s", arg->type.dyn[d] ? arg->type.dyn[d] : "?");
                continue;
            }
            if (!box->lo[d]) {
                base_strbuf_printf(out, "0:%lld", (long long)arg->type.shape[d]);
                continue;
            }
            cc_print_expr(box->lo[d], 1, out);
            base_strbuf_puts(out, ":");
            cc_print_expr(box->hi[d], 1, out);
        }
        base_strbuf_puts(out, "]");
    }
}

static void print_block(const cc_ir_block *b, int depth, const cc_ir_target *yn, base_strbuf *out);

static void print_type(const cc_type *t, base_strbuf *out);

/* Does the value show its tile's memory space itself (or is it Vec)? */
static int print_shows_mem(const cc_ir_expr *v)
{
    if (v->type.kind != CC_T_TILE || cc_type_mem(&v->type) == CC_MEM_Vec || v->kind == CC_X_VAR) return 1;
    if (v->kind != CC_X_OP) return 0;
    cc_ir_op op = (cc_ir_op)v->u.op.op;
    return op == CC_IR_LOAD || op == CC_IR_MOVE || op == CC_IR_CREATE_TILE || cc_ir_op_is_matmul(op);
}

/* A tile whose space the value does not show (an add tagged by a pl.Tile
 * annotation) is printed with its annotation, so the tag survives. */
/* The values of an assignment: a, b = 1, 2 (the tuple as written), or one. */
static void print_values(const cc_ir_stmt *s, base_strbuf *out)
{
    const cc_ir_expr *v = s->u.assign.value;
    if (s->u.assign.ntargets == 2 && v->kind == CC_X_LIST && v->u.list.items[0]->kind == CC_X_OP && v->u.list.items[0]->u.op.op == CC_IR_GATHER_COMPARE)
        v = v->u.list.items[0]; /* d, c = pl.gather_compare(...): one call, two parts */
    if (s->u.assign.ntargets > 1 && v->kind == CC_X_LIST)
        for (uint32_t k = 0; k < v->u.list.n; k++) {
            if (k) base_strbuf_puts(out, ", ");
            cc_print_expr(v->u.list.items[k], 0, out);
        }
    else cc_print_expr(v, 0, out);
}

/* A loop's yield binds the names yn (its CARRY_OUT targets) as written; an if arm's, its own. */
static void print_assign(const cc_ir_stmt *s, const cc_ir_target *yn, base_strbuf *out)
{
    const cc_ir_expr *set = s->u.assign.value;
    if (set->kind == CC_X_ARRAY && set->u.list.aop == CC_ARR_SET) { /* arr[i] = tid (D-arr) */
        cc_print_expr(set->u.list.items[0], 0, out);
        base_strbuf_puts(out, "[");
        cc_print_expr(set->u.list.items[1], 0, out);
        base_strbuf_puts(out, "] = ");
        cc_print_expr(set->u.list.items[2], 0, out);
        base_strbuf_puts(out, "\n");
        return;
    }
    int yield = s->u.assign.role == CC_CARRY_YIELD || s->u.assign.role == CC_CARRY_PHI;
    const cc_ir_target *tg = s->u.assign.role == CC_CARRY_YIELD && yn ? yn : s->u.assign.targets;
    for (uint32_t k = 0; k < s->u.assign.ntargets; k++) base_strbuf_printf(out, "%s%s", k ? ", " : "", tg[k].name);
    const cc_ir_expr *v = s->u.assign.value;
    if (s->u.assign.ntargets == 1 && !print_shows_mem(v)) {
        base_strbuf_puts(out, ": ");
        print_type(&v->type, out);
    }
    base_strbuf_puts(out, yield ? " = pl.yield_(" : " = ");
    print_values(s, out);
    if (yield) base_strbuf_puts(out, ")");
    print_footprints(v, out);
    base_strbuf_puts(out, "\n");
}

static const char *const print_loop_forms[] = {[CC_LOOP_RANGE] = "range", [CC_LOOP_PARALLEL] = "parallel", [CC_LOOP_PIPELINE] = "pipeline"};

/* The carries of a carried loop: `(c1, c2)`, `(c1,)`, from its CARRY_INIT assignment. */
static void print_carries(const cc_ir_stmt *init, base_strbuf *out)
{
    base_strbuf_puts(out, "(");
    for (uint32_t k = 0; k < init->u.assign.ntargets; k++) base_strbuf_printf(out, "%s%s", k ? ", " : "", init->u.assign.targets[k].name);
    base_strbuf_puts(out, init->u.assign.ntargets == 1 ? ",)" : ")");
}

/* `init_values=(v1, v2)`, `init_values=(v1,)`. */
static void print_init_values(const cc_ir_stmt *init, base_strbuf *out)
{
    base_strbuf_puts(out, "init_values=(");
    print_values(init, out);
    base_strbuf_puts(out, init->u.assign.ntargets == 1 ? ",))" : "))");
}

/* `for (c1, ...) in pl.while_(init_values=(...)):` and its pl.cond (DSL-V2-SPEC §6). */
static void print_while_carried(const cc_ir_stmt *init, const cc_ir_stmt *s, const cc_ir_stmt *done, int depth, base_strbuf *out)
{
    base_strbuf_puts(out, "for ");
    print_carries(init, out);
    base_strbuf_puts(out, " in pl.while_(");
    print_init_values(init, out);
    base_strbuf_puts(out, ":\n");
    indent(depth + 1, out);
    base_strbuf_puts(out, "pl.cond(");
    cc_print_expr(s->u.while_.cond, 0, out);
    base_strbuf_puts(out, ")\n");
    if (s->u.while_.body.n) print_block(&s->u.while_.body, depth + 1, done->u.assign.targets, out);
}

/* pl.<form>(stop) from 0 by 1, pl.<form>(start, stop) by 1, else all three; then
 * stage= (pl.pipeline) and a carried loop's init_values= (init: its CARRY_INIT
 * assignment, done its CARRY_OUT one; NULL: not carried). */
static void print_for_loop(const cc_ir_stmt *init, const cc_ir_stmt *s, const cc_ir_stmt *done, int depth, const cc_ir_target *yn,
                           base_strbuf *out)
{
    int64_t start, step;
    int unit = cc_ir_const_int(s->u.for_.step, &step) && step == 1;
    base_strbuf_printf(out, "for %s", s->u.for_.var);
    if (init) {
        base_strbuf_puts(out, ", ");
        print_carries(init, out);
    }
    base_strbuf_printf(out, " in pl.%s(", print_loop_forms[s->u.for_.form]);
    if (!unit || !cc_ir_const_int(s->u.for_.start, &start) || start != 0) {
        cc_print_expr(s->u.for_.start, 0, out);
        base_strbuf_puts(out, ", ");
    }
    cc_print_expr(s->u.for_.stop, 0, out);
    if (!unit) {
        base_strbuf_puts(out, ", ");
        cc_print_expr(s->u.for_.step, 0, out);
    }
    if (s->u.for_.form == CC_LOOP_PIPELINE) base_strbuf_printf(out, ", stage=%lld", (long long)s->u.for_.stage);
    if (init) {
        base_strbuf_puts(out, ", ");
        print_init_values(init, out);
    } else {
        base_strbuf_puts(out, ")");
    }
    base_strbuf_puts(out, ":\n");
    print_block(&s->u.for_.body, depth + 1, done ? done->u.assign.targets : yn, out);
}

static void print_for(const cc_ir_stmt *s, int depth, const cc_ir_target *yn, base_strbuf *out)
{
    print_for_loop(NULL, s, NULL, depth, yn, out);
}

/* An elif is the else branch holding the inner if: never `elif`. */
static void print_if(const cc_ir_stmt *s, int depth, const cc_ir_target *yn, base_strbuf *out)
{
    base_strbuf_puts(out, "if ");
    cc_print_expr(s->u.if_.cond, 0, out);
    base_strbuf_puts(out, ":\n");
    print_block(&s->u.if_.then, depth + 1, yn, out);
    if (!s->u.if_.orelse.n) return;
    indent(depth, out);
    base_strbuf_puts(out, "else:\n");
    print_block(&s->u.if_.orelse, depth + 1, yn, out);
}

static void print_scope(const cc_ir_stmt *s, int depth, const cc_ir_target *yn, base_strbuf *out)
{
    base_strbuf_puts(out, s->u.scope.mode == CC_SCOPE_MANUAL ? "with pl.scope(mode=pl.ScopeMode.MANUAL):\n"
                                                             : "with pl.scope():\n");
    print_block(&s->u.scope.body, depth + 1, yn, out);
}

/* `, optimizations=[...]` when it was written (docs/dsl.md, "Hints"). */
static void print_hints(const cc_ir_hints *h, base_strbuf *out)
{
    if (!h->written) return;
    base_strbuf_puts(out, ", optimizations=[");
    for (uint32_t k = 0; k < h->n; k++) {
        const cc_ir_hint *x = &h->v[k];
        if (k) base_strbuf_puts(out, ", ");
        if (x->kind == CC_HINT_SPLIT) base_strbuf_printf(out, "pl.split(pl.SplitMode.%s", cc_split_mode_name(x->mode));
        else base_strbuf_puts(out, "pl.cross_core_slot(");
        if (x->slot_num) base_strbuf_printf(out, "%sslot_num=%lld", x->kind == CC_HINT_SPLIT ? ", " : "", (long long)x->slot_num);
        base_strbuf_puts(out, ")");
    }
    base_strbuf_puts(out, "]");
}

/* The cache declarations open the body, before its statements; an SPMD
 * loop's head stands for its first statement (the block index binding). */
static void print_at(const cc_ir_stmt *s, int depth, const cc_ir_target *yn, base_strbuf *out)
{
    int spmd = s->u.at.blocks && !s->u.at.spmd_with; /* the loop form */
    if (s->u.at.cluster) {
        base_strbuf_puts(out, "with pl.cluster():\n");
        print_block(&s->u.at.body, depth + 1, yn, out);
        return;
    }
    if (s->u.at.blocks) {
        if (spmd) base_strbuf_printf(out, "for %s in pl.spmd(", s->u.at.body.items[0]->u.assign.targets[0].name);
        else base_strbuf_puts(out, "with pl.spmd(");
        cc_print_expr(s->u.at.blocks, 0, out);
        if (s->u.at.sync_start) base_strbuf_puts(out, ", sync_start=True");
    } else {
        base_strbuf_printf(out, "with pl.at(level=pl.Level.%s", cc_level_name(s->u.at.level));
    }
    print_hints(&s->u.at.opts, out);
    if (s->u.at.has_deps) {
        base_strbuf_puts(out, ", deps=[");
        print_exprs(s->u.at.deps, s->u.at.ndeps, 0, out);
        base_strbuf_puts(out, "]");
    }
    if (s->u.at.has_nodep) {
        base_strbuf_puts(out, ", no_dep_args=[");
        for (uint32_t k = 0; k < s->u.at.nnodep; k++) base_strbuf_printf(out, "%s%s", k ? ", " : "", s->u.at.nodep[k]);
        base_strbuf_puts(out, "]");
    }
    print_early(s->u.at.early, 0, out);
    if (s->u.at.name_hint) {
        base_strbuf_puts(out, ", name_hint=");
        cc_print_str(s->u.at.name_hint, strlen(s->u.at.name_hint), out);
    }
    base_strbuf_puts(out, ")");
    if (s->u.at.as_name) base_strbuf_printf(out, " as %s", s->u.at.as_name);
    base_strbuf_puts(out, ":\n");
    for (uint32_t k = 0; k < s->u.at.ndecls; k++) {
        indent(depth + 1, out);
        base_strbuf_printf(out, "pl.set_cache_policy(%s, pl.CachePolicy.%s)\n", s->u.at.decls[k].tensor,
                           cc_cache_policy_name(s->u.at.decls[k].policy));
    }
    cc_ir_block body = {s->u.at.body.items + spmd, s->u.at.body.n - spmd};
    if (s->u.at.ndecls && !body.n) return;
    print_block(&body, depth + 1, yn, out);
}

static void print_return(const cc_ir_stmt *s, base_strbuf *out)
{
    base_strbuf_puts(out, s->u.ret.n ? "return " : "return");
    print_exprs(s->u.ret.values, s->u.ret.n, 0, out);
    base_strbuf_puts(out, "\n");
}

/* A kernel call run once per block without a TaskId: `with pl.spmd(n):` over it. */
static const cc_ir_expr *print_dispatch(const cc_ir_stmt *s)
{
    const cc_ir_expr *v = s->kind == CC_I_ASSIGN ? s->u.assign.value : s->kind == CC_I_EXPR ? s->u.expr : NULL;
    return v && v->kind == CC_X_CALL && v->u.call.blocks && !v->u.call.submit ? v : NULL;
}

static void print_stmt(const cc_ir_stmt *s, int depth, const cc_ir_target *yn, base_strbuf *out)
{
    indent(depth, out);
    const cc_ir_expr *d = print_dispatch(s);
    if (d) {
        base_strbuf_puts(out, "with pl.spmd(");
        cc_print_expr(d->u.call.blocks, 0, out);
        base_strbuf_puts(out, d->u.call.sync_start ? ", sync_start=True):\n" : "):\n");
        indent(++depth, out);
    }
    switch (s->kind) {
    case CC_I_ASSIGN: print_assign(s, yn, out); break;
    case CC_I_EXPR:
        cc_print_expr(s->u.expr, 0, out);
        print_footprints(s->u.expr, out);
        base_strbuf_puts(out, "\n");
        break;
    case CC_I_FOR: print_for(s, depth, yn, out); break;
    case CC_I_WHILE:
        base_strbuf_puts(out, "while ");
        cc_print_expr(s->u.while_.cond, 0, out);
        base_strbuf_puts(out, ":\n");
        print_block(&s->u.while_.body, depth + 1, yn, out);
        break;
    case CC_I_IF: print_if(s, depth, yn, out); break;
    case CC_I_SCOPE: print_scope(s, depth, yn, out); break;
    case CC_I_AT: print_at(s, depth, yn, out); break;
    case CC_I_RETURN: print_return(s, out); break;
    }
}

/* The carry role of b's statement k (CC_CARRY_NONE: none, or k out of range). */
static int print_role(const cc_ir_block *b, uint32_t k)
{
    const cc_ir_stmt *s = k < b->n ? b->items[k] : NULL;
    return s && s->kind == CC_I_ASSIGN ? s->u.assign.role : CC_CARRY_NONE;
}

/* Is b's statement k a carried loop between its CARRY_INIT and CARRY_OUT assignments? */
static int print_carried_at(const cc_ir_block *b, uint32_t k)
{
    const cc_ir_stmt *s = k < b->n ? b->items[k] : NULL;
    int carried = s && ((s->kind == CC_I_FOR && s->u.for_.carried) || (s->kind == CC_I_WHILE && s->u.while_.carried));
    return carried && k > 0 && print_role(b, k - 1) == CC_CARRY_INIT && print_role(b, k + 1) == CC_CARRY_OUT;
}

/* An empty block prints `pass`. */
static void print_block(const cc_ir_block *b, int depth, const cc_ir_target *yn, base_strbuf *out)
{
    if (!b->n) {
        indent(depth, out);
        base_strbuf_puts(out, "pass\n");
    }
    for (uint32_t k = 0; k < b->n; k++) {
        const cc_ir_stmt *s = b->items[k];
        if ((print_role(b, k) == CC_CARRY_INIT && print_carried_at(b, k + 1)) || (print_role(b, k) == CC_CARRY_OUT && print_carried_at(b, k - 1)))
            continue; /* a carried loop's assignments print in its header */
        if (!print_carried_at(b, k)) {
            print_stmt(s, depth, yn, out);
            continue;
        }
        indent(depth, out);
        if (s->kind == CC_I_FOR) print_for_loop(b->items[k - 1], s, b->items[k + 1], depth, yn, out);
        else print_while_carried(b->items[k - 1], s, b->items[k + 1], depth, out);
    }
}

/* ---- functions and the program ---------------------------------------------------------- */

static void print_type(const cc_type *t, base_strbuf *out)
{
    char buf[160];
    cc_type_format(t, buf, sizeof buf);
    base_strbuf_puts(out, buf);
}

/* Tensors Out/InOut are wrapped; an unknown (VOID) type is not annotated. */
static void print_param(const cc_ir_param *p, base_strbuf *out)
{
    base_strbuf_printf(out, ", %s", p->name);
    if (p->type.kind == CC_T_VOID) return;
    const char *wrap = NULL;
    if (p->type.kind == CC_T_TENSOR && p->dir == CC_DIR_OUT) wrap = "pl.Out[";
    if (p->type.kind == CC_T_TENSOR && p->dir == CC_DIR_INOUT) wrap = "pl.InOut[";
    base_strbuf_printf(out, ": %s", wrap ? wrap : "");
    if (p->valid.n) { /* pl.Tensor[[...], dtype, pl.TensorView(valid_shape=[...], layout=pl.TensorLayout.ND)] */
        char buf[160];
        size_t n = cc_type_format(&p->type, buf, sizeof buf);
        base_strbuf_printf(out, "%.*s, pl.TensorView(valid_shape=[", (int)(n ? n - 1 : 0), buf);
        for (uint32_t d = 0; d < p->valid.n; d++)
            if (p->valid.dyn[d]) base_strbuf_printf(out, "%s%s", d ? ", " : "", p->valid.dyn[d]);
            else base_strbuf_printf(out, "%s%lld", d ? ", " : "", (long long)p->valid.cap[d]);
        base_strbuf_puts(out, "], layout=pl.TensorLayout.ND)]");
    } else {
        print_type(&p->type, out);
    }
    if (wrap) base_strbuf_puts(out, "]");
}

static void print_results(const cc_ir_func *f, base_strbuf *out)
{
    if (!f->nresults) return;
    base_strbuf_puts(out, f->nresults > 1 ? " -> tuple[" : " -> ");
    for (uint32_t k = 0; k < f->nresults; k++) {
        if (k) base_strbuf_puts(out, ", ");
        print_type(&f->results[k], out);
    }
    if (f->nresults > 1) base_strbuf_puts(out, "]");
}

/* auto_scope=False only where it means something: never on InCore. */
static void print_func(const cc_ir_func *f, base_strbuf *out)
{
    if (f->host) base_strbuf_puts(out, "    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator"); /* DISTRIBUTED-SPEC §1.2 */
    else base_strbuf_printf(out, "    @pl.function(type=pl.FunctionType.%s", cc_func_kind_name(f->kind));
    if (!f->auto_scope && f->kind != CC_FUNC_INCORE && !f->host) base_strbuf_puts(out, ", auto_scope=False");
    print_hints(&f->opts, out);
    base_strbuf_printf(out, ")\n    def %s(self", f->name);
    for (uint32_t k = 0; k < f->nparams; k++) print_param(&f->params[k], out);
    base_strbuf_puts(out, ")");
    print_results(f, out);
    base_strbuf_puts(out, ":\n");
    print_block(&f->body, 2, NULL, out);
}

/* Appends the DynVar names of t's dimensions not yet in seen (n of them, at most cap). */
static void collect_dynvar(const char *name, const char **seen, uint32_t *n, uint32_t cap)
{
    uint32_t k = 0;
    while (k < *n && strcmp(seen[k], name)) k++;
    if (k == *n && *n < cap) seen[(*n)++] = name;
}

/* The DynVars of t's dimensions: a derived one's (N * 2: N) from p's table. */
static void collect_dynvars(const cc_ir_program *p, const cc_type *t, const char **seen, uint32_t *n, uint32_t cap)
{
    for (uint32_t d = 0; t->kind == CC_T_TENSOR && d < t->rank; d++) {
        const cc_dim_expr *x = CC_DIM_IS_DERIVED(t->shape[d]) ? cc_dim_expr_find(p->dims, p->ndims, t->shape[d]) : NULL;
        for (uint32_t i = 0; x && i < x->n; i++)
            if (x->code[i].op == CC_DX_DIM) collect_dynvar(x->code[i].name, seen, n, cap);
        if (!x && CC_DIM_IS_DYN(t->shape[d]) && t->dyn[d]) collect_dynvar(t->dyn[d], seen, n, cap);
    }
}

/* `M = pl.dynamic("M")` for each DynVar of the signatures, in order of first appearance
 * (docs/dsl.md, "Dynamic shapes"), then a blank line. */
static void print_dynvars(const cc_ir_program *p, base_strbuf *out)
{
    const char *seen[64];
    uint32_t n = 0;
    for (uint32_t k = 0; k < p->nfuncs; k++) {
        const cc_ir_func *f = p->funcs[k];
        for (uint32_t i = 0; i < f->nparams; i++) {
            collect_dynvars(p, &f->params[i].type, seen, &n, 64);
            for (uint32_t d = 0; d < f->params[i].valid.n; d++)
                if (f->params[i].valid.dyn[d]) collect_dynvar(f->params[i].valid.dyn[d], seen, &n, 64);
        }
        for (uint32_t i = 0; i < f->nresults; i++) collect_dynvars(p, &f->results[i], seen, &n, 64);
    }
    for (uint32_t k = 0; k < n; k++) base_strbuf_printf(out, "%s = pl.dynamic(\"%s\")\n", seen[k], seen[k]);
    if (n) base_strbuf_puts(out, "\n");
}

void cc_print_program(const cc_ir_program *p, base_strbuf *out)
{
    base_strbuf_puts(out, cc_print_uses_pld(p) ? "import pypto.language as pl\nimport pypto.language.distributed as pld\n\n" : "import pypto.language as pl\n\n");
    print_dynvars(p, out);
    base_strbuf_printf(out, "@pl.program\nclass %s:\n", p->name);
    if (!p->nfuncs) base_strbuf_puts(out, "    pass\n");
    for (uint32_t k = 0; k < p->nfuncs; k++) {
        if (k) base_strbuf_puts(out, "\n");
        print_func(p->funcs[k], out);
    }
}
