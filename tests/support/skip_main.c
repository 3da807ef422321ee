/* The main of the Criterion tests that need a device (tests/gpu): as
 * Criterion's own, but exits 77, ctest's "skipped", when every test was
 * skipped (cr_skip_test without a usable GPU), where Criterion exits 0. */
#include <criterion/criterion.h>
#include <criterion/hooks.h>

static int all_skipped;

/* Runs in the runner process after the last test; tests left out by
 * --filter count as skipped too. */
ReportHook(POST_ALL)(struct criterion_global_stats *stats)
{
    all_skipped = stats->nb_tests > 0 && stats->tests_skipped == stats->nb_tests;
}

int main(int argc, char **argv)
{
    struct criterion_test_set *tests = criterion_initialize();
    int failed = 0;
    if (criterion_handle_args(argc, argv, true)) failed = !criterion_run_all_tests(tests);
    criterion_finalize(tests);
    if (failed) return 1;
    return all_skipped ? 77 : 0;
}
