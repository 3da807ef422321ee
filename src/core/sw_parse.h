/* The one strict number parser, for command lines, environment values and
 * text formats: the whole text must be a decimal integer in range (or a
 * size with its unit); and the messages of every program's command line. */
#ifndef SW_PARSE_H
#define SW_PARSE_H

#include <getopt.h>
#include <stdint.h>

#include "sw_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Parses `text` as a decimal integer in [min, max] (strtol's syntax:
 * leading blanks and a sign allowed, nothing after the digits). SW_OK with
 * *out set, or SW_EINVAL with *out unchanged for an empty text, trailing
 * characters, overflow or a value out of range; the caller words the
 * message, as only it knows what the number is for. */
int sw_parse_long(const char *text, long min, long max, long *out);

/* Parses `text` as a size in bytes: decimal digits and an optional K, M, G
 * or T (powers of 1024), which B or iB may follow, at least `min` bytes.
 * SW_OK with *out set, or SW_EINVAL with *out unchanged. */
int sw_parse_size(const char *text, uint64_t min, uint64_t *out);

/* Command-line options (getopt_long), worded alike by every program
 * (swsearch, makedb). Each function returns SW_OK, or SW_EINVAL with the
 * message in `err` for the program to print after its name: a usage error. */

/* A whole number for OPTION: "OPTION needs a whole number from MIN to MAX,
 * not 'TEXT'". */
int sw_parse_option_long(const char *option, const char *text, long min, long max, long *out, sw_error *err);
/* A size for OPTION (sw_parse_size): "OPTION takes a size of at least N MiB
 * such as 512M or 20G, not 'TEXT'". */
int sw_parse_option_size(const char *option, const char *text, uint64_t min, uint64_t *out, sw_error *err);

/* Every option is given at most once: a repeated one is more often a slip
 * (a pasted command line, a second -d) than a wish for the last value. A
 * parse loop passes each value getopt_long returns, with a zeroed
 * sw_options_seen; ':' and '?' pass, for sw_parse_option_error(). */
typedef struct sw_options_seen {
    uint64_t bits[8]; /* by getopt value: short options < 256, long-only ones from 256 */
} sw_options_seen;
/* "option -d/--db given twice", "option --level given twice". */
int sw_parse_option_once(sw_options_seen *seen, int c, const struct option *longopts, sw_error *err);

/* The message for getopt_long's ':' (a value missing) or '?' (an option
 * unknown), called right after it returned (it reads optind and optopt), with
 * opterr = 0 and ':' first in the short options: "option '--top' needs a
 * value; see 'HELP'", "unknown option '--bogus'; see 'HELP'". */
int sw_parse_option_error(int c, char *const *argv, const char *help, sw_error *err);

#ifdef __cplusplus
}
#endif

#endif
