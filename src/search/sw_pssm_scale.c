/* The scale of a substitution matrix that PSSM scores are put in: the
 * background frequencies, the ungapped lambda and the target frequencies
 * that the matrix's scores imply (sw_pssm.h). */
#include "sw_pssm.h"

#include <math.h>

/* Robinson and Robinson (1991), per thousand, in code order A R N D C Q E
 * G H I L K M F P S T W Y V; they sum to 1000. */
static const double background[20] = {
    78.05 / 1000, 51.29 / 1000, 44.87 / 1000, 53.64 / 1000, 19.25 / 1000, 42.64 / 1000, 62.95 / 1000,
    73.77 / 1000, 21.99 / 1000, 51.42 / 1000, 90.19 / 1000, 57.44 / 1000, 22.43 / 1000, 38.56 / 1000,
    52.03 / 1000, 71.20 / 1000, 58.41 / 1000, 13.30 / 1000, 32.16 / 1000, 64.41 / 1000,
};

const double *sw_pssm_background(void) { return background; }

/* sum_ab p_a p_b exp(lambda s_ab) - 1: 0 at lambda = 0, falling first
 * (the expected score is negative), then rising without bound (some score
 * is positive); lambda_u is its positive root. */
static double excess(const int8_t *table, double lambda)
{
    double sum = 0;
    for (int a = 0; a < 20; ++a)
        for (int b = 0; b < 20; ++b) sum += background[a] * background[b] * exp(lambda * table[a * SW_CODE_LIMIT + b]);
    return sum - 1;
}

int sw_pssm_lambda(const sw_matrix *m, double *lambda, sw_error *err)
{
    int rc = sw_pssm_check_matrix(m, err);
    if (rc) return rc;
    const int8_t *table = sw_matrix_table(m);
    double expected = 0;
    int positive = 0;
    for (int a = 0; a < 20; ++a)
        for (int b = 0; b < 20; ++b) {
            expected += background[a] * background[b] * table[a * SW_CODE_LIMIT + b];
            positive |= table[a * SW_CODE_LIMIT + b] > 0;
        }
    if (expected >= 0 || !positive)
        return sw_error_set(err, SW_EINVAL,
                            "the matrix has %s: it has no ungapped lambda, so no PSSM can be put in its units",
                            positive ? "a non-negative expected score" : "no positive score");
    double lo = 0, hi = 0.5;
    while (excess(table, hi) <= 0) lo = hi, hi *= 2;
    /* Bisection to the last bit: the same lambda on every machine. */
    for (int k = 0; k < 200; ++k) {
        const double mid = lo + (hi - lo) / 2;
        if (mid <= lo || mid >= hi) break;
        if (excess(table, mid) > 0) hi = mid;
        else lo = mid;
    }
    *lambda = lo + (hi - lo) / 2;
    return SW_OK;
}

int sw_pssm_target_frequencies(const sw_matrix *m, double q[20 * 20], double *lambda, sw_error *err)
{
    int rc = sw_pssm_lambda(m, lambda, err);
    if (rc) return rc;
    const int8_t *table = sw_matrix_table(m);
    for (int a = 0; a < 20; ++a)
        for (int b = 0; b < 20; ++b)
            q[a * 20 + b] = background[a] * background[b] * exp(*lambda * table[a * SW_CODE_LIMIT + b]);
    return SW_OK;
}
