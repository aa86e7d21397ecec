/*
 * scope.h - the scope stack (scope.c): the innermost scope and the release
 * of a scope's tasks.
 */
#ifndef RT_SCOPE_H
#define RT_SCOPE_H

#include "runtime/rt.h"

static inline rt_scope *rt_scope_current(pto_runtime *rt) { return &rt->scopes[rt->num_scopes - 1]; }
/* Releases the scope's reference on every task of the innermost scope and
 * pops it (the root stays). */
void rt_scope_release(pto_runtime *rt);

#endif
