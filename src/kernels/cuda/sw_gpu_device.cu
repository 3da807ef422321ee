/* GPU discovery through the CUDA runtime. */
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "sw_cuda_check.h"
#include "sw_gpu.h"

extern "C" int sw_gpu_compiled(void) { return 1; }

extern "C" int sw_gpu_list(sw_gpu_info *infos, int max, int *count, sw_error *err)
{
    *count = 0;
    int n = 0;
    int rc = sw_cuda_device_count(&n, err);
    if (rc) return rc;
    if (n == 0) return sw_error_set(err, SW_ENODEV, "no usable GPU: no CUDA device found");
    for (int i = 0; i < n && i < max; i++) {
        cudaDeviceProp p;
        const cudaError_t e = cudaGetDeviceProperties(&p, i);
        if (e != cudaSuccess) {
            char who[32];
            snprintf(who, sizeof who, "GPU %d", i);
            return sw_cuda_fail(err, e, who, NULL);
        }
        sw_gpu_info *g = &infos[i];
        g->id = i;
        snprintf(g->name, sizeof g->name, "%s", p.name);
        g->compute_major = p.major;
        g->compute_minor = p.minor;
        g->multiprocessors = p.multiProcessorCount;
        g->global_memory = (unsigned long long)p.totalGlobalMem;
    }
    *count = n;
    return SW_OK;
}

struct sw_gpu_warm_up {
    pthread_t thread;
    int device;
};

static void *warm_up(void *arg)
{
    const sw_gpu_warm_up *w = (const sw_gpu_warm_up *)arg;
    /* The runtime creates the device's primary context on first use; every
     * thread of the process shares it afterwards. Errors are left for the
     * real use to report. */
    if (cudaSetDevice(w->device) == cudaSuccess) cudaFree(0);
    return NULL;
}

extern "C" sw_gpu_warm_up *sw_gpu_warm_up_start(int device)
{
    sw_gpu_warm_up *w = (sw_gpu_warm_up *)malloc(sizeof *w);
    if (!w) return NULL;
    w->device = device;
    if (pthread_create(&w->thread, NULL, warm_up, w)) {
        free(w);
        return NULL;
    }
    return w;
}

extern "C" void sw_gpu_warm_up_finish(sw_gpu_warm_up *w)
{
    if (!w) return;
    pthread_join(w->thread, NULL);
    free(w);
}
