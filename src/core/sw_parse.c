/* Strict decimal integers and the messages of command lines (sw_parse.h). */
#include "sw_parse.h"

#include <errno.h>
#include <stdio.h>
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

int sw_parse_option_long(const char *option, const char *text, long min, long max, long *out, sw_error *err)
{
    if (sw_parse_long(text, min, max, out) == SW_OK) return SW_OK;
    return sw_error_set(err, SW_EINVAL, "%s needs a whole number from %ld to %ld, not '%s'", option, min, max, text);
}

int sw_parse_option_size(const char *option, const char *text, uint64_t min, uint64_t *out, sw_error *err)
{
    if (sw_parse_size(text, min, out) == SW_OK) return SW_OK;
    return sw_error_set(err, SW_EINVAL, "%s takes a size of at least %llu MiB such as 512M or 20G, not '%s'", option,
                        (unsigned long long)(min >> 20), text);
}

int sw_parse_option_once(sw_options_seen *seen, int c, const struct option *longopts, sw_error *err)
{
    if (c == ':' || c == '?' || c < 0 || c >= 64 * (int)(sizeof seen->bits / sizeof *seen->bits)) return SW_OK;
    uint64_t bit = UINT64_C(1) << (c % 64);
    if (!(seen->bits[c / 64] & bit)) {
        seen->bits[c / 64] |= bit;
        return SW_OK;
    }
    const char *name = NULL;
    for (const struct option *o = longopts; o && o->name; o++)
        if (!o->flag && o->val == c) name = o->name;
    if (c < 256 && name) return sw_error_set(err, SW_EINVAL, "option -%c/--%s given twice", c, name);
    if (c < 256) return sw_error_set(err, SW_EINVAL, "option -%c given twice", c);
    return sw_error_set(err, SW_EINVAL, "option --%s given twice", name ? name : "?");
}

int sw_parse_option_error(int c, char *const *argv, const char *help, sw_error *err)
{
    /* The word getopt stopped at; an unknown letter inside a cluster such
     * as -qZ is shown alone, as the word may not have been passed yet. */
    const char *word = optind > 0 ? argv[optind - 1] : "?";
    if (c == ':') return sw_error_set(err, SW_EINVAL, "option '%s' needs a value; see '%s'", word, help);
    if (optopt > 0 && optopt < 128 && strncmp(word, "--", 2))
        return sw_error_set(err, SW_EINVAL, "unknown option '-%c'; see '%s'", optopt, help);
    return sw_error_set(err, SW_EINVAL, "unknown option '%s'; see '%s'", word, help);
}
