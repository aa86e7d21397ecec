/*
 * lower_int.h - what the files of stage 7 share: the builder of one
 * procedure (lower_expr.c: instructions, registers, scalar expressions;
 * lower.c: statements, control flow, orchestration; lower_tile.c: the
 * statements of tile programs; lower_dist.c: the host procedure and the
 * pld ops).
 *
 * Invariants: code, slots and names are heap arrays owned by the builder
 * until lo_finish copies them into the arena; a failure records one
 * InternalError and sets failed, after which every builder call is a no-op
 * that returns -1 (or nothing) and the caller unwinds.
 */
#ifndef CC_LOWER_INT_H
#define CC_LOWER_INT_H

#include "base/strmap.h"
#include "compiler/lower.h"

typedef struct lo_ctx {
    const cc_ir_program *p;
    base_arena *a;
    cc_lowered *l;
    const cc_ir_func **procs, **kernels; /* the functions of l->procs, l->kernels */
    int failed;
} lo_ctx;

/* A name of the IR with one of its types, and where it lives. */
typedef struct lo_name {
    const char *name;
    cc_type type;
    int32_t index;
    int32_t next;  /* the previous entry of the same name (another type), or -1 */
} lo_name;

#define LO_MAX_WINBUFS 64 /* tc.h's TC_MAX_WINBUFS: the type checker declares no more */

typedef struct lo_b {
    lo_ctx *x;
    const cc_ir_func *f;
    cc_lo_insn *code;
    uint32_t ncode;
    uint64_t capcode;
    cc_lo_slot *slots[3]; /* by cc_lo_kind */
    uint32_t nslots[3];
    uint64_t capslots[3];
    lo_name *names;
    uint32_t nnames;
    uint64_t capnames;
    base_strmap name_index; /* name -> its latest entry in names */
    uint32_t depth;       /* runtime scopes open here */
    cc_span at;           /* the statement being lowered: the span of nodes a pass made without one */
    const char *winbufs[LO_MAX_WINBUFS]; /* a host procedure's window buffers, by number (lower_dist.c) */
    uint32_t nwinbufs;
} lo_b;

/* ---- lower_expr.c ---- */
/* Records an InternalError "<what> reached lowering" at sp; returns -1. */
int lo_internal(lo_b *b, cc_span sp, const char *what);
int lo_oom(lo_b *b, cc_span sp);
/* n zeroed items of size elem in the arena (NULL for n == 0 or a failure). */
void *lo_alloc(lo_b *b, size_t n, size_t elem, cc_span sp);
/* Appends an instruction (operands -1); NULL after a failure.  The
 * pointer is valid until the next lo_emit. */
cc_lo_insn *lo_emit(lo_b *b, cc_lo_opcode code, cc_span sp);
/* A new register, tensor slot or tile of type t (name NULL: a temporary). */
int32_t lo_new(lo_b *b, cc_lo_kind k, const char *name, cc_type t);
/* Where name lives with type t (made at its first mention). */
int32_t lo_var(lo_b *b, const char *name, cc_type t);
cc_lo_kind lo_kind_of(const cc_type *t);
/* A register holding scalar expression e (a variable's own register, or a
 * temporary), converted to dtype (-1: e's own). */
int32_t lo_scalar(lo_b *b, const cc_ir_expr *e, int dtype);
/* Computes scalar expression e into register dst (converting to its dtype). */
void lo_scalar_into(lo_b *b, const cc_ir_expr *e, int32_t dst);
/* Registers holding the n items of list expression e (INDEX), or -1 each
 * for a NULL list. */
void lo_index_list(lo_b *b, const cc_ir_expr *e, int32_t *out, uint32_t n);

/* ---- lower_array.c (TASK_ID arrays) ---- */
/* Array value v (create, a copy, an element write) into the n registers from dst. */
void lo_array_assign(lo_b *b, const cc_ir_expr *v, int32_t dst);
/* Element read e (arr[i]) into register dst. */
void lo_array_get_into(lo_b *b, const cc_ir_expr *e, int32_t dst);
/* The dependency registers of call's deps= (each slot of a whole array), *n of them. */
int32_t *lo_deps(lo_b *b, const cc_ir_expr *call, uint32_t *n);

/* ---- lower_tile.c ---- */
/* An assignment or expression statement of a tile program (tile ops,
 * loads, stores, tile and tensor copies). */
void lo_tile_stmt(lo_b *b, const cc_ir_stmt *s);
/* Where the value of kernel expression e lives: a tile expression's tile
 * (a variable's own, or a temporary computed here), pl.store's tensor. */
cc_lo_ref lo_tile_value(lo_b *b, const cc_ir_expr *e);

/* pl.read e into register dst (of e's dtype class): a READ of the tile or the tensor. */
void lo_read_into(lo_b *b, const cc_ir_expr *e, int32_t dst);

/* ---- lower_dist.c (DISTRIBUTED-SPEC §1, program.h's host and COMM instructions) ---- */
/* A host procedure's prologue: one WINBUF per window buffer of its body, then ENTER. */
void lo_dist_prologue(lo_b *b);
/* pld.window e into tensor slot dst (-1: a new one): WINVIEW; returns the slot. */
int32_t lo_dist_view(lo_b *b, const cc_ir_expr *e, int32_t dst);
/* A scalar pld op (pld.world_size(), pld.rank, pld.nranks) into register dst. */
void lo_dist_scalar_into(lo_b *b, const cc_ir_expr *e, int32_t dst);
/* pld.tile.remote_load e into tile dst. */
void lo_dist_tile_into(lo_b *b, const cc_ir_expr *e, int32_t dst);
/* A pld op of effect (a host collective, a kernel's signal, RMA or barrier op); returns the
 * tensor slot of its value (a barrier's signal), else -1. */
int32_t lo_dist_effect(lo_b *b, const cc_ir_expr *e);
/* Is e a pld op (class CC_OPC_DIST)? */
int lo_is_dist(const cc_ir_expr *e);

/* ---- lower_hoist.c ---- */
/* Moves the CONSTs of p's temporaries that nothing else writes to its start
 * (an orchestration procedure, after its code is final).  -1: out of memory,
 * p unchanged. */
int lo_hoist_consts(cc_lo_proc *p);

/* lower_tile.c: marks the STOREs a tile program can compute in place; -1
 * when out of memory. */
int lo_tile_mark_direct_stores(cc_lo_insn *code, uint32_t n, uint32_t ntiles);

#endif
