/* What the files of the public API (include/swsearch.h) share: the check
 * that opens every function taking a handle. */
#ifndef SW_API_INTERNAL_H
#define SW_API_INTERNAL_H

#include "sw_error.h"

/* Clears `err` and refuses a NULL handle, naming the function and what it
 * lacks ("sw_search_run: no search given"). */
#define SW_API_CHECK(handle, fn, what)                                                                       \
    do {                                                                                                     \
        sw_error_clear(err);                                                                                 \
        if (!(handle)) return sw_error_set(err, SW_EINVAL, fn ": no " what " given");                        \
    } while (0)

#endif
