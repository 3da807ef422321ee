/* The GPU engine of megabase pairwise alignment (CUDAlign's wavefront, in
 * the persistent form described in docs/ARCHITECTURE.md): one pass of
 * sw_pair_pass.h on one CUDA device, with the same scores, end cells and
 * order of ties as the CPU engines. */
#ifndef SW_PAIR_GPU_H
#define SW_PAIR_GPU_H

#include "sw_pair_pass.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    /* One launch: resident warps take row bands in turn and hand each
     * band's last row to the next band's warp through a ring with flags. */
    SW_PAIR_GPU_PERSISTENT = 0,
    /* CUDAlign 2010: two launches (short and long phase) per external
     * diagonal of tiles, borders through global buses; local passes only,
     * kept to measure the persistent layout against. */
    SW_PAIR_GPU_DIAGONAL = 1
} sw_pair_gpu_layout;

typedef struct sw_pair_gpu_options {
    int device;
    /* Skip chunks of a band that cannot reach the best score found so far
     * (local pass) or the target (anchored pass); exact either way. */
    int prune;
    sw_pair_gpu_layout layout;
    /* Resident warps (persistent) or tiles per diagonal (diagonal);
     * 0: what fills the GPU. For experiments. */
    int warps;
} sw_pair_gpu_options;

typedef struct sw_pair_gpu_stats {
    int warps;           /* warps (persistent) or tiles per diagonal */
    int64_t launches;    /* kernel launches */
    uint64_t pruned;     /* cells skipped by pruning */
    double kernel_seconds;
    int transposed;      /* 1: ran with the second sequence as the rows */
} sw_pair_gpu_stats;

/* 1 when this build has the GPU engine and `device` can run it, else 0
 * with the reason in err. */
int sw_pair_gpu_usable(int device, sw_error *err);

/* Runs one pass; `out->cells` counts the cells computed (pruned ones not).
 * `stats` may be NULL. */
int sw_pair_gpu_run(const sw_pair_pass *pass, const sw_pair_gpu_options *opt, sw_pair_hit *out,
                    sw_pair_gpu_stats *stats, sw_error *err);

#ifdef __cplusplus
}
#endif

#endif
