/*
 * compile.c - the compiler driver behind pto/compile.h: source text
 * through the lexer, the parser, the type checker and the passes in
 * order, then lowering (checked by cc_lower_check in Debug and sanitizer
 * builds).
 *
 * Invariants: a stage runs only when every earlier stage succeeded; the
 * printed text is the program after the last stage that ran (empty when
 * stage 0 failed; the syntax tree as written when it stopped at SYNTAX);
 * diagnostics keep the order they were found in; the handle owns every
 * byte it hands out.  Every module (the entry's source and opts->modules)
 * is lexed and parsed on its own, its lines numbered on after the
 * module's before it (source.h's line space); the type checker reads
 * them together.
 */
#include "pto/compile.h"

#include <stdlib.h>
#include <string.h>

#include "base/fnv.h"
#include "base/strbuf.h"
#include "compiler/ast_printer.h"
#include "compiler/program.h"
#include "compiler/diag.h"
#include "compiler/introspect.h"
#include "compiler/lexer.h"
#include "compiler/lower.h"
#include "compiler/parser.h"
#include "compiler/passes.h"
#include "compiler/printer.h"
#include "compiler/torch_printer.h"
#include "compiler/typecheck.h"

/* The public dtypes are the compiler's, value by value and size by size
 * (TASK_ID, the compiler's last, has no public spelling). */
#define PTO_DTYPE_SAME_(n, size)                                                             \
    _Static_assert((int)PTO_DTYPE_##n == (int)CC_DT_##n, "pto_dtype " #n " is cc_dtype " #n); \
    _Static_assert(size == CC_DTYPE_SIZE_##n, "pto_dtype " #n " has cc_dtype " #n "'s size");
#define CC_DTYPE_SIZE_(n, size, fl, pl) enum { CC_DTYPE_SIZE_##n = size };
CC_DTYPE_LIST(CC_DTYPE_SIZE_)
PTO_DTYPE_LIST(PTO_DTYPE_SAME_)
#undef CC_DTYPE_SIZE_
#undef PTO_DTYPE_SAME_
#define PTO_DTYPE_ONE_(n, size) +1
_Static_assert(0 PTO_DTYPE_LIST(PTO_DTYPE_ONE_) == CC_DT_TASK_ID && CC_DT_TASK_ID + 1 == CC_DT_COUNT,
               "every cc_dtype but TASK_ID is public");
#undef PTO_DTYPE_ONE_

struct pto_program {
    cc_source *srcs;  /* per module (0: the entry's source, k: opts->modules[k - 1]), as are toks and mods */
    cc_tokens *toks;
    cc_module *mods;
    uint32_t nmods;
    cc_diags diags;
    base_arena arena;
    cc_ir_program ir;
    cc_lowered *lowered;
    base_strbuf text;
    base_strbuf listing;
    base_strbuf stages[PTO_STAGE_COUNT]; /* keep_stages: the text after each stage that ran */
    pto_diagnostic *pub;
    const char *entry;              /* opts->entry, copied */
    const pto_function_info *funcs; /* pto_program_functions's table, made when first asked for */
    size_t nfuncs;
    int funcs_made;
};

static const char *const pto_stage_names[] = {
    "all",
#define PTO_STAGE_NAME_(n, s) s,
    PTO_STAGE_LIST(PTO_STAGE_NAME_)
#undef PTO_STAGE_NAME_
};

int pto_stage_lookup(const char *name)
{
    for (int s = PTO_STAGE_SYNTAX; s < PTO_STAGE_COUNT; s++)
        if (name && !strcmp(pto_stage_names[s], name)) return s;
    return -1;
}

const char *pto_stage_name(pto_stage s) { return (unsigned)s < PTO_STAGE_COUNT ? pto_stage_names[s] : "?"; }

/* The passes after stage 0, in order. */
static int (*const pto_passes[])(cc_ir_program *) = {
    [PTO_STAGE_INLINE] = cc_pass_inline,
    [PTO_STAGE_OUTLINE] = cc_pass_outline_incore,
    [PTO_STAGE_DIRECTIONS] = cc_pass_call_directions,
    [PTO_STAGE_SCOPES] = cc_pass_materialize_scopes,
    [PTO_STAGE_VERIFY] = cc_verify,
    [PTO_STAGE_CACHE] = cc_pass_cache_policy,
};

/* The text with first_line - 1 newlines before it, so spans are the
 * file's line numbers. */
static int pto_source(pto_program *p, const pto_compile_options *o)
{
    size_t pad = o->first_line > 1 ? (size_t)o->first_line - 1 : 0;
    if (o->source_len > (size_t)-1 - pad) return -1;
    char *buf = malloc(pad + o->source_len + 1);
    if (!buf) return -1;
    memset(buf, '\n', pad);
    if (o->source_len) memcpy(buf + pad, o->source, o->source_len);
    int rc = cc_source_init(&p->srcs[0], o->filename ? o->filename : "<string>", buf, pad + o->source_len);
    free(buf);
    for (uint32_t k = 1; rc == 0 && k < p->nmods; k++) {
        const pto_module *m = &o->modules[k - 1];
        if (!m->source && m->source_len) return -1;
        rc = cc_source_init(&p->srcs[k], m->filename ? m->filename : "<string>", m->source, m->source_len);
        uint64_t base = (uint64_t)p->srcs[k - 1].line_base + p->srcs[k - 1].num_lines + 1; /* a line apart */
        if (base >= UINT32_MAX / 2) return -1;
        p->srcs[k].line_base = (uint32_t)base;
    }
    return rc;
}

/* Lexes and parses every module (each at its entry line, in the compile's line space); 0, or -1
 * when a module fails. */
static int pto_parse(pto_program *p, const pto_compile_options *o)
{
    for (uint32_t k = 0; k < p->nmods; k++) {
        int at = k ? o->modules[k - 1].entry_line : o->entry_line;
        if (k && at > 0) at += (int)p->srcs[k].line_base;
        if (cc_lex(&p->srcs[k], &p->diags, &p->toks[k]) != 0 || cc_parse_at(&p->srcs[k], &p->toks[k], at, &p->arena, &p->diags, &p->mods[k]) != 0)
            return -1;
    }
    return 0;
}

/* keep_stages: the program printed after stage s, in call-graph order,
 * leaving the function order the later stages see as it was. */
static int pto_keep_stage(pto_program *p, const pto_compile_options *o, int s)
{
    if (!o->keep_stages) return 0;
    cc_ir_func **funcs = p->ir.funcs;
    uint32_t cap = p->ir.capfuncs;
    if (!cc_ir_program_order(&p->ir)) {
        cc_diag_oom(&p->diags, (cc_span){0, 0, 0, 0}, "out of memory while ordering the functions");
        return -1;
    }
    cc_print_program(&p->ir, &p->stages[s]);
    p->ir.funcs = funcs, p->ir.capfuncs = cap;
    return 0;
}

/* Stage 0 through the last requested stage; 0, or -1 at the first that fails. */
static int pto_run_stages(pto_program *p, const pto_compile_options *o)
{
    int last = o->stop_after > PTO_STAGE_ALL && o->stop_after < PTO_STAGE_COUNT ? o->stop_after : PTO_STAGE_LOWER;
    if (!o->entry) {
        if (o->print_function) cc_print_source(&p->mods[0], o, &p->text);
        return 0;
    }
    if (!(p->entry = base_arena_strndup(&p->arena, o->entry, strlen(o->entry))))
        return cc_diag_oom(&p->diags, (cc_span){0, 0, 0, 0}, "out of memory while reading the entry"), -1;
    p->ir = (cc_ir_program){.arena = &p->arena, .diags = &p->diags, .src = &p->srcs[0]};
    if (last == PTO_STAGE_SYNTAX) {
        if (cc_check_entry(p->mods, p->nmods, o, &p->ir) != 0) return -1;
        cc_print_source(&p->mods[0], o, &p->text);
        return 0;
    }
    if (cc_typecheck(p->mods, p->nmods, o, &p->ir) != 0 || p->diags.errors || pto_keep_stage(p, o, PTO_STAGE_PARSE)) return -1;
    for (int s = PTO_STAGE_INLINE; s <= last && s < PTO_STAGE_LOWER; s++) {
        if (o->skip_stages & (1u << s)) continue;
        if (pto_passes[s](&p->ir) != 0 || p->diags.errors || pto_keep_stage(p, o, s)) return -1;
    }
    if (!cc_ir_program_order(&p->ir)) {
        cc_diag_oom(&p->diags, (cc_span){0, 0, 0, 0}, "out of memory while ordering the functions");
        return -1;
    }
    if (o->emit_torch) return cc_print_torch(&p->ir, o->emit_torch > 1, &p->text);
    cc_print_program(&p->ir, &p->text);
    if (last < PTO_STAGE_LOWER || (o->skip_stages & (1u << PTO_STAGE_LOWER))) return 0;
    if (cc_lower(&p->ir, &p->arena, &p->lowered) != 0 || p->diags.errors) return -1;
#if defined(PTO_CHECKS)
    if (cc_lower_check(p->lowered, &p->diags) != 0) return -1; /* a compiler bug, named before anything runs it */
#endif
    if (p->lowered->nprocs && p->lowered->procs[0].kind == CC_LO_HOST) { /* every call's entry check names it */
        cc_lowered_print(p->lowered, &p->listing);
        if (p->listing.oom) {
            cc_diag_oom(&p->diags, (cc_span){0, 0, 0, 0}, "out of memory while printing the listing");
            return -1;
        }
        p->lowered->digest = base_fnv_str(BASE_FNV_BASIS, base_strbuf_str(&p->listing));
    }
    return 0;
}

/* The public copies of the diagnostics. */
static int pto_publish(pto_program *p)
{
    if (!p->diags.n) return 0;
    if (!(p->pub = calloc(p->diags.n, sizeof *p->pub))) return -1;
    for (size_t k = 0; k < p->diags.n; k++) {
        const cc_diag *d = &p->diags.items[k];
        p->pub[k] = (pto_diagnostic){cc_diag_class_name(d->cls), d->message, d->hint, cc_diag_file(&p->diags, d->span.line),
                                     (int)cc_diag_line(&p->diags, d->span.line), (int)cc_diag_column(&p->diags, d->span.line, d->span.col),
                                     (int)cc_diag_line(&p->diags, d->span.end_line),
                                     (int)cc_diag_column(&p->diags, d->span.line, d->span.end_col),
                                     d->cls == CC_DIAG_WARNING};
    }
    return 0;
}

int pto_compile(const pto_compile_options *opts, pto_program **out)
{
    *out = NULL;
    if (!opts || (!opts->source && opts->source_len) || (!opts->modules && opts->nmodules) || opts->nmodules >= UINT32_MAX)
        return -1;
    pto_program *p = calloc(1, sizeof *p);
    if (!p) return -1;
    base_arena_init(&p->arena);
    p->nmods = (uint32_t)opts->nmodules + 1;
    p->srcs = calloc(p->nmods, sizeof *p->srcs);
    p->toks = calloc(p->nmods, sizeof *p->toks);
    p->mods = calloc(p->nmods, sizeof *p->mods);
    *out = p;
    if (!p->srcs || !p->toks || !p->mods || pto_source(p, opts) != 0) return -1;
    cc_diags_init(&p->diags, NULL);
    cc_diags_sources(&p->diags, p->srcs, p->nmods);
    p->diags.col_offset = opts->first_column > 0 ? (uint32_t)opts->first_column : 0;
    if (pto_parse(p, opts) != 0 || p->diags.out_of_memory) return -1;
    if (!p->diags.errors) pto_run_stages(p, opts);
    int stages_oom = 0;
    for (int s = 0; s < PTO_STAGE_COUNT; s++) {
        if (p->diags.errors) base_strbuf_free(&p->stages[s]);
        stages_oom |= p->stages[s].oom;
    }
    if (p->diags.errors) base_strbuf_free(&p->text), p->lowered = NULL;
    if (pto_publish(p) != 0 || p->diags.out_of_memory || p->text.oom || stages_oom) return -1;
    return p->diags.errors ? 1 : 0;
}

void pto_program_free(pto_program *p)
{
    if (!p) return;
    free(p->pub);
    base_strbuf_free(&p->text);
    base_strbuf_free(&p->listing);
    for (int s = 0; s < PTO_STAGE_COUNT; s++) base_strbuf_free(&p->stages[s]);
    for (uint32_t k = 0; k < p->nmods; k++) {
        if (p->toks) cc_tokens_free(&p->toks[k]);
        if (p->srcs) cc_source_free(&p->srcs[k]);
    }
    cc_diags_free(&p->diags);
    base_arena_free(&p->arena);
    free(p->srcs), free(p->toks), free(p->mods);
    free(p);
}

size_t pto_program_diag_count(const pto_program *p) { return p ? p->diags.n : 0; }

const pto_diagnostic *pto_program_diag(const pto_program *p, size_t i)
{
    return p && p->pub && i < p->diags.n ? &p->pub[i] : NULL;
}

size_t pto_program_diag_format(const pto_program *p, size_t i, char *buf, size_t cap)
{
    if (!p || i >= p->diags.n) {
        if (cap) buf[0] = 0;
        return 0;
    }
    return cc_diag_format(&p->diags, i, buf, cap);
}

/* Is def decorated with a plain @pl.jit / @pl.jit(...), or a class? */
static int pto_is_entry(const cc_module *m, const cc_stmt *def)
{
    if (def->kind == CC_S_CLASS) return 1;
    if (def->u.def.ndecorators != 1) return 0;
    const cc_expr *d = def->u.def.decorators[0];
    if (d->kind == CC_E_CALL) d = d->u.call.fn;
    return d->kind == CC_E_ATTR && !strcmp(d->u.attr.name, "jit") && d->u.attr.value->kind == CC_E_NAME &&
           !strcmp(d->u.attr.value->u.name, m->pl_name ? m->pl_name : "pl");
}

const char *pto_program_entry(const pto_program *p, size_t i)
{
    const cc_module *m = p ? &p->mods[0] : NULL;
    for (uint32_t k = 0; m && k < m->ndefs; k++)
        if (pto_is_entry(m, m->defs[k]) && i-- == 0) return m->defs[k]->u.def.name;
    return NULL;
}

const char *pto_program_function(const pto_program *p, unsigned *norchestration)
{
    if (norchestration) *norchestration = p ? p->ir.norchestration : 0;
    return p ? p->ir.function : NULL;
}

const cc_lowered *cc_program_lowered(const pto_program *p) { return p ? p->lowered : NULL; }

int pto_program_writes(const pto_program *p, const char *param)
{
    const cc_lo_proc *e = p && p->lowered && p->lowered->nprocs ? &p->lowered->procs[0] : NULL;
    for (uint32_t k = 0; e && param && k < e->nparams; k++) {
        cc_lo_ref r = e->params[k];
        const char *n = r.kind == CC_LO_TENSOR ? e->tensors[r.index].name : NULL;
        if (n && !strcmp(n, param)) return e->dirs[k] == CC_DIR_OUT || e->dirs[k] == CC_DIR_INOUT;
    }
    return 0;
}

/* The compiled entry (the function the call binds to), or NULL before the passes ran. */
static const cc_ir_func *pto_entry_func(const pto_program *p)
{
    if (!p || p->diags.errors) return NULL;
    for (uint32_t k = 0; k < p->ir.nfuncs; k++)
        if (p->ir.funcs[k]->entry) return p->ir.funcs[k];
    return NULL;
}

int pto_program_param(const pto_program *p, size_t i, pto_param *out)
{
    const cc_ir_func *f = pto_entry_func(p);
    if (!f || i >= f->nparams) return 0;
    const cc_ir_param *ip = &f->params[i];
    int tensor = ip->type.kind == CC_T_TENSOR;
    *out = (pto_param){.name = ip->name, .kind = tensor ? PTO_ARG_TENSOR : PTO_ARG_SCALAR, .dtype = (pto_dtype)ip->type.dtype,
                       .rank = tensor ? ip->type.rank : 0, .direction = tensor ? ip->dir : 0};
    for (int d = 0; tensor && d < ip->type.rank && d < 4; d++) out->shape[d] = ip->type.shape[d];
    return 1;
}

int pto_program_nresults(const pto_program *p)
{
    const cc_ir_func *f = pto_entry_func(p);
    return f ? (int)f->nresults : 0;
}

const char *pto_program_stage_text(const pto_program *p, pto_stage s)
{
    if (!p || s < PTO_STAGE_PARSE || s >= PTO_STAGE_LOWER || !p->stages[s].len) return NULL;
    return base_strbuf_str(&p->stages[s]);
}

size_t pto_program_functions(pto_program *p, const pto_function_info **out)
{
    *out = NULL;
    if (!p || p->diags.errors) return 0;
    if (!p->funcs_made) p->nfuncs = cc_module_functions(&p->mods[0], p->entry, &p->arena, &p->funcs), p->funcs_made = 1;
    *out = p->funcs;
    return p->nfuncs;
}

const char *pto_program_text(const pto_program *p) { return p ? base_strbuf_str(&p->text) : ""; }
const char *pto_program_listing(pto_program *p)
{
    if (!p) return "";
    if (p->lowered && !p->listing.len) cc_lowered_print(p->lowered, &p->listing); /* printed when first asked for */
    return p->listing.oom ? "" : base_strbuf_str(&p->listing);
}

