/* Writes search results as a TSV table, one line per hit, and runs a search
 * query batch by batch so that memory is bounded by a batch. */
#ifndef SW_REPORT_H
#define SW_REPORT_H

#include <stdio.h>

#include "sw_db.h"
#include "sw_queries.h"
#include "sw_search.h"

/* The default bounds of a batch. Per query residue the CPU engine holds
 * about 230 bytes (striped profiles of 8-, 16- and 32-bit lanes: 32 codes x
 * 7 bytes, and the residue), so a batch costs at most about 500 MB. */
#define SW_REPORT_BATCH_RESIDUES ((uint64_t)1 << 21)
/* On the GPU a query residue costs the host a few bytes, and each batch
 * loads the database again: once the first batch has run there, batches
 * grow to this bound. */
#define SW_REPORT_BATCH_RESIDUES_GPU ((uint64_t)1 << 23)
#define SW_REPORT_BATCH_QUERIES ((size_t)1 << 14)
/* Hit lists are allocated whole (top_n entries per query and thread), so a
 * batch also holds at most this many top_n entries per thread. */
#define SW_REPORT_BATCH_HITS ((size_t)1 << 22)

typedef struct sw_report_batching {
    uint64_t max_residues; /* query residues per batch; 0: the default */
    size_t max_queries;    /* queries per batch; 0: the default */
} sw_report_batching;

/* What a batched search did. `stats` has the engine and GPU threshold of the
 * first batch and the times, cells and recomputed scores of all batches. */
typedef struct sw_report_summary {
    size_t queries, batches;
    uint64_t query_residues;
    sw_search_stats stats;
} sw_report_summary;

/* The header line: query_id, query_length, rank, score, subject_id,
 * subject_length, subject_description. */
void sw_report_write_tsv_header(FILE *out);

/* One line per hit, queries in order, each query's hits best first. */
int sw_report_write_tsv(FILE *out, const sw_db *db, const sw_query_set *queries,
                        const sw_search_results *results, sw_error *err);

/* Reads `queries` to its end a batch at a time; searches each batch and
 * writes its hits, the header line before the first batch's. The output is
 * the same for any batching. After the first batch the device and the GPU
 * threshold that it used are kept, so a fallback note or a calibration
 * comes once. `batching` and `summary` may be NULL. On an error in a later
 * batch, the lines of earlier batches have been written. */
int sw_report_search_tsv(FILE *out, const sw_db *db, sw_query_reader *queries,
                         const sw_scoring *scoring, const sw_search_options *options,
                         const sw_report_batching *batching, sw_report_summary *summary,
                         sw_error *err);

#endif
