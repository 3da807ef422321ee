/* Forbidden cells and best-K alignments on the CPU, against a separate
 * implementation over the whole matrix: the passes honor forbidden boxes
 * exactly as the definition says (sw_pair_pass.h), and every alignment of
 * sw_pair_align_best() is the best of the matrix with the boxes of the ones
 * before it forbidden, its box scoring exactly its score end to end. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pair_random.h"
#include "sw_pair.h"
#include "sw_pair_cpu.h"

static const sw_pair_scoring paper = {1, -3, 3, 2}, cheap_gaps = {3, -2, 0, 1};
#define NEG (-(1 << 28))

/* Copies `len` bases of src into dst with about one substitution in `rate`. */
static void plant(uint8_t *dst, const uint8_t *src, uint64_t len, unsigned rate, test_rng *rng)
{
    for (uint64_t i = 0; i < len; ++i)
        dst[i] = test_rng_next(rng) % rate == 0 ? (uint8_t)(test_rng_next(rng) & 3) : src[i];
}

static int forbidden(const sw_pair_box *boxes, int count, uint64_t i, uint64_t j)
{
    for (int k = 0; k < count; ++k)
        if (i >= boxes[k].a_lo && i <= boxes[k].a_hi && j >= boxes[k].b_lo && j <= boxes[k].b_hi) return 1;
    return 0;
}

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* The whole local matrix at once: the best score and its first cell in
 * column-major order. */
static void full_local(const uint8_t *a, uint64_t m, const uint8_t *b, uint64_t n, const sw_pair_scoring *s,
                       const sw_pair_box *boxes, int count, int64_t *score, uint64_t *i_end, uint64_t *j_end)
{
    const size_t w = n + 1;
    int64_t *H = calloc((m + 1) * w, sizeof *H), *E = malloc((m + 1) * w * sizeof *E),
            *F = malloc((m + 1) * w * sizeof *F);
    cr_assert(H && E && F);
    for (size_t k = 0; k < (m + 1) * w; ++k) E[k] = F[k] = NEG;
    const int64_t oe = s->gap_open + s->gap_extend;
    for (uint64_t i = 1; i <= m; ++i)
        for (uint64_t j = 1; j <= n; ++j) {
            const size_t c = i * w + j;
            if (forbidden(boxes, count, i, j)) continue; /* H 0, E and F minus infinity */
            E[c] = max64(E[c - 1] - s->gap_extend, H[c - 1] - oe);
            F[c] = max64(F[c - w] - s->gap_extend, H[c - w] - oe);
            const int64_t d = H[c - w - 1] + (a[i - 1] == b[j - 1] && a[i - 1] < 4 ? s->match : s->mismatch);
            H[c] = max64(max64(d, 0), max64(E[c], F[c]));
        }
    *score = 0;
    *i_end = *j_end = 0;
    for (uint64_t j = 1; j <= n; ++j)
        for (uint64_t i = 1; i <= m; ++i)
            if (H[i * w + j] > *score) {
                *score = H[i * w + j];
                *i_end = i;
                *j_end = j;
            }
    free(H);
    free(E);
    free(F);
}

/* The best alignment of a[box] against b[box] from corner to corner that
 * uses no forbidden cell. */
static int64_t full_global(const uint8_t *a, const uint8_t *b, const sw_pair_box *box, const sw_pair_scoring *s,
                           const sw_pair_box *boxes, int count)
{
    const uint64_t m = box->a_hi - box->a_lo + 1, n = box->b_hi - box->b_lo + 1;
    const size_t w = n + 1;
    int64_t *H = malloc((m + 1) * w * sizeof *H), *E = malloc((m + 1) * w * sizeof *E),
            *F = malloc((m + 1) * w * sizeof *F);
    cr_assert(H && E && F);
    const int64_t oe = s->gap_open + s->gap_extend;
    for (size_t k = 0; k < (m + 1) * w; ++k) H[k] = E[k] = F[k] = NEG;
    H[0] = 0;
    for (uint64_t j = 1; j <= n; ++j) H[j] = E[j] = -(s->gap_open + (int64_t)j * s->gap_extend);
    for (uint64_t i = 1; i <= m; ++i) H[i * w] = F[i * w] = -(s->gap_open + (int64_t)i * s->gap_extend);
    for (uint64_t i = 1; i <= m; ++i)
        for (uint64_t j = 1; j <= n; ++j) {
            const size_t c = i * w + j;
            const uint64_t ai = box->a_lo + i - 1, bj = box->b_lo + j - 1;
            if (forbidden(boxes, count, ai, bj)) continue;
            E[c] = max64(E[c - 1] - s->gap_extend, H[c - 1] - oe);
            F[c] = max64(F[c - w] - s->gap_extend, H[c - w] - oe);
            const int64_t d = H[c - w - 1] + (a[ai - 1] == b[bj - 1] && a[ai - 1] < 4 ? s->match : s->mismatch);
            H[c] = max64(d, max64(E[c], F[c]));
        }
    const int64_t v = H[m * w + n];
    free(H);
    free(E);
    free(F);
    return v;
}

static sw_pair_hit run_pass(const uint8_t *a, uint64_t m, const uint8_t *b, uint64_t n, const sw_pair_scoring *s,
                            sw_pair_mode mode, int32_t target, const sw_pair_box *boxes, int count, int threads)
{
    sw_pair_pass p = {a, m, b, n, *s, mode, target, NULL, NULL, NULL, boxes, count, 0, NULL, NULL, 0, 0};
    sw_pair_hit hit;
    sw_error err = {0};
    const int rc = threads ? sw_pair_cpu_run(&p, threads, &hit, &err) : sw_pair_cpu_reference(&p, &hit, &err);
    cr_assert_eq(rc, SW_OK, "%s", err.message);
    return hit;
}

Test(pair_forbidden, passes_equal_the_whole_matrix)
{
    test_rng rng = test_rng_seed(11);
    const uint64_t shapes[][2] = {{300, 250}, {257, 513}, {1000, 90}, {64, 700}};
    for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; ++t) {
        const uint64_t m = shapes[t][0], n = shapes[t][1];
        uint8_t *a = random_dna(m, &rng, 0), *b = random_dna(n, &rng, 0);
        /* a related stretch, so that boxes cut through a strong alignment */
        const uint64_t len = (m < n ? m : n) / 2;
        plant(b + n / 4, a + m / 3, len < n - n / 4 ? len : n - n / 4, 12, &rng);
        for (int round = 0; round < 6; ++round) {
            sw_pair_box boxes[3];
            const int count = 1 + round % 3;
            for (int k = 0; k < count; ++k) {
                const uint64_t i0 = 1 + test_rng_next(&rng) % m, j0 = 1 + test_rng_next(&rng) % n;
                const uint64_t i1 = i0 + test_rng_next(&rng) % (m / 3 + 1), j1 = j0 + test_rng_next(&rng) % (n / 3 + 1);
                boxes[k] = (sw_pair_box){i0, i1 < m ? i1 : m, j0, j1 < n ? j1 : n};
            }
            int64_t score;
            uint64_t ie, je;
            full_local(a, m, b, n, &paper, boxes, count, &score, &ie, &je);
            for (int threads = 0; threads <= 3; threads += 3) {
                const sw_pair_hit h = run_pass(a, m, b, n, &paper, SW_PAIR_LOCAL, 0, boxes, count, threads);
                cr_expect_eq(h.score, score, "%llux%llu round %d threads %d: score %d, want %lld", (unsigned long long)m,
                             (unsigned long long)n, round, threads, h.score, (long long)score);
                cr_expect(h.a_end == ie && h.b_end == je, "%llux%llu round %d threads %d: end %llu/%llu, want %llu/%llu",
                          (unsigned long long)m, (unsigned long long)n, round, threads, (unsigned long long)h.a_end,
                          (unsigned long long)h.b_end, (unsigned long long)ie, (unsigned long long)je);
            }
            if (score > 0) {
                /* anchored: the one-thread engine against the reference */
                const sw_pair_hit r = run_pass(a, m, b, n, &paper, SW_PAIR_ANCHORED, (int32_t)score / 2, boxes, count, 0);
                const sw_pair_hit t3 =
                    run_pass(a, m, b, n, &paper, SW_PAIR_ANCHORED, (int32_t)score / 2, boxes, count, 3);
                cr_expect(r.score == t3.score && r.a_end == t3.a_end && r.b_end == t3.b_end,
                          "anchored %llux%llu round %d: threads %d at %llu/%llu, reference %d at %llu/%llu",
                          (unsigned long long)m, (unsigned long long)n, round, t3.score,
                          (unsigned long long)t3.a_end, (unsigned long long)t3.b_end, r.score,
                          (unsigned long long)r.a_end, (unsigned long long)r.b_end);
            }
        }
        free(a);
        free(b);
    }
}

/* Each alignment of best-K: the best of the matrix with the boxes before
 * it forbidden, and its own box scores its score corner to corner. */
static void check_best(const uint8_t *a, uint64_t m, const uint8_t *b, uint64_t n, const sw_pair_scoring *s, int k,
                       int threads, int expect_found)
{
    sw_pair_result *r = calloc((size_t)k, sizeof *r);
    sw_pair_box *boxes = calloc((size_t)k, sizeof *boxes);
    cr_assert(r && boxes);
    sw_pair_options opt = {.engine = SW_PAIR_ENGINE_CPU, .threads = threads};
    int found = -1;
    sw_error err = {0};
    cr_assert_eq(sw_pair_align_best(a, m, b, n, s, &opt, k, r, &found, &err), SW_OK, "%s", err.message);
    if (expect_found >= 0) cr_expect_eq(found, expect_found, "found %d alignments, want %d", found, expect_found);
    for (int x = 0; x <= found && x < k; ++x) {
        int64_t score;
        uint64_t ie, je;
        full_local(a, m, b, n, s, boxes, x, &score, &ie, &je);
        if (x == found) {
            cr_expect_eq(score, 0, "best-K stopped after %d alignments, but %lld still scores", found, (long long)score);
            break;
        }
        cr_expect_eq(r[x].score, score, "alignment %d: score %d, want %lld", x + 1, r[x].score, (long long)score);
        cr_expect(r[x].a_end == ie && r[x].b_end == je, "alignment %d: end %llu/%llu, want %llu/%llu", x + 1,
                  (unsigned long long)r[x].a_end, (unsigned long long)r[x].b_end, (unsigned long long)ie,
                  (unsigned long long)je);
        boxes[x] = (sw_pair_box){r[x].a_start, r[x].a_end, r[x].b_start, r[x].b_end};
        cr_expect_eq(full_global(a, b, &boxes[x], s, boxes, x), r[x].score, "alignment %d: its box scores %lld, not %d",
                     x + 1, (long long)full_global(a, b, &boxes[x], s, boxes, x), r[x].score);
        if (x > 0) cr_expect_leq(r[x].score, r[x - 1].score, "alignment %d scores above the one before", x + 1);
    }
    free(r);
    free(boxes);
}

Test(pair_best, each_is_the_best_outside_the_boxes_before_it)
{
    test_rng rng = test_rng_seed(5);
    for (int t = 0; t < 4; ++t) {
        const uint64_t m = 400 + 150 * (uint64_t)t, n = 300 + 70 * (uint64_t)t;
        uint8_t *a = random_dna(m, &rng, 0), *b = random_dna(n, &rng, 0);
        plant(a + 20, b + 10, 120, 10, &rng);
        plant(a + m / 2, b + n / 3, 100, 6, &rng);
        plant(a + m - 150, b + 10, 90, 20, &rng); /* the same part of b again */
        check_best(a, m, b, n, t & 1 ? &cheap_gaps : &paper, 6, t % 3, -1);
        free(a);
        free(b);
    }
}

Test(pair_best, finds_planted_copies_not_pieces_of_one)
{
    test_rng rng = test_rng_seed(17);
    const uint64_t m = 30000, q = 1500;
    uint8_t *subject = random_dna(m, &rng, 0), *query = random_dna(q, &rng, 0);
    const uint64_t at[3] = {4000, 14000, 26000};
    const unsigned rate[3] = {50, 12, 25}; /* scores fall in that order */
    for (int c = 0; c < 3; ++c) plant(subject + at[c], query, q, rate[c], &rng);
    sw_pair_result r[4];
    int found = 0;
    sw_pair_options opt = {.engine = SW_PAIR_ENGINE_CPU, .threads = 2};
    sw_error err = {0};
    cr_assert_eq(sw_pair_align_best(subject, m, query, q, &paper, &opt, 4, r, &found, &err), SW_OK, "%s",
                 err.message);
    cr_assert_eq(found, 4);
    const int order[3] = {0, 2, 1};
    for (int x = 0; x < 3; ++x) {
        const uint64_t lo = at[order[x]] + 1, hi = at[order[x]] + q;
        cr_expect(r[x].a_start >= lo && r[x].a_start < lo + 50 && r[x].a_end <= hi && r[x].a_end > hi - 50,
                  "alignment %d: a %llu-%llu, want about %llu-%llu", x + 1, (unsigned long long)r[x].a_start,
                  (unsigned long long)r[x].a_end, (unsigned long long)lo, (unsigned long long)hi);
        cr_expect(r[x].b_start < 50 && r[x].b_end > q - 50, "alignment %d: b %llu-%llu", x + 1,
                  (unsigned long long)r[x].b_start, (unsigned long long)r[x].b_end);
    }
    /* the fourth is background, far below the copies */
    cr_expect_lt(r[3].score, r[2].score / 10, "fourth alignment scores %d", r[3].score);
    free(subject);
    free(query);
}

Test(pair_best, stops_when_nothing_aligns)
{
    uint8_t a[200], b[300];
    memset(a, 0, sizeof a);
    memset(b, 1, sizeof b);
    check_best(a, sizeof a, b, sizeof b, &paper, 3, 1, 0);
    /* One A in b: every A of a pairs with it, each pair an alignment of
     * its own (score 1), from the first row down. */
    b[150] = 0;
    check_best(a, sizeof a, b, sizeof b, &paper, 3, 1, 3);
}

Test(pair_best, rejects_bad_arguments)
{
    uint8_t a[4] = {0, 1, 2, 3};
    sw_pair_result r[1];
    int found = 7;
    sw_error err = {0};
    sw_pair_options opt = {.engine = SW_PAIR_ENGINE_CPU};
    cr_expect_eq(sw_pair_align_best(a, 4, a, 4, &paper, &opt, 0, r, &found, &err), SW_EINVAL);
    cr_expect_eq(found, 0);
}
