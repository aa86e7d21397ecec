/*
 * b2t_tiles.c - B2t's tiles of one allocation (see bench.h): the tile
 * geometry, the pool schedule, and the empty task body that counts itself.
 *
 * Invariants: the B2T_POOL tiles of a shape are pairwise disjoint; scope k
 * takes tiles [first, first + scope) and waits for every earlier task
 * first whenever that range starts over at tile 0.  The count is kept per
 * thread, each on its own cache line, by its one writer (relaxed load and
 * store, no read-modify-write): counting adds no cross-core traffic.
 * b2t_ran reads the counters after the system's own completion wait, which
 * orders every task's count before it.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"

enum { B2T_SLICE = 16, B2T_QUARTER = B2T_DIM / 4, B2T_COUNTERS = 64 };

const char *b2t_shape_name(b2t_shape s)
{
    return s == B2T_SLICES ? "slices" : s == B2T_ROWS ? "rows" : "cols";
}

float *b2t_alloc(b2t_shape s)
{
    size_t n = s == B2T_SLICES ? (size_t)B2T_POOL * B2T_SLICE : (size_t)B2T_DIM * B2T_DIM;
    return bench_alloc(n * sizeof(float));
}

b2t_tile b2t_tile_at(b2t_shape s, int i)
{
    int64_t line = i % B2T_DIM, quarter = i / B2T_DIM;
    switch (s) {
    case B2T_SLICES: return (b2t_tile){(int64_t)i * B2T_SLICE, 1, B2T_SLICE};
    case B2T_ROWS: return (b2t_tile){line * B2T_DIM + quarter * B2T_QUARTER, 1, B2T_QUARTER};
    default: return (b2t_tile){quarter * B2T_QUARTER * B2T_DIM + line, B2T_QUARTER, 1};
    }
}

int b2t_scope_start(const b2t_spec *p, int k, int *first)
{
    int per_pool = B2T_POOL / p->scope;
    *first = (k % per_pool) * p->scope;
    return k > 0 && k % per_pool == 0;
}

static struct {
    _Alignas(64) _Atomic long n; /* written by its thread only */
} b2t_count[B2T_COUNTERS];
static _Atomic int b2t_threads;            /* counters handed out */
static _Thread_local int b2t_mine = -1;    /* this thread's counter */

void b2t_task(void)
{
    if (b2t_mine < 0) {
        b2t_mine = atomic_fetch_add(&b2t_threads, 1);
        if (b2t_mine >= B2T_COUNTERS) {
            fprintf(stderr, "bench: B2t: more than %d task threads\n", B2T_COUNTERS);
            exit(3);
        }
    }
    _Atomic long *c = &b2t_count[b2t_mine].n;
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1, memory_order_relaxed);
}

long b2t_ran(void)
{
    long sum = 0;
    int used = atomic_load(&b2t_threads);
    for (int i = 0; i < used && i < B2T_COUNTERS; i++) sum += atomic_exchange(&b2t_count[i].n, 0);
    return sum;
}
