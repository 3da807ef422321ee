/* Helpers shared by the swsearch subcommands: messages, number parsing,
 * progress lines and output files that appear only when complete. */
#ifndef CLI_COMMON_H
#define CLI_COMMON_H

#include <stdint.h>
#include <stdio.h>

#include "sw_error.h"

enum { CLI_EXIT_OK = 0, CLI_EXIT_FAILURE = 1, CLI_EXIT_USAGE = 2 };

void cli_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* sw_warn_fn that prints "swsearch: warning: MESSAGE". */
void cli_warn(void *user, const char *message);

/* Strict decimal parsing: the whole text must be a number in [min, max]. */
int cli_parse_long(const char *option, const char *text, long min, long max, long *out);

/* A progress line on stderr, drawn only when stderr is a terminal. */
typedef struct cli_progress {
    int enabled;
    double start, last_draw;
    const char *label;
} cli_progress;
void cli_progress_init(cli_progress *p, const char *label);
void cli_progress_draw(cli_progress *p, uint64_t done, uint64_t total);
void cli_progress_end(cli_progress *p);
double cli_now(void);

/* An output file written under a temporary name and renamed on commit, so
 * a failed run leaves nothing behind. path NULL or "-" means stdout. */
typedef struct cli_output {
    FILE *file;
    char *final_path, *temp_path;
} cli_output;
int cli_output_open(cli_output *o, const char *path, sw_error *err);
int cli_output_commit(cli_output *o, sw_error *err);
void cli_output_abort(cli_output *o);

#endif
