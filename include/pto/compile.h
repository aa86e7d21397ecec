/*
 * pto/compile.h - the DSL compiler: source text in, a compiled program out.
 *
 * One entry point serves every user of the compiler: the `ptoc` driver, the
 * `pypto` Python package and the fuzzers.  A compile takes the source text
 * of a file (or of the functions the caller gathered), the name of the
 * entry to compile, constants the caller resolved, and a spec per entry
 * argument; it returns a program handle holding the diagnostics, the
 * program's printed text after the last stage that ran, and (when every
 * stage succeeded) the lowered program.
 *
 * Module-level `NAME = <literal>` assignments in the source are read as
 * constants too; a constant the caller passes wins over one in the file.
 * Kernels of other files come as further modules (pto_module), each with
 * its own text and constants, and the imports that bind names to them
 * (pto_import); diagnostics in them name their file.
 *
 * Nothing here keeps global state; compiles may run on several threads at
 * once.
 */
#ifndef PTO_COMPILE_H
#define PTO_COMPILE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Element types, in pl's order: X(NAME, bytes). */
#define PTO_DTYPE_LIST(X) X(FP32, 4) X(FP16, 2) X(BF16, 2) X(INT32, 4) X(INT8, 1) X(INDEX, 8) X(BOOL, 1) X(INT64, 8) \
    X(INT16, 2) X(UINT8, 1) X(UINT16, 2) X(UINT32, 4)

/* Stand-ins: X(PARAM, ARG): a tensor argument of dtype ARG binds to a
 * parameter of dtype PARAM, its bits read as PARAM (torch 1.13 has no uint16
 * or uint32, so its int16 / int32 tensors stand in: torch's closest dtype). */
#define PTO_DTYPE_STAND_IN_LIST(X) X(UINT16, INT16) X(UINT32, INT32)

typedef enum pto_dtype {
#define PTO_DTYPE_ENUM_(n, size) PTO_DTYPE_##n,
    PTO_DTYPE_LIST(PTO_DTYPE_ENUM_)
#undef PTO_DTYPE_ENUM_
} pto_dtype;

/* A value: what a constant or a scalar argument holds. */
/* OBJECT: a value kernel code cannot capture (a dict, a module); s names
 * its Python type so the compiler can say so where it is used. */
/* RUNTIME (a scalar argument spec only): no value; the parameter stays a
 * run-time scalar of its annotated dtype (INDEX without one), given at every
 * run (pl.RUNTIME). */
typedef enum pto_value_kind { PTO_VALUE_INT, PTO_VALUE_FLOAT, PTO_VALUE_BOOL, PTO_VALUE_STR, PTO_VALUE_OBJECT,
                              PTO_VALUE_RUNTIME } pto_value_kind;

typedef struct pto_value {
    pto_value_kind kind;
    int64_t i;          /* INT, BOOL */
    double f;           /* FLOAT */
    const char *s;      /* STR; OBJECT: the type's name */
} pto_value;

/* A module or closure constant the caller resolved (`N = 4`). */
typedef struct pto_constant {
    const char *name;
    pto_value value;
} pto_constant;

/* Another module of the program (docs/dsl.md, "Kernels from other
 * modules"): a file whose kernels the entry's code reaches through
 * Python imports.  It is read whole, with its own constants (the values
 * its code names, as `constants` are for the entry's file); its spans and
 * diagnostics are its file's.  Modules are numbered: 0 is the entry's
 * source, k is modules[k - 1]. */
typedef struct pto_module {
    const char *filename;
    const char *source;          /* the file's whole text (need not be NUL-terminated) */
    size_t source_len;
    const pto_constant *constants;
    size_t nconstants;
    int entry_line;              /* a line of a definition nested in a function or a class body of the file
                                  * (a kernel a factory made): its functions are that one and the definitions
                                  * beside it, as pto_compile_options.entry_line's; 0: the file's top level */
} pto_module;

/* A name of module `in` bound to a kernel of another module: `name`
 * there is the function `function` defines in module `module` (`from m
 * import k as name`).  A bare name found in no import is the module's own
 * def.  In the program a function keeps its def's name unless another one
 * has it: module 0's functions keep theirs; another module's function
 * whose name is taken is `<name>_<file stem>` (non-identifier characters
 * as '_'), then `<name>_<file stem>_<module>`. */
typedef struct pto_import {
    uint32_t in;
    const char *name;
    uint32_t module;
    const char *function;
} pto_import;

/* One argument of the entry, by parameter name. */
typedef enum pto_arg_kind { PTO_ARG_TENSOR, PTO_ARG_SCALAR } pto_arg_kind;

typedef struct pto_arg_spec {
    const char *name;
    pto_arg_kind kind;
    pto_dtype dtype;     /* TENSOR */
    int rank;            /* TENSOR, 1..4 */
    int64_t shape[4];    /* TENSOR */
    pto_value value;     /* SCALAR: specialized (a compile-time constant) */
} pto_arg_spec;

/* The stages of the pass pipeline, X(NAME, "name on the command line").
 * SYNTAX stops inside stage 0, before anything is specialized: the entry
 * as the parser read it, its declarations checked; it needs no argument
 * specs, and its text is the program as written (`Prog.as_python()`, docs/dsl.md,
 * "What the compiler does"). */
#define PTO_STAGE_LIST(X)            \
    X(SYNTAX, "syntax")              \
    X(PARSE, "parse")                \
    X(INLINE, "inline")              \
    X(OUTLINE, "outline")            \
    X(DIRECTIONS, "directions")      \
    X(SCOPES, "scopes")              \
    X(VERIFY, "verify")              \
    X(CACHE, "cache")                \
    X(LOWER, "lower")

typedef enum pto_stage {
    PTO_STAGE_ALL = 0, /* as stop_after: run every stage */
#define PTO_STAGE_ENUM_(n, s) PTO_STAGE_##n,
    PTO_STAGE_LIST(PTO_STAGE_ENUM_)
#undef PTO_STAGE_ENUM_
    PTO_STAGE_COUNT
} pto_stage;

/* "scopes" -> PTO_STAGE_SCOPES; -1 for no such stage. */
int pto_stage_lookup(const char *name);
const char *pto_stage_name(pto_stage s);

typedef struct pto_compile_options {
    const char *filename;        /* for diagnostics; NULL: "<string>" */
    const char *source;          /* the text (need not be NUL-terminated) */
    size_t source_len;
    int first_line;              /* line of the text's first line in the file (0 or 1: 1) */
    int first_column;            /* columns every line was dedented by (a nested definition); added to
                                  * the diagnostics' columns so they point into the file */
    const char *entry;           /* @pl.jit function or @pl.program class to compile; NULL: check the file only */
    const char *function;        /* with a @pl.program entry: the Orchestration method (NULL: the only one) */
    const pto_constant *constants;
    size_t nconstants;
    const pto_arg_spec *args;    /* by name; every tensor parameter without a shaped annotation needs one */
    size_t nargs;
    int stop_after;              /* last stage to run (pto_stage); PTO_STAGE_ALL (0): every stage */
    unsigned skip_stages;        /* for tests: bit (1u << stage) skips that stage */
    int entry_line;              /* an entry defined inside a function, a method or a class body: a line of its
                                  * definition (its first decorator's, or one of its methods'); the source is then
                                  * the whole file, and the entry sees the @pl definitions beside it.  0: the
                                  * entry is defined at module level */
    int signature;               /* the caller compiles from the signature alone (no tensor argument): a tensor
                                  * parameter with a bare pl.Tensor annotation is then a TypeError naming that
                                  * mode; 1: a @pl.jit compile(), 2: ir.compile of a program; 0: a call */
    int keep_stages;             /* keep the program's text after every stage that ran (pto_program_stage_text) */
    const char *print_prefix;    /* a SYNTAX compile's text: the name of pypto.language (`import pypto.language as
                                  * <prefix>` and every name read through it); NULL: the module's */
    int print_concise;           /* a SYNTAX compile's text: assignments in a def lose their annotations (one naming a
                                  * memory space other than Vec keeps it); parameters and returns keep theirs */
    const char *print_function;  /* the text is this function alone, as a module-level def (a method without
                                  * `self`): a method of the @pl.program entry after a SYNTAX compile, or, with
                                  * no entry, a module-level def of the file (Function.as_python()) */
    int emit_torch;              /* 1: after the passes, the text is the program as torch source instead
                                  * (pypto.debug.torch_codegen; nothing is lowered); 2: with shape asserts.
                                  * An op with no torch translation is an UnsupportedFeatureError */
    const pto_module *modules;   /* the other modules the entry's kernels reach (numbered from 1) */
    size_t nmodules;
    const pto_import *imports;   /* the names of every module bound to another module's kernels */
    size_t nimports;
} pto_compile_options;

typedef struct pto_program pto_program;

/* Compiles.  Returns 0 when every requested stage succeeded, 1 when the
 * program has errors (read them with pto_program_diag), -1 when out of
 * memory (then *out may be NULL).  *out is set whenever memory allowed,
 * also on errors, and must be freed. */
int pto_compile(const pto_compile_options *opts, pto_program **out);
void pto_program_free(pto_program *p);

/* A diagnostic: class is the Python exception name ("ParserSyntaxError",
 * "PassError", ..., "CompileWarning"); lines and columns are 1-based and
 * point into the user's file. */
typedef struct pto_diagnostic {
    const char *cls;
    const char *message;
    const char *hint;            /* NULL: none */
    const char *filename;
    int line, column, end_line, end_column;
    int is_warning;
} pto_diagnostic;

size_t pto_program_diag_count(const pto_program *p);
/* Diagnostic i (in the order found), or NULL. */
const pto_diagnostic *pto_program_diag(const pto_program *p, size_t i);
/* Diagnostic i printed: `file:line:col: error: message`, the source line,
 * a caret and `hint: ...`.  Returns the length (cut at cap). */
size_t pto_program_diag_format(const pto_program *p, size_t i, char *buf, size_t cap);

/* The entries the file defines (after parsing): its @pl.jit functions and
 * @pl.program classes, in file order; i past the end: NULL. */
const char *pto_program_entry(const pto_program *p, size_t i);

/* With a @pl.program entry: the method the compile goes through (opts->
 * function, else the only Orchestration method no other method calls),
 * known once stage 0 read the declarations (a SYNTAX compile suffices);
 * NULL when there is not exactly one such method, or for a @pl.jit entry.
 * *norchestration (when not NULL) is how many Orchestration methods the
 * program has. */
const char *pto_program_function(const pto_program *p, unsigned *norchestration);

/* Does the compiled program write its entry's tensor parameter param (its
 * direction after the directions pass is Out or InOut)?  1 or 0; 0 too
 * for a scalar, an unknown name, or a program without lowered code.  A
 * caller binding read-only memory asks it first. */
int pto_program_writes(const pto_program *p, const char *param);

/* A function of a program as written (docs/dsl.md, "Introspection and
 * tools"): its name, kind (a pl.FunctionType member's name: the
 * decorator's type=, else "Opaque"), parameters after `self` and return
 * annotations.  A parameter's type is its annotation's text (inside
 * pl.Out[...] / pl.InOut[...]; NULL: not annotated); its direction is
 * "Out" or "InOut" for those wrappers, "In" for a pl.Tensor annotation,
 * NULL otherwise (scalars, no annotation).  The return types are the
 * annotation's text, one per element of a tuple[...]. */
typedef struct pto_param_info {
    const char *name;
    const char *type;
    const char *direction;
} pto_param_info;
typedef struct pto_function_info {
    const char *name;
    const char *func_type;
    const pto_param_info *params;
    size_t nparams;
    const char *const *return_types;
    size_t nreturns;
} pto_function_info;

/* After a compile that reached stage 0 of a @pl.program entry (a SYNTAX
 * compile suffices): the class's @pl.function methods as written; with no
 * entry (the file only parsed): the module-level @pl.function defs.
 * Ordered by name, owned by p.  Returns their count (0: none, not a class, a
 * failed compile or out of memory). */
size_t pto_program_functions(pto_program *p, const pto_function_info **out);

/* The program as DSL text after the last stage that ran (the printed
 * form of docs/dsl.md, "What the compiler does"; after SYNTAX the entry as
 * written); "" when parsing failed. */
const char *pto_program_text(const pto_program *p);
/* The lowered program as a listing (after PTO_STAGE_LOWER; printed when
 * first asked for); "" otherwise or when out of memory. */
const char *pto_program_listing(pto_program *p);

/* One parameter of the compiled entry, after the passes (what a call
 * binds to; docs/dsl.md, "Compile once, run many"). */
typedef struct pto_param {
    const char *name;
    pto_arg_kind kind;
    pto_dtype dtype;     /* a scalar: its dtype (INDEX for a Python int) */
    int rank;            /* TENSOR */
    int64_t shape[4];    /* TENSOR */
    int direction;       /* TENSOR: 1 In, 2 Out, 3 InOut (the directions pass's); SCALAR: 0 */
} pto_param;
/* Entry parameter i of a program whose passes ran: 1 and *out filled,
 * 0 past the end (or when the passes did not run). */
int pto_program_param(const pto_program *p, size_t i, pto_param *out);
/* How many values the compiled entry returns (0: none, or the passes did not run). */
int pto_program_nresults(const pto_program *p);
/* The program as DSL text after stage s (PTO_STAGE_PARSE .. PTO_STAGE_CACHE)
 * when the compile kept it (keep_stages); NULL otherwise. */
const char *pto_program_stage_text(const pto_program *p, pto_stage s);

#ifdef __cplusplus
}
#endif

#endif
