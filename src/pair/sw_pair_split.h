/* The forward (local) pass of a megabase alignment cut into row slices of
 * the first sequence, one a process (an MPI rank), by the modified overlap
 * method: each slice but the first starts `overlap` rows early from a row
 * of zeros, so that no process waits for another; a slice whose row above
 * differs from the true last row of the slice above is recomputed from it,
 * round after round, until none differs. The result equals a single
 * engine's, whatever the input. The processes talk through sw_pair_slice_ops,
 * so the method does not depend on how they are connected. */
#ifndef SW_PAIR_SPLIT_H
#define SW_PAIR_SPLIT_H

#include "sw_pair_pass.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sw_pair_slice_ops {
    void *user;
    int rank, ranks;
    /* Sends the last row of this slice to rank + 1 (`changed` 0: the
     * row is the one sent before and is not sent again). */
    int (*send_next)(void *user, const sw_pair_edge *row, uint64_t n, int changed, sw_error *err);
    /* Receives what rank - 1 sent; *changed 0 leaves `row` as it was. */
    int (*recv_prev)(void *user, sw_pair_edge *row, uint64_t n, int *changed, sw_error *err);
    /* The largest of every rank's `value`, on every rank. */
    int (*max_all)(void *user, int64_t value, int64_t *out, sw_error *err);
    /* Every rank's SW_PAIR_SPLIT_FIELDS values, on every rank, rank by rank. */
    int (*gather_all)(void *user, const int64_t *mine, int64_t *all, sw_error *err);
    /* Column strips across ranks (sw_pair_ranks.h); NULL where the
     * transport has none. Sends rows first .. first + count - 1 (0-based)
     * of this rank's last column (`cells`, two int32 a row as in
     * sw_pair_column) to rank + 1, with the best score found so far;
     * `abort`: this rank gave up (count 0). */
    int (*send_column)(void *user, uint64_t first, uint64_t count, const int32_t *cells, int32_t best, int abort,
                       sw_error *err);
    /* Takes the next piece from rank - 1 into `column` if one has come
     * (*got 1; 0 otherwise): its cells, then its rows raised (release
     * order) and its best, or its abort set. */
    int (*poll_column)(void *user, sw_pair_column *column, int *got, sw_error *err);
} sw_pair_slice_ops;

/* Runs one slice's part of a local pass. `run` is the engine for a pass
 * over the slice's rows (with the pass's top and bottom rows set). */
typedef int (*sw_pair_slice_engine)(void *user, const sw_pair_pass *pass, sw_pair_hit *out, sw_error *err);

/* What each rank reports at the end: score, a_end, b_end, cells, recomputations. */
#define SW_PAIR_SPLIT_FIELDS 5

typedef struct sw_pair_split_stats {
    int rounds;         /* recomputation rounds after the first */
    int64_t recomputed; /* slice recomputations over all rounds and ranks */
    uint64_t cells;     /* cells computed by every rank, overlaps and recomputations included */
} sw_pair_split_stats;

/* Collective: SW_OK when every rank's rc is SW_OK, else this rank's rc, or
 * SW_EIO with a message when only another rank failed. */
int sw_pair_split_agree(const sw_pair_slice_ops *ops, int rc, sw_error *err);

/* Rows each slice starts early, unless asked otherwise. */
#define SW_PAIR_SPLIT_OVERLAP 256

/* The local pass of `pass` (no top or bottom rows of its own), cut between
 * ops->ranks processes; every rank calls it with the same pass and gets the
 * same result. overlap 0: SW_PAIR_SPLIT_OVERLAP. */
int sw_pair_split_run(const sw_pair_pass *pass, uint64_t overlap, const sw_pair_slice_ops *ops,
                      sw_pair_slice_engine engine, void *engine_user, sw_pair_hit *out, sw_pair_split_stats *stats,
                      sw_error *err);

#ifdef __cplusplus
}
#endif

#endif
