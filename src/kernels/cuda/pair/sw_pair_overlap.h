/* The overlap engine of megabase pairwise alignment (Jain and Kumar's
 * modified overlap method): the rows of the longer sequence are cut into
 * chunks, one warp a chunk, each chunk starting a few rows early from a row
 * of zeros so that no warp waits for another; a chunk whose early rows
 * disagree with the last row of the chunk above is recomputed from that
 * row until none disagrees, so the result is always exact. It suits a
 * short sequence against a long one, where the CUDAlign engine's wavefront
 * has too few bands or columns to keep the GPU busy. Local passes only:
 * the start of an alignment is found by the CUDAlign engine's anchored
 * pass. Results (scores, end cells, ties) equal the other engines'. */
#ifndef SW_PAIR_OVERLAP_H
#define SW_PAIR_OVERLAP_H

#include "sw_pair_pass.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sw_pair_overlap_options {
    int device;
    /* For experiments and tests; 0 takes the defaults. */
    int overlap_bands; /* bands of 256 rows a chunk starts early (default 1) */
    int chunk_bands;   /* bands a chunk (default: what fills the GPU once) */
} sw_pair_overlap_options;

typedef struct sw_pair_overlap_stats {
    int transposed;            /* 1: the second sequence gave the rows */
    int64_t chunks;            /* chunks of the first round */
    int64_t chunk_rows;        /* rows a chunk */
    int64_t overlap_rows;      /* rows a chunk starts early */
    int rounds;                /* recomputation rounds after the first */
    int64_t inexact_first;     /* chunks the first round left inexact */
    int64_t recomputed;        /* chunks recomputed over all rounds */
    uint64_t overlap_cells;    /* cells computed in the overlaps */
    uint64_t recomputed_cells; /* cells computed again by the recomputations */
    double kernel_seconds;     /* first round and recomputations */
    double recompute_seconds;  /* recomputations alone */
} sw_pair_overlap_stats;

/* Runs one local pass; `out->cells` counts every cell computed (overlaps
 * and recomputations included). `stats` may be NULL. */
int sw_pair_overlap_run(const sw_pair_pass *pass, const sw_pair_overlap_options *opt, sw_pair_hit *out,
                        sw_pair_overlap_stats *stats, sw_error *err);

#ifdef __cplusplus
}
#endif

#endif
