/* The -o output of the swsearch commands: standard output, a descriptor or a
 * device written in place, or a regular file replaced atomically once the
 * run has succeeded, and never one of the run's own inputs. */
#ifndef CLI_OUTPUT_H
#define CLI_OUTPUT_H

#include <stddef.h>
#include <stdio.h>

#include "sw_error.h"
#include "swsearch.h"

/* A file the command reads, which -o must not replace. */
typedef struct cli_input {
    const char *role;  /* for messages: "the query file", "the database" */
    const char *path;  /* the file, "-" for standard input, or the database
                        * prefix; NULL: no such input in this run */
    const sw_db *db;   /* an open database: compared by its files, path only
                        * names it */
} cli_input;

typedef enum { CLI_OUT_STDOUT, CLI_OUT_IN_PLACE, CLI_OUT_REPLACE } cli_output_kind;

/* What a stream's writes failed with: stdio keeps only an error flag, and
 * errno is long overwritten by the time a caller notices it. */
typedef struct cli_output_sink cli_output_sink;

typedef struct cli_output {
    FILE *file;
    cli_output_kind kind;
    const char *option; /* the option that named it, for messages: "-o", "--plot" */
    const char *name;   /* the path as the user gave it, for messages */
    cli_output_sink *sink;
    char *target;       /* CLI_OUT_REPLACE: the regular file to replace */
    char *temp;         /* a named temporary of the target, NULL while unnamed */
    int temp_slot;      /* its sw_cleanup slot, meaningful while temp is set */
} cli_output;

/* Opens the output named `path`:
 * - NULL or "-": standard output;
 * - /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: that descriptor;
 * - a character device, FIFO or socket (after following every symlink):
 *   written in place;
 * - a regular file, existing or new (a symlink's target, not the link):
 *   written to an unnamed temporary in its directory that replaces it at
 *   commit, keeping the old file's mode (and owner, for root).
 * Refuses a directory, a block device, an existing file the user cannot
 * write, a database file, and any of the `inputs`. Nothing that exists
 * changes before cli_output_commit(). */
int cli_output_open(cli_output *o, const char *path, const cli_input *inputs, size_t num_inputs,
                    sw_error *err);
/* The same for the file of another option (--plot, --map), which its
 * messages name instead of -o. */
int cli_output_open_option(cli_output *o, const char *option, const char *path, const cli_input *inputs,
                           size_t num_inputs, sw_error *err);
/* After a run that wrote to o->file ended with `rc`: where a write failed,
 * `err` says "PATH: error writing results: REASON" (the system's reason)
 * and SW_EIO comes back, whatever the run said; else `rc`. */
int cli_output_check(cli_output *o, int rc, sw_error *err);
/* Flushes and, for a regular file, puts it in place by one rename. */
int cli_output_commit(cli_output *o, sw_error *err);
/* Drops the output; the target stays as it was. Safe on a zeroed struct. */
void cli_output_abort(cli_output *o);

#endif
