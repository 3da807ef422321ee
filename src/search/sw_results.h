/* The outcome of a search: the best hits of every query, and how the search
 * went (engine, time, cells). Filled by whichever engine ran. */
#ifndef SW_RESULTS_H
#define SW_RESULTS_H

#include <stddef.h>
#include <stdint.h>

#include "sw_topn.h"

typedef struct sw_search_results sw_search_results;

typedef struct sw_search_stats {
    char engine[160];       /* "CPU simd (avx2)", "GPU 0 (NVIDIA H100 ...)", "GPUs 0,1 (...)", ... */
    double load_seconds;    /* reading the database into the engine (GPU only) */
    /* GPU, parts of the load: finding the GPUs, slicing the database and
     * reading each GPU's calibration and free memory; starting the GPUs'
     * engines; decoding the database (beside that start); waiting for the
     * decoding after it; the upload (and the engines' preparation of the
     * database). */
    double gpu_plan_seconds, gpu_start_seconds, decode_seconds, decode_wait_seconds, upload_seconds;
    double scan_seconds;    /* aligning: CPU: reading and aligning; GPU: kernels */
    double transfer_seconds;/* GPU: host-device copies */
    uint64_t cells;         /* sum over queries of query length x database residues */
    uint64_t recomputed;    /* scores redone in wider arithmetic (GPU) */
    int threads;            /* CPU threads */
    int on_gpu;             /* 1: the GPU engine ran */
    uint32_t gpu_qp_length; /* GPU: sequences up to this length went to the query-across-threads kernels */
    uint32_t gpu_threshold; /* GPU: longer sequences went to the intra-task kernel (the first slice's) */
    int gpu_thresholds_differ; /* GPU: the slices' calibrations picked different thresholds */
    int gpu_streamed;       /* GPU: the database did not fit and was streamed in parts */
    const char *gpu_threshold_source; /* "--threshold", "calibrated now", "calibration cache" */
} sw_search_stats;

int sw_results_create(size_t num_queries, sw_search_results **out);
void sw_results_free(sw_search_results *r);

/* Stores a copy of the hits of query `q` (best first). */
int sw_results_set_hits(sw_search_results *r, size_t q, const sw_hit *hits, size_t count);
void sw_results_set_stats(sw_search_results *r, const sw_search_stats *stats);

/* Every database sequence's score for every query, when the search was
 * asked for them (sw_search_options.keep_all_scores): query q's scores are
 * scores[q * num_seqs ..], by sorted database sequence number. Takes
 * ownership of the malloc'ed `scores`. */
void sw_results_adopt_all_scores(sw_search_results *r, int32_t *scores, uint64_t num_seqs);
/* Query q's scores (sw_db_num_seqs() of them), or NULL when not kept. */
const int32_t *sw_results_all_scores(const sw_search_results *r, size_t q);

size_t sw_results_count(const sw_search_results *r, size_t q);
const sw_hit *sw_results_hits(const sw_search_results *r, size_t q);
void sw_results_stats(const sw_search_results *r, sw_search_stats *stats);

#endif
