/*
 * warn.c - warnings (see warn.h).  A warning is formatted into a buffer
 * first, so a callback gets the whole text and stderr gets it in one write.
 */
#include "runtime/warn.h"

#include <stdarg.h>
#include <stdio.h>

static const struct {
    int code;
    const char *name;
} rt_warnings[] = {
#define RT_WARNING_ROW_(name, code, text) {code, #name},
    PTO_WARNING_LIST(RT_WARNING_ROW_)
#undef RT_WARNING_ROW_
};

const char *pto_warning_name(int code)
{
    for (size_t i = 0; i < sizeof rt_warnings / sizeof rt_warnings[0]; i++)
        if (rt_warnings[i].code == code) return rt_warnings[i].name;
    return "UNKNOWN";
}

void rt_warn(const pto_config *cfg, pto_warning code, const char *fmt, ...)
{
    char text[4096 + 256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (cfg && cfg->warning) cfg->warning(cfg->warning_ctx, code, text);
    else fprintf(stderr, "%s\n", text);
}
