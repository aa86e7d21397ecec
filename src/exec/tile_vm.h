/*
 * tile_vm.h - the tile VM: runs one kernel's tile program (cc_lo_proc of
 * kind InCore, compiler/program.h) as one task on the calling worker thread.
 *
 * Arguments (what the executor's SUBMIT hands the runtime, in order):
 *   args->views[k]    the k-th tensor parameter (t0, t1, ... in parameter
 *                     order): the task's FOOTPRINT box of the tensor, i.e.
 *                     addr, elem_size, the tensor's strides, and offset =
 *                     the element offset of the box's first element.
 *   args->scalars     [ s_0 .. s_{S-1},            the kernel's scalar parameters, in order
 *                                                  (the 64 bits of each register: int64 or double)
 *                       o_0[0..r0-1], o_1[..], ... per tensor parameter k: the box origin in
 *                                                  whole-tensor coordinates (rank_k int64 values) ]
 *                     so num_scalars = S + sum(rank_k).  LOAD/STORE offsets
 *                     in the program are whole-tensor coordinates: the VM
 *                     subtracts the origin to address the box and checks
 *                     bounds against the whole tensor's extents, the
 *                     parameter's compiled shape.  A caller passing
 *                     whole-tensor views gives origins 0.
 *
 * Memory: each thread keeps one workspace (registers, tile structs, tile
 * buffers, matmul scratch) grown on demand and reused, so a task allocates
 * nothing after warm-up; it is freed when the thread exits.
 */
#ifndef EX_TILE_VM_H
#define EX_TILE_VM_H

#include "compiler/program.h"
#include "pto/runtime.h"

/* Runs kernel (one of l->kernels) for one task.  Returns 0, or -1 after
 * writing "<message> (at <file>:<line>:<col>)" into args->message (an
 * out-of-bounds load or store, an integer division by zero, a bad
 * argument layout), the place being the failing instruction's (the
 * kernel's def for a bad argument layout); -PTO_OUT_OF_MEMORY when the
 * thread's workspace cannot grow.  A loop stops at its back edge once
 * args->runtime has latched an error (-1 too). */
int ex_tile_run(const cc_lowered *l, const cc_lo_proc *kernel, const pto_kernel_args *args);

#endif
