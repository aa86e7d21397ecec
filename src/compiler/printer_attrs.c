/*
 * printer_attrs.c - each op's attributes as the printer writes them (the
 * node's mode, dtype, clamp and atomic fields, which have no IR slot):
 * positional ones (a dtype written as an argument, gather_mask's pattern)
 * where the required slots end, keyword ones after the optional slots.
 *
 * Invariants: an attribute at its default prints nothing, and each printed
 * form parses back to the same node (printer.h's fixpoint).
 */
#include "compiler/printer.h"
#include "compiler/names.h"

#include <stdio.h>

/* The op's attributes: positional (a dtype written as an argument: CAST,
 * CREATE_TENSOR), or the keyword ones. */
void cc_print_op_attrs(const cc_ir_expr *e, int positional, int compact, base_strbuf *out)
{
    const char *s = compact ? "," : ", ";
    switch (e->u.op.op) {
    case CC_IR_LOAD:
        if (positional) break;
        if (cc_type_mem(&e->type) != CC_MEM_Vec) base_strbuf_printf(out, "%starget_memory=pl.Mem.%s", s, cc_mem_name(cc_type_mem(&e->type)));
        if (e->u.op.clamp) base_strbuf_printf(out, "%sclamp=True", s);
        if (e->u.op.cache != CC_CACHE_UNSET)
            base_strbuf_printf(out, "%scache=pl.CachePolicy.%s", s, cc_cache_policy_name(e->u.op.cache));
        break;
    case CC_IR_CAST:
        if (positional) base_strbuf_printf(out, "%spl.%s", s, cc_dtype_name(e->u.op.dtype));
        else if (e->u.op.mode != CC_CAST_ROUND) base_strbuf_printf(out, "%smode=\"%s\"", s, cc_cast_mode_name(e->u.op.mode));
        break;
    case CC_IR_STORE:
        if (!positional && e->u.op.atomic) base_strbuf_printf(out, "%satomic=pl.AtomicType.%s", s, cc_atomic_type_name(e->u.op.atomic));
        break;
    case CC_IR_MATMUL:
        if (!positional && e->u.op.dtype != 255) base_strbuf_printf(out, "%sout_dtype=pl.%s", s, cc_dtype_name(e->u.op.dtype));
        break;
    case CC_IR_CREATE_TENSOR:
        if (!positional && e->u.op.mode) base_strbuf_printf(out, "%smanual_dep=True", s);
        /* fall through */
    case CC_IR_FULL:
        if (positional) base_strbuf_printf(out, "%spl.%s", s, cc_dtype_name(e->u.op.dtype));
        break;
    case CC_IR_ARANGE:
        if (positional) base_strbuf_printf(out, "%spl.%s", s, cc_dtype_name(e->u.op.dtype));
        else if (e->u.op.mode) base_strbuf_printf(out, "%sdescending=True", s);
        break;
    case CC_IR_TRI:
    case CC_IR_RANDOM:
        if (positional) break;
        base_strbuf_printf(out, "%sdtype=pl.%s", s, cc_dtype_name(e->u.op.dtype));
        if (e->u.op.op == CC_IR_TRI && e->u.op.mode) base_strbuf_printf(out, "%supper=True", s);
        if (e->u.op.op == CC_IR_RANDOM && e->u.op.mode != 10) base_strbuf_printf(out, "%srounds=%d", s, e->u.op.mode);
        break;
    case CC_IR_REINTERPRET_VIEW:
        if (positional) base_strbuf_printf(out, "%spl.%s", s, cc_dtype_name(e->u.op.dtype));
        break;
    case CC_IR_GATHERB:
        if (!positional && e->u.op.dtype != 255) base_strbuf_printf(out, "%soutput_dtype=pl.%s", s, cc_dtype_name(e->u.op.dtype));
        break;
    case CC_IR_GATHER_COMPARE: { /* mode: the comparison | the part << 3 (the part is which name it binds) */
        if (!positional && (e->u.op.mode & 7)) base_strbuf_printf(out, "%scmp_mode=\"%s\"", s, cc_cmp_mode_name(e->u.op.mode & 7));
        if (!positional && e->u.op.dtype != 255) base_strbuf_printf(out, "%scount_dtype=pl.%s", s, cc_dtype_name(e->u.op.dtype));
        break;
    }
    case CC_IR_GATHER_MASK:
    case CC_IR_SCATTER_MASK:
        if (positional) base_strbuf_printf(out, "%spl.MaskPattern.%s", s, cc_mask_pattern_name(e->u.op.mode));
        else if (e->u.op.op == CC_IR_GATHER_MASK && e->u.op.dtype != 255) base_strbuf_printf(out, "%soutput_dtype=pl.%s", s, cc_dtype_name(e->u.op.dtype));
        break;
    case CC_IR_PAGED_GATHER: /* space (Mat unless Vec), is_trans, is_b_matrix: mode bits 0 and 1 */
        if (!positional && cc_type_mem(&e->type) == CC_MEM_Vec) base_strbuf_printf(out, "%sspace=pl.Mem.Vec", s);
        if (!positional && (e->u.op.mode & 1)) base_strbuf_printf(out, "%sis_trans=True", s);
        if (!positional && (e->u.op.mode & 2)) base_strbuf_printf(out, "%sis_b_matrix=True", s);
        break;
    case CC_IR_MGATHER: { /* coalesce | gather_oob << 1, each when not the default; the Mat form's tag */
        static const char *const oob[] = {"undefined", "clamp", "wrap", "zero"};
        if (!positional && cc_type_mem(&e->type) == CC_MEM_Mat) base_strbuf_printf(out, "%starget_memory=pl.Mem.Mat", s);
        if (!positional && (e->u.op.mode & 1)) base_strbuf_printf(out, "%scoalesce=\"elem\"", s);
        if (!positional && e->u.op.mode >> 1) base_strbuf_printf(out, "%sgather_oob=\"%s\"", s, oob[(e->u.op.mode >> 1) & 3]);
        break;
    }
    case CC_IR_GEMV:
    case CC_IR_GEMV_ACC:
    case CC_IR_GEMV_BIAS:
        if (!positional && e->u.op.mode) base_strbuf_printf(out, "%sacc_phase=\"%s\"", s, cc_acc_phase_name(e->u.op.mode));
        break;
    case CC_IR_SLICE:
        if (!positional && e->u.op.mode) base_strbuf_printf(out, "%spad_value=pl.PadValue.%s", s, cc_pad_value_name(e->u.op.mode));
        break;
    case CC_IR_FILLPAD:
    case CC_IR_FILLPAD_EXPAND:
        if (!positional && e->u.op.mode != 1) base_strbuf_printf(out, "%spad_value=pl.PadValue.%s", s, cc_pad_value_name(e->u.op.mode));
        break;
    case CC_IR_MOVE: /* the tag is the result's */
        if (positional) base_strbuf_printf(out, "%starget_memory=pl.Mem.%s", s, cc_mem_name(cc_type_mem(&e->type)));
        break;
    case CC_IR_CREATE_TILE:
        if (positional) base_strbuf_printf(out, "%spl.%s", s, cc_dtype_name(e->u.op.dtype));
        else if (cc_type_mem(&e->type) != CC_MEM_Vec) base_strbuf_printf(out, "%starget_memory=pl.Mem.%s", s, cc_mem_name(cc_type_mem(&e->type)));
        break;
    default: break;
    }
}
