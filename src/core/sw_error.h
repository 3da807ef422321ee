/* Error codes and error details shared by every swsearch module.
 * Library code never prints or exits: it returns a negative SW_E* code and,
 * where the caller passed an sw_error, a message naming file, line and problem. */
#ifndef SW_ERROR_H
#define SW_ERROR_H

#include <stddef.h>

#include "swsearch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The codes (SW_OK, SW_E*), struct sw_error and sw_strerror() are the
 * public API's (include/swsearch.h). */

/* Receives non-fatal diagnostics (an empty sequence skipped, ...). */
typedef void (*sw_warn_fn)(void *user, const char *message);

/* Fills `err` (which may be NULL) and returns `code`, so callers can write
 * `return sw_error_set(err, SW_EFORMAT, "%s:%lu: ...", ...);`. */
int sw_error_set(sw_error *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Clears `err` (which may be NULL). */
void sw_error_clear(sw_error *err);

/* Input bytes made fit for a message: s[0..n-1] into dst (cap bytes, always
 * terminated), bytes outside printable ASCII as \xHH, cut with "..." past
 * `shown_max` bytes. */
void sw_error_quote(char *dst, size_t cap, const void *s, size_t n, size_t shown_max);

#ifdef __cplusplus
}
#endif

#endif
