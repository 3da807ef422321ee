/* Random DNA for the pairwise tests (Criterion): sequences of codes 0-3
 * with an N now and then, from the tests' one generator (test_rng.h). */
#ifndef PAIR_RANDOM_H
#define PAIR_RANDOM_H

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test_rng.h"

/* Random bases, one in `n_rate` an N (0: none). */
static inline uint8_t *random_dna(uint64_t len, test_rng *rng, unsigned n_rate)
{
    uint8_t *s = malloc(len ? len : 1);
    cr_assert_not_null(s);
    for (uint64_t i = 0; i < len; ++i)
        s[i] = n_rate && test_rng_below(rng, n_rate) == 0 ? 4 : (uint8_t)(test_rng_next(rng) & 3);
    return s;
}

/* A copy of `src` with about one change in `rate` bases: substitutions,
 * short insertions and deletions. *len_out receives its length. */
static inline uint8_t *mutate_dna(const uint8_t *src, uint64_t len, unsigned rate, test_rng *rng, uint64_t *len_out)
{
    uint8_t *d = malloc(2 * len + 16);
    cr_assert_not_null(d);
    uint64_t k = 0;
    for (uint64_t i = 0; i < len; ++i) {
        const unsigned r = (unsigned)(test_rng_next(rng) % (rate ? rate : 1));
        if (rate && r == 0) d[k++] = (uint8_t)(test_rng_next(rng) & 3);
        else if (rate && r == 1) continue;
        else if (rate && r == 2) {
            const unsigned extra = 1 + (unsigned)(test_rng_next(rng) % 4);
            for (unsigned x = 0; x < extra; ++x) d[k++] = (uint8_t)(test_rng_next(rng) & 3);
            d[k++] = src[i];
        } else d[k++] = src[i];
    }
    *len_out = k;
    return d;
}

/* A random sequence *a of 300 to 799 bases and *b holding a mutated copy
 * of part of it, then a mutated copy of the whole: the best alignment, and
 * a second one that overlaps the first's rows (best-K's start passes). */
static inline void partial_copy_pair(test_rng *rng, uint8_t **a, uint64_t *na, uint8_t **b, uint64_t *nb)
{
    *na = 300 + test_rng_below(rng, 500);
    *a = random_dna(*na, rng, 0);
    uint64_t n1, n2;
    uint8_t *whole = mutate_dna(*a, *na, 12, rng, &n1);
    const uint64_t from = test_rng_below(rng, *na / 2), len = 60 + test_rng_below(rng, *na / 2);
    uint8_t *part = mutate_dna(*a + from, from + len <= *na ? len : *na - from, 10, rng, &n2);
    *b = malloc(n1 + n2 + 1);
    cr_assert_not_null(*b);
    memcpy(*b, part, n2);
    memcpy(*b + n2, whole, n1);
    *nb = n1 + n2;
    free(whole);
    free(part);
}

/* Random *a of 600-999 + gap + 600-999 bases, gap 20-99, and *b: *a
 * without its middle `gap` bases (`insert` 0: one long run of bases of a
 * against gaps) or with `gap` random bases inserted after the first part
 * (one long run of bases of b against gaps). Gaps short enough that
 * crossing them beats either side alone; *gap_out gets the gap. */
static inline void long_gap_pair(test_rng *rng, int insert, uint8_t **a, uint64_t *na, uint8_t **b, uint64_t *nb,
                                 uint64_t *gap_out)
{
    const uint64_t left = 600 + test_rng_below(rng, 400), gap = 20 + test_rng_below(rng, 80),
                   right = 600 + test_rng_below(rng, 400);
    *na = left + gap + right;
    *a = random_dna(*na, rng, 0);
    *b = malloc(left + 2 * gap + right);
    cr_assert_not_null(*b);
    memcpy(*b, *a, left);
    if (!insert) {
        memcpy(*b + left, *a + left + gap, right);
        *nb = left + right;
    } else {
        for (uint64_t k = 0; k < gap; ++k) (*b)[left + k] = (uint8_t)(test_rng_next(rng) & 3);
        memcpy(*b + left + gap, *a + left, gap + right);
        *nb = left + 2 * gap + right;
    }
    *gap_out = gap;
}

/* *a: 800 random bases x, 3,000 N, x again; *y: a mutated copy of x
 * (about one change in 20 bases). */
static inline void n_run_pair(test_rng *rng, uint8_t **a, uint64_t *na, uint8_t **y, uint64_t *ny)
{
    uint8_t *x = random_dna(800, rng, 0);
    *y = mutate_dna(x, 800, 20, rng, ny);
    *na = 800 + 3000 + 800;
    *a = malloc(*na);
    cr_assert_not_null(*a);
    memcpy(*a, x, 800);
    memset(*a + 800, 4, 3000);
    memcpy(*a + 3800, x, 800);
    free(x);
}

#endif
