/* Strict decimal integers (sw_parse.h). */
#include "sw_parse.h"

#include <errno.h>
#include <stdlib.h>

#include "sw_error.h"

int sw_parse_long(const char *text, long min, long max, long *out)
{
    if (!text || !*text) return SW_EINVAL;
    char *end;
    errno = 0;
    const long v = strtol(text, &end, 10);
    /* No digits leaves end at text, on a non-empty text: *end catches it. */
    if (*end || errno || v < min || v > max) return SW_EINVAL;
    *out = v;
    return SW_OK;
}
