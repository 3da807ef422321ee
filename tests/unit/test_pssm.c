/* PSSMs: a query alone (as an alignment of one row or of copies of it)
 * gives the matrix's rows exactly; built scores follow the documented
 * formula, conserved columns score above the matrix, duplicated rows weigh
 * nothing more; PSI-BLAST's ASCII PSSMs are read; the saved format reads
 * back exactly; A3M, Stockholm and aligned FASTA of one alignment give one
 * PSSM; malformed files are refused with file and line.
 *
 * tests/data: pssm_sh3_d1ckaa.pssm and pssm_uba_d1dv0a.pssm were made by
 * psiblast 2.12.0+ (-num_iterations 2 -out_ascii_pssm) for the queries in
 * the .fa files beside them against SCOPe's ASTRAL 40% set (the second
 * query found no homolog, so its PSSM is the query's alone);
 * pssm_sh3.afa is twelve SH3 domains of SCOPe family b.34.2.1 (the first
 * psiblast hits of d1ckaa_) aligned by MAFFT L-INS-i, and pssm_sh3.a3m and
 * pssm_sh3.sto are the same alignment as A3M and Stockholm. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sw_fasta.h"
#include "sw_matrix.h"
#include "sw_msa.h"
#include "sw_pssm.h"
#include "test_tmpdir.h"

enum { CODE_W = 17, CODE_X = 23, CODE_STAR = 24 };

static const char *const shipped[] = {"BLOSUM45", "BLOSUM50", "BLOSUM62", "BLOSUM80",
                                      "BLOSUM90", "PAM30",    "PAM70",    "PAM250"};

static sw_matrix *matrix(const char *name)
{
    sw_matrix *m = NULL;
    sw_error err = {0};
    cr_assert_eq(sw_matrix_load(name, &m, &err), SW_OK, "%s", err.message);
    return m;
}

static const char *data(const char *name)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/%s", SW_TEST_DATA, name);
    return path;
}

/* The first sequence of a FASTA file, encoded; *n its length. */
static uint8_t *fasta_query(const char *path, size_t *n)
{
    sw_fasta *f = NULL;
    sw_error err = {0};
    cr_assert_eq(sw_fasta_open(path, NULL, &f, &err), SW_OK, "%s", err.message);
    sw_fasta_record rec;
    cr_assert_eq(sw_fasta_next(f, &rec, &err), 1, "%s", err.message);
    uint8_t *codes = malloc(rec.length);
    cr_assert_not_null(codes);
    memcpy(codes, rec.residues, rec.length);
    *n = rec.length;
    sw_fasta_close(f);
    return codes;
}

static sw_msa *msa_of(const uint8_t *const *rows, size_t num_rows, size_t columns)
{
    const char **names = calloc(num_rows, sizeof *names);
    cr_assert_not_null(names);
    for (size_t k = 0; k < num_rows; ++k) names[k] = k ? "row" : "query";
    sw_msa *m = NULL;
    sw_error err = {0};
    cr_assert_eq(sw_msa_from_rows(names, rows, num_rows, columns, &m, &err), SW_OK, "%s", err.message);
    free(names);
    return m;
}

static sw_msa *read_msa(const char *path)
{
    sw_msa *m = NULL;
    sw_error err = {0};
    cr_assert_eq(sw_msa_read(path, &m, &err), SW_OK, "%s", err.message);
    return m;
}

static sw_pssm *build(const sw_msa *msa, const sw_matrix *m, double pseudocounts)
{
    sw_pssm_options o;
    sw_pssm_options_init(&o);
    o.pseudocounts = pseudocounts;
    sw_pssm *p = NULL;
    sw_error err = {0};
    cr_assert_eq(sw_pssm_from_msa(msa, m, &o, &p, &err), SW_OK, "%s", err.message);
    return p;
}

static sw_pssm *read_pssm(const char *path, const sw_matrix *m)
{
    sw_pssm *p = NULL;
    sw_error err = {0};
    cr_assert_eq(sw_pssm_read(path, m, &p, &err), SW_OK, "%s", err.message);
    return p;
}

/* Every protein code of every position is the matrix's score of the query
 * residue. */
static void expect_matrix_rows(const sw_pssm *p, const uint8_t *query, size_t n, const sw_matrix *m, const char *what)
{
    const int8_t *table = sw_matrix_table(m);
    cr_assert_eq(p->length, n, "%s: length %zu, expected %zu", what, p->length, n);
    for (size_t i = 0; i < n; ++i) {
        cr_assert_eq(p->query[i], query[i], "%s: query code at %zu", what, i);
        for (int c = 0; c < SW_PROTEIN_CODES; ++c)
            cr_assert_eq(sw_pssm_row(p, i)[c], table[query[i] * SW_CODE_LIMIT + c],
                         "%s: position %zu, code %d: %d, the matrix has %d", what, i, c, sw_pssm_row(p, i)[c],
                         table[query[i] * SW_CODE_LIMIT + c]);
    }
}

static void expect_equal_pssms(const sw_pssm *a, const sw_pssm *b, const char *what)
{
    cr_assert_eq(a->length, b->length, "%s: lengths %zu and %zu", what, a->length, b->length);
    cr_assert_eq(memcmp(a->query, b->query, a->length), 0, "%s: query codes differ", what);
    for (size_t i = 0; i < a->length; ++i)
        for (int c = 0; c < SW_CODE_LIMIT; ++c)
            cr_assert_eq(sw_pssm_row(a, i)[c], sw_pssm_row(b, i)[c], "%s: position %zu, code %d: %d against %d", what,
                         i, c, sw_pssm_row(a, i)[c], sw_pssm_row(b, i)[c]);
}

/* The query's position of alignment column `col`. */
static size_t position_of_column(const sw_msa *msa, size_t col)
{
    size_t i = 0;
    for (size_t c = 0; c < col; ++c) i += sw_msa_row(msa, 0)[c] != SW_MSA_GAP;
    return i;
}

/* ---- A query alone ---- */

Test(pssm, one_sequence_without_pseudocounts_gives_the_matrix_rows_exactly)
{
    size_t n;
    uint8_t *query = fasta_query(data("pssm_sh3_d1ckaa.fa"), &n);
    /* Every protein code as a query residue too. */
    uint8_t every[SW_PROTEIN_CODES];
    for (int c = 0; c < SW_PROTEIN_CODES; ++c) every[c] = (uint8_t)c;
    for (size_t k = 0; k < sizeof shipped / sizeof *shipped; ++k) {
        sw_matrix *m = matrix(shipped[k]);
        const uint8_t *rows[1] = {query};
        sw_msa *msa = msa_of(rows, 1, n);
        sw_pssm *p = build(msa, m, 0);
        expect_matrix_rows(p, query, n, m, shipped[k]);
        cr_expect_eq(p->sequences, 1);
        cr_expect_eq(p->effective, 1.0);
        cr_expect_str_eq(p->matrix, shipped[k]);
        sw_pssm_free(p);
        sw_msa_free(msa);

        const uint8_t *all[1] = {every};
        msa = msa_of(all, 1, SW_PROTEIN_CODES);
        p = build(msa, m, 0);
        expect_matrix_rows(p, every, SW_PROTEIN_CODES, m, shipped[k]);
        sw_pssm_free(p);
        sw_msa_free(msa);
        sw_matrix_free(m);
    }
    free(query);
}

Test(pssm, one_sequence_with_pseudocounts_gives_the_matrix_rows_too)
{
    size_t n;
    uint8_t *query = fasta_query(data("pssm_sh3_d1ckaa.fa"), &n);
    sw_matrix *m = matrix("BLOSUM62");
    const uint8_t *rows[1] = {query};
    sw_msa *msa = msa_of(rows, 1, n);
    sw_pssm *p = build(msa, m, SW_PSSM_PSEUDOCOUNTS);
    expect_matrix_rows(p, query, n, m, "beta 10");
    sw_pssm_free(p);
    p = build(msa, m, SW_PSSM_COLUMN_PSEUDOCOUNTS);
    expect_matrix_rows(p, query, n, m, "each column's pseudocounts");
    sw_pssm_free(p);
    sw_msa_free(msa);
    sw_matrix_free(m);
    free(query);
}

Test(pssm, from_query_gives_the_matrix_rows_and_pads_with_the_row_minimum)
{
    size_t n;
    uint8_t *query = fasta_query(data("pssm_sh3_d1ckaa.fa"), &n);
    sw_matrix *m = matrix("BLOSUM62");
    sw_pssm_options o;
    sw_pssm_options_init(&o);
    o.label = "crk\nsh3";
    o.gap_open = 11;
    o.gap_extend = 1;
    sw_pssm *p = NULL;
    sw_error err = {0};
    cr_assert_eq(sw_pssm_from_query(query, n, m, &o, &p, &err), SW_OK, "%s", err.message);
    expect_matrix_rows(p, query, n, m, "from_query");
    /* A label is one line. */
    cr_expect_str_eq(p->label, "crk sh3");
    cr_expect_eq(p->gap_open, 11);
    cr_expect_eq(p->gap_extend, 1);
    for (size_t i = 0; i < n; ++i) {
        int low = 127;
        for (int c = 0; c < SW_PROTEIN_CODES; ++c)
            if (sw_pssm_row(p, i)[c] < low) low = sw_pssm_row(p, i)[c];
        for (int c = SW_PROTEIN_CODES; c < SW_CODE_LIMIT; ++c) cr_expect_eq(sw_pssm_row(p, i)[c], low);
    }
    sw_pssm_free(p);
    sw_matrix_free(m);
    free(query);
}

Test(pssm, copies_of_the_query_give_the_matrix_rows)
{
    size_t n;
    uint8_t *query = fasta_query(data("pssm_sh3_d1ckaa.fa"), &n);
    sw_matrix *m = matrix("BLOSUM62");
    const uint8_t *rows[5] = {query, query, query, query, query};
    sw_msa *msa = msa_of(rows, 5, n);
    sw_pssm *p = build(msa, m, SW_PSSM_PSEUDOCOUNTS);
    expect_matrix_rows(p, query, n, m, "five copies");
    cr_expect_eq(p->effective, 1.0);
    sw_pssm_free(p);
    sw_msa_free(msa);
    sw_matrix_free(m);
    free(query);
}

/* ---- The scale ---- */

Test(pssm, blosum62_lambda_is_blasts_ideal_lambda)
{
    sw_matrix *m = matrix("BLOSUM62");
    double q[400], lambda;
    sw_error err = {0};
    cr_assert_eq(sw_pssm_target_frequencies(m, q, &lambda, &err), SW_OK, "%s", err.message);
    cr_expect(fabs(lambda - 0.3176) < 5e-5, "lambda %.6f", lambda);
    double sum = 0, background = 0;
    for (int k = 0; k < 400; ++k) sum += q[k];
    for (int a = 0; a < 20; ++a) background += sw_pssm_background()[a];
    cr_expect(fabs(sum - 1) < 1e-12, "target frequencies sum to %.15f", sum);
    cr_expect(fabs(background - 1) < 1e-12, "background frequencies sum to %.15f", background);
    sw_matrix_free(m);
}

/* A two-row alignment whose rows differ at one column: the rows weigh
 * alike, N_c = 1 + 1/L. */
static const char two_query[] = "ACDEFGHIKLMNPQRSTVWY";
static const char two_other[] = "ACDEFGHIKLWNPQRSTVWY";
enum { TWO_DIFFER = 10 };

static sw_msa *two_rows(uint8_t *a, uint8_t *b)
{
    const sw_alphabet *protein = sw_alphabet_protein();
    for (size_t i = 0; i < sizeof two_query - 1; ++i) {
        a[i] = sw_alphabet_encode(protein, (unsigned char)two_query[i]);
        b[i] = sw_alphabet_encode(protein, (unsigned char)two_other[i]);
    }
    const uint8_t *rows[2] = {a, b};
    return msa_of(rows, 2, sizeof two_query - 1);
}

Test(pssm, without_pseudocounts_scores_are_the_observed_log_odds)
{
    sw_matrix *m = matrix("BLOSUM62");
    double lambda;
    sw_error err = {0};
    cr_assert_eq(sw_pssm_lambda(m, &lambda, &err), SW_OK, "%s", err.message);
    const double *bg = sw_pssm_background();
    uint8_t a[32], b[32];
    sw_msa *msa = two_rows(a, b);
    sw_pssm *p = build(msa, m, 0);
    const size_t n = sizeof two_query - 1;
    cr_expect(fabs(p->effective - (1.0 + 1.0 / (double)n)) < 1e-12, "effective %.15f", p->effective);
    for (size_t i = 0; i < n; ++i)
        for (int c = 0; c < 20; ++c) {
            double f = 0;
            if (i == TWO_DIFFER) f = (c == a[i] || c == b[i]) ? 0.5 : 0;
            else f = c == a[i] ? 1 : 0;
            const int expected = f > 0 ? (int)lround(log(f / bg[c]) / lambda) : SW_PSSM_FLOOR;
            cr_expect_eq(sw_pssm_row(p, i)[c], expected, "position %zu, code %d: %d, expected %d", i, c,
                         sw_pssm_row(p, i)[c], expected);
        }
    sw_pssm_free(p);
    sw_msa_free(msa);
    sw_matrix_free(m);
}

Test(pssm, pseudocounts_mix_observed_and_matrix_frequencies)
{
    sw_matrix *m = matrix("BLOSUM62");
    double q[400], lambda;
    sw_error err = {0};
    cr_assert_eq(sw_pssm_target_frequencies(m, q, &lambda, &err), SW_OK, "%s", err.message);
    const double *bg = sw_pssm_background();
    uint8_t a[32], b[32];
    sw_msa *msa = two_rows(a, b);
    sw_pssm *p = build(msa, m, SW_PSSM_PSEUDOCOUNTS);
    const size_t n = sizeof two_query - 1;
    const double alpha = 1.0 / (double)n, beta = SW_PSSM_PSEUDOCOUNTS;
    for (size_t i = 0; i < n; ++i) {
        double f[20] = {0};
        if (i == TWO_DIFFER) f[a[i]] = f[b[i]] = 0.5;
        else f[a[i]] = 1;
        for (int c = 0; c < 20; ++c) {
            double g = 0;
            for (int d = 0; d < 20; ++d) g += f[d] * q[c * 20 + d] / bg[d];
            const double Q = (alpha * f[c] + beta * g) / (alpha + beta);
            const int expected = (int)lround(log(Q / bg[c]) / lambda);
            cr_expect_eq(sw_pssm_row(p, i)[c], expected, "position %zu, code %d: %d, expected %d", i, c,
                         sw_pssm_row(p, i)[c], expected);
        }
    }
    sw_pssm_free(p);
    sw_msa_free(msa);
    sw_matrix_free(m);
}

/* ---- A family ---- */

Test(pssm, a_conserved_column_scores_its_residue_above_the_matrix_and_the_others_below)
{
    sw_matrix *m = matrix("BLOSUM62");
    const int8_t *table = sw_matrix_table(m);
    sw_msa *msa = read_msa(data("pssm_sh3.afa"));
    cr_assert_eq(sw_msa_rows(msa), 12);
    /* The alignment's first column of W in every row. */
    size_t col = 0;
    for (; col < sw_msa_columns(msa); ++col) {
        size_t w = 0;
        for (size_t r = 0; r < sw_msa_rows(msa); ++r) w += sw_msa_row(msa, r)[col] == CODE_W;
        if (w == sw_msa_rows(msa)) break;
    }
    cr_assert_lt(col, sw_msa_columns(msa), "no column of W only");
    sw_pssm *p = build(msa, m, SW_PSSM_PSEUDOCOUNTS);
    cr_expect_eq(p->sequences, 12);
    cr_expect_gt(p->effective, 2.0, "effective %g", p->effective);
    const int8_t *row = sw_pssm_row(p, position_of_column(msa, col));
    const int ww = table[CODE_W * SW_CODE_LIMIT + CODE_W];
    cr_expect_gt(row[CODE_W], ww, "W scores %d, BLOSUM62's W/W %d", row[CODE_W], ww);
    for (int c = 0; c < 20; ++c)
        if (c != CODE_W)
            cr_expect_lt(row[c], table[CODE_W * SW_CODE_LIMIT + c], "code %d scores %d, BLOSUM62's W row %d", c,
                         row[c], table[CODE_W * SW_CODE_LIMIT + c]);
    sw_pssm_free(p);
    sw_msa_free(msa);
    sw_matrix_free(m);
}

/* By default each column weighs its own pseudocounts (PSI-BLAST 2.x): a
 * column of one residue in many diverse rows leans on its observations,
 * so that residue scores at least what a weight of 10 for every column
 * gives it, and the defaults are that method. */
Test(pssm, each_column_weighs_its_own_pseudocounts_by_default)
{
    sw_matrix *m = matrix("BLOSUM62");
    sw_msa *msa = read_msa(data("pssm_sh3.afa"));
    sw_pssm_options o;
    sw_pssm_options_init(&o);
    cr_assert_eq(o.pseudocounts, SW_PSSM_COLUMN_PSEUDOCOUNTS);
    sw_pssm *byc = build(msa, m, SW_PSSM_COLUMN_PSEUDOCOUNTS), *b10 = build(msa, m, SW_PSSM_PSEUDOCOUNTS);
    sw_pssm *dflt = NULL;
    sw_error err = {0};
    cr_assert_eq(sw_pssm_from_msa(msa, m, NULL, &dflt, &err), SW_OK, "%s", err.message);
    expect_equal_pssms(byc, dflt, "the defaults");
    size_t differ = 0, conserved = 0;
    for (size_t i = 0; i < byc->length; ++i)
        differ += memcmp(sw_pssm_row(byc, i), sw_pssm_row(b10, i), 20) != 0;
    for (size_t col = 0; col < sw_msa_columns(msa); ++col) {
        if (sw_msa_row(msa, 0)[col] == SW_MSA_GAP) continue;
        const size_t i = position_of_column(msa, col);
        /* Columns where every row with a residue has the query's. */
        int same = 1, others = 0;
        for (size_t r = 1; r < sw_msa_rows(msa); ++r) {
            const uint8_t x = sw_msa_row(msa, r)[col];
            if (x == SW_MSA_GAP) continue;
            others++;
            same &= x == byc->query[i];
        }
        if (!same || others < 4) continue;
        conserved++;
        cr_expect_geq(sw_pssm_row(byc, i)[byc->query[i]], sw_pssm_row(b10, i)[byc->query[i]],
                      "position %zu, all %d rows alike: %d against %d with beta 10", i, others,
                      sw_pssm_row(byc, i)[byc->query[i]], sw_pssm_row(b10, i)[byc->query[i]]);
    }
    cr_expect_gt(differ, byc->length / 4, "only %zu of %zu positions differ from beta 10", differ, byc->length);
    cr_expect_gt(conserved, 0, "no conserved column to check");
    sw_pssm_free(byc);
    sw_pssm_free(b10);
    sw_pssm_free(dflt);
    sw_msa_free(msa);
    sw_matrix_free(m);
}

Test(pssm, duplicating_every_row_leaves_the_pssm_unchanged)
{
    sw_matrix *m = matrix("BLOSUM62");
    sw_msa *msa = read_msa(data("pssm_sh3.afa"));
    const size_t rows = sw_msa_rows(msa);
    const uint8_t **twice = calloc(2 * rows, sizeof *twice);
    cr_assert_not_null(twice);
    for (size_t r = 0; r < rows; ++r) twice[2 * r] = twice[2 * r + 1] = sw_msa_row(msa, r);
    sw_msa *doubled = msa_of(twice, 2 * rows, sw_msa_columns(msa));
    sw_pssm *p = build(msa, m, SW_PSSM_PSEUDOCOUNTS), *d = build(doubled, m, SW_PSSM_PSEUDOCOUNTS);
    expect_equal_pssms(p, d, "every row twice");
    cr_expect_eq(p->effective, d->effective);
    cr_expect_eq(d->sequences, 2 * rows);
    sw_pssm_free(p);
    sw_pssm_free(d);
    /* Each column's own pseudocounts: copies add no observation either,
     * also where the rows bound the observations (the query and one other
     * row, against the same with three copies of each). */
    p = build(msa, m, SW_PSSM_COLUMN_PSEUDOCOUNTS);
    d = build(doubled, m, SW_PSSM_COLUMN_PSEUDOCOUNTS);
    expect_equal_pssms(p, d, "every row twice, each column's pseudocounts");
    sw_pssm_free(p);
    sw_pssm_free(d);
    const uint8_t *pair[2] = {sw_msa_row(msa, 0), sw_msa_row(msa, 1)};
    const uint8_t *pairs[6] = {pair[0], pair[1], pair[0], pair[1], pair[1], pair[0]};
    sw_msa *two = msa_of(pair, 2, sw_msa_columns(msa)), *six = msa_of(pairs, 6, sw_msa_columns(msa));
    p = build(two, m, SW_PSSM_COLUMN_PSEUDOCOUNTS);
    d = build(six, m, SW_PSSM_COLUMN_PSEUDOCOUNTS);
    expect_equal_pssms(p, d, "two rows three times each, each column's pseudocounts");
    sw_pssm_free(p);
    sw_pssm_free(d);
    sw_msa_free(two);
    sw_msa_free(six);
    sw_msa_free(doubled);
    sw_msa_free(msa);
    free(twice);
    sw_matrix_free(m);
}

/* The alignment of pssm_sh3.afa with `copies` more copies of row `which`. */
static sw_pssm *with_copies(const sw_msa *msa, const sw_matrix *m, size_t which, size_t copies)
{
    const size_t rows = sw_msa_rows(msa);
    const uint8_t **all = calloc(rows + copies, sizeof *all);
    cr_assert_not_null(all);
    for (size_t r = 0; r < rows; ++r) all[r] = sw_msa_row(msa, r);
    for (size_t r = rows; r < rows + copies; ++r) all[r] = sw_msa_row(msa, which);
    sw_msa *crowded = msa_of(all, rows + copies, sw_msa_columns(msa));
    sw_pssm *p = build(crowded, m, SW_PSSM_PSEUDOCOUNTS);
    sw_msa_free(crowded);
    free(all);
    return p;
}

Test(pssm, copies_of_a_row_weigh_hardly_more_than_the_row)
{
    /* Copies add no distinct residue, so the effective count (and the
     * observations' weight alpha) stays; and the copies share their
     * weight, so a thousand move no score more than a point beyond where
     * twenty put it (counted unweighted, a thousand copies would make the
     * PSSM that row's alone). */
    sw_matrix *m = matrix("BLOSUM62");
    sw_msa *msa = read_msa(data("pssm_sh3.afa"));
    sw_pssm *p = build(msa, m, SW_PSSM_PSEUDOCOUNTS);
    for (size_t which = 1; which < sw_msa_rows(msa); ++which) {
        sw_pssm *twenty = with_copies(msa, m, which, 20), *thousand = with_copies(msa, m, which, 1000);
        cr_expect_eq(twenty->effective, p->effective, "row %zu: effective %.17g, was %.17g", which,
                     twenty->effective, p->effective);
        cr_expect_eq(thousand->effective, p->effective);
        for (size_t i = 0; i < p->length; ++i)
            for (int c = 0; c < 20; ++c)
                cr_expect_leq(abs(sw_pssm_row(twenty, i)[c] - sw_pssm_row(thousand, i)[c]), 1,
                              "row %zu, position %zu, code %d: %d with 20 copies, %d with 1000", which, i, c,
                              sw_pssm_row(twenty, i)[c], sw_pssm_row(thousand, i)[c]);
        sw_pssm_free(twenty);
        sw_pssm_free(thousand);
    }
    sw_pssm_free(p);
    sw_msa_free(msa);
    sw_matrix_free(m);
}

Test(pssm, a3m_stockholm_and_aligned_fasta_of_one_alignment_give_one_pssm)
{
    sw_matrix *m = matrix("BLOSUM62");
    sw_msa *afa = read_msa(data("pssm_sh3.afa")), *a3m = read_msa(data("pssm_sh3.a3m")),
           *sto = read_msa(data("pssm_sh3.sto"));
    sw_pssm *pa = build(afa, m, SW_PSSM_PSEUDOCOUNTS), *p3 = build(a3m, m, SW_PSSM_PSEUDOCOUNTS),
            *ps = build(sto, m, SW_PSSM_PSEUDOCOUNTS);
    size_t n;
    uint8_t *query = fasta_query(data("pssm_sh3_d1ckaa.fa"), &n);
    cr_expect_eq(pa->length, n);
    cr_expect_eq(memcmp(pa->query, query, n), 0, "the PSSM's query is not d1ckaa_");
    expect_equal_pssms(pa, p3, "A3M");
    expect_equal_pssms(pa, ps, "Stockholm");
    cr_expect_eq(pa->effective, p3->effective);
    sw_pssm_free(pa);
    sw_pssm_free(p3);
    sw_pssm_free(ps);
    sw_msa_free(afa);
    sw_msa_free(a3m);
    sw_msa_free(sto);
    sw_matrix_free(m);
    free(query);
}

Test(pssm, a_query_of_gaps_only_is_refused)
{
    sw_matrix *m = matrix("BLOSUM62");
    const uint8_t gaps[3] = {SW_MSA_GAP, SW_MSA_GAP, SW_MSA_GAP}, other[3] = {0, 1, 2};
    const uint8_t *rows[2] = {gaps, other};
    sw_msa *msa = msa_of(rows, 2, 3);
    sw_pssm *p = NULL;
    sw_error err = {0};
    cr_expect_neq(sw_pssm_from_msa(msa, m, NULL, &p, &err), SW_OK);
    cr_expect_null(p);
    cr_expect(strstr(err.message, "the first row ('query'), has no residues") != NULL, "message '%s'", err.message);
    sw_msa_free(msa);
    sw_matrix_free(m);
}

/* ---- PSI-BLAST's ASCII PSSM ---- */

Test(pssm, reads_psiblasts_ascii_pssm)
{
    sw_matrix *m = matrix("BLOSUM62");
    const int8_t *table = sw_matrix_table(m);
    sw_pssm *p = read_pssm(data("pssm_sh3_d1ckaa.pssm"), m);
    size_t n;
    uint8_t *query = fasta_query(data("pssm_sh3_d1ckaa.fa"), &n);
    cr_assert_eq(p->length, 57);
    cr_assert_eq(n, 57);
    cr_expect_eq(memcmp(p->query, query, n), 0, "query letters differ from the FASTA");
    cr_expect_str_eq(p->label, "pssm_sh3_d1ckaa.pssm");
    cr_expect_str_eq(p->matrix, "BLOSUM62");
    cr_expect_eq(p->sequences, 0);
    /* "    1 A     4  -2  -2  -2  -1  -1  -1   0  -2  -2  -2  -1  -1  -3  -1   1   0  -3  -2   0 ..." */
    static const int8_t first[20] = {4, -2, -2, -2, -1, -1, -1, 0, -2, -2, -2, -1, -1, -3, -1, 1, 0, -3, -2, 0};
    cr_expect_eq(memcmp(sw_pssm_row(p, 0), first, 20), 0, "position 1 differs from the file");
    /* "    3 Y    -2  -1  -2  -3  -3  -1  -2  -3   0  -1   0   2  -1   3  -3  -2  -2   1   6  -1 ..." */
    cr_expect_eq(sw_pssm_row(p, 2)[18], 6);
    cr_expect_eq(sw_pssm_row(p, 2)[11], 2);
    cr_expect_eq(sw_pssm_row(p, 2)[CODE_W], 1);
    /* "   57 Y    -2  -1  -1  -2  -3   0  -1  -3   6  -2  -2  -1  -1   2  -3  -1  -2   1   5  -2 ..." */
    cr_expect_eq(sw_pssm_row(p, 56)[8], 6);
    cr_expect_eq(sw_pssm_row(p, 56)[18], 5);
    /* X and '*' as the matrix scores the query residue. */
    for (size_t i = 0; i < n; ++i) {
        cr_expect_eq(sw_pssm_row(p, i)[CODE_X], table[query[i] * SW_CODE_LIMIT + CODE_X]);
        cr_expect_eq(sw_pssm_row(p, i)[CODE_STAR], table[query[i] * SW_CODE_LIMIT + CODE_STAR]);
    }
    sw_pssm_free(p);
    sw_matrix_free(m);
    free(query);
    /* Without the matrix, the codes past the 20 cannot be filled. */
    sw_error err = {0};
    p = NULL;
    cr_expect_neq(sw_pssm_read(data("pssm_sh3_d1ckaa.pssm"), NULL, &p, &err), SW_OK);
    cr_expect(strstr(err.message, "pssm_sh3_d1ckaa.pssm: a PSI-BLAST PSSM is read with the matrix") != NULL,
              "message '%s'", err.message);
}

Test(pssm, psiblasts_pssm_of_a_query_without_homologs_is_blosum62_within_a_point)
{
    /* PSI-BLAST scores such a query from BLOSUM62's unrounded frequency
     * ratios, so a few entries differ from the rounded matrix by one (K/K
     * 4 for 5, G/C -2 for -3); swsearch's own PSSM of a query alone is the
     * rounded matrix exactly (above). */
    sw_matrix *m = matrix("BLOSUM62");
    const int8_t *table = sw_matrix_table(m);
    sw_pssm *p = read_pssm(data("pssm_uba_d1dv0a.pssm"), m);
    size_t n, equal = 0;
    uint8_t *query = fasta_query(data("pssm_uba_d1dv0a.fa"), &n);
    cr_assert_eq(p->length, n);
    for (size_t i = 0; i < n; ++i)
        for (int c = 0; c < 20; ++c) {
            const int d = sw_pssm_row(p, i)[c] - table[query[i] * SW_CODE_LIMIT + c];
            cr_expect_leq(abs(d), 1, "position %zu, code %d", i, c);
            equal += d == 0;
        }
    cr_expect_geq(equal, n * 20 * 95 / 100, "%zu of %zu scores equal BLOSUM62's", equal, n * 20);
    sw_pssm_free(p);
    sw_matrix_free(m);
    free(query);
}

Test(pssm, completes_b_z_j_u_o_from_the_standard_scores)
{
    sw_matrix *m = matrix("BLOSUM62");
    sw_pssm *p = read_pssm(data("pssm_sh3_d1ckaa.pssm"), m);
    const double *bg = sw_pssm_background();
    for (size_t i = 0; i < p->length; ++i) {
        const int8_t *row = sw_pssm_row(p, i);
        cr_expect_eq(row[20], (int8_t)lround((bg[3] * row[3] + bg[2] * row[2]) / (bg[3] + bg[2])), "B at %zu", i);
        cr_expect_eq(row[22], (int8_t)lround((bg[6] * row[6] + bg[5] * row[5]) / (bg[6] + bg[5])), "Z at %zu", i);
        cr_expect_eq(row[21], row[9] > row[10] ? row[9] : row[10], "J at %zu", i);
        cr_expect_eq(row[25], row[4], "U at %zu", i);
        cr_expect_eq(row[26], row[11], "O at %zu", i);
    }
    sw_pssm_free(p);
    sw_matrix_free(m);
}

/* ---- The saved format ---- */

static void expect_same_pssm(const sw_pssm *a, const sw_pssm *b)
{
    expect_equal_pssms(a, b, "read back");
    cr_expect_str_eq(a->label, b->label);
    cr_expect_eq(a->sequences, b->sequences);
    cr_expect_eq(memcmp(&a->effective, &b->effective, sizeof a->effective), 0, "effective %.17g read back as %.17g",
                 a->effective, b->effective);
    cr_expect_str_eq(a->matrix, b->matrix);
    cr_expect_eq(a->gap_open, b->gap_open);
    cr_expect_eq(a->gap_extend, b->gap_extend);
}

static void round_trip(const sw_pssm *p, const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    sw_error err = {0};
    cr_assert_eq(sw_pssm_save(p, path, &err), SW_OK, "%s", err.message);
    /* No matrix needed to read swsearch's own format. */
    sw_pssm *back = read_pssm(path, NULL);
    expect_same_pssm(p, back);
    sw_pssm_free(back);
}

Test(pssm, saved_pssms_read_back_exactly)
{
    char dir[] = "/tmp/sw_pssm.XXXXXX";
    temp_dir_make(dir);
    sw_matrix *m = matrix("BLOSUM62");
    sw_msa *msa = read_msa(data("pssm_sh3.afa"));
    sw_pssm_options o;
    sw_pssm_options_init(&o);
    o.label = "  SH3 family, built by  swsearch ";
    o.gap_open = 11;
    o.gap_extend = 1;
    sw_pssm *built = NULL;
    sw_error err = {0};
    cr_assert_eq(sw_pssm_from_msa(msa, m, &o, &built, &err), SW_OK, "%s", err.message);
    round_trip(built, dir, "built.pssm");
    /* A PSI-BLAST PSSM: sequences, effective count and gaps not known. */
    sw_pssm *psi = read_pssm(data("pssm_sh3_d1ckaa.pssm"), m);
    round_trip(psi, dir, "psi.pssm");
    /* Nothing known, an empty label. */
    free(psi->label);
    psi->label = strdup("");
    psi->matrix[0] = 0;
    round_trip(psi, dir, "bare.pssm");
    sw_pssm_free(psi);
    sw_pssm_free(built);
    sw_msa_free(msa);
    sw_matrix_free(m);
    temp_dir_remove(dir);
}

Test(pssm, the_saved_format_is_the_documented_text)
{
    sw_matrix *m = matrix("BLOSUM62");
    const uint8_t query[2] = {17, 0}; /* W A */
    sw_pssm_options o;
    sw_pssm_options_init(&o);
    o.label = "wa";
    o.gap_open = 11;
    o.gap_extend = 1;
    sw_pssm *p = NULL;
    sw_error err = {0};
    cr_assert_eq(sw_pssm_from_query(query, 2, m, &o, &p, &err), SW_OK, "%s", err.message);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_not_null(f);
    cr_assert_eq(sw_pssm_write(p, f, "memory", &err), SW_OK, "%s", err.message);
    fclose(f);
    const char *expected =
        "swsearch-pssm 1\n"
        "label wa\n"
        "sequences 1\n"
        "effective 1\n"
        "matrix BLOSUM62\n"
        "gaps 11 1\n"
        "length 2\n"
        "columns A R N D C Q E G H I L K M F P S T W Y V B J Z X * U O\n"
        "1 W -3 -3 -4 -4 -2 -2 -3 -2 -2 -3 -2 -3 -1 1 -4 -3 -2 11 2 -3 -4 -2 -3 -2 -2 -2 -3\n"
        "2 A 4 -1 -2 -2 0 -1 -1 0 -2 -1 -1 -1 -1 -2 -1 1 0 -3 -2 0 -2 -1 -1 0 0 0 -1\n"
        "end\n";
    cr_expect_str_eq(text, expected);
    free(text);
    sw_pssm_free(p);
    sw_matrix_free(m);
}

/* ---- Malformed files ---- */

/* Writes `text` to DIR/name, reads it, and expects a failure whose message
 * holds `message` (which names the file and line). */
static void expect_refused(const char *name, const char *text, const char *message)
{
    char dir[] = "/tmp/sw_pssm.XXXXXX", path[300];
    temp_dir_make(dir);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
    sw_matrix *m = matrix("BLOSUM62");
    sw_pssm *p = NULL;
    sw_error err = {0};
    cr_expect_neq(sw_pssm_read(path, m, &p, &err), SW_OK, "'%s' was accepted", text);
    cr_expect_null(p);
    cr_expect(strstr(err.message, message) != NULL, "'%s' not in '%s'", message, err.message);
    cr_expect(strncmp(err.message, dir, strlen(dir)) == 0, "no file name in '%s'", err.message);
    sw_matrix_free(m);
    temp_dir_remove(dir);
}

#define PSI_HEAD                                                                                     \
    "\nLast position-specific scoring matrix computed\n"                                             \
    "           A  R  N  D  C  Q  E  G  H  I  L  K  M  F  P  S  T  W  Y  V   A   R   N   D   C   Q " \
    "  E   G   H   I   L   K   M   F   P   S   T   W   Y   V\n"

Test(pssm, malformed_psiblast_pssms_are_refused_with_file_and_line)
{
    expect_refused("a.pssm", PSI_HEAD "    1 A    4 -1 -2 -2  0 -1 -1  0 -2 -1 -1 -1 -1 -2 -1  1  0 -3 -2  x\n",
                   "a.pssm:4: score 'x' of column V is not a whole number");
    expect_refused("a.pssm", PSI_HEAD "    2 A    4 -1 -2 -2  0 -1 -1  0 -2 -1 -1 -1 -1 -2 -1  1  0 -3 -2  0\n",
                   "a.pssm:4: expected position 1, found '2'");
    expect_refused("a.pssm", PSI_HEAD "    1 #    4 -1 -2 -2  0 -1 -1  0 -2 -1 -1 -1 -1 -2 -1  1  0 -3 -2  0\n",
                   "a.pssm:4: '#' at position 1 is not a protein residue");
    expect_refused("a.pssm", PSI_HEAD "    1 A    4 -1 -2 -2  0 -1 -1  0 -2 -1\n", "a.pssm:4: 12 fields");
    expect_refused("a.pssm", PSI_HEAD "    1 A    4 -1 -2 -2  0 -1 -1  0 -2 -1 -1 -1 -1 -2 -1  1  0 -3 -2  300\n",
                   "a.pssm:4: score '300'");
    expect_refused("a.pssm", PSI_HEAD "\n", "a.pssm:4: no positions");
    expect_refused("a.pssm", ">seq\nACDE\n", "a.pssm: not a PSSM");
    expect_refused("a.pssm", "", "a.pssm: not a PSSM");
}

#define OWN_HEAD                                                                                              \
    "swsearch-pssm 1\nlabel x\nsequences 3\neffective 1.5\nmatrix BLOSUM62\ngaps 11 1\nlength 1\n"             \
    "columns A R N D C Q E G H I L K M F P S T W Y V B J Z X * U O\n"
#define OWN_ROW_SCORES " A 4 -1 -2 -2 0 -1 -1 0 -2 -1 -1 -1 -1 -2 -1 1 0 -3 -2 0 -2 -1 -1 0 0 0 -1\n"
#define OWN_ROW "1" OWN_ROW_SCORES

Test(pssm, malformed_saved_pssms_are_refused_with_file_and_line)
{
    /* The well-formed file that the cases below break. */
    char dir[] = "/tmp/sw_pssm.XXXXXX", path[300];
    temp_dir_make(dir);
    snprintf(path, sizeof path, "%s/good.pssm", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(OWN_HEAD OWN_ROW "end\n\n", f);
    fclose(f);
    sw_pssm *p = read_pssm(path, NULL);
    cr_expect_eq(p->length, 1);
    cr_expect_eq(p->effective, 1.5);
    cr_expect_eq(p->sequences, 3);
    sw_pssm_free(p);
    temp_dir_remove(dir);

    expect_refused("b.pssm", "swsearch-pssm 2\n", "b.pssm:1: format version 2 is newer than this program reads (1)");
    expect_refused("b.pssm", "swsearch-pssm one\n", "b.pssm:1: 'one' is not a format version");
    expect_refused("b.pssm", "swsearch-pssm 1\nlabel x\nsequences many\n", "b.pssm:3: 'many' is not a whole number");
    expect_refused("b.pssm", "swsearch-pssm 1\nlabel x\nsequences 3\nmatrix BLOSUM62\n",
                   "b.pssm:4: expected 'effective NUMBER'");
    expect_refused("b.pssm",
                   "swsearch-pssm 1\nlabel x\nsequences 3\neffective 1.5\nmatrix BLOSUM62\ngaps 11 0\n",
                   "b.pssm:6: gap costs '11 0'");
    expect_refused("b.pssm",
                   "swsearch-pssm 1\nlabel x\nsequences 3\neffective 1.5\nmatrix BLOSUM62\ngaps 11 1\nlength 1\n"
                   "columns A R N D C Q E G H I L K M F P S T W Y V B Z J X * U O\n" OWN_ROW "end\n",
                   "b.pssm:8: column 22 is 'Z', expected 'J'");
    expect_refused("b.pssm", OWN_HEAD OWN_ROW, "b.pssm:9: the file ends before the 'end' line");
    expect_refused("b.pssm", OWN_HEAD "1 A 4 -1 -2\nend\n", "b.pssm:9: 5 fields");
    expect_refused("b.pssm", OWN_HEAD OWN_ROW "end\nmore\n", "b.pssm:11: text after the 'end' line");
    expect_refused("b.pssm", OWN_HEAD "2" OWN_ROW_SCORES "end\n", "b.pssm:9: expected position 1, found '2'");
}

/* ---- A3M ---- */

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

Test(msa, a3m_insertions_are_dropped)
{
    sw_msa *a3m = read_msa(data("pssm_sh3.a3m")), *afa = read_msa(data("pssm_sh3.afa"));
    cr_assert_eq(sw_msa_rows(a3m), sw_msa_rows(afa));
    cr_assert_eq(sw_msa_columns(a3m), 57);
    /* Each row is the aligned FASTA row in the query's columns. */
    for (size_t r = 0; r < sw_msa_rows(afa); ++r) {
        const char *name = sw_msa_name(afa, r);
        cr_expect_eq(strlen(sw_msa_name(a3m, r)), strcspn(name, " "));
        cr_expect_eq(strncmp(sw_msa_name(a3m, r), name, strcspn(name, " ")), 0);
        size_t i = 0;
        for (size_t c = 0; c < sw_msa_columns(afa); ++c)
            if (sw_msa_row(afa, 0)[c] != SW_MSA_GAP) {
                cr_expect_eq(sw_msa_row(a3m, r)[i], sw_msa_row(afa, r)[c], "row %zu, column %zu", r, i);
                ++i;
            }
    }
    sw_msa_free(a3m);
    sw_msa_free(afa);
}

Test(msa, a3m_is_recognised_by_content_or_read_as_asked)
{
    char dir[] = "/tmp/sw_pssm.XXXXXX", path[300];
    temp_dir_make(dir);
    snprintf(path, sizeof path, "%s/family.fa", dir);
    /* Rows of other lengths than the first, with insertions: A3M. */
    write_text(path, ">q\nACDE\n>r\nAcC-Ee\n>s\nA.CDE\n");
    sw_msa *m = read_msa(path);
    cr_assert_eq(sw_msa_columns(m), 4);
    const uint8_t r[4] = {0, 4, SW_MSA_GAP, 6}; /* A C - E */
    cr_expect_eq(memcmp(sw_msa_row(m, 1), r, 4), 0);
    sw_msa_free(m);
    /* Rows of one length: aligned FASTA, lower case a residue. */
    write_text(path, ">q\nACDE\n>r\nAcDE\n");
    m = read_msa(path);
    cr_expect_eq(sw_msa_columns(m), 4);
    cr_expect_eq(sw_msa_row(m, 1)[1], 4);
    sw_msa_free(m);
    /* The same as A3M when asked: the lower-case c is dropped, so the row
     * is a column short. */
    sw_error err = {0};
    m = NULL;
    cr_expect_neq(sw_msa_read_a3m(path, &m, &err), SW_OK);
    cr_expect(strstr(err.message, "family.fa:3: row 'r' has 3 match columns") != NULL, "message '%s'", err.message);
    temp_dir_remove(dir);
}

Test(msa, a_malformed_a3m_row_is_refused_with_file_and_line)
{
    char dir[] = "/tmp/sw_pssm.XXXXXX", path[300];
    temp_dir_make(dir);
    snprintf(path, sizeof path, "%s/bad.a3m", dir);
    write_text(path, ">q\nACDE\n>r\nACDE\n>s desc\nACDEF\n");
    sw_msa *m = NULL;
    sw_error err = {0};
    cr_expect_neq(sw_msa_read(path, &m, &err), SW_OK);
    cr_expect_null(m);
    cr_expect(strstr(err.message, "bad.a3m:5: row 's' has 5 match columns (upper-case letters and '-'), the first "
                                  "row has 4: not an A3M alignment") != NULL,
              "message '%s'", err.message);
    /* Without insertions, a row of another length is no alignment at all. */
    snprintf(path, sizeof path, "%s/bad.fa", dir);
    write_text(path, ">q\nACDE\n>r\nACD\n");
    cr_expect_neq(sw_msa_read(path, &m, &err), SW_OK);
    cr_expect(strstr(err.message, "bad.fa:3: row 'r' has 3 columns, the first row has 4: not an alignment") != NULL,
              "message '%s'", err.message);
    temp_dir_remove(dir);
}
