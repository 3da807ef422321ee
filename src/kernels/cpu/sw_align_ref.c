/* The scalar reference engine: Gotoh's affine-gap Smith-Waterman, one query
 * row at a time, in plain int32 arithmetic. Slow on purpose; clarity first. */
#include "sw_align_ref.h"

#include <stdint.h>
#include <stdlib.h>

/* Any cell's score is at most min(query_len, subject_len) * max_score (every
 * aligned pair scores at most max_score, gaps only subtract), and the lowest
 * intermediate is -(gap_open + gap_extend) >= -510. Inputs whose bound could
 * pass INT32_MAX are refused rather than silently wrapped. */
static int exceeds_int32(size_t query_len, size_t subject_len, int max_score)
{
    size_t shorter = query_len < subject_len ? query_len : subject_len;
    return max_score > 0 && shorter > (size_t)(INT32_MAX / max_score);
}

/* Query row i's scores: the matrix's row of its residue, or row i of a
 * position-specific matrix (`query` NULL). */
static const int8_t *row_of(const uint8_t *query, const int8_t *rows, const sw_scoring *scoring, size_t i)
{
    return query ? scoring->table + (size_t)query[i] * SW_CODE_LIMIT : rows + i * SW_CODE_LIMIT;
}

static int align(const uint8_t *query, const int8_t *rows, size_t query_len, const uint8_t *subject,
                 size_t subject_len, const sw_scoring *scoring, int max_score, sw_ref_result *result)
{
    result->score = 0;
    result->query_end = 0;
    result->subject_end = 0;
    for (size_t j = 0; j < subject_len; j++)
        if (subject[j] >= SW_CODE_LIMIT) return SW_EINVAL;
    if (exceeds_int32(query_len, subject_len, max_score)) return SW_ELIMIT;
    if (query_len == 0 || subject_len == 0) return SW_OK;

    /* h[j] and f[j] hold row i-1 on entry to row i and are overwritten in
     * place; index 0 is the empty-subject column. F (a gap that runs down the
     * query, from H(i-1, j)) needs the previous row; E (a gap that runs along
     * the subject, from H(i, j-1)) needs only the current row. */
    int32_t *h = malloc((subject_len + 1) * sizeof *h);
    int32_t *f = malloc((subject_len + 1) * sizeof *f);
    if (!h || !f) {
        free(h);
        free(f);
        return SW_ENOMEM;
    }
    const int32_t open_ext = scoring->gap_open + scoring->gap_extend;
    const int32_t ext = scoring->gap_extend;
    /* "Minus infinity" for E and F: low enough that no path through it can
     * win, high enough that subtracting gap penalties cannot wrap. */
    const int32_t neg_inf = INT32_MIN / 2;
    for (size_t j = 0; j <= subject_len; j++) {
        h[j] = 0;
        f[j] = neg_inf;
    }
    for (size_t i = 1; i <= query_len; i++) {
        const int8_t *row = row_of(query, rows, scoring, i - 1);
        int32_t diag = 0; /* H(i-1, j-1) */
        int32_t e = neg_inf;
        h[0] = 0;
        for (size_t j = 1; j <= subject_len; j++) {
            /* Gaps of length k cost gap_open + k * gap_extend: opening adds
             * both, each further residue adds gap_extend. */
            int32_t up = h[j]; /* H(i-1, j) */
            e = e - ext > h[j - 1] - open_ext ? e - ext : h[j - 1] - open_ext;
            f[j] = f[j] - ext > up - open_ext ? f[j] - ext : up - open_ext;
            int32_t best = diag + row[subject[j - 1]];
            if (e > best) best = e;
            if (f[j] > best) best = f[j];
            if (best < 0) best = 0;
            diag = up;
            h[j] = best;
            /* Strict '>' keeps the first best cell in row-major order. */
            if (best > result->score) {
                result->score = best;
                result->query_end = i;
                result->subject_end = j;
            }
        }
    }
    free(h);
    free(f);
    return SW_OK;
}

int sw_ref_align(const uint8_t *query, size_t query_len, const uint8_t *subject,
                 size_t subject_len, const sw_scoring *scoring, sw_ref_result *result)
{
    if (!scoring || !scoring->table || !result || (query_len && !query) || (subject_len && !subject))
        return SW_EINVAL;
    for (size_t i = 0; i < query_len; i++)
        if (query[i] >= SW_CODE_LIMIT) return SW_EINVAL;
    if (scoring->rows) return sw_ref_align_rows(scoring->rows, query_len, subject, subject_len, scoring, result);
    return align(query, NULL, query_len, subject, subject_len, scoring, scoring->max_score, result);
}

int sw_ref_align_rows(const int8_t *rows, size_t query_len, const uint8_t *subject, size_t subject_len,
                      const sw_scoring *scoring, sw_ref_result *result)
{
    if (!scoring || !result || (query_len && !rows) || (subject_len && !subject)) return SW_EINVAL;
    int max_score = 0;
    for (size_t i = 0; i < query_len * SW_CODE_LIMIT; i++) max_score = rows[i] > max_score ? rows[i] : max_score;
    return align(NULL, rows, query_len, subject, subject_len, scoring, max_score, result);
}
