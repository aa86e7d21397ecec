/*
 * backoff.h - the blocking-op backoff (DISTRIBUTED-SPEC §2.5): how a thread that waits
 * for another rank spends the time between two looks at its condition.
 *
 * Test back to back for BASE_BACKOFF_SPIN_NS, then sched_yield between tests until
 * BASE_BACKOFF_YIELD_NS, then sleep doubling from 50 us to 1 ms.  The yield phase outlasts
 * two of the longest sleeps (with the timer's slack): a rank whose peer answers only after
 * a sleep still sees the answer before it sleeps itself, so two ranks answering each other
 * do not settle into paying a sleep per hop (measured on am: 800 us one-way with a 1 ms
 * yield phase, 14 us with 3 ms; host calls pay it at every collective of a call).
 */
#ifndef BASE_BACKOFF_H
#define BASE_BACKOFF_H

#include <sched.h>
#include <stdint.h>
#include <time.h>

#include "base/clock.h"

#define BASE_BACKOFF_SPIN_NS 20000ull
#define BASE_BACKOFF_YIELD_NS 3000000ull

typedef struct base_backoff {
    uint64_t start, sleep_us;
} base_backoff;

static inline base_backoff base_backoff_begin(void) { return (base_backoff){base_now_ns(), 0}; }

/* Whether the wait is still in its spin phase at now (the caller's slow checks may wait). */
static inline int base_backoff_spinning(const base_backoff *b, uint64_t now) { return now - b->start < BASE_BACKOFF_SPIN_NS; }

/* Whether the wait has reached its sleep phase at now (it is blocked, not just slow). */
static inline int base_backoff_sleeping(const base_backoff *b, uint64_t now) { return now - b->start >= BASE_BACKOFF_YIELD_NS; }

/* The next sleep of the sleep phase, in microseconds (50, 100, ... 1000, 1000, ...). */
static inline uint64_t base_backoff_next_sleep_us(base_backoff *b)
{
    b->sleep_us = b->sleep_us ? (b->sleep_us * 2 > 1000 ? 1000 : b->sleep_us * 2) : 50;
    return b->sleep_us;
}

/* Spends the time until the next test as the phase at now says. */
static inline void base_backoff_pause(base_backoff *b, uint64_t now)
{
    if (base_backoff_spinning(b, now)) return;
    if (!base_backoff_sleeping(b, now)) {
        sched_yield();
        return;
    }
    struct timespec ts = {0, (long)base_backoff_next_sleep_us(b) * 1000};
    nanosleep(&ts, NULL);
}

#endif
