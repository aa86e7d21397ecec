/*
 * stats_style.h - the stylesheet inlined into the report page.
 */
#ifndef SS_STATS_STYLE_H
#define SS_STATS_STYLE_H

extern const char ss_style_css[];

#endif
