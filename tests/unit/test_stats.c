/* Statistics: NCBI's published parameters are found and give BLAST's bit
 * scores; E-values grow with the subject's length and fall with the score;
 * the fit recovers the parameters of scores drawn from a known extreme-value
 * distribution, ignores planted homologs, is deterministic, and refuses too
 * small a sample. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sw_stats.h"
#include "test_rng.h"

Test(stats, finds_ncbi_parameters_by_matrix_name_and_gap_costs)
{
    sw_stats_params p;
    cr_assert_eq(sw_stats_lookup("blosum62", 11, 1, &p), SW_OK);
    cr_assert_float_eq(p.lambda, 0.267, 1e-9);
    cr_assert_float_eq(p.k, 0.041, 1e-9);
    cr_assert_float_eq(p.h, 0.14, 1e-9);
    cr_assert_eq(sw_stats_lookup("PAM30", 9, 1, &p), SW_OK);
    cr_assert_float_eq(p.lambda, 0.294, 1e-9);
    cr_assert_eq(sw_stats_lookup("BLOSUM62", 3, 3, &p), SW_ENOTFOUND);
    cr_assert_eq(sw_stats_lookup("BLOSUM99", 11, 1, &p), SW_ENOTFOUND);
    cr_assert_eq(sw_stats_lookup(NULL, 11, 1, &p), SW_ENOTFOUND);
}

/* blastp 2.12 -comp_based_stats 0, BLOSUM62 11/1: raw score 622 is 244
 * bits, 390 is 154, 212 is 86.3 (its bit scores use lambda and K only). */
Test(stats, bit_scores_are_blasts)
{
    sw_stats_params p;
    sw_stats *s;
    sw_error err;
    cr_assert_eq(sw_stats_lookup("BLOSUM62", 11, 1, &p), SW_OK);
    cr_assert_eq(sw_stats_from_params(&p, 123, 294725, 2000, &s, &err), SW_OK);
    cr_assert_float_eq(sw_stats_bit_score(s, 622), 244.2, 0.05);
    cr_assert_float_eq(sw_stats_bit_score(s, 390), 154.8, 0.05);
    cr_assert_float_eq(sw_stats_bit_score(s, 212), 86.3, 0.05);
    sw_stats_free(s);
}

Test(stats, evalues_fall_with_the_score_and_grow_with_the_subject_length)
{
    sw_stats_params p;
    sw_stats *s;
    sw_error err;
    cr_assert_eq(sw_stats_lookup("BLOSUM62", 11, 1, &p), SW_OK);
    cr_assert_eq(sw_stats_from_params(&p, 300, 200000000, 500000, &s, &err), SW_OK);
    double prev = INFINITY;
    for (int score = 20; score < 400; score += 10) {
        double e = sw_stats_evalue(s, score, 300);
        cr_assert_lt(e, prev, "score %d", score);
        cr_assert_geq(e, 0.0);
        prev = e;
    }
    cr_assert_lt(sw_stats_evalue(s, 60, 100), sw_stats_evalue(s, 60, 1000));
    cr_assert_lt(sw_stats_evalue(s, 60, 1000), sw_stats_evalue(s, 60, 30000));
    /* Never more than the number of sequences; 0 when it underflows. */
    cr_assert_leq(sw_stats_evalue(s, 1, 30000), 500000.0);
    cr_assert_eq(sw_stats_evalue(s, 100000, 300), 0.0);
    sw_stats_free(s);
}

/* A Gumbel draw of location ln(K m n) / lambda and scale 1 / lambda,
 * rounded down to an integer score, as Smith-Waterman scores are. */
static int32_t gumbel_score(test_rng *r, double lambda, double k, double m, double n)
{
    double u = ((double)(test_rng_next(r) >> 11) + 0.5) / 9007199254740992.0;
    double x = (log(k * m * n) - log(-log(u))) / lambda;
    return (int32_t)floor(x);
}

static void draw(int32_t *scores, uint32_t *lengths, size_t n, double lambda, double k, double m, uint64_t seed)
{
    test_rng r = test_rng_seed(seed);
    for (size_t i = 0; i < n; i++) {
        lengths[i] = 50 + (uint32_t)test_rng_below(&r, 950);
        scores[i] = gumbel_score(&r, lambda, k, m, lengths[i]);
        if (scores[i] < 1) scores[i] = 1;
    }
}

Test(stats, the_fit_recovers_lambda_and_k_of_known_scores)
{
    const size_t n = 20000;
    int32_t *scores = malloc(n * sizeof *scores);
    uint32_t *lengths = malloc(n * sizeof *lengths);
    draw(scores, lengths, n, 0.267, 0.041, 300, 5);
    sw_stats *s;
    sw_error err;
    cr_assert_eq(sw_stats_fit(scores, lengths, n, 300, 0, &s, &err), SW_OK, "%s", err.message);
    /* Integer scores shift the fit by about half a point: K absorbs it. */
    double e_true = 0.041 * 300 * 400 * exp(-0.267 * 60);
    double e_fit = sw_stats_evalue(s, 60, 400) / (double)n;
    cr_assert_float_eq(log(e_fit / e_true), 0.0, 0.25,
                       "fitted E %g, true %g (%s)", e_fit, e_true, sw_stats_describe(s));
    sw_stats_free(s);
    free(scores);
    free(lengths);
}

Test(stats, planted_homologs_do_not_move_the_fit)
{
    const size_t n = 20000;
    int32_t *scores = malloc(n * sizeof *scores);
    uint32_t *lengths = malloc(n * sizeof *lengths);
    draw(scores, lengths, n, 0.267, 0.041, 300, 6);
    sw_stats *clean, *planted;
    sw_error err;
    cr_assert_eq(sw_stats_fit(scores, lengths, n, 300, 0, &clean, &err), SW_OK);
    for (size_t i = 0; i < n; i += 100) scores[i] = 300 + (int32_t)(i % 700);
    cr_assert_eq(sw_stats_fit(scores, lengths, n, 300, 0, &planted, &err), SW_OK);
    double a = sw_stats_evalue(clean, 60, 400), b = sw_stats_evalue(planted, 60, 400);
    cr_assert_float_eq(log(a / b), 0.0, 0.2, "clean %g, with homologs %g", a, b);
    sw_stats_free(clean);
    sw_stats_free(planted);
    free(scores);
    free(lengths);
}

Test(stats, the_fit_is_the_same_for_the_same_scores)
{
    const size_t n = 5000;
    int32_t *scores = malloc(n * sizeof *scores);
    uint32_t *lengths = malloc(n * sizeof *lengths);
    draw(scores, lengths, n, 0.3, 0.1, 200, 7);
    sw_stats *a, *b;
    sw_error err;
    cr_assert_eq(sw_stats_fit(scores, lengths, n, 200, 0, &a, &err), SW_OK);
    cr_assert_eq(sw_stats_fit(scores, lengths, n, 200, 0, &b, &err), SW_OK);
    cr_assert_eq(sw_stats_evalue(a, 50, 300), sw_stats_evalue(b, 50, 300));
    cr_assert_str_eq(sw_stats_describe(a), sw_stats_describe(b));
    sw_stats_free(a);
    sw_stats_free(b);
    free(scores);
    free(lengths);
}

Test(stats, the_fit_refuses_too_few_sequences)
{
    int32_t scores[400];
    uint32_t lengths[400];
    draw(scores, lengths, 400, 0.267, 0.041, 300, 8);
    sw_stats *s = NULL;
    sw_error err;
    cr_assert_eq(sw_stats_fit(scores, lengths, 400, 300, 0, &s, &err), SW_ELIMIT);
    cr_assert_null(s);
    cr_assert(strstr(err.message, "at least 500") != NULL, "%s", err.message);
}
