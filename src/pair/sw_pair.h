/* Megabase pairwise alignment: the best local alignment of two DNA
 * sequences of up to hundreds of millions of bases, exact, with affine gaps,
 * in memory linear in their lengths. A forward pass finds the best score and
 * its end cell; an anchored pass over the reversed prefixes finds its start
 * (see sw_pair_pass.h for the scoring and the order of ties). */
#ifndef SW_PAIR_H
#define SW_PAIR_H

#include <stdint.h>

#include "sw_error.h"
#include "sw_pair_pass.h"
#include "sw_pair_split.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    SW_PAIR_ENGINE_AUTO = 0,     /* GPU usable: sw_pair_choose_engine(); else the CPU engine */
    SW_PAIR_ENGINE_CPU = 1,
    SW_PAIR_ENGINE_CUDALIGN = 2, /* GPU wavefront engine */
    SW_PAIR_ENGINE_OVERLAP = 3   /* GPU overlap engine (forward pass; the start pass runs on cudalign) */
} sw_pair_engine;

/* Called now and then from the thread that called sw_pair_align():
 * `pass` 1 (forward) or 2 (start), cells done of `total` in that pass
 * (the second pass's total is an upper bound: it stops once it has found
 * the start). */
typedef void (*sw_pair_progress_fn)(void *user, int pass, uint64_t done, uint64_t total);

typedef struct sw_pair_options {
    sw_pair_engine engine;
    int threads;          /* CPU engine; 0: every online processor */
    int device;           /* GPU engine: CUDA device */
    sw_pair_progress_fn progress; /* may be NULL */
    void *progress_user;
    double progress_interval; /* seconds between calls; 0: 1 */
    sw_warn_fn note;      /* why the engine asked for is not the one used; may be NULL */
    void *note_user;
    int no_pruning;       /* GPU engine: compute every cell (pruning is exact; this is for measuring it) */
    /* Several processes (MPI ranks): each computes a slice of the forward
     * pass's rows on the engine asked for; the start pass runs on rank 0,
     * the only one whose result has the start. NULL: one process. */
    const sw_pair_slice_ops *slices;
    /* GPU engines in one process: the forward pass on this many GPUs
     * (see row_slices); 0 or 1: one GPU. */
    int gpus;
    /* The CUDA device of each of those slices, gpus of them; NULL: device,
     * device + 1, ... A device may repeat: its slices then share it. */
    const int *devices;
    /* Several GPUs in one process: the CUDAlign engine's forward pass runs
     * in column strips (sw_pair_gpu_strips_run, the default), or with
     * this set in row slices like the processes above (for comparison).
     * The overlap engine always runs row slices. */
    int row_slices;
    /* Cells no alignment may use (sw_pair_pass.h): both passes honor
     * them. sw_pair_align_best() sets them; NULL: none. */
    const sw_pair_box *forbidden;
    int forbidden_count;
} sw_pair_options;

typedef struct sw_pair_result {
    int32_t score;            /* 0: no positive alignment, and every coordinate 0 */
    uint64_t a_start, a_end;  /* 1-based, inclusive */
    uint64_t b_start, b_end;
    uint64_t forward_cells, reverse_cells;   /* computed */
    uint64_t forward_pruned, reverse_pruned; /* skipped by pruning */
    double forward_seconds, reverse_seconds;
    sw_pair_engine engine;    /* the engine that ran the forward pass */
    /* overlap engine, or slices across processes: recomputation rounds
     * after the first, chunks (slices) of the first round, and chunks
     * recomputed over all rounds */
    int rounds;
    int64_t chunks, recomputed;
    int strips; /* column strips of the forward pass across GPUs (0: it ran otherwise) */
} sw_pair_result;

int sw_pair_align(const uint8_t *a, uint64_t a_len, const uint8_t *b, uint64_t b_len,
                  const sw_pair_scoring *scoring, const sw_pair_options *options, sw_pair_result *out,
                  sw_error *err);

/* The k best alignments that do not overlap (best-K): out[0] is what
 * sw_pair_align() gives; out[r] is the best local alignment that uses no
 * cell of the boxes (start to end, both sequences) of out[0] .. out[r - 1],
 * that is, the best alignment of the matrix where those boxes are
 * forbidden. Stops early where no positive alignment is left; *found: how
 * many out[] holds. Ties: the order of sw_pair_pass.h. One process only
 * (options->slices must be NULL or one rank). */
int sw_pair_align_best(const uint8_t *a, uint64_t a_len, const uint8_t *b, uint64_t b_len,
                       const sw_pair_scoring *scoring, const sw_pair_options *options, int k, sw_pair_result *out,
                       int *found, sw_error *err);

const char *sw_pair_engine_name(sw_pair_engine engine);

/* Whether the k best alignments can be asked for with these slices: best-K
 * runs in one process, so k > 1 needs no slices or one rank. The one place
 * this is decided; a caller words the refusal for its users. */
int sw_pair_best_allowed(int k, const sw_pair_slice_ops *slices);

/* The longer sequence at least this many times the shorter: auto runs the
 * overlap engine, else the CUDAlign engine (measured crossover on an H100,
 * docs/OVERLAP.md). */
#define SW_PAIR_OVERLAP_RATIO 8

/* The GPU engine auto takes for a forward pass of rows x cols cells, whole
 * (parts <= 1) or cut into `parts` row slices (between GPUs or processes),
 * whose shape then decides. The one place this rule is written. */
sw_pair_engine sw_pair_choose_engine(uint64_t rows, uint64_t cols, int parts);

#ifdef __cplusplus
}
#endif

#endif
