/* Strict decimal integers (sw_parse.h). */
#include "sw_parse.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

int sw_parse_size(const char *text, uint64_t min, uint64_t *out)
{
    if (!text) return SW_EINVAL;
    const char *p = text;
    uint64_t v = 0;
    int digits = 0, overflow = 0;
    for (; *p >= '0' && *p <= '9'; p++, digits++) {
        if (v > (UINT64_MAX - 9) / 10) overflow = 1;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    int shift = 0;
    switch (*p) {
    case 'k': case 'K': shift = 10; p++; break;
    case 'm': case 'M': shift = 20; p++; break;
    case 'g': case 'G': shift = 30; p++; break;
    case 't': case 'T': shift = 40; p++; break;
    default: break;
    }
    if (shift && (!strcmp(p, "B") || !strcmp(p, "iB"))) p += strlen(p);
    if (!digits || overflow || *p || (shift && v > (UINT64_MAX >> shift)) || (v << shift) < min) return SW_EINVAL;
    *out = v << shift;
    return SW_OK;
}
