/*
 * sync.h - the few waiting primitives the runtime builds on (with
 * base_now_ns, the monotonic clock): a CPU pause for spin loops, Linux futex wait/wake on a 32-bit
 * atomic, and a tiny test-and-set spinlock.
 *
 * Futexes only put threads to sleep; all data is published with C11 atomics,
 * so a spurious or early wake-up is always harmless.
 */
#ifndef RT_SYNC_H
#define RT_SYNC_H

#include <linux/futex.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"

#define RT_CACHE_LINE 64
#define RT_SPIN_US 50

static inline void rt_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Sleeps while *word == expected, at most timeout_ns (0 = no bound). */
static inline void rt_futex_wait(_Atomic uint32_t *word, uint32_t expected, uint64_t timeout_ns)
{
    struct timespec ts, *tp = NULL;
    if (timeout_ns) {
        ts.tv_sec = (time_t)(timeout_ns / 1000000000ull);
        ts.tv_nsec = (long)(timeout_ns % 1000000000ull);
        tp = &ts;
    }
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, expected, tp, NULL, 0);
}

/* Wakes up to n sleepers on word (n = INT32_MAX: all). */
static inline void rt_futex_wake(_Atomic uint32_t *word, int n)
{
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

/* Test-and-test-and-set spinlock: held for a few instructions only. */
typedef _Atomic uint32_t rt_spinlock;

static inline void rt_spin_lock(rt_spinlock *l)
{
    for (;;) {
        if (!atomic_exchange_explicit(l, 1, memory_order_acquire)) return;
        while (atomic_load_explicit(l, memory_order_relaxed)) rt_cpu_relax();
    }
}

static inline int rt_spin_trylock(rt_spinlock *l)
{
    return !atomic_load_explicit(l, memory_order_relaxed) &&
           !atomic_exchange_explicit(l, 1, memory_order_acquire);
}

static inline void rt_spin_unlock(rt_spinlock *l)
{
    atomic_store_explicit(l, 0, memory_order_release);
}

#endif
