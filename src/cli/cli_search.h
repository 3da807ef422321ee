/* The parts of `swsearch search` that `swsearch serve` shares: the options,
 * the search and report of one request, and the -v summary. */
#ifndef CLI_SEARCH_H
#define CLI_SEARCH_H

#include <stdint.h>
#include <stdio.h>

#include "cli_common.h"
#include "sw_db.h"
#include "sw_queries.h"
#include "sw_report.h"
#include "sw_resident.h"

typedef struct search_args {
    const char *query_path, *db_path, *out_path, *matrix, *outfmt, *server_path;
    long top, gap_open, gap_extend, threads;
    cli_gpus gpus; /* --gpus or --gpu; none given: every GPU */
    uint64_t gpu_memory; /* --gpu-memory; 0: not given */
    double evalue;
    int stats;
    uint32_t threshold;
    int cpu_engine, device, verbose;
} search_args;

/* Parses `swsearch search` options (argv[0] is the command's name). A
 * server's request (`for_server`) must not name files. CLI_EXIT_OK,
 * CLI_EXIT_USAGE after an error message, or -1 after --help. */
int cli_search_parse(int argc, char **argv, int for_server, search_args *a);

/* The search options of `a` as arguments that cli_search_parse() takes back
 * (for a server): argv[0] is "search"; free with cli_wire_free_args(). 0, or
 * -1 when out of memory. */
int cli_search_forward_args(const search_args *a, int *argc, char ***argv);

/* Searches `queries` against `db` (named `db_path` in headers) as `a` asks
 * and writes the report to `out`. `resident` (may be NULL) holds the
 * database decoded and on the GPU; `progress` may be NULL. */
int cli_search_report(const search_args *a, const char *db_path, sw_db *db, sw_resident *resident,
                      sw_query_reader *queries, FILE *out, void (*note)(void *, const char *), void *note_user,
                      cli_progress *progress, sw_report_summary *summary, sw_error *err);

/* The -v lines: cells, engine, times; `whole` names the last figure. */
void cli_search_summary(FILE *to, const sw_db *db, const sw_report_summary *summary, double seconds,
                        const char *whole);

/* `swsearch search --server`: sends the request, writes the answer. */
int cli_search_client(const search_args *a);

#endif
