/*
 * peer.c - the raw-MPI peer of make bench-dist (DISTRIBUTED-SPEC §7),
 * loaded by bench/dist/bench_dist.py (ctypes) into the same mpirun
 * processes that run ours, so both sides share ranks, binding and MPI.
 *
 * Invariants:
 *  - Every function is collective over the world: all ranks call it with the
 *    same arguments in the same order, between distributed calls of pypto
 *    (whose session then makes no MPI call, so MPI_THREAD_SERIALIZED holds).
 *  - MPI is already initialised (by pypto's session) when bdp_init runs;
 *    the peer works on its own duplicate of MPI_COMM_WORLD.
 *  - Each timed loop starts after a barrier and every result is checked:
 *    a function returns the seconds of its timed loop on this rank, or -1
 *    when the data the loop produced is wrong.
 */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

static MPI_Comm bdp_comm = MPI_COMM_NULL;

/* The peer's communicator; 0, or -1 when MPI is not running. */
int bdp_init(void)
{
    int up = 0;
    MPI_Initialized(&up);
    if (!up) return -1;
    if (bdp_comm == MPI_COMM_NULL) MPI_Comm_dup(MPI_COMM_WORLD, &bdp_comm);
    return 0;
}

/* MPI_Get_library_version's text into buf (at most len bytes). */
void bdp_library_version(char *buf, int len)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int n = 0;
    MPI_Get_library_version(v, &n);
    strncpy(buf, v, (size_t)len - 1);
    buf[len - 1] = 0;
}

/* Every rank's n doubles into all (rank-major) on rank 0. */
void bdp_gather(const double *mine, int n, double *all)
{
    MPI_Gather(mine, n, MPI_DOUBLE, all, n, MPI_DOUBLE, 0, bdp_comm);
}

/* MPI_Send/MPI_Recv ping-pong of `bytes` between ranks 0 and 1, `rounds`
 * round trips; rank 0 sends first.  Each message carries its sender's
 * pattern; the last one received is checked.  Ranks above 1 only join the
 * barriers. */
double bdp_pingpong(long bytes, long rounds)
{
    int me = 0;
    MPI_Comm_rank(bdp_comm, &me);
    unsigned char *out = malloc((size_t)bytes), *in = malloc((size_t)bytes);
    int ok = out && in;
    if (!ok) {
        free(out);
        free(in);
        return -1;
    }
    memset(out, 0x10 + me, (size_t)bytes);
    memset(in, 0, (size_t)bytes);
    int other = 1 - me;
    MPI_Barrier(bdp_comm);
    double t = MPI_Wtime();
    for (long i = 0; me < 2 && i < rounds; i++) {
        if (me == 0) {
            MPI_Send(out, (int)bytes, MPI_BYTE, other, 0, bdp_comm);
            MPI_Recv(in, (int)bytes, MPI_BYTE, other, 0, bdp_comm, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(in, (int)bytes, MPI_BYTE, other, 0, bdp_comm, MPI_STATUS_IGNORE);
            MPI_Send(out, (int)bytes, MPI_BYTE, other, 0, bdp_comm);
        }
    }
    t = MPI_Wtime() - t;
    ok = me > 1 || rounds == 0 || (in[0] == 0x10 + other && in[bytes - 1] == 0x10 + other);
    free(out);
    free(in);
    MPI_Barrier(bdp_comm);
    return ok ? t : -1;
}

/* `reps` in-place MPI_Allreduce Sum of `count` floats, starting from
 * rank-dependent small integers (so every partial sum is exact). */
double bdp_allreduce(long count, long reps)
{
    int me = 0, n = 1;
    MPI_Comm_rank(bdp_comm, &me);
    MPI_Comm_size(bdp_comm, &n);
    float *v = malloc((size_t)count * sizeof *v);
    if (!v) return -1;
    for (long i = 0; i < count; i++) v[i] = (float)(me + i % 7);
    MPI_Barrier(bdp_comm);
    double t = MPI_Wtime();
    for (long r = 0; r < reps; r++) MPI_Allreduce(MPI_IN_PLACE, v, (int)count, MPI_FLOAT, MPI_SUM, bdp_comm);
    t = MPI_Wtime() - t;
    /* after the first: sum over ranks; every further one multiplies by n */
    int ok = 1;
    for (long i = 0; reps > 0 && i < count && ok; i++) {
        double want = (double)n * (double)(i % 7) + (double)n * (n - 1) / 2;
        for (long r = 1; r < reps; r++) want *= n;
        ok = v[i] == (float)want;
    }
    free(v);
    return ok ? t : -1;
}

/* `reps` cycles of what a host call does with its windows (D12): one
 * MPI_Win_allocate_shared of `bytes`, the own copy zeroed, a barrier before
 * first use and one before release, MPI_Win_free.  Checked: the copy of the
 * next rank is reachable and zero. */
double bdp_window_cycle(long bytes, long reps)
{
    int me = 0, n = 1, ok = 1;
    MPI_Comm_rank(bdp_comm, &me);
    MPI_Comm_size(bdp_comm, &n);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_shared_noncontig", "true");
    MPI_Barrier(bdp_comm);
    double t = MPI_Wtime();
    for (long r = 0; r < reps; r++) {
        unsigned char *mine = NULL, *next = NULL;
        MPI_Win win;
        MPI_Win_allocate_shared((MPI_Aint)bytes, 1, info, bdp_comm, &mine, &win);
        memset(mine, 0, (size_t)bytes);
        MPI_Barrier(bdp_comm);
        MPI_Aint size = 0;
        int unit = 1;
        MPI_Win_shared_query(win, (me + 1) % n, &size, &unit, &next);
        ok &= next != NULL && size >= (MPI_Aint)bytes && next[bytes - 1] == 0;
        MPI_Barrier(bdp_comm);
        MPI_Win_free(&win);
    }
    t = MPI_Wtime() - t;
    MPI_Info_free(&info);
    return ok ? t : -1;
}
