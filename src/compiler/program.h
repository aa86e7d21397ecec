/*
 * program.h - the lowered program: register-machine code the executor
 * interprets, written by stage 7 (lower.c).  A leaf of the compiler: it
 * includes only types.h (and the public pto/compile.h), so src/exec/
 * reads no IR.
 *
 * The result has one orchestration procedure per control-plane function
 * (the entry first, then every Orchestration or Opaque function, called as
 * subroutines) and one tile program per InCore function (run as one task
 * on a worker).  Both are the same machine:
 *
 *  - registers  rN: one 64-bit scalar each (int64 for the integer dtypes,
 *               BOOL and TASK_ID; double for the float dtypes), with a
 *               fixed dtype (regs[N].type);
 *  - tensors    tN: a tensor handle each (a view of caller memory or a
 *               ring allocation); the procedure's tensor parameters come
 *               first, in parameter order;
 *  - tiles      vN: tile programs only; a tile of static shape and dtype
 *               (tiles[N].type) plus its run-time valid region.
 *
 * A name of the IR gets one register (or slot, or tile) per type it takes
 * (straight-line rebinding may change a name's type, never across a loop
 * back-edge or a branch merge); temporaries have no name.  Every value is
 * computed into registers before the instruction that uses it, so an
 * instruction reads only registers, slots and tiles.  Registers start
 * undefined; code never reads one before writing it.
 *
 * Parameters: procs[k].params[i] says where IR parameter i lives.  A
 * kernel's tensor parameters are t0, t1, ... in parameter order: SUBMIT's
 * views and the task's pto_kernel_args.views come in that order; its scalar
 * parameters, likewise in order, are SUBMIT's scalars and the task's
 * pto_kernel_args.scalars (the 64 bits of the register).
 *
 * Every instruction keeps the (line, col) of the construct it came from, in
 * `file`; run-time errors cite it.
 */
#ifndef CC_PROGRAM_H
#define CC_PROGRAM_H

#include <stdint.h>

#include "base/strbuf.h"
#include "compiler/dim_expr.h"
#include "compiler/types.h"
#include "pto/compile.h"

/* The instruction set, X(NAME).  Operands are dst, a, b, c (-1: none) and
 * the payload u.  Scalar ops (both kinds of program):
 *   CONST          rdst = u.imm (dtype: its dtype; u.imm.i for integer dtypes, u.imm.f for floats)
 *   MOV            rdst = ra (same dtype class)
 *   CAST           rdst = ra converted to dtype (float -> int by mode, a cc_cast_mode; saturating)
 *   BIN            rdst = ra <op> rb; op: a cc_op (ADD SUB MUL DIV FLOORDIV MOD MIN MAX, EQ..GE, AND OR);
 *                  dtype: the operands' dtype (// and % floor like Python; compares and AND/OR give BOOL 0/1)
 *   UN             rdst = <op> ra; op NEG (dtype: the operand's) or NOT (BOOL)
 *   TRIPS          rdst = len(range(ra, rb, rc)), INDEX; rc == 0 fails the run ("pl.range() step must be non-zero")
 *   JUMP           go to u.target
 *   JUMP_IF_FALSE  go to u.target when ra is 0 (0.0 for floats)
 *   RETURN         ends the procedure: first closes u.ret.close runtime scopes (innermost first), then
 *                  hands u.ret.refs to the CALL's results; at the end of the entry the run ends
 *                  (the executor then waits for every task)
 * Orchestration only:
 *   SCOPE_BEGIN    opens a runtime scope of mode (cc_scope_mode); its site is file:line
 *   SCOPE_END      closes the innermost runtime scope
 *   ALLOC          tdst = a new tensor of u.mem.shape (u.mem.rank dims; a run-time extent, u.mem.ext[d] >= 0,
 *                  from that INDEX register, below 1 fails the run) and dtype in the current ring's heap;
 *                  a >= 0: every element set to register a (init_value=), converted to dtype; mode 1:
 *                  manual_dep=True (every view of it, in every task, is submitted PTO_ARG_NO_DEP)
 *   ALIAS          tdst = ta (the same tensor)
 *   SUBMIT         one task of kernels[u.submit.kernel]: its views (per tensor argument: slot, direction
 *                  and box, the box's bounds in registers computed just before), scalars and explicit
 *                  deps (TASK_ID registers); rdst (if not -1) gets its TaskId; kernel CC_LO_NO_KERNEL: a dummy
 *                  task (no work, no views or scalars: a join of its deps); a view marked nodep, or of a
 *                  manual_dep tensor, is submitted PTO_ARG_NO_DEP; with has_pred the task runs its kernel
 *                  only if element pred_idx of tensor pred <pred_op> pred_k when it is ready (an extra In
 *                  argument after the kernel's; pto_task_submit_if)
 *   CALL           procs[u.call.proc] with u.call.args (one per parameter); its RETURN's values land in
 *                  u.call.results
 * Tile programs only:
 *   LOAD           vdst = ta's window at offsets u.mem.off (registers) of the tile's shape u.mem.shape;
 *                  valid region u.mem.ext (registers, -1: the shape's extent); u.mem.clamp cuts the
 *                  window at the tensor's edge; mode: the cache policy
 *   STORE          ta's window at offsets u.mem.off = vb's valid region (u.mem.ext: the `shapes=`
 *                  extents, -1: none), or += it when u.mem.atomic (never direct); mode 1 ("direct"): vb is written by the last tile
 *                  instruction before it, a per-element TOP (element-wise, or a row or column
 *                  expand; only scalar instructions, the store's offsets, in between), and read
 *                  by nothing else, so that TOP may write
 *                  straight into the window, and no source of that TOP is read after it (one
 *                  pointing into the window may be overwritten); mode 2: the same, but a source
 *                  is read again (one pointing into the window is copied out first)
 *   TOP            vdst = <op> va [, vb or rb]; op: a cc_ir_op of class binary, unary, row reduction,
 *                  cast or matmul (ops.h; b for two operands); dtype: the result's; b_scalar: b is a
 *                  register (the tile op's scalar operand, converted to dtype); CAST's mode in mode
 *                  (FILLPAD's pad value, a TRANSPOSE-class op's axes: the IR node's mode, ops.h)
 *                  (CREATE_TILE: no operands, a = b = -1; vdst = zeros, fully valid); ASSEMBLE
 *                  (vdst = va with vb written at offsets u.mem.off; vdst may be va) and SLICE (vdst =
 *                  va's window of shape u.mem.shape at u.mem.off, valid_shape u.mem.ext, -1: none)
 *                  read their window's registers from u.mem (rank u.mem.rank: va's)
 *   TCOPY          vdst = va (a copy: tiles are values)
 *   READ           rdst = one element of tile va (mode 0) or tensor ta (mode 1) at u.mem.off: u.mem.rank
 *                  INDEX registers, one per axis, or one flat row-major index (rank 1 on a higher-rank
 *                  operand); dtype: the element's (and rdst's); an index out of range fails the run;
 *                  a tile's element outside its valid region reads as 0
 *   WRITE          ta's element at u.mem.off (as READ's) = rb converted to dtype, the tensor's
 *                  (tile_scalar_for, then rounded to nearest even or wrapped)
 * READ of a tensor (mode 1) and WRITE also run in orchestration procedures: there they first wait
 * (pto_view_wait on that one element) for the live tasks writing it (WRITE: reading or writing it).
 * Orchestration only, too (DSL-V2-SPEC §1.3, §1.5):
 *   VIEW           tdst = ta's window at offsets u.mem.off (registers) of extents u.mem.shape (rank
 *                  u.mem.rank: ta's; u.mem.ext[d] >= 0: a run-time extent in that register, as ALLOC's), the axes of bit mask mode dropped (each of extent 1); a window
 *                  out of ta's bounds fails the run (pl.slice's text)
 *   COPY           one copy task: tb (In, whole) into ta's window at offsets u.mem.off of tb's extents
 *                  (Out, existing memory); out of bounds fails the run (pl.assemble's text)
 * Kernels only (DSL-V2-SPEC §7):
 *   BLOCK          rdst = the running block's index (mode 0) or the task's block count (mode 1), INDEX;
 *                  0 and 1 in a task of one block
 * SUBMIT's u.submit.blocks (a register, or -1) is its block count: below 1 fails the run
 * (`pl.spmd block count must be >= 1, got <v>`, code 9).
 *   AGET           rdst = r[a + rb]: an element of a TASK_ID array (D-arr: u.imm.i consecutive registers
 *                  from ra); rb outside [0, u.imm.i) fails the run ("pl.array index <i> is out of range
 *                  for an array of <n>")
 *   ASET           r[dst + rb] = ra, checked as AGET
 * Both kinds of program (DSL-V2-SPEC §5, dynamic shapes):
 *   DIM            rdst = tensor ta's extent along axis u.imm.i, INDEX (a kernel's dynamic
 *                  dimension is the caller's whole extent, passed after the box origins)
 * Host procedures only (kind CC_LO_HOST: a @pl.jit.host entry, DISTRIBUTED-SPEC §1.2, §2.1):
 *   WORLD          rdst = P, the world size (pld.world_size()), INDEX
 *   WINBUF         declares window buffer u.win.buf (0, 1, ... in order; its name: u.win.name) of ra
 *                  bytes (INDEX register); its rank set is [0, rb) (rb: an INDEX register, -1: none)
 *                  united with the constant ranks u.win.ranks[0..u.win.nranks) (InferCommDomains'
 *                  domain: the device forms of the dispatches passing its views); all WINBUFs
 *                  come before ENTER
 *   ENTER          the call's entry (§2.1 steps 2-5): divergence check, domains, windows allocated
 *                  and zeroed, inputs broadcast from rank 0; exactly once, before any other host
 *                  instruction but WINBUF and the scalar ones computing their operands
 *   WINVIEW        tdst = a DistributedTensor view (dtype, shape u.win.shape, rank u.win.rank,
 *                  row-major, byte 0) of this rank's copy of buffer u.win.buf; too small a buffer
 *                  fails the run (§1.5's INVALID_ARGS text); a shape entry is a constant, a
 *                  CC_DIM_DYN symbol an entry argument binds, or CC_LO_DIM_WORLD (P)
 *   DISPATCH       runs procs[u.call.proc] (an Orchestration proc) with u.call.args on rank ra
 *                  (INDEX register; -1: round robin, §D17) and skips it on every other rank; mode 1:
 *                  it passes window views (a comm dispatch, §2.6's token); results as CALL's
 *   HCOLL          a host collective u.coll.op (cc_lo_coll) on the windows in tensor slots
 *                  u.coll.data, u.coll.signal and u.coll.stage (-1: none; WINVIEW-made slots)
 *                  with u.coll.reduce (pld.ReduceOp), root register u.coll.root (INDEX; -1: none,
 *                  0), mode 1 "ring"; BARRIER has only a signal, ALLREDUCE's signal may be -1
 *                  (synthesised), ALLGATHER / ALL_TO_ALL have all three
 * VIEW with u.mem.slice == 2 is a host subscript x[i, ...] (its out-of-range text is §1.2's).
 * RETURN of a host procedure ends the call: pto_runtime_finish, the results exchange, the release.
 * Kernels only (DISTRIBUTED-SPEC §1.6-§1.8), COMM with op u.comm.op (cc_lo_comm) on the
 * DistributedTensor parameter ta (its window; u.comm.rank its rank), the peer in register rc
 * (INDEX, a domain rank; -1 for the ops without one); dtype: the window's element dtype:
 *   RANK / NRANKS  rdst = this rank's domain rank / the domain's size in ta's domain, INT32 (b = c = -1)
 *   NOTIFY         peer rc's INT32 cell ta[u.comm.dst_off] op= rb (INT32; mode: pld.NotifyOp)
 *   WAIT           until this rank's cell ta[u.comm.dst_off] <cmp> rb (INT32; mode: pld.WaitCmp; c = -1)
 *   REMOTE_LOAD    vdst = peer rc's ta at u.comm.dst_off, shape u.comm.shape, valid u.comm.valid
 *                  (registers, -1 each: the whole shape)
 *   REMOTE_STORE   peer rc's ta at u.comm.dst_off = tile vb's valid region (+= with u.comm.atomic)
 *   PUT            peer rc's ta at u.comm.dst_off, box u.comm.shape = local tensor tb at
 *                  u.comm.src_off (+= with u.comm.atomic); no box (u.comm.has_box 0, offsets -1):
 *                  all of tb into all of ta
 *   GET            local tensor tb at u.comm.src_off, box u.comm.shape = peer rc's ta at
 *                  u.comm.dst_off; no box: all of ta into all of tb
 *   BARRIER        the in-kernel barrier of §1.8 on signal ta (b = c = dst = -1)
 * Offsets are registers (INDEX), whole-tensor coordinates as LOAD's (dst_off: the window's,
 * src_off: the local tensor's); shape entries constants.
 */
#define CC_LO_OPCODE_LIST(X) \
    X(CONST) X(MOV) X(CAST) X(BIN) X(UN) X(TRIPS) X(JUMP) X(JUMP_IF_FALSE) X(RETURN) \
    X(SCOPE_BEGIN) X(SCOPE_END) X(ALLOC) X(ALIAS) X(SUBMIT) X(CALL) \
    X(LOAD) X(STORE) X(TOP) X(TCOPY) X(READ) X(WRITE) X(VIEW) X(COPY) X(BLOCK) X(AGET) X(ASET) X(DIM) \
    X(WORLD) X(WINBUF) X(ENTER) X(WINVIEW) X(DISPATCH) X(HCOLL) X(COMM)

typedef enum cc_lo_opcode {
#define CC_LO_OPCODE_ENUM_(n) CC_LO_##n,
    CC_LO_OPCODE_LIST(CC_LO_OPCODE_ENUM_)
#undef CC_LO_OPCODE_ENUM_
    CC_LO_OPCODE_COUNT
} cc_lo_opcode;

const char *cc_lo_opcode_name(cc_lo_opcode c); /* "SUBMIT" */

/* COMM's operations and HCOLL's collectives. */
#define CC_LO_COMM_LIST(X) X(RANK) X(NRANKS) X(NOTIFY) X(WAIT) X(REMOTE_LOAD) X(REMOTE_STORE) X(PUT) X(GET) X(BARRIER)
#define CC_LO_COLL_LIST(X) X(BARRIER) X(ALLREDUCE) X(BROADCAST) X(ALLGATHER) X(REDUCE_SCATTER) X(ALL_TO_ALL)
typedef enum cc_lo_comm {
#define CC_LO_COMM_ENUM_(n) CC_LO_COMM_##n,
    CC_LO_COMM_LIST(CC_LO_COMM_ENUM_)
#undef CC_LO_COMM_ENUM_
} cc_lo_comm;
typedef enum cc_lo_coll {
#define CC_LO_COLL_ENUM_(n) CC_LO_COLL_##n,
    CC_LO_COLL_LIST(CC_LO_COLL_ENUM_)
#undef CC_LO_COLL_ENUM_
} cc_lo_coll;

/* WINVIEW's shape entry for pld.world_size(). */
#define CC_LO_DIM_WORLD INT64_MIN

/* A lowered procedure's kind beside cc_func_kind's: a @pl.jit.host entry. */
#define CC_LO_HOST 200

/* A value of any kind: a register, a tensor slot or a tile. */
typedef enum cc_lo_kind { CC_LO_REG, CC_LO_TENSOR, CC_LO_TILE } cc_lo_kind;

typedef struct cc_lo_ref {
    uint8_t kind; /* cc_lo_kind */
    uint32_t index;
} cc_lo_ref;

/* One tensor argument of a SUBMIT: the task's view is the tensor cut to
 * [lo, hi) per dimension (registers; lo -1: the whole dimension), clamped
 * to the tensor, the whole tensor when that is empty (docs/compiler.md, "Footprints", step 5). */
typedef struct cc_lo_view {
    uint32_t tensor;
    uint8_t dir; /* cc_dir */
    uint8_t nodep; /* submitted PTO_ARG_NO_DEP (pl.no_dep, no_dep_args=) */
    uint8_t check; /* the tensor has a run-time extent where the kernel's parameter has a constant:
                    * the submit checks they are equal (the kernel-parameter text, code 9) */
    uint8_t rank;
    int32_t lo[CC_MAX_RANK], hi[CC_MAX_RANK];
} cc_lo_view;

/* u.submit.kernel of a dummy task (pl.system.task_dummy): no kernel, no views, no scalars. */
#define CC_LO_NO_KERNEL UINT32_MAX

typedef struct cc_lo_insn {
    uint8_t code;  /* cc_lo_opcode */
    uint8_t op;    /* BIN, UN: cc_op; TOP: cc_ir_op */
    uint8_t dtype; /* cc_dtype, as each opcode says */
    uint8_t mode;  /* SCOPE_BEGIN: cc_scope_mode; CAST, TOP CAST: cc_cast_mode; LOAD: cc_cache_policy;
                    * STORE: 0, or 1 and 2 (direct); READ: 0 a tile, 1 a tensor; VIEW: dropped axes */
    uint8_t b_scalar; /* TOP: b is a register */
    uint32_t line, col;
    int32_t dst, a, b, c;
    union {
        union { int64_t i; double f; } imm;   /* CONST */
        uint32_t target;                      /* JUMP, JUMP_IF_FALSE */
        struct {                              /* LOAD, STORE, ALLOC, READ, WRITE, VIEW, COPY */
            uint8_t rank, clamp, slice; /* slice: a LOAD written pl.slice (its run-time texts say so) */
            uint8_t atomic;             /* STORE: the pl.AtomicType (Add: adds into the window) */
            int32_t off[CC_MAX_RANK], ext[CC_MAX_RANK];
            int64_t shape[CC_MAX_RANK];
            int32_t valid[CC_MAX_RANK]; /* VIEW: valid_shape='s registers (-1: none) */
        } mem;
        struct {                              /* SUBMIT */
            uint32_t kernel;
            cc_lo_view *views;
            uint32_t nviews;
            int32_t *scalars;
            uint32_t nscalars;
            int32_t *deps;
            uint32_t ndeps;
            int32_t blocks;                   /* register of the block count (DSL-V2-SPEC §7); -1: one block */
            uint8_t has_pred;               /* predicate= (D-pred): */
            uint32_t pred;                  /* its tensor slot, */
            int32_t pred_idx[CC_MAX_RANK];  /* the element's INDEX registers (pred_rank: the tensor's), */
            uint8_t pred_rank, pred_op;     /* the comparison (a cc_op EQ..GE) */
            int64_t pred_k;                 /* and the literal */
        } submit;
        struct {                              /* CALL */
            uint32_t proc;
            cc_lo_ref *args, *results;
            uint32_t nargs, nresults;
        } call;
        struct {                              /* WINBUF, WINVIEW */
            uint32_t buf;
            const char *name;
            uint32_t nranks;
            int32_t ranks[8];                 /* WINBUF: the constant device= ranks of its dispatches */
            uint8_t rank;                     /* WINVIEW: the view's rank and shape */
            int64_t shape[CC_MAX_RANK];
        } win;
        struct {                              /* COMM */
            uint8_t op, rank, has_box, atomic; /* cc_lo_comm; the window's rank; pld.AtomicType */
            int32_t dst_off[CC_MAX_RANK], src_off[CC_MAX_RANK], valid[CC_MAX_RANK];
            int64_t shape[CC_MAX_RANK];
        } comm;
        struct {                              /* HCOLL */
            uint8_t op, reduce;               /* cc_lo_coll; pld.ReduceOp */
            int32_t data, signal, stage, root;
        } coll;
        struct {                              /* RETURN */
            uint32_t close;
            cc_lo_ref *refs;
            uint32_t nrefs;
        } ret;
    } u;
} cc_lo_insn;

/* Is in a scalar instruction (it reads and writes registers only, never a
 * tile or a tensor)?  TRIPS aside, which may fail. */
static inline int cc_lo_is_scalar(const cc_lo_insn *in)
{
    return in->code == CC_LO_CONST || in->code == CC_LO_MOV || in->code == CC_LO_CAST || in->code == CC_LO_BIN || in->code == CC_LO_UN;
}

/* A register, tensor slot or tile: its IR name (NULL: a temporary) and type. */
typedef struct cc_lo_slot {
    const char *name;
    cc_type type;
    cc_valid_shape valid; /* a kernel's tensor parameter: its pl.TensorView(valid_shape=) */
} cc_lo_slot;

typedef struct cc_lo_proc {
    const char *name;
    uint8_t kind;       /* cc_func_kind: ORCHESTRATION or OPAQUE (procs), INCORE (kernels);
                         * CC_LO_HOST: a @pl.jit.host entry (procs[0] only) */
    uint32_t line, col; /* the def (or the outlined pl.at) */
    cc_lo_ref *params;  /* where each IR parameter lives */
    uint8_t *dirs;      /* kernels: each parameter's cc_dir (CC_DIR_NONE for scalars) */
    uint32_t nparams;
    cc_lo_slot *regs, *tensors, *tiles;
    uint32_t nregs, ntensors, ntiles;
    cc_lo_insn *code;   /* ends with a RETURN */
    uint32_t ncode;
} cc_lo_proc;

typedef struct cc_lowered {
    const char *file;      /* the entry's source file */
    const struct cc_diags *sites; /* the compile's sources (NULL: file alone): an instruction's line
                                   * is in their running line space (source.h); cc_lowered_site */
    cc_lo_proc *procs;     /* orchestration; procs[0] is the entry */
    uint32_t nprocs;
    cc_lo_proc *kernels;   /* one tile program per InCore function, in p->funcs order */
    uint32_t nkernels;
    const cc_dim_expr *dims; /* the derived dimensions its types name (dim_expr.h) */
    uint32_t ndims;
    uint64_t digest;       /* a host entry's identity in the entry check: FNV-1a of its listing
                            * (cc_lowered_print), set once after lowering; 0 for other programs */
} cc_lowered;

/* Where running line `line` of l is: its file and, in *file_line, its line there
 * (scope sites, run-time error locations). */
const char *cc_lowered_site(const cc_lowered *l, uint32_t line, uint32_t *file_line);

/* p's lowered program, owned by p; NULL when p is NULL or a stage failed
 * (or the compile stopped before lowering).  The executor's way in. */
const cc_lowered *cc_program_lowered(const pto_program *p);

/* Appends the listing: per procedure a header line, its registers, slots
 * and tiles, then one instruction per line with its index and `@line:col`:
 *   `    12  SUBMIT k=main_incore_0 views=[t0 In [r3:r4, :], t1 Out [r5:r6, :]] scalars=[r2] @21:13` */
void cc_lowered_print(const cc_lowered *l, base_strbuf *out);

#endif
