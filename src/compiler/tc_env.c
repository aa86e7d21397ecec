/*
 * tc_env.c - the type checker's environment: the names bound at the
 * current point of a function, with definite assignment across branches.
 *
 * Bindings sit in an array indexed by a hash map; every change is written
 * to an undo log.  A branch (loop body, if arm) is checked in place, then
 * taken back: its net changes are collected (a delta) and the log is
 * rolled back to where the branch began.  The deltas of the ways through
 * a statement are then merged and applied as ordinary, logged changes, so
 * enclosing branches can roll them back in turn.  Cost: proportional to
 * the changes a branch makes, never to the size of the environment; the
 * checker is linear in the program (measured in docs/performance.md).
 *
 * Merge rule (docs/compiler.md, "Checking"): a name is definite after a statement
 * when it is definite on every way through it (the way that skips a loop
 * body or lacks an else keeps the state before).  Two ways that bind one
 * name to different kinds (kind, dtype, tile shape) leave it in conflict:
 * only a name live across the merge must keep its kind, so the error is
 * raised where a conflicting name is read before being assigned again
 * (tc_name; a loop's back-edge, tc_stmt.c), citing the rebinding.
 */
#include "compiler/tc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"

tc_bind *tc_lookup(tc_env *e, const char *name)
{
    int64_t i = base_strmap_get(&e->map, name);
    return i >= 0 && !e->b[i].gone ? &e->b[i] : NULL;
}

void tc_env_free(tc_env *e)
{
    free(e->b);
    free(e->stamp);
    free(e->log);
    base_strmap_free(&e->map);
    *e = (tc_env){0};
}

static int tc_log(tc *t, uint32_t index, int added)
{
    tc_env *e = &t->c.env;
    if (e->nlog == e->logcap) {
        tc_undo *q = base_array_grow(e->log, &e->logcap, sizeof *q, 64);
        if (!q) return tc_oom(t), 0;
        e->log = q;
    }
    e->log[e->nlog++] = (tc_undo){index, (uint8_t)added, added ? (tc_bind){0} : e->b[index]};
    return 1;
}

/* Sets name's binding to *nb (logged); adds the name when new. */
static int tc_env_set(tc *t, const tc_bind *nb)
{
    tc_env *e = &t->c.env;
    int64_t i = base_strmap_get(&e->map, nb->name);
    if (i >= 0) {
        if (!tc_log(t, (uint32_t)i, 0)) return 0;
        e->b[i] = *nb;
        return 1;
    }
    if (e->n == e->cap) {
        uint64_t cap = e->cap;
        tc_bind *q = base_array_grow(e->b, &cap, sizeof *q, 16);
        if (q) e->b = q;
        uint32_t *st = q ? realloc(e->stamp, cap * sizeof *st) : NULL;
        if (!st) return tc_oom(t), 0;
        memset(st + e->cap, 0, (cap - e->cap) * sizeof *st);
        e->stamp = st, e->cap = cap;
    }
    if (base_strmap_put(&e->map, nb->name, e->n) != 0) return tc_oom(t), 0;
    e->b[e->n] = *nb;
    return tc_log(t, e->n++, 1);
}

/* Do two bindings of one name agree where a merge needs it (kind, dtype,
 * tile shape)? */
int tc_merge_compatible(const cc_type *a, const cc_type *b)
{
    if (a->kind != b->kind || a->dtype != b->dtype) return 0;
    return a->kind != CC_T_TILE || cc_type_equal(a, b);
}

int tc_merge_conflict(tc *t, const char *name, const cc_type *a, const cc_type *b, cc_span sp, const char *hint)
{
    char x[96], y[96];
    cc_type_format(a, x, sizeof x), cc_type_format(b, y, sizeof y);
    tc_err(t, CC_DIAG_TYPE, sp, hint, "'%s' changes from %s to %s across a loop or branch merge", name, x, y);
    return 0;
}

int tc_kind_conflict(tc *t, const tc_bind *b, cc_span read)
{
    char hint[64];
    snprintf(hint, sizeof hint, "it is read at line %u, column %u", cc_diag_line(t->d, read.line), read.col);
    return tc_merge_conflict(t, b->name, &b->from, &b->type, b->span, hint);
}

int tc_bind_name(tc *t, const char *name, cc_type type, cc_span sp) { return tc_bind_value(t, name, type, NULL, sp); }

int tc_bind_value(tc *t, const char *name, cc_type type, cc_ir_expr *value, cc_span sp)
{
    tc_bind nb = {.name = name, .type = type, .value = value, .definite = 1, .span = sp};
    return tc_env_set(t, &nb);
}

int tc_set_extent(tc *t, const char *name, int64_t sym)
{
    tc_bind nb = *tc_lookup(&t->c.env, name);
    nb.extent = sym;
    return tc_env_set(t, &nb);
}

int tc_unbind(tc *t, const char *name)
{
    tc_bind *b = tc_lookup(&t->c.env, name);
    if (!b) return 1;
    tc_bind nb = *b;
    nb.gone = 1;
    return tc_env_set(t, &nb);
}

int tc_forget_value(tc *t, const char *name)
{
    tc_bind *b = tc_lookup(&t->c.env, name);
    if (!b || !b->value) return 1;
    tc_bind nb = *b;
    nb.value = NULL;
    return tc_env_set(t, &nb);
}

uint32_t tc_env_mark(const tc_env *e) { return e->nlog; }

int tc_env_take(tc *t, uint32_t mark, tc_delta *out)
{
    tc_env *e = &t->c.env;
    *out = (tc_delta){0};
    uint32_t n = e->nlog - mark;
    if (n && !(out->b = malloc(n * sizeof *out->b))) return tc_oom(t), 0;
    /* the final state of every index touched since mark, once each */
    e->gen++;
    for (uint32_t k = e->nlog; k-- > mark;) {
        uint32_t i = e->log[k].index;
        if (e->stamp[i] == e->gen) continue;
        e->stamp[i] = e->gen;
        out->b[out->n++] = e->b[i];
    }
    for (uint32_t k = e->nlog; k-- > mark;) {
        const tc_undo *u = &e->log[k];
        if (u->added) base_strmap_remove(&e->map, e->b[u->index].name), e->n--;
        else e->b[u->index] = u->old;
    }
    e->nlog = mark;
    return 1;
}

void tc_delta_free(tc_delta *d)
{
    free(d->b);
    *d = (tc_delta){0};
}

static const tc_bind *tc_delta_find(const tc_delta *d, const base_strmap *index, const char *name)
{
    int64_t k = base_strmap_get(index, name);
    return k >= 0 ? &d->b[k] : NULL;
}

static int tc_delta_index(tc *t, const tc_delta *d, base_strmap *index)
{
    for (uint32_t k = 0; k < d->n; k++)
        if (base_strmap_put(index, d->b[k].name, k) != 0) return tc_oom(t), 0;
    return 1;
}

/* x (a way's final binding of a name) merged with y (the other way's, or
 * the state before when that way did not touch it; NULL: unbound). */
static int tc_merge_one(tc *t, const tc_bind *x, const tc_bind *y)
{
    if (x->gone && (!y || y->gone)) return y ? tc_env_set(t, y) : 1;
    tc_bind nb = x->gone ? *y : *x;
    if (!x->gone && y && !y->gone) {
        if (y->conflict && !x->conflict) nb = *y; /* a conflict stays, with the rebinding that made it */
        else if (!x->conflict && !tc_merge_compatible(&x->type, &y->type)) nb.conflict = 1, nb.from = y->type;
        nb.definite = x->definite && y->definite;
        nb.type.partial = x->type.partial || y->type.partial; /* either way may narrow a tile */
        if (x->value != y->value) nb.value = NULL;
        if (x->buffer != y->buffer) nb.buffer = NULL;
        if (x->extent != y->extent) nb.extent = 0;
    } else {
        nb.definite = 0, nb.value = NULL, nb.extent = 0;
    }
    if (!nb.created && y && !y->gone && y->created) nb.created = y->created, nb.created_in = y->created_in, nb.implicit = y->implicit;
    return tc_env_set(t, &nb);
}

int tc_env_merge(tc *t, const tc_delta *a, const tc_delta *b)
{
    base_strmap ia = {0}, ib = {0};
    int ok = tc_delta_index(t, a, &ia) && tc_delta_index(t, b, &ib);
    for (uint32_t k = 0; ok && k < a->n; k++) {
        const tc_bind *other = tc_delta_find(b, &ib, a->b[k].name);
        if (!other) other = tc_lookup(&t->c.env, a->b[k].name);
        ok = tc_merge_one(t, &a->b[k], other);
    }
    for (uint32_t k = 0; ok && k < b->n; k++)
        if (!tc_delta_find(a, &ia, b->b[k].name)) ok = tc_merge_one(t, &b->b[k], tc_lookup(&t->c.env, b->b[k].name));
    base_strmap_free(&ia), base_strmap_free(&ib);
    return ok;
}

int tc_is_local(const tc *t, const char *name)
{
    if (base_strmap_get(&t->c.locals, name) >= 0) return 1;
    for (uint32_t k = 0; t->c.f && !t->c.module_scope && k < t->c.f->nparams; k++)
        if (!strcmp(t->c.f->params[k].name, name)) return 1;
    return 0;
}

/* ---- runtime scopes, for a tensor read after its scope ended ---- */

int tc_scope_open(tc *t)
{
    tc_rscope *s = base_arena_alloc(t->a, sizeof *s);
    if (!s) return tc_oom(t), 0;
    s->up = t->c.scope, t->c.scope = s;
    return 1;
}

int tc_scope_is_open(const tc *t, const tc_rscope *s)
{
    for (const tc_rscope *o = t->c.scope; s && o; o = o->up)
        if (o == s) return 1;
    return !s;
}

int tc_scope_escape(tc *t, const tc_bind *b, cc_span sp)
{
    if (!b->created || tc_scope_is_open(t, b->created_in)) return 0;
    /* verify.c's V4 text: the same error as for a tensor bound on every way */
    tc_err(t, CC_DIAG_PASS, sp, NULL,
           "[ScopedTensorEscapes] tensor '%s' is created inside a runtime scope (%s:%u) and used after that scope ends; "
           "create it in an enclosing scope",
           b->name, cc_diag_file(t->d, b->created), (unsigned)cc_diag_line(t->d, b->created));
    return 1;
}
