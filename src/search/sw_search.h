/* Database search: every query against every database sequence, keeping the
 * N best hits per query. The CPU engine splits the database into blocks of
 * sequences that worker threads take in turn. */
#ifndef SW_SEARCH_H
#define SW_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "sw_db.h"
#include "sw_matrix.h"
#include "sw_queries.h"
#include "sw_topn.h"

typedef enum {
    SW_CPU_ENGINE_SIMD = 0,      /* striped SIMD, exact (the default) */
    SW_CPU_ENGINE_REFERENCE = 1  /* the scalar reference: slow, for checking */
} sw_cpu_engine;

typedef struct sw_search_options {
    size_t top_n;          /* hits kept per query */
    int threads;           /* <= 0: all online CPUs */
    sw_cpu_engine cpu_engine;
    /* Called from the calling thread every few tenths of a second; may be NULL. */
    void (*progress)(void *user, uint64_t cells_done, uint64_t cells_total);
    void *progress_user;
} sw_search_options;

typedef struct sw_search_results sw_search_results;

typedef struct sw_search_stats {
    double scan_seconds;   /* reading, decompressing and aligning */
    uint64_t cells;        /* sum over queries of query length x database residues */
    int threads;
} sw_search_stats;

int sw_search_cpu(const sw_db *db, const sw_query_set *queries, const sw_scoring *scoring,
                  const sw_search_options *options, sw_search_results **out, sw_error *err);

/* Hits of query `q`, best first; only hits with a positive score are kept. */
size_t sw_results_count(const sw_search_results *r, size_t q);
const sw_hit *sw_results_hits(const sw_search_results *r, size_t q);
void sw_results_stats(const sw_search_results *r, sw_search_stats *stats);
void sw_results_free(sw_search_results *r);

#endif
