/* Megabase pairwise alignment on the CPU: the one-thread pass against the
 * protein/DNA reference engine, the multi-threaded pass against the
 * one-thread pass on every shape of matrix, and whole alignments whose
 * start and end are checked by re-scoring the aligned pieces. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pair_random.h"
#include "sw_align_ref.h"
#include "sw_matrix.h"
#include "sw_pair.h"
#include "sw_pair_cpu.h"
#include "sw_pair_strips.h"
#include "sw_pair_team.h"
#include "test_matrices.h"

static const sw_pair_scoring paper = {1, -3, 3, 2};

static sw_pair_hit run_reference(const uint8_t *a, uint64_t na, const uint8_t *b, uint64_t nb,
                                 const sw_pair_scoring *s, sw_pair_mode mode, int32_t target)
{
    sw_pair_pass p = {a, na, b, nb, *s, mode, target, NULL, NULL, NULL, NULL, 0, 0, NULL, NULL, 0, 0};
    sw_pair_hit hit;
    sw_error err = {0};
    cr_assert_eq(sw_pair_cpu_reference(&p, &hit, &err), SW_OK, "%s", err.message);
    return hit;
}

static sw_pair_hit run_threads(const uint8_t *a, uint64_t na, const uint8_t *b, uint64_t nb,
                               const sw_pair_scoring *s, sw_pair_mode mode, int32_t target, int threads)
{
    uint64_t done = 0;
    sw_pair_pass p = {a, na, b, nb, *s, mode, target, &done, NULL, NULL, NULL, 0, 0, NULL, NULL, 0, 0};
    sw_pair_hit hit;
    sw_error err = {0};
    cr_assert_eq(sw_pair_cpu_run(&p, threads, &hit, &err), SW_OK, "%s", err.message);
    if (mode == SW_PAIR_LOCAL) cr_expect_eq(done, na * nb, "cells reported %llu of %llu", (unsigned long long)done,
                                            (unsigned long long)(na * nb));
    return hit;
}

static void expect_same_hit(sw_pair_hit got, sw_pair_hit want, const char *what)
{
    cr_expect(got.score == want.score && got.a_end == want.a_end && got.b_end == want.b_end,
              "%s: score %d at %llu/%llu, expected %d at %llu/%llu", what, got.score,
              (unsigned long long)got.a_end, (unsigned long long)got.b_end, want.score,
              (unsigned long long)want.a_end, (unsigned long long)want.b_end);
}

/* Best global score of a against b (Gotoh, all of both aligned). */
static int64_t global_score(const uint8_t *a, uint64_t na, const uint8_t *b, uint64_t nb, const sw_pair_scoring *s)
{
    const int64_t neg = INT64_MIN / 4, oe = s->gap_open + s->gap_extend;
    int64_t *h = malloc((nb + 1) * sizeof *h), *f = malloc((nb + 1) * sizeof *f);
    cr_assert(h && f);
    h[0] = 0;
    for (uint64_t j = 1; j <= nb; ++j) {
        h[j] = -(s->gap_open + (int64_t)j * s->gap_extend);
        f[j] = neg;
    }
    for (uint64_t i = 1; i <= na; ++i) {
        int64_t diag = h[0], e = neg;
        h[0] = -(s->gap_open + (int64_t)i * s->gap_extend);
        for (uint64_t j = 1; j <= nb; ++j) {
            f[j] = (f[j] - s->gap_extend > h[j] - oe) ? f[j] - s->gap_extend : h[j] - oe;
            e = (e - s->gap_extend > h[j - 1] - oe) ? e - s->gap_extend : h[j - 1] - oe;
            int64_t v = diag + sw_pair_substitution(s, a[i - 1], b[j - 1]);
            if (e > v) v = e;
            if (f[j] > v) v = f[j];
            diag = h[j];
            h[j] = v;
        }
    }
    const int64_t r = h[nb];
    free(h);
    free(f);
    return r;
}

/* A whole alignment on `threads` threads: the end cell as the reference
 * finds it, and a start from which the aligned pieces score the best score. */
static sw_pair_result check_alignment(const uint8_t *a, uint64_t na, const uint8_t *b, uint64_t nb,
                                      const sw_pair_scoring *s, int threads)
{
    sw_pair_options o;
    memset(&o, 0, sizeof o);
    o.engine = SW_PAIR_ENGINE_CPU;
    o.threads = threads;
    sw_pair_result r;
    sw_error err = {0};
    cr_assert_eq(sw_pair_align(a, na, b, nb, s, &o, &r, &err), SW_OK, "%s", err.message);
    const sw_pair_hit ref = run_reference(a, na, b, nb, s, SW_PAIR_LOCAL, 0);
    cr_expect(r.score == ref.score && r.a_end == ref.a_end && r.b_end == ref.b_end,
              "alignment %llux%llu: score %d at %llu/%llu, reference %d at %llu/%llu", (unsigned long long)na,
              (unsigned long long)nb, r.score, (unsigned long long)r.a_end, (unsigned long long)r.b_end, ref.score,
              (unsigned long long)ref.a_end, (unsigned long long)ref.b_end);
    if (r.score > 0) {
        cr_assert(r.a_start >= 1 && r.a_start <= r.a_end && r.b_start >= 1 && r.b_start <= r.b_end,
                  "start %llu/%llu, end %llu/%llu", (unsigned long long)r.a_start, (unsigned long long)r.b_start,
                  (unsigned long long)r.a_end, (unsigned long long)r.b_end);
        const int64_t g = global_score(a + r.a_start - 1, r.a_end - r.a_start + 1, b + r.b_start - 1,
                                       r.b_end - r.b_start + 1, s);
        cr_expect_eq(g, r.score, "the aligned pieces %llu-%llu / %llu-%llu score %lld, not %d",
                     (unsigned long long)r.a_start, (unsigned long long)r.a_end, (unsigned long long)r.b_start,
                     (unsigned long long)r.b_end, (long long)g, r.score);
    } else {
        cr_expect(r.a_start == 0 && r.a_end == 0 && r.b_start == 0 && r.b_end == 0, "coordinates of a zero score");
    }
    return r;
}

Test(pair_reference, equals_the_scalar_engine_with_a_dna_matrix)
{
    const sw_pair_scoring schemes[] = {{1, -3, 3, 2}, {2, -1, 0, 1}, {5, -4, 10, 1}, {1, 0, 5, 5}};
    test_rng rng = test_rng_seed(11);
    for (size_t k = 0; k < sizeof schemes / sizeof *schemes; ++k) {
        const sw_pair_scoring *s = &schemes[k];
        int8_t table[SW_CODE_LIMIT * SW_CODE_LIMIT];
        const sw_scoring sc = dna_scoring(table, s->match, s->mismatch, s->gap_open, s->gap_extend);
        for (int trial = 0; trial < 40; ++trial) {
            const uint64_t na = 1 + test_rng_next(&rng) % 300, nb = 1 + test_rng_next(&rng) % 300;
            uint8_t *a = random_dna(na, &rng, 20), *b = NULL;
            uint64_t mb = nb;
            if (trial % 2) b = mutate_dna(a, na, 8, &rng, &mb);
            else b = random_dna(nb, &rng, 20);
            sw_ref_result ref;
            cr_assert_eq(sw_ref_align(a, na, b, mb, &sc, &ref), SW_OK);
            const sw_pair_hit hit = run_reference(a, na, b, mb, s, SW_PAIR_LOCAL, 0);
            /* The scalar engine breaks ties row-major, this one column-major:
             * the scores agree, and the end cells where there is one best. */
            cr_expect(hit.score == ref.score, "scheme %zu trial %d: %d, scalar engine %d", k, trial, hit.score,
                      ref.score);
            cr_expect(ref.score == 0 || hit.a_end == ref.query_end || hit.b_end != ref.subject_end,
                      "scheme %zu trial %d: end %llu/%llu, scalar engine %zu/%zu", k, trial,
                      (unsigned long long)hit.a_end, (unsigned long long)hit.b_end, ref.query_end, ref.subject_end);
            free(a);
            free(b);
        }
    }
}

Test(pair_threads, equal_the_reference_on_every_shape)
{
    /* Lengths around the row block (256) and the columns per thread (2048),
     * with 1 to 7 threads: blocks, hand-overs and the last ragged pieces. */
    const uint64_t rows[] = {1, 2, 255, 256, 257, 700};
    const uint64_t cols[] = {1, 3, 2047, 2048, 4097, 9000, 15001};
    test_rng rng = test_rng_seed(5);
    for (size_t r = 0; r < sizeof rows / sizeof *rows; ++r)
        for (size_t c = 0; c < sizeof cols / sizeof *cols; ++c) {
            uint8_t *a = random_dna(rows[r], &rng, 50);
            uint8_t *b = random_dna(cols[c], &rng, 50);
            /* Plant a piece of a in b so that the best is not noise. */
            if (cols[c] > rows[r] + 10) memcpy(b + cols[c] / 3, a, rows[r]);
            const sw_pair_hit ref = run_reference(a, rows[r], b, cols[c], &paper, SW_PAIR_LOCAL, 0);
            for (int t = 1; t <= 7; t += 2) {
                char what[64];
                snprintf(what, sizeof what, "%llux%llu, %d threads", (unsigned long long)rows[r],
                         (unsigned long long)cols[c], t);
                expect_same_hit(run_threads(a, rows[r], b, cols[c], &paper, SW_PAIR_LOCAL, 0, t), ref, what);
            }
            free(a);
            free(b);
        }
}

Test(pair_threads, find_the_first_of_equal_best_cells)
{
    /* b holds a three times: three end cells with the same score in the
     * last row; the first, column-major, ends the first copy. */
    test_rng rng = test_rng_seed(9);
    const uint64_t na = 300, nb = 12000;
    uint8_t *a = random_dna(na, &rng, 0), *b = random_dna(nb, &rng, 0);
    memcpy(b + 9000, a, na);
    memcpy(b + 5000, a, na);
    memcpy(b + 100, a, na);
    const sw_pair_hit ref = run_reference(a, na, b, nb, &paper, SW_PAIR_LOCAL, 0);
    cr_assert_eq(ref.score, (int)na);
    cr_assert_eq(ref.a_end, na);
    cr_assert_eq(ref.b_end, 100 + na);
    for (int t = 1; t <= 6; ++t) expect_same_hit(run_threads(a, na, b, nb, &paper, SW_PAIR_LOCAL, 0, t), ref, "ties");
    free(a);
    free(b);
}

Test(pair_threads, anchored_pass_equals_the_reference)
{
    test_rng rng = test_rng_seed(21);
    for (int trial = 0; trial < 8; ++trial) {
        /* Long enough for up to four threads of 2,048 columns or more. */
        const uint64_t na = 2000 + test_rng_next(&rng) % 8000;
        uint8_t *a = random_dna(na, &rng, 30);
        uint64_t nb;
        uint8_t *b = mutate_dna(a, na, 10 + (unsigned)trial, &rng, &nb);
        const sw_pair_hit best = run_reference(a, na, b, nb, &paper, SW_PAIR_LOCAL, 0);
        cr_assert_gt(best.score, 0);
        /* The pass that finds the start: reversed prefixes up to the end. */
        uint8_t *ra = malloc(best.a_end), *rb = malloc(best.b_end);
        for (uint64_t i = 0; i < best.a_end; ++i) ra[i] = a[best.a_end - 1 - i];
        for (uint64_t j = 0; j < best.b_end; ++j) rb[j] = b[best.b_end - 1 - j];
        const sw_pair_hit ref = run_reference(ra, best.a_end, rb, best.b_end, &paper, SW_PAIR_ANCHORED, best.score);
        cr_assert_eq(ref.score, best.score, "trial %d: the anchored reference never reaches %d", trial, best.score);
        for (int t = 1; t <= 4; ++t)
            expect_same_hit(run_threads(ra, best.a_end, rb, best.b_end, &paper, SW_PAIR_ANCHORED, best.score, t),
                            ref, "anchored");
        free(ra);
        free(rb);
        free(a);
        free(b);
    }
}

Test(pair_align, identical_sequences_align_end_to_end)
{
    /* 4 threads of 5,120 columns, blocks of 256 rows: the diagonal passes
     * exactly through the corners where a thread takes over from the one on
     * its left at the start of a block. */
    test_rng rng = test_rng_seed(3);
    const uint64_t n = 20480;
    uint8_t *a = random_dna(n, &rng, 0);
    const sw_pair_result r = check_alignment(a, n, a, n, &paper, 4);
    cr_expect_eq(r.score, (int)n);
    cr_expect(r.a_start == 1 && r.a_end == n && r.b_start == 1 && r.b_end == n);
    free(a);
}

Test(pair_align, all_mismatches_score_zero)
{
    const uint64_t na = 5000, nb = 7000;
    uint8_t *a = malloc(na), *b = malloc(nb);
    memset(a, 0, na);
    memset(b, 2, nb);
    const sw_pair_result r = check_alignment(a, na, b, nb, &paper, 3);
    cr_expect_eq(r.score, 0);
    free(a);
    free(b);
}

Test(pair_align, n_bases_never_match)
{
    uint8_t a[64], b[64];
    memset(a, 4, sizeof a);
    memset(b, 4, sizeof b);
    cr_expect_eq(check_alignment(a, sizeof a, b, sizeof b, &paper, 1).score, 0);
}

Test(pair_align, alignments_touching_every_edge)
{
    /* The shared piece at the start of a and the end of b, then the
     * other way round, and a piece that is all of a. */
    test_rng rng = test_rng_seed(17);
    const uint64_t na = 3000, nb = 9000, piece = 800;
    uint8_t *a = random_dna(na, &rng, 0), *b = random_dna(nb, &rng, 0);
    memcpy(b + nb - piece, a, piece);
    sw_pair_result r = check_alignment(a, na, b, nb, &paper, 3);
    cr_expect(r.a_start == 1 && r.b_end == nb, "first row, last column: %llu, %llu", (unsigned long long)r.a_start,
              (unsigned long long)r.b_end);
    memcpy(b, a + na - piece, piece);
    memset(b + nb - piece, 1, piece);
    r = check_alignment(a, na, b, nb, &paper, 3);
    cr_expect(r.a_end == na && r.b_start == 1, "last row, first column: %llu, %llu", (unsigned long long)r.a_end,
              (unsigned long long)r.b_start);
    free(a);
    free(b);
}

Test(pair_align, related_pairs_start_where_their_pieces_score_the_best)
{
    test_rng rng = test_rng_seed(29);
    for (int trial = 0; trial < 8; ++trial) {
        const uint64_t na = 1000 + test_rng_next(&rng) % 6000;
        uint8_t *a = random_dna(na, &rng, 100);
        uint64_t nb;
        uint8_t *b = mutate_dna(a, na, 6 + 3 * (unsigned)trial, &rng, &nb);
        check_alignment(a, na, b, nb, &paper, 1 + trial % 4);
        check_alignment(b, nb, a, na, &paper, 3);
        free(a);
        free(b);
    }
}

Test(pair_align, one_base_pairs)
{
    const uint8_t a[1] = {2}, b[1] = {2}, c[1] = {1};
    cr_expect_eq(check_alignment(a, 1, b, 1, &paper, 2).score, 1);
    cr_expect_eq(check_alignment(a, 1, c, 1, &paper, 2).score, 0);
}

/* A pass cut at row `cut`: the rows below from the last row above give
 * the same cells, so the better of the two halves is the whole's hit. */
Test(pair_edges, a_pass_cut_in_two_equals_the_whole)
{
    test_rng rng = test_rng_seed(31);
    uint64_t nb;
    uint8_t *a = random_dna(900, &rng, 0);
    uint8_t *b = mutate_dna(a, 900, 12, &rng, &nb);
    const sw_pair_hit whole = run_reference(a, 900, b, nb, &paper, SW_PAIR_LOCAL, 0);
    sw_pair_edge *mid = malloc(nb * sizeof *mid), *end1 = malloc(nb * sizeof *end1), *end2 = malloc(nb * sizeof *end2);
    cr_assert(mid && end1 && end2);
    const uint64_t cuts[] = {0, 1, 255, 256, 450, 899, 900};
    for (size_t c = 0; c < sizeof cuts / sizeof *cuts; ++c) {
        const uint64_t cut = cuts[c];
        for (int threads = 0; threads <= 3; threads += 3) {
            sw_pair_pass upper = {a, cut, b, nb, paper, SW_PAIR_LOCAL, 0, NULL, NULL, mid, NULL, 0, 0, NULL, NULL, 0, 0};
            sw_pair_pass lower = {a + cut, 900 - cut, b, nb, paper, SW_PAIR_LOCAL, 0, NULL, mid, end1, NULL, 0, 0, NULL, NULL, 0, 0};
            sw_pair_hit h1, h2;
            sw_error err = {0};
            /* threads 0: the reference; else the threaded engine */
            cr_assert_eq(threads ? sw_pair_cpu_run(&upper, threads, &h1, &err) : sw_pair_cpu_reference(&upper, &h1, &err),
                         SW_OK, "%s", err.message);
            cr_assert_eq(threads ? sw_pair_cpu_run(&lower, threads, &h2, &err) : sw_pair_cpu_reference(&lower, &h2, &err),
                         SW_OK, "%s", err.message);
            if (h2.score) h2.a_end += cut;
            const int lower_wins = h2.score > h1.score || (h2.score == h1.score && h2.score > 0 && h2.b_end < h1.b_end);
            expect_same_hit(lower_wins ? h2 : h1, whole, "cut pass");
            sw_pair_pass all = {a, 900, b, nb, paper, SW_PAIR_LOCAL, 0, NULL, NULL, end2, NULL, 0, 0, NULL, NULL, 0, 0};
            cr_assert_eq(sw_pair_cpu_reference(&all, &h1, &err), SW_OK, "%s", err.message);
            cr_expect(memcmp(end1, end2, nb * sizeof *end1) == 0, "cut at %llu: last rows differ",
                      (unsigned long long)cut);
        }
    }
    free(mid);
    free(end1);
    free(end2);
    free(a);
    free(b);
}

/* The pass cut into column strips at cuts[], run one strip after another
 * on `threads` threads, each taking the column on its left from the strip
 * before and leaving its own last column to the next (sw_pair_column), the
 * best of the strips picked in the pass's order: the whole pass's hit. */
static sw_pair_hit run_strips(const sw_pair_pass *whole, const uint64_t *cuts, int count, int threads)
{
    sw_pair_column *cols[8] = {0};
    sw_pair_hit best = {0};
    unsigned long long first_hit = ~0ull;
    uint64_t cells = 0;
    for (int k = 0; k <= count; ++k) {
        const uint64_t lo = k ? cuts[k - 1] : 0, hi = k < count ? cuts[k] : whole->b_len;
        if (k < count) {
            cols[k] = calloc(1, sw_pair_column_bytes(whole->a_len));
            cr_assert_not_null(cols[k]);
        }
        sw_pair_pass p = *whole;
        p.b = whole->b + lo;
        p.b_len = hi - lo;
        p.col_base = lo;
        p.cols_after = whole->b_len - hi;
        p.left = k ? cols[k - 1] : NULL;
        p.right = k < count ? cols[k] : NULL;
        sw_pair_hit h;
        sw_error err = {0};
        cr_assert_eq(sw_pair_cpu_run(&p, threads, &h, &err), SW_OK, "%s", err.message);
        if (k < count) cr_expect_eq(cols[k]->rows, whole->a_len, "strip %d published %llu rows", k, (unsigned long long)cols[k]->rows);
        cells += h.cells;
        if (!h.score) continue;
        h.b_end += lo;
        if (whole->mode == SW_PAIR_ANCHORED) {
            const unsigned long long key = (unsigned long long)h.b_end << 32 | h.a_end;
            if (key < first_hit) {
                first_hit = key;
                best = h;
            }
        } else if (h.score > best.score || (h.score == best.score && (h.b_end < best.b_end || (h.b_end == best.b_end && h.a_end < best.a_end)))) {
            best = h;
        }
    }
    for (int k = 0; k < count; ++k) free(cols[k]);
    if (whole->mode == SW_PAIR_LOCAL) cr_expect_eq(cells, whole->a_len * whole->b_len);
    return best;
}

/* Column strips (sw_pair_pass.left, .right) at borders of every kind,
 * local passes and the start passes over the reversed prefixes. */
Test(pair_edges, column_strips_equal_the_whole)
{
    test_rng rng = test_rng_seed(37);
    uint64_t nb;
    uint8_t *a = random_dna(3000, &rng, 0);
    uint8_t *b = mutate_dna(a, 3000, 12, &rng, &nb);
    const sw_pair_scoring scorings[2] = {paper, {2, -3, 5, 2}};
    for (int sc = 0; sc < 2; ++sc) {
        const sw_pair_hit whole = run_reference(a, 3000, b, nb, &scorings[sc], SW_PAIR_LOCAL, 0);
        cr_assert_gt(whole.score, 0);
        const uint64_t cut_sets[4][3] = {{1, 0, 0}, {255, 256, 257}, {nb / 3, nb / 2, nb - 1}, {2048, 0, 0}};
        const int counts[4] = {1, 3, 3, 1};
        uint8_t *ra = malloc(whole.a_end), *rb = malloc(whole.b_end);
        for (uint64_t i = 0; i < whole.a_end; ++i) ra[i] = a[whole.a_end - 1 - i];
        for (uint64_t j = 0; j < whole.b_end; ++j) rb[j] = b[whole.b_end - 1 - j];
        const sw_pair_hit start = run_reference(ra, whole.a_end, rb, whole.b_end, &scorings[sc], SW_PAIR_ANCHORED, whole.score);
        for (int c = 0; c < 4; ++c)
            for (int threads = 1; threads <= 3; threads += 2) {
                sw_pair_pass p = {a, 3000, b, nb, scorings[sc], SW_PAIR_LOCAL, 0, NULL, NULL, NULL, NULL, 0, 0, NULL, NULL, 0, 0};
                char what[96];
                snprintf(what, sizeof what, "strips at %llu.., %d threads, scores %d", (unsigned long long)cut_sets[c][0], threads, sc);
                expect_same_hit(run_strips(&p, cut_sets[c], counts[c], threads), whole, what);
                sw_pair_pass back = {ra, whole.a_end, rb, whole.b_end, scorings[sc], SW_PAIR_ANCHORED, whole.score, NULL, NULL, NULL, NULL, 0, 0, NULL, NULL, 0, 0};
                uint64_t cuts[3];
                for (int k = 0; k < counts[c]; ++k) cuts[k] = cut_sets[c][k] < whole.b_end ? cut_sets[c][k] : whole.b_end - 1;
                if (counts[c] == 1 || (cuts[0] < cuts[1] && cuts[1] < cuts[2])) {
                    snprintf(what, sizeof what, "start pass in strips at %llu.., %d threads", (unsigned long long)cuts[0], threads);
                    expect_same_hit(run_strips(&back, cuts, counts[c], threads), start, what);
                }
            }
        free(ra);
        free(rb);
    }
    free(a);
    free(b);
}

/* A strip whose left neighbour gave up says so instead of waiting. */
Test(pair_edges, a_strip_after_one_that_gave_up_fails)
{
    const uint8_t a[4] = {0, 1, 2, 3}, b[4] = {0, 1, 2, 3};
    sw_pair_column *left = calloc(1, sw_pair_column_bytes(4));
    left->abort = 1;
    sw_pair_pass p = {a, 4, b, 4, paper, SW_PAIR_LOCAL, 0, NULL, NULL, NULL, NULL, 0, 0, left, NULL, 4, 0};
    sw_pair_hit h;
    sw_error err = {0};
    cr_expect_eq(sw_pair_cpu_run(&p, 1, &h, &err), SW_EIO);
    cr_expect_not_null(strstr(err.message, "gave up"), "%s", err.message);
    free(left);
}

static int slice_on_cpu(void *user, const sw_pair_pass *pass, sw_pair_hit *out, sw_error *err)
{
    (void)user;
    return sw_pair_cpu_run(pass, 1, out, err);
}

/* The modified overlap method across members: equal to the reference for
 * any overlap, with recomputation where a slice started inexact. */
static void expect_team(const uint8_t *a, uint64_t na, const uint8_t *b, uint64_t nb, int members, uint64_t overlap,
                        int want_rounds)
{
    const sw_pair_hit ref = run_reference(a, na, b, nb, &paper, SW_PAIR_LOCAL, 0);
    sw_pair_pass pass = {a, na, b, nb, paper, SW_PAIR_LOCAL, 0, NULL, NULL, NULL, NULL, 0, 0, NULL, NULL, 0, 0};
    sw_pair_hit got;
    sw_pair_split_stats st;
    sw_error err = {0};
    cr_assert_eq(sw_pair_team_run(&pass, members, overlap, slice_on_cpu, NULL, &got, &st, &err), SW_OK, "%s",
                 err.message);
    char what[96];
    snprintf(what, sizeof what, "%llux%llu in %d slices, overlap %llu", (unsigned long long)na,
             (unsigned long long)nb, members, (unsigned long long)overlap);
    expect_same_hit(got, ref, what);
    if (want_rounds >= 0)
        cr_expect(st.rounds >= want_rounds, "%s: %d rounds, expected at least %d", what, st.rounds, want_rounds);
    cr_expect(st.cells >= na * nb, "%s: %llu cells", what, (unsigned long long)st.cells);
}

Test(pair_split, slices_equal_the_reference)
{
    test_rng rng = test_rng_seed(77);
    uint64_t nb, nc;
    uint8_t *a = random_dna(3000, &rng, 40);
    uint8_t *b = mutate_dna(a, 3000, 100, &rng, &nb); /* 3% changed */
    uint8_t *c = mutate_dna(a, 3000, 15, &rng, &nc);  /* 20% changed: short alignments */
    uint8_t *r = random_dna(2500, &rng, 40);
    for (int members = 1; members <= 5; ++members) {
        /* The best alignment runs through every slice; a small overlap
         * cannot see it, each slice waits for the one above. */
        expect_team(a, 3000, b, nb, members, 8, members - 1);
        expect_team(a, 3000, a, 3000, members, 8, members - 1); /* identical */
        expect_team(a, 3000, b, nb, members, 0, -1);
        expect_team(a, 3000, a, 3000, members, 256, -1); /* the overlap of the program */
        expect_team(a, 3000, c, nc, members, 8, -1);
        expect_team(a, 3000, r, 2500, members, 8, -1); /* unrelated */
        expect_team(a, 3, b, nb, members, 8, -1);      /* fewer rows than slices */
    }
    expect_team(a, 3000, b, 1, 3, 8, -1);
    free(a);
    free(b);
    free(c);
    free(r);
}

Test(pair_scoring, rejects_what_32_bits_cannot_hold)
{
    sw_error err = {0};
    const sw_pair_scoring big = {2, -3, 3, 2};
    cr_expect_eq(sw_pair_check_scoring(&big, (uint64_t)1 << 29, (uint64_t)1 << 30, &err), SW_ELIMIT);
    cr_expect(strstr(err.message, "largest score") != NULL, "%s", err.message);
    cr_expect_eq(sw_pair_check_scoring(&paper, (uint64_t)1 << 29, (uint64_t)1 << 31, &err), SW_OK);
    const sw_pair_scoring bad_match = {0, -3, 3, 2}, bad_mismatch = {1, 1, 3, 2}, bad_extend = {1, -3, 3, 0};
    cr_expect_eq(sw_pair_check_scoring(&bad_match, 10, 10, &err), SW_EINVAL);
    cr_expect_eq(sw_pair_check_scoring(&bad_mismatch, 10, 10, &err), SW_EINVAL);
    cr_expect_eq(sw_pair_check_scoring(&bad_extend, 10, 10, &err), SW_EINVAL);
}

/* ---- the widths of column strips (sw_pair_strips.h) ---- */

Test(pair_strips, widths_follow_the_speeds_and_sum_to_the_columns)
{
    const double same[4] = {1, 1, 1, 1}, mixed[4] = {2, 1, 1.5, 0.5};
    const uint64_t held[4] = {1081344, 1081344, 1081344, 1081344};
    const double *speeds[2] = {same, mixed};
    for (int s = 0; s < 2; ++s)
        for (int count = 1; count <= 4; ++count) {
            uint64_t w[4];
            const uint64_t rows = 10000000, cols = 10000001;
            const int used = sw_pair_strip_widths(rows, cols, count, speeds[s], held, w);
            cr_assert_eq(used, count, "%d strips for a 10 Mbp pair: %d used", count, used);
            uint64_t sum = 0;
            double total = 0;
            for (int k = 0; k < used; ++k) {
                sum += w[k];
                total += speeds[s][k];
            }
            cr_expect_eq(sum, cols);
            /* Each strip sweeps a band in the same time, to a column. */
            for (int k = 0; k < used; ++k) {
                const double want = speeds[s][k] / total * (double)cols;
                cr_expect((double)w[k] > want - 2 && (double)w[k] < want + 2, "speeds %d, %d strips: strip %d of %llu columns, not %g",
                          s, count, k, (unsigned long long)w[k], want);
            }
        }
}

Test(pair_strips, a_short_pass_gets_fewer_strips)
{
    const double speed[4] = {1, 1, 1, 1};
    const uint64_t held[4] = {1000000, 1000000, 1000000, 1000000};
    uint64_t w[4];
    /* No more rows than a strip holds: the second would start as the first ends. */
    cr_expect_eq(sw_pair_strip_widths(1000000, 5000, 4, speed, held, w), 1);
    cr_expect_eq(w[0], 5000);
    cr_expect_eq(sw_pair_strip_widths(1000001, 5000, 4, speed, held, w), 4);
    /* Fewer columns than strips: a column each at most. */
    const int used = sw_pair_strip_widths(50000000, 3, 4, speed, held, w);
    cr_expect_eq(used, 3);
    for (int k = 0; k < used; ++k) cr_expect_eq(w[k], 1);
    cr_expect_eq(sw_pair_strip_widths(0, 10, 2, speed, held, w), 0);
    const double stalled[2] = {1, 0};
    cr_expect_eq(sw_pair_strip_widths(10, 10, 2, stalled, held, w), 0);
}
