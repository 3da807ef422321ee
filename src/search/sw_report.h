/* Writes search results as a TSV table, one line per hit. */
#ifndef SW_REPORT_H
#define SW_REPORT_H

#include <stdio.h>

#include "sw_db.h"
#include "sw_queries.h"
#include "sw_search.h"

/* Columns: query_id, query_length, rank, score, subject_id, subject_length,
 * subject_description, after one header line. */
int sw_report_write_tsv(FILE *out, const sw_db *db, const sw_query_set *queries,
                        const sw_search_results *results, sw_error *err);

#endif
