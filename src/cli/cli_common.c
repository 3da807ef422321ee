/* Messages, option and number parsing, progress lines. */
#include "cli_common.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("swsearch: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void cli_warn(void *user, const char *message)
{
    (void)user;
    fprintf(stderr, "swsearch: warning: %s\n", message);
}

int cli_parse_long(const char *option, const char *text, long min, long max, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (!*text || *end || errno == ERANGE || v < min || v > max) {
        cli_error("%s needs a whole number from %ld to %ld, not '%s'", option, min, max, text);
        return -1;
    }
    *out = v;
    return 0;
}

int cli_option_once(cli_options_seen *seen, int c, const struct option *longopts)
{
    if (c == ':' || c == '?' || c < 0 || c >= 64 * (int)(sizeof seen->bits / sizeof *seen->bits)) return 0;
    uint64_t bit = UINT64_C(1) << (c % 64);
    if (!(seen->bits[c / 64] & bit)) {
        seen->bits[c / 64] |= bit;
        return 0;
    }
    const char *name = NULL;
    for (const struct option *o = longopts; o && o->name; o++)
        if (!o->flag && o->val == c) name = o->name;
    if (c < 256 && name) cli_error("option -%c/--%s given twice", c, name);
    else if (c < 256) cli_error("option -%c given twice", c);
    else cli_error("option --%s given twice", name ? name : "?");
    return CLI_EXIT_USAGE;
}

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void cli_progress_init(cli_progress *p, const char *label)
{
    p->enabled = isatty(STDERR_FILENO);
    p->start = cli_now();
    p->last_draw = 0;
    p->label = label;
}

void cli_progress_draw(cli_progress *p, uint64_t done, uint64_t total)
{
    if (!p->enabled) return;
    double t = cli_now();
    if (t - p->last_draw < 0.2 && done < total) return;
    p->last_draw = t;
    double frac = total ? (double)done / (double)total : 1.0;
    double elapsed = t - p->start;
    fprintf(stderr, "\r%s: %5.1f%%", p->label, 100.0 * frac);
    if (frac > 0.01 && frac < 1.0) fprintf(stderr, ", about %.0f s left", elapsed * (1 - frac) / frac);
    fputs("   ", stderr);
    fflush(stderr);
}

void cli_progress_end(cli_progress *p)
{
    if (p->enabled) fputs("\r\033[K", stderr);
}
