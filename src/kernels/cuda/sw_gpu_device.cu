/* GPU discovery through the CUDA runtime. */
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "sw_cuda_check.h"
#include "sw_gpu.h"
#include "sw_pool.h"

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

extern "C" int sw_gpu_memory(int device, unsigned long long *free_bytes, unsigned long long *total_bytes,
                             sw_error *err)
{
    char who[32];
    snprintf(who, sizeof who, "GPU %d", device);
    cudaError_t e = cudaSetDevice(device);
    size_t f = 0, t = 0;
    if (e == cudaSuccess) e = cudaMemGetInfo(&f, &t);
    if (e != cudaSuccess) return sw_cuda_fail(err, e, who, "cudaMemGetInfo");
    *free_bytes = f;
    *total_bytes = t;
    return SW_OK;
}

/* A thread of its own that starts the devices' contexts on workers of the
 * one pool, one a device. */
struct sw_gpu_warm_up {
    pthread_t thread;
    int devices[64]; /* distinct */
    int count;       /* 0: every device (or the share) */
    int share_first, share_local, share_k; /* share_k > 0: sw_gpu_share() of the first share_first (0: all) */
};

static void warm_device(void *arg, int index)
{
    /* The runtime creates the device's primary context on first use; every
     * thread of the process shares it afterwards. Errors are left for the
     * real use to report. */
    const sw_gpu_warm_up *w = (const sw_gpu_warm_up *)arg;
    if (cudaSetDevice(w->devices[index]) == cudaSuccess) cudaFree(0);
}

static void *warm_up(void *arg)
{
    sw_gpu_warm_up *w = (sw_gpu_warm_up *)arg;
    if (w->count == 0) {
        int n = 0;
        if (cudaGetDeviceCount(&n) != cudaSuccess) {
            cudaGetLastError();
            return NULL;
        }
        n = n < 64 ? n : 64;
        if (w->share_k > 0) {
            if (w->share_first > 0 && w->share_first < n) n = w->share_first;
            w->count = sw_gpu_share(n, w->share_local, w->share_k, w->devices);
        } else {
            w->count = n;
            for (int i = 0; i < w->count; i++) w->devices[i] = i;
        }
    }
    int started = 0;
    sw_pool_run(w->count, warm_device, w, &started);
    for (int i = started; i < w->count; i++) warm_device(w, i); /* what no thread took */
    return NULL;
}

extern "C" sw_gpu_warm_up *sw_gpu_warm_up_start(const int *devices, int count)
{
    if (count < 0 || count > 64) return NULL;
    sw_gpu_warm_up *w = (sw_gpu_warm_up *)calloc(1, sizeof *w);
    if (!w) return NULL;
    /* Devices listed twice (several slices on one GPU) warm once. */
    for (int i = 0; i < count; i++) {
        int seen = 0;
        for (int k = 0; k < w->count; k++) seen |= w->devices[k] == devices[i];
        if (!seen) w->devices[w->count++] = devices[i];
    }
    if (pthread_create(&w->thread, NULL, warm_up, w)) {
        free(w);
        return NULL;
    }
    return w;
}

extern "C" sw_gpu_warm_up *sw_gpu_warm_up_start_share(int first, int local, int k)
{
    if (k <= 0 || local < 0) return NULL;
    sw_gpu_warm_up *w = (sw_gpu_warm_up *)calloc(1, sizeof *w);
    if (!w) return NULL;
    w->share_first = first;
    w->share_local = local;
    w->share_k = k;
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
