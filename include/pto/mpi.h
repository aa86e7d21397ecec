/*
 * pto/mpi.h - distributed mode on MPI (DISTRIBUTED-SPEC §2.2, §4.4): the
 * one public header that includes <mpi.h>; its functions live in
 * libpto_mpi, the one library (with pypto._C_mpi) that links libmpi.
 *
 * A process has at most one session.  It runs on two duplicates of the
 * communicator it was started on (its ranks are the world of every
 * distributed call), holds the process-wide lock every MPI call of pypto
 * runs under, and ends at process exit (atexit): after a distributed
 * failure with MPI_Abort(MPI_COMM_WORLD, 1), otherwise after every peer
 * said goodbye, finalising MPI when the session initialised it.
 *
 * Typical C use (mpicc, link -lpto_mpi -lpto):
 *
 *     pto_error err;
 *     if (pto_dist_attach(rt, MPI_COMM_WORLD, &err) < 0) { puts(err.message); return 1; }
 *     ...  distributed work: every rank makes the same calls in the same order
 *     pto_dist_detach();     only needed before the application's own MPI_Finalize
 */
#ifndef PTO_MPI_H
#define PTO_MPI_H

#include <mpi.h>

#include "pto/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the ranks agreed on when the session started. */
typedef struct pto_dist_info {
    int rank, size;    /* this process's rank in the session's communicator, its size */
    int local_size;    /* ranks on this node (MPI_COMM_TYPE_SHARED) */
    int mask_sharers;  /* local ranks whose CPU affinity mask equals this rank's (D18), >= 1 */
    double start_time; /* rank 0's wall clock at the start, seconds since the epoch */
} pto_dist_info;

/* Starts the process's session on comm (call: what the ranks are starting it
 * for, "call #<k> of '<f>'", as a start timeout names it; NULL: the session
 * start): MPI_COMM_WORLD, which it initialises
 * (MPI_THREAD_SERIALIZED) when MPI is not yet, or any intracommunicator of an
 * MPI the application initialised at MPI_THREAD_SERIALIZED or higher.
 * Collective over comm, bounded by PTO_DIST_ENTRY_TIMEOUT_S.  A second call
 * returns the running session's info.  Returns 0 or -code with err filled:
 * COMM_WAIT_TIMEOUT when a rank did not arrive in time (the process then
 * exits through MPI_Abort; later starts fail), COMM_FAILED for an MPI error,
 * INVALID_ARGS for MPI initialised below SERIALIZED (err->message is then
 * the §3 row 8 sentence alone, which Python raises as
 * DistributedUnavailableError). */
int pto_dist_start(MPI_Comm comm, const char *call, pto_dist_info *info, pto_error *err);

/* pto_dist_start, then registers the session's transport with the libpto
 * this program links, so that every runtime of the process (rt included)
 * runs distributed calls over comm's ranks.  rt may be NULL. */
int pto_dist_attach(pto_runtime *rt, MPI_Comm comm, pto_error *err);

/* The running session's transport table (libpto's internal rt_comm_ops) and
 * session pointer, NULL before pto_dist_start: what a module that carries its
 * own copy of libpto (pypto._C) registers through its own entry. */
const void *pto_dist_transport(void **session);

/* Ends the session now, as at process exit (see above); does nothing when no
 * session runs or the application already finalised MPI.  Collective: every
 * rank calls it, or exits.  pto_dist_attach's registration is undone; a
 * libpto copy that registered the table itself keeps it, and every
 * operation then fails with COMM_FAILED. */
void pto_dist_detach(void);

#ifdef __cplusplus
}
#endif

#endif
