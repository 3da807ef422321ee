/* The alignment behind a Smith-Waterman score: where it starts and ends in
 * both sequences and its columns, found exactly in memory linear in the
 * sequence lengths (checkpointed rows, then a traceback block by block).
 * Gap convention as everywhere: a gap of k residues costs open + k * extend. */
#ifndef SW_TRACEBACK_H
#define SW_TRACEBACK_H

#include <stddef.h>
#include <stdint.h>

#include "sw_error.h"
#include "sw_matrix.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Column runs, in the CIGAR convention of SAM and PAF with the query as
 * SAM's read and the subject as the reference: M pairs a query residue with
 * a subject residue (identical or not), I is a query residue against a gap,
 * D a subject residue against a gap. A run is (length << 2) | op. */
enum { SW_OP_M = 0, SW_OP_I = 1, SW_OP_D = 2 };
#define SW_OP_RUN(op, len) (((uint32_t)(len) << 2) | (uint32_t)(op))
#define SW_OP_KIND(run) ((run) & 3u)
#define SW_OP_LEN(run) ((run) >> 2)

typedef struct sw_alignment {
    int score;
    /* 1-based and inclusive, as BLAST prints them; all 0 when score is 0
     * (nothing aligns positively). */
    size_t query_start, query_end;
    size_t subject_start, subject_end;
    /* BLAST's counts: length = columns (M + I + D); identities and
     * positives (pairs scoring > 0) over M columns; mismatches = M columns
     * that are not identical; gap_opens = gap runs; gaps = gap columns. */
    size_t length, identities, positives, mismatches, gap_opens, gaps;
    size_t num_runs;
    uint32_t *runs; /* num_runs entries, query start to end; malloc'ed */
} sw_alignment;

typedef struct sw_traceback_workspace sw_traceback_workspace;

/* Scratch memory reused across alignments by one thread. */
int sw_traceback_workspace_create(sw_traceback_workspace **out);
void sw_traceback_workspace_free(sw_traceback_workspace *w);

/* The best local alignment of query x subject (codes). Ties follow one
 * documented rule (see sw_traceback.c and docs/STATISTICS.md). `result` is
 * overwritten; free its runs with sw_alignment_clear(). */
int sw_traceback_align(sw_traceback_workspace *w, const uint8_t *query, size_t query_len,
                       const uint8_t *subject, size_t subject_len, const sw_scoring *scoring,
                       sw_alignment *result, sw_error *err);

/* sw_traceback_align() with `block_rows` rows between checkpoints (0: the
 * module's choice): the result does not depend on it, which tests check. */
int sw_traceback_align_blocked(sw_traceback_workspace *w, const uint8_t *query, size_t query_len,
                               const uint8_t *subject, size_t subject_len, const sw_scoring *scoring,
                               size_t block_rows, sw_alignment *result, sw_error *err);

/* sw_traceback_align() when the score and the end column are known (from
 * sw_simd_align_end()): the same alignment, from a window of the subject
 * that every optimal alignment ending there fits in (about the query's
 * length plus what its best possible score exceeds `score` by), instead of
 * the whole matrix. SW_ECORRUPT when score and column do not fit the pair. */
int sw_traceback_align_window(sw_traceback_workspace *w, const uint8_t *query, size_t query_len,
                              const uint8_t *subject, size_t subject_len, const sw_scoring *scoring,
                              int score, size_t end_column, sw_alignment *result, sw_error *err);

/* The same with the window given: subject positions first_column ..
 * end_column (1-based), which must hold every best alignment ending at
 * end_column, as the leftmost start that sw_simd_align_last() finds on the
 * reversed sequences does. SW_ECORRUPT when they do not fit the pair. */
int sw_traceback_align_span(sw_traceback_workspace *w, const uint8_t *query, size_t query_len,
                            const uint8_t *subject, size_t subject_len, const sw_scoring *scoring,
                            int score, size_t first_column, size_t end_column, sw_alignment *result,
                            sw_error *err);

/* sw_traceback_align_span() from a striped SIMD pass that stores each cell's
 * H and its source (sw_simd_trace_columns()): the same alignment, several
 * times faster. `profile` is the query's (sw_simd_profile_create()); where
 * it has no such pass, or the score passes SW_SIMD_TRACE_MAX_SCORE, this is
 * sw_traceback_align_span(). `block_columns`: columns per block of cells
 * kept at once (0: the module's choice, about 32 MB); the result does not
 * depend on it, which tests check. */
struct sw_simd_profile;
int sw_traceback_align_simd(sw_traceback_workspace *w, const struct sw_simd_profile *profile,
                            const uint8_t *query, size_t query_len, const uint8_t *subject, size_t subject_len,
                            const sw_scoring *scoring, int score, size_t first_column, size_t end_column,
                            size_t block_columns, sw_alignment *result, sw_error *err);

/* The most memory the workspace has held, in bytes. */
size_t sw_traceback_workspace_bytes(const sw_traceback_workspace *w);

void sw_alignment_clear(sw_alignment *a);

/* Re-scores the columns of `a` against the sequences (without trusting its
 * counts): the sum of pair scores and gap costs, or SW_EINVAL when the runs
 * do not fit the coordinates. */
int sw_alignment_rescore(const sw_alignment *a, const uint8_t *query, size_t query_len,
                         const uint8_t *subject, size_t subject_len, const sw_scoring *scoring,
                         int *score);

#ifdef __cplusplus
}
#endif

#endif
