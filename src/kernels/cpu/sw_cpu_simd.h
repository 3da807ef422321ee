/* The fast CPU engine: striped Smith-Waterman (Farrar 2007) with run-time
 * dispatch between AVX2 and SSE2. An 8-bit pass runs first; a score that may
 * have saturated is recomputed in 16 and then 32 bits, so results always
 * equal the reference engine's. Variants (instruction set, starting width)
 * can be picked by name, for tests and benchmarks. */
#ifndef SW_CPU_SIMD_H
#define SW_CPU_SIMD_H

#include <stddef.h>
#include <stdint.h>

#include "sw_matrix.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Striped query profile: built once per query and scoring, read-only after,
 * shared by all threads. */
typedef struct sw_simd_profile sw_simd_profile;
/* Per-thread scratch; grows as needed. */
typedef struct sw_simd_workspace sw_simd_workspace;

/* One variant of the engine: an instruction set's kernels and the lane width
 * the cascade starts at. Chosen once (per search), then read by every
 * profile made with it. */
typedef struct sw_simd_variant {
    const struct sw_simd_kernels *kernels; /* NULL: the scalar reference engine */
    int first_width;                       /* 0: 8 bits, 1: 16 bits, 2: 32 bits */
} sw_simd_variant;

/* The variant for this CPU, from its features at run time: AVX2 where the CPU
 * has it, else SSE2; off x86-64, the reference engine. */
sw_simd_variant sw_simd_variant_default(void);

/* The variant named "avx2", "sse2" or "scalar" (the reference engine),
 * optionally followed by "/16" or "/32" to start the cascade at wider lanes.
 * An instruction set the CPU lacks gives SSE2; off x86-64 every name gives
 * the reference engine. SW_EINVAL for any other name. */
int sw_simd_variant_select(const char *name, sw_simd_variant *out);

/* The instruction set of a variant: "avx2", "sse2" or "scalar". */
const char *sw_simd_variant_name(const sw_simd_variant *v);

/* A profile for the default variant (sw_simd_variant_default()). */
int sw_simd_profile_create(const uint8_t *query, size_t query_len, const sw_scoring *scoring,
                           sw_simd_profile **out);
/* A profile for `variant` (of scoring->rows where a PSSM query has them,
 * as sw_simd_profile_create_rows()). */
int sw_simd_profile_create_variant(const uint8_t *query, size_t query_len, const sw_scoring *scoring,
                                   const sw_simd_variant *variant, sw_simd_profile **out);
/* A profile of position-specific scores (a PSSM): row i of `rows`
 * (query_len rows of SW_CODE_LIMIT scores) scores query position i against
 * each subject code; `scoring` gives the gap costs (its table is not read).
 * Scores equal sw_ref_align_rows()'s. */
int sw_simd_profile_create_rows(const int8_t *rows, size_t query_len, const sw_scoring *scoring,
                                const sw_simd_variant *variant, sw_simd_profile **out);
void sw_simd_profile_free(sw_simd_profile *p);

int sw_simd_workspace_create(sw_simd_workspace **out);
void sw_simd_workspace_free(sw_simd_workspace *w);

/* Exact best local score of the profile's query against `subject`;
 * negative SW_E* code on failure. */
int sw_simd_align(const sw_simd_profile *p, sw_simd_workspace *w, const uint8_t *subject,
                  size_t subject_len);

/* sw_simd_align(), and the first subject position (1-based) at which the
 * best score is reached (0 for a score of 0): the column of the end of the
 * alignment that sw_traceback reports. SW_EINVAL for the reference
 * variant, which does not track it. */
int sw_simd_align_end(const sw_simd_profile *p, sw_simd_workspace *w, const uint8_t *subject,
                      size_t subject_len, size_t *end_column);

/* sw_simd_align(), and the last subject position (1-based) at which some
 * cell reaches `target` (>= 1; 0 when none does). Run on the reversed
 * query and the reversed subject up to an alignment's end, with the best
 * score as the target, it gives the leftmost start of the best alignments
 * ending in that column. SW_EINVAL for the reference variant. */
int sw_simd_align_last(const sw_simd_profile *p, sw_simd_workspace *w, const uint8_t *subject,
                       size_t subject_len, int target, size_t *last_column);

/* What a traceback reads, from a striped pass in 16-bit lanes
 * (sw_traceback_align_simd() uses it). The query's rows are laid out as
 * the profile's: `lanes` lanes of `seg_len` rows each, row r (0-based) in
 * lane r / seg_len at position r % seg_len, so a column is seg_len x lanes
 * entries, padded past the query's end. Scores above
 * SW_SIMD_TRACE_MAX_SCORE do not fit (a cell holds H and two more bits). */
#define SW_SIMD_TRACE_MAX_SCORE 16383

/* The layout of the profile's traceback pass; SW_EINVAL when it has none
 * (the reference variant, or a variant that starts at 32 bits). */
int sw_simd_trace_shape(const sw_simd_profile *p, size_t *seg_len, size_t *lanes);

/* Runs the pass over subject[0 .. columns), continuing from h and e (each
 * seg_len x lanes entries, aligned to 64 bytes): h holds H of the column
 * before (all 0 at the matrix's left edge) and receives the last column's;
 * e holds E of the first column (0 at the left edge) and receives the E
 * that would follow. h_scratch: the same size, overwritten. cells: NULL, or
 * columns x seg_len x lanes entries (aligned to 64 bytes) receiving each
 * cell as (H << 2) | bits, bit 0 set when the diagonal gives H, bit 1 when
 * E does (neither: F). */
int sw_simd_trace_columns(const sw_simd_profile *p, const uint8_t *subject, size_t columns, int16_t *h,
                          int16_t *h_scratch, int16_t *e, uint16_t *cells);

/* The instruction set of the default variant ("avx2", "sse2", "scalar"), for --version. */
const char *sw_simd_isa(void);

#ifdef __cplusplus
}
#endif

#endif
