/*
 * test_comm_stats.c - a distributed call's comm_stats.json (runtime/comm_stats.h,
 * DISTRIBUTED-SPEC §2.7): counters added from many workers at once lose
 * nothing; the file holds every field of the spec, one per_peer entry per
 * world rank, backends only for this rank's domains and only the
 * collectives used; a directory that cannot be made is a warning, not a
 * file.  The counting inside real calls is checked under mpirun
 * (tests/dist/py/test_comm_stats.py).
 */
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "runtime/comm.h"
#include "runtime/comm_stats.h"

#define CS_THREADS 4
#define CS_ROUNDS 20000

static void *cs_worker(void *arg)
{
    rt_comm_stats *s = arg;
    for (int i = 0; i < CS_ROUNDS; i++) {
        rt_cs_access(s, i % 3, RT_CS_PUT, 256);
        rt_cs_notify(s, 1);
        rt_cs_wait(s, 1000);
    }
    return NULL;
}

static void test_comm_stats_counters_from_many_workers_lose_nothing(void **state)
{
    (void)state;
    rt_comm_stats *s = calloc(1, sizeof *s);
    pthread_t t[CS_THREADS];
    for (int i = 0; i < CS_THREADS; i++) assert_int_equal(pthread_create(&t[i], NULL, cs_worker, s), 0);
    for (int i = 0; i < CS_THREADS; i++) pthread_join(t[i], NULL);
    uint64_t ops = 0, bytes = 0;
    for (int p = 0; p < 3; p++) ops += s->ops[p][RT_CS_PUT], bytes += s->bytes[p][RT_CS_PUT];
    assert_int_equal(ops, CS_THREADS * CS_ROUNDS);
    assert_int_equal(bytes, 256ull * CS_THREADS * CS_ROUNDS);
    assert_int_equal(s->notifies[1], CS_THREADS * CS_ROUNDS);
    assert_int_equal(s->waits, CS_THREADS * CS_ROUNDS);
    assert_int_equal(s->wait_ns, 1000ull * CS_THREADS * CS_ROUNDS);
    assert_int_equal(s->ops[0][RT_CS_GET] + s->notifies[0], 0);
    free(s);
}

static pto_runtime *cs_runtime(pto_warning_fn warn, void *ctx)
{
    pto_config cfg = {.warning = warn, .warning_ctx = ctx};
    pto_runtime *rt = NULL;
    pto_error err;
    assert_int_equal(pto_runtime_create(&cfg, &rt, &err), 0);
    return rt;
}

static json_int_t cs_int(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    assert_non_null(v);
    return json_integer_value(v);
}

static void test_comm_stats_file_has_every_field_of_the_spec(void **state)
{
    (void)state;
    char dir[] = "/tmp/pto-comm-stats-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char sub[128], path[160];
    snprintf(sub, sizeof sub, "%s/dfx_outputs/rank1", dir);
    snprintf(path, sizeof path, "%s/comm_stats.json", sub);
    rt_comm_stats *s = calloc(1, sizeof *s);
    rt_cs_access(s, 2, RT_CS_PUT, 256);
    rt_cs_access(s, 0, RT_CS_GET, 64);
    rt_cs_access(s, 0, RT_CS_ACC, 8);
    rt_cs_notify(s, 2);
    rt_cs_wait(s, 2500000);
    s->coll_ops[RT_CS_ALLREDUCE] = 2, s->coll_bytes[RT_CS_ALLREDUCE] = 2048;
    s->window_bytes = 576;
    s->phase_ns[RT_CS_RUN] = 12345;
    rt_comm_domain dom[2] = {{.ranks = {0, 1, 2}, .n = 3, .rank = 1, .backend = "shm"}, {.ranks = {0, 2}, .n = 2, .rank = -1}};
    rt_comm_call call = {.domains = dom, .ndomains = 2};
    pto_runtime *rt = cs_runtime(NULL, NULL);
    rt_cs_write(rt, s, &call, sub, 1, 3);
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    assert_non_null(j);
    assert_int_equal(cs_int(j, "version"), 1);
    assert_int_equal(cs_int(j, "rank"), 1), assert_int_equal(cs_int(j, "world"), 3);
    const json_t *b = json_object_get(j, "backends");
    assert_int_equal(json_object_size(b), 1);
    assert_string_equal(json_string_value(json_object_get(b, "[0, 1, 2]")), "shm");
    const json_t *pp = json_object_get(j, "per_peer");
    assert_int_equal(json_array_size(pp), 3);
    static const char *const kinds[] = {"put", "acc", "get", "remote_load", "remote_store"};
    for (size_t p = 0; p < 3; p++) {
        const json_t *e = json_array_get(pp, p);
        assert_int_equal(cs_int(e, "peer"), (json_int_t)p);
        for (int k = 0; k < 5; k++) {
            char ops[32], bytes[32];
            snprintf(ops, sizeof ops, "%s_ops", kinds[k]), snprintf(bytes, sizeof bytes, "%s_bytes", kinds[k]);
            json_int_t want_ops = (p == 2 && k == 0) || (p == 0 && (k == 1 || k == 2));
            json_int_t want_bytes = !want_ops ? 0 : k == 0 ? 256 : k == 1 ? 8 : 64;
            assert_int_equal(cs_int(e, ops), want_ops);
            assert_int_equal(cs_int(e, bytes), want_bytes);
        }
        assert_int_equal(cs_int(e, "notify_ops"), p == 2);
    }
    const json_t *c = json_object_get(j, "collectives");
    assert_int_equal(json_object_size(c), 1);
    assert_int_equal(cs_int(json_object_get(c, "allreduce"), "ops"), 2);
    assert_int_equal(cs_int(json_object_get(c, "allreduce"), "bytes"), 2048);
    assert_int_equal(cs_int(j, "waits"), 1);
    assert_true(json_real_value(json_object_get(j, "wait_ms")) == 2.5);
    assert_int_equal(cs_int(j, "spare_threads_peak"), 0);
    assert_int_equal(cs_int(j, "window_bytes"), 576);
    const json_t *ph = json_object_get(j, "phase_us");
    static const char *const phases[] = {"entry_check", "domains", "window_alloc", "inputs", "run", "results", "release"};
    assert_int_equal(json_object_size(ph), 7);
    for (int k = 0; k < 7; k++) assert_non_null(json_object_get(ph, phases[k]));
    assert_true(json_real_value(json_object_get(ph, "run")) > 12.29 && json_real_value(json_object_get(ph, "run")) < 12.31);
    json_decref(j);
    pto_runtime_destroy(rt);
    free(s);
    char tmp[200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    assert_int_equal(access(tmp, F_OK), -1); /* renamed into place */
    remove(path), rmdir(sub);
    snprintf(sub, sizeof sub, "%s/dfx_outputs", dir);
    rmdir(sub), rmdir(dir);
}

static void cs_warned(void *ctx, pto_warning code, const char *text)
{
    (void)code;
    snprintf(ctx, 256, "%s", text);
}

static void test_comm_stats_unwritable_directory_is_a_warning(void **state)
{
    (void)state;
    char said[256] = "";
    rt_comm_stats *s = calloc(1, sizeof *s);
    pto_runtime *rt = cs_runtime(cs_warned, said);
    rt_cs_write(rt, s, NULL, "/dev/null/rank0", 0, 1);
    assert_non_null(strstr(said, "warning: comm stats: cannot write /dev/null/rank0/comm_stats.json: "));
    pto_runtime_destroy(rt);
    free(s);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_comm_stats_counters_from_many_workers_lose_nothing),
    cmocka_unit_test(test_comm_stats_file_has_every_field_of_the_spec),
    cmocka_unit_test(test_comm_stats_unwritable_directory_is_a_warning),
};

PTO_TEST_MAIN(tests)
