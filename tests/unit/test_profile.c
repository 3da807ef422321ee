/* Profile-profile alignment: the reference engine against an independent
 * full-matrix evaluation of the same recurrences on random profiles (both
 * column scores), one-row profiles against a plain global alignment of the
 * two sequences, gap-only columns, the merged alignment keeping every input
 * row and column, malformed aligned FASTA, and rows of gaps only (kept)
 * against records with no characters (refused). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sw_matrix.h"
#include "sw_profile_align.h"
#include "sw_profile_report.h"
#include "msa_random.h"
#include "test_rng.h"
#include "test_tmpdir.h"

static const sw_matrix *blosum62(void)
{
    static sw_matrix *m;
    if (!m) {
        sw_error err = {0};
        cr_assert_eq(sw_matrix_load("BLOSUM62", &m, &err), SW_OK, "%s", err.message);
    }
    return m;
}

static sw_profile *profile_of(const sw_msa *m)
{
    sw_profile *p = NULL;
    sw_error err = {0};
    cr_assert_eq(sw_profile_from_msa(m, &p, &err), SW_OK, "%s", err.message);
    return p;
}

/* The optimum of the recurrences by a plain full matrix, written apart
 * from the engine: three matrices, no traceback. */
static int64_t full_matrix_optimum(const sw_profile *a, const sw_profile *b, const sw_profile_scoring *s)
{
    const size_t m = sw_profile_columns(a), n = sw_profile_columns(b);
    const int64_t neg = INT64_MIN / 4;
    int64_t *H = malloc((m + 1) * (n + 1) * sizeof *H), *E = malloc((m + 1) * (n + 1) * sizeof *E),
            *F = malloc((m + 1) * (n + 1) * sizeof *F);
    cr_assert(H && E && F);
#define AT(X, i, j) X[(i) * (n + 1) + (j)]
    for (size_t i = 0; i <= m; ++i)
        for (size_t j = 0; j <= n; ++j) {
            if (i == 0 && j == 0) {
                AT(H, 0, 0) = 0;
                AT(E, 0, 0) = AT(F, 0, 0) = neg;
                continue;
            }
            int64_t e = neg, f = neg, h = neg;
            if (j > 0) {
                const uint8_t *col = sw_profile_column(b, j - 1);
                const int64_t g = sw_profile_gap_cost(s, col), open = sw_profile_gap_open_cost(s, col);
                e = AT(E, i, j - 1) - g > AT(H, i, j - 1) - open - g ? AT(E, i, j - 1) - g : AT(H, i, j - 1) - open - g;
            }
            if (i > 0) {
                const uint8_t *col = sw_profile_column(a, i - 1);
                const int64_t g = sw_profile_gap_cost(s, col), open = sw_profile_gap_open_cost(s, col);
                f = AT(F, i - 1, j) - g > AT(H, i - 1, j) - open - g ? AT(F, i - 1, j) - g : AT(H, i - 1, j) - open - g;
            }
            if (i > 0 && j > 0)
                h = AT(H, i - 1, j - 1) +
                    sw_profile_pair_score(s, sw_profile_column(a, i - 1), sw_profile_column(b, j - 1));
            if (e > h) h = e;
            if (f > h) h = f;
            AT(H, i, j) = h;
            AT(E, i, j) = e;
            AT(F, i, j) = f;
        }
    const int64_t r = AT(H, m, n);
#undef AT
    free(H);
    free(E);
    free(F);
    return r;
}

static sw_profile_alignment *align_or_die(const sw_profile *a, const sw_profile *b, const sw_profile_scoring *s)
{
    sw_profile_alignment *x = NULL;
    sw_error err = {0};
    cr_assert_eq(sw_profile_align(a, b, s, &x, &err), SW_OK, "%s", err.message);
    return x;
}

Test(profile, random_profiles_reach_the_full_matrix_optimum)
{
    test_rng r = test_rng_seed(21);
    for (int trial = 0; trial < 120; ++trial) {
        sw_msa *ma = random_msa(&r, 1 + test_rng_below(&r, 6), 1 + test_rng_below(&r, 40), 4 + (unsigned)(trial % 5));
        sw_msa *mb = random_msa(&r, 1 + test_rng_below(&r, 6), 1 + test_rng_below(&r, 40), trial % 3 ? 6 : 0);
        sw_profile *pa = profile_of(ma), *pb = profile_of(mb);
        const sw_profile_scoring s = {trial % 2 ? SW_PROFILE_EUCLID : SW_PROFILE_EXPECTED,
                                      sw_matrix_table(blosum62()), trial % 2 ? (int)(trial % 3) : 5 + trial % 7,
                                      1 + trial % 3};
        sw_profile_alignment *x = align_or_die(pa, pb, &s);
        cr_expect_eq(sw_profile_alignment_score(x), full_matrix_optimum(pa, pb, &s), "trial %d", trial);
        sw_profile_alignment_free(x);
        sw_profile_free(pa);
        sw_profile_free(pb);
        sw_msa_free(ma);
        sw_msa_free(mb);
    }
}

/* Gotoh's global alignment of two sequences, score only. */
static int64_t global_sequences(const uint8_t *a, size_t m, const uint8_t *b, size_t n, const int8_t *M, int go, int ge)
{
    const int64_t neg = INT64_MIN / 4;
    int64_t *h = malloc((n + 1) * sizeof *h), *f = malloc((n + 1) * sizeof *f);
    cr_assert(h && f);
    h[0] = 0;
    for (size_t j = 1; j <= n; ++j) {
        h[j] = -(go + (int64_t)j * ge);
        f[j] = neg;
    }
    for (size_t i = 1; i <= m; ++i) {
        int64_t diag = h[0], e = neg;
        h[0] = -(go + (int64_t)i * ge);
        for (size_t j = 1; j <= n; ++j) {
            e = e - ge > h[j - 1] - go - ge ? e - ge : h[j - 1] - go - ge;
            f[j] = f[j] - ge > h[j] - go - ge ? f[j] - ge : h[j] - go - ge;
            int64_t v = diag + M[a[i - 1] * SW_CODE_LIMIT + b[j - 1]];
            if (e > v) v = e;
            if (f[j] > v) v = f[j];
            diag = h[j];
            h[j] = v;
        }
    }
    const int64_t r = h[n];
    free(h);
    free(f);
    return r;
}

Test(profile, one_row_profiles_are_global_sequence_alignment)
{
    test_rng r = test_rng_seed(8);
    for (int trial = 0; trial < 40; ++trial) {
        sw_msa *ma = random_msa(&r, 1, 5 + test_rng_below(&r, 80), 0);
        sw_msa *mb = random_msa(&r, 1, 5 + test_rng_below(&r, 80), 0);
        sw_profile *pa = profile_of(ma), *pb = profile_of(mb);
        const sw_profile_scoring s = {SW_PROFILE_EXPECTED, sw_matrix_table(blosum62()), 11, 1};
        sw_profile_alignment *x = align_or_die(pa, pb, &s);
        const int64_t want = global_sequences(sw_msa_row(ma, 0), sw_msa_columns(ma), sw_msa_row(mb, 0),
                                              sw_msa_columns(mb), sw_matrix_table(blosum62()), 11, 1);
        cr_expect_eq(sw_profile_alignment_score(x), want * SW_PROFILE_SCALE * SW_PROFILE_SCALE, "trial %d", trial);
        sw_profile_alignment_free(x);
        sw_profile_free(pa);
        sw_profile_free(pb);
        sw_msa_free(ma);
        sw_msa_free(mb);
    }
}

Test(profile, hand_checked_merge_keeps_rows_and_columns)
{
    /* A = ACDEFGHIK / ACDE-GHIK, B = ACDFGHIK x2 and AC-FGHLK. A has one
     * column more. Facing A's E column with B's F column (-3 a pair) and
     * putting A's half-gap F column against a gap (one residue opens a
     * gap) beats putting the full E column against a gap (two residues
     * open one): 30.05 against 29.55 in matrix units; sum of pairs 297
     * against 283. */
    char dir[] = "/tmp/sw_profile.XXXXXX";
    temp_dir_make(dir);
    char pa_path[300], pb_path[300], out_path[300];
    snprintf(pa_path, sizeof pa_path, "%s/a.afa", dir);
    snprintf(pb_path, sizeof pb_path, "%s/b.afa", dir);
    snprintf(out_path, sizeof out_path, "%s/out.afa", dir);
    FILE *f = fopen(pa_path, "w");
    fputs(">s1 first\nACDEFGHIK\n>s2\nACDE-GHIK\n", f);
    fclose(f);
    f = fopen(pb_path, "w");
    fputs(">t1\nACDFGHIK\n>t2\nAC-FGHLK\n>t3\nACDFGHIK\n", f);
    fclose(f);
    sw_msa *ma = NULL, *mb = NULL;
    sw_error err = {0};
    cr_assert_eq(sw_msa_read(pa_path, &ma, &err), SW_OK, "%s", err.message);
    cr_assert_eq(sw_msa_read(pb_path, &mb, &err), SW_OK, "%s", err.message);
    sw_profile *pa = profile_of(ma), *pb = profile_of(mb);
    const sw_profile_scoring s = {SW_PROFILE_EXPECTED, sw_matrix_table(blosum62()), 11, 1};
    sw_profile_alignment *x = align_or_die(pa, pb, &s);
    f = fopen(out_path, "w");
    sw_profile_write_merged(f, SW_PROFILE_FASTA, ma, mb, x);
    fclose(f);
    char text[512] = {0};
    f = fopen(out_path, "r");
    const size_t got = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[got] = 0;
    cr_expect_str_eq(text, ">s1 first\nACDEFGHIK\n>s2\nACDE-GHIK\n>t1\nACDF-GHIK\n>t2\nAC-F-GHLK\n>t3\nACDF-GHIK\n");
    cr_expect_eq(sw_profile_alignment_score(x), 123072);
    /* Every row of the merge, read back, keeps its own columns. */
    sw_msa *merged = NULL;
    cr_assert_eq(sw_msa_read(out_path, &merged, &err), SW_OK, "%s", err.message);
    cr_expect_eq(sw_msa_rows(merged), 5);
    for (size_t k = 0; k < sw_profile_alignment_length(x); ++k) {
        const sw_profile_pair p = sw_profile_alignment_pair(x, k);
        for (size_t row = 0; row < 2; ++row)
            cr_expect_eq(sw_msa_row(merged, row)[k], p.a >= 0 ? sw_msa_row(ma, row)[p.a] : SW_MSA_GAP);
        for (size_t row = 0; row < 3; ++row)
            cr_expect_eq(sw_msa_row(merged, 2 + row)[k], p.b >= 0 ? sw_msa_row(mb, row)[p.b] : SW_MSA_GAP);
    }
    sw_msa_free(merged);
    sw_profile_alignment_free(x);
    sw_profile_free(pa);
    sw_profile_free(pb);
    sw_msa_free(ma);
    sw_msa_free(mb);
    temp_dir_remove(dir);
}

Test(profile, gap_only_columns)
{
    /* A column of gaps only in each input: the gap frequency is the whole
     * column; both scores still reach the optimum. */
    const uint8_t g = SW_MSA_GAP;
    const uint8_t a0[] = {0, g, 3, 4}, a1[] = {0, g, 3, 5};
    const uint8_t b0[] = {g, 0, 3, 4, g};
    const uint8_t *ra[] = {a0, a1}, *rb[] = {b0};
    const char *na[] = {"a0", "a1"}, *nb[] = {"b0"};
    sw_msa *ma = NULL, *mb = NULL;
    sw_error err = {0};
    cr_assert_eq(sw_msa_from_rows(na, ra, 2, 4, &ma, &err), SW_OK);
    cr_assert_eq(sw_msa_from_rows(nb, rb, 1, 5, &mb, &err), SW_OK);
    sw_profile *pa = profile_of(ma), *pb = profile_of(mb);
    cr_expect_eq(sw_profile_column(pa, 1)[SW_MSA_GAP], SW_PROFILE_SCALE);
    for (int kind = 0; kind < 2; ++kind) {
        const sw_profile_scoring s = {(sw_profile_kind)kind, sw_matrix_table(blosum62()), kind ? 0 : 11, 1};
        sw_profile_alignment *x = align_or_die(pa, pb, &s);
        cr_expect_eq(sw_profile_alignment_score(x), full_matrix_optimum(pa, pb, &s));
        sw_profile_alignment_free(x);
    }
    sw_profile_free(pa);
    sw_profile_free(pb);
    sw_msa_free(ma);
    sw_msa_free(mb);
}

static void expect_read_error(const char *text, const char *message)
{
    char dir[] = "/tmp/sw_profile.XXXXXX", path[300];
    temp_dir_make(dir);
    snprintf(path, sizeof path, "%s/bad.afa", dir);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    sw_msa *m = NULL;
    sw_error err = {0};
    cr_expect_neq(sw_msa_read(path, &m, &err), SW_OK, "'%s' was accepted", text);
    cr_expect_null(m);
    cr_expect(strstr(err.message, message) != NULL, "'%s' not in '%s'", message, err.message);
    cr_expect(strstr(err.message, "bad.afa") != NULL, "no file name in '%s'", err.message);
    temp_dir_remove(dir);
}

Test(profile, malformed_alignments_are_refused_with_file_and_line)
{
    expect_read_error("", "no aligned sequences");
    expect_read_error(">a\nACDE\n>b\nAC-\n", "bad.afa:3: row 'b' has 3 columns, the first row has 4");
    expect_read_error(">a\nAC#E\n", "bad.afa:2: invalid residue '#'");
    expect_read_error("ACDE\n", "bad.afa:1");
}

Test(profile, a_record_with_no_characters_is_refused_with_file_line_and_row)
{
    /* Not a row of gaps: it has none of the alignment's columns, so it is
     * refused rather than skipped (as the FASTA reader skips an empty
     * sequence), wherever it stands. */
    expect_read_error(">a\nACDE\n>b\n>c\nAC-E\n", "bad.afa:3: row 'b' has no characters, not even gaps");
    expect_read_error(">a desc\n>b\nACDE\n", "bad.afa:1: row 'a' has no characters");
    expect_read_error(">a\nACDE\n>b\nAC-E\n>last\n\n", "bad.afa:5: row 'last' has no characters");
    expect_read_error(">a\nACDE\n>\n>c\nAC-E\n", "bad.afa:3: row '' has no characters");
    /* The first problem in the file is the one named. */
    expect_read_error(">a\nACDE\n>b\n>c\nAC#E\n", "bad.afa:3: row 'b' has no characters");
}

Test(profile, a_row_of_gaps_only_is_kept)
{
    char dir[] = "/tmp/sw_profile.XXXXXX", path[300];
    temp_dir_make(dir);
    snprintf(path, sizeof path, "%s/gaps.afa", dir);
    FILE *f = fopen(path, "w");
    fputs(">a\nACDE\n>gaps\n--.-\n>c\nAC-E\n", f);
    fclose(f);
    sw_msa *m = NULL;
    sw_error err = {0};
    cr_assert_eq(sw_msa_read(path, &m, &err), SW_OK, "%s", err.message);
    cr_assert_eq(sw_msa_rows(m), 3);
    cr_expect_str_eq(sw_msa_name(m, 1), "gaps");
    for (size_t c = 0; c < 4; ++c) cr_expect_eq(sw_msa_row(m, 1)[c], SW_MSA_GAP);
    sw_msa_free(m);
    temp_dir_remove(dir);
}

Test(profile, a_wrong_column_list_is_refused)
{
    test_rng r = test_rng_seed(3);
    sw_msa *ma = random_msa(&r, 2, 4, 0), *mb = random_msa(&r, 2, 3, 0);
    sw_profile *pa = profile_of(ma), *pb = profile_of(mb);
    const sw_profile_scoring s = {SW_PROFILE_EXPECTED, sw_matrix_table(blosum62()), 11, 1};
    const sw_profile_pair pairs[] = {{0, 0}, {2, 1}, {3, 2}};
    int64_t v;
    sw_error err = {0};
    cr_expect_eq(sw_profile_rescore(pa, pb, &s, pairs, 3, &v, &err), SW_EINVAL);
    sw_profile_free(pa);
    sw_profile_free(pb);
    sw_msa_free(ma);
    sw_msa_free(mb);
}

Test(profile, threads_give_the_reference_alignment)
{
    /* Several tiles each way (64 x 512 cells a tile), odd sizes at the
     * edges; both scores; every column pair equal. */
    test_rng r = test_rng_seed(12);
    for (int trial = 0; trial < 6; ++trial) {
        sw_msa *ma = random_msa(&r, 3 + test_rng_below(&r, 5), 150 + test_rng_below(&r, 300), 5);
        sw_msa *mb = random_msa(&r, 2 + test_rng_below(&r, 5), 600 + test_rng_below(&r, 1200), 7);
        sw_profile *pa = profile_of(ma), *pb = profile_of(mb);
        const sw_profile_scoring s = {trial % 2 ? SW_PROFILE_EUCLID : SW_PROFILE_EXPECTED,
                                      sw_matrix_table(blosum62()), trial % 2 ? 3 : 11, 1};
        sw_profile_alignment *one = align_or_die(pa, pb, &s);
        for (int threads = 2; threads <= 5; threads += 3) {
            sw_profile_alignment *many = NULL;
            sw_error err = {0};
            cr_assert_eq(sw_profile_align_threads(pa, pb, &s, threads, &many, &err), SW_OK, "%s", err.message);
            cr_expect_eq(sw_profile_alignment_score(many), sw_profile_alignment_score(one), "trial %d, %d threads",
                         trial, threads);
            cr_assert_eq(sw_profile_alignment_length(many), sw_profile_alignment_length(one));
            for (size_t k = 0; k < sw_profile_alignment_length(one); ++k) {
                const sw_profile_pair p = sw_profile_alignment_pair(one, k), q = sw_profile_alignment_pair(many, k);
                cr_assert(p.a == q.a && p.b == q.b, "trial %d, %d threads: column %zu differs", trial, threads, k);
            }
            sw_profile_alignment_free(many);
        }
        cr_expect_eq(sw_profile_alignment_score(one), full_matrix_optimum(pa, pb, &s));
        sw_profile_alignment_free(one);
        sw_profile_free(pa);
        sw_profile_free(pb);
        sw_msa_free(ma);
        sw_msa_free(mb);
    }
}

Test(profile, henikoff_weights_by_hand)
{
    /* Rows AA, AA, CC: each column has two types; an A row gets 1/(2 x 2)
     * a column, the C row 1/(2 x 1): weights 1/4, 1/4, 1/2, so A and C get
     * 32 parts of 64 each; unweighted, 43 and 21. */
    const uint8_t A = 0, C = 4;
    const uint8_t r0[] = {A, A}, r1[] = {A, A}, r2[] = {C, C};
    const uint8_t *rows[] = {r0, r1, r2};
    const char *names[] = {"x", "y", "z"};
    sw_msa *m = NULL;
    sw_error err = {0};
    cr_assert_eq(sw_msa_from_rows(names, rows, 3, 2, &m, &err), SW_OK);
    sw_profile *plain = profile_of(m), *weighted = NULL;
    cr_assert_eq(sw_profile_from_msa_weighted(m, &weighted, &err), SW_OK, "%s", err.message);
    for (size_t c = 0; c < 2; ++c) {
        cr_expect_eq(sw_profile_column(plain, c)[A], 43);
        cr_expect_eq(sw_profile_column(plain, c)[C], 21);
        cr_expect_eq(sw_profile_column(weighted, c)[A], 32);
        cr_expect_eq(sw_profile_column(weighted, c)[C], 32);
    }
    sw_profile_free(plain);
    sw_profile_free(weighted);
    sw_msa_free(m);
}
