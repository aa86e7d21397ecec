/*
 * domain.c - comm domains: a communicator per rank set, created on first
 * use and cached for the session, and the backend each one runs on
 * (DISTRIBUTED-SPEC §2.2).
 *
 * The full world is world_dup.  Any other set is created by its members
 * alone (MPI_Comm_create_group, so a rank outside it takes no part); every
 * member creates the same sets in the same order, since the host program
 * runs identically on every rank.  The backend is shm when the domain's
 * shared-memory split is the whole domain, else am; PTO_COMM_BACKEND forces
 * one (it is part of the entry hash, so all ranks see the same).  rma is
 * later: it fails with COMM_FAILED.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/mpi_int.h"

enum { DOMAIN_TAG = 11 };

void mpi_domain_init_world(mpi_session *s)
{
    mpi_domain *w = &s->world_domain;
    w->n = s->info.size;
    w->ranks = malloc((size_t)w->n * sizeof *w->ranks);
    for (int i = 0; w->ranks && i < w->n; i++) w->ranks[i] = i;
    w->comm = s->world;
    w->backend = NULL; /* chosen on first use, as for any domain */
}

mpi_domain *mpi_domain_of(mpi_session *s, void *dom) { return dom ? dom : &s->world_domain; }

void mpi_domain_free_all(mpi_session *s)
{
    for (mpi_domain *d = s->domains, *next; d; d = next) {
        next = d->next;
        mpi_shm_pool_free(d);
        MPI_Comm_free(&d->comm);
        free(d->ranks);
        free(d);
    }
    s->domains = NULL;
    mpi_shm_pool_free(&s->world_domain);
    free(s->world_domain.ranks);
    s->world_domain.ranks = NULL;
}

static int domain_comm_failed(const mpi_session *s, pto_error *err, const char *details)
{
    return mpi_fail(s, err, PTO_COMM_FAILED, "FATAL: Communication Failed!", details,
                    "the MPI session cannot be recovered: restart the job");
}

/* The backend of d, under the lock (a collective over d). */
static int domain_backend(mpi_session *s, mpi_domain *d, pto_error *err)
{
    MPI_Comm node;
    int rc = MPI_Comm_split_type(d->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    if (rc != MPI_SUCCESS) return mpi_fail_rc(s, err, "MPI_Comm_split_type", rc);
    int local = 0, dom_rank = 0;
    MPI_Comm_size(node, &local);
    MPI_Comm_rank(d->comm, &dom_rank);
    MPI_Comm_free(&node);
    const char *want = s->forced_backend ? s->forced_backend : local == d->n ? "shm" : "am";
    char details[512], ranks[256];
    if (strcmp(want, "shm") == 0 && local != d->n) {
        mpi_format_ranks(d, ranks, sizeof ranks);
        snprintf(details, sizeof details,
                 "PTO_COMM_BACKEND=shm needs every rank of the domain on one node; domain %s spans more than one "
                 "node (%d of its ranks share rank %d's)",
                 ranks, local, s->info.rank);
        return domain_comm_failed(s, err, details);
    }
    if (strcmp(want, "shm") != 0 && strcmp(want, "am") != 0) {
        if (strcmp(want, "rma") == 0) snprintf(details, sizeof details, "PTO_COMM_BACKEND=rma is not supported in this version");
        else snprintf(details, sizeof details, "PTO_COMM_BACKEND=%.64s is not one of shm, am, rma", want);
        return domain_comm_failed(s, err, details);
    }
    d->backend = strcmp(want, "shm") == 0 ? "shm" : "am";
    return 0;
}

static mpi_domain *domain_find(mpi_session *s, const int *ranks, int n)
{
    if (n == s->info.size) return &s->world_domain;
    for (mpi_domain *d = s->domains; d; d = d->next)
        if (d->n == n && memcmp(d->ranks, ranks, (size_t)n * sizeof *ranks) == 0) return d;
    return NULL;
}

static int domain_check_ranks(const mpi_session *s, const int *ranks, int n, pto_error *err)
{
    int me = 0;
    for (int i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= s->info.size || (i && ranks[i] <= ranks[i - 1])) {
            char details[160];
            snprintf(details, sizeof details, "domain rank %d is %d: ranks must be sorted, distinct and in [0, %d)",
                     i, ranks[i], s->info.size);
            return mpi_fail(s, err, PTO_INVALID_ARGS, "FATAL: Invalid Arguments! bad comm domain", details,
                            "this is a bug of the caller of the transport");
        }
        me |= ranks[i] == s->info.rank;
    }
    if (n > 0 && me) return 0;
    return mpi_fail(s, err, PTO_INVALID_ARGS, "FATAL: Invalid Arguments! bad comm domain",
                    "this rank is not a member of the domain it asked for",
                    "this is a bug of the caller of the transport");
}

static int domain_create(mpi_session *s, const int *ranks, int n, mpi_domain **out, pto_error *err)
{
    mpi_domain *d = calloc(1, sizeof *d);
    if (d) d->ranks = malloc((size_t)n * sizeof *ranks);
    if (!d || !d->ranks) {
        free(d);
        return mpi_fail(s, err, PTO_OUT_OF_MEMORY, "FATAL: Out of Memory!", "a comm domain", "free host memory");
    }
    d->n = n;
    memcpy(d->ranks, ranks, (size_t)n * sizeof *ranks);
    MPI_Group world, group;
    MPI_Comm_group(s->world, &world);
    MPI_Group_incl(world, n, ranks, &group);
    int rc = MPI_Comm_create_group(s->world, group, DOMAIN_TAG, &d->comm);
    MPI_Group_free(&group);
    MPI_Group_free(&world);
    if (rc != MPI_SUCCESS) {
        free(d->ranks);
        free(d);
        return mpi_fail_rc(s, err, "MPI_Comm_create_group", rc);
    }
    MPI_Comm_set_errhandler(d->comm, MPI_ERRORS_RETURN);
    d->next = s->domains;
    s->domains = d;
    *out = d;
    return 0;
}

int mpi_domain_get(void *sv, const int *ranks, int n, void **dom, const char **backend, pto_error *err)
{
    mpi_session *s = sv;
    int rc = mpi_check_usable(s, err);
    if (rc == 0) rc = domain_check_ranks(s, ranks, n, err);
    if (rc < 0) return rc;
    mpi_lock(s);
    mpi_domain *d = domain_find(s, ranks, n);
    if (!d) rc = domain_create(s, ranks, n, &d, err);
    if (rc == 0 && !d->backend) rc = domain_backend(s, d, err);
    mpi_unlock(s);
    if (rc < 0) return rc;
    *dom = d == &s->world_domain ? NULL : d;
    *backend = d->backend;
    return 0;
}
