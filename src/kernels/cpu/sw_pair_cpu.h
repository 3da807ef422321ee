/* The multi-threaded CPU engine of megabase pairwise alignment: the columns
 * are split between threads, each thread sweeps its columns in blocks of
 * rows and hands the last column of every block to its right neighbour, so
 * the threads advance as a wavefront (memory linear in the lengths). */
#ifndef SW_PAIR_CPU_H
#define SW_PAIR_CPU_H

#include "sw_pair_pass.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Runs one pass on `threads` threads (0: every online processor). */
int sw_pair_cpu_run(const sw_pair_pass *pass, int threads, sw_pair_hit *out, sw_error *err);

/* The rows the engine on `threads` threads holds at once (a block of rows
 * a thread, each a block behind the one on its left): a strip of columns
 * on the right starts about as late as the last thread takes to reach
 * them (sw_pair_strips.h). */
uint64_t sw_pair_cpu_rows_in_flight(int threads);

/* The same pass in one thread, cell by cell, kept short and obviously
 * right: the oracle of the tests. */
int sw_pair_cpu_reference(const sw_pair_pass *pass, sw_pair_hit *out, sw_error *err);

#ifdef __cplusplus
}
#endif

#endif
