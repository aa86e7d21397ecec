/*
 * collective.c - host collectives over a domain (DISTRIBUTED-SPEC §2.3):
 * barrier, broadcast, in-place allreduce, allgather, each a nonblocking
 * MPI_I* posted under the lock and completed by mpi_wait.
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

#include "mpi/mpi_int.h"

#include "base/clock.h"
#include "base/half.h"
#include "pto/compile.h"

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

/* Posts one nonblocking collective (under the lock) and waits for it. */
typedef int (*coll_post)(mpi_session *s, mpi_domain *d, const void *arg, MPI_Request *req);

static int coll_run(mpi_session *s, mpi_domain *d, const char *fn, const char *what, coll_post post,
                    const void *arg, pto_error *err)
{
    MPI_Request req = MPI_REQUEST_NULL;
    uint64_t start = base_now_ns();
    mpi_lock(s);
    int rc = post(s, d, arg, &req);
    mpi_unlock(s);
    if (rc != MPI_SUCCESS) return mpi_fail_rc(s, err, fn, rc);
    rc = mpi_wait(s, d, &req, 1, mpi_deadline(s), err);
    if (rc == -PTO_COMM_WAIT_TIMEOUT) return mpi_fail_timeout(s, err, what, d, start);
    return rc;
}

static int post_barrier(mpi_session *s, mpi_domain *d, const void *arg, MPI_Request *req)
{
    (void)s, (void)arg;
    return MPI_Ibarrier(d->comm, req);
}

int mpi_barrier(void *sv, void *dom, pto_error *err)
{
    mpi_session *s = sv;
    int rc = mpi_check_usable(s, err);
    if (rc < 0) return rc;
    /* Publish this rank's window stores before, see the peers' after. */
    atomic_thread_fence(memory_order_seq_cst);
    rc = coll_run(s, mpi_domain_of(s, dom), "MPI_Ibarrier", "barrier", post_barrier, NULL, err);
    atomic_thread_fence(memory_order_seq_cst);
    return rc;
}

typedef struct coll_chunk {
    void *buf;
    const void *send;
    int count, root;
    MPI_Datatype type;
    MPI_Op op;
    size_t stride; /* allgather: bytes of one rank's piece in recv */
} coll_chunk;

static int post_bcast(mpi_session *s, mpi_domain *d, const void *arg, MPI_Request *req)
{
    (void)s;
    const coll_chunk *c = arg;
    return MPI_Ibcast(c->buf, c->count, MPI_BYTE, c->root, d->comm, req);
}

int mpi_bcast(void *sv, void *dom, void *buf, size_t bytes, int root, pto_error *err)
{
    mpi_session *s = sv;
    int rc = mpi_check_usable(s, err);
    for (size_t off = 0; rc == 0 && off < bytes; off += CHUNK_BYTES) {
        size_t n = bytes - off < CHUNK_BYTES ? bytes - off : CHUNK_BYTES;
        coll_chunk c = {.buf = (char *)buf + off, .count = (int)n, .root = root};
        rc = coll_run(s, mpi_domain_of(s, dom), "MPI_Ibcast", "broadcast", post_bcast, &c, err);
    }
    return rc;
}

static int post_allreduce(mpi_session *s, mpi_domain *d, const void *arg, MPI_Request *req)
{
    (void)s;
    const coll_chunk *c = arg;
    return MPI_Iallreduce(MPI_IN_PLACE, c->buf, c->count, c->type, c->op, d->comm, req);
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

int mpi_allreduce(void *sv, void *dom, void *buf, size_t count, int dtype, int op, pto_error *err)
{
    mpi_session *s = sv;
    int rc = mpi_check_usable(s, err);
    if (rc < 0) return rc;
    coll_chunk c = {0};
    size_t elem = coll_reduce_types(s, dtype, op, &c.type, &c.op);
    if (!elem) {
        char details[128];
        snprintf(details, sizeof details, "allreduce of dtype %d with op %d: no such dtype or pld.ReduceOp", dtype,
                 op);
        return mpi_fail(s, err, PTO_INVALID_ARGS, "FATAL: Invalid Arguments! bad allreduce", details,
                        "this is a bug of the caller of the transport");
    }
    size_t per = CHUNK_BYTES / elem;
    for (size_t off = 0; rc == 0 && off < count; off += per) {
        c.buf = (char *)buf + off * elem;
        c.count = (int)(count - off < per ? count - off : per);
        rc = coll_run(s, mpi_domain_of(s, dom), "MPI_Iallreduce", "allreduce", post_allreduce, &c, err);
    }
    return rc;
}

/* One chunk of every rank's piece: rank i's lands at buf + i * stride. */
static int post_allgather(mpi_session *s, mpi_domain *d, const void *arg, MPI_Request *req)
{
    (void)s;
    const coll_chunk *c = arg;
    if ((size_t)c->count == c->stride)
        return MPI_Iallgather(c->send, c->count, MPI_BYTE, c->buf, c->count, MPI_BYTE, d->comm, req);
    MPI_Datatype piece = MPI_DATATYPE_NULL, spaced = MPI_DATATYPE_NULL;
    int rc = MPI_Type_contiguous(c->count, MPI_BYTE, &piece);
    if (rc == MPI_SUCCESS) rc = MPI_Type_create_resized(piece, 0, (MPI_Aint)c->stride, &spaced);
    if (rc == MPI_SUCCESS) rc = MPI_Type_commit(&spaced);
    if (rc == MPI_SUCCESS) rc = MPI_Iallgather(c->send, c->count, MPI_BYTE, c->buf, 1, spaced, d->comm, req);
    /* MPI keeps a type alive while a request uses it. */
    if (piece != MPI_DATATYPE_NULL) MPI_Type_free(&piece);
    if (spaced != MPI_DATATYPE_NULL) MPI_Type_free(&spaced);
    return rc;
}

int mpi_allgather(void *sv, void *dom, const void *send, void *recv, size_t bytes, pto_error *err)
{
    mpi_session *s = sv;
    int rc = mpi_check_usable(s, err);
    for (size_t off = 0; rc == 0 && off < bytes; off += CHUNK_BYTES) {
        size_t n = bytes - off < CHUNK_BYTES ? bytes - off : CHUNK_BYTES;
        coll_chunk c = {.send = (const char *)send + off, .buf = (char *)recv + off, .count = (int)n,
                        .stride = bytes};
        rc = coll_run(s, mpi_domain_of(s, dom), "MPI_Iallgather", "allgather", post_allgather, &c, err);
    }
    return rc;
}
