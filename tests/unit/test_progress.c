/* The progress drawer: what it writes for a redrawn and an appended line,
 * when it draws, and how it clears. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "sw_progress.h"

static char *text;
static size_t text_len;
static FILE *out;

static void open_out(void)
{
    out = open_memstream(&text, &text_len);
    cr_assert_not_null(out);
}

static const char *written(void)
{
    fflush(out);
    return text;
}

static void close_out(void)
{
    fclose(out);
    free(text);
}

TestSuite(progress, .init = open_out, .fini = close_out);

static const sw_progress_style redrawn = {.prefix = "tool: ", .tail = "\033[K", .interval = 10, .redraw = 1};

Test(progress, redraws_one_line_with_prefix_and_tail)
{
    sw_progress p;
    sw_progress_init(&p, out, &redrawn);
    cr_assert(sw_progress_due(&p, 0));
    sw_progress_line(&p, "reading %d%%", 5);
    cr_assert_str_eq(written(), "\rtool: reading 5%\033[K");
}

Test(progress, appends_lines_where_it_cannot_redraw)
{
    const sw_progress_style style = {.prefix = "swsearch: ", .interval = 10};
    sw_progress p;
    sw_progress_init(&p, out, &style);
    sw_progress_line(&p, "pass %d/2", 1);
    sw_progress_end(&p);
    cr_assert_str_eq(written(), "swsearch: pass 1/2\n");
}

Test(progress, draws_at_most_once_an_interval_unless_forced)
{
    sw_progress p;
    sw_progress_init(&p, out, &redrawn);
    cr_assert(sw_progress_due(&p, 0));
    sw_progress_line(&p, "a");
    cr_assert_not(sw_progress_due(&p, 0));
    cr_assert(sw_progress_due(&p, 1));
}

Test(progress, first_line_can_wait_an_interval)
{
    sw_progress_style style = redrawn;
    style.first_waits = 1;
    sw_progress p;
    sw_progress_init(&p, out, &style);
    cr_assert_not(sw_progress_due(&p, 0));
}

Test(progress, with_no_stream_draws_nothing)
{
    sw_progress p;
    sw_progress_init(&p, NULL, &redrawn);
    cr_assert_not(sw_progress_due(&p, 1));
    sw_progress_line(&p, "a");
    sw_progress_clear(&p);
    sw_progress_end(&p);
    cr_assert_str_eq(written(), "");
}

Test(progress, clear_wipes_only_a_line_on_screen)
{
    sw_progress p;
    sw_progress_init(&p, out, &redrawn);
    sw_progress_clear(&p);
    cr_assert_str_eq(written(), "");
    sw_progress_line(&p, "a");
    sw_progress_clear(&p);
    sw_progress_clear(&p);
    cr_assert_str_eq(written(), "\rtool: a\033[K\r\033[K");
}

Test(progress, end_wipes_the_line_even_if_none_was_drawn)
{
    sw_progress p;
    sw_progress_init(&p, out, &redrawn);
    sw_progress_end(&p);
    cr_assert_str_eq(written(), "\r\033[K");
}

Test(progress, time_left_follows_the_pace_so_far)
{
    sw_progress p;
    sw_progress_init(&p, out, &redrawn);
    sw_progress_due(&p, 1);
    p.start = p.now - 10; /* ten seconds in */
    cr_assert_float_eq(sw_progress_elapsed(&p), 10.0, 1e-9);
    cr_assert_float_eq(sw_progress_left(&p, 0.25), 30.0, 1e-9);
    sw_progress_restart(&p);
    cr_assert_lt(sw_progress_elapsed(&p), 1.0);
}
