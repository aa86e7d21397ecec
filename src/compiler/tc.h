/*
 * tc.h - the type checker's state and the helpers its files share
 * (typecheck.c: the program and calls; tc_decl.c: declarations,
 * decorators and signatures; tc_stmt.c: statements and blocks; tc_with.c:
 * `with` items (scopes, pl.at) and cache markers; tc_expr.c: names,
 * constants, pl names, scalar arithmetic, annotations; tc_ops.c: pl ops;
 * tc_elem.c: element access).
 *
 * Invariants: a check that fails records one diagnostic and returns NULL
 * (expressions) or 0 (statements); the caller stops the statement there.
 * The environment (tc_env.c) holds the names bound at the current point of
 * the current function, each definite or maybe-bound, and each of one kind
 * or in conflict (ways merged there bring different kinds: reading it is
 * the error); a branch is checked in place and taken back out as a delta,
 * and deltas are merged.
 */
#ifndef CC_TC_H
#define CC_TC_H

#include <stdint.h>

#include "base/strmap.h"
#include "compiler/typecheck.h"

/* A runtime scope the typecheck is in or has left: a `with pl.scope()` /
 * `pl.manual_scope()` body, or a for body or if arm the scopes pass will
 * wrap in one (an auto_scope Orchestration function, outside manual
 * scopes); NULL stands for the function body. */
typedef struct tc_rscope {
    const struct tc_rscope *up;
} tc_rscope;

typedef struct tc_bind {
    const char *name;
    cc_type type;
    cc_type from;      /* conflict: the kind the other way brings to the merge */
    cc_ir_expr *value; /* a specialized scalar argument's constant value */
    cc_span span;      /* where it was bound (conflict: the rebinding that changed the kind) */
    uint8_t definite;  /* bound on every path to here */
    uint8_t conflict;  /* ways merged here bring different kinds (docs/dsl.md, "Statements") */
    uint8_t gone;      /* unbound again (a loop variable after its loop) */
    uint32_t created;  /* bound to a pl.create_tensor result: its line (0: not) ... */
    const tc_rscope *created_in; /* ... made in this runtime scope */
    const char *buffer; /* a tensor: the tensor parameter whose buffer it is (NULL: none, or not known) */
    uint8_t implicit;  /* created: allocated by the compiler (a T-x name after its pl.at, DSL-V2-SPEC §1.6) */
    int64_t extent;    /* a scalar used as a run-time extent: the symbol its value got (0: none yet), so
                        * every shape entry naming this binding is one dimension (tc_dynamic.c) */
} tc_bind;

/* One change of the environment, to undo: the binding's previous state. */
typedef struct tc_undo {
    uint32_t index;
    uint8_t added;
    tc_bind old;
} tc_undo;

typedef struct tc_env {
    tc_bind *b;
    uint32_t *stamp;   /* per binding: the last tc_env_take that collected it */
    uint32_t n, gen;
    uint64_t cap;
    base_strmap map;   /* name -> index in b */
    tc_undo *log;
    uint32_t nlog;
    uint64_t logcap;
} tc_env;

/* The net changes of one way through a statement: final bindings. */
typedef struct tc_delta {
    tc_bind *b;
    uint32_t n;
} tc_delta;

/* A function the program may reach: a decorated def of the module or a
 * method of the program class (and, for a class, the module's standalone
 * @pl.function defs: DSL-V2-SPEC §2 F-sa). */
typedef struct tc_fn {
    const cc_stmt *def;
    const char *name;
    uint8_t kind;       /* cc_func_kind */
    uint8_t auto_scope;
    uint8_t jit_entry;  /* @pl.jit (an entry) */
    uint8_t host;       /* @pl.jit.host (later) */
    uint8_t state;      /* 0 unchecked, 1 being checked, 2 checked */
    uint8_t broken;     /* its declaration has errors, reported if the entry reaches it */
    uint8_t standalone; /* a module-level @pl.function (F-sa): called by bare name, never an entry */
    uint32_t module;    /* the module whose file defines it (0: the entry's; docs/dsl.md, "Kernels from other modules") */
    cc_ir_hints opts;   /* InCore: optimizations= */
    cc_ir_func *ir;
} tc_fn;

/* A function's `-> T` (docs/dsl.md, "Annotations"): None (n = 0), one annotation, or
 * tuple[T1, ..., Tn]; each parsed as a parameter's (shaped 0: a bare
 * pl.Tensor or pl.Scalar, any tensor or scalar). */
typedef struct tc_result_ann {
    const cc_expr *ann; /* NULL: not annotated */
    cc_type *types;
    uint8_t *shaped;
    uint32_t n;
    uint8_t tuple;      /* written tuple[...] */
    const cc_expr **tiles; /* per result: its pl.Tile[...] annotation (checked by tc_tile_annotation), or NULL */
} tc_result_ann;

/* Where code runs: the control plane (orchestration), kernel code, or an
 * Inline body (judged at its call sites after inlining). */
typedef enum tc_plane { TC_CONTROL, TC_KERNEL, TC_INLINE } tc_plane;

/* Where a pl.yield_ may stand (DSL-V2-SPEC §6, L-carry; tc_loop.c): the innermost carried
 * loop's body end or a yielding if arm's end. */
typedef struct tc_yield_site {
    struct tc_yield_site *up;
    const cc_stmt *last;    /* the yield statement that ends the body (NULL: none) */
    uint8_t phi;            /* an if arm's (else a loop's) */
    const cc_expr *carries; /* a loop's: its carry names (a tuple of names) */
    uint32_t n;             /* a loop's: how many it carries */
} tc_yield_site;

/* What belongs to the function being checked; saved and restored around
 * the check of a callee (callees are checked at their first call). */
/* A DynVar's binding in one function (tc_dynamic.c): symbol sym (a CC_DIM_DYN value) is value
 * (an entry: the argument's extent, first given by parameter param; a callee: the caller's
 * dimension, a constant or the caller's own symbol). */
typedef struct tc_dyn_binding {
    int64_t sym, value;
    const char *param;
    const char *name; /* a callee's: the name of the caller's symbol (NULL: a constant) */
} tc_dyn_binding;
#define TC_MAX_DYN_BINDINGS 16
#define TC_MAX_WINBUFS 64
#define TC_MAX_IMPLICIT_DYN 16
typedef struct tc_dyn_bindings {
    tc_dyn_binding items[TC_MAX_DYN_BINDINGS];
    uint32_t n;
} tc_dyn_bindings;

typedef struct tc_ctx {
    tc_fn *fn;
    cc_ir_func *f;
    tc_env env;
    base_strmap locals;       /* names assigned anywhere in the body -> how many statements assign them */
    tc_plane plane;
    uint8_t host;             /* a host orchestrator's body (DISTRIBUTED-SPEC §1.2) */
    int in_at;                /* inside a pl.at(CORE_GROUP) body (1) or a pl.spmd body (2) */
    int in_cluster;           /* inside a pl.cluster() body */
    int manual;               /* open MANUAL scopes */
    int branches;             /* enclosing loops and branches */
    const tc_rscope *scope;    /* the innermost runtime scope open here (NULL: the function body) */
    int returned;             /* the body's return was seen */
    const cc_expr *whole_call; /* the statement's whole value: the one place a kernel call may stand */
    const char *assign_name;  /* the statement is `<name> = <whole_call>` (NULL: not a simple assignment) */
    cc_ir_stmt **prelude;     /* statements the current one needs before it (in the arena): `return k(...)`'s
                               * call, an implicit result's store or allocation (tc_implicit.c) */
    uint32_t nprelude;
    cc_ir_stmt **post;        /* statements the current one adds after it (malloc'd; tc_loop.c: a carried loop's
                               * yield-bound names, an unrolled loop's copies) */
    uint32_t npost;
    tc_yield_site *yield;     /* where a pl.yield_ may stand (NULL: nowhere) */
    const char *unrolled[8];  /* the variables of the enclosing pl.unroll copies (bound to constants) */
    uint32_t nunrolled;
    tc_result_ann result;     /* its `-> T` */
    int module_scope;         /* names resolve at module level: in the signature's annotations
                               * (evaluated where the def stands, as in Python) and in a module
                               * constant's value; the parameters are not local there */
    tc_dyn_bindings dyn;      /* the function's DynVars, bound by its parameters (tc_dynamic.c) */
} tc_ctx;

/* One module as its functions see it: its syntax tree, the options with
 * its own constants, the name it binds to pypto.language. */
typedef struct tc_module {
    const cc_module *m;
    pto_compile_options o;
    const char *pl;
    const char *pld;  /* the name it binds to pypto.language.distributed ("pld" when none) */
} tc_module;

typedef struct tc {
    const cc_module *m;       /* the current module's (tc_use_module): that of the function being read */
    const char *implicit_dyn[TC_MAX_IMPLICIT_DYN]; /* undefined names used as dimensions: DynVars (tc_dynamic.c) */
    uint32_t nimplicit_dyn;
    uint32_t nruntime_dims;   /* run-time extents given a symbol so far (tc_dynamic.c) */
    const pto_compile_options *o;  /* the current module's options (its constants) */
    tc_module *mods;          /* every module of the compile; [0] the entry's */
    uint32_t nmods, cur;      /* how many, and the current one */
    const pto_import *imports; /* names bound to another module's kernels (pto_compile_options's) */
    size_t nimports;
    cc_ir_program *p;
    base_arena *a;
    cc_diags *d;
    const char *pl;           /* the name bound to pypto.language */
    const char *pld;          /* the name bound to pypto.language.distributed */
    const cc_stmt *cls;       /* the @pl.program class, or NULL */
    tc_fn *fns;
    uint32_t nfns;
    int oom;
    tc_ctx c;
    const char *const_guard[16]; /* constants being evaluated (cycles) */
    int nconst_guard;
    int unshaped;             /* an entry argument has no spec (tc_unshaped.c checks what needs none) */
    cc_valid_shape view_valid; /* the last tensor annotation's pl.TensorView(valid_shape=) (tc_tensor_view) */
    const char *winbufs[TC_MAX_WINBUFS]; /* the window buffers declared so far (tc_pld.c) */
    uint32_t nwinbufs;
} tc;

/* ---- diagnostics (each returns NULL) ---- */
void *tc_err(tc *t, cc_diag_class cls, cc_span sp, const char *hint, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
void *tc_oom(tc *t);
/* "a function kind's who": `@pl.jit function 'f'` or `@pl.program function 'P.f'`. */
const char *tc_who(tc *t, const char *fname);
/* Where kernel code is, for the control-plane message. */
const char *tc_where(tc *t);
/* "<construct> is control-plane work and is not allowed in kernel code (<where>)". */
void *tc_control_in_kernel(tc *t, cc_span sp, const char *construct);

/* Collects the names assigned anywhere in b (Python: local throughout),
 * each with how many statements assign it (typecheck.c). */
void tc_scan(tc *t, const cc_block *b, base_strmap *out);

/* ---- environment (tc_env.c) ---- */
/* The binding of name, or NULL. */
tc_bind *tc_lookup(tc_env *e, const char *name);
/* Binds name (logged); straight-line rebinding may change its kind. */
int tc_bind_name(tc *t, const char *name, cc_type type, cc_span sp);
/* The same, the name standing for value wherever it is read (a list of
 * constants bound outside any branch or loop: usable as offsets or shapes). */
int tc_bind_value(tc *t, const char *name, cc_type type, cc_ir_expr *value, cc_span sp);
/* Records that bound scalar name's value is run-time extent symbol sym (tc_bind.extent); 0 when out of memory. */
int tc_set_extent(tc *t, const char *name, int64_t sym);
int tc_unbind(tc *t, const char *name);
/* name keeps its binding but no longer stands for a constant. */
int tc_forget_value(tc *t, const char *name);
void tc_env_free(tc_env *e);
/* A branch: mark, check it, then take its net changes back out. */
uint32_t tc_env_mark(const tc_env *e);
int tc_env_take(tc *t, uint32_t mark, tc_delta *out);
void tc_delta_free(tc_delta *d);
/* Applies the merge of two ways through a statement (an empty delta: the
 * way that changes nothing).  A name the ways bind to different kinds is
 * left in conflict: an error only where it is read before being assigned
 * again (docs/dsl.md, "Statements": only a live name must keep its kind). */
int tc_env_merge(tc *t, const tc_delta *a, const tc_delta *b);
/* Reports b's kind conflict, read at read: at the rebinding, the read in
 * the hint (docs/dsl.md, "Statements").  Returns 0. */
int tc_kind_conflict(tc *t, const tc_bind *b, cc_span read);
/* Do two bindings of one name agree where a merge needs it (kind, dtype, a tile's shape)? */
int tc_merge_compatible(const cc_type *a, const cc_type *b);
/* The merge text for name going from type a to b, at sp (hint NULL: none); returns 0. */
int tc_merge_conflict(tc *t, const char *name, const cc_type *a, const cc_type *b, cc_span sp, const char *hint);
int tc_is_local(const tc *t, const char *name);
/* Opens a runtime scope inside the current one (t->c.scope); 0 when out of memory. */
int tc_scope_open(tc *t);
/* Is s (NULL: the function body) open at the current point? */
int tc_scope_is_open(const tc *t, const tc_rscope *s);
/* A maybe-bound b read at sp: when b holds a pl.create_tensor result whose
 * runtime scope has ended, that (verify.c's V4) is the error to report,
 * not the way around the assignment; returns 1 after reporting it. */
int tc_scope_escape(tc *t, const tc_bind *b, cc_span sp);

/* ---- tc_dynamic.c: dynamic dimensions (docs/dsl.md, "Dynamic shapes") ---- */
/* Is e a DynVar (a name bound to pl.dynamic("<n>"), or a dimension name defined nowhere)?
 * 1: *dim = its CC_DIM_DYN symbol, *name its name; 0: no; -1: reported. */
int tc_dynvar(tc *t, const cc_expr *e, int64_t *dim, const char **name);
/* The dimension pld.world_size() stands for in a window view's shape: the DynVar pld_world_size
 * (the module's, as a printed program declares it, else an implicit one; the host interpreter
 * binds it to P); 0 when reported. */
int64_t tc_world_dim(tc *t, cc_span sp, const char **name);
/* Dimension d of a tensor annotation: a DynVar (*name set) or a positive constant; 0 when reported. */
int tc_annotation_dim(tc *t, const cc_expr *e, uint32_t d, int64_t *dim, const char **name);
/* Annotation dimension e, integer arithmetic over DynVars and constants, as its
 * derived dimension's shape entry and text (tc_dim_expr.c); 0 when reported. */
int tc_derived_dim(tc *t, const cc_expr *e, int64_t *dim, const char **name);
/* The derived dimensions of callee f's parameter annotations anns at a call with arguments
 * args, once every parameter has bound its DynVars (tc_dim_expr.c); 0 when reported. */
int tc_bind_derived(tc *t, cc_ir_func *f, cc_ir_expr *const *args, const cc_type *anns);
/* An entry parameter's dynamic dimensions (annotation ann) bound to the argument's extents
 * in b; a symbol given two extents is the TypeError of DSL-V2-SPEC §5.  0 when reported. */
int tc_dyn_bind_entry(tc *t, tc_dyn_bindings *b, const char *who, const char *param, cc_type *ann, const int64_t *extents,
                      cc_span sp);
/* Does a callee's parameter annotation ann accept argument type arg, binding its DynVars in b
 * (per call site, consistently)?  Static dimensions must be equal, or (run_time_ok: a kernel's)
 * a run-time extent of arg, checked when the task is submitted. */
int tc_dyn_match(tc_dyn_bindings *b, const cc_type *ann, const cc_type *arg, int run_time_ok);
/* Shape entry d of an orchestration pl.create_tensor or pl.slice (x, type-checked): a positive
 * constant, pl.tensor.dim of a dynamic dimension (that dimension), or a run-time integer scalar,
 * which gets a new run-time symbol (its name: the entry's text when that is a name, else dim_<k>).
 * 0 when reported (what: the op's name). */
int tc_extent_dim(tc *t, const cc_ir_expr *x, const char *what, uint32_t d, int64_t *dim, const char **name);
/* Does kernel parameter type param accept argument type arg when each of arg's run-time extents
 * standing for a static dimension of param is checked when the task is submitted (lower.c's
 * cc_lo_view.check)?  Equal types do too. */
int tc_fits_at_run_time(const cc_type *param, const cc_type *arg);
/* ty with each DynVar bound in b replaced by its value (a callee's result annotation). */
void tc_dyn_substitute(const tc_dyn_bindings *b, cc_type *ty);
/* pl.tensor.dim(t, axis): a constant for a static dimension, else the TENSOR_DIM op. */
cc_ir_expr *tc_tensor_dim(tc *t, const cc_expr *call);
/* The pl.dynamic call of a module constant read as a value: the extent its symbol is bound to
 * in the current function (a constant, or pl.tensor.dim of a parameter). */
cc_ir_expr *tc_dynvar_value(tc *t, const cc_expr *call);

/* The third entry of a pl.Tensor[...] annotation when it is a pl.TensorView(...) call, else NULL. */
const cc_expr *tc_tensor_view_entry(const tc *t, const cc_expr *e);
/* Checks a pl.TensorView(stride=None, layout=pl.TensorLayout.ND, valid_shape=None, pad=None)
 * entry (DSL-V2-SPEC §5) of a tensor annotation of type ty (its shape read) and
 * records its valid_shape= in t->view_valid; 0 when reported. */
int tc_tensor_view(tc *t, const cc_expr *view, const cc_type *ty);
/* A @pl.jit signature's parameter annotated with a pl.TensorView: the TypeError; 0 when reported. */
int tc_no_tensor_view_in_jit(tc *t, const cc_expr *ann, const char *who, const char *param);

/* ---- tc_expr.c ---- */
/* Is e `pl.<a>` (a == NULL: any), or `pl.<a>.<b>`?  Returns the final name. */
const char *tc_pl_attr(const tc *t, const cc_expr *e, const char *a);
/* The pl-dotted spelling of e ("pl.Level.CORE_GROUP", "pl.load"), or NULL. */
const char *tc_pl_path(tc *t, const cc_expr *e);
/* An enum member `pl.<Enum>.<M>` -> its value, or -1 (no diagnostic). */
int tc_enum_value(tc *t, const cc_expr *e, const char *enum_name);
/* Reports construct, a pl name or keyword of status (names.h) later or
 * hardware-internal (for the reason), as UnsupportedFeatureError. */
void *tc_pl_unsupported(tc *t, cc_span sp, uint8_t status, uint8_t reason, const char *construct);
/* Reports e when it spells a hardware-internal name (names.h: a HARDWARE
 * row, a CC_PL_MEMBER_LIST member, pl.DataType.<DT>), through module
 * constants; returns 1 then, else 0 (nothing reported). */
int tc_pl_hardware(tc *t, const cc_expr *e);
/* tc_pl_hardware, and pl.TensorView(..., layout=<hardware layout>): a
 * layout entry of an annotation or a call; returns 1 when reported. */
int tc_layout_hardware(tc *t, const cc_expr *e);
/* Reports keyword kw of pl.<form> when names.h lists it (later or
 * hardware-internal); returns 1 then, else 0 (nothing reported). */
int tc_pl_keyword_unsupported(tc *t, const char *form, const cc_keyword *kw);
/* A dtype `pl.FP32` -> cc_dtype; reports and returns -1 otherwise. */
int tc_dtype_arg(tc *t, const cc_expr *e, const char *what);
/* tc_dtype_arg, and the dtype must be a tile's (not INDEX or BOOL). */
int tc_tile_dtype_arg(tc *t, const cc_expr *e, const char *what);
/* tc_dtype_arg for a tensor's dtype (cc_dtype_is_tensor): else "a tensor dtype must be ...". */
int tc_tensor_dtype_arg(tc *t, const cc_expr *e, const char *what);
/* Refuses a BOOL tile operand of pl.<op> ("pl.<op> does not accept BOOL tiles; cast first", at sp):
 * BOOL tiles only load, store, move, cast, read and write.  1 when x is not one. */
int tc_no_bool_tile(tc *t, const char *op, const cc_ir_expr *x, cc_span sp);
/* e, or, when e names a module constant (not shadowed by a local), that
 * constant's expression (followed through constants naming constants):
 * where a literal list, dtype or enum member is expected, a module
 * constant bound to one serves (docs/dsl.md, "Annotations": module constants). */
const cc_expr *tc_module_constant_ast(tc *t, const cc_expr *e);
cc_ir_expr *tc_expr(tc *t, const cc_expr *e);
/* A constant of the module or the caller: its folded value, or NULL with
 * *found = 0 (no such constant) or 1 (an error was reported). */
cc_ir_expr *tc_constant(tc *t, const char *name, cc_span sp, int *found);
/* An expression that must be a compile-time integer. */
int tc_const_int(tc *t, const cc_expr *e, int64_t *v, const char *what);
/* Parses a parameter or result annotation into *ty (kind VOID: bare
 * pl.Tensor, shape from the argument), *dir, *declared. */
int tc_annotation(tc *t, const cc_expr *ann, cc_type *ty, uint8_t *dir, int *shaped);
/* Parses a def's `-> T` (ann NULL: none) into *out. */
int tc_result_annotation(tc *t, const cc_expr *ann, tc_result_ann *out);
cc_ir_expr *tc_scalar_binary(tc *t, cc_op op, cc_ir_expr *l, cc_ir_expr *r, cc_span sp);
/* Is e a constant expression: literals and module or caller constants,
 * with arithmetic (no locals, no parameters: a specialized argument folds
 * to a constant but is a variable of its own dtype)? */
int tc_constant_ast(tc *t, const cc_expr *e);
/* v, the value of a constant expression, where a pl.Scalar[dt] is declared
 * (an annotated local or result, a kernel's declared scalar parameter):
 * converted to dt when it fits, as an argument is (cc_scalar_fits: an int
 * an integer dtype's range or a float dtype's finite range, a float only a
 * float dtype's); NULL, reported as
 * "<who> = <v> does not fit pl.<DT>", when it does not.  Any other value,
 * and a BOOL or TaskId dt, comes back unchanged for the caller's check. */
cc_ir_expr *tc_constant_as(tc *t, cc_ir_expr *v, int dt, const char *who);

/* ---- tc_ops.c ---- */
/* An op call's arguments bound to its parameter names (NULL: absent). */
typedef struct tc_args {
    const cc_expr *v[10]; /* pl.random's ten parameters */
} tc_args;
/* Binds call's arguments to the np parameter names of pl.<op> (positional
 * first, then keywords); 0 when reported. */
int tc_op_bind(tc *t, const cc_expr *call, const char *op, const char *const *params, uint32_t np, tc_args *a);
/* The first n parameters are given; 0 when reported. */
int tc_need(tc *t, const cc_expr *call, const char *op, const tc_args *a, uint32_t n, const char *const *params);
/* A call of pl.<name> (name is the op's pl spelling). */
cc_ir_expr *tc_pl_call(tc *t, const cc_expr *call, const char *name);
/* A call of pl.tile.<op> or pl.tensor.<op> (ops.h's namespaces): the op,
 * its operands checked to be Tiles (Tensors). */
cc_ir_expr *tc_pl_namespace_call(tc *t, const cc_expr *call, cc_op_namespace ns);
/* A tile operand: a tile, or a tensor in kernel code (an implicit load). */
cc_ir_expr *tc_tile_operand(tc *t, cc_ir_expr *x, cc_span sp);
/* The tile op for a binary operator with a tile on the left. */
cc_ir_expr *tc_tile_binary(tc *t, cc_ir_op op, cc_ir_expr *l, cc_ir_expr *r, cc_span sp);
cc_ir_expr *tc_tile_unary(tc *t, cc_ir_op op, cc_ir_expr *x, cc_span sp);
/* "[4, 8]": a tile's shape, in the arena. */
const char *tc_shape_text(tc *t, const cc_type *ty);
/* A constant shape list (1 to 4 positive entries) into ext[*n]; 0 when reported. */
int tc_shapes(tc *t, const cc_expr *e, const char *op, int64_t *ext, uint32_t *n, cc_ir_expr **list);
/* The shape of a tensor-level value made in kernel code (pl.full, pl.create_tensor):
 * as tc_shapes, a non-constant entry reported as "<what> shape element <i> must
 * be a compile-time constant" (what "pl.full"). */
int tc_value_shape(tc *t, const cc_expr *e, const char *op, const char *what, int64_t *ext, uint32_t *n, cc_ir_expr **list);
/* Tile ops run in kernel code only; 0 when reported. */
int tc_kernel_only(tc *t, const char *op, cc_span sp);
/* The LOAD of src's window (offs, shp of constant extents ext, valid_shape valid or NULL)
 * after pl.load's checks, with `op` ("load", "slice") in their texts; NULL when reported. */
cc_ir_expr *tc_load_op(tc *t, cc_span sp, const char *op, cc_ir_expr *src, cc_ir_expr *offs, cc_ir_expr *shp, const int64_t *ext,
                       cc_ir_expr *valid, int clamp, uint8_t mem);
/* The STORE of tile into dst at offs (extents ext[n], shp NULL: the tile's) after pl.store's
 * checks; NULL when reported. */
cc_ir_expr *tc_store_op(tc *t, cc_span sp, cc_ir_expr *tile, cc_ir_expr *offs, cc_ir_expr *dst, cc_ir_expr *shp, const int64_t *ext, uint32_t n);
/* atomic= of pl.<op> (e NULL: absent): its pl.AtomicType value; -1 when reported. */
int tc_atomic_kw(tc *t, const cc_expr *e, const char *op);
/* An atomic pl.<op> adds tile into the tensor: the dtypes that add (DSL-V2-SPEC §1.5); 0 when reported. */
int tc_atomic_dtype(tc *t, const char *op, const cc_ir_expr *tile, cc_span sp);

/* ---- tc_ops_misc.c ---- */
/* pl.matmul_acc, pl.concat, pl.fillpad, pl.tile.full called by name; NULL when reported. */
cc_ir_expr *tc_misc_op(tc *t, const cc_expr *call, cc_ir_op op);
/* tc_create.c: pl.arange, pl.tri, pl.random, pl.reinterpret_view, pl.dump_tag (the tensor itself). */
cc_ir_expr *tc_create_op(tc *t, const cc_expr *call, cc_ir_op op);
/* Is call written <ns>.dump_tag(...) (an expression statement it makes is no statement)? */
int tc_is_dump_tag(const cc_expr *call);
/* pl.const(value, dtype): a typed literal. */
cc_ir_expr *tc_pl_const(tc *t, const cc_expr *call);
/* The op's dtype rule on a tile of dtype dt (BOOL: no arithmetic op takes it); 0 when reported. */
int tc_op_dtypes(tc *t, const cc_op_info *row, uint8_t dt, cc_span sp);
/* tc_expand.c: pl.row_expand_<op> / pl.col_expand_<op> (tile l, vector r), pl.expands
 * (target l, scalar r), pl.expand_clone (input l, target r); NULL when reported. */
cc_ir_expr *tc_tile_expand(tc *t, cc_ir_op op, cc_ir_expr *l, cc_ir_expr *r, cc_span sp);
cc_ir_expr *tc_tile_expands(tc *t, cc_ir_expr *l, cc_ir_expr *r, cc_span sp);
cc_ir_expr *tc_broadcast(tc *t, cc_ir_op op, cc_ir_expr *in, cc_ir_expr *tg, cc_span sp);
/* tc_linalg.c: pl.matmul_bias, pl.batch_matmul, pl.gemv, pl.gemv_acc, pl.gemv_bias. */
cc_ir_expr *tc_linalg_op(tc *t, const cc_expr *call, cc_ir_op op);
/* lhs and rhs of pl.<op>: one dtype the matmul kernels take (a float, INT8
 * or UINT8); *out the result dtype (FP32; INT32 for the integer ones). */
int tc_mm_dtypes(tc *t, const char *op, const cc_ir_expr *l, const cc_ir_expr *r, cc_span sp, cc_dtype *out);
/* pl.sel, pl.sels, pl.addc, pl.subc (tc_ternary.c). */
cc_ir_expr *tc_ternary_op(tc *t, const cc_expr *call, cc_ir_op op);
/* pl.gather, pl.scatter, pl.sort32, pl.mrgsort (tc_index.c). */
cc_ir_expr *tc_indexed_op(tc *t, const cc_expr *call, cc_ir_op op);
/* pl.gather_row, pl.mscatter and pl.create_l1, as the loads, stores and tile ops they are (tc_gather_mem.c). */
cc_ir_expr *tc_gather_row(tc *t, const cc_expr *call);
cc_ir_expr *tc_create_l1(tc *t, const cc_expr *call);
/* pl.paged_gather (tc_index.c). */
cc_ir_expr *tc_paged_gather(tc *t, const cc_expr *call);
/* e as a pl.Mem (or pl.MemorySpace) member: its value; -1 when reported ("pl.<form> target_memory= must be ..."). */
int tc_mem_arg(tc *t, const cc_expr *e, const char *form);
cc_ir_expr *tc_mscatter(tc *t, const cc_expr *call);
/* May scalar s be the scalar operand of op on a tile of type tile (a float into an integer tile may not)? */
int tc_scalar_fits_tile(tc *t, const char *op, cc_ir_expr *s, const cc_type *tile);
/* pl.full(shape, dtype=, value=): pl.tile.full's tensor-level spelling (a
 * FULL op marked from_tensors); NULL when reported. */
cc_ir_expr *tc_tensor_full(tc *t, const cc_expr *call);
/* pad_value= (e NULL: absent, the zero pad): a pl.PadValue member but null,
 * or 0, math.inf, -math.inf -> its value; -1 when reported, the texts
 * starting with who ("fillpad", "pl.slice"). */
int tc_pad_value(tc *t, const cc_expr *e, const char *who);

/* ---- tc_pld.c, tc_pld_kernel.c (DISTRIBUTED-SPEC §1) ---- */
/* The path of a pld name e (`pld.tensor.put` -> "tensor.put"), or NULL when e is none. */
const char *tc_pld_path(const tc *t, const cc_expr *e);
/* Binds call's arguments to params (positional, then keywords; a leading '?' marks an optional
 * one) for op (its pld spelling, "pld.tensor.put"); 0 when reported. */
int tc_pld_bind(tc *t, const cc_expr *call, const char *op, const char *const *params, uint32_t np, tc_args *a);
/* A window view operand: a DistributedTensor (window-bound), else "<what> must be a
 * DistributedTensor (window-bound), got <T>"; NULL when reported. */
cc_ir_expr *tc_pld_dt(tc *t, const cc_expr *e, const char *what);
/* A call of pld.<path>; NULL when reported. */
cc_ir_expr *tc_pld_call(tc *t, const cc_expr *call, const char *path);
/* The kernel ops (tc_pld_kernel.c): op's call, NULL when reported. */
cc_ir_expr *tc_pld_kernel_op(tc *t, const cc_expr *call, cc_ir_op op, int spelling);
/* An enum member pld.<Enum>.<M> (pl.AtomicType too for "AtomicType") -> its value, or -1 (no diagnostic). */
int tc_pld_enum(tc *t, const cc_expr *e, const char *enum_name);
/* Is head pld.DistributedTensor? */
int tc_is_dt_annotation(const tc *t, const cc_expr *head);
/* "<construct> is not allowed in a @pl.jit.host function; put it in the per-device @pl.jit
 * function it dispatches" (InvalidOperationError) at sp; NULL. */
void *tc_host_forbidden(tc *t, cc_span sp, const char *construct);
/* The kind of the function being checked for messages: "Host", "Orchestration", "InCore", ... */
const char *tc_kind_word(const tc *t);

/* ---- tc_tensor.c ---- */
/* Tensor-level pl.matmul (T-mm) of tiles l and r marked from_tensors, with the
 * call's out_dtype=, a_trans=, b_trans= (NULL when absent; the flags checked
 * boolean literals); NULL when reported. */
cc_ir_expr *tc_tensor_matmul(tc *t, const cc_expr *call, cc_ir_expr *l, cc_ir_expr *r, const cc_expr *out_dtype, const cc_expr *a_trans,
                             const cc_expr *b_trans);
/* A tensor-level matmul operand *x (lhs or rhs of pl.<op>) with trans (its
 * a_trans=/b_trans= literal or NULL) applied, a 1-D one reshaped to [1, K] /
 * [K, 1]; 0 when reported. */
int tc_tensor_mm_operand(tc *t, const char *op, cc_ir_expr **x, int lhs, const cc_expr *trans, cc_span sp);
/* The product shape of matmul operands l [.., M, K], r [.., K, N] (ranks 2 to 4,
 * the batch axes broadcast) into *prod (a TILE type, dtype unset); 0 when reported
 * (the inner-dimension and batch texts). */
int tc_matmul_shape(tc *t, const cc_ir_expr *l, const cc_ir_expr *r, cc_type *prod, cc_span sp);
/* x cast to dt (x itself when of dt), tensor-level when x is. */
cc_ir_expr *tc_tensor_cast(tc *t, cc_ir_expr *x, cc_dtype dt, cc_span sp);

/* ---- tc_window.c ---- */
/* pl.assemble or pl.slice called by name; NULL when reported. */
cc_ir_expr *tc_window_op(tc *t, const cc_expr *call, cc_ir_op op);
/* An offset list (literal of integer scalars, one per axis) or NULL after text;
 * constant offsets checked against a window of extents ext in shape ("pl.<op>: offset <o> +
 * extent <e> exceeds ..."), 0 when reported; drop_dims= of a window of extents ext into *mask. */
cc_ir_expr *tc_offset_list(tc *t, const cc_expr *e, const char *text);
int tc_window_bounds(tc *t, const char *op, const cc_ir_expr *offs, const int64_t *ext, const int64_t *shape);
cc_ir_expr *tc_drop_dims(tc *t, const cc_expr *e, const int64_t *ext, uint32_t rank, unsigned *mask);
/* pl.slice's shape (positive constants into ext; runtime NULL: run-time extents too, their
 * names in dyn) and offset lists of call's bound arguments a for a rank-r operand; 0 when
 * reported (tc_window.c). */
int tc_slice_lists(tc *t, const cc_expr *call, const tc_args *a, uint32_t r, const char *kind, const char *nonint, cc_diag_class rt_class,
                   const char *runtime, int64_t *ext, const char **dyn, cc_ir_expr **shp, cc_ir_expr **offs);

/* ---- tc_view.c ---- */
/* pl.slice or pl.assemble in orchestration code (views and copy tasks); NULL when reported. */
cc_ir_expr *tc_view_op(tc *t, const cc_expr *call, cc_ir_op op);

/* e as a list of integer scalars (a literal, a module constant, a local bound to one)
 * for `what` ("offsets"); NULL when reported. */
cc_ir_expr *tc_list_of(tc *t, const cc_expr *e, const char *what);

/* ---- tc_subscript.c ---- */
/* x[i, lo:hi, ...] read: pl.read or pl.slice (DSL-V2-SPEC §1.3); NULL when reported. */
cc_ir_expr *tc_subscript(tc *t, const cc_expr *e);
/* `dst[...] = src` (s's one target a subscript) as the statement
 * `dst = pl.assemble(dst, src, offsets)` (§1.4), in the arena; NULL when reported. */
const cc_stmt *tc_subscript_write(tc *t, const cc_stmt *s);

/* ---- tc_elem.c ---- */
/* pl.read or pl.write (kernel code) called by name; NULL when reported. */
cc_ir_expr *tc_elem_op(tc *t, const cc_expr *call, cc_ir_op op);

/* ---- tc_mem.c ---- */
/* pl.load's target_memory=: Vec or Mat into *mem; 0 when reported. */
int tc_load_target(tc *t, const cc_expr *e, uint8_t *mem);
/* x (an op node or NULL) with its result's memory-space tag set by its op
 * (matmul Acc, every op but load, move and create_tile Vec) and its
 * from_tensors mark (all its tile operands are from Tensors). */
cc_ir_expr *tc_mem_result(cc_ir_expr *x);
/* `x: ann = v` where ann is pl.Tile[[d0, ...], dtype(, pl.MemRef(...))(, pl.Mem.<space>)(, pl.TileView(...))]
 * (a MemRef and a TileView are hints: validated, no effect; a TileView's
 * valid_shape= equals v's valid region where both are constant):
 * checked against v (shape and dtype; the space against the tag of an op
 * that fixes it, else it sets v's tag); 1 done, 0 not a pl.Tile
 * annotation, -1 reported. */
int tc_tile_annotation(tc *t, const cc_expr *ann, cc_ir_expr *v);
/* Is ann (through module constants) a pl.Tile[...] annotation? */
int tc_is_tile_annotation(tc *t, const cc_expr *ann);
/* pl.move or pl.create_tile. */
cc_ir_expr *tc_mem_op(tc *t, const cc_expr *call, cc_ir_op op);

/* ---- typecheck.c ---- */
/* A call of a program function (bare name or self.f); submit: pl.submit. */
cc_ir_expr *tc_func_call(tc *t, tc_fn *fn, const cc_expr *call, uint32_t first_arg, int submit);
/* deps= of a pl.at: TaskId variables. */
int tc_at_deps(tc *t, const cc_expr *list, cc_ir_expr ***deps, uint32_t *ndeps);
/* name_hint= of pl.<form>(): a string literal naming an identifier, into *out; 0 when reported. */
int tc_name_hint(tc *t, const cc_expr *v, const char *form, const char **out);
/* The pl.set_cache_policy markers and the body of a pl.at or pl.spmd statement st
 * (kernel code at CORE_GROUP), first (if given) prepended to it; 0 when reported. */
int tc_at_body(tc *t, const cc_block *body, cc_ir_stmt *st, cc_span sp, cc_ir_stmt *first);

/* ---- tc_spmd.c (DSL-V2-SPEC §7) ---- */
/* Is it a pl.spmd(...) call? */
int tc_is_spmd(tc *t, const cc_expr *it);
/* `for var in pl.spmd(...)`: a CORE_GROUP pl.at of that many blocks. */
cc_ir_stmt *tc_spmd_for(tc *t, const cc_stmt *s);
/* `with pl.spmd(...) [as tid]:` (a kernel dispatch or kernel code) and `with pl.cluster():`. */
cc_ir_stmt *tc_spmd_with(tc *t, const cc_stmt *s);
cc_ir_stmt *tc_cluster(tc *t, const cc_stmt *s);
/* pl.get_block_idx(), pl.get_block_num() (op) and pl.get_subblock_idx() (op -1: the constant 0). */
cc_ir_expr *tc_block_op(tc *t, const cc_expr *call, int op);
/* pl.spmd_submit(self.k, *args, core_num=N, sync_start=...): a submit of N blocks. */
cc_ir_expr *tc_spmd_submit(tc *t, const cc_expr *call);

/* ---- tc_deps.c (DSL-V2-SPEC §8) ---- */
/* no_dep_args= of pl.<form> ("pl.at"): bare names of tensors bound here, each once. */
int tc_no_dep_args(tc *t, const char *form, const cc_expr *list, const char ***names, cc_span **spans, uint32_t *n);
/* Is e a pl.no_dep(...) call? */
int tc_is_no_dep(const tc *t, const cc_expr *e);
/* pl.no_dep(x) e as an argument (kernel: of a kernel call; else the misplaced text): x, a tensor. */
cc_ir_expr *tc_no_dep_arg(tc *t, const cc_expr *e, int kernel);
/* pl.system.task_dummy(deps=[...]): a TaskId-valued dummy call (cc_ir_is_dummy). */
cc_ir_expr *tc_task_dummy(tc *t, const cc_expr *call);
/* allow_early_resolve= of pl.<form>: a boolean literal into *out (1 False, 2 True). */
int tc_early_resolve(tc *t, const char *form, const cc_expr *v, uint8_t *out);
/* predicate=(t[i] <op> k): *pred = LIST [t, i...], *op the comparison, *k the literal. */
int tc_predicate(tc *t, const cc_expr *v, cc_ir_expr **pred, uint8_t *op, int64_t *k);

/* ---- tc_array.c (D-arr) ---- */
/* Is fn `pl.array.create`? */
int tc_is_array_create(const tc *t, const cc_expr *fn);
cc_ir_expr *tc_array_create(tc *t, const cc_expr *call);
/* arr[i] (e a subscript whose base arr is a TASK_ID array): the element, a TaskId. */
cc_ir_expr *tc_array_get(tc *t, const cc_expr *e, cc_ir_expr *arr);
/* The binding of s's target when s is `arr[i] = ...` on a TASK_ID array, else NULL. */
const tc_bind *tc_array_target(tc *t, const cc_stmt *s);
/* `arr[i] = tid` as `arr = SET(arr, i, tid)`, arr rebound. */
cc_ir_stmt *tc_array_write(tc *t, const cc_stmt *s);
/* deps= of construct m ("pl.at"): TaskIds, TASK_ID arrays or their elements (None skipped). */
int tc_deps_of(tc *t, const char *m, const cc_expr *list, cc_ir_expr ***deps, uint32_t *ndeps);

/* ---- tc_hints.c ---- */
/* An optimizations= list (docs/dsl.md, "Hints") into *out; 0 when reported. */
int tc_hints(tc *t, const cc_expr *list, cc_ir_hints *out);
/* The function a callee expression names (bare name, self.f), or NULL. */
tc_fn *tc_callee(tc *t, const cc_expr *fn);
/* Makes module k current (its tree, constants and pl name); returns the one that was. */
uint32_t tc_use_module(tc *t, uint32_t k);
/* The program's name of fn (its IR function's): its def name, unless that
 * names another function of the program already (docs/dsl.md, "Kernels
 * from other modules"). */
const char *tc_ir_name(tc *t, const tc_fn *fn);

/* ---- tc_decl.c ---- */
/* Gathers the functions (t->fns, t->cls) and checks their declarations;
 * 0 when one the compile needs is broken (reported). */
int tc_gather(tc *t);
/* The checks of fn's declaration: one decorator, its rules, no parameter
 * named config; 1 when they hold (fn's kind, auto_scope, host set). */
int tc_check_decl(tc *t, tc_fn *fn);
/* Checks fn: its signature (args NULL, the entry: from the specs; a
 * callee: from its first call's args), then its body; fn->ir is set. */
int tc_check_fn(tc *t, tc_fn *fn, cc_ir_expr *const *args);
/* "'k' parameter 'p' expects T, got U" at the argument; returns 0. */
int tc_param_mismatch(tc *t, const tc_fn *fn, const cc_ir_param *ip, const cc_ir_expr *arg);

/* ---- tc_stmt.c ---- */
/* What a block is the body of: markers are hoisted from AT bodies and
 * rejected with a scope-specific message in SCOPE bodies. */
typedef enum tc_block_kind { TC_BLOCK_PLAIN, TC_BLOCK_AT, TC_BLOCK_SCOPE } tc_block_kind;

int tc_body(tc *t, const cc_block *b, cc_ir_block *out);
/* An assignment statement (a pl.yield_ one: tc_yield). */
cc_ir_stmt *tc_assign(tc *t, const cc_stmt *s);
/* Checks loop body b (run zero or more times) in place and merges it with the way
 * around it; var (NULL: none) is bound first as INDEX, cond (NULL: a for) is a while's
 * condition; a for body is one the scopes pass wraps. */
int tc_loop_body(tc *t, const cc_block *b, const char *var, cc_span var_span, const cc_expr *cond, cc_ir_block *out);
/* A specialized parameter (or unrolled variable) that body assigns stands for no constant any more. */
int tc_loop_forgets_values(tc *t, const cc_block *body);
extern cc_ir_stmt tc_spliced;
/* c is a scalar (not a TaskId): "<what> must be a scalar expression, got T" otherwise; 0 when reported. */
int tc_scalar_cond(tc *t, cc_ir_expr *c, const char *what);

/* ---- tc_loop.c ---- */
/* A for statement: pl.range, pl.parallel, pl.pipeline (carried or not), pl.unroll
 * (expanded: tc_spliced, the copies in t->c.post), pl.while_. */
cc_ir_stmt *tc_for(tc *t, const cc_stmt *s);
/* Is v a pl.yield_(...) call? */
int tc_is_yield(tc *t, const cc_expr *v);
/* `o1, ... = pl.yield_(e1, ...)` where t->c.yield allows it; NULL when reported. */
cc_ir_stmt *tc_yield(tc *t, const cc_stmt *s);
/* An if statement's yielding arms: then->last / orelse->last set to the yields ending them
 * (an arm's end, through a sole `with pl.scope()`); 0 when reported (no else, counts differ). */
int tc_phi_arms(tc *t, const cc_stmt *s, tc_yield_site *then, tc_yield_site *orelse);
/* After the merge of a yielding if: the yielded names kept their kinds; 0 when reported. */
int tc_phi_merged(tc *t, const tc_yield_site *then, const tc_yield_site *orelse);
/* Checks b's statements in order into out, stopping at the first that
 * fails; tail: b ends the function (its last statement may return). */
int tc_block(tc *t, const cc_block *b, cc_ir_block *out, int tail, tc_block_kind kind);
/* One statement (last: it ends the function); NULL when reported. */
cc_ir_stmt *tc_stmt(tc *t, const cc_stmt *s, int last);
/* A new IR statement (NULL, reported, when out of memory). */
cc_ir_stmt *tc_stmt_new(tc *t, cc_ir_stmt_kind k, cc_span sp);

/* ---- tc_with.c ---- */
/* A with statement: pl.scope / pl.manual_scope, pl.at, or the
 * unsupported context managers; last as tc_block's tail. */
cc_ir_stmt *tc_with(tc *t, const cc_stmt *s, int last);
/* The pl name a with statement's (first) context calls (scope, at, ...), or NULL. */
const char *tc_with_kind(tc *t, const cc_stmt *s);
/* A runtime scope's mode (*mode) and its placement rules in the current
 * context (kernel code, open manual scopes, the function's auto_scope);
 * 0 after reporting the broken one. */
int tc_scope_rules(tc *t, const cc_stmt *s, const cc_expr *ctx, const char *kind, int *mode);
/* Is s a pl.set_cache_policy(...) / pl.tensor.set_cache_policy(...) statement? */
int tc_is_marker(tc *t, const cc_stmt *s);
/* Reports marker s standing in a block of kind (not a pl.at body, where
 * markers are hoisted); returns 0. */
int tc_marker_misplaced(tc *t, const cc_stmt *s, tc_block_kind kind);

/* ---- tc_return.c ---- */
/* Reports v, returned by the entry, not being one of its tensor parameters; NULL. */
void *tc_entry_return(tc *t, const cc_ir_expr *v);
/* ---- tc_implicit.c ---- */
/* Queues s to stand before the statement being checked (in its block); 0 when out of memory. */
int tc_prelude_add(tc *t, cc_ir_stmt *s);
/* An InCore function's returned tensor-level value v (T-x, DSL-V2-SPEC §1.6):
 * a new implicit Out parameter of f that v is stored into (a prelude of the
 * return); returns that parameter as the returned value, NULL when reported. */
cc_ir_expr *tc_implicit_result(tc *t, cc_ir_expr *v, uint32_t k);
/* [0, ...] (shape 0) or ty's shape (shape 1) as a constant list at sp; NULL when out of memory. */
cc_ir_expr *tc_const_list(tc *t, const cc_type *ty, int shape, cc_span sp);
/* A call of a function with implicit Out parameters: each is allocated
 * before the statement (`<callee>_<p> = pl.create_tensor(shape, dtype)`, a
 * tensor created at the call) and passed; args (room for every parameter)
 * gets them after the np given ones.  0 when reported. */
int tc_implicit_args(tc *t, const cc_ir_func *callee, cc_ir_expr **args, uint32_t np, cc_span at);

/* ---- tc_out_param.c ---- */
/* [OutParamNotShadowed]: binding name (at sp) to a value whose buffer is buf (tc_buffer_of)
 * when name is a declared pl.Out/pl.InOut tensor parameter of the function; 0 when reported. */
int tc_out_param_rebind(tc *t, const char *name, const char *buf, cc_span sp);
/* The argument a call's result k is (the callee returns the parameter it is passed to), or NULL. */
const cc_ir_expr *tc_result_arg(const cc_ir_expr *call, uint32_t k);
/* The tensor parameter whose buffer result k of v is (NULL: none or not known). */
const char *tc_buffer_of(tc *t, const cc_ir_expr *v, uint32_t k);

/* ---- tc_unshaped.c ---- */
/* The checks that need no argument shapes, over entry and what it calls
 * (after the typecheck stopped at an argument without a spec). */
void tc_check_unshaped(tc *t, tc_fn *entry);
/* The values the function returns (asts: as written; n = 0: none, at:
 * where an error cites then) become its results (f->results, room for n),
 * checked against its `-> T` (docs/dsl.md, "Annotations"): a constant takes an
 * annotated scalar dtype as tc_constant_as says; then the count and every
 * value must match. */
int tc_results(tc *t, cc_ir_expr **values, const cc_expr *const *asts, uint32_t n, cc_span at);

#endif
