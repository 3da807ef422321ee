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

/* A warm-up of the public API (sw_gpus_warm) around the engines' own
 * (sw_gpu.h; may be NULL: nothing to wait for). */
struct sw_gpu_warm_up;
struct sw_gpus_warm;
int sw_api_gpus_warm(struct sw_gpu_warm_up *w, struct sw_gpus_warm **out, sw_error *err);

#endif
