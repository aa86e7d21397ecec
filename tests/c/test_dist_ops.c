/*
 * test_dist_ops.c - the kernel comm ops on hand-made windows (tile/dist_ops.h):
 * two copies of a window in this process play domain ranks 0 and 1 (the
 * shm case; P = 1 is the one-copy case).  notify adds and sets, wait sees
 * it and is bounded; put, get, remote_load and remote_store move boxes;
 * the same moves reach an unmapped peer through a transport table (am's
 * shape) and a target refuses a box outside its copy;
 * atomic adds lose nothing per dtype, also between neighbours of one word;
 * the barrier lets two threads pass together and leaves the signal zero;
 * bad boxes and peers fail with their texts.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "harness.h"
#include "base/clock.h"
#include "base/half.h"
#include "tile/dist_ops.h"

#define N 16

static _Alignas(64) int32_t cells[2][4];
static _Alignas(64) float data[2][N * N];

static tile_tensor tensor(void *addr, tile_dtype dt, int64_t rows, int64_t cols)
{
    tile_tensor t = {.addr = addr, .dtype = dt, .rank = 2, .shape = {rows, cols}, .strides = {cols, 1}};
    return t;
}

static void test_dist_ops_notify_adds_and_sets_the_peers_cell(void **s)
{
    (void)s;
    memset(cells, 0, sizeof cells);
    char *bases[2] = {(char *)cells[0], (char *)cells[1]};
    tile_dist_win w = {.bases = bases, .rank = 0, .size = 2};
    tile_tensor sig = tensor(cells[0], TILE_INT32, 2, 2), peer;
    char msg[200];
    assert_int_equal(tile_dist_peer(&w, &sig, 1, "pld.system.notify", &peer, msg, sizeof msg), 0);
    tile_dist_notify((int32_t *)peer.addr + 3, 5, 0);
    tile_dist_notify((int32_t *)peer.addr + 3, -2, 0);
    assert_int_equal(cells[1][3], 3), assert_int_equal(cells[0][3], 0);
    tile_dist_notify((int32_t *)peer.addr + 3, 9, 1);
    assert_int_equal(cells[1][3], 9);
    tile_dist_wait wt = {.timeout_ms = 1000};
    assert_int_equal(tile_dist_wait_cell(&cells[1][3], 0, 9, &wt), 0);
    assert_int_equal(tile_dist_wait_cell(&cells[1][3], 1, 4, &wt), 0);
    assert_int_equal(wt.observed, 9);
}

static void test_dist_ops_wait_gives_up_after_its_bound_and_on_stop(void **s)
{
    (void)s;
    int32_t cell = 0;
    tile_dist_wait wt = {.timeout_ms = 150};
    uint64_t t0 = base_now_ns();
    assert_int_equal(tile_dist_wait_cell(&cell, 1, 1, &wt), 1);
    uint64_t ms = (base_now_ns() - t0) / 1000000;
    assert_true(ms >= 150 && ms < 2000);
    assert_int_equal(wt.observed, 0);
    assert_true(wt.unchanged_ms >= 150);
}

static int stop_now(void *arg) { return (void)arg, 1; }

static void test_dist_ops_wait_stops_when_the_run_failed(void **s)
{
    (void)s;
    int32_t cell = 0;
    tile_dist_wait wt = {.timeout_ms = -1, .stop = stop_now};
    assert_int_equal(tile_dist_wait_cell(&cell, 0, 1, &wt), 2);
}

/* A transport in this process (the am case without MPI): peers' copies are
 * reached only through tile_dist_apply, as a target applies a message. */
typedef struct fake_net {
    char *copies[2];
    size_t bytes;
    int puts, gets, notifies;
} fake_net;

static int fake_put(void *s, void *dom, int peer, const tile_dist_ref *dst, const void *data, int atomic, tile_dist_wait *wt,
                    char *msg, size_t cap)
{
    fake_net *n = s;
    (void)dom, (void)wt;
    n->puts++;
    return tile_dist_apply(n->copies[peer], n->bytes, dst, (void *)data, 1, atomic, msg, cap);
}

static int fake_get(void *s, void *dom, int peer, const tile_dist_ref *src, void *data, tile_dist_wait *wt, char *msg, size_t cap)
{
    fake_net *n = s;
    (void)dom, (void)wt;
    n->gets++;
    return tile_dist_apply(n->copies[peer], n->bytes, src, data, 0, 0, msg, cap);
}

static int fake_notify(void *s, void *dom, int peer, uint64_t offset, int32_t v, int set, tile_dist_wait *wt, char *msg, size_t cap)
{
    fake_net *n = s;
    (void)dom, (void)wt, (void)msg, (void)cap;
    n->notifies++;
    tile_dist_notify((int32_t *)(n->copies[peer] + offset), v, set);
    return 0;
}

static int fake_quiet(void *s, tile_dist_wait *wt, char *msg, size_t cap) { return (void)s, (void)wt, (void)msg, (void)cap, 0; }
static uint64_t fake_progress(void *s) { return (void)s, 0; }

static const tile_dist_remote fake_remote = {fake_put, fake_get, fake_notify, fake_quiet, fake_progress};

/* put, get, remote_load and remote_store on rank 0's view of a two-rank window; through_net: peer 1 unmapped. */
static void move_boxes(int through_net)
{
    memset(data, 0, sizeof data);
    char *bases[2] = {(char *)data[0], (char *)data[1]};
    fake_net net = {.copies = {bases[0], bases[1]}, .bytes = sizeof data[0]};
    if (through_net) bases[1] = NULL;
    tile_dist_win me0 = {.bases = bases, .rank = 0, .size = 2, .remote = &fake_remote, .session = &net};
    tile_dist_wait wt = {.timeout_ms = 1000};
    float local[N * N];
    for (int i = 0; i < N * N; i++) local[i] = (float)i;
    tile_tensor win = tensor(data[0], TILE_FP32, N, N), loc = tensor(local, TILE_FP32, N, N);
    char msg[200];
    const char *op = "pld.tensor.put";
    int64_t doff[2] = {2, 4}, soff[2] = {1, 0}, box[2] = {3, 5};
    assert_int_equal(tile_dist_xfer(&me0, &win, 1, doff, &loc, soff, box, 1, 0, &wt, op, msg, sizeof msg), 0); /* put */
    for (int r = 0; r < N; r++)
        for (int c = 0; c < N; c++) {
            int in = r >= 2 && r < 5 && c >= 4 && c < 9;
            assert_true(data[1][r * N + c] == (in ? local[(r - 1) * N + c - 4] : 0.0f));
            assert_true(data[0][r * N + c] == 0.0f);
        }
    float back[N * N] = {0};
    tile_tensor bk = tensor(back, TILE_FP32, N, N);
    assert_int_equal(tile_dist_xfer(&me0, &win, 1, doff, &bk, soff, box, 0, 0, &wt, op, msg, sizeof msg), 0); /* get */
    for (int r = 1; r < 4; r++)
        for (int c = 0; c < 5; c++) assert_true(back[r * N + c] == local[r * N + c]);
    float buf[8];
    tile t = {.data = buf, .dtype = TILE_FP32, .rank = 2, .shape = {2, 4}, .valid = {2, 4}};
    int64_t at[2] = {2, 4}, lbox[2] = {2, 4}, all[2] = {-1, -1};
    assert_int_equal(tile_dist_load(&me0, &win, 1, at, lbox, all, &t, &wt, "pld.tile.remote_load", msg, sizeof msg), 0);
    assert_true(buf[0] == local[N] && buf[5] == local[2 * N + 1]);
    int64_t to[2] = {10, 10};
    for (int k = 0; k < 2; k++) /* remote_store, atomic=Add */
        assert_int_equal(tile_dist_store_to(&me0, &win, 1, to, &t, 1, &wt, "pld.tile.remote_store", msg, sizeof msg), 0);
    assert_true(data[1][10 * N + 10] == 2 * buf[0] && data[1][11 * N + 13] == 2 * buf[7]);
    int32_t *cell = (int32_t *)&data[0][N * N - 1];
    assert_int_equal(tile_dist_signal(&me0, &win, 1, cell, 7, 1, &wt, "pld.system.notify", msg, sizeof msg), 0);
    int32_t got;
    memcpy(&got, &data[1][N * N - 1], 4);
    assert_int_equal(got, 7);
    assert_int_equal(net.puts + net.gets + net.notifies, through_net ? 6 : 0);
}

static void test_dist_ops_put_get_and_remote_tiles_move_boxes(void **s)
{
    (void)s;
    move_boxes(0);
}

static void test_dist_ops_unmapped_peers_move_the_same_boxes_through_the_transport(void **s)
{
    (void)s;
    move_boxes(1);
}

static void test_dist_ops_apply_refuses_a_box_outside_the_copy(void **s)
{
    (void)s;
    char copy[64], msg[200];
    float v[4] = {1, 2, 3, 4};
    tile_dist_ref r = {.offset = 56, .dtype = TILE_FP32, .rank = 1, .shape = {2}, .strides = {1}};
    assert_int_equal(tile_dist_apply(copy, sizeof copy, &r, v, 1, 0, msg, sizeof msg), 0); /* bytes 56..64: exactly the end */
    r.shape[0] = 3;
    assert_int_equal(tile_dist_apply(copy, sizeof copy, &r, v, 1, 0, msg, sizeof msg), -1);
    assert_string_equal(msg, "a remote access names bytes [56, +12) of a 64-byte window copy");
    r = (tile_dist_ref){.offset = 0, .dtype = TILE_FP32, .rank = 2, .shape = {2, 2}, .strides = {16, 1}};
    assert_int_equal(tile_dist_apply(copy, sizeof copy, &r, v, 0, 0, msg, sizeof msg), -1); /* row 1 at byte 64 */
    r.dtype = 5;
    r.strides[0] = 2;
    assert_int_equal(tile_dist_apply(copy, sizeof copy, &r, v, 0, 0, msg, sizeof msg), -1); /* no dtype 5 */
}

static void test_dist_ops_ref_bytes_count_the_packed_box_and_refuse_bad_references(void **s)
{
    (void)s;
    tile_dist_ref r = {.dtype = TILE_FP16, .rank = 3, .shape = {2, 3, 5}, .strides = {100, 10, 1}};
    assert_int_equal(tile_dist_ref_bytes(&r), 60); /* strides do not count: the box travels packed */
    r.shape[1] = 0;
    assert_int_equal(tile_dist_ref_bytes(&r), 0);
    r.shape[1] = -1;
    assert_int_equal(tile_dist_ref_bytes(&r), 0);
    r.shape[1] = 3, r.strides[2] = -1;
    assert_int_equal(tile_dist_ref_bytes(&r), 0);
    r.strides[2] = 1, r.dtype = 5;
    assert_int_equal(tile_dist_ref_bytes(&r), 0);
    r.dtype = TILE_FP32, r.rank = TILE_MAX_RANK + 1;
    assert_int_equal(tile_dist_ref_bytes(&r), 0);
    r = (tile_dist_ref){.dtype = TILE_FP32, .rank = 2, .shape = {INT64_MAX / 2, 4}, .strides = {0, 0}};
    assert_true(tile_dist_ref_bytes(&r) == SIZE_MAX);
}

static void test_dist_ops_bad_boxes_and_peers_fail_with_their_texts(void **s)
{
    (void)s;
    char *bases[1] = {(char *)data[0]};
    tile_dist_win w = {.bases = bases, .rank = 0, .size = 1};
    tile_tensor win = tensor(data[0], TILE_FP32, N, N), peer;
    char msg[200];
    int64_t off[2] = {14, 0}, box[2] = {4, 16};
    assert_int_equal(tile_dist_box(&win, off, box, "pld.tensor.put", "dst_buf", msg, sizeof msg), -1);
    assert_string_equal(msg, "pld.tensor.put box [14:18, 0:16] exceeds 'dst_buf' of shape [16, 16]");
    assert_int_equal(tile_dist_peer(&w, &win, 1, "pld.system.notify", &peer, msg, sizeof msg), -1);
    assert_string_equal(msg, "pld.system.notify peer 1 is outside the comm domain [0, 1)");
    assert_int_equal(tile_dist_peer(&w, &win, -1, "pld.tensor.get", &peer, msg, sizeof msg), -1);
    assert_string_equal(msg, "pld.tensor.get peer -1 is outside the comm domain [0, 1)");
    int64_t zero[2] = {0, 0}, one[2] = {1, 1};
    tile_tensor i16 = tensor(data[0], TILE_INT16, N, N);
    assert_int_equal(tile_dist_copy(&i16, zero, &i16, zero, one, 1, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "supports FP32, FP16, BF16, INT32, INT8, got INT16"));
}

/* ---- atomic adds: 4 threads x 1000 adds into neighbouring elements of one word ---- */

static _Alignas(64) unsigned char words[16];

typedef struct adder {
    tile_dtype dt;
    int elem;
} adder;

static void *add_many(void *p)
{
    const adder *a = p;
    size_t es = tile_dtype_size(a->dt);
    for (int k = 0; k < 1000; k++) {
        unsigned char v[4];
        if (a->dt == TILE_FP32) { float f = 1.0f; memcpy(v, &f, 4); }
        else if (a->dt == TILE_INT32) { int32_t i = 1; memcpy(v, &i, 4); }
        else if (a->dt == TILE_INT8) v[0] = 1;
        else { uint16_t h = a->dt == TILE_FP16 ? base_f32_to_f16(1.0f) : base_f32_to_bf16(1.0f); memcpy(v, &h, 2); }
        tile_dist_add(words + (size_t)a->elem * es, a->dt, v);
    }
    return NULL;
}

static void test_dist_ops_atomic_add_loses_nothing_per_dtype(void **s)
{
    (void)s;
    const tile_dtype dts[] = {TILE_FP32, TILE_INT32, TILE_FP16, TILE_BF16, TILE_INT8};
    for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++) {
        memset(words, 0, sizeof words);
        pthread_t th[4];
        adder a[4];
        for (int k = 0; k < 4; k++) a[k] = (adder){dts[d], k}, pthread_create(&th[k], NULL, add_many, &a[k]);
        for (int k = 0; k < 4; k++) pthread_join(th[k], NULL);
        for (int k = 0; k < 4; k++) {
            size_t es = tile_dtype_size(dts[d]);
            float got;
            uint16_t h;
            switch (dts[d]) {
            case TILE_FP32: memcpy(&got, words + k * es, 4); assert_true(got == 1000.0f); break;
            case TILE_INT32: { int32_t i; memcpy(&i, words + k * es, 4); assert_int_equal(i, 1000); break; }
            case TILE_INT8: assert_int_equal(words[k], 1000 % 256); break;
            case TILE_FP16: memcpy(&h, words + k * es, 2); assert_true(base_f16_to_f32(h) == 1000.0f); break;
            default: memcpy(&h, words + k * es, 2); assert_true(base_bf16_to_f32(h) == 256.0f); break; /* 256 + 1 rounds to 256 */
            }
        }
    }
}

/* ---- the barrier: two threads as domain ranks 0 and 1 ---- */

static _Alignas(64) int32_t sig[2][2];
static _Atomic int passed;

typedef struct barrier_rank {
    int rank, rounds;
    int rc;
} barrier_rank;

static void *barrier_run(void *p)
{
    barrier_rank *b = p;
    char *bases[2] = {(char *)sig[0], (char *)sig[1]};
    tile_dist_win w = {.bases = bases, .rank = b->rank, .size = 2};
    tile_tensor t = {.addr = (char *)sig[b->rank], .dtype = TILE_INT32, .rank = 1, .shape = {2}, .strides = {1}};
    char msg[200];
    for (int k = 0; k < b->rounds && !b->rc; k++) {
        tile_dist_wait wt = {.timeout_ms = 5000};
        int64_t src;
        b->rc = tile_dist_barrier(&w, &t, &wt, &src, msg, sizeof msg);
        atomic_fetch_add(&passed, 1);
    }
    return NULL;
}

static void test_dist_ops_barrier_lets_ranks_pass_together_and_leaves_zeros(void **s)
{
    (void)s;
    memset(sig, 0, sizeof sig);
    barrier_rank r[2] = {{0, 50, 0}, {1, 50, 0}};
    pthread_t th[2];
    for (int k = 0; k < 2; k++) pthread_create(&th[k], NULL, barrier_run, &r[k]);
    for (int k = 0; k < 2; k++) pthread_join(th[k], NULL);
    assert_int_equal(r[0].rc, 0), assert_int_equal(r[1].rc, 0);
    assert_int_equal(passed, 100);
    for (int k = 0; k < 2; k++) assert_int_equal(sig[k][0], 0), assert_int_equal(sig[k][1], 0);
    char *bases[1] = {(char *)sig[0]};
    tile_dist_win one = {.bases = bases, .rank = 0, .size = 1};
    tile_tensor t = {.addr = (char *)sig[0], .dtype = TILE_INT32, .rank = 1, .shape = {2}, .strides = {1}};
    tile_dist_wait wt = {.timeout_ms = 100};
    int64_t src;
    char msg[200];
    assert_int_equal(tile_dist_barrier(&one, &t, &wt, &src, msg, sizeof msg), -1);
    assert_string_equal(msg, "pld.tensor.barrier signal has 2 rows but the domain has 1 ranks");
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_dist_ops_notify_adds_and_sets_the_peers_cell),
    cmocka_unit_test(test_dist_ops_wait_gives_up_after_its_bound_and_on_stop),
    cmocka_unit_test(test_dist_ops_wait_stops_when_the_run_failed),
    cmocka_unit_test(test_dist_ops_put_get_and_remote_tiles_move_boxes),
    cmocka_unit_test(test_dist_ops_unmapped_peers_move_the_same_boxes_through_the_transport),
    cmocka_unit_test(test_dist_ops_apply_refuses_a_box_outside_the_copy),
    cmocka_unit_test(test_dist_ops_ref_bytes_count_the_packed_box_and_refuse_bad_references),
    cmocka_unit_test(test_dist_ops_bad_boxes_and_peers_fail_with_their_texts),
    cmocka_unit_test(test_dist_ops_atomic_add_loses_nothing_per_dtype),
    cmocka_unit_test(test_dist_ops_barrier_lets_ranks_pass_together_and_leaves_zeros),
};

PTO_TEST_MAIN(tests)
