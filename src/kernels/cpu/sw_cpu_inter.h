/* The inter-sequence CPU engine (Rognes, SWIPE 2011): one query against many
 * database sequences at once, a different subject in each 8-bit SIMD lane.
 * A lane that may have saturated is recomputed exactly by the striped
 * engine (sw_cpu_simd.h), so every score equals the reference engine's
 * (sw_align_ref.h). Variants (instruction sets) are chosen by CPU features
 * or by name, as in sw_cpu_simd.h. */
#ifndef SW_CPU_INTER_H
#define SW_CPU_INTER_H

#include <stddef.h>
#include <stdint.h>

#include "sw_error.h"
#include "sw_matrix.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a kernel gets (sw_cpu_inter_impl.h). */
typedef struct sw_inter_group sw_inter_group;
typedef void (*sw_inter_kernel)(const sw_inter_group *g);

/* ---- The engine ---- */

/* One variant: an instruction set's kernel and its lane count. */
typedef struct sw_inter_variant {
    const char *name; /* "avx512bw", "avx2", "sse41" or "scalar" (plain C, any CPU) */
    int lanes;
    sw_inter_kernel kernel;
} sw_inter_variant;

/* Per-thread scratch; grows as needed, never shrinks. */
typedef struct sw_inter_workspace sw_inter_workspace;

/* The best variant this CPU runs: "avx512bw", else "avx2", else "sse41",
 * else "scalar". */
int sw_inter_variant_best(sw_inter_variant *out);

/* The variant `name`: SW_ENOTFOUND for an unknown name, SW_ENODEV when this
 * CPU lacks its instruction set (both with a message in `err`, which may be
 * NULL). */
int sw_inter_variant_by_name(const char *name, sw_inter_variant *out, sw_error *err);

int sw_inter_workspace_create(sw_inter_workspace **out);
void sw_inter_workspace_free(sw_inter_workspace *ws);

/* Scores `query` (query_len codes) against n subjects (subjects[i],
 * lengths[i] codes; codes < SW_CODE_LIMIT): scores[i] receives the exact
 * best local score, equal to sw_ref_align's. Any order of subjects works;
 * the engine groups them by length itself. SW_EINVAL for a bad argument or
 * code, SW_ELIMIT where sw_ref_align would refuse, SW_ENOMEM. */
int sw_inter_align_many(const sw_inter_variant *v, sw_inter_workspace *ws, const uint8_t *query,
                        size_t query_len, const sw_scoring *scoring, const uint8_t *const *subjects,
                        const size_t *lengths, size_t n, int32_t *scores, sw_error *err);

/* sw_inter_align_many for num_queries queries (queries[q], query_lens[q]
 * codes) against the same n subjects: scores[q * n + i] receives query q's
 * score against subject i. The subjects are sorted and put into lanes once,
 * each group of them meets every query while it is in cache, and the
 * queries share the group's scores against their residues, so a batch
 * costs less than a call per query. num_queries = 0 or n = 0 writes
 * nothing. Errors as sw_inter_align_many's. */
int sw_inter_align_batch(const sw_inter_variant *v, sw_inter_workspace *ws,
                         const uint8_t *const *queries, const size_t *query_lens,
                         size_t num_queries, const sw_scoring *scoring,
                         const uint8_t *const *subjects, const size_t *lengths, size_t n,
                         int32_t *scores, sw_error *err);

#ifdef __cplusplus
}
#endif

#endif
