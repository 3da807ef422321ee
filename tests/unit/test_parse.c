/* The strict integer parser takes the whole text or nothing. */
#include <criterion/criterion.h>
#include <limits.h>

#include "sw_error.h"
#include "sw_parse.h"

/* Succeeds with the value. */
static void takes(const char *text, long min, long max, long want)
{
    long v = want + 1;
    cr_assert_eq(sw_parse_long(text, min, max, &v), SW_OK, "'%s' was refused", text);
    cr_assert_eq(v, want, "'%s' gave %ld", text, v);
}

Test(parse, takes_a_number_in_range)
{
    takes("42", 1, 100, 42);
    takes("-7", -10, 0, -7);
}

Test(parse, takes_the_bounds_themselves)
{
    takes("1", 1, 22, 1);
    takes("22", 1, 22, 22);
}

/* Fails and leaves the output alone. */
static void refuses(const char *text, long min, long max)
{
    long v = 5;
    cr_assert_eq(sw_parse_long(text, min, max, &v), SW_EINVAL, "'%s' was taken", text);
    cr_assert_eq(v, 5, "'%s' changed the output", text);
}

Test(parse, rejects_a_number_out_of_range)
{
    refuses("0", 1, 22);
    refuses("23", 1, 22);
}

Test(parse, rejects_empty_text_and_text_without_digits)
{
    refuses("", 0, 10);
    refuses("-", 0, 10);
    refuses(" ", 0, 10);
    refuses("x", 0, 10);
}

Test(parse, rejects_anything_after_the_digits)
{
    refuses("4x", 0, 10);
    refuses("4 ", 0, 10);
    refuses("4.0", 0, 10);
}

Test(parse, rejects_overflow_even_with_the_widest_range)
{
    refuses("99999999999999999999999", LONG_MIN, LONG_MAX);
}

Test(parse, takes_leading_blanks_and_a_plus_sign_as_strtol_does)
{
    takes(" 8", 0, 10, 8);
    takes("+9", 0, 10, 9);
}

Test(parse, takes_a_size_with_its_unit)
{
    uint64_t v = 0;
    cr_assert_eq(sw_parse_size("512M", 1, &v), SW_OK);
    cr_assert_eq(v, (uint64_t)512 << 20);
    cr_assert_eq(sw_parse_size("20GiB", 1, &v), SW_OK);
    cr_assert_eq(v, (uint64_t)20 << 30);
    cr_assert_eq(sw_parse_size("3kB", 1, &v), SW_OK);
    cr_assert_eq(v, 3072);
    cr_assert_eq(sw_parse_size("4096", 1, &v), SW_OK);
    cr_assert_eq(v, 4096);
}

Test(parse, rejects_a_size_below_the_least_or_malformed)
{
    uint64_t v = 7;
    const char *bad[] = {"", "M", "1K", "12X", "5MB2", "-1G", "99999999999999999999", "20000000T"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        cr_assert_eq(sw_parse_size(bad[i], 1 << 20, &v), SW_EINVAL, "'%s'", bad[i]);
    cr_assert_eq(v, 7);
}

/* The command-line messages every program prints after its name. */
static const struct option test_longopts[] = {{"db", required_argument, NULL, 'd'},
                                              {"level", required_argument, NULL, 256},
                                              {NULL, 0, NULL, 0}};

/* getopt_long over `args` (NULL-ended) until it returns ':' or '?'. */
static int getopt_problem(char **args)
{
    int argc = 0;
    while (args[argc]) argc++;
    opterr = 0;
    optind = 0; /* glibc: start afresh */
    int c;
    while ((c = getopt_long(argc, args, ":d:q", test_longopts, NULL)) != -1)
        if (c == ':' || c == '?') return c;
    return -1;
}

Test(parse_option, words_a_bad_number_with_the_option_and_its_range)
{
    long v = 5;
    sw_error err;
    cr_assert_eq(sw_parse_option_long("--level", "23", 1, 22, &v, &err), SW_EINVAL);
    cr_assert_str_eq(err.message, "--level needs a whole number from 1 to 22, not '23'");
    cr_assert_eq(v, 5);
}

Test(parse_option, names_a_repeated_option_by_both_spellings)
{
    sw_options_seen seen = {{0}};
    sw_error err;
    cr_assert_eq(sw_parse_option_once(&seen, 'd', test_longopts, &err), SW_OK);
    cr_assert_eq(sw_parse_option_once(&seen, 256, test_longopts, &err), SW_OK);
    cr_assert_eq(sw_parse_option_once(&seen, 'd', test_longopts, &err), SW_EINVAL);
    cr_assert_str_eq(err.message, "option -d/--db given twice");
    cr_assert_eq(sw_parse_option_once(&seen, 256, test_longopts, &err), SW_EINVAL);
    cr_assert_str_eq(err.message, "option --level given twice");
}

Test(parse_option, words_a_missing_value_and_an_unknown_option)
{
    sw_error err;
    char *missing[] = {"prog", "x", "--level", NULL};
    int c = getopt_problem(missing);
    cr_assert_eq(c, ':');
    sw_parse_option_error(c, missing, "prog --help", &err);
    cr_assert_str_eq(err.message, "option '--level' needs a value; see 'prog --help'");
    char *unknown[] = {"prog", "--bogus", NULL};
    c = getopt_problem(unknown);
    sw_parse_option_error(c, unknown, "prog --help", &err);
    cr_assert_str_eq(err.message, "unknown option '--bogus'; see 'prog --help'");
    char *letter[] = {"prog", "-d", "x", "-qZ", NULL};
    c = getopt_problem(letter);
    sw_parse_option_error(c, letter, "prog --help", &err);
    cr_assert_str_eq(err.message, "unknown option '-Z'; see 'prog --help'");
}
