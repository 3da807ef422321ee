/* The GPU inter-task engine: every database sequence is aligned by a small
 * group of threads, two sequences per group in 16-bit lanes, and any score
 * that may have saturated 16 bits is recomputed in 32 bits, so every score
 * equals the scalar reference (sw_align_ref.h). Plain C API; the CUDA
 * runtime stays inside the .cu files.
 *
 * Scoring: a gap of k residues costs gap_open + k * gap_extend (sw_matrix.h). */
#ifndef SW_GPU_ENGINE_H
#define SW_GPU_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "sw_error.h"
#include "sw_matrix.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sw_gpu_engine sw_gpu_engine;
typedef struct sw_gpu_tuning sw_gpu_tuning; /* sw_gpu_tuning.h */

typedef struct sw_gpu_engine_options {
    /* Device memory the engine's database may use. 0: the free memory at
     * creation less a reserve. A database larger than what is left after a
     * reserve for the working buffers stays in pinned host memory and is
     * streamed in batches for every query. The working buffers themselves
     * are sized from the free memory, not from this bound, so that an
     * engine holding a small part of a database runs full grids. */
    size_t max_device_bytes;
    /* Engines that share the device with this one, itself included (several
     * slices of one database on one GPU): each takes this share of what
     * the free memory gives. 0 or 1: the GPU is the engine's alone. */
    int device_share;
    /* Slices whose working buffers share the device with this engine's, its
     * own included: the working buffers are sized from this share of the
     * free memory, whatever max_device_bytes leaves the database. 0 or 1:
     * device_share's share, or the whole. */
    int work_share;
    /* Database sequences longer than this go to the intra-task kernel (one
     * thread block per pair of sequences), the rest to the inter-task
     * kernels. 0: SW_GPU_DEFAULT_THRESHOLD; SW_GPU_NO_INTRA: never. */
    uint32_t intra_threshold;
    /* Nonzero: every score of every query comes back to the host (for
     * statistics fitted to the whole score distribution), and the top N are
     * selected there; see sw_gpu_engine_set_score_sink(). */
    int keep_all_scores;
    /* Database sequences up to this length go to the kernels with the query
     * across the threads (a query profile, one vector load per four cells);
     * longer ones to the plan above. 0: SW_GPU_DEFAULT_QP_LENGTH;
     * SW_GPU_NO_QP: never (the subjects across the threads everywhere). */
    uint32_t qp_max_length;
    /* For queries of up to 1,024 residues, the sequences left to the
     * intra-task kernel go instead to a query-across-threads launch of
     * 32-thread groups, one pair a warp, on the intra-task kernel's stream:
     * with many short queries the intra-task kernel's longest pair outlasts
     * the rest of a query's work (see bench/JOURNAL.md, 2026-11-26, the
     * longest sequences in 32-thread groups). 0: so;
     * SW_GPU_NO_GIANTS: the intra-task kernel keeps them. */
    int qp_giants;
    /* Knobs for benchmarks and tests (sw_gpu_tuning.h), copied at creation. */
    const sw_gpu_tuning *tuning; /* NULL: the engine's defaults; set by bench/ and tests/gpu/ only */
} sw_gpu_engine_options;

#define SW_GPU_DEFAULT_THRESHOLD 3000u
#define SW_GPU_NO_INTRA UINT32_MAX
#define SW_GPU_DEFAULT_QP_LENGTH 4096u
#define SW_GPU_NO_QP UINT32_MAX
#define SW_GPU_NO_GIANTS (-1)

typedef struct sw_gpu_hit {
    int score;
    uint64_t seq; /* index into the arrays given to sw_gpu_engine_set_db() */
} sw_gpu_hit;

#define SW_GPU_MAX_BUCKETS 24

/* One length bucket of the database: sequences up to `max_length` residues,
 * aligned by groups of `group_size` threads holding `columns` subject
 * columns each (a longer subject takes several passes); or, for `intra`,
 * by blocks of `group_size` threads (as last chosen) holding `columns`
 * query rows each. */
typedef struct sw_gpu_bucket_stats {
    uint32_t max_length;
    int group_size;
    int columns;
    int multipass;
    int intra;
    int qp;                   /* query across the threads; group_size and columns of the last query */
    uint64_t seqs;
    uint64_t residues;
    uint64_t padded_residues; /* columns computed, padding included */
    double seconds;           /* summed over the queries; profile mode only */
} sw_gpu_bucket_stats;

typedef struct sw_gpu_stats {
    /* Alignment kernels, from a query's first launch to its last, summed
     * over the queries; queries overlap, so this can exceed total_seconds. */
    double kernel_seconds;
    double transfer_seconds; /* database batches and results between host and GPU */
    double total_seconds;    /* the whole sw_gpu_engine_search() call, wall clock */
    uint64_t cells;          /* sum over queries of query length x database residues */
    uint64_t recomputed;     /* scores redone in 32 bits because 16 bits might have saturated */
    int batches;             /* database batches per query; 1 when it is resident */
    size_t num_buckets;
    sw_gpu_bucket_stats buckets[SW_GPU_MAX_BUCKETS];
} sw_gpu_stats;

/* Creates an engine on CUDA device `device` that keeps the `top_n` best hits
 * per query. `scoring` is copied; `opt` may be NULL. SW_ENODEV without a
 * usable GPU. Here and below, a CUDA call that fails (out of GPU memory
 * included) gives SW_EDEVICE with "GPU: <message> (<where>)"
 * (sw_cuda_check.h). */
int sw_gpu_engine_create(int device, const sw_scoring *scoring, size_t top_n,
                         const sw_gpu_engine_options *opt, sw_gpu_engine **out, sw_error *err);

/* Gives the engine its database: `num_seqs` sequences of alphabet codes
 * (below SW_CODE_LIMIT) back to back, sorted by length (`lengths` ascending),
 * and for each its position in the input FASTA (`tiebreak`), which orders
 * equal scores. Everything is copied: the caller's arrays may go right after.
 * Replaces an earlier database. */
int sw_gpu_engine_set_db(sw_gpu_engine *e, const uint8_t *residues, const uint32_t *lengths,
                         const uint32_t *tiebreak, uint64_t num_seqs, sw_error *err);

/* The residues of a database given in pieces: the sequences' codes are the
 * pieces' bytes one after another (a sequence may not straddle two). */
typedef struct sw_gpu_db_piece {
    const uint8_t *residues;
    uint64_t bytes;
} sw_gpu_db_piece;

/* sw_gpu_engine_set_db() with the residues in `num_pieces` pieces, for a
 * slice of a database made of runs of the whole (sw_slices.h), which then
 * need not be copied into one buffer first. */
int sw_gpu_engine_set_db_pieces(sw_gpu_engine *e, const sw_gpu_db_piece *pieces, size_t num_pieces,
                                const uint32_t *lengths, const uint32_t *tiebreak, uint64_t num_seqs, sw_error *err);

/* Where the residues of a database come from, a piece at a time: each
 * call gives the next piece, whole sequences back to back (*bytes 0: no
 * more); a piece need stay valid only until the next call. */
typedef int (*sw_gpu_piece_fn)(void *user, const uint8_t **piece, uint64_t *bytes, sw_error *err);

/* sw_gpu_engine_set_db() with the residues from `next`: a database read
 * from its file a part at a time goes to the GPU without a whole copy in
 * host memory (where it stays on the GPU; else the engine keeps a pinned
 * copy, as sw_gpu_engine_set_db() does). */
int sw_gpu_engine_set_db_from(sw_gpu_engine *e, sw_gpu_piece_fn next, void *user, const uint32_t *lengths,
                              const uint32_t *tiebreak, uint64_t num_seqs, sw_error *err);

/* A database too large for the GPU, searched a part at a time: the engine
 * reserves device memory for parts of up to `max_seqs` sequences and
 * `max_residues` residues, sequences of up to `max_length` residues, and a
 * pinned host buffer that the next part is read into. Replaces an earlier
 * database. A part is read into the buffer (sw_gpu_engine_part_buffer()),
 * then becomes the database (sw_gpu_engine_load_part()), whose upload runs
 * on the engine's copy stream while the GPU does other work; the next
 * sw_gpu_engine_search() waits for it. Each search is of the part loaded
 * last, its hits numbered within the part. */
int sw_gpu_engine_reserve_parts(sw_gpu_engine *e, uint64_t max_seqs, uint64_t max_residues, uint32_t max_length,
                                sw_error *err);

/* The pinned buffer of the next part: its residues back to back (room for
 * max_residues), and its sequences' lengths (ascending) and tie-breaks
 * (room for max_seqs). Waits until the upload of the part loaded last,
 * which reads the buffer, is done. May be called from another thread than
 * the one that searches, also during a search, but not during
 * sw_gpu_engine_load_part(). */
int sw_gpu_engine_part_buffer(sw_gpu_engine *e, uint8_t **residues, uint32_t **lengths, uint32_t **tiebreak,
                              sw_error *err);

/* The `num_seqs` sequences in the part buffer become the database: the
 * plan is made here, the upload queued, and the call returns. Not during a
 * search. */
int sw_gpu_engine_load_part(sw_gpu_engine *e, uint64_t num_seqs, sw_error *err);

/* Whether a database of `num_seqs` sequences and `residues` residues stays
 * on the GPU with an engine of max_device_bytes `budget` (else it is
 * streamed); and the device bytes that parts of these bounds take
 * (sw_gpu_engine_reserve_parts()), besides a search's working buffers. */
int sw_gpu_engine_fits(uint64_t num_seqs, uint64_t residues, size_t budget);
/* The device memory an engine takes when max_device_bytes leaves it to
 * the engine: the free memory less room for other users and the context. */
size_t sw_gpu_engine_default_budget(unsigned long long free_bytes, unsigned long long total_bytes);
size_t sw_gpu_engine_part_bytes(uint64_t max_seqs, uint64_t max_residues);

/* Aligns every query against the database. For query q, hits[q * top_n ..]
 * receives counts[q] hits (at most top_n, only scores > 0), by score
 * descending, then tiebreak ascending. `stats` may be NULL. */
int sw_gpu_engine_search(sw_gpu_engine *e, const uint8_t *const *queries,
                         const size_t *query_lengths, size_t num_queries, sw_gpu_hit *hits,
                         size_t *counts, sw_gpu_stats *stats, sw_error *err);

/* sw_gpu_engine_search() with PSSM queries among them: rows[q] (NULL:
 * query q scores through the matrix) holds query q's position-specific
 * scores, query_lengths[q] rows of SW_CODE_LIMIT (sw_scoring.rows), which
 * must score alike the codes that the matrix scores alike (else
 * SW_ENODEV); queries[q] still names its residues. `rows` may be NULL. */
int sw_gpu_engine_search_rows(sw_gpu_engine *e, const uint8_t *const *queries, const int8_t *const *rows,
                              const size_t *query_lengths, size_t num_queries, sw_gpu_hit *hits,
                              size_t *counts, sw_gpu_stats *stats, sw_error *err);

/* Where the following sw_gpu_engine_search() calls put every score: query
 * q's score against database sequence s at scores[q * num_seqs + s]
 * (num_seqs of the database set). NULL: nowhere. The engine must have been
 * created with keep_all_scores (else SW_EINVAL). */
int sw_gpu_engine_set_score_sink(sw_gpu_engine *e, int32_t *scores, sw_error *err);

/* Told that query q of a search is done: its hits (count of them, as
 * sw_gpu_engine_search() returns them) and, with a score sink, its scores
 * (num_seqs of them; else NULL) are final, while later queries are still
 * on the GPU. Called from the thread that runs the search, which waits for
 * it: it should be quick. The pointers are valid during the call. */
typedef void (*sw_gpu_query_done_fn)(void *user, size_t query, const sw_gpu_hit *hits, size_t count,
                                     const int32_t *scores);

/* Who the following searches tell of each finished query; NULL: nobody. */
int sw_gpu_engine_set_query_done(sw_gpu_engine *e, sw_gpu_query_done_fn fn, void *user, sw_error *err);

/* Asked before each query of the following searches (from the thread that
 * runs the search; `fn` must be safe to call from any thread): nonzero
 * stops the search, which lets the queries on the GPU finish and fails
 * with SW_ECANCELED. NULL: never. */
typedef int (*sw_gpu_stop_fn)(void *user);
int sw_gpu_engine_set_stop(sw_gpu_engine *e, sw_gpu_stop_fn fn, void *user, sw_error *err);

/* What one span of the timeline was. */
enum {
    SW_GPU_SPAN_PROFILE,  /* the intra-task query profile */
    SW_GPU_SPAN_INTER,    /* an inter-task bucket kernel (16-bit) */
    SW_GPU_SPAN_INTRA,    /* the intra-task kernel */
    SW_GPU_SPAN_WIDE,     /* the 32-bit recomputation */
    SW_GPU_SPAN_SELECT,   /* top-N selection kernels */
    SW_GPU_SPAN_UPLOAD,   /* a database batch to the GPU */
    SW_GPU_SPAN_DOWNLOAD, /* hits or scores to the host */
    SW_GPU_SPAN_LAUNCHER  /* the parent kernel of device-side launches */
};

/* Streams of a timeline: 0 scan, 1 selection, 2 copies, 3 + i bucket stream
 * i, 16 + k the stream of the longest sequences' launches of query slot k. */
#define SW_GPU_STREAM_BUCKET0 3
#define SW_GPU_STREAM_GIANTS0 16

typedef struct sw_gpu_span {
    int kind;
    int stream;
    size_t query;
    int bucket;        /* statistics bucket (sw_gpu_stats.buckets) of kernel spans, else -1 */
    double start, end; /* seconds after the search's first GPU work */
} sw_gpu_span;

/* The timeline of the engine's last search (tuning.timeline): spans in
 * launch order, valid until the next call on the engine. */
int sw_gpu_engine_timeline(const sw_gpu_engine *e, const sw_gpu_span **spans, size_t *count, sw_error *err);

const char *sw_gpu_span_name(int kind);

/* Nonzero when this build can launch kernels from the GPU
 * (tuning.device_launch). */
int sw_gpu_engine_device_launch_available(void);

/* The compiled shapes of the kernels with the query across the threads,
 * which tuning.qp_group_size and tuning.qp_columns choose among: how
 * many, and shape `index` (SW_EINVAL past the last). */
size_t sw_gpu_engine_qp_shape_count(void);
int sw_gpu_engine_qp_shape(size_t index, int *group_size, int *columns, int *multipass);

void sw_gpu_engine_free(sw_gpu_engine *e);

#ifdef __cplusplus
}
#endif

#endif
