/* The alignments behind scores: exact (the reference engine's score and end
 * cell), re-scorable, the same in any checkpoint layout, optimal by brute
 * force on tiny pairs, and bounded in memory on long pairs. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "sw_align_ref.h"
#include "sw_cpu_simd.h"
#include "sw_traceback.h"
#include "test_matrices.h"
#include "test_rng.h"

static void random_protein(test_rng *r, uint8_t *s, size_t n)
{
    for (size_t i = 0; i < n; i++) s[i] = (uint8_t)test_rng_below(r, 20);
}

/* b: a copy of a with substitutions, insertions and deletions. */
static size_t mutate(test_rng *r, const uint8_t *a, size_t n, uint8_t *b, size_t cap, int rate)
{
    size_t k = 0;
    for (size_t i = 0; i < n && k < cap; i++) {
        int roll = (int)test_rng_below(r, 100);
        if (roll < rate) b[k++] = (uint8_t)test_rng_below(r, 20);
        else if (roll < rate + 3) continue;
        else if (roll < rate + 6 && k + 1 < cap) {
            b[k++] = (uint8_t)test_rng_below(r, 20);
            b[k++] = a[i];
        } else b[k++] = a[i];
    }
    return k;
}

/* The first cell of the best score in column-major order (smallest
 * subject position, then smallest query position), from a plain Gotoh fill
 * of the whole matrix. */
static void first_best_column_major(const uint8_t *q, size_t m, const uint8_t *s, size_t n,
                                    const sw_scoring *sc, size_t *bi, size_t *bj)
{
    int32_t *H = calloc((m + 1) * (n + 1), sizeof *H), *E = calloc((m + 1) * (n + 1), sizeof *E),
            *F = calloc((m + 1) * (n + 1), sizeof *F);
    const int32_t oe = sc->gap_open + sc->gap_extend, e = sc->gap_extend, neg = -1000000;
    int best = 0;
    *bi = *bj = 0;
    for (size_t i = 0; i <= m; i++)
        for (size_t j = 0; j <= n; j++) {
            size_t k = i * (n + 1) + j;
            if (!i || !j) {
                E[k] = F[k] = neg;
                continue;
            }
            E[k] = H[k - 1] - oe > E[k - 1] - e ? H[k - 1] - oe : E[k - 1] - e;
            F[k] = H[k - n - 1] - oe > F[k - n - 1] - e ? H[k - n - 1] - oe : F[k - n - 1] - e;
            int v = H[k - n - 2] + sw_matrix_score(sc->table, q[i - 1], s[j - 1]);
            v = E[k] > v ? E[k] : v;
            v = F[k] > v ? F[k] : v;
            H[k] = v > 0 ? v : 0;
        }
    for (size_t j = 1; j <= n; j++)
        for (size_t i = 1; i <= m; i++)
            if (H[i * (n + 1) + j] > best) {
                best = H[i * (n + 1) + j];
                *bi = i;
                *bj = j;
            }
    free(H);
    free(E);
    free(F);
}

static void check_pair(sw_traceback_workspace *w, const uint8_t *q, size_t m, const uint8_t *s, size_t n,
                       const sw_scoring *sc, const char *what)
{
    sw_ref_result ref;
    cr_assert_eq(sw_ref_align(q, m, s, n, sc, &ref), SW_OK);
    sw_alignment a, b;
    sw_error err;
    cr_assert_eq(sw_traceback_align(w, q, m, s, n, sc, &a, &err), SW_OK, "%s", err.message);
    cr_assert_eq(a.score, ref.score, "%s: score %d, reference %d", what, a.score, ref.score);
    if (ref.score > 0) {
        size_t bi, bj;
        first_best_column_major(q, m, s, n, sc, &bi, &bj);
        cr_assert_eq(a.query_end, bi, "%s: query end %zu, expected %zu", what, a.query_end, bi);
        cr_assert_eq(a.subject_end, bj, "%s: subject end %zu, expected %zu", what, a.subject_end, bj);
    }
    /* The SIMD engine's end column and the window give the same alignment. */
    sw_simd_profile *prof;
    sw_simd_workspace *sws;
    cr_assert_eq(sw_simd_profile_create(q, m, sc, &prof), SW_OK);
    cr_assert_eq(sw_simd_workspace_create(&sws), SW_OK);
    size_t end_column = 0;
    int simd_score = sw_simd_align_end(prof, sws, s, n, &end_column);
    if (simd_score != SW_EINVAL) { /* the reference variant tracks no end */
        cr_assert_eq(simd_score, a.score, "%s", what);
        cr_assert_eq(end_column, a.score ? a.subject_end : 0, "%s: SIMD end column %zu, traceback %zu", what,
                     end_column, a.subject_end);
        cr_assert_eq(sw_traceback_align_window(w, q, m, s, n, sc, simd_score, end_column, &b, &err), SW_OK,
                     "%s: %s", what, err.message);
        cr_assert_eq(b.score, a.score);
        cr_assert_eq(b.query_start, a.query_start, "%s: window", what);
        cr_assert_eq(b.query_end, a.query_end, "%s: window", what);
        cr_assert_eq(b.subject_start, a.subject_start, "%s: window", what);
        cr_assert_eq(b.subject_end, a.subject_end, "%s: window", what);
        cr_assert_eq(b.num_runs, a.num_runs, "%s: window", what);
        if (a.num_runs) cr_assert_arr_eq(b.runs, a.runs, a.num_runs * sizeof *a.runs);
        sw_alignment_clear(&b);
        if (a.score > 0) {
            /* The leftmost start, from the reversed sequences, bounds a
             * tighter window with the same alignment. */
            uint8_t *qr = malloc(m), *sr = malloc(end_column);
            for (size_t i = 0; i < m; i++) qr[i] = q[m - 1 - i];
            for (size_t j = 0; j < end_column; j++) sr[j] = s[end_column - 1 - j];
            sw_simd_profile *prof_r;
            cr_assert_eq(sw_simd_profile_create(qr, m, sc, &prof_r), SW_OK);
            size_t last = 0;
            cr_assert_eq(sw_simd_align_last(prof_r, sws, sr, end_column, a.score, &last), a.score, "%s", what);
            size_t first_column = end_column - last + 1;
            cr_assert_leq(first_column, a.subject_start, "%s: window from %zu, alignment from %zu", what,
                          first_column, a.subject_start);
            cr_assert_eq(sw_traceback_align_span(w, q, m, s, n, sc, a.score, first_column, end_column, &b, &err),
                         SW_OK, "%s: %s", what, err.message);
            cr_assert_eq(b.query_start, a.query_start, "%s: span", what);
            cr_assert_eq(b.subject_start, a.subject_start, "%s: span", what);
            cr_assert_eq(b.num_runs, a.num_runs, "%s: span", what);
            cr_assert_arr_eq(b.runs, a.runs, a.num_runs * sizeof *a.runs);
            sw_alignment_clear(&b);
            /* The SIMD traceback, on every instruction set and in blocks of
             * any width, over the tight window and the whole subject up to
             * the end. */
            const char *isas[] = {"avx2", "sse2"};
            const size_t widths[] = {0, 1, 3, 17};
            for (size_t v = 0; v < 2; v++) {
                sw_simd_variant variant;
                cr_assert_eq(sw_simd_variant_select(isas[v], &variant), SW_OK);
                sw_simd_profile *pv;
                cr_assert_eq(sw_simd_profile_create_variant(q, m, sc, &variant, &pv), SW_OK);
                for (size_t t = 0; t < 4; t++)
                    for (size_t from = 0; from < 2; from++) {
                        size_t first = from ? 1 : first_column;
                        cr_assert_eq(sw_traceback_align_simd(w, pv, q, m, s, n, sc, a.score, first, end_column,
                                                             widths[t], &b, &err),
                                     SW_OK, "%s: %s", what, err.message);
                        cr_assert_eq(b.score, a.score);
                        cr_assert_eq(b.query_start, a.query_start, "%s: simd %s/%zu from %zu", what, isas[v],
                                     widths[t], first);
                        cr_assert_eq(b.query_end, a.query_end, "%s: simd %s/%zu", what, isas[v], widths[t]);
                        cr_assert_eq(b.subject_start, a.subject_start, "%s: simd %s/%zu", what, isas[v], widths[t]);
                        cr_assert_eq(b.subject_end, a.subject_end, "%s: simd %s/%zu", what, isas[v], widths[t]);
                        cr_assert_eq(b.identities, a.identities);
                        cr_assert_eq(b.positives, a.positives);
                        cr_assert_eq(b.num_runs, a.num_runs, "%s: simd %s/%zu", what, isas[v], widths[t]);
                        cr_assert_arr_eq(b.runs, a.runs, a.num_runs * sizeof *a.runs, "%s: simd %s/%zu", what,
                                         isas[v], widths[t]);
                        sw_alignment_clear(&b);
                    }
                sw_simd_profile_free(pv);
            }
            sw_simd_profile_free(prof_r);
            free(qr);
            free(sr);
        }
    }
    sw_simd_profile_free(prof);
    sw_simd_workspace_free(sws);
    int rescored = -1;
    cr_assert_eq(sw_alignment_rescore(&a, q, m, s, n, sc, &rescored), SW_OK, "%s", what);
    cr_assert_eq(rescored, a.score, "%s: columns score %d, alignment %d", what, rescored, a.score);
    size_t cols = 0, pairs = 0;
    for (size_t k = 0; k < a.num_runs; k++) {
        cols += SW_OP_LEN(a.runs[k]);
        if (SW_OP_KIND(a.runs[k]) == SW_OP_M) pairs += SW_OP_LEN(a.runs[k]);
    }
    cr_assert_eq(cols, a.length);
    cr_assert_eq(a.identities + a.mismatches, pairs);
    cr_assert_eq(a.gaps, a.length - pairs);
    /* Blocks of a few rows give the same alignment bit for bit. */
    size_t blocks[] = {1, 3, 17};
    for (size_t t = 0; t < 3; t++) {
        cr_assert_eq(sw_traceback_align_blocked(w, q, m, s, n, sc, blocks[t], &b, &err), SW_OK);
        cr_assert_eq(b.score, a.score);
        cr_assert_eq(b.query_start, a.query_start, "%s, blocks of %zu", what, blocks[t]);
        cr_assert_eq(b.subject_start, a.subject_start, "%s, blocks of %zu", what, blocks[t]);
        cr_assert_eq(b.num_runs, a.num_runs, "%s, blocks of %zu", what, blocks[t]);
        if (a.num_runs) cr_assert_arr_eq(b.runs, a.runs, a.num_runs * sizeof *a.runs);
        sw_alignment_clear(&b);
    }
    sw_alignment_clear(&a);
}

Test(traceback, matches_the_reference_on_random_related_pairs)
{
    sw_matrix *m62 = load_matrix("BLOSUM62");
    const int gaps[][2] = {{11, 1}, {10, 2}, {0, 1}, {5, 5}};
    sw_traceback_workspace *w;
    cr_assert_eq(sw_traceback_workspace_create(&w), SW_OK);
    test_rng r = test_rng_seed(18);
    uint8_t a[400], b[500];
    for (int t = 0; t < 400; t++) {
        sw_scoring sc = scoring_of(m62, gaps[t % 4][0], gaps[t % 4][1]);
        size_t n = 1 + test_rng_below(&r, 300);
        random_protein(&r, a, n);
        size_t k = mutate(&r, a, n, b, sizeof b, (int)test_rng_below(&r, 60));
        if (t % 5 == 0) {
            k = 1 + test_rng_below(&r, 300);
            random_protein(&r, b, k); /* unrelated */
        }
        char what[64];
        snprintf(what, sizeof what, "pair %d (%zu x %zu)", t, n, k);
        check_pair(w, a, n, b, k, &sc, what);
    }
    sw_traceback_workspace_free(w);
    sw_matrix_free(m62);
}

/* Every alignment of two tiny sequences, scored: none beats the one found. */
static int best_by_brute_force(const uint8_t *q, size_t m, const uint8_t *s, size_t n, const sw_scoring *sc)
{
    /* Global alignments of every pair of substrings, by exhaustive DP over
     * gap placements: Needleman-Wunsch with affine gaps is exact, so the
     * maximum over substrings is the local optimum computed independently
     * of the Smith-Waterman recurrence. */
    int best = 0;
    for (size_t i0 = 0; i0 < m; i0++)
        for (size_t i1 = i0 + 1; i1 <= m; i1++)
            for (size_t j0 = 0; j0 < n; j0++)
                for (size_t j1 = j0 + 1; j1 <= n; j1++) {
                    size_t a = i1 - i0, b = j1 - j0;
                    int H[8][8], E[8][8], F[8][8];
                    const int NEG = -1000000, oe = sc->gap_open + sc->gap_extend, e = sc->gap_extend;
                    for (size_t x = 0; x <= a; x++)
                        for (size_t y = 0; y <= b; y++) {
                            if (x == 0 && y == 0) {
                                H[0][0] = 0;
                                E[0][0] = F[0][0] = NEG;
                                continue;
                            }
                            E[x][y] = y ? (H[x][y - 1] - oe > E[x][y - 1] - e ? H[x][y - 1] - oe : E[x][y - 1] - e) : NEG;
                            F[x][y] = x ? (H[x - 1][y] - oe > F[x - 1][y] - e ? H[x - 1][y] - oe : F[x - 1][y] - e) : NEG;
                            int v = E[x][y] > F[x][y] ? E[x][y] : F[x][y];
                            if (x && y) {
                                int d = H[x - 1][y - 1] + sw_matrix_score(sc->table, q[i0 + x - 1], s[j0 + y - 1]);
                                if (d > v) v = d;
                            }
                            H[x][y] = v;
                        }
                    if (H[a][b] > best) best = H[a][b];
                }
    return best;
}

Test(traceback, is_optimal_by_brute_force_on_tiny_pairs)
{
    sw_matrix *m62 = load_matrix("BLOSUM62");
    sw_traceback_workspace *w;
    cr_assert_eq(sw_traceback_workspace_create(&w), SW_OK);
    test_rng r = test_rng_seed(7);
    for (int t = 0; t < 300; t++) {
        sw_scoring sc = scoring_of(m62, (int)test_rng_below(&r, 6), 1 + (int)test_rng_below(&r, 3));
        uint8_t a[6], b[6];
        size_t m = 1 + test_rng_below(&r, 6), n = 1 + test_rng_below(&r, 6);
        /* A small alphabet makes matches, and ties, common. */
        for (size_t i = 0; i < m; i++) a[i] = (uint8_t)test_rng_below(&r, 4);
        for (size_t j = 0; j < n; j++) b[j] = (uint8_t)test_rng_below(&r, 4);
        sw_alignment al;
        sw_error err;
        cr_assert_eq(sw_traceback_align(w, a, m, b, n, &sc, &al, &err), SW_OK);
        cr_assert_eq(al.score, best_by_brute_force(a, m, b, n, &sc), "case %d", t);
        int rescored;
        cr_assert_eq(sw_alignment_rescore(&al, a, m, b, n, &sc, &rescored), SW_OK);
        cr_assert_eq(rescored, al.score);
        sw_alignment_clear(&al);
    }
    sw_traceback_workspace_free(w);
    sw_matrix_free(m62);
}

Test(traceback, follows_the_documented_tie_rule_on_hand_made_cases)
{
    sw_matrix *m62 = load_matrix("BLOSUM62");
    sw_scoring sc = scoring_of(m62, 11, 1);
    const sw_alphabet *abc = sw_alphabet_protein();
    sw_traceback_workspace *w;
    cr_assert_eq(sw_traceback_workspace_create(&w), SW_OK);
    /* WW against WAW: the first best end in column-major order is the
     * query's first W against the subject's first W (score 11); (2, 1) and
     * (1, 3), (2, 3) score the same but come later. */
    const char *q = "WW", *s = "WAW";
    uint8_t qc[2], sc2[3];
    for (int i = 0; i < 2; i++) qc[i] = sw_alphabet_encode(abc, (unsigned char)q[i]);
    for (int i = 0; i < 3; i++) sc2[i] = sw_alphabet_encode(abc, (unsigned char)s[i]);
    sw_alignment a;
    sw_error err;
    cr_assert_eq(sw_traceback_align(w, qc, 2, sc2, 3, &sc, &a, &err), SW_OK);
    cr_assert_eq(a.score, 11);
    cr_assert_eq(a.query_start, 1);
    cr_assert_eq(a.query_end, 1);
    cr_assert_eq(a.subject_start, 1);
    cr_assert_eq(a.subject_end, 1);
    cr_assert_eq(a.num_runs, 1);
    cr_assert_eq(a.runs[0], SW_OP_RUN(SW_OP_M, 1));
    sw_alignment_clear(&a);
    /* A gap: 20 W, then 20 W again after 3 extra subject residues. */
    uint8_t qq[40], ss[43];
    uint8_t W = sw_alphabet_encode(abc, 'W'), G = sw_alphabet_encode(abc, 'G');
    for (int i = 0; i < 40; i++) qq[i] = W;
    for (int j = 0; j < 43; j++) ss[j] = (j >= 20 && j < 23) ? G : W;
    cr_assert_eq(sw_traceback_align(w, qq, 40, ss, 43, &sc, &a, &err), SW_OK);
    cr_assert_eq(a.score, 40 * 11 - 11 - 3);
    cr_assert_eq(a.gap_opens, 1);
    cr_assert_eq(a.gaps, 3);
    cr_assert_eq(a.identities, 40);
    cr_assert_eq(a.length, 43);
    sw_alignment_clear(&a);
    sw_traceback_workspace_free(w);
    sw_matrix_free(m62);
}

Test(traceback, aligns_long_pairs_in_bounded_memory)
{
    sw_matrix *m62 = load_matrix("BLOSUM62");
    sw_scoring sc = scoring_of(m62, 11, 1);
    sw_traceback_workspace *w;
    cr_assert_eq(sw_traceback_workspace_create(&w), SW_OK);
    test_rng r = test_rng_seed(35);
    size_t n = 12000;
    uint8_t *a = malloc(n), *b = malloc(n + n / 4);
    random_protein(&r, a, n);
    size_t k = mutate(&r, a, n, b, n + n / 4, 20);
    sw_alignment al;
    sw_error err;
    cr_assert_eq(sw_traceback_align(w, a, n, b, k, &sc, &al, &err), SW_OK, "%s", err.message);
    int rescored;
    cr_assert_eq(sw_alignment_rescore(&al, a, n, b, k, &sc, &rescored), SW_OK);
    cr_assert_eq(rescored, al.score);
    cr_assert_gt(al.length, n / 2);
    /* The full matrix would take 144 M direction bytes alone. */
    cr_assert_lt(sw_traceback_workspace_bytes(w), (size_t)40 << 20, "%zu bytes",
                 sw_traceback_workspace_bytes(w));
    /* The SIMD traceback, in blocks of columns, gives the same alignment in
     * about as little memory. */
    sw_traceback_workspace *ws;
    cr_assert_eq(sw_traceback_workspace_create(&ws), SW_OK);
    sw_simd_profile *prof;
    cr_assert_eq(sw_simd_profile_create(a, n, &sc, &prof), SW_OK);
    sw_alignment simd;
    cr_assert_eq(sw_traceback_align_simd(ws, prof, a, n, b, k, &sc, al.score, 1, al.subject_end, 0, &simd, &err),
                 SW_OK, "%s", err.message);
    cr_assert_eq(simd.query_start, al.query_start);
    cr_assert_eq(simd.subject_start, al.subject_start);
    cr_assert_eq(simd.query_end, al.query_end);
    cr_assert_eq(simd.num_runs, al.num_runs);
    cr_assert_arr_eq(simd.runs, al.runs, al.num_runs * sizeof *al.runs);
    cr_assert_lt(sw_traceback_workspace_bytes(ws), (size_t)40 << 20, "%zu bytes",
                 sw_traceback_workspace_bytes(ws));
    sw_alignment_clear(&simd);
    sw_simd_profile_free(prof);
    sw_traceback_workspace_free(ws);
    sw_alignment_clear(&al);
    free(a);
    free(b);
    sw_traceback_workspace_free(w);
    sw_matrix_free(m62);
}

Test(traceback, rescoring_rejects_runs_that_do_not_fit)
{
    sw_matrix *m62 = load_matrix("BLOSUM62");
    sw_scoring sc = scoring_of(m62, 11, 1);
    uint8_t q[4] = {0, 1, 2, 3};
    uint32_t runs[] = {SW_OP_RUN(SW_OP_M, 2), SW_OP_RUN(SW_OP_I, 1), SW_OP_RUN(SW_OP_I, 1),
                       SW_OP_RUN(SW_OP_M, 1)};
    sw_alignment a = {.score = 1, .query_start = 1, .query_end = 4, .subject_start = 1, .subject_end = 3,
                      .num_runs = 4, .runs = runs};
    int s;
    /* Two adjacent runs of I. */
    cr_assert_eq(sw_alignment_rescore(&a, q, 4, q, 4, &sc, &s), SW_EINVAL);
    /* Runs longer than the coordinates. */
    uint32_t runs2[] = {SW_OP_RUN(SW_OP_M, 5)};
    a.num_runs = 1;
    a.runs = runs2;
    cr_assert_eq(sw_alignment_rescore(&a, q, 4, q, 4, &sc, &s), SW_EINVAL);
    /* A gap at an end. */
    uint32_t runs3[] = {SW_OP_RUN(SW_OP_D, 1), SW_OP_RUN(SW_OP_M, 3)};
    a.num_runs = 2;
    a.runs = runs3;
    a.query_end = 3;
    a.subject_end = 4;
    cr_assert_eq(sw_alignment_rescore(&a, q, 4, q, 4, &sc, &s), SW_EINVAL);
    sw_matrix_free(m62);
}
