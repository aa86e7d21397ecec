/*
 * host_interp.h - the host interpreter (internal): a @pl.jit.host entry
 * (procs[0] of kind CC_LO_HOST, compiler/program.h) run on the calling
 * thread as one distributed call (DISTRIBUTED-SPEC §2.1).
 *
 * The orchestration interpreter runs the host procedure like any other
 * (scalars, loops, views) and hands it the host instructions; a dispatch
 * for this rank is interpreted inline as a CALL of the Orchestration
 * procedure against the same runtime, one for another rank is skipped but
 * logged (host_log.h).  ex_host_run wraps the whole call: entry,
 * interpretation, pto_runtime_finish, the results exchange, the release.
 */
#ifndef EX_HOST_INTERP_H
#define EX_HOST_INTERP_H

#include "exec/orch_vm.h"
#include "pto/run.h"

typedef struct ex_host ex_host;

/* Runs procs[0] of l (a host procedure) with its bound parameters as one
 * distributed call on rt.  Returns 0, or -code with err filled. */
int ex_host_run(pto_runtime *rt, const cc_lowered *l, const ex_value *params, size_t nparams, const pto_run_dist *dist,
                pto_error *err);

/* What orch_vm.c calls, p the running procedure, r and t its frame: */
/* WORLD, WINBUF, ENTER, WINVIEW, HCOLL; 0 or a latched -code. */
int ex_host_insn(ex_host *h, const cc_lo_proc *p, ex_reg *r, ex_tensor *t, const cc_lo_insn *in);
/* A host subscript (VIEW, u.mem.slice 2): its indices inside their dimensions (0 or -code). */
int ex_host_subscript(ex_host *h, const cc_lo_proc *p, const ex_reg *r, const ex_tensor *t, const cc_lo_insn *in);
/* DISPATCH: 1 to run it here (a CALL), 0 when skipped (its results bound), or -code. */
int ex_host_dispatch(ex_host *h, const cc_lo_proc *p, ex_reg *r, ex_tensor *t, const cc_lo_insn *in);
/* The token view every task of the running comm dispatch adds (In), or NULL. */
const pto_arg *ex_host_token(const ex_host *h);
/* A dispatch run here has returned: a comm dispatch's join on the token (0 or -code). */
int ex_host_dispatch_end(ex_host *h, const cc_lo_insn *dispatch);

#endif
