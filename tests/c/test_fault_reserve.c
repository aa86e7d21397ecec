/*
 * test_fault_reserve.c - pto_runtime_create when the kernel refuses
 * address space (docs/runtime.md, "The ring model", code 13 RESERVE_FAILED).
 *
 * This executable is linked with ld --wrap=mmap --wrap=munmap
 * (tests/c/CMakeLists.txt): every reservation the runtime makes goes
 * through fault_mmap below, which can refuse the n-th one with an errno,
 * and every unreservation through fault_munmap, which checks it releases
 * exactly a live reservation.  Production code carries no hook for this.
 *
 * Rules tested, for n swept over every reservation of one create:
 *  - the create fails with -RESERVE_FAILED, *rt NULL, and a message whose
 *    header names the ring (ring=all for the arrays the rings share) and
 *    whose detail names the array, the bytes asked for (those the refused
 *    mmap was asked for, before page rounding) and the errno's text;
 *  - every reservation made before the refused one is released (nothing
 *    leaks), and the next create succeeds and runs.
 * Thread stacks are mapped inside libc, where the wrap does not reach.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "e2e.h"

void *__real_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int __real_munmap(void *addr, size_t len);
void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int __wrap_munmap(void *addr, size_t len);

/* ---- the interposed mmap / munmap ------------------------------------- */

#define FAULT_MAX_LIVE 256

static struct {
    int armed;          /* count and track calls only while armed */
    int fail_at;        /* 1-based index of the call to refuse; 0 = none */
    int fail_errno;
    int calls;          /* mmap calls while armed */
    size_t failed_len;  /* length the refused call asked for */
    int bad_unmaps;     /* munmaps of something not live, or of another length */
    int nlive;
    struct { void *addr; size_t len; } live[FAULT_MAX_LIVE];
} fault;

void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    if (!fault.armed) return __real_mmap(addr, len, prot, flags, fd, off);
    if (++fault.calls == fault.fail_at) {
        fault.failed_len = len;
        errno = fault.fail_errno;
        return MAP_FAILED;
    }
    void *p = __real_mmap(addr, len, prot, flags, fd, off);
    if (p != MAP_FAILED && fault.nlive < FAULT_MAX_LIVE) {
        fault.live[fault.nlive].addr = p;
        fault.live[fault.nlive++].len = len;
    }
    return p;
}

int __wrap_munmap(void *addr, size_t len)
{
    if (fault.armed) {
        int k = 0;
        while (k < fault.nlive && fault.live[k].addr != addr) k++;
        if (k == fault.nlive || fault.live[k].len != len) fault.bad_unmaps++;
        else fault.live[k] = fault.live[--fault.nlive];
    }
    return __real_munmap(addr, len);
}

static void fault_arm(int fail_at, int fail_errno)
{
    memset(&fault, 0, sizeof fault);
    fault.armed = 1;
    fault.fail_at = fail_at;
    fault.fail_errno = fail_errno;
}

/* ---- the configuration and what each array may be --------------------- */

static const uint64_t k_window[4] = {16, 32, 64, 128};
static const uint64_t k_heap[4] = {1u << 20, 2u << 20, 4u << 20, 8u << 20};
static const uint64_t k_dep[4] = {4096, 8192, 16384, 32768};

static pto_config fault_config(void)
{
    pto_config c;
    memset(&c, 0, sizeof c);
    for (int r = 0; r < PTO_NUM_RINGS; r++) {
        c.runtime_env.ring_task_window[r] = k_window[r];
        c.runtime_env.ring_heap[r] = k_heap[r];
        c.runtime_env.ring_dep_pool[r] = k_dep[r];
    }
    c.num_workers = 2;
    return c;
}

static size_t page_round(uint64_t bytes)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return (size_t)((bytes + page - 1) / page * page);
}

/* Is `bytes` a size ring r's array `what` can have?  Heap and pools have
 * exact sizes (docs/runtime.md, "The ring model": dep node 16 bytes, spill edge 8); the
 * task window's arrays (slots, seen epochs, records) scale with w or w + 2. */
static int fits_ring_array(int r, const char *what, uint64_t bytes)
{
    if (!strcmp(what, "heap")) return bytes == k_heap[r];
    if (!strcmp(what, "dep pool")) return bytes == k_dep[r] * 16;
    if (!strcmp(what, "spill pool")) return bytes == k_dep[r] * 8;
    if (!strcmp(what, "task window")) return bytes % k_window[r] == 0 || bytes % (k_window[r] + 2) == 0;
    return 0;
}

/* Creates with the n-th reservation refused; checks the message and that
 * nothing stayed reserved.  Returns the ring named (-1: ring=all) and the
 * array in *what (static storage). */
static int refused_create(int n, int err_no, const char **what)
{
    static char what_buf[64];
    pto_config cfg = fault_config();
    pto_runtime *rt = (pto_runtime *)&cfg; /* must be overwritten with NULL */
    pto_error err;
    fault_arm(n, err_no);
    int rc = pto_runtime_create(&cfg, &rt, &err);
    fault.armed = 0;
    if (rc != -PTO_RESERVE_FAILED) fail_msg("reservation %d refused: rc %d\n%s", n, rc, err.message);
    assert_null(rt);
    assert_int_equal(err.code, PTO_RESERVE_FAILED);
    if (fault.nlive || fault.bad_unmaps)
        fail_msg("reservation %d refused: %d reservations left behind, %d bad unmaps", n, fault.nlive,
                 fault.bad_unmaps);

    /* header: the ring, or "all" for the arrays every ring shares */
    int ring = -2;
    char ring_word[8] = "";
    if (sscanf(err.message, "FATAL: Ring Reservation Failed! ring=%7[a-z0-9]\n", ring_word) != 1)
        fail_msg("header of:\n%s", err.message);
    ring = strcmp(ring_word, "all") ? atoi(ring_word) : -1;
    assert_int_equal(err.ring, ring);

    /* detail: bytes asked for, the array, the errno's text */
    const char *d = strstr(err.message, "\n  could not reserve ");
    unsigned long long bytes = 0;
    int used = 0;
    if (!d || sscanf(d, "\n  could not reserve %llu bytes for the %n", &bytes, &used) != 1 || !used)
        fail_msg("detail of:\n%s", err.message);
    const char *w = d + used, *paren = strstr(w, " (mmap: ");
    assert_non_null(paren);
    snprintf(what_buf, sizeof what_buf, "%.*s", (int)(paren - w), w);
    char tail[160];
    snprintf(tail, sizeof tail, " (mmap: %s)\n", strerror(err_no));
    if (strncmp(paren, tail, strlen(tail))) fail_msg("errno text in:\n%s", err.message);
    if (page_round(bytes) != fault.failed_len)
        fail_msg("message says %llu bytes, the refused mmap asked for %zu:\n%s", bytes, fault.failed_len,
                 err.message);
    if (ring >= 0 && !fits_ring_array(ring, what_buf, bytes))
        fail_msg("%llu bytes is no size of ring %d's %s:\n%s", bytes, ring, what_buf, err.message);

    /* the fixed lines of every message */
    assert_non_null(strstr(err.message, "\nPTO runtime failed: error_code=13 runtime_status=-13\n"));
    assert_non_null(strstr(err.message, "\nerror detail: error_code=13 RESERVE_FAILED - pto_runtime_create could "
                                        "not reserve a ring array\n"));
    assert_non_null(strstr(err.message, "\nerror hint: "));
    assert_non_null(strstr(err.message, "or raise the address-space limit"));
    *what = what_buf;
    return ring;
}

/* A create that works and runs one task. */
static void create_and_run(void)
{
    pto_config cfg = fault_config();
    pto_runtime *rt = make_rt(&cfg);
    uint64_t cell[1] = {0};
    pto_arg a[1] = {arg(PTO_ARG_INOUT, v1(cell, 0, 1))};
    uint64_t sc[1] = {1};
    pto_task t = {e2e_touch_kernel, NULL, "touch", a, 1, sc, 1, NULL, 0, 0};
    check_submit(rt, &t, NULL);
    finish_ok(rt);
    assert_int_equal(cell[0], 2); /* first and last byte of a 1-element view: the same byte */
    pto_runtime_destroy(rt);
}

/* Every reservation of a create refused in turn: the message names ring,
 * array and size, nothing leaks, the next create works. */
static void test_reserve_failure_names_ring_array_and_size(void **state)
{
    (void)state;
    /* how many reservations a create makes; all released by destroy */
    pto_config cfg = fault_config();
    pto_runtime *rt;
    pto_error err;
    fault_arm(0, 0);
    assert_int_equal(pto_runtime_create(&cfg, &rt, &err), 0);
    int total = fault.calls;
    pto_runtime_destroy(rt);
    fault.armed = 0;
    assert_int_equal(fault.nlive, 0);
    assert_int_equal(fault.bad_unmaps, 0);
    assert_true(total >= 4 * 6); /* at least six arrays per ring */

    int seen[4][4] = {{0}}, last_ring = 0, globals = 0;
    static const char *const kinds[4] = {"task window", "heap", "dep pool", "spill pool"};
    for (int n = 1; n <= total; n++) {
        const char *what;
        int ring = refused_create(n, ENOMEM, &what);
        if (ring < 0) {
            globals++;
            continue;
        }
        assert_true(ring >= last_ring); /* rings are reserved in order */
        assert_int_equal(globals, 0);   /* the shared arrays come after them */
        last_ring = ring;
        for (int k = 0; k < 4; k++)
            if (!strcmp(what, kinds[k])) seen[ring][k]++;
        create_and_run();
    }
    for (int r = 0; r < 4; r++)
        for (int k = 0; k < 4; k++)
            if (!seen[r][k]) fail_msg("no refused reservation was reported as ring %d's %s", r, kinds[k]);
    assert_true(globals > 0);
}

/* The exact text for one array: ring 2's heap, refused with EAGAIN. */
static void test_reserve_failure_message_is_exact(void **state)
{
    (void)state;
    /* find ring 2's heap: the reservation asking for exactly its size */
    pto_config cfg = fault_config();
    pto_runtime *rt;
    pto_error err;
    fault_arm(0, 0);
    assert_int_equal(pto_runtime_create(&cfg, &rt, &err), 0);
    int total = fault.calls;
    pto_runtime_destroy(rt);
    int heap2 = 0;
    for (int n = 1; n <= total && !heap2; n++) {
        fault_arm(n, EAGAIN);
        assert_int_equal(pto_runtime_create(&cfg, &rt, &err), -PTO_RESERVE_FAILED);
        fault.armed = 0;
        if (fault.failed_len == k_heap[2] && strstr(err.message, "ring=2")) heap2 = n;
    }
    assert_true(heap2 > 0);
    assert_string_equal(err.message,
                        "FATAL: Ring Reservation Failed! ring=2\n"
                        "  could not reserve 4194304 bytes for the heap (mmap: Resource temporarily unavailable)\n"
                        "PTO runtime failed: error_code=13 runtime_status=-13\n"
                        "error detail: error_code=13 RESERVE_FAILED - pto_runtime_create could not reserve a "
                        "ring array\n"
                        "error hint: lower ring_heap (runtime_env.ring_heap) or ring_task_window "
                        "(runtime_env.ring_task_window) for ring 2, or raise the address-space limit");
    assert_int_equal(err.ring, 2);
    create_and_run();
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_reserve_failure_names_ring_array_and_size),
    cmocka_unit_test(test_reserve_failure_message_is_exact),
};

PTO_TEST_MAIN(tests)
