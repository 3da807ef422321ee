/* The plan of the GPU engine (private): length buckets and database
 * batches. */
#ifndef SW_GPU_PLAN_CUH
#define SW_GPU_PLAN_CUH

#include "sw_gpu_engine_state.cuh"

namespace sw_gpu_detail {

/* The plan entries (e->plan) for the engine's options: inter-task kernels
 * by length, the 32-bit recomputation kernel (e->wide_config) and, above
 * the threshold, the intra-task kernel. */
void make_plan(sw_gpu_engine *e);

/* Device bytes a database sequence costs besides its residues (offsets,
 * length, tie-break, and each slot's score, overflow and candidate
 * entries); the reserve for a search's working buffers in `budget` bytes;
 * and whether a database of `num_seqs` sequences and `residues` residues
 * stays on the GPU within `budget`. */
uint64_t per_seq_bytes();
uint64_t working_reserve(uint64_t budget);
int fits_on_gpu(uint64_t num_seqs, uint64_t residues, uint64_t budget);

/* Whether the database of e->num_seqs sequences (`lengths`, starting at
 * `offsets`) stays on the GPU (e->resident), and its batches (e->batches:
 * one when it stays, else as many as the batch capacity needs). */
int make_batches(sw_gpu_engine *e, const uint32_t *lengths, const uint64_t *offsets, sw_error *err);

/* Splits the sorted sequences of each batch into runs that share a plan entry. */
int make_buckets(sw_gpu_engine *e, const uint32_t *lengths, sw_error *err);

} /* namespace sw_gpu_detail */

#endif
