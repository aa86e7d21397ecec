/*
 * error.c - the error latch and the shape of every error message.
 *
 * The first fatal wins: a CAS from 0 on `status`; the winner formats the
 * message, then publishes it with error_ready.  Every message, latched or
 * returned by pto_runtime_create, comes from rt_error_format: the code's
 * header line, detail lines indented by two spaces, and three fixed lines
 * (the runtime status, the code's one-line meaning, the hint).  In a world
 * of more than one rank the header ends with "[rank <r> of <P>]".
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "runtime/error.h"

#include "runtime/comm.h"
#include "runtime/format.h"
#include "runtime/scope.h"

static const struct {
    int code;
    const char *name;
    const char *text; /* when it fires */
} rt_codes[] = {
#define RT_STATUS_ROW_(name, code, text) {code, #name, text},
    PTO_STATUS_LIST(RT_STATUS_ROW_)
#undef RT_STATUS_ROW_
};

static int rt_code_index(int code)
{
    if (code == INT_MIN) return -1; /* -code would overflow; no such status */
    if (code < 0) code = -code;
    for (size_t i = 0; i < sizeof rt_codes / sizeof rt_codes[0]; i++)
        if (rt_codes[i].code == code) return (int)i;
    return -1;
}

const char *pto_status_name(int code)
{
    int i = rt_code_index(code);
    return i < 0 ? "UNKNOWN" : rt_codes[i].name;
}

const char *pto_status_text(int code)
{
    int i = rt_code_index(code);
    return i < 0 ? "unknown status" : rt_codes[i].text;
}

int rt_error_latched(const pto_runtime *rt)
{
    return atomic_load_explicit(&((pto_runtime *)rt)->status, memory_order_acquire);
}

void rt_error_wake_all(pto_runtime *rt)
{
    atomic_fetch_add(&rt->ready_seq, 1);
    rt_futex_wake(&rt->ready_seq, INT32_MAX);
    atomic_fetch_add(&rt->done_seq, 1);
    rt_futex_wake(&rt->done_seq, INT32_MAX);
    for (int r = 0; r < PTO_NUM_RINGS; r++) rt_futex_wake(&rt->rings[r].last_alive, INT32_MAX);
}

void rt_error_format(pto_error *e, int code, int ring, const char *header, const char *details,
                     const char *hint)
{
    char *m = e->message;
    size_t cap = sizeof e->message, len = 0;
    m[0] = 0;
    const rt_comm_ops *world = rt_comm_transport(NULL);
    if (world->size > 1 && !strstr(header, "[rank ")) /* DISTRIBUTED-SPEC §2.7: which rank says it */
        base_appendf(m, cap, &len, "%s [rank %d of %d]\n", header, world->rank, world->size);
    else base_appendf(m, cap, &len, "%s\n", header);
    for (const char *p = details; p && *p;) {
        const char *nl = strchr(p, '\n');
        int n = nl ? (int)(nl - p) : (int)strlen(p);
        base_appendf(m, cap, &len, "  %.*s\n", n, p);
        p = nl ? nl + 1 : p + n;
    }
    base_appendf(m, cap, &len, "PTO runtime failed: error_code=%d runtime_status=%d\n", code, -code);
    base_appendf(m, cap, &len, "error detail: error_code=%d %s - %s\n", code, pto_status_name(code),
                 pto_status_text(code));
    base_appendf(m, cap, &len, "error hint: %s", hint);
    e->code = code;
    e->ring = ring;
}

int rt_error_fail(pto_runtime *rt, int code, int ring, const char *header, const char *details,
                  const char *hint)
{
    int expected = 0;
    if (!atomic_compare_exchange_strong(&rt->status, &expected, code)) return -expected;
    rt_error_format(&rt->error, code, ring, header, details, hint);
    atomic_store_explicit(&rt->error_ready, 1, memory_order_release);
    rt_error_wake_all(rt);
    return -code;
}

int rt_error_latch(pto_runtime *rt, const pto_error *e)
{
    int expected = 0;
    if (!atomic_compare_exchange_strong(&rt->status, &expected, e->code)) return -expected;
    rt->error = *e;
    atomic_store_explicit(&rt->error_ready, 1, memory_order_release);
    rt_error_wake_all(rt);
    return -e->code;
}

int rt_error_invalid(pto_runtime *rt, const char *call, const char *reason)
{
    char header[512], details[512], id[32], name[80] = "";
    const rt_scope *s = rt_scope_current(rt);
    rt_where at = rt_format_where(s->file, s->line, s->depth);
    rt_format_id(rt->submitting, id, sizeof id);
    if (rt->submitting_name) snprintf(name, sizeof name, " (%.64s)", rt->submitting_name);
    snprintf(header, sizeof header, "FATAL: Invalid Arguments! %s", reason);
    snprintf(details, sizeof details, "call: %s task=%s%s scope=%s depth=%s ring=%d", call, id,
             name, at.site, at.depth, s->ring);
    return rt_error_fail(rt, PTO_INVALID_ARGS, s->ring, header, details,
                   "this is an orchestration bug; no RunConfig field helps");
}
