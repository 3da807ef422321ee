/* Error codes and error details shared by every swsearch module.
 * Library code never prints or exits: it returns a negative SW_E* code and,
 * where the caller passed an sw_error, a message naming file, line and problem. */
#ifndef SW_ERROR_H
#define SW_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    SW_OK = 0,
    SW_ENOMEM = -1,      /* out of memory */
    SW_EIO = -2,         /* a read, write or rename failed */
    SW_EFORMAT = -3,     /* malformed input (FASTA, matrix, options) */
    SW_ECORRUPT = -4,    /* checksum mismatch or inconsistent database */
    SW_EVERSION = -5,    /* database written by an unsupported format version */
    SW_EINVAL = -6,      /* invalid argument */
    SW_ENOTFOUND = -7,   /* file or named resource does not exist */
    SW_ENODEV = -8,      /* no usable GPU */
    SW_EDEVICE = -9,     /* a GPU call failed */
    SW_ELIMIT = -10,     /* input beyond a documented limit */
    SW_EBUSY = -11       /* another process holds the lock (a database being written) */
};

/* Details of the last failure: `message` is ready for the user, for example
 * "sp.fasta:1042: invalid residue '#' in sequence P12345". */
typedef struct sw_error {
    int code;
    char message[1024];
} sw_error;

/* Receives non-fatal diagnostics (an empty sequence skipped, ...). */
typedef void (*sw_warn_fn)(void *user, const char *message);

const char *sw_strerror(int code);

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
