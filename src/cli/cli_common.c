/* Messages, option and number parsing, progress lines. */
#include "cli_common.h"

#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "sw_parse.h"
#include "swsearch.h"

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
    sw_error err;
    if (sw_parse_option_long(option, text, min, max, out, &err) == SW_OK) return 0;
    cli_error("%s", err.message);
    return -1;
}

int cli_parse_gap_open(const char *text, long *out) { return cli_parse_long("--gap-open", text, 0, 255, out); }

int cli_parse_gap_extend(const char *text, long *out) { return cli_parse_long("--gap-extend", text, 1, 255, out); }

int cli_parse_size(const char *option, const char *text, uint64_t min, uint64_t *out)
{
    sw_error err;
    if (sw_parse_option_size(option, text, min, out, &err) == SW_OK) return 0;
    cli_error("%s", err.message);
    return -1;
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

static int gpus_conflict(const char *option, const cli_gpus *g)
{
    if (!g->option) return 0;
    cli_error("%s and %s both choose GPUs: give one of them", g->option, option);
    return -1;
}

int cli_parse_gpus(const char *text, cli_gpus *out)
{
    if (gpus_conflict("--gpus", out)) return -1;
    memset(out, 0, sizeof *out);
    if (strlen(text) >= sizeof out->value) {
        cli_error("--gpus: a list of at most %d GPUs", CLI_MAX_GPUS);
        return -1;
    }
    if (!strcmp(text, "all")) {
        /* count 0: every GPU */
    } else if (!strchr(text, ',')) {
        long n;
        if (sw_parse_long(text, 1, CLI_MAX_GPUS, &n) != SW_OK) {
            cli_error("--gpus takes 'all', a number of GPUs from 1 to %d or a list of GPU numbers such as 0,1, "
                      "not '%s'", CLI_MAX_GPUS, text);
            return -1;
        }
        out->count = (int)n;
    } else {
        out->is_list = 1;
        const char *at = text;
        for (;;) {
            const char *comma = strchr(at, ',');
            size_t len = comma ? (size_t)(comma - at) : strlen(at);
            char item[16];
            long id;
            if (len == 0 || len >= sizeof item) {
                cli_error("--gpus: '%s' is not a list of GPU numbers such as 0,1", text);
                return -1;
            }
            memcpy(item, at, len);
            item[len] = '\0';
            if (sw_parse_long(item, 0, 1023, &id) != SW_OK) {
                cli_error("--gpus: '%s' in '%s' is not a GPU number from 0 to 1023", item, text);
                return -1;
            }
            if (out->count == CLI_MAX_GPUS) {
                cli_error("--gpus: a list of at most %d GPUs", CLI_MAX_GPUS);
                return -1;
            }
            out->list[out->count++] = (int)id;
            if (!comma) break;
            at = comma + 1;
        }
    }
    out->option = "--gpus";
    snprintf(out->value, sizeof out->value, "%s", text);
    return 0;
}

int cli_parse_gpu(const char *text, cli_gpus *out)
{
    if (gpus_conflict("--gpu", out)) return -1;
    long id;
    if (cli_parse_long("--gpu", text, 0, 1023, &id)) return -1;
    memset(out, 0, sizeof *out);
    out->is_list = 1;
    out->count = 1;
    out->list[0] = (int)id;
    out->option = "--gpu";
    snprintf(out->value, sizeof out->value, "%s", text);
    return 0;
}

void cli_gpus_describe(const cli_gpus *g, char *buf, size_t cap)
{
    if (!g->is_list) {
        if (g->count) snprintf(buf, cap, "the first %d GPU%s", g->count, g->count == 1 ? "" : "s");
        else snprintf(buf, cap, "every GPU");
        return;
    }
    size_t at = (size_t)snprintf(buf, cap, "GPU%s ", g->count == 1 ? "" : "s");
    for (int i = 0; i < g->count && at < cap; i++) at += (size_t)snprintf(buf + at, cap - at, "%s%d", i ? "," : "", g->list[i]);
}

int cli_gpus_same(const cli_gpus *a, const cli_gpus *b)
{
    if (a->is_list != b->is_list || a->count != b->count) return 0;
    for (int i = 0; a->is_list && i < a->count; i++)
        if (a->list[i] != b->list[i]) return 0;
    return 1;
}

int cli_option_once(cli_options_seen *seen, int c, const struct option *longopts)
{
    sw_error err;
    if (sw_parse_option_once(seen, c, longopts, &err) == SW_OK) return 0;
    cli_error("%s", err.message);
    return CLI_EXIT_USAGE;
}

int cli_option_error(int c, char **argv, const char *command)
{
    char help[64];
    sw_error err;
    snprintf(help, sizeof help, "swsearch %s --help", command);
    sw_parse_option_error(c, argv, help, &err);
    cli_error("%s", err.message);
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
