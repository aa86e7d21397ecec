/*
 * session.c - the process's MPI session (DISTRIBUTED-SPEC §2.2, D8, D14):
 * start, the transport table it registers, and its end at process exit.
 *
 * Start (collective over the given communicator; no task exists yet): MPI
 * initialised at MPI_THREAD_SERIALIZED unless the application did (then at
 * least SERIALIZED is required), two duplicates world_dup and ctrl with
 * MPI_ERRORS_RETURN (nonblocking, bounded by PTO_DIST_ENTRY_TIMEOUT_S: the
 * first collective, so a rank that never arrives times the start out as
 * the entry check would, §3 row 3c; once they complete every rank is
 * here, and the rest blocks), the node's rank count, the affinity masks the
 * node's ranks share (D18), rank 0's wall clock, the 16-bit float ops, the
 * ctrl receive.  End, at exit or pto_dist_detach: a poisoned session says
 * BYE, gives the peers a moment to report, and calls
 * MPI_Abort(MPI_COMM_WORLD, 1); otherwise BYE to every peer, every peer's
 * BYE awaited, communicators freed, MPI_Finalize when we initialised it.
 * A start that timed out stays allocated and poisoned (its duplications
 * may still complete into it): later starts fail, exit aborts.
 * session_current, session_ended and session_stalled are written only
 * under start_lock.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpi/mpi_int.h"

static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;
static mpi_session *session_current;
/* An ended session stays allocated: a libpto copy (pypto._C's) may still
 * hold its table, and every operation on it now fails without MPI. */
static mpi_session *session_ended;
static mpi_session *session_stalled; /* a start that timed out */

#define ENTRY_TIMEOUT_DEFAULT_S 600

static uint64_t session_entry_timeout_ns(void)
{
    const char *v = getenv("PTO_DIST_ENTRY_TIMEOUT_S");
    char *end = NULL;
    double sec = v && *v ? strtod(v, &end) : 0;
    if (!v || !*v || *end || !(sec > 0)) sec = ENTRY_TIMEOUT_DEFAULT_S;
    return (uint64_t)(sec * 1e9);
}

/* The node's ranks (MPI_COMM_TYPE_SHARED) and how many share this rank's mask. */
static int session_locality(mpi_session *s)
{
    MPI_Comm node;
    int rc = MPI_Comm_split_type(s->world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    if (rc != MPI_SUCCESS) return rc;
    int n = 0;
    MPI_Comm_size(node, &n);
    cpu_set_t mine, *all = malloc((size_t)n * sizeof *all);
    CPU_ZERO(&mine);
    sched_getaffinity(0, sizeof mine, &mine);
    rc = all ? MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, node)
             : MPI_ERR_NO_MEM;
    s->info.local_size = n;
    s->info.mask_sharers = 0;
    for (int i = 0; rc == MPI_SUCCESS && i < n; i++) s->info.mask_sharers += CPU_EQUAL(&mine, &all[i]) != 0;
    if (s->info.mask_sharers < 1) s->info.mask_sharers = 1;
    free(all);
    MPI_Comm_free(&node);
    return rc;
}

static int session_setup(mpi_session *s, MPI_Comm comm, pto_error *err)
{
    MPI_Request dups[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    s->ctrl_req = MPI_REQUEST_NULL; /* the waits drain nothing before ctrl exists */
    int rc = MPI_Comm_idup(comm, &s->world, &dups[0]);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_idup(comm, &s->ctrl, &dups[1]);
    if (rc != MPI_SUCCESS) return mpi_fail_rc(s, err, "MPI_Comm_idup", rc);
    rc = mpi_wait(s, &s->world_domain, dups, 2, mpi_deadline(s), err); /* world_domain: no ranks yet */
    if (rc == -PTO_COMM_WAIT_TIMEOUT) return mpi_fail_entry_timeout(s, err);
    if (rc < 0) return rc;
    const char *fn;
    MPI_Comm_set_errhandler(s->world, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(s->ctrl, MPI_ERRORS_RETURN);
    fn = "MPI_Comm_split_type";
    rc = session_locality(s);
    if (rc == MPI_SUCCESS) {
        fn = "MPI_Bcast";
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        s->info.start_time = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
        rc = MPI_Bcast(&s->info.start_time, 1, MPI_DOUBLE, 0, s->world);
    }
    if (rc == MPI_SUCCESS) fn = "MPI_Op_create", rc = mpi_coll_init(s);
    if (rc != MPI_SUCCESS) return mpi_fail_rc(s, err, fn, rc);
    mpi_domain_init_world(s);
    if (!s->world_domain.ranks)
        return mpi_fail(s, err, PTO_OUT_OF_MEMORY, "FATAL: Out of Memory!", "the MPI session's world domain",
                        "free host memory");
    return mpi_relay_start(s, err);
}

static const char *session_level_name(int level)
{
    if (level == MPI_THREAD_SINGLE) return "MPI_THREAD_SINGLE";
    if (level == MPI_THREAD_FUNNELED) return "MPI_THREAD_FUNNELED";
    return "MPI_THREAD_SERIALIZED";
}

/* MPI up at SERIALIZED or higher; s->info.rank/size from comm. */
static int session_init_mpi(mpi_session *s, MPI_Comm comm, pto_error *err)
{
    int inited = 0, finalized = 0, level = 0;
    MPI_Initialized(&inited);
    MPI_Finalized(&finalized);
    if (finalized) {
        snprintf(err->message, sizeof err->message, "MPI was finalised before the pypto session started");
        err->code = PTO_COMM_FAILED, err->ring = -1;
        return -PTO_COMM_FAILED;
    }
    if (!inited) {
        int rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &level);
        if (rc != MPI_SUCCESS) {
            snprintf(err->message, sizeof err->message, "MPI_Init_thread failed with error %d", rc);
            err->code = PTO_COMM_FAILED, err->ring = -1;
            return -PTO_COMM_FAILED;
        }
        s->initialised_mpi = 1;
    } else {
        MPI_Query_thread(&level);
    }
    /* §3 row 8: a plain sentence; Python raises it as DistributedUnavailableError. */
    if (level < MPI_THREAD_SERIALIZED) {
        snprintf(err->message, sizeof err->message,
                 "MPI was initialised with thread level %s; pypto needs MPI_THREAD_SERIALIZED or higher (mpi4py: "
                 "set mpi4py.rc.thread_level before importing mpi4py.MPI)",
                 session_level_name(level));
        err->code = PTO_INVALID_ARGS, err->ring = -1;
        return -PTO_INVALID_ARGS;
    }
    MPI_Comm_rank(comm, &s->info.rank);
    MPI_Comm_size(comm, &s->info.size);
    return 0;
}

static void session_exit(void) { pto_dist_detach(); }

int pto_dist_start(MPI_Comm comm, const char *call, pto_dist_info *info, pto_error *err)
{
    static int exit_hooked;
    pthread_mutex_lock(&start_lock);
    mpi_session *s = session_current;
    int rc = 0;
    if (!s && session_stalled) {
        rc = mpi_check_usable(session_stalled, err);
    } else if (!s) {
        s = calloc(1, sizeof *s);
        if (!s) {
            snprintf(err->message, sizeof err->message, "no memory for the MPI session");
            err->code = PTO_OUT_OF_MEMORY, err->ring = -1;
            rc = -PTO_OUT_OF_MEMORY;
        }
        if (rc == 0) rc = session_init_mpi(s, comm, err);
        if (rc == 0) {
            pthread_mutex_init(&s->lock, NULL);
            mpi_am_init(s);
            s->entry_timeout_ns = session_entry_timeout_ns();
            s->forced_backend = getenv("PTO_COMM_BACKEND");
            if (s->forced_backend && !*s->forced_backend) s->forced_backend = NULL;
            snprintf(s->call_text, sizeof s->call_text, "%s", call ? call : "the session start");
            rc = session_setup(s, comm, err);
        }
        if (rc == 0) {
            s->ops = (rt_comm_ops){.name = "mpi", .rank = s->info.rank, .size = s->info.size,
                                   .domain = mpi_domain_get, .win_alloc = mpi_win_alloc, .win_free = mpi_win_free,
                                   .barrier = mpi_barrier, .bcast = mpi_bcast, .allreduce = mpi_allreduce,
                                   .allgather = mpi_allgather, .coll_post = mpi_coll_post, .coll_test = mpi_coll_test,
                                   .agree = mpi_agree, .relay = mpi_relay,
                                   .poll = mpi_poll, .remote = &mpi_am_remote};
            session_current = s;
            if (!exit_hooked) exit_hooked = atexit(session_exit) == 0;
        } else if (rc == -PTO_COMM_WAIT_TIMEOUT) {
            session_stalled = s;
            s = NULL;
            if (!exit_hooked) exit_hooked = atexit(session_exit) == 0;
        } else {
            /* A failed start leaves MPI as it is; the process ends without a session. */
            free(s);
            s = NULL;
        }
    }
    if (s && info) *info = s->info;
    pthread_mutex_unlock(&start_lock);
    return rc;
}

int pto_dist_attach(pto_runtime *rt, MPI_Comm comm, pto_error *err)
{
    (void)rt; /* the transport is the process's: every runtime of this libpto sees it */
    int rc = pto_dist_start(comm, NULL, NULL, err);
    if (rc < 0) return rc;
    void *session;
    const rt_comm_ops *ops = pto_dist_transport(&session);
    rt_comm_register(ops, session);
    return 0;
}

const void *pto_dist_transport(void **session)
{
    pthread_mutex_lock(&start_lock);
    mpi_session *s = session_current;
    pthread_mutex_unlock(&start_lock);
    if (session) *session = s;
    return s ? &s->ops : NULL;
}

void pto_dist_detach(void)
{
    pthread_mutex_lock(&start_lock);
    mpi_session *s = session_current;
    int finalized = 1;
    if (!s && session_stalled) MPI_Abort(MPI_COMM_WORLD, 1);
    if (s) MPI_Finalized(&finalized);
    if (!s || finalized) { /* the application finalised MPI under us: nothing left to end */
        pthread_mutex_unlock(&start_lock);
        return;
    }
    int ok = mpi_relay_goodbye(s) == 0;
    if (!ok) MPI_Abort(MPI_COMM_WORLD, 1);
    const void *registered = rt_comm_transport(NULL);
    if (registered == &s->ops) rt_comm_register(NULL, NULL);
    mpi_am_fini(s);
    mpi_lock(s);
    atomic_store_explicit(&s->ended, 1, memory_order_release);
    if (s->ctrl_req != MPI_REQUEST_NULL) {
        MPI_Cancel(&s->ctrl_req);
        MPI_Wait(&s->ctrl_req, MPI_STATUS_IGNORE);
    }
    mpi_domain_free_all(s);
    mpi_coll_fini(s);
    MPI_Comm_free(&s->ctrl);
    MPI_Comm_free(&s->world);
    mpi_unlock(s);
    if (s->initialised_mpi) MPI_Finalize();
    free(s->ctrl_buf);
    free(s->relay_buf);
    free(s->relay_reqs);
    s->ctrl_buf = s->relay_buf = NULL;
    s->relay_reqs = NULL;
    session_current = NULL;
    session_ended = s;
    pthread_mutex_unlock(&start_lock);
}
