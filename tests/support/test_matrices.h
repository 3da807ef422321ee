/* Scoring matrices for the Criterion tests: loaded by name from the
 * project's matrices/ folder (SW_MATRIX_DIR), and scoring schemes on them. */
#ifndef TEST_MATRICES_H
#define TEST_MATRICES_H

#include <criterion/criterion.h>
#include <stdio.h>

#include "sw_matrix.h"

/* The matrix `name` (e.g. "BLOSUM62"); the test fails when it cannot load. */
static inline sw_matrix *load_matrix(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", SW_MATRIX_DIR, name);
    sw_matrix *m = NULL;
    sw_error err = {0};
    int rc = sw_matrix_load(path, &m, &err);
    cr_assert_eq(rc, SW_OK, "loading %s: %s", path, err.message);
    return m;
}

/* `m` with affine gaps (open, extend); the test fails on bad penalties. */
static inline sw_scoring scoring_of(const sw_matrix *m, int gap_open, int gap_extend)
{
    sw_scoring s;
    sw_error err = {0};
    int rc = sw_scoring_init(&s, m, gap_open, gap_extend, &err);
    cr_assert_eq(rc, SW_OK, "scoring with gaps %d/%d: %s", gap_open, gap_extend, err.message);
    return s;
}

/* A DNA scheme in `table` (SW_CODE_LIMIT x SW_CODE_LIMIT): `match` for equal
 * bases among A, C, G, T (codes 0-3), `mismatch` for every other pair, N
 * and the codes past the alphabet included; with affine gaps. */
static inline sw_scoring dna_scoring(int8_t *table, int match, int mismatch, int gap_open, int gap_extend)
{
    for (int i = 0; i < SW_CODE_LIMIT; i++)
        for (int j = 0; j < SW_CODE_LIMIT; j++)
            table[i * SW_CODE_LIMIT + j] = (int8_t)(i == j && i < SW_DNA_N ? match : mismatch);
    return (sw_scoring){.table = table, .gap_open = gap_open, .gap_extend = gap_extend, .max_score = match};
}

#endif
