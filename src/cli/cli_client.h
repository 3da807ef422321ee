/* `swsearch search --server`: the request to a running `swsearch serve`. */
#ifndef CLI_CLIENT_H
#define CLI_CLIENT_H

#include "cli_search_args.h"

/* Sends the request, writes the answer as a direct search would; the exit
 * status. */
int cli_search_client(const search_args *a);

#endif
