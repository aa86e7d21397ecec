/*
 * test_comm_ops.c - the MPI transport's rules (DISTRIBUTED-SPEC §2.2-§2.3,
 * §3), one function per rule, each checked on every rank after
 * pto_dist_attach.  Run under mpirun by tests/dist/run.py:
 *
 *   test_comm_ops ops       every rule that leaves the session usable; exit 0
 *   test_comm_ops relay     rank 1 relays a fatal: rank 0 sees it ≤ 2 s; exit via MPI_Abort
 *   test_comm_ops left      rank 1 ends before the call: rank 0 "left the job"
 *   test_comm_ops timeout   rank 1 lives but never calls: rank 0 3c timeout
 *   test_comm_ops expire    rank 1 never posts a barrier: rank 0's expired coll_test times out
 *   test_comm_ops backend   PTO_COMM_BACKEND=rma: COMM_FAILED, not supported
 *   test_comm_ops single    MPI initialised at SINGLE: attach refused (§3 row 8)
 *
 * Each rule prints "PASS <rule>" per rank, or "FAIL <rule>: <why>" and exits 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/half.h"
#include "pto/compile.h"
#include "pto/mpi.h"
#include "runtime/comm.h"
#include "runtime/comm_stats.h"
#include "comm_test.h"

/* ---- domains and windows ---- */

static void test_domain_of_a_subset_is_made_by_its_members_and_cached(void)
{
    const char *rule = "domain_of_a_subset_is_made_by_its_members_and_cached";
    int pair[2] = {R & ~1, R | 1};
    void *d1 = NULL, *d2 = (void *)1;
    const char *backend = NULL;
    OK(rule, ops->domain(S, pair, 2, &d1, &backend, E));
    CHECK(rule, (P == 2) == (d1 == NULL) && strcmp(backend, "shm") == 0, "domain %p backend %s", d1, backend);
    OK(rule, ops->domain(S, pair, 2, &d2, &backend, E));
    CHECK(rule, d1 == d2, "the second domain() of one set gave another handle");
    /* {0, 1, 2} at P = 4: rank 3 takes no part. */
    if (P >= 4 && R < 3) {
        int three[3] = {0, 1, 2};
        void *d3;
        OK(rule, ops->domain(S, three, 3, &d3, &backend, E));
        int v = 1;
        OK(rule, ops->allreduce(S, d3, &v, 1, PTO_DTYPE_INT32, 0, E));
        CHECK(rule, v == 3, "sum over {0, 1, 2} is %d", v);
    }
    int v = 1;
    OK(rule, ops->allreduce(S, d1, &v, 1, PTO_DTYPE_INT32, 0, E));
    CHECK(rule, v == 2, "sum over the pair is %d", v);
    int all[64], n = P;
    for (int i = 0; i < n; i++) all[i] = i;
    void *w;
    OK(rule, ops->domain(S, all, n, &w, &backend, E));
    CHECK(rule, w == NULL, "the full world is not the NULL domain");
    int bad[2] = {R, R};
    pto_error e;
    CHECK(rule, ops->domain(S, bad, 2, &w, &backend, &e) == -PTO_INVALID_ARGS, "duplicate ranks accepted");
    pass(rule);
}

static void test_window_maps_every_peer_copy_zeroed(void)
{
    const char *rule = "window_maps_every_peer_copy_zeroed";
    void *bases[64], *win;
    for (int round = 0; round < 3; round++) { /* new, the pooled one again (dirty: zeroed anew), a bigger one */
        size_t bytes = round < 2 ? 4096 : 8192;
        OK(rule, ops->win_alloc(S, NULL, bytes, &win, bases, E));
        for (int p = 0; p < P; p++) CHECK(rule, bases[p] != NULL, "peer %d not mapped", p);
        const unsigned char *mine = bases[R];
        for (size_t i = 0; i < bytes; i++) CHECK(rule, mine[i] == 0, "byte %zu of a new window is %d", i, mine[i]);
        OK(rule, ops->barrier(S, NULL, E));
        /* every rank writes its slot in every peer's copy, the barrier publishes it */
        for (int p = 0; p < P; p++) ((int *)bases[p])[R] = 100 * R + p + 1;
        OK(rule, ops->barrier(S, NULL, E));
        for (int p = 0; p < P; p++)
            CHECK(rule, ((int *)bases[R])[p] == 100 * p + R + 1, "slot %d holds %d", p, ((int *)bases[R])[p]);
        OK(rule, ops->win_free(S, NULL, win, E));
    }
    /* a window of a subset domain: only its members' copies */
    int pair[2] = {R & ~1, R | 1};
    void *d;
    const char *backend;
    OK(rule, ops->domain(S, pair, 2, &d, &backend, E));
    OK(rule, ops->win_alloc(S, d, 64, &win, bases, E));
    int me = R & 1, peer = 1 - me;
    ((int *)bases[peer])[me] = R + 1;
    OK(rule, ops->barrier(S, d, E));
    CHECK(rule, ((int *)bases[me])[peer] == (R ^ 1) + 1, "pair slot holds %d", ((int *)bases[me])[peer]);
    OK(rule, ops->win_free(S, d, win, E));
    pass(rule);
}

/* ---- collectives ---- */

static void test_bcast_from_every_root_in_chunks(void)
{
    const char *rule = "bcast_from_every_root_in_chunks";
    size_t n = ((size_t)64 << 20) + 4099; /* more than one 64 MiB chunk */
    unsigned char *buf = malloc(n);
    CHECK(rule, buf, "no memory");
    for (int root = 0; root < P; root++) {
        for (size_t i = 0; i < n; i++) buf[i] = (unsigned char)(R == root ? i * 7 + (size_t)root : 0xAA);
        size_t len = root == 0 ? n : 1000;
        OK(rule, ops->bcast(S, NULL, buf, len, root, E));
        for (size_t i = 0; i < len; i++)
            CHECK(rule, buf[i] == (unsigned char)(i * 7 + (size_t)root), "root %d byte %zu is %d", root, i, buf[i]);
    }
    free(buf);
    pass(rule);
}

static double elem_get(int dtype, const void *p, size_t i)
{
    switch (dtype) {
    case PTO_DTYPE_FP32: return ((const float *)p)[i];
    case PTO_DTYPE_FP16: return base_f16_to_f32(((const uint16_t *)p)[i]);
    case PTO_DTYPE_BF16: return base_bf16_to_f32(((const uint16_t *)p)[i]);
    case PTO_DTYPE_INT32: return ((const int32_t *)p)[i];
    case PTO_DTYPE_INT8: return ((const int8_t *)p)[i];
    case PTO_DTYPE_INT64: return (double)((const int64_t *)p)[i];
    default: return ((const uint8_t *)p)[i]; /* BOOL */
    }
}

static void elem_set(int dtype, void *p, size_t i, double v)
{
    switch (dtype) {
    case PTO_DTYPE_FP32: ((float *)p)[i] = (float)v; break;
    case PTO_DTYPE_FP16: ((uint16_t *)p)[i] = base_f32_to_f16((float)v); break;
    case PTO_DTYPE_BF16: ((uint16_t *)p)[i] = base_f32_to_bf16((float)v); break;
    case PTO_DTYPE_INT32: ((int32_t *)p)[i] = (int32_t)v; break;
    case PTO_DTYPE_INT8: ((int8_t *)p)[i] = (int8_t)v; break;
    case PTO_DTYPE_INT64: ((int64_t *)p)[i] = (int64_t)v; break;
    default: ((uint8_t *)p)[i] = v != 0;
    }
}

/* Rank r's element i: small integers, so every format holds every result exactly. */
static double value_of(int dtype, int op, int r, size_t i)
{
    if (dtype == PTO_DTYPE_BOOL) return (r + (int)i) % 3 == 0;
    if (op == 3) return (double)((r + (int)i) % 2 + 1);
    return (double)((r * 7 + (int)i) % 11 - 5);
}

static double reduce(int dtype, int op, double a, double b)
{
    if (dtype == PTO_DTYPE_BOOL) return op == 0 || op == 1 ? (a || b) : (a && b);
    switch (op) {
    case 0: return a + b;
    case 1: return a > b ? a : b;
    case 2: return a < b ? a : b;
    default: return a * b;
    }
}

static void test_allreduce_each_dtype_and_op_matches_serial(void)
{
    const char *rule = "allreduce_each_dtype_and_op_matches_serial";
    static const int dtypes[] = {PTO_DTYPE_FP32, PTO_DTYPE_FP16, PTO_DTYPE_BF16, PTO_DTYPE_INT32,
                                 PTO_DTYPE_INT8, PTO_DTYPE_INT64, PTO_DTYPE_BOOL};
    static const size_t sizes[] = {4, 2, 2, 4, 1, 8, 1};
    size_t n = 1000;
    void *buf = malloc(n * 8);
    for (int t = 0; t < 7; t++)
        for (int op = 0; op < 4; op++) {
            for (size_t i = 0; i < n; i++) elem_set(dtypes[t], buf, i, value_of(dtypes[t], op, R, i));
            OK(rule, ops->allreduce(S, NULL, buf, n, dtypes[t], op, E));
            for (size_t i = 0; i < n; i++) {
                double want = value_of(dtypes[t], op, 0, i);
                for (int r = 1; r < P; r++) want = reduce(dtypes[t], op, want, value_of(dtypes[t], op, r, i));
                double got = elem_get(dtypes[t], buf, i);
                CHECK(rule, got == want, "dtype %d (%zu bytes) op %d element %zu: %g, serial %g", dtypes[t],
                      sizes[t], op, i, got, want);
            }
        }
    free(buf);
    pto_error e;
    int v = 0;
    CHECK(rule, ops->allreduce(S, NULL, &v, 1, PTO_DTYPE_INT32, 9, &e) == -PTO_INVALID_ARGS, "op 9 accepted");
    pass(rule);
}

static void test_allgather_places_each_rank_piece(void)
{
    const char *rule = "allgather_places_each_rank_piece";
    /* 37 bytes, then (at P = 2) more than one 64 MiB chunk per rank */
    size_t sizes[2] = {37, ((size_t)64 << 20) + 513};
    for (int k = 0; k < (P == 2 ? 2 : 1); k++) {
        size_t n = sizes[k];
        unsigned char *send = malloc(n), *recv = malloc(n * (size_t)P);
        CHECK(rule, send && recv, "no memory");
        for (size_t i = 0; i < n; i++) send[i] = (unsigned char)(R * 31 + i);
        memset(recv, 0xEE, n * (size_t)P);
        OK(rule, ops->allgather(S, NULL, send, recv, n, E));
        for (int r = 0; r < P; r++)
            for (size_t i = 0; i < n; i++)
                CHECK(rule, recv[(size_t)r * n + i] == (unsigned char)(r * 31 + i), "piece %d byte %zu", r, i);
        free(send);
        free(recv);
    }
    pass(rule);
}

/* ---- the entry check ---- */

static void test_agree_equal_items_pass(void)
{
    const char *rule = "agree_equal_items_pass";
    const char *items[] = {"program f0", "x.shape [4, 8]", "alpha 2"};
    double t = secs();
    OK(rule, ops->agree(S, items, 3, "call #1 of 'f'", E));
    OK(rule, ops->agree(S, items, 0, "call #2 of 'g'", E));
    CHECK(rule, secs() - t < 1.0, "took %.2f s", secs() - t);
    pass(rule);
}

static void test_agree_diverging_names_the_item_and_two_ranks(void)
{
    const char *rule = "agree_diverging_names_the_item_and_two_ranks";
    char shape[64];
    snprintf(shape, sizeof shape, "argument x FP32 [4, %d]", R == P - 1 ? 9 : 8);
    const char *items[] = {"program f0", shape, "argument alpha = 0000000000000002"};
    pto_error e;
    int rc = ops->agree(S, items, 3, "call #3 of 'step'", &e);
    CHECK(rule, rc == -PTO_RANKS_DIVERGED, "rc %d", rc);
    char want[256];
    snprintf(want, sizeof want, "argument x FP32 differs: rank 0 has [4, 8], rank %d has [4, 9]", P - 1);
    CHECK(rule, strstr(e.message, want), "no '%s' in\n%s", want, e.message);
    snprintf(want, sizeof want, "FATAL: Ranks Diverged at Call Entry! call #3 of 'step' [rank %d of %d]\n", R, P);
    CHECK(rule, strncmp(e.message, want, strlen(want)) == 0, "header of\n%s", e.message);
    CHECK(rule, strstr(e.message, "avoid rank-dependent control flow"), "hint of\n%s", e.message);
    /* a scalar's value */
    char alpha[64];
    snprintf(alpha, sizeof alpha, "argument alpha = %016d", R == 1 ? 3 : 2);
    const char *scalar[] = {"program f0", alpha};
    rc = ops->agree(S, scalar, 2, "call #4 of 'step'", &e);
    CHECK(rule, rc == -PTO_RANKS_DIVERGED &&
                    strstr(e.message, "argument alpha differs: rank 0 has 0000000000000002, rank 1 has 0000000000000003"),
          "rc %d\n%s", rc, e.message);
    /* another item count on one rank */
    const char *fewer[] = {"program f0"};
    rc = ops->agree(S, R == 1 ? fewer : items, R == 1 ? 1 : 2, "call #5 of 'step'", &e);
    CHECK(rule, rc == -PTO_RANKS_DIVERGED && strstr(e.message, "rank 1 has no such item"), "rc %d\n%s", rc,
          e.message);
    /* a diverged call leaves the session usable (the caller relays if it must) */
    OK(rule, ops->agree(S, fewer, 1, "call #6 of 'after'", E));
    pass(rule);
}

static void test_backend_rma_is_not_supported_in_this_version(void)
{
    const char *rule = "backend_rma_is_not_supported_in_this_version";
    int pair[2] = {R & ~1, R | 1};
    void *d;
    const char *backend;
    pto_error e;
    CHECK(rule, ops->domain(S, pair, 2, &d, &backend, &e) == -PTO_COMM_FAILED, "rma accepted");
    CHECK(rule, strstr(e.message, "PTO_COMM_BACKEND=rma is not supported in this version"), "%s", e.message);
    CHECK(rule, strstr(e.message, "FATAL: Communication Failed! [rank "), "%s", e.message);
    pass(rule);
}

/* ---- failures ---- */

static void test_relay_reaches_every_peer_as_remote_failed(void)
{
    const char *rule = "relay_reaches_every_peer_as_remote_failed";
    const char *items[] = {"program f0"};
    pto_error e;
    /* rank 1 may leave the agreement and relay before a peer has left it: that peer's agree is
     * then where the relayed failure reaches it */
    int rc = ops->agree(S, items, 1, "call #1 of 'f'", &e);
    if (R == 1) {
        CHECK(rule, rc == 0, "agree -> %d: %s", rc, e.message);
        pto_error mine;
        memset(&mine, 0, sizeof mine);
        mine.code = PTO_KERNEL_FAILED;
        snprintf(mine.message, sizeof mine.message,
                 "FATAL: Kernel Failed! [rank 1 of %d]\n  kernel=k task=0:3\nerror hint: look at k", P);
        ops->relay(S, &mine, 0);
        CHECK(rule, ops->barrier(S, NULL, &e) == -PTO_COMM_FAILED, "barrier after relay");
        CHECK(rule, strstr(e.message, "distributed session unusable after the failure on rank 1 in call #1 of 'f'"),
              "%s", e.message);
        pass(rule);
        return;
    }
    double t = secs();
    while (rc == 0 && (rc = ops->poll(S, &e)) == 0 && secs() - t < 2.0) usleep(1000);
    CHECK(rule, rc == -PTO_REMOTE_FAILED, "rc %d, no REMOTE_FAILED after %.2f s", rc, secs() - t);
    char want[128];
    snprintf(want, sizeof want, "FATAL: Remote Rank Failed! [rank %d of %d]\n", R, P);
    CHECK(rule, strncmp(e.message, want, strlen(want)) == 0, "header of\n%s", e.message);
    CHECK(rule, strstr(e.message, "\n  rank 1 (device_ids[1]=1) failed:\n    FATAL: Kernel Failed! [rank 1 of "),
          "body of\n%s", e.message);
    CHECK(rule, strstr(e.message, "\n      kernel=k task=0:3\n"), "indent of\n%s", e.message);
    CHECK(rule, strstr(e.message, "error hint: the cause is on rank 1: read its message above"), "%s", e.message);
    /* a later step of the failed call gets the relayed failure, a later call the poisoned session */
    CHECK(rule, ops->barrier(S, NULL, &e) == -PTO_REMOTE_FAILED && strstr(e.message, "rank 1 (device_ids[1]=1) failed:"),
          "%s", e.message);
    CHECK(rule, ops->agree(S, items, 1, "call #2 of 'f'", &e) == -PTO_COMM_FAILED &&
                    strstr(e.message, "unusable after the failure on rank 1 in call #1 of 'f'"),
          "%s", e.message);
    pass(rule);
}

static void test_rank_that_left_fails_the_waiting_ranks(void)
{
    const char *rule = "rank_that_left_fails_the_waiting_ranks";
    const char *items[] = {"program f0"};
    OK(rule, ops->agree(S, items, 1, "call #1 of 'f'", E));
    if (R == 1) {
        pass(rule);
        return; /* ends its script: BYE */
    }
    double t = secs();
    pto_error e;
    int rc = ops->agree(S, items, 1, "call #2 of 'g'", &e);
    CHECK(rule, rc == -PTO_REMOTE_FAILED, "rc %d", rc);
    CHECK(rule, strstr(e.message, "rank 1 left the job (its script ended) during call #2 of 'g'"), "%s", e.message);
    CHECK(rule, secs() - t < 2.5, "took %.2f s", secs() - t);
    pass(rule);
}

static void test_rank_that_never_calls_times_out_the_entry(void)
{
    const char *rule = "rank_that_never_calls_times_out_the_entry";
    if (R == 1) {
        pass(rule);
        sleep(4); /* alive, never calls; ends through the others' abort */
        return;
    }
    const char *items[] = {"program f0"};
    double t = secs();
    pto_error e;
    int rc = ops->agree(S, items, 1, "call #1 of 'f'", &e);
    CHECK(rule, rc == -PTO_COMM_WAIT_TIMEOUT, "rc %d", rc);
    CHECK(rule, strstr(e.message, "ranks did not all reach call #1 of 'f' within 1 s (PTO_DIST_ENTRY_TIMEOUT_S)"),
          "%s", e.message);
    CHECK(rule, strstr(e.message, "FATAL: Communication Wait Timeout! task=- [rank "), "%s", e.message);
    CHECK(rule, secs() - t < 2.0, "took %.2f s", secs() - t);
    pass(rule);
}

/* ---- posted collectives (the DEFERRED comm task's half, D9) ---- */

/* Tests q until done (at most 5 s); returns the number of tests that said "not yet". */
static int test_until_done(const char *rule, void *q)
{
    int pending = 0;
    double t = secs();
    for (;;) {
        pto_error e;
        int rc = ops->coll_test(S, q, PTO_DEFER_POLL, &e);
        CHECK(rule, rc >= 0, "coll_test -> %d\n%s", rc, e.message);
        if (rc == 1) return pending;
        pending++;
        CHECK(rule, secs() - t < 5.0, "not done after 5 s");
        struct timespec ts = {0, 100000};
        nanosleep(&ts, NULL);
    }
}

static void test_coll_post_returns_at_once_and_coll_test_completes_it(void)
{
    const char *rule = "coll_post_returns_at_once_and_coll_test_completes_it";
    float v[3] = {1.0f + (float)R, 2.0f, -1.0f * (float)R};
    if (R == 1) usleep(200000); /* rank 0 posts first: its request cannot complete yet */
    rt_comm_coll c = {.op = RT_CS_ALLREDUCE, .data = v, .bytes = sizeof v, .dtype = PTO_DTYPE_FP32, .reduce = 0};
    void *q = NULL;
    double t = secs();
    OK(rule, ops->coll_post(S, NULL, &c, &q, E));
    CHECK(rule, secs() - t < 0.1 && q != NULL, "coll_post took %.3f s (handle %p)", secs() - t, q);
    int pending = test_until_done(rule, q);
    CHECK(rule, R != 0 || pending > 0, "rank 0's allreduce was done before rank 1 posted");
    float want0 = 0, want2 = 0;
    for (int r = 0; r < P; r++) want0 += 1.0f + (float)r, want2 -= (float)r;
    CHECK(rule, v[0] == want0 && v[1] == 2.0f * (float)P && v[2] == want2, "sums %g %g %g", v[0], v[1], v[2]);
    /* all_to_all: data[src] = stage_src[me] */
    int32_t stage[64], data[64];
    for (int i = 0; i < P; i++) stage[i] = 100 * R + i, data[i] = -1;
    c = (rt_comm_coll){.op = RT_CS_ALL_TO_ALL, .data = data, .stage = stage, .bytes = (size_t)P * sizeof *stage};
    OK(rule, ops->coll_post(S, NULL, &c, &q, E));
    if (q) test_until_done(rule, q);
    for (int src = 0; src < P; src++) CHECK(rule, data[src] == 100 * src + R, "data[%d] = %d", src, data[src]);
    /* nothing to move: done at once, no handle */
    c = (rt_comm_coll){.op = RT_CS_BROADCAST, .data = v, .bytes = 0};
    q = (void *)1;
    OK(rule, ops->coll_post(S, NULL, &c, &q, E));
    CHECK(rule, q == NULL, "an empty broadcast left a handle");
    pass(rule);
}

static void test_expired_coll_test_names_the_collective_and_its_domain(void)
{
    const char *rule = "expired_coll_test_names_the_collective_and_its_domain";
    if (R == 1) {
        pass(rule);
        sleep(4); /* alive, never posts; ends through rank 0's abort */
        return;
    }
    rt_comm_coll c = {.op = RT_CS_BARRIER};
    void *q = NULL;
    OK(rule, ops->coll_post(S, NULL, &c, &q, E));
    pto_error e;
    CHECK(rule, ops->coll_test(S, q, PTO_DEFER_POLL, &e) == 0, "a barrier without its peer completed");
    usleep(100000);
    int rc = ops->coll_test(S, q, PTO_DEFER_EXPIRED, &e);
    CHECK(rule, rc == -PTO_COMM_WAIT_TIMEOUT, "rc %d", rc);
    CHECK(rule, strstr(e.message, "FATAL: Communication Wait Timeout! task=- [rank 0 of "), "%s", e.message);
    CHECK(rule, strstr(e.message, "barrier on domain [0, 1") && strstr(e.message, " ms") && strstr(e.message, "not complete after "), "%s", e.message);
    pass(rule);
}

/* §3 row 8: the application initialised MPI below SERIALIZED. */
static int test_mpi_below_serialized_is_refused(int argc, char **argv)
{
    const char *rule = "mpi_below_serialized_is_refused";
    int level;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &level);
    MPI_Comm_rank(MPI_COMM_WORLD, &R);
    pto_error e;
    CHECK(rule, pto_dist_attach(NULL, MPI_COMM_WORLD, &e) == -PTO_INVALID_ARGS, "attach at SINGLE");
    CHECK(rule, strcmp(e.message, "MPI was initialised with thread level MPI_THREAD_SINGLE; pypto needs "
                                  "MPI_THREAD_SERIALIZED or higher (mpi4py: set mpi4py.rc.thread_level before "
                                  "importing mpi4py.MPI)") == 0, "%s", e.message);
    CHECK(rule, pto_dist_transport(NULL) == NULL, "a session after the refusal");
    MPI_Finalize();
    pass(rule);
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "ops";
    if (strcmp(mode, "single") == 0) return test_mpi_below_serialized_is_refused(argc, argv);
    if (attach()) return 1;
    if (strcmp(mode, "ops") == 0) {
        test_domain_of_a_subset_is_made_by_its_members_and_cached();
        test_window_maps_every_peer_copy_zeroed();
        test_bcast_from_every_root_in_chunks();
        test_allreduce_each_dtype_and_op_matches_serial();
        test_allgather_places_each_rank_piece();
        test_agree_equal_items_pass();
        test_agree_diverging_names_the_item_and_two_ranks();
        test_coll_post_returns_at_once_and_coll_test_completes_it();
    } else if (strcmp(mode, "expire") == 0) {
        test_expired_coll_test_names_the_collective_and_its_domain();
    } else if (strcmp(mode, "relay") == 0) {
        test_relay_reaches_every_peer_as_remote_failed();
    } else if (strcmp(mode, "left") == 0) {
        test_rank_that_left_fails_the_waiting_ranks();
    } else if (strcmp(mode, "timeout") == 0) {
        test_rank_that_never_calls_times_out_the_entry();
    } else if (strcmp(mode, "backend") == 0) {
        test_backend_rma_is_not_supported_in_this_version();
    } else {
        printf("FAIL usage: no mode %s\n", mode);
        return 1;
    }
    return 0;
}
