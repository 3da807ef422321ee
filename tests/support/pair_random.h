/* Random DNA for the pairwise tests (Criterion): sequences of codes 0-3
 * with an N now and then, from the tests' one generator (test_rng.h). */
#ifndef PAIR_RANDOM_H
#define PAIR_RANDOM_H

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>

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

#endif
