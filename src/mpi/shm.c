/*
 * shm.c - windows of the shm backend (DISTRIBUTED-SPEC §2.2, D12): one
 * MPI_Win_allocate_shared per domain, every peer's copy mapped into this
 * process, so remote accesses are plain loads and stores.  A domain on the
 * am backend gets its window from am.c instead.
 *
 * The backing is pooled per domain across calls; the semantics stay per
 * call.  A call's window: the domain's pooled one when it is at least that
 * big, else a new one (the old freed first); this rank's copy zeroed, then a
 * domain barrier, so no peer's notify lands in memory not yet zeroed.
 * Every rank of the domain decides alike (the sizes are replicated), so the
 * collective MPI_Win_allocate_shared and MPI_Win_free match.  Release: a
 * domain barrier, so no peer still reads or writes; the pool is freed with
 * the domain at the session's end.  Allocation and free block inside the
 * lock; they run on the orchestrator while no task of the call exists.
 */
#include <stdlib.h>
#include <string.h>

#include "mpi/mpi_int.h"

void mpi_shm_pool_free(mpi_domain *d)
{
    if (d->pool_bytes) MPI_Win_free(&d->pool);
    d->pool_bytes = 0;
}

/* A new pooled window of bytes on d, under the lock; its copies' addresses into d->pool_bases. */
static int shm_pool_new(mpi_session *s, mpi_domain *d, size_t bytes, pto_error *err)
{
    MPI_Info info;
    void *mine = NULL;
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_shared_noncontig", "true");
    int rc = MPI_Win_allocate_shared((MPI_Aint)(bytes ? bytes : 1), 1, info, d->comm, &mine, &d->pool);
    MPI_Info_free(&info);
    if (rc != MPI_SUCCESS) return mpi_fail_rc(s, err, "MPI_Win_allocate_shared", rc);
    MPI_Win_set_errhandler(d->pool, MPI_ERRORS_RETURN);
    d->pool_bytes = bytes ? bytes : 1;
    for (int i = 0; i < d->n; i++) {
        MPI_Aint size = 0;
        int unit = 1;
        void *base = NULL;
        rc = MPI_Win_shared_query(d->pool, i, &size, &unit, &base);
        if (rc != MPI_SUCCESS) return mpi_fail_rc(s, err, "MPI_Win_shared_query", rc);
        d->pool_bases[i] = size > 0 ? base : NULL;
    }
    return 0;
}

int mpi_win_alloc(void *sv, void *dom, size_t bytes, void **win, void **bases, pto_error *err)
{
    mpi_session *s = sv;
    mpi_domain *d = mpi_domain_of(s, dom);
    int rc = mpi_check_usable(s, err), me = 0;
    if (rc < 0) return rc;
    if (d->backend && strcmp(d->backend, "am") == 0) return mpi_am_win_alloc(s, d, bytes, win, bases, err);
    mpi_lock(s);
    if (d->pool_bytes < bytes) {
        mpi_shm_pool_free(d);
        rc = shm_pool_new(s, d, bytes, err);
    }
    MPI_Comm_rank(d->comm, &me);
    mpi_unlock(s);
    if (rc < 0) return rc;
    for (int i = 0; i < d->n; i++) bases[i] = d->pool_bases[i];
    if (bytes) memset(bases[me], 0, bytes);
    *win = d;
    return mpi_barrier(s, dom, err);
}

int mpi_win_free(void *sv, void *dom, void *win, pto_error *err)
{
    mpi_session *s = sv;
    mpi_domain *d = mpi_domain_of(s, dom);
    if (d->backend && strcmp(d->backend, "am") == 0) return mpi_am_win_free(s, d, win, err);
    return mpi_barrier(s, dom, err); /* failed: a peer may still touch it; the session is poisoned */
}
