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

/* Column strips (CUDAlign 4.0's multi-GPU pipeline): one pass cut by
 * its columns into strips, strip k on its own GPU (or several sharing
 * one), all running at once. Each strip sweeps every row of its columns
 * band by band; as a band finishes, its cells of the strip's last column
 * go to the strip on the right, which starts that band as soon as they are
 * there, so after a fill of one band's sweep a strip every GPU works. In a
 * local pass the best score found so far travels with the cells, so
 * pruning in a strip counts what the strips on its left found; in an
 * anchored pass the first cell reaching the target is the first of the
 * leftmost strip that finds one. The result equals one GPU's: score, end
 * cell and order of ties. */
#define SW_PAIR_GPU_MAX_STRIPS 64

typedef struct sw_pair_gpu_strips {
    int count;              /* strips, 1 .. SW_PAIR_GPU_MAX_STRIPS */
    const int *devices;     /* strip k's CUDA device; strips may share one */
    /* Bases of each strip, in order, each > 0, summing to the length of
     * the sequence the strips cut: in a local pass the shorter one (b
     * where the two are equal), so that the longer one is every strip's
     * rows and the fill (one band's sweep a strip) a small part of the
     * work; in an anchored pass b. */
    const uint64_t *widths;
    int prune;
} sw_pair_gpu_strips;

typedef struct sw_pair_gpu_strip_stats {
    int warps;
    uint64_t cells, pruned;
    double seconds; /* from the first strip's launch to this strip's end, as the host saw it */
} sw_pair_gpu_strip_stats;

/* Runs a pass with no boundary rows and no forbidden cells in strips: a
 * local pass cut by its shorter sequence, an anchored one (a start pass)
 * by b. A pass that is itself a strip of a larger matrix (sw_pair_pass.left
 * ...; its columns from sw_pair_gpu_column_alloc) is cut by b, the first
 * strip taking `left`, the last filling `right`. `stats` (count entries)
 * may be NULL. */
int sw_pair_gpu_strips_run(const sw_pair_pass *pass, const sw_pair_gpu_strips *strips, sw_pair_hit *out,
                           sw_pair_gpu_strip_stats *stats, sw_error *err);

/* A column handed between processes (sw_pair_pass.left, .right) in host
 * memory mapped into every GPU, as the strips' kernels need it; its head
 * zeroed. */
int sw_pair_gpu_column_alloc(uint64_t rows, sw_pair_column **out, sw_error *err);
void sw_pair_gpu_column_free(sw_pair_column *c);

/* For sizing strips (sw_pair_strip_widths): the rows that one of `share`
 * strips sharing `device` holds in its warps at once (the strip on its
 * right starts about as late as this strip takes to sweep that many rows
 * of its columns), and the device's speed as multiprocessors x clock
 * (kHz). */
int sw_pair_gpu_strip_capacity(int device, int share, uint64_t *rows_in_flight, double *speed, sw_error *err);

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
