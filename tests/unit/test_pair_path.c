/* The alignment behind a megabase result (sw_pair_path): on random related
 * pairs, scorings with and without gap opening costs, long insertions and
 * deletions, runs of N and one sequence inside the other, the path must
 * start and end where the result says and re-score to its score (which
 * sw_pair_path_find checks itself, and this test again from the runs), and
 * must not depend on the number of threads. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pair_path_expect.h"
#include "pair_random.h"
#include "sw_pair.h"
#include "sw_pair_path.h"

static const sw_pair_scoring scorings[] = {
    {1, -3, 3, 2}, /* the example scoring of the CUDAlign papers */
    {2, -3, 5, 2},
    {1, -1, 0, 1}, /* no opening cost */
    {5, -4, 10, 1},
};

static sw_pair_result align(const uint8_t *a, uint64_t na, const uint8_t *b, uint64_t nb, const sw_pair_scoring *s)
{
    sw_pair_options o;
    memset(&o, 0, sizeof o);
    o.engine = SW_PAIR_ENGINE_CPU;
    o.threads = 2;
    sw_pair_result r;
    sw_error err = {0};
    cr_assert_eq(sw_pair_align(a, na, b, nb, s, &o, &r, &err), SW_OK, "%s", err.message);
    return r;
}

/* The path of r on `threads` threads, checked against r: coordinates,
 * operations, the score re-counted here from the runs. */
static sw_pair_path *path_with(const uint8_t *a, uint64_t na, const uint8_t *b, uint64_t nb, const sw_pair_scoring *s,
                               const sw_pair_result *r, int threads, int exhaustive);

static sw_pair_path *path_of(const uint8_t *a, uint64_t na, const uint8_t *b, uint64_t nb, const sw_pair_scoring *s,
                             const sw_pair_result *r, int threads)
{
    return path_with(a, na, b, nb, s, r, threads, 0);
}

static sw_pair_path *path_with(const uint8_t *a, uint64_t na, const uint8_t *b, uint64_t nb, const sw_pair_scoring *s,
                               const sw_pair_result *r, int threads, int exhaustive)
{
    sw_pair_path_options o = {.threads = threads, .exhaustive = exhaustive};
    sw_pair_path *p = NULL;
    sw_error err = {0};
    cr_assert_eq(sw_pair_path_find(a, na, b, nb, s, r, &o, &p, &err), SW_OK, "%llux%llu: %s",
                 (unsigned long long)na, (unsigned long long)nb, err.message);
    const size_t n = sw_pair_path_runs(p);
    if (r->score <= 0) {
        cr_expect_eq(n, 0, "a zero score has an empty path");
        return p;
    }
    cr_assert_gt(n, 0);
    cr_expect_eq(sw_pair_path_run(p, 0).op, 'M', "the path starts with a gap");
    cr_expect_eq(sw_pair_path_run(p, n - 1).op, 'M', "the path ends with a gap");
    uint64_t i = r->a_start - 1, j = r->b_start - 1;
    int64_t score = 0;
    char last = 0;
    for (size_t k = 0; k < n; ++k) {
        const sw_pair_run run = sw_pair_path_run(p, k);
        cr_assert(run.len > 0 && run.op != last, "run %zu: %llu%c after %c", k, (unsigned long long)run.len, run.op,
                  last);
        last = run.op;
        if (run.op == 'M') {
            for (uint64_t t = 0; t < run.len; ++t) score += sw_pair_substitution(s, a[i + t], b[j + t]);
            i += run.len;
            j += run.len;
        } else {
            score -= s->gap_open + (int64_t)run.len * s->gap_extend;
            if (run.op == 'I') i += run.len;
            else j += run.len;
        }
    }
    cr_expect(i == r->a_end && j == r->b_end, "the path ends at %llu/%llu, not %llu/%llu", (unsigned long long)i,
              (unsigned long long)j, (unsigned long long)r->a_end, (unsigned long long)r->b_end);
    cr_expect_eq(score, r->score, "the path scores %lld, not %d", (long long)score, r->score);
    const sw_pair_path_summary sum = sw_pair_path_get_summary(p);
    cr_expect_eq(sum.score, r->score);
    cr_expect_eq(sum.matches + sum.mismatches + sum.gap_bases, sum.columns);
    return p;
}

Test(pair_path, related_pairs_rescore_to_their_score)
{
    test_rng rng = test_rng_seed(41);
    for (int trial = 0; trial < 160; ++trial) {
        const sw_pair_scoring *s = &scorings[trial % 4];
        const uint64_t na = 1 + test_rng_below(&rng, trial < 80 ? 60 : 1500);
        uint8_t *a = random_dna(na, &rng, 50);
        uint64_t nb;
        uint8_t *b = mutate_dna(a, na, 4 + (unsigned)(trial % 9), &rng, &nb);
        if (nb == 0) {
            free(b);
            b = random_dna(nb = 1, &rng, 0);
        }
        const sw_pair_result r = align(a, na, b, nb, s);
        sw_pair_path *one = path_of(a, na, b, nb, s, &r, 1);
        sw_pair_path *two = path_of(a, na, b, nb, s, &r, 2);
        sw_pair_path *every = path_with(a, na, b, nb, s, &r, 1, 1);
        expect_same_path(one, two, "1 and 2 threads");
        expect_same_path(one, every, "the band and every cell");
        sw_pair_path_free(one);
        sw_pair_path_free(two);
        sw_pair_path_free(every);
        free(a);
        free(b);
    }
}

Test(pair_path, large_pair_on_threads_equals_one_thread)
{
    /* Big enough for the halves of the first splits to run side by side. */
    test_rng rng = test_rng_seed(7);
    const uint64_t na = 6000;
    uint8_t *a = random_dna(na, &rng, 200);
    uint64_t nb;
    uint8_t *b = mutate_dna(a, na, 12, &rng, &nb);
    const sw_pair_result r = align(a, na, b, nb, &scorings[0]);
    sw_pair_path *one = path_of(a, na, b, nb, &scorings[0], &r, 1);
    sw_pair_path *four = path_of(a, na, b, nb, &scorings[0], &r, 4);
    sw_pair_path *every = path_with(a, na, b, nb, &scorings[0], &r, 4, 1);
    expect_same_path(one, four, "1 and 4 threads");
    expect_same_path(one, every, "the band and every cell");
    sw_pair_path_free(one);
    sw_pair_path_free(four);
    sw_pair_path_free(every);
    free(a);
    free(b);
}

Test(pair_path, long_insertions_and_deletions_cross_the_split_rows)
{
    test_rng rng = test_rng_seed(3);
    for (int trial = 0; trial < 12; ++trial) {
        const sw_pair_scoring *s = &scorings[trial % 4];
        /* One long vertical (trial even) or horizontal (odd) gap. */
        uint8_t *a, *b;
        uint64_t na, nb, gap;
        long_gap_pair(&rng, trial % 2, &a, &na, &b, &nb, &gap);
        const sw_pair_result r = align(a, na, b, nb, s);
        sw_pair_path *p = path_of(a, na, b, nb, s, &r, 2);
        sw_pair_path *every = path_with(a, na, b, nb, s, &r, 2, 1);
        expect_same_path(p, every, "long gaps: the band and every cell");
        sw_pair_path_free(every);
        const sw_pair_path_summary sum = sw_pair_path_get_summary(p);
        cr_expect_geq(sum.gap_bases, gap, "trial %d: %llu gap bases for a gap of %llu", trial,
                      (unsigned long long)sum.gap_bases, (unsigned long long)gap);
        sw_pair_path_free(p);
        free(a);
        free(b);
    }
}

Test(pair_path, one_sequence_inside_the_other)
{
    test_rng rng = test_rng_seed(11);
    uint8_t *a = random_dna(5000, &rng, 0);
    const sw_pair_result r = align(a, 5000, a + 1000, 2001, &scorings[0]);
    cr_assert_eq(r.score, 2001 * scorings[0].match);
    sw_pair_path *p = path_of(a, 5000, a + 1000, 2001, &scorings[0], &r, 2);
    cr_expect_eq(sw_pair_path_runs(p), 1);
    cr_expect_eq(sw_pair_path_run(p, 0).len, 2001);
    cr_expect_eq(sw_pair_path_a_start(p), 1001);
    cr_expect_eq(sw_pair_path_b_start(p), 1);
    const sw_pair_path_summary sum = sw_pair_path_get_summary(p);
    cr_expect(sum.matches == 2001 && sum.mismatches == 0 && sum.gap_openings == 0);
    sw_pair_path_free(p);
    free(a);
}

Test(pair_path, long_runs_of_n)
{
    /* Two related halves with 3,000 N in the middle of the first: N never
     * matches, so the alignment either crosses the run with a gap or is one
     * of the halves. Either way it must re-score exactly. */
    test_rng rng = test_rng_seed(5);
    for (int trial = 0; trial < 4; ++trial) {
        const sw_pair_scoring *s = &scorings[trial];
        uint8_t *a, *y;
        uint64_t na, ny;
        n_run_pair(&rng, &a, &na, &y, &ny);
        const sw_pair_result r = align(a, na, y, ny, s);
        sw_pair_path_free(path_of(a, na, y, ny, s, &r, 2));
        /* And N against N. */
        uint8_t *n1 = malloc(2000);
        cr_assert_not_null(n1);
        memset(n1, 4, 2000);
        memcpy(n1 + 600, a, 800); /* a begins with the 800 bases */
        const sw_pair_result rn = align(n1, 2000, a, na, s);
        sw_pair_path_free(path_of(n1, 2000, a, na, s, &rn, 2));
        free(n1);
        free(a);
        free(y);
    }
}

Test(pair_path, nothing_aligns)
{
    const uint8_t a[] = {0, 0, 0}, b[] = {1, 1};
    const sw_pair_result r = align(a, 3, b, 2, &scorings[0]);
    cr_assert_eq(r.score, 0);
    sw_pair_path_free(path_of(a, 3, b, 2, &scorings[0], &r, 1));
}

Test(pair_path, a_wrong_result_is_refused)
{
    test_rng rng = test_rng_seed(2);
    uint8_t *a = random_dna(300, &rng, 0);
    sw_pair_result r = align(a, 300, a, 300, &scorings[0]);
    r.score += 1; /* no alignment of these pieces scores this */
    sw_pair_path *p = NULL;
    sw_error err = {0};
    cr_expect_eq(sw_pair_path_find(a, 300, a, 300, &scorings[0], &r, NULL, &p, &err), SW_ECORRUPT);
    cr_expect_null(p);
    r.score -= 1;
    r.a_end = 301;
    cr_expect_eq(sw_pair_path_find(a, 300, a, 300, &scorings[0], &r, NULL, &p, &err), SW_EINVAL);
    const sw_pair_run runs[] = {{'M', 200}, {'I', 150}};
    sw_pair_path_summary sum;
    cr_expect_eq(sw_pair_path_rescore(a, 300, a, 300, &scorings[0], 1, 1, runs, 2, &sum, &err), SW_EINVAL);
    free(a);
}

/* Expects path p of result r to use no cell of boxes[0 .. count - 1]: a
 * pair takes cell (i, j), a base of a against a gap cell (i, j - 1), one of
 * b cell (i - 1, j), with i and j the next base of each. */
static void expect_avoids(const sw_pair_path *p, const sw_pair_result *r, const sw_pair_box *boxes, int count,
                          const char *what)
{
    uint64_t i = r->a_start, j = r->b_start;
    for (size_t k = 0; k < sw_pair_path_runs(p); ++k) {
        const sw_pair_run run = sw_pair_path_run(p, k);
        for (uint64_t t = 0; t < run.len; ++t) {
            const uint64_t ci = run.op == 'D' ? i - 1 : i, cj = run.op == 'I' ? j - 1 : j;
            cr_expect(!sw_pair_boxes_hold(boxes, count, ci, cj), "%s: the path uses forbidden cell %llu/%llu (%c)",
                      what, (unsigned long long)ci, (unsigned long long)cj, run.op);
            if (run.op != 'D') ++i;
            if (run.op != 'I') ++j;
        }
    }
}

Test(pair_path, keeps_out_of_forbidden_cells)
{
    /* Two copies of one sequence, the diagonal cell in the middle
     * forbidden (best-K forbids the boxes of better alignments): the best
     * alignment goes around it, and its rectangle holds the cell. The path
     * must keep out of it too; without the box it would run straight
     * through, score more than the result and be refused. */
    test_rng rng = test_rng_seed(31);
    const uint64_t n = 600;
    uint8_t *a = random_dna(n, &rng, 0);
    const sw_pair_box box = {300, 300, 300, 300};
    sw_pair_options o;
    memset(&o, 0, sizeof o);
    o.engine = SW_PAIR_ENGINE_CPU;
    o.threads = 2;
    o.forbidden = &box;
    o.forbidden_count = 1;
    sw_pair_result r;
    sw_error err = {0};
    cr_assert_eq(sw_pair_align(a, n, a, n, &scorings[0], &o, &r, &err), SW_OK, "%s", err.message);
    cr_assert(r.a_start < 300 && r.a_end > 300 && r.b_start < 300 && r.b_end > 300,
              "the test needs an alignment around the cell: %llu-%llu, %llu-%llu", (unsigned long long)r.a_start,
              (unsigned long long)r.a_end, (unsigned long long)r.b_start, (unsigned long long)r.b_end);
    for (int exhaustive = 0; exhaustive < 2; ++exhaustive) {
        const sw_pair_path_options po = {.threads = 2, .exhaustive = exhaustive, .forbidden = &box, .forbidden_count = 1};
        sw_pair_path *p = NULL;
        cr_assert_eq(sw_pair_path_find(a, n, a, n, &scorings[0], &r, &po, &p, &err), SW_OK, "%s", err.message);
        expect_avoids(p, &r, &box, 1, "a forbidden cell on the diagonal");
        sw_pair_path_free(p);
    }
    sw_pair_path *p = NULL;
    const sw_pair_path_options free_po = {.threads = 2};
    cr_expect_eq(sw_pair_path_find(a, n, a, n, &scorings[0], &r, &free_po, &p, &err), SW_ECORRUPT,
                 "without the box the path should score more than the result");
    sw_pair_path_free(p);
    free(a);
}

Test(pair_path, boxes_clear_of_the_rectangle_change_nothing)
{
    /* The alignment sits in the middle of both sequences; boxes around it
     * that do not meet its rectangle (one touches its corner diagonally
     * from outside, one lies a cell beyond its last row) leave the path as
     * it is without them. */
    test_rng rng = test_rng_seed(29);
    uint8_t *core = random_dna(3000, &rng, 0);
    uint64_t nc;
    uint8_t *copy = mutate_dna(core, 3000, 25, &rng, &nc);
    const uint64_t pad = 500, na = pad + 3000 + pad, nb = pad + nc + pad;
    uint8_t *a = random_dna(na, &rng, 0), *b = random_dna(nb, &rng, 0);
    memcpy(a + pad, core, 3000);
    memcpy(b + pad, copy, nc);
    const sw_pair_result r = align(a, na, b, nb, &scorings[0]);
    cr_assert(r.a_start > 2 && r.b_start > 2 && r.a_end + 2 < na && r.b_end + 2 < nb);
    const sw_pair_box boxes[3] = {
        {1, r.a_start - 2, 1, r.b_start - 2},
        {r.a_end + 2, na, 1, nb},
        {1, na, r.b_end + 3, nb},
    };
    sw_pair_path *free_path = path_of(a, na, b, nb, &scorings[0], &r, 2);
    const sw_pair_path_options po = {.threads = 2, .forbidden = boxes, .forbidden_count = 3};
    sw_pair_path *boxed = NULL;
    sw_error err = {0};
    cr_assert_eq(sw_pair_path_find(a, na, b, nb, &scorings[0], &r, &po, &boxed, &err), SW_OK, "%s", err.message);
    expect_same_path(free_path, boxed, "boxes clear of the rectangle");
    sw_pair_path_free(free_path);
    sw_pair_path_free(boxed);
    free(core);
    free(copy);
    free(a);
    free(b);
}

Test(pair_path, best_k_alignments_keep_out_of_better_boxes)
{
    /* The second sequence holds a mutated copy of part of the first, then
     * a mutated copy of the whole, so --best finds several alignments; the
     * start pass of each must find its start (it bars each state where its
     * own cell is forbidden), and each one's path, given the boxes of the
     * better ones, scores what the passes found (checked inside), keeps
     * out of those boxes, and is the same with every cell computed. */
    test_rng rng = test_rng_seed(77);
    for (int trial = 0; trial < 24; ++trial) {
        const sw_pair_scoring *s = &scorings[trial % 4];
        uint8_t *a, *b;
        uint64_t na, nb;
        partial_copy_pair(&rng, &a, &na, &b, &nb);
        sw_pair_options o;
        memset(&o, 0, sizeof o);
        o.engine = SW_PAIR_ENGINE_CPU;
        o.threads = 2;
        sw_pair_result r[3];
        int found = 0;
        sw_error err = {0};
        cr_assert_eq(sw_pair_align_best(a, na, b, nb, s, &o, 3, r, &found, &err), SW_OK, "trial %d: %s", trial,
                     err.message);
        sw_pair_box boxes[3];
        for (int k = 0; k < found; ++k) {
            sw_pair_path *p[2] = {NULL, NULL};
            for (int exhaustive = 0; exhaustive < 2; ++exhaustive) {
                const sw_pair_path_options po = {.threads = 2, .exhaustive = exhaustive, .forbidden = boxes, .forbidden_count = k};
                cr_assert_eq(sw_pair_path_find(a, na, b, nb, s, &r[k], &po, &p[exhaustive], &err), SW_OK,
                             "trial %d, alignment %d: %s", trial, k, err.message);
            }
            expect_same_path(p[0], p[1], "best-K: the band and every cell");
            expect_avoids(p[0], &r[k], boxes, k, "best-K: the better alignments' boxes");
            boxes[k] = (sw_pair_box){r[k].a_start, r[k].a_end, r[k].b_start, r[k].b_end};
            sw_pair_path_free(p[0]);
            sw_pair_path_free(p[1]);
        }
        free(a);
        free(b);
    }
}
