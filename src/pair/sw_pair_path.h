/* The alignment itself behind a megabase result: every column of the
 * optimal local alignment between the start and the end that
 * sw_pair_align() found, in memory linear in the lengths (Myers and
 * Miller's divide and conquer; docs/PAIR_PATH.md), re-scored before it is
 * handed out.
 *
 * Operations follow SAM and PAF with the first sequence as the query:
 * 'M' a base of each (match or mismatch), 'I' a base of the first sequence
 * against a gap, 'D' a base of the second against a gap. */
#ifndef SW_PAIR_PATH_H
#define SW_PAIR_PATH_H

#include <stddef.h>
#include <stdint.h>

#include "sw_error.h"
#include "sw_pair.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sw_pair_path sw_pair_path;

/* One run of equal operations. */
typedef struct sw_pair_run {
    char op;      /* 'M', 'I' or 'D' */
    uint64_t len; /* >= 1 */
} sw_pair_run;

/* What the alignment holds. Identity = matches / columns. */
typedef struct sw_pair_path_summary {
    uint64_t columns;      /* alignment length: M + I + D */
    uint64_t matches;      /* equal bases among A, C, G, T */
    uint64_t mismatches;   /* the other M columns (N included) */
    uint64_t gap_openings; /* runs of I or D */
    uint64_t gap_bases;    /* I + D columns */
    int32_t score;         /* the alignment re-scored */
} sw_pair_path_summary;

/* Cells of the divide and conquer done so far, for a progress line; may be
 * read from another thread. */
typedef void (*sw_pair_path_progress_fn)(void *user, uint64_t done, uint64_t total);

typedef struct sw_pair_path_options {
    int threads;                       /* 0: every online processor; the halves of a split run side by side */
    sw_pair_path_progress_fn progress; /* may be NULL; called from the calling thread */
    void *progress_user;
    /* Nonzero: compute every cell of every piece. By default a piece skips
     * the cells that no alignment reaching its best score can use (exact:
     * the same path; for measuring and testing that). */
    int exhaustive;
    /* Cells no alignment may use (sw_pair_pass.h): the boxes that were
     * forbidden when the result was found (best-K: those of the better
     * alignments), so that the path keeps out of them too. NULL: none. */
    const sw_pair_box *forbidden;
    int forbidden_count;
    /* Nonzero: the two passes of every split of at least gpu_min_cells
     * cells (0: SW_PAIR_PATH_GPU_CELLS) run on GPU gpu_device, the
     * smaller pieces on the CPU threads; the same path (docs/PAIR_PATH.md).
     * Not while a forbidden box meets the alignment's rectangle (its
     * splits then stay on the CPU). */
    int gpu;
    int gpu_device;
    uint64_t gpu_min_cells;
} sw_pair_path_options;

/* Below this many cells (m x n) a piece is solved on the CPU: a GPU pass
 * over it costs more in launches and copies than it saves. A larger bound
 * leaves the GPU idle while the CPU threads solve the pieces below it, a
 * smaller one costs more passes than it saves (bench/pair_path_tune.sh;
 * see bench/JOURNAL.md, 2026-11-26, splits of 2^26 cells). */
#define SW_PAIR_PATH_GPU_CELLS ((uint64_t)1 << 26)

/* The alignment of `r` (a result of sw_pair_align or sw_pair_align_best on
 * these sequences and this scoring): starts at (a_start, b_start), ends at
 * (a_end, b_end), and re-scores to r->score, else SW_ECORRUPT. A result
 * with score 0 gives an empty path. Ties: docs/PAIR_PATH.md. */
int sw_pair_path_find(const uint8_t *a, uint64_t a_len, const uint8_t *b, uint64_t b_len,
                      const sw_pair_scoring *scoring, const sw_pair_result *r, const sw_pair_path_options *options,
                      sw_pair_path **out, sw_error *err);

void sw_pair_path_free(sw_pair_path *p);

size_t sw_pair_path_runs(const sw_pair_path *p);
sw_pair_run sw_pair_path_run(const sw_pair_path *p, size_t k);
/* Where the alignment starts, 1-based (its first column holds a[a_start - 1]
 * and b[b_start - 1]). */
uint64_t sw_pair_path_a_start(const sw_pair_path *p);
uint64_t sw_pair_path_b_start(const sw_pair_path *p);
sw_pair_path_summary sw_pair_path_get_summary(const sw_pair_path *p);
/* Matches over alignment columns, in percent (0 for an empty alignment). */
static inline double sw_pair_path_identity(const sw_pair_path_summary *s)
{
    return s->columns ? 100.0 * (double)s->matches / (double)s->columns : 0.0;
}
/* Cells the divide and conquer computed (the band's, summed over its
 * passes). */
uint64_t sw_pair_path_cells(const sw_pair_path *p);
/* Of those, the passes run on the GPU and their cells (0 without it). */
uint64_t sw_pair_path_gpu_passes(const sw_pair_path *p);
uint64_t sw_pair_path_gpu_cells(const sw_pair_path *p);
/* Seconds during which at least one of those passes was on the GPU. */
double sw_pair_path_gpu_busy_seconds(const sw_pair_path *p);

/* Re-scores runs[0..n-1] starting at (a_start, b_start): *score, or
 * SW_EINVAL when a run leaves the sequences. The one scorer of paths. */
int sw_pair_path_rescore(const uint8_t *a, uint64_t a_len, const uint8_t *b, uint64_t b_len,
                         const sw_pair_scoring *scoring, uint64_t a_start, uint64_t b_start, const sw_pair_run *runs,
                         size_t n, sw_pair_path_summary *out, sw_error *err);

#ifdef __cplusplus
}
#endif

#endif
