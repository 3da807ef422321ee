/* The parts of `swsearch search` that `swsearch serve` shares: a search's
 * settings from its options, and the -v summary; the options are in
 * cli_search_args.h. */
#ifndef CLI_SEARCH_H
#define CLI_SEARCH_H

#include <stdio.h>

#include "cli_common.h"
#include "cli_search_args.h"
#include "swsearch.h"

/* Gives `s` every setting that `a` asks for: scoring, statistics, limits,
 * engines and GPUs; `note` hears the search's messages and `warn` the
 * warnings about the queries (both with `user`); `progress` may be NULL. */
int cli_search_configure(sw_search *s, const search_args *a, sw_message_fn note, sw_message_fn warn, void *user,
                         cli_progress *progress, sw_error *err);

/* The -v lines: cells, engine, times; `whole` names the last figure. */
void cli_search_summary(FILE *to, const sw_db *db, const sw_search_summary *summary, double seconds,
                        const char *whole);

#endif
