/* The parts of `swsearch search` that `swsearch serve` shares: the search
 * and report of one request, and the -v summary; the options are in
 * cli_search_args.h. */
#ifndef CLI_SEARCH_H
#define CLI_SEARCH_H

#include <stdint.h>
#include <stdio.h>

#include "cli_common.h"
#include "cli_search_args.h"
#include "sw_db.h"
#include "sw_queries.h"
#include "sw_report.h"
#include "sw_resident.h"

/* Searches `queries` against `db` (named `db_path` in headers) as `a` asks
 * and writes the report to `out`. `resident` (may be NULL) holds the
 * database decoded and on the GPU; `progress` may be NULL. */
int cli_search_report(const search_args *a, const char *db_path, sw_db *db, sw_resident *resident,
                      sw_query_reader *queries, FILE *out, void (*note)(void *, const char *), void *note_user,
                      cli_progress *progress, sw_report_summary *summary, sw_error *err);

/* The -v lines: cells, engine, times; `whole` names the last figure. */
void cli_search_summary(FILE *to, const sw_db *db, const sw_report_summary *summary, double seconds,
                        const char *whole);

#endif
