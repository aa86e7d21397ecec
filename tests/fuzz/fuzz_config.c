/*
 * fuzz_config.c - libFuzzer harness for the configuration rules
 * (include/pto/config.h): pto_config_check on arbitrary pto_config values,
 * the per-value RunConfig checks (pto_config_check_ring_value,
 * _ring_list_len, _num_workers, _stall_timeout), and pto_runtime_create on
 * the configs that pass and are cheap to build.
 *
 * Rules every call must keep (a broken one aborts):
 *   - the result is 0 or -1, and equals an independent statement of the
 *     rules of docs/runtime.md, "Sizing" (fz_cfg_expect below);
 *   - msg is NUL-terminated inside len, no byte past len is written, a
 *     failure leaves a non-empty message (len >= 2), a success an empty one;
 *   - a whole-config failure names the first failing field, in table order;
 *   - a config that passes creates a runtime (when its rings are small) whose
 *     resolved config keeps every non-zero field and fills the defaults, and
 *     which finishes an empty run with 0.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "pto/config.h"
#include "pto/runtime.h"

#define FZ_CHECK(cond, ...)                                                        \
    do {                                                                           \
        if (!(cond)) {                                                             \
            fprintf(stderr, "fuzz_config: rule broken: %s\n  ", #cond);            \
            fprintf(stderr, __VA_ARGS__);                                          \
            fputc('\n', stderr);                                                   \
            abort();                                                               \
        }                                                                          \
    } while (0)

enum { MSG_CAP = 512, CANARY = 0xA5 };

static const char *const fz_field_names[] = {"ring_task_window", "ring_heap", "ring_dep_pool",
                                             "num_workers", "stall_timeout_ms", "enable_scope_stats"};

/* ---- the rules, restated ------------------------------------------------ */

static int fz_pow2(uint64_t v) { return v && !(v & (v - 1)); }

/* A positive ring value (not the 0 "default") is accepted by field f. */
static int fz_ring_ok(int f, uint64_t v)
{
    switch (f) {
    case PTO_FIELD_RING_TASK_WINDOW: return fz_pow2(v) && v >= 4 && v <= PTO_MAX_TASK_WINDOW;
    case PTO_FIELD_RING_HEAP: return fz_pow2(v) && v >= 1024 && v <= PTO_MAX_HEAP;
    case PTO_FIELD_RING_DEP_POOL: return v >= 4 && v <= PTO_MAX_DEP_POOL;
    }
    return 0;
}

/* Index into fz_field_names of the first field cfg breaks, or -1. */
static int fz_cfg_expect(const pto_config *c)
{
    const uint64_t *rings[3] = {c->runtime_env.ring_task_window, c->runtime_env.ring_heap,
                                c->runtime_env.ring_dep_pool};
    for (int f = 0; f < 3; f++)
        for (int r = 0; r < PTO_NUM_RINGS; r++)
            if (rings[f][r] != 0 && !fz_ring_ok(f, rings[f][r])) return f;
    if (c->num_workers != 0 && (c->num_workers < 1 || c->num_workers > PTO_MAX_WORKERS)) return 3;
    if (c->stall_timeout_ms != 0 && c->stall_timeout_ms != -1 && c->stall_timeout_ms < 1) return 4;
    if (c->enable_scope_stats && (!c->output_prefix || !c->output_prefix[0])) return 5;
    return -1;
}

/* ---- the message buffer ------------------------------------------------- */

/* A buffer of len bytes (0..MSG_CAP) followed by canaries. */
typedef struct fz_msg {
    char buf[MSG_CAP + 16];
    size_t len;
} fz_msg;

static void fz_msg_reset(fz_msg *m, size_t len)
{
    memset(m->buf, CANARY, sizeof m->buf);
    m->len = len;
}

/* The buffer rules after a call that returned rc; what names the call. */
static void fz_msg_check(const fz_msg *m, int rc, const char *what)
{
    FZ_CHECK(rc == 0 || rc == -1, "%s returned %d", what, rc);
    for (size_t i = m->len; i < sizeof m->buf; i++)
        FZ_CHECK((unsigned char)m->buf[i] == CANARY, "%s wrote byte %zu of a %zu-byte buffer", what, i, m->len);
    if (m->len == 0) return;
    FZ_CHECK(memchr(m->buf, '\0', m->len) != NULL, "%s left no NUL in %zu bytes", what, m->len);
    if (rc == 0) FZ_CHECK(m->buf[0] == '\0', "%s succeeded with message \"%s\"", what, m->buf);
    if (rc == -1 && m->len >= 2) FZ_CHECK(m->buf[0] != '\0', "%s failed with an empty message", what);
}

/* The message (whole, in a MSG_CAP buffer) ends with "got <shown>". */
static void fz_msg_ends_with_got(const fz_msg *m, const char *shown, const char *what)
{
    char want[96];
    snprintf(want, sizeof want, "got %s", shown);
    size_t n = strlen(m->buf), k = strlen(want);
    FZ_CHECK(n >= k && strcmp(m->buf + n - k, want) == 0, "%s: message \"%s\" does not end with \"%s\"", what,
             m->buf, want);
}

/* ---- decoding ----------------------------------------------------------- */

static const char *const fz_prefixes[] = {NULL, "", "/dev/null/pto-fuzz-unwritable"};

/* A ring value: the rule's edges (each field's minimum and maximum and their
 * neighbours) as often as arbitrary 64-bit values. */
static uint64_t fz_ring_value(fuzz_input *in)
{
    static const uint64_t edges[] = {0, 1, 2, 3, 4, 5, 8, 1023, 1024, 1025, 2048, 65536,
                                     PTO_MAX_TASK_WINDOW, PTO_MAX_TASK_WINDOW * 2, PTO_MAX_HEAP,
                                     PTO_MAX_HEAP * 2, PTO_MAX_DEP_POOL, PTO_MAX_DEP_POOL + 1};
    uint8_t sel = fuzz_u8(in);
    if (sel < 128) return edges[sel % (sizeof edges / sizeof edges[0])];
    return fuzz_edge_u64(in);
}

static void fz_decode_config(fuzz_input *in, pto_config *c)
{
    memset(c, 0, sizeof *c);
    for (int r = 0; r < PTO_NUM_RINGS; r++) {
        c->runtime_env.ring_task_window[r] = fz_ring_value(in);
        c->runtime_env.ring_heap[r] = fz_ring_value(in);
        c->runtime_env.ring_dep_pool[r] = fz_ring_value(in);
    }
    c->num_workers = (int)(int64_t)fuzz_edge_u64(in);
    c->stall_timeout_ms = (int)(int64_t)fuzz_edge_u64(in);
    uint8_t flags = fuzz_u8(in);
    c->enable_scope_stats = flags & 1 ? (int)(flags >> 4) - 8 : 0; /* any int, 0 often */
    c->output_prefix = fz_prefixes[(flags >> 1) % 3];
    c->log_ring_sizes = (flags >> 3) & 1;
}

/* ---- runtime creation --------------------------------------------------- */

typedef struct fz_warnings {
    int count, ring_sizes;
} fz_warnings;

static void fz_on_warning(void *ctx, pto_warning code, const char *text)
{
    fz_warnings *w = ctx;
    FZ_CHECK(text && text[0], "warning %d without text", (int)code);
    w->count++;
    w->ring_sizes += code == PTO_WARNING_RING_SIZES && strncmp(text, "Ring buffer sizes:", 18) == 0;
}

/* Small enough to create in a fuzz iteration. */
static int fz_cheap(const pto_config *c)
{
    for (int r = 0; r < PTO_NUM_RINGS; r++)
        if (!c->runtime_env.ring_task_window[r] || c->runtime_env.ring_task_window[r] > 1024 ||
            !c->runtime_env.ring_heap[r] || c->runtime_env.ring_heap[r] > (1u << 20) ||
            !c->runtime_env.ring_dep_pool[r] || c->runtime_env.ring_dep_pool[r] > 65536)
            return 0;
    return c->num_workers >= 1 && c->num_workers <= 2;
}

static void fz_create(const pto_config *in_cfg)
{
    pto_config c = *in_cfg;
    fz_warnings w = {0, 0};
    c.warning = fz_on_warning;
    c.warning_ctx = &w;
    pto_runtime *rt = NULL;
    pto_error err;
    int rc = pto_runtime_create(&c, &rt, &err);
    FZ_CHECK(rc == 0 || rc == -PTO_RESERVE_FAILED, "pto_runtime_create of a checked config: %d: %s", rc,
             err.message);
    if (rc != 0) return;
    const pto_config *res = pto_runtime_config(rt);
    for (int r = 0; r < PTO_NUM_RINGS; r++) {
        FZ_CHECK(res->runtime_env.ring_task_window[r] == c.runtime_env.ring_task_window[r] &&
                     res->runtime_env.ring_heap[r] == c.runtime_env.ring_heap[r] &&
                     res->runtime_env.ring_dep_pool[r] == c.runtime_env.ring_dep_pool[r],
                 "ring %d resolved to other sizes than given", r);
    }
    FZ_CHECK(res->num_workers == c.num_workers, "num_workers %d resolved to %d", c.num_workers, res->num_workers);
    FZ_CHECK(c.stall_timeout_ms ? res->stall_timeout_ms == c.stall_timeout_ms
                                : res->stall_timeout_ms == PTO_DEFAULT_STALL_TIMEOUT_MS,
             "stall_timeout_ms %d resolved to %d", c.stall_timeout_ms, res->stall_timeout_ms);
    FZ_CHECK(w.ring_sizes == (c.log_ring_sizes != 0), "log_ring_sizes %d gave %d size lines", c.log_ring_sizes,
             w.ring_sizes);
    rc = pto_runtime_finish(rt);
    FZ_CHECK(rc == 0, "an empty run finished with %d: %s", rc, pto_runtime_error(rt)->message);
    pto_runtime_destroy(rt);
}

/* ---- the per-value checks ------------------------------------------------ */

static void fz_value_checks(fuzz_input *in)
{
    static const char *const shown_forms[] = {NULL, "True", "1.5", "'x'", ""};
    fz_msg m;
    while (!fuzz_empty(in)) {
        uint8_t op = fuzz_u8(in);
        size_t len = op & 0x80 ? fuzz_below(in, MSG_CAP + 1) : MSG_CAP;
        int is_int = (op & 0x40) ? 0 : 1;
        const char *shown = shown_forms[fuzz_below(in, 5)];
        int64_t value = (int64_t)fuzz_edge_u64(in);
        int rc, want;
        char printed[32];
        snprintf(printed, sizeof printed, "%" PRId64, value);
        fz_msg_reset(&m, len);
        switch (op % 4) {
        case 0: {
            int field = (int)fuzz_below(in, 5) - 1; /* -1..3: two are no field */
            int entry = (int)fuzz_below(in, 7) - 2; /* -2..4: -1 scalar, 4 past the list */
            rc = pto_config_check_ring_value((pto_ring_field)field, entry, is_int, value, shown, m.buf, m.len);
            fz_msg_check(&m, rc, "pto_config_check_ring_value");
            int known = field >= 0 && field < 3 && entry < PTO_NUM_RINGS;
            want = !known ? -1
                   : !is_int ? -1
                   : entry >= 0 && value == 0 ? 0
                   : value > 0 && fz_ring_ok(field, (uint64_t)value) ? 0 : -1;
            FZ_CHECK(rc == want, "ring value %s field %d entry %d is_int %d: rc %d, rules say %d", printed, field,
                     entry, is_int, rc, want);
            if (rc && known && len == MSG_CAP) {
                FZ_CHECK(strncmp(m.buf, fz_field_names[field], strlen(fz_field_names[field])) == 0,
                         "message \"%s\" does not name %s", m.buf, fz_field_names[field]);
                fz_msg_ends_with_got(&m, shown ? shown : printed, "pto_config_check_ring_value");
            }
            break;
        }
        case 1: {
            int field = (int)fuzz_below(in, 5) - 1;
            size_t n = (size_t)fuzz_edge_u64(in);
            rc = pto_config_check_ring_list_len((pto_ring_field)field, n, m.buf, m.len);
            fz_msg_check(&m, rc, "pto_config_check_ring_list_len");
            want = field >= 0 && field < 3 && n == PTO_NUM_RINGS ? 0 : -1;
            FZ_CHECK(rc == want, "list of %zu for field %d: rc %d, rules say %d", n, field, rc, want);
            break;
        }
        case 2:
            rc = pto_config_check_num_workers(is_int, value, shown, m.buf, m.len);
            fz_msg_check(&m, rc, "pto_config_check_num_workers");
            want = is_int && value >= 1 && value <= PTO_MAX_WORKERS ? 0 : -1;
            FZ_CHECK(rc == want, "num_workers %s is_int %d: rc %d, rules say %d", printed, is_int, rc, want);
            if (rc && len == MSG_CAP) fz_msg_ends_with_got(&m, shown ? shown : printed, "num_workers");
            break;
        default:
            rc = pto_config_check_stall_timeout(is_int, value, shown, m.buf, m.len);
            fz_msg_check(&m, rc, "pto_config_check_stall_timeout");
            want = is_int && (value == -1 || (value >= 1 && value <= INT_MAX)) ? 0 : -1;
            FZ_CHECK(rc == want, "stall_timeout_ms %s is_int %d: rc %d, rules say %d", printed, is_int, rc, want);
            if (rc && len == MSG_CAP) fz_msg_ends_with_got(&m, shown ? shown : printed, "stall_timeout_ms");
            break;
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in = {data, size};
    uint8_t mode = fuzz_u8(&in);
    pto_config c;
    fz_decode_config(&in, &c);
    int expect = fz_cfg_expect(&c);

    fz_msg m;
    fz_msg_reset(&m, MSG_CAP);
    int rc = pto_config_check(&c, m.buf, m.len);
    fz_msg_check(&m, rc, "pto_config_check");
    FZ_CHECK(rc == (expect < 0 ? 0 : -1), "pto_config_check returned %d, the rules say field %d fails; \"%s\"", rc,
             expect, m.buf);
    if (rc)
        FZ_CHECK(strncmp(m.buf, fz_field_names[expect], strlen(fz_field_names[expect])) == 0,
                 "message \"%s\" does not start with the first failing field, %s", m.buf,
                 fz_field_names[expect]);

    /* The same call into a short buffer: same result, cut message. */
    size_t len = fuzz_below(&in, 64);
    fz_msg short_msg;
    fz_msg_reset(&short_msg, len);
    int rc2 = pto_config_check(&c, len ? short_msg.buf : NULL, len);
    if (len) fz_msg_check(&short_msg, rc2, "pto_config_check (short buffer)");
    FZ_CHECK(rc2 == rc, "a %zu-byte buffer changed the result: %d then %d", len, rc, rc2);
    if (rc && len) FZ_CHECK(strncmp(short_msg.buf, m.buf, len - 1) == 0, "the cut message differs");

    if (rc == 0 && (mode & 1) && fz_cheap(&c)) fz_create(&c);
    fz_value_checks(&in);
    return 0;
}
