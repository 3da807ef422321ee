/* The one strict number parser, for command lines, environment values and
 * text formats: the whole text must be a decimal integer in range (or a
 * size with its unit). */
#ifndef SW_PARSE_H
#define SW_PARSE_H

#include <stdint.h>

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

#ifdef __cplusplus
}
#endif

#endif
