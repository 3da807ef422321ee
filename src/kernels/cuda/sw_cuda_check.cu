/* The one translation of CUDA runtime errors into SW_E* codes (see
 * sw_cuda_check.h). */
#include "sw_cuda_check.h"

#include <cuda_runtime.h>

extern "C" int sw_cuda_fail(sw_error *err, cudaError_t e, const char *who, const char *where)
{
    cudaGetLastError();
    /* Every CUDA failure, out of GPU memory included, is a failure of the
     * GPU (SW_EDEVICE), never of the host: the search then falls back to the
     * CPU (sw_search_run), and pairwise alignment reports it. Host memory
     * stays SW_ENOMEM, which no command answers by changing device. */
    const int code = SW_EDEVICE;
    if (where) return sw_error_set(err, code, "%s: %s (%s)", who, cudaGetErrorString(e), where);
    return sw_error_set(err, code, "%s: %s", who, cudaGetErrorString(e));
}

extern "C" int sw_cuda_device_count(int *count, sw_error *err)
{
    *count = 0;
    const cudaError_t e = cudaGetDeviceCount(count);
    if (e != cudaSuccess) {
        *count = 0;
        cudaGetLastError(); /* clear the sticky error so later calls start clean */
        return sw_error_set(err, SW_ENODEV, "no usable GPU: %s", cudaGetErrorString(e));
    }
    return SW_OK;
}

extern "C" cudaError_t sw_cuda_upload(void *dev, const void *host, size_t bytes, cudaStream_t stream)
{
    if (bytes == 0) return cudaSuccess;
    const cudaError_t e = cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, stream);
    return e != cudaSuccess ? e : cudaStreamSynchronize(stream);
}
