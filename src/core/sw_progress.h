/* The one progress drawer: a line of the caller's text on a stream, redrawn
 * in place on a terminal or appended now and then elsewhere, never more
 * often than the terminal can take. The caller words the line. */
#ifndef SW_PROGRESS_H
#define SW_PROGRESS_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sw_progress_style {
    const char *prefix; /* before every line's text ("makedb: "); NULL for none */
    const char *tail;   /* after a redrawn line: "\033[K" wipes what a longer one left */
    double interval;    /* least seconds between two lines */
    int first_waits;    /* the first line waits one interval, so short jobs draw none */
    int redraw;         /* 1: one line redrawn in place; 0: lines appended, each ending in '\n' */
} sw_progress_style;

typedef struct sw_progress {
    FILE *out; /* NULL: draws nothing */
    sw_progress_style style;
    double start; /* when the work began */
    double now;   /* the clock at the last sw_progress_due that said yes */
    double last;  /* when the last line was drawn */
    int on_screen; /* a redrawn line waits to be cleared */
} sw_progress;

/* Starts the clock; `out` NULL (progress off, or not a terminal) makes every
 * call below a no-op. */
void sw_progress_init(sw_progress *p, FILE *out, const sw_progress_style *style);

/* 1 when a line should be drawn now: the stream is on and an interval has
 * passed since the last line, or `force` (the work is done). Reads the
 * clock, so callers that report very often check their own counter first. */
int sw_progress_due(sw_progress *p, int force);

/* A new stage begins (a second pass): elapsed time and time left count
 * from now; the interval between lines runs on. */
void sw_progress_restart(sw_progress *p);

/* Seconds since sw_progress_init or _restart, at the moment sw_progress_due said yes. */
double sw_progress_elapsed(const sw_progress *p);

/* Seconds left when a share `frac` (0 < frac) of the work is done, at the
 * pace so far. */
double sw_progress_left(const sw_progress *p, double frac);

/* Draws a line (prefix, text, tail) over the previous one or below it. */
void sw_progress_line(sw_progress *p, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Removes a redrawn line, if one is on screen, so a message starts on a
 * clean line. */
void sw_progress_clear(sw_progress *p);

/* Wipes the current line of a redrawing drawer whether or not one was drawn. */
void sw_progress_end(sw_progress *p);

#ifdef __cplusplus
}
#endif

#endif
