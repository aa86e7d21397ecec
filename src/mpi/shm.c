/*
 * shm.c - windows of the shm backend (DISTRIBUTED-SPEC §2.2, D12): one
 * MPI_Win_allocate_shared per domain and call, every peer's copy mapped
 * into this process, so remote accesses are plain loads and stores.
 *
 * Allocation: the shared window (each rank's copy on its own pages), every
 * copy's address by MPI_Win_shared_query, the own copy zeroed, then a
 * domain barrier, so no peer's notify lands in memory not yet zeroed.
 * Release: a domain barrier, so no peer still reads or writes, then
 * MPI_Win_free.  The allocation and the free block inside the lock; they
 * run on the orchestrator while no task of the call exists.  A domain on
 * the am backend gets its window from am.c instead.
 */
#include <stdlib.h>
#include <string.h>

#include "mpi/mpi_int.h"

int mpi_win_alloc(void *sv, void *dom, size_t bytes, void **win, void **bases, pto_error *err)
{
    mpi_session *s = sv;
    mpi_domain *d = mpi_domain_of(s, dom);
    int rc = mpi_check_usable(s, err);
    if (rc < 0) return rc;
    if (d->backend && strcmp(d->backend, "am") == 0) return mpi_am_win_alloc(s, d, bytes, win, bases, err);
    mpi_window *w = calloc(1, sizeof *w);
    if (!w) return mpi_fail(s, err, PTO_OUT_OF_MEMORY, "FATAL: Out of Memory!", "a window handle", "free host memory");
    MPI_Info info;
    void *mine = NULL;
    mpi_lock(s);
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_shared_noncontig", "true");
    rc = MPI_Win_allocate_shared((MPI_Aint)bytes, 1, info, d->comm, &mine, &w->win);
    MPI_Info_free(&info);
    const char *fn = "MPI_Win_allocate_shared";
    if (rc == MPI_SUCCESS) {
        MPI_Win_set_errhandler(w->win, MPI_ERRORS_RETURN);
        fn = "MPI_Win_shared_query";
        for (int i = 0; i < d->n && rc == MPI_SUCCESS; i++) {
            MPI_Aint size = 0;
            int unit = 1;
            void *base = NULL;
            rc = MPI_Win_shared_query(w->win, i, &size, &unit, &base);
            bases[i] = size > 0 ? base : NULL;
        }
    }
    mpi_unlock(s);
    if (rc != MPI_SUCCESS) {
        free(w);
        return mpi_fail_rc(s, err, fn, rc);
    }
    if (bytes) memset(mine, 0, bytes);
    *win = w;
    return mpi_barrier(s, dom, err);
}

int mpi_win_free(void *sv, void *dom, void *win, pto_error *err)
{
    mpi_session *s = sv;
    mpi_domain *d = mpi_domain_of(s, dom);
    if (d->backend && strcmp(d->backend, "am") == 0) return mpi_am_win_free(s, d, win, err);
    mpi_window *w = win;
    int rc = mpi_barrier(s, dom, err);
    if (rc < 0) return rc; /* a peer may still touch it: never freed (the session is poisoned) */
    mpi_lock(s);
    rc = MPI_Win_free(&w->win);
    mpi_unlock(s);
    free(w);
    return rc == MPI_SUCCESS ? 0 : mpi_fail_rc(s, err, "MPI_Win_free", rc);
}
