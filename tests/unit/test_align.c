/* Smith-Waterman engines: hand-checked scores, the SIMD engine against the
 * reference on random and extreme inputs, and the reference against ssearch36. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sw_align_ref.h"
#include "sw_cpu_simd.h"
#include "sw_matrix.h"
#include "test_matrices.h"
#include "test_rng.h"

/* Every configuration of the SIMD engine: each instruction set with the
 * cascade starting at 8, 16 and 32 bits, and the scalar fallback (see
 * sw_simd_variant_select in sw_cpu_simd.h). */
static const char *const all_engines[] = {"avx2", "avx2/16", "avx2/32", "sse2",
                                          "sse2/16", "sse2/32", "scalar"};
#define N_ENGINES (sizeof all_engines / sizeof *all_engines)

/* Letters to codes; returns the length. */
static size_t encode(const char *letters, uint8_t *codes)
{
    size_t n = strlen(letters);
    for (size_t i = 0; i < n; i++) {
        codes[i] = sw_alphabet_encode(sw_alphabet_protein(), (unsigned char)letters[i]);
        cr_assert_neq(codes[i], SW_CODE_INVALID, "bad letter '%c'", letters[i]);
    }
    return n;
}

static int ref_score(const uint8_t *q, size_t qn, const uint8_t *s, size_t sn,
                     const sw_scoring *sc)
{
    sw_ref_result r;
    int rc = sw_ref_align(q, qn, s, sn, sc, &r);
    cr_assert_eq(rc, SW_OK, "sw_ref_align: %s", sw_strerror(rc));
    return r.score;
}

/* A profile for the variant named `engine`. */
static sw_simd_profile *profile_for(const char *engine, const uint8_t *q, size_t qn,
                                    const sw_scoring *sc)
{
    sw_simd_variant v;
    cr_assert_eq(sw_simd_variant_select(engine, &v), SW_OK, "no variant '%s'", engine);
    sw_simd_profile *p = NULL;
    int rc = sw_simd_profile_create_variant(q, qn, sc, &v, &p);
    cr_assert_eq(rc, SW_OK, "sw_simd_profile_create(%s): %s", engine, sw_strerror(rc));
    return p;
}

static int simd_score(const char *engine, const uint8_t *q, size_t qn, const uint8_t *s,
                      size_t sn, const sw_scoring *sc)
{
    sw_simd_profile *p = profile_for(engine, q, qn, sc);
    sw_simd_workspace *w = NULL;
    cr_assert_eq(sw_simd_workspace_create(&w), SW_OK);
    int score = sw_simd_align(p, w, s, sn);
    sw_simd_workspace_free(w);
    sw_simd_profile_free(p);
    return score;
}

static int have_avx2(void)
{
    sw_simd_variant v;
    cr_assert_eq(sw_simd_variant_select("avx2", &v), SW_OK);
    return strcmp(sw_simd_variant_name(&v), "avx2") == 0;
}

/* The reference and every SIMD configuration give `expected`. */
static void expect_score(const char *matrix, int gap_open, int gap_extend, const char *query,
                         const char *subject, int expected)
{
    sw_matrix *m = load_matrix(matrix);
    sw_scoring sc = scoring_of(m, gap_open, gap_extend);
    uint8_t q[256], s[256];
    size_t qn = encode(query, q), sn = encode(subject, s);
    cr_expect_eq(ref_score(q, qn, s, sn, &sc), expected, "reference: %s vs %s", query, subject);
    for (size_t e = 0; e < N_ENGINES; e++)
        cr_expect_eq(simd_score(all_engines[e], q, qn, s, sn, &sc), expected, "%s: %s vs %s",
                     all_engines[e], query, subject);
    sw_matrix_free(m);
}

/* ---- Hand-checked scores (BLOSUM62, gap 11/1 unless named) ---- */

Test(align, identical_sequences_score_the_sum_of_the_diagonal)
{
    /* M5 K5 T5 A4 Y7 I4 A4 K5 Q5 R5 = 49 */
    expect_score("BLOSUM62", 11, 1, "MKTAYIAKQR", "MKTAYIAKQR", 49);
}

Test(align, a_single_residue_scores_its_diagonal_entry)
{
    expect_score("BLOSUM62", 11, 1, "W", "W", 11);
    expect_score("BLOSUM62", 11, 1, "A", "A", 4);
}

Test(align, a_gap_of_one_residue_costs_open_plus_extend)
{
    /* ACDEFGHIKL against itself: A4 C9 D6 E5 F6 G6 H8 I4 K5 L4 = 57. With a W
     * inserted in the subject: 57 - (11 + 1) = 45. Without the gap the best
     * is ACDEF alone (30) or GHIKL alone (27): G/W, H/G, I/H, K/I, L/K are all
     * negative. */
    expect_score("BLOSUM62", 11, 1, "ACDEFGHIKL", "ACDEFWGHIKL", 45);
}

Test(align, a_gap_of_k_residues_costs_open_plus_k_extend)
{
    /* As above with k inserted residues: 57 - (11 + k), still above 30. */
    expect_score("BLOSUM62", 11, 1, "ACDEFGHIKL", "ACDEFWWGHIKL", 57 - 13);
    expect_score("BLOSUM62", 11, 1, "ACDEFGHIKL", "ACDEFWWWGHIKL", 57 - 14);
    expect_score("BLOSUM62", 11, 1, "ACDEFGHIKL", "ACDEFWWWWWGHIKL", 57 - 16);
    /* The gap may sit in the query too: same cost. */
    expect_score("BLOSUM62", 11, 1, "ACDEFWWWGHIKL", "ACDEFGHIKL", 57 - 14);
}

Test(align, a_pair_with_only_negative_scores_scores_zero)
{
    /* W/D -4, W/E -3, C/D -3, C/E -4 */
    expect_score("BLOSUM62", 11, 1, "WCWC", "DEDE", 0);
}

Test(align, an_empty_query_or_subject_scores_zero)
{
    expect_score("BLOSUM62", 11, 1, "", "ACDEF", 0);
    expect_score("BLOSUM62", 11, 1, "ACDEF", "", 0);
    expect_score("BLOSUM62", 11, 1, "", "", 0);
}

Test(align, a_gap_wins_when_cheaper_than_the_mismatches_it_avoids)
{
    /* WWWWWKWWWWW vs W x 10: skipping K costs 12 and leaves ten W pairs,
     * 110 - 12 = 98; without a gap, K/W (-3) between five and four W pairs
     * gives 55 - 3 + 44 = 96. */
    expect_score("BLOSUM62", 11, 1, "WWWWWKWWWWW", "WWWWWWWWWW", 98);
}

Test(align, mismatches_win_when_cheaper_than_a_gap)
{
    /* The same pair with gap 20/5: the gap now costs 25, 110 - 25 = 85, so
     * the ungapped 96 wins. */
    expect_score("BLOSUM62", 20, 5, "WWWWWKWWWWW", "WWWWWWWWWW", 96);
}

Test(align, a_gap_in_each_sequence_may_sit_side_by_side)
{
    /* Gap 0/1: C/E scores -4, but a one-residue gap in each sequence costs
     * only 1 + 1: 110 - 2 = 108 beats 110 - 4 = 106. Gotoh lets a gap in one
     * sequence start right where one in the other ends; an engine must allow
     * at least one of the two orders to find 108. */
    expect_score("BLOSUM62", 0, 1, "WWWWWCWWWWW", "WWWWWEWWWWW", 108);
}

Test(align, the_reference_reports_the_first_best_end_cell)
{
    /* W x 3 twice in the subject: the best score, 33, ends at query 3 and
     * subject 3, and again at subject 10; the first one is reported. */
    sw_matrix *m = load_matrix("BLOSUM62");
    sw_scoring sc = scoring_of(m, 11, 1);
    uint8_t q[16], s[16];
    size_t qn = encode("WWW", q), sn = encode("WWWDDDDWWW", s);
    sw_ref_result r;
    cr_assert_eq(sw_ref_align(q, qn, s, sn, &sc, &r), SW_OK);
    cr_expect_eq(r.score, 33);
    cr_expect_eq(r.query_end, 3);
    cr_expect_eq(r.subject_end, 3);
    sw_matrix_free(m);
}

/* ---- Argument checks ---- */

Test(align, both_engines_reject_codes_beyond_the_score_table)
{
    sw_matrix *m = load_matrix("BLOSUM62");
    sw_scoring sc = scoring_of(m, 11, 1);
    uint8_t good[3] = {0, 1, 2}, bad[3] = {0, SW_CODE_LIMIT, 2};
    sw_ref_result r;
    cr_expect_eq(sw_ref_align(good, 3, bad, 3, &sc, &r), SW_EINVAL);
    cr_expect_eq(sw_ref_align(bad, 3, good, 3, &sc, &r), SW_EINVAL);
    sw_simd_profile *p = NULL;
    cr_expect_eq(sw_simd_profile_create(bad, 3, &sc, &p), SW_EINVAL);
    cr_expect_null(p);
    p = profile_for("avx2", good, 3, &sc);
    sw_simd_workspace *w = NULL;
    cr_assert_eq(sw_simd_workspace_create(&w), SW_OK);
    cr_expect_eq(sw_simd_align(p, w, bad, 3), SW_EINVAL);
    sw_simd_workspace_free(w);
    sw_simd_profile_free(p);
    sw_matrix_free(m);
}

Test(align, the_reference_refuses_lengths_whose_score_could_pass_int32)
{
    /* Match 127: INT32_MAX / 127 = 16,909,320 residues is the last safe
     * length; one more could overflow. */
    int8_t table[SW_CODE_LIMIT * SW_CODE_LIMIT];
    sw_scoring sc = dna_scoring(table, 127, -1, 5, 2);
    size_t n = (size_t)INT32_MAX / 127 + 1;
    uint8_t *seq = calloc(n, 1);
    cr_assert_not_null(seq);
    sw_ref_result r;
    cr_expect_eq(sw_ref_align(seq, n, seq, n, &sc, &r), SW_ELIMIT);
    /* Only the shorter sequence bounds the score. */
    cr_expect_eq(sw_ref_align(seq, n, seq, 10, &sc, &r), SW_OK);
    cr_expect_eq(r.score, 1270);
    free(seq);
}

Test(align, a_variant_name_picks_the_instruction_set)
{
    if (strcmp(sw_simd_isa(), "scalar") == 0) cr_skip_test("no SIMD kernels on this CPU");
    sw_simd_variant v;
    cr_assert_eq(sw_simd_variant_select("sse2", &v), SW_OK);
    cr_expect_str_eq(sw_simd_variant_name(&v), "sse2");
    cr_assert_eq(sw_simd_variant_select("scalar", &v), SW_OK);
    cr_expect_str_eq(sw_simd_variant_name(&v), "scalar");
}

/* ---- Random pairs against the reference ---- */

/* Mostly the 20 standard residues; now and then B, J, Z, X, *, U, O and the
 * codes past the alphabet, which the table also covers. */
static uint8_t random_residue(test_rng *r)
{
    size_t roll = test_rng_below(r, 100);
    if (roll < 94) return (uint8_t)test_rng_below(r, 20);
    if (roll < 99) return (uint8_t)(20 + test_rng_below(r, SW_PROTEIN_CODES - 20));
    return (uint8_t)(SW_PROTEIN_CODES + test_rng_below(r, SW_CODE_LIMIT - SW_PROTEIN_CODES));
}

static void random_sequence(test_rng *r, uint8_t *seq, size_t n)
{
    for (size_t i = 0; i < n; i++) seq[i] = random_residue(r);
}

/* A relative of `src`: substitutions, insertions and deletions at a random
 * rate, so that pairs score from noise up to far past 255. Returns the
 * length written (at most cap). */
static size_t mutate(test_rng *r, const uint8_t *src, size_t n, uint8_t *out, size_t cap)
{
    size_t rate = test_rng_below(r, 40); /* percent */
    size_t len = 0;
    for (size_t i = 0; i < n && len < cap; i++) {
        size_t roll = test_rng_below(r, 100);
        if (roll < rate / 4) continue; /* deletion */
        if (roll < rate / 2) {         /* insertion */
            size_t k = 1 + test_rng_below(r, 8);
            while (k-- && len < cap) out[len++] = random_residue(r);
            if (len == cap) break;
        }
        out[len++] = roll < rate ? random_residue(r) : src[i];
    }
    return len;
}

static const char *const matrices[] = {"BLOSUM45", "BLOSUM62", "BLOSUM80", "PAM30", "PAM250"};
/* The last pair makes open + extend pass 255, the 8-bit lane limit. */
static const int gaps[][2] = {{0, 1}, {5, 2}, {11, 1}, {10, 3}, {20, 5}, {250, 10}};

/* Each query against several subjects, through the cascade (isa), and with
 * it forced to start at 16 and at 32 bits, so that every kernel meets every
 * pair and not only the ones that saturate the narrower lanes. */
static void compare_on_random_pairs(const char *isa, uint64_t seed, size_t max_len,
                                    int queries, int subjects)
{
    test_rng r = test_rng_seed(seed);
    uint8_t *q = malloc(max_len + 1), *s = malloc(max_len + 1);
    cr_assert(q && s);
    char engines[3][16];
    snprintf(engines[0], sizeof engines[0], "%s", isa);
    snprintf(engines[1], sizeof engines[1], "%s/16", isa);
    snprintf(engines[2], sizeof engines[2], "%s/32", isa);
    sw_simd_workspace *w = NULL;
    cr_assert_eq(sw_simd_workspace_create(&w), SW_OK);
    size_t pairs = 0, above_8_bits = 0;

    for (size_t mi = 0; mi < sizeof matrices / sizeof *matrices; mi++) {
        sw_matrix *m = load_matrix(matrices[mi]);
        for (size_t gi = 0; gi < sizeof gaps / sizeof *gaps; gi++) {
            sw_scoring sc = scoring_of(m, gaps[gi][0], gaps[gi][1]);
            for (int qi = 0; qi < queries; qi++) {
                size_t qn = test_rng_below(&r, max_len + 1);
                random_sequence(&r, q, qn);
                sw_simd_profile *p[3];
                for (int e = 0; e < 3; e++) p[e] = profile_for(engines[e], q, qn, &sc);
                for (int si = 0; si < subjects; si++) {
                    size_t sn;
                    if (si % 2 && qn) {
                        sn = mutate(&r, q, qn, s, max_len);
                    } else {
                        sn = test_rng_below(&r, max_len + 1);
                        random_sequence(&r, s, sn);
                    }
                    int want = ref_score(q, qn, s, sn, &sc);
                    for (int e = 0; e < 3; e++) {
                        int got = sw_simd_align(p[e], w, s, sn);
                        cr_assert_eq(got, want,
                                     "%s %s gap %d/%d: query %zu subject %zu (seed %llu, "
                                     "query %d, subject %d): got %d, want %d",
                                     engines[e], matrices[mi], gaps[gi][0], gaps[gi][1], qn, sn,
                                     (unsigned long long)seed, qi, si, got, want);
                    }
                    pairs++;
                    above_8_bits += want > 255;
                }
                for (int e = 0; e < 3; e++) sw_simd_profile_free(p[e]);
            }
        }
        sw_matrix_free(m);
    }
    /* The related pairs must reach the 16-bit lanes, or the cascade went
     * untested. */
    cr_expect_gt(above_8_bits, pairs / 20, "%zu of %zu pairs scored above 255", above_8_bits,
                 pairs);
    sw_simd_workspace_free(w);
    free(q);
    free(s);
}

Test(align_random, avx2_equals_the_reference_on_random_pairs)
{
    if (!have_avx2()) cr_skip_test("this CPU has no AVX2");
    compare_on_random_pairs("avx2", 1, 600, 8, 12);
}

Test(align_random, sse2_equals_the_reference_on_random_pairs)
{
    compare_on_random_pairs("sse2", 2, 600, 8, 12);
}

Test(align_random, avx2_equals_the_reference_on_long_random_pairs)
{
    if (!have_avx2()) cr_skip_test("this CPU has no AVX2");
    compare_on_random_pairs("avx2", 3, 5000, 1, 2);
}

Test(align_random, sse2_equals_the_reference_on_long_random_pairs)
{
    compare_on_random_pairs("sse2", 4, 5000, 1, 2);
}

Test(align_random, short_queries_fill_part_of_one_vector)
{
    /* Queries of 1..40 residues leave most lanes of the striped profile
     * padding; the padding must never add to a score. */
    test_rng r = test_rng_seed(5);
    sw_matrix *m = load_matrix("BLOSUM62");
    sw_scoring sc = scoring_of(m, 11, 1);
    uint8_t q[40], s[200];
    for (int i = 0; i < 400; i++) {
        size_t qn = 1 + test_rng_below(&r, 40), sn = test_rng_below(&r, 200);
        random_sequence(&r, q, qn);
        random_sequence(&r, s, sn);
        int want = ref_score(q, qn, s, sn, &sc);
        for (size_t e = 0; e < N_ENGINES; e++)
            cr_assert_eq(simd_score(all_engines[e], q, qn, s, sn, &sc), want, "%s: %zu x %zu",
                         all_engines[e], qn, sn);
    }
    sw_matrix_free(m);
}

Test(align_random, gaps_in_short_queries_are_carried_across_many_lanes)
{
    /* W x a, G x g, W x a against W x 2a: skipping the G run is a gap along
     * the query of g residues, which in a short query's striped profile
     * crosses up to g lanes. For example a = 3, g = 5, gap 0/4: the gap
     * scores 66 - 20 = 46, ahead of W x 3 alone (33) and of the ungapped
     * 66 - 13 * 5 = 1. The sweep puts the carry on either side of each
     * shortcut that decides how far it must travel. */
    static const int sweep_gaps[][2] = {{0, 1}, {0, 4}, {5, 2}, {11, 1}, {3, 7}};
    sw_matrix *m = load_matrix("BLOSUM62");
    uint8_t w, g_code, q[80], s[40];
    encode("W", &w);
    encode("G", &g_code);
    for (size_t gi = 0; gi < sizeof sweep_gaps / sizeof *sweep_gaps; gi++) {
        sw_scoring sc = scoring_of(m, sweep_gaps[gi][0], sweep_gaps[gi][1]);
        for (size_t a = 1; a <= 12; a++) {
            for (size_t g = 1; g <= 40; g++) {
                size_t qn = 0;
                for (size_t i = 0; i < a; i++) q[qn++] = w;
                for (size_t i = 0; i < g; i++) q[qn++] = g_code;
                for (size_t i = 0; i < a; i++) q[qn++] = w;
                for (size_t i = 0; i < 2 * a; i++) s[i] = w;
                int want = ref_score(q, qn, s, 2 * a, &sc);
                if (a == 3 && g == 5 && gi == 1) cr_assert_eq(want, 46);
                for (size_t e = 0; e < N_ENGINES; e++)
                    cr_assert_eq(simd_score(all_engines[e], q, qn, s, 2 * a, &sc), want,
                                 "%s: a %zu g %zu gap %d/%d", all_engines[e], a, g,
                                 sweep_gaps[gi][0], sweep_gaps[gi][1]);
            }
        }
    }
    sw_matrix_free(m);
}

/* ---- Saturation boundaries ---- */

static void expect_self_score(const uint8_t *seq, size_t n, const sw_scoring *sc, int expected)
{
    int want = ref_score(seq, n, seq, n, sc);
    if (expected >= 0) cr_assert_eq(want, expected, "reference on %zu residues", n);
    for (size_t e = 0; e < N_ENGINES; e++)
        cr_assert_eq(simd_score(all_engines[e], seq, n, seq, n, sc), want,
                     "%s on %zu residues against themselves", all_engines[e], n);
}

Test(align_overflow, scores_next_to_the_8_bit_ceiling_are_exact)
{
    /* BLOSUM62 spans -4..11, so the 8-bit lanes hold scores up to
     * 255 - 4 - 11 = 240 for certain. W x k then A x a scores 11k + 4a
     * against itself: k in 18..24 and a in 0..6 sweep 198..288. */
    sw_matrix *m = load_matrix("BLOSUM62");
    sw_scoring sc = scoring_of(m, 11, 1);
    uint8_t seq[64];
    for (int k = 18; k <= 24; k++) {
        for (int a = 0; a <= 6; a++) {
            size_t n = encode("", seq);
            for (int i = 0; i < k; i++) n += encode("W", seq + n);
            for (int i = 0; i < a; i++) n += encode("A", seq + n);
            expect_self_score(seq, n, &sc, 11 * k + 4 * a);
        }
    }
    sw_matrix_free(m);
}

Test(align_overflow, scores_next_to_the_16_bit_ceiling_are_exact)
{
    /* W x n scores 11n; 16-bit lanes are certain up to 32767 - 11 = 32756,
     * so n = 2976..2980 (32736..32780) crosses both that ceiling and
     * INT16_MAX itself. */
    sw_matrix *m = load_matrix("BLOSUM62");
    sw_scoring sc = scoring_of(m, 11, 1);
    uint8_t seq[2980];
    encode("W", seq);
    for (size_t i = 1; i < sizeof seq; i++) seq[i] = seq[0];
    for (size_t n = 2976; n <= 2980; n++) expect_self_score(seq, n, &sc, (int)(11 * n));
    sw_matrix_free(m);
}

Test(align_overflow, a_wc_rich_sequence_against_itself_scores_past_int16)
{
    /* 4,000 residues, three quarters W (11) or C (9), the rest averaging
     * about 5.8 on the BLOSUM62 diagonal: some 35,800 in all. */
    test_rng r = test_rng_seed(6);
    sw_matrix *m = load_matrix("BLOSUM62");
    sw_scoring sc = scoring_of(m, 11, 1);
    uint8_t seq[4000];
    uint8_t wc[2];
    encode("WC", wc);
    for (size_t i = 0; i < sizeof seq; i++)
        seq[i] = test_rng_below(&r, 4) ? wc[test_rng_below(&r, 2)] : (uint8_t)test_rng_below(&r, 20);
    int want = ref_score(seq, sizeof seq, seq, sizeof seq, &sc);
    cr_assert_gt(want, INT16_MAX);
    expect_self_score(seq, sizeof seq, &sc, want);
    sw_matrix_free(m);
}

Test(align_overflow, a_5478_residue_sequence_against_itself_is_exact)
{
    test_rng r = test_rng_seed(7);
    sw_matrix *m = load_matrix("BLOSUM62");
    sw_scoring sc = scoring_of(m, 11, 1);
    uint8_t seq[5478];
    random_sequence(&r, seq, sizeof seq);
    expect_self_score(seq, sizeof seq, &sc, -1);
    sw_matrix_free(m);
}

/* ---- The reference against ssearch36 ---- */

/* ssearch36 prints the raw Smith-Waterman score of every library sequence,
 * zero scores included, with:
 *   ssearch36 -q -p -s BL62 -f -11 -g -1 -T 1 -z -1 -m 9 -d 0 -b =N query.fa db.fa
 * -z -1 turns statistics off (no E() threshold then hides low scores),
 * -b =N forces N reported scores (N = number of library sequences), -d 0
 * drops the alignments, and -m 9 gives one line per sequence:
 *   name  (length)  s-w  %_id ...
 * where s-w is the raw score. BL62 is BLOSUM62, so only the 20 standard
 * residues are used: matrices differ in how they score B, Z, X and *. */
#define SSEARCH36 "/usr/bin/ssearch36"

static void write_fasta(FILE *f, const char *name, const uint8_t *seq, size_t n)
{
    const sw_alphabet *a = sw_alphabet_protein();
    fprintf(f, ">%s\n", name);
    for (size_t i = 0; i < n; i++) {
        fputc(sw_alphabet_decode(a, seq[i]), f);
        if (i % 60 == 59 || i + 1 == n) fputc('\n', f);
    }
}

/* Folds other codes onto the 20 standard residues. */
static void standard_only(uint8_t *seq, size_t n)
{
    for (size_t i = 0; i < n; i++) seq[i] %= 20;
}

Test(align_ssearch, the_reference_matches_ssearch36_scores)
{
    if (access(SSEARCH36, X_OK) != 0) cr_skip_test(SSEARCH36 " is not installed");
    enum { QUERIES = 5, SUBJECTS = 100, MAX_LEN = 400 };
    test_rng r = test_rng_seed(8);
    sw_matrix *m = load_matrix("BLOSUM62");
    sw_scoring sc = scoring_of(m, 11, 1);
    uint8_t db[SUBJECTS][MAX_LEN];
    size_t db_len[SUBJECTS];
    uint8_t q[MAX_LEN];

    char dir[] = "/tmp/test_align.XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char db_path[64], q_path[64];
    snprintf(db_path, sizeof db_path, "%s/db.fa", dir);
    snprintf(q_path, sizeof q_path, "%s/q.fa", dir);
    FILE *f = fopen(db_path, "w");
    cr_assert_not_null(f);
    for (int i = 0; i < SUBJECTS; i++) {
        size_t n = 0;
        if (i % 4 == 3) /* a relative of the one before, for higher scores */
            n = mutate(&r, db[i - 1], db_len[i - 1], db[i], MAX_LEN);
        if (n == 0) {
            n = 1 + test_rng_below(&r, MAX_LEN);
            random_sequence(&r, db[i], n);
        }
        standard_only(db[i], n);
        db_len[i] = n;
        char name[16];
        snprintf(name, sizeof name, "s%d", i);
        write_fasta(f, name, db[i], db_len[i]);
    }
    cr_assert_eq(fclose(f), 0);

    for (int qi = 0; qi < QUERIES; qi++) {
        size_t qn = 0;
        if (qi % 2) /* a relative of a library sequence */
            qn = mutate(&r, db[qi * 7], db_len[qi * 7], q, MAX_LEN);
        if (qn == 0) {
            qn = 20 + test_rng_below(&r, MAX_LEN - 20);
            random_sequence(&r, q, qn);
        }
        standard_only(q, qn);
        f = fopen(q_path, "w");
        cr_assert_not_null(f);
        write_fasta(f, "query", q, qn);
        cr_assert_eq(fclose(f), 0);

        char cmd[512];
        snprintf(cmd, sizeof cmd,
                 SSEARCH36 " -q -p -s BL62 -f -11 -g -1 -T 1 -z -1 -m 9 -d 0 -b =%d %s %s",
                 SUBJECTS, q_path, db_path);
        FILE *out = popen(cmd, "r");
        cr_assert_not_null(out);
        char line[4096];
        int seen[SUBJECTS] = {0}, in_table = 0, parsed = 0;
        while (fgets(line, sizeof line, out)) {
            if (strstr(line, "The best scores are:")) {
                in_table = 1;
                continue;
            }
            if (!in_table) continue;
            int id, score;
            size_t len;
            const char *paren = strchr(line, '(');
            if (line[0] != 's' || sscanf(line, "s%d", &id) != 1 || !paren ||
                sscanf(paren, "(%zu) %d", &len, &score) != 2) {
                in_table = 0; /* the table ends at its first other line */
                continue;
            }
            cr_assert(id >= 0 && id < SUBJECTS && !seen[id], "unexpected line: %s", line);
            cr_assert_eq(len, db_len[id], "%s", line);
            seen[id] = 1;
            parsed++;
            int want = ref_score(q, qn, db[id], db_len[id], &sc);
            cr_expect_eq(score, want, "query %d vs s%d: ssearch36 %d, reference %d", qi, id,
                         score, want);
        }
        cr_assert_eq(pclose(out), 0, "%s failed", cmd);
        cr_assert_eq(parsed, SUBJECTS, "ssearch36 reported %d of %d scores", parsed, SUBJECTS);
    }
    remove(q_path);
    remove(db_path);
    rmdir(dir);
    sw_matrix_free(m);
}

/* ---- Position-specific scores (a PSSM's rows) ---- */

static int rows_simd_score(const char *engine, const int8_t *rows, size_t qn, const uint8_t *s, size_t sn,
                           const sw_scoring *sc)
{
    sw_simd_variant v;
    cr_assert_eq(sw_simd_variant_select(engine, &v), SW_OK);
    sw_simd_profile *p = NULL;
    cr_assert_eq(sw_simd_profile_create_rows(rows, qn, sc, &v, &p), SW_OK);
    sw_simd_workspace *w = NULL;
    cr_assert_eq(sw_simd_workspace_create(&w), SW_OK);
    int score = sw_simd_align(p, w, s, sn);
    sw_simd_workspace_free(w);
    sw_simd_profile_free(p);
    return score;
}

static int rows_ref_score(const int8_t *rows, size_t qn, const uint8_t *s, size_t sn, const sw_scoring *sc)
{
    sw_ref_result r;
    int rc = sw_ref_align_rows(rows, qn, s, sn, sc, &r);
    cr_assert_eq(rc, SW_OK, "sw_ref_align_rows: %s", sw_strerror(rc));
    return r.score;
}

Test(align_rows, the_matrix_rows_of_a_query_score_as_the_query)
{
    sw_matrix *m = load_matrix("BLOSUM62");
    sw_scoring sc = scoring_of(m, 11, 1);
    test_rng rng = test_rng_seed(46);
    for (int t = 0; t < 40; t++) {
        uint8_t q[300], s[400];
        int8_t rows[300 * SW_CODE_LIMIT];
        size_t qn = 1 + test_rng_below(&rng, 300), sn = test_rng_below(&rng, 400);
        for (size_t i = 0; i < qn; i++) q[i] = (uint8_t)test_rng_below(&rng, 25);
        for (size_t j = 0; j < sn; j++) s[j] = (uint8_t)test_rng_below(&rng, 25);
        /* Related half the time, so that scores are high. */
        if (t % 2)
            for (size_t j = 0; j < sn && j < qn; j++)
                if (test_rng_below(&rng, 4)) s[j] = q[j];
        for (size_t i = 0; i < qn; i++) memcpy(rows + i * SW_CODE_LIMIT, sc.table + q[i] * SW_CODE_LIMIT, SW_CODE_LIMIT);
        const int want = ref_score(q, qn, s, sn, &sc);
        cr_assert_eq(rows_ref_score(rows, qn, s, sn, &sc), want, "pair %d", t);
        for (size_t e = 0; e < N_ENGINES; e++)
            cr_assert_eq(rows_simd_score(all_engines[e], rows, qn, s, sn, &sc), want, "%s, pair %d", all_engines[e], t);
    }
    sw_matrix_free(m);
}

Test(align_rows, random_rows_score_as_the_reference_in_every_variant)
{
    sw_scoring sc = {NULL, 7, 2, 0, NULL};
    test_rng rng = test_rng_seed(4646);
    for (int t = 0; t < 60; t++) {
        uint8_t s[700];
        int8_t rows[500 * SW_CODE_LIMIT];
        size_t qn = 1 + test_rng_below(&rng, 500), sn = test_rng_below(&rng, 700);
        /* Rows of small scores, and some of extreme ones (-128 .. 127), so
         * that every width of the cascade is needed. */
        const int spread = t % 3 == 0 ? 256 : 16, low = t % 3 == 0 ? -128 : -9;
        for (size_t i = 0; i < qn * SW_CODE_LIMIT; i++) rows[i] = (int8_t)(low + (int)test_rng_below(&rng, (uint64_t)spread));
        for (size_t j = 0; j < sn; j++) s[j] = (uint8_t)test_rng_below(&rng, SW_CODE_LIMIT);
        const int want = rows_ref_score(rows, qn, s, sn, &sc);
        for (size_t e = 0; e < N_ENGINES; e++)
            cr_assert_eq(rows_simd_score(all_engines[e], rows, qn, s, sn, &sc), want, "%s, case %d", all_engines[e], t);
    }
    /* Arguments: no rows for a query, a code beyond the table. */
    sw_simd_variant v = sw_simd_variant_default();
    sw_simd_profile *p = NULL;
    cr_assert_eq(sw_simd_profile_create_rows(NULL, 3, &sc, &v, &p), SW_EINVAL);
    cr_assert_null(p);
    int8_t rows[SW_CODE_LIMIT] = {0};
    uint8_t bad = SW_CODE_LIMIT;
    sw_ref_result r;
    cr_assert_eq(sw_ref_align_rows(rows, 1, &bad, 1, &sc, &r), SW_EINVAL);
}
