/* A pass in column strips across processes (MPI ranks), CUDAlign 4.0's
 * pipeline between machines: rank k computes columns of the second
 * sequence from widths[0] + ... + widths[k - 1] on, every row, on its own
 * engine; the cells of its last column go to rank k + 1 in pieces as its
 * engine fills them, and rank k + 1's engine starts each block of rows as
 * soon as its piece has come. The calling thread carries the pieces (the
 * slice operations' send_column and poll_column) while a thread of its
 * own runs the engine, so MPI is called from one thread only. Every rank
 * gets the same result: the whole pass's. */
#ifndef SW_PAIR_RANKS_H
#define SW_PAIR_RANKS_H

#include "sw_pair_split.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Runs `strip` (this rank's columns of the pass, with its left and right
 * columns and col_base set; b_len 0 for a rank without columns) on
 * `engine`, relaying its columns, then agrees with every rank on the
 * whole pass's hit: a local pass's best, an anchored pass's first cell
 * reaching the target (columns of the whole matrix). `progress` (may be
 * NULL) is called from this thread every `interval` seconds with this
 * rank's cells done. */
int sw_pair_ranks_run(const sw_pair_pass *strip, const sw_pair_slice_ops *ops, sw_pair_slice_engine engine,
                      void *engine_user, void (*progress)(void *user, uint64_t done), void *progress_user,
                      double interval, sw_pair_hit *out, sw_error *err);

#ifdef __cplusplus
}
#endif

#endif
