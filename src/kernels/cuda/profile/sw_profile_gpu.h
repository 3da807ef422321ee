/* The GPU engine of profile-profile alignment (Hanif and Zimmermann's
 * split, docs/PROFILE.md): for a batch of profile pairs, the column scores
 * of each tile of column pairs as one integer matrix product on the tensor
 * cores, and Gotoh's global recurrences over them in a wavefront, one warp
 * a strip of 32 columns of the first profile, strips of every pair side by
 * side; then one thread a pair walks its traceback on the GPU.
 *
 * Every value is an exact integer: the scores, alignments and tie rule are
 * those of the CPU engines (sw_profile_align.h), the score of a column
 * pair being the same integer whichever way it is summed. Host code sees
 * plain C types only; src/profile/ turns profiles into these. */
#ifndef SW_PROFILE_GPU_H
#define SW_PROFILE_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "sw_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Symbols a column may hold; the last one in use is the gap. */
#define SW_PROFILE_GPU_SYMBOLS 32

typedef struct sw_profile_gpu_scoring {
    /* 0: the expected score f^T M g, maximised, a column against a gap
     * costing gap_extend x scale per residue and gap_open x scale per
     * residue where the gap opens; 1: the negated squared distance between
     * the columns, a column against a gap costing its distance to a column
     * of gaps only, and gap_open x scale^2 where the gap opens. */
    int euclid;
    int symbols;    /* symbols in a column, the gap last (<= SW_PROFILE_GPU_SYMBOLS) */
    int32_t scale;  /* what the frequencies of a column add up to, about */
    int32_t gap_open, gap_extend;
    /* The expected score's symbol scores, the gap row and column included:
     * symbol x against y at x * SW_PROFILE_GPU_SYMBOLS + y. */
    int16_t matrix[SW_PROFILE_GPU_SYMBOLS * SW_PROFILE_GPU_SYMBOLS];
} sw_profile_gpu_scoring;

/* One pair: the columns of each profile, `symbols` frequencies each. */
typedef struct sw_profile_gpu_pair {
    const uint8_t *a, *b;
    int32_t m, n; /* columns, both >= 1 */
} sw_profile_gpu_pair;

/* One step of an alignment, first column first. */
enum { SW_PROFILE_GPU_BOTH = 0, SW_PROFILE_GPU_B_ONLY = 1, SW_PROFILE_GPU_A_ONLY = 2 };

typedef struct sw_profile_gpu_result {
    int64_t score;
    uint8_t *steps; /* the caller's buffer of m + n bytes */
    size_t length;  /* steps filled */
} sw_profile_gpu_result;

typedef struct sw_profile_gpu_stats {
    double kernel_seconds; /* the recurrences and the tracebacks on the GPU */
    double seconds;        /* the whole call, transfers included */
    /* Where the call's time went, summed over its rounds: copying the
     * columns and checking their range (host), allocating the GPU's block,
     * uploads + kernels + downloads, and turning steps into results. The
     * rest is the GPU's set-up before the first round. */
    double staging_seconds, alloc_seconds, device_seconds, unpack_seconds;
    uint64_t cells;        /* sum of m x n */
    int rounds;            /* batches the pairs went to the GPU in */
} sw_profile_gpu_stats;

/* Where the sweep finds its column scores. SHARED (the engine's way):
 * each warp makes the 32 x 32 tile it is about to use on the tensor
 * cores, into shared memory. GLOBAL (the paper's global-memory variant,
 * kept to measure against): a kernel first writes every column score of
 * every pair to global memory, which the sweep then reads; 4 bytes a cell
 * more of GPU memory, so rounds hold fewer pairs. Same results. */
typedef enum { SW_PROFILE_GPU_SCORES_SHARED = 0, SW_PROFILE_GPU_SCORES_GLOBAL = 1 } sw_profile_gpu_scores;

typedef struct sw_profile_gpu_options {
    int device;
    sw_profile_gpu_scores scores;
} sw_profile_gpu_options;

/* Aligns every pair on the GPU of `opt` (NULL: GPU 0, shared). SW_ELIMIT
 * when a pair's values could leave the 32-bit range the engine computes
 * in (the CPU engines take any), SW_ENODEV without a usable GPU,
 * SW_ENOMEM when one pair's traceback does not fit the GPU's memory.
 * `stats` may be NULL. */
int sw_profile_gpu_align(const sw_profile_gpu_scoring *s, const sw_profile_gpu_pair *pairs, size_t count,
                         const sw_profile_gpu_options *opt, sw_profile_gpu_result *results,
                         sw_profile_gpu_stats *stats, sw_error *err);

#ifdef __cplusplus
}
#endif

#endif
