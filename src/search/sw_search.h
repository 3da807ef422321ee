/* Database search: every query against every database sequence, keeping the
 * N best hits per query, on the GPU or on the CPU. */
#ifndef SW_SEARCH_H
#define SW_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "sw_db.h"
#include "sw_matrix.h"
#include "sw_queries.h"
#include "sw_results.h"

/* The CPU engine. Every one is exact, so only the speed differs. */
typedef enum {
    /* The default: striped or inter-sequence per class of query length,
     * whichever was faster when both were timed at the search's start on
     * the database's own sequences (sw_cpu_choice.h). */
    SW_CPU_ENGINE_AUTO = 0,
    SW_CPU_ENGINE_REFERENCE = 1, /* the scalar reference: slow, for checking */
    SW_CPU_ENGINE_STRIPED = 2,   /* striped SIMD (sw_cpu_simd.h) for every query */
    SW_CPU_ENGINE_INTER = 3      /* inter-sequence SIMD (sw_cpu_inter.h) for every query */
} sw_cpu_engine;

/* sw_device: include/swsearch.h. */

typedef struct sw_search_options {
    size_t top_n;          /* hits kept per query */
    int threads;           /* CPU threads; <= 0: all online CPUs */
    sw_cpu_engine cpu_engine;
    sw_device device;
    /* The GPUs of a GPU search, each with a slice of the database
     * (sw_gpu_team.h): `gpus`, num_gpus CUDA device numbers (a number may
     * repeat: several slices on one GPU), or, with gpus NULL, the first
     * num_gpus GPUs (0: every GPU of the machine). */
    const int *gpus;
    int num_gpus;
    /* Device memory each GPU gives the search, in bytes; 0: its free
     * memory less a margin. A database larger than that stays on the GPUs
     * as far as it fits and is streamed in parts beyond, each part
     * searched by every query of a batch (sw_gpu_parts.h). */
    uint64_t gpu_memory;
    /* Database sequences longer than this go to the GPU's intra-task
     * kernel; 0: the calibrated threshold (sw_calibrate.h); UINT32_MAX:
     * never. */
    uint32_t gpu_threshold;
    /* Nonzero: gpu_threshold is the engine's own choice in an earlier batch
     * of the same run, kept so that it need not be looked up again, not a
     * threshold the user asked for (which also cuts the query-across-threads
     * kernels there and keeps the longest sequences in the intra-task
     * kernel). */
    int gpu_threshold_kept;
    /* Called from the calling thread every few tenths of a second; may be NULL. */
    void (*progress)(void *user, uint64_t cells_done, uint64_t cells_total);
    void *progress_user;
    /* Receives notes such as "no usable GPU; searching on the CPU"; may be NULL. */
    void (*note)(void *user, const char *message);
    void *note_user;
    /* Nonzero: the results keep every database sequence's score for every
     * query (sw_results_all_scores), for statistics fitted to the search's
     * own score distribution. Costs 4 bytes per query and sequence. */
    int keep_all_scores;
    /* Told of each query as soon as its hits are final, while the search
     * goes on with later queries: the GPU engine's queries finish one after
     * another, the CPU engine's all at the end (it calls nothing). hits:
     * as sw_results_hits() will hold them; scores: every database
     * sequence's (with keep_all_scores), else NULL; both valid during the
     * call only. Called from the search's thread, which waits for it, so it
     * must be quick. May be NULL. */
    void (*query_done)(void *user, size_t query, const sw_hit *hits, size_t count, const int32_t *scores);
    void *query_done_user;
    /* Not NULL: the GPU engine, which decodes the whole database for the
     * GPU, hands that copy over instead of freeing it: every sequence's
     * residues (codes) back to back in database order, malloc'ed, set
     * before the first query_done call; the caller frees it. Left alone
     * by the CPU engine. */
    uint8_t **residues_out;
    /* Not NULL: the database decoded, and on the GPU, from earlier searches
     * (sw_resident.h); the GPU engine takes it from there and keeps it. */
    struct sw_resident *resident;
    /* Not NULL: on rank 0 of an MPI job, the search spread over every rank
     * (sw_search_ranks.h), each searching its share of the database; the
     * results are the same. */
    struct sw_search_ranks *ranks;
    /* Not NULL: asked between pieces of work (a block of sequences on the
     * CPU, a query or a streamed part on a GPU) from any of the search's
     * threads; nonzero stops the search with SW_ECANCELED. */
    int (*cancelled)(void *user);
    void *cancelled_user;
} sw_search_options;

/* Runs the search on the device that `options` asks for (sw_search.c): the
 * reference engine, which exists only on the CPU, makes SW_DEVICE_AUTO the
 * CPU; SW_DEVICE_AUTO falls back to the CPU when no GPU is usable or the GPU
 * fails, with a note. */
int sw_search_dispatch(const sw_db *db, const sw_query_set *queries, const sw_scoring *scoring,
                  const sw_search_options *options, sw_search_results **out, sw_error *err);

/* The CPU engine (sw_search_cpu.c): worker threads take blocks of database
 * sequences in turn. */
int sw_search_cpu(const sw_db *db, const sw_query_set *queries, const sw_scoring *scoring,
                  const sw_search_options *options, sw_search_results **out, sw_error *err);

/* The GPU engine (sw_search_gpu.c): the whole database is decompressed and
 * handed to the GPUs once, a slice to each; SW_ENODEV when no GPU is
 * usable. */
int sw_search_gpu(const sw_db *db, const sw_query_set *queries, const sw_scoring *scoring,
                  const sw_search_options *options, sw_search_results **out, sw_error *err);

#endif
