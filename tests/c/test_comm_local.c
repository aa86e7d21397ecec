/*
 * test_comm_local.c - the one-process transport (runtime/comm.h,
 * DISTRIBUTED-SPEC §4.2): a world of rank 0 alone; its only domain is {0};
 * windows are zeroed local memory; barrier and bcast change nothing,
 * allreduce is the identity, allgather copies the one contribution, every
 * entry check agrees and nothing fails remotely; a registered transport
 * replaces it and unregistering brings it back; a world of one rank adds
 * no rank suffix to messages.
 */
#include <string.h>

#include "harness.h"
#include "runtime/comm.h"
#include "pto/compile.h"
#include "runtime/error.h"

static void test_comm_local_is_one_rank_and_its_domain_is_rank_zero(void **s)
{
    (void)s;
    void *sess;
    const rt_comm_ops *o = rt_comm_transport(&sess);
    assert_string_equal(o->name, "local");
    assert_int_equal(o->rank, 0), assert_int_equal(o->size, 1);
    int zero = 0, one = 1;
    void *dom = (void *)1;
    const char *backend = NULL;
    pto_error err;
    assert_int_equal(o->domain(sess, &zero, 1, &dom, &backend, &err), 0);
    assert_string_equal(backend, "local");
    assert_int_equal(o->domain(sess, &one, 1, &dom, &backend, &err), -PTO_COMM_FAILED);
    assert_non_null(strstr(err.message, "FATAL: Communication Failed!"));
}

static void test_comm_local_windows_are_zeroed_and_aligned(void **s)
{
    (void)s;
    void *sess, *win, *bases[1];
    const rt_comm_ops *o = rt_comm_transport(&sess);
    pto_error err;
    for (int k = 0; k < 3; k++) {
        assert_int_equal(o->win_alloc(sess, NULL, 1000, &win, bases, &err), 0);
        assert_ptr_equal(win, bases[0]);
        assert_int_equal((uintptr_t)bases[0] % 64, 0);
        for (int i = 0; i < 1000; i++) assert_int_equal(((unsigned char *)bases[0])[i], 0);
        memset(bases[0], 0xab, 1000);
        assert_int_equal(o->win_free(sess, NULL, win, &err), 0);
    }
}

static void test_comm_local_collectives_are_identities(void **s)
{
    (void)s;
    void *sess;
    const rt_comm_ops *o = rt_comm_transport(&sess);
    pto_error err;
    float data[4] = {1, 2, 3, 4}, got[4] = {0};
    assert_int_equal(o->barrier(sess, NULL, &err), 0);
    assert_int_equal(o->bcast(sess, NULL, data, sizeof data, 0, &err), 0);
    assert_int_equal(o->allreduce(sess, NULL, data, 4, PTO_DTYPE_FP32, 0, &err), 0);
    assert_true(data[0] == 1 && data[3] == 4);
    assert_int_equal(o->allgather(sess, NULL, data, got, sizeof data, &err), 0);
    assert_memory_equal(data, got, sizeof data);
    const char *items[] = {"call 0", "program f 1234"};
    assert_int_equal(o->agree(sess, items, 2, "call #0 of 'f'", &err), 0);
    assert_int_equal(o->poll(sess, &err), 0);
    o->relay(sess, &err, 0); /* nobody to tell */
}

static int fake_poll(void *s, pto_error *err) { return (void)s, (void)err, -PTO_REMOTE_FAILED; }

static void test_comm_local_registered_transport_replaces_it_until_unregistered(void **s)
{
    (void)s;
    rt_comm_ops fake = *rt_comm_transport(NULL);
    fake.name = "fake", fake.rank = 1, fake.size = 2, fake.poll = fake_poll;
    int session;
    rt_comm_register(&fake, &session);
    void *got;
    assert_ptr_equal(rt_comm_transport(&got), &fake);
    assert_ptr_equal(got, &session);
    pto_error e;
    rt_comm_error(&e, PTO_RANKS_DIVERGED, "FATAL: Ranks Diverged at Call Entry! call #3 of 'f'", "call differs: rank 0 has 3, rank 1 has 4", NULL);
    assert_non_null(strstr(e.message, "FATAL: Ranks Diverged at Call Entry! call #3 of 'f' [rank 1 of 2]\n"));
    assert_non_null(strstr(e.message, "error_code=16 RANKS_DIVERGED"));
    assert_non_null(strstr(e.message, "avoid rank-dependent control flow"));
    rt_comm_register(NULL, NULL);
    assert_string_equal(rt_comm_transport(&got)->name, "local");
    assert_null(got);
    rt_comm_error(&e, PTO_COMM_FAILED, "FATAL: Communication Failed!", "x", NULL);
    assert_null(strstr(e.message, "[rank "));
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_comm_local_is_one_rank_and_its_domain_is_rank_zero),
    cmocka_unit_test(test_comm_local_windows_are_zeroed_and_aligned),
    cmocka_unit_test(test_comm_local_collectives_are_identities),
    cmocka_unit_test(test_comm_local_registered_transport_replaces_it_until_unregistered),
};

PTO_TEST_MAIN(tests)
