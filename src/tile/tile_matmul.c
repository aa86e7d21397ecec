/*
 * tile_matmul.c - pl.matmul: [M, K] @ [K, N] -> [M, N].
 *
 * Over the valid regions: M = lhs valid rows, N = rhs valid columns, K =
 * the smaller of the two valid inner extents (the rest is zero anyway, and
 * skipping it keeps 0 * inf out).  FP32 goes straight to cblas_sgemm on
 * the tile buffers; FP16/BF16 widen into scratch FP32 first; INT8 and
 * UINT8 accumulate in INT32 (wrapping; exact while |sum| < 2^31) with an
 * i-k-j loop that vectorizes.
 * OpenBLAS runs single-threaded: each runtime worker is one core.
 *
 * A batched product (rank > 2, tensor-level pl.matmul) is one GEMM per
 * matrix of the result, the operands' leading axes broadcast as numpy's.
 *
 * pl.matmul_acc adds the product into the accumulator in place (the
 * GEMM's beta = 1, the INT8 loop without its clearing), over the
 * intersection of the accumulator's valid region and the product's, as
 * pl.add would; with init_cond true it is pl.matmul into the accumulator.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "base/half.h"
#include "tile/tile_int.h"

static pthread_once_t mm_once = PTHREAD_ONCE_INIT;
static void mm_single_thread(void) { openblas_set_num_threads(1); }

static float *mm_scratch(tile_scratch *s, size_t bytes)
{
    if (s->cap < bytes) {
        void *p = realloc(s->buf, bytes);
        if (!p) return NULL;
        s->buf = p, s->cap = bytes;
    }
    return s->buf;
}

/* dst[:M, :N] = beta * dst[:M, :N] + a[:M, :K] @ b[:K, :N] (beta 0 or 1), then
 * zero outside [M, N]; dst's valid region becomes [M, N]. */
static int mm_run(tile *dst, const tile *a, const tile *b, int64_t M, int64_t N, int64_t K, int beta, tile_scratch *s,
                  const char *op, char *msg, size_t cap)
{
    tile_dtype dt = (tile_dtype)a->dtype;
    int64_t lda = a->shape[1], ldb = b->shape[1], ldc = dst->shape[1];
    dst->valid[0] = M, dst->valid[1] = N;
    if (M == 0 || N == 0) {
        memset(dst->data, 0, (size_t)tile_bytes(dst));
        return 0;
    }
#define MM_INT_LOOP(T)                                                                          \
    do {                                                                                        \
        const T *A = a->data, *B = b->data;                                                     \
        int32_t *C = dst->data;                                                                 \
        for (int64_t i = 0; i < M; i++) {                                                       \
            uint32_t *c = (uint32_t *)(C + i * ldc);                                            \
            if (!beta) memset(c, 0, (size_t)N * 4);                                             \
            for (int64_t k = 0; k < K; k++) {                                                   \
                uint32_t x = (uint32_t)(int32_t)A[i * lda + k];                                 \
                const T *brow = B + k * ldb;                                                    \
                for (int64_t j = 0; j < N; j++) c[j] += x * (uint32_t)(int32_t)brow[j];         \
            }                                                                                   \
        }                                                                                       \
        tile_clear_outside(dst);                                                                \
        return 0;                                                                               \
    } while (0)
    if (dt == TILE_INT8) MM_INT_LOOP(int8_t);
    if (dt == TILE_UINT8) MM_INT_LOOP(uint8_t);
#undef MM_INT_LOOP
    const float *A = a->data, *B = b->data;
    if (dt != TILE_FP32 && K > 0) {
        float *w = mm_scratch(s, (size_t)(M * K + K * N) * sizeof(float));
        if (!w) return tile_fail(msg, cap, "pl.%s: out of memory for %lld FP32 elements", op, (long long)(M * K + K * N));
        for (int64_t i = 0; i < M; i++) base_half_to_f32(w + i * K, (const uint16_t *)a->data + i * lda, K, dt == TILE_BF16);
        for (int64_t k = 0; k < K; k++) base_half_to_f32(w + M * K + k * N, (const uint16_t *)b->data + k * ldb, N, dt == TILE_BF16);
        A = w, B = w + M * K, lda = K, ldb = N;
    }
    if (K == 0) {
        if (!beta)
            for (int64_t i = 0; i < M; i++) memset((float *)dst->data + i * ldc, 0, (size_t)N * 4);
    } else {
        pthread_once(&mm_once, mm_single_thread);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (blasint)M, (blasint)N, (blasint)K, 1.0f, A, (blasint)lda, B,
                    (blasint)ldb, beta ? 1.0f : 0.0f, dst->data, (blasint)ldc);
    }
    tile_clear_outside(dst);
    return 0;
}

/* Do the batch axes of a [.., M, K] and b [.., K, N] broadcast (numpy's
 * rule, aligned at the innermost) to dst's? */
static int mm_batches(const tile *dst, const tile *a, const tile *b)
{
    uint32_t nb = dst->rank - 2u, la = a->rank - 2u, lb = b->rank - 2u;
    if (la > nb || lb > nb) return 0;
    for (uint32_t k = 0; k < nb; k++) {
        int64_t e = dst->shape[nb - 1 - k], x = k < la ? a->shape[la - 1 - k] : 1, y = k < lb ? b->shape[lb - 1 - k] : 1;
        if ((x != e && x != 1) || (y != e && y != 1) || (x != e && y != e)) return 0;
    }
    return 1;
}

/* The operand checks of matmul and matmul_acc; *rt gets the result dtype. */
static int mm_check(const tile *dst, const tile *a, const tile *b, const char *op, tile_dtype *rt, char *msg, size_t cap)
{
    uint32_t ra = a->rank, rb = b->rank, rd = dst->rank;
    if (ra < 2 || rb < 2 || a->shape[ra - 1] != b->shape[rb - 2] || a->dtype != b->dtype || (rd > 2 && !mm_batches(dst, a, b)))
        return tile_fail(msg, cap, "pl.%s: inner dimensions or dtypes differ", op);
    tile_dtype dt = (tile_dtype)a->dtype;
    *rt = dt == TILE_INT8 || dt == TILE_UINT8 ? TILE_INT32 : TILE_FP32;
    if (tile_no_bool(a, op, msg, cap)) return -1;
    if (!tile_dtype_is_float(dt) && dt != TILE_INT8 && dt != TILE_UINT8)
        return tile_fail(msg, cap, "pl.%s: %s operands are not supported; cast to FP32 or INT8", op, tile_dtype_name(dt));
    if ((rd == 2) != (ra == 2 && rb == 2) || dst->shape[rd - 2] != a->shape[ra - 2] || dst->shape[rd - 1] != b->shape[rb - 1] ||
        dst->dtype != *rt)
        return tile_fail(msg, cap, "pl.%s: the result tile is not [%s%lld, %lld] %s", op, rd > 2 ? ".., " : "", (long long)a->shape[ra - 2],
                         (long long)b->shape[rb - 1], tile_dtype_name(*rt));
    return 0;
}

static int64_t mm_min(int64_t x, int64_t y) { return x < y ? x : y; }

/* Matrix q (row-major over the leading axes) of x, as a rank-2 tile over x's buffer. */
static tile mm_matrix(const tile *x, int64_t q)
{
    tile v = *x;
    uint32_t r = x->rank;
    v.rank = 2;
    v.shape[0] = x->shape[r - 2], v.shape[1] = x->shape[r - 1], v.valid[0] = x->valid[r - 2], v.valid[1] = x->valid[r - 1];
    v.data = (char *)x->data + (size_t)(q * v.shape[0] * v.shape[1]) * tile_dtype_size((tile_dtype)x->dtype);
    return v;
}

/* x's matrix for dst's batch index q: each axis of extent 1 in x broadcast. */
static int64_t mm_batch_of(const tile *dst, const tile *x, int64_t q)
{
    uint32_t nb = dst->rank - 2u, lx = x->rank - 2u;
    int64_t qx = 0, stride = 1;
    for (uint32_t k = 0; k < nb; k++) { /* k counts from the innermost batch axis */
        int64_t e = dst->shape[nb - 1 - k], i = q % e;
        q /= e;
        if (k >= lx) continue;
        int64_t ex = x->shape[lx - 1 - k];
        qx += (ex == 1 ? 0 : i) * stride, stride *= ex;
    }
    return qx;
}

int tile_matmul(tile *dst, const tile *a, const tile *b, tile_scratch *s, char *msg, size_t cap)
{
    tile_dtype rt;
    if (mm_check(dst, a, b, "matmul", &rt, msg, cap)) return -1;
    if (dst->rank == 2) return mm_run(dst, a, b, a->valid[0], b->valid[1], mm_min(a->valid[1], b->valid[0]), 0, s, "matmul", msg, cap);
    uint32_t nb = dst->rank - 2u; /* a batched product: one GEMM per matrix of dst (leading axes fully valid) */
    int64_t count = 1;
    for (uint32_t d = 0; d < nb; d++) count *= dst->shape[d], dst->valid[d] = dst->shape[d];
    for (int64_t q = 0; q < count; q++) {
        tile dq = mm_matrix(dst, q), aq = mm_matrix(a, mm_batch_of(dst, a, q)), bq = mm_matrix(b, mm_batch_of(dst, b, q));
        if (mm_run(&dq, &aq, &bq, aq.valid[0], bq.valid[1], mm_min(aq.valid[1], bq.valid[0]), 0, s, "matmul", msg, cap)) return -1;
        dst->valid[nb] = dq.valid[0], dst->valid[nb + 1] = dq.valid[1];
    }
    return 0;
}

int tile_matmul_acc(tile *acc, const tile *a, const tile *b, int init, tile_scratch *s, char *msg, size_t cap)
{
    tile_dtype rt;
    if (mm_check(acc, a, b, "matmul_acc", &rt, msg, cap)) return -1;
    if (acc->rank != 2) return tile_fail(msg, cap, "pl.matmul_acc: the accumulator is not rank 2");
    int64_t K = mm_min(a->valid[1], b->valid[0]);
    if (init) return mm_run(acc, a, b, a->valid[0], b->valid[1], K, 0, s, "matmul_acc", msg, cap);
    return mm_run(acc, a, b, mm_min(acc->valid[0], a->valid[0]), mm_min(acc->valid[1], b->valid[1]), K, 1, s, "matmul_acc", msg, cap);
}
