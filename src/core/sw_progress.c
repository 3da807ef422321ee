/* Progress lines (sw_progress.h): throttling, redrawing and clearing; the
 * words are the caller's. */
#include "sw_progress.h"

#include <stdarg.h>

#include "sw_clock.h"

#define CLEAR_LINE "\r\033[K"

void sw_progress_init(sw_progress *p, FILE *out, const sw_progress_style *style)
{
    p->out = out;
    p->style = *style;
    p->start = p->now = sw_clock_seconds();
    /* Minus infinity but for the wait, so that the first call draws. */
    p->last = style->first_waits ? p->start : p->start - style->interval;
    p->on_screen = 0;
}

int sw_progress_due(sw_progress *p, int force)
{
    if (!p->out) return 0;
    const double t = sw_clock_seconds();
    if (t - p->last < p->style.interval && !force) return 0;
    p->now = t;
    return 1;
}

void sw_progress_restart(sw_progress *p) { p->start = p->now = sw_clock_seconds(); }

double sw_progress_elapsed(const sw_progress *p) { return p->now - p->start; }

double sw_progress_left(const sw_progress *p, double frac) { return sw_progress_elapsed(p) * (1 - frac) / frac; }

void sw_progress_line(sw_progress *p, const char *fmt, ...)
{
    if (!p->out) return;
    p->last = p->now;
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    const char *prefix = p->style.prefix ? p->style.prefix : "";
    if (p->style.redraw) {
        fprintf(p->out, "\r%s%s%s", prefix, text, p->style.tail ? p->style.tail : "");
        p->on_screen = 1;
    } else {
        fprintf(p->out, "%s%s\n", prefix, text);
    }
    fflush(p->out);
}

void sw_progress_clear(sw_progress *p)
{
    if (!p->out || !p->on_screen) return;
    fputs(CLEAR_LINE, p->out);
    p->on_screen = 0;
}

void sw_progress_end(sw_progress *p)
{
    if (!p->out || !p->style.redraw) return;
    fputs(CLEAR_LINE, p->out);
    p->on_screen = 0;
}
