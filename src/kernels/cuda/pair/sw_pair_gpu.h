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

/* The halves of Myers and Miller's splits on the GPU (sw_pair_path.c):
 * the sequences stay on the device, forwards and backwards, for every
 * piece of one alignment. */
typedef struct sw_pair_gpu_rows sw_pair_gpu_rows;

/* One half pass: the global alignment values of rows 1..m (bases of A
 * from a_first on, forwards or backwards) against columns 0..n (bases of
 * B from b_first on, the same way): h[j] the best of A[1..m] against
 * B[1..j], d[j] the best of those ending with A[m] against a gap, for
 * j = 0..n (h and d hold n + 1 values). A gap down column 0 opens at
 * open_col0. With a threshold, each band of rows sweeps only the columns
 * of the piece's band (sw_pair_band_of: goal_rows rows, n columns, this
 * pass its top rows), and chunks through which no alignment of the piece
 * can reach the threshold are skipped; the cells left out are taken as
 * the floor, lower than exact but never higher. */
typedef struct sw_pair_rows_job {
    uint64_t a_first, b_first; /* 0-based, the pass's first bases */
    int backwards;             /* the pass from the bottom of a piece */
    uint64_t m, n;
    int32_t open_col0;
    uint64_t goal_rows;        /* >= m */
    int64_t threshold;         /* INT64_MIN: every cell */
} sw_pair_rows_job;

int sw_pair_gpu_rows_open(int device, const uint8_t *a, uint64_t a_len, const uint8_t *b, uint64_t b_len,
                          const sw_pair_scoring *scoring, sw_pair_gpu_rows **out, sw_error *err);
/* `count` passes (at most 64), side by side where their warps fit the
 * GPU together: pass k's rows into h[k] and d[k]. `cells`: the cells
 * computed (may be NULL). Callers on several threads share the GPU. */
int sw_pair_gpu_rows_run(sw_pair_gpu_rows *g, const sw_pair_rows_job *jobs, int count, int32_t *const *h,
                         int32_t *const *d, uint64_t *cells, sw_error *err);
void sw_pair_gpu_rows_close(sw_pair_gpu_rows *g);

#ifdef __cplusplus
}
#endif

#endif
