/*
 * reserve.c - MAP_NORESERVE reservations (see reserve.h).
 */
#include "runtime/reserve.h"

#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

static _Thread_local int rt_reserve_fail_countdown;

static size_t rt_reserve_round(size_t bytes)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return (bytes + page - 1) / page * page;
}

void *rt_reserve(size_t bytes, int *err_no)
{
    if (rt_reserve_fail_countdown > 0 && --rt_reserve_fail_countdown == 0) {
        *err_no = ENOMEM;
        return NULL;
    }
    void *p = mmap(NULL, rt_reserve_round(bytes ? bytes : 1), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
        *err_no = errno;
        return NULL;
    }
    return p;
}

void rt_unreserve(void *p, size_t bytes)
{
    if (p) munmap(p, rt_reserve_round(bytes ? bytes : 1));
}

void rt_reserve_inject_failure(int countdown)
{
    rt_reserve_fail_countdown = countdown;
}
