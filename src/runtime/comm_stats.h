/*
 * comm_stats.h - one rank's communication counters of one distributed call
 * and their file <dir>/comm_stats.json (DISTRIBUTED-SPEC §2.7).
 *
 * Invariants: kernels count from any worker with one relaxed atomic add
 * per counter and operation, and only when the call has stats (the hooks
 * test one pointer); the host interpreter alone sets the collectives, the
 * window bytes and the phase times, on the orchestrating thread; the file
 * is written once per call, after the windows are released, through a
 * temporary file and a rename, so a reader never sees half a file.
 */
#ifndef RT_COMM_STATS_H
#define RT_COMM_STATS_H

#include <stdatomic.h>
#include <stdint.h>

#include "pto/runtime.h"

struct rt_comm_call;

/* Window traffic a kernel starts, counted per target (or source) peer. */
typedef enum rt_cs_kind { RT_CS_PUT, RT_CS_ACC, RT_CS_GET, RT_CS_REMOTE_LOAD, RT_CS_REMOTE_STORE, RT_CS_NKINDS } rt_cs_kind;

/* Host collectives, in the order of the compiler's CC_LO_COLL_LIST. */
typedef enum rt_cs_coll {
    RT_CS_BARRIER, RT_CS_ALLREDUCE, RT_CS_BROADCAST, RT_CS_ALLGATHER, RT_CS_REDUCE_SCATTER, RT_CS_ALL_TO_ALL, RT_CS_NCOLLS
} rt_cs_coll;

/* The steps of §2.1 a call's time is split into. */
typedef enum rt_cs_phase {
    RT_CS_ENTRY_CHECK, RT_CS_DOMAINS, RT_CS_WINDOW_ALLOC, RT_CS_INPUTS, RT_CS_RUN, RT_CS_RESULTS, RT_CS_RELEASE, RT_CS_NPHASES
} rt_cs_phase;

#define RT_CS_MAX_PEERS 64 /* world ranks (rt_comm_domain's limit) */

typedef struct rt_comm_stats {
    _Atomic uint64_t ops[RT_CS_MAX_PEERS][RT_CS_NKINDS], bytes[RT_CS_MAX_PEERS][RT_CS_NKINDS];
    _Atomic uint64_t notifies[RT_CS_MAX_PEERS];
    _Atomic uint64_t waits, wait_ns;
    uint64_t coll_ops[RT_CS_NCOLLS], coll_bytes[RT_CS_NCOLLS];
    uint64_t window_bytes;
    uint64_t phase_ns[RT_CS_NPHASES];
} rt_comm_stats;

/* A kernel's access of kind to world rank peer, bytes long. */
static inline void rt_cs_access(rt_comm_stats *s, int peer, rt_cs_kind kind, uint64_t bytes)
{
    atomic_fetch_add_explicit(&s->ops[peer][kind], 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->bytes[peer][kind], bytes, memory_order_relaxed);
}

static inline void rt_cs_notify(rt_comm_stats *s, int peer) { atomic_fetch_add_explicit(&s->notifies[peer], 1, memory_order_relaxed); }

/* A blocking wait (pld.system.wait, the in-kernel barrier) that took ns. */
static inline void rt_cs_wait(rt_comm_stats *s, uint64_t ns)
{
    atomic_fetch_add_explicit(&s->waits, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->wait_ns, ns, memory_order_relaxed);
}

/* Writes <dir>/comm_stats.json of call c (its domains give "backends"):
 * world ranks 0..world-1 each get a per_peer entry.  A file that cannot be
 * written is a warning on rt (PTO_WARNING_STATS_NOT_WRITTEN), not an error. */
void rt_cs_write(pto_runtime *rt, const rt_comm_stats *s, const struct rt_comm_call *c, const char *dir, int rank, int world);

#endif
