/* The GPU inter-task engine's knobs for benchmarks and tests
 * (sw_gpu_engine_options.tuning): kernel shapes, streams, timing. A search
 * sets none of them; every zero field is the engine's default. */
#ifndef SW_GPU_TUNING_H
#define SW_GPU_TUNING_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sw_gpu_tuning {
    /* Streams over which the length buckets of one query run concurrently;
     * 0: 4. 1 runs them one after another. */
    int bucket_streams;
    /* Nonzero: buckets run one after another and each is timed into
     * sw_gpu_stats.buckets (slower; for finding where the time goes). */
    int profile;
    /* Largest columns per thread for the single-pass kernels (16..32; 0: 28).
     * Smaller values trade padding for occupancy; for benchmarks. */
    int max_columns_per_thread;
    /* Intra-task kernel shape, for benchmarks: query rows per thread (8 or
     * 16) and warps per block (1..16); 0: the engine's rule. */
    int intra_tile;
    int intra_warps;
    /* Nonzero: every kernel launch and copy of a search is bracketed by
     * timing events on its stream, and sw_gpu_engine_timeline() returns
     * them (a little slower; for showing what overlaps). */
    int timeline;
    /* Nonzero: the kernels of each query are launched by a parent kernel on
     * the GPU (dynamic parallelism) instead of from the host over the bucket
     * streams. Needs a build with SW_ENABLE_DEVICE_LAUNCH; for benchmarks. */
    int device_launch;
    /* The shape of the kernels with the query across the threads
     * (sw_gpu_engine_options.qp_max_length), for tests and benchmarks:
     * threads a group (4, 8, 16, 32) and query positions a thread (16..32);
     * 0: the engine's rule. A query longer than one pass of the shape takes
     * its multipass kernel where one is compiled, else the rule's. */
    int qp_group_size;
    int qp_columns;
} sw_gpu_tuning;

#ifdef __cplusplus
}
#endif

#endif
