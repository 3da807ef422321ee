/* The one translation of CUDA runtime errors into SW_E* codes, for every
 * CUDA source: every failure, out of GPU memory included, is SW_EDEVICE. */
#ifndef SW_CUDA_CHECK_H
#define SW_CUDA_CHECK_H

#include <cuda_runtime_api.h>

#include "sw_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fills `err` with "<who>: <CUDA's message> (<where>)", or without
 * " (<where>)" when `where` is NULL, and returns SW_EDEVICE (out of GPU
 * memory included: the message says so). `who` names the GPU or the engine on it.
 * Clears the runtime's last error, so that later calls start clean. */
int sw_cuda_fail(sw_error *err, cudaError_t e, const char *who, const char *where);

/* The number of CUDA devices into *count (0 when there is none); SW_ENODEV
 * ("no usable GPU: <CUDA's message>") when the runtime cannot count them,
 * for instance without a driver. */
int sw_cuda_device_count(int *count, sw_error *err);

/* Copies `bytes` of host memory to the device on `stream` and returns once
 * the device holds them, so that a kernel on any stream may read them. A
 * plain cudaMemcpy from pageable memory returns as soon as the data is
 * staged, before the device has it, and it runs on the legacy stream, which
 * a non-blocking stream does not wait for: a kernel started right after on
 * such a stream may read what the memory held before. */
cudaError_t sw_cuda_upload(void *dev, const void *host, size_t bytes, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

/* Returns sw_cuda_fail(err, ...) from the calling function, whose error
 * record is named `err`, when `call` fails. */
#define SW_CUDA_CHECK(call, who, where)                                           \
    do {                                                                          \
        const cudaError_t sw_cuda_e_ = (call);                                    \
        if (sw_cuda_e_ != cudaSuccess) return sw_cuda_fail(err, sw_cuda_e_, who, where); \
    } while (0)

#endif
