/* The GPU engine of profile-profile alignment against the CPU reference:
 * the same score and the same columns for random pairs of every shape
 * (both column scores, weighted rows, gap-only columns, one-row profiles,
 * sizes around the 32-column strips and tiles), many pairs in one batch,
 * and the refusal of scorings whose values the GPU's 32 bits cannot hold.
 * Every test skips without a usable GPU. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_required.h"
#include "msa_random.h"
#include "sw_matrix.h"
#include "sw_profile_align.h"
#include "test_rng.h"

TestSuite(profile_gpu, .init = gpu_required);

static const int8_t *blosum62(void)
{
    static sw_matrix *m;
    if (!m) {
        sw_error err = {0};
        cr_assert_eq(sw_matrix_load("BLOSUM62", &m, &err), SW_OK, "%s", err.message);
    }
    return sw_matrix_table(m);
}

static sw_profile *profile_of(const sw_msa *m, int weighted)
{
    sw_profile *p = NULL;
    sw_error err = {0};
    cr_assert_eq(weighted ? sw_profile_from_msa_weighted(m, &p, &err) : sw_profile_from_msa(m, &p, &err), SW_OK,
                 "%s", err.message);
    return p;
}

/* Aligns every pair on the GPU in one batch, with the scores made in
 * shared memory and again with them in global memory, and on the CPU
 * reference one by one: the same score and columns. */
static void expect_same_with(const char *what, sw_profile **a, sw_profile **b, size_t count,
                             const sw_profile_scoring *s, sw_profile_gpu_scores scores)
{
    sw_profile_alignment **gpu = calloc(count, sizeof *gpu);
    cr_assert_not_null(gpu);
    sw_error err = {0};
    sw_profile_gpu_stats st;
    const sw_profile_gpu_options go = {.device = 0, .scores = scores};
    cr_assert_eq(sw_profile_align_gpu((const sw_profile *const *)a, (const sw_profile *const *)b, count, s, &go, gpu,
                                      &st, &err),
                 SW_OK, "%s (scores in %s memory): %s", what, scores ? "global" : "shared", err.message);
    for (size_t k = 0; k < count; ++k) {
        sw_profile_alignment *cpu = NULL;
        cr_assert_eq(sw_profile_align(a[k], b[k], s, &cpu, &err), SW_OK, "%s: %s", what, err.message);
        cr_expect_eq(sw_profile_alignment_score(gpu[k]), sw_profile_alignment_score(cpu),
                     "%s, pair %zu (%zu x %zu): GPU score %lld, CPU %lld", what, k, sw_profile_columns(a[k]),
                     sw_profile_columns(b[k]), (long long)sw_profile_alignment_score(gpu[k]),
                     (long long)sw_profile_alignment_score(cpu));
        int same = sw_profile_alignment_length(gpu[k]) == sw_profile_alignment_length(cpu);
        for (size_t t = 0; same && t < sw_profile_alignment_length(cpu); ++t) {
            const sw_profile_pair x = sw_profile_alignment_pair(gpu[k], t), y = sw_profile_alignment_pair(cpu, t);
            same = x.a == y.a && x.b == y.b;
        }
        cr_expect(same, "%s, pair %zu (%zu x %zu): the GPU's columns differ from the CPU's", what, k,
                  sw_profile_columns(a[k]), sw_profile_columns(b[k]));
        sw_profile_alignment_free(cpu);
        sw_profile_alignment_free(gpu[k]);
    }
    free(gpu);
}

static void expect_same(const char *what, sw_profile **a, sw_profile **b, size_t count, const sw_profile_scoring *s)
{
    expect_same_with(what, a, b, count, s, SW_PROFILE_GPU_SCORES_SHARED);
    expect_same_with(what, a, b, count, s, SW_PROFILE_GPU_SCORES_GLOBAL);
}

/* `count` random pairs of up to `most` columns, in one batch. */
static void random_pairs(const char *what, test_rng *r, size_t count, size_t most, const sw_profile_scoring *s,
                         int weighted)
{
    sw_profile **a = calloc(count, sizeof *a), **b = calloc(count, sizeof *b);
    cr_assert(a && b);
    for (size_t k = 0; k < count; ++k) {
        sw_msa *ma = random_msa(r, 1 + test_rng_below(r, 8), 1 + test_rng_below(r, most), 3 + (unsigned)(k % 6));
        sw_msa *mb = random_msa(r, 1 + test_rng_below(r, 8), 1 + test_rng_below(r, most), k % 3 ? 5 : 0);
        a[k] = profile_of(ma, weighted);
        b[k] = profile_of(mb, weighted);
        sw_msa_free(ma);
        sw_msa_free(mb);
    }
    expect_same(what, a, b, count, s);
    for (size_t k = 0; k < count; ++k) {
        sw_profile_free(a[k]);
        sw_profile_free(b[k]);
    }
    free(a);
    free(b);
}

Test(profile_gpu, random_pairs_equal_the_cpu_reference)
{
    test_rng r = test_rng_seed(2101);
    const sw_profile_scoring expected = {SW_PROFILE_EXPECTED, blosum62(), 11, 1};
    const sw_profile_scoring euclid = {SW_PROFILE_EUCLID, NULL, 0, 0};
    const sw_profile_scoring euclid_open = {SW_PROFILE_EUCLID, NULL, 3, 0};
    const sw_profile_scoring cheap = {SW_PROFILE_EXPECTED, blosum62(), 2, 4};
    random_pairs("expected, 11/1", &r, 150, 200, &expected, 0);
    random_pairs("expected, 2/4", &r, 60, 120, &cheap, 0);
    random_pairs("euclid", &r, 100, 200, &euclid, 0);
    random_pairs("euclid, open 3", &r, 60, 120, &euclid_open, 0);
    random_pairs("expected, Henikoff weights", &r, 60, 150, &expected, 1);
}

/* Sizes around the strips (32 columns of the first profile) and the score
 * tiles (32 of the second), and pairs long enough that many strips wait
 * for the ones before. */
Test(profile_gpu, strip_and_tile_edges)
{
    test_rng r = test_rng_seed(2102);
    const sw_profile_scoring expected = {SW_PROFILE_EXPECTED, blosum62(), 11, 1};
    static const size_t sizes[] = {1, 2, 31, 32, 33, 63, 64, 65, 95, 97, 1500, 3100};
    const size_t count = sizeof sizes / sizeof *sizes;
    sw_profile *a[12 * 12], *b[12 * 12];
    size_t k = 0;
    for (size_t x = 0; x < count; ++x)
        for (size_t y = 0; y < count; ++y) {
            if (sizes[x] * sizes[y] > 600000 && !(x == count - 1 && y == count - 2)) continue;
            sw_msa *ma = random_msa(&r, 4, sizes[x], 7), *mb = random_msa(&r, 3, sizes[y], 9);
            a[k] = profile_of(ma, 0);
            b[k] = profile_of(mb, 0);
            ++k;
            sw_msa_free(ma);
            sw_msa_free(mb);
        }
    expect_same("edges", a, b, k, &expected);
    for (size_t q = 0; q < k; ++q) {
        sw_profile_free(a[q]);
        sw_profile_free(b[q]);
    }
}

/* Columns of gaps only and one-row profiles (profile-sequence alignment)
 * in one batch. */
Test(profile_gpu, gap_columns_and_single_rows)
{
    test_rng r = test_rng_seed(2103);
    const sw_profile_scoring expected = {SW_PROFILE_EXPECTED, blosum62(), 11, 1};
    const sw_profile_scoring euclid = {SW_PROFILE_EUCLID, NULL, 0, 0};
    sw_profile *a[3], *b[3];
    /* Every row a gap in every third column. */
    sw_msa *gappy = random_msa(&r, 5, 90, 0);
    uint8_t *codes = malloc(5 * 90);
    const uint8_t *rows[5];
    const char *names[5] = {"a", "b", "c", "d", "e"};
    cr_assert_not_null(codes);
    for (size_t k = 0; k < 5; ++k) {
        memcpy(codes + k * 90, sw_msa_row(gappy, k), 90);
        for (size_t c = 0; c < 90; c += 3) codes[k * 90 + c] = SW_MSA_GAP;
        rows[k] = codes + k * 90;
    }
    sw_msa *with_gaps = NULL;
    sw_error err = {0};
    cr_assert_eq(sw_msa_from_rows(names, rows, 5, 90, &with_gaps, &err), SW_OK, "%s", err.message);
    sw_msa *one = random_msa(&r, 1, 70, 0), *other = random_msa(&r, 1, 85, 0), *several = random_msa(&r, 6, 77, 4);
    a[0] = profile_of(with_gaps, 0);
    b[0] = profile_of(several, 0);
    a[1] = profile_of(one, 0);
    b[1] = profile_of(other, 0);
    a[2] = profile_of(one, 0);
    b[2] = profile_of(several, 0);
    expect_same("gaps and single rows, expected", a, b, 3, &expected);
    expect_same("gaps and single rows, euclid", a, b, 3, &euclid);
    for (int k = 0; k < 3; ++k) {
        sw_profile_free(a[k]);
        sw_profile_free(b[k]);
    }
    sw_msa_free(gappy);
    sw_msa_free(with_gaps);
    sw_msa_free(one);
    sw_msa_free(other);
    sw_msa_free(several);
    free(codes);
}

/* Scoring the GPU cannot compute exactly is refused, clearly and with
 * nothing set: a gap opening so costly that the scores could leave 32
 * bits, and a gap extension beyond the signed byte in which the GPU sums
 * each column's expected-score terms (it is the score of a residue
 * against a gap). */
static void expect_refusal(const sw_profile_scoring *s, const char *why)
{
    test_rng r = test_rng_seed(2104);
    sw_msa *ma = random_msa(&r, 3, 40, 4), *mb = random_msa(&r, 3, 50, 4);
    sw_profile *a = profile_of(ma, 0), *b = profile_of(mb, 0);
    sw_profile_alignment *x = NULL;
    sw_error err = {0};
    cr_expect_eq(sw_profile_align_gpu((const sw_profile *const *)&a, (const sw_profile *const *)&b, 1, s, NULL, &x,
                                      NULL, &err),
                 SW_ELIMIT);
    cr_expect_null(x);
    cr_expect(strstr(err.message, why) != NULL, "message: %s", err.message);
    sw_profile_free(a);
    sw_profile_free(b);
    sw_msa_free(ma);
    sw_msa_free(mb);
}

Test(profile_gpu, values_beyond_32_bits_are_refused)
{
    const sw_profile_scoring costly_open = {SW_PROFILE_EXPECTED, blosum62(), 100000, 1};
    expect_refusal(&costly_open, "32-bit");
    const sw_profile_scoring costly_extension = {SW_PROFILE_EXPECTED, blosum62(), 11, 255};
    expect_refusal(&costly_extension, "symbol score of 255");
}
