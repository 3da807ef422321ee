/* The inter-sequence CPU engine (sw_cpu_inter.h): every variant against the
 * reference engine, on random subjects, lanes that pass 8 bits, scores at
 * the 8-bit ceiling, several gap costs and matrices, long sequences, the
 * smallest inputs, batches of queries and batches of short queries that
 * share column profiles over many tiles; and the variant lookup. */
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

/* The batch engine gives every (query, subject) pair the reference score;
 * `ws` is the caller's, so that calls can share one. */
static void expect_batch_reference_scores(const sw_inter_variant *v, sw_inter_workspace *ws,
                                          const sw_scoring *sc, uint8_t *const *queries,
                                          const size_t *query_lens, size_t nq, const batch *b,
                                          const char *what)
{
    const size_t cells = nq * b->n;
    int32_t *scores = malloc((cells ? cells : 1) * sizeof *scores);
    cr_assert_not_null(scores);
    for (size_t k = 0; k < cells; k++) scores[k] = -1;
    sw_error err = {0};
    int rc = sw_inter_align_batch(v, ws, (const uint8_t *const *)queries, query_lens, nq, sc,
                                  (const uint8_t *const *)b->seqs, b->lengths, b->n, scores, &err);
    cr_assert_eq(rc, SW_OK, "%s: %s: %s", v->name, what, err.message);
    for (size_t q = 0; q < nq; q++) {
        for (size_t i = 0; i < b->n; i++) {
            sw_ref_result ref;
            int rc_ref =
                sw_ref_align(queries[q], query_lens[q], b->seqs[i], b->lengths[i], sc, &ref);
            cr_assert_eq(rc_ref, SW_OK);
            cr_expect_eq(scores[q * b->n + i], ref.score,
                         "%s: %s: query %zu (length %zu), subject %zu (length %zu): %d, "
                         "reference %d",
                         v->name, what, q, query_lens[q], i, b->lengths[i], scores[q * b->n + i],
                         ref.score);
        }
    }
    free(scores);
}

/* The 8-bit ceiling as sw_cpu_inter.c derives it: 255 - gain, gain the
 * table's largest score, and at most 127 where a gap's first residue
 * (open + extend) costs more than 127. */
static int inter_ceiling(const sw_scoring *sc)
{
    int hi = INT8_MIN;
    for (size_t i = 0; i < SW_CODE_LIMIT * SW_CODE_LIMIT; i++)
        hi = sc->table[i] > hi ? sc->table[i] : hi;
    int ceiling = UINT8_MAX - (hi > 0 ? hi : 0);
    if (sc->gap_open + sc->gap_extend > INT8_MAX && ceiling > INT8_MAX) ceiling = INT8_MAX;
    return ceiling;
}

/* A sequence that scores `target` against itself: repeats of the residue
 * with the smallest positive self-score s, the last one swapped for a
 * residue whose self-score adds the remainder of target / s. The caller
 * checks the score with the reference engine. */
static uint8_t *scoring_exactly(const sw_scoring *sc, int target, size_t *len)
{
    int unit = 0, unit_code = -1;
    for (int c = 0; c < SW_CODE_LIMIT; c++) {
        int self = sw_matrix_score(sc->table, (uint8_t)c, (uint8_t)c);
        if (self > 0 && (unit_code < 0 || self < unit)) {
            unit = self;
            unit_code = c;
        }
    }
    cr_assert(unit_code >= 0, "no residue scores above 0 against itself");
    int rest = target % unit, last_code = unit_code;
    if (rest) {
        last_code = -1;
        for (int c = 0; c < SW_CODE_LIMIT && last_code < 0; c++)
            if (sw_matrix_score(sc->table, (uint8_t)c, (uint8_t)c) == unit + rest) last_code = c;
        cr_assert(last_code >= 0, "no residue scores %d against itself", unit + rest);
    }
    *len = (size_t)(target / unit);
    uint8_t *seq = malloc(*len);
    cr_assert_not_null(seq);
    memset(seq, unit_code, *len);
    seq[*len - 1] = (uint8_t)last_code;
    return seq;
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

/* Queries of 1 to 511 residues (past 255, an empty one among them) in one
 * batch against random subjects, empty ones and near-copies of queries
 * (lanes past 8 bits) among them; then a smaller batch in the same
 * workspace. */
static void batches_of_queries(const char *name)
{
    sw_inter_variant v = variant_or_skip(name);
    sw_matrix *m = load_matrix("BLOSUM62");
    sw_scoring sc = scoring_of(m, 11, 1);
    test_rng r = test_rng_seed(606);
    size_t query_lens[] = {1, 300, 2, 0, 33, 128, 511, 64};
    enum { NQ = sizeof query_lens / sizeof *query_lens };
    uint8_t *queries[NQ];
    for (size_t q = 0; q < NQ; q++) queries[q] = random_sequence(&r, query_lens[q]);
    batch b = random_batch(&r, 90, 1, 450);
    for (size_t i = 0; i < b.n; i += 11) b.lengths[i] = 0;
    for (size_t i = 4, q = 0; i < b.n; i += 13, q = (q + 1) % NQ) {
        if (query_lens[q] < 20) continue;
        free(b.seqs[i]);
        b.seqs[i] = malloc(query_lens[q]);
        cr_assert_not_null(b.seqs[i]);
        memcpy(b.seqs[i], queries[q], query_lens[q]);
        b.seqs[i][query_lens[q] / 3] = random_residue(&r);
        b.lengths[i] = query_lens[q];
    }
    sw_inter_workspace *ws = NULL;
    cr_assert_eq(sw_inter_workspace_create(&ws), SW_OK);
    expect_batch_reference_scores(&v, ws, &sc, queries, query_lens, NQ, &b, "8 queries");
    batch few = random_batch(&r, 5, 1, 40);
    expect_batch_reference_scores(&v, ws, &sc, queries, query_lens, 3, &few, "3 queries after 8");
    batch_free(&few);
    sw_inter_workspace_free(ws);
    batch_free(&b);
    for (size_t q = 0; q < NQ; q++) free(queries[q]);
    sw_matrix_free(m);
}

/* No queries or no subjects: SW_OK, nothing written, NULL arrays allowed
 * where their count is 0. */
static void empty_batches(const char *name)
{
    sw_inter_variant v = variant_or_skip(name);
    sw_matrix *m = load_matrix("BLOSUM62");
    sw_scoring sc = scoring_of(m, 11, 1);
    test_rng r = test_rng_seed(707);
    uint8_t *q = random_sequence(&r, 50);
    const uint8_t *queries[] = {q, q};
    const size_t query_lens[] = {50, 20};
    batch b = random_batch(&r, 4, 1, 60);
    sw_inter_workspace *ws = NULL;
    cr_assert_eq(sw_inter_workspace_create(&ws), SW_OK);
    int32_t untouched[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
    cr_expect_eq(sw_inter_align_batch(&v, ws, NULL, NULL, 0, &sc, (const uint8_t *const *)b.seqs,
                                      b.lengths, b.n, untouched, NULL),
                 SW_OK);
    cr_expect_eq(sw_inter_align_batch(&v, ws, queries, query_lens, 2, &sc, NULL, NULL, 0,
                                      untouched, NULL),
                 SW_OK);
    cr_expect_eq(sw_inter_align_batch(&v, ws, NULL, NULL, 0, &sc, NULL, NULL, 0, NULL, NULL),
                 SW_OK);
    for (size_t k = 0; k < 8; k++) cr_expect_eq(untouched[k], -1, "score %zu written", k);
    sw_inter_workspace_free(ws);
    batch_free(&b);
    free(q);
    sw_matrix_free(m);
}

/* Best scores one below, on and one above the ceiling up to which an 8-bit
 * lane is taken as exact (sw_cpu_inter.c), and at 255 and past it, where a
 * lane really saturates: queries that score each target against their own
 * copies, all in one batch, among random subjects that share their groups.
 * Gaps dearer than 127 lower the ceiling to 127. */
static void scores_at_the_8bit_ceiling(const char *name)
{
    sw_inter_variant v = variant_or_skip(name);
    sw_matrix *m = load_matrix("BLOSUM62");
    int8_t dna[SW_CODE_LIMIT * SW_CODE_LIMIT];
    const sw_scoring schemes[] = {scoring_of(m, 11, 1), dna_scoring(dna, 1, -1, 2, 1),
                                  scoring_of(m, 120, 10)};
    test_rng r = test_rng_seed(808);
    for (size_t k = 0; k < sizeof schemes / sizeof *schemes; k++) {
        const sw_scoring *sc = &schemes[k];
        const int ceiling = inter_ceiling(sc);
        const int targets[] = {ceiling - 1, ceiling, ceiling + 1, 255, 256, 257};
        enum { NT = sizeof targets / sizeof *targets };
        uint8_t *queries[NT];
        size_t query_lens[NT];
        batch b = random_batch(&r, 3 * NT, 40, 90);
        for (size_t t = 0; t < NT; t++) {
            queries[t] = scoring_exactly(sc, targets[t], &query_lens[t]);
            sw_ref_result ref;
            int rc_ref =
                sw_ref_align(queries[t], query_lens[t], queries[t], query_lens[t], sc, &ref);
            cr_assert_eq(rc_ref, SW_OK);
            cr_assert_eq(ref.score, targets[t], "scheme %zu: a query built to score %d scores %d",
                         k, targets[t], ref.score);
            free(b.seqs[3 * t]);
            b.seqs[3 * t] = malloc(query_lens[t]);
            cr_assert_not_null(b.seqs[3 * t]);
            memcpy(b.seqs[3 * t], queries[t], query_lens[t]);
            b.lengths[3 * t] = query_lens[t];
        }
        char what[64];
        snprintf(what, sizeof what, "scheme %zu, ceiling %d", k, ceiling);
        sw_inter_workspace *ws = NULL;
        cr_assert_eq(sw_inter_workspace_create(&ws), SW_OK);
        expect_batch_reference_scores(&v, ws, sc, queries, query_lens, NT, &b, what);
        sw_inter_workspace_free(ws);
        for (size_t t = 0; t < NT; t++) {
            expect_reference_scores(&v, sc, queries[t], query_lens[t], &b, what);
            free(queries[t]);
        }
        batch_free(&b);
    }
    sw_matrix_free(m);
}

/* Hundreds of short queries (more residues than one pack of queries that
 * share a group's column profile holds, at any lane count) against
 * subjects long enough to cross many tiles of columns, some holding copies
 * of queries (lanes past 8 bits, recomputed inside a pack); then, in the
 * same workspace, a query too long to share its pack, alone and between
 * two short ones. */
static void short_queries_over_many_tiles(const char *name)
{
    sw_inter_variant v = variant_or_skip(name);
    sw_matrix *m = load_matrix("BLOSUM62");
    sw_scoring sc = scoring_of(m, 11, 1);
    test_rng r = test_rng_seed(909);
    enum { NQ = 900 };
    uint8_t *queries[NQ];
    size_t query_lens[NQ];
    for (size_t q = 0; q < NQ; q++) {
        /* 10 to 30 residues, an empty one now and then, a few of 60 */
        query_lens[q] = q % 97 == 5 ? 0 : q % 50 == 7 ? 60 : 10 + test_rng_below(&r, 21);
        queries[q] = random_sequence(&r, query_lens[q]);
    }
    batch b = random_batch(&r, 12, 1, 500);
    for (size_t i = 0, q = 7; i < b.n; i += 4, q += 100) {
        /* A query of 60 at a random place of a long subject: scores past
         * 255 against it. */
        free(b.seqs[i]);
        b.lengths[i] = 400;
        b.seqs[i] = random_sequence(&r, b.lengths[i]);
        memcpy(b.seqs[i] + test_rng_below(&r, 340), queries[q], query_lens[q]);
    }
    sw_inter_workspace *ws = NULL;
    cr_assert_eq(sw_inter_workspace_create(&ws), SW_OK);
    expect_batch_reference_scores(&v, ws, &sc, queries, query_lens, NQ, &b, "900 short queries");
    size_t long_len = 17000;
    uint8_t *long_query = random_sequence(&r, long_len);
    batch few = random_batch(&r, 3, 1, 300);
    memcpy(long_query + 3000, few.seqs[0], few.lengths[0]);
    expect_batch_reference_scores(&v, ws, &sc, &long_query, &long_len, 1, &few, "a query of 17000");
    uint8_t *mixed[] = {queries[0], long_query, queries[1]};
    size_t mixed_lens[] = {query_lens[0], long_len, query_lens[1]};
    expect_batch_reference_scores(&v, ws, &sc, mixed, mixed_lens, 3, &few,
                                  "short, 17000 and short");
    batch_free(&few);
    free(long_query);
    sw_inter_workspace_free(ws);
    batch_free(&b);
    for (size_t q = 0; q < NQ; q++) free(queries[q]);
    sw_matrix_free(m);
}

#define FOR_EACH_VARIANT(behaviour)                                               \
    Test(cpu_inter_avx512bw, behaviour) { behaviour("avx512bw"); }              \
    Test(cpu_inter_avx2, behaviour) { behaviour("avx2"); }                      \
    Test(cpu_inter_sse41, behaviour) { behaviour("sse41"); }                    \
    Test(cpu_inter_scalar, behaviour) { behaviour("scalar"); }

FOR_EACH_VARIANT(random_subjects)
FOR_EACH_VARIANT(overflowing_lanes)
FOR_EACH_VARIANT(other_gap_costs)
FOR_EACH_VARIANT(long_sequences)
FOR_EACH_VARIANT(one_residue_sequences)
FOR_EACH_VARIANT(small_counts)
FOR_EACH_VARIANT(batches_of_queries)
FOR_EACH_VARIANT(empty_batches)
FOR_EACH_VARIANT(scores_at_the_8bit_ceiling)
FOR_EACH_VARIANT(short_queries_over_many_tiles)

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

Test(cpu_inter, a_batch_rejects_a_null_query_or_a_bad_code_naming_the_query)
{
    sw_inter_variant v;
    cr_assert_eq(sw_inter_variant_by_name("scalar", &v, NULL), SW_OK);
    sw_matrix *m = load_matrix("BLOSUM62");
    sw_scoring sc = scoring_of(m, 11, 1);
    const uint8_t good[] = {1, 2, 3}, bad[] = {1, SW_CODE_LIMIT, 3};
    const uint8_t *subjects[] = {good};
    const size_t lengths[] = {3}, query_lens[] = {3, 3};
    int32_t scores[2];
    sw_inter_workspace *ws = NULL;
    cr_assert_eq(sw_inter_workspace_create(&ws), SW_OK);
    sw_error err = {0};
    const uint8_t *with_null[] = {good, NULL}, *with_bad[] = {good, bad};
    cr_expect_eq(sw_inter_align_batch(&v, ws, with_null, query_lens, 2, &sc, subjects, lengths, 1,
                                      scores, &err),
                 SW_EINVAL);
    cr_expect(strstr(err.message, "query 1") != NULL, "message: %s", err.message);
    cr_expect_eq(sw_inter_align_batch(&v, ws, with_bad, query_lens, 2, &sc, subjects, lengths, 1,
                                      scores, &err),
                 SW_EINVAL);
    cr_expect(strstr(err.message, "query 1") != NULL, "message: %s", err.message);
    sw_inter_workspace_free(ws);
    sw_matrix_free(m);
}

Test(cpu_inter, the_scalar_variant_runs_on_any_cpu)
{
    sw_inter_variant v;
    cr_expect_eq(sw_inter_variant_by_name("scalar", &v, NULL), SW_OK);
}
