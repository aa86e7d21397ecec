/*
 * test_am.c - the am backend's rules (DISTRIBUTED-SPEC §2.3-§2.4), one
 * function per rule, on every rank of a world window, under
 * PTO_COMM_BACKEND=am (run.py also runs it over TCP loopback):
 * only the own copy is mapped; puts land before the notify behind them, in
 * order; gets return the peer's box; adds from every rank lose nothing;
 * a 1 MiB put arrives whole; a target busy outside MPI is served by its
 * progress thread.
 */
#include <time.h>

#include "base/half.h"
#include "tile/dist_ops.h"
#include "comm_test.h"

enum { COLS = 32, ROWS = 64 };                     /* the FP32 matrix at the window's start */
enum { CELLS = ROWS * COLS * 4, BIG = 1 << 20 };   /* then INT32 cells, then a 1 MiB area */
enum { WIN_BYTES = CELLS + 256 + 2 * BIG };

static char *mine; /* this rank's copy */

static uint64_t progress_counter(void *arg) { return (void)arg, ops->remote->progress(S); }
static tile_dist_wait bound(void) { return (tile_dist_wait){.timeout_ms = 10000, .progress = progress_counter}; }

static int32_t *cell(char *copy, int i) { return (int32_t *)(copy + CELLS) + i; }

/* A box of the FP32 matrix: rows [r0, r0 + n) of column c (a strided box). */
static tile_dist_ref column(int r0, int n, int c)
{
    return (tile_dist_ref){.offset = (uint64_t)(r0 * COLS + c) * 4, .dtype = TILE_FP32, .rank = 2, .shape = {n, 1}, .strides = {COLS, 1}};
}

static void test_am_domain_maps_only_the_own_copy_zeroed(void **win)
{
    const char *rule = "am_domain_maps_only_the_own_copy_zeroed";
    int all[64];
    for (int i = 0; i < P; i++) all[i] = i;
    void *d, *bases[64];
    const char *backend;
    OK(rule, ops->domain(S, all, P, &d, &backend, E));
    CHECK(rule, strcmp(backend, "am") == 0, "backend %s", backend);
    CHECK(rule, ops->remote != NULL, "no remote table");
    OK(rule, ops->win_alloc(S, NULL, WIN_BYTES, win, bases, E));
    for (int p = 0; p < P; p++) CHECK(rule, (bases[p] != NULL) == (p == R), "peer %d mapped: %p", p, bases[p]);
    mine = bases[R];
    for (int i = 0; i < WIN_BYTES; i++) CHECK(rule, mine[i] == 0, "byte %d is %d", i, mine[i]);
    OK(rule, ops->barrier(S, NULL, E)); /* no peer writes into this copy before it was read */
    pass(rule);
}

/* 64 one-element puts down column R of the next rank's matrix, the last 8 overwriting
 * earlier ones, then one notify: the next rank waits for it and sees every put, the later
 * value where they overlap (O1, O3). */
static void test_am_puts_land_in_order_before_the_notify_behind_them(void)
{
    const char *rule = "am_puts_land_in_order_before_the_notify_behind_them";
    int next = (R + 1) % P, prev = (R + P - 1) % P;
    char msg[256];
    tile_dist_wait wt = bound();
    for (int k = 0; k < ROWS + 8; k++) {
        float v = (float)(1000 * R + k);
        tile_dist_ref r = column(k % ROWS, 1, R);
        CHECK(rule, ops->remote->put(S, NULL, next, &r, &v, 0, &wt, msg, sizeof msg) == 0, "put %d: %s", k, msg);
    }
    CHECK(rule, ops->remote->notify(S, NULL, next, (uint64_t)CELLS, 1, 0, &wt, msg, sizeof msg) == 0, "notify: %s", msg);
    CHECK(rule, tile_dist_wait_cell(cell(mine, 0), 0, 1, &wt) == 0, "notify from rank %d never came", prev);
    const float *m = (const float *)mine;
    for (int k = 0; k < ROWS; k++) {
        float want = (float)(1000 * prev + (k < 8 ? ROWS + k : k));
        CHECK(rule, m[k * COLS + prev] == want, "row %d of column %d is %g, not %g", k, prev, m[k * COLS + prev], want);
    }
    CHECK(rule, ops->remote->quiet(S, &wt, msg, sizeof msg) == 0, "quiet: %s", msg);
    pass(rule);
}

/* Every rank gets rows [8, 40) of column p from every peer p: that peer's prev's puts. */
static void test_am_get_returns_the_peers_box(void)
{
    const char *rule = "am_get_returns_the_peers_box";
    OK(rule, ops->barrier(S, NULL, E));
    char msg[256];
    tile_dist_wait wt = bound();
    for (int p = 0; p < P; p++) {
        if (p == R) continue;
        int src = (p + P - 1) % P;
        float got[32];
        tile_dist_ref r = column(8, 32, src);
        CHECK(rule, ops->remote->get(S, NULL, p, &r, got, &wt, msg, sizeof msg) == 0, "get from %d: %s", p, msg);
        for (int k = 0; k < 32; k++) CHECK(rule, got[k] == (float)(1000 * src + 8 + k), "element %d from %d is %g", k, p, got[k]);
    }
    pass(rule);
}

/* Every rank adds 1 into FP32, FP16 and INT8 elements of rank 0, 100 times each. */
static void test_am_adds_from_every_rank_lose_nothing(void)
{
    const char *rule = "am_adds_from_every_rank_lose_nothing";
    char msg[256];
    tile_dist_wait wt = bound();
    float one = 1.0f;
    uint16_t h = base_f32_to_f16(1.0f);
    int8_t i8 = 1;
    const struct { int dtype; const void *v; uint64_t at; } adds[] = {
        {TILE_FP32, &one, CELLS + 64}, {TILE_FP16, &h, CELLS + 70}, {TILE_INT8, &i8, CELLS + 73}};
    for (int k = 0; k < 100; k++)
        for (int a = 0; a < 3; a++) {
            tile_dist_ref r = {.offset = adds[a].at, .dtype = adds[a].dtype, .rank = 1, .shape = {1}, .strides = {1}};
            if (R == 0) tile_dist_add(mine + adds[a].at, (tile_dtype)adds[a].dtype, adds[a].v);
            else CHECK(rule, ops->remote->put(S, NULL, 0, &r, adds[a].v, 1, &wt, msg, sizeof msg) == 0, "add %d: %s", k, msg);
        }
    CHECK(rule, ops->remote->quiet(S, &wt, msg, sizeof msg) == 0, "quiet: %s", msg);
    OK(rule, ops->barrier(S, NULL, E));
    if (R == 0) {
        float f;
        uint16_t g;
        memcpy(&f, mine + CELLS + 64, 4);
        memcpy(&g, mine + CELLS + 70, 2);
        CHECK(rule, f == 100.0f * P, "FP32 sum %g", f);
        CHECK(rule, base_f16_to_f32(g) == 100.0f * P, "FP16 sum %g", base_f16_to_f32(g));
        CHECK(rule, mine[CELLS + 73] == (char)(100 * P), "INT8 sum %d", mine[CELLS + 73]);
    }
    pass(rule);
}

/* 1 MiB into the next rank's big area, then a notify: it arrives whole. */
static void test_am_put_of_1_mib_arrives_whole(void)
{
    const char *rule = "am_put_of_1_mib_arrives_whole";
    int next = (R + 1) % P, prev = (R + P - 1) % P;
    char msg[256];
    tile_dist_wait wt = bound();
    int32_t *data = malloc(BIG);
    CHECK(rule, data != NULL, "no memory");
    for (int i = 0; i < BIG / 4; i++) data[i] = R * 7 + i;
    tile_dist_ref r = {.offset = CELLS + 256 + BIG, .dtype = TILE_INT32, .rank = 1, .shape = {BIG / 4}, .strides = {1}};
    CHECK(rule, ops->remote->put(S, NULL, next, &r, data, 0, &wt, msg, sizeof msg) == 0, "put: %s", msg);
    CHECK(rule, ops->remote->notify(S, NULL, next, (uint64_t)CELLS + 4, 5, 1, &wt, msg, sizeof msg) == 0, "notify: %s", msg);
    CHECK(rule, tile_dist_wait_cell(cell(mine, 1), 0, 5, &wt) == 0, "notify from rank %d never came", prev);
    const int32_t *got = (const int32_t *)(mine + CELLS + 256 + BIG);
    for (int i = 0; i < BIG / 4; i++) CHECK(rule, got[i] == prev * 7 + i, "element %d is %d", i, got[i]);
    CHECK(rule, ops->remote->quiet(S, &wt, msg, sizeof msg) == 0, "quiet: %s", msg);
    free(data);
    pass(rule);
}

/* Rank 1 sleeps 600 ms outside MPI; rank 0's get from it, 100 ms in, returns long before rank 1 wakes. */
static void test_am_busy_target_is_served_by_its_progress_thread(void)
{
    const char *rule = "am_busy_target_is_served_by_its_progress_thread";
    OK(rule, ops->barrier(S, NULL, E));
    if (R == 1) nanosleep(&(struct timespec){0, 600000000}, NULL);
    if (R == 0) {
        nanosleep(&(struct timespec){0, 100000000}, NULL); /* rank 1 has left the barrier's polling by now */
        char msg[256];
        tile_dist_wait wt = bound();
        float got[4];
        tile_dist_ref r = column(8, 4, 0);
        double t0 = secs();
        CHECK(rule, ops->remote->get(S, NULL, 1, &r, got, &wt, msg, sizeof msg) == 0, "get: %s", msg);
        double ms = (secs() - t0) * 1e3;
        CHECK(rule, ms < 300, "the get took %.0f ms while rank 1 slept 600", ms);
    }
    pass(rule);
}

int main(void)
{
    if (attach()) return 1;
    void *win;
    test_am_domain_maps_only_the_own_copy_zeroed(&win);
    test_am_puts_land_in_order_before_the_notify_behind_them();
    test_am_get_returns_the_peers_box();
    test_am_adds_from_every_rank_lose_nothing();
    test_am_put_of_1_mib_arrives_whole();
    test_am_busy_target_is_served_by_its_progress_thread();
    pto_error e;
    if (ops->win_free(S, NULL, win, &e) < 0) {
        printf("FAIL win_free: %s\n", e.message);
        return 1;
    }
    return 0;
}
