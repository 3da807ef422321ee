/* Launches of the GPU engine (private): kernel shapes for a search, and
 * the launches of one query. */
#ifndef SW_GPU_LAUNCH_CUH
#define SW_GPU_LAUNCH_CUH

#include "sw_gpu_engine_state.cuh"

namespace sw_gpu_detail {

/* The launch shape of kernel `id` for `smem` bytes of shared memory (e->shapes). */
int prepare_kernel(sw_gpu_engine *e, int id, size_t smem, sw_error *err);

/* Column buffers of the multipass kernels, sized for this search. */
int prepare_temp(sw_gpu_engine *e, search_ctx *c, sw_error *err);

/* Query profiles and row buffers of the intra-task kernel, sized for the
 * queries of this search. */
int prepare_intra(sw_gpu_engine *e, const size_t *lens, size_t nq, sw_error *err);

/* Launch shapes, query profiles and column buffers of the kernels with the
 * query across the threads, for the queries of this search. */
int prepare_qp(sw_gpu_engine *e, const size_t *lens, size_t nq, sw_error *err);

/* The query-across-threads shape that takes the intra-task kernel's
 * sequences for a query of `qlen` residues (opt.qp_giants), or -1. */
int giant_shape(const sw_gpu_engine *e, size_t qlen);

/* The query profile of the query in slot `s` for its shape, on `stream`:
 * for the main launch (giants 0) or for the longest sequences' launch
 * (giants 1, giant_shape). */
int build_qp_profile(sw_gpu_engine *e, const search_ctx *c, slot *s, size_t q_offset, size_t qlen, int giants,
                     cudaStream_t stream, sw_error *err);

/* The 32-bit recomputation of batch `b` for the query in slot `s`, on `stream`. */
int launch_wide(sw_gpu_engine *e, const search_ctx *c, slot *s, size_t b, const uint8_t *res, size_t q_offset,
                size_t qlen, cudaStream_t stream, sw_error *err);

/* Every bucket of batch `b` for the query in slot `s`; `join` waits for them all. */
int launch_buckets(sw_gpu_engine *e, const search_ctx *c, slot *s, size_t b, const uint8_t *res, size_t q_offset,
                   size_t qlen, cudaStream_t join, sw_error *err);

} /* namespace sw_gpu_detail */

#endif
