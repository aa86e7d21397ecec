/*
 * tile_mem.c - pl.load and pl.store: moving a tile's valid region between
 * its dense buffer and a strided tensor window; the atomic store adds it
 * into the window instead (pl.assemble(..., atomic=pl.AtomicType.Add)).
 *
 * Bounds are checked on what is actually moved: a load reads its valid
 * region (valid_shape, cut by clamp), a store writes the tile's valid
 * region (cut by shapes=).  Offsets are whole-tensor coordinates.  All
 * walk rows of the last dimension: memcpy when the tensor's last stride is
 * 1, a strided loop per element size otherwise; an adding row is one loop
 * per dtype (contiguous or strided), FP16/BF16 through FP32 with one
 * rounding, integers wrapping (unsigned arithmetic).
 */
#include <string.h>

#include "base/half.h"
#include "tile/tile_int.h"

/* Shapes padded to rank 4 with leading 1s (offsets 0, strides 0). */
typedef struct mem_box {
    int64_t ext[4], off[4], stride[4], tshape[4];
} mem_box;

static void mem_pad(mem_box *b, int rank, const int64_t *ext, const int64_t *off, const int64_t *stride, const int64_t *tshape)
{
    for (int d = 0; d < 4; d++) {
        int s = d - (4 - rank);
        b->ext[d] = s < 0 ? 1 : ext[s];
        b->off[d] = s < 0 ? 0 : off[s];
        b->stride[d] = s < 0 ? 0 : stride[s];
        b->tshape[d] = s < 0 ? 1 : tshape[s];
    }
}

static void mem_row(char *dst, int64_t dstep, const char *src, int64_t sstep, int64_t n, size_t es)
{
    if (dstep == 1 && sstep == 1) {
        memcpy(dst, src, (size_t)n * es);
        return;
    }
    switch (es) {
    case 4: for (int64_t i = 0; i < n; i++) memcpy(dst + i * dstep * 4, src + i * sstep * 4, 4); break;
    case 2: for (int64_t i = 0; i < n; i++) memcpy(dst + i * dstep * 2, src + i * sstep * 2, 2); break;
    default: for (int64_t i = 0; i < n; i++) dst[i * dstep] = src[i * sstep]; break;
    }
}

/* dst[i * dstep] += src[i] for i < n: one loop of elements of type T, x the
 * window's element, y the tile's, expr the sum (a T). */
#define MEM_ADD_ROW(T, expr)                                                                                   \
    do {                                                                                                       \
        T *d_ = (T *)dst;                                                                                      \
        const T *s_ = (const T *)src;                                                                          \
        if (dstep == 1)                                                                                        \
            for (int64_t i = 0; i < n; i++) { T x = d_[i], y = s_[i]; d_[i] = (T)(expr); }                      \
        else                                                                                                   \
            for (int64_t i = 0; i < n; i++) { T x = d_[i * dstep], y = s_[i]; d_[i * dstep] = (T)(expr); }      \
    } while (0)

static void mem_add_row(char *dst, int64_t dstep, const char *src, int64_t n, tile_dtype dt)
{
    switch (dt) {
    case TILE_FP32: MEM_ADD_ROW(float, x + y); break;
    case TILE_FP16: MEM_ADD_ROW(uint16_t, base_f32_to_f16(base_f16_to_f32(x) + base_f16_to_f32(y))); break;
    case TILE_BF16: MEM_ADD_ROW(uint16_t, base_f32_to_bf16(base_bf16_to_f32(x) + base_bf16_to_f32(y))); break;
    case TILE_INT32: MEM_ADD_ROW(int32_t, (uint32_t)x + (uint32_t)y); break;
    case TILE_INT16: MEM_ADD_ROW(int16_t, (uint16_t)((uint32_t)x + (uint32_t)y)); break;
    case TILE_INT8: MEM_ADD_ROW(int8_t, (uint8_t)((uint32_t)x + (uint32_t)y)); break;
    case TILE_UINT32: MEM_ADD_ROW(uint32_t, x + y); break;
    case TILE_UINT16: MEM_ADD_ROW(uint16_t, (uint32_t)x + y); break;
    case TILE_UINT8: MEM_ADD_ROW(uint8_t, (uint32_t)x + y); break;
    default: break; /* tile_store_add refuses the others */
    }
}
#undef MEM_ADD_ROW

/* What mem_move does with the box. */
typedef enum mem_dir { MEM_LOAD, MEM_STORE, MEM_ADD } mem_dir;

static void mem_move(const tile_tensor *t, const mem_box *b, char *tile_data, size_t es, mem_dir dir)
{
    for (int64_t i0 = 0; i0 < b->ext[0]; i0++)
        for (int64_t i1 = 0; i1 < b->ext[1]; i1++)
            for (int64_t i2 = 0; i2 < b->ext[2]; i2++) {
                int64_t te = t->base + (b->off[0] + i0) * b->stride[0] + (b->off[1] + i1) * b->stride[1] +
                             (b->off[2] + i2) * b->stride[2] + b->off[3] * b->stride[3];
                int64_t le = ((i0 * b->tshape[1] + i1) * b->tshape[2] + i2) * b->tshape[3];
                char *tp = t->addr + te * (int64_t)es, *lp = tile_data + le * (int64_t)es;
                if (dir == MEM_ADD) mem_add_row(tp, b->stride[3], lp, b->ext[3], (tile_dtype)t->dtype);
                else if (dir == MEM_STORE) mem_row(tp, b->stride[3], lp, 1, b->ext[3], es);
                else mem_row(lp, 1, tp, b->stride[3], b->ext[3], es);
            }
}

/* Of extent n at off on axis d of t (inside its shape), the part inside t's valid region. */
static int64_t mem_in_valid(const tile_tensor *t, int d, int64_t off, int64_t n)
{
    int64_t room = t->shape[d] - t->hidden[d] - off;
    return room < 0 ? 0 : room < n ? room : n;
}

int tile_load(tile *dst, const tile_tensor *src, const int64_t *off, const int64_t *valid, int clamp, const char *op, char *msg, size_t cap)
{
    int r = src->rank;
    if (dst->rank != r || dst->dtype != src->dtype)
        return tile_fail(msg, cap, "%s: a %s tile of rank %d from a %s tensor of rank %d", op, tile_dtype_name((tile_dtype)dst->dtype),
                         dst->rank, tile_dtype_name((tile_dtype)src->dtype), r);
    int64_t v[TILE_MAX_RANK];
    for (int d = 0; d < r; d++) {
        if (off[d] < 0) return tile_fail(msg, cap, "%s: offset %d is negative (%lld)", op, d, (long long)off[d]);
        v[d] = valid[d] < 0 || valid[d] > dst->shape[d] ? dst->shape[d] : valid[d];
        int64_t room = off[d] < src->shape[d] ? src->shape[d] - off[d] : 0;
        if (clamp && v[d] > room) v[d] = room;
        if (v[d] > room)
            return tile_fail(msg, cap, "%s reads past the end of dimension %d: offset %lld + extent %lld exceeds the source extent %lld.",
                             op, d, (long long)off[d], (long long)v[d], (long long)src->shape[d]);
        v[d] = mem_in_valid(src, d, off[d], v[d]);
    }
    for (int d = 0; d < r; d++) dst->valid[d] = v[d];
    mem_box b;
    mem_pad(&b, r, v, off, src->strides, dst->shape);
    mem_move(src, &b, dst->data, tile_dtype_size((tile_dtype)src->dtype), MEM_LOAD);
    tile_clear_outside(dst);
    return 0;
}

static int mem_store(const tile_tensor *dst, const int64_t *off, const tile *src, const int64_t *ext, mem_dir dir, char *msg, size_t cap)
{
    int r = dst->rank;
    if (src->rank != r || dst->dtype != src->dtype)
        return tile_fail(msg, cap, "pl.store: a %s tile of rank %d into a %s tensor of rank %d", tile_dtype_name((tile_dtype)src->dtype),
                         src->rank, tile_dtype_name((tile_dtype)dst->dtype), r);
    int64_t v[TILE_MAX_RANK];
    for (int d = 0; d < r; d++) {
        if (off[d] < 0) return tile_fail(msg, cap, "pl.store: offset %d is negative (%lld)", d, (long long)off[d]);
        v[d] = ext && ext[d] >= 0 && ext[d] < src->valid[d] ? ext[d] : src->valid[d];
        if (off[d] > dst->shape[d] - v[d]) /* off + v > shape, without overflow */
            return tile_fail(msg, cap, "pl.store writes past the end of dimension %d: offset %lld + extent %lld exceeds the destination extent %lld.",
                             d, (long long)off[d], (long long)v[d], (long long)dst->shape[d]);
        v[d] = mem_in_valid(dst, d, off[d], v[d]);
    }
    for (int d = 0; d < r; d++)
        if (v[d] == 0) return 0;
    mem_box b;
    mem_pad(&b, r, v, off, dst->strides, src->shape);
    mem_move(dst, &b, src->data, tile_dtype_size((tile_dtype)src->dtype), dir);
    return 0;
}

int tile_store(const tile_tensor *dst, const int64_t *off, const tile *src, const int64_t *ext, char *msg, size_t cap)
{
    return mem_store(dst, off, src, ext, MEM_STORE, msg, cap);
}

int tile_store_add(const tile_tensor *dst, const int64_t *off, const tile *src, const int64_t *ext, char *msg, size_t cap)
{
    switch (src->dtype) {
    case TILE_FP32: case TILE_FP16: case TILE_BF16: case TILE_INT32: case TILE_INT16: case TILE_INT8: case TILE_UINT32:
    case TILE_UINT16: case TILE_UINT8: break;
    default:
        return tile_fail(msg, cap, "pl.store with atomic=AtomicType.Add requires an fp32/bf16/fp16/int32/int16/int8/uint32/uint16/uint8 tile, got %s",
                         tile_dtype_name((tile_dtype)src->dtype));
    }
    return mem_store(dst, off, src, ext, MEM_ADD, msg, cap);
}
