/* The timeline of a search (private to the GPU engine): spans of launches
 * and copies, bracketed by events on their streams. */
#ifndef SW_GPU_TIMELINE_CUH
#define SW_GPU_TIMELINE_CUH

#include "sw_gpu_engine_state.cuh"

namespace sw_gpu_detail {

/* Nonzero when the search records spans (tuning.timeline or .profile). */
int spans_wanted(const sw_gpu_engine *e);

/* Starts the timeline of a search: no spans yet, and the origin that they
 * are timed from recorded on the scan stream. */
int timeline_start(sw_gpu_engine *e, sw_error *err);

/* Opens a span of the timeline on `st` (nothing unless spans_wanted());
 * *id is what span_end() takes. */
int span_begin(sw_gpu_engine *e, int kind, cudaStream_t st, size_t query, int bucket, size_t *id, sw_error *err);

int span_end(sw_gpu_engine *e, size_t id, cudaStream_t st, sw_error *err);

/* Times every span of the search once its work is done, and adds each
 * bucket kernel's time to bucket_seconds[its statistics bucket]. */
int collect_timeline(sw_gpu_engine *e, double *bucket_seconds, sw_error *err);

} /* namespace sw_gpu_detail */

#endif
