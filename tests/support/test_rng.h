/* The one random generator of the tests: splitmix64 (Steele, Lea and
 * Flood, 2014), small and seeded, so that a failing input can be replayed
 * from the seed a test names. Not for anything but test inputs. */
#ifndef TEST_RNG_H
#define TEST_RNG_H

#include <stdint.h>

typedef struct test_rng {
    uint64_t state;
} test_rng;

/* A generator whose stream is fixed by `seed` (any value, 0 included). */
static inline test_rng test_rng_seed(uint64_t seed)
{
    test_rng r = {seed};
    return r;
}

/* The next 64 random bits. */
static inline uint64_t test_rng_next(test_rng *r)
{
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* A number in 0..n-1 (0 when n is 0); the modulo bias is far below what
 * a test could notice for the small n tests use. */
static inline uint64_t test_rng_below(test_rng *r, uint64_t n)
{
    return n ? test_rng_next(r) % n : 0;
}

#endif
