/*
 * check.h - RT_ASSERT: the runtime's invariants, checked where they are
 * relied on.  Live in Debug and sanitizer builds (PTO_CHECKS), compiled out
 * otherwise.  A failed check is a broken invariant inside the library, not
 * a user error: it says where and aborts, the one exit library code has.
 */
#ifndef RT_CHECK_H
#define RT_CHECK_H

#if defined(PTO_CHECKS)
#define RT_ASSERT(cond) ((cond) ? (void)0 : rt_check_fail(#cond, __FILE__, __LINE__))
#else
#define RT_ASSERT(cond) ((void)sizeof(cond))
#endif

void rt_check_fail(const char *cond, const char *file, int line) __attribute__((noreturn));

#endif
