/*
 * entry_check.c - the divergence check at call entry (DISTRIBUTED-SPEC
 * §2.1 step 2, D13, §3 rows 3a and 3c).
 *
 * Each item ("<item> <value>") gets a 64-bit digest (FNV-1a, never 0); h is
 * the 63-bit hash of the digests, so -h never overflows.  One
 * MPI_Iallreduce of (h, -h) under MPI_MAX on world_dup gives every rank
 * (max h, -min h): equal iff every rank had the same h.  Only when they
 * differ, the ranks allgather the item counts and the digests, find the
 * first item where a rank differs from rank 0, and broadcast that item's
 * text from both, so every rank raises the same RANKS_DIVERGED message.
 * The wait is bounded by PTO_DIST_ENTRY_TIMEOUT_S and fails early when a
 * peer failed or left.  agree() names the call in progress ("call #<k> of
 * '<f>'", the caller's numbering) for every later message of the session.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/mpi_int.h"

#include "base/clock.h"
#include "base/fnv.h"

static const char DIVERGED_HINT[] =
    "every rank must make the same distributed calls in the same order with the same program, argument shapes, "
    "dtypes, scalar values and PTO_COMM_BACKEND; avoid rank-dependent control flow around them";

/* The text of item i of rank from, broadcast to every rank ("" when that rank has none). */
static int entry_item_text(mpi_session *s, const char *const *items, int n, int i, int from, char *out,
                           size_t cap, pto_error *err)
{
    s->entry_len = 0;
    if (s->info.rank == from && i < n) {
        s->entry_len = (int)strnlen(items[i], cap - 1);
        memcpy(out, items[i], (size_t)s->entry_len);
    }
    int rc = mpi_bcast(s, NULL, &s->entry_len, sizeof s->entry_len, from, err);
    if (rc == 0) rc = mpi_bcast(s, NULL, out, (size_t)s->entry_len, from, err);
    out[rc == 0 ? s->entry_len : 0] = 0;
    return rc;
}

/* The item's name in "<item> <value>" texts a and b: their common words
 * outside brackets (at least a's first word), without a trailing " =";
 * the value is the rest.  "argument x FP32 [4, 8]" / "... [5, 8]": "argument x FP32". */
static int entry_name_len(const char *a, const char *b)
{
    size_t first = strcspn(a, " "), n = 0;
    int depth = 0; /* a space inside [..] or (..) belongs to a value */
    for (size_t i = 0; a[i] && a[i] == b[i]; i++) {
        depth += (a[i] == '[' || a[i] == '(') - (a[i] == ']' || a[i] == ')');
        if (a[i] == ' ' && depth == 0 && i >= first) n = i;
    }
    if (n < first) n = first;
    if (n >= 2 && a[n - 1] == '=' && a[n - 2] == ' ') n -= 2;
    return (int)n;
}

/* What follows the name: the value (skipping " = " or " "). */
static const char *entry_value(const char *text, int name_len)
{
    const char *v = text + name_len;
    if (strncmp(v, " = ", 3) == 0) return v + 3;
    return *v == ' ' ? v + 1 : v;
}

static int entry_diverged(mpi_session *s, const char *const *items, int n, const uint64_t *dig, pto_error *err)
{
    int P = s->info.size, nmax = 0, a = 0, b = -1, item = 0;
    int *counts = malloc((size_t)P * sizeof *counts);
    int rc = counts ? mpi_allgather(s, NULL, &n, counts, sizeof n, err) : -PTO_OUT_OF_MEMORY;
    for (int r = 0; rc == 0 && r < P; r++) nmax = counts[r] > nmax ? counts[r] : nmax;
    uint64_t *mine = NULL, *all = NULL;
    if (rc == 0 && nmax > 0) {
        mine = calloc((size_t)nmax, sizeof *mine);
        all = malloc((size_t)nmax * (size_t)P * sizeof *all);
        if (!mine || !all) rc = -PTO_OUT_OF_MEMORY;
    }
    if (rc == 0 && nmax > 0) {
        memcpy(mine, dig, (size_t)n * sizeof *dig);
        rc = mpi_allgather(s, NULL, mine, all, (size_t)nmax * sizeof *mine, err);
    }
    for (int i = 0; rc == 0 && b < 0 && i < nmax; i++)
        for (int r = 1; r < P && b < 0; r++)
            if (all[(size_t)r * (size_t)nmax + (size_t)i] != all[i]) b = r, item = i;
    if (rc < 0 && rc != -PTO_OUT_OF_MEMORY) return rc; /* an abandoned request may still write them */
    free(counts);
    free(mine);
    free(all);
    if (rc == -PTO_OUT_OF_MEMORY)
        return mpi_fail(s, err, PTO_OUT_OF_MEMORY, "FATAL: Out of Memory!", "the entry check's digests",
                        "free host memory");
    if (rc < 0) return rc;

    char header[320], details[3 * sizeof s->entry_text[0]];
    char *ta = s->entry_text[0], *tb = s->entry_text[1];
    snprintf(header, sizeof header, "FATAL: Ranks Diverged at Call Entry! %s", s->call_text);
    if (b < 0) /* the hashes differ but no digest does: cannot happen short of a broken rank */
        return mpi_fail(s, err, PTO_RANKS_DIVERGED, header, "entry hash differs between ranks", DIVERGED_HINT);
    rc = entry_item_text(s, items, n, item, a, ta, sizeof s->entry_text[0], err);
    if (rc == 0) rc = entry_item_text(s, items, n, item, b, tb, sizeof s->entry_text[1], err);
    if (rc < 0) return rc;
    const char *name = *ta ? ta : tb;
    int lname = entry_name_len(name, *ta ? tb : ta);
    const char *va = *ta ? entry_value(ta, lname) : "no such item";
    const char *vb = *tb ? entry_value(tb, lname) : "no such item";
    if (*ta && *tb && strncmp(ta, tb, (size_t)lname) != 0) vb = tb; /* another item there */
    snprintf(details, sizeof details, "%.*s differs: rank %d has %s, rank %d has %s", lname, name, a, va, b, vb);
    return mpi_fail(s, err, PTO_RANKS_DIVERGED, header, details, DIVERGED_HINT);
}

int mpi_agree(void *sv, const char *const *items, int n, const char *call, pto_error *err)
{
    mpi_session *s = sv;
    mpi_lock(s); /* a new call: the failure of an earlier one makes the session unusable */
    snprintf(s->call_text, sizeof s->call_text, "%s", call);
    if (sscanf(call, "call #%ld", &s->call_no) != 1) s->call_no = 0;
    mpi_unlock(s);
    int rc = mpi_check_usable(s, err);
    if (rc < 0) return rc;

    uint64_t *dig = malloc((size_t)(n > 0 ? n : 1) * sizeof *dig), h = BASE_FNV_BASIS;
    if (!dig)
        return mpi_fail(s, err, PTO_OUT_OF_MEMORY, "FATAL: Out of Memory!", "the entry check's digests",
                        "free host memory");
    for (int i = 0; i < n; i++) {
        dig[i] = base_fnv(BASE_FNV_BASIS, items[i], strlen(items[i])) | 1;
        h = base_fnv(h, &dig[i], sizeof dig[i]);
    }
    int64_t *v = s->entry_v, mine = (int64_t)(h & INT64_MAX);
    v[0] = mine, v[1] = -mine;
    uint64_t start = base_now_ns();
    MPI_Request req = MPI_REQUEST_NULL;
    mpi_lock(s);
    rc = MPI_Iallreduce(MPI_IN_PLACE, v, 2, MPI_INT64_T, MPI_MAX, s->world, &req);
    mpi_unlock(s);
    if (rc != MPI_SUCCESS) rc = mpi_fail_rc(s, err, "MPI_Iallreduce", rc);
    else rc = mpi_wait(s, &s->world_domain, &req, 1, start + s->entry_timeout_ns, err);
    if (rc == -PTO_COMM_WAIT_TIMEOUT) rc = mpi_fail_entry_timeout(s, err);
    if (rc == 0 && (v[0] != mine || v[1] != -mine)) rc = entry_diverged(s, items, n, dig, err);
    free(dig);
    return rc;
}
