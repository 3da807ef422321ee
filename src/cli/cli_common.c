/* Messages, option and number parsing, progress lines. */
#include "cli_common.h"

#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "sw_parse.h"
#include "sw_search.h"

const cli_choice cli_device_choices[] = {{"auto", SW_DEVICE_AUTO},
                                         {"gpu", SW_DEVICE_GPU},
                                         {"cpu", SW_DEVICE_CPU},
                                         {NULL, 0}};

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
    if (sw_parse_long(text, min, max, out) != SW_OK) {
        cli_error("%s needs a whole number from %ld to %ld, not '%s'", option, min, max, text);
        return -1;
    }
    return 0;
}

int cli_parse_choice(const char *option, const char *text, const cli_choice *choices, int *out)
{
    size_t count = 0;
    for (; choices[count].name; ++count)
        if (!strcmp(choices[count].name, text)) {
            *out = choices[count].value;
            return 0;
        }
    fprintf(stderr, "swsearch: %s is ", option);
    for (size_t i = 0; i < count; ++i)
        fprintf(stderr, "%s'%s'", i == 0 ? "" : i + 1 == count ? " or " : ", ", choices[i].name);
    fprintf(stderr, ", not '%s'\n", text);
    return -1;
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

void cli_progress_init(cli_progress *p, const char *label)
{
    /* Spaces after the line cover the end of a longer one before it. */
    static const sw_progress_style style = {.tail = "   ", .interval = 0.2, .redraw = 1};
    sw_progress_init(&p->line, isatty(STDERR_FILENO) ? stderr : NULL, &style);
    p->label = label;
}

void cli_progress_draw(cli_progress *p, uint64_t done, uint64_t total)
{
    if (!sw_progress_due(&p->line, done >= total)) return;
    double frac = total ? (double)done / (double)total : 1.0;
    if (frac > 0.01 && frac < 1.0)
        sw_progress_line(&p->line, "%s: %5.1f%%, about %.0f s left", p->label, 100.0 * frac,
                         sw_progress_left(&p->line, frac));
    else
        sw_progress_line(&p->line, "%s: %5.1f%%", p->label, 100.0 * frac);
}

void cli_progress_end(cli_progress *p) { sw_progress_end(&p->line); }
