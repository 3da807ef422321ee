/* The scalar reference engine: Gotoh's affine-gap Smith-Waterman in 32-bit
 * integers, kept short and obviously right. Every faster engine is tested
 * against it. */
#ifndef SW_ALIGN_REF_H
#define SW_ALIGN_REF_H

#include <stddef.h>
#include <stdint.h>

#include "sw_matrix.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sw_ref_result {
    int score;           /* best local score, 0 if nothing aligns positively */
    size_t query_end;    /* 1-based end cell of the first best cell found */
    size_t subject_end;  /* (row-major order: smallest query_end, then subject_end) */
} sw_ref_result;

/* Best local alignment score of query x subject (codes). Needs
 * O(subject_len) memory; returns SW_ENOMEM if that fails. With
 * scoring->rows, the query's position-specific rows score it, as
 * sw_ref_align_rows() does. */
int sw_ref_align(const uint8_t *query, size_t query_len, const uint8_t *subject,
                 size_t subject_len, const sw_scoring *scoring, sw_ref_result *result);

/* The same with position-specific scores (a PSSM): row i of `rows`
 * (query_len rows of SW_CODE_LIMIT scores) scores query position i against
 * each subject code; `scoring` gives the gap costs only (its table is not
 * read). */
int sw_ref_align_rows(const int8_t *rows, size_t query_len, const uint8_t *subject, size_t subject_len,
                      const sw_scoring *scoring, sw_ref_result *result);

#ifdef __cplusplus
}
#endif

#endif
