/* A database search spread over the ranks of an MPI job (sw_mpi.h), on one
 * machine or many. Each rank takes a share of the database of equal
 * residues (sw_slices.h: a slice a rank, so that every share holds the
 * same mix of lengths) and reads only the chunks that hold it
 * (sw_db_part_open); it searches its share on its GPUs, or on its CPU
 * cores where it has none. Rank 0 reads the queries, hands each batch to
 * every rank, searches its own share beside them, and merges their hits:
 * a query's hits are the best of every share's, by score, then by
 * position in the database FASTA, so they are exactly those of one
 * process. The report that follows (statistics for the whole database,
 * alignments, output) is rank 0's alone, as in one process. */
#ifndef SW_SEARCH_RANKS_H
#define SW_SEARCH_RANKS_H

#include "sw_db.h"
#include "sw_error.h"
#include "sw_matrix.h"
#include "sw_mpi.h"
#include "sw_queries.h"
#include "sw_results.h"

struct sw_search_options;
typedef struct sw_search_ranks sw_search_ranks;

/* The search of `db` on the ranks of `job`. Every rank opens the same
 * database; this rank's share is opened at its first batch, so that a
 * failure travels to rank 0 with the batch's results. `job` and `db` must
 * outlive the result. */
int sw_search_ranks_create(sw_mpi *job, const sw_db *db, sw_search_ranks **out, sw_error *err);
void sw_search_ranks_free(sw_search_ranks *r);

/* The database `r` was made for. */
const sw_db *sw_search_ranks_db(const sw_search_ranks *r);

/* Rank 0, in place of a search in one process (sw_search_dispatch() calls
 * it when options->ranks is set): hands `queries` to every rank, searches
 * its own share and merges. The results hold every database sequence's
 * score where options->keep_all_scores asks, as one process's do. The
 * options' query_done, residues_out and resident are not used: hits are
 * final only once every rank has sent its own. On any rank's failure
 * every rank has still finished the batch, and the error names the rank. */
int sw_search_ranks_search(sw_search_ranks *r, const sw_query_set *queries, const sw_scoring *scoring,
                           const struct sw_search_options *options, sw_search_results **out, sw_error *err);

/* Rank 0, once after its last batch or its failure: releases the other
 * ranks from sw_search_ranks_serve(), telling them `status`. */
int sw_search_ranks_end(sw_search_ranks *r, int status, sw_error *err);

/* The other ranks: search the batches rank 0 hands out, each on this
 * rank's share with these options, until rank 0 ends. `status` nonzero (a
 * failure before the run): every batch is answered with it. Returns SW_OK
 * when rank 0 ended well, SW_EIO when rank 0 ended with a failure (which
 * rank 0 reports), or this rank's own failure. The scoring and top N must
 * be those of rank 0 (the same command line): a batch from a rank 0 that
 * scores otherwise fails. */
int sw_search_ranks_serve(sw_search_ranks *r, const sw_scoring *scoring, const struct sw_search_options *options,
                          int status, const sw_error *status_err, sw_error *err);

#endif
