/* The check that two alignment paths (sw_pair_path) are the same, run for
 * run, for the path tests (Criterion). */
#ifndef PAIR_PATH_EXPECT_H
#define PAIR_PATH_EXPECT_H

#include <criterion/criterion.h>

#include "sw_pair_path.h"

static inline void expect_same_path(const sw_pair_path *x, const sw_pair_path *y, const char *what)
{
    cr_assert_eq(sw_pair_path_runs(x), sw_pair_path_runs(y), "%s: %zu runs against %zu", what,
                 sw_pair_path_runs(x), sw_pair_path_runs(y));
    for (size_t k = 0; k < sw_pair_path_runs(x); ++k) {
        const sw_pair_run p = sw_pair_path_run(x, k), q = sw_pair_path_run(y, k);
        cr_assert(p.op == q.op && p.len == q.len, "%s: run %zu is %llu%c against %llu%c", what, k,
                  (unsigned long long)p.len, p.op, (unsigned long long)q.len, q.op);
    }
}

#endif
