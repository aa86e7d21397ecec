/*
 * collective.c - host collectives over a domain (DISTRIBUTED-SPEC §2.3):
 * barrier, broadcast, in-place allreduce (reduce_scatter too), allgather and
 * all_to_all, each nonblocking MPI_I* requests posted under the lock
 * (mpi_coll_post) and tested with the rounds of mpi_wait (mpi_coll_test):
 * by the tester of the DEFERRED comm task that runs it (D9), or in a loop
 * here for the transport's blocking calls (the call's entry and exit).
 *
 * Large buffers go in chunks of at most CHUNK_BYTES (MPI counts are int);
 * every rank cuts the same chunks, so they match.  FP16 and BF16 reduce
 * through our own MPI_Ops on two 2-byte types (MPI has no 16-bit float):
 * each element is widened to FP32, combined, and rounded back, so a Sum of
 * integer-valued data is exact while it fits the format.  BOOL reduces as
 * logic: Sum and Max are OR, Min and Prod AND.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpi/mpi_int.h"

#include "base/backoff.h"
#include "base/clock.h"
#include "base/half.h"
#include "pto/compile.h"
#include "runtime/comm_stats.h"

#define CHUNK_BYTES ((size_t)64 << 20)

enum { OP_SUM, OP_MAX, OP_MIN, OP_PROD }; /* pld.ReduceOp */

/* The types the 16-bit ops tell apart (MPI_Op functions get no context). */
static MPI_Datatype half_bf16_type;

static float half_combine(int op, float a, float b)
{
    switch (op) {
    case OP_SUM: return a + b;
    case OP_MAX: return a > b || a != a ? a : b; /* NaN wins, as torch's max */
    case OP_MIN: return a < b || a != a ? a : b;
    default: return a * b;
    }
}

static void half_apply(int op, const void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const uint16_t *a = in;
    uint16_t *b = inout;
    int bf16 = *dt == half_bf16_type;
    for (int i = 0; i < *len; i++) {
        float x = bf16 ? base_bf16_to_f32(a[i]) : base_f16_to_f32(a[i]);
        float y = bf16 ? base_bf16_to_f32(b[i]) : base_f16_to_f32(b[i]);
        float r = half_combine(op, x, y);
        b[i] = bf16 ? base_f32_to_bf16(r) : base_f32_to_f16(r);
    }
}

static void half_sum(void *in, void *inout, int *len, MPI_Datatype *dt) { half_apply(OP_SUM, in, inout, len, dt); }
static void half_max(void *in, void *inout, int *len, MPI_Datatype *dt) { half_apply(OP_MAX, in, inout, len, dt); }
static void half_min(void *in, void *inout, int *len, MPI_Datatype *dt) { half_apply(OP_MIN, in, inout, len, dt); }
static void half_prod(void *in, void *inout, int *len, MPI_Datatype *dt) { half_apply(OP_PROD, in, inout, len, dt); }

int mpi_coll_init(mpi_session *s)
{
    MPI_User_function *fns[4] = {half_sum, half_max, half_min, half_prod};
    int rc = MPI_Type_contiguous(2, MPI_BYTE, &s->f16);
    if (rc == MPI_SUCCESS) rc = MPI_Type_commit(&s->f16);
    if (rc == MPI_SUCCESS) rc = MPI_Type_contiguous(2, MPI_BYTE, &s->bf16);
    if (rc == MPI_SUCCESS) rc = MPI_Type_commit(&s->bf16);
    for (int i = 0; i < 4 && rc == MPI_SUCCESS; i++) rc = MPI_Op_create(fns[i], 1, &s->half_ops[i]);
    half_bf16_type = s->bf16;
    return rc;
}

void mpi_coll_fini(mpi_session *s)
{
    for (int i = 0; i < 4; i++) MPI_Op_free(&s->half_ops[i]);
    MPI_Type_free(&s->f16);
    MPI_Type_free(&s->bf16);
}

/* The MPI type and op of (dtype, op), and the element size; 0 when unknown. */
static size_t coll_reduce_types(const mpi_session *s, int dtype, int op, MPI_Datatype *type, MPI_Op *mop)
{
    static const MPI_Op plain[4] = {MPI_SUM, MPI_MAX, MPI_MIN, MPI_PROD};
    static const MPI_Op logic[4] = {MPI_LOR, MPI_LOR, MPI_LAND, MPI_LAND};
    if (op < OP_SUM || op > OP_PROD) return 0;
    *mop = plain[op];
    switch (dtype) {
    case PTO_DTYPE_FP32: *type = MPI_FLOAT; return 4;
    case PTO_DTYPE_FP16: *type = s->f16, *mop = s->half_ops[op]; return 2;
    case PTO_DTYPE_BF16: *type = s->bf16, *mop = s->half_ops[op]; return 2;
    case PTO_DTYPE_INT32: *type = MPI_INT32_T; return 4;
    case PTO_DTYPE_INT8: *type = MPI_INT8_T; return 1;
    case PTO_DTYPE_INDEX:
    case PTO_DTYPE_INT64: *type = MPI_INT64_T; return 8;
    case PTO_DTYPE_BOOL: *type = MPI_UINT8_T, *mop = logic[op]; return 1;
    case PTO_DTYPE_INT16: *type = MPI_INT16_T; return 2;
    case PTO_DTYPE_UINT8: *type = MPI_UINT8_T; return 1;
    case PTO_DTYPE_UINT16: *type = MPI_UINT16_T; return 2;
    case PTO_DTYPE_UINT32: *type = MPI_UINT32_T; return 4;
    default: return 0;
    }
}

/* A posted collective: its chunks' requests, tested together. */
typedef struct coll_req {
    mpi_domain *d;
    int op, n;
    uint64_t start;
    MPI_Request reqs[];
} coll_req;

static const char *const coll_names[] = {"barrier", "allreduce", "broadcast", "allgather", "reduce_scatter", "all_to_all"};

/* count bytes per rank, rank i's at i * stride: a type of extent stride (the caller frees it). */
static int coll_spaced(int count, size_t stride, MPI_Datatype *spaced)
{
    MPI_Datatype piece = MPI_DATATYPE_NULL;
    int rc = MPI_Type_contiguous(count, MPI_BYTE, &piece);
    if (rc == MPI_SUCCESS) rc = MPI_Type_create_resized(piece, 0, (MPI_Aint)stride, spaced);
    if (rc == MPI_SUCCESS) rc = MPI_Type_commit(spaced);
    if (piece != MPI_DATATYPE_NULL) MPI_Type_free(&piece);
    return rc;
}

/* Chunk i (of CHUNK_BYTES, or of elements for a reduction) of c, under the lock. */
static int coll_post_chunk(const coll_req *q, const rt_comm_coll *c, size_t i, MPI_Datatype type, MPI_Op op,
                           size_t elem, MPI_Request *req)
{
    MPI_Comm comm = q->d->comm;
    size_t per = elem ? CHUNK_BYTES / elem : CHUNK_BYTES, off = i * per;
    size_t total = elem ? c->bytes / elem : c->op == RT_CS_ALL_TO_ALL ? c->bytes / (size_t)q->d->n : c->bytes;
    int count = (int)(total - off < per ? total - off : per);
    char *data = c->data;
    const char *stage = c->stage;
    switch (c->op) {
    case RT_CS_BARRIER: return MPI_Ibarrier(comm, req);
    case RT_CS_BROADCAST: return MPI_Ibcast(data + off, count, MPI_BYTE, c->root, comm, req);
    case RT_CS_ALLREDUCE:
    case RT_CS_REDUCE_SCATTER: /* every chunk reduced, data[me] among them */
        return MPI_Iallreduce(MPI_IN_PLACE, data + off * elem, count, type, op, comm, req);
    default: { /* allgather: rank i's stage lands at data + i * bytes; all_to_all: rank i's piece of every stage */
        size_t stride = c->op == RT_CS_ALLGATHER ? c->bytes : total;
        if ((size_t)count == stride) {
            if (c->op == RT_CS_ALLGATHER) return MPI_Iallgather(stage, count, MPI_BYTE, data, count, MPI_BYTE, comm, req);
            return MPI_Ialltoall(stage, count, MPI_BYTE, data, count, MPI_BYTE, comm, req);
        }
        MPI_Datatype spaced = MPI_DATATYPE_NULL;
        int rc = coll_spaced(count, stride, &spaced);
        if (rc == MPI_SUCCESS && c->op == RT_CS_ALLGATHER) rc = MPI_Iallgather(stage + off, count, MPI_BYTE, data + off, 1, spaced, comm, req);
        else if (rc == MPI_SUCCESS) rc = MPI_Ialltoall(stage + off, 1, spaced, data + off, 1, spaced, comm, req);
        if (spaced != MPI_DATATYPE_NULL) MPI_Type_free(&spaced); /* MPI keeps a type alive while a request uses it */
        return rc;
    }
    }
}

int mpi_coll_post(void *sv, void *dom, const rt_comm_coll *c, void **out, pto_error *err)
{
    mpi_session *s = sv;
    *out = NULL;
    int rc = mpi_check_usable(s, err);
    if (rc < 0) return rc;
    mpi_domain *d = mpi_domain_of(s, dom);
    MPI_Datatype type = MPI_DATATYPE_NULL;
    MPI_Op op = MPI_OP_NULL;
    size_t elem = 0, n = 1;
    if (c->op == RT_CS_ALLREDUCE || c->op == RT_CS_REDUCE_SCATTER) {
        if (!(elem = coll_reduce_types(s, c->dtype, c->reduce, &type, &op))) {
            char details[128];
            snprintf(details, sizeof details, "allreduce of dtype %d with op %d: no such dtype or pld.ReduceOp", c->dtype, c->reduce);
            return mpi_fail(s, err, PTO_INVALID_ARGS, "FATAL: Invalid Arguments! bad allreduce", details,
                            "this is a bug of the caller of the transport");
        }
        size_t count = c->bytes / elem, per = CHUNK_BYTES / elem;
        n = (count + per - 1) / per;
    } else if (c->op != RT_CS_BARRIER) {
        size_t total = c->op == RT_CS_ALL_TO_ALL ? c->bytes / (size_t)d->n : c->bytes;
        n = (total + CHUNK_BYTES - 1) / CHUNK_BYTES;
    }
    if (!n) return 0; /* nothing to move */
    coll_req *q = malloc(sizeof *q + n * sizeof(MPI_Request));
    if (!q) return mpi_fail(s, err, PTO_OUT_OF_MEMORY, "FATAL: Out of Memory!", "no memory for a host collective's requests", "free host memory");
    *q = (coll_req){.d = d, .op = c->op, .n = (int)n, .start = base_now_ns()};
    /* A barrier publishes this rank's window stores before; coll_test acquires the peers' after. */
    if (c->op == RT_CS_BARRIER) atomic_thread_fence(memory_order_seq_cst);
    static const char *const fns[] = {"MPI_Ibarrier", "MPI_Iallreduce", "MPI_Ibcast", "MPI_Iallgather", "MPI_Iallreduce", "MPI_Ialltoall"};
    mpi_lock(s);
    for (size_t i = 0; i < n && rc == MPI_SUCCESS; i++) rc = coll_post_chunk(q, c, i, type, op, elem, &q->reqs[i]);
    mpi_unlock(s);
    if (rc != MPI_SUCCESS) {
        free(q); /* requests posted before stay with MPI; the session is lost */
        return mpi_fail_rc(s, err, fns[c->op], rc);
    }
    *out = q;
    return 0;
}

int mpi_coll_test(void *sv, void *rv, pto_defer_why why, pto_error *err)
{
    mpi_session *s = sv;
    coll_req *q = rv;
    int rc = why == PTO_DEFER_ABANDON ? 1 : mpi_test_round(s, q->d, q->reqs, q->n, why == PTO_DEFER_EXPIRED, err);
    if (rc == -PTO_COMM_WAIT_TIMEOUT) rc = mpi_fail_timeout(s, err, coll_names[q->op], q->d, q->start);
    if (rc == 1 && q->op == RT_CS_BARRIER) atomic_thread_fence(memory_order_seq_cst);
    if (rc) free(q);
    return rc;
}

/* Posts c and waits for it (bounded by the entry timeout). */
static int coll_block(void *sv, void *dom, const rt_comm_coll *c, pto_error *err)
{
    mpi_session *s = sv;
    void *q = NULL;
    int rc = mpi_coll_post(s, dom, c, &q, err);
    if (rc || !q) return rc;
    base_backoff b = base_backoff_begin();
    uint64_t deadline = mpi_deadline(s);
    for (;;) {
        uint64_t now = base_now_ns();
        rc = mpi_coll_test(s, q, now >= deadline ? PTO_DEFER_EXPIRED : PTO_DEFER_POLL, err);
        if (rc) return rc == 1 ? 0 : rc;
        base_backoff_pause(&b, now);
    }
}

int mpi_barrier(void *s, void *dom, pto_error *err) { return coll_block(s, dom, &(rt_comm_coll){.op = RT_CS_BARRIER}, err); }

int mpi_bcast(void *s, void *dom, void *buf, size_t bytes, int root, pto_error *err)
{
    return coll_block(s, dom, &(rt_comm_coll){.op = RT_CS_BROADCAST, .data = buf, .bytes = bytes, .root = root}, err);
}

int mpi_allreduce(void *sv, void *dom, void *buf, size_t count, int dtype, int op, pto_error *err)
{
    mpi_session *s = sv;
    MPI_Datatype type;
    MPI_Op mop;
    size_t elem = coll_reduce_types(s, dtype, op, &type, &mop);
    rt_comm_coll c = {.op = RT_CS_ALLREDUCE, .data = buf, .bytes = count * (elem ? elem : 1), .dtype = dtype, .reduce = op};
    return coll_block(s, dom, &c, err);
}

int mpi_allgather(void *s, void *dom, const void *send, void *recv, size_t bytes, pto_error *err)
{
    return coll_block(s, dom, &(rt_comm_coll){.op = RT_CS_ALLGATHER, .data = recv, .stage = send, .bytes = bytes}, err);
}
