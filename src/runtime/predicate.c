/*
 * predicate.c - a task's predicate: validation at submit and the one
 * element read and compared on the worker (predicate.h).
 */
#include "runtime/predicate.h"

#include <string.h>

#include "base/half.h"

const char *rt_pred_reason(const pto_task *t, const pto_predicate *p)
{
    if (!p) return NULL;
    if (p->arg >= t->num_args) return "predicate: arg is not one of the task's arguments";
    const pto_arg *a = &t->args[p->arg];
    if (a->tag == PTO_ARG_OUT) return "predicate: arg is a PTO_ARG_OUT argument (it has no contents yet)";
    if ((unsigned)p->op > PTO_PRED_GE) return "predicate: unknown op";
    uint32_t es = a->view.elem_size;
    switch (p->elem) {
    case PTO_PRED_INT:
        if (es != 1 && es != 2 && es != 4 && es != 8) return "predicate: an INT element must be 1, 2, 4 or 8 bytes";
        break;
    case PTO_PRED_FP32:
        if (es != 4) return "predicate: an FP32 element must be 4 bytes";
        break;
    case PTO_PRED_FP16:
    case PTO_PRED_BF16:
        if (es != 2) return "predicate: an FP16 or BF16 element must be 2 bytes";
        break;
    default: return "predicate: unknown elem";
    }
    for (uint32_t d = 0; d < a->view.ndims && d < PTO_MAX_DIMS; d++)
        if (p->idx[d] >= a->view.shape[d]) return "predicate: idx lies outside the argument's view";
    return NULL;
}

int rt_pred_holds(const pto_predicate *p, const pto_view *views)
{
    const pto_view *v = &views[p->arg];
    const char *at = pto_view_at(v, p->idx);
    double x = 0;
    int64_t i = 0;
    int fl = p->elem != PTO_PRED_INT;
    if (p->elem == PTO_PRED_INT) {
        if (v->elem_size == 1) { int8_t e; memcpy(&e, at, 1); i = e; }
        else if (v->elem_size == 2) { int16_t e; memcpy(&e, at, 2); i = e; }
        else if (v->elem_size == 4) { int32_t e; memcpy(&e, at, 4); i = e; }
        else memcpy(&i, at, 8);
    } else if (p->elem == PTO_PRED_FP32) {
        float e;
        memcpy(&e, at, 4);
        x = e;
    } else {
        uint16_t h;
        memcpy(&h, at, 2);
        x = p->elem == PTO_PRED_FP16 ? base_f16_to_f32(h) : base_bf16_to_f32(h);
    }
    /* c: -1, 0, 1 as element <, ==, > value (NaN: unordered, only != holds) */
    double k = (double)p->value;
    int c = fl ? (x < k ? -1 : x > k ? 1 : x == k ? 0 : 2) : (i < p->value ? -1 : i > p->value);
    switch (p->op) {
    case PTO_PRED_EQ: return c == 0;
    case PTO_PRED_NE: return c != 0;
    case PTO_PRED_LT: return c == -1;
    case PTO_PRED_LE: return c == -1 || c == 0;
    case PTO_PRED_GT: return c == 1;
    default: return c == 1 || c == 0;
    }
}
