/*
 * fault_alloc.h - refusing allocations in a test executable linked with
 * ld --wrap=malloc,calloc,realloc,free (tests/c/CMakeLists.txt): every
 * allocation of the code under test goes through the wrappers below.
 * While armed they count allocations, refuse the fail_at-th (NULL with
 * errno ENOMEM, as glibc does) or, when persistent, that one and every
 * later one, and remember each block handed out until it is freed (frees
 * are forgotten armed or not), so a test can check that nothing stays
 * held.  Thread-safe: a run's workers allocate too.  Production code
 * carries no hook for this.  Include in one file per executable.
 */
#ifndef PTO_TEST_FAULT_ALLOC_H
#define PTO_TEST_FAULT_ALLOC_H

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);

static atomic_int fault_on;
static atomic_int fault_persistent;
static atomic_size_t fault_ncalls;   /* allocations while armed */
static atomic_size_t fault_fail_at;  /* 1-based; 0 = refuse none */
static atomic_size_t fault_nrefused;

/* Blocks handed out while armed and not yet freed: an open-addressing set
 * of pointers (FAULT_GONE marks a freed slot). */
#define FAULT_LIVE_CAP (1u << 16)
#define FAULT_GONE ((void *)1)
static pthread_mutex_t fault_live_lock = PTHREAD_MUTEX_INITIALIZER;
static void *fault_live[FAULT_LIVE_CAP];
static size_t fault_nlive;
static int fault_full;

static size_t fault_slot(const void *p) { return ((uintptr_t)p >> 4) * 0x9E3779B97F4A7C15ull >> 48; }

static void fault_remember(void *p)
{
    if (!p || !atomic_load(&fault_on)) return;
    pthread_mutex_lock(&fault_live_lock);
    if (fault_nlive >= FAULT_LIVE_CAP / 2) {
        fault_full = 1;
    } else {
        size_t i = fault_slot(p);
        while (fault_live[i] && fault_live[i] != FAULT_GONE) i = (i + 1) & (FAULT_LIVE_CAP - 1);
        fault_live[i] = p;
        fault_nlive++;
    }
    pthread_mutex_unlock(&fault_live_lock);
}

static void fault_forget(void *p)
{
    if (!p) return;
    pthread_mutex_lock(&fault_live_lock);
    for (size_t i = fault_slot(p); fault_live[i]; i = (i + 1) & (FAULT_LIVE_CAP - 1))
        if (fault_live[i] == p) {
            fault_live[i] = FAULT_GONE;
            fault_nlive--;
            break;
        }
    pthread_mutex_unlock(&fault_live_lock);
}

static int fault_refuse(void)
{
    if (!atomic_load(&fault_on)) return 0;
    size_t n = atomic_fetch_add(&fault_ncalls, 1) + 1, at = atomic_load(&fault_fail_at);
    if (!at || n < at || (n > at && !atomic_load(&fault_persistent))) return 0;
    atomic_fetch_add(&fault_nrefused, 1);
    errno = ENOMEM;
    return 1;
}

void *__wrap_malloc(size_t n)
{
    void *p = fault_refuse() ? NULL : __real_malloc(n);
    fault_remember(p);
    return p;
}

void *__wrap_calloc(size_t n, size_t size)
{
    void *p = fault_refuse() ? NULL : __real_calloc(n, size);
    fault_remember(p);
    return p;
}

void *__wrap_realloc(void *old, size_t n)
{
    if (fault_refuse()) return NULL; /* the old block stays, as glibc leaves it */
    void *p = __real_realloc(old, n);
    if (p || !n) fault_forget(old);
    fault_remember(p);
    return p;
}

void __wrap_free(void *p)
{
    fault_forget(p);
    __real_free(p);
}

/* Clears the counts and the held set, then arms: refuse allocation fail_at
 * (0: none; persistent: and every later one). */
static inline void fault_arm(size_t fail_at, int persistent)
{
    pthread_mutex_lock(&fault_live_lock);
    memset(fault_live, 0, sizeof fault_live);
    fault_nlive = 0;
    fault_full = 0;
    pthread_mutex_unlock(&fault_live_lock);
    atomic_store(&fault_ncalls, 0);
    atomic_store(&fault_nrefused, 0);
    atomic_store(&fault_persistent, persistent);
    atomic_store(&fault_fail_at, fail_at);
    atomic_store(&fault_on, 1);
}

/* Stops counting and refusing; the held set keeps forgetting frees. */
static inline void fault_disarm(void) { atomic_store(&fault_on, 0); }

/* Arms again without clearing anything, refusing nothing (to track frees). */
static inline void fault_track_only(void)
{
    atomic_store(&fault_fail_at, 0);
    atomic_store(&fault_on, 1);
}

static inline size_t fault_calls(void) { return atomic_load(&fault_ncalls); }
static inline size_t fault_refused(void) { return atomic_load(&fault_nrefused); }
/* Blocks allocated while armed and not freed since; -1 when the set overflowed. */
static inline long fault_held(void)
{
    pthread_mutex_lock(&fault_live_lock);
    long n = fault_full ? -1 : (long)fault_nlive;
    pthread_mutex_unlock(&fault_live_lock);
    return n;
}

#endif
