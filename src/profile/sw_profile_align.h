/* Global alignment of two profiles (the plain CPU reference engine, and
 * the multi-threaded one that computes the same cells in tiles):
 * Gotoh's recurrences over column pairs scored by sw_profile_scoring, with
 * position-specific gap costs, and a traceback of one byte a cell. */
#ifndef SW_PROFILE_ALIGN_H
#define SW_PROFILE_ALIGN_H

#include <stddef.h>
#include <stdint.h>

#include "sw_error.h"
#include "sw_profile.h"
#include "sw_profile_gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The reference keeps a byte per cell: it refuses more cells than this. */
#define SW_PROFILE_MAX_CELLS ((uint64_t)1 << 32)

/* One column of the merged alignment: a column of each profile, or one of
 * them against a gap (-1). */
typedef struct sw_profile_pair {
    int64_t a, b; /* 0-based columns, -1: gap */
} sw_profile_pair;

typedef struct sw_profile_alignment sw_profile_alignment;

/* The best global alignment of a and b. Ties: a pair of columns before a
 * column of b against a gap before a column of a against a gap; a gap
 * opened before one extended. The result is re-scored from its columns and
 * must equal the recurrences' value, else SW_ECORRUPT. */
int sw_profile_align(const sw_profile *a, const sw_profile *b, const sw_profile_scoring *s,
                     sw_profile_alignment **out, sw_error *err);
/* The same on `threads` threads (<= 0: every online CPU): tiles of cells in
 * a wavefront, each cell computed as the reference computes it, so the
 * score and the alignment are the reference's. */
int sw_profile_align_threads(const sw_profile *a, const sw_profile *b, const sw_profile_scoring *s, int threads,
                             sw_profile_alignment **out, sw_error *err);
/* The GPU engine (sw_profile_gpu.h) on the GPU of `opt` (NULL: GPU 0, its
 * default variant), many pairs at once: out[k] gets the alignment of a[k]
 * and b[k], the same score and columns as the CPU engines. SW_ELIMIT
 * where a pair's scores could leave the GPU's 32-bit range (the CPU
 * engines take any), SW_ENODEV without a usable GPU; on error no out[k]
 * is set. `stats` may be NULL. */
int sw_profile_align_gpu(const sw_profile *const *a, const sw_profile *const *b, size_t count,
                         const sw_profile_scoring *s, const sw_profile_gpu_options *opt, sw_profile_alignment **out,
                         sw_profile_gpu_stats *stats, sw_error *err);
void sw_profile_alignment_free(sw_profile_alignment *x);

int64_t sw_profile_alignment_score(const sw_profile_alignment *x);
size_t sw_profile_alignment_length(const sw_profile_alignment *x);
sw_profile_pair sw_profile_alignment_pair(const sw_profile_alignment *x, size_t k);

/* The score of a list of column pairs under s (every column of a and of b
 * in order, else SW_EINVAL). The one scorer of profile alignments. */
int sw_profile_rescore(const sw_profile *a, const sw_profile *b, const sw_profile_scoring *s,
                       const sw_profile_pair *pairs, size_t n, int64_t *score, sw_error *err);

#ifdef __cplusplus
}
#endif

#endif
