/*
 * host_log.c - the footprint log of a distributed call (host_log.h).
 *
 * Invariants: entries are appended in the order dispatches are
 * interpreted, which is the same on every rank (control replication), so
 * the conflict answers and the exchange's bcast sequence agree across
 * ranks; the exchange snapshots this rank's own writes before receiving
 * anything, so a region written by several ranks ends as its last
 * writer's.
 */
#include "exec/host_log.h"

#include <stdlib.h>
#include <string.h>

int ex_log_write(ex_log *g, const ex_fp *f)
{
    if (g->n == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 16;
        ex_fp *w = realloc(g->w, cap * sizeof *w);
        if (!w) return -1;
        g->w = w, g->cap = cap;
    }
    g->w[g->n++] = *f;
    return 0;
}

void ex_log_span(ex_fp *f)
{
    const ex_tensor *t = &f->view;
    int64_t es = (int64_t)cc_dtype_size((cc_dtype)t->dtype), lo = t->offset, hi = t->offset;
    for (uint32_t d = 0; d < t->rank; d++) {
        int64_t reach = (t->shape[d] - t->hidden[d] - 1) * t->strides[d];
        if (reach < 0) lo += reach;
        else hi += reach;
    }
    f->lo = lo * es, f->hi = (hi + 1) * es;
}

const ex_fp *ex_log_conflict(const ex_log *g, const ex_fp *f)
{
    for (size_t i = g->n; i-- > 0;) {
        const ex_fp *w = &g->w[i];
        if (w->rank != f->rank && w->view.base == f->view.base && w->lo < f->hi && f->lo < w->hi) return w;
    }
    return NULL;
}

/* The bytes of view t (its valid region, row-major) to or from buf. */
static size_t ex_log_copy(const ex_tensor *t, char *buf, int pack)
{
    size_t es = cc_dtype_size((cc_dtype)t->dtype), n = 0;
    int64_t idx[CC_MAX_RANK] = {0}, ext[CC_MAX_RANK];
    for (uint32_t d = 0; d < t->rank; d++)
        if ((ext[d] = t->shape[d] - t->hidden[d]) <= 0) return 0;
    for (;;) {
        int64_t e = t->offset;
        for (uint32_t d = 0; d < t->rank; d++) e += idx[d] * t->strides[d];
        char *at = (char *)t->base + e * (int64_t)es;
        if (buf) pack ? memcpy(buf + n, at, es) : memcpy(at, buf + n, es);
        n += es;
        int d = (int)t->rank - 1;
        while (d >= 0 && ++idx[d] == ext[d]) idx[d--] = 0;
        if (d < 0) return n;
    }
}

int ex_log_exchange(const ex_log *g, const rt_comm_ops *o, void *s, int me, pto_error *err)
{
    if (o->size == 1 || !g->n) return 0; /* every region is this rank's already */
    char **snap = calloc(g->n, sizeof *snap);
    int rc = snap ? 0 : rt_comm_error(err, PTO_OUT_OF_MEMORY, "FATAL: Out of Memory!", "no memory for the results exchange", NULL);
    for (size_t i = 0; rc == 0 && i < g->n; i++) {
        size_t bytes = ex_log_copy(&g->w[i].view, NULL, 1);
        if (g->w[i].rank != me || !bytes) continue;
        if (!(snap[i] = malloc(bytes)))
            rc = rt_comm_error(err, PTO_OUT_OF_MEMORY, "FATAL: Out of Memory!", "no memory for the results exchange", NULL);
        else ex_log_copy(&g->w[i].view, snap[i], 1);
    }
    for (size_t i = 0; rc == 0 && i < g->n; i++) {
        const ex_fp *w = &g->w[i];
        size_t bytes = ex_log_copy(&w->view, NULL, 1);
        char *buf = w->rank == me ? snap[i] : malloc(bytes ? bytes : 1);
        if (!bytes) continue;
        if (!buf) {
            rc = rt_comm_error(err, PTO_OUT_OF_MEMORY, "FATAL: Out of Memory!", "no memory for the results exchange", NULL);
            break;
        }
        rc = o->bcast(s, NULL, buf, bytes, w->rank, err);
        if (rc == 0) ex_log_copy(&w->view, buf, 0);
        if (w->rank != me) free(buf);
    }
    for (size_t i = 0; snap && i < g->n; i++) free(snap[i]);
    free(snap);
    return rc;
}

void ex_log_free(ex_log *g)
{
    free(g->w);
    memset(g, 0, sizeof *g);
}
