/*
 * printer_pld.c - the pld ops (ops.h's CC_IR_PLD_OP_LIST) back to DSL text
 * for printer.c: each as `pld.<path>(...)` in the spelling the type checker
 * reads (tc_pld.c, tc_pld_kernel.c), its required operands positional, its
 * optional ones and its enum attributes as keywords, so print -> parse ->
 * print is a fixpoint.
 *
 * Invariants: the domain slots InferCommDomains fills (ALLOC_WINDOW's
 * domain_n, domain_ranks) are never printed; an attribute at its default
 * (AtomicType.None_, ReduceOp.Sum, mode "mesh") is not printed; the enum
 * members print by name (names.h).
 */
#include <string.h>

#include "compiler/names.h"
#include "compiler/printer.h"

static void pp_sep(int compact, base_strbuf *out) { base_strbuf_puts(out, compact ? "," : ", "); }

/* Operands args[from..to) positional (NULL ones skipped). */
static void pp_args(const cc_ir_expr *e, uint32_t from, uint32_t to, int compact, base_strbuf *out)
{
    for (uint32_t k = from; k < to; k++) {
        if (!e->u.op.args[k]) continue;
        if (k > from) pp_sep(compact, out);
        cc_print_expr(e->u.op.args[k], compact, out);
    }
}

/* `, <kw>=<operand k>` when operand k is present. */
static void pp_kw(const cc_ir_expr *e, uint32_t k, const char *kw, int compact, base_strbuf *out)
{
    if (!e->u.op.args[k]) return;
    pp_sep(compact, out);
    base_strbuf_printf(out, "%s=", kw);
    cc_print_expr(e->u.op.args[k], compact, out);
}

/* The spelling of op e: REMOTE_STORE's by the form it was written in (mode 1: a tensor value). */
static const char *pp_name(const cc_ir_expr *e)
{
    if (e->u.op.op == CC_IR_REMOTE_STORE && e->u.op.mode == 1) return "pld.tensor.remote_store";
    return cc_ir_op_name((cc_ir_op)e->u.op.op);
}

void cc_print_pld_op(const cc_ir_expr *e, int compact, base_strbuf *out)
{
    cc_ir_expr *const *arg = e->u.op.args;
    base_strbuf_printf(out, "%s(", pp_name(e));
    switch (e->u.op.op) {
    case CC_IR_ALLOC_WINDOW:
        cc_print_expr(arg[0], compact, out);
        if (e->u.op.dtype != 255) pp_sep(compact, out), base_strbuf_printf(out, "dtype=pl.%s", cc_dtype_name((cc_dtype)e->u.op.dtype));
        break;
    case CC_IR_WINDOW:
        pp_args(e, 0, 2, compact, out);
        pp_sep(compact, out), base_strbuf_printf(out, "dtype=pl.%s", cc_dtype_name((cc_dtype)e->u.op.dtype));
        break;
    case CC_IR_NOTIFY:
        pp_args(e, 0, 4, compact, out);
        pp_sep(compact, out), base_strbuf_printf(out, "op=pld.NotifyOp.%s", cc_notify_op_name(e->u.op.mode));
        break;
    case CC_IR_WAIT:
        pp_args(e, 0, 3, compact, out);
        pp_sep(compact, out), base_strbuf_printf(out, "cmp=pld.WaitCmp.%s", cc_wait_cmp_name(e->u.op.mode));
        break;
    case CC_IR_REMOTE_LOAD: pp_args(e, 0, 4, compact, out), pp_kw(e, 4, "valid_shape", compact, out); break;
    case CC_IR_PUT: case CC_IR_GET:
        pp_args(e, 0, 3, compact, out);
        pp_kw(e, 3, "dst_offsets", compact, out), pp_kw(e, 4, "src_offsets", compact, out), pp_kw(e, 5, "shape", compact, out);
        break;
    case CC_IR_BROADCAST: pp_args(e, 0, 2, compact, out), pp_kw(e, 2, "root", compact, out); break;
    case CC_IR_ALLREDUCE: pp_args(e, 0, 1, compact, out), pp_kw(e, 1, "signal", compact, out); break;
    default: pp_args(e, 0, cc_ir_op_info((cc_ir_op)e->u.op.op)->nslots, compact, out); break;
    }
    if ((e->u.op.op == CC_IR_REMOTE_STORE || e->u.op.op == CC_IR_PUT) && e->u.op.atomic)
        pp_sep(compact, out), base_strbuf_printf(out, "atomic=pld.AtomicType.%s", cc_atomic_type_name(e->u.op.atomic));
    if ((e->u.op.op == CC_IR_ALLREDUCE || e->u.op.op == CC_IR_REDUCE_SCATTER) && e->u.op.mode)
        pp_sep(compact, out), base_strbuf_printf(out, "op=pld.ReduceOp.%s", cc_reduce_op_name(e->u.op.mode));
    if (e->u.op.op == CC_IR_ALLREDUCE && e->u.op.implicit) pp_sep(compact, out), base_strbuf_puts(out, "mode=\"ring\"");
    base_strbuf_puts(out, ")");
}

int cc_print_uses_pld(const cc_ir_program *p)
{
    for (uint32_t k = 0; k < p->nfuncs; k++) {
        if (p->funcs[k]->host) return 1;
        for (uint32_t i = 0; i < p->funcs[k]->nparams; i++)
            if (p->funcs[k]->params[i].type.window != CC_WIN_NONE) return 1;
    }
    return 0;
}
