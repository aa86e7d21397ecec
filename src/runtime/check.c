/*
 * check.c - what a failed RT_ASSERT does (see check.h).
 */
#include "runtime/check.h"

#include <stdio.h>
#include <stdlib.h>

void rt_check_fail(const char *cond, const char *file, int line)
{
    fprintf(stderr, "libpto: internal invariant broken at %s:%d: %s\n", file, line, cond);
    abort();
}
