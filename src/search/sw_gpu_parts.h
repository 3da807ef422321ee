/* A slice of a database too large for its share of a GPU's memory: the
 * slice's first sequences, as many as fit, stay on the GPU in an engine of
 * their own; the rest are streamed for every search, in parts, through two
 * engines that take turns. While one engine's part is searched by every
 * query of the search, a reader thread reads the next part from the
 * database file (the index says which chunks hold it) into the other
 * engine's pinned buffer, and its upload runs beside the scan: the
 * database crosses the bus once per search (a batch of queries), not once
 * per query, and host memory grows with the part size, not with the
 * database. */
#ifndef SW_GPU_PARTS_H
#define SW_GPU_PARTS_H

#include <stddef.h>
#include <stdint.h>

#include "sw_db.h"
#include "sw_error.h"
#include "sw_gpu_engine.h"
#include "sw_matrix.h"
#include "sw_slices.h"
#include "sw_topn.h"

typedef struct sw_gpu_parts sw_gpu_parts;

typedef struct sw_gpu_parts_config {
    int device;
    const sw_scoring *scoring;
    size_t top_n;
    /* The engines' options; max_device_bytes is the slice's share of the
     * GPU, which the three engines divide. */
    sw_gpu_engine_options engine;
    const sw_db *db;
    const sw_slicing *slicing; /* the slice is slice `slice` of it */
    int slice;
    const uint32_t *lengths; /* the slice's, ascending; kept, not copied */
    int threads;             /* decoding threads (<= 0: every CPU) */
} sw_gpu_parts_config;

/* Plans the kept part and the streamed parts and starts the engines. */
int sw_gpu_parts_create(const sw_gpu_parts_config *c, sw_gpu_parts **out, sw_error *err);

/* Loads the kept part: from `residues` (the whole decoded database, kept
 * for the searches, which then read their parts from it) or, NULL, from
 * the database file a piece at a time. */
int sw_gpu_parts_load(sw_gpu_parts *p, const uint8_t *residues, sw_error *err);

/* Every query against the whole slice (rows: PSSM queries, as
 * sw_gpu_engine_search_rows() takes them; may be NULL): query q's best hits (by score, then
 * FASTA position; database sequence numbers) in hits[q * top_n ..],
 * counts[q] of them; with keep_all_scores, every score of query q goes to
 * scores[q * sw_db_num_seqs() + s] for the slice's sequences s (else
 * scores is NULL). `stats` sums the engines' figures. */
int sw_gpu_parts_search(sw_gpu_parts *p, const uint8_t *const *queries, const int8_t *const *rows,
                        const size_t *lengths, size_t num_queries, sw_hit *hits, size_t *counts, int32_t *scores,
                        sw_gpu_stats *stats, sw_error *err);

/* Adds the figures of search `s` to `sum` (first: `sum` becomes `s`):
 * times, cells and recomputed scores summed, the buckets of equal plan
 * entries summed, the most batches. For the searches of several engines. */
void sw_gpu_parts_add_stats(sw_gpu_stats *sum, const sw_gpu_stats *s, int first);

/* Asked before each part and by the engines before each query during the
 * following searches; nonzero stops a search with SW_ECANCELED. NULL:
 * never. */
void sw_gpu_parts_set_stop(sw_gpu_parts *p, sw_gpu_stop_fn fn, void *user);

void sw_gpu_parts_free(sw_gpu_parts *p);

#endif
