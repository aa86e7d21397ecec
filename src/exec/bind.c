/*
 * bind.c - pto_program_run's arguments onto the entry's parameters
 * (orch_vm.h ex_bind): by name or position, each parameter exactly once,
 * tensors checked against the compiled specialization (dtype, rank,
 * shape); messages as docs/compiler.md, "Arguments", words them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "exec/orch_vm.h"

static int ex_bind_error(pto_error *err, const char *fmt, ...)
{
    if (err) {
        err->code = PTO_INVALID_ARGS;
        err->ring = -1;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return -PTO_INVALID_ARGS;
}

static const char *ex_param_name(const cc_lo_proc *e, uint32_t k)
{
    cc_lo_ref r = e->params[k];
    const char *n = r.kind == CC_LO_REG ? e->regs[r.index].name : r.kind == CC_LO_TENSOR ? e->tensors[r.index].name : NULL;
    return n ? n : "?";
}

/* "[64, M]": dyn names a compiled shape's dynamic dimensions (NULL: an argument's shape). */
static void ex_shape_text(char *buf, size_t cap, const int64_t *shape, int rank, const char *const *dyn)
{
    size_t n = (size_t)snprintf(buf, cap, "[");
    for (int d = 0; d < rank && n < cap; d++) {
        if (dyn && CC_DIM_IS_DYN(shape[d])) n += (size_t)snprintf(buf + n, cap - n, "%s%s", d ? ", " : "", dyn[d] ? dyn[d] : "?");
        else n += (size_t)snprintf(buf + n, cap - n, "%s%lld", d ? ", " : "", (long long)shape[d]);
    }
    if (n < cap) snprintf(buf + n, cap - n, "]");
}

/* One argument into params[k]: its kind, dtype and shape as compiled. */
static int ex_bind_one(const cc_lowered *l, uint32_t k, const pto_arg_value *v, ex_value *out, pto_error *err)
{
    const cc_lo_proc *e = &l->procs[0];
    const char *who = e->name, *pn = ex_param_name(e, k);
    cc_lo_ref r = e->params[k];
    memset(out, 0, sizeof *out);
    out->kind = r.kind;
    if (r.kind == CC_LO_REG) {
        if (v->kind != PTO_ARG_SCALAR)
            return ex_bind_error(err, "function '%s': argument '%s' must be a scalar (int, float or bool), got a tensor", who, pn);
        int fl = cc_dtype_is_float((cc_dtype)e->regs[r.index].type.dtype);
        if (fl) out->reg.f = v->value.kind == PTO_VALUE_FLOAT ? v->value.f : (double)v->value.i;
        else out->reg.i = v->value.kind == PTO_VALUE_FLOAT ? (int64_t)v->value.f : v->value.i;
        return 0;
    }
    const cc_type *t = &e->tensors[r.index].type;
    if (v->kind != PTO_ARG_TENSOR)
        return ex_bind_error(err, "function '%s': argument '%s' must be a tensor, got a scalar", who, pn);
    if (!v->base) return ex_bind_error(err, "function '%s': argument '%s' has no data (base is NULL)", who, pn);
    if (!cc_dtype_binds((cc_dtype)v->dtype, (cc_dtype)t->dtype))
        return ex_bind_error(err, "function '%s': argument '%s' has dtype %s but the program was compiled for %s", who, pn,
                             (unsigned)v->dtype < CC_DT_COUNT ? cc_dtype_name((cc_dtype)v->dtype) : "?", cc_dtype_name((cc_dtype)t->dtype));
    int same = v->rank == t->rank;
    for (int d = 0; same && d < t->rank; d++) same = CC_DIM_IS_DYN(t->shape[d]) ? v->shape[d] >= 1 : v->shape[d] == t->shape[d];
    if (!same) {
        char a[96], b[96];
        ex_shape_text(a, sizeof a, v->shape, v->rank < 0 ? 0 : v->rank > 4 ? 4 : v->rank, NULL);
        ex_shape_text(b, sizeof b, t->shape, t->rank, t->dyn);
        return ex_bind_error(err, "function '%s': argument '%s' has shape %s but the program was compiled for %s", who, pn, a, b);
    }
    ex_tensor *x = &out->tensor;
    x->base = v->base;
    x->dtype = (uint8_t)t->dtype; /* a stand-in's bits read as the parameter's dtype */
    x->rank = (uint8_t)v->rank;
    x->offset = v->offset;
    x->owner = PTO_INVALID_TASK_ID;
    int any = 0;
    for (int d = 0; d < v->rank; d++) x->shape[d] = v->shape[d], x->strides[d] = v->strides[d], any |= v->strides[d] != 0;
    if (!any) {
        int64_t s = 1;
        for (int d = v->rank - 1; d >= 0; d--) x->strides[d] = s, s *= v->shape[d];
    }
    return 0;
}

/* One extent per dynamic dimension (DSL-V2-SPEC §5): a DynVar bound to two extents in one call fails. */
static int ex_bind_dynamic(const cc_lo_proc *e, const ex_value *params, pto_error *err)
{
    for (uint32_t k = 0; k < e->nparams; k++) {
        if (e->params[k].kind != CC_LO_TENSOR) continue;
        const cc_type *t = &e->tensors[e->params[k].index].type;
        for (int d = 0; d < t->rank; d++) {
            if (!CC_DIM_IS_DYN(t->shape[d])) continue;
            for (uint32_t j = 0; j < k; j++) { /* the first earlier parameter with this symbol */
                if (e->params[j].kind != CC_LO_TENSOR) continue;
                const cc_type *u = &e->tensors[e->params[j].index].type;
                for (int c = 0; c < u->rank; c++)
                    if (u->shape[c] == t->shape[d] && params[j].tensor.shape[c] != params[k].tensor.shape[d])
                        return ex_bind_error(err, "function '%s': dynamic dimension '%s' is %lld for argument '%s' but %lld for argument '%s'",
                                             e->name, t->dyn[d] ? t->dyn[d] : "?", (long long)params[j].tensor.shape[c],
                                             ex_param_name(e, j), (long long)params[k].tensor.shape[d], ex_param_name(e, k));
            }
        }
    }
    return 0;
}

typedef struct ex_entry_dims {
    const cc_lo_proc *e;
    const ex_value *params;
} ex_entry_dims;

/* The extent an argument gives DynVar dimension dim (dim_expr.h's extent callback). */
static int ex_entry_extent(void *ctx, int64_t dim, int64_t *v)
{
    const ex_entry_dims *c = ctx;
    for (uint32_t k = 0; k < c->e->nparams; k++) {
        if (c->e->params[k].kind != CC_LO_TENSOR) continue;
        const cc_type *t = &c->e->tensors[c->e->params[k].index].type;
        for (int d = 0; d < t->rank; d++)
            if (t->shape[d] == dim) return *v = c->params[k].tensor.shape[d], 1;
    }
    return 0;
}

/* A derived dimension (N * 2) is its expression's value where the arguments give its DynVars. */
static int ex_bind_derived(const cc_lowered *l, const ex_value *params, pto_error *err)
{
    const cc_lo_proc *e = &l->procs[0];
    ex_entry_dims c = {e, params};
    for (uint32_t k = 0; k < e->nparams; k++) {
        if (e->params[k].kind != CC_LO_TENSOR) continue;
        const cc_type *t = &e->tensors[e->params[k].index].type;
        for (int d = 0; d < t->rank; d++) {
            const cc_dim_expr *x = CC_DIM_IS_DERIVED(t->shape[d]) ? cc_dim_expr_find(l->dims, l->ndims, t->shape[d]) : NULL;
            int64_t want;
            if (x && cc_dim_expr_eval(x, ex_entry_extent, &c, &want) && want != params[k].tensor.shape[d])
                return ex_bind_error(err, "function '%s': argument '%s' has extent %lld in dimension %d, but its annotation's %s is %lld", e->name,
                                     ex_param_name(e, k), (long long)params[k].tensor.shape[d], d, x->text, (long long)want);
        }
    }
    return 0;
}

int ex_bind(const cc_lowered *l, const pto_run_arg *args, size_t nargs, ex_value *params, pto_error *err)
{
    if (!l || !l->nprocs) return ex_bind_error(err, "pto_program_run: the program has no lowered code (compile errors, or compiled with stop_after)");
    const cc_lo_proc *e = &l->procs[0];
    if (nargs && !args) return ex_bind_error(err, "pto_program_run: args is NULL");
    const pto_run_arg *bound[256] = {0};
    if (e->nparams > 256) return ex_bind_error(err, "function '%s': too many parameters", e->name);
    for (size_t i = 0; i < nargs; i++) {
        uint32_t k = 0;
        if (!args[i].name) {
            if (i >= e->nparams) return ex_bind_error(err, "function '%s': takes %u arguments but %zu were given", e->name, e->nparams, nargs);
            k = (uint32_t)i;
        } else {
            while (k < e->nparams && strcmp(ex_param_name(e, k), args[i].name)) k++;
            if (k == e->nparams) return ex_bind_error(err, "function '%s': got an unexpected keyword argument '%s'", e->name, args[i].name);
        }
        if (bound[k]) return ex_bind_error(err, "function '%s': multiple values for argument '%s'", e->name, ex_param_name(e, k));
        bound[k] = &args[i];
    }
    for (uint32_t k = 0; k < e->nparams; k++) {
        if (!bound[k]) return ex_bind_error(err, "function '%s': missing a required argument: '%s'", e->name, ex_param_name(e, k));
        int rc = ex_bind_one(l, k, &bound[k]->value, &params[k], err);
        if (rc) return rc;
    }
    int rc = ex_bind_dynamic(e, params, err);
    return rc ? rc : ex_bind_derived(l, params, err);
}
