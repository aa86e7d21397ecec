/*
 * main.c - pto-scope-stats: summary, JSON and HTML report of a scope stats
 * file (see docs/tools.md).  All logic lives in the ss_ library.
 */
#include <stdio.h>

#include "stats_report.h"

int main(int argc, char **argv)
{
    return ss_cli_run(argc, argv, stdout, stderr);
}
