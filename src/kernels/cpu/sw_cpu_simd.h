/* The fast CPU engine: striped Smith-Waterman (Farrar 2007) with runtime
 * dispatch between AVX2 and SSE2. An 8-bit pass runs first; a score that may
 * have saturated is recomputed in 16 and then 32 bits, so results always
 * equal the reference engine's. SWSEARCH_SIMD=avx2|sse2|scalar[/16|/32]
 * forces an instruction set and a starting width (for tests). */
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

int sw_simd_profile_create(const uint8_t *query, size_t query_len, const sw_scoring *scoring,
                           sw_simd_profile **out);
void sw_simd_profile_free(sw_simd_profile *p);

int sw_simd_workspace_create(sw_simd_workspace **out);
void sw_simd_workspace_free(sw_simd_workspace *w);

/* Exact best local score of the profile's query against `subject`;
 * negative SW_E* code on failure. */
int sw_simd_align(const sw_simd_profile *p, sw_simd_workspace *w, const uint8_t *subject,
                  size_t subject_len);

/* Name of the instruction set in use ("avx2", "sse2", "scalar"), for --version. */
const char *sw_simd_isa(void);

#ifdef __cplusplus
}
#endif

#endif
