/*
 * stats_report.h - the three ways to print a summary (terminal text, one
 * JSON object, a self-contained HTML page) and the command line that picks
 * among them.  Writers only print what ss_summary_build decided.
 */
#ifndef SS_STATS_REPORT_H
#define SS_STATS_REPORT_H

#include <stdio.h>

#include "stats_file.h"
#include "stats_summary.h"

/* Terminal summary, sections in the order of docs/tools.md, "The summary".  SS_OK or SS_EINPUT (write error). */
int ss_text_write(FILE *out, const ss_data *d, const ss_summary *s);

/* The summary as one JSON object: header, top_peaks, verdicts, suggested. */
int ss_json_write(FILE *out, const ss_data *d, const ss_summary *s);

/* The HTML page (inline CSS and SVG; no script, no URL). */
int ss_html_write(FILE *out, const ss_data *d, const ss_summary *s);

/* Several files side by side (the ranks of a distributed call, stats_ranks.c): d[k], s[k] the
 * k-th of n, read from paths[k].  SS_OK or SS_EINPUT (write error). */
int ss_ranks_write(FILE *out, const ss_data *d, const ss_summary *s, const char *const *paths, int n);

/* The whole CLI: `pto-scope-stats FILE [--html OUT] [--json] [--headroom F]`, or several FILEs
 * side by side (no --html, no --json).
 * Summary on out, warnings and errors on err; returns the exit code
 * (0 report written, 1 invalid input, 2 usage). */
int ss_cli_run(int argc, char **argv, FILE *out, FILE *err);

#endif
