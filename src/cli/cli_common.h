/* Helpers shared by the swsearch subcommands: messages, option and number
 * parsing, progress lines; the -o output lives in cli_output.h. */
#ifndef CLI_COMMON_H
#define CLI_COMMON_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#include "cli_output.h"
#include "sw_error.h"
#include "sw_parse.h"
#include "sw_progress.h"

enum { CLI_EXIT_OK = 0, CLI_EXIT_FAILURE = 1, CLI_EXIT_USAGE = 2 };

void cli_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* sw_warn_fn that prints "swsearch: warning: MESSAGE". */
void cli_warn(void *user, const char *message);

/* The messages of every option are sw_parse's, as makedb's are: each
 * function prints its message after "swsearch: " and returns nonzero. */

/* Strict decimal parsing: the whole text must be a number in [min, max]. */
int cli_parse_long(const char *option, const char *text, long min, long max, long *out);

/* A size in bytes: a whole number with an optional K, M, G or T (powers
 * of 1024, optionally followed by B or iB), at least `min` bytes. */
int cli_parse_size(const char *option, const char *text, uint64_t min, uint64_t *out);

/* The scoring of the protein commands (search, profile, calibrate) when
 * none is given is the library's (SW_DEFAULT_* in swsearch.h); their help
 * texts are written from the same macros. */
#define CLI_DEFAULT_MATRIX SW_DEFAULT_MATRIX
#define CLI_DEFAULT_GAP_OPEN SW_DEFAULT_GAP_OPEN
#define CLI_DEFAULT_GAP_EXTEND SW_DEFAULT_GAP_EXTEND
/* A number macro as text, for help texts: CLI_TEXT(CLI_DEFAULT_GAP_OPEN). */
#define CLI_TEXT(x) CLI_TEXT_(x)
#define CLI_TEXT_(x) #x
/* --gap-open G (0 to 255) and --gap-extend E (1 to 255) of those commands. */
int cli_parse_gap_open(const char *text, long *out);
int cli_parse_gap_extend(const char *text, long *out);

/* One of the words an option takes, and what it stands for. */
typedef struct cli_choice {
    const char *name;
    int value;
} cli_choice;
/* `text` must be one of choices[] (ended by a NULL name): its value goes to
 * *out; else "OPTION is 'a', 'b' or 'c', not 'TEXT'" and -1. */
int cli_parse_choice(const char *option, const char *text, const cli_choice *choices, int *out);
/* --device's words and their SW_DEVICE_* values (swsearch.h), for every
 * command that has the option. */
extern const cli_choice cli_device_choices[];

/* The GPUs a command uses, from --gpus all|N|LIST or --gpu ID, as
 * sw_search_set_gpus takes them. */
#define CLI_MAX_GPUS 64
typedef struct cli_gpus {
    int list[CLI_MAX_GPUS];
    /* With is_list, the entries of list; else the first `count` GPUs of
     * the machine (0: every one). */
    int count;
    int is_list;
    /* The option as given, for a server's request; option NULL when
     * neither was given. */
    const char *option;
    char value[16 * CLI_MAX_GPUS];
} cli_gpus;
/* --gpus TEXT: "all", a count N (the first N GPUs) or a list of CUDA
 * device numbers separated by commas (a number may repeat: several slices
 * of the database on one GPU). --gpu ID: that GPU alone. Either refuses
 * the other one given before it. 0, or -1 after an error message. */
int cli_parse_gpus(const char *text, cli_gpus *out);
int cli_parse_gpu(const char *text, cli_gpus *out);
/* "GPU 2", "GPUs 0,1", "the first 2 GPUs" or "every GPU". */
void cli_gpus_describe(const cli_gpus *g, char *buf, size_t cap);
/* 1 when both select the same GPUs in the same order. */
int cli_gpus_same(const cli_gpus *a, const cli_gpus *b);

/* Every option of every command is given at most once
 * (sw_parse_option_once). A command's parse loop passes each value
 * getopt_long returns to cli_option_once with a zeroed cli_options_seen. */
typedef sw_options_seen cli_options_seen;
/* 0 the first time; for a repeat, prints "option -d/--db given twice" and
 * returns CLI_EXIT_USAGE. getopt's ':' and '?' pass, for cli_option_error. */
int cli_option_once(cli_options_seen *seen, int c, const struct option *longopts);
/* For getopt_long's ':' and '?' in `swsearch COMMAND`: prints "option '--top'
 * needs a value; see 'swsearch search --help'" or "unknown option ..." and
 * returns CLI_EXIT_USAGE. */
int cli_option_error(int c, char **argv, const char *command);

/* "LABEL:  42.0%, about 12 s left" on stderr, drawn only when stderr is a
 * terminal. */
typedef struct cli_progress {
    sw_progress line;
    const char *label;
} cli_progress;
void cli_progress_init(cli_progress *p, const char *label);
void cli_progress_draw(cli_progress *p, uint64_t done, uint64_t total);
void cli_progress_end(cli_progress *p);

#endif
