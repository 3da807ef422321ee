/* Random multiple alignments for the profile tests and benchmarks, from
 * the tests' one generator (test_rng.h). Out of memory or a refused
 * alignment ends the program: these are test inputs. */
#ifndef MSA_RANDOM_H
#define MSA_RANDOM_H

#include <stdio.h>
#include <stdlib.h>

#include "sw_msa.h"
#include "test_rng.h"

/* A random alignment of `rows` rows and `cols` columns over the 20 amino
 * acids, one in `gap_rate` a gap (0: none). */
static inline sw_msa *random_msa(test_rng *r, size_t rows, size_t cols, unsigned gap_rate)
{
    uint8_t *codes = malloc(rows * cols + 1);
    const uint8_t **ptr = calloc(rows + 1, sizeof *ptr);
    char **names = calloc(rows + 1, sizeof *names);
    if (!codes || !ptr || !names) abort();
    for (size_t k = 0; k < rows; ++k) {
        for (size_t c = 0; c < cols; ++c)
            codes[k * cols + c] = gap_rate && test_rng_below(r, gap_rate) == 0 ? SW_MSA_GAP
                                                                               : (uint8_t)test_rng_below(r, 20);
        ptr[k] = codes + k * cols;
        names[k] = malloc(32);
        if (!names[k]) abort();
        snprintf(names[k], 32, "r%zu", k);
    }
    sw_msa *m = NULL;
    sw_error err = {0};
    if (sw_msa_from_rows((const char *const *)names, ptr, rows, cols, &m, &err) != SW_OK) {
        fprintf(stderr, "random_msa: %s\n", err.message);
        abort();
    }
    for (size_t k = 0; k < rows; ++k) free(names[k]);
    free(names);
    free(ptr);
    free(codes);
    return m;
}

#endif
