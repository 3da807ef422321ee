/* The host side of the band sweep of the megabase pairwise GPU engines
 * (sw_pair_band.cuh is the device side): the launch arguments, the
 * hand-over buffers of the persistent layout and its launch, uploads and
 * downloads of a pass's rows and boxes, and the wait that reports
 * progress. Internal to sw_pair_gpu.cu and sw_pair_overlap.cu. */
#ifndef SW_PAIR_BAND_HOST_H
#define SW_PAIR_BAND_HOST_H

#include <cuda_runtime_api.h>
#include <stdint.h>

#include "sw_cuda_check.h"
#include "sw_error.h"
#include "sw_pair_pass.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Rows a lane, lanes a warp, rows a band. Sixteen rows a lane (with
 * SW_PAIR_WARPS_PER_BLOCK 2 and SW_PAIR_BLOCKS_PER_SM 8) spread a step's
 * fixed costs (profile loads, shuffles, the best-cell test) over twice the
 * cells of eight, so that the forward pass is faster (see bench/JOURNAL.md,
 * 2026-11-26, sixteen rows a lane the default). */
#ifndef SW_PAIR_ALPHA
#define SW_PAIR_ALPHA 16
#endif
#define SW_PAIR_LANES 32
#define SW_PAIR_BAND_ROWS (SW_PAIR_ALPHA * SW_PAIR_LANES)
/* Columns handed over at a time (a multiple of 32): 64 halves the cost of
 * the hand-overs against 32, which shows where pruning makes chunks cheap. */
#ifndef SW_PAIR_CHUNK
#define SW_PAIR_CHUNK 64
#endif
/* Columns of a ring between two bands of one round (persistent layout). */
#define SW_PAIR_RING 512
/* Blocks of two warps: at sixteen rows a lane a warp takes 12.3 KB of
 * shared memory, and four would pass the 48 KB of static shared memory a
 * block may hold (eight rows a lane ran in blocks of four). */
#ifndef SW_PAIR_WARPS_PER_BLOCK
#define SW_PAIR_WARPS_PER_BLOCK 2
#endif
#define SW_PAIR_PAD 16 /* counters 128 bytes apart */

/* What the pairwise engines' CUDA errors say they come from. */
#define SW_PAIR_WHO "GPU pairwise engine"
#define SW_PAIR_CK(call, what) SW_CUDA_CHECK(call, SW_PAIR_WHO, what)

/* A lane's, a warp's or a pass's best cell (score 0: none). */
typedef struct sw_pair_record {
    int score;
    long long col, row;
} sw_pair_record;

/* The arguments of every kernel launch of the band sweep. */
typedef struct sw_pair_args {
    const uint8_t *a, *b;
    long long m, n;
    int match, mismatch, open, ext, oe;
    int target;
    int prune;
    /* Anchored passes: the opening of the vertical gap down column 0 from
     * the origin (Myers and Miller's tb: open, or 0 where the gap goes on
     * from outside the piece), and the score below which a chunk is
     * pruned (the target for a start pass). */
    int open_col0;
    int threshold;
    /* Anchored passes that hand their last row on (the halves of a
     * Myers-Miller split, sw_pair_gpu_rows): every alignment that counts
     * ends at the corner (goal_rows, n) of the piece, which may lie below
     * this pass's rows, so the pruning bound charges the difference in
     * rows and columns still to go as gap bases. Read by the rows kernel
     * only (band_worker's ROWS). */
    long long goal_rows;
    /* NULL, or per band the columns [x, y) that it computes (x a multiple
     * of SW_PAIR_CHUNK, both never decreasing from band to band): the
     * cells outside are taken as pruned (FLOOR), the band hands on its
     * last row over [x, y) only, and a band reads the columns of its row
     * above past where the band above stopped as pruned instead of
     * stopping there. Anchored passes only. */
    const int2 *windows;
    long long bands;
    long long workers;
    /* persistent layout */
    int2 *ring; /* links 1 .. G - 1: SW_PAIR_RING columns each */
    int2 *row;  /* link 0: n columns */
    /* per link: columns produced and consumed, counted over the rounds
     * (round r's column c is r n + c); where the producer stopped early,
     * for even and odd rounds */
    unsigned long long *produced, *consumed, *stopped;
    /* A band range of a larger matrix (the overlap engine's recomputed
     * chunks): band 0's row above instead of the matrix edge, where the
     * last band leaves its last row, and the row of the larger matrix that
     * row 0 is (added to the rows of the results). */
    const int2 *top;
    int2 *bottom;
    long long row_base;
    /* The pass hands its last row on (sw_pair_pass.bottom): the last band,
     * where it has fewer than SW_PAIR_BAND_ROWS rows, must leave the matrix's last
     * row, not the row of its phantom rows below it (band_worker::step).
     * Local passes only (anchored ones take no boundary rows), and not in
     * the MASKED kernels, which keep their registers for the boxes: the
     * engines refuse a pass with both. */
    int last_row_wanted;
    /* Forbidden cells (sw_pair_pass.h), in this launch's rows and columns
     * (row_base included): on the device, box_count of them. */
    const sw_pair_box *boxes;
    int box_count;
    /* Nonzero: a reversed (start) pass, whose states are barred each where
     * its own cell is (sw_pair_pass.reversed): E of cell (i, j) where
     * (i + 1, j) is forbidden, F where (i, j + 1) is, the pair where
     * (i, j) is. The rule reads the same in transposed coordinates. */
    int reversed;
    /* Column strips of a pass (sw_pair_gpu_strips_run), one launch
     * a strip: `left` holds the strip on the left's last column, (H - oe,
     * E) a row for all m rows, readable as far as *left_rows counts, and
     * *left_best is the best score that strip had found by then (a floor
     * for pruning here); this strip leaves its own last column in `right`
     * and raises *right_rows and *right_best band by band, in band order.
     * Host memory mapped into every device, so that strips on different
     * GPUs or on one hand over with no host thread between them; the host
     * sets *abort to end every wait when a strip failed. col_base: the
     * matrix's columns left of this strip (an anchored pass's first row
     * counts them in its gap costs); cols_after: those right of it, which
     * pruning's bound counts; left_wait_ns: how long a band may wait for
     * its rows from the left. */
    const int2 *left;
    const unsigned long long *left_rows;
    const int *left_best;
    int2 *right;
    unsigned long long *right_rows;
    int *right_best;
    const int *abort, *left_abort; /* left_abort: an external left column's (sw_pair_column.abort), or NULL */
    long long col_base, cols_after;
    unsigned long long left_wait_ns;
    /* results and progress */
    unsigned long long *found;
    int *best_score;
    sw_pair_record *records;
    unsigned long long *cells, *pruned;
    unsigned long long *cells_host;
    /* A wait longer than this (nanoseconds) means the hand-overs are
     * broken: the waiter records where in `stall` and gives up, so the
     * host reports an error instead of hanging. */
    unsigned long long stall_ns;
    unsigned long long *stall;
    /* diagonal layout */
    int2 *hbus;
    int *vbus;
    sw_pair_record *vbest;
} sw_pair_args;

/* The arguments every launch of a pass shares: the sequences on the device
 * (rows `a`, columns `b`), their lengths, the scoring, the band count and
 * the watchdog's limit. */
sw_pair_args sw_pair_band_args(const sw_pair_scoring *s, const uint8_t *a, long long m, const uint8_t *b,
                               long long n);

/* What a pass brings from outside into the launch arguments p (whose n
 * is set): its row above (*top, to free), its forbidden boxes (*boxes, to
 * free; rows and columns swapped when the engine runs the pair
 * `transposed`) and whether its last row is wanted; on the device when
 * this returns (copied on the pass's `stream`). */
int sw_pair_band_upload_bounds(const sw_pair_pass *pass, int transposed, sw_pair_args *p, int2 **top,
                               sw_pair_box **boxes, cudaStream_t stream, sw_error *err);

/* The kernels' last row on the device, n columns of (H - oe, F), into the
 * pass's form. */
int sw_pair_band_download_row(const int2 *dev, long long n, int oe, sw_pair_edge *row, sw_error *err);

/* A counter the kernels raise and the host reads while they run (progress):
 * host memory mapped into the device, starting at 0. */
int sw_pair_band_map_counter(unsigned long long **host, unsigned long long **dev, sw_error *err);

/* Waits for the work queued before `stop`, copying the cells done so far
 * (`cells_host`, raised by the kernels) to the pass's counter for whoever
 * reports progress. */
int sw_pair_band_wait(const sw_pair_pass *pass, cudaEvent_t stop, const unsigned long long *cells_host,
                      sw_error *err);

/* Resident warps of `kernel` (blocks of SW_PAIR_WARPS_PER_BLOCK warps) on `device`. */
int sw_pair_band_resident_warps(const void *kernel, int device, long long *out, sw_error *err);

/* Warps for a persistent launch over `bands` bands of n columns, of at
 * most `resident` (or `asked`, when positive). */
long long sw_pair_band_warps(long long resident, long long bands, long long n, int asked);

/* The hand-over buffers of the persistent layout, kept for launches of up
 * to `warps` warps over rows of up to `cols` columns. Zeroed: none yet. */
typedef struct sw_pair_links {
    long long warps, cols;
    int2 *ring;                   /* links 1 .. G - 1: SW_PAIR_RING columns each */
    int2 *row;                    /* link 0: a whole row */
    unsigned long long *counters; /* produced, consumed, stopped (x2): 4 x G x SW_PAIR_PAD */
    sw_pair_record *records;      /* one a warp */
} sw_pair_links;

int sw_pair_links_reserve(sw_pair_links *l, long long G, long long n, sw_error *err);

/* Launches `kernel` (a persistent kernel) on `G` warps (at most those
 * reserved) over p's bands, p's link fields filled here. Cooperative: the
 * launch itself guarantees that every warp is resident at once, which
 * the hand-overs need; otherwise the caller does (the warps of all the
 * kernels it runs at a time fit the GPU together). */
int sw_pair_links_launch(sw_pair_links *l, const void *kernel, sw_pair_args *p, long long G, cudaStream_t stream,
                         int cooperative, sw_error *err);

void sw_pair_links_free(sw_pair_links *l);

#ifdef __cplusplus
}
#endif

#endif
