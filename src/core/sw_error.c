/* Error messages for SW_E* codes and the sw_error detail record. */
#include "sw_error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *sw_strerror(int code)
{
    switch (code) {
    case SW_OK: return "success";
    case SW_ENOMEM: return "out of memory";
    case SW_EIO: return "input/output error";
    case SW_EFORMAT: return "malformed input";
    case SW_ECORRUPT: return "database is corrupt";
    case SW_EVERSION: return "unsupported database format version";
    case SW_EINVAL: return "invalid argument";
    case SW_ENOTFOUND: return "not found";
    case SW_ENODEV: return "no usable GPU";
    case SW_EDEVICE: return "GPU error";
    case SW_ELIMIT: return "input exceeds a limit";
    case SW_EBUSY: return "in use by another process";
    case SW_ECANCELED: return "cancelled";
    default: return "unknown error";
    }
}

int sw_error_set(sw_error *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
        err->code = code;
    }
    return code;
}

void sw_error_clear(sw_error *err)
{
    if (err) {
        err->code = SW_OK;
        err->message[0] = '\0';
    }
}

void sw_error_quote(char *dst, size_t cap, const void *s, size_t n, size_t shown_max)
{
    const unsigned char *p = s;
    size_t o = 0;
    const int cut = n > shown_max;
    if (cut) n = shown_max;
    for (size_t i = 0; i < n && o + 5 < cap; i++) {
        const unsigned char c = p[i];
        if (c >= 0x20 && c < 0x7F) dst[o++] = (char)c;
        else o += (size_t)snprintf(dst + o, cap - o, "\\x%02X", c);
    }
    if (cut && o + 4 < cap) {
        memcpy(dst + o, "...", 3);
        o += 3;
    }
    if (cap) dst[o < cap ? o : cap - 1] = '\0';
}
