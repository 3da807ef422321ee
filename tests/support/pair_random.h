/* Random DNA for the pairwise tests (Criterion): a small reproducible
 * generator, and sequences of codes 0-3 with an N now and then. */
#ifndef PAIR_RANDOM_H
#define PAIR_RANDOM_H

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>

static inline uint64_t next_random(uint64_t *state)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return *state >> 33;
}

/* Random bases, one in `n_rate` an N (0: none). */
static inline uint8_t *random_dna(uint64_t len, uint64_t *rng, unsigned n_rate)
{
    uint8_t *s = malloc(len ? len : 1);
    cr_assert_not_null(s);
    for (uint64_t i = 0; i < len; ++i)
        s[i] = n_rate && next_random(rng) % n_rate == 0 ? 4 : (uint8_t)(next_random(rng) & 3);
    return s;
}

#endif
