/*
 * host_log.h - the host-tensor footprint log of one distributed call
 * (DISTRIBUTED-SPEC §2.1 steps 6 and 8): every dispatch's host-tensor
 * arguments with their direction and the rank that ran it, kept alike on
 * every rank (each interprets every dispatch, running or skipping it).
 *
 * It answers the D6 check (a read of a region another rank wrote earlier
 * in the call) and drives the results exchange (each written region from
 * its last writer).  A region is the byte span a view covers in its
 * allocation: exact for dense views (x, x[r]), conservative otherwise.
 */
#ifndef EX_HOST_LOG_H
#define EX_HOST_LOG_H

#include <stddef.h>
#include <stdint.h>

#include "exec/orch_vm.h"
#include "runtime/comm.h"

typedef struct ex_fp {
    ex_tensor view;     /* the argument as passed */
    int64_t lo, hi;     /* its byte span in view.base's allocation */
    int rank;           /* the rank that runs the dispatch */
    const char *callee; /* the dispatched function */
    uint32_t line;      /* the dispatch's line (file_line) and file */
    const char *file;
} ex_fp;

typedef struct ex_log {
    ex_fp *w; /* the writes (Out and InOut arguments), in submit order */
    size_t n, cap;
} ex_log;

/* Records a written argument; -1 when out of memory. */
int ex_log_write(ex_log *g, const ex_fp *f);
/* The latest write by a rank other than f->rank overlapping f's span, or NULL. */
const ex_fp *ex_log_conflict(const ex_log *g, const ex_fp *f);
/* f with its span filled from f->view. */
void ex_log_span(ex_fp *f);
/* The results exchange: every rank ends with each logged region's bytes
 * from its last writer (bcasts on the world, in log order, of snapshots
 * taken before the first).  Returns 0 or the transport's -code (err). */
int ex_log_exchange(const ex_log *g, const rt_comm_ops *o, void *s, int me, pto_error *err);
void ex_log_free(ex_log *g);

#endif
