/*
 * tc_return.c - what an entry may return (docs/dsl.md, "Statements"): only
 * its tensor parameters, which the caller passed and still holds; a
 * tensor the entry made (pl.create_tensor) or any other value never
 * reaches the caller, so returning it is a type error at the `return`,
 * naming the value and, for a made tensor, where it was created.
 */
#include "compiler/tc.h"

void *tc_entry_return(tc *t, const cc_ir_expr *v)
{
    const char *who = tc_who(t, t->c.f->name);
    const tc_bind *b = v->kind == CC_X_VAR ? tc_lookup(&t->c.env, v->u.name) : NULL;
    if (b && b->created && b->implicit) /* DSL-V2-SPEC §1.6 T-ret */
        return tc_err(t, CC_DIAG_TYPE, v->span, NULL, "'%s' may return only its tensor parameters; '%s' is a tensor created at %s:%u",
                      t->c.f->name, v->u.name, cc_diag_file(t->d, b->created), (unsigned)cc_diag_line(t->d, b->created));
    if (b && b->created)
        return tc_err(t, CC_DIAG_TYPE, v->span, "return nothing, or store the result into a tensor parameter (pl.Out[...])",
                      "%s may return only its tensor parameters, not '%s': a tensor made by pl.create_tensor at %s:%u, "
                      "which the caller never sees",
                      who, v->u.name, cc_diag_file(t->d, b->created), (unsigned)cc_diag_line(t->d, b->created));
    return tc_err(t, CC_DIAG_TYPE, v->span, NULL, "%s may return only its tensor parameters, not '%s'", who,
                  v->kind == CC_X_VAR ? v->u.name : "this value");
}
