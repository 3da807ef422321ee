/* Device-side launches (dynamic parallelism): one parent kernel per query and
 * database batch launches every bucket kernel, the intra-task one included,
 * each into a fire-and-forget stream. It replaces the host's fork and join
 * over the bucket streams; the engine uses it when asked
 * (sw_gpu_tuning.device_launch) in builds with
 * SW_ENABLE_DEVICE_LAUNCH, which need relocatable device code. */
#include "sw_gpu_kernels.cuh"

#ifdef SW_GK_DEVICE_LAUNCH

namespace {

/* One thread launches in list order: the engine lists the longest buckets
 * first, so they reach the multiprocessors first, as on the host. */
__global__ void launcher_kernel(const sw_gk_launch_list list)
{
    if (threadIdx.x != 0) return;
    for (int i = 0; i < list.count; ++i) {
        const sw_gk_child_launch *c = &list.child[i];
        const cudaError_t e = c->intra
                                  ? sw_gk_intra_launch_device(c->id, c->blocks, c->threads, c->smem, &c->p.intra)
                                  : sw_gk_align_launch_device(c->id, c->blocks, c->threads, c->smem, &c->p.align);
        if (e != cudaSuccess) {
            atomicCAS(list.error, 0u, (uint32_t)e);
            return;
        }
    }
}

} /* namespace */

int sw_gk_device_launch_compiled(void) { return 1; }

cudaError_t sw_gk_launcher_launch(cudaStream_t stream, const sw_gk_launch_list *list)
{
    launcher_kernel<<<1, 32, 0, stream>>>(*list);
    return cudaGetLastError();
}

#else

int sw_gk_device_launch_compiled(void) { return 0; }

cudaError_t sw_gk_launcher_launch(cudaStream_t stream, const sw_gk_launch_list *list)
{
    (void)stream;
    (void)list;
    return cudaErrorNotSupported;
}

#endif
