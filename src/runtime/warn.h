/*
 * warn.h - the one way the library speaks besides errors: a warning with
 * its code goes to the configuration's callback, or to stderr as one line.
 * Nothing else in the library writes to stderr.
 */
#ifndef RT_WARN_H
#define RT_WARN_H

#include "pto/config.h"

/* Formats and delivers one warning through cfg (NULL: stderr). */
void rt_warn(const pto_config *cfg, pto_warning code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
