/* The inter-sequence CPU engine (sw_cpu_inter.h): every variant against the
 * reference engine, on random subjects, lanes that pass 8 bits, several gap
 * costs and matrices, long sequences and the smallest inputs; and the
 * variant lookup. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sw_align_ref.h"
#include "sw_cpu_inter.h"
#include "sw_matrix.h"
#include "test_matrices.h"
#include "test_rng.h"

/* The variant `name`; the test is skipped, saying why, where this CPU lacks it. */
static sw_inter_variant variant_or_skip(const char *name)
{
    sw_inter_variant v;
    sw_error err = {0};
    int rc = sw_inter_variant_by_name(name, &v, &err);
    if (rc == SW_ENODEV) cr_skip_test("%s", err.message);
    cr_assert_eq(rc, SW_OK, "variant %s: %s", name, err.message);
    return v;
}

/* Mostly the 20 standard residues, now and then B, J, Z, X, *, U or O. */
static uint8_t random_residue(test_rng *r)
{
    if (test_rng_below(r, 100) < 90) return (uint8_t)test_rng_below(r, 20);
    return (uint8_t)(20 + test_rng_below(r, SW_PROTEIN_CODES - 20));
}

static uint8_t *random_sequence(test_rng *r, size_t n)
{
    uint8_t *s = malloc(n ? n : 1);
    cr_assert_not_null(s);
    for (size_t i = 0; i < n; i++) s[i] = random_residue(r);
    return s;
}

/* n subjects, owned by the batch. */
typedef struct batch {
    uint8_t **seqs;
    size_t *lengths;
    size_t n;
} batch;

static batch batch_new(size_t n)
{
    batch b = {calloc(n ? n : 1, sizeof *b.seqs), calloc(n ? n : 1, sizeof *b.lengths), n};
    cr_assert(b.seqs && b.lengths);
    return b;
}

/* n random subjects of lengths min_len..max_len. */
static batch random_batch(test_rng *r, size_t n, size_t min_len, size_t max_len)
{
    batch b = batch_new(n);
    for (size_t i = 0; i < n; i++) {
        b.lengths[i] = min_len + test_rng_below(r, max_len - min_len + 1);
        b.seqs[i] = random_sequence(r, b.lengths[i]);
    }
    return b;
}

static void batch_free(batch *b)
{
    for (size_t i = 0; i < b->n; i++) free(b->seqs[i]);
    free(b->seqs);
    free(b->lengths);
}

/* The engine gives every subject of `b` the reference score. */
static void expect_reference_scores(const sw_inter_variant *v, const sw_scoring *sc,
                                    const uint8_t *query, size_t query_len, const batch *b,
                                    const char *what)
{
    int32_t *scores = malloc((b->n ? b->n : 1) * sizeof *scores);
    cr_assert_not_null(scores);
    for (size_t i = 0; i < b->n; i++) scores[i] = -1;
    sw_inter_workspace *ws = NULL;
    cr_assert_eq(sw_inter_workspace_create(&ws), SW_OK);
    sw_error err = {0};
    int rc = sw_inter_align_many(v, ws, query, query_len, sc, (const uint8_t *const *)b->seqs,
                                 b->lengths, b->n, scores, &err);
    cr_assert_eq(rc, SW_OK, "%s: %s: %s", v->name, what, err.message);
    for (size_t i = 0; i < b->n; i++) {
        sw_ref_result ref;
        cr_assert_eq(sw_ref_align(query, query_len, b->seqs[i], b->lengths[i], sc, &ref), SW_OK);
        cr_expect_eq(scores[i], ref.score,
                     "%s: %s: subject %zu (length %zu, query length %zu): %d, reference %d", v->name,
                     what, i, b->lengths[i], query_len, scores[i], ref.score);
    }
    sw_inter_workspace_free(ws);
    free(scores);
}

/* ---- Behaviours, each run for every variant ---- */

/* Counts that are not multiples of any lane count (64, 32, 16), lengths
 * that differ within a group. */
static void random_subjects(const char *name)
{
    sw_inter_variant v = variant_or_skip(name);
    sw_matrix *m = load_matrix("BLOSUM62");
    sw_scoring sc = scoring_of(m, 11, 1);
    test_rng r = test_rng_seed(101);
    const size_t query_lengths[] = {1, 2, 7, 64, 375, 500};
    for (size_t k = 0; k < sizeof query_lengths / sizeof *query_lengths; k++) {
        uint8_t *q = random_sequence(&r, query_lengths[k]);
        batch b = random_batch(&r, 150, 1, 600);
        expect_reference_scores(&v, &sc, q, query_lengths[k], &b, "BLOSUM62 11/1, random subjects");
        batch_free(&b);
        free(q);
    }
    sw_matrix_free(m);
}

/* Copies of the query (scores far past 255), copies with a few changes and
 * embedded query pieces (scores around the 8-bit ceiling), among random
 * subjects: the saturated lanes are recomputed, the others are not
 * disturbed. */
static void overflowing_lanes(const char *name)
{
    sw_inter_variant v = variant_or_skip(name);
    sw_matrix *m = load_matrix("BLOSUM62");
    sw_scoring sc = scoring_of(m, 11, 1);
    test_rng r = test_rng_seed(202);
    const size_t qn = 300;
    uint8_t *q = random_sequence(&r, qn);
    batch b = random_batch(&r, 200, 250, 350);
    for (size_t i = 0; i < b.n; i++) {
        size_t kind = i % 4;
        if (kind == 0) continue; /* random */
        free(b.seqs[i]);
        b.lengths[i] = qn;
        b.seqs[i] = malloc(qn);
        cr_assert_not_null(b.seqs[i]);
        memcpy(b.seqs[i], q, qn);
        if (kind == 2) { /* a few substitutions */
            for (size_t c = 0; c < 10; c++) b.seqs[i][test_rng_below(&r, qn)] = random_residue(&r);
        } else if (kind == 3) { /* a piece of 10..70 query residues in random ones */
            size_t piece = 10 + test_rng_below(&r, 61), at = test_rng_below(&r, qn - piece);
            for (size_t j = 0; j < qn; j++)
                if (j < at || j >= at + piece) b.seqs[i][j] = random_residue(&r);
        }
    }
    expect_reference_scores(&v, &sc, q, qn, &b, "lanes past 8 bits");
    batch_free(&b);
    free(q);
    sw_matrix_free(m);
}

/* Gap costs from free opening to dear ones, on two matrices. */
static void other_gap_costs(const char *name)
{
    sw_inter_variant v = variant_or_skip(name);
    const struct {
        const char *matrix;
        int open, extend;
    } schemes[] = {{"BLOSUM62", 0, 1}, {"BLOSUM62", 20, 5}, {"BLOSUM62", 255, 255},
                   {"BLOSUM50", 10, 2}, {"BLOSUM50", 0, 1},  {"BLOSUM50", 13, 3}};
    test_rng r = test_rng_seed(303);
    for (size_t k = 0; k < sizeof schemes / sizeof *schemes; k++) {
        sw_matrix *m = load_matrix(schemes[k].matrix);
        sw_scoring sc = scoring_of(m, schemes[k].open, schemes[k].extend);
        size_t qn = 1 + test_rng_below(&r, 400);
        uint8_t *q = random_sequence(&r, qn);
        batch b = random_batch(&r, 70, 1, 500);
        /* One near-copy of the query, so that some lane also saturates. */
        free(b.seqs[5]);
        b.seqs[5] = malloc(qn);
        cr_assert_not_null(b.seqs[5]);
        memcpy(b.seqs[5], q, qn);
        b.seqs[5][qn / 2] = random_residue(&r);
        b.lengths[5] = qn;
        char what[64];
        snprintf(what, sizeof what, "%s %d/%d", schemes[k].matrix, schemes[k].open, schemes[k].extend);
        expect_reference_scores(&v, &sc, q, qn, &b, what);
        batch_free(&b);
        free(q);
        sw_matrix_free(m);
    }
}

/* A 2000-residue query against subjects up to 5000, and a one-residue query
 * against long subjects. */
static void long_sequences(const char *name)
{
    sw_inter_variant v = variant_or_skip(name);
    sw_matrix *m = load_matrix("BLOSUM62");
    sw_scoring sc = scoring_of(m, 11, 1);
    test_rng r = test_rng_seed(404);
    uint8_t *q = random_sequence(&r, 2000);
    batch b = random_batch(&r, 5, 1, 5000);
    b.lengths[0] = 5000;
    free(b.seqs[0]);
    b.seqs[0] = random_sequence(&r, 5000);
    memcpy(b.seqs[0] + 1500, q, 2000); /* the whole query inside: a score of ~10,000 */
    expect_reference_scores(&v, &sc, q, 2000, &b, "query of 2000");
    expect_reference_scores(&v, &sc, q, 1, &b, "query of 1");
    batch_free(&b);
    free(q);
    sw_matrix_free(m);
}

/* Query and subjects of one residue, every pair of the protein codes (X, B,
 * Z, *, U, O, J included): the score is the pair's, or 0. */
static void one_residue_sequences(const char *name)
{
    sw_inter_variant v = variant_or_skip(name);
    sw_matrix *m = load_matrix("BLOSUM62");
    sw_scoring sc = scoring_of(m, 11, 1);
    batch b = batch_new(SW_PROTEIN_CODES);
    for (size_t c = 0; c < b.n; c++) {
        b.lengths[c] = 1;
        b.seqs[c] = malloc(1);
        cr_assert_not_null(b.seqs[c]);
        b.seqs[c][0] = (uint8_t)c;
    }
    for (uint8_t a = 0; a < SW_PROTEIN_CODES; a++)
        expect_reference_scores(&v, &sc, &a, 1, &b, "one residue each");
    batch_free(&b);
    sw_matrix_free(m);
}

/* n = 0 writes nothing; n = 1; empty subjects and an empty query score 0. */
static void small_counts(const char *name)
{
    sw_inter_variant v = variant_or_skip(name);
    sw_matrix *m = load_matrix("BLOSUM62");
    sw_scoring sc = scoring_of(m, 11, 1);
    test_rng r = test_rng_seed(505);
    uint8_t *q = random_sequence(&r, 120);
    sw_inter_workspace *ws = NULL;
    cr_assert_eq(sw_inter_workspace_create(&ws), SW_OK);
    int32_t untouched = -1;
    cr_expect_eq(sw_inter_align_many(&v, ws, q, 120, &sc, NULL, NULL, 0, &untouched, NULL), SW_OK);
    cr_expect_eq(untouched, -1);
    sw_inter_workspace_free(ws);

    batch one = random_batch(&r, 1, 100, 100);
    memcpy(one.seqs[0] + 10, q, 80);
    expect_reference_scores(&v, &sc, q, 120, &one, "n = 1");
    batch_free(&one);

    batch some = random_batch(&r, 3, 0, 50);
    some.lengths[1] = 0;
    expect_reference_scores(&v, &sc, q, 120, &some, "an empty subject");
    expect_reference_scores(&v, &sc, q, 0, &some, "an empty query");
    batch_free(&some);
    free(q);
    sw_matrix_free(m);
}

#define FOR_EACH_VARIANT(behaviour)                                               \
    Test(cpu_inter_avx512bw, behaviour) { behaviour("avx512bw"); }              \
    Test(cpu_inter_avx2, behaviour) { behaviour("avx2"); }                      \
    Test(cpu_inter_scalar, behaviour) { behaviour("scalar"); }

FOR_EACH_VARIANT(random_subjects)
FOR_EACH_VARIANT(overflowing_lanes)
FOR_EACH_VARIANT(other_gap_costs)
FOR_EACH_VARIANT(long_sequences)
FOR_EACH_VARIANT(one_residue_sequences)
FOR_EACH_VARIANT(small_counts)

/* ---- Variants ---- */

Test(cpu_inter, an_unknown_variant_name_is_not_found)
{
    sw_inter_variant v;
    sw_error err = {0};
    cr_expect_eq(sw_inter_variant_by_name("avx9000", &v, &err), SW_ENOTFOUND);
    cr_expect(strstr(err.message, "avx9000") != NULL, "message: %s", err.message);
}

Test(cpu_inter, the_best_variant_is_one_this_cpu_runs_by_name)
{
    sw_inter_variant best, named;
    cr_assert_eq(sw_inter_variant_best(&best), SW_OK);
    cr_assert_eq(sw_inter_variant_by_name(best.name, &named, NULL), SW_OK);
    cr_expect_eq(named.lanes, best.lanes);
    cr_expect(named.kernel == best.kernel);
}

Test(cpu_inter, the_scalar_variant_runs_on_any_cpu)
{
    sw_inter_variant v;
    cr_expect_eq(sw_inter_variant_by_name("scalar", &v, NULL), SW_OK);
}
