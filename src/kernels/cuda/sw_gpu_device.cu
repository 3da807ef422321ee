/* GPU discovery through the CUDA runtime. */
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdint.h>
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

/* One thread a device; a thread that cannot start leaves its device cold. */
struct sw_gpu_warm_up {
    pthread_t thread;
    int devices[64];
    int count;     /* 0: every device */
    pthread_t workers[64];
    int started[64];
};

static void *warm_device(void *arg)
{
    /* The runtime creates the device's primary context on first use; every
     * thread of the process shares it afterwards. Errors are left for the
     * real use to report. */
    const int device = (int)(intptr_t)arg;
    if (cudaSetDevice(device) == cudaSuccess) cudaFree(0);
    return NULL;
}

static void *warm_up(void *arg)
{
    sw_gpu_warm_up *w = (sw_gpu_warm_up *)arg;
    int n = w->count;
    if (n == 0) {
        if (cudaGetDeviceCount(&n) != cudaSuccess) {
            cudaGetLastError();
            return NULL;
        }
        if (n > 64) n = 64;
        for (int i = 0; i < n; i++) w->devices[i] = i;
    }
    /* Devices listed twice (several slices on one GPU) warm once. */
    for (int i = 0; i < n; i++) {
        int seen = 0;
        for (int k = 0; k < i; k++) seen |= w->devices[k] == w->devices[i];
        if (!seen)
            w->started[i] = !pthread_create(&w->workers[i], NULL, warm_device, (void *)(intptr_t)w->devices[i]);
    }
    for (int i = 0; i < n; i++)
        if (w->started[i]) pthread_join(w->workers[i], NULL);
    return NULL;
}

extern "C" sw_gpu_warm_up *sw_gpu_warm_up_start(const int *devices, int count)
{
    if (count < 0 || count > 64) return NULL;
    sw_gpu_warm_up *w = (sw_gpu_warm_up *)calloc(1, sizeof *w);
    if (!w) return NULL;
    w->count = count;
    for (int i = 0; i < count; i++) w->devices[i] = devices[i];
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
