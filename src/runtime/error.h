/*
 * error.h - the error latch: the first fatal wins, later ones change
 * nothing.  It only latches: freezing and writing the scope stats happens
 * at the API boundary (api.h).
 */
#ifndef RT_ERROR_H
#define RT_ERROR_H

#include "runtime/rt.h"

/* The latched code, 0 if none (any thread). */
int rt_error_latched(const pto_runtime *rt);
/* Writes the message of every error into e: a header line, detail lines
 * (separated by '\n', indented on output), the status lines and the hint. */
void rt_error_format(pto_error *e, int code, int ring, const char *header, const char *details,
                     const char *hint);
/* Latches code with a message made of a header line, detail lines (separated
 * by '\n', indented on output) and a hint; returns -(the winning code). */
int rt_error_fail(pto_runtime *rt, int code, int ring, const char *header, const char *details,
                  const char *hint);
/* Latches a message formatted elsewhere (rt_error_format: a transport's,
 * the host interpreter's); returns -(the winning code). */
int rt_error_latch(pto_runtime *rt, const pto_error *e);
/* INVALID_ARGS from the named call, with the current scope. */
int rt_error_invalid(pto_runtime *rt, const char *call, const char *reason);
/* Wakes every thread that may sleep, so it sees the latch. */
void rt_error_wake_all(pto_runtime *rt);

#endif
