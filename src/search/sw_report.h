/* The whole of `swsearch search` below the command line: queries read a
 * batch at a time, searched, their hits given E-values, filtered, aligned
 * and written in the chosen format, so that memory is bounded by a batch. */
#ifndef SW_REPORT_H
#define SW_REPORT_H

#include <stdio.h>

#include "sw_db.h"
#include "sw_outfmt.h"
#include "sw_queries.h"
#include "sw_search.h"
#include "sw_stats.h"

/* The default bounds of a batch. Per query residue the CPU engine holds
 * about 230 bytes (striped profiles of 8-, 16- and 32-bit lanes: 32 codes x
 * 7 bytes, and the residue), so a batch costs at most about 120 MB. Hits
 * are written a batch at a time, so smaller batches write sooner; a batch
 * boundary costs little (the GPU keeps the database resident, and the
 * alignments are done while it scans). */
#define SW_REPORT_BATCH_RESIDUES ((uint64_t)1 << 19)
#define SW_REPORT_BATCH_QUERIES ((size_t)1 << 14)
/* Hit lists are allocated whole (top_n entries per query and thread), so a
 * batch also holds at most this many top_n entries per thread. */
#define SW_REPORT_BATCH_HITS ((size_t)1 << 22)
/* Fitted statistics keep every score of a batch: 4 bytes per query and
 * database sequence, at most this many bytes. */
#define SW_REPORT_BATCH_SCORE_BYTES ((uint64_t)1 << 30)

/* While the GPU scans a batch, the hits of the queries it has finished get
 * statistics and alignments on the other cores, up to this many a batch
 * held until written (a query's hits count whole until its E-value filter
 * has run, then only those it keeps). */
#define SW_REPORT_AHEAD_HITS ((size_t)1 << 16)

typedef struct sw_report_batching {
    uint64_t max_residues; /* query residues per batch; 0: the default */
    size_t max_queries;    /* queries per batch; 0: the default */
    /* Hits of a batch that may be given statistics and aligned while the
     * GPU goes on with later queries; 0: SW_REPORT_AHEAD_HITS. */
    size_t ahead_hits;
} sw_report_batching;

typedef struct sw_report_options {
    const sw_outfmt *format;
    sw_stats_method stats;
    /* sw_matrix_name() of the matrix: published statistics exist only for
     * a shipped matrix given by name. */
    const char *matrix_name;
    /* Hits with a larger E-value are left out (formats with statistics). */
    double max_evalue;
    sw_outfmt_run run; /* what output headers name */
    /* Not NULL: each query and its hits go to `sink` instead of the
     * format's writer, which writes nothing then (`out` may be NULL); the
     * format still says what is computed. The pointers are valid during
     * the call only. A nonzero return stops the search with that code. */
    int (*sink)(void *user, const sw_outfmt_query *query, const sw_outfmt_hit *hits, size_t n, sw_error *err);
    void *sink_user;
    /* Not NULL: also told of each query and its hits, written or sunk,
     * with every hit's alignment and subject residues (computed for it
     * whatever the format); as `sink` otherwise. */
    int (*tap)(void *user, const sw_outfmt_query *query, const sw_outfmt_hit *hits, size_t n, sw_error *err);
    void *tap_user;
} sw_report_options;

/* What a batched search did. `stats` has the engine and GPU threshold of the
 * first batch and the times, cells and recomputed scores of all batches. */
typedef struct sw_report_summary {
    size_t queries, batches;
    uint64_t query_residues;
    sw_search_stats stats;
    uint64_t hits;            /* reported */
    uint64_t alignments;      /* computed (and re-scored) */
    uint64_t aligned_ahead;   /* of which while the GPU went on with later queries */
    double align_seconds;     /* reading subjects and aligning them, after the search */
    double read_seconds;      /* of which reading the subjects */
    char statistics[256];     /* how the E-values came about (first query's) */
} sw_report_summary;

/* Reads `queries` to its end a batch at a time; searches each batch and
 * writes its hits. The output is the same for any batching. After the first
 * batch the device and the GPU threshold that it used are kept, so a
 * fallback note or a calibration comes once. `batching` and `summary` may be
 * NULL. On an error in a later batch, the output of earlier batches has
 * been written. Every alignment written has been re-scored to its hit's
 * score; a difference is an error (SW_ECORRUPT), never output. */
int sw_report_search(FILE *out, const sw_db *db, sw_query_reader *queries,
                     const sw_scoring *scoring, const sw_search_options *options,
                     const sw_report_options *report, const sw_report_batching *batching,
                     sw_report_summary *summary, sw_error *err);

/* ---- Several requests sharing scans ----
 * sw_report_search() is one request answered by one scanner to its end. A
 * service answers several: each round takes a share of the next queries
 * of every unfinished request, searches them in one scan, and writes each
 * request's hits to its own output, byte for byte as sw_report_search()
 * would. */

/* What rounds share: the database, the scoring (copied) and the engine's
 * settings (copied; the pointers in them borrowed), with what the first
 * scan found (the GPU threshold, a fallback to the CPU) and a resident copy
 * made after it when `options` has none. `peek`: look past each batch for
 * the end of a request's queries, so that its answer ends with the scan of
 * its last queries (the queries must not come from a terminal or a pipe
 * that waits for more). */
typedef struct sw_report_scanner sw_report_scanner;
int sw_report_scanner_create(const sw_db *db, const sw_scoring *scoring, const sw_search_options *options, int peek,
                             sw_report_scanner **out, sw_error *err);
void sw_report_scanner_free(sw_report_scanner *sc);

typedef struct sw_report_request_config {
    FILE *out;
    sw_query_reader *queries;
    sw_report_options report; /* copied; what it points at is borrowed */
    size_t top_n;
    const sw_report_batching *batching; /* may be NULL */
    /* The engine's notes; asked whether to stop (both may be NULL). */
    void (*note)(void *user, const char *message);
    void *note_user;
    int (*cancelled)(void *user);
    void *cancelled_user;
} sw_report_request_config;

typedef struct sw_report_request sw_report_request;
/* Fails at once where the statistics asked for do not exist. */
int sw_report_request_create(const sw_report_request_config *c, const sw_db *db, const sw_scoring *scoring,
                             sw_report_request **out, sw_error *err);
/* *done (may be NULL): 1 once answered or failed; the return is its
 * failure (with its message), or SW_OK. */
int sw_report_request_status(const sw_report_request *q, int *done, sw_error *err);
const sw_report_summary *sw_report_request_summary(const sw_report_request *q);
void sw_report_request_free(sw_report_request *q);

/* One scan for the unfinished requests of `reqs`, which the caller has
 * found compatible with the scanner (the same database, scoring and
 * engine): each gives a share of at most `max_queries` queries in all (0:
 * the least of their batch bounds), at least one each. A request that
 * fails (its queries, its output, its cancel function) ends alone; a
 * failure of the scan ends every request of it and is returned. The scan
 * stops early only when every request of it is cancelled. */
int sw_report_round(sw_report_scanner *sc, sw_report_request *const *reqs, size_t n, size_t max_queries,
                    sw_error *err);

#endif
